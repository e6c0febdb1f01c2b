#pragma once

// `floe tag create|replace|drop|list <table> ...` and the same for `floe branch`: each
// change runs the ALTER TABLE ... CREATE/REPLACE/DROP TAG/BRANCH statement floe's SQL has and
// prints that statement, so the step can be repeated in any Spark or floe SQL session; list
// reads the refs metadata table.

#include <cstdint>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "floe/cli/command_common.h"
#include "floe/util/status.h"

namespace floe::cli {

struct RefArgs {
  bool branch = false;  // `floe branch`, else `floe tag`
  CatalogArgs where;
  std::string table;
  std::string name;
  int64_t snapshot_id = 0;
  std::string retain;            // the ref's own maximum age
  int64_t min_snapshots = 0;     // branches: WITH SNAPSHOT RETENTION n SNAPSHOTS
  std::string max_snapshot_age;  // branches: WITH SNAPSHOT RETENTION <age>
  bool if_exists = false;
  bool if_not_exists = false;
  bool or_create = false;
  bool json = false;

  CLI::App* create = nullptr;
  CLI::App* replace = nullptr;
  CLI::App* drop = nullptr;
  CLI::App* list = nullptr;
};

// Adds `floe tag` or (with args->branch set) `floe branch` and its four actions.
CLI::App* AddRefCommand(CLI::App& app, RefArgs* args);

// "7" (days), "7d", "12h", "30m", "2w" -> the SQL duration "7 DAYS", "12 HOURS", ...
Result<std::string> RefDurationSql(const std::string& text, const std::string& option);

int RunRefCommand(const RefArgs& args, std::ostream& out, std::ostream& err);

}  // namespace floe::cli
