#pragma once

// `floe incident <table> --around '<time>' [--window 2h] [--json] [--pick N] [--yes]`: the
// runbook for a bad write. Lists the snapshots committed within the window before or after
// the time (on any lineage, newest first, numbered), each with its operation, who or what
// made it, and what rolling back to it would change (its diff against the current state).
// A person picks one (a question on a terminal, --pick N for scripts); then the rollback is
// previewed and confirmed as `floe rollback` does (set_current_snapshot for a snapshot that
// is not an ancestor of the current one), and the statement run is printed. With --json
// only the candidates are printed.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/cli/rollback_command.h"
#include "floe/sql/session.h"

namespace floe::cli {

struct IncidentCommandOptions {
  std::string table;
  std::string around;
  std::string window = "2h";
  bool json = false;
  std::optional<int> pick;
  bool yes = false;
  std::vector<std::string> keys;
  std::string memory_budget = "256MB";
};

// Exit status: 0 listed (--json), rolled back, or nothing to pick; 1 on an error, a refusal
// or a "no" answer.
int RunIncident(sql::Session& session, const IncidentCommandOptions& options, Console& console);

}  // namespace floe::cli
