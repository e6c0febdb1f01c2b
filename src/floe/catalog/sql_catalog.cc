#include "floe/catalog/sql_catalog.h"

#include <sqlite3.h>

#include <initializer_list>
#include <set>
#include <utility>

#include "floe/catalog/dropped_tables_sql.h"
#include "floe/util/clock.h"
#include "floe/util/number_parse.h"

namespace floe {

namespace {

// In WAL mode only writers exclude each other, and Spark, PyIceberg and other floe processes
// hold the write lock for a statement or two; waiting beats failing a commit.
constexpr int kBusyTimeoutMs = 10000;

constexpr char kExistsProperty[] = "exists";

// The exact DDL of Iceberg's JdbcUtil: the V0 table, then the V1 migration that adds
// iceberg_type (JdbcCatalog runs the same two statements on a fresh database with
// jdbc.schema-version=V1).
constexpr char kCreateTablesSql[] =
    "CREATE TABLE iceberg_tables("
    "catalog_name VARCHAR(255) NOT NULL,"
    "table_namespace VARCHAR(255) NOT NULL,"
    "table_name VARCHAR(255) NOT NULL,"
    "metadata_location VARCHAR(1000),"
    "previous_metadata_location VARCHAR(1000),"
    "PRIMARY KEY (catalog_name, table_namespace, table_name))";
constexpr char kAddRecordTypeSql[] =
    "ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5)";
constexpr char kCreateNamespacePropertiesSql[] =
    "CREATE TABLE iceberg_namespace_properties("
    "catalog_name VARCHAR(255) NOT NULL,"
    "namespace VARCHAR(255) NOT NULL,"
    "property_key VARCHAR(255),"
    "property_value VARCHAR(1000),"
    "PRIMARY KEY (catalog_name, namespace, property_key))";

constexpr char kInsertTableSql[] =
    "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
    "metadata_location, previous_metadata_location, iceberg_type) "
    "VALUES (?, ?, ?, ?, NULL, 'TABLE')";

// Rows written before views existed have a NULL type and are tables.
constexpr char kIsTable[] = "(iceberg_type = 'TABLE' OR iceberg_type IS NULL)";

// Prefix tests use substr rather than LIKE: SQLite's LIKE ignores ASCII case, which would
// make namespace "DB" appear to exist because "db.x" does.
constexpr char kNamespaceOrDescendant[] = "(%s = ?2 OR substr(%s, 1, length(?3)) = ?3)";

std::string Fmt(const char* pattern, const char* column) {
  std::string out;
  for (const char* p = pattern; *p; ++p) {
    if (p[0] == '%' && p[1] == 's') {
      out += column;
      ++p;
    } else {
      out += *p;
    }
  }
  return out;
}

std::vector<std::string> SplitNamespace(const std::string& text) {
  std::vector<std::string> levels;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    levels.push_back(text.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return levels;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string StripQuery(std::string_view s) { return std::string(s.substr(0, s.find('?'))); }

Result<std::string> FileUriToPath(std::string_view uri) {
  std::string_view rest = uri.substr(5);  // after "file:"
  if (StartsWith(rest, "//")) {
    rest.remove_prefix(2);
    auto slash = rest.find('/');
    std::string_view host = rest.substr(0, slash);
    if ((!host.empty() && host != "localhost") || slash == std::string_view::npos) {
      return ValidationError("Invalid catalog URI ", uri, ": expected a local file");
    }
    rest = rest.substr(slash);
  }
  if (rest.empty()) return ValidationError("Invalid catalog URI ", uri, ": no path");
  return StripQuery(rest);
}

}  // namespace

Result<std::string> SqliteDatabasePath(std::string_view uri) {
  if (uri.empty()) return ValidationError("Catalog URI is empty");
  if (StartsWith(uri, "jdbc:")) {
    if (!StartsWith(uri, "jdbc:sqlite:")) {
      return Status::NotImplemented("Unsupported catalog URI ", uri,
                                    ": only SQLite catalogs are supported");
    }
    std::string_view rest = uri.substr(12);
    if (StartsWith(rest, "file:")) return FileUriToPath(rest);
    std::string path = StripQuery(rest);
    return path.empty() ? std::string(":memory:") : path;
  }
  if (StartsWith(uri, "sqlite:") || StartsWith(uri, "sqlite+")) {
    auto sep = uri.find("://");
    if (sep == std::string_view::npos) {
      return ValidationError("Invalid catalog URI ", uri, ": expected sqlite:///<path>");
    }
    std::string_view rest = uri.substr(sep + 3);
    // SQLAlchemy: "sqlite://" is in-memory; after "sqlite:///" comes the file name, so an
    // absolute path gives four slashes.
    if (rest.empty()) return std::string(":memory:");
    if (rest.front() != '/') {
      return ValidationError("Invalid catalog URI ", uri, ": SQLite URIs have no host");
    }
    std::string path = StripQuery(rest.substr(1));
    return path.empty() ? std::string(":memory:") : path;
  }
  if (StartsWith(uri, "file:")) return FileUriToPath(uri);
  auto colon = uri.find(':');
  auto slash = uri.find('/');
  if (colon != std::string_view::npos && colon > 1 &&
      (slash == std::string_view::npos || colon < slash) && uri != ":memory:") {
    return Status::NotImplemented("Unsupported catalog URI ", uri,
                                  ": only SQLite catalogs are supported");
  }
  return std::string(uri);
}

const std::vector<std::string>& Catalog::allowed_roots() const {
  static const std::vector<std::string> kNone;
  return kNone;
}

namespace {
// What FileIO accepts as an absolute location: "/x" or a file: URI.
Status CheckAbsolute(std::string_view what, const std::string& location,
                     const std::string& catalog) {
  if (StartsWith(location, "/") || StartsWith(location, "file:")) return Status::OK();
  return ValidationError(what, " '", location, "' of catalog ", catalog,
                         " is not an absolute path or file: URI");
}
}  // namespace

std::string Catalog::DefaultTableLocation(const TableIdentifier& ident) const {
  std::string out = warehouse();
  for (const auto& level : ident.ns.levels) out += "/" + level;
  return out + "/" + ident.name;
}

// BEGIN IMMEDIATE takes the write lock up front, so check-then-write sequences cannot
// interleave with another connection's and the busy timeout applies at the start.
class SqlCatalog::Transaction {
 public:
  explicit Transaction(SqlCatalog* catalog) : catalog_(catalog) {}
  ~Transaction() {
    if (open_) (void)catalog_->Exec("ROLLBACK");
  }
  Status Begin() {
    ARROW_RETURN_NOT_OK(catalog_->Exec("BEGIN IMMEDIATE"));
    open_ = true;
    return Status::OK();
  }
  Status Commit() {
    Status st = catalog_->Exec("COMMIT");
    if (st.ok() || sqlite3_get_autocommit(catalog_->db_)) open_ = false;
    return st;
  }

 private:
  SqlCatalog* catalog_;
  bool open_ = false;
};

SqlCatalog::SqlCatalog(sqlite3* db, std::string path, std::string name, std::string warehouse,
                       std::vector<std::string> allowed_roots)
    : db_(db),
      path_(std::move(path)),
      name_(std::move(name)),
      warehouse_(std::move(warehouse)),
      allowed_roots_(std::move(allowed_roots)) {}

SqlCatalog::~SqlCatalog() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

Result<std::unique_ptr<SqlCatalog>> SqlCatalog::Open(const std::string& uri_or_path,
                                                     std::string catalog_name,
                                                     std::string warehouse,
                                                     std::vector<std::string> allowed_roots) {
  if (catalog_name.empty()) return ValidationError("Catalog name must not be empty");
  ARROW_ASSIGN_OR_RAISE(std::string path, SqliteDatabasePath(uri_or_path));
  while (warehouse.size() > 1 && warehouse.back() == '/') warehouse.pop_back();
  if (!warehouse.empty()) {
    ARROW_RETURN_NOT_OK(CheckAbsolute("Warehouse", warehouse, catalog_name));
  }
  for (auto& root : allowed_roots) {
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    ARROW_RETURN_NOT_OK(CheckAbsolute("Allowed root", root, catalog_name));
  }

  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Status::IOError("Cannot open catalog database ", path, ": ", message);
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  std::unique_ptr<SqlCatalog> catalog(new SqlCatalog(db, path, std::move(catalog_name),
                                                     std::move(warehouse),
                                                     std::move(allowed_roots)));
  {
    std::lock_guard<std::mutex> lock(catalog->mu_);
    catalog->UseWriteAheadLog();
    ARROW_RETURN_NOT_OK(
        WithContext(catalog->InitSchema(), StrCat("Cannot initialize catalog database ", path)));
  }
  return catalog;
}

// In the default rollback-journal mode a connection that merely leaves a result set open
// (Iceberg's JdbcCatalog does, for the life of a Spark session) blocks every writer; in WAL
// mode readers never block writers. The mode is stored in the file, so a catalog created by
// Spark or PyIceberg is switched the first time floe opens it.
void SqlCatalog::UseWriteAheadLog() {
  std::string mode;
  int rc = sqlite3_exec(
      db_, "PRAGMA journal_mode=WAL",
      [](void* out, int columns, char** values, char**) {
        if (columns > 0 && values[0]) *static_cast<std::string*>(out) = values[0];
        return 0;
      },
      &mode, nullptr);
  // Never fatal: a file another process holds (or a read-only one) keeps its mode, and the
  // next open switches it. SQLite answers with the mode in force ("memory" in memory).
  journal_mode_ = rc == SQLITE_OK ? mode : "";
}

Result<std::string> SqlCatalog::JournalMode() {
  std::lock_guard<std::mutex> lock(mu_);
  ARROW_ASSIGN_OR_RAISE(auto rows, Query("PRAGMA journal_mode", {}));
  if (rows.empty() || !rows[0][0]) return Status::IOError("No journal mode for ", path_);
  return *rows[0][0];
}

Status SqlCatalog::InitSchema() {
  auto inspect = [&](bool* has_tables, bool* has_type, bool* has_props) -> Status {
    ARROW_ASSIGN_OR_RAISE(auto rows,
                          Query("SELECT lower(name) FROM sqlite_master WHERE type = 'table' AND "
                                "lower(name) IN ('iceberg_tables', 'iceberg_namespace_properties')",
                                {}));
    *has_tables = *has_type = *has_props = false;
    for (const auto& row : rows) {
      if (row[0] == "iceberg_tables") *has_tables = true;
      if (row[0] == "iceberg_namespace_properties") *has_props = true;
    }
    if (*has_tables) {
      ARROW_ASSIGN_OR_RAISE(
          auto columns, Query("SELECT lower(name) FROM pragma_table_info('iceberg_tables')", {}));
      for (const auto& column : columns) {
        if (column[0] == "iceberg_type") *has_type = true;
      }
    }
    return Status::OK();
  };

  bool has_tables = false, has_type = false, has_props = false;
  ARROW_RETURN_NOT_OK(inspect(&has_tables, &has_type, &has_props));
  if (has_tables && has_type && has_props) return Status::OK();

  // Another process may be initializing the same file: decide again under the write lock.
  Transaction txn(this);
  ARROW_RETURN_NOT_OK(txn.Begin());
  ARROW_RETURN_NOT_OK(inspect(&has_tables, &has_type, &has_props));
  if (!has_tables) ARROW_RETURN_NOT_OK(Exec(kCreateTablesSql));
  if (!has_type) ARROW_RETURN_NOT_OK(Exec(kAddRecordTypeSql));
  if (!has_props) ARROW_RETURN_NOT_OK(Exec(kCreateNamespacePropertiesSql));
  return txn.Commit();
}

namespace {
bool IsBusy(int rc) {
  const int primary = rc & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}
}  // namespace

// SQLite answers "busy" when another connection kept the write lock past the busy timeout.
std::string SqlCatalog::BusyHint(int rc) const {
  if (!IsBusy(rc)) return "";
  return StrCat(" catalog database ", path_, " stayed locked by another connection for ",
                kBusyTimeoutMs / 1000, " s",
                journal_mode_ == "wal" || journal_mode_ == "memory"
                    ? ""
                    : " (it is not in WAL mode yet, so its readers block writers too)");
}

Status SqlCatalog::SqlError(std::string_view what) const {
  std::string hint = BusyHint(last_error_code_);
  return Status::IOError(what, ": ", sqlite3_errmsg(db_), hint.empty() ? "" : ";", hint);
}

Status SqlCatalog::Exec(const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::OK();
  last_error_code_ = rc;
  std::string message = err ? err : sqlite3_errstr(rc);
  sqlite3_free(err);
  std::string hint = BusyHint(rc);
  return Status::IOError("Catalog database error in '", sql, "': ", message,
                         hint.empty() ? "" : ";", hint);
}

Result<sqlite3_stmt*> SqlCatalog::Prepare(std::string_view sql) {
  auto it = statements_.find(std::string(sql));
  if (it != statements_.end()) return it->second;
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    last_error_code_ = rc;
    sqlite3_finalize(stmt);
    return SqlError(StrCat("Cannot prepare '", sql, "'"));
  }
  statements_.emplace(std::string(sql), stmt);
  return stmt;
}

namespace {

// Leaves a cached statement reset and unbound however the caller exits.
class StatementScope {
 public:
  explicit StatementScope(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~StatementScope() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

 private:
  sqlite3_stmt* stmt_;
};

int BindAll(sqlite3_stmt* stmt, std::initializer_list<std::optional<std::string_view>> args) {
  int index = 1;
  for (const auto& arg : args) {
    int rc = arg ? sqlite3_bind_text(stmt, index, arg->data(), static_cast<int>(arg->size()),
                                     SQLITE_TRANSIENT)
                 : sqlite3_bind_null(stmt, index);
    if (rc != SQLITE_OK) return rc;
    ++index;
  }
  return SQLITE_OK;
}

}  // namespace

Result<int> SqlCatalog::Execute(std::string_view sql, std::initializer_list<Arg> args) {
  ARROW_ASSIGN_OR_RAISE(sqlite3_stmt * stmt, Prepare(sql));
  StatementScope scope(stmt);
  int rc = BindAll(stmt, args);
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    }
  }
  if (rc != SQLITE_DONE && rc != SQLITE_OK) {
    last_error_code_ = rc;
    return SqlError("Catalog database error");
  }
  return sqlite3_changes(db_);
}

Result<std::vector<SqlCatalog::Row>> SqlCatalog::Query(std::string_view sql,
                                                       std::initializer_list<Arg> args) {
  ARROW_ASSIGN_OR_RAISE(sqlite3_stmt * stmt, Prepare(sql));
  StatementScope scope(stmt);
  int rc = BindAll(stmt, args);
  std::vector<Row> rows;
  if (rc == SQLITE_OK) {
    const int columns = sqlite3_column_count(stmt);
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      Row row(columns);
      for (int i = 0; i < columns; ++i) {
        const unsigned char* text = sqlite3_column_text(stmt, i);
        if (text) {
          row[i] = std::string(reinterpret_cast<const char*>(text),
                               static_cast<size_t>(sqlite3_column_bytes(stmt, i)));
        }
      }
      rows.push_back(std::move(row));
    }
  }
  if (rc != SQLITE_DONE) {
    last_error_code_ = rc;
    return SqlError("Catalog database error");
  }
  return rows;
}

