#include "floe/cli/diff_command.h"

#include <algorithm>
#include <cctype>

#include <arrow/api.h>
#include <arrow/compute/api_vector.h>

#include "floe/cli/result_format.h"
#include "floe/cli/snapshot_point.h"
#include "floe/table/snapshot_provenance.h"
#include "floe/sql/types/value_text.h"

namespace floe::cli {

Result<scan::DiffOptions> MakeDiffOptions(const std::vector<std::string>& keys, int64_t sample,
                                          const std::string& memory_budget,
                                          const std::string& spill_directory) {
  scan::DiffOptions options;
  options.key_columns = keys;
  if (sample < 0) return Status::Invalid("--sample must not be negative (got ", sample, ")");
  options.sample_rows = sample;
  ARROW_ASSIGN_OR_RAISE(options.memory_budget_bytes, ParseByteSize(memory_budget));
  options.spill_directory = spill_directory;
  return options;
}

namespace {

std::string Rows(int64_t n) { return StrCat(n, n == 1 ? " row" : " rows"); }

std::string Join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

// Each row of `rows` (none when null) as an object, into the array being written.
void WriteRows(const std::shared_ptr<arrow::Table>& rows, const sql::ValueText& text,
               JsonWriter* json) {
  if (!rows) return;
  JsonRowWriter writer(*rows, text);
  while (writer.WriteNext(json)) {
  }
}

// The before and after rows interleaved, under a leading `change` column.
Result<std::shared_ptr<arrow::Table>> ChangedRows(const scan::SnapshotDiff& diff) {
  const auto& before = diff.changed_before;
  const auto& after = diff.changed_after;
  const int64_t n = before->num_rows();
  ARROW_ASSIGN_OR_RAISE(auto both, arrow::ConcatenateTables({before, after}));
  arrow::Int64Builder order;
  arrow::StringBuilder labels;
  for (int64_t i = 0; i < n; ++i) {
    ARROW_RETURN_NOT_OK(order.Append(i));
    ARROW_RETURN_NOT_OK(order.Append(n + i));
    ARROW_RETURN_NOT_OK(labels.Append("before"));
    ARROW_RETURN_NOT_OK(labels.Append("after"));
  }
  ARROW_ASSIGN_OR_RAISE(auto indices, order.Finish());
  ARROW_ASSIGN_OR_RAISE(auto label_array, labels.Finish());
  ARROW_ASSIGN_OR_RAISE(arrow::Datum taken,
                        arrow::compute::Take(arrow::Datum(both), arrow::Datum(indices)));
  auto table = taken.table();
  return table->AddColumn(0, arrow::field("change", arrow::utf8()),
                          std::make_shared<arrow::ChunkedArray>(label_array));
}

void PrintSample(const std::string& title, int64_t count, const std::shared_ptr<arrow::Table>& rows,
                 const sql::ValueText& text, std::ostream& out) {
  if (!rows || rows->num_rows() == 0) return;
  out << "\n" << title;
  if (rows->num_rows() < count) out << " (" << rows->num_rows() << " of " << count << ")";
  out << ":\n" << ShowString(*rows, text, 0, 20);
}

void PrintText(const table::Table& table, const ResolvedPoint& from, const ResolvedPoint& to,
               const scan::SnapshotDiff& diff, const TimeZone& zone, std::ostream& out) {
  auto md = table.metadata();
  out << "Diff of " << table.name();
  if (diff.key_columns.empty()) {
    out << " (whole rows, no key)\n";
  } else {
    out << " by key " << Join(diff.key_columns) << "\n";
  }
  auto point = [&](const ResolvedPoint& p) {
    std::string line = SnapshotLine(*md->SnapshotById(p.snapshot_id), zone);
    return p.how == "snapshot id" ? line : line + " (" + p.how + ")";
  };
  out << "from: " << point(from) << "\n";
  out << "to:   " << point(to) << "\n";
  out << DiffSummaryText(diff) << "\n";
  if (!diff.columns_only_in_from.empty()) {
    out << "not compared, only in from: " << Join(diff.columns_only_in_from) << "\n";
  }
  if (!diff.columns_only_in_to.empty())
    out << "not compared, only in to: " << Join(diff.columns_only_in_to) << "\n";
  PrintDiffSamples(diff, zone, out);
}

void WritePoint(const ResolvedPoint& point, const std::string& given,
                const spec::Snapshot& snapshot, JsonWriter* json) {
  json->StartObject();
  json->Key("point").String(given);
  json->Key("resolved_as").String(point.how);
  json->Key("snapshot_id").Int64(snapshot.snapshot_id);
  json->Key("committed_at").Time(snapshot.timestamp_ms);
  json->Key("operation").String(snapshot.operation);
  json->EndObject();
}

void PrintJson(const table::Table& table, const DiffCommandOptions& options,
               const ResolvedPoint& from, const ResolvedPoint& to, const scan::SnapshotDiff& diff,
               const sql::ValueText& text, std::ostream& out) {
  auto md = table.metadata();
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("table").String(table.name());
  json.Key("from");
  WritePoint(from, options.from, *md->SnapshotById(diff.from_snapshot_id), &json);
  json.Key("to");
  WritePoint(to, options.to, *md->SnapshotById(diff.to_snapshot_id), &json);
  json.Key("key_columns").Strings(diff.key_columns);
  json.Key("columns").Strings(diff.columns);
  json.Key("columns_only_in_from").Strings(diff.columns_only_in_from);
  json.Key("columns_only_in_to").Strings(diff.columns_only_in_to);
  json.Key("added").Int64(diff.added);
  json.Key("removed").Int64(diff.removed);
  json.Key("changed");
  if (diff.key_columns.empty()) {
    json.Null();
  } else {
    json.Int64(diff.changed);
  }
  json.Key("unchanged_files_skipped").Int64(diff.unchanged_files);
  json.Key("files_read").StartObject();
  json.Key("from").Int64(diff.files_read_from);
  json.Key("to").Int64(diff.files_read_to);
  json.EndObject();
  json.Key("rows_read").StartObject();
  json.Key("from").Int64(diff.rows_read_from);
  json.Key("to").Int64(diff.rows_read_to);
  json.EndObject();
  json.Key("partitions").Int64(diff.partitions);
  json.Key("spilled_bytes").Int64(diff.spilled_bytes);
  json.Key("sample").StartObject();
  json.Key("added").StartArray();
  WriteRows(diff.added_sample, text, &json);
  json.EndArray();
  json.Key("removed").StartArray();
  WriteRows(diff.removed_sample, text, &json);
  json.EndArray();
  json.Key("changed").StartArray();
  if (diff.changed_before && diff.changed_after) {
    JsonRowWriter before(*diff.changed_before, text);
    JsonRowWriter after(*diff.changed_after, text);
    const int64_t pairs = std::min(diff.changed_before->num_rows(), diff.changed_after->num_rows());
    for (int64_t i = 0; i < pairs; ++i) {
      json.StartObject();
      json.Key("before");
      before.WriteNext(&json);
      json.Key("after");
      after.WriteNext(&json);
      json.EndObject();
    }
  }
  json.EndArray();
  json.EndObject();
  json.EndObject();
  out << json.view() << "\n";
}

}  // namespace

std::string DiffSummaryText(const scan::SnapshotDiff& diff) {
  std::string out = StrCat(Rows(diff.added), " added, ", diff.removed, " removed");
  if (!diff.key_columns.empty()) out += StrCat(", ", diff.changed, " changed");
  out += StrCat("; ", diff.unchanged_files,
                diff.unchanged_files == 1 ? " unchanged data file" : " unchanged data files",
                " skipped");
  return out;
}

void WriteDiffCounts(const scan::SnapshotDiff& diff, JsonWriter* json) {
  json->StartObject();
  json->Key("added").Int64(diff.added);
  json->Key("removed").Int64(diff.removed);
  json->Key("changed");
  if (diff.key_columns.empty()) {
    json->Null();
  } else {
    json->Int64(diff.changed);
  }
  json->Key("unchanged_files_skipped").Int64(diff.unchanged_files);
  json->EndObject();
}

void PrintDiffSamples(const scan::SnapshotDiff& diff, const TimeZone& zone, std::ostream& out) {
  const sql::ValueText text(zone);
  PrintSample("Added rows", diff.added, diff.added_sample, text, out);
  PrintSample("Removed rows", diff.removed, diff.removed_sample, text, out);
  if (diff.changed_before && diff.changed_before->num_rows() > 0) {
    auto changed = ChangedRows(diff);
    if (changed.ok()) PrintSample("Changed rows", diff.changed, *changed, text, out);
  }
}

std::string ZonedTime(int64_t epoch_ms, const TimeZone& zone) {
  return FormatMillis(epoch_ms, zone) + " " + zone.name();
}

std::string SnapshotLine(const spec::Snapshot& snapshot, const TimeZone& zone) {
  return StrCat("snapshot ", snapshot.snapshot_id, ", committed ",
                ZonedTime(snapshot.timestamp_ms, zone), ", ",
                snapshot.operation.empty() ? "unknown operation" : snapshot.operation);
}

int RunDiff(sql::Session& session, const DiffCommandOptions& options, std::ostream& out,
            std::ostream& err) {
  auto run = [&]() -> Status {
    ARROW_ASSIGN_OR_RAISE(auto diff_options,
                          MakeDiffOptions(options.keys, options.sample, options.memory_budget,
                                          options.spill_directory));
    ARROW_ASSIGN_OR_RAISE(auto table, LoadTableArgument(session, options.table));
    ARROW_ASSIGN_OR_RAISE(TimeZone zone, SessionTimeZone(session));
    ARROW_ASSIGN_OR_RAISE(ResolvedPoint from, ResolvePoint(*table, options.from, zone));
    ARROW_ASSIGN_OR_RAISE(ResolvedPoint to, ResolvePoint(*table, options.to, zone));
    ARROW_ASSIGN_OR_RAISE(
        auto diff, scan::DiffSnapshots(table, from.snapshot_id, to.snapshot_id, diff_options));
    const sql::ValueText text(zone);
    if (options.json) {
      PrintJson(*table, options, from, to, diff, text, out);
    } else {
      PrintText(*table, from, to, diff, zone, out);
    }
    return Status::OK();
  };
  Status st = run();
  if (!st.ok()) {
    err << "Error: " << st.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace floe::cli
