#include "floe/server/http/lineage_layout.h"

#include <algorithm>

namespace floe::server::http {

LineageLayout LayOutLineage(const spec::TableMetadata& metadata) {
  LineageLayout layout;
  layout.jumps = table::MainJumps(metadata);
  // Each lane waits for the snapshot to be drawn next on it; nullopt when free.
  std::vector<std::optional<int64_t>> lanes;
  for (const table::LineageItem& item : table::LineageOrder(metadata, layout.jumps)) {
    LineageRow row;
    if (item.jump) {
      row.jump = item.jump;
      layout.rows.push_back(row);
      continue;
    }
    const spec::Snapshot& s = *item.snapshot;
    auto waiting = std::find(lanes.begin(), lanes.end(), std::optional<int64_t>(s.snapshot_id));
    if (waiting == lanes.end()) waiting = std::find(lanes.begin(), lanes.end(), std::nullopt);
    if (waiting == lanes.end()) waiting = lanes.insert(lanes.end(), std::nullopt);
    const size_t lane = static_cast<size_t>(waiting - lanes.begin());
    lanes[lane].reset();  // free again unless the line goes on to the parent
    const bool has_parent = s.parent_snapshot_id && metadata.SnapshotById(*s.parent_snapshot_id);
    const bool parent_awaited =
        has_parent && std::find(lanes.begin(), lanes.end(),
                                std::optional<int64_t>(*s.parent_snapshot_id)) != lanes.end();
    // Only one lane waits for a snapshot: a second child joins the lane already waiting.
    if (has_parent && !parent_awaited) lanes[lane] = *s.parent_snapshot_id;
    row.snapshot = &s;
    row.lane = static_cast<int>(lane);
    layout.rows.push_back(row);
    layout.lanes = std::max(layout.lanes, static_cast<int>(lanes.size()));
  }
  return layout;
}

}  // namespace floe::server::http
