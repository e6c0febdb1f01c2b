#pragma once

// Restoring a table's whole state: the current snapshot and every branch and tag, the current
// schema, the default partition spec and sort order, and the properties, as one metadata file
// had them. The restore is one new commit on top of the current metadata, so every snapshot
// stays and the restore itself can be undone; ids only grow (a schema the table no longer
// lists comes back under a new id with its old field ids), and no data or manifest is touched.
// Protection rules are never lifted or loosened by a restore; one the table lost comes back.
//
// The state to restore is named by a metadata file of the table, by a snapshot (the newest
// metadata file that had it as the current snapshot), by a time (the metadata file that was
// current then) or by an audit-log entry (the metadata file that change left).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

// Exactly one of these.
struct RestorePoint {
  std::optional<std::string> metadata_file;
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> timestamp_ms;
  std::optional<int64_t> audit_seq;
};

struct RestoreTarget {
  std::string metadata_file;
  spec::TableMetadataPtr metadata;
  std::string point;  // how it was named, for messages: "snapshot 123", "audit log entry 7"
};

// The metadata file `point` names, read and checked against the table: it must be one of
// the table's own (same table uuid), and every snapshot its refs name must still exist.
// Errors name the table and the point: `Cannot restore <table> to snapshot <id>: ...`.
Result<RestoreTarget> ResolveRestorePoint(Table& table, const RestorePoint& point);

struct RestoreResult {
  std::optional<int64_t> previous_snapshot_id;
  std::optional<int64_t> current_snapshot_id;
  std::string restored_metadata_file;  // the state restored
};

// Commits the target's state on top of the current metadata (retrying on conflicts, the
// target staying the same), recorded in the audit log as kind `restore`.
Result<RestoreResult> RestoreTable(Table& table, const RestorePoint& point);

// What restoring `target` changes in `current`, one line per difference, in words:
// "current snapshot: 2 -> 1", "schema: 1 -> 0 (columns: id, name; was id, name, extra)",
// "property write.format.default: parquet -> (unset)", "tag v1: 5 -> 3". Empty when equal.
std::vector<std::string> DescribeRestore(const spec::TableMetadata& current,
                                         const spec::TableMetadata& target);

}  // namespace floe::table
