#include "floe/catalog/sql_catalog.h"

#include "floe/util/crash_point.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <initializer_list>
#include <set>
#include <thread>
#include <utility>

#include "floe/catalog/dropped_tables_sql.h"
#include "floe/catalog/postgres_driver.h"
#include "floe/catalog/sqlite_driver.h"
#include "floe/util/clock.h"
#include "floe/util/crash_point.h"
#include "floe/util/number_parse.h"

namespace floe {

namespace {

constexpr char kExistsProperty[] = "exists";

// A serialization failure or a lost connection is retried this many times (many writers
// of one catalog's rows can collide several times in a row).
constexpr int kMaxAttempts = 12;

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

// What FileIO accepts as an absolute location: "/x", a file: URI or an s3:// (s3a://, s3n://)
// URI with a bucket.
Status CheckAbsolute(std::string_view what, const std::string& location,
                     const std::string& catalog) {
  if (location.starts_with("/") || location.starts_with("file:")) return Status::OK();
  for (std::string_view scheme : {"s3://", "s3a://", "s3n://"}) {
    if (location.starts_with(scheme) && location.size() > scheme.size() &&
        location[scheme.size()] != '/') {
      return Status::OK();
    }
  }
  return ValidationError(what, " '", location, "' of catalog ", catalog,
                         " is not an absolute path, file: URI or s3:// URI");
}

// Between attempts after a serialization failure: a little longer each time, and a random
// part of it, so that writers that collided do not try again in step and collide again.
void Backoff(int attempt) {
  thread_local std::minstd_rand random(std::random_device{}());
  const int base = 2 << std::min(attempt, 6);
  std::uniform_int_distribution<int> pause(base / 2, base + base / 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(pause(random)));
}

}  // namespace

const std::vector<std::string>& Catalog::allowed_roots() const {
  static const std::vector<std::string> kNone;
  return kNone;
}

std::string Catalog::DefaultTableLocation(const TableIdentifier& ident) const {
  std::string out = warehouse();
  for (const auto& level : ident.ns.levels) out += "/" + LocationSegment(level);
  return out + "/" + LocationSegment(ident.name);
}

SqlCatalog::SqlCatalog(std::unique_ptr<SqlDriver> driver, std::string database, std::string name,
                       std::string warehouse, std::vector<std::string> allowed_roots)
    : driver_(std::move(driver)),
      postgres_(dynamic_cast<PostgresDriver*>(driver_.get()) != nullptr),
      database_(std::move(database)),
      name_(std::move(name)),
      warehouse_(std::move(warehouse)),
      allowed_roots_(std::move(allowed_roots)) {}

SqlCatalog::~SqlCatalog() = default;

Result<std::unique_ptr<SqlCatalog>> SqlCatalog::Open(const std::string& uri_or_path,
                                                     std::string catalog_name,
                                                     std::string warehouse,
                                                     std::vector<std::string> allowed_roots) {
  if (catalog_name.empty()) return ValidationError("Catalog name must not be empty");
  while (warehouse.size() > 1 && warehouse.back() == '/') warehouse.pop_back();
  if (!warehouse.empty()) {
    ARROW_RETURN_NOT_OK(CheckAbsolute("Warehouse", warehouse, catalog_name));
  }
  for (auto& root : allowed_roots) {
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    ARROW_RETURN_NOT_OK(CheckAbsolute("Allowed root", root, catalog_name));
  }
  std::unique_ptr<SqlDriver> driver;
  std::string database;
  if (IsPostgresUri(uri_or_path)) {
    ARROW_ASSIGN_OR_RAISE(auto postgres, PostgresDriver::Open(uri_or_path));
    database = postgres->address();
    driver = std::move(postgres);
  } else {
    ARROW_ASSIGN_OR_RAISE(auto sqlite, SqliteDriver::Open(uri_or_path));
    database = sqlite->path();
    driver = std::move(sqlite);
  }
  const std::string description = driver->description();
  std::unique_ptr<SqlCatalog> catalog(new SqlCatalog(std::move(driver), std::move(database),
                                                     std::move(catalog_name), std::move(warehouse),
                                                     std::move(allowed_roots)));
  {
    std::lock_guard<std::mutex> lock(catalog->mu_);
    ARROW_RETURN_NOT_OK(
        WithContext(catalog->InitSchema(), StrCat("Cannot initialize ", description)));
  }
  return catalog;
}

Result<std::string> SqlCatalog::JournalMode() {
  std::lock_guard<std::mutex> lock(mu_);
  if (dynamic_cast<SqliteDriver*>(driver_.get()) == nullptr) {
    return Status::NotImplemented(driver_->description(), " has no journal mode");
  }
  ARROW_ASSIGN_OR_RAISE(auto rows, driver_->Query("PRAGMA journal_mode", {}));
  if (rows.empty() || !rows[0][0]) return Status::IOError("No journal mode for ", database_);
  return *rows[0][0];
}

Status SqlCatalog::InWriteTransaction(const std::function<Status()>& body,
                                      const std::function<Result<bool>()>& applied,
                                      bool compare_and_swap) {
  for (int attempt = 1;; ++attempt) {
    Status st = compare_and_swap ? driver_->BeginCompareAndSwap() : driver_->Begin();
    if (st.ok()) {
      st = body();
      if (st.ok()) {
        st = driver_->Commit();
        if (st.ok()) return st;
        if (driver_->last_failure() == SqlFailure::kConnectionLost) {
          // COMMIT was sent and its answer lost: look at the database once the lost
          // session is certainly over; a change that is not there is made again.
          ARROW_ASSIGN_OR_RAISE(bool done, ResolveLostCommit(st, applied));
          if (done) return Status::OK();
          if (attempt >= kMaxAttempts) return st;
          continue;
        }
      }
    }
    const SqlFailure failure = driver_->last_failure();
    driver_->Rollback();
    if (attempt >= kMaxAttempts) return st;
    if (failure == SqlFailure::kRetry) {
      Backoff(attempt);
    } else if (failure == SqlFailure::kConnectionLost) {
      // The server rolled the transaction back with the connection.
      ARROW_RETURN_NOT_OK(driver_->Reconnect());
    } else {
      return st;
    }
  }
}

Result<bool> SqlCatalog::ResolveLostCommit(const Status& lost,
                                           const std::function<Result<bool>()>& applied) {
  Status st = driver_->Reconnect();
  if (st.ok()) st = driver_->EndLostSession();
  if (!st.ok()) return WithContext(lost, st.ToString());
  if (!applied) return false;  // the transaction can simply run again
  return applied();
}

Status SqlCatalog::InitSchema() {
  auto inspect = [&](bool* has_tables, bool* has_type, bool* has_props) -> Status {
    ARROW_ASSIGN_OR_RAISE(*has_tables, driver_->HasTable("iceberg_tables"));
    ARROW_ASSIGN_OR_RAISE(*has_props, driver_->HasTable("iceberg_namespace_properties"));
    *has_type = false;
    if (*has_tables) {
      ARROW_ASSIGN_OR_RAISE(*has_type, driver_->HasColumn("iceberg_tables", "iceberg_type"));
    }
    return Status::OK();
  };

  bool has_tables = false, has_type = false, has_props = false;
  ARROW_RETURN_NOT_OK(Read([&] { return inspect(&has_tables, &has_type, &has_props); }));
  if (has_tables && has_type && has_props) return InitAuditLog();

  // Another process may be initializing the same database: decide again under the lock.
  ARROW_RETURN_NOT_OK(InWriteTransaction([&]() -> Status {
    ARROW_RETURN_NOT_OK(driver_->LockSchema());
    ARROW_RETURN_NOT_OK(inspect(&has_tables, &has_type, &has_props));
    if (!has_tables) ARROW_RETURN_NOT_OK(driver_->Exec(kCreateTablesSql));
    if (!has_type) ARROW_RETURN_NOT_OK(driver_->Exec(kAddRecordTypeSql));
    if (!has_props) ARROW_RETURN_NOT_OK(driver_->Exec(kCreateNamespacePropertiesSql));
    return Status::OK();
  }));
  return InitAuditLog();
}

Result<int> SqlCatalog::Execute(std::string_view sql, std::initializer_list<Arg> args) {
  return driver_->Execute(sql, args);
}

Result<std::vector<SqlCatalog::Row>> SqlCatalog::Query(std::string_view sql,
                                                       std::initializer_list<Arg> args) {
  return driver_->Query(sql, args);
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
  return InWriteTransaction(
      [&]() -> Status {
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
        return Status::OK();
      },
      [&]() -> Result<bool> { return NamespaceExistsLocked(ns); });
}

Result<bool> SqlCatalog::NamespaceExists(const Namespace& ns) {
  ARROW_RETURN_NOT_OK(ns.Validate());
  std::lock_guard<std::mutex> lock(mu_);
  return Read([&] { return NamespaceExistsLocked(ns); });
}

Result<std::vector<Namespace>> SqlCatalog::ListNamespaces(const Namespace& parent) {
  std::lock_guard<std::mutex> lock(mu_);
  return Read([&]() -> Result<std::vector<Namespace>> {
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
      Namespace ns(SplitDots(*row[0]));
      if (ns.size() <= parent.size() || !ns.HasPrefix(parent)) continue;
      ns.levels.resize(parent.size() + 1);
      children.insert(std::move(ns));
    }
    return std::vector<Namespace>(children.begin(), children.end());
  });
}

