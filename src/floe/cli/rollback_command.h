#pragma once

// `floe rollback <table> --to-snapshot N | --to-timestamp T [--yes]`,
// `floe rollback --catalog-tag T [--namespace ns] [--include-new-tables] [--yes]` and
// `floe set-current <table> --snapshot-id N | --ref R [--yes]`: moving a table's current
// snapshot, guarded. First what will change for every reader is printed (the current and the
// target snapshot: id, commit time, operation, who made it, records and data files; and the
// diff from the current to the target). Then, on a terminal, the question
// `Roll back <table> from <id> to <id>? [y/N]`; `--yes` answers it for scripts; without a
// terminal and without --yes nothing changes and the command fails. The change itself runs
// through the SQL procedures (`CALL <catalog>.system.rollback_to_snapshot`,
// `rollback_to_timestamp`, `set_current_snapshot`), whose statement is printed.

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "floe/scan/snapshot_diff.h"
#include "floe/sql/session.h"
#include "floe/table/table.h"

namespace floe::cli {

// Where a command talks with a person.
struct Console {
  std::istream& in;
  bool in_is_terminal = false;
  std::ostream& out;
  std::ostream& err;
};

struct MoveCommandOptions {
  std::string table;
  // floe rollback --catalog-tag T [--namespace ns] [--include-new-tables]: every table the
  // catalog tag covers, through CALL <catalog>.system.rollback_to_catalog_tag.
  std::string catalog_tag;
  std::string catalog_tag_namespace;
  bool include_new_tables = false;
  std::optional<int64_t> snapshot_id;  // --to-snapshot, --snapshot-id
  std::string timestamp;               // --to-timestamp
  std::string ref;                     // --ref
  bool yes = false;
  // The preview's diff.
  std::vector<std::string> keys;
  int64_t sample = 0;
  std::string memory_budget = "256MB";
};

// Exit status: 0 moved (or nothing to move), 1 on an error, a refusal or a "no" answer
// (nothing changed; one line on `err`).
int RunRollback(sql::Session& session, const MoveCommandOptions& options, Console& console);
// floe rollback --catalog-tag: the preview is the procedure's dry run (each table's move);
// after the confirmation the dry run is made again, and a plan that changed meanwhile
// stops the rollback.
int RunCatalogTagRollback(sql::Session& session, const MoveCommandOptions& options,
                          Console& console);
int RunSetCurrent(sql::Session& session, const MoveCommandOptions& options, Console& console);

// Asks `question` on a terminal unless `yes`. False, after one line on `console.err`, when not
// confirmed: no terminal (`Error: Not changing <table> without confirmation: ...`) or any
// answer but y or yes (`Cancelled: <table> is unchanged and <unchanged>`).
bool Confirm(const std::string& table_name, const std::string& question, const std::string& unchanged,
             bool yes, Console& console);

// A planned move of main to `target`, run by `call` (the CALL statement) once confirmed.
struct PlannedMove {
  int64_t target_snapshot_id = 0;
  std::string call;
  bool rollback = true;  // "Roll back" (else "Set the current snapshot of") in the question
};

// Prints the preview, asks (unless `yes`), re-checks that the current snapshot did not move
// meanwhile, runs the CALL and reports. `diff`, when given, is the current -> target diff
// already computed; one that cannot be computed is reported in the preview and does not stop
// the move. Returns the exit status.
int PreviewConfirmAndMove(sql::Session& session, const std::shared_ptr<table::Table>& table,
                          const PlannedMove& move, const scan::DiffOptions& diff_options, bool yes,
                          Console& console, const scan::SnapshotDiff* diff = nullptr);

// `CALL <catalog>.system.rollback_to_snapshot('<ns>.<t>', <id>)`, and the others.
std::string RollbackToSnapshotCall(const table::Table& table, int64_t snapshot_id);
std::string SetCurrentSnapshotCall(const table::Table& table, std::optional<int64_t> snapshot_id,
                                   const std::string& ref = "");

}  // namespace floe::cli
