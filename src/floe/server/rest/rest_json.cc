#include "floe/server/rest/rest_json.h"

#include <set>
#include <type_traits>

#include <rapidjson/document.h>

#include "floe/spec/json_document.h"
#include "floe/spec/metadata_json_values.h"

namespace floe::server::rest {

namespace {

Status ParseObject(std::string_view body, std::string* buffer, rapidjson::Document* doc) {
  Status parsed = spec::ParseJsonDocument(body, buffer, doc);
  if (!parsed.ok()) return Status::Invalid("Malformed request body: ", parsed.message());
  if (!doc->IsObject()) return Status::Invalid("Malformed request body: expected a JSON object");
  return Status::OK();
}

Result<std::vector<std::string>> StringList(const rapidjson::Value& value, const char* field) {
  if (!value.IsArray())
    return Status::Invalid("Cannot parse ", field, ": expected a list of strings");
  std::vector<std::string> out;
  for (const auto& item : value.GetArray()) {
    if (!item.IsString())
      return Status::Invalid("Cannot parse ", field, ": expected a list of strings");
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

Result<NamespaceProperties> StringMap(const rapidjson::Value& value, const char* field) {
  if (!value.IsObject())
    return Status::Invalid("Cannot parse ", field, ": expected a map of strings");
  NamespaceProperties out;
  for (const auto& member : value.GetObject()) {
    if (!member.value.IsString()) {
      return Status::Invalid("Cannot parse ", field, ": the value of '",
                             std::string(member.name.GetString(), member.name.GetStringLength()),
                             "' is not a string");
    }
    out[std::string(member.name.GetString(), member.name.GetStringLength())] =
        std::string(member.value.GetString(), member.value.GetStringLength());
  }
  return out;
}

std::string_view Str(const rapidjson::Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

// The member `name` of `object` when present and not null.
const rapidjson::Value* Optional(const rapidjson::Value& object, const char* name) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

Result<const rapidjson::Value*> Required(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value* v = Optional(object, name);
  if (v == nullptr) return Status::Invalid("Cannot parse missing field: ", name);
  return v;
}

Result<std::string> RequiredString(const rapidjson::Value& object, const char* name) {
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* v, Required(object, name));
  if (!v->IsString()) return Status::Invalid("Cannot parse ", name, ": expected a string");
  return std::string(Str(*v));
}

Result<int64_t> RequiredLong(const rapidjson::Value& object, const char* name) {
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* v, Required(object, name));
  if (!v->IsInt64()) return Status::Invalid("Cannot parse ", name, ": expected a number");
  return v->GetInt64();
}

Result<int32_t> RequiredInt(const rapidjson::Value& object, const char* name) {
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* v, Required(object, name));
  if (!v->IsInt()) return Status::Invalid("Cannot parse ", name, ": expected an integer");
  return v->GetInt();
}

Result<bool> OptionalBool(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value* v = Optional(object, name);
  if (v == nullptr) return false;
  if (!v->IsBool()) return Status::Invalid("Cannot parse ", name, ": expected true or false");
  return v->GetBool();
}

template <typename T>
Result<std::set<T>> NumberSet(const rapidjson::Value& object, const char* name) {
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* v, Required(object, name));
  if (!v->IsArray()) return Status::Invalid("Cannot parse ", name, ": expected a list of numbers");
  std::set<T> out;
  for (const auto& item : v->GetArray()) {
    if (std::is_same_v<T, int32_t> ? !item.IsInt() : !item.IsInt64()) {
      return Status::Invalid("Cannot parse ", name, ": expected a list of numbers");
    }
    out.insert(static_cast<T>(item.GetInt64()));
  }
  return out;
}

// Errors of the spec layer's readers are validation errors; here they are a bad request.
template <typename T>
Result<T> AsInvalid(Result<T> result, const char* what) {
  if (result.ok()) return result;
  return Status::Invalid("Cannot parse ", what, ": ", result.status().message());
}

Result<TableIdentifier> Identifier(const rapidjson::Value& v, const char* what) {
  if (!v.IsObject()) return Status::Invalid("Cannot parse ", what, ": expected an object");
  TableIdentifier ident;
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* ns, Required(v, "namespace"));
  ARROW_ASSIGN_OR_RAISE(ident.ns.levels, StringList(*ns, "namespace"));
  ARROW_ASSIGN_OR_RAISE(ident.name, RequiredString(v, "name"));
  return ident;
}

