// The floe command line, shared by the floe binary and the Python package's `floe` entry
// point. Each subcommand adds its options to the parser and runs when chosen:
//   floe sql        the SQL shell (interactive, -c, -f or a script on stdin)
//   floe demo       the rollback story: a report, a bad write, the audit, the rollback
//   floe history T  the history of table T; --graph draws its lineage, refs and rollbacks
//   floe show T     the rows of T at a snapshot, a time or a ref
//   floe tag / floe branch  create, replace, drop or list T's refs
//   floe manifest   record tables' snapshots in a run manifest; a shell that reads them
//   floe retention T  how far back T reads, what history costs, whether expiry keeps a horizon
//   floe verify T   checks that every file table T's metadata reaches is present

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "floe/cli/cli_main.h"
#include "floe/cli/command_common.h"
#include "floe/cli/demo.h"
#include "floe/cli/history_command.h"
#include "floe/cli/manifest_command.h"
#include "floe/cli/progress_bar.h"
#include "floe/cli/ref_command.h"
#include "floe/cli/retention_command.h"
#include "floe/cli/show_command.h"
#include "floe/cli/sql_command.h"
#include "floe/cli/sql_shell_command.h"
#include "floe/cli/verify_command.h"
#include "floe/sql/session.h"

#ifndef FLOE_VERSION
#define FLOE_VERSION "dev"
#endif

namespace floe::cli {
namespace {

int RunDemoCommand(const CatalogArgs& args) {
  auto session = OpenSession(args);
  Status st = session.ok() ? RunDemo(**session, std::cout) : session.status();
  if (!st.ok()) {
    std::cerr << "Error: " << st.message() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

int RunRetentionCommand(const CatalogArgs& args, const std::string& table, const std::string& require, bool json) {
  auto session = OpenSession(args);
  if (!session.ok()) {
    std::cerr << "Error: " << session.status().message() << "\n";
    return kExitFailed;
  }
  return RunRetention(**session, table, require, json, std::cout, std::cerr);
}

int RunVerifyCommand(const CatalogArgs& args, VerifyCommandOptions options) {
  auto session = OpenSession(args);
  if (!session.ok()) {
    std::cerr << "Error: " << session.status().message() << "\n";
    return kExitFailed;
  }
  options.catalog_name = args.catalog_name;
  return RunVerify(**session, options, std::cout, std::cerr);
}

}  // namespace

int RunCli(int argc, char** argv) {
  CLI::App app{"floe: Apache Iceberg tables you can read as of any snapshot, and put back.",
               "floe"};
  app.set_version_flag("--version", std::string("floe ") + FLOE_VERSION);
  app.require_subcommand(1);

  floe::cli::SqlArgs sql_args;
  CLI::App* sql = floe::cli::AddSqlCommand(app, &sql_args);

  floe::cli::CatalogArgs demo_args;
  CLI::App* demo = app.add_subcommand(
      "demo", "The rollback story on fresh tables: a daily revenue report, a bad write that doubles it, "
              "the audit through snapshots, history and a time-travel diff, and the rollback.");
  floe::cli::AddCatalogOptions(demo, &demo_args);

  floe::cli::CatalogArgs retention_args;
  std::string retention_table, retention_require;
  bool retention_json = false;
  CLI::App* retention = app.add_subcommand(
      "retention", "How far back a table can be read, the bytes only its history keeps, and whether its expiry "
                   "settings keep a required horizon (exit 2 when they do not).");
  floe::cli::AddCatalogOptions(retention, &retention_args);
  retention->add_option("table", retention_table, "The table, e.g. db.orders or lakehouse.db.orders")->required();
  retention->add_option("--require", retention_require,
                        "The horizon main must stay readable for, e.g. 90d, 12h, 2w");
  retention->add_flag("--json", retention_json, "Print the report as one JSON object");
  floe::cli::CatalogArgs verify_args;
  floe::cli::VerifyCommandOptions verify_options;
  CLI::App* verify = app.add_subcommand(
      "verify",
      "Check that every file a table's metadata reaches is present: metadata-log files and, for every "
      "kept snapshot, its manifest list, manifests, data and delete files, and statistics files. Exit "
      "status 0 when all are present, 2 when some are missing, 1 on an error.");
  floe::cli::AddCatalogOptions(verify, &verify_args);
  verify->add_option("table", verify_options.table, "The table, e.g. db.orders or lakehouse.db.orders")->required();
  verify->add_flag("--json", verify_options.json, "Print the report as one JSON object");
  verify->add_flag("--sizes", verify_options.check_sizes,
                   "Also check that each file has the size its manifest recorded");

  // floe history
  floe::cli::HistoryArgs history_args;
  CLI::App* history = floe::cli::AddHistoryCommand(app, &history_args);

  // floe show
  floe::cli::ShowArgs show_args;
  CLI::App* show = floe::cli::AddShowCommand(app, &show_args);

  // floe tag
  floe::cli::RefArgs tag_args;
  CLI::App* tag = floe::cli::AddRefCommand(app, &tag_args);

  // floe branch
  floe::cli::RefArgs branch_args;
  branch_args.branch = true;
  CLI::App* branch = floe::cli::AddRefCommand(app, &branch_args);

  // floe manifest
  floe::cli::ManifestArgs manifest_args;
  CLI::App* manifest = floe::cli::AddManifestCommand(app, &manifest_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed; a usage error is a user error: one line.
    if (e.get_exit_code() == 0) return app.exit(e);
    // `floe bogus`: CLI11 complains of the missing subcommand; name the word it did not know.
    std::vector<std::string> unknown = app.remaining(true);
    if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && !unknown.empty()) {
      std::cerr << "Error: Unknown subcommand: " << unknown.front() << "\n";
      return floe::cli::kExitUsage;
    }
    std::cerr << "Error: " << e.what() << "\n";
    return floe::cli::kExitUsage;
  }
  // Long work draws a progress bar on a terminal, whichever subcommand runs it.
  floe::cli::TerminalProgress progress;
  if (sql->parsed()) return floe::cli::RunSql(sql_args, *sql);
  if (demo->parsed()) return floe::cli::RunDemoCommand(demo_args);
  if (history->parsed()) return floe::cli::RunHistoryCommand(history_args, std::cout, std::cerr);
  if (show->parsed()) return floe::cli::RunShowCommand(show_args, std::cout, std::cerr);
  if (tag->parsed()) return floe::cli::RunRefCommand(tag_args, std::cout, std::cerr);
  if (branch->parsed()) return floe::cli::RunRefCommand(branch_args, std::cout, std::cerr);
  if (manifest->parsed()) return floe::cli::RunManifestCommand(manifest_args, std::cout, std::cerr);
  if (retention->parsed()) {
    return floe::cli::RunRetentionCommand(retention_args, retention_table, retention_require, retention_json);
  }
  if (verify->parsed()) return floe::cli::RunVerifyCommand(verify_args, verify_options);
  return floe::cli::kExitUsage;
}

}  // namespace floe::cli
