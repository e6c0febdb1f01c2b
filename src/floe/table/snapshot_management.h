#pragma once

// Moving main and naming points in history: rollback, set-current, cherry-pick,
// fast-forward, tags and branches, with Iceberg 1.10's rules and error phrases and the
// result columns of Spark's procedures.
//
// Everything except cherry-pick is a metadata-only commit: no snapshot is created, no
// manifest or data file is opened; one metadata file is written and swapped in with one
// compare-and-swap (retried on conflict after re-validating against the new base). When
// main moves, exactly one snapshot-log entry is appended, stamped with the time of the
// change. A change that changes nothing (rolling back to the current snapshot) commits
// nothing, as in Iceberg. Rollback moves main only and never changes the current schema.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/table/table.h"

namespace floe::table {

// rollback_to_snapshot, rollback_to_timestamp, set_current_snapshot.
struct SetCurrentResult {
  std::optional<int64_t> previous_snapshot_id;  // null for a table that had no snapshot
  int64_t current_snapshot_id = 0;
};

// The target must exist (`Cannot roll back to unknown snapshot id: <id>`) and be an
// ancestor of the current snapshot (`Cannot roll back to snapshot, not an ancestor of the
// current state: <id>`).
Result<SetCurrentResult> RollbackToSnapshot(Table& table, int64_t snapshot_id);

// Iceberg's rollbackToTime: the current ancestor with the newest *commit* timestamp
// strictly before `timestamp_ms`. This differs from TIMESTAMP AS OF, which picks the
// snapshot-log entry made current at or before the instant (and may pick a snapshot a
// rollback bypassed). None: `Cannot roll back, no valid snapshot older than: <ms>`.
Result<SetCurrentResult> RollbackToTimestamp(Table& table, int64_t timestamp_ms);

// Any existing snapshot, ancestor or not; exactly one of the two arguments:
// `Either snapshot_id or ref must be provided, not both`. Unknown id:
// `Cannot roll back to unknown snapshot id: <id>`; unknown ref:
// `Cannot find matching snapshot ID for ref <ref>`.
Result<SetCurrentResult> SetCurrentSnapshot(Table& table, std::optional<int64_t> snapshot_id,
                                            std::optional<std::string> ref = std::nullopt);

struct CherrypickResult {
  int64_t source_snapshot_id = 0;
  int64_t current_snapshot_id = 0;
};

// Iceberg's CherryPickOperation onto main:
//  - when the source's parent is the current snapshot (or both are null) main
//    fast-forwards to the source (no new snapshot, one snapshot-log entry);
//  - an `append` source is re-applied as a new `append` snapshot on main that adds the
//    source's added data files (re-added in a new manifest; data files are not copied),
//    with summary `source-snapshot-id` (and `published-wap-id` for a WAP snapshot);
//  - anything else fails.
// Errors: `Cannot cherry-pick unknown snapshot ID: <id>`,
// `Cannot cherrypick snapshot <id>: already an ancestor`,
// `Cannot cherrypick snapshot <id>: already picked to create ancestor <ancestor>`,
// `Duplicate request to cherry pick wap id that was published already: <wap id>`,
// `Cannot cherry-pick snapshot <id>: not append, dynamic overwrite, or fast-forward`.
// Not done: cherry-picking a dynamic-partition overwrite (`replace-partitions=true`) that
// is not a fast-forward fails with the last message.
Result<CherrypickResult> CherrypickSnapshot(Table& table, int64_t snapshot_id);

struct FastForwardResult {
  std::string branch_updated;
  std::optional<int64_t> previous_ref;  // null when `branch` did not exist (it is created)
  int64_t updated_ref = 0;
};

// Moves `branch` to the snapshot of ref `to` when the branch's snapshot is an ancestor of
// it. Errors: `Ref does not exist: <to>`, `Ref <branch> is a tag not a branch`,
// `Cannot fast-forward: <branch> is not an ancestor of <to>`.
Result<FastForwardResult> FastForward(Table& table, const std::string& branch,
                                      const std::string& to);

// ancestors_of: the snapshot (default: the current one) and its ancestors, newest first,
// with their commit timestamps; empty when the snapshot is unknown or the table is empty.
struct AncestorRow {
  int64_t snapshot_id = 0;
  int64_t timestamp_ms = 0;
};
std::vector<AncestorRow> AncestorsOfRows(const spec::TableMetadata& metadata,
                                         std::optional<int64_t> snapshot_id = std::nullopt);

// ---- Tags and branches (one namespace) ----

enum class RefWriteMode {
  kCreate,           // CREATE [IF NOT EXISTS]
  kReplace,          // REPLACE
  kCreateOrReplace,  // CREATE OR REPLACE
};

struct RefOptions {
  RefWriteMode mode = RefWriteMode::kCreate;
  bool if_not_exists = false;                    // kCreate only: an existing ref is left as it is
  std::optional<int64_t> snapshot_id;            // AS OF VERSION; default: the current snapshot
  std::optional<int64_t> max_ref_age_ms;         // RETAIN n DAYS|HOURS|MINUTES
  std::optional<int32_t> min_snapshots_to_keep;  // branches: WITH SNAPSHOT RETENTION n SNAPSHOTS
  std::optional<int64_t> max_snapshot_age_ms;    // branches: WITH SNAPSHOT RETENTION n DAYS
};

// Errors: `Ref <name> already exists` (create over any ref), `Tag does not exist: <name>`
// (replace), `Ref <name> is a branch not a tag`, `Cannot set <name> to unknown snapshot:
// <id>`, `Cannot complete create or replace tag operation on <table>, main has no snapshot`,
// `Max reference age must be greater than 0`.
Status CreateOrReplaceTag(Table& table, const std::string& name, const RefOptions& options);

// As Spark's CreateOrReplaceBranchExec; creating a branch on a table without snapshots
// commits an empty snapshot to the new branch, as Iceberg does. Errors: `Ref <name> already
// exists`, `Branch does not exist: <name>` (replace), `Ref <name> is a tag not a branch`,
// `Cannot complete replace branch operation on <table>, main has no snapshot`,
// `Min snapshots to keep must be greater than 0`, `Max snapshot age must be greater than
// 0 ms`, `Max reference age must be greater than 0`. Replacing main moves the current
// snapshot (one snapshot-log entry).
Status CreateOrReplaceBranch(Table& table, const std::string& name, const RefOptions& options);

// `Tag does not exist: <name>`, `Ref <name> is a branch not a tag`; with `if_exists` a
// missing tag is not an error.
Status DropTag(Table& table, const std::string& name, bool if_exists = false);
// `Cannot remove main branch`, `Branch does not exist: <name>`,
// `Ref <name> is a tag not a branch`.
Status DropBranch(Table& table, const std::string& name, bool if_exists = false);
// `Cannot rename main branch`, `Branch does not exist: <name>`, `Ref <new> already exists`.
Status RenameBranch(Table& table, const std::string& name, const std::string& new_name);

}  // namespace floe::table
