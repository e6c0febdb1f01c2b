// Reading table metadata, schemas, partition specs and sort orders from JSON, in the shapes of
// the spec's Appendix C and Java's *Parser classes (optional fields and error wording follow
// Java 1.10 so messages look familiar).

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "floe/spec/json_document.h"
#include "floe/spec/metadata_json_values.h"
#include "floe/spec/table_metadata.h"

namespace floe::spec {

namespace {

using rapidjson::Value;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// Deep enough for any real schema, shallow enough that recursion cannot exhaust the stack.
constexpr int kMaxDepth = 200;
constexpr size_t kMaxDescribed = 200;

// ---------------------------------------------------------------------------------------
// Reading helpers

// Compact JSON of `v`; depth-limited and recursive only up to kMaxDepth.
bool WriteValue(const Value& v, JsonWriter* w, int depth) {
  if (depth > kMaxDepth) return false;
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return w->Null();
    case rapidjson::kFalseType:
      return w->Bool(false);
    case rapidjson::kTrueType:
      return w->Bool(true);
    case rapidjson::kStringType:
      return w->String(v.GetString(), v.GetStringLength());
    case rapidjson::kNumberType:
      if (v.IsInt64()) return w->Int64(v.GetInt64());
      if (v.IsUint64()) return w->Uint64(v.GetUint64());
      return w->Double(v.GetDouble());
    case rapidjson::kObjectType:
      w->StartObject();
      for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
        w->Key(m->name.GetString(), m->name.GetStringLength());
        if (!WriteValue(m->value, w, depth + 1)) return false;
      }
      return w->EndObject();
    case rapidjson::kArrayType:
      w->StartArray();
      for (const auto& e : v.GetArray()) {
        if (!WriteValue(e, w, depth + 1)) return false;
      }
      return w->EndArray();
  }
  return false;
}

// The offending value for messages, cut short.
std::string Describe(const Value& v) {
  if (v.IsObject()) return v.MemberCount() == 0 ? "{}" : "{...}";
  if (v.IsArray()) return v.Empty() ? "[]" : "[...]";
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  WriteValue(v, &writer, 0);
  std::string out(buffer.GetString(), buffer.GetSize());
  if (out.size() > kMaxDescribed) out = out.substr(0, kMaxDescribed) + "...";
  return out;
}

