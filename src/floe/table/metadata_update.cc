#include "floe/table/metadata_update.h"

#include <type_traits>

#include "floe/util/ids.h"

namespace floe::table {

namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

Status Failed(const std::string& what, int64_t expected, int64_t actual) {
  return CommitConflict("Requirement failed: ", what, " changed: expected id ", expected,
                        " != ", actual);
}

// A field of the new schema that no current column has may not take an id the table gave
// out before to a column of another type: data files written for that column would be read
// as the new one.
Status CheckFieldIdsNotReused(const spec::TableMetadata& base, const spec::Schema& schema) {
  const spec::SchemaPtr current = base.current_schema();
  for (int32_t id = 1; id <= schema.HighestFieldId() && id <= base.last_column_id; ++id) {
    const spec::NestedField* field = schema.FindFieldById(id);
    if (field == nullptr || (current && current->FindFieldById(id) != nullptr)) continue;
    const spec::NestedField* earlier = nullptr;
    int32_t earlier_schema = 0;
    for (const auto& s : base.schemas) {
      if ((earlier = s->FindFieldById(id)) != nullptr) {
        earlier_schema = s->schema_id();
        break;
      }
    }
    if (earlier == nullptr) {
      return ValidationError("Cannot add schema: field ", field->name, " reuses field id ", id,
                             ", which the table assigned before (last-column-id ",
                             base.last_column_id, "); a new field needs an id above it");
    }
    if (earlier->type->ToString() != field->type->ToString()) {
      return ValidationError("Cannot add schema: field ", field->name, " (",
                             field->type->ToString(), ") reuses field id ", id, " of ",
                             earlier->name, " (", earlier->type->ToString(), ") in schema ",
                             earlier_schema);
    }
  }
  return Status::OK();
}

// The current schema, which partition and sort fields name their sources in.
Result<spec::SchemaPtr> SourceSchema(const spec::TableMetadata& md, const char* what) {
  spec::SchemaPtr schema = md.current_schema();
  if (!schema) return ValidationError("Cannot add ", what, ": the table has no schema");
  return schema;
}

Status AddSpec(const update::AddPartitionSpec& add, TableMetadataBuilder& builder) {
  const spec::TableMetadata& md = builder.current();
  ARROW_ASSIGN_OR_RAISE(spec::SchemaPtr schema, SourceSchema(md, "partition spec"));
  std::vector<spec::PartitionField> fields = add.fields;
  int32_t next_id = md.last_partition_id;
  for (auto& field : fields) {
    if (schema->FindFieldById(field.source_id) == nullptr) {
      return ValidationError("Cannot find source column for partition field: ", field.name,
                             " (source id ", field.source_id, ")");
    }
    if (add.has_field_ids) continue;
    // A field partitioned the same way before keeps its id, as Iceberg assigns them.
    std::optional<int32_t> known;
    for (const auto& spec : md.partition_specs) {
      for (const auto& f : spec.fields()) {
        if (f.source_id == field.source_id && f.transform == field.transform) known = f.field_id;
      }
    }
    field.field_id = known ? *known : ++next_id;
  }
  ARROW_RETURN_NOT_OK(builder.AddPartitionSpec(spec::PartitionSpec(0, std::move(fields))).status());
  return Status::OK();
}

Status AddOrder(const update::AddSortOrder& add, TableMetadataBuilder& builder) {
  ARROW_ASSIGN_OR_RAISE(spec::SchemaPtr schema, SourceSchema(builder.current(), "sort order"));
  for (const auto& field : add.order.fields) {
    if (schema->FindFieldById(field.source_id) == nullptr) {
      return ValidationError("Cannot find source column for sort field: source id ",
                             field.source_id);
    }
  }
  return builder.AddSortOrder(add.order).status();
}

Status Apply(const MetadataUpdate& update, TableMetadataBuilder& builder) {
  return std::visit(
      Overloaded{
          [&](const update::AssignUuid& u) { return builder.AssignUuid(u.uuid); },
          [&](const update::UpgradeFormatVersion& u) {
            return builder.UpgradeFormatVersion(u.format_version, kMaxWritableFormatVersion);
          },
          [&](const update::AddSchema& u) -> Status {
            ARROW_RETURN_NOT_OK(CheckFieldIdsNotReused(builder.current(), *u.schema));
            return builder.AddSchema(*u.schema).status();
          },
          [&](const update::SetCurrentSchema& u) { return builder.SetCurrentSchema(u.schema_id); },
          [&](const update::AddPartitionSpec& u) { return AddSpec(u, builder); },
          [&](const update::SetDefaultSpec& u) {
            return builder.SetDefaultPartitionSpec(u.spec_id);
          },
          [&](const update::AddSortOrder& u) { return AddOrder(u, builder); },
          [&](const update::SetDefaultSortOrder& u) {
            return builder.SetDefaultSortOrder(u.order_id);
          },
          [&](const update::AddSnapshot& u) -> Status {
            const spec::TableMetadata& md = builder.current();
            if (md.format_version >= 2 && u.snapshot.sequence_number == 0) {
              return ValidationError("Cannot add snapshot ", u.snapshot.snapshot_id,
                                     " without a sequence number to a v", md.format_version,
                                     " table");
            }
            return builder.AddSnapshot(u.snapshot);
          },
          [&](const update::SetSnapshotRef& u) { return builder.SetRef(u.name, u.ref); },
          [&](const update::RemoveSnapshots& u) { return builder.RemoveSnapshots(u.snapshot_ids); },
          [&](const update::RemoveSnapshotRef& u) {
            builder.RemoveRef(u.name);
            return Status::OK();
          },
          [&](const update::SetLocation& u) {
            if (u.location.empty()) return ValidationError("Invalid location: empty");
            builder.SetLocation(u.location);
            return Status::OK();
          },
          [&](const update::SetProperties& u) {
            builder.SetProperties(u.updates);
            return Status::OK();
          },
          [&](const update::RemoveProperties& u) {
            builder.RemoveProperties(u.removals);
            return Status::OK();
          },
          [&](const update::SetStatistics& u) { return builder.SetStatistics(u.statistics); },
          [&](const update::RemoveStatistics& u) {
            builder.RemoveStatistics(u.snapshot_id);
            return Status::OK();
          },
          [&](const update::SetPartitionStatistics& u) {
            return builder.SetPartitionStatistics(u.statistics);
          },
          [&](const update::RemovePartitionStatistics& u) {
            builder.RemovePartitionStatistics(u.snapshot_id);
            return Status::OK();
          },
          [&](const update::RemovePartitionSpecs& u) -> Status {
            if (u.spec_ids.count(builder.current().default_spec_id)) {
              return ValidationError("Cannot remove the default partition spec");
            }
            builder.RemovePartitionSpecs(u.spec_ids);
            return Status::OK();
          },
          [&](const update::RemoveSchemas& u) -> Status {
            if (u.schema_ids.count(builder.current().current_schema_id)) {
              return ValidationError("Cannot remove current schema: ",
                                     builder.current().current_schema_id);
            }
            builder.RemoveSchemas(u.schema_ids);
            return Status::OK();
          },
      },
      update);
}

// A commit that adds several snapshots and moves main through them (an overwrite sent as a
// delete and an append) made only the last one current: the others leave the history, as
// Iceberg's builder drops such intermediate entries.
void DropIntermediateSnapshots(const spec::TableMetadata* base, spec::TableMetadata* md) {
  std::erase_if(md->snapshot_log, [&](const spec::SnapshotLogEntry& e) {
    const bool added = base == nullptr || base->SnapshotById(e.snapshot_id) == nullptr;
    return added && md->current_snapshot_id != e.snapshot_id;
  });
}

}  // namespace

