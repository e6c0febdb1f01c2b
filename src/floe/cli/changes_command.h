#pragma once

// `floe changes <table> [--from P] [--to P] [--key col,...] [--net] [--updates | --no-updates]
// [--limit N] [--format F | --json] [--memory-budget B] [--spill-dir D]`: the rows that
// changed between two points of a table's history, each with the commit that changed it, as
// the SQL table function table_changes gives them (sql/plan/table_changes_function.h).
//
// --from (exclusive) and --to (inclusive) are points as `floe diff` reads them
// (snapshot_point.h); without --from the range starts at the table's creation, without --to it
// ends at the current snapshot. --key names the identifier columns (update images), --net
// gives per key the state at --from against the state at --to: the rows `floe diff --key`
// reports. Rows come ordered by _change_ordinal, then key, then DELETE, UPDATE_BEFORE,
// UPDATE_AFTER, INSERT, then the other columns, so the same range always prints the same.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "floe/cli/command_common.h"
#include "floe/sql/session.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::cli {

struct ChangesArgs {
  CatalogArgs where;
  std::string table;
  std::string from;
  std::string to;
  std::vector<std::string> keys;
  bool net = false;
  bool updates = false;
  int64_t limit = -1;
  bool json = false;
  std::string format = "table";
  int64_t truncate = 20;
  std::string memory_budget = "256MB";
  std::string spill_directory;

  CLI::Option* from_option = nullptr;
  CLI::Option* to_option = nullptr;
  CLI::Option* updates_option = nullptr;
  CLI::Option* limit_option = nullptr;
};

CLI::App* AddChangesCommand(CLI::App& app, ChangesArgs* args);

// The SELECT over table_changes that `floe changes` runs on `table`, with --from and --to
// resolved first, so an unknown point fails with `floe diff`'s message: `Cannot resolve
// '<text>' in table <t>: it is not a branch or tag, a snapshot id or a timestamp`, `Cannot
// find snapshot with ID <id> in table <t>`, `Cannot find a snapshot older than <instant>`.
Result<std::string> ChangesQuery(const ChangesArgs& args, const sql::Session& session,
                                 const table::Table& table);

// Runs the query on `session` with --memory-budget and --spill-dir as its floe.changes.*
// settings and prints the rows (the table format under a heading naming the range); returns
// 0, or 1 after one `Error:` line on `err`.
int RunChanges(sql::Session& session, const ChangesArgs& args, std::ostream& out,
               std::ostream& err);

// Opens the session the catalog options name and runs RunChanges.
int RunChangesCommand(const ChangesArgs& args, std::ostream& out, std::ostream& err);

}  // namespace floe::cli
