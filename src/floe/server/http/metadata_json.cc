#include "floe/server/http/metadata_json.h"

#include <optional>

#include <arrow/array.h>
#include <arrow/table.h>

#include "floe/cli/json_text.h"
#include "floe/cli/snapshot_provenance.h"
#include "floe/cli/value_text.h"
#include "floe/server/http/lineage_layout.h"
#include "floe/server/http/table_path.h"
#include "floe/table/time_travel.h"
#include "floe/util/number_parse.h"

namespace floe::server::http {

namespace {

using cli::JsonNumber;
using cli::JsonOptionalString;
using cli::JsonString;
using cli::JsonTime;

std::string IdJson(int64_t id) { return "\"" + std::to_string(id) + "\""; }

std::string OptionalIdJson(const std::optional<int64_t>& id) { return id ? IdJson(*id) : "null"; }

std::string StringList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + JsonString(items[i]);
  return out + "]";
}

std::optional<int64_t> SummaryNumber(const spec::Snapshot& s, const std::string& key) {
  auto it = s.summary.find(key);
  if (it == s.summary.end()) return std::nullopt;
  return ParseInt64(it->second);
}

const char* RefType(const spec::SnapshotRef& ref) { return ref.is_branch() ? "branch" : "tag"; }

// The refs naming a snapshot in the order the CLI's graph shows them: main, tags, branches.
std::string SnapshotRefsJson(const spec::TableMetadata& md, int64_t snapshot_id) {
  std::vector<std::string> items;
  for (const std::string& label : cli::RefLabels(md, snapshot_id)) {
    std::string name = label;
    const char* type = "branch";
    if (label.rfind("tag: ", 0) == 0) {
      name = label.substr(5);
      type = "tag";
    } else if (label.rfind("branch: ", 0) == 0) {
      name = label.substr(8);
    }
    items.push_back(StrCat("{\"name\": ", JsonString(name), ", \"type\": \"", type, "\"}"));
  }
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

std::string SummaryJson(const spec::Snapshot& s) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : s.summary) {
    out += (first ? "" : ", ") + JsonString(key) + ": " + JsonString(value);
    first = false;
  }
  return out + "}";
}

std::string SnapshotJson(const spec::TableMetadata& md, const spec::Snapshot& s, size_t row,
                         int lane) {
  const cli::SnapshotProvenance provenance = cli::ProvenanceOf(s);
  const bool has_provenance =
      provenance.user || provenance.client || provenance.statement || provenance.engine;
  return StrCat(
      "{\"snapshot_id\": ", IdJson(s.snapshot_id),
      ", \"parent_id\": ", OptionalIdJson(s.parent_snapshot_id),
      ", \"sequence_number\": ", s.sequence_number,
      ", \"committed_at\": ", JsonTime(s.timestamp_ms),
      ", \"operation\": ", s.operation.empty() ? "null" : JsonString(s.operation),
      ", \"is_current\": ", md.current_snapshot_id == s.snapshot_id ? "true" : "false",
      ", \"is_current_ancestor\": ", table::IsCurrentAncestor(md, s.snapshot_id) ? "true" : "false",
      ", \"refs\": ", SnapshotRefsJson(md, s.snapshot_id),
      ", \"added_records\": ", JsonNumber(SummaryNumber(s, "added-records")),
      ", \"deleted_records\": ", JsonNumber(SummaryNumber(s, "deleted-records")),
      ", \"added_data_files\": ", JsonNumber(SummaryNumber(s, "added-data-files")),
      ", \"deleted_data_files\": ", JsonNumber(SummaryNumber(s, "deleted-data-files")),
      ", \"total_records\": ", JsonNumber(SummaryNumber(s, "total-records")),
      ", \"user\": ", JsonOptionalString(provenance.user),
      ", \"client\": ", JsonOptionalString(provenance.client),
      ", \"statement\": ", JsonOptionalString(provenance.statement),
      ", \"engine\": ", JsonOptionalString(provenance.engine), ", \"made_by\": ",
      has_provenance ? JsonString(cli::DescribeProvenance(provenance, 200)) : "null",
      ", \"summary\": ", SummaryJson(s), ", \"row\": ", row, ", \"lane\": ", lane, "}");
}

std::string QualifiedName(const std::string& catalog_name, const TableIdentifier& ident) {
  return catalog_name + "." + ident.ToString();
}

std::string PointJson(const spec::TableMetadata& md, int64_t snapshot_id) {
  const spec::Snapshot* s = md.SnapshotById(snapshot_id);
  return StrCat("{\"snapshot_id\": ", IdJson(snapshot_id),
                ", \"committed_at\": ", s ? JsonTime(s->timestamp_ms) : "null",
                ", \"operation\": ", s && !s->operation.empty() ? JsonString(s->operation) : "null",
                "}");
}