Status CheckRequirement(const UpdateRequirement& requirement, const spec::TableMetadata* base) {
  using Kind = UpdateRequirement::Kind;
  if (requirement.kind == Kind::kAssertCreate) {
    if (base != nullptr) return CommitConflict("Requirement failed: table already exists");
    return Status::OK();
  }
  if (base == nullptr) {
    return CommitConflict("Requirement failed: current table metadata is missing");
  }
  switch (requirement.kind) {
    case Kind::kAssertCreate:
      break;
    case Kind::kAssertTableUuid:
      if (requirement.uuid != base->table_uuid) {
        return CommitConflict("Requirement failed: UUID does not match: expected ",
                              requirement.uuid, " != ", base->table_uuid);
      }
      break;
    case Kind::kAssertRefSnapshotId: {
      auto it = base->refs.find(requirement.ref);
      if (it != base->refs.end()) {
        const char* type = it->second.type == spec::SnapshotRefType::kBranch ? "branch" : "tag";
        if (!requirement.snapshot_id) {
          return CommitConflict("Requirement failed: ", type, " ", requirement.ref,
                                " was created concurrently");
        }
        if (*requirement.snapshot_id != it->second.snapshot_id) {
          return CommitConflict("Requirement failed: ", type, " ", requirement.ref,
                                " has changed: expected id ", *requirement.snapshot_id,
                                " != ", it->second.snapshot_id);
        }
      } else if (requirement.snapshot_id) {
        return CommitConflict("Requirement failed: branch or tag ", requirement.ref,
                              " is missing, expected ", *requirement.snapshot_id);
      }
      break;
    }
    case Kind::kAssertLastAssignedFieldId:
      if (requirement.id != base->last_column_id) {
        return Failed("last assigned field id", requirement.id, base->last_column_id);
      }
      break;
    case Kind::kAssertCurrentSchemaId:
      if (requirement.id != base->current_schema_id) {
        return Failed("current schema", requirement.id, base->current_schema_id);
      }
      break;
    case Kind::kAssertLastAssignedPartitionId:
      if (requirement.id != base->last_partition_id) {
        return Failed("last assigned partition id", requirement.id, base->last_partition_id);
      }
      break;
    case Kind::kAssertDefaultSpecId:
      if (requirement.id != base->default_spec_id) {
        return Failed("default partition spec", requirement.id, base->default_spec_id);
      }
      break;
    case Kind::kAssertDefaultSortOrderId:
      if (requirement.id != base->default_sort_order_id) {
        return Failed("default sort order", requirement.id, base->default_sort_order_id);
      }
      break;
  }
  return Status::OK();
}

