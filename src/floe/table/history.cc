#include "floe/table/history.h"

#include <unordered_set>

#include "floe/table/time_travel.h"

namespace floe::table {

std::vector<HistoryRow> HistoryRows(const spec::TableMetadata& md) {
  std::unordered_set<int64_t> ancestors;
  for (const spec::Snapshot* s : CurrentAncestors(md)) ancestors.insert(s->snapshot_id);
  std::vector<HistoryRow> rows;
  rows.reserve(md.snapshot_log.size());
  for (const auto& e : md.snapshot_log) {
    HistoryRow row;
    row.made_current_at_ms = e.timestamp_ms;
    row.snapshot_id = e.snapshot_id;
    if (const spec::Snapshot* s = md.SnapshotById(e.snapshot_id))
      row.parent_id = s->parent_snapshot_id;
    row.is_current_ancestor = ancestors.count(e.snapshot_id) > 0;
    rows.push_back(row);
  }
  return rows;
}

std::vector<SnapshotRow> SnapshotRows(const spec::TableMetadata& md) {
  std::vector<SnapshotRow> rows;
  rows.reserve(md.snapshots.size());
  for (const auto& s : md.snapshots) {
    rows.push_back({s.timestamp_ms, s.snapshot_id, s.parent_snapshot_id, s.operation,
                    s.manifest_list, s.summary});
  }
  return rows;
}

}  // namespace floe::table