Result<bool> SqlCatalog::NamespaceExistsLocked(const Namespace& ns) {
  if (ns.empty()) return true;
  const std::string text = ns.ToString();
  const std::string descendants = text + ".";
  static const std::string kTablesSql =
      "SELECT 1 FROM iceberg_tables WHERE catalog_name = ?1 AND " +
      Fmt(kNamespaceOrDescendant, "table_namespace") + " LIMIT 1";
  static const std::string kPropsSql =
      "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND " +
      Fmt(kNamespaceOrDescendant, "namespace") + " LIMIT 1";
  ARROW_ASSIGN_OR_RAISE(auto rows, Query(kTablesSql, {name_, text, descendants}));
  if (!rows.empty()) return true;
  ARROW_ASSIGN_OR_RAISE(rows, Query(kPropsSql, {name_, text, descendants}));
  return !rows.empty();
}

Result<bool> SqlCatalog::HasChildNamespaces(const Namespace& ns) {
  const std::string descendants = ns.ToString() + ".";
  ARROW_ASSIGN_OR_RAISE(
      auto rows,
      Query("SELECT 1 FROM iceberg_tables WHERE catalog_name = ?1 AND "
            "substr(table_namespace, 1, length(?2)) = ?2 "
            "UNION ALL SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND "
            "substr(namespace, 1, length(?2)) = ?2 LIMIT 1",
            {name_, descendants}));
  return !rows.empty();
}