std::string_view Str(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

const Value* Find(const Value& obj, const char* name) {
  auto it = obj.FindMember(name);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

const Value* FindNonNull(const Value& obj, const char* name) {
  const Value* v = Find(obj, name);
  return v == nullptr || v->IsNull() ? nullptr : v;
}

Result<const Value*> Get(const Value& obj, const char* name) {
  const Value* v = FindNonNull(obj, name);
  if (v == nullptr) return ValidationError("Cannot parse missing field: ", name);
  return v;
}

Status NotInt(const char* name, const Value& v) {
  return ValidationError("Cannot parse to an integer value: ", name, ": ", Describe(v));
}
Status NotLong(const char* name, const Value& v) {
  return ValidationError("Cannot parse to a long value: ", name, ": ", Describe(v));
}

Result<int32_t> GetInt(const Value& obj, const char* name) {
  const Value* v = Find(obj, name);
  if (v == nullptr) return ValidationError("Cannot parse missing int: ", name);
  if (!v->IsInt()) return NotInt(name, *v);
  return v->GetInt();
}

Result<std::optional<int32_t>> GetIntOrNull(const Value& obj, const char* name) {
  const Value* v = FindNonNull(obj, name);
  if (v == nullptr) return std::optional<int32_t>();
  if (!v->IsInt()) return NotInt(name, *v);
  return std::optional<int32_t>(v->GetInt());
}

Result<int64_t> GetLong(const Value& obj, const char* name) {
  const Value* v = Find(obj, name);
  if (v == nullptr) return ValidationError("Cannot parse missing long: ", name);
  if (!v->IsInt64()) return NotLong(name, *v);
  return v->GetInt64();
}

Result<std::optional<int64_t>> GetLongOrNull(const Value& obj, const char* name) {
  const Value* v = FindNonNull(obj, name);
  if (v == nullptr) return std::optional<int64_t>();
  if (!v->IsInt64()) return NotLong(name, *v);
  return std::optional<int64_t>(v->GetInt64());
}

Result<bool> GetBool(const Value& obj, const char* name) {
  const Value* v = Find(obj, name);
  if (v == nullptr) return ValidationError("Cannot parse missing boolean: ", name);
  if (!v->IsBool()) {
    return ValidationError("Cannot parse to a boolean value: ", name, ": ", Describe(*v));
  }
  return v->GetBool();
}

Result<std::string_view> GetString(const Value& obj, const char* name) {
  const Value* v = Find(obj, name);
  if (v == nullptr) return ValidationError("Cannot parse missing string: ", name);
  if (!v->IsString()) {
    return ValidationError("Cannot parse to a string value: ", name, ": ", Describe(*v));
  }
  return Str(*v);
}

Result<std::optional<std::string_view>> GetStringOrNull(const Value& obj, const char* name) {
  const Value* v = FindNonNull(obj, name);
  if (v == nullptr) return std::optional<std::string_view>();
  if (!v->IsString()) {
    return ValidationError("Cannot parse to a string value: ", name, ": ", Describe(*v));
  }
  return std::optional<std::string_view>(Str(*v));
}

Status ReadStringMap(const Value& v, const char* name, std::map<std::string, std::string>* out) {
  if (!v.IsObject()) {
    return ValidationError("Cannot parse string map from non-object value: ", name, ": ",
                           Describe(v));
  }
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    if (!m->value.IsString()) {
      return ValidationError("Cannot parse to a string value: ", Str(m->name), ": ",
                             Describe(m->value));
    }
    // Writers usually emit keys sorted, so hinting at the end makes this linear.
    out->emplace_hint(out->end(), Str(m->name), Str(m->value));
  }
  return Status::OK();
}

Result<std::vector<int32_t>> ReadIntList(const Value& v, const char* name) {
  if (!v.IsArray()) {
    return ValidationError("Cannot parse JSON array from non-array value: ", name, ": ",
                           Describe(v));
  }
  std::vector<int32_t> out;
  out.reserve(v.Size());
  for (const auto& e : v.GetArray()) {
    if (!e.IsInt()) {
      return ValidationError("Cannot parse integer from non-int value in ", name, ": ",
                             Describe(e));
    }
    out.push_back(e.GetInt());
  }
  return out;
}

Status RequireObject(const Value& v, const char* what) {
  if (!v.IsObject())
    return ValidationError("Cannot parse ", what, " from non-object: ", Describe(v));
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Schemas

Result<TypePtr> TypeFromJson(const Value& json, int depth);

Result<std::string> RawJson(const Value& v) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  if (!WriteValue(v, &writer, 0)) return ValidationError("Default value is nested too deeply");
  return std::string(buffer.GetString(), buffer.GetSize());
}

Result<TypePtr> StructFromJson(const Value& json, int depth) {
  const Value* fields = Find(json, "fields");
  if (fields == nullptr) return ValidationError("Cannot parse missing field: fields");
  if (!fields->IsArray()) {
    return ValidationError("Cannot parse struct fields from non-array: ", Describe(*fields));
  }
  std::vector<NestedField> out;
  out.reserve(fields->Size());
  for (const auto& f : fields->GetArray()) {
    if (!f.IsObject()) {
      return ValidationError("Cannot parse struct field from non-object: ", Describe(f));
    }
    NestedField field;
    ARROW_ASSIGN_OR_RAISE(field.id, GetInt(f, "id"));
    ARROW_ASSIGN_OR_RAISE(std::string_view name, GetString(f, "name"));
    field.name = std::string(name);
    ARROW_ASSIGN_OR_RAISE(const Value* type, Get(f, "type"));
    ARROW_ASSIGN_OR_RAISE(field.type, TypeFromJson(*type, depth + 1));
    if (const Value* d = Find(f, "initial-default")) {
      ARROW_ASSIGN_OR_RAISE(field.initial_default_json, RawJson(*d));
    }
    if (const Value* d = Find(f, "write-default")) {
      ARROW_ASSIGN_OR_RAISE(field.write_default_json, RawJson(*d));
    }
    ARROW_ASSIGN_OR_RAISE(auto doc, GetStringOrNull(f, "doc"));
    if (doc) field.doc = std::string(*doc);
    ARROW_ASSIGN_OR_RAISE(field.required, GetBool(f, "required"));
    out.push_back(std::move(field));
  }
  return Type::Struct(std::move(out));
}

Result<TypePtr> TypeFromJson(const Value& json, int depth) {
  if (depth > kMaxDepth) return ValidationError("Cannot parse type: nested too deeply");
  if (json.IsString()) return Type::ParsePrimitive(Str(json));
  if (json.IsObject()) {
    const Value* type = Find(json, "type");
    if (type != nullptr && type->IsString()) {
      std::string_view kind = Str(*type);
      if (kind == "struct") return StructFromJson(json, depth);
      if (kind == "list") {
        ARROW_ASSIGN_OR_RAISE(int32_t element_id, GetInt(json, "element-id"));
        ARROW_ASSIGN_OR_RAISE(const Value* element, Get(json, "element"));
        ARROW_ASSIGN_OR_RAISE(TypePtr element_type, TypeFromJson(*element, depth + 1));
        ARROW_ASSIGN_OR_RAISE(bool required, GetBool(json, "element-required"));
        return Type::List(element_id, std::move(element_type), required);
      }
      if (kind == "map") {
        ARROW_ASSIGN_OR_RAISE(int32_t key_id, GetInt(json, "key-id"));
        ARROW_ASSIGN_OR_RAISE(const Value* key, Get(json, "key"));
        ARROW_ASSIGN_OR_RAISE(TypePtr key_type, TypeFromJson(*key, depth + 1));
        ARROW_ASSIGN_OR_RAISE(int32_t value_id, GetInt(json, "value-id"));
        ARROW_ASSIGN_OR_RAISE(const Value* value, Get(json, "value"));
        ARROW_ASSIGN_OR_RAISE(TypePtr value_type, TypeFromJson(*value, depth + 1));
        ARROW_ASSIGN_OR_RAISE(bool required, GetBool(json, "value-required"));
        return Type::Map(key_id, std::move(key_type), value_id, std::move(value_type), required);
      }
    }
  }
  return ValidationError("Cannot parse type from json: ", Describe(json));
}

// Readers resolve columns by field id, so an id used twice (at any depth) would read one
// column's data as another's.
Status CheckUniqueFieldIds(const std::vector<NestedField>& fields, const std::string& prefix,
                           int32_t schema_id, std::unordered_map<int32_t, std::string>* seen) {
  for (const auto& f : fields) {
    std::string name = prefix.empty() ? f.name : prefix + "." + f.name;
    auto [it, inserted] = seen->emplace(f.id, name);
    if (!inserted) {
      return ValidationError("Invalid schema ", schema_id, ": field id ", f.id,
                             " is used by both '", it->second, "' and '", name, "'");
    }
    if (f.type && f.type->is_nested()) {
      ARROW_RETURN_NOT_OK(CheckUniqueFieldIds(f.type->fields(), name, schema_id, seen));
    }
  }
  return Status::OK();
}

}  // namespace