Result<NamespaceProperties> SqlCatalog::LoadNamespaceProperties(const Namespace& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  return Read([&]() -> Result<NamespaceProperties> {
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
      for (const auto& level : ns.levels) location += "/" + LocationSegment(level);
      properties["location"] = location;
    }
    return properties;
  });
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
  return InWriteTransaction(
      [&]() -> Status {
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
        return Status::OK();
      },
      [&]() -> Result<bool> {
        // Not known: setting and removing the same properties again is harmless.
        return false;
      });
}

Status SqlCatalog::DropNamespace(const Namespace& ns) {
  if (ns.empty()) return ValidationError("Cannot drop the empty namespace");
  std::lock_guard<std::mutex> lock(mu_);
  return InWriteTransaction(
      [&]() -> Status {
        ARROW_RETURN_NOT_OK(RequireNamespace(ns));
        const std::string text = ns.ToString();
        ARROW_ASSIGN_OR_RAISE(auto tables,
                              Query("SELECT 1 FROM iceberg_tables WHERE catalog_name = ? AND "
                                    "table_namespace = ? LIMIT 1",
                                    {name_, text}));
        ARROW_ASSIGN_OR_RAISE(bool has_children, HasChildNamespaces(ns));
        if (!tables.empty() || has_children) return ValidationError("Namespace not empty: ", text);
        ARROW_RETURN_NOT_OK(Execute(
            "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?",
            {name_, text}));
        return Status::OK();
      },
      [&]() -> Result<bool> {
        ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExistsLocked(ns));
        return !exists;
      });
}

