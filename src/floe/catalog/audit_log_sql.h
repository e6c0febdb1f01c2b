#pragma once

// The audit log's table and trigger, beside Iceberg's JDBC-catalog tables:
//
//   floe_audit_log(seq, at_ms, catalog_name, table_namespace, table_name, kind, operation,
//                  previous_metadata_location, metadata_location, previous_snapshot_id,
//                  snapshot_id, refs, user_name, client, client_address, application_name,
//                  statement, detail, classified)
//
// seq grows with every row and is never reused (PostgreSQL may skip the numbers of
// transactions that rolled back). floe writes its row in the transaction that
// moves the pointer, before the move. The trigger on iceberg_tables writes a row for every
// move nobody recorded that way: another engine's commit (Spark's or Trino's JdbcCatalog,
// PyIceberg's SqlCatalog), a create, a drop or a rename. Its rows have kind 'external' and
// classified 0 until floe names what moved. On SQLite the trigger sees floe's row as the
// newest of that table with the same two locations; on PostgreSQL floe's transaction says
// so in the setting floe.audit_recorded, so the trigger reads nothing (reading the log in a
// SERIALIZABLE transaction would make writers of different tables conflict).
//
// Parameters are numbered ?1..?n and bound as text.

namespace floe::audit_log_sql {

// The columns floe writes, in the order of kInsert's parameters ?1..?18.
#define FLOE_AUDIT_COLUMNS                                                                     \
  "at_ms, catalog_name, table_namespace, table_name, kind, operation, "                        \
  "previous_metadata_location, metadata_location, previous_snapshot_id, snapshot_id, refs, "   \
  "user_name, client, client_address, application_name, statement, detail, classified"

#define FLOE_AUDIT_COLUMN_TYPES                                                                \
  "at_ms BIGINT NOT NULL, catalog_name VARCHAR(255) NOT NULL, "                                \
  "table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, "                  \
  "kind VARCHAR(32) NOT NULL, operation VARCHAR(64), "                                         \
  "previous_metadata_location VARCHAR(1000), metadata_location VARCHAR(1000), "                \
  "previous_snapshot_id BIGINT, snapshot_id BIGINT, refs TEXT, user_name VARCHAR(255), "       \
  "client VARCHAR(255), client_address VARCHAR(255), application_name VARCHAR(255), "          \
  "statement TEXT, detail TEXT, classified SMALLINT NOT NULL)"

inline constexpr char kCreateTableSqlite[] =
    "CREATE TABLE floe_audit_log(seq INTEGER PRIMARY KEY AUTOINCREMENT, " FLOE_AUDIT_COLUMN_TYPES;
inline constexpr char kCreateTablePostgres[] =
    "CREATE TABLE floe_audit_log(seq BIGSERIAL PRIMARY KEY, " FLOE_AUDIT_COLUMN_TYPES;
// A table's rows in order (floe audit db.t, the trigger's test of the newest row), and the
// catalog's.
inline constexpr char kCreateTableIndex[] =
    "CREATE INDEX floe_audit_log_table ON floe_audit_log"
    "(catalog_name, table_namespace, table_name, seq)";
inline constexpr char kCreateCatalogIndex[] =
    "CREATE INDEX floe_audit_log_catalog ON floe_audit_log(catalog_name, seq)";

#define FLOE_AUDIT_VALUES                                                                      \
  "CAST(?1 AS BIGINT), ?2, ?3, ?4, ?5, ?6, ?7, ?8, CAST(?9 AS BIGINT), CAST(?10 AS BIGINT), "  \
  "?11, ?12, ?13, ?14, ?15, ?16, ?17, CAST(?18 AS SMALLINT)"

inline constexpr char kInsertSqlite[] =
    "INSERT INTO floe_audit_log (" FLOE_AUDIT_COLUMNS ") VALUES (" FLOE_AUDIT_VALUES ")";
// Also tells the trigger, for the rest of the transaction, that the move is recorded.
inline constexpr char kInsertPostgres[] =
    "INSERT INTO floe_audit_log (" FLOE_AUDIT_COLUMNS ") SELECT " FLOE_AUDIT_VALUES
    " FROM (SELECT set_config('floe.audit_recorded', 'on', true)) AS recorded";

#define FLOE_AUDIT_SELECT "SELECT seq, " FLOE_AUDIT_COLUMNS " FROM floe_audit_log WHERE catalog_name = ?1 "

// Newest first. ?1 catalog, ?2 before seq (exclusive), ?3 since at_ms, ?4 limit; the table
// form adds ?5 namespace and ?6 table; the seq form has ?2 seq alone.
inline constexpr char kSelectCatalog[] =
    FLOE_AUDIT_SELECT "AND seq < CAST(?2 AS BIGINT) AND at_ms >= CAST(?3 AS BIGINT) "
                      "ORDER BY seq DESC LIMIT CAST(?4 AS BIGINT)";
inline constexpr char kSelectTable[] =
    FLOE_AUDIT_SELECT "AND table_namespace = ?5 AND table_name = ?6 AND seq < CAST(?2 AS BIGINT) "
                      "AND at_ms >= CAST(?3 AS BIGINT) ORDER BY seq DESC LIMIT CAST(?4 AS BIGINT)";
inline constexpr char kSelectSeq[] = FLOE_AUDIT_SELECT "AND seq = CAST(?2 AS BIGINT)";

// What floe found a trigger row to be. ?1 seq, ?2 kind, ?3 operation, ?4 previous snapshot,
// ?5 snapshot, ?6 refs, ?7 client, ?8 user, ?9 detail. Only while unclassified: two readers
// classifying at once write the same thing once.
inline constexpr char kClassify[] =
    "UPDATE floe_audit_log SET kind = ?2, operation = ?3, previous_snapshot_id = CAST(?4 AS "
    "BIGINT), snapshot_id = CAST(?5 AS BIGINT), refs = ?6, client = COALESCE(client, ?7), "
    "user_name = COALESCE(user_name, ?8), detail = COALESCE(detail, ?9), classified = 1 "
    "WHERE seq = CAST(?1 AS BIGINT) AND classified = 0";

// ---- the trigger ----

// The SQLite trigger's test that floe did not record the move itself: the newest row of
// the table (by its new name) has the same two locations. `old_location` and `new_location`
// are OLD.metadata_location / NEW.metadata_location or NULL, `name` is NEW or OLD.
#define FLOE_AUDIT_NOT_RECORDED(name, old_location, new_location)                             \
  "NOT EXISTS (SELECT 1 FROM floe_audit_log a WHERE a.seq = (SELECT MAX(b.seq) FROM "          \
  "floe_audit_log b WHERE b.catalog_name = " name ".catalog_name AND b.table_namespace = " name \
  ".table_namespace AND b.table_name = " name ".table_name) AND "                              \
  "a.previous_metadata_location IS " old_location " AND a.metadata_location IS " new_location ")"

#define FLOE_AUDIT_IS_TABLE(name) "(" name ".iceberg_type IS NULL OR " name ".iceberg_type = 'TABLE')"

#define FLOE_SQLITE_NOW_MS "CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)"

#define FLOE_SQLITE_TRIGGER_ROW(name, old_location, new_location, detail)                      \
  "INSERT INTO floe_audit_log (at_ms, catalog_name, table_namespace, table_name, kind, "       \
  "previous_metadata_location, metadata_location, detail, classified) VALUES "                 \
  "(" FLOE_SQLITE_NOW_MS ", " name ".catalog_name, " name ".table_namespace, " name            \
  ".table_name, 'external', " old_location ", " new_location ", " detail ", 0); "

inline constexpr char kSqliteTriggers[] =
    "CREATE TRIGGER floe_audit_insert AFTER INSERT ON iceberg_tables FOR EACH ROW WHEN "
    FLOE_AUDIT_IS_TABLE("NEW") " AND " FLOE_AUDIT_NOT_RECORDED("NEW", "NULL", "NEW.metadata_location")
    " BEGIN " FLOE_SQLITE_TRIGGER_ROW("NEW", "NULL", "NEW.metadata_location", "NULL") "END; "
    "CREATE TRIGGER floe_audit_update AFTER UPDATE ON iceberg_tables FOR EACH ROW WHEN "
    FLOE_AUDIT_IS_TABLE("NEW") " AND (OLD.metadata_location IS NOT NEW.metadata_location OR "
    "OLD.table_namespace IS NOT NEW.table_namespace OR OLD.table_name IS NOT NEW.table_name) AND "
    FLOE_AUDIT_NOT_RECORDED("NEW", "OLD.metadata_location", "NEW.metadata_location")
    " BEGIN " FLOE_SQLITE_TRIGGER_ROW("NEW", "OLD.metadata_location", "NEW.metadata_location",
        "CASE WHEN OLD.table_namespace IS NOT NEW.table_namespace OR OLD.table_name IS NOT "
        "NEW.table_name THEN 'renamed from ' || OLD.table_namespace || '.' || OLD.table_name END")
    "END; "
    "CREATE TRIGGER floe_audit_delete AFTER DELETE ON iceberg_tables FOR EACH ROW WHEN "
    FLOE_AUDIT_IS_TABLE("OLD") " AND " FLOE_AUDIT_NOT_RECORDED("OLD", "OLD.metadata_location", "NULL")
    " BEGIN " FLOE_SQLITE_TRIGGER_ROW("OLD", "OLD.metadata_location", "NULL", "NULL") "END;";

inline constexpr char kSqliteDropTriggers[] =
    "DROP TRIGGER IF EXISTS floe_audit_insert; DROP TRIGGER IF EXISTS floe_audit_update; "
    "DROP TRIGGER IF EXISTS floe_audit_delete;";
inline constexpr char kSqliteHasTrigger[] =
    "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN "
    "('floe_audit_insert', 'floe_audit_update', 'floe_audit_delete')";

// PostgreSQL's trigger also records who the database says is connected, and from where.
inline constexpr char kPostgresFunction[] =
    "CREATE OR REPLACE FUNCTION floe_audit_record() RETURNS trigger LANGUAGE plpgsql AS $floe$ "
    "DECLARE t iceberg_tables%ROWTYPE; previous_location TEXT; new_location TEXT; "
    "renamed TEXT; "
    "BEGIN "
    "IF current_setting('floe.audit_recorded', true) = 'on' THEN RETURN NULL; END IF; "
    "IF TG_OP = 'DELETE' THEN t := OLD; ELSE t := NEW; END IF; "
    "IF t.iceberg_type IS NOT NULL AND t.iceberg_type <> 'TABLE' THEN RETURN NULL; END IF; "
    "IF TG_OP <> 'INSERT' THEN previous_location := OLD.metadata_location; END IF; "
    "IF TG_OP <> 'DELETE' THEN new_location := NEW.metadata_location; END IF; "
    "IF TG_OP = 'UPDATE' THEN "
    "  IF OLD.table_namespace IS DISTINCT FROM NEW.table_namespace OR "
    "     OLD.table_name IS DISTINCT FROM NEW.table_name THEN "
    "    renamed := 'renamed from ' || OLD.table_namespace || '.' || OLD.table_name; "
    "  ELSIF previous_location IS NOT DISTINCT FROM new_location THEN RETURN NULL; "
    "  END IF; "
    "END IF; "
    "INSERT INTO floe_audit_log (at_ms, catalog_name, table_namespace, table_name, kind, "
    "previous_metadata_location, metadata_location, user_name, client_address, "
    "application_name, detail, classified) VALUES "
    "((extract(epoch FROM clock_timestamp()) * 1000)::bigint, t.catalog_name, "
    "t.table_namespace, t.table_name, 'external', previous_location, new_location, "
    "current_user, host(inet_client_addr()), "
    "NULLIF(current_setting('application_name', true), ''), renamed, 0); "
    "RETURN NULL; "
    "END $floe$";
inline constexpr char kPostgresTrigger[] =
    "CREATE TRIGGER floe_audit AFTER INSERT OR UPDATE OR DELETE ON iceberg_tables "
    "FOR EACH ROW EXECUTE FUNCTION floe_audit_record()";
inline constexpr char kPostgresDropTrigger[] = "DROP TRIGGER IF EXISTS floe_audit ON iceberg_tables";
inline constexpr char kPostgresHasTrigger[] =
    "SELECT count(*) FROM pg_trigger WHERE tgname = 'floe_audit' AND "
    "tgrelid = to_regclass('iceberg_tables')";

#undef FLOE_AUDIT_VALUES
#undef FLOE_AUDIT_COLUMN_TYPES
#undef FLOE_AUDIT_NOT_RECORDED
#undef FLOE_AUDIT_IS_TABLE
#undef FLOE_SQLITE_NOW_MS
#undef FLOE_SQLITE_TRIGGER_ROW

// The Idempotency-Keys of REST requests, a row per table a keyed change touched, written in
// the change's transaction beside its log row; rows older than a day go when new ones come.
inline constexpr char kCreateKeys[] =
    "CREATE TABLE floe_idempotency_keys(catalog_name VARCHAR(255) NOT NULL, "
    "idempotency_key VARCHAR(255) NOT NULL, at_ms BIGINT NOT NULL, "
    "table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, "
    "kind VARCHAR(32) NOT NULL, metadata_location VARCHAR(1000))";
inline constexpr char kCreateKeysIndex[] =
    "CREATE INDEX floe_idempotency_keys_key ON floe_idempotency_keys(catalog_name, "
    "idempotency_key)";
// ?1 catalog, ?2 key, ?3 at_ms, ?4 namespace, ?5 table, ?6 kind, ?7 metadata location.
inline constexpr char kInsertKey[] =
    "INSERT INTO floe_idempotency_keys VALUES (?1, ?2, CAST(?3 AS BIGINT), ?4, ?5, ?6, ?7)";
// ?1 catalog, ?2 at_ms before which keys are forgotten.
inline constexpr char kForgetKeys[] =
    "DELETE FROM floe_idempotency_keys WHERE catalog_name = ?1 AND at_ms < CAST(?2 AS BIGINT)";
// ?1 catalog, ?2 key, ?3 since at_ms.
inline constexpr char kSelectKey[] =
    "SELECT table_namespace, table_name, kind, metadata_location FROM floe_idempotency_keys "
    "WHERE catalog_name = ?1 AND idempotency_key = ?2 AND at_ms >= CAST(?3 AS BIGINT) "
    "ORDER BY at_ms";

}  // namespace floe::audit_log_sql
