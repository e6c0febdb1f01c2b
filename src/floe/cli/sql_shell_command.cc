#include "floe/cli/sql_shell_command.h"

#include <unistd.h>

#include <iostream>
#include <memory>

#include "floe/cli/line_editor.h"
#include "floe/cli/result_format.h"
#include "floe/cli/session_executor.h"
#include "floe/cli/shell.h"
#include "floe/cli/sql_command.h"
#include "floe/sql/plan/spill/spill_space.h"

#ifndef FLOE_VERSION
#define FLOE_VERSION "dev"
#endif

namespace floe::cli {

void AddSqlOptions(CLI::App* command, SqlArgs* args) {
  AddCatalogOptions(command, &args->where);
  args->command_option =
      command->add_option("-c,--command", args->commands, "SQL to run (repeatable)");
  args->file_option = command->add_option("-f,--file", args->files, "SQL file to run (repeatable)");
  command->add_option("--format", args->format, "Output format for rows")
      ->check(CLI::IsMember({"table", "csv", "json", "markdown"}, CLI::ignore_case))
      ->capture_default_str();
  command->add_flag("--continue", args->continue_on_error,
                    "Go on after a failed statement (the exit status is still 1)");
  command->add_flag("-q,--quiet", args->quiet,
                    "Do not print what DDL and DML statements report on stderr");
  command
      ->add_option("--max-rows", args->max_rows,
                   "table format: show at most N rows, then Spark's 'only showing top N rows' "
                   "(0: all)")
      ->capture_default_str();
  command
      ->add_option("--truncate", args->truncate,
                   "table format: cut cells longer than N characters as Spark's show() does "
                   "(0: never)")
      ->capture_default_str();
  AddMemoryLimitOption(command, &args->memory_limit);
  AddTempDirectoryOption(command, &args->temp_directory);
}

CLI::App* AddSqlCommand(CLI::App& app, SqlArgs* args) {
  CLI::App* sql = app.add_subcommand(
      "sql",
      "Run SQL: the statements of -c and -f in the order given, else a script on standard "
      "input, else an interactive shell (line editing, history in ~/.floe_history; "
      "statements end with ';', quit with Ctrl-D or 'quit').");
  AddSqlOptions(sql, args);
  return sql;
}

int RunSqlShell(sql::Session& session, const SqlArgs& args, const CLI::App& command) {
  if (Status st = ApplyMemoryLimit(args.memory_limit); !st.ok()) {
    std::cerr << "Error: " << st.message() << "\n";
    return kExitUsage;
  }
  sql::SetProcessTempDirectory(args.temp_directory, true);
  ShellOptions options;
  Result<OutputFormat> format = ParseOutputFormat(args.format);
  if (!format.ok()) return ReportError(format.status(), std::cerr);
  options.format.format = *format;
  options.format.max_rows = args.max_rows;
  options.format.truncate = args.truncate;
  options.continue_on_error = args.continue_on_error;
  options.quiet = args.quiet;
  Shell shell(SessionExecutor(session), options, std::cout, std::cerr);

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
    CatalogLocation location = ResolveCatalogLocation(args.where.catalog, args.where.warehouse);
    std::cerr << "floe " << FLOE_VERSION << " on " << location.catalog_uri
              << ". Statements end with ';'; quit with Ctrl-D or 'quit'.\n";
  }
  int status = RunSqlSources(shell, sources, std::cerr);
  if (sources.inputs.empty() && sources.stdin_is_terminal) std::cerr << "\n";
  return status;
}

int RunSql(const SqlArgs& args, const CLI::App& command) {
  Result<std::unique_ptr<sql::Session>> session = OpenSession(args.where, "floe sql");
  if (!session.ok()) return ReportError(session.status(), std::cerr);
  return RunSqlShell(**session, args, command);
}

}  // namespace floe::cli
