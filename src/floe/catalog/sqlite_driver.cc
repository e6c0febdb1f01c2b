#include "floe/catalog/sqlite_driver.h"

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <utility>

namespace floe {

namespace {

// In WAL mode only writers exclude each other, and Spark, PyIceberg and other floe processes
// hold the write lock for a statement or two; waiting beats failing a commit.
constexpr int kBusyTimeoutMs = 10000;

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

Status Unsupported(std::string_view uri) {
  return Status::NotImplemented("Unsupported catalog URI ", uri,
                                ": floe's catalogs are SQLite files and PostgreSQL databases");
}

bool IsBusy(int rc) {
  const int primary = rc & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

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

int BindAll(sqlite3_stmt* stmt, std::initializer_list<SqlDriver::Arg> args) {
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

// One writer lock per database file of this process, shared by its connections.
std::shared_ptr<std::timed_mutex> WriterLockFor(const std::string& path) {
  if (path == ":memory:" || path.empty()) return nullptr;
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<std::timed_mutex>> locks;
  std::lock_guard<std::mutex> guard(mu);
  std::error_code ec;
  std::filesystem::path key = std::filesystem::weakly_canonical(path, ec);
  auto& slot = locks[ec ? path : key.string()];
  auto lock = slot.lock();
  if (!lock) {
    lock = std::make_shared<std::timed_mutex>();
    slot = lock;
  }
  return lock;
}

}  // namespace

Result<std::string> SqliteDatabasePath(std::string_view uri) {
  if (uri.empty()) return ValidationError("Catalog URI is empty");
  if (StartsWith(uri, "jdbc:")) {
    if (!StartsWith(uri, "jdbc:sqlite:")) return Unsupported(uri);
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
    return Unsupported(uri);
  }
  return std::string(uri);
}

SqliteDriver::SqliteDriver(sqlite3* db, std::string path)
    : db_(db),
      path_(std::move(path)),
      description_("catalog database " + path_),
      writer_(WriterLockFor(path_)) {}

SqliteDriver::~SqliteDriver() {
  if (writing_.owns_lock()) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

Result<std::unique_ptr<SqliteDriver>> SqliteDriver::Open(std::string_view uri_or_path) {
  ARROW_ASSIGN_OR_RAISE(std::string path, SqliteDatabasePath(uri_or_path));
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
  std::unique_ptr<SqliteDriver> driver(new SqliteDriver(db, std::move(path)));
  driver->UseWriteAheadLog();
  return driver;
}

// In the default rollback-journal mode a connection that merely leaves a result set open
// (Iceberg's JdbcCatalog does, for the life of a Spark session) blocks every writer; in WAL
// mode readers never block writers. The mode is stored in the file, so a catalog created by
// Spark or PyIceberg is switched the first time floe opens it.
void SqliteDriver::UseWriteAheadLog() {
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

// SQLite answers "busy" when another connection kept the write lock past the busy timeout.
std::string SqliteDriver::BusyHint(int rc) const {
  if (!IsBusy(rc)) return "";
  return StrCat(" (it stayed locked by another connection for ", kBusyTimeoutMs / 1000, " s",
                journal_mode_ == "wal" || journal_mode_ == "memory"
                    ? ""
                    : "; it is not in WAL mode yet, so its readers block writers too",
                ")");
}

Status SqliteDriver::Fail(int rc, std::string_view what) {
  last_failure_ = IsBusy(rc) ? SqlFailure::kBusy : SqlFailure::kOther;
  return Status::IOError(description_, ": ", what, BusyHint(rc));
}

Status SqliteDriver::Exec(std::string_view sql) {
  last_failure_ = SqlFailure::kNone;
  char* err = nullptr;
  const std::string text(sql);
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::OK();
  std::string message = err ? err : sqlite3_errstr(rc);
  sqlite3_free(err);
  return Fail(rc, StrCat(message, " in '", sql, "'"));
}

Result<sqlite3_stmt*> SqliteDriver::Prepare(std::string_view sql) {
  auto it = statements_.find(std::string(sql));
  if (it != statements_.end()) return it->second;
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    Status st = Fail(rc, StrCat("cannot prepare '", sql, "': ", sqlite3_errmsg(db_)));
    if (!IsBusy(rc)) last_failure_ = SqlFailure::kNotExecuted;
    return st;
  }
  statements_.emplace(std::string(sql), stmt);
  return stmt;
}

Status SqliteDriver::Bind(sqlite3_stmt* stmt, std::initializer_list<Arg> args) {
  const int rc = BindAll(stmt, args);
  if (rc == SQLITE_OK) return Status::OK();
  Status st = Fail(rc, sqlite3_errmsg(db_));
  last_failure_ = SqlFailure::kNotExecuted;
  return st;
}

Result<int> SqliteDriver::Execute(std::string_view sql, std::initializer_list<Arg> args) {
  last_failure_ = SqlFailure::kNone;
  ARROW_ASSIGN_OR_RAISE(sqlite3_stmt * stmt, Prepare(sql));
  StatementScope scope(stmt);
  ARROW_RETURN_NOT_OK(Bind(stmt, args));
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
  }
  if (rc != SQLITE_DONE) return Fail(rc, sqlite3_errmsg(db_));
  return sqlite3_changes(db_);
}

Result<std::vector<SqlDriver::Row>> SqliteDriver::Query(std::string_view sql,
                                                        std::initializer_list<Arg> args) {
  last_failure_ = SqlFailure::kNone;
  ARROW_ASSIGN_OR_RAISE(sqlite3_stmt * stmt, Prepare(sql));
  StatementScope scope(stmt);
  ARROW_RETURN_NOT_OK(Bind(stmt, args));
  std::vector<Row> rows;
  const int columns = sqlite3_column_count(stmt);
  int rc;
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
  if (rc != SQLITE_DONE) return Fail(rc, sqlite3_errmsg(db_));
  return rows;
}

// BEGIN IMMEDIATE takes the write lock up front, so check-then-write sequences cannot
// interleave with another connection's and the busy timeout applies at the start.
Status SqliteDriver::Begin() {
  // Its failure is the database's state (locked), not the statement's: said without it.
  last_failure_ = SqlFailure::kNone;
  if (writer_ && !writing_.owns_lock()) {
    writing_ = std::unique_lock<std::timed_mutex>(*writer_, std::defer_lock);
    if (!writing_.try_lock_for(std::chrono::milliseconds(kBusyTimeoutMs))) {
      return Fail(SQLITE_BUSY, "database is locked");
    }
  }
  int rc = sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) return Status::OK();
  Status st = Fail(rc, sqlite3_errmsg(db_));
  ReleaseWriterIfDone();
  return st;
}

void SqliteDriver::ReleaseWriterIfDone() {
  if (writing_.owns_lock() && sqlite3_get_autocommit(db_)) writing_.unlock();
}

Status SqliteDriver::Commit() {
  Status st = Exec("COMMIT");
  ReleaseWriterIfDone();
  return st;
}

void SqliteDriver::Rollback() {
  if (!sqlite3_get_autocommit(db_)) (void)sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  ReleaseWriterIfDone();
}

Result<bool> SqliteDriver::HasTable(std::string_view table) {
  ARROW_ASSIGN_OR_RAISE(
      auto rows,
      Query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND lower(name) = ?", {table}));
  return !rows.empty();
}

Result<bool> SqliteDriver::HasColumn(std::string_view table, std::string_view column) {
  ARROW_ASSIGN_OR_RAISE(auto rows, Query("SELECT 1 FROM pragma_table_info(?) WHERE lower(name) = ?",
                                         {table, column}));
  return !rows.empty();
}

Status SqliteDriver::Reconnect() {
  return Status::NotImplemented(description_, " has no connection to lose");
}

Status SqliteDriver::EndLostSession() { return Reconnect(); }

}  // namespace floe