// A partition spec's fields, numbered as the request gives them; `has_field_ids` says
// whether it gave any.
Result<std::vector<spec::PartitionField>> SpecFields(const rapidjson::Value& spec,
                                                     bool* has_field_ids) {
  if (!spec.IsObject()) return Status::Invalid("Cannot parse partition spec: expected an object");
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* fields, Required(spec, "fields"));
  *has_field_ids = false;
  if (fields->IsArray()) {
    for (const auto& f : fields->GetArray()) {
      if (f.IsObject() && f.HasMember("field-id")) *has_field_ids = true;
    }
  }
  return AsInvalid(spec::PartitionFieldsFromValue(*fields), "partition spec");
}

Result<table::UpdateRequirement> Requirement(const rapidjson::Value& v) {
  using Kind = table::UpdateRequirement::Kind;
  if (!v.IsObject()) return Status::Invalid("Cannot parse requirement: expected an object");
  ARROW_ASSIGN_OR_RAISE(std::string type, RequiredString(v, "type"));
  table::UpdateRequirement r;
  if (type == "assert-create") {
    r.kind = Kind::kAssertCreate;
  } else if (type == "assert-table-uuid") {
    r.kind = Kind::kAssertTableUuid;
    ARROW_ASSIGN_OR_RAISE(r.uuid, RequiredString(v, "uuid"));
  } else if (type == "assert-ref-snapshot-id") {
    r.kind = Kind::kAssertRefSnapshotId;
    ARROW_ASSIGN_OR_RAISE(r.ref, RequiredString(v, "ref"));
    if (const rapidjson::Value* id = Optional(v, "snapshot-id")) {
      if (!id->IsInt64()) return Status::Invalid("Cannot parse snapshot-id: expected a number");
      r.snapshot_id = id->GetInt64();
    }
  } else if (type == "assert-last-assigned-field-id") {
    r.kind = Kind::kAssertLastAssignedFieldId;
    ARROW_ASSIGN_OR_RAISE(r.id, RequiredLong(v, "last-assigned-field-id"));
  } else if (type == "assert-current-schema-id") {
    r.kind = Kind::kAssertCurrentSchemaId;
    ARROW_ASSIGN_OR_RAISE(r.id, RequiredLong(v, "current-schema-id"));
  } else if (type == "assert-last-assigned-partition-id") {
    r.kind = Kind::kAssertLastAssignedPartitionId;
    ARROW_ASSIGN_OR_RAISE(r.id, RequiredLong(v, "last-assigned-partition-id"));
  } else if (type == "assert-default-spec-id") {
    r.kind = Kind::kAssertDefaultSpecId;
    ARROW_ASSIGN_OR_RAISE(r.id, RequiredLong(v, "default-spec-id"));
  } else if (type == "assert-default-sort-order-id") {
    r.kind = Kind::kAssertDefaultSortOrderId;
    ARROW_ASSIGN_OR_RAISE(r.id, RequiredLong(v, "default-sort-order-id"));
  } else {
    return Status::Invalid("Cannot parse requirement: unknown type '", type, "'");
  }
  return r;
}

