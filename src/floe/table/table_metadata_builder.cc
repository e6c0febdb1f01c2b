#include "floe/table/table_metadata_builder.h"

#include <algorithm>

#include "floe/util/clock.h"

namespace floe::table {

namespace {

// Iceberg tolerates this much clock skew between writers before it calls a snapshot's
// timestamp out of order.
constexpr int64_t kOneMinuteMs = 60 * 1000;

}  // namespace

TableMetadataBuilder::TableMetadataBuilder(std::shared_ptr<spec::TableMetadata> md,
                                           int64_t base_last_updated_ms)
    : md_(std::move(md)), change_time_ms_(std::max(NowMillis(), base_last_updated_ms)) {}

TableMetadataBuilder::TableMetadataBuilder(const spec::TableMetadataPtr& base)
    : TableMetadataBuilder(std::make_shared<spec::TableMetadata>(*base), base->last_updated_ms) {
  md_->IndexSnapshots();
}

TableMetadataBuilder TableMetadataBuilder::ForNewTable(int32_t format_version,
                                                       std::string table_uuid,
                                                       std::string location) {
  auto md = std::make_shared<spec::TableMetadata>();
  md->format_version = format_version;
  md->table_uuid = std::move(table_uuid);
  md->location = std::move(location);
  md->last_partition_id = spec::kFirstPartitionFieldId - 1;
  md->schemas.clear();
  md->partition_specs.clear();
  md->sort_orders.clear();
  TableMetadataBuilder builder(std::move(md), 0);
  builder.changed_ = true;
  return builder;
}

Result<int32_t> TableMetadataBuilder::AddSchema(const spec::Schema& schema) {
  for (const auto& s : md_->schemas) {
    if (s && s->SameStructure(schema)) {
      last_added_schema_id_ = s->schema_id();
      return s->schema_id();
    }
  }
  int32_t id = 0;
  for (const auto& s : md_->schemas) {
    if (s) id = std::max(id, s->schema_id() + 1);
  }
  auto added = std::make_shared<const spec::Schema>(id, schema.fields(), schema.identifier_field_ids());
  md_->last_column_id = std::max(md_->last_column_id, added->HighestFieldId());
  md_->schemas.push_back(std::move(added));
  last_added_schema_id_ = id;
  changed_ = true;
  return id;
}

Status TableMetadataBuilder::SetCurrentSchema(int32_t schema_id) {
  if (schema_id == kLastAdded) {
    if (!last_added_schema_id_) {
      return ValidationError("Cannot set last added schema: no schema has been added");
    }
    schema_id = *last_added_schema_id_;
  }
  if (!md_->SchemaById(schema_id)) {
    return ValidationError("Cannot set current schema to unknown schema: ", schema_id);
  }
  if (md_->current_schema_id != schema_id) {
    md_->current_schema_id = schema_id;
    changed_ = true;
  }
  return Status::OK();
}

Result<int32_t> TableMetadataBuilder::AddPartitionSpec(const spec::PartitionSpec& spec) {
  for (const auto& s : md_->partition_specs) {
    if (s.fields() == spec.fields()) {
      last_added_spec_id_ = s.spec_id();
      return s.spec_id();
    }
  }
  int32_t id = 0;
  for (const auto& s : md_->partition_specs) id = std::max(id, s.spec_id() + 1);
  md_->partition_specs.emplace_back(id, spec.fields());
  md_->last_partition_id = std::max(md_->last_partition_id, spec.LastAssignedFieldId());
  last_added_spec_id_ = id;
  changed_ = true;
  return id;
}

Status TableMetadataBuilder::SetDefaultPartitionSpec(int32_t spec_id) {
  if (spec_id == kLastAdded) {
    if (!last_added_spec_id_) {
      return ValidationError("Cannot set last added spec: no spec has been added");
    }
    spec_id = *last_added_spec_id_;
  }
  if (!md_->SpecById(spec_id)) {
    return ValidationError("Cannot set default partition spec to unknown spec: ", spec_id);
  }
  if (md_->default_spec_id != spec_id) {
    md_->default_spec_id = spec_id;
    changed_ = true;
  }
  return Status::OK();
}

Result<int32_t> TableMetadataBuilder::AddSortOrder(const spec::SortOrder& order) {
  for (const auto& o : md_->sort_orders) {
    if (o.fields == order.fields) {
      last_added_order_id_ = o.order_id;
      return o.order_id;
    }
  }
  int32_t id = 0;
  if (!order.is_unsorted()) {
    id = 1;
    for (const auto& o : md_->sort_orders) id = std::max(id, o.order_id + 1);
  }
  spec::SortOrder added = order;
  added.order_id = id;
  md_->sort_orders.push_back(std::move(added));
  last_added_order_id_ = id;
  changed_ = true;
  return id;
}

Status TableMetadataBuilder::SetDefaultSortOrder(int32_t order_id) {
  if (order_id == kLastAdded) {
    if (!last_added_order_id_) {
      return ValidationError("Cannot set last added sort order: no sort order has been added");
    }
    order_id = *last_added_order_id_;
  }
  if (!md_->SortOrderById(order_id)) {
    return ValidationError("Cannot set default sort order to unknown order: ", order_id);
  }
  if (md_->default_sort_order_id != order_id) {
    md_->default_sort_order_id = order_id;
    changed_ = true;
  }
  return Status::OK();
}

int64_t TableMetadataBuilder::NextSequenceNumber() const {
  return md_->format_version >= 2 ? md_->last_sequence_number + 1 : 0;
}

Status TableMetadataBuilder::AddSnapshot(spec::Snapshot snapshot) {
  const int64_t id = snapshot.snapshot_id;
  if (md_->SnapshotById(id)) return ValidationError("Snapshot already exists for id: ", id);
  // A snapshot without a parent starts a new line of history (a replace transaction's), so
  // Iceberg takes it at any sequence number; last-sequence-number still never goes down.
  if (md_->format_version >= 2 && snapshot.sequence_number <= md_->last_sequence_number &&
      snapshot.parent_snapshot_id.has_value()) {
    return ValidationError("Cannot add snapshot with sequence number ", snapshot.sequence_number,
                           " older than last sequence number ", md_->last_sequence_number);
  }
  if (snapshot.parent_snapshot_id && !md_->SnapshotById(*snapshot.parent_snapshot_id)) {
    return ValidationError("Cannot add snapshot ", id, ": parent snapshot ",
                           *snapshot.parent_snapshot_id, " does not exist");
  }
  if (!md_->snapshot_log.empty() &&
      snapshot.timestamp_ms - md_->snapshot_log.back().timestamp_ms < -kOneMinuteMs) {
    return ValidationError("Invalid snapshot timestamp ", snapshot.timestamp_ms,
                           ": before last snapshot timestamp ",
                           md_->snapshot_log.back().timestamp_ms);
  }
  if (md_->format_version >= 3) {
    // Row lineage: each snapshot takes the next range of row ids.
    if (!snapshot.first_row_id) {
      return ValidationError("Cannot add a snapshot: first-row-id is null");
    }
    if (*snapshot.first_row_id < md_->next_row_id) {
      // Another commit took these ids first: the writer may assign new ones and retry.
      return CommitConflict("Cannot add a snapshot, first-row-id is behind table next-row-id: ",
                             *snapshot.first_row_id, " < ", md_->next_row_id);
    }
    if (!snapshot.added_rows || *snapshot.added_rows < 0) {
      return ValidationError("Cannot add a snapshot: added-rows is ",
                             snapshot.added_rows ? std::to_string(*snapshot.added_rows) : "null");
    }
  }
  if (md_->format_version >= 2) {
    md_->last_sequence_number = std::max(md_->last_sequence_number, snapshot.sequence_number);
  }
  if (md_->format_version >= 3) {
    md_->next_row_id = *snapshot.first_row_id + *snapshot.added_rows;
  }
  md_->snapshots.push_back(std::move(snapshot));
  md_->snapshot_index[id] = md_->snapshots.size() - 1;
  added_snapshot_ids_.insert(id);
  changed_ = true;
  return Status::OK();
}

Status TableMetadataBuilder::SetRef(const std::string& name, const spec::SnapshotRef& ref) {
  const spec::Snapshot* snapshot = md_->SnapshotById(ref.snapshot_id);
  if (!snapshot) {
    return ValidationError("Cannot set ", name, " to unknown snapshot: ", ref.snapshot_id);
  }
  auto it = md_->refs.find(name);
  const bool same = it != md_->refs.end() && it->second == ref;
  if (name == spec::kMainBranch && md_->current_snapshot_id != ref.snapshot_id) {
    const int64_t when = added_snapshot_ids_.count(ref.snapshot_id) ? snapshot->timestamp_ms
                                                                     : change_time_ms_;
    md_->current_snapshot_id = ref.snapshot_id;
    md_->snapshot_log.push_back({when, ref.snapshot_id});
    changed_ = true;
  }
  if (!same) {
    md_->refs[name] = ref;
    changed_ = true;
  }
  return Status::OK();
}

Status TableMetadataBuilder::SetBranchSnapshot(spec::Snapshot snapshot, const std::string& branch) {
  spec::SnapshotRef ref;
  auto it = md_->refs.find(branch);
  if (it != md_->refs.end()) {
    if (!it->second.is_branch()) {
      return ValidationError("Cannot append snapshot to non-branch reference ", branch);
    }
    ref = it->second;
  }
  ref.snapshot_id = snapshot.snapshot_id;
  ref.type = spec::SnapshotRefType::kBranch;
  ARROW_RETURN_NOT_OK(AddSnapshot(std::move(snapshot)));
  return SetRef(branch, ref);
}

void TableMetadataBuilder::RemoveRef(const std::string& name) {
  if (md_->refs.erase(name) > 0) changed_ = true;
  if (name == spec::kMainBranch && md_->current_snapshot_id) {
    md_->current_snapshot_id.reset();
    changed_ = true;
  }
}

Status TableMetadataBuilder::RemoveSnapshots(const std::set<int64_t>& snapshot_ids) {
  for (int64_t id : snapshot_ids) {
    if (!md_->SnapshotById(id)) continue;
    std::string names;
    for (const auto& [name, ref] : md_->refs) {
      if (ref.snapshot_id == id) names += (names.empty() ? "" : ", ") + name;
    }
    // v1 metadata may have a current snapshot and no main ref.
    if (names.empty() && md_->current_snapshot_id == id) names = spec::kMainBranch;
    if (!names.empty()) {
      return ValidationError("Cannot expire ", id, ". Still referenced by refs: [", names, "]");
    }
  }
  const size_t before = md_->snapshots.size();
  std::erase_if(md_->snapshots,
                [&](const spec::Snapshot& s) { return snapshot_ids.count(s.snapshot_id) > 0; });
  if (md_->snapshots.size() == before) return Status::OK();
  md_->IndexSnapshots();
  std::erase_if(md_->statistics, [&](const spec::StatisticsFile& f) {
    return snapshot_ids.count(f.snapshot_id) > 0;
  });
  std::erase_if(md_->partition_statistics, [&](const spec::PartitionStatisticsFile& f) {
    return snapshot_ids.count(f.snapshot_id) > 0;
  });
  std::vector<spec::SnapshotLogEntry> log;
  for (const auto& entry : md_->snapshot_log) {
    if (md_->SnapshotById(entry.snapshot_id)) {
      log.push_back(entry);
    } else {
      log.clear();
    }
  }
  md_->snapshot_log = std::move(log);
  changed_ = true;
  return Status::OK();
}

void TableMetadataBuilder::RemovePartitionSpecs(const std::set<int32_t>& spec_ids) {
  const size_t before = md_->partition_specs.size();
  std::erase_if(md_->partition_specs, [&](const spec::PartitionSpec& s) {
    return s.spec_id() != md_->default_spec_id && spec_ids.count(s.spec_id()) > 0;
  });
  if (md_->partition_specs.size() != before) changed_ = true;
}

void TableMetadataBuilder::RemoveSchemas(const std::set<int32_t>& schema_ids) {
  const size_t before = md_->schemas.size();
  std::erase_if(md_->schemas, [&](const spec::SchemaPtr& s) {
    return s->schema_id() != md_->current_schema_id && schema_ids.count(s->schema_id()) > 0;
  });
  if (md_->schemas.size() != before) changed_ = true;
}

Status TableMetadataBuilder::AssignUuid(const std::string& uuid) {
  if (uuid.empty()) return ValidationError("Cannot set uuid to null");
  if (md_->table_uuid == uuid) return Status::OK();
  if (!md_->table_uuid.empty()) return ValidationError("Cannot reassign uuid");
  md_->table_uuid = uuid;
  changed_ = true;
  return Status::OK();
}

Status TableMetadataBuilder::UpgradeFormatVersion(int32_t format_version, int32_t max_supported) {
  if (format_version > max_supported) {
    return ValidationError("Cannot upgrade table to unsupported format version: v",
                           format_version, " (supported: v", max_supported, ")");
  }
  if (format_version < md_->format_version) {
    return ValidationError("Cannot downgrade v", md_->format_version, " table to v",
                           format_version);
  }
  if (format_version != md_->format_version) {
    md_->format_version = format_version;
    changed_ = true;
  }
  return Status::OK();
}

void TableMetadataBuilder::SetLocation(const std::string& location) {
  if (md_->location == location) return;
  md_->location = location;
  changed_ = true;
}

Status TableMetadataBuilder::SetStatistics(spec::StatisticsFile file) {
  if (!md_->SnapshotById(file.snapshot_id)) {
    return ValidationError("Cannot set statistics for unknown snapshot: ", file.snapshot_id);
  }
  RemoveStatistics(file.snapshot_id);
  md_->statistics.push_back(std::move(file));
  changed_ = true;
  return Status::OK();
}

void TableMetadataBuilder::RemoveStatistics(int64_t snapshot_id) {
  if (std::erase_if(md_->statistics, [&](const spec::StatisticsFile& f) {
        return f.snapshot_id == snapshot_id;
      }) > 0) {
    changed_ = true;
  }
}

Status TableMetadataBuilder::SetPartitionStatistics(spec::PartitionStatisticsFile file) {
  if (!md_->SnapshotById(file.snapshot_id)) {
    return ValidationError("Cannot set partition statistics for unknown snapshot: ",
                           file.snapshot_id);
  }
  RemovePartitionStatistics(file.snapshot_id);
  md_->partition_statistics.push_back(std::move(file));
  changed_ = true;
  return Status::OK();
}

void TableMetadataBuilder::RemovePartitionStatistics(int64_t snapshot_id) {
  if (std::erase_if(md_->partition_statistics, [&](const spec::PartitionStatisticsFile& f) {
        return f.snapshot_id == snapshot_id;
      }) > 0) {
    changed_ = true;
  }
}

void TableMetadataBuilder::SetProperties(const std::map<std::string, std::string>& updates) {
  for (const auto& [key, value] : updates) {
    auto [it, inserted] = md_->properties.try_emplace(key, value);
    if (inserted || it->second != value) {
      it->second = value;
      changed_ = true;
    }
  }
}

void TableMetadataBuilder::RemoveProperties(const std::set<std::string>& keys) {
  for (const auto& key : keys) {
    if (md_->properties.erase(key) > 0) changed_ = true;
  }
}

std::shared_ptr<spec::TableMetadata> TableMetadataBuilder::Build() {
  int64_t updated = std::max(change_time_ms_, md_->last_updated_ms);
  for (int64_t id : added_snapshot_ids_) {
    if (const spec::Snapshot* s = md_->SnapshotById(id)) updated = std::max(updated, s->timestamp_ms);
  }
  md_->last_updated_ms = updated;
  return md_;
}

void TableMetadataBuilder::RecordCommit(const spec::TableMetadata& base,
                                        const std::string& base_location,
                                        spec::TableMetadata* updated) {
  if (!base_location.empty()) {
    updated->metadata_log.push_back({base.last_updated_ms, base_location});
  }
  const int64_t keep = std::max<int64_t>(
      1, updated->PropertyAsInt("write.metadata.previous-versions-max", 100));
  if (static_cast<int64_t>(updated->metadata_log.size()) > keep) {
    updated->metadata_log.erase(updated->metadata_log.begin(), updated->metadata_log.end() - keep);
  }
  updated->last_updated_ms = std::max({NowMillis(), base.last_updated_ms, updated->last_updated_ms});
}

}  // namespace floe::table
