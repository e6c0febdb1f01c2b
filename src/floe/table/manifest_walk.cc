#include "floe/table/manifest_walk.h"

#include "floe/manifest/manifest_reader.h"

namespace floe::table {

Result<const std::vector<manifest::ManifestFile>*> ManifestWalk::Manifests(
    const spec::Snapshot& snap) {
  if (snap.manifest_list.empty()) {
    if (snap.v1_manifests.empty()) return &no_manifests_;
    return Status::NotImplemented(
        "snapshot ", snap.snapshot_id,
        " lists its manifests in the table metadata (format v1), which is not read here");
  }
  auto it = lists_.find(snap.manifest_list);
  if (it != lists_.end()) return &it->second;
  auto read = manifest::ReadManifestList(io_, snap.manifest_list);
  if (!read.ok())
    return WithContext(read.status(), "cannot read manifest list " + snap.manifest_list);
  return &lists_.emplace(snap.manifest_list, std::move(read).ValueUnsafe()).first->second;
}

Result<const std::vector<LiveFile>*> ManifestWalk::Live(const manifest::ManifestFile& mf) {
  auto it = manifests_.find(mf.manifest_path);
  if (it != manifests_.end()) return &it->second;
  manifest::ReadManifestOptions options;
  options.projection.metric_ids =
      std::vector<int32_t>{};  // no column metrics: paths and sizes only
  auto entries = manifest::ReadManifest(io_, mf, md_, options);
  if (!entries.ok())
    return WithContext(entries.status(), "cannot read manifest " + mf.manifest_path);
  std::vector<LiveFile> live;
  live.reserve(entries->size());
  for (auto& e : *entries) {
    if (e.status == manifest::EntryStatus::kDeleted) continue;
    live.push_back(
        {std::move(e.data_file.file_path), e.data_file.content, e.data_file.file_size_in_bytes});
  }
  return &manifests_.emplace(mf.manifest_path, std::move(live)).first->second;
}

Status ManifestWalk::ReadAll(const spec::TableMetadata& md) {
  for (const auto& snap : md.snapshots) {
    ARROW_ASSIGN_OR_RAISE(auto list, Manifests(snap));
    for (const auto& mf : *list) ARROW_RETURN_NOT_OK(Live(mf).status());
  }
  return Status::OK();
}

void ReachedFiles::Merge(const ReachedFiles& other) {
  manifest_lists.insert(other.manifest_lists.begin(), other.manifest_lists.end());
  manifests.insert(other.manifests.begin(), other.manifests.end());
  content.insert(other.content.begin(), other.content.end());
  statistics.insert(other.statistics.begin(), other.statistics.end());
}

Result<ReachedFiles> Reach(ManifestWalk& walk, const spec::TableMetadata& md,
                           const std::set<int64_t>* ids) {
  ReachedFiles out;
  for (const auto& snap : md.snapshots) {
    if (ids && !ids->count(snap.snapshot_id)) continue;
    if (!snap.manifest_list.empty()) out.manifest_lists.insert(snap.manifest_list);
    ARROW_ASSIGN_OR_RAISE(auto list, walk.Manifests(snap));
    for (const auto& mf : *list) {
      if (!out.manifests.emplace(mf.manifest_path, mf.manifest_length).second) continue;
      ARROW_ASSIGN_OR_RAISE(auto live, walk.Live(mf));
      for (const auto& f : *live) out.content.emplace(f.path, f);
    }
  }
  for (const auto& s : md.statistics) {
    if (!ids || ids->count(s.snapshot_id)) out.statistics.insert(s.statistics_path);
  }
  for (const auto& s : md.partition_statistics) {
    if (!ids || ids->count(s.snapshot_id)) out.statistics.insert(s.statistics_path);
  }
  return out;
}

}  // namespace floe::table
