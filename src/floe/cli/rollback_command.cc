#include "floe/cli/rollback_command.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <arrow/api.h>

#include "floe/cli/diff_command.h"
#include "floe/cli/snapshot_point.h"
#include "floe/cli/table_argument.h"
#include "floe/sql/parse/ast.h"
#include "floe/table/snapshot_provenance.h"
#include "floe/table/time_travel.h"

namespace floe::cli {

namespace {

std::string SummaryValue(const spec::Snapshot& snapshot, const std::string& key) {
  auto it = snapshot.summary.find(key);
  return it == snapshot.summary.end() ? "?" : it->second;
}

void PrintSnapshot(const std::string& label, const spec::Snapshot& snapshot, const TimeZone& zone,
                   std::ostream& out) {
  const std::string files = SummaryValue(snapshot, "total-data-files");
  out << "  " << label << SnapshotLine(snapshot, zone) << "\n"
      << std::string(label.size() + 2, ' ') << SummaryValue(snapshot, "total-records")
      << " records in " << files << (files == "1" ? " data file" : " data files") << "; made by "
      << table::DescribeProvenance(table::ProvenanceOf(snapshot), 120) << "\n";
}

// "+02:00": the zone's offset at the instant, as a timestamp literal carries it.
std::string OffsetText(const TimeZone& zone, int64_t epoch_ms) {
  int64_t seconds = zone.OffsetSecondsAt(epoch_ms * 1000);
  const char sign = seconds < 0 ? '-' : '+';
  seconds = std::abs(seconds);
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%c%02d:%02d", sign, static_cast<int>(seconds / 3600),
                static_cast<int>(seconds % 3600 / 60));
  return buf;
}

bool IsYes(std::string answer) {
  answer.erase(0, answer.find_first_not_of(" \t\r"));
  answer.erase(answer.find_last_not_of(" \t\r") + 1);
  for (auto& c : answer) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return answer == "y" || answer == "yes";
}

int Fail(const Status& status, Console& console) {
  console.err << "Error: " << status.message() << "\n";
  return 1;
}

}  // namespace

std::string RollbackToSnapshotCall(const table::Table& table, int64_t snapshot_id) {
  return StrCat(SystemProcedure(table, "rollback_to_snapshot"), "(", sql::QuoteString(table.ident().ToString()),
                ", ", snapshot_id, ")");
}

std::string SetCurrentSnapshotCall(const table::Table& table, std::optional<int64_t> snapshot_id,
                                   const std::string& ref) {
  std::string args = StrCat("table => ", sql::QuoteString(table.ident().ToString()));
  if (snapshot_id) {
    args += StrCat(", snapshot_id => ", *snapshot_id);
  } else {
    args += ", ref => " + sql::QuoteString(ref);
  }
  return StrCat(SystemProcedure(table, "set_current_snapshot"), "(", args, ")");
}

bool Confirm(const std::string& table_name, const std::string& question, const std::string& unchanged,
             bool yes, Console& console) {
  if (yes) return true;
  if (!console.in_is_terminal) {
    console.err << "Error: Not changing " << table_name
                << " without confirmation: standard input is not a terminal (pass --yes to confirm)\n";
    return false;
  }
  console.out << question << " [y/N] ";
  console.out.flush();
  std::string answer;
  if (!std::getline(console.in, answer)) console.out << "\n";
  if (IsYes(answer)) return true;
  console.err << "Cancelled: " << table_name << " is unchanged and " << unchanged << "\n";
  return false;
}

