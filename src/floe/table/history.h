#pragma once

// The rows of the history and snapshots metadata tables, built from metadata alone.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/spec/table_metadata.h"

namespace floe::table {

// One row of `t.history`: one snapshot-log entry (not one snapshot: a rollback adds a row
// for an old snapshot with the time of the rollback).
struct HistoryRow {
  int64_t made_current_at_ms = 0;
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_id;  // null when the snapshot has no parent or was expired
  // Whether the snapshot is the current snapshot or one of its ancestors now.
  bool is_current_ancestor = false;
};

// In snapshot-log order (oldest first), as Iceberg's HistoryTable.
std::vector<HistoryRow> HistoryRows(const spec::TableMetadata& metadata);

// One row of `t.snapshots`.
struct SnapshotRow {
  int64_t committed_at_ms = 0;
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_id;
  std::string operation;
  std::string manifest_list;
  std::map<std::string, std::string> summary;  // without "operation", as Spark shows it
};

// In the metadata's snapshots order.
std::vector<SnapshotRow> SnapshotRows(const spec::TableMetadata& metadata);

}  // namespace floe::table