// ---- tables ----

Status SqlCatalog::CreateTableEntry(const TableIdentifier& ident,
                                    const std::string& metadata_location) {
  AuditRecord record;
  record.kind = audit_kind::kCreate;
  return CreateTableEntry(ident, metadata_location, record);
}

Status SqlCatalog::CreateTableEntry(const TableIdentifier& ident,
                                    const std::string& metadata_location,
                                    const AuditRecord& record) {
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  ARROW_RETURN_NOT_OK(ident.ValidateNew());
  if (metadata_location.empty()) {
    return ValidationError("Cannot create table ", ident.ToString(), ": empty metadata location");
  }
  std::lock_guard<std::mutex> lock(mu_);
  return InWriteTransaction(
      [&]() -> Status { return InsertEntry(ident, metadata_location, record); },
      [&]() -> Result<bool> {
        ARROW_ASSIGN_OR_RAISE(auto entry, FindEntry(ident));
        return entry.has_value() && entry->metadata_location == metadata_location;
      });
}

Status SqlCatalog::InsertEntry(const TableIdentifier& ident, const std::string& location,
                               const AuditRecord& record) {
  ARROW_RETURN_NOT_OK(RequireNamespace(ident.ns));
  ARROW_ASSIGN_OR_RAISE(auto existing, FindEntry(ident));
  if (existing) {
    if (existing->is_view) {
      return AlreadyExists("View with same name already exists: ", ident.ToString());
    }
    return AlreadyExists("Table already exists: ", ident.ToString());
  }
  ARROW_RETURN_NOT_OK(RecordChange(ident, std::nullopt, location, record));
  return Execute(kInsertTableSql, {name_, ident.ns.ToString(), ident.name, location}).status();
}

