#include "floe/table/commit.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "floe/spec/metadata_diff.h"
#include "floe/table/audit_change.h"
#include "floe/table/location_policy.h"
#include "floe/table/metadata_files.h"
#include "floe/table/multi_table_transaction.h"
#include "floe/table/protection.h"
#include "floe/util/ascii.h"
#include "floe/util/clock.h"

namespace floe::table {

RetryPolicy RetryPolicy::FromMetadata(const spec::TableMetadata& metadata) {
  RetryPolicy policy;
  policy.num_retries =
      static_cast<int32_t>(metadata.PropertyAsInt("commit.retry.num-retries", policy.num_retries));
  policy.min_wait_ms = metadata.PropertyAsInt("commit.retry.min-wait-ms", policy.min_wait_ms);
  policy.max_wait_ms = metadata.PropertyAsInt("commit.retry.max-wait-ms", policy.max_wait_ms);
  policy.total_timeout_ms =
      metadata.PropertyAsInt("commit.retry.total-timeout-ms", policy.total_timeout_ms);
  return policy;
}

int64_t RetryBackoffMs(const RetryPolicy& policy, int attempt) {
  double wait = static_cast<double>(policy.min_wait_ms) * std::pow(2.0, attempt);
  wait = std::min(wait, static_cast<double>(policy.max_wait_ms));
  static thread_local std::mt19937 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.0, 0.1 * wait);
  return static_cast<int64_t>(wait + jitter(rng));
}

namespace {

std::atomic<int64_t> commits_done{0}, commit_attempts{0}, commit_conflicts{0};

void RemoveFiles(FileIO& io, const std::vector<std::string>& files) {
  for (const auto& f : files) (void)io.DeleteFile(f, FileKind::kOther);
}


// write.metadata.delete-after-commit.enabled: metadata files that fell off the metadata
// log with this commit are no longer tracked by anyone, so they go (best effort: the commit
// has already happened).
void RemoveDroppedMetadataFiles(const Table& table, const spec::TableMetadata& base,
                                const std::string& base_location,
                                const spec::TableMetadata& updated) {
  if (AsciiLower(updated.Property("write.metadata.delete-after-commit.enabled", "false")) != "true")
    return;
  std::set<std::string> kept;
  for (const auto& e : updated.metadata_log) kept.insert(e.metadata_file);
  std::vector<std::string> previous;
  for (const auto& e : base.metadata_log) previous.push_back(e.metadata_file);
  if (!base_location.empty()) previous.push_back(base_location);
  // Only files under the table's own directories: a metadata log edited to name other
  // files must not turn a commit into a deletion elsewhere.
  auto policy = LocationPolicy::ForCatalog(*table.catalog());
  if (!policy.ok()) return;
  PurgeScope scope(*policy, updated);
  for (const auto& file : previous) {
    if (!kept.count(file) && scope.Allows(file))
      (void)table.io()->DeleteFile(file, FileKind::kMetadata);
  }
}

// After the catalog reported CommitStateUnknown: the table's metadata log can still tell.
// Every metadata file lists the ones before it in commit order, so once the chain holds
// `base_location`, the file that follows it is the commit that won the compare-and-swap
// from there: `location` (ours) or another (ours never happened, as the swap expected
// base_location). nullopt when the log no longer reaches back to base_location or the
// table cannot be read.
std::optional<bool> CommittedPerMetadataLog(Table& table, const std::string& base_location,
                                            const std::string& location) {
  if (!table.Refresh().ok()) return std::nullopt;
  auto current = table.metadata();
  std::vector<std::string> chain;
  chain.reserve(current->metadata_log.size() + 1);
  for (const auto& entry : current->metadata_log) chain.push_back(entry.metadata_file);
  chain.push_back(table.metadata_location());
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    if (chain[i] == base_location) return chain[i + 1] == location;
  }
  return std::nullopt;
}