Result<SchemaPtr> SchemaFromValue(const Value& json) {
  ARROW_ASSIGN_OR_RAISE(TypePtr type, TypeFromJson(json, 0));
  if (type->id() != TypeId::kStruct) {
    return ValidationError("Cannot create schema, not a struct type: ", type->ToString());
  }
  ARROW_ASSIGN_OR_RAISE(auto schema_id, GetIntOrNull(json, "schema-id"));
  std::unordered_map<int32_t, std::string> seen_ids;
  ARROW_RETURN_NOT_OK(CheckUniqueFieldIds(type->fields(), "", schema_id.value_or(0), &seen_ids));
  std::vector<int32_t> identifier_ids;
  if (const Value* ids = FindNonNull(json, "identifier-field-ids")) {
    ARROW_ASSIGN_OR_RAISE(identifier_ids, ReadIntList(*ids, "identifier-field-ids"));
  }
  return std::make_shared<const Schema>(schema_id.value_or(0), type->fields(),
                                        std::move(identifier_ids));
}

// ---------------------------------------------------------------------------------------
// Partition specs and sort orders

Result<std::vector<PartitionField>> PartitionFieldsFromValue(const Value& json) {
  if (!json.IsArray()) {
    return ValidationError("Cannot parse partition spec fields, not an array: ", Describe(json));
  }
  std::vector<PartitionField> fields;
  fields.reserve(json.Size());
  size_t with_ids = 0;
  for (const auto& e : json.GetArray()) {
    if (!e.IsObject()) {
      return ValidationError("Cannot parse partition field, not an object: ", Describe(e));
    }
    PartitionField field;
    ARROW_ASSIGN_OR_RAISE(std::string_view name, GetString(e, "name"));
    field.name = std::string(name);
    ARROW_ASSIGN_OR_RAISE(std::string_view transform, GetString(e, "transform"));
    ARROW_ASSIGN_OR_RAISE(field.transform, Transform::Parse(transform));
    ARROW_ASSIGN_OR_RAISE(field.source_id, GetInt(e, "source-id"));
    if (Find(e, "field-id") != nullptr) {
      ARROW_ASSIGN_OR_RAISE(field.field_id, GetInt(e, "field-id"));
      ++with_ids;
    }
    fields.push_back(std::move(field));
  }
  if (with_ids != 0 && with_ids != fields.size()) {
    return ValidationError("Cannot parse spec with missing field IDs: ", fields.size() - with_ids,
                           " missing of ", fields.size(), " fields.");
  }
  if (with_ids == 0) {
    // v1 writers left ids out; the reference implementation numbered them from 1000.
    for (size_t i = 0; i < fields.size(); ++i) {
      fields[i].field_id = kFirstPartitionFieldId + static_cast<int32_t>(i);
    }
  }
  return fields;
}

