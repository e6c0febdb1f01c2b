// JSON read/write of table metadata, schemas, partition specs and sort orders, in the shapes
// of the spec's Appendix C and Java's *Parser classes (field order, optional fields and error
// wording follow Java 1.10 so files and messages look familiar).

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "floe/spec/table_metadata.h"
#include "floe/util/utf8.h"

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

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

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

Result<std::shared_ptr<TableMetadata>> MetadataFromValue(const Value& node) {
  if (!node.IsObject()) {
    return ValidationError("Cannot parse metadata from a non-object: ", Describe(node));
  }
  auto md = std::make_shared<TableMetadata>();
  ARROW_ASSIGN_OR_RAISE(md->format_version, GetInt(node, "format-version"));
  const int v = md->format_version;
  if (v < 1 || v > 2) return ValidationError("Cannot read unsupported version ", v);

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

// Parses `json` into `doc` in situ: `buffer` receives a copy that the document's strings
// point into, which saves copying every string into the DOM (metadata files with many
// snapshots are mostly strings). Iterative parsing, so deeply nested input cannot overflow
// the stack.
Status ParseDocument(std::string_view json, std::string* buffer, rapidjson::Document* doc) {
  // Invalid UTF-8 means a damaged file; Java's parser rejects it too. Checked up front:
  // RapidJSON's own validation is several times slower than this ASCII-first scan.
  size_t bad = 0;
  if (!IsValidUtf8(json, &bad)) {
    return ValidationError("Invalid JSON at byte offset ", bad, ": invalid UTF-8");
  }
  // In-situ parsing stops at a NUL byte; reject one rather than ignore what follows it.
  // Other control characters are never valid JSON outside an escape, but RapidJSON 1.1's
  // SSE2 string scan lets 0x1A-0x1F through unescaped (and its writer writes them back
  // unescaped, which its scalar reader then rejects), so check them here too.
  // RapidJSON 1.1 also decodes a lone low surrogate escape (\uDC00-\uDFFF) into bytes
  // that are not UTF-8, so find those too; a high surrogate it checks itself.
  auto hex4 = [&](size_t at) -> int {
    if (at + 4 > json.size()) return -1;
    int v = 0;
    for (size_t k = at; k < at + 4; ++k) {
      const char h = json[k];
      const int d = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  };
  for (size_t i = 0; i < json.size(); ++i) {
    const auto c = static_cast<unsigned char>(json[i]);
    if (c == '\\') {
      const int unit = i + 1 < json.size() && json[i + 1] == 'u' ? hex4(i + 2) : -1;
      if (unit >= 0xDC00 && unit <= 0xDFFF) {
        return ValidationError("Invalid JSON at byte offset ", i,
                               ": the surrogate pair in string is invalid");
      }
      const bool pair = unit >= 0xD800 && unit <= 0xDBFF && i + 7 < json.size() &&
                        json[i + 6] == '\\' && json[i + 7] == 'u' && hex4(i + 8) >= 0xDC00 &&
                        hex4(i + 8) <= 0xDFFF;
      i += pair ? 11 : unit >= 0 ? 5 : 1;  // past the escape (or the escaped character)
      continue;
    }
    if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') continue;
    if (c == 0) return ValidationError("Invalid JSON at byte offset ", i, ": NUL character");
    static constexpr char kHex[] = "0123456789ABCDEF";
    return ValidationError("Invalid JSON at byte offset ", i, ": unescaped control character 0x",
                           kHex[c >> 4], kHex[c & 0xF]);
  }
  // RapidJSON's SIMD whitespace skipping loads aligned 16-byte blocks that can run past the
  // terminator; padding keeps those loads inside the allocation.
  buffer->reserve(json.size() + 16);
  buffer->assign(json.data(), json.size());
  buffer->append(16, '\0');
  doc->ParseInsitu<rapidjson::kParseIterativeFlag>(buffer->data());
  if (doc->HasParseError()) {
    return ValidationError("Invalid JSON at byte offset ", doc->GetErrorOffset(), ": ",
                           rapidjson::GetParseError_En(doc->GetParseError()));
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Writing

void WriteString(JsonWriter* w, std::string_view s) {
  bool has_control = false;
  for (char c : s) has_control |= static_cast<unsigned char>(c) < 0x20;
  if (!has_control) {
    w->String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    return;
  }
  // RapidJSON 1.1's SSE2 writer leaves 0x1A-0x1F unescaped; escape such strings here.
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  w->RawValue(out.data(), out.size(), rapidjson::kStringType);
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
  for (const auto& s : md.partition_statistics) {
    w->StartObject();
    w->Key("snapshot-id");
    w->Int64(s.snapshot_id);
    w->Key("statistics-path");
    WriteString(w, s.statistics_path);
    w->Key("file-size-in-bytes");
    w->Int64(s.file_size_in_bytes);
    w->EndObject();
  }
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

Result<std::shared_ptr<TableMetadata>> ParseTableMetadata(std::string_view json,
                                                          const std::string& location) {
  std::string buffer;
  rapidjson::Document doc;
  Status st = ParseDocument(json, &buffer, &doc);
  Result<std::shared_ptr<TableMetadata>> result =
      st.ok() ? MetadataFromValue(doc) : Result<std::shared_ptr<TableMetadata>>(st);
  if (!result.ok()) {
    return ValidationError("Cannot parse table metadata", location.empty() ? "" : " ", location,
                           ": ", result.status().message());
  }
  return result;
}

std::string WriteTableMetadata(const TableMetadata& metadata, bool pretty) {
  std::string compact = Render([&](JsonWriter* w) { WriteMetadata(w, metadata); });
  return pretty ? JacksonPretty(compact) : compact;
}

std::string SchemaToJson(const Schema& schema) {
  return Render([&](JsonWriter* w) { WriteSchema(w, schema); });
}

Result<SchemaPtr> SchemaFromJson(std::string_view json) {
  std::string buffer;
  rapidjson::Document doc;
  Status st = ParseDocument(json, &buffer, &doc);
  auto result = st.ok() ? SchemaFromValue(doc) : Result<SchemaPtr>(st);
  if (!result.ok()) {
    return ValidationError("Cannot parse schema: ", result.status().message());
  }
  return result;
}

std::string PartitionSpecToJson(const PartitionSpec& spec) {
  return Render([&](JsonWriter* w) { WritePartitionSpec(w, spec); });
}

std::string PartitionFieldsToJson(const PartitionSpec& spec) {
  return Render([&](JsonWriter* w) { WritePartitionFields(w, spec); });
}

Result<PartitionSpec> PartitionSpecFromJson(std::string_view json) {
  std::string buffer;
  rapidjson::Document doc;
  Status st = ParseDocument(json, &buffer, &doc);
  Result<PartitionSpec> result = st.ok() ? PartitionSpecFromValue(doc) : Result<PartitionSpec>(st);
  if (!result.ok()) {
    return ValidationError("Cannot parse partition spec: ", result.status().message());
  }
  return result;
}

}  // namespace floe::spec
