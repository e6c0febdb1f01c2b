#pragma once

// The SQL catalog, in the table layout of Iceberg's JdbcCatalog (schema V1) so that
// Spark/Trino (JdbcCatalog) and PyIceberg (SqlCatalog) share one catalog database:
//
//   iceberg_tables(catalog_name, table_namespace, table_name, metadata_location,
//                  previous_metadata_location, iceberg_type)      -- iceberg_type 'TABLE',
//                                                                 -- 'VIEW' or NULL (a table)
//   iceberg_namespace_properties(catalog_name, namespace, property_key, property_value)
//
// and floe's own tables, which those catalogs never read: floe_audit_log with its trigger on
// iceberg_tables (audit_log_sql.h), created on the first open, floe_dropped_tables
// (dropped_tables_sql.h), created by the first drop it records, and floe_catalog_tags with
// floe_catalog_tag_tables (catalog_tags_sql.h), created by the first catalog tag.
//
// Namespaces are stored as their levels joined by '.'. Every row carries the catalog name,
// so several catalogs can share one database without seeing each other.
//
// The database is a SQLite file (the default) or a PostgreSQL database; every statement is
// written once, here, and a driver (sql_driver.h) runs it on either.

#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/catalog/sql_driver.h"
#include "floe/catalog/sqlite_driver.h"

namespace floe {

class SqlCatalog : public Catalog {
 public:
  // Opens the catalog database `uri_or_path` names: a SQLite file (see
  // SqliteDatabasePath; switched to WAL mode, so that readers such as a Spark session
  // holding a result set open never block commits) or a PostgreSQL database
  // (postgresql://user:password@host:port/db, jdbc:postgresql://host:port/db?user=u, or
  // libpq's environment such as PGPASSWORD). Creates the catalog tables if absent and adds
  // iceberg_type to a V0 iceberg_tables. `warehouse` and each of `allowed_roots` must be an
  // absolute path or a file: URI; the warehouse may be empty (no tables can then be created
  // or written outside the allowed roots).
  //
  // A PostgreSQL catalog retries what failed for a passing reason: a serialization failure,
  // or a lost connection (it reconnects, waiting up to 30 s for a restarting server). When
  // the answer to a commit is lost, it ends the lost connection's server session and reads
  // the table's row before it reports CommitStateUnknown.
  static Result<std::unique_ptr<SqlCatalog>> Open(const std::string& uri_or_path,
                                                  std::string catalog_name = "lakehouse",
                                                  std::string warehouse = "",
                                                  std::vector<std::string> allowed_roots = {});
  ~SqlCatalog() override;
  SqlCatalog(const SqlCatalog&) = delete;
  SqlCatalog& operator=(const SqlCatalog&) = delete;

  const std::string& name() const override { return name_; }
  const std::string& warehouse() const override { return warehouse_; }
  const std::vector<std::string>& allowed_roots() const override { return allowed_roots_; }
  // The SQLite file, or the PostgreSQL database as postgresql://user@host:port/db.
  const std::string& database_path() const { return database_; }
  // SQLite's journal mode for the file, as PRAGMA journal_mode reports it ("wal");
  // NotImplemented on PostgreSQL.
  Result<std::string> JournalMode();

  Status CreateNamespace(const Namespace& ns, const NamespaceProperties& properties) override;
  Result<bool> NamespaceExists(const Namespace& ns) override;
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  // Without the internal `exists` marker; with a default `location` (<warehouse>/a/b) when
  // none is set, as JdbcCatalog reports it.
  Result<NamespaceProperties> LoadNamespaceProperties(const Namespace& ns) override;
  Status UpdateNamespaceProperties(const Namespace& ns, const NamespaceProperties& set,
                                   const std::vector<std::string>& remove) override;
  // Also refuses while child namespaces exist: dropping only the parent's row would leave it
  // existing through its children.
  Status DropNamespace(const Namespace& ns) override;

  Status CreateTableEntry(const TableIdentifier& ident,
                          const std::string& metadata_location) override;
  Result<std::string> LoadMetadataLocation(const TableIdentifier& ident) override;
  Result<bool> TableExists(const TableIdentifier& ident) override;
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override;
  Status SwapMetadataLocation(const TableIdentifier& ident, const std::string& expected_location,
                              const std::string& new_location) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  Result<std::string> DropTableEntry(const TableIdentifier& ident) override;

  Result<std::string> DropTableEntry(const TableIdentifier& ident, DropRecord record) override;
  Result<std::optional<DroppedTable>> FindDroppedTable(const TableIdentifier& ident) override;
  Result<std::vector<DroppedTable>> ListDroppedTables(const std::optional<Namespace>& ns) override;
  Status UndropTableEntry(const DroppedTable& dropped) override;

  // The audited forms (sql_catalog_audit_log.cc has the log itself).
  Status SwapMetadataLocation(const TableIdentifier& ident, const std::string& expected_location,
                              const std::string& new_location, const AuditRecord& record) override;
  Status CreateTableEntry(const TableIdentifier& ident, const std::string& metadata_location,
                          const AuditRecord& record) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to,
                     const AuditRecord& record) override;
  Result<std::string> DropTableEntry(const TableIdentifier& ident, DropRecord drop,
                                     const AuditRecord& record) override;
  Status UndropTableEntry(const DroppedTable& dropped, const AuditRecord& record) override;

