#pragma once

// `floe manifest create <table>... -o run.json [--force]` records the current snapshot of
// each table in a run manifest (see table/run_manifest.h); `floe manifest open run.json
// [-c SQL | -f FILE]` is the `floe sql` shell with every read of those tables pinned to the
// recorded snapshots (the session setting floe.read.run-manifest).

#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "floe/cli/command_common.h"
#include "floe/cli/sql_shell_command.h"

namespace floe::cli {

struct ManifestArgs {
  // create
  CatalogArgs where;
  std::vector<std::string> tables;
  std::string output;
  bool force = false;
  bool json = false;
  // open: the shell's options, and the manifest
  SqlArgs shell;
  std::string manifest;

  CLI::App* create = nullptr;
  CLI::App* open = nullptr;
};

// The session setting `manifest open` sets to the manifest's path.
inline constexpr char kRunManifestSetting[] = "floe.read.run-manifest";

CLI::App* AddManifestCommand(CLI::App& app, ManifestArgs* args);

int RunManifestCommand(const ManifestArgs& args, std::ostream& out, std::ostream& err);

}  // namespace floe::cli