int PreviewConfirmAndMove(sql::Session& session, const std::shared_ptr<table::Table>& table,
                          const PlannedMove& move, const scan::DiffOptions& diff_options, bool yes,
                          Console& console, const scan::SnapshotDiff* diff) {
  auto zone = SessionTimeZone(session);
  if (!zone.ok()) return Fail(zone.status(), console);
  auto md = table->metadata();
  const spec::Snapshot* current = md->current_snapshot();
  const spec::Snapshot* target = md->SnapshotById(move.target_snapshot_id);
  if (!current)
    return Fail(ValidationError("Table ", table->name(), " has no current snapshot"), console);
  if (!target) {
    return Fail(
        ValidationError("Cannot roll back to unknown snapshot id: ", move.target_snapshot_id),
        console);
  }
  if (current->snapshot_id == target->snapshot_id) {
    console.out << table->name() << " already reads snapshot " << current->snapshot_id
                << "; nothing to change.\n";
    return 0;
  }
  scan::SnapshotDiff computed;
  Status diff_status;
  if (!diff) {
    // A diff that cannot be computed (a data file gone, say) does not block a rollback, which
    // touches metadata only: the preview says so instead.
    auto made = scan::DiffSnapshots(table, current->snapshot_id, target->snapshot_id, diff_options);
    diff_status = made.status();
    if (made.ok()) {
      computed = std::move(*made);
      diff = &computed;
    }
  }
  const std::string verb = move.rollback ? "Rolling back" : "Setting the current snapshot of";
  console.out << verb << " " << table->name() << " changes what every reader of it sees:\n";
  PrintSnapshot("current: ", *current, *zone, console.out);
  PrintSnapshot("target:  ", *target, *zone, console.out);
  if (diff) {
    console.out << "  change:  " << DiffSummaryText(*diff) << "\n";
    PrintDiffSamples(*diff, *zone, console.out);
  } else {
    console.out << "  change:  not known, the diff failed: " << diff_status.message() << "\n";
  }
  console.out.flush();

  const std::string question = move.rollback
                                   ? StrCat("Roll back ", table->name(), " from ",
                                            current->snapshot_id, " to ", target->snapshot_id, "?")
                                   : StrCat("Set the current snapshot of ", table->name(), " from ",
                                            current->snapshot_id, " to ", target->snapshot_id, "?");
  if (!Confirm(table->name(), question, StrCat("still reads snapshot ", current->snapshot_id), yes, console)) {
    return 1;
  }
  // Someone may have committed while the question waited: the preview would be stale.
  Status refreshed = table->Refresh();
  if (!refreshed.ok()) return Fail(refreshed, console);
  const auto now = table->metadata()->current_snapshot_id;
  if (now != current->snapshot_id) {
    console.err << "Error: " << table->name() << " changed meanwhile: its current snapshot is now "
                << (now ? std::to_string(*now) : "none") << ", not " << current->snapshot_id
                << "; nothing was changed (run again to review)\n";
    return 1;
  }
  console.out << "SQL: " << move.call << "\n";
  auto result = session.Execute(move.call);
  if (!result.ok()) return Fail(result.status(), console);
  (void)table->Refresh();
  const auto after = table->metadata()->current_snapshot_id;
  console.out << (move.rollback ? "Rolled back " : "Set the current snapshot of ") << table->name()
              << " from " << current->snapshot_id << " to "
              << (after ? std::to_string(*after) : "none") << ".\n";
  return 0;
}

namespace {

// One table's line of a catalog-tag rollback, as the procedure answers it.
struct CatalogTagMoveLine {
  std::string table;
  std::optional<int64_t> previous;
  std::optional<int64_t> current;
  std::string action;
  bool operator==(const CatalogTagMoveLine&) const = default;
};

std::string RollbackToCatalogTagCall(const sql::Session& session, const MoveCommandOptions& options,
                                     bool dry_run) {
  std::string args = "tag => " + sql::QuoteString(options.catalog_tag);
  if (!options.catalog_tag_namespace.empty()) {
    args += ", namespace => " + sql::QuoteString(options.catalog_tag_namespace);
  }
  if (options.include_new_tables) args += ", include_new_tables => true";
  if (dry_run) args += ", dry_run => true";
  return StrCat("CALL ", session.catalog()->name(), ".system.rollback_to_catalog_tag(", args, ")");
}

Result<std::vector<CatalogTagMoveLine>> CatalogTagMoveLines(sql::Session& session,
                                                            const std::string& call) {
  ARROW_ASSIGN_OR_RAISE(auto result, session.Execute(call));
  std::vector<CatalogTagMoveLine> out;
  if (!result.rows) return out;
  ARROW_ASSIGN_OR_RAISE(auto rows, result.rows->CombineChunks());
  auto text = [&](int column, int64_t row) -> std::string {
    auto scalar = rows->column(column)->GetScalar(row);
    return scalar.ok() && (*scalar)->is_valid ? (*scalar)->ToString() : std::string();
  };
  auto id = [&](int column, int64_t row) -> std::optional<int64_t> {
    auto scalar = rows->column(column)->GetScalar(row);
    if (!scalar.ok() || !(*scalar)->is_valid) return std::nullopt;
    return static_cast<const arrow::Int64Scalar&>(**scalar).value;
  };
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    out.push_back({text(0, i), id(1, i), id(2, i), text(3, i)});
  }
  return out;
}