Result<table::MetadataUpdate> Update(const rapidjson::Value& v) {
  namespace u = table::update;
  if (!v.IsObject()) return Status::Invalid("Cannot parse update: expected an object");
  ARROW_ASSIGN_OR_RAISE(std::string action, RequiredString(v, "action"));
  if (action == "assign-uuid") {
    ARROW_ASSIGN_OR_RAISE(std::string uuid, RequiredString(v, "uuid"));
    return u::AssignUuid{std::move(uuid)};
  }
  if (action == "upgrade-format-version") {
    ARROW_ASSIGN_OR_RAISE(int32_t version, RequiredInt(v, "format-version"));
    return u::UpgradeFormatVersion{version};
  }
  if (action == "add-schema") {
    ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* schema, Required(v, "schema"));
    ARROW_ASSIGN_OR_RAISE(spec::SchemaPtr parsed,
                          AsInvalid(spec::SchemaFromValue(*schema), "schema"));
    return u::AddSchema{std::move(parsed)};
  }
  if (action == "set-current-schema") {
    ARROW_ASSIGN_OR_RAISE(int32_t id, RequiredInt(v, "schema-id"));
    return u::SetCurrentSchema{id};
  }
  if (action == "add-spec") {
    ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* spec, Required(v, "spec"));
    u::AddPartitionSpec add;
    ARROW_ASSIGN_OR_RAISE(add.fields, SpecFields(*spec, &add.has_field_ids));
    return add;
  }
  if (action == "set-default-spec") {
    ARROW_ASSIGN_OR_RAISE(int32_t id, RequiredInt(v, "spec-id"));
    return u::SetDefaultSpec{id};
  }
  if (action == "add-sort-order") {
    ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* order, Required(v, "sort-order"));
    ARROW_ASSIGN_OR_RAISE(spec::SortOrder parsed,
                          AsInvalid(spec::SortOrderFromValue(*order), "sort order"));
    return u::AddSortOrder{std::move(parsed)};
  }
  if (action == "set-default-sort-order") {
    ARROW_ASSIGN_OR_RAISE(int32_t id, RequiredInt(v, "sort-order-id"));
    return u::SetDefaultSortOrder{id};
  }
  if (action == "add-snapshot") {
    ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* snapshot, Required(v, "snapshot"));
    u::AddSnapshot add;
    Status parsed = spec::SnapshotFromValue(*snapshot, &add.snapshot);
    if (!parsed.ok()) return Status::Invalid("Cannot parse snapshot: ", parsed.message());
    return add;
  }
  if (action == "set-snapshot-ref") {
    u::SetSnapshotRef set;
    ARROW_ASSIGN_OR_RAISE(set.name, RequiredString(v, "ref-name"));
    ARROW_ASSIGN_OR_RAISE(set.ref, AsInvalid(spec::RefFromValue(v), "snapshot ref"));
    return set;
  }
  if (action == "remove-snapshots") {
    ARROW_ASSIGN_OR_RAISE(auto ids, NumberSet<int64_t>(v, "snapshot-ids"));
    return u::RemoveSnapshots{std::move(ids)};
  }
  if (action == "remove-snapshot-ref") {
    ARROW_ASSIGN_OR_RAISE(std::string name, RequiredString(v, "ref-name"));
    return u::RemoveSnapshotRef{std::move(name)};
  }
  if (action == "set-location") {
    ARROW_ASSIGN_OR_RAISE(std::string location, RequiredString(v, "location"));
    return u::SetLocation{std::move(location)};
  }
  if (action == "set-properties") {
    ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* updates, Required(v, "updates"));
    ARROW_ASSIGN_OR_RAISE(auto map, StringMap(*updates, "updates"));
    return u::SetProperties{std::move(map)};
  }
  if (action == "remove-properties") {
    ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* removals, Required(v, "removals"));
    ARROW_ASSIGN_OR_RAISE(auto keys, StringList(*removals, "removals"));
    return u::RemoveProperties{std::set<std::string>(keys.begin(), keys.end())};
  }
  if (action == "set-statistics") {
    ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* statistics, Required(v, "statistics"));
    ARROW_ASSIGN_OR_RAISE(auto file,
                          AsInvalid(spec::StatisticsFromValue(*statistics), "statistics"));
    return u::SetStatistics{std::move(file)};
  }
  if (action == "remove-statistics") {
    ARROW_ASSIGN_OR_RAISE(int64_t id, RequiredLong(v, "snapshot-id"));
    return u::RemoveStatistics{id};
  }
  if (action == "set-partition-statistics") {
    ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* statistics, Required(v, "partition-statistics"));
    ARROW_ASSIGN_OR_RAISE(auto file, AsInvalid(spec::PartitionStatisticsFromValue(*statistics),
                                               "partition statistics"));
    return u::SetPartitionStatistics{std::move(file)};
  }
  if (action == "remove-partition-statistics") {
    ARROW_ASSIGN_OR_RAISE(int64_t id, RequiredLong(v, "snapshot-id"));
    return u::RemovePartitionStatistics{id};
  }
  if (action == "remove-partition-specs") {
    ARROW_ASSIGN_OR_RAISE(auto ids, NumberSet<int32_t>(v, "spec-ids"));
    return u::RemovePartitionSpecs{std::move(ids)};
  }
  if (action == "remove-schemas") {
    ARROW_ASSIGN_OR_RAISE(auto ids, NumberSet<int32_t>(v, "schema-ids"));
    return u::RemoveSchemas{std::move(ids)};
  }
  return Status::Invalid("Cannot parse update: unknown or unsupported action '", action, "'");
}

