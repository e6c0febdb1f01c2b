#include "floe/table/commit.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include "floe/table/location_policy.h"
#include "floe/table/metadata_files.h"
#include "floe/util/clock.h"

namespace floe::table {

RetryPolicy RetryPolicy::FromMetadata(const spec::TableMetadata& metadata) {
  RetryPolicy policy;
  policy.num_retries = static_cast<int32_t>(
      metadata.PropertyAsInt("commit.retry.num-retries", policy.num_retries));
  policy.min_wait_ms = metadata.PropertyAsInt("commit.retry.min-wait-ms", policy.min_wait_ms);
  policy.max_wait_ms = metadata.PropertyAsInt("commit.retry.max-wait-ms", policy.max_wait_ms);
  policy.total_timeout_ms =
      metadata.PropertyAsInt("commit.retry.total-timeout-ms", policy.total_timeout_ms);
  return policy;
}

void RecordPreviousMetadata(const spec::TableMetadata& base, const std::string& base_location,
                            spec::TableMetadata* updated) {
  if (!base_location.empty()) {
    updated->metadata_log.push_back({base.last_updated_ms, base_location});
  }
  int64_t keep = std::max<int64_t>(
      1, updated->PropertyAsInt("write.metadata.previous-versions-max", 100));
  if (static_cast<int64_t>(updated->metadata_log.size()) > keep) {
    updated->metadata_log.erase(updated->metadata_log.begin(),
                                updated->metadata_log.end() - keep);
  }
  // Never move backwards in time, even if the clock does.
  updated->last_updated_ms = std::max(NowMillis(), base.last_updated_ms);
}

namespace {

void RemoveFiles(FileIO& io, const std::vector<std::string>& files) {
  for (const auto& f : files) (void)io.DeleteFile(f, FileKind::kOther);
}

int64_t Backoff(const RetryPolicy& policy, int attempt) {
  double wait = static_cast<double>(policy.min_wait_ms) * std::pow(2.0, attempt);
  wait = std::min(wait, static_cast<double>(policy.max_wait_ms));
  static thread_local std::mt19937 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.0, 0.1 * wait);
  return static_cast<int64_t>(wait + jitter(rng));
}

}  // namespace

Status Commit(Table& table, const ApplyFn& apply) {
  FileIO& io = *table.io();
  const int64_t start = NowMillis();
  RetryPolicy policy = RetryPolicy::FromMetadata(*table.metadata());
  for (int attempt = 0;; ++attempt) {
    spec::TableMetadataPtr base = table.metadata();
    std::string base_location = table.metadata_location();
    std::vector<std::string> attempt_files;
    auto updated = apply(base, &attempt_files);
    if (!updated.ok()) {
      RemoveFiles(io, attempt_files);
      return updated.status();
    }
    std::shared_ptr<spec::TableMetadata> metadata = std::move(updated).ValueUnsafe();
    if (Status confined = CheckTableLocations(table, *metadata); !confined.ok()) {
      RemoveFiles(io, attempt_files);
      return confined;
    }
    RecordPreviousMetadata(*base, base_location, metadata.get());
    std::string location = NextMetadataLocation(*metadata, base_location);
    Status st = io.WriteFile(location, FileKind::kMetadata, spec::WriteTableMetadata(*metadata));
    if (!st.ok()) {
      RemoveFiles(io, attempt_files);
      return WithContext(st, "Cannot commit " + table.name());
    }
    st = table.catalog()->SwapMetadataLocation(table.ident(), base_location, location);
    if (st.ok()) {
      table.SetCurrent(std::move(metadata), std::move(location));
      return Status::OK();
    }
    if (IsCommitStateUnknown(st)) {
      // The new metadata may be live: removing anything could corrupt the table.
      return WithContext(st, "Commit state of " + table.name() + " is unknown");
    }
    (void)io.DeleteFile(location, FileKind::kMetadata);
    RemoveFiles(io, attempt_files);
    bool out_of_time = NowMillis() - start > policy.total_timeout_ms;
    if (!IsCommitConflict(st) || attempt >= policy.num_retries || out_of_time) return st;
    std::this_thread::sleep_for(std::chrono::milliseconds(Backoff(policy, attempt)));
    ARROW_RETURN_NOT_OK(table.Refresh());
  }
}

}  // namespace floe::table