Status SqlCatalog::RequireNamespace(const Namespace& ns) {
  ARROW_RETURN_NOT_OK(ns.Validate());
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExistsLocked(ns));
  if (!exists) return NotFound("Namespace does not exist: ", ns.ToString());
  return Status::OK();
}

Result<std::optional<SqlCatalog::Entry>> SqlCatalog::FindEntry(const TableIdentifier& ident) {
  ARROW_ASSIGN_OR_RAISE(auto rows,
                        Query("SELECT metadata_location, iceberg_type FROM iceberg_tables "
                              "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?",
                              {name_, ident.ns.ToString(), ident.name}));
  if (rows.empty()) return std::nullopt;
  Entry entry;
  entry.metadata_location = rows[0][0];
  entry.is_view = rows[0][1].has_value() && *rows[0][1] == "VIEW";
  return entry;
}

namespace {
Status ValidateTable(const TableIdentifier& ident) {
  ARROW_RETURN_NOT_OK(ident.Validate());
  if (ident.ns.empty()) {
    return ValidationError("Invalid table identifier ", ident.ToString(),
                           ": a table needs a namespace");
  }
  return Status::OK();
}
}  // namespace

// ---- namespaces ----

Status SqlCatalog::CreateNamespace(const Namespace& ns, const NamespaceProperties& properties) {
  ARROW_RETURN_NOT_OK(ns.ValidateNew());
  if (ns.empty()) return ValidationError("Cannot create the empty namespace");
  if (properties.count(kExistsProperty)) {
    return ValidationError("Cannot set reserved property: ", kExistsProperty);
  }
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(this);
  ARROW_RETURN_NOT_OK(txn.Begin());
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExistsLocked(ns));
  if (exists) return AlreadyExists("Namespace already exists: ", ns.ToString());
  const std::string text = ns.ToString();
  constexpr std::string_view kInsert =
      "INSERT INTO iceberg_namespace_properties "
      "(catalog_name, namespace, property_key, property_value) VALUES (?, ?, ?, ?)";
  ARROW_RETURN_NOT_OK(Execute(kInsert, {name_, text, kExistsProperty, "true"}));
  for (const auto& [key, value] : properties) {
    ARROW_RETURN_NOT_OK(Execute(kInsert, {name_, text, key, value}));
  }
  return txn.Commit();
}

