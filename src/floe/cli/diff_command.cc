#include "floe/cli/diff_command.h"

#include <cctype>

#include <arrow/api.h>
#include <arrow/compute/api_vector.h>

#include "floe/cli/json_text.h"
#include "floe/cli/result_format.h"
#include "floe/cli/snapshot_point.h"
#include "floe/cli/snapshot_provenance.h"
#include "floe/cli/value_text.h"

namespace floe::cli {

Result<int64_t> ParseByteSize(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  std::string unit = text.substr(i);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (i == 0 || i > 15)
    return Status::Invalid("Invalid size '", text, "': expected a number and a unit, e.g. 256MB");
  int64_t scale = 0;
  if (unit.empty() || unit == "B") {
    scale = 1;
  } else {
    const std::string units = "KMGT";
    const size_t power = units.find(unit[0]);
    const std::string rest = unit.substr(1);
    if (power == std::string::npos || !(rest.empty() || rest == "B" || rest == "IB")) {
      return Status::Invalid("Invalid size '", text,
                             "': the unit must be one of B, K, M, G, T (or KB, MiB, ...)");
    }
    scale = int64_t{1} << (10 * (power + 1));
  }
  const int64_t n = std::stoll(text.substr(0, i));
  if (n > (int64_t{1} << 62) / scale)
    return Status::Invalid("Invalid size '", text, "': too large");
  return n * scale;
}

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

std::string JsonList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + JsonString(items[i]);
  return out + "]";
}

// One JSON object per row of `rows`.
std::vector<std::string> JsonRows(const std::shared_ptr<arrow::Table>& rows,
                                  const ValueText& text) {
  std::vector<std::string> out;
  if (!rows || rows->num_rows() == 0) return out;
  const std::string lines = JsonLinesString(*rows, text);
  size_t start = 0;
  while (start < lines.size()) {
    size_t end = lines.find('\n', start);
    if (end == std::string::npos) end = lines.size();
    out.push_back(lines.substr(start, end - start));
    start = end + 1;
  }
  return out;
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
                 const ValueText& text, std::ostream& out) {
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

std::string PointJson(const ResolvedPoint& point, const std::string& given,
                      const spec::Snapshot& snapshot) {
  return StrCat("{\"point\": ", JsonString(given), ", \"resolved_as\": ", JsonString(point.how),
                ", \"snapshot_id\": ", snapshot.snapshot_id,
                ", \"committed_at\": ", JsonTime(snapshot.timestamp_ms),
                ", \"operation\": ", JsonString(snapshot.operation), "}");
}

void PrintJson(const table::Table& table, const DiffCommandOptions& options,
               const ResolvedPoint& from, const ResolvedPoint& to, const scan::SnapshotDiff& diff,
               const ValueText& text, std::ostream& out) {
  auto md = table.metadata();
  out << "{\"table\": " << JsonString(table.name())
      << ", \"from\": " << PointJson(from, options.from, *md->SnapshotById(diff.from_snapshot_id))
      << ", \"to\": " << PointJson(to, options.to, *md->SnapshotById(diff.to_snapshot_id))
      << ", \"key_columns\": " << JsonList(diff.key_columns)
      << ", \"columns\": " << JsonList(diff.columns)
      << ", \"columns_only_in_from\": " << JsonList(diff.columns_only_in_from)
      << ", \"columns_only_in_to\": " << JsonList(diff.columns_only_in_to)
      << ", \"added\": " << diff.added << ", \"removed\": " << diff.removed
      << ", \"changed\": " << (diff.key_columns.empty() ? "null" : std::to_string(diff.changed))
      << ", \"unchanged_files_skipped\": " << diff.unchanged_files
      << ", \"files_read\": {\"from\": " << diff.files_read_from
      << ", \"to\": " << diff.files_read_to
      << "}, \"rows_read\": {\"from\": " << diff.rows_read_from << ", \"to\": " << diff.rows_read_to
      << "}, \"partitions\": " << diff.partitions << ", \"spilled_bytes\": " << diff.spilled_bytes
      << ", \"sample\": {\"added\": [" << Join(JsonRows(diff.added_sample, text))
      << "], \"removed\": [" << Join(JsonRows(diff.removed_sample, text)) << "], \"changed\": [";
  const auto before = JsonRows(diff.changed_before, text);
  const auto after = JsonRows(diff.changed_after, text);
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    out << (i ? ", " : "") << "{\"before\": " << before[i] << ", \"after\": " << after[i] << "}";
  }
  out << "]}}\n";
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

std::string DiffCountsJson(const scan::SnapshotDiff& diff) {
  return StrCat("{\"added\": ", diff.added, ", \"removed\": ", diff.removed, ", \"changed\": ",
                diff.key_columns.empty() ? std::string("null") : std::to_string(diff.changed),
                ", \"unchanged_files_skipped\": ", diff.unchanged_files, "}");
}

void PrintDiffSamples(const scan::SnapshotDiff& diff, const TimeZone& zone, std::ostream& out) {
  const ValueText text(zone);
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
    const ValueText text(zone);
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
