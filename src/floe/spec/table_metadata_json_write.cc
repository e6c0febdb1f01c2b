// Writing table metadata, schemas, partition specs and sort orders as JSON, in the shapes of
// the spec's Appendix C with Java's field order and pretty-printing, so files look familiar.

#include <algorithm>
#include <cctype>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "floe/spec/table_metadata.h"

namespace floe::spec {

namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;


void WriteString(JsonWriter* w, std::string_view s) {
  w->String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void WriteType(JsonWriter* w, const Type& type);

void WriteStructFields(JsonWriter* w, const std::vector<NestedField>& fields) {
  w->Key("fields");
  w->StartArray();
  for (const auto& f : fields) {
    w->StartObject();
    w->Key("id");
    w->Int(f.id);
    w->Key("name");
    WriteString(w, f.name);
    w->Key("required");
    w->Bool(f.required);
    w->Key("type");
    WriteType(w, *f.type);
    if (!f.doc.empty()) {
      w->Key("doc");
      WriteString(w, f.doc);
    }
    if (!f.initial_default_json.empty()) {
      w->Key("initial-default");
      w->RawValue(f.initial_default_json.data(), f.initial_default_json.size(),
                  rapidjson::kObjectType);
    }
    if (!f.write_default_json.empty()) {
      w->Key("write-default");
      w->RawValue(f.write_default_json.data(), f.write_default_json.size(), rapidjson::kObjectType);
    }
    w->EndObject();
  }
  w->EndArray();
}

void WriteType(JsonWriter* w, const Type& type) {
  switch (type.id()) {
    case TypeId::kStruct:
      w->StartObject();
      w->Key("type");
      w->String("struct");
      WriteStructFields(w, type.fields());
      w->EndObject();
      return;
    case TypeId::kList:
      w->StartObject();
      w->Key("type");
      w->String("list");
      w->Key("element-id");
      w->Int(type.element().id);
      w->Key("element");
      WriteType(w, *type.element().type);
      w->Key("element-required");
      w->Bool(type.element().required);
      w->EndObject();
      return;
    case TypeId::kMap:
      w->StartObject();
      w->Key("type");
      w->String("map");
      w->Key("key-id");
      w->Int(type.key().id);
      w->Key("key");
      WriteType(w, *type.key().type);
      w->Key("value-id");
      w->Int(type.value().id);
      w->Key("value");
      WriteType(w, *type.value().type);
      w->Key("value-required");
      w->Bool(type.value().required);
      w->EndObject();
      return;
    default:
      WriteString(w, type.ToString());
  }
}

void WriteSchema(JsonWriter* w, const Schema& schema) {
  w->StartObject();
  w->Key("type");
  w->String("struct");
  w->Key("schema-id");
  w->Int(schema.schema_id());
  if (!schema.identifier_field_ids().empty()) {
    w->Key("identifier-field-ids");
    w->StartArray();
    for (int32_t id : schema.identifier_field_ids()) w->Int(id);
    w->EndArray();
  }
  WriteStructFields(w, schema.fields());
  w->EndObject();
}

void WritePartitionFields(JsonWriter* w, const PartitionSpec& spec) {
  w->StartArray();
  for (const auto& f : spec.fields()) {
    w->StartObject();
    w->Key("name");
    WriteString(w, f.name);
    w->Key("transform");
    WriteString(w, f.transform.ToString());
    w->Key("source-id");
    w->Int(f.source_id);
    w->Key("field-id");
    w->Int(f.field_id);
    w->EndObject();
  }
  w->EndArray();
}

void WritePartitionSpec(JsonWriter* w, const PartitionSpec& spec) {
  w->StartObject();
  w->Key("spec-id");
  w->Int(spec.spec_id());
  w->Key("fields");
  WritePartitionFields(w, spec);
  w->EndObject();
}

void WriteSortOrder(JsonWriter* w, const SortOrder& order) {
  w->StartObject();
  w->Key("order-id");
  w->Int(order.order_id);
  w->Key("fields");
  w->StartArray();
  for (const auto& f : order.fields) {
    w->StartObject();
    w->Key("transform");
    WriteString(w, f.transform.ToString());
    w->Key("source-id");
    w->Int(f.source_id);
    w->Key("direction");
    w->String(f.direction == SortDirection::kAsc ? "asc" : "desc");
    w->Key("null-order");
    w->String(f.null_order == NullOrder::kNullsFirst ? "nulls-first" : "nulls-last");
    w->EndObject();
  }
  w->EndArray();
  w->EndObject();
}

void WriteStringMap(JsonWriter* w, const std::map<std::string, std::string>& map) {
  w->StartObject();
  for (const auto& [k, v] : map) {
    WriteString(w, k);
    WriteString(w, v);
  }
  w->EndObject();
}

void WriteSnapshot(JsonWriter* w, const Snapshot& s) {
  w->StartObject();
  if (s.sequence_number > 0) {
    w->Key("sequence-number");
    w->Int64(s.sequence_number);
  }
  w->Key("snapshot-id");
  w->Int64(s.snapshot_id);
  if (s.parent_snapshot_id) {
    w->Key("parent-snapshot-id");
    w->Int64(*s.parent_snapshot_id);
  }
  w->Key("timestamp-ms");
  w->Int64(s.timestamp_ms);
  if (!s.operation.empty()) {
    w->Key("summary");
    w->StartObject();
    w->Key("operation");
    WriteString(w, s.operation);
    for (const auto& [k, v] : s.summary) {
      WriteString(w, k);
      WriteString(w, v);
    }
    w->EndObject();
  }
  if (!s.manifest_list.empty()) {
    w->Key("manifest-list");
    WriteString(w, s.manifest_list);
  } else {
    w->Key("manifests");
    w->StartArray();
    for (const auto& m : s.v1_manifests) WriteString(w, m);
    w->EndArray();
  }
  if (s.schema_id) {
    w->Key("schema-id");
    w->Int(*s.schema_id);
  }
  if (s.first_row_id) {
    w->Key("first-row-id");
    w->Int64(*s.first_row_id);
  }
  if (s.added_rows) {
    w->Key("added-rows");
    w->Int64(*s.added_rows);
  }
  if (s.key_id) {
    w->Key("key-id");
    WriteString(w, *s.key_id);
  }
  w->EndObject();
}

void WriteRef(JsonWriter* w, const SnapshotRef& ref) {
  w->StartObject();
  w->Key("snapshot-id");
  w->Int64(ref.snapshot_id);
  w->Key("type");
  w->String(ref.is_branch() ? "branch" : "tag");
  if (ref.min_snapshots_to_keep) {
    w->Key("min-snapshots-to-keep");
    w->Int(*ref.min_snapshots_to_keep);
  }
  if (ref.max_snapshot_age_ms) {
    w->Key("max-snapshot-age-ms");
    w->Int64(*ref.max_snapshot_age_ms);
  }
  if (ref.max_ref_age_ms) {
    w->Key("max-ref-age-ms");
    w->Int64(*ref.max_ref_age_ms);
  }
  w->EndObject();
}

void WriteStatistics(JsonWriter* w, const StatisticsFile& f) {
  w->StartObject();
  w->Key("snapshot-id");
  w->Int64(f.snapshot_id);
  w->Key("statistics-path");
  WriteString(w, f.statistics_path);
  w->Key("file-size-in-bytes");
  w->Int64(f.file_size_in_bytes);
  w->Key("file-footer-size-in-bytes");
  w->Int64(f.file_footer_size_in_bytes);
  if (!f.key_metadata.empty()) {
    w->Key("key-metadata");
    WriteString(w, f.key_metadata);
  }
  w->Key("blob-metadata");
  w->StartArray();
  for (const auto& b : f.blob_metadata) {
    w->StartObject();
    w->Key("type");
    WriteString(w, b.type);
    w->Key("snapshot-id");
    w->Int64(b.snapshot_id);
    w->Key("sequence-number");
    w->Int64(b.sequence_number);
    w->Key("fields");
    w->StartArray();
    for (int32_t id : b.fields) w->Int(id);
    w->EndArray();
    if (!b.properties.empty()) {
      w->Key("properties");
      WriteStringMap(w, b.properties);
    }
    w->EndObject();
  }
  w->EndArray();
  w->EndObject();
}

void WritePartitionStatistics(JsonWriter* w, const PartitionStatisticsFile& f) {
  w->StartObject();
  w->Key("snapshot-id");
  w->Int64(f.snapshot_id);
  w->Key("statistics-path");
  WriteString(w, f.statistics_path);
  w->Key("file-size-in-bytes");
  w->Int64(f.file_size_in_bytes);
  w->EndObject();
}

void WriteMetadata(JsonWriter* w, const TableMetadata& md) {
  w->StartObject();
  w->Key("format-version");
  w->Int(md.format_version);
  if (md.format_version > 1 || !md.table_uuid.empty()) {
    w->Key("table-uuid");
    WriteString(w, md.table_uuid);
  }
  w->Key("location");
  WriteString(w, md.location);
  if (md.format_version > 1) {
    w->Key("last-sequence-number");
    w->Int64(md.last_sequence_number);
  }
  w->Key("last-updated-ms");
  w->Int64(md.last_updated_ms);
  w->Key("last-column-id");
  w->Int(md.last_column_id);
  // v1 readers only know `schema` and `partition-spec`; Java keeps writing them for v1.
  SchemaPtr current = md.current_schema();
  if (md.format_version == 1 && current) {
    w->Key("schema");
    WriteSchema(w, *current);
  }
  w->Key("current-schema-id");
  w->Int(md.current_schema_id);
  w->Key("schemas");
  w->StartArray();
  for (const auto& s : md.schemas) {
    if (s) WriteSchema(w, *s);
  }
  w->EndArray();
  const PartitionSpec* default_spec = md.default_spec();
  if (md.format_version == 1 && default_spec) {
    w->Key("partition-spec");
    WritePartitionFields(w, *default_spec);
  }
  w->Key("default-spec-id");
  w->Int(md.default_spec_id);
  w->Key("partition-specs");
  w->StartArray();
  for (const auto& s : md.partition_specs) WritePartitionSpec(w, s);
  w->EndArray();
  w->Key("last-partition-id");
  w->Int(md.last_partition_id);
  w->Key("default-sort-order-id");
  w->Int(md.default_sort_order_id);
  w->Key("sort-orders");
  w->StartArray();
  for (const auto& o : md.sort_orders) WriteSortOrder(w, o);
  w->EndArray();
  w->Key("properties");
  WriteStringMap(w, md.properties);
  w->Key("current-snapshot-id");
  if (md.current_snapshot_id) {
    w->Int64(*md.current_snapshot_id);
  } else if (md.format_version >= 3) {
    w->Null();
  } else {
    w->Int64(-1);  // what Java 1.10 writes for v1 and v2 tables without a snapshot
  }
  if (md.format_version >= 3) {
    w->Key("next-row-id");
    w->Int64(md.next_row_id);
  }
  if (!md.encryption_keys_json.empty()) {
    w->Key("encryption-keys");
    w->RawValue(md.encryption_keys_json.data(), md.encryption_keys_json.size(),
                rapidjson::kArrayType);
  }
  w->Key("refs");
  w->StartObject();
  for (const auto& [name, ref] : md.refs) {
    WriteString(w, name);
    WriteRef(w, ref);
  }
  w->EndObject();
  w->Key("snapshots");
  w->StartArray();
  for (const auto& s : md.snapshots) WriteSnapshot(w, s);
  w->EndArray();
  w->Key("statistics");
  w->StartArray();
  for (const auto& s : md.statistics) WriteStatistics(w, s);
  w->EndArray();
  w->Key("partition-statistics");
  w->StartArray();
  for (const auto& s : md.partition_statistics) WritePartitionStatistics(w, s);
  w->EndArray();
  w->Key("snapshot-log");
  w->StartArray();
  for (const auto& e : md.snapshot_log) {
    w->StartObject();
    w->Key("timestamp-ms");
    w->Int64(e.timestamp_ms);
    w->Key("snapshot-id");
    w->Int64(e.snapshot_id);
    w->EndObject();
  }
  w->EndArray();
  w->Key("metadata-log");
  w->StartArray();
  for (const auto& e : md.metadata_log) {
    w->StartObject();
    w->Key("timestamp-ms");
    w->Int64(e.timestamp_ms);
    w->Key("metadata-file");
    WriteString(w, e.metadata_file);
    w->EndObject();
  }
  w->EndArray();
  w->EndObject();
}

// Re-lays compact JSON out the way Jackson's DefaultPrettyPrinter does (what Java uses for
// metadata files): `"key" : value`, objects one entry per line indented by two spaces,
// arrays inline as `[ a, b ]`, empty containers as `{ }` and `[ ]`.
std::string JacksonPretty(std::string_view compact) {
  struct Frame {
    bool is_object;
    size_t count;
  };
  std::string out;
  out.reserve(compact.size() + compact.size() / 2);
  std::vector<Frame> stack;
  int nesting = 0;
  bool after_colon = false;
  auto newline = [&](int level) {
    out.push_back('\n');
    out.append(static_cast<size_t>(level) * 2, ' ');
  };
  auto begin_element = [&]() {
    if (!after_colon && !stack.empty()) {
      Frame& top = stack.back();
      if (top.count == 0) {
        if (top.is_object) {
          newline(nesting);
        } else {
          out.push_back(' ');
        }
      }
      ++top.count;
    }
    after_colon = false;
  };
  for (size_t i = 0; i < compact.size(); ++i) {
    char c = compact[i];
    switch (c) {
      case '{':
        begin_element();
        out.push_back('{');
        ++nesting;
        stack.push_back({true, 0});
        break;
      case '[':
        begin_element();
        out.push_back('[');
        stack.push_back({false, 0});
        break;
      case '}':
        --nesting;
        if (stack.back().count > 0) {
          newline(nesting);
        } else {
          out.push_back(' ');
        }
        out.push_back('}');
        stack.pop_back();
        break;
      case ']':
        out.push_back(' ');
        out.push_back(']');
        stack.pop_back();
        break;
      case ',':
        out.push_back(',');
        if (stack.back().is_object) {
          newline(nesting);
        } else {
          out.push_back(' ');
        }
        break;
      case ':':
        out += " : ";
        after_colon = true;
        break;
      case '"': {
        begin_element();
        size_t end = i + 1;
        while (end < compact.size() && compact[end] != '"') end += compact[end] == '\\' ? 2 : 1;
        out.append(compact.substr(i, end - i + 1));
        i = end;
        break;
      }
      default: {
        begin_element();
        size_t end = i;
        while (end < compact.size() && compact[end] != ',' && compact[end] != ']' &&
               compact[end] != '}' && compact[end] != ':') {
          ++end;
        }
        out.append(compact.substr(i, end - i));
        i = end - 1;
      }
    }
  }
  return out;
}

template <typename Fn>
std::string Render(Fn&& fn) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  fn(&writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

std::string WriteTableMetadata(const TableMetadata& metadata, bool pretty) {
  std::string compact = Render([&](JsonWriter* w) { WriteMetadata(w, metadata); });
  return pretty ? JacksonPretty(compact) : compact;
}

std::string SchemaToJson(const Schema& schema) {
  return Render([&](JsonWriter* w) { WriteSchema(w, schema); });
}

std::string PartitionSpecToJson(const PartitionSpec& spec) {
  return Render([&](JsonWriter* w) { WritePartitionSpec(w, spec); });
}

std::string PartitionFieldsToJson(const PartitionSpec& spec) {
  return Render([&](JsonWriter* w) { WritePartitionFields(w, spec); });
}

std::string SortOrderToJson(const SortOrder& order) {
  return Render([&](JsonWriter* w) { WriteSortOrder(w, order); });
}

std::string SnapshotToJson(const Snapshot& snapshot) {
  return Render([&](JsonWriter* w) { WriteSnapshot(w, snapshot); });
}

std::string RefToJson(const SnapshotRef& ref) {
  return Render([&](JsonWriter* w) { WriteRef(w, ref); });
}

std::string StatisticsToJson(const StatisticsFile& file) {
  return Render([&](JsonWriter* w) { WriteStatistics(w, file); });
}

std::string PartitionStatisticsToJson(const PartitionStatisticsFile& file) {
  return Render([&](JsonWriter* w) { WritePartitionStatistics(w, file); });
}

}  // namespace floe::spec
