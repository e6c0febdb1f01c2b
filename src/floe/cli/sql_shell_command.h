#pragma once

// `floe sql`'s options and its run over an open session, shared by `floe sql` and
// `floe manifest open` (the same shell over a session pinned to a run manifest).

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "floe/cli/command_common.h"
#include "floe/sql/session.h"

namespace floe::cli {

struct SqlArgs {
  CatalogArgs where;
  std::vector<std::string> commands;
  std::vector<std::string> files;
  std::string format = "table";
  bool continue_on_error = false;
  bool quiet = false;
  int64_t max_rows = 0;
  int64_t truncate = 20;
  std::string memory_limit;  // --memory-limit
  std::string temp_directory;  // --temp-directory

  CLI::Option* command_option = nullptr;
  CLI::Option* file_option = nullptr;
};

// Adds the catalog options, -c, -f, --format, --continue, --quiet, --max-rows and
// --truncate to `command`.
void AddSqlOptions(CLI::App* command, SqlArgs* args);

// Adds `floe sql`.
CLI::App* AddSqlCommand(CLI::App& app, SqlArgs* args);

// Runs the -c and -f inputs of `command` in the order given, else a script on standard input,
// else the interactive shell, over `session`; returns the exit status.
int RunSqlShell(sql::Session& session, const SqlArgs& args, const CLI::App& command);

// `floe sql`: opens a session on the catalog options and runs the shell.
int RunSql(const SqlArgs& args, const CLI::App& command);

}  // namespace floe::cli
