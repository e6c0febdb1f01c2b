#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/spec/partition_spec.h"
#include "floe/spec/schema.h"
#include "floe/spec/snapshot.h"
#include "floe/spec/sort_order.h"

namespace floe::spec {

// The newest format version whose metadata floe reads.
inline constexpr int32_t kMaxReadableFormatVersion = 3;

// Spec: "Table Metadata". One in-memory model for v1 and v2 files; a loaded TableMetadata
// is shared immutably (std::shared_ptr<const TableMetadata>), changes build a new one.
struct TableMetadata {
  int32_t format_version = 2;
  std::string table_uuid;
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<SchemaPtr> schemas;
  int32_t current_schema_id = 0;
  std::vector<PartitionSpec> partition_specs;
  int32_t default_spec_id = 0;
  int32_t last_partition_id = 999;
  std::map<std::string, std::string> properties;
  std::optional<int64_t> current_snapshot_id;
  std::vector<Snapshot> snapshots;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  std::vector<SortOrder> sort_orders;
  int32_t default_sort_order_id = 0;
  std::map<std::string, SnapshotRef> refs;
  std::vector<StatisticsFile> statistics;
  std::vector<PartitionStatisticsFile> partition_statistics;
  // v3: the first row id the next snapshot may assign.
  int64_t next_row_id = 0;
  // v3: the `encryption-keys` array as it was read, kept so a rewrite loses none.
  std::string encryption_keys_json;

  SchemaPtr current_schema() const { return SchemaById(current_schema_id); }
  SchemaPtr SchemaById(int32_t schema_id) const;  // nullptr when absent
  const PartitionSpec* SpecById(int32_t spec_id) const;
  const PartitionSpec* default_spec() const { return SpecById(default_spec_id); }
  const SortOrder* SortOrderById(int32_t order_id) const;
  const Snapshot* SnapshotById(int64_t snapshot_id) const;
  const Snapshot* current_snapshot() const;
  // The property's value, or `fallback` when unset.
  std::string Property(const std::string& key, const std::string& fallback) const;
  int64_t PropertyAsInt(const std::string& key, int64_t fallback) const;

  // Ignores snapshot_index.
  bool operator==(const TableMetadata& other) const;

  // Snapshot id -> position in `snapshots`, so SnapshotById is O(1) on tables with many
  // snapshots. ParseTableMetadata fills it; code that edits `snapshots` may call
  // IndexSnapshots() again. Lookups check the entry they find and fall back to a scan, so a
  // stale index is only slower, never wrong.
  std::unordered_map<int64_t, size_t> snapshot_index;
  void IndexSnapshots();
};

using TableMetadataPtr = std::shared_ptr<const TableMetadata>;

// Reads table metadata JSON (format v1, v2 or v3). `location` names the file in errors.
Result<std::shared_ptr<TableMetadata>> ParseTableMetadata(std::string_view json,
                                                          const std::string& location = "");
// Writes metadata JSON exactly in the spec's field names and shapes.
std::string WriteTableMetadata(const TableMetadata& metadata, bool pretty = false);

// Schema, partition spec and sort order JSON on their own (manifests carry them as key-value
// metadata, REST-style updates carry them too).
std::string SchemaToJson(const Schema& schema);
Result<SchemaPtr> SchemaFromJson(std::string_view json);
std::string PartitionSpecToJson(const PartitionSpec& spec);
// The `partition-spec` manifest key holds only the fields array.
std::string PartitionFieldsToJson(const PartitionSpec& spec);
Result<PartitionSpec> PartitionSpecFromJson(std::string_view json);
// The other parts of metadata on their own, as REST commit requests carry them.
std::string SortOrderToJson(const SortOrder& order);
std::string SnapshotToJson(const Snapshot& snapshot);
std::string RefToJson(const SnapshotRef& ref);
std::string StatisticsToJson(const StatisticsFile& file);
std::string PartitionStatisticsToJson(const PartitionStatisticsFile& file);

}  // namespace floe::spec
