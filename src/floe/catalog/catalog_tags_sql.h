#pragma once

// floe's record of catalog tags, beside Iceberg's JDBC-catalog tables (which Spark's
// JdbcCatalog and PyIceberg's SqlCatalog never read):
//
//   floe_catalog_tags(catalog_name, tag_name, tag_namespace, created_at_ms, max_ref_age_ms,
//                     transaction_id)
//   floe_catalog_tag_tables(catalog_name, tag_name, table_namespace, table_name, table_uuid,
//                           snapshot_id)
//
// One row per tag (tag_namespace NULL: the whole catalog; max_ref_age_ms NULL: kept until
// dropped) and one per table it covered (snapshot_id NULL: the table had no snapshot and got
// no tag ref). Both are written and deleted in the catalog transaction that swaps the tables'
// pointers. The tables are created by the first catalog tag.
//
// SQL that SQLite and PostgreSQL both accept; parameters ?1..?n, bound as text.

namespace floe::catalog_tags_sql {

inline constexpr char kCreateTags[] =
    "CREATE TABLE IF NOT EXISTS floe_catalog_tags("
    "catalog_name VARCHAR(255) NOT NULL,"
    "tag_name VARCHAR(255) NOT NULL,"
    "tag_namespace VARCHAR(255),"
    "created_at_ms BIGINT NOT NULL,"
    "max_ref_age_ms BIGINT,"
    "transaction_id VARCHAR(64),"
    "PRIMARY KEY (catalog_name, tag_name))";
inline constexpr char kCreateTables[] =
    "CREATE TABLE IF NOT EXISTS floe_catalog_tag_tables("
    "catalog_name VARCHAR(255) NOT NULL,"
    "tag_name VARCHAR(255) NOT NULL,"
    "table_namespace VARCHAR(255) NOT NULL,"
    "table_name VARCHAR(255) NOT NULL,"
    "table_uuid VARCHAR(64),"
    "snapshot_id BIGINT,"
    "PRIMARY KEY (catalog_name, tag_name, table_namespace, table_name))";

// ?1 catalog, ?2 tag, ?3 namespace, ?4 created at, ?5 max ref age, ?6 transaction id.
inline constexpr char kInsertTag[] =
    "INSERT INTO floe_catalog_tags (catalog_name, tag_name, tag_namespace, created_at_ms, "
    "max_ref_age_ms, transaction_id) VALUES (?1, ?2, ?3, CAST(?4 AS BIGINT), "
    "CAST(?5 AS BIGINT), ?6)";
// ?1 catalog, ?2 tag, ?3 namespace, ?4 table, ?5 uuid, ?6 snapshot id.
inline constexpr char kInsertTable[] =
    "INSERT INTO floe_catalog_tag_tables (catalog_name, tag_name, table_namespace, table_name, "
    "table_uuid, snapshot_id) VALUES (?1, ?2, ?3, ?4, ?5, CAST(?6 AS BIGINT))";

// ?1 catalog, ?2 tag.
inline constexpr char kDeleteTag[] =
    "DELETE FROM floe_catalog_tags WHERE catalog_name = ?1 AND tag_name = ?2";
inline constexpr char kDeleteTables[] =
    "DELETE FROM floe_catalog_tag_tables WHERE catalog_name = ?1 AND tag_name = ?2";

// Columns: tag_name, tag_namespace, created_at_ms, max_ref_age_ms, transaction_id. ?1 catalog;
// the second form ?2 tag.
inline constexpr char kSelectTags[] =
    "SELECT tag_name, tag_namespace, created_at_ms, max_ref_age_ms, transaction_id "
    "FROM floe_catalog_tags WHERE catalog_name = ?1 ORDER BY created_at_ms, tag_name";
inline constexpr char kSelectTag[] =
    "SELECT tag_name, tag_namespace, created_at_ms, max_ref_age_ms, transaction_id "
    "FROM floe_catalog_tags WHERE catalog_name = ?1 AND tag_name = ?2";
// Columns: tag_name, table_namespace, table_name, table_uuid, snapshot_id.
inline constexpr char kSelectAllTables[] =
    "SELECT tag_name, table_namespace, table_name, table_uuid, snapshot_id "
    "FROM floe_catalog_tag_tables WHERE catalog_name = ?1 "
    "ORDER BY tag_name, table_namespace, table_name";
inline constexpr char kSelectTables[] =
    "SELECT tag_name, table_namespace, table_name, table_uuid, snapshot_id "
    "FROM floe_catalog_tag_tables WHERE catalog_name = ?1 AND tag_name = ?2 "
    "ORDER BY table_namespace, table_name";

}  // namespace floe::catalog_tags_sql
