#include "floe/spec/metadata_diff.h"

#include <map>
#include <set>

namespace floe::spec {

namespace {

using RequirementKind = UpdateRequirement::Kind;

UpdateRequirement AssertId(RequirementKind kind, int64_t id) {
  UpdateRequirement r;
  r.kind = kind;
  r.id = id;
  return r;
}

UpdateRequirement AssertRef(const std::string& name, const TableMetadata& base) {
  UpdateRequirement r;
  r.kind = RequirementKind::kAssertRefSnapshotId;
  r.ref = name;
  if (auto it = base.refs.find(name); it != base.refs.end()) r.snapshot_id = it->second.snapshot_id;
  return r;
}

// The requirements of Iceberg's UpdateRequirements.forUpdateTable, each stated once.
class Requirements {
 public:
  explicit Requirements(const TableMetadata& base) : base_(base) {
    UpdateRequirement uuid;
    uuid.kind = RequirementKind::kAssertTableUuid;
    uuid.uuid = base.table_uuid;
    out_.push_back(std::move(uuid));
  }

  void Note(const MetadataUpdate& update) {
    if (const auto* set = std::get_if<update::SetSnapshotRef>(&update)) {
      Ref(set->name);
    } else if (const auto* removed = std::get_if<update::RemoveSnapshotRef>(&update)) {
      Ref(removed->name);
    } else if (std::holds_alternative<update::AddSchema>(update)) {
      Once(RequirementKind::kAssertLastAssignedFieldId, base_.last_column_id);
    } else if (std::holds_alternative<update::SetCurrentSchema>(update)) {
      Once(RequirementKind::kAssertCurrentSchemaId, base_.current_schema_id);
    } else if (std::holds_alternative<update::AddPartitionSpec>(update)) {
      Once(RequirementKind::kAssertLastAssignedPartitionId, base_.last_partition_id);
    } else if (std::holds_alternative<update::SetDefaultSpec>(update)) {
      Once(RequirementKind::kAssertDefaultSpecId, base_.default_spec_id);
    } else if (std::holds_alternative<update::SetDefaultSortOrder>(update)) {
      Once(RequirementKind::kAssertDefaultSortOrderId, base_.default_sort_order_id);
    } else if (std::holds_alternative<update::RemoveSchemas>(update)) {
      Once(RequirementKind::kAssertCurrentSchemaId, base_.current_schema_id);
      BranchesUnchanged();
    } else if (std::holds_alternative<update::RemovePartitionSpecs>(update)) {
      Once(RequirementKind::kAssertDefaultSpecId, base_.default_spec_id);
      BranchesUnchanged();
    }
  }

  std::vector<UpdateRequirement> Take() { return std::move(out_); }

 private:
  void Ref(const std::string& name) {
    if (refs_.insert(name).second) out_.push_back(AssertRef(name, base_));
  }
  void Once(RequirementKind kind, int64_t id) {
    if (kinds_.insert(kind).second) out_.push_back(AssertId(kind, id));
  }
  // Old schemas and specs may still be written by a branch that moved meanwhile.
  void BranchesUnchanged() {
    for (const auto& [name, ref] : base_.refs) {
      if (ref.is_branch() && name != kMainBranch) Ref(name);
    }
  }

