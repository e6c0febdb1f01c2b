#pragma once

// floe's record of dropped tables, kept in the catalog database beside Iceberg's
// JDBC-catalog tables (which Spark's JdbcCatalog and PyIceberg's SqlCatalog read alone, so
// they never see it):
//
//   floe_dropped_tables(catalog_name, drop_id, table_namespace, table_name,
//                       metadata_location, dropped_at, purged)
//
// One row per DROP TABLE: drop_id grows with each drop in a catalog (the newest drop of a
// name has the largest), dropped_at is UTC milliseconds, purged is 1 for DROP TABLE ... PURGE
// (whose files are deleted: UNDROP skips it, and names it when nothing else is left) and 0
// otherwise. UNDROP TABLE deletes the row it restored. The table is created by the first drop
// that records one.
//
// The text is SQL that SQLite and PostgreSQL both accept, so every driver shares it.
// Parameters are numbered ?1..?n; a driver whose placeholders differ (libpq's $1) rewrites
// them. Values are bound as text.

namespace floe::dropped_tables_sql {

inline constexpr char kCreateTable[] =
    "CREATE TABLE IF NOT EXISTS floe_dropped_tables("
    "catalog_name VARCHAR(255) NOT NULL,"
    "drop_id BIGINT NOT NULL,"
    "table_namespace VARCHAR(255) NOT NULL,"
    "table_name VARCHAR(255) NOT NULL,"
    "metadata_location VARCHAR(1000),"
    "dropped_at BIGINT NOT NULL,"
    "purged SMALLINT NOT NULL,"
    "PRIMARY KEY (catalog_name, drop_id))";

// ?1 catalog, ?2 namespace, ?3 table, ?4 metadata location, ?5 dropped at, ?6 purged (0/1).
// Runs inside the transaction that deletes the catalog entry, so drop ids never collide.
inline constexpr char kInsert[] =
    "INSERT INTO floe_dropped_tables (catalog_name, drop_id, table_namespace, table_name, "
    "metadata_location, dropped_at, purged) "
    "SELECT ?1, COALESCE(MAX(drop_id), 0) + 1, ?2, ?3, ?4, CAST(?5 AS BIGINT), "
    "CAST(?6 AS SMALLINT) FROM floe_dropped_tables WHERE catalog_name = ?1";

// What UNDROP restores: the newest drop of one name that was not purged, else the newest
// purged one (so UNDROP can say it was purged). ?1 catalog, ?2 namespace, ?3 table.
// Columns: drop_id, metadata_location, dropped_at, purged.
inline constexpr char kSelectNewest[] =
    "SELECT drop_id, metadata_location, dropped_at, purged FROM floe_dropped_tables "
    "WHERE catalog_name = ?1 AND table_namespace = ?2 AND table_name = ?3 "
    "ORDER BY purged ASC, drop_id DESC LIMIT 1";

// Drops that UNDROP can restore, newest first: all but the purged ones. ?1 catalog; the
// second form keeps one namespace, ?2.
// Columns: drop_id, table_namespace, table_name, metadata_location, dropped_at.
inline constexpr char kSelectRestorable[] =
    "SELECT drop_id, table_namespace, table_name, metadata_location, dropped_at "
    "FROM floe_dropped_tables WHERE catalog_name = ?1 AND purged = 0 "
    "ORDER BY drop_id DESC";
inline constexpr char kSelectRestorableInNamespace[] =
    "SELECT drop_id, table_namespace, table_name, metadata_location, dropped_at "
    "FROM floe_dropped_tables WHERE catalog_name = ?1 AND table_namespace = ?2 AND purged = 0 "
    "ORDER BY drop_id DESC";

// ?1 catalog, ?2 drop id.
inline constexpr char kDelete[] =
    "DELETE FROM floe_dropped_tables WHERE catalog_name = ?1 AND drop_id = CAST(?2 AS BIGINT)";

}  // namespace floe::dropped_tables_sql