Result<CommitTableRequest> CommitFromValue(const rapidjson::Value& v) {
  if (!v.IsObject()) return Status::Invalid("Cannot parse table commit: expected an object");
  CommitTableRequest request;
  if (const rapidjson::Value* ident = Optional(v, "identifier")) {
    ARROW_ASSIGN_OR_RAISE(request.identifier, Identifier(*ident, "identifier"));
  }
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* requirements, Required(v, "requirements"));
  if (!requirements->IsArray())
    return Status::Invalid("Cannot parse requirements: expected a list");
  for (const auto& item : requirements->GetArray()) {
    ARROW_ASSIGN_OR_RAISE(auto r, Requirement(item));
    request.requirements.push_back(std::move(r));
  }
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* updates, Required(v, "updates"));
  if (!updates->IsArray()) return Status::Invalid("Cannot parse updates: expected a list");
  for (const auto& item : updates->GetArray()) {
    ARROW_ASSIGN_OR_RAISE(auto update, Update(item));
    request.updates.push_back(std::move(update));
  }
  return request;
}

}  // namespace

Result<CreateTableRequest> ParseCreateTableRequest(std::string_view body) {
  std::string buffer;
  rapidjson::Document doc;
  ARROW_RETURN_NOT_OK(ParseObject(body, &buffer, &doc));
  CreateTableRequest request;
  ARROW_ASSIGN_OR_RAISE(request.name, RequiredString(doc, "name"));
  if (const rapidjson::Value* location = Optional(doc, "location")) {
    if (!location->IsString()) return Status::Invalid("Cannot parse location: expected a string");
    request.location = std::string(Str(*location));
  }
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* schema, Required(doc, "schema"));
  ARROW_ASSIGN_OR_RAISE(request.schema, AsInvalid(spec::SchemaFromValue(*schema), "schema"));
  if (const rapidjson::Value* spec = Optional(doc, "partition-spec")) {
    bool has_ids = false;
    ARROW_ASSIGN_OR_RAISE(request.partition_fields, SpecFields(*spec, &has_ids));
  }
  if (const rapidjson::Value* order = Optional(doc, "write-order")) {
    ARROW_ASSIGN_OR_RAISE(spec::SortOrder parsed,
                          AsInvalid(spec::SortOrderFromValue(*order), "write order"));
    request.sort_fields = std::move(parsed.fields);
  }
  ARROW_ASSIGN_OR_RAISE(request.stage_create, OptionalBool(doc, "stage-create"));
  if (const rapidjson::Value* properties = Optional(doc, "properties")) {
    ARROW_ASSIGN_OR_RAISE(request.properties, StringMap(*properties, "properties"));
  }
  return request;
}

Result<CommitTableRequest> ParseCommitTableRequest(std::string_view body) {
  std::string buffer;
  rapidjson::Document doc;
  ARROW_RETURN_NOT_OK(ParseObject(body, &buffer, &doc));
  return CommitFromValue(doc);
}

