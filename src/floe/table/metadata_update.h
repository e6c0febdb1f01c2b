#pragma once

// Changes to table metadata stated as data, as another engine sends them to a catalog (the
// Iceberg REST catalog's TableUpdate and TableRequirement): each update is applied through
// TableMetadataBuilder, so a commit from outside keeps every invariant floe's own commits
// keep, and each requirement is checked against the base the commit starts from.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/table/table_metadata_builder.h"
#include "floe/util/status.h"

namespace floe::table {

// The newest format version a table may be created at or upgraded to by a commit: the newest
// whose metadata floe reads (its own data writes on v3 tables wait for row lineage).
inline constexpr int32_t kMaxWritableFormatVersion = spec::kMaxReadableFormatVersion;

struct UpdateRequirement {
  enum class Kind {
    kAssertCreate,                   // the table does not exist
    kAssertTableUuid,                // uuid
    kAssertRefSnapshotId,            // ref at snapshot_id; nullopt: ref must not exist
    kAssertLastAssignedFieldId,      // id
    kAssertCurrentSchemaId,          // id
    kAssertLastAssignedPartitionId,  // id
    kAssertDefaultSpecId,            // id
    kAssertDefaultSortOrderId,       // id
  };
  Kind kind = Kind::kAssertCreate;
  std::string uuid;
  std::string ref;
  std::optional<int64_t> snapshot_id;
  int64_t id = 0;
};

// OK when `base` (null: the table does not exist) meets `requirement`; otherwise a
// CommitConflict in Iceberg's words ("Requirement failed: branch main has changed: expected
// id 1 != 2").
Status CheckRequirement(const UpdateRequirement& requirement, const spec::TableMetadata* base);

namespace update {
struct AssignUuid {
  std::string uuid;
};
struct UpgradeFormatVersion {
  int32_t format_version = 0;
};
struct AddSchema {
  spec::SchemaPtr schema;
};
struct SetCurrentSchema {
  int32_t schema_id = 0;  // -1: the schema added last
};
struct AddPartitionSpec {
  std::vector<spec::PartitionField> fields;
  bool has_field_ids = false;  // without, ids are assigned (reused for a known field)
};
struct SetDefaultSpec {
  int32_t spec_id = 0;  // -1: the spec added last
};
struct AddSortOrder {
  spec::SortOrder order;
};
struct SetDefaultSortOrder {
  int32_t order_id = 0;  // -1: the order added last
};
struct AddSnapshot {
  spec::Snapshot snapshot;
};
struct SetSnapshotRef {
  std::string name;
  spec::SnapshotRef ref;
};
struct RemoveSnapshots {
  std::set<int64_t> snapshot_ids;
};
struct RemoveSnapshotRef {
  std::string name;
};
struct SetLocation {
  std::string location;
};
struct SetProperties {
  std::map<std::string, std::string> updates;
};
struct RemoveProperties {
  std::set<std::string> removals;
};
struct SetStatistics {
  spec::StatisticsFile statistics;
};
struct RemoveStatistics {
  int64_t snapshot_id = 0;
};
struct SetPartitionStatistics {
  spec::PartitionStatisticsFile statistics;
};
struct RemovePartitionStatistics {
  int64_t snapshot_id = 0;
};
struct RemovePartitionSpecs {
  std::set<int32_t> spec_ids;
};
struct RemoveSchemas {
  std::set<int32_t> schema_ids;
};
}  // namespace update

using MetadataUpdate =
    std::variant<update::AssignUuid, update::UpgradeFormatVersion, update::AddSchema,
                 update::SetCurrentSchema, update::AddPartitionSpec, update::SetDefaultSpec,
                 update::AddSortOrder, update::SetDefaultSortOrder, update::AddSnapshot,
                 update::SetSnapshotRef, update::RemoveSnapshots, update::RemoveSnapshotRef,
                 update::SetLocation, update::SetProperties, update::RemoveProperties,
                 update::SetStatistics, update::RemoveStatistics, update::SetPartitionStatistics,
                 update::RemovePartitionStatistics, update::RemovePartitionSpecs,
                 update::RemoveSchemas>;

// The REST name of an update ("add-snapshot"), for messages.
const char* UpdateName(const MetadataUpdate& update);

// Applies `update`; a change the table cannot take is a Validation error that names the
// update ("Invalid update add-snapshot: Cannot add snapshot with sequence number 3 older
// than last sequence number 4") and leaves the builder's earlier changes as they were.
Status ApplyUpdate(const MetadataUpdate& update, TableMetadataBuilder& builder);

// Every requirement against `base`, then every update on a builder started from it. Null when
// nothing changes. Snapshots the updates add and make current only on the way to another leave
// the history (as Iceberg does), so one commit is one history entry.
Result<std::shared_ptr<spec::TableMetadata>> ApplyTableChanges(
    const spec::TableMetadataPtr& base, const std::vector<UpdateRequirement>& requirements,
    const std::vector<MetadataUpdate>& updates);

// The metadata of a table created by `updates` (a staged create): an empty table in the format
// version upgrade-format-version names (else v2), with the uuid assign-uuid gives (else a new
// one) at the location set-location gives (else `default_location`).
Result<std::shared_ptr<spec::TableMetadata>> NewTableFromUpdates(
    const std::vector<UpdateRequirement>& requirements, const std::vector<MetadataUpdate>& updates,
    const std::string& default_location);

}  // namespace floe::table
