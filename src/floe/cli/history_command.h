#pragma once

// `floe history <table> [--graph] [--json]`: the snapshot-log of a table, one row per change
// of its current snapshot, with what each snapshot did and who made it; with --graph, the
// lineage of every snapshot, its refs and the rollbacks of main (see history_graph.h).

#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "floe/cli/command_common.h"

namespace floe::cli {

struct HistoryArgs {
  CatalogArgs where;
  std::string table;
  bool graph = false;
  bool json = false;
};

CLI::App* AddHistoryCommand(CLI::App& app, HistoryArgs* args);

// Returns the exit status (0, or 1 after an `Error:` line on `err`).
int RunHistoryCommand(const HistoryArgs& args, std::ostream& out, std::ostream& err);

}  // namespace floe::cli
