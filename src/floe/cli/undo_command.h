#pragma once

// `floe undo <table> [--yes]`: puts a table back as it was before its last change in the
// audit log, whatever the change was (a bad write, a rollback, a schema or property change, a
// tag moved), by any engine. The change and what undoing it changes are printed first; then,
// as `floe rollback` does, the question on a terminal (--yes for scripts; refused without a
// terminal). The undo itself is `CALL <catalog>.system.restore_table(...)` on the metadata
// file from before the change, printed when it runs; it is a change of its own, so a second
// `floe undo` undoes the undo.

#include <string>

#include <CLI/CLI.hpp>

#include "floe/cli/command_common.h"
#include "floe/cli/rollback_command.h"

namespace floe::cli {

struct UndoArgs {
  CatalogArgs where;
  std::string table;
  bool yes = false;
};

CLI::App* AddUndoCommand(CLI::App& app, UndoArgs* args);

// Exit status: 0 undone (or nothing to undo), 1 on an error, a refusal or a "no".
int RunUndo(sql::Session& session, const UndoArgs& args, Console& console);

}  // namespace floe::cli
