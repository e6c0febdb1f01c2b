// The floe command line, shared by the floe binary and the Python package's `floe` entry
// point. Each subcommand adds its options to the parser and runs when chosen:
//   floe sql        the SQL shell (interactive, -c, -f or a script on stdin)
//   floe demo       the rollback story: a report, a bad write, the audit, the rollback
//   floe history T  the history of table T (the snapshot-log, as the history table shows it)
//   floe retention T  how far back T reads, what history costs, whether expiry keeps a horizon
//   floe verify T   checks that every file table T's metadata reaches is present

#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "floe/cli/cli_main.h"
#include "floe/cli/command_common.h"
#include "floe/cli/demo.h"
#include "floe/cli/line_editor.h"
#include "floe/cli/result_format.h"
#include "floe/cli/retention_command.h"
#include "floe/cli/session_executor.h"
#include "floe/cli/shell.h"
#include "floe/cli/sql_command.h"
#include "floe/cli/verify_command.h"
#include "floe/sql/session.h"

#ifndef FLOE_VERSION
#define FLOE_VERSION "dev"
#endif

namespace floe::cli {
namespace {

struct SqlArgs {
  CatalogArgs where;
  std::vector<std::string> commands;
  std::vector<std::string> files;
  std::string format = "table";
  bool continue_on_error = false;
  bool quiet = false;
  int64_t max_rows = 0;
  int64_t truncate = 20;

  CLI::Option* command_option = nullptr;
  CLI::Option* file_option = nullptr;
};

CLI::App* AddSqlCommand(CLI::App& app, SqlArgs* args) {
  CLI::App* sql = app.add_subcommand(
      "sql",
      "Run SQL: the statements of -c and -f in the order given, else a script on standard "
      "input, else an interactive shell (line editing, history in ~/.floe_history; "
      "statements end with ';', quit with Ctrl-D or 'quit').");
  AddCatalogOptions(sql, &args->where);
  args->command_option = sql->add_option("-c,--command", args->commands, "SQL to run (repeatable)");
  args->file_option = sql->add_option("-f,--file", args->files, "SQL file to run (repeatable)");
  sql->add_option("--format", args->format, "Output format for rows")
      ->check(CLI::IsMember({"table", "csv", "json", "markdown"}, CLI::ignore_case))
      ->capture_default_str();
  sql->add_flag("--continue", args->continue_on_error,
                "Go on after a failed statement (the exit status is still 1)");
  sql->add_flag("-q,--quiet", args->quiet,
                "Do not print what DDL and DML statements report on stderr");
  sql->add_option("--max-rows", args->max_rows,
                  "table format: show at most N rows, then Spark's 'only showing top N rows' "
                  "(0: all)")
      ->capture_default_str();
  sql->add_option("--truncate", args->truncate,
                  "table format: cut cells longer than N characters as Spark's show() does "
                  "(0: never)")
      ->capture_default_str();
  return sql;
}

int RunSql(const SqlArgs& args, const CLI::App& command) {
  ShellOptions options;
  Result<OutputFormat> format = ParseOutputFormat(args.format);
  if (!format.ok()) {
    std::cerr << "Error: " << format.status().message() << "\n";
    return kExitUsage;
  }
  options.format.format = *format;
  options.format.max_rows = args.max_rows;
  options.format.truncate = args.truncate;
  options.continue_on_error = args.continue_on_error;
  options.quiet = args.quiet;

  CatalogLocation location = ResolveCatalogLocation(args.where.catalog, args.where.warehouse);
  Result<std::unique_ptr<sql::Session>> session = OpenSession(args.where, "floe sql");
  if (!session.ok()) {
    std::cerr << "Error: " << session.status().message() << "\n";
    return kExitFailed;
  }
  Shell shell(SessionExecutor(**session), options, std::cout, std::cerr);

  // -c and -f run in the order they were given.
  SqlSources sources;
  size_t next_command = 0, next_file = 0;
  for (const CLI::Option* option : command.parse_order()) {
    if (option == args.command_option && next_command < args.commands.size()) {
      sources.inputs.push_back({SqlInput::Kind::kCommand, args.commands[next_command++]});
    } else if (option == args.file_option && next_file < args.files.size()) {
      sources.inputs.push_back({SqlInput::Kind::kFile, args.files[next_file++]});
    }
  }
  sources.stdin_stream = &std::cin;
  sources.stdin_is_terminal = ::isatty(STDIN_FILENO) == 1;
  sources.make_reader = [] {
    return std::make_unique<EditLineReader>(EditLineReader::DefaultHistoryPath());
  };
  if (sources.inputs.empty() && sources.stdin_is_terminal) {
    std::cerr << "floe " << FLOE_VERSION << " on " << location.catalog_uri
              << ". Statements end with ';'; quit with Ctrl-D or 'quit'.\n";
  }
  int status = RunSqlSources(shell, sources, std::cerr);
  if (sources.inputs.empty() && sources.stdin_is_terminal) std::cerr << "\n";
  return status;
}

int RunDemoCommand(const CatalogArgs& args) {
  auto session = OpenSession(args);
  Status st = session.ok() ? RunDemo(**session, std::cout) : session.status();
  if (!st.ok()) {
    std::cerr << "Error: " << st.message() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

int RunHistoryCommand(const CatalogArgs& args, const std::string& table) {
  auto session = OpenSession(args);
  if (!session.ok()) {
    std::cerr << "Error: " << session.status().message() << "\n";
    return kExitFailed;
  }
  // The summary map is read before the join: Acero joins carry no map columns.
  std::string sql = "SELECT h.made_current_at, h.snapshot_id, h.parent_id, h.is_current_ancestor, s.operation, "
                    "s.total_records FROM " + table + ".history h LEFT JOIN (SELECT snapshot_id, operation, "
                    "summary['total-records'] AS total_records FROM " + table + ".snapshots) s "
                    "ON h.snapshot_id = s.snapshot_id ORDER BY h.made_current_at";
  auto result = (*session)->Execute(sql);
  if (!result.ok()) {
    std::cerr << "Error: " << result.status().message() << "\n";
    return kExitFailed;
  }
  auto text = ValueText::Make((*session)->Setting("spark.sql.session.timeZone", "UTC"));
  std::cout << ShowString(*result->rows, *text, 0, 0);
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
  floe::cli::CatalogArgs history_args;
  std::string history_table;
  CLI::App* history = app.add_subcommand("history", "Show a table's history: every change of its current snapshot.");
  floe::cli::AddCatalogOptions(history, &history_args);
  history->add_option("table", history_table, "The table, e.g. db.orders or lakehouse.db.orders")->required();

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? floe::cli::kExitOk : floe::cli::kExitUsage;
  }
  if (sql->parsed()) return floe::cli::RunSql(sql_args, *sql);
  if (demo->parsed()) return floe::cli::RunDemoCommand(demo_args);
  if (history->parsed()) return floe::cli::RunHistoryCommand(history_args, history_table);
  if (retention->parsed()) {
    return floe::cli::RunRetentionCommand(retention_args, retention_table, retention_require, retention_json);
  }
  if (verify->parsed()) return floe::cli::RunVerifyCommand(verify_args, verify_options);
  return floe::cli::kExitUsage;
}

}  // namespace floe::cli