// After a catalog that commits by request lost its answer: reloads the table and looks for
// what the commit added. A commit that added snapshots happened exactly when the first of them
// is in the table; one that added none (a schema or property change) happened when nothing
// is left to change. nullopt when the table cannot be read.
std::optional<bool> CommittedPerReload(Table& table, const spec::TableMetadata& base,
                                       const spec::TableMetadata& updated) {
  if (!table.Refresh().ok()) return std::nullopt;
  auto current = table.metadata();
  for (const auto& snapshot : updated.snapshots) {
    if (base.SnapshotById(snapshot.snapshot_id) != nullptr) continue;
    return current->SnapshotById(snapshot.snapshot_id) != nullptr;
  }
  auto left = spec::DiffTableMetadata(*current, updated);
  if (!left.ok()) return false;
  return left->updates.empty();
}

// One attempt through a catalog that commits by request (an Iceberg REST catalog): the
// catalog writes the metadata file; floe's provenance rides in the new snapshots' summaries.
// CommitStateUnknown only when a reload cannot tell; a commit the reload shows lost to
// another is a CommitConflict, to be retried.
// `reloaded` tells whether the table was loaded again after the attempt (it then need not be
// before the next).
Status CommitByRequest(Table& table, const spec::TableMetadata& base,
                       std::shared_ptr<spec::TableMetadata> updated, bool* reloaded) {
  *reloaded = false;
  StampProvenance(table.provenance(), base, updated.get());
  auto committed = table.catalog()->CommitTable(table.ident(), &base, *updated);
  if (committed.ok()) {
    spec::TableMetadataPtr metadata = committed->metadata ? committed->metadata : updated;
    table.SetCurrent(std::move(metadata), std::move(committed->metadata_location));
    return Status::OK();
  }
  Status st = committed.status();
  // A conflict may be the request meeting itself (sent twice by a proxy or a load balancer):
  // the attempt's files must not be removed while the table holds its snapshot.
  const bool adds_snapshot =
      std::any_of(updated->snapshots.begin(), updated->snapshots.end(),
                  [&](const spec::Snapshot& s) { return base.SnapshotById(s.snapshot_id) == nullptr; });
  if (IsCommitConflict(st) && adds_snapshot) {
    const std::optional<bool> done = CommittedPerReload(table, base, *updated);
    *reloaded = done.has_value();
    return done == true ? Status::OK() : st;
  }
  if (!IsCommitStateUnknown(st)) return st;
  const std::optional<bool> done = CommittedPerReload(table, base, *updated);
  *reloaded = done.has_value();
  if (done == true) return Status::OK();
  if (!done.has_value()) return WithContext(st, "Commit state of " + table.name() + " is unknown");
  return CommitConflict("Cannot commit ", table.name(), ": the answer was lost and the table ",
                        "does not hold the change (", st.message(), ")");
}

}  // namespace

CommitCounters GlobalCommitCounters() {
  return {commits_done.load(), commit_attempts.load(), commit_conflicts.load()};
}

Result<WrittenMetadata> WriteNextMetadata(FileIO& io, const CommitProvenance& provenance,
                                          const spec::TableMetadata* base,
                                          const std::string& base_location,
                                          spec::TableMetadata* updated) {
  const spec::TableMetadata none;
  const spec::TableMetadata& from = base ? *base : none;
  TableMetadataBuilder::RecordCommit(from, base_location, updated);
  StampProvenance(provenance, from, updated);
  WrittenMetadata written;
  written.location = NextMetadataLocation(*updated, base_location);
  ARROW_RETURN_NOT_OK(
      io.WriteFile(written.location, FileKind::kMetadata, spec::WriteTableMetadata(*updated)));
  written.record = DescribeChange(base, *updated);
  AddProvenance(provenance, &written.record);
  return written;
}

