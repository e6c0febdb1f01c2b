#include "floe/table/reachable_files.h"

#include "floe/manifest/manifest_reader.h"

namespace floe::table {

ReachableFiles CollectReachableFiles(FileIO& io, const spec::TableMetadata& md,
                                     const std::string& metadata_location) {
  ReachableFiles out;
  for (const auto& entry : md.metadata_log) out.metadata_files.insert(entry.metadata_file);
  if (!metadata_location.empty()) out.metadata_files.insert(metadata_location);
  for (const auto& snap : md.snapshots) {
    if (snap.manifest_list.empty()) continue;
    if (!out.manifest_lists.insert(snap.manifest_list).second) continue;
    auto list = manifest::ReadManifestList(io, snap.manifest_list);
    if (!list.ok()) {
      out.unreadable.insert(snap.manifest_list);
      continue;
    }
    for (const auto& mf : *list) {
      // Snapshots share most manifests: each is read once.
      if (!out.manifests.insert(mf.manifest_path).second) continue;
      auto entries = manifest::ReadManifest(io, mf, md);
      if (!entries.ok()) {
        out.unreadable.insert(mf.manifest_path);
        continue;
      }
      for (const auto& e : *entries) out.content_files.insert(e.data_file.file_path);
    }
  }
  return out;
}

}  // namespace floe::table
