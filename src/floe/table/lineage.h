#pragma once

// The lineage of a table drawn as `git log --graph` draws commits: newest first, one `*` row
// per snapshot with the refs naming it, side lines (branches, snapshots a rollback left
// behind) in lanes of their own that join their parent, and a `~` row where main's current
// snapshot jumped instead of moving to a new child:
//
//   ~ main rolled back from 5 to 4 at 2025-06-14 10:00:06
//   * 5 2025-06-14 10:00:05 append +1 records
//   * 4 (main, tag: v2) 2025-06-14 10:00:04 append +1 records
//   | ~ main rolled back from 3 to 2 at 2025-06-14 10:00:03
//   | * 3 2025-06-14 10:00:02 append +1 records
//   |/
//   | * 6 (branch: audit) 2025-06-14 10:00:01 append +1 records
//   * | 2 (tag: v1) 2025-06-14 10:00:00 append +1 records
//   |/
//   * 1 2025-06-14 09:59:59 append +2 records
//
// Rows are ordered by commit time (then sequence number), children always above their
// parent; the drawing depends on the metadata alone.

#include <cstdint>
#include <string>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/util/time_zone.h"

namespace floe::table {

// A change of main's current snapshot, recorded in the snapshot-log, that is not a new
// snapshot committed on top of the previous one.
struct MainJump {
  enum class Kind {
    kRollback,     // back to an ancestor of the previous current snapshot
    kFastForward,  // forward to a descendant of it (fast_forward, a branch's head)
    kMove,         // to a snapshot of another line (set_current_snapshot)
  };
  Kind kind = Kind::kMove;
  int64_t from_snapshot_id = 0;
  int64_t to_snapshot_id = 0;
  int64_t at_ms = 0;     // when the snapshot-log records the change
  size_t log_index = 0;  // of that snapshot-log entry
};

// "rollback", "fast-forward", "move".
const char* MainJumpKindName(MainJump::Kind kind);

// In snapshot-log order.
std::vector<MainJump> MainJumps(const spec::TableMetadata& metadata);

// One row of the lineage: a snapshot or a jump.
struct LineageItem {
  const spec::Snapshot* snapshot = nullptr;
  const MainJump* jump = nullptr;
};

// Every snapshot of the table and every jump, newest first, each snapshot above its parent.
std::vector<LineageItem> LineageOrder(const spec::TableMetadata& metadata,
                                      const std::vector<MainJump>& jumps);

// The refs naming a snapshot, as the graph shows them: main first, then "tag: <name>" and
// "branch: <name>" in name order.
std::vector<std::string> RefLabels(const spec::TableMetadata& metadata, int64_t snapshot_id);

// The drawing, one string per line (no trailing spaces); times in `zone`.
std::vector<std::string> DrawLineage(const spec::TableMetadata& metadata, const TimeZone& zone);

}  // namespace floe::table