std::string CatalogTagSnapshotText(const std::optional<int64_t>& id) {
  return id ? std::to_string(*id) : std::string("none");
}

}  // namespace

int RunCatalogTagRollback(sql::Session& session, const MoveCommandOptions& options,
                          Console& console) {
  const std::string preview_call = RollbackToCatalogTagCall(session, options, true);
  auto plan = CatalogTagMoveLines(session, preview_call);
  if (!plan.ok()) return Fail(plan.status(), console);
  size_t moving = 0, width = 0;
  for (const auto& line : *plan) {
    if (line.previous != line.current) ++moving;
    width = std::max(width, line.table.size());
  }
  const std::string what = "catalog tag " + options.catalog_tag;
  if (moving == 0) {
    for (const auto& line : *plan) {
      console.out << "  " << line.table << std::string(width - line.table.size(), ' ') << "  "
                  << line.action << "\n";
    }
    console.out << "Every table of " << what << " already reads its tagged snapshot (or is left "
                << "alone); nothing to change.\n";
    return 0;
  }
  console.out << "Rolling back to " << what << " changes what every reader of " << moving
              << (moving == 1 ? " table" : " tables") << " sees:\n";
  for (const auto& line : *plan) {
    console.out << "  " << line.table << std::string(width - line.table.size(), ' ') << "  ";
    if (line.previous != line.current) {
      console.out << CatalogTagSnapshotText(line.previous) << " -> " << CatalogTagSnapshotText(line.current)
                  << "  ";
    }
    console.out << line.action << "\n";
  }
  console.out.flush();
  const std::string question = StrCat("Roll back ", moving, moving == 1 ? " table" : " tables",
                                      " to ", what, "?");
  if (!Confirm("every table of " + what, question, "still reads its current snapshot",
               options.yes, console)) {
    return 1;
  }
  // Someone may have committed while the question waited: the preview would be stale.
  auto again = CatalogTagMoveLines(session, preview_call);
  if (!again.ok()) return Fail(again.status(), console);
  if (*again != *plan) {
    console.err << "Error: the tables of " << what
                << " changed meanwhile; nothing was changed (run again to review)\n";
    return 1;
  }
  const std::string call = RollbackToCatalogTagCall(session, options, false);
  console.out << "SQL: " << call << "\n";
  auto done = CatalogTagMoveLines(session, call);
  if (!done.ok()) return Fail(done.status(), console);
  size_t moved = 0;
  for (const auto& line : *done) moved += line.previous != line.current ? 1 : 0;
  console.out << "Rolled back " << moved << (moved == 1 ? " table" : " tables") << " to " << what
              << " in one catalog transaction.\n";
  return 0;
}

