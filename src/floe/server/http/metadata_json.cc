#include "floe/server/http/metadata_json.h"

#include <optional>

#include <arrow/array.h>
#include <arrow/table.h>

#include "floe/table/snapshot_provenance.h"
#include "floe/sql/types/value_text.h"
#include "floe/server/http/lineage_layout.h"
#include "floe/server/http/table_path.h"
#include "floe/table/audit_log.h"
#include "floe/table/time_travel.h"
#include "floe/util/json_writer.h"
#include "floe/util/number_parse.h"

namespace floe::server::http {

namespace {

// Snapshot ids go out as strings: JavaScript's numbers cannot hold 64 bits.
void WriteId(int64_t id, JsonWriter* json) { json->String(std::to_string(id)); }

void WriteOptionalId(const std::optional<int64_t>& id, JsonWriter* json) {
  if (id) {
    WriteId(*id, json);
  } else {
    json->Null();
  }
}

// A string, or null when empty.
void WriteNonEmpty(const std::string& text, JsonWriter* json) {
  if (text.empty()) {
    json->Null();
  } else {
    json->String(text);
  }
}

std::optional<int64_t> SummaryNumber(const spec::Snapshot& s, const std::string& key) {
  auto it = s.summary.find(key);
  if (it == s.summary.end()) return std::nullopt;
  return ParseInt64(it->second);
}

const char* RefType(const spec::SnapshotRef& ref) { return ref.is_branch() ? "branch" : "tag"; }

// The refs naming a snapshot in the order the CLI's graph shows them: main, tags, branches.
void WriteSnapshotRefs(const spec::TableMetadata& md, int64_t snapshot_id, JsonWriter* json) {
  json->StartArray();
  for (const std::string& label : table::RefLabels(md, snapshot_id)) {
    std::string name = label;
    const char* type = "branch";
    if (label.rfind("tag: ", 0) == 0) {
      name = label.substr(5);
      type = "tag";
    } else if (label.rfind("branch: ", 0) == 0) {
      name = label.substr(8);
    }
    json->StartObject();
    json->Key("name").String(name);
    json->Key("type").String(type);
    json->EndObject();
  }
  json->EndArray();
}

void WriteSummary(const spec::Snapshot& s, JsonWriter* json) {
  json->StartObject();
  for (const auto& [key, value] : s.summary) json->Key(key).String(value);
  json->EndObject();
}

void WriteSnapshot(const spec::TableMetadata& md, const spec::Snapshot& s, size_t row, int lane,
                   JsonWriter* json) {
  const table::SnapshotProvenance provenance = table::ProvenanceOf(s);
  const bool has_provenance =
      provenance.user || provenance.client || provenance.statement || provenance.engine;
  json->StartObject();
  json->Key("snapshot_id");
  WriteId(s.snapshot_id, json);
  json->Key("parent_id");
  WriteOptionalId(s.parent_snapshot_id, json);
  json->Key("sequence_number").Int64(s.sequence_number);
  json->Key("committed_at").Time(s.timestamp_ms);
  json->Key("operation");
  WriteNonEmpty(s.operation, json);
  json->Key("is_current").Bool(md.current_snapshot_id == s.snapshot_id);
  json->Key("is_current_ancestor").Bool(table::IsCurrentAncestor(md, s.snapshot_id));
  json->Key("refs");
  WriteSnapshotRefs(md, s.snapshot_id, json);
  json->Key("added_records").OptionalInt64(SummaryNumber(s, "added-records"));
  json->Key("deleted_records").OptionalInt64(SummaryNumber(s, "deleted-records"));
  json->Key("added_data_files").OptionalInt64(SummaryNumber(s, "added-data-files"));
  json->Key("deleted_data_files").OptionalInt64(SummaryNumber(s, "deleted-data-files"));
  json->Key("total_records").OptionalInt64(SummaryNumber(s, "total-records"));
  json->Key("user").OptionalString(provenance.user);
  json->Key("client").OptionalString(provenance.client);
  json->Key("statement").OptionalString(provenance.statement);
  json->Key("engine").OptionalString(provenance.engine);
  json->Key("made_by");
  if (has_provenance) {
    json->String(table::DescribeProvenance(provenance, 200));
  } else {
    json->Null();
  }
  json->Key("summary");
  WriteSummary(s, json);
  json->Key("row").Int64(static_cast<int64_t>(row));
  json->Key("lane").Int64(lane);
  json->EndObject();
}

std::string QualifiedName(const std::string& catalog_name, const TableIdentifier& ident) {
  return catalog_name + "." + ident.ToString();
}

void WritePoint(const spec::TableMetadata& md, int64_t snapshot_id, JsonWriter* json) {
  const spec::Snapshot* s = md.SnapshotById(snapshot_id);
  json->StartObject();
  json->Key("snapshot_id");
  WriteId(snapshot_id, json);
  json->Key("committed_at");
  if (s) {
    json->Time(s->timestamp_ms);
  } else {
    json->Null();
  }
  json->Key("operation");
  WriteNonEmpty(s ? s->operation : std::string(), json);
  json->EndObject();
}

// Each row as an array of its cells' text (null for null).
void WriteRows(const std::shared_ptr<arrow::Table>& rows, JsonWriter* json) {
  json->StartArray();
  const sql::ValueText text;  // UTC, as the pages show every time
  if (rows) {
    auto combined = rows->CombineChunks();
    if (combined.ok()) {
      const auto& table = *combined;
      for (int64_t r = 0; r < table->num_rows(); ++r) {
        json->StartArray();
        for (int c = 0; c < table->num_columns(); ++c) {
          const auto& array = *table->column(c)->chunk(0);
          if (array.IsNull(r)) {
            json->Null();
          } else {
            json->String(text.Format(array, r));
          }
        }
        json->EndArray();
      }
    }
  }
  json->EndArray();
}

// The table's newest audit-log entries, newest first (none where the catalog keeps no log).
void WriteChanges(const table::Table& table, JsonWriter* json) {
  json->Key("changes").StartArray();
  AuditQuery query;
  query.table = table.ident();
  query.limit = kChangesShown;
  auto entries = table::ReadAuditLog(*table.catalog(), *table.io(), query);
  for (const AuditEntry& e : entries.ok() ? *entries : std::vector<AuditEntry>{}) {
    json->StartObject();
    json->Key("seq").Int64(e.seq);
    json->Key("changed_at").Time(e.at_ms);
    json->Key("kind").String(e.kind);
    json->Key("operation");
    WriteNonEmpty(e.operation, json);
    json->Key("previous_snapshot_id");
    WriteOptionalId(e.previous_snapshot_id, json);
    json->Key("snapshot_id");
    WriteOptionalId(e.snapshot_id, json);
    json->Key("refs").StartArray();
    for (const auto& ref : e.refs) {
      json->StartObject().Key("name").String(ref.name);
      json->Key("from_snapshot_id");
      WriteOptionalId(ref.from_snapshot_id, json);
      json->Key("to_snapshot_id");
      WriteOptionalId(ref.to_snapshot_id, json);
      json->EndObject();
    }
    json->EndArray();
    for (const auto& [key, value] : {std::pair{"user", &e.user}, {"client", &e.client},
                                     {"client_address", &e.client_address}, {"statement", &e.statement},
                                     {"detail", &e.detail}}) {
      json->Key(key);
      WriteNonEmpty(*value, json);
    }
    json->EndObject();
  }
  json->EndArray();
}

}  // namespace

std::string TablesJson(const std::string& catalog_name, const std::vector<Namespace>& namespaces,
                       const std::vector<TableIdentifier>& tables) {
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("catalog").String(catalog_name);
  json.Key("namespaces").StartArray();
  for (const Namespace& ns : namespaces) json.String(ns.ToString());
  json.EndArray();
  json.Key("tables").StartArray();
  for (const TableIdentifier& t : tables) {
    json.StartObject();
    json.Key("namespace").String(t.ns.ToString());
    json.Key("name").String(t.name);
    json.Key("table").String(QualifiedName(catalog_name, t));
    json.Key("path").String("/table/" + TablePath(t));
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json.Take();
}

std::string TableJson(const table::Table& table) {
  const spec::TableMetadataPtr md = table.metadata();
  const LineageLayout layout = LayOutLineage(*md);
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("table").String(table.name());
  json.Key("namespace").String(table.ident().ns.ToString());
  json.Key("name").String(table.ident().name);
  json.Key("format_version").Int64(md->format_version);
  json.Key("location").String(md->location);
  json.Key("current_snapshot_id");
  WriteOptionalId(md->current_snapshot_id, &json);
  json.Key("lanes").Int64(layout.lanes);
  json.Key("snapshots").StartArray();
  for (size_t row = 0; row < layout.rows.size(); ++row) {
    const LineageRow& r = layout.rows[row];
    if (r.snapshot) WriteSnapshot(*md, *r.snapshot, row, r.lane, &json);
  }
  json.EndArray();
  json.Key("jumps").StartArray();
  for (size_t row = 0; row < layout.rows.size(); ++row) {
    const LineageRow& r = layout.rows[row];
    if (r.snapshot) continue;
    const table::MainJump& j = *r.jump;
    json.StartObject();
    json.Key("branch").String("main");
    json.Key("kind").String(table::MainJumpKindName(j.kind));
    json.Key("from_snapshot_id");
    WriteId(j.from_snapshot_id, &json);
    json.Key("to_snapshot_id");
    WriteId(j.to_snapshot_id, &json);
    json.Key("at").Time(j.at_ms);
    json.Key("row").Int64(static_cast<int64_t>(row));
    json.EndObject();
  }
  json.EndArray();
  json.Key("refs").StartArray();
  for (const auto& [name, ref] : md->refs) {
    json.StartObject();
    json.Key("name").String(name);
    json.Key("type").String(RefType(ref));
    json.Key("snapshot_id");
    WriteId(ref.snapshot_id, &json);
    json.EndObject();
  }
  json.EndArray();
  json.Key("log").StartArray();
  for (const auto& entry : md->snapshot_log) {
    json.StartObject();
    json.Key("made_current_at").Time(entry.timestamp_ms);
    json.Key("snapshot_id");
    WriteId(entry.snapshot_id, &json);
    json.EndObject();
  }
  json.EndArray();
  WriteChanges(table, &json);
  json.EndObject();
  return json.Take();
}

std::string DiffJson(const table::Table& table, const scan::SnapshotDiff& diff,
                     int64_t rows_limit) {
  const spec::TableMetadataPtr md = table.metadata();
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("table").String(table.name());
  json.Key("from");
  WritePoint(*md, diff.from_snapshot_id, &json);
  json.Key("to");
  WritePoint(*md, diff.to_snapshot_id, &json);
  json.Key("columns").Strings(diff.columns);
  json.Key("columns_only_in_from").Strings(diff.columns_only_in_from);
  json.Key("columns_only_in_to").Strings(diff.columns_only_in_to);
  json.Key("added").Int64(diff.added);
  json.Key("removed").Int64(diff.removed);
  json.Key("unchanged_files_skipped").Int64(diff.unchanged_files);
  json.Key("rows_limit").Int64(rows_limit);
  json.Key("added_rows");
  WriteRows(diff.added_sample, &json);
  json.Key("removed_rows");
  WriteRows(diff.removed_sample, &json);
  json.EndObject();
  return json.Take();
}

std::string ChangesJson(const table::Table& table, std::optional<int64_t> from,
                        std::optional<int64_t> to, const arrow::Table& rows, int64_t rows_limit) {
  const spec::TableMetadataPtr md = table.metadata();
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("table").String(table.name());
  json.Key("from");
  if (from) {
    WritePoint(*md, *from, &json);
  } else {
    json.Null();
  }
  json.Key("to");
  if (to) {
    WritePoint(*md, *to, &json);
  } else {
    json.Null();
  }
  std::vector<std::string> columns;
  for (const auto& field : rows.schema()->fields()) columns.push_back(field->name());
  json.Key("columns").Strings(columns);
  json.Key("total").Int64(rows.num_rows());
  json.Key("rows_limit").Int64(rows_limit);
  json.Key("rows");
  WriteRows(rows.Slice(0, rows_limit), &json);
  json.EndObject();
  return json.Take();
}

std::string ErrorJson(const std::string& message) {
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject().Key("error").String(message).EndObject();
  return json.Take();
}

}  // namespace floe::server::http