  bool HasAuditLog() const override { return audit_log_; }
  Result<std::vector<KeyedChange>> FindIdempotencyKey(const std::string& key,
                                                      int64_t since_ms) override;
  Status SwapMetadataLocations(const std::vector<TableSwap>& swaps,
                               const CatalogTagChange* catalog_tag = nullptr) override;
  // Catalog tags (sql_catalog_tags.cc, catalog_tags_sql.h).
  bool KeepsCatalogTags() const override { return true; }
  Result<std::optional<CatalogTag>> LoadCatalogTag(const std::string& name) override;
  Result<std::vector<CatalogTag>> ListCatalogTags() override;
  Result<std::vector<AuditEntry>> ReadAuditLog(const AuditQuery& query) override;
  Status ClassifyAuditEntry(int64_t seq, const AuditRecord& record) override;
  Status RecordAuditEntry(const TableIdentifier& ident, const std::string& metadata_location,
                          const AuditRecord& record) override;
  Result<AuditTriggerState> AuditTrigger() override;
  std::string AuditTriggerRefusal() const override { return trigger_refused_; }
  Status InstallAuditTrigger() override;
  Status RemoveAuditTrigger() override;

 private:
  using Arg = SqlDriver::Arg;
  using Row = SqlDriver::Row;
  struct Entry {
    bool is_view = false;
    std::optional<std::string> metadata_location;
  };

  SqlCatalog(std::unique_ptr<SqlDriver> driver, std::string database, std::string name,
             std::string warehouse, std::vector<std::string> allowed_roots);

  // All of these expect mu_ to be held.
  Status InitSchema();
  Result<int> Execute(std::string_view sql, std::initializer_list<Arg> args);
  Result<std::vector<Row>> Query(std::string_view sql, std::initializer_list<Arg> args);
  // Runs `body` in a write transaction, again after a serialization failure or a lost
  // connection. When the answer to COMMIT was lost, `applied` (run once the lost session is
  // over) says whether the change is in the database; without it, or when it is not, the
  // transaction runs again. `compare_and_swap`: the body's writes check their rows
  // themselves (SqlDriver::BeginCompareAndSwap).
  Status InWriteTransaction(const std::function<Status()>& body,
                            const std::function<Result<bool>()>& applied = nullptr,
                            bool compare_and_swap = false);
  Result<bool> ResolveLostCommit(const Status& lost, const std::function<Result<bool>()>& applied);
  // Runs a read, again on a new connection when the connection was lost.
  template <typename F>
  auto Read(F&& read) -> decltype(read()) {
    for (int attempt = 1;; ++attempt) {
      auto result = read();
      if (result.ok() || driver_->last_failure() != SqlFailure::kConnectionLost ||
          attempt >= kMaxReadAttempts) {
        return result;
      }
      ARROW_RETURN_NOT_OK(driver_->Reconnect());
    }
  }
  static constexpr int kMaxReadAttempts = 12;
  // The compare-and-swap of a table's pointer: ?1 new, ?2 expected, ?3 catalog, ?4 namespace,
  // ?5 table, ?6 expected.
  static const std::string& SwapSql();
  // The conflict a swap that changed no row reports, with what the table points at now.
  Status SwapConflict(const TableIdentifier& ident, const std::string& expected_location,
                      const std::string& new_location);
  Result<bool> ResolveLostSwap(const TableIdentifier& ident, const std::string& expected_location,
                               const std::string& new_location, const Status& lost);
  Result<bool> NamespaceExistsLocked(const Namespace& ns);
  Result<bool> HasChildNamespaces(const Namespace& ns);
  Result<std::optional<Entry>> FindEntry(const TableIdentifier& ident);
  Status RequireNamespace(const Namespace& ns);
  // Creates floe_audit_log and the trigger on a database that has no log yet. A database
  // user who may not create them leaves the catalog without a log, or without the trigger.
  Status InitAuditLog();
  Status InitIdempotencyKeys();
  Status CreateAuditTrigger();
  // Writes `record` as the row of a move of `ident` from `previous` to `next` (nullopt: the
  // table did not exist / no longer does), inside the caller's transaction.
  Status RecordChange(const TableIdentifier& ident, const std::optional<std::string>& previous,
                      const std::optional<std::string>& next, const AuditRecord& record);
  // Inside the caller's transaction, with the audit row: a new entry for `ident`
  // (AlreadyExists when a table or view has the name), and the compare-and-swap of one.
  Status InsertEntry(const TableIdentifier& ident, const std::string& location,
                     const AuditRecord& record);
  Status SwapEntry(const TableIdentifier& ident, const std::string& expected_location,
                   const std::string& new_location, const AuditRecord& record);
  // SwapMetadataLocation inside a transaction that also writes the audit row.
  Status AuditedSwap(const TableIdentifier& ident, const std::string& expected_location,
                     const std::string& new_location, const AuditRecord& record);
  // Inside the caller's transaction: records or deletes a catalog tag.
  Status ChangeCatalogTag(const CatalogTagChange& change);
  // Whether floe_catalog_tags exists yet (once it does, it stays).
  Result<bool> HasCatalogTags();
  Result<std::vector<CatalogTag>> ReadCatalogTags(const std::optional<std::string>& name);
  // Whether floe_dropped_tables exists yet (once it does, it stays).
  Result<bool> HasDroppedTables();
  Result<std::optional<DroppedTable>> FindDroppedTableLocked(const TableIdentifier& ident);

  std::mutex mu_;
  std::unique_ptr<SqlDriver> driver_;
  bool has_dropped_tables_ = false;
  bool has_catalog_tags_ = false;
  const bool postgres_;
  bool audit_log_ = false;
  bool idempotency_keys_ = false;  // floe_idempotency_keys exists
  // Why the trigger could not be created on the first open, when it could not.
  std::string trigger_refused_;
  const std::string database_;
  const std::string name_;
  const std::string warehouse_;
  const std::vector<std::string> allowed_roots_;
};

}  // namespace floe