Result<PartitionSpec> PartitionSpecFromValue(const Value& json) {
  if (!json.IsObject()) {
    return ValidationError("Cannot parse spec from non-object: ", Describe(json));
  }
  ARROW_ASSIGN_OR_RAISE(int32_t spec_id, GetInt(json, "spec-id"));
  ARROW_ASSIGN_OR_RAISE(const Value* fields, Get(json, "fields"));
  ARROW_ASSIGN_OR_RAISE(auto parsed, PartitionFieldsFromValue(*fields));
  return PartitionSpec(spec_id, std::move(parsed));
}

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

Result<SortOrder> SortOrderFromValue(const Value& json) {
  if (!json.IsObject()) {
    return ValidationError("Cannot parse sort order from non-object: ", Describe(json));
  }
  SortOrder order;
  ARROW_ASSIGN_OR_RAISE(order.order_id, GetInt(json, "order-id"));
  ARROW_ASSIGN_OR_RAISE(const Value* fields, Get(json, "fields"));
  if (!fields->IsArray()) {
    return ValidationError("Cannot parse sort order fields, not an array: ", Describe(*fields));
  }
  order.fields.reserve(fields->Size());
  for (const auto& e : fields->GetArray()) {
    if (!e.IsObject()) {
      return ValidationError("Cannot parse sort field, not an object: ", Describe(e));
    }
    SortField field;
    ARROW_ASSIGN_OR_RAISE(std::string_view transform, GetString(e, "transform"));
    ARROW_ASSIGN_OR_RAISE(field.transform, Transform::Parse(transform));
    ARROW_ASSIGN_OR_RAISE(field.source_id, GetInt(e, "source-id"));
    ARROW_ASSIGN_OR_RAISE(std::string_view direction, GetString(e, "direction"));
    if (EqualsIgnoreCase(direction, "asc")) {
      field.direction = SortDirection::kAsc;
    } else if (EqualsIgnoreCase(direction, "desc")) {
      field.direction = SortDirection::kDesc;
    } else {
      return ValidationError("Invalid sort direction: ", direction);
    }
    ARROW_ASSIGN_OR_RAISE(std::string_view null_order, GetString(e, "null-order"));
    if (EqualsIgnoreCase(null_order, "nulls-first")) {
      field.null_order = NullOrder::kNullsFirst;
    } else if (EqualsIgnoreCase(null_order, "nulls-last")) {
      field.null_order = NullOrder::kNullsLast;
    } else {
      return ValidationError("Unexpected null order: ", null_order);
    }
    order.fields.push_back(std::move(field));
  }
  return order;
}

// ---------------------------------------------------------------------------------------
// Snapshots, refs, statistics

