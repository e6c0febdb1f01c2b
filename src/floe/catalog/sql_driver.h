#pragma once

// The database under the SQL catalog. SqlCatalog holds every statement of the Iceberg
// JDBC-catalog schema and the logic around them; a driver only runs statements on one
// database engine (SQLite, PostgreSQL) and says how a failure may be retried.
//
// Statements are written once, in SQL both engines accept. Parameters are `?` or numbered
// `?1..?n` and are bound as text; a driver whose placeholders differ rewrites them.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe {

// What the last failed call of a driver means for the data it would have changed.
enum class SqlFailure {
  kNone,
  kNotExecuted,     // the statement never reached the database (prepare, bind): nothing changed
  kBusy,            // another connection held a lock past the wait: nothing changed
  kRetry,           // a serialization failure or deadlock: rolled back, run it again
  kConnectionLost,  // the answer was lost: a statement in flight may or may not have happened
  kOther,
};

class SqlDriver {
 public:
  // A bound parameter; nullopt binds NULL.
  using Arg = std::optional<std::string_view>;
  using Row = std::vector<std::optional<std::string>>;

  virtual ~SqlDriver() = default;

  // Names the database in messages: "catalog database /x/catalog.db",
  // "PostgreSQL catalog postgresql://floe@127.0.0.1:5432/lake" (never a password).
  virtual const std::string& description() const = 0;

  // A statement without parameters or rows (DDL, PRAGMA).
  virtual Status Exec(std::string_view sql) = 0;
  // Runs a statement to completion; returns the number of rows it changed.
  virtual Result<int> Execute(std::string_view sql, std::initializer_list<Arg> args) = 0;
  // Every value is returned as text (NULL as nullopt).
  virtual Result<std::vector<Row>> Query(std::string_view sql, std::initializer_list<Arg> args) = 0;

  // A write transaction that no other writer's transaction interleaves with: each one sees
  // the database as if it ran alone (SQLite: BEGIN IMMEDIATE; PostgreSQL: SERIALIZABLE,
  // whose conflicts fail with kRetry).
  virtual Status Begin() = 0;
  // A write transaction whose statements check the rows they change themselves, as a
  // compare-and-swap does: a concurrent change of such a row makes the statement wait and
  // then see the row as committed (PostgreSQL: READ COMMITTED) instead of failing the whole
  // transaction, to be retried after a pause. SQLite: as Begin().
  virtual Status BeginCompareAndSwap() { return Begin(); }
  virtual Status Commit() = 0;
  // Best effort; a no-op outside a transaction.
  virtual void Rollback() = 0;
  // Inside a transaction, before DDL: makes concurrent schema changes of other processes
  // wait (PostgreSQL's catalog DDL is not covered by SERIALIZABLE).
  virtual Status LockSchema() = 0;

  // Whether a table of that (lower-case) name exists in the database's default schema, and
  // whether it has a column of that (lower-case) name.
  virtual Result<bool> HasTable(std::string_view table) = 0;
  virtual Result<bool> HasColumn(std::string_view table, std::string_view column) = 0;

  // After kConnectionLost: a new connection, waiting a while for a restarting server. Then,
  // EndLostSession makes sure the lost connection's server session is gone (a statement it
  // was running then either committed or never will), so that reading the database tells
  // what happened; NotImplemented when the driver cannot tell.
  virtual Status Reconnect() = 0;
  virtual Status EndLostSession() = 0;

  SqlFailure last_failure() const { return last_failure_; }

 protected:
  SqlFailure last_failure_ = SqlFailure::kNone;
};

}  // namespace floe