Result<bool> SqlCatalog::NamespaceExists(const Namespace& ns) {
  ARROW_RETURN_NOT_OK(ns.Validate());
  std::lock_guard<std::mutex> lock(mu_);
  return NamespaceExistsLocked(ns);
}

Result<std::vector<Namespace>> SqlCatalog::ListNamespaces(const Namespace& parent) {
  std::lock_guard<std::mutex> lock(mu_);
  ARROW_RETURN_NOT_OK(RequireNamespace(parent));
  std::vector<Row> rows;
  if (parent.empty()) {
    ARROW_ASSIGN_OR_RAISE(
        rows, Query("SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ?1 "
                    "UNION SELECT namespace FROM iceberg_namespace_properties "
                    "WHERE catalog_name = ?1",
                    {name_}));
  } else {
    ARROW_ASSIGN_OR_RAISE(
        rows, Query("SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ?1 AND "
                    "substr(table_namespace, 1, length(?2)) = ?2 "
                    "UNION SELECT namespace FROM iceberg_namespace_properties "
                    "WHERE catalog_name = ?1 AND substr(namespace, 1, length(?2)) = ?2",
                    {name_, parent.ToString() + "."}));
  }
  std::set<Namespace> children;
  for (const auto& row : rows) {
    if (!row[0] || row[0]->empty()) continue;
    Namespace ns(SplitNamespace(*row[0]));
    if (ns.size() <= parent.size() || !ns.HasPrefix(parent)) continue;
    ns.levels.resize(parent.size() + 1);
    children.insert(std::move(ns));
  }
  return std::vector<Namespace>(children.begin(), children.end());
}

