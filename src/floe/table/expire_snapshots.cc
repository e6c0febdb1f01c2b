#include "floe/table/expire_snapshots.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "floe/table/commit.h"
#include "floe/table/location_policy.h"
#include "floe/table/manifest_walk.h"
#include "floe/table/protection.h"
#include "floe/table/time_travel.h"
#include "floe/util/ascii.h"
#include "floe/util/clock.h"
#include "floe/util/progress.h"
#include "floe/util/str_cat.h"

namespace floe::table {

namespace {

bool ApplyAgePolicy(const ExpireSnapshotsOptions& options) {
  return options.snapshot_ids.empty() || options.older_than_ms || options.retain_last;
}

}  // namespace

Result<ExpiryPlan> PlanExpiry(const spec::TableMetadata& md, const ExpireSnapshotsOptions& options,
                              int64_t now_ms) {
  if (options.retain_last && *options.retain_last < 1) {
    return Status::Invalid("Number of snapshots to retain must be at least 1, cannot be: ",
                           *options.retain_last);
  }
  const int64_t older_than = options.older_than_ms.value_or(
      now_ms - md.PropertyAsInt("history.expire.max-snapshot-age-ms", kDefaultMaxSnapshotAgeMs));
  const int64_t min_to_keep = options.retain_last
                                  ? *options.retain_last
                                  : md.PropertyAsInt("history.expire.min-snapshots-to-keep", 1);
  const int64_t default_max_ref_age = md.PropertyAsInt("history.expire.max-ref-age-ms", INT64_MAX);
  const bool age_policy = ApplyAgePolicy(options);

  ExpiryPlan plan;
  // Refs that stay: main always (v1 metadata may have only a current snapshot), others while
  // their snapshot is younger than max-ref-age.
  std::map<std::string, spec::SnapshotRef> retained_refs;
  for (const auto& [name, ref] : RefsWithMain(md)) {
    const spec::Snapshot* snap = md.SnapshotById(ref.snapshot_id);
    // A protected ref stays whatever its age: dropping it is what the rule forbids.
    bool keep = name == spec::kMainBranch || FindProtectionRule(md, ref.is_branch(), name).has_value();
    if (!keep && snap) {
      const int64_t max_age = ref.max_ref_age_ms.value_or(default_max_ref_age);
      keep = !age_policy || now_ms - snap->timestamp_ms <= max_age;
    }
    if (keep) {
      retained_refs.emplace(name, ref);
    } else {
      plan.removed_refs.push_back(name);
    }
  }

  std::map<int64_t, std::vector<std::string>> ref_names;
  for (const auto& [name, ref] : retained_refs) ref_names[ref.snapshot_id].push_back(name);
  for (int64_t id : options.snapshot_ids) {
    auto it = ref_names.find(id);
    if (it == ref_names.end()) continue;
    std::string names;
    for (const auto& n : it->second) names += (names.empty() ? "" : ", ") + n;
    return Status::Invalid("Cannot expire ", id, ". Still referenced by refs: [", names, "]");
  }

  std::set<int64_t>& retained = plan.retained_snapshot_ids;
  for (const auto& [id, names] : ref_names) retained.insert(id);
  if (age_policy) {
    std::set<int64_t> referenced;
    for (const auto& [name, ref] : retained_refs) {
      if (!ref.is_branch()) {
        referenced.insert(ref.snapshot_id);
        continue;
      }
      const int64_t branch_older_than =
          ref.max_snapshot_age_ms ? now_ms - *ref.max_snapshot_age_ms : older_than;
      const int64_t branch_min =
          ref.min_snapshots_to_keep ? *ref.min_snapshots_to_keep : min_to_keep;
      int64_t kept = 0;
      bool done = false;
      for (const spec::Snapshot* s : AncestorsOf(md, ref.snapshot_id)) {
        referenced.insert(s->snapshot_id);
        if (done) continue;
        if (kept < branch_min || s->timestamp_ms >= branch_older_than) {
          retained.insert(s->snapshot_id);
          ++kept;
        } else {
          done = true;
        }
      }
    }
    // Snapshots no ref reaches go by age alone.
    for (const auto& s : md.snapshots) {
      if (!referenced.count(s.snapshot_id) && s.timestamp_ms >= older_than)
        retained.insert(s.snapshot_id);
    }
    for (const auto& s : md.snapshots) {
      if (!retained.count(s.snapshot_id)) plan.expired_snapshot_ids.insert(s.snapshot_id);
    }
  } else {
    for (const auto& s : md.snapshots) retained.insert(s.snapshot_id);
  }
  for (int64_t id : options.snapshot_ids) {
    if (md.SnapshotById(id)) {
      plan.expired_snapshot_ids.insert(id);
      retained.erase(id);
    }
  }
  return plan;
}

namespace {

struct Deletion {
  std::string path;
  FileKind kind;
  const char* type;  // RemovedFile::type
  int64_t* counter;
  std::optional<int64_t> size;
};

// Content files first, then the manifests naming them, then the lists naming those: an
// interrupted expiry leaves unreferenced files, never a manifest naming a deleted file.
int DeletionRank(FileKind kind) {
  return kind == FileKind::kData || kind == FileKind::kDelete ? 0 : kind == FileKind::kManifest ? 1 : 2;
}

// One planned expiry: the metadata it commits and the history it read doing so.
struct ExpiryAttempt {
  spec::TableMetadataPtr base;
  std::unique_ptr<ManifestWalk> walk;
  std::shared_ptr<spec::TableMetadata> updated;  // null: nothing to change
};

Result<ExpiryAttempt> PlanAttempt(Table& table, const spec::TableMetadataPtr& base,
                                  const ExpireSnapshotsOptions& options, int64_t now,
                                  ExpireSnapshotsResult* result) {
  if (Status allowed = CheckExpiryProtection(*base, options.snapshot_ids); !allowed.ok()) {
    if (!options.dry_run) RecordRefusal(table, allowed);
    return allowed;
  }
  ARROW_ASSIGN_OR_RAISE(ExpiryPlan plan, PlanExpiry(*base, options, now));
  // Read all of the history before changing it: a file named by a manifest that cannot be
  // read might still be in use, so nothing may be deleted on a partial picture.
  ExpiryAttempt attempt{base, std::make_unique<ManifestWalk>(*table.io(), *base), nullptr};
  if (options.delete_files || options.clean_expired_metadata || options.dry_run) {
    Status read = attempt.walk->ReadAll(*base);
    if (!read.ok()) return WithContext(read, "Cannot expire snapshots of " + table.name());
  }
  TableMetadataBuilder builder(base);
  for (const auto& name : plan.removed_refs) builder.RemoveRef(name);
  ARROW_RETURN_NOT_OK(builder.RemoveSnapshots(plan.expired_snapshot_ids));
  if (options.clean_expired_metadata) {
    std::set<int32_t> specs{base->default_spec_id};
    std::set<int32_t> schemas{base->current_schema_id};
    for (int64_t id : plan.retained_snapshot_ids) {
      const spec::Snapshot* snap = base->SnapshotById(id);
      if (!snap) continue;
      if (snap->schema_id) schemas.insert(*snap->schema_id);
      ARROW_ASSIGN_OR_RAISE(auto list, attempt.walk->Manifests(*snap));
      for (const auto& mf : *list) specs.insert(mf.partition_spec_id);
    }
    std::set<int32_t> drop_specs, drop_schemas;
    for (const auto& s : base->partition_specs) {
      if (!specs.count(s.spec_id())) drop_specs.insert(s.spec_id());
    }
    for (const auto& s : base->schemas) {
      if (!schemas.count(s->schema_id())) drop_schemas.insert(s->schema_id());
    }
    builder.RemovePartitionSpecs(drop_specs);
    builder.RemoveSchemas(drop_schemas);
  }
  result->expired_snapshot_ids.assign(plan.expired_snapshot_ids.begin(),
                                      plan.expired_snapshot_ids.end());
  result->removed_refs = plan.removed_refs;
  if (builder.changed()) attempt.updated = builder.Build();
  return attempt;
}

// The files `before` reaches and `kept` does not, in deletion order, each counted in `result`.
// Files outside the table's directories are never deleted; they are reported instead.
std::vector<Deletion> PlanDeletions(const ReachedFiles& before, const ReachedFiles& kept,
                                    const spec::TableMetadata& base, const PurgeScope& scope,
                                    ExpireSnapshotsResult* result) {
  std::map<std::string, int64_t> statistics_sizes;
  for (const auto& s : base.statistics) statistics_sizes[s.statistics_path] = s.file_size_in_bytes;
  for (const auto& s : base.partition_statistics) {
    statistics_sizes[s.statistics_path] = s.file_size_in_bytes;
  }
  std::vector<Deletion> deletions;
  auto plan_delete = [&](const std::string& path, FileKind kind, const char* type, int64_t* counter,
                         std::optional<int64_t> size) {
    if (!scope.Allows(path)) {
      result->failed_deletes.push_back(path + ": outside the table's directories, kept");
      return;
    }
    deletions.push_back({path, kind, type, counter, size});
  };
  for (const auto& [path, file] : before.content) {
    if (kept.content.count(path)) continue;
    const bool data = file.content == manifest::FileContent::kData;
    int64_t* counter = data ? &result->deleted_data_files
                       : file.content == manifest::FileContent::kPositionDeletes
                           ? &result->deleted_position_delete_files
                           : &result->deleted_equality_delete_files;
    plan_delete(path, data ? FileKind::kData : FileKind::kDelete, ContentFileType(file.content), counter,
                file.size);
  }
  for (const auto& [path, length] : before.manifests) {
    if (!kept.manifests.count(path)) {
      plan_delete(path, FileKind::kManifest, "manifest", &result->deleted_manifests, length);
    }
  }
  for (const auto& path : before.manifest_lists) {
    if (!kept.manifest_lists.count(path)) {
      plan_delete(path, FileKind::kManifestList, "manifest list", &result->deleted_manifest_lists,
                  std::nullopt);
    }
  }
  for (const auto& path : before.statistics) {
    if (kept.statistics.count(path)) continue;
    auto size = statistics_sizes.find(path);
    plan_delete(path, FileKind::kOther, "statistics file", &result->deleted_statistics_files,
                size == statistics_sizes.end() ? std::nullopt : std::optional<int64_t>(size->second));
  }
  std::stable_sort(deletions.begin(), deletions.end(), [](const Deletion& a, const Deletion& b) {
    return DeletionRank(a.kind) < DeletionRank(b.kind);
  });
  return deletions;
}

// Each file the snapshots `expired` reach, mapped to the newest of them (by commit time) that
// reached it.
Result<std::map<std::string, int64_t>> LastReachedBy(ManifestWalk& walk, const spec::TableMetadata& base,
                                                     const std::vector<int64_t>& expired) {
  std::vector<const spec::Snapshot*> oldest_first;
  for (int64_t id : expired) {
    if (const spec::Snapshot* s = base.SnapshotById(id)) oldest_first.push_back(s);
  }
  std::stable_sort(oldest_first.begin(), oldest_first.end(), [](const auto* a, const auto* b) {
    return std::tie(a->timestamp_ms, a->sequence_number) < std::tie(b->timestamp_ms, b->sequence_number);
  });
  std::map<std::string, int64_t> last;
  // A manifest shared by many snapshots is attributed once, to the newest; its files then
  // take the newest of the manifests that hold them.
  std::map<std::string, std::pair<size_t, const manifest::ManifestFile*>> manifest_owner;
  for (size_t rank = 0; rank < oldest_first.size(); ++rank) {
    const spec::Snapshot* snap = oldest_first[rank];
    if (!snap->manifest_list.empty()) last[snap->manifest_list] = snap->snapshot_id;
    ARROW_ASSIGN_OR_RAISE(auto list, walk.Manifests(*snap));
    for (const auto& mf : *list) manifest_owner[mf.manifest_path] = {rank, &mf};
  }
  std::map<std::string, size_t> file_rank;
  for (const auto& [path, owner] : manifest_owner) {
    last[path] = oldest_first[owner.first]->snapshot_id;
    ARROW_ASSIGN_OR_RAISE(auto live, walk.Live(*owner.second));
    for (const auto& f : *live) {
      auto [it, inserted] = file_rank.emplace(f.path, owner.first);
      if (!inserted && it->second < owner.first) it->second = owner.first;
    }
  }
  for (const auto& [path, rank] : file_rank) last[path] = oldest_first[rank]->snapshot_id;
  for (const auto& s : base.statistics) last.emplace(s.statistics_path, s.snapshot_id);
  for (const auto& s : base.partition_statistics) last.emplace(s.statistics_path, s.snapshot_id);
  return last;
}

Result<ExpireSnapshotsResult> DryRun(Table& table, const ExpireSnapshotsOptions& options, int64_t now) {
  ExpireSnapshotsResult result;
  ARROW_ASSIGN_OR_RAISE(ExpiryAttempt attempt,
                        PlanAttempt(table, table.metadata(), options, now, &result));
  if (!attempt.updated || !options.delete_files || result.expired_snapshot_ids.empty()) {
    return result;
  }
  ARROW_ASSIGN_OR_RAISE(ReachedFiles before, Reach(*attempt.walk, *attempt.base));
  ARROW_ASSIGN_OR_RAISE(ReachedFiles kept, Reach(*attempt.walk, *attempt.updated));
  ARROW_ASSIGN_OR_RAISE(auto policy, LocationPolicy::ForCatalog(*table.catalog()));
  PurgeScope scope(policy, *attempt.updated);
  std::vector<Deletion> deletions = PlanDeletions(before, kept, *attempt.base, scope, &result);
  ARROW_ASSIGN_OR_RAISE(auto last, LastReachedBy(*attempt.walk, *attempt.base, result.expired_snapshot_ids));
  for (const Deletion& d : deletions) {
    ++*d.counter;
    std::optional<int64_t> size = d.size;
    // Manifest lists carry no recorded length; ask the store.
    if (!size) {
      auto stat = table.io()->FileSize(d.path);
      if (stat.ok()) size = *stat;
    }
    auto by = last.find(d.path);
    result.files.push_back({d.path, d.type, size,
                            by == last.end() ? std::nullopt : std::optional<int64_t>(by->second)});
  }
  return result;
}

}  // namespace

Result<ExpireSnapshotsResult> ExpireSnapshots(Table& table, const ExpireSnapshotsOptions& options) {
  ARROW_RETURN_NOT_OK(table.Refresh());
  if (AsciiLower(table.metadata()->Property("gc.enabled", "true")) == "false") {
    return ValidationError(
        "Cannot expire snapshots: GC is disabled (deleting files may corrupt other tables)");
  }
  const int64_t now = options.now_ms.value_or(NowMillis());
  if (options.dry_run) return DryRun(table, options, now);
  FileIO& io = *table.io();

  ExpireSnapshotsResult result;
  ExpiryAttempt planned;
  Status st = Commit(table,
                     [&](const spec::TableMetadataPtr& attempt_base,
                         std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
                       ARROW_ASSIGN_OR_RAISE(planned,
                                             PlanAttempt(table, attempt_base, options, now, &result));
                       return planned.updated;
                     });
  ARROW_RETURN_NOT_OK(st);
  const std::shared_ptr<spec::TableMetadata>& committed = planned.updated;
  if (!committed || !options.delete_files || result.expired_snapshot_ids.empty()) return result;

  // What the expired history reached, less what the committed metadata, and any commit made
  // since, still reaches.
  ARROW_ASSIGN_OR_RAISE(ReachedFiles before, Reach(*planned.walk, *planned.base));
  ARROW_ASSIGN_OR_RAISE(ReachedFiles kept, Reach(*planned.walk, *committed));
  if (table.Refresh().ok() && table.metadata().get() != committed.get()) {
    auto latest = table.metadata();
    ManifestWalk fresh(io, *latest);
    auto later = Reach(fresh, *latest);
    // A later commit this process cannot read: keep everything rather than guess.
    if (!later.ok()) return result;
    kept.Merge(*later);
  }

  ARROW_ASSIGN_OR_RAISE(auto policy, LocationPolicy::ForCatalog(*table.catalog()));
  PurgeScope scope(policy, *committed);
  std::vector<Deletion> deletions = PlanDeletions(before, kept, *planned.base, scope, &result);

  std::mutex mu;
  std::vector<char> deleted(deletions.size(), 0);
  ProgressTask progress("Deleting expired files", static_cast<int64_t>(deletions.size()));
  auto run = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const Deletion& d = deletions[i];
      Status del = io.DeleteFile(d.path, d.kind);
      progress.Advance();
      std::lock_guard<std::mutex> lock(mu);
      if (del.ok() || IsNotFound(del)) {
        ++*d.counter;
        deleted[i] = 1;
      } else {
        result.failed_deletes.push_back(d.path + ": " + del.message());
      }
    }
  };
  const int32_t threads = std::max(1, options.max_concurrent_deletes);
  size_t start = 0;
  for (int rank = 0; rank < 3; ++rank) {
    size_t end = start;
    while (end < deletions.size() && DeletionRank(deletions[end].kind) == rank) ++end;
    if (threads == 1 || end - start < 2) {
      run(start, end);
    } else {
      std::vector<std::thread> pool;
      const size_t n = end - start;
      const size_t per = (n + threads - 1) / threads;
      for (size_t b = start; b < end; b += per) pool.emplace_back(run, b, std::min(end, b + per));
      for (auto& t : pool) t.join();
    }
    start = end;
  }
  for (size_t i = 0; i < deletions.size(); ++i) {
    const Deletion& d = deletions[i];
    if (deleted[i]) result.files.push_back({d.path, d.type, d.size, std::nullopt});
  }
  return result;
}

}  // namespace floe::table