Status SqlCatalog::SwapEntry(const TableIdentifier& ident, const std::string& expected_location,
                             const std::string& new_location, const AuditRecord& record) {
  ARROW_RETURN_NOT_OK(RecordChange(ident, expected_location, new_location, record));
  ARROW_ASSIGN_OR_RAISE(
      int changes, Execute(SwapSql(), {new_location, expected_location, name_, ident.ns.ToString(),
                                       ident.name, expected_location}));
  if (changes == 1) return Status::OK();
  if (changes > 1) {
    return CommitStateUnknown("Commit of table ", ident.ToString(), " changed ", changes,
                              " catalog rows; the primary key of iceberg_tables is violated");
  }
  return SwapConflict(ident, expected_location, new_location);
}

Result<std::string> SqlCatalog::LoadMetadataLocation(const TableIdentifier& ident) {
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  std::lock_guard<std::mutex> lock(mu_);
  return Read([&]() -> Result<std::string> {
    ARROW_ASSIGN_OR_RAISE(auto entry, FindEntry(ident));
    if (!entry || entry->is_view) return NotFound("Table does not exist: ", ident.ToString());
    if (!entry->metadata_location || entry->metadata_location->empty()) {
      return ValidationError("Table ", ident.ToString(), " has no metadata location in catalog ",
                             name_);
    }
    return *entry->metadata_location;
  });
}

Result<bool> SqlCatalog::TableExists(const TableIdentifier& ident) {
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  std::lock_guard<std::mutex> lock(mu_);
  return Read([&]() -> Result<bool> {
    ARROW_ASSIGN_OR_RAISE(auto entry, FindEntry(ident));
    return entry.has_value() && !entry->is_view;
  });
}

Result<std::vector<TableIdentifier>> SqlCatalog::ListTables(const Namespace& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  return Read([&]() -> Result<std::vector<TableIdentifier>> {
    ARROW_RETURN_NOT_OK(RequireNamespace(ns));
    ARROW_ASSIGN_OR_RAISE(
        auto rows, Query(StrCat("SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND "
                                "table_namespace = ? AND ",
                                kIsTable),
                         {name_, ns.ToString()}));
    // Sorted here: PostgreSQL's ORDER BY follows the database's collation, not byte order.
    std::vector<std::string> names;
    names.reserve(rows.size());
    for (auto& row : rows) names.push_back(row[0].value_or(""));
    std::sort(names.begin(), names.end());
    std::vector<TableIdentifier> out;
    out.reserve(names.size());
    for (auto& name : names) out.emplace_back(ns, std::move(name));
    return out;
  });
}

const std::string& SqlCatalog::SwapSql() {
  static const std::string kSql = StrCat(
      "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? "
      "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND "
      "metadata_location = ? AND ",
      kIsTable);
  return kSql;
}

