#pragma once

// A SQL session: a catalog, a FileIO, session settings (current namespace, time zone, ...)
// and statement execution. The `floe` shell, the SQL test runner and the Python package all
// drive floe through this class.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/catalog/catalog.h"
#include "floe/catalog/rest_catalog.h"
#include "floe/io/file_io.h"
#include "floe/io/object_store.h"
#include "floe/util/status.h"

namespace floe::sql {

struct SessionOptions {
  // A SQLite file path or URI (sqlite:///..., jdbc:sqlite:...; see SqliteDatabasePath) or
  // a PostgreSQL database (postgresql://..., jdbc:postgresql://...); see SqlCatalog::Open; or
  // an Iceberg REST catalog (rest+http://host:port/path, rest+https://...; see RestCatalog).
  std::string catalog_uri = "warehouse/catalog.db";
  // How to reach a REST catalog: warehouse, credentials, TLS (unused by the others).
  RestCatalogOptions rest;
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
  // PostgreSQL's command tag: the kind ("SELECT", "INSERT", "CREATE TABLE", ...) and the rows
  // it returned or changed, -1 when the kind has no count (see StatementStream::command).
  std::string command;
  int64_t rows_affected = -1;
};

// A value for a $n parameter. `value` holds a typed Arrow scalar (a null scalar of its type for
// SQL NULL). When the client gave no type (PostgreSQL OID 0 / unknown) `untyped` is true and
// `value` is a StringScalar holding the text: it binds exactly like a string literal written
// in its place (so `id = $1` with '5' compares as Spark compares id = '5').
struct Parameter {
  std::shared_ptr<arrow::Scalar> value;
  bool untyped = false;
};

// What a statement returns, known before it runs (PostgreSQL's Describe).
struct StatementShape {
  bool returns_rows = false;
  std::shared_ptr<arrow::Schema> schema;  // the result's columns when returns_rows
  int parameter_count = 0;                // the highest $n used
  // parameter_types[i] is the type $(i+1) takes from where it stands when the statement gives
  // it one (a comparison with an int column: int32; an INSERT column), else null.
  std::vector<std::shared_ptr<arrow::DataType>> parameter_types;
};

// Rows of a running statement, produced batch by batch so a large result is never whole in memory.
class StatementStream {
 public:
  virtual ~StatementStream() = default;
  virtual std::shared_ptr<arrow::Schema> schema() const = 0;  // null when the statement returns no rows
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Next() = 0;  // null at the end
  // After the end: PostgreSQL-style command kind and count, e.g. {"SELECT", 12}, {"INSERT", 3},
  // {"UPDATE", 2}, {"DELETE", 5}, {"MERGE", 4}, {"CREATE TABLE", -1}, {"DROP TABLE", -1},
  // {"ALTER TABLE", -1}, {"CREATE SCHEMA", -1} (CREATE NAMESPACE/DATABASE), {"DROP SCHEMA", -1},
  // {"CALL", -1}, {"SET", -1}, {"SHOW", n}, {"USE", -1}, {"EXPLAIN", n}, {"DESCRIBE", n} ...
  virtual std::string command() const = 0;
  virtual int64_t rows_affected() const = 0;  // -1 when the kind has no count
  virtual std::string message() const = 0;    // the StatementResult message ("Created table ...")
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
  // The same with values for $1, $2, ...; a $n without one fails with
  // "Parameter $n was not given a value (the statement was given k)".
  Result<StatementResult> Execute(const std::string& sql, const std::vector<Parameter>& params);
  // What the statement would return, without running it (only a SHOW-like statement, which
  // changes nothing, runs to learn its columns). $n without values are described as NULL.
  Result<StatementShape> Describe(const std::string& sql, const std::vector<Parameter>& params = {});
  // Runs a statement whose rows are read batch by batch; a query streams from its plan. The
  // session runs nothing else until the stream is destroyed.
  Result<std::unique_ptr<StatementStream>> ExecuteStreaming(const std::string& sql,
                                                           const std::vector<Parameter>& params = {});
  // Thread-safe, callable from any thread while another thread runs a statement on this
  // session: the running statement (scan, plan, procedure loop) stops soon and fails with
  // Cancelled("canceling statement due to user request"), changing nothing. A commit already
  // swapping the table's metadata is let finish: it cannot be taken back halfway. A cancel
  // with nothing running has no effect on the next statement.
  void Cancel();

  // The transaction block, as PostgreSQL's ReadyForQuery reports it: 'I' no block (each
  // statement commits on its own), 'T' inside BEGIN ... COMMIT, 'E' a statement failed inside
  // the block (only ROLLBACK ends it). Any statement failing inside a block fails it.
  char TransactionStatus() const;
  // For a failure the session did not see: a query that failed while its rows were read.
  void FailTransaction();

  // Runs every statement of a script in order and stops at the first error, returning the
  // results so far through `done` when given.
  Result<std::vector<StatementResult>> ExecuteScript(const std::string& script,
                                                     std::vector<StatementResult>* done = nullptr);

  // Session settings (SET key = value); keys as Spark names them, e.g.
  // "spark.sql.session.timeZone" (default "UTC").
  std::string Setting(const std::string& key, const std::string& fallback = "") const;
  Status SetSetting(const std::string& key, const std::string& value);

  // Who the session runs for, when not the user of this process: the user its commits and
  // audit-log rows record, and the remote address they came from (floe serve's client).
  void SetClientIdentity(const std::string& user, const std::string& address);

  const std::shared_ptr<Catalog>& catalog() const;
  const std::shared_ptr<FileIO>& io() const;

  class Impl;

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::sql