  const TableMetadata& base_;
  std::vector<UpdateRequirement> out_;
  std::set<std::string> refs_;
  std::set<RequirementKind> kinds_;
};

}  // namespace

Result<TableChanges> DiffTableMetadata(const TableMetadata& base, const TableMetadata& updated) {
  if (updated.table_uuid != base.table_uuid) {
    return ValidationError("Cannot state the change of table ", base.table_uuid,
                           " as updates: the new metadata is of table ", updated.table_uuid);
  }
  if (updated.format_version < base.format_version) {
    return ValidationError("Cannot downgrade v", base.format_version, " table to v",
                           updated.format_version);
  }
  std::vector<MetadataUpdate> updates;
  if (updated.format_version != base.format_version) {
    updates.push_back(update::UpgradeFormatVersion{updated.format_version});
  }

  // Schemas, specs and orders are never changed in place: new ids are new ones.
  std::set<int32_t> added_schemas;
  for (const auto& schema : updated.schemas) {
    if (base.SchemaById(schema->schema_id()) != nullptr) continue;
    updates.push_back(update::AddSchema{schema});
    added_schemas.insert(schema->schema_id());
  }
  if (updated.current_schema_id != base.current_schema_id) {
    // The one added last is named -1; any other by its id.
    const bool last =
        !added_schemas.empty() && *added_schemas.rbegin() == updated.current_schema_id;
    updates.push_back(update::SetCurrentSchema{last ? -1 : updated.current_schema_id});
  }
  std::set<int32_t> added_specs;
  for (const auto& spec : updated.partition_specs) {
    if (base.SpecById(spec.spec_id()) != nullptr) continue;
    updates.push_back(update::AddPartitionSpec{spec.fields(), /*has_field_ids=*/true});
    added_specs.insert(spec.spec_id());
  }
  if (updated.default_spec_id != base.default_spec_id) {
    const bool last = !added_specs.empty() && *added_specs.rbegin() == updated.default_spec_id;
    updates.push_back(update::SetDefaultSpec{last ? -1 : updated.default_spec_id});
  }
  std::set<int32_t> added_orders;
  for (const auto& order : updated.sort_orders) {
    if (base.SortOrderById(order.order_id) != nullptr) continue;
    updates.push_back(update::AddSortOrder{order});
    added_orders.insert(order.order_id);
  }
  if (updated.default_sort_order_id != base.default_sort_order_id) {
    const bool last =
        !added_orders.empty() && *added_orders.rbegin() == updated.default_sort_order_id;
    updates.push_back(update::SetDefaultSortOrder{last ? -1 : updated.default_sort_order_id});
  }

  if (updated.location != base.location) updates.push_back(update::SetLocation{updated.location});
  std::map<std::string, std::string> set;
  for (const auto& [key, value] : updated.properties) {
    auto it = base.properties.find(key);
    if (it == base.properties.end() || it->second != value) set.emplace(key, value);
  }
  std::set<std::string> removed;
  for (const auto& [key, value] : base.properties) {
    if (!updated.properties.count(key)) removed.insert(key);
  }
  if (!set.empty()) updates.push_back(update::SetProperties{std::move(set)});
  if (!removed.empty()) updates.push_back(update::RemoveProperties{std::move(removed)});

  for (const auto& snapshot : updated.snapshots) {
    const Snapshot* known = base.SnapshotById(snapshot.snapshot_id);
    if (known == nullptr) {
      updates.push_back(update::AddSnapshot{snapshot});
    } else if (!(*known == snapshot)) {
      return ValidationError("Cannot state the change of snapshot ", snapshot.snapshot_id,
                             " as updates: a snapshot never changes");
    }
  }
  for (const auto& [name, ref] : base.refs) {
    if (!updated.refs.count(name)) updates.push_back(update::RemoveSnapshotRef{name});
  }
  // Main last, so that a branch made from it is set first, as floe's builder does.
  auto set_ref = [&](const std::string& name, const SnapshotRef& ref) {
    auto it = base.refs.find(name);
    if (it == base.refs.end() || !(it->second == ref)) {
      updates.push_back(update::SetSnapshotRef{name, ref});
    }
  };
  for (const auto& [name, ref] : updated.refs) {
    if (name != kMainBranch) set_ref(name, ref);
  }
  if (auto main = updated.refs.find(kMainBranch); main != updated.refs.end()) {
    set_ref(main->first, main->second);
  }
  std::set<int64_t> gone;
  for (const auto& snapshot : base.snapshots) {
    if (updated.SnapshotById(snapshot.snapshot_id) == nullptr) gone.insert(snapshot.snapshot_id);
  }
  if (!gone.empty()) updates.push_back(update::RemoveSnapshots{std::move(gone)});

  auto statistics_of = [](const auto& files) {
    std::map<int64_t, const std::decay_t<decltype(files[0])>*> by_snapshot;
    for (const auto& f : files) by_snapshot[f.snapshot_id] = &f;
    return by_snapshot;
  };
  {
    auto before = statistics_of(base.statistics);
    auto after = statistics_of(updated.statistics);
    for (const auto& [id, file] : after) {
      auto it = before.find(id);
      if (it == before.end() || !(*it->second == *file)) {
        updates.push_back(update::SetStatistics{*file});
      }
    }
    for (const auto& [id, file] : before) {
      if (!after.count(id)) updates.push_back(update::RemoveStatistics{id});
    }
  }
  {
    auto before = statistics_of(base.partition_statistics);
    auto after = statistics_of(updated.partition_statistics);
    for (const auto& [id, file] : after) {
      auto it = before.find(id);
      if (it == before.end() || !(*it->second == *file)) {
        updates.push_back(update::SetPartitionStatistics{*file});
      }
    }
    for (const auto& [id, file] : before) {
      if (!after.count(id)) updates.push_back(update::RemovePartitionStatistics{id});
    }
  }

  std::set<int32_t> schemas_gone, specs_gone;
  for (const auto& schema : base.schemas) {
    if (updated.SchemaById(schema->schema_id()) == nullptr)
      schemas_gone.insert(schema->schema_id());
  }
  for (const auto& spec : base.partition_specs) {
    if (updated.SpecById(spec.spec_id()) == nullptr) specs_gone.insert(spec.spec_id());
  }
  if (!specs_gone.empty()) updates.push_back(update::RemovePartitionSpecs{std::move(specs_gone)});
  if (!schemas_gone.empty()) updates.push_back(update::RemoveSchemas{std::move(schemas_gone)});

  Requirements requirements(base);
  for (const auto& update : updates) requirements.Note(update);
  return TableChanges{requirements.Take(), std::move(updates)};
}

Result<TableChanges> CreateTableChanges(const TableMetadata& created) {
  // Nothing yet: no current schema, spec or order for the updates to keep.
  TableMetadata empty;
  empty.table_uuid = created.table_uuid;
  empty.format_version = created.format_version;
  empty.current_schema_id = -1;
  empty.default_spec_id = -1;
  empty.default_sort_order_id = -1;
  ARROW_ASSIGN_OR_RAISE(TableChanges changes, DiffTableMetadata(empty, created));
  changes.requirements.assign(1, UpdateRequirement{});  // kAssertCreate
  std::vector<MetadataUpdate> updates = {update::AssignUuid{created.table_uuid},
                                         update::UpgradeFormatVersion{created.format_version}};
  for (auto& u : changes.updates) {
    if (!std::holds_alternative<update::UpgradeFormatVersion>(u)) updates.push_back(std::move(u));
  }
  changes.updates = std::move(updates);
  return changes;
}

}  // namespace floe::spec
