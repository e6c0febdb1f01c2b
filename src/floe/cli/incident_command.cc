#include "floe/cli/incident_command.h"

#include <algorithm>
#include <charconv>

#include "floe/cli/command_common.h"
#include "floe/cli/diff_command.h"
#include "floe/cli/retention_command.h"
#include "floe/cli/snapshot_point.h"
#include "floe/table/snapshot_provenance.h"
#include "floe/table/time_travel.h"
#include "floe/util/json_writer.h"

namespace floe::cli {

namespace {

struct Candidate {
  const spec::Snapshot* snapshot = nullptr;
  bool is_current = false;
  bool is_current_ancestor = false;
  scan::SnapshotDiff diff;  // current -> this snapshot: what rolling back to it changes
  Status diff_status;       // why `diff` is missing, if it failed
};

void PrintJson(const table::Table& table, int64_t around, int64_t window, int64_t current,
               const std::vector<Candidate>& candidates, std::ostream& out) {
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("table").String(table.name());
  json.Key("around").Time(around);
  json.Key("window_ms").Int64(window);
  json.Key("from").Time(around - window);
  json.Key("to").Time(around + window);
  json.Key("current_snapshot_id").Int64(current);
  json.Key("candidates").StartArray();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const table::SnapshotProvenance p = table::ProvenanceOf(*c.snapshot);
    json.StartObject();
    json.Key("number").Int64(static_cast<int64_t>(i) + 1);
    json.Key("snapshot_id").Int64(c.snapshot->snapshot_id);
    json.Key("committed_at").Time(c.snapshot->timestamp_ms);
    json.Key("operation").String(c.snapshot->operation);
    json.Key("parent_id").OptionalInt64(c.snapshot->parent_snapshot_id);
    json.Key("is_current").Bool(c.is_current);
    json.Key("is_current_ancestor").Bool(c.is_current_ancestor);
    json.Key("user").OptionalString(p.user);
    json.Key("client").OptionalString(p.client);
    json.Key("statement").OptionalString(p.statement);
    json.Key("engine").OptionalString(p.engine);
    json.Key("rollback_diff");
    if (c.diff_status.ok()) {
      WriteDiffCounts(c.diff, &json);
    } else {
      json.Null();
    }
    json.Key("rollback_diff_error");
    if (c.diff_status.ok()) {
      json.Null();
    } else {
      json.String(c.diff_status.message());
    }
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  out << json.view() << "\n";
}

void PrintText(const table::Table& table, int64_t around, int64_t window,
               const std::string& window_text, const std::vector<Candidate>& candidates,
               const TimeZone& zone, std::ostream& out) {
  out << "Snapshots of " << table.name() << " committed from " << ZonedTime(around - window, zone)
      << " to " << ZonedTime(around + window, zone) << " (" << window_text << " around "
      << ZonedTime(around, zone) << "), newest first:\n";
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    out << "  [" << i + 1 << "] " << SnapshotLine(*c.snapshot, zone);
    if (c.is_current) {
      out << " (current)";
    } else if (!c.is_current_ancestor) {
      out << " (not an ancestor of the current snapshot)";
    }
    out << "\n      made by " << table::DescribeProvenance(table::ProvenanceOf(*c.snapshot), 120) << "\n";
    out << "      rolling back to it: "
        << (c.is_current         ? "nothing changes"
            : c.diff_status.ok() ? DiffSummaryText(c.diff)
                                 : "not known, the diff failed: " + c.diff_status.message())
        << "\n";
  }
}

std::optional<int> ParsePick(const std::string& text) {
  std::string t = text;
  t.erase(0, t.find_first_not_of(" \t\r"));
  t.erase(t.find_last_not_of(" \t\r") + 1);
  int value = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
  return value;
}

}  // namespace