Result<NamespaceProperties> SqlCatalog::LoadNamespaceProperties(const Namespace& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  ARROW_RETURN_NOT_OK(RequireNamespace(ns));
  ARROW_ASSIGN_OR_RAISE(
      auto rows, Query("SELECT property_key, property_value FROM iceberg_namespace_properties "
                       "WHERE catalog_name = ? AND namespace = ?",
                       {name_, ns.ToString()}));
  NamespaceProperties properties;
  for (auto& row : rows) {
    if (!row[0] || *row[0] == kExistsProperty) continue;
    properties[*row[0]] = row[1].value_or("");
  }
  if (!properties.count("location") && !warehouse_.empty()) {
    std::string location = warehouse_;
    for (const auto& level : ns.levels) location += "/" + level;
    properties["location"] = location;
  }
  return properties;
}

Status SqlCatalog::UpdateNamespaceProperties(const Namespace& ns, const NamespaceProperties& set,
                                             const std::vector<std::string>& remove) {
  if (set.count(kExistsProperty)) {
    return ValidationError("Cannot set reserved property: ", kExistsProperty);
  }
  for (const auto& key : remove) {
    if (key == kExistsProperty) {
      return ValidationError("Cannot remove reserved property: ", kExistsProperty);
    }
    if (set.count(key)) {
      return ValidationError("Cannot set and remove the same property: ", key);
    }
  }
  if (ns.empty()) return ValidationError("Cannot set properties of the empty namespace");
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(this);
  ARROW_RETURN_NOT_OK(txn.Begin());
  ARROW_RETURN_NOT_OK(RequireNamespace(ns));
  const std::string text = ns.ToString();
  for (const auto& [key, value] : set) {
    ARROW_RETURN_NOT_OK(
        Execute("INSERT INTO iceberg_namespace_properties "
                "(catalog_name, namespace, property_key, property_value) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (catalog_name, namespace, property_key) "
                "DO UPDATE SET property_value = excluded.property_value",
                {name_, text, key, value}));
  }
  for (const auto& key : remove) {
    ARROW_RETURN_NOT_OK(
        Execute("DELETE FROM iceberg_namespace_properties "
                "WHERE catalog_name = ? AND namespace = ? AND property_key = ?",
                {name_, text, key}));
  }
  return txn.Commit();
}

