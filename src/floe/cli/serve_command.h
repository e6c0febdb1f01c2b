#pragma once

// `floe serve`: the PostgreSQL wire protocol over floe's SQL sessions, so psql, psycopg, JDBC
// and BI tools can query, time travel and roll back; beside it or alone, the Iceberg REST
// catalog (--rest); and `floe serve --add-user` to add a password user to a users file.

#include <string>

#include <CLI/CLI.hpp>

#include "floe/cli/command_common.h"

namespace floe::cli {

struct ServeArgs {
  CatalogArgs where;
  std::string listen = "127.0.0.1:5433";
  std::string auth = "trust";
  std::string users_file;
  std::string tls_cert;
  std::string tls_key;
  double idle_timeout = 0;
  double statement_timeout = 0;
  bool allow_trust_remote = false;
  std::string add_user;
  std::string http_listen;    // --http HOST:PORT: the read-only metadata pages
  std::string rest_listen;    // --rest HOST:PORT: the Iceberg REST catalog
  bool vend_credentials = false;  // --vend-credentials
  bool listen_given = false;  // --listen was on the command line
  std::string memory_limit;  // --memory-limit, for all sessions together
  std::string temp_directory;  // --temp-directory, where every session spills
};

CLI::App* AddServeCommand(CLI::App& app, ServeArgs* args);

// Serves until SIGINT or SIGTERM; returns the exit status.
int RunServeCommand(const ServeArgs& args);

}  // namespace floe::cli
