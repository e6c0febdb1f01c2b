#include "floe/cli/undo_command.h"

#include "floe/cli/short_statement.h"
#include "floe/cli/table_argument.h"
#include "floe/sql/parse/ast.h"
#include "floe/table/audit_log.h"
#include "floe/table/metadata_files.h"
#include "floe/table/restore_table.h"
#include "floe/util/clock.h"

namespace floe::cli {

namespace {

// The newest change of the table that can be undone; refused changes moved nothing.
Result<AuditEntry> LastChange(const table::Table& table) {
  if (!table.catalog()->HasAuditLog()) {
    return Status::Invalid("Cannot undo a change of ", table.name(), ": ",
                           table.catalog()->NoAuditLog());
  }
  AuditQuery query;
  query.table = table.ident();
  int64_t page = 50;
  query.limit = page;
  while (true) {
    ARROW_ASSIGN_OR_RAISE(auto rows, table::ReadAuditLog(*table.catalog(), *table.io(), query));
    for (const auto& e : rows) {
      if (e.kind != audit_kind::kRefused) return e;
    }
    if (static_cast<int64_t>(rows.size()) < page) break;
    query.before_seq = rows.back().seq;
  }
  return Status::Invalid("Nothing to undo: the audit log has no change of ", table.name());
}

}  // namespace

CLI::App* AddUndoCommand(CLI::App& app, UndoArgs* args) {
  CLI::App* undo = app.add_subcommand(
      "undo",
      "Put a table back as it was before its last change in the audit log (a write, a rollback, a "
      "schema or property change, a moved tag; by any engine), after showing the change and what "
      "undoing it changes and asking (--yes for scripts). Runs restore_table and prints the "
      "statement.");
  AddCatalogOptions(undo, &args->where);
  undo->add_option("table", args->table, "The table, e.g. db.orders or lakehouse.db.orders")
      ->required();
  undo->add_flag("-y,--yes", args->yes, "Do not ask for confirmation (for scripts)");
  return undo;
}

int RunUndo(sql::Session& session, const UndoArgs& args, Console& console) {
  auto loaded = LoadTableArgument(session, args.table);
  if (!loaded.ok()) return ReportError(loaded.status(), console.err);
  table::Table& table = **loaded;
  auto change = LastChange(table);
  if (!change.ok()) return ReportError(change.status(), console.err);
  const AuditEntry& e = *change;
  const std::string entry = StrCat("audit log entry ", e.seq);
  if (e.kind == audit_kind::kCreate || e.kind == audit_kind::kRegister ||
      !e.previous_metadata_location) {
    return ReportError(
        Status::Invalid("Cannot undo the creation of ", table.name(), " (", entry,
                        "): there is no state before it; DROP TABLE removes the table"),
        console.err);
  }
  if (e.kind == audit_kind::kRename) {
    return ReportError(
        Status::Invalid("Cannot undo the rename of ", table.name(), " (", entry, ", ", e.detail,
                        "): ALTER TABLE ... RENAME TO puts the old name back"),
        console.err);
  }
  if (e.kind == audit_kind::kProtection) {
    // Restores keep the protection rules as they are: a rule is set and lifted explicitly.
    return ReportError(
        Status::Invalid("Cannot undo ", entry, " of ", table.name(), ", a protection rule change (",
                        e.detail, "): ALTER TABLE ... SET or UNSET PROTECTION changes rules"),
        console.err);
  }
  const std::string before = table.metadata_location();
  auto target = table::ReadMetadataFile(*table.io(), *e.previous_metadata_location);
  if (!target.ok()) {
    return ReportError(
        WithContext(target.status(), StrCat("Cannot undo ", entry, " of ", table.name())),
        console.err);
  }
  const std::vector<std::string> changes = table::DescribeRestore(*table.metadata(), **target);

  std::string who = e.user.empty() ? "an unknown user" : e.user;
  if (!e.client.empty())
    who += " (" + e.client + (e.client_address.empty() ? "" : " " + e.client_address) + ")";
  std::string what = e.kind + (e.operation.empty() ? "" : " " + e.operation);
  console.out << "Undoing the last change of " << table.name() << ":\n";
  console.out << "  change:   " << entry << ", " << FormatMillisUtc(e.at_ms) << " UTC, " << what
              << " by " << who << "\n";
  if (!e.statement.empty()) console.out << "            " << ShortStatement(e.statement) << "\n";
  console.out << "  restores: " << *e.previous_metadata_location << "\n";
  if (changes.empty()) {
    console.out << "  nothing differs: " << table.name() << " is already in that state.\n";
    return 0;
  }
  for (const auto& line : changes) console.out << "  " << line << "\n";
  console.out.flush();

  if (!Confirm(table.name(), StrCat("Undo ", entry, " of ", table.name(), "?"), entry + " stands",
               args.yes, console)) {
    return 1;
  }
  Status refreshed = table.Refresh();
  if (!refreshed.ok()) return ReportError(refreshed, console.err);
  if (table.metadata_location() != before) {
    console.err
        << "Error: " << table.name()
        << " changed meanwhile; nothing was changed (run again to review the newest change)\n";
    return 1;
  }
  const std::string call = StrCat(SystemProcedure(table, "restore_table"), "(table => ",
                                  sql::QuoteString(table.ident().ToString()), ", metadata_file => ",
                                  sql::QuoteString(*e.previous_metadata_location), ")");
  console.out << "SQL: " << call << "\n";
  auto result = session.Execute(call);
  if (!result.ok()) return ReportError(result.status(), console.err);
  console.out << "Undid " << entry << " of " << table.name() << ".\n";
  return 0;
}

}  // namespace floe::cli
