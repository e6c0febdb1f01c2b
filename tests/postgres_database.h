#pragma once

// A new, empty database on a PostgreSQL server, for the tests, torture runs and benchmarks
// that give each run a catalog of its own.

#include <unistd.h>

#include <atomic>
#include <string>

#include "floe/catalog/libpq_api.h"
#include "floe/util/status.h"

namespace floe::testing {

// Creates database `<prefix>_<pid>_<n>` (dropping one of that name first) on the server
// `server_uri` names, and returns the URI with its path replaced by the new database.
inline Result<std::string> CreatePostgresDatabase(const std::string& server_uri,
                                                  const std::string& prefix) {
  ARROW_ASSIGN_OR_RAISE(const LibpqApi* pq, Libpq());
  static std::atomic<int> counter{0};
  const std::string name =
      prefix + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  PGconn* conn = pq->PQconnectdb(server_uri.c_str());
  if (pq->PQstatus(conn) != CONNECTION_OK) {
    std::string message = pq->PQerrorMessage(conn);
    pq->PQfinish(conn);
    return Status::IOError("Cannot connect to ", server_uri, ": ", message);
  }
  pq->PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);  // "does not exist, skipping"
  for (const std::string& sql : {"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name}) {
    PGresult* res = pq->PQexec(conn, sql.c_str());
    const bool ok = pq->PQresultStatus(res) == PGRES_COMMAND_OK;
    std::string message = ok ? "" : pq->PQresultErrorMessage(res);
    pq->PQclear(res);
    if (!ok) {
      pq->PQfinish(conn);
      return Status::IOError(sql, ": ", message);
    }
  }
  pq->PQfinish(conn);
  const auto slash = server_uri.find('/', server_uri.find("://") + 3);
  return server_uri.substr(0, slash) + "/" + name;
}

}  // namespace floe::testing