Status SqlCatalog::DropNamespace(const Namespace& ns) {
  if (ns.empty()) return ValidationError("Cannot drop the empty namespace");
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(this);
  ARROW_RETURN_NOT_OK(txn.Begin());
  ARROW_RETURN_NOT_OK(RequireNamespace(ns));
  const std::string text = ns.ToString();
  ARROW_ASSIGN_OR_RAISE(auto tables,
                        Query("SELECT 1 FROM iceberg_tables WHERE catalog_name = ? AND "
                              "table_namespace = ? LIMIT 1",
                              {name_, text}));
  ARROW_ASSIGN_OR_RAISE(bool has_children, HasChildNamespaces(ns));
  if (!tables.empty() || has_children) return ValidationError("Namespace not empty: ", text);
  ARROW_RETURN_NOT_OK(
      Execute("DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?",
              {name_, text}));
  return txn.Commit();
}

// ---- tables ----

Status SqlCatalog::CreateTableEntry(const TableIdentifier& ident,
                                    const std::string& metadata_location) {
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  ARROW_RETURN_NOT_OK(ident.ValidateNew());
  if (metadata_location.empty()) {
    return ValidationError("Cannot create table ", ident.ToString(), ": empty metadata location");
  }
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(this);
  ARROW_RETURN_NOT_OK(txn.Begin());
  ARROW_RETURN_NOT_OK(RequireNamespace(ident.ns));
  ARROW_ASSIGN_OR_RAISE(auto existing, FindEntry(ident));
  if (existing) {
    if (existing->is_view) {
      return AlreadyExists("View with same name already exists: ", ident.ToString());
    }
    return AlreadyExists("Table already exists: ", ident.ToString());
  }
  ARROW_RETURN_NOT_OK(
      Execute(kInsertTableSql, {name_, ident.ns.ToString(), ident.name, metadata_location}));
  return txn.Commit();
}

Result<std::string> SqlCatalog::LoadMetadataLocation(const TableIdentifier& ident) {
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  std::lock_guard<std::mutex> lock(mu_);
  ARROW_ASSIGN_OR_RAISE(auto entry, FindEntry(ident));
  if (!entry || entry->is_view) return NotFound("Table does not exist: ", ident.ToString());
  if (!entry->metadata_location || entry->metadata_location->empty()) {
    return ValidationError("Table ", ident.ToString(), " has no metadata location in catalog ",
                           name_);
  }
  return *entry->metadata_location;
}

Result<bool> SqlCatalog::TableExists(const TableIdentifier& ident) {
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  std::lock_guard<std::mutex> lock(mu_);
  ARROW_ASSIGN_OR_RAISE(auto entry, FindEntry(ident));
  return entry.has_value() && !entry->is_view;
}

Result<std::vector<TableIdentifier>> SqlCatalog::ListTables(const Namespace& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  ARROW_RETURN_NOT_OK(RequireNamespace(ns));
  ARROW_ASSIGN_OR_RAISE(
      auto rows, Query(StrCat("SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND "
                              "table_namespace = ? AND ",
                              kIsTable, " ORDER BY table_name"),
                       {name_, ns.ToString()}));
  std::vector<TableIdentifier> out;
  out.reserve(rows.size());
  for (auto& row : rows) out.emplace_back(ns, row[0].value_or(""));
  return out;
}

