#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/table/audit_change.h"
#include "floe/table/table.h"
#include "floe/table/table_metadata_builder.h"

namespace floe::table {

// Retry settings from the table properties commit.retry.* (Iceberg's defaults).
struct RetryPolicy {
  int32_t num_retries = 4;
  int64_t min_wait_ms = 100;
  int64_t max_wait_ms = 60000;
  int64_t total_timeout_ms = 1800000;
  static RetryPolicy FromMetadata(const spec::TableMetadata& metadata);
};

// How long to wait before retry number `attempt` (from 0): exponential from min_wait_ms up to
// max_wait_ms, with up to 10% jitter so writers that collided do not collide again.
int64_t RetryBackoffMs(const RetryPolicy& policy, int attempt);

// One attempt of a change: given the base metadata, produce the new metadata. Files the
// attempt writes (a manifest list, say) are registered with `attempt_files` so a failed
// attempt removes them. A non-OK result aborts the commit without retrying; a null result
// means there is nothing to change, and the commit ends without writing anything.
using ApplyFn = std::function<Result<std::shared_ptr<spec::TableMetadata>>(
    const spec::TableMetadataPtr& base, std::vector<std::string>* attempt_files)>;

// Applies `apply` to the table's current metadata, writes the next metadata file and
// swaps the catalog pointer to it. On a conflict the table is refreshed and `apply` runs
// again (it re-validates against the new base), with backoff. A failed commit leaves the
// table pointer unchanged and removes every file its attempts wrote; when the catalog
// cannot tell whether the swap happened, the error says so and nothing is removed.
// What a commit's audit-log row says beyond what DescribeChange reads off the metadata: the
// kind when the operation itself names it (a restore), and a detail.
struct AuditNote {
  std::string kind;  // empty: the kind DescribeChange gives
  std::string detail;
};

Status Commit(Table& table, const ApplyFn& apply, const AuditNote& note = {});

// The metadata file every commit writes, floe's own and other engines' alike: `base` (read
// from `base_location`; null and empty for a new table) joins `updated`'s metadata log, the
// provenance is stamped, and the file is written beside the base's. Its location, and the
// audit record of the change from `base` to `updated`.
struct WrittenMetadata {
  std::string location;
  AuditRecord record;
};
Result<WrittenMetadata> WriteNextMetadata(FileIO& io, const CommitProvenance& provenance,
                                          const spec::TableMetadata* base,
                                          const std::string& base_location,
                                          spec::TableMetadata* updated);

// Process-wide counts of commits, for benchmarks and diagnostics: `attempts` counts every
// try (a commit that retried twice adds 3), `conflicts` the tries another writer beat.
struct CommitCounters {
  int64_t commits = 0;
  int64_t attempts = 0;
  int64_t conflicts = 0;
};
CommitCounters GlobalCommitCounters();

// The usual way to commit: `update` states its changes on a builder started from the
// base of each attempt (and re-validates against it); the builder's result is committed.
using UpdateFn = std::function<Status(TableMetadataBuilder& builder,
                                      std::vector<std::string>* attempt_files)>;
Status CommitUpdate(Table& table, const UpdateFn& update);

}  // namespace floe::table
