#pragma once

// Changes to table metadata stated as data: the Iceberg REST catalog's TableRequirement and
// TableUpdate, as a client sends them in a commit and a catalog applies them.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "floe/spec/table_metadata.h"

namespace floe::spec {

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

namespace update {
struct AssignUuid {
  std::string uuid;
};
struct UpgradeFormatVersion {
  int32_t format_version = 0;
};
struct AddSchema {
  SchemaPtr schema;
};
struct SetCurrentSchema {
  int32_t schema_id = 0;  // -1: the schema added last
};
struct AddPartitionSpec {
  std::vector<PartitionField> fields;
  bool has_field_ids = false;  // without, ids are assigned (reused for a known field)
};
struct SetDefaultSpec {
  int32_t spec_id = 0;  // -1: the spec added last
};
struct AddSortOrder {
  SortOrder order;
};
struct SetDefaultSortOrder {
  int32_t order_id = 0;  // -1: the order added last
};
struct AddSnapshot {
  Snapshot snapshot;
};
struct SetSnapshotRef {
  std::string name;
  SnapshotRef ref;
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
  StatisticsFile statistics;
};
struct RemoveStatistics {
  int64_t snapshot_id = 0;
};
struct SetPartitionStatistics {
  PartitionStatisticsFile statistics;
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

}  // namespace floe::spec
