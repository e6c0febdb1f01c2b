#include "floe/table/expire_snapshots.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "floe/table/commit.h"
#include "floe/table/location_policy.h"
#include "floe/table/manifest_walk.h"
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
  // Refs that stay: main always, others while their snapshot is younger than max-ref-age.
  std::map<std::string, spec::SnapshotRef> retained_refs;
  for (const auto& [name, ref] : md.refs) {
    const spec::Snapshot* snap = md.SnapshotById(ref.snapshot_id);
    bool keep = name == spec::kMainBranch;
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
  // v1 metadata may have a current snapshot and no main ref.
  if (!retained_refs.count(spec::kMainBranch) && md.current_snapshot_id) {
    spec::SnapshotRef main;
    main.snapshot_id = *md.current_snapshot_id;
    retained_refs.emplace(spec::kMainBranch, main);
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
  int64_t* counter;
};

}  // namespace

Result<ExpireSnapshotsResult> ExpireSnapshots(Table& table, const ExpireSnapshotsOptions& options) {
  ARROW_RETURN_NOT_OK(table.Refresh());
  if (AsciiLower(table.metadata()->Property("gc.enabled", "true")) == "false") {
    return ValidationError(
        "Cannot expire snapshots: GC is disabled (deleting files may corrupt other tables)");
  }
  const int64_t now = options.now_ms.value_or(NowMillis());
  FileIO& io = *table.io();

  ExpireSnapshotsResult result;
  spec::TableMetadataPtr base;
  std::unique_ptr<ManifestWalk> cache;
  std::shared_ptr<spec::TableMetadata> committed;
  Status st =
      Commit(table,
             [&](const spec::TableMetadataPtr& attempt_base,
                 std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
               ARROW_ASSIGN_OR_RAISE(ExpiryPlan plan, PlanExpiry(*attempt_base, options, now));
               // Read all of the history before changing it: a file named by a manifest that cannot
               // be read might still be in use, so nothing may be deleted on a partial picture.
               auto attempt_cache = std::make_unique<ManifestWalk>(io, *attempt_base);
               if (options.delete_files || options.clean_expired_metadata) {
                 Status read = attempt_cache->ReadAll(*attempt_base);
                 if (!read.ok())
                   return WithContext(read, "Cannot expire snapshots of " + table.name());
               }
               TableMetadataBuilder builder(attempt_base);
               for (const auto& name : plan.removed_refs) builder.RemoveRef(name);
               ARROW_RETURN_NOT_OK(builder.RemoveSnapshots(plan.expired_snapshot_ids));
               if (options.clean_expired_metadata) {
                 std::set<int32_t> specs{attempt_base->default_spec_id};
                 std::set<int32_t> schemas{attempt_base->current_schema_id};
                 for (int64_t id : plan.retained_snapshot_ids) {
                   const spec::Snapshot* snap = attempt_base->SnapshotById(id);
                   if (!snap) continue;
                   if (snap->schema_id) schemas.insert(*snap->schema_id);
                   ARROW_ASSIGN_OR_RAISE(auto list, attempt_cache->Manifests(*snap));
                   for (const auto& mf : *list) specs.insert(mf.partition_spec_id);
                 }
                 std::set<int32_t> drop_specs, drop_schemas;
                 for (const auto& s : attempt_base->partition_specs) {
                   if (!specs.count(s.spec_id())) drop_specs.insert(s.spec_id());
                 }
                 for (const auto& s : attempt_base->schemas) {
                   if (!schemas.count(s->schema_id())) drop_schemas.insert(s->schema_id());
                 }
                 builder.RemovePartitionSpecs(drop_specs);
                 builder.RemoveSchemas(drop_schemas);
               }
               result.expired_snapshot_ids.assign(plan.expired_snapshot_ids.begin(),
                                                  plan.expired_snapshot_ids.end());
               result.removed_refs = plan.removed_refs;
               base = attempt_base;
               cache = std::move(attempt_cache);
               if (!builder.changed()) {
                 committed.reset();
                 return committed;  // nothing to commit
               }
               committed = builder.Build();
               return committed;
             });
  ARROW_RETURN_NOT_OK(st);
  if (!committed || !options.delete_files || result.expired_snapshot_ids.empty()) return result;

  // What the expired history reached, less what the committed metadata, and any commit made
  // since, still reaches.
  ARROW_ASSIGN_OR_RAISE(ReachedFiles before, Reach(*cache, *base));
  ARROW_ASSIGN_OR_RAISE(ReachedFiles kept, Reach(*cache, *committed));
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
  std::vector<Deletion> deletions;
  auto plan_delete = [&](const std::string& path, FileKind kind, int64_t* counter) {
    if (!scope.Allows(path)) {
      result.failed_deletes.push_back(path + ": outside the table's directories, kept");
      return;
    }
    deletions.push_back({path, kind, counter});
  };
  for (const auto& [path, file] : before.content) {
    if (kept.content.count(path)) continue;
    switch (file.content) {
      case manifest::FileContent::kData:
        plan_delete(path, FileKind::kData, &result.deleted_data_files);
        break;
      case manifest::FileContent::kPositionDeletes:
        plan_delete(path, FileKind::kDelete, &result.deleted_position_delete_files);
        break;
      case manifest::FileContent::kEqualityDeletes:
        plan_delete(path, FileKind::kDelete, &result.deleted_equality_delete_files);
        break;
    }
  }
  for (const auto& [path, length] : before.manifests) {
    if (!kept.manifests.count(path))
      plan_delete(path, FileKind::kManifest, &result.deleted_manifests);
  }
  for (const auto& path : before.manifest_lists) {
    if (!kept.manifest_lists.count(path))
      plan_delete(path, FileKind::kManifestList, &result.deleted_manifest_lists);
  }
  for (const auto& path : before.statistics) {
    if (!kept.statistics.count(path))
      plan_delete(path, FileKind::kOther, &result.deleted_statistics_files);
  }

  // Content files first, then the manifests naming them, then the lists naming those: an
  // interrupted expiry leaves unreferenced files, never a manifest naming a deleted file.
  std::mutex mu;
  ProgressTask progress("Deleting expired files", static_cast<int64_t>(deletions.size()));
  auto run = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const Deletion& d = deletions[i];
      Status del = io.DeleteFile(d.path, d.kind);
      progress.Advance();
      std::lock_guard<std::mutex> lock(mu);
      if (del.ok() || IsNotFound(del)) {
        ++*d.counter;
      } else {
        result.failed_deletes.push_back(d.path + ": " + del.message());
      }
    }
  };
  auto rank_of = [](FileKind k) {
    return k == FileKind::kData || k == FileKind::kDelete ? 0 : k == FileKind::kManifest ? 1 : 2;
  };
  std::stable_sort(deletions.begin(), deletions.end(), [&](const Deletion& a, const Deletion& b) {
    return rank_of(a.kind) < rank_of(b.kind);
  });
  const int32_t threads = std::max(1, options.max_concurrent_deletes);
  size_t start = 0;
  for (int rank = 0; rank < 3; ++rank) {
    size_t end = start;
    while (end < deletions.size() && rank_of(deletions[end].kind) == rank) ++end;
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
  return result;
}

}  // namespace floe::table