Status Commit(Table& table, const ApplyFn& apply, const AuditNote& note) {
  if (table.transaction()) {
    return Status::Invalid("Cannot change ", table.name(), " this way inside a transaction: ",
                           "only INSERT, UPDATE, DELETE and MERGE run in a transaction block");
  }
  FileIO& io = *table.io();
  const int64_t start = NowMillis();
  RetryPolicy policy = RetryPolicy::FromMetadata(*table.metadata());
  for (int attempt = 0;; ++attempt) {
    spec::TableMetadataPtr base = table.metadata();
    std::string base_location = table.metadata_location();
    std::vector<std::string> attempt_files;
    commit_attempts.fetch_add(1, std::memory_order_relaxed);
    auto updated = apply(base, &attempt_files);
    if (!updated.ok()) {
      RemoveFiles(io, attempt_files);
      return updated.status();
    }
    std::shared_ptr<spec::TableMetadata> metadata = std::move(updated).ValueUnsafe();
    if (!metadata) {
      RemoveFiles(io, attempt_files);
      return Status::OK();
    }
    if (Status confined = CheckTableLocations(table, *metadata); !confined.ok()) {
      RemoveFiles(io, attempt_files);
      return confined;
    }
    if (Status allowed = CheckProtection(table.name(), *base, *metadata); !allowed.ok()) {
      RemoveFiles(io, attempt_files);
      RecordRefusal(table, allowed);
      return allowed;
    }
    Status st;
    bool reloaded = false;
    if (table.catalog()->CommitsMetadata()) {
      st = CommitByRequest(table, *base, std::move(metadata), &reloaded);
      if (st.ok()) {
        commits_done.fetch_add(1, std::memory_order_relaxed);
        return st;
      }
      if (IsCommitStateUnknown(st)) return st;  // the files may be live
    } else {
      auto written =
          WriteNextMetadata(io, table.provenance(), base.get(), base_location, metadata.get());
      if (!written.ok()) {
        RemoveFiles(io, attempt_files);
        return WithContext(written.status(), "Cannot commit " + table.name());
      }
      auto& [location, record] = *written;
      if (!note.kind.empty()) record.kind = note.kind;
      if (!note.detail.empty()) record.detail = note.detail;
      st = table.catalog()->SwapMetadataLocation(table.ident(), base_location, location, record);
      if (st.ok()) {
        commits_done.fetch_add(1, std::memory_order_relaxed);
        RemoveDroppedMetadataFiles(table, *base, base_location, *metadata);
        table.SetCurrent(std::move(metadata), std::move(location));
        return Status::OK();
      }
      if (IsCommitStateUnknown(st)) {
        const std::optional<bool> committed =
            CommittedPerMetadataLog(table, base_location, location);
        if (committed == true) {
          commits_done.fetch_add(1, std::memory_order_relaxed);
          return Status::OK();  // table.Refresh() loaded our commit or one on top of it
        }
        // The new metadata may be live: removing anything could corrupt the table.
        if (!committed.has_value()) {
          return WithContext(st, "Commit state of " + table.name() + " is unknown");
        }
        st = CommitConflict("Cannot commit ", table.name(), ": another commit won from ",
                            base_location, " (", st.message(), ")");
      }
      (void)io.DeleteFile(location, FileKind::kMetadata);
    }
    RemoveFiles(io, attempt_files);
    if (!IsCommitConflict(st)) return st;
    commit_conflicts.fetch_add(1, std::memory_order_relaxed);
    const int64_t elapsed = NowMillis() - start;
    if (attempt >= policy.num_retries) {
      return CommitConflict(
          "Cannot commit ", table.name(), ": gave up after ", attempt + 1,
          " attempts (commit.retry.num-retries=", policy.num_retries,
          ") because other writers kept committing first; last conflict: ", st.message());
    }
    if (elapsed > policy.total_timeout_ms) {
      return CommitConflict("Cannot commit ", table.name(), ": gave up after ", attempt + 1,
                            " attempts in ", elapsed,
                            " ms (commit.retry.total-timeout-ms=", policy.total_timeout_ms,
                            "); last conflict: ", st.message());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(RetryBackoffMs(policy, attempt)));
    if (!reloaded) ARROW_RETURN_NOT_OK(table.Refresh());
  }
}

Status CommitUpdate(Table& table, const UpdateFn& update) {
  return Commit(
      table,
      [&](const spec::TableMetadataPtr& base,
          std::vector<std::string>* files) -> Result<std::shared_ptr<spec::TableMetadata>> {
        TableMetadataBuilder builder(base);
        ARROW_RETURN_NOT_OK(update(builder, files));
        return builder.Build();
      });
}

}  // namespace floe::table