Status SnapshotFromValue(const Value& json, Snapshot* out) {
  if (!json.IsObject()) {
    return ValidationError("Cannot parse table version from a non-object: ", Describe(json));
  }
  // One pass over the members: this runs once per snapshot, so it is the hot loop.
  bool has_id = false;
  bool has_timestamp = false;
  bool has_manifest_list = false;
  const Value* manifests = nullptr;
  const Value* summary = nullptr;
  for (auto m = json.MemberBegin(); m != json.MemberEnd(); ++m) {
    std::string_view key = Str(m->name);
    const Value& v = m->value;
    if (key == "snapshot-id") {
      if (!v.IsInt64()) return NotLong("snapshot-id", v);
      out->snapshot_id = v.GetInt64();
      has_id = true;
    } else if (key == "timestamp-ms") {
      if (!v.IsInt64()) return NotLong("timestamp-ms", v);
      out->timestamp_ms = v.GetInt64();
      has_timestamp = true;
    } else if (key == "sequence-number") {
      if (!v.IsInt64()) return NotLong("sequence-number", v);
      out->sequence_number = v.GetInt64();
    } else if (key == "parent-snapshot-id") {
      if (v.IsNull()) continue;
      if (!v.IsInt64()) return NotLong("parent-snapshot-id", v);
      out->parent_snapshot_id = v.GetInt64();
    } else if (key == "manifest-list") {
      if (!v.IsString()) {
        return ValidationError("Cannot parse to a string value: manifest-list: ", Describe(v));
      }
      out->manifest_list = std::string(Str(v));
      has_manifest_list = true;
    } else if (key == "manifests") {
      manifests = &v;
    } else if (key == "summary") {
      summary = &v;
    } else if (key == "schema-id") {
      if (v.IsNull()) continue;
      if (!v.IsInt()) return NotInt("schema-id", v);
      out->schema_id = v.GetInt();
    } else if (key == "first-row-id") {
      if (v.IsNull()) continue;
      if (!v.IsInt64()) return NotLong("first-row-id", v);
      out->first_row_id = v.GetInt64();
    } else if (key == "added-rows") {
      if (v.IsNull()) continue;
      if (!v.IsInt64()) return NotLong("added-rows", v);
      out->added_rows = v.GetInt64();
    } else if (key == "key-id") {
      if (v.IsNull()) continue;
      if (!v.IsString()) {
        return ValidationError("Cannot parse to a string value: key-id: ", Describe(v));
      }
      out->key_id = std::string(Str(v));
    }
  }
  if (!has_id) return ValidationError("Cannot parse missing long: snapshot-id");
  if (!has_timestamp) return ValidationError("Cannot parse missing long: timestamp-ms");
  if (summary != nullptr) {
    if (!summary->IsObject()) {
      return ValidationError("Cannot parse summary from non-object value: ", Describe(*summary));
    }
    for (auto m = summary->MemberBegin(); m != summary->MemberEnd(); ++m) {
      if (!m->value.IsString()) {
        return ValidationError("Cannot parse to a string value: ", Str(m->name), ": ",
                               Describe(m->value));
      }
      std::string_view key = Str(m->name);
      if (key == "operation") {
        out->operation = std::string(Str(m->value));
      } else {
        out->summary.emplace_hint(out->summary.end(), key, Str(m->value));
      }
    }
    // Java reads a summary without `operation` as an overwrite.
    if (out->operation.empty() && summary->MemberCount() > 0) out->operation = "overwrite";
  }
  if (!has_manifest_list) {
    if (manifests == nullptr || manifests->IsNull()) {
      return ValidationError("Cannot parse missing list: manifests");
    }
    if (!manifests->IsArray()) {
      return ValidationError("Cannot parse string array from non-array: ", Describe(*manifests));
    }
    out->v1_manifests.reserve(manifests->Size());
    for (const auto& e : manifests->GetArray()) {
      if (!e.IsString()) {
        return ValidationError("Cannot parse string from non-text value in manifests: ",
                               Describe(e));
      }
      out->v1_manifests.emplace_back(Str(e));
    }
  }
  return Status::OK();
}

Result<SnapshotRef> RefFromValue(const Value& json) {
  if (!json.IsObject()) {
    return ValidationError("Cannot parse snapshot reference from a non-object: ", Describe(json));
  }
  SnapshotRef ref;
  ARROW_ASSIGN_OR_RAISE(ref.snapshot_id, GetLong(json, "snapshot-id"));
  ARROW_ASSIGN_OR_RAISE(std::string_view type, GetString(json, "type"));
  if (EqualsIgnoreCase(type, "branch")) {
    ref.type = SnapshotRefType::kBranch;
  } else if (EqualsIgnoreCase(type, "tag")) {
    ref.type = SnapshotRefType::kTag;
  } else {
    return ValidationError("Invalid snapshot ref type: ", type);
  }
  ARROW_ASSIGN_OR_RAISE(ref.min_snapshots_to_keep, GetIntOrNull(json, "min-snapshots-to-keep"));
  ARROW_ASSIGN_OR_RAISE(ref.max_snapshot_age_ms, GetLongOrNull(json, "max-snapshot-age-ms"));
  ARROW_ASSIGN_OR_RAISE(ref.max_ref_age_ms, GetLongOrNull(json, "max-ref-age-ms"));
  return ref;
}

Result<StatisticsFile> StatisticsFromValue(const Value& json) {
  ARROW_RETURN_NOT_OK(RequireObject(json, "statistics file"));
  StatisticsFile file;
  ARROW_ASSIGN_OR_RAISE(file.snapshot_id, GetLong(json, "snapshot-id"));
  ARROW_ASSIGN_OR_RAISE(std::string_view path, GetString(json, "statistics-path"));
  file.statistics_path = std::string(path);
  ARROW_ASSIGN_OR_RAISE(file.file_size_in_bytes, GetLong(json, "file-size-in-bytes"));
  ARROW_ASSIGN_OR_RAISE(file.file_footer_size_in_bytes, GetLong(json, "file-footer-size-in-bytes"));
  ARROW_ASSIGN_OR_RAISE(auto key_metadata, GetStringOrNull(json, "key-metadata"));
  if (key_metadata) file.key_metadata = std::string(*key_metadata);
  const Value* blobs = Find(json, "blob-metadata");
  if (blobs == nullptr || !blobs->IsArray()) {
    return ValidationError("Cannot parse blob metadata from non-array: ",
                           blobs == nullptr ? "null" : Describe(*blobs));
  }
  file.blob_metadata.reserve(blobs->Size());
  for (const auto& b : blobs->GetArray()) {
    ARROW_RETURN_NOT_OK(RequireObject(b, "blob metadata"));
    BlobMetadata blob;
    ARROW_ASSIGN_OR_RAISE(std::string_view type, GetString(b, "type"));
    blob.type = std::string(type);
    ARROW_ASSIGN_OR_RAISE(blob.snapshot_id, GetLong(b, "snapshot-id"));
    ARROW_ASSIGN_OR_RAISE(blob.sequence_number, GetLong(b, "sequence-number"));
    const Value* fields = Find(b, "fields");
    if (fields == nullptr) return ValidationError("Cannot parse missing list: fields");
    ARROW_ASSIGN_OR_RAISE(blob.fields, ReadIntList(*fields, "fields"));
    if (const Value* props = FindNonNull(b, "properties")) {
      ARROW_RETURN_NOT_OK(ReadStringMap(*props, "properties", &blob.properties));
    }
    file.blob_metadata.push_back(std::move(blob));
  }
  return file;
}

