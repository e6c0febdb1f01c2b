#pragma once

// `floe expire <table> [--older-than T] [--retain-last N] [--snapshot-id ID ...]
// [--clean-expired-metadata] [--dry-run] [--json]`: expire_snapshots from the command line.
// --dry-run lists every file a real run would delete (path, type, size, the snapshot that
// last reached it) and changes nothing; without it the counts of deleted files are printed.
// The statement it runs is printed first.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "floe/cli/command_common.h"

namespace floe::cli {

struct ExpireArgs {
  CatalogArgs where;
  std::string table;
  std::string older_than;  // a timestamp in the session zone
  int64_t retain_last = 0;
  std::vector<int64_t> snapshot_ids;
  bool clean_expired_metadata = false;
  bool dry_run = false;
  bool json = false;
  CLI::Option* retain_last_option = nullptr;
};

CLI::App* AddExpireCommand(CLI::App& app, ExpireArgs* args);

// Returns the exit status (0, or 1 after an `Error:` line on `err`).
int RunExpireCommand(const ExpireArgs& args, std::ostream& out, std::ostream& err);

}  // namespace floe::cli