std::string RowsJson(const std::shared_ptr<arrow::Table>& rows) {
  std::string out = "[";
  if (!rows) return out + "]";
  const cli::ValueText text;  // UTC, as the pages show every time
  auto combined = rows->CombineChunks();
  if (!combined.ok()) return out + "]";
  const auto& table = *combined;
  for (int64_t r = 0; r < table->num_rows(); ++r) {
    out += r ? ", [" : "[";
    for (int c = 0; c < table->num_columns(); ++c) {
      const auto& array = *table->column(c)->chunk(0);
      out += c ? ", " : "";
      out += array.IsNull(r) ? "null" : JsonString(text.Format(array, r));
    }
    out += "]";
  }
  return out + "]";
}

}  // namespace

std::string TablesJson(const std::string& catalog_name, const std::vector<Namespace>& namespaces,
                       const std::vector<TableIdentifier>& tables) {
  std::string out = "{\"catalog\": " + JsonString(catalog_name) + ", \"namespaces\": [";
  for (size_t i = 0; i < namespaces.size(); ++i) {
    out += (i ? ", " : "") + JsonString(namespaces[i].ToString());
  }
  out += "], \"tables\": [";
  for (size_t i = 0; i < tables.size(); ++i) {
    const TableIdentifier& t = tables[i];
    out += StrCat(i ? ", " : "", "{\"namespace\": ", JsonString(t.ns.ToString()),
                  ", \"name\": ", JsonString(t.name),
                  ", \"table\": ", JsonString(QualifiedName(catalog_name, t)),
                  ", \"path\": ", JsonString("/table/" + TablePath(t)), "}");
  }
  return out + "]}";
}

std::string TableJson(const table::Table& table) {
  const spec::TableMetadataPtr md = table.metadata();
  const LineageLayout layout = LayOutLineage(*md);
  std::string snapshots, jumps;
  for (size_t row = 0; row < layout.rows.size(); ++row) {
    const LineageRow& r = layout.rows[row];
    if (r.snapshot) {
      snapshots += (snapshots.empty() ? "" : ", ") + SnapshotJson(*md, *r.snapshot, row, r.lane);
    } else {
      const cli::MainJump& j = *r.jump;
      jumps += StrCat(jumps.empty() ? "" : ", ", "{\"branch\": \"main\", \"kind\": \"",
                      cli::MainJumpKindName(j.kind),
                      "\", \"from_snapshot_id\": ", IdJson(j.from_snapshot_id),
                      ", \"to_snapshot_id\": ", IdJson(j.to_snapshot_id),
                      ", \"at\": ", JsonTime(j.at_ms), ", \"row\": ", row, "}");
    }
  }
  std::string refs;
  for (const auto& [name, ref] : md->refs) {
    refs += StrCat(refs.empty() ? "" : ", ", "{\"name\": ", JsonString(name), ", \"type\": \"",
                   RefType(ref), "\", \"snapshot_id\": ", IdJson(ref.snapshot_id), "}");
  }
  std::string log;
  for (const auto& entry : md->snapshot_log) {
    log += StrCat(log.empty() ? "" : ", ", "{\"made_current_at\": ", JsonTime(entry.timestamp_ms),
                  ", \"snapshot_id\": ", IdJson(entry.snapshot_id), "}");
  }
  return StrCat("{\"table\": ", JsonString(table.name()),
                ", \"namespace\": ", JsonString(table.ident().ns.ToString()),
                ", \"name\": ", JsonString(table.ident().name),
                ", \"format_version\": ", md->format_version,
                ", \"location\": ", JsonString(md->location),
                ", \"current_snapshot_id\": ", OptionalIdJson(md->current_snapshot_id),
                ", \"lanes\": ", layout.lanes, ", \"snapshots\": [", snapshots, "], \"jumps\": [",
                jumps, "], \"refs\": [", refs, "], \"log\": [", log, "]}");
}

std::string DiffJson(const table::Table& table, const scan::SnapshotDiff& diff,
                     int64_t rows_limit) {
  const spec::TableMetadataPtr md = table.metadata();
  return StrCat("{\"table\": ", JsonString(table.name()),
                ", \"from\": ", PointJson(*md, diff.from_snapshot_id),
                ", \"to\": ", PointJson(*md, diff.to_snapshot_id),
                ", \"columns\": ", StringList(diff.columns),
                ", \"columns_only_in_from\": ", StringList(diff.columns_only_in_from),
                ", \"columns_only_in_to\": ", StringList(diff.columns_only_in_to),
                ", \"added\": ", diff.added, ", \"removed\": ", diff.removed,
                ", \"unchanged_files_skipped\": ", diff.unchanged_files,
                ", \"rows_limit\": ", rows_limit, ", \"added_rows\": ", RowsJson(diff.added_sample),
                ", \"removed_rows\": ", RowsJson(diff.removed_sample), "}");
}

std::string ErrorJson(const std::string& message) {
  return "{\"error\": " + JsonString(message) + "}";
}

}  // namespace floe::server::http