Result<PartitionStatisticsFile> PartitionStatisticsFromValue(const Value& json) {
  ARROW_RETURN_NOT_OK(RequireObject(json, "partition statistics file"));
  PartitionStatisticsFile file;
  ARROW_ASSIGN_OR_RAISE(file.snapshot_id, GetLong(json, "snapshot-id"));
  ARROW_ASSIGN_OR_RAISE(std::string_view path, GetString(json, "statistics-path"));
  file.statistics_path = std::string(path);
  ARROW_ASSIGN_OR_RAISE(file.file_size_in_bytes, GetLong(json, "file-size-in-bytes"));
  return file;
}

// ---------------------------------------------------------------------------------------
// Table metadata

namespace {

Result<std::shared_ptr<TableMetadata>> MetadataFromValue(const Value& node) {
  if (!node.IsObject()) {
    return ValidationError("Cannot parse metadata from a non-object: ", Describe(node));
  }
  auto md = std::make_shared<TableMetadata>();
  ARROW_ASSIGN_OR_RAISE(md->format_version, GetInt(node, "format-version"));
  const int v = md->format_version;
  if (v < 1 || v > kMaxReadableFormatVersion) {
    return ValidationError("Cannot read unsupported version ", v);
  }

  // table-uuid is optional in v1 and required from v2 (spec: "Table Metadata").
  if (v == 1) {
    ARROW_ASSIGN_OR_RAISE(auto uuid, GetStringOrNull(node, "table-uuid"));
    if (uuid) md->table_uuid = std::string(*uuid);
  } else {
    ARROW_ASSIGN_OR_RAISE(std::string_view uuid, GetString(node, "table-uuid"));
    md->table_uuid = std::string(uuid);
  }
  ARROW_ASSIGN_OR_RAISE(std::string_view location, GetString(node, "location"));
  md->location = std::string(location);
  if (v > 1) {
    ARROW_ASSIGN_OR_RAISE(md->last_sequence_number, GetLong(node, "last-sequence-number"));
  }
  ARROW_ASSIGN_OR_RAISE(md->last_column_id, GetInt(node, "last-column-id"));

  if (const Value* schemas = Find(node, "schemas")) {
    if (!schemas->IsArray()) {
      return ValidationError("Cannot parse schemas from non-array: ", Describe(*schemas));
    }
    ARROW_ASSIGN_OR_RAISE(md->current_schema_id, GetInt(node, "current-schema-id"));
    md->schemas.reserve(schemas->Size());
    for (const auto& s : schemas->GetArray()) {
      ARROW_ASSIGN_OR_RAISE(SchemaPtr schema, SchemaFromValue(s));
      md->schemas.push_back(std::move(schema));
    }
    if (md->SchemaById(md->current_schema_id) == nullptr) {
      return ValidationError("Cannot find schema with current-schema-id=", md->current_schema_id,
                             " from schemas");
    }
  } else {
    if (v != 1) return ValidationError("schemas must exist in format v", v);
    ARROW_ASSIGN_OR_RAISE(const Value* schema_json, Get(node, "schema"));
    ARROW_ASSIGN_OR_RAISE(SchemaPtr schema, SchemaFromValue(*schema_json));
    md->current_schema_id = schema->schema_id();
    md->schemas.push_back(std::move(schema));
  }

  if (const Value* specs = Find(node, "partition-specs")) {
    if (!specs->IsArray()) {
      return ValidationError("Cannot parse partition specs from non-array: ", Describe(*specs));
    }
    ARROW_ASSIGN_OR_RAISE(md->default_spec_id, GetInt(node, "default-spec-id"));
    md->partition_specs.reserve(specs->Size());
    for (const auto& s : specs->GetArray()) {
      ARROW_ASSIGN_OR_RAISE(PartitionSpec spec, PartitionSpecFromValue(s));
      md->partition_specs.push_back(std::move(spec));
    }
    if (md->SpecById(md->default_spec_id) == nullptr) {
      return ValidationError("Cannot find partition spec with default-spec-id=",
                             md->default_spec_id, " from partition-specs");
    }
  } else {
    if (v != 1) return ValidationError("partition-specs must exist in format v", v);
    ARROW_ASSIGN_OR_RAISE(const Value* fields, Get(node, "partition-spec"));
    ARROW_ASSIGN_OR_RAISE(auto parsed, PartitionFieldsFromValue(*fields));
    md->default_spec_id = 0;
    md->partition_specs.emplace_back(0, std::move(parsed));
  }

  ARROW_ASSIGN_OR_RAISE(auto last_partition_id, GetIntOrNull(node, "last-partition-id"));
  if (last_partition_id) {
    md->last_partition_id = *last_partition_id;
  } else {
    if (v != 1) return ValidationError("last-partition-id must exist in format v", v);
    md->last_partition_id = kFirstPartitionFieldId - 1;
    for (const auto& s : md->partition_specs) {
      md->last_partition_id = std::max(md->last_partition_id, s.LastAssignedFieldId());
    }
  }

  if (const Value* orders = Find(node, "sort-orders")) {
    if (!orders->IsArray()) {
      return ValidationError("Cannot parse sort orders from non-array: ", Describe(*orders));
    }
    ARROW_ASSIGN_OR_RAISE(md->default_sort_order_id, GetInt(node, "default-sort-order-id"));
    md->sort_orders.reserve(orders->Size());
    for (const auto& o : orders->GetArray()) {
      ARROW_ASSIGN_OR_RAISE(SortOrder order, SortOrderFromValue(o));
      md->sort_orders.push_back(std::move(order));
    }
    if (md->SortOrderById(md->default_sort_order_id) == nullptr) {
      return ValidationError("Cannot find sort order with default-sort-order-id=",
                             md->default_sort_order_id, " from sort-orders");
    }
  } else {
    if (v != 1) return ValidationError("sort-orders must exist in format v", v);
    md->sort_orders.push_back(SortOrder::Unsorted());
    md->default_sort_order_id = 0;
  }

  if (const Value* props = FindNonNull(node, "properties")) {
    ARROW_RETURN_NOT_OK(ReadStringMap(*props, "properties", &md->properties));
  }

  // Java 1.10 writes -1 for "no current snapshot" in v1/v2 and null from v3; read both.
  ARROW_ASSIGN_OR_RAISE(auto current, GetLongOrNull(node, "current-snapshot-id"));
  if (current && *current != -1) md->current_snapshot_id = *current;

  ARROW_ASSIGN_OR_RAISE(md->last_updated_ms, GetLong(node, "last-updated-ms"));
  if (v >= 3) {
    ARROW_ASSIGN_OR_RAISE(md->next_row_id, GetLong(node, "next-row-id"));
    if (const Value* keys = FindNonNull(node, "encryption-keys")) {
      if (!keys->IsArray()) {
        return ValidationError("Cannot parse encryption-keys from non-array: ", Describe(*keys));
      }
      if (keys->Size() > 0) {
        ARROW_ASSIGN_OR_RAISE(md->encryption_keys_json, RawJson(*keys));
      }
    }
  }

  if (const Value* refs = Find(node, "refs")) {
    if (!refs->IsObject()) {
      return ValidationError("Cannot parse refs from non-object: ", Describe(*refs));
    }
    for (auto m = refs->MemberBegin(); m != refs->MemberEnd(); ++m) {
      ARROW_ASSIGN_OR_RAISE(SnapshotRef ref, RefFromValue(m->value));
      md->refs.emplace(std::string(Str(m->name)), ref);
    }
  } else if (md->current_snapshot_id) {
    // Files written before refs existed: the current snapshot is the main branch.
    SnapshotRef main;
    main.snapshot_id = *md->current_snapshot_id;
    md->refs.emplace(kMainBranch, main);
  }

  if (const Value* snapshots = FindNonNull(node, "snapshots")) {
    if (!snapshots->IsArray()) {
      return ValidationError("Cannot parse snapshots from non-array: ", Describe(*snapshots));
    }
    md->snapshots.resize(snapshots->Size());
    size_t i = 0;
    for (const auto& s : snapshots->GetArray()) {
      ARROW_RETURN_NOT_OK(SnapshotFromValue(s, &md->snapshots[i++]));
    }
  }

  if (const Value* stats = FindNonNull(node, "statistics")) {
    if (!stats->IsArray()) {
      return ValidationError("Cannot parse statistics from non-array: ", Describe(*stats));
    }
    for (const auto& s : stats->GetArray()) {
      ARROW_ASSIGN_OR_RAISE(StatisticsFile file, StatisticsFromValue(s));
      md->statistics.push_back(std::move(file));
    }
  }
  if (const Value* stats = FindNonNull(node, "partition-statistics")) {
    if (!stats->IsArray()) {
      return ValidationError("Cannot parse partition statistics from non-array: ",
                             Describe(*stats));
    }
    for (const auto& s : stats->GetArray()) {
      ARROW_ASSIGN_OR_RAISE(PartitionStatisticsFile file, PartitionStatisticsFromValue(s));
      md->partition_statistics.push_back(std::move(file));
    }
  }

  if (const Value* log = FindNonNull(node, "snapshot-log")) {
    if (!log->IsArray()) {
      return ValidationError("Cannot parse snapshot-log from non-array: ", Describe(*log));
    }
    md->snapshot_log.reserve(log->Size());
    for (const auto& e : log->GetArray()) {
      ARROW_RETURN_NOT_OK(RequireObject(e, "snapshot-log entry"));
      SnapshotLogEntry entry;
      ARROW_ASSIGN_OR_RAISE(entry.timestamp_ms, GetLong(e, "timestamp-ms"));
      ARROW_ASSIGN_OR_RAISE(entry.snapshot_id, GetLong(e, "snapshot-id"));
      md->snapshot_log.push_back(entry);
    }
  }
  if (const Value* log = FindNonNull(node, "metadata-log")) {
    if (!log->IsArray()) {
      return ValidationError("Cannot parse metadata-log from non-array: ", Describe(*log));
    }
    md->metadata_log.reserve(log->Size());
    for (const auto& e : log->GetArray()) {
      ARROW_RETURN_NOT_OK(RequireObject(e, "metadata-log entry"));
      MetadataLogEntry entry;
      ARROW_ASSIGN_OR_RAISE(entry.timestamp_ms, GetLong(e, "timestamp-ms"));
      ARROW_ASSIGN_OR_RAISE(std::string_view file, GetString(e, "metadata-file"));
      entry.metadata_file = std::string(file);
      md->metadata_log.push_back(std::move(entry));
    }
  }

  // Consistency checks Java's TableMetadata makes, with its wording.
  md->IndexSnapshots();
  if (md->current_snapshot_id && md->SnapshotById(*md->current_snapshot_id) == nullptr) {
    return ValidationError("Invalid table metadata: Cannot find current version ",
                           *md->current_snapshot_id);
  }
  for (const auto& [name, ref] : md->refs) {
    if (md->SnapshotById(ref.snapshot_id) == nullptr) {
      return ValidationError("Snapshot for reference ", name, " (snapshot ", ref.snapshot_id,
                             ") does not exist in the existing snapshots list");
    }
  }
  auto main = md->refs.find(kMainBranch);
  if (md->current_snapshot_id) {
    if (main != md->refs.end() && main->second.snapshot_id != *md->current_snapshot_id) {
      return ValidationError("Current snapshot ID does not match main branch (",
                             *md->current_snapshot_id, " != ", main->second.snapshot_id, ")");
    }
  } else if (main != md->refs.end()) {
    return ValidationError("Current snapshot is not set, but main branch exists: snapshot ",
                           main->second.snapshot_id);
  }
  return md;
}

}  // namespace

