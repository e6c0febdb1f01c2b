#pragma once

// `floe audit [table] [--since T] [--limit N] [--before SEQ] [--json]`: the catalog's audit
// log, newest first: every change of a table's metadata pointer by any engine, what it was,
// who made it and from where. `--trigger` says whether other engines' changes are recorded;
// `--install-trigger` and `--remove-trigger` put the database trigger in place or take it
// away.

#include <cstdint>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "floe/cli/command_common.h"

namespace floe::cli {

struct AuditArgs {
  CatalogArgs where;
  std::string table;  // empty: every table of the catalog
  std::string since;  // a timestamp in the session zone
  int64_t limit = 50;
  int64_t before_seq = 0;  // 0: from the newest
  bool json = false;
  bool trigger = false;
  bool install_trigger = false;
  bool remove_trigger = false;
};

CLI::App* AddAuditCommand(CLI::App& app, AuditArgs* args);

// Returns the exit status (0, or 1 after an `Error:` line on `err`).
int RunAuditCommand(const AuditArgs& args, std::ostream& out, std::ostream& err);

}  // namespace floe::cli
