#pragma once

// `floe show <table> [--snapshot-id N | --timestamp T | --ref R] [--where COND]
// [--columns a,b] [--limit N] [--json | --format F]`: the rows of a table at one point in
// its history (the current state when none is given), read through SQL time travel and
// printed as `floe sql` prints rows.

#include <cstdint>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "floe/cli/command_common.h"
#include "floe/table/table.h"

namespace floe::cli {

struct ShowArgs {
  CatalogArgs where;
  std::string table;
  int64_t snapshot_id = 0;
  std::string timestamp;
  std::string ref;
  std::string condition;
  std::string columns;
  int64_t limit = -1;
  bool json = false;
  std::string format = "table";
  int64_t truncate = 20;

  CLI::Option* snapshot_option = nullptr;
  CLI::Option* timestamp_option = nullptr;
  CLI::Option* ref_option = nullptr;
  CLI::Option* limit_option = nullptr;
};

CLI::App* AddShowCommand(CLI::App& app, ShowArgs* args);

// The SELECT statement `floe show` runs, or the error of an invalid choice of options.
// More than one point in time: `Cannot set both --snapshot-id and --ref to select which
// table snapshot to scan` (Iceberg's rule and wording, with the options' names).
Result<std::string> ShowQuery(const ShowArgs& args, const sql::Session& session,
                              const table::Table& table);

int RunShowCommand(const ShowArgs& args, std::ostream& out, std::ostream& err);

}  // namespace floe::cli
