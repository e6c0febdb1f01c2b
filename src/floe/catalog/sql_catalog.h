#pragma once

// The SQL catalog on SQLite, in the table layout of Iceberg's JdbcCatalog (schema V1) so
// that Spark/Trino (JdbcCatalog) and PyIceberg (SqlCatalog) share one catalog file:
//
//   iceberg_tables(catalog_name, table_namespace, table_name, metadata_location,
//                  previous_metadata_location, iceberg_type)      -- iceberg_type 'TABLE',
//                                                                 -- 'VIEW' or NULL (a table)
//   iceberg_namespace_properties(catalog_name, namespace, property_key, property_value)
//
// and, created by the first drop it records, floe's own floe_dropped_tables
// (dropped_tables_sql.h), which those catalogs never read.
//
// Namespaces are stored as their levels joined by '.'. Every row carries the catalog name,
// so several catalogs can share one file without seeing each other.

#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/catalog/catalog.h"

struct sqlite3;
struct sqlite3_stmt;

namespace floe {

// The SQLite file a catalog URI names: a plain path, "sqlite:///rel/path" or
// "sqlite:////abs/path" (SQLAlchemy's rule, as PyIceberg writes it), "jdbc:sqlite:/abs/path"
// (as Spark writes it), or a file: URI. ":memory:" for in-memory databases.
Result<std::string> SqliteDatabasePath(std::string_view uri_or_path);

class SqlCatalog : public Catalog {
 public:
  // Creates the catalog tables if absent and adds iceberg_type to a V0 iceberg_tables.
  // Switches the file to WAL mode (persistent), so that readers such as a Spark session
  // holding a result set open never block commits. `warehouse` and each of `allowed_roots`
  // must be an absolute path or a file: URI; the warehouse may be empty (no tables can then
  // be created or written outside the allowed roots).
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
  const std::string& database_path() const { return path_; }
  // SQLite's journal mode for the file, as PRAGMA journal_mode reports it ("wal").
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

 private:
  // A bound parameter; nullopt binds NULL.
  using Arg = std::optional<std::string_view>;
  using Row = std::vector<std::optional<std::string>>;
  class Transaction;
  struct Entry {
    bool is_view = false;
    std::optional<std::string> metadata_location;
  };

  SqlCatalog(sqlite3* db, std::string path, std::string name, std::string warehouse,
             std::vector<std::string> allowed_roots);

  // All of these expect mu_ to be held.
  Status InitSchema();
  void UseWriteAheadLog();
  Status Exec(const char* sql);
  Result<sqlite3_stmt*> Prepare(std::string_view sql);
  // Runs a statement to completion and returns the number of rows it changed. On failure,
  // last_error_code_ holds SQLite's (extended) result code.
  Result<int> Execute(std::string_view sql, std::initializer_list<Arg> args);
  Result<std::vector<Row>> Query(std::string_view sql, std::initializer_list<Arg> args);
  Status SqlError(std::string_view what) const;
  std::string BusyHint(int rc) const;
  Result<bool> NamespaceExistsLocked(const Namespace& ns);
  Result<bool> HasChildNamespaces(const Namespace& ns);
  Result<std::optional<Entry>> FindEntry(const TableIdentifier& ident);
  Status RequireNamespace(const Namespace& ns);
  // Whether floe_dropped_tables exists yet (once it does, it stays).
  Result<bool> HasDroppedTables();
  Result<std::optional<DroppedTable>> FindDroppedTableLocked(const TableIdentifier& ident);

  std::mutex mu_;
  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
  int last_error_code_ = 0;
  std::string journal_mode_;  // as SQLite reported it when the file was opened
  bool has_dropped_tables_ = false;
  const std::string path_;
  const std::string name_;
  const std::string warehouse_;
  const std::vector<std::string> allowed_roots_;
};

}  // namespace floe
