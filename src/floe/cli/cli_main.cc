// The floe command line, shared by the floe binary and the Python package's `floe` entry
// point. Each subcommand adds its options to the parser and runs when chosen:
//   floe sql        the SQL shell (interactive, -c, -f or a script on stdin)
//   floe demo       the rollback story: a report, a bad write, the audit, the rollback
//   floe audit [T]  the catalog's audit log: every change of a table's pointer, by any engine
//   floe history T  the history of table T; --graph draws its lineage, refs and rollbacks
//   floe show T     the rows of T at a snapshot, a time or a ref
//   floe tag / floe branch  create, replace, drop or list T's refs
//   floe manifest   record tables' snapshots in a run manifest; a shell that reads them
//   floe retention T  how far back T reads, what history costs, whether expiry keeps a horizon
//   floe verify T   checks that every file table T's metadata reaches is present
//   floe expire T   expire_snapshots; --dry-run lists the files it would delete
//   floe diff T A B the rows added, removed and changed between two points of T's history
//   floe changes T  the rows each commit changed between two points, with the commit (table_changes)
//   floe rollback T, floe set-current T   move T's current snapshot, previewed and confirmed
//   floe undo T     put T back as it was before its last change, previewed and confirmed
//   floe incident T the snapshots around a time, what rolling back to each changes, and the rollback
//   floe serve      the PostgreSQL wire protocol over the catalog

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "floe/cli/changes_command.h"
#include "floe/cli/cli_main.h"
#include "floe/cli/command_common.h"
#include "floe/cli/demo.h"
#include "floe/cli/diff_command.h"
#include "floe/cli/expire_command.h"
#include "floe/cli/audit_command.h"
#include "floe/cli/history_command.h"
#include "floe/cli/incident_command.h"
#include "floe/cli/line_editor.h"
#include "floe/cli/manifest_command.h"
#include "floe/cli/progress_bar.h"
#include "floe/cli/ref_command.h"
#include "floe/cli/result_format.h"
#include "floe/cli/retention_command.h"
#include "floe/cli/rollback_command.h"
#include "floe/cli/serve_command.h"
#include "floe/cli/session_executor.h"
#include "floe/cli/shell.h"
#include "floe/cli/show_command.h"
#include "floe/cli/sql_command.h"
#include "floe/cli/sql_shell_command.h"
#include "floe/cli/undo_command.h"
#include "floe/cli/verify_command.h"
#include "floe/sql/session.h"

#ifndef FLOE_VERSION
#define FLOE_VERSION "dev"
#endif

