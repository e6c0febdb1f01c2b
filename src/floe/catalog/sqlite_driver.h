#pragma once

// The SQL catalog's driver for a SQLite file (the default catalog), opened in WAL mode.

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "floe/catalog/sql_driver.h"

struct sqlite3;
struct sqlite3_stmt;

namespace floe {

// The SQLite file a catalog URI names: a plain path, "sqlite:///rel/path" or
// "sqlite:////abs/path" (SQLAlchemy's rule, as PyIceberg writes it), "jdbc:sqlite:/abs/path"
// (as Spark writes it), or a file: URI. ":memory:" for in-memory databases.
Result<std::string> SqliteDatabasePath(std::string_view uri_or_path);

class SqliteDriver : public SqlDriver {
 public:
  // Opens (creating if absent) the file `uri_or_path` names and switches it to WAL mode
  // (persistent), so that readers such as a Spark session holding a result set open never
  // block commits.
  static Result<std::unique_ptr<SqliteDriver>> Open(std::string_view uri_or_path);
  ~SqliteDriver() override;
  SqliteDriver(const SqliteDriver&) = delete;
  SqliteDriver& operator=(const SqliteDriver&) = delete;

  const std::string& path() const { return path_; }
  const std::string& description() const override { return description_; }

  Status Exec(std::string_view sql) override;
  Result<int> Execute(std::string_view sql, std::initializer_list<Arg> args) override;
  Result<std::vector<Row>> Query(std::string_view sql, std::initializer_list<Arg> args) override;
  Status Begin() override;
  Status Commit() override;
  void Rollback() override;
  Status LockSchema() override { return Status::OK(); }  // BEGIN IMMEDIATE already excludes
  Result<bool> HasTable(std::string_view table) override;
  Result<bool> HasColumn(std::string_view table, std::string_view column) override;
  // A SQLite call never loses its answer.
  Status Reconnect() override;
  Status EndLostSession() override;

 private:
  SqliteDriver(sqlite3* db, std::string path);
  void UseWriteAheadLog();
  Result<sqlite3_stmt*> Prepare(std::string_view sql);
  // Binds `args` as text; a failure is kNotExecuted.
  Status Bind(sqlite3_stmt* stmt, std::initializer_list<Arg> args);
  Status Fail(int rc, std::string_view what);
  std::string BusyHint(int rc) const;
  // Lets go of the file's writer lock once SQLite has no transaction open.
  void ReleaseWriterIfDone();

  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
  std::string journal_mode_;  // as SQLite reported it when the file was opened
  const std::string path_;
  const std::string description_;
  // Connections of this process to the same file take turns at writing here first: a waiting
  // writer wakes the moment the last one commits, where SQLite's busy handler would sleep.
  std::shared_ptr<std::timed_mutex> writer_;  // null for in-memory databases
  std::unique_lock<std::timed_mutex> writing_;
};

}  // namespace floe