Status SqlCatalog::SwapMetadataLocation(const TableIdentifier& ident,
                                        const std::string& expected_location,
                                        const std::string& new_location) {
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  if (new_location.empty()) {
    return ValidationError("Cannot commit ", ident.ToString(), ": empty metadata location");
  }
  std::lock_guard<std::mutex> lock(mu_);
  const std::string table = ident.ToString();
  static const std::string kSql = StrCat(
      "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? "
      "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND "
      "metadata_location = ? AND ",
      kIsTable);
  auto stmt = Prepare(kSql);
  // Nothing ran yet, so the pointer certainly did not move.
  if (!stmt.ok()) return WithContext(stmt.status(), StrCat("Cannot commit ", table));

  int rc;
  int changes = 0;
  std::string error;
  {
    StatementScope scope(*stmt);
    const std::string ns = ident.ns.ToString();
    rc =
        BindAll(*stmt, {new_location, expected_location, name_, ns, ident.name, expected_location});
    if (rc != SQLITE_OK) {
      last_error_code_ = rc;
      return SqlError(StrCat("Cannot commit ", table));
    }
    rc = sqlite3_step(*stmt);
    if (rc == SQLITE_DONE) {
      changes = sqlite3_changes(db_);
    } else {
      error = sqlite3_errmsg(db_);
    }
  }
  if (rc != SQLITE_DONE) {
    // An autocommit statement that failed must not leave a transaction behind.
    if (!sqlite3_get_autocommit(db_)) (void)Exec("ROLLBACK");
    const int primary = rc & 0xff;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
      // SQLite reports busy before changing anything: the swap did not happen.
      return CommitConflict("Cannot commit table ", table, ":", BusyHint(rc), " (", error,
                            "); ", new_location, " was not committed");
    }
    return CommitStateUnknown("Cannot tell whether table ", table, " was committed from ",
                              expected_location, " to ", new_location, ": ", error);
  }
  if (changes == 1) return Status::OK();
  if (changes > 1) {
    return CommitStateUnknown("Commit of table ", table, " changed ", changes,
                              " catalog rows; the primary key of iceberg_tables is violated");
  }
  auto entry = FindEntry(ident);
  std::string found = "an unreadable entry";
  if (entry.ok()) {
    if (!entry->has_value() || (*entry)->is_view) {
      found = "no such table";
    } else {
      found = (*entry)->metadata_location.value_or("NULL");
    }
  }
  return CommitConflict("Table has been updated by another process: ", table,
                        " (expected metadata location ", expected_location, ", found ", found,
                        "); ", new_location, " was not committed");
}

Status SqlCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  ARROW_RETURN_NOT_OK(ValidateTable(from));
  ARROW_RETURN_NOT_OK(ValidateTable(to));
  ARROW_RETURN_NOT_OK(to.ValidateNew());
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(this);
  ARROW_RETURN_NOT_OK(txn.Begin());
  ARROW_ASSIGN_OR_RAISE(auto source, FindEntry(from));
  if (!source || source->is_view) return NotFound("Table does not exist: ", from.ToString());
  if (from == to) return Status::OK();
  ARROW_RETURN_NOT_OK(RequireNamespace(to.ns));
  ARROW_ASSIGN_OR_RAISE(auto target, FindEntry(to));
  if (target) {
    if (target->is_view) {
      return AlreadyExists("Cannot rename ", from.ToString(), " to ", to.ToString(),
                           ". View already exists");
    }
    return AlreadyExists("Table already exists: ", to.ToString());
  }
  ARROW_ASSIGN_OR_RAISE(
      int changes,
      Execute(StrCat("UPDATE iceberg_tables SET table_namespace = ?, table_name = ? "
                     "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND ",
                     kIsTable),
              {to.ns.ToString(), to.name, name_, from.ns.ToString(), from.name}));
  if (changes != 1) return NotFound("Table does not exist: ", from.ToString());
  return txn.Commit();
}

Result<std::string> SqlCatalog::DropTableEntry(const TableIdentifier& ident) {
  return DropTableEntry(ident, DropRecord::kNone);
}

Result<std::string> SqlCatalog::DropTableEntry(const TableIdentifier& ident, DropRecord record) {
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(this);
  ARROW_RETURN_NOT_OK(txn.Begin());
  ARROW_ASSIGN_OR_RAISE(auto entry, FindEntry(ident));
  if (!entry || entry->is_view) return NotFound("Table does not exist: ", ident.ToString());
  ARROW_RETURN_NOT_OK(Execute(
      StrCat("DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND "
             "table_name = ? AND ",
             kIsTable),
      {name_, ident.ns.ToString(), ident.name}));
  if (record != DropRecord::kNone) {
    if (!has_dropped_tables_) ARROW_RETURN_NOT_OK(Exec(dropped_tables_sql::kCreateTable));
    const std::string dropped_at = std::to_string(NowMillis());
    ARROW_RETURN_NOT_OK(Execute(dropped_tables_sql::kInsert,
                                {name_, ident.ns.ToString(), ident.name, entry->metadata_location,
                                 dropped_at, record == DropRecord::kPurged ? "1" : "0"}));
  }
  ARROW_RETURN_NOT_OK(txn.Commit());
  if (record != DropRecord::kNone) has_dropped_tables_ = true;
  return entry->metadata_location.value_or("");
}

// ---- dropped tables ----

Result<bool> SqlCatalog::HasDroppedTables() {
  if (has_dropped_tables_) return true;
  ARROW_ASSIGN_OR_RAISE(auto rows, Query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                         "lower(name) = 'floe_dropped_tables'",
                                         {}));
  has_dropped_tables_ = !rows.empty();
  return has_dropped_tables_;
}