Result<std::shared_ptr<TableMetadata>> ParseTableMetadata(std::string_view json,
                                                          const std::string& location) {
  std::string buffer;
  rapidjson::Document doc;
  Status st = ParseJsonDocument(json, &buffer, &doc);
  Result<std::shared_ptr<TableMetadata>> result =
      st.ok() ? MetadataFromValue(doc) : Result<std::shared_ptr<TableMetadata>>(st);
  if (!result.ok()) {
    return ValidationError("Cannot parse table metadata", location.empty() ? "" : " ", location,
                           ": ", result.status().message());
  }
  return result;
}

Result<SchemaPtr> SchemaFromJson(std::string_view json) {
  std::string buffer;
  rapidjson::Document doc;
  Status st = ParseJsonDocument(json, &buffer, &doc);
  auto result = st.ok() ? SchemaFromValue(doc) : Result<SchemaPtr>(st);
  if (!result.ok()) {
    return ValidationError("Cannot parse schema: ", result.status().message());
  }
  return result;
}

Result<PartitionSpec> PartitionSpecFromJson(std::string_view json) {
  std::string buffer;
  rapidjson::Document doc;
  Status st = ParseJsonDocument(json, &buffer, &doc);
  Result<PartitionSpec> result = st.ok() ? PartitionSpecFromValue(doc) : Result<PartitionSpec>(st);
  if (!result.ok()) {
    return ValidationError("Cannot parse partition spec: ", result.status().message());
  }
  return result;
}

}  // namespace floe::spec