int RunRollback(sql::Session& session, const MoveCommandOptions& options, Console& console) {
  if (!options.catalog_tag.empty()) {
    if (!options.table.empty() || options.snapshot_id || !options.timestamp.empty()) {
      return Fail(Status::Invalid("--catalog-tag rolls back every table of the tag: give no "
                                  "table, --to-snapshot or --to-timestamp with it"),
                  console);
    }
    return RunCatalogTagRollback(session, options, console);
  }
  if (!options.catalog_tag_namespace.empty() || options.include_new_tables) {
    return Fail(Status::Invalid("--namespace and --include-new-tables go with --catalog-tag"),
                console);
  }
  if (options.table.empty()) {
    return Fail(Status::Invalid("Give a table, or --catalog-tag"), console);
  }
  if (options.snapshot_id.has_value() == !options.timestamp.empty()) {
    return Fail(Status::Invalid("Give exactly one of --to-snapshot and --to-timestamp"), console);
  }
  auto diff_options = MakeDiffOptions(options.keys, options.sample, options.memory_budget);
  if (!diff_options.ok()) return Fail(diff_options.status(), console);
  auto table = LoadTableArgument(session, options.table);
  if (!table.ok()) return Fail(table.status(), console);
  auto md = (*table)->metadata();
  PlannedMove move;
  if (options.snapshot_id) {
    // The procedure's own checks, made before asking so that no one confirms a failure.
    if (!md->SnapshotById(*options.snapshot_id)) {
      return Fail(
          ValidationError("Cannot roll back to unknown snapshot id: ", *options.snapshot_id),
          console);
    }
    if (!table::IsCurrentAncestor(*md, *options.snapshot_id)) {
      return Fail(
          ValidationError("Cannot roll back to snapshot, not an ancestor of the current state: ",
                          *options.snapshot_id),
          console);
    }
    move.target_snapshot_id = *options.snapshot_id;
    move.call = RollbackToSnapshotCall(**table, *options.snapshot_id);
  } else {
    auto zone = SessionTimeZone(session);
    if (!zone.ok()) return Fail(zone.status(), console);
    auto ms = ParseTimestampMillis(options.timestamp, *zone);
    if (!ms.ok()) return Fail(ms.status(), console);
    // Iceberg's rollbackToTime: the newest current ancestor committed strictly before.
    const spec::Snapshot* best = nullptr;
    for (const spec::Snapshot* s : table::CurrentAncestors(*md)) {
      if (s->timestamp_ms < *ms && (!best || s->timestamp_ms > best->timestamp_ms)) best = s;
    }
    if (!best)
      return Fail(ValidationError("Cannot roll back, no valid snapshot older than: ", *ms),
                  console);
    move.target_snapshot_id = best->snapshot_id;
    move.call = StrCat(SystemProcedure(**table, "rollback_to_timestamp"), "(",
                       sql::QuoteString((*table)->ident().ToString()), ", TIMESTAMP '",
                       FormatMillis(*ms, *zone), OffsetText(*zone, *ms), "')");
  }
  return PreviewConfirmAndMove(session, *table, move, *diff_options, options.yes, console);
}

int RunSetCurrent(sql::Session& session, const MoveCommandOptions& options, Console& console) {
  if (options.snapshot_id.has_value() == !options.ref.empty()) {
    return Fail(Status::Invalid("Give exactly one of --snapshot-id and --ref"), console);
  }
  auto diff_options = MakeDiffOptions(options.keys, options.sample, options.memory_budget);
  if (!diff_options.ok()) return Fail(diff_options.status(), console);
  auto table = LoadTableArgument(session, options.table);
  if (!table.ok()) return Fail(table.status(), console);
  auto md = (*table)->metadata();
  PlannedMove move;
  move.rollback = false;
  if (options.snapshot_id) {
    if (!md->SnapshotById(*options.snapshot_id)) {
      return Fail(
          ValidationError("Cannot roll back to unknown snapshot id: ", *options.snapshot_id),
          console);
    }
    move.target_snapshot_id = *options.snapshot_id;
    move.call = SetCurrentSnapshotCall(**table, options.snapshot_id);
  } else {
    auto it = md->refs.find(options.ref);
    if (it == md->refs.end()) {
      return Fail(ValidationError("Cannot find matching snapshot ID for ref ", options.ref),
                  console);
    }
    move.target_snapshot_id = it->second.snapshot_id;
    move.call = SetCurrentSnapshotCall(**table, std::nullopt, options.ref);
  }
  return PreviewConfirmAndMove(session, *table, move, *diff_options, options.yes, console);
}

}  // namespace floe::cli
