#pragma once

// The one place where table metadata changes. Every operation (writes, schema and property
// updates, replace, snapshot management, expiry) starts a builder from the committed base,
// states its changes, and commits what Build() returns. The builder keeps the invariants
// Iceberg's TableMetadata.Builder keeps: ids only grow, sequence numbers only grow,
// refs point at known snapshots, moving main is logged, removed snapshots leave no ref and
// no history behind them, and every commit logs the metadata file it replaces.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/util/status.h"

namespace floe::table {

class TableMetadataBuilder {
 public:
  // Stands for "the schema / spec / sort order this builder added last".
  static constexpr int32_t kLastAdded = -1;

  // Changes to `base`; it is copied, never modified.
  explicit TableMetadataBuilder(const spec::TableMetadataPtr& base);
  // Metadata for a new table: no schema, spec, order or snapshot yet.
  static TableMetadataBuilder ForNewTable(int32_t format_version, std::string table_uuid,
                                          std::string location);

  const spec::TableMetadata& current() const { return *md_; }

  // ---- schemas ----
  // Adds `schema` unless one of the same structure exists (then that one is reused); a new
  // schema gets the next free id whatever id it carries. last-column-id never decreases.
  // Returns the id the schema has in the table.
  Result<int32_t> AddSchema(const spec::Schema& schema);
  Status SetCurrentSchema(int32_t schema_id);

  // ---- partition specs and sort orders ----
  // Reuses an identical spec; a new one gets the next free id. last-partition-id never
  // decreases.
  Result<int32_t> AddPartitionSpec(const spec::PartitionSpec& spec);
  Status SetDefaultPartitionSpec(int32_t spec_id);
  // The unsorted order is always id 0; other orders get ids from 1.
  Result<int32_t> AddSortOrder(const spec::SortOrder& order);
  Status SetDefaultSortOrder(int32_t order_id);

  // ---- snapshots and refs ----
  // The sequence number the next snapshot must carry (0 on v1 tables).
  int64_t NextSequenceNumber() const;
  // When metadata changes now: never earlier than the base's last-updated-ms, so time in
  // the table never runs backwards when the clock does.
  int64_t ChangeTime() const { return change_time_ms_; }
  // Errors: `Snapshot already exists for id: <id>`, `Cannot add snapshot with sequence number
  // <n> older than last sequence number <last>` (a snapshot without a parent, as a replace
  // transaction adds, may reuse one), `Cannot add snapshot <id>: parent snapshot
  // <parent> does not exist`, `Invalid snapshot timestamp <ts>: before last snapshot
  // timestamp <last>` (more than a minute before the last history entry).
  Status AddSnapshot(spec::Snapshot snapshot);
  // Points `name` at an existing snapshot (`Cannot set <name> to unknown snapshot: <id>`).
  // Moving main moves current-snapshot-id and appends one snapshot-log entry, stamped with
  // the snapshot's own time when it was added by this builder, else with ChangeTime().
  Status SetRef(const std::string& name, const spec::SnapshotRef& ref);
  // Adds `snapshot` and moves branch `branch` to it, keeping the branch's retention
  // (`Cannot append snapshot to non-branch reference <name>` for a tag).
  Status SetBranchSnapshot(spec::Snapshot snapshot, const std::string& branch);
  // Removing main also clears current-snapshot-id. Unknown names are ignored.
  void RemoveRef(const std::string& name);
  // Removes snapshots, their statistics, and their snapshot-log entries; as in Iceberg, a
  // history entry of a removed snapshot also drops the history before it (that history
  // would otherwise claim an older snapshot stayed current). Refuses snapshots a ref still
  // points at: `Cannot expire <id>. Still referenced by refs: [<names>]`. Unknown ids are
  // ignored.
  Status RemoveSnapshots(const std::set<int64_t>& snapshot_ids);

  // Removes partition specs and schemas by id, as an expiry that cleans expired metadata
  // does; the default spec and the current schema are never removed. Unknown ids are ignored.
  void RemovePartitionSpecs(const std::set<int32_t>& spec_ids);
  void RemoveSchemas(const std::set<int32_t>& schema_ids);

  // ---- identity, location, statistics ----
  // A table's uuid is given once: `Cannot reassign uuid`.
  Status AssignUuid(const std::string& uuid);
  // Up to `max_supported`: `Cannot downgrade v2 table to v1`, `Cannot upgrade table to
  // unsupported format version: v4 (supported: v3)`.
  Status UpgradeFormatVersion(int32_t format_version, int32_t max_supported);
  void SetLocation(const std::string& location);
  // Replaces the statistics file of the same snapshot; `Cannot set statistics for unknown
  // snapshot: <id>` when the table has no such snapshot.
  Status SetStatistics(spec::StatisticsFile file);
  void RemoveStatistics(int64_t snapshot_id);
  Status SetPartitionStatistics(spec::PartitionStatisticsFile file);
  void RemovePartitionStatistics(int64_t snapshot_id);

  // ---- properties ----
  void SetProperties(const std::map<std::string, std::string>& updates);
  void RemoveProperties(const std::set<std::string>& keys);

  // Whether any call changed the metadata.
  bool changed() const { return changed_; }

  // The new metadata, last-updated-ms stamped. The metadata-log entry for the replaced file
  // is added at commit time (RecordCommit), when the file's location is known.
  std::shared_ptr<spec::TableMetadata> Build();

  // Logs `base_location` (the file `base` was read from; empty for a new table) in
  // `updated`'s metadata-log, keeps only the newest write.metadata.previous-versions-max
  // entries (default 100, at least 1), and stamps last-updated-ms.
  static void RecordCommit(const spec::TableMetadata& base, const std::string& base_location,
                           spec::TableMetadata* updated);

 private:
  TableMetadataBuilder(std::shared_ptr<spec::TableMetadata> md, int64_t base_last_updated_ms);

  std::shared_ptr<spec::TableMetadata> md_;
  int64_t change_time_ms_ = 0;
  bool changed_ = false;
  std::optional<int32_t> last_added_schema_id_;
  std::optional<int32_t> last_added_spec_id_;
  std::optional<int32_t> last_added_order_id_;
  std::set<int64_t> added_snapshot_ids_;
};

}  // namespace floe::table
