#include "floe/spec/table_update_json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace floe::spec {

namespace {

using UpdateWriter = rapidjson::Writer<rapidjson::StringBuffer>;

template <typename... Ts>
struct UpdateVisitor : Ts... {
  using Ts::operator()...;
};
template <typename... Ts>
UpdateVisitor(Ts...) -> UpdateVisitor<Ts...>;

void Text(UpdateWriter* w, std::string_view s) {
  w->String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void Raw(UpdateWriter* w, const std::string& json, rapidjson::Type type) {
  w->RawValue(json.data(), json.size(), type);
}

template <typename Ids>
void IdList(UpdateWriter* w, const char* key, const Ids& ids) {
  w->Key(key);
  w->StartArray();
  for (auto id : ids) w->Int64(id);
  w->EndArray();
}

void WriteRequirement(UpdateWriter* w, const UpdateRequirement& r) {
  using Kind = UpdateRequirement::Kind;
  w->StartObject();
  w->Key("type");
  auto id = [&](const char* type, const char* key) {
    w->String(type);
    w->Key(key);
    w->Int64(r.id);
  };
  switch (r.kind) {
    case Kind::kAssertCreate:
      w->String("assert-create");
      break;
    case Kind::kAssertTableUuid:
      w->String("assert-table-uuid");
      w->Key("uuid");
      Text(w, r.uuid);
      break;
    case Kind::kAssertRefSnapshotId:
      w->String("assert-ref-snapshot-id");
      w->Key("ref");
      Text(w, r.ref);
      w->Key("snapshot-id");
      if (r.snapshot_id) {
        w->Int64(*r.snapshot_id);
      } else {
        w->Null();
      }
      break;
    case Kind::kAssertLastAssignedFieldId:
      id("assert-last-assigned-field-id", "last-assigned-field-id");
      break;
    case Kind::kAssertCurrentSchemaId:
      id("assert-current-schema-id", "current-schema-id");
      break;
    case Kind::kAssertLastAssignedPartitionId:
      id("assert-last-assigned-partition-id", "last-assigned-partition-id");
      break;
    case Kind::kAssertDefaultSpecId:
      id("assert-default-spec-id", "default-spec-id");
      break;
    case Kind::kAssertDefaultSortOrderId:
      id("assert-default-sort-order-id", "default-sort-order-id");
      break;
  }
  w->EndObject();
}

template <typename Fn>
std::string RenderUpdateJson(Fn&& fn) {
  rapidjson::StringBuffer buffer;
  UpdateWriter writer(buffer);
  fn(&writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

void WriteUpdate(UpdateWriter* w, const MetadataUpdate& update) {
  if (const auto* set = std::get_if<update::SetSnapshotRef>(&update)) {
    // The ref's own fields sit beside its name: {"action", "ref-name", "snapshot-id", "type", ...}.
    const std::string head = RenderUpdateJson([&](UpdateWriter* h) {
      h->StartObject();
      h->Key("action");
      h->String(UpdateName(update));
      h->Key("ref-name");
      Text(h, set->name);
      h->EndObject();
    });
    const std::string json = head.substr(0, head.size() - 1) + "," + RefToJson(set->ref).substr(1);
    Raw(w, json, rapidjson::kObjectType);
    return;
  }
  w->StartObject();
  w->Key("action");
  w->String(UpdateName(update));
  std::visit(
      UpdateVisitor{
          [&](const update::AssignUuid& u) {
            w->Key("uuid");
            Text(w, u.uuid);
          },
          [&](const update::UpgradeFormatVersion& u) {
            w->Key("format-version");
            w->Int(u.format_version);
          },
          [&](const update::AddSchema& u) {
            w->Key("schema");
            Raw(w, SchemaToJson(*u.schema), rapidjson::kObjectType);
          },
          [&](const update::SetCurrentSchema& u) {
            w->Key("schema-id");
            w->Int(u.schema_id);
          },
          [&](const update::AddPartitionSpec& u) {
            w->Key("spec");
            Raw(w, PartitionSpecToJson(PartitionSpec(0, u.fields)), rapidjson::kObjectType);
          },
          [&](const update::SetDefaultSpec& u) {
            w->Key("spec-id");
            w->Int(u.spec_id);
          },
          [&](const update::AddSortOrder& u) {
            w->Key("sort-order");
            Raw(w, SortOrderToJson(u.order), rapidjson::kObjectType);
          },
          [&](const update::SetDefaultSortOrder& u) {
            w->Key("sort-order-id");
            w->Int(u.order_id);
          },
          [&](const update::AddSnapshot& u) {
            w->Key("snapshot");
            Raw(w, SnapshotToJson(u.snapshot), rapidjson::kObjectType);
          },
          [&](const update::SetSnapshotRef&) {},  // written whole by WriteUpdate
          [&](const update::RemoveSnapshots& u) { IdList(w, "snapshot-ids", u.snapshot_ids); },
          [&](const update::RemoveSnapshotRef& u) {
            w->Key("ref-name");
            Text(w, u.name);
          },
          [&](const update::SetLocation& u) {
            w->Key("location");
            Text(w, u.location);
          },
          [&](const update::SetProperties& u) {
            w->Key("updates");
            w->StartObject();
            for (const auto& [key, value] : u.updates) {
              Text(w, key);
              Text(w, value);
            }
            w->EndObject();
          },
          [&](const update::RemoveProperties& u) {
            w->Key("removals");
            w->StartArray();
            for (const auto& key : u.removals) Text(w, key);
            w->EndArray();
          },
          [&](const update::SetStatistics& u) {
            w->Key("statistics");
            Raw(w, StatisticsToJson(u.statistics), rapidjson::kObjectType);
          },
          [&](const update::RemoveStatistics& u) {
            w->Key("snapshot-id");
            w->Int64(u.snapshot_id);
          },
          [&](const update::SetPartitionStatistics& u) {
            w->Key("partition-statistics");
            Raw(w, PartitionStatisticsToJson(u.statistics), rapidjson::kObjectType);
          },
          [&](const update::RemovePartitionStatistics& u) {
            w->Key("snapshot-id");
            w->Int64(u.snapshot_id);
          },
          [&](const update::RemovePartitionSpecs& u) { IdList(w, "spec-ids", u.spec_ids); },
          [&](const update::RemoveSchemas& u) { IdList(w, "schema-ids", u.schema_ids); },
      },
      update);
  w->EndObject();
}

}  // namespace

std::string RequirementToJson(const UpdateRequirement& requirement) {
  return RenderUpdateJson([&](UpdateWriter* w) { WriteRequirement(w, requirement); });
}

std::string UpdateToJson(const MetadataUpdate& update) {
  return RenderUpdateJson([&](UpdateWriter* w) { WriteUpdate(w, update); });
}

std::string CommitRequestToJson(const std::vector<UpdateRequirement>& requirements,
                                const std::vector<MetadataUpdate>& updates,
                                const std::optional<CommitTarget>& target) {
  return RenderUpdateJson([&](UpdateWriter* w) {
    w->StartObject();
    if (target) {
      w->Key("identifier");
      w->StartObject();
      w->Key("namespace");
      w->StartArray();
      for (const auto& level : target->ns) Text(w, level);
      w->EndArray();
      w->Key("name");
      Text(w, target->name);
      w->EndObject();
    }
    w->Key("requirements");
    w->StartArray();
    for (const auto& r : requirements) WriteRequirement(w, r);
    w->EndArray();
    w->Key("updates");
    w->StartArray();
    for (const auto& u : updates) WriteUpdate(w, u);
    w->EndArray();
    w->EndObject();
  });
}

}  // namespace floe::spec