Status ApplyUpdate(const MetadataUpdate& update, TableMetadataBuilder& builder) {
  Status st = Apply(update, builder);
  if (st.ok()) return st;
  if (IsCommitConflict(st)) return st;  // the table moved under the update: 409, retryable
  return ValidationError("Invalid update ", UpdateName(update), ": ", st.message());
}

Result<std::shared_ptr<spec::TableMetadata>> ApplyTableChanges(
    const spec::TableMetadataPtr& base, const std::vector<UpdateRequirement>& requirements,
    const std::vector<MetadataUpdate>& updates) {
  for (const auto& requirement : requirements) {
    ARROW_RETURN_NOT_OK(CheckRequirement(requirement, base.get()));
  }
  TableMetadataBuilder builder(base);
  for (const auto& update : updates) ARROW_RETURN_NOT_OK(ApplyUpdate(update, builder));
  if (!builder.changed()) return std::shared_ptr<spec::TableMetadata>();
  std::shared_ptr<spec::TableMetadata> md = builder.Build();
  DropIntermediateSnapshots(base.get(), md.get());
  return md;
}

Result<std::shared_ptr<spec::TableMetadata>> NewTableFromUpdates(
    const std::vector<UpdateRequirement>& requirements, const std::vector<MetadataUpdate>& updates,
    const std::string& default_location) {
  for (const auto& requirement : requirements) {
    ARROW_RETURN_NOT_OK(CheckRequirement(requirement, nullptr));
  }
  int32_t format_version = 2;
  std::string uuid;
  std::string location = default_location;
  for (const auto& update : updates) {
    if (const auto* u = std::get_if<update::UpgradeFormatVersion>(&update)) {
      if (u->format_version > kMaxWritableFormatVersion) {
        return ValidationError(
            "Invalid update upgrade-format-version: Cannot upgrade table to unsupported format "
            "version: v",
            u->format_version, " (supported: v", kMaxWritableFormatVersion, ")");
      }
      if (u->format_version < 1) {
        return ValidationError(
            "Invalid update upgrade-format-version: Unsupported format version: v",
            u->format_version);
      }
      format_version = u->format_version;
    } else if (const auto* assign = std::get_if<update::AssignUuid>(&update)) {
      uuid = assign->uuid;
    } else if (const auto* set = std::get_if<update::SetLocation>(&update)) {
      location = set->location;
    }
  }
  if (uuid.empty()) uuid = NewUuid();
  TableMetadataBuilder builder =
      TableMetadataBuilder::ForNewTable(format_version, std::move(uuid), std::move(location));
  for (const auto& update : updates) ARROW_RETURN_NOT_OK(ApplyUpdate(update, builder));
  if (!builder.current().current_schema()) {
    return ValidationError(
        "Cannot create a table without a schema: no add-schema and "
        "set-current-schema");
  }
  // A table always has a spec and an order; a create that states none is unpartitioned and
  // unsorted.
  if (builder.current().partition_specs.empty()) {
    ARROW_RETURN_NOT_OK(builder.AddPartitionSpec(spec::PartitionSpec(0, {})).status());
    ARROW_RETURN_NOT_OK(builder.SetDefaultPartitionSpec(TableMetadataBuilder::kLastAdded));
  }
  if (builder.current().sort_orders.empty()) {
    ARROW_RETURN_NOT_OK(builder.AddSortOrder(spec::SortOrder{}).status());
    ARROW_RETURN_NOT_OK(builder.SetDefaultSortOrder(TableMetadataBuilder::kLastAdded));
  }
  std::shared_ptr<spec::TableMetadata> md = builder.Build();
  DropIntermediateSnapshots(nullptr, md.get());
  return md;
}

}  // namespace floe::table