Result<std::vector<CommitTableRequest>> ParseCommitTransactionRequest(std::string_view body) {
  std::string buffer;
  rapidjson::Document doc;
  ARROW_RETURN_NOT_OK(ParseObject(body, &buffer, &doc));
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* changes, Required(doc, "table-changes"));
  if (!changes->IsArray()) return Status::Invalid("Cannot parse table-changes: expected a list");
  std::vector<CommitTableRequest> out;
  for (const auto& item : changes->GetArray()) {
    ARROW_ASSIGN_OR_RAISE(auto change, CommitFromValue(item));
    if (!change.identifier) {
      return Status::Invalid("Invalid table changes: table identifier is required");
    }
    out.push_back(std::move(change));
  }
  return out;
}

Result<RenameTableRequest> ParseRenameTableRequest(std::string_view body) {
  std::string buffer;
  rapidjson::Document doc;
  ARROW_RETURN_NOT_OK(ParseObject(body, &buffer, &doc));
  RenameTableRequest request;
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* source, Required(doc, "source"));
  ARROW_ASSIGN_OR_RAISE(request.source, Identifier(*source, "source"));
  ARROW_ASSIGN_OR_RAISE(const rapidjson::Value* destination, Required(doc, "destination"));
  ARROW_ASSIGN_OR_RAISE(request.destination, Identifier(*destination, "destination"));
  return request;
}

Result<RegisterTableRequest> ParseRegisterTableRequest(std::string_view body) {
  std::string buffer;
  rapidjson::Document doc;
  ARROW_RETURN_NOT_OK(ParseObject(body, &buffer, &doc));
  RegisterTableRequest request;
  ARROW_ASSIGN_OR_RAISE(request.name, RequiredString(doc, "name"));
  ARROW_ASSIGN_OR_RAISE(request.metadata_location, RequiredString(doc, "metadata-location"));
  ARROW_ASSIGN_OR_RAISE(request.overwrite, OptionalBool(doc, "overwrite"));
  return request;
}

Result<CreateNamespaceRequest> ParseCreateNamespaceRequest(std::string_view body) {
  std::string buffer;
  rapidjson::Document doc;
  ARROW_RETURN_NOT_OK(ParseObject(body, &buffer, &doc));
  CreateNamespaceRequest request;
  auto ns = doc.FindMember("namespace");
  if (ns == doc.MemberEnd()) return Status::Invalid("Cannot parse missing field: namespace");
  ARROW_ASSIGN_OR_RAISE(request.ns.levels, StringList(ns->value, "namespace"));
  auto properties = doc.FindMember("properties");
  if (properties != doc.MemberEnd() && !properties->value.IsNull()) {
    ARROW_ASSIGN_OR_RAISE(request.properties, StringMap(properties->value, "properties"));
  }
  return request;
}

Result<UpdateNamespacePropertiesRequest> ParseUpdateNamespacePropertiesRequest(
    std::string_view body) {
  std::string buffer;
  rapidjson::Document doc;
  ARROW_RETURN_NOT_OK(ParseObject(body, &buffer, &doc));
  UpdateNamespacePropertiesRequest request;
  auto removals = doc.FindMember("removals");
  if (removals != doc.MemberEnd() && !removals->value.IsNull()) {
    ARROW_ASSIGN_OR_RAISE(request.removals, StringList(removals->value, "removals"));
  }
  auto updates = doc.FindMember("updates");
  if (updates != doc.MemberEnd() && !updates->value.IsNull()) {
    ARROW_ASSIGN_OR_RAISE(request.updates, StringMap(updates->value, "updates"));
  }
  return request;
}

Namespace NamespaceFromPathPart(std::string_view decoded) {
  Namespace ns;
  if (decoded.empty()) return ns;
  size_t start = 0;
  while (true) {
    const size_t end = decoded.find('\x1f', start);
    ns.levels.emplace_back(
        decoded.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return ns;
}

}  // namespace floe::server::rest
