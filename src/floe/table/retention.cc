#include "floe/table/retention.h"

#include <algorithm>

#include "floe/table/expire_snapshots.h"
#include "floe/table/manifest_walk.h"
#include "floe/table/time_travel.h"
#include "floe/util/ascii.h"
#include "floe/util/clock.h"
#include "floe/util/str_cat.h"

namespace floe::table {

namespace {

// "90d", "36h 0m": the largest whole units, for messages.
std::string Duration(int64_t ms) {
  const int64_t day = 86400000, hour = 3600000, minute = 60000;
  if (ms % day == 0) return StrCat(ms / day, "d");
  if (ms >= day) return StrCat(ms / day, "d ", (ms % day) / hour, "h");
  if (ms % hour == 0) return StrCat(ms / hour, "h");
  if (ms >= minute) return StrCat(ms / minute, "m");
  return StrCat(ms, "ms");
}

}  // namespace

Result<RetentionReport> CheckRetention(Table& table, std::optional<int64_t> required_ms,
                                       int64_t now_ms) {
  ARROW_RETURN_NOT_OK(table.Refresh());
  spec::TableMetadataPtr md = table.metadata();
  RetentionReport report;
  report.table = table.name();
  report.now_ms = now_ms;
  report.required_ms = required_ms;
  report.snapshot_count = static_cast<int64_t>(md->snapshots.size());
  for (const auto& s : md->snapshots) {
    if (!report.oldest_timestamp_ms || s.timestamp_ms < *report.oldest_timestamp_ms) {
      report.oldest_timestamp_ms = s.timestamp_ms;
      report.oldest_snapshot_id = s.snapshot_id;
    }
  }
  report.max_snapshot_age_ms =
      md->PropertyAsInt("history.expire.max-snapshot-age-ms", kDefaultMaxSnapshotAgeMs);
  report.min_snapshots_to_keep = md->PropertyAsInt("history.expire.min-snapshots-to-keep", 1);
  if (md->properties.count("history.expire.max-ref-age-ms")) {
    report.max_ref_age_ms = md->PropertyAsInt("history.expire.max-ref-age-ms", INT64_MAX);
  }
  report.gc_enabled = AsciiLower(md->Property("gc.enabled", "true")) != "false";

  // What the next expiry with the table's own settings would keep.
  ExpireSnapshotsOptions defaults;
  ARROW_ASSIGN_OR_RAISE(ExpiryPlan next, PlanExpiry(*md, defaults, now_ms));

  for (const auto& [name, ref] : md->refs) {
    RefHorizon h;
    h.name = name;
    h.is_branch = ref.is_branch();
    h.snapshot_id = ref.snapshot_id;
    auto chain =
        h.is_branch ? AncestorsOf(*md, ref.snapshot_id) : std::vector<const spec::Snapshot*>{};
    if (!h.is_branch) {
      if (const spec::Snapshot* s = md->SnapshotById(ref.snapshot_id)) chain.push_back(s);
    }
    if (chain.empty()) continue;
    h.oldest_snapshot_id = chain.back()->snapshot_id;
    h.oldest_timestamp_ms = chain.back()->timestamp_ms;
    h.ancestors_kept = static_cast<int64_t>(chain.size());
    if (name != spec::kMainBranch) {
      std::optional<int64_t> max_age =
          ref.max_ref_age_ms ? ref.max_ref_age_ms : report.max_ref_age_ms;
      if (max_age) h.ref_expires_at_ms = chain.front()->timestamp_ms + *max_age;
    }
    h.oldest_after_next_expiry_ms = chain.front()->timestamp_ms;
    for (const spec::Snapshot* s : chain) {
      if (!next.retained_snapshot_ids.count(s->snapshot_id)) break;
      h.oldest_after_next_expiry_ms = s->timestamp_ms;
    }
    report.refs.push_back(std::move(h));
  }
  std::stable_sort(report.refs.begin(), report.refs.end(),
                   [](const RefHorizon& a, const RefHorizon& b) {
                     return (a.name == spec::kMainBranch) > (b.name == spec::kMainBranch);
                   });

  // Bytes only history holds: reached by some snapshot, not by the current one.
  ManifestWalk walk(*table.io(), *md);
  ARROW_ASSIGN_OR_RAISE(ReachedFiles all, Reach(walk, *md));
  std::set<int64_t> current_ids;
  if (md->current_snapshot_id) current_ids.insert(*md->current_snapshot_id);
  ARROW_ASSIGN_OR_RAISE(ReachedFiles current, Reach(walk, *md, &current_ids));
  for (const auto& [path, file] : all.content) {
    if (current.content.count(path)) continue;
    report.history_only_bytes += file.size;
    ++report.history_only_files;
  }
  for (const auto& [path, length] : all.manifests) {
    if (current.manifests.count(path)) continue;
    report.history_only_bytes += length;
    ++report.history_only_files;
  }
  for (const auto& path : all.manifest_lists) {
    if (current.manifest_lists.count(path)) continue;
    auto size = table.io()->FileSize(path);
    if (size.ok()) report.history_only_bytes += *size;
    ++report.history_only_files;
  }

  if (!required_ms) return report;
  // Main must read as of `horizon`: the snapshot current then, and every ancestor since.
  const int64_t horizon = now_ms - *required_ms;
  const spec::SnapshotRef* main = nullptr;
  if (auto it = md->refs.find(spec::kMainBranch); it != md->refs.end()) main = &it->second;
  if (!main) return report;
  auto chain = AncestorsOf(*md, main->snapshot_id);
  // The newest ancestor at or before the horizon; when the whole lineage is younger, its root.
  size_t needed = chain.size() - 1;
  for (size_t i = 0; i < chain.size(); ++i) {
    if (chain[i]->timestamp_ms <= horizon) {
      needed = i;
      break;
    }
  }
  const spec::Snapshot* oldest = chain.back();
  if (oldest->timestamp_ms > horizon && oldest->parent_snapshot_id) {
    report.problems.push_back(
        StrCat("main can already be read back only to ", FormatMillisUtc(oldest->timestamp_ms),
               " UTC (snapshot ", oldest->snapshot_id, "; its parent ", *oldest->parent_snapshot_id,
               " has expired), not to ", FormatMillisUtc(horizon), " UTC"));
  } else if (report.gc_enabled) {
    for (size_t i = 0; i <= needed; ++i) {
      if (next.retained_snapshot_ids.count(chain[i]->snapshot_id)) continue;
      const spec::Snapshot* last_kept = i > 0 ? chain[i - 1] : chain[0];
      report.problems.push_back(
          StrCat("the next expire_snapshots with the table's settings would expire snapshot ",
                 chain[i]->snapshot_id, " (", FormatMillisUtc(chain[i]->timestamp_ms),
                 " UTC), leaving main readable back only to ",
                 FormatMillisUtc(last_kept->timestamp_ms), " UTC"));
      break;
    }
  }
  const int64_t branch_age = main->max_snapshot_age_ms.value_or(report.max_snapshot_age_ms);
  if (report.gc_enabled && branch_age < *required_ms) {
    report.problems.push_back(
        StrCat(main->max_snapshot_age_ms ? "main's max-snapshot-age-ms"
                                         : "history.expire.max-snapshot-age-ms",
               " is ", Duration(branch_age), ", shorter than the required ", Duration(*required_ms),
               ": expiry will remove history the requirement needs"));
  }
  return report;
}

}  // namespace floe::table