namespace floe::cli {
namespace {

int RunDemoCommand(const CatalogArgs& args) {
  auto session = OpenSession(args);
  if (!session.ok()) return ReportError(session.status(), std::cerr);
  Result<DemoSnapshots> snapshots = RunDemo(**session, std::cout);
  if (!snapshots.ok()) return ReportError(snapshots.status(), std::cerr);
  session->reset();
  std::vector<std::string> flags;
  if (!args.catalog.empty()) flags.insert(flags.end(), {"--catalog", args.catalog});
  if (!args.warehouse.empty()) flags.insert(flags.end(), {"--warehouse", args.warehouse});
  flags.insert(flags.end(), {"--catalog-name", args.catalog_name});
  for (const auto& root : args.allowed_roots) flags.insert(flags.end(), {"--allow-root", root});
  if (!args.time_zone.empty()) flags.insert(flags.end(), {"--tz", args.time_zone});
  Status st = RunDemoCommandLine(flags, *snapshots, std::cout);
  if (!st.ok()) return ReportError(st, std::cerr);
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

// ---- floe diff ----

CLI::App* AddDiffCommand(CLI::App& app, CatalogArgs* where, DiffCommandOptions* options) {
  CLI::App* diff = app.add_subcommand(
      "diff",
      "The rows added, removed and changed between two points of a table's history. A point is a branch or "
      "tag name, else a snapshot id, else a timestamp (read in --tz; the snapshot TIMESTAMP AS OF reads). "
      "Streams: files both points share are skipped, the rest is compared within --memory-budget, spilling "
      "to disk beyond it.");
  AddCatalogOptions(diff, where);
  diff->add_option("table", options->table, "The table, e.g. db.orders or lakehouse.db.orders")->required();
  diff->add_option("from", options->from, "The earlier point: a ref, a snapshot id or a timestamp")->required();
  diff->add_option("to", options->to, "The later point: a ref, a snapshot id or a timestamp")->required();
  diff->add_option("--key", options->keys, "Key columns (comma-separated): a key in both with other values is one changed row")
      ->delimiter(',');
  diff->add_option("--sample", options->sample, "Rows of each kind to show (0: none)")->capture_default_str();
  diff->add_flag("--json", options->json, "Print the diff as one JSON object");
  diff->add_option("--memory-budget", options->memory_budget, "Memory to compare within, e.g. 256MB, 1G")
      ->capture_default_str();
  diff->add_option("--spill-dir", options->spill_directory, "Where rows beyond the budget go (default: $TMPDIR or /tmp)");
  return diff;
}

int RunDiffCommand(const CatalogArgs& where, const DiffCommandOptions& options) {
  auto session = OpenSession(where);
  if (!session.ok()) return ReportError(session.status(), std::cerr);
  return RunDiff(**session, options, std::cout, std::cerr);
}

// ---- floe rollback / floe set-current ----

void AddMoveOptions(CLI::App* command, MoveCommandOptions* options) {
  command->add_flag("-y,--yes", options->yes, "Do not ask for confirmation (for scripts)");
  command->add_option("--key", options->keys, "Key columns for the preview's diff (comma-separated)")->delimiter(',');
  command->add_option("--sample", options->sample, "Rows of each kind of change to show in the preview")
      ->capture_default_str();
  command->add_option("--memory-budget", options->memory_budget, "Memory the preview's diff compares within")
      ->capture_default_str();
}

struct MoveArgs {
  CatalogArgs where;
  MoveCommandOptions options;
  int64_t snapshot_id = 0;
  CLI::Option* snapshot_option = nullptr;
};

CLI::App* AddRollbackCommand(CLI::App& app, MoveArgs* args) {
  CLI::App* rollback = app.add_subcommand(
      "rollback",
      "Roll a table back to an ancestor of its current snapshot, after showing what changes for every reader "
      "and asking (--yes for scripts; refused when standard input is not a terminal). Runs "
      "rollback_to_snapshot or rollback_to_timestamp and prints the statement. With --catalog-tag, "
      "every table a catalog tag covers, in one catalog transaction (rollback_to_catalog_tag).");
  AddCatalogOptions(rollback, &args->where);
  rollback->add_option("table", args->options.table, "The table, e.g. db.orders or lakehouse.db.orders");
  rollback->add_option("--catalog-tag", args->options.catalog_tag,
                       "Roll back every table of this catalog tag to its tagged snapshot");
  rollback->add_option("--namespace", args->options.catalog_tag_namespace,
                       "With --catalog-tag: only the tag's tables in this namespace (and below)");
  rollback->add_flag("--include-new-tables", args->options.include_new_tables,
                     "With --catalog-tag: empty the tables created after the tag instead of leaving them");
  args->snapshot_option = rollback->add_option("--to-snapshot", args->snapshot_id, "The snapshot id to roll back to");
  rollback->add_option("--to-timestamp", args->options.timestamp,
                       "Roll back to the newest ancestor committed before this time (read in --tz)");
  AddMoveOptions(rollback, &args->options);
  return rollback;
}

CLI::App* AddSetCurrentCommand(CLI::App& app, MoveArgs* args) {
  CLI::App* set_current = app.add_subcommand(
      "set-current",
      "Make any snapshot (ancestor or not) or a ref's snapshot the current one, after showing what changes "
      "for every reader and asking (--yes for scripts). Runs set_current_snapshot and prints the statement.");
  AddCatalogOptions(set_current, &args->where);
  set_current->add_option("table", args->options.table, "The table, e.g. db.orders or lakehouse.db.orders")->required();
  args->snapshot_option = set_current->add_option("--snapshot-id", args->snapshot_id, "The snapshot id to make current");
  set_current->add_option("--ref", args->options.ref, "A branch or tag whose snapshot to make current");
  AddMoveOptions(set_current, &args->options);
  return set_current;
}

int RunMoveCommand(MoveArgs& args, bool rollback) {
  if (args.snapshot_option->count() > 0) args.options.snapshot_id = args.snapshot_id;
  auto session = OpenSession(args.where);
  if (!session.ok()) return ReportError(session.status(), std::cerr);
  Console console{std::cin, ::isatty(STDIN_FILENO) == 1, std::cout, std::cerr};
  return rollback ? RunRollback(**session, args.options, console) : RunSetCurrent(**session, args.options, console);
}

// ---- floe undo ----

int RunUndoCommand(const UndoArgs& args) {
  auto session = OpenSession(args.where);
  if (!session.ok()) return ReportError(session.status(), std::cerr);
  Console console{std::cin, ::isatty(STDIN_FILENO) == 1, std::cout, std::cerr};
  return RunUndo(**session, args, console);
}

// ---- floe incident ----

struct IncidentArgs {
  CatalogArgs where;
  IncidentCommandOptions options;
  int pick = 0;
  CLI::Option* pick_option = nullptr;
};

CLI::App* AddIncidentCommand(CLI::App& app, IncidentArgs* args) {
  CLI::App* incident = app.add_subcommand(
      "incident",
      "The snapshots committed around a time (any lineage, newest first), who or what made each and what "
      "rolling back to it changes; pick one (or --pick N) to roll back to, after the same preview and "
      "confirmation as rollback.");
  AddCatalogOptions(incident, &args->where);
  incident->add_option("table", args->options.table, "The table, e.g. db.orders or lakehouse.db.orders")->required();
  incident->add_option("--around", args->options.around, "When it went wrong, e.g. '2025-06-15 09:05' (read in --tz)")
      ->required();
  incident->add_option("--window", args->options.window, "How far before and after that time to look, e.g. 30m, 2h, 1d")
      ->capture_default_str();
  incident->add_flag("--json", args->options.json, "Only print the candidates, as one JSON object");
  args->pick_option = incident->add_option("--pick", args->pick, "The candidate to roll back to, by its number");
  incident->add_flag("-y,--yes", args->options.yes, "Do not ask for confirmation (for scripts)");
  incident->add_option("--key", args->options.keys, "Key columns for the diffs (comma-separated)")->delimiter(',');
  incident->add_option("--memory-budget", args->options.memory_budget, "Memory each diff compares within")
      ->capture_default_str();
  return incident;
}

int RunIncidentCommand(IncidentArgs& args) {
  if (args.pick_option->count() > 0) args.options.pick = args.pick;
  auto session = OpenSession(args.where);
  if (!session.ok()) return ReportError(session.status(), std::cerr);
  Console console{std::cin, ::isatty(STDIN_FILENO) == 1, std::cout, std::cerr};
  return RunIncident(**session, args.options, console);
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

  // floe expire
  floe::cli::ExpireArgs expire_args;
  CLI::App* expire = floe::cli::AddExpireCommand(app, &expire_args);

  // floe audit
  floe::cli::AuditArgs audit_args;
  CLI::App* audit = floe::cli::AddAuditCommand(app, &audit_args);

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

  // floe diff, rollback, set-current, incident
  floe::cli::CatalogArgs diff_where;
  floe::cli::DiffCommandOptions diff_options;
  CLI::App* diff = floe::cli::AddDiffCommand(app, &diff_where, &diff_options);
  floe::cli::ChangesArgs changes_args;
  CLI::App* changes = floe::cli::AddChangesCommand(app, &changes_args);
  floe::cli::MoveArgs rollback_args, set_current_args;
  CLI::App* rollback = floe::cli::AddRollbackCommand(app, &rollback_args);
  CLI::App* set_current = floe::cli::AddSetCurrentCommand(app, &set_current_args);
  floe::cli::IncidentArgs incident_args;
  CLI::App* incident = floe::cli::AddIncidentCommand(app, &incident_args);
  floe::cli::UndoArgs undo_args;
  CLI::App* undo = floe::cli::AddUndoCommand(app, &undo_args);
  floe::cli::ServeArgs serve_args;
  CLI::App* serve = floe::cli::AddServeCommand(app, &serve_args);

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
  if (audit->parsed()) return floe::cli::RunAuditCommand(audit_args, std::cout, std::cerr);
  if (show->parsed()) return floe::cli::RunShowCommand(show_args, std::cout, std::cerr);
  if (tag->parsed()) return floe::cli::RunRefCommand(tag_args, std::cout, std::cerr);
  if (branch->parsed()) return floe::cli::RunRefCommand(branch_args, std::cout, std::cerr);
  if (manifest->parsed()) return floe::cli::RunManifestCommand(manifest_args, std::cout, std::cerr);
  if (retention->parsed()) {
    return floe::cli::RunRetentionCommand(retention_args, retention_table, retention_require, retention_json);
  }
  if (verify->parsed()) return floe::cli::RunVerifyCommand(verify_args, verify_options);
  if (expire->parsed()) return floe::cli::RunExpireCommand(expire_args, std::cout, std::cerr);
  if (diff->parsed()) return floe::cli::RunDiffCommand(diff_where, diff_options);
  if (changes->parsed()) return floe::cli::RunChangesCommand(changes_args, std::cout, std::cerr);
  if (rollback->parsed()) return floe::cli::RunMoveCommand(rollback_args, true);
  if (set_current->parsed()) return floe::cli::RunMoveCommand(set_current_args, false);
  if (incident->parsed()) return floe::cli::RunIncidentCommand(incident_args);
  if (undo->parsed()) return floe::cli::RunUndoCommand(undo_args);
  if (serve->parsed()) return floe::cli::RunServeCommand(serve_args);
  return floe::cli::kExitUsage;
}

}  // namespace floe::cli
