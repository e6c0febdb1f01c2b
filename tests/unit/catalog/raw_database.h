#pragma once

// Direct access to a catalog's database, SQLite file or PostgreSQL database, to check what
// other engines see there and to write rows as they would.

#include <sqlite3.h>

#include <unistd.h>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/catalog/libpq_api.h"
#include "postgres_database.h"

namespace floe::testing {

class RawDatabase {
 public:
  virtual ~RawDatabase() = default;
  virtual void Exec(const std::string& sql) = 0;
  // Rows joined by '|', NULL as "NULL".
  virtual std::vector<std::string> Rows(const std::string& sql) = 0;
  virtual bool HasTable(const std::string& table) = 0;
  // "name|TYPE|notnull|pk position" per column, in order, as Iceberg's JdbcUtil declares
  // them: VARCHAR(n), 1 for NOT NULL, the column's place in the primary key (0: none).
  virtual std::vector<std::string> Columns(const std::string& table) = 0;
};

class RawSqlite : public RawDatabase {
 public:
  explicit RawSqlite(const std::string& path) { sqlite3_open(path.c_str(), &db_); }
  ~RawSqlite() override { sqlite3_close(db_); }
  void Exec(const std::string& sql) override {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << sql << ": " << (err ? err : "");
    sqlite3_free(err);
  }
  std::vector<std::string> Rows(const std::string& sql) override {
    std::vector<std::string> out;
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    while (stmt && sqlite3_step(stmt) == SQLITE_ROW) {
      std::string row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        if (i) row += "|";
        auto* text = sqlite3_column_text(stmt, i);
        row += text ? reinterpret_cast<const char*>(text) : "NULL";
      }
      out.push_back(row);
    }
    sqlite3_finalize(stmt);
    return out;
  }
  bool HasTable(const std::string& table) override {
    return !Rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '" + table + "'")
                .empty();
  }
  std::vector<std::string> Columns(const std::string& table) override {
    return Rows("SELECT name, type, \"notnull\", pk FROM pragma_table_info('" + table + "')");
  }

 private:
  sqlite3* db_ = nullptr;
};

class RawPostgres : public RawDatabase {
 public:
  explicit RawPostgres(const std::string& uri)
      : pq_(Libpq().ValueOrDie()), conn_(pq_->PQconnectdb(uri.c_str())) {
    EXPECT_EQ(pq_->PQstatus(conn_), CONNECTION_OK) << uri << ": " << pq_->PQerrorMessage(conn_);
    pq_->PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
  }
  ~RawPostgres() override { pq_->PQfinish(conn_); }
  void Exec(const std::string& sql) override {
    PGresult* res = pq_->PQexec(conn_, sql.c_str());
    EXPECT_TRUE(pq_->PQresultStatus(res) == PGRES_COMMAND_OK ||
                pq_->PQresultStatus(res) == PGRES_TUPLES_OK)
        << sql << ": " << pq_->PQresultErrorMessage(res);
    pq_->PQclear(res);
  }
  std::vector<std::string> Rows(const std::string& sql) override {
    std::vector<std::string> out;
    PGresult* res = pq_->PQexec(conn_, sql.c_str());
    EXPECT_EQ(pq_->PQresultStatus(res), PGRES_TUPLES_OK)
        << sql << ": " << pq_->PQresultErrorMessage(res);
    for (int r = 0; r < pq_->PQntuples(res); ++r) {
      std::string row;
      for (int c = 0; c < pq_->PQnfields(res); ++c) {
        if (c) row += "|";
        row += pq_->PQgetisnull(res, r, c) ? "NULL" : pq_->PQgetvalue(res, r, c);
      }
      out.push_back(row);
    }
    pq_->PQclear(res);
    return out;
  }
  bool HasTable(const std::string& table) override {
    return !Rows(
                "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() "
                "AND table_name = '" +
                table + "'")
                .empty();
  }
  std::vector<std::string> Columns(const std::string& table) override {
    return Rows(
        "SELECT c.column_name, 'VARCHAR(' || c.character_maximum_length || ')', "
        "CASE c.is_nullable WHEN 'NO' THEN 1 ELSE 0 END, COALESCE(k.ordinal_position, 0) "
        "FROM information_schema.columns c LEFT JOIN (information_schema.key_column_usage k "
        "JOIN information_schema.table_constraints t ON t.constraint_name = k.constraint_name "
        "AND t.constraint_schema = k.constraint_schema AND t.constraint_type = 'PRIMARY KEY') "
        "ON k.table_schema = c.table_schema AND k.table_name = c.table_name AND "
        "k.column_name = c.column_name "
        "WHERE c.table_schema = current_schema() AND c.table_name = '" +
        table +
        "' "
        "ORDER BY c.ordinal_position");
  }
  // The server process of every other connection to this database, ended as a network
  // failure or a server restart would end it.
  int TerminateOtherConnections() {
    auto rows = Rows(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
        "datname = current_database() AND pid <> pg_backend_pid()");
    return static_cast<int>(rows.size());
  }

 private:
  const LibpqApi* pq_;
  PGconn* conn_;
};

// The PostgreSQL server ctest's `postgres` fixture started (tests/support/postgres_server.py):
// FLOE_TEST_POSTGRES names its directory, whose file `uri` holds the address. Fails the test
// when there is none: run the catalog tests through ctest.
inline std::string PostgresServerUri() {
  const char* dir = std::getenv("FLOE_TEST_POSTGRES");
  if (dir == nullptr || *dir == '\0') {
    ADD_FAILURE() << "FLOE_TEST_POSTGRES is not set: run through ctest, whose fixture starts "
                     "PostgreSQL (or skip with --gtest_filter=-*postgresql*)";
    return "";
  }
  std::ifstream in(std::string(dir) + "/uri");
  std::string uri;
  std::getline(in, uri);
  EXPECT_FALSE(uri.empty()) << "no uri in " << dir;
  return uri;
}

// A new empty database on that server; returns its URI.
inline std::string FreshPostgresDatabase() {
  const std::string server = PostgresServerUri();
  if (server.empty()) return "";
  auto uri = CreatePostgresDatabase(server, "floe_test");
  EXPECT_TRUE(uri.ok()) << uri.status().ToString();
  return uri.ok() ? *uri : "";
}

}  // namespace floe::testing