int RunIncident(sql::Session& session, const IncidentCommandOptions& options, Console& console) {
  auto zone = SessionTimeZone(session);
  if (!zone.ok()) return ReportError(zone.status(), console.err);
  auto around = ParseTimestampMillis(options.around, *zone);
  if (!around.ok()) return ReportError(around.status(), console.err);
  auto window = ParseDuration(options.window);
  if (!window.ok()) return ReportError(window.status(), console.err);
  auto diff_options = MakeDiffOptions(options.keys, 0, options.memory_budget);
  if (!diff_options.ok()) return ReportError(diff_options.status(), console.err);
  auto table = LoadTableArgument(session, options.table);
  if (!table.ok()) return ReportError(table.status(), console.err);
  auto md = (*table)->metadata();
  const spec::Snapshot* current = md->current_snapshot();
  if (!current)
    return ReportError(ValidationError("Table ", (*table)->name(), " has no current snapshot"),
                       console.err);

  std::vector<Candidate> candidates;
  for (const auto& s : md->snapshots) {
    if (s.timestamp_ms < *around - *window || s.timestamp_ms > *around + *window) continue;
    Candidate c;
    c.snapshot = &s;
    c.is_current = s.snapshot_id == current->snapshot_id;
    c.is_current_ancestor = table::IsCurrentAncestor(*md, s.snapshot_id);
    candidates.push_back(std::move(c));
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     if (a.snapshot->timestamp_ms != b.snapshot->timestamp_ms)
                       return a.snapshot->timestamp_ms > b.snapshot->timestamp_ms;
                     return a.snapshot->sequence_number > b.snapshot->sequence_number;
                   });
  for (auto& c : candidates) {
    auto diff =
        scan::DiffSnapshots(*table, current->snapshot_id, c.snapshot->snapshot_id, *diff_options);
    c.diff_status = diff.status();
    if (diff.ok()) c.diff = std::move(*diff);
  }

  if (options.json) {
    PrintJson(**table, *around, *window, current->snapshot_id, candidates, console.out);
    return 0;
  }
  if (candidates.empty()) {
    console.out << "No snapshot of " << (*table)->name() << " was committed from "
                << ZonedTime(*around - *window, *zone) << " to "
                << ZonedTime(*around + *window, *zone) << ".\n";
    return 0;
  }
  PrintText(**table, *around, *window, options.window, candidates, *zone, console.out);

  std::optional<int> pick = options.pick;
  if (!pick) {
    if (!console.in_is_terminal) {
      console.err << "Error: Pick the snapshot to roll back to with --pick N: standard input is "
                     "not a terminal\n";
      return 1;
    }
    console.out << "Roll back to which snapshot? [1-" << candidates.size() << ", Enter for none] ";
    console.out.flush();
    std::string answer;
    if (!std::getline(console.in, answer)) console.out << "\n";
    if (answer.find_first_not_of(" \t\r") == std::string::npos) {
      console.err << "Cancelled: " << (*table)->name() << " is unchanged and still reads snapshot "
                  << current->snapshot_id << "\n";
      return 1;
    }
    pick = ParsePick(answer);
    if (!pick)
      return ReportError(
          Status::Invalid("'", answer, "' is not a number from 1 to ", candidates.size()),
          console.err);
  }
  if (*pick < 1 || *pick > static_cast<int>(candidates.size())) {
    return ReportError(Status::Invalid("Snapshot ", *pick, " is not among the candidates 1 to ",
                                       candidates.size()),
                       console.err);
  }
  const Candidate& chosen = candidates[static_cast<size_t>(*pick - 1)];
  PlannedMove move;
  move.target_snapshot_id = chosen.snapshot->snapshot_id;
  move.rollback = chosen.is_current_ancestor;
  if (chosen.is_current_ancestor) {
    move.call = RollbackToSnapshotCall(**table, move.target_snapshot_id);
  } else {
    // rollback_to_snapshot refuses a snapshot off the current lineage; set_current takes any.
    move.call = SetCurrentSnapshotCall(**table, move.target_snapshot_id);
  }
  console.out << "\n";
  return PreviewConfirmAndMove(session, *table, move, *diff_options, options.yes, console,
                               chosen.diff_status.ok() ? &chosen.diff : nullptr);
}

}  // namespace floe::cli
