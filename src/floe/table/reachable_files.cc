#include "floe/table/reachable_files.h"

#include "floe/manifest/manifest_reader.h"

namespace floe::table {

namespace {
// Reading no metrics: the walk needs paths and sizes only.
manifest::ReadManifestOptions PathsOnly() {
  manifest::ReadManifestOptions options;
  options.projection.metric_ids = std::vector<int32_t>{};
  return options;
}
}  // namespace

void AddReachableFiles(FileIO& io, const spec::TableMetadata& md, const std::string& metadata_location,
                       ReachableFiles* out) {
  for (const auto& entry : md.metadata_log) out->metadata_files.insert(entry.metadata_file);
  if (!metadata_location.empty()) out->metadata_files.insert(metadata_location);
  for (const auto& s : md.statistics) out->statistics_files.insert(s.statistics_path);
  for (const auto& s : md.partition_statistics) out->statistics_files.insert(s.statistics_path);
  for (const auto& snap : md.snapshots) {
    if (snap.manifest_list.empty()) continue;
    if (!out->manifest_lists.insert(snap.manifest_list).second) continue;
    auto list = manifest::ReadManifestList(io, snap.manifest_list);
    if (!list.ok()) {
      out->unreadable.insert(snap.manifest_list);
      if (IsNotFound(list.status())) out->not_found.insert(snap.manifest_list);
      continue;
    }
    for (const auto& mf : *list) {
      // Snapshots share most manifests: each is read once.
      if (!out->manifests.insert(mf.manifest_path).second) continue;
      auto entries = manifest::ReadManifest(io, mf, md, PathsOnly());
      if (!entries.ok()) {
        out->unreadable.insert(mf.manifest_path);
        if (IsNotFound(entries.status())) out->not_found.insert(mf.manifest_path);
        continue;
      }
      for (const auto& e : *entries) out->content_files.insert(e.data_file.file_path);
    }
  }
}

ReachableFiles CollectReachableFiles(FileIO& io, const spec::TableMetadata& md,
                                     const std::string& metadata_location) {
  ReachableFiles out;
  AddReachableFiles(io, md, metadata_location, &out);
  return out;
}

const char* ReachableKindName(ReachableFile::Kind kind) {
  switch (kind) {
    case ReachableFile::Kind::kMetadata: return "metadata file";
    case ReachableFile::Kind::kManifestList: return "manifest list";
    case ReachableFile::Kind::kManifest: return "manifest";
    case ReachableFile::Kind::kData: return "data file";
    case ReachableFile::Kind::kDelete: return "delete file";
    case ReachableFile::Kind::kStatistics: return "statistics file";
  }
  return "file";
}

void WalkReachableFiles(FileIO& io, const spec::TableMetadata& md, const std::string& metadata_location,
                        const std::function<void(const ReachableFile&)>& visit,
                        const std::function<void(const ReachableFile&, const Status&)>& unreadable) {
  using Kind = ReachableFile::Kind;
  std::set<std::string> seen;
  auto first = [&](const std::string& location) { return seen.insert(location).second; };
  if (!metadata_location.empty() && first(metadata_location)) {
    visit(ReachableFile{Kind::kMetadata, metadata_location, std::nullopt, "the catalog", std::nullopt});
  }
  for (const auto& entry : md.metadata_log) {
    if (!first(entry.metadata_file)) continue;
    visit(ReachableFile{Kind::kMetadata, entry.metadata_file, std::nullopt, "the metadata log", std::nullopt});
  }
  const std::string by_metadata = metadata_location.empty() ? "the table metadata" : metadata_location;
  for (const auto& s : md.statistics) {
    if (!first(s.statistics_path)) continue;
    visit(ReachableFile{Kind::kStatistics, s.statistics_path, s.snapshot_id, by_metadata, s.file_size_in_bytes});
  }
  for (const auto& s : md.partition_statistics) {
    if (!first(s.statistics_path)) continue;
    visit(ReachableFile{Kind::kStatistics, s.statistics_path, s.snapshot_id, by_metadata, s.file_size_in_bytes});
  }
  for (const auto& snap : md.snapshots) {
    if (snap.manifest_list.empty() || !first(snap.manifest_list)) continue;
    ReachableFile list_file{Kind::kManifestList, snap.manifest_list, snap.snapshot_id, by_metadata, std::nullopt};
    visit(list_file);
    auto list = manifest::ReadManifestList(io, snap.manifest_list);
    if (!list.ok()) {
      unreadable(list_file, list.status());
      continue;
    }
    for (const auto& mf : *list) {
      if (!first(mf.manifest_path)) continue;
      ReachableFile manifest_file{Kind::kManifest, mf.manifest_path, snap.snapshot_id, snap.manifest_list,
                                  mf.manifest_length};
      visit(manifest_file);
      auto entries = manifest::ReadManifest(io, mf, md, PathsOnly());
      if (!entries.ok()) {
        unreadable(manifest_file, entries.status());
        continue;
      }
      for (const auto& e : *entries) {
        if (e.status == manifest::EntryStatus::kDeleted || !first(e.data_file.file_path)) continue;
        Kind kind = e.data_file.content == manifest::FileContent::kData ? Kind::kData : Kind::kDelete;
        visit(ReachableFile{kind, e.data_file.file_path, snap.snapshot_id, mf.manifest_path,
                            e.data_file.file_size_in_bytes});
      }
    }
  }
}

}  // namespace floe::table