namespace {
Result<int64_t> Int64Column(const std::optional<std::string>& value, const char* column) {
  std::optional<int64_t> out = value ? ParseInt64(*value) : std::nullopt;
  if (!out) {
    return Status::IOError("Unreadable ", column, " in floe_dropped_tables: ",
                           value.value_or("NULL"));
  }
  return *out;
}
}  // namespace

Result<std::optional<DroppedTable>> SqlCatalog::FindDroppedTableLocked(
    const TableIdentifier& ident) {
  ARROW_ASSIGN_OR_RAISE(bool has_records, HasDroppedTables());
  if (!has_records) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(auto rows, Query(dropped_tables_sql::kSelectNewest,
                                         {name_, ident.ns.ToString(), ident.name}));
  if (rows.empty()) return std::nullopt;
  DroppedTable out;
  out.ident = ident;
  ARROW_ASSIGN_OR_RAISE(out.drop_id, Int64Column(rows[0][0], "drop_id"));
  out.metadata_location = rows[0][1].value_or("");
  ARROW_ASSIGN_OR_RAISE(out.dropped_at_ms, Int64Column(rows[0][2], "dropped_at"));
  ARROW_ASSIGN_OR_RAISE(int64_t purged, Int64Column(rows[0][3], "purged"));
  out.purged = purged != 0;
  return out;
}

Result<std::optional<DroppedTable>> SqlCatalog::FindDroppedTable(const TableIdentifier& ident) {
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  std::lock_guard<std::mutex> lock(mu_);
  return FindDroppedTableLocked(ident);
}

Result<std::vector<DroppedTable>> SqlCatalog::ListDroppedTables(
    const std::optional<Namespace>& ns) {
  if (ns) ARROW_RETURN_NOT_OK(ns->Validate());
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<DroppedTable> out;
  ARROW_ASSIGN_OR_RAISE(bool has_records, HasDroppedTables());
  if (!has_records) return out;
  std::vector<Row> rows;
  if (ns) {
    ARROW_ASSIGN_OR_RAISE(rows, Query(dropped_tables_sql::kSelectRestorableInNamespace,
                                      {name_, ns->ToString()}));
  } else {
    ARROW_ASSIGN_OR_RAISE(rows, Query(dropped_tables_sql::kSelectRestorable, {name_}));
  }
  out.reserve(rows.size());
  for (const auto& row : rows) {
    DroppedTable d;
    ARROW_ASSIGN_OR_RAISE(d.drop_id, Int64Column(row[0], "drop_id"));
    d.ident = TableIdentifier(Namespace(SplitNamespace(row[1].value_or(""))), row[2].value_or(""));
    d.metadata_location = row[3].value_or("");
    ARROW_ASSIGN_OR_RAISE(d.dropped_at_ms, Int64Column(row[4], "dropped_at"));
    out.push_back(std::move(d));
  }
  return out;
}

Status SqlCatalog::UndropTableEntry(const DroppedTable& dropped) {
  const TableIdentifier& ident = dropped.ident;
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  const std::string table = ident.ToString();
  if (dropped.metadata_location.empty()) {
    return ValidationError("Cannot undrop table ", table, ": its drop recorded no metadata location");
  }
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(this);
  ARROW_RETURN_NOT_OK(txn.Begin());
  ARROW_ASSIGN_OR_RAISE(bool ns_exists, NamespaceExistsLocked(ident.ns));
  if (!ns_exists) {
    return NotFound("Cannot undrop table ", table, ": namespace ", ident.ns.ToString(),
                    " does not exist");
  }
  ARROW_ASSIGN_OR_RAISE(auto existing, FindEntry(ident));
  if (existing) {
    return AlreadyExists("Cannot undrop table ", table, ": a ",
                         existing->is_view ? "view" : "table", " with that name already exists");
  }
  ARROW_ASSIGN_OR_RAISE(auto newest, FindDroppedTableLocked(ident));
  if (!newest || newest->drop_id != dropped.drop_id || newest->purged ||
      newest->metadata_location != dropped.metadata_location) {
    return CommitConflict("Cannot undrop table ", table,
                          ": its drops changed meanwhile (another session dropped or undropped "
                          "it); try again");
  }
  ARROW_RETURN_NOT_OK(
      Execute(kInsertTableSql, {name_, ident.ns.ToString(), ident.name, dropped.metadata_location}));
  ARROW_RETURN_NOT_OK(
      Execute(dropped_tables_sql::kDelete, {name_, std::to_string(dropped.drop_id)}));
  return txn.Commit();
}

}  // namespace floe