Status SqlCatalog::SwapConflict(const TableIdentifier& ident, const std::string& expected_location,
                                const std::string& new_location) {
  auto entry = Read([&] { return FindEntry(ident); });
  std::string found = "an unreadable entry";
  if (entry.ok()) {
    if (!entry->has_value() || (*entry)->is_view) {
      found = "no such table";
    } else {
      found = (*entry)->metadata_location.value_or("NULL");
    }
  }
  return CommitConflict("Table has been updated by another process: ", ident.ToString(),
                        " (expected metadata location ", expected_location, ", found ", found,
                        "); ", new_location, " was not committed");
}

Status SqlCatalog::SwapMetadataLocation(const TableIdentifier& ident,
                                        const std::string& expected_location,
                                        const std::string& new_location) {
  // What moved is named when the log is read, from the two metadata files.
  AuditRecord record;
  record.kind = audit_kind::kCommit;
  record.classified = false;
  return SwapMetadataLocation(ident, expected_location, new_location, record);
}

Status SqlCatalog::SwapMetadataLocation(const TableIdentifier& ident,
                                        const std::string& expected_location,
                                        const std::string& new_location,
                                        const AuditRecord& record) {
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  if (new_location.empty()) {
    return ValidationError("Cannot commit ", ident.ToString(), ": empty metadata location");
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (audit_log_) return AuditedSwap(ident, expected_location, new_location, record);
  const std::string table = ident.ToString();
  const std::string& kSql = SwapSql();
  const std::string ns = ident.ns.ToString();
  auto updated = driver_->Execute(
      kSql, {new_location, expected_location, name_, ns, ident.name, expected_location});
  // A lost answer, once resolved as "did not happen", is run again: the same compare-and-swap.
  for (int attempt = 1; !updated.ok() && driver_->last_failure() == SqlFailure::kConnectionLost &&
                        attempt < kMaxAttempts;
       ++attempt) {
    ARROW_ASSIGN_OR_RAISE(
        bool applied, ResolveLostSwap(ident, expected_location, new_location, updated.status()));
    if (applied) return Status::OK();
    updated = driver_->Execute(
        kSql, {new_location, expected_location, name_, ns, ident.name, expected_location});
  }
  if (!updated.ok()) {
    const SqlFailure failure = driver_->last_failure();
    driver_->Rollback();  // an autocommit statement that failed must leave no transaction
    switch (failure) {
      case SqlFailure::kNotExecuted:
        // Nothing ran, so the pointer certainly did not move.
        return WithContext(updated.status(), StrCat("Cannot commit ", table));
      case SqlFailure::kBusy:
      case SqlFailure::kRetry:
        // Reported before anything changed: the swap did not happen.
        return CommitConflict("Cannot commit table ", table, ": ", updated.status().message(), "; ",
                              new_location, " was not committed");
      default:
        return CommitStateUnknown("Cannot tell whether table ", table, " was committed from ",
                                  expected_location, " to ", new_location, ": ",
                                  updated.status().message());
    }
  }
  const int changes = *updated;
  if (changes == 1) return Status::OK();
  if (changes > 1) {
    return CommitStateUnknown("Commit of table ", table, " changed ", changes,
                              " catalog rows; the primary key of iceberg_tables is violated");
  }
  return SwapConflict(ident, expected_location, new_location);
}

Status SqlCatalog::SwapMetadataLocations(const std::vector<TableSwap>& swaps,
                                         const CatalogTagChange* catalog_tag) {
  if (swaps.empty() && !catalog_tag) return Status::OK();
  for (const auto& swap : swaps) {
    ARROW_RETURN_NOT_OK(ValidateTable(swap.ident));
    if (swap.new_location.empty()) {
      return ValidationError("Cannot commit ", swap.ident.ToString(), ": empty metadata location");
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  Status st = InWriteTransaction(
      [&]() -> Status {
        for (const auto& swap : swaps) {
          const TableIdentifier& ident = swap.ident;
          if (!swap.expected_location.empty()) {
            ARROW_RETURN_NOT_OK(
                SwapEntry(ident, swap.expected_location, swap.new_location, swap.record));
            continue;
          }
          ARROW_RETURN_NOT_OK(ident.ValidateNew());
          Status inserted = InsertEntry(ident, swap.new_location, swap.record);
          // The create's requirement held when the commit was prepared.
          if (IsAlreadyExists(inserted)) {
            return CommitConflict("Cannot commit ", ident.ToString(), ": ", inserted.message(),
                                  " (created concurrently)");
          }
          ARROW_RETURN_NOT_OK(inserted);
        }
        if (catalog_tag) ARROW_RETURN_NOT_OK(ChangeCatalogTag(*catalog_tag));
        CrashPoint("transaction-in-catalog");
        return Status::OK();
      },
      // The answer to COMMIT was lost: the first table's pointer (or the tag's record) says
      // whether it happened.
      [&]() -> Result<bool> {
        if (swaps.empty()) {
          ARROW_ASSIGN_OR_RAISE(auto tags, ReadCatalogTags(catalog_tag->tag.name));
          return tags.empty() == (catalog_tag->kind == CatalogTagChange::Kind::kDrop);
        }
        ARROW_ASSIGN_OR_RAISE(auto entry, FindEntry(swaps[0].ident));
        return entry.has_value() && entry->metadata_location == swaps[0].new_location;
      },
      /*compare_and_swap=*/true);
  if (st.ok()) {
    if (catalog_tag) has_catalog_tags_ = true;
    return st;
  }
  if (IsCommitConflict(st) || IsCommitStateUnknown(st)) return st;
  switch (driver_->last_failure()) {
    case SqlFailure::kBusy:
    case SqlFailure::kRetry:
      return CommitConflict("Cannot commit ", swaps.size(), " tables: ", st.message(),
                            "; nothing was committed");
    case SqlFailure::kConnectionLost:
      return CommitStateUnknown("Cannot tell whether the commit of ", swaps.size(),
                                " tables happened: ", st.message());
    default:
      return st;  // rolled back: nothing moved
  }
}

// The answer to the swap was lost with the connection. Once the lost session is certainly
// over, the row tells: pointing at new_location (or having it as the previous location,
// when another writer already committed on top) the swap happened (true); still pointing
// at expected_location it did not and never will (false). Anything else is
// CommitStateUnknown.
Result<bool> SqlCatalog::ResolveLostSwap(const TableIdentifier& ident,
                                         const std::string& expected_location,
                                         const std::string& new_location, const Status& lost) {
  const std::string table = ident.ToString();
  auto unknown = [&](const Status& why) {
    return CommitStateUnknown("Cannot tell whether table ", table, " was committed from ",
                              expected_location, " to ", new_location, ": ", lost.message(), "; ",
                              why.message());
  };
  Status st = driver_->Reconnect();
  if (st.ok()) st = driver_->EndLostSession();
  if (!st.ok()) return unknown(st);
  auto rows = Read([&] {
    return Query(StrCat("SELECT metadata_location, previous_metadata_location FROM "
                        "iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND "
                        "table_name = ? AND ",
                        kIsTable),
                 {name_, ident.ns.ToString(), ident.name});
  });
  if (!rows.ok()) return unknown(rows.status());
  if (rows->size() == 1) {
    const auto& current = (*rows)[0][0];
    const auto& previous = (*rows)[0][1];
    if (current == new_location || previous == new_location) return true;
    if (current == expected_location) return false;
  }
  return unknown(Status::IOError(
      "the table now points at ",
      rows->empty() ? std::string("no metadata (it is gone)") : (*rows)[0][0].value_or("NULL")));
}

Status SqlCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  AuditRecord record;
  record.kind = audit_kind::kRename;
  return RenameTable(from, to, record);
}

Status SqlCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to,
                               const AuditRecord& record) {
  ARROW_RETURN_NOT_OK(ValidateTable(from));
  ARROW_RETURN_NOT_OK(ValidateTable(to));
  ARROW_RETURN_NOT_OK(to.ValidateNew());
  std::lock_guard<std::mutex> lock(mu_);
  return InWriteTransaction(
      [&]() -> Status {
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
        AuditRecord renamed = record;
        if (renamed.detail.empty()) renamed.detail = "renamed from " + from.ToString();
        ARROW_RETURN_NOT_OK(
            RecordChange(to, source->metadata_location, source->metadata_location, renamed));
        ARROW_ASSIGN_OR_RAISE(
            int changes,
            Execute(StrCat("UPDATE iceberg_tables SET table_namespace = ?, table_name = ? "
                           "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND ",
                           kIsTable),
                    {to.ns.ToString(), to.name, name_, from.ns.ToString(), from.name}));
        if (changes != 1) return NotFound("Table does not exist: ", from.ToString());
        return Status::OK();
      },
      [&]() -> Result<bool> {
        ARROW_ASSIGN_OR_RAISE(auto source, FindEntry(from));
        ARROW_ASSIGN_OR_RAISE(auto target, FindEntry(to));
        return !source.has_value() && target.has_value();
      });
}

Result<std::string> SqlCatalog::DropTableEntry(const TableIdentifier& ident) {
  return DropTableEntry(ident, DropRecord::kNone);
}

Result<std::string> SqlCatalog::DropTableEntry(const TableIdentifier& ident, DropRecord record) {
  AuditRecord audit;
  audit.kind = audit_kind::kDrop;
  return DropTableEntry(ident, record, audit);
}

Result<std::string> SqlCatalog::DropTableEntry(const TableIdentifier& ident, DropRecord record,
                                               const AuditRecord& audit) {
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<std::string> location;
  ARROW_RETURN_NOT_OK(InWriteTransaction(
      [&]() -> Status {
        ARROW_ASSIGN_OR_RAISE(auto entry, FindEntry(ident));
        if (!entry || entry->is_view) return NotFound("Table does not exist: ", ident.ToString());
        location = entry->metadata_location;
        AuditRecord dropped = audit;
        if (dropped.detail.empty() && record == DropRecord::kPurged) dropped.detail = "purged";
        ARROW_RETURN_NOT_OK(RecordChange(ident, location, std::nullopt, dropped));
        ARROW_RETURN_NOT_OK(Execute(
            StrCat("DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? "
                   "AND table_name = ? AND ",
                   kIsTable),
            {name_, ident.ns.ToString(), ident.name}));
        if (record != DropRecord::kNone) {
          if (!has_dropped_tables_) {
            ARROW_RETURN_NOT_OK(driver_->LockSchema());
            ARROW_RETURN_NOT_OK(driver_->Exec(dropped_tables_sql::kCreateTable));
          }
          const std::string dropped_at = std::to_string(NowMillis());
          ARROW_RETURN_NOT_OK(Execute(dropped_tables_sql::kInsert,
                                      {name_, ident.ns.ToString(), ident.name, location, dropped_at,
                                       record == DropRecord::kPurged ? "1" : "0"}));
        }
        return Status::OK();
      },
      [&]() -> Result<bool> {
        ARROW_ASSIGN_OR_RAISE(auto entry, FindEntry(ident));
        return !entry.has_value() || entry->metadata_location != location;
      }));
  if (record != DropRecord::kNone) has_dropped_tables_ = true;
  return location.value_or("");
}

// ---- dropped tables ----

Result<bool> SqlCatalog::HasDroppedTables() {
  if (has_dropped_tables_) return true;
  ARROW_ASSIGN_OR_RAISE(has_dropped_tables_, driver_->HasTable("floe_dropped_tables"));
  return has_dropped_tables_;
}

namespace {
Result<int64_t> Int64Column(const std::optional<std::string>& value, const char* column) {
  std::optional<int64_t> out = value ? ParseInt64(*value) : std::nullopt;
  if (!out) {
    return Status::IOError("Unreadable ", column,
                           " in floe_dropped_tables: ", value.value_or("NULL"));
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
  return Read([&] { return FindDroppedTableLocked(ident); });
}

Result<std::vector<DroppedTable>> SqlCatalog::ListDroppedTables(
    const std::optional<Namespace>& ns) {
  if (ns) ARROW_RETURN_NOT_OK(ns->Validate());
  std::lock_guard<std::mutex> lock(mu_);
  return Read([&]() -> Result<std::vector<DroppedTable>> {
    std::vector<DroppedTable> out;
    ARROW_ASSIGN_OR_RAISE(bool has_records, HasDroppedTables());
    if (!has_records) return out;
    std::vector<Row> rows;
    if (ns) {
      ARROW_ASSIGN_OR_RAISE(
          rows, Query(dropped_tables_sql::kSelectRestorableInNamespace, {name_, ns->ToString()}));
    } else {
      ARROW_ASSIGN_OR_RAISE(rows, Query(dropped_tables_sql::kSelectRestorable, {name_}));
    }
    out.reserve(rows.size());
    for (const auto& row : rows) {
      DroppedTable d;
      ARROW_ASSIGN_OR_RAISE(d.drop_id, Int64Column(row[0], "drop_id"));
      d.ident =
          TableIdentifier(Namespace(SplitDots(row[1].value_or(""))), row[2].value_or(""));
      d.metadata_location = row[3].value_or("");
      ARROW_ASSIGN_OR_RAISE(d.dropped_at_ms, Int64Column(row[4], "dropped_at"));
      out.push_back(std::move(d));
    }
    return out;
  });
}

Status SqlCatalog::UndropTableEntry(const DroppedTable& dropped) {
  AuditRecord record;
  record.kind = audit_kind::kUndrop;
  return UndropTableEntry(dropped, record);
}

Status SqlCatalog::UndropTableEntry(const DroppedTable& dropped, const AuditRecord& record) {
  const TableIdentifier& ident = dropped.ident;
  ARROW_RETURN_NOT_OK(ValidateTable(ident));
  const std::string table = ident.ToString();
  if (dropped.metadata_location.empty()) {
    return ValidationError("Cannot undrop table ", table,
                           ": its drop recorded no metadata location");
  }
  std::lock_guard<std::mutex> lock(mu_);
  return InWriteTransaction(
      [&]() -> Status {
        ARROW_ASSIGN_OR_RAISE(bool ns_exists, NamespaceExistsLocked(ident.ns));
        if (!ns_exists) {
          return NotFound("Cannot undrop table ", table, ": namespace ", ident.ns.ToString(),
                          " does not exist");
        }
        ARROW_ASSIGN_OR_RAISE(auto existing, FindEntry(ident));
        if (existing) {
          return AlreadyExists("Cannot undrop table ", table, ": a ",
                               existing->is_view ? "view" : "table",
                               " with that name already exists");
        }
        ARROW_ASSIGN_OR_RAISE(auto newest, FindDroppedTableLocked(ident));
        if (!newest || newest->drop_id != dropped.drop_id || newest->purged ||
            newest->metadata_location != dropped.metadata_location) {
          return CommitConflict(
              "Cannot undrop table ", table,
              ": its drops changed meanwhile (another session dropped or undropped "
              "it); try again");
        }
        ARROW_RETURN_NOT_OK(RecordChange(ident, std::nullopt, dropped.metadata_location, record));
        ARROW_RETURN_NOT_OK(Execute(
            kInsertTableSql, {name_, ident.ns.ToString(), ident.name, dropped.metadata_location}));
        ARROW_RETURN_NOT_OK(
            Execute(dropped_tables_sql::kDelete, {name_, std::to_string(dropped.drop_id)}));
        return Status::OK();
      },
      [&]() -> Result<bool> {
        ARROW_ASSIGN_OR_RAISE(auto entry, FindEntry(ident));
        return entry.has_value() && entry->metadata_location == dropped.metadata_location;
      });
}

}  // namespace floe
