#pragma once

// A SQL session: a catalog, a FileIO, session settings (current namespace, time zone, ...)
// and statement execution. The `floe` shell, the SQL test runner and the Python package all
// drive floe through this class.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/catalog/catalog.h"
#include "floe/io/file_io.h"
#include "floe/io/object_store.h"
#include "floe/util/status.h"

namespace floe::sql {

struct SessionOptions {
  // A SQLite file path or URI (sqlite:///..., jdbc:sqlite:...; see SqliteDatabasePath) or
  // a PostgreSQL database (postgresql://..., jdbc:postgresql://...); see SqlCatalog::Open.
  std::string catalog_uri = "warehouse/catalog.db";
  std::string warehouse = "warehouse";
  std::string catalog_name = "lakehouse";
  // Absolute roots besides the warehouse where tables may live (SqlCatalog::Open).
  std::vector<std::string> allowed_roots;
  // How to reach s3:// locations (a warehouse s3://bucket/prefix, or tables there); empty
  // fields come from the environment, then the AWS SDK's defaults (see object_store.h).
  ObjectStoreOptions object_store;
  // Who drives the session, recorded in the summary of every snapshot it commits as
  // `floe.client`: "floe sql", "floe cli", "floe python", or "c++ api" when embedded.
  std::string client = "c++ api";
};

// What one statement produced: rows (queries, SHOW, DESCRIBE, CALL, EXPLAIN) or nothing
// (DDL and DML, which report through `message`).
struct StatementResult {
  std::string statement;               // the statement's text, as written
  std::shared_ptr<arrow::Table> rows;  // null when the statement returns no rows
  std::string message;                 // e.g. "Created table lakehouse.db.t"; may be empty
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> Make(const SessionOptions& options);
  // A session over an already open catalog and FileIO (tests, embedding).
  static Result<std::unique_ptr<Session>> Make(std::shared_ptr<Catalog> catalog,
                                               std::shared_ptr<FileIO> io);
  ~Session();

  // Runs one statement. Errors name the table, snapshot or file; syntax and binder errors
  // carry "line L, column C" and a caret line under the spot.
  Result<StatementResult> Execute(const std::string& sql);

  // Runs every statement of a script in order and stops at the first error, returning the
  // results so far through `done` when given.
  Result<std::vector<StatementResult>> ExecuteScript(const std::string& script,
                                                     std::vector<StatementResult>* done = nullptr);

  // Session settings (SET key = value); keys as Spark names them, e.g.
  // "spark.sql.session.timeZone" (default "UTC").
  std::string Setting(const std::string& key, const std::string& fallback = "") const;
  Status SetSetting(const std::string& key, const std::string& value);

  const std::shared_ptr<Catalog>& catalog() const;
  const std::shared_ptr<FileIO>& io() const;

  class Impl;

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::sql
