#pragma once

// Expiring snapshots: removing old history from a table's metadata, then deleting the files
// only that history reached. Which snapshots go follows Iceberg's retention rules: the table's
// history.expire.* properties, each branch's own min-snapshots-to-keep and
// max-snapshot-age-ms, and each ref's max-ref-age-ms.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/table/removed_file.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

// history.expire.max-snapshot-age-ms when the table does not set it: 5 days.
inline constexpr int64_t kDefaultMaxSnapshotAgeMs = 5LL * 24 * 60 * 60 * 1000;

struct ExpireSnapshotsOptions {
  // Snapshots older than this (ms) may expire; unset: now - history.expire.max-snapshot-age-ms.
  std::optional<int64_t> older_than_ms;
  // Keep at least this many ancestors of each branch; unset: history.expire.min-snapshots-to-keep.
  std::optional<int32_t> retain_last;
  // Snapshots to expire by id. Given alone (no older_than, no retain_last), exactly these
  // expire and the age policy is not applied; Iceberg applies it as well.
  std::vector<int64_t> snapshot_ids;
  // Also remove partition specs and schemas no kept snapshot uses (never the current ones).
  bool clean_expired_metadata = false;
  // Delete the files only expired snapshots reached (false: only change the metadata).
  bool delete_files = true;
  // Threads that delete files, at least 1. Deleting is waiting on the file system, so
  // several threads finish sooner even on few cores.
  int32_t max_concurrent_deletes = 8;
  // The clock the age rules read (ms); unset: the system clock.
  std::optional<int64_t> now_ms;
  // Plan only: report in `files` what a run would delete, and change nothing.
  bool dry_run = false;
};

// Which snapshots and refs an expiry removes from `metadata`.
struct ExpiryPlan {
  std::set<int64_t> expired_snapshot_ids;
  std::set<int64_t> retained_snapshot_ids;
  std::vector<std::string> removed_refs;  // refs older than their max-ref-age-ms
};

// Errors: `Number of snapshots to retain must be at least 1, cannot be: <n>`,
// `Cannot expire <id>. Still referenced by refs: [<names>]`.
Result<ExpiryPlan> PlanExpiry(const spec::TableMetadata& metadata,
                              const ExpireSnapshotsOptions& options, int64_t now_ms);

struct ExpireSnapshotsResult {
  int64_t deleted_data_files = 0;
  int64_t deleted_position_delete_files = 0;
  int64_t deleted_equality_delete_files = 0;
  int64_t deleted_manifests = 0;
  int64_t deleted_manifest_lists = 0;
  int64_t deleted_statistics_files = 0;
  std::vector<int64_t> expired_snapshot_ids;  // ascending
  std::vector<std::string> removed_refs;
  // Files that could not be deleted (the expiry itself is committed); each with the reason.
  std::vector<std::string> failed_deletes;
  // Deleted (dry run: to be deleted), in the order of deletion: content files, manifests,
  // manifest lists, statistics files. The counts above count these.
  std::vector<RemovedFile> files;
};

// Plans, commits (retrying on conflicts against the refreshed table), then deletes the files
// that no snapshot of the committed metadata, nor of any commit made since, still reaches.
// Every manifest list and manifest of the table is read before the commit, each once; if one
// cannot be read the expiry fails with nothing changed, since a file it names might still be
// in use. Only files under the table's own directories are ever deleted.
// Errors: `Cannot expire snapshots: GC is disabled (deleting files may corrupt other tables)`
// when gc.enabled is false, and those of PlanExpiry.
Result<ExpireSnapshotsResult> ExpireSnapshots(Table& table, const ExpireSnapshotsOptions& options);

}  // namespace floe::table
