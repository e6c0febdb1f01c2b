#pragma once

// The SQL catalog's driver for a PostgreSQL database, through libpq: the JDBC catalog that
// Spark and Trino clusters share.

#include <memory>
#include <string>
#include <string_view>

#include "floe/catalog/sql_driver.h"

typedef struct pg_conn PGconn;

namespace floe {

// Whether a catalog URI names a PostgreSQL database: postgresql://..., postgres://...,
// postgresql+<driver>://... (as SQLAlchemy and PyIceberg write it) or jdbc:postgresql:...
bool IsPostgresUri(std::string_view uri);

// The libpq connection string for such a URI. JDBC's form is rewritten ("jdbc:postgresql:
// //host:port/db?user=u" is libpq's URI after the prefix) and its query parameters that
// libpq does not know (JDBC's own, such as currentSchema or ssl) are left out.
Result<std::string> PostgresConnectionUri(std::string_view uri);

class PostgresDriver : public SqlDriver {
 public:
  // Connects once; a server that cannot be reached fails here, naming the URI (without its
  // password) and what libpq answered.
  static Result<std::unique_ptr<PostgresDriver>> Open(std::string_view uri);
  ~PostgresDriver() override;
  PostgresDriver(const PostgresDriver&) = delete;
  PostgresDriver& operator=(const PostgresDriver&) = delete;

  const std::string& description() const override { return description_; }
  // postgresql://user@host:port/db, the database this driver is connected to.
  const std::string& address() const { return address_; }

  Status Exec(std::string_view sql) override;
  Result<int> Execute(std::string_view sql, std::initializer_list<Arg> args) override;
  Result<std::vector<Row>> Query(std::string_view sql, std::initializer_list<Arg> args) override;
  Status Begin() override;
  Status BeginCompareAndSwap() override;
  Status Commit() override;
  void Rollback() override;
  Status LockSchema() override;
  Result<bool> HasTable(std::string_view table) override;
  Result<bool> HasColumn(std::string_view table, std::string_view column) override;
  // Waits up to 30 s for the server (a restart takes a few seconds).
  Status Reconnect() override;
  // Terminates the lost connection's server process if it is still running (a server that
  // restarted has none) and waits until it is gone.
  Status EndLostSession() override;

 private:
  struct Session {
    std::string pid;
    std::string backend_start;
    std::string postmaster_start;
  };

  PostgresDriver(PGconn* conn, std::string conninfo, std::string address);
  Status IdentifySession();
  // Runs one statement; `rows` receives its rows when not null. Returns the affected row
  // count for commands.
  Result<int> Run(std::string_view sql, std::initializer_list<Arg> args, std::vector<Row>* rows);

  PGconn* conn_;
  const std::string conninfo_;
  const std::string address_;
  const std::string description_;
  Session session_;
  Session lost_session_;
};

}  // namespace floe
