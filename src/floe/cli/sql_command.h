#pragma once

// `floe sql`: where the catalog is, and which statements to run (-c text and -f files in
// the order given, else a script on standard input, else the interactive shell).

#include <cstdlib>
#include <functional>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "floe/cli/shell.h"
#include "floe/util/status.h"

namespace floe::cli {

// Exit statuses of the floe binary, the same for every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;  // a user error: a statement failed, a file could not be read
constexpr int kExitUsage = 1;   // bad arguments are a user error too
constexpr int kExitCheckFailed = 2;  // the command ran and its check failed (retention, verify)

struct CatalogLocation {
  std::string catalog_uri;
  std::string warehouse;
};

// --catalog / --warehouse win over FLOE_CATALOG / FLOE_WAREHOUSE, which win over the
// defaults ./warehouse/catalog.db and ./warehouse. A local warehouse path is made absolute,
// so that table locations in the catalog are absolute.
CatalogLocation ResolveCatalogLocation(
    const std::string& catalog_flag, const std::string& warehouse_flag,
    const std::function<const char*(const char*)>& get_env = [](const char* name) {
      return static_cast<const char*>(std::getenv(name));
    });

// Creates a local warehouse directory, and the directory of a catalog given as a plain
// file path, when missing.
Status PrepareCatalogLocation(const CatalogLocation& location);

struct SqlInput {
  enum class Kind { kCommand, kFile };
  Kind kind;
  std::string value;  // SQL text for -c, a path for -f
};

struct SqlSources {
  std::vector<SqlInput> inputs;  // -c and -f, in command-line order
  std::istream* stdin_stream = nullptr;
  bool stdin_is_terminal = false;
  // Makes the line reader for the interactive shell (libedit in the binary).
  std::function<std::unique_ptr<LineReader>()> make_reader;
};

// Runs the inputs through `shell` and returns the exit status: kExitOk, or kExitFailed when
// a statement failed (at the first one, unless the shell continues on errors) or a file
// could not be read.
int RunSqlSources(Shell& shell, const SqlSources& sources, std::ostream& err);

}  // namespace floe::cli
