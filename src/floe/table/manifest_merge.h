#pragma once

// Merging small manifests on commit, as Iceberg's MergeAppend does: without it every append
// adds a manifest and every manifest list repeats all earlier ones.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/manifest/manifest_file.h"
#include "floe/spec/table_metadata.h"

namespace floe::table {

// Table properties commit.manifest-merge.enabled, commit.manifest.min-count-to-merge and
// commit.manifest.target-size-bytes (Iceberg's defaults).
struct ManifestMergeOptions {
  bool enabled = true;
  int64_t min_count_to_merge = 100;
  int64_t target_size_bytes = int64_t{8} << 20;

  static Result<ManifestMergeOptions> FromMetadata(const spec::TableMetadata& metadata);
};

// Where the snapshot being produced writes a merged manifest.
struct ManifestMergeTarget {
  std::shared_ptr<FileIO> io;
  const spec::TableMetadata* base = nullptr;  // the base of the commit attempt
  int64_t snapshot_id = 0;                     // the snapshot being produced
  std::function<std::string()> new_location;
};

// Bin-packs the data manifests of each partition spec (highest spec id first) into manifests
// of up to the target size. `manifests` lists the snapshot's manifests with the one holding
// this snapshot's added files first: a bin holding that one is merged only once it has at
// least the minimum count of manifests. Packing runs from the end of the list, so the bin
// left under-filled is the newest and gets merged next time. In a merged manifest, files
// this snapshot added stay ADDED, other live files become EXISTING with their sequence
// numbers and snapshot ids, and deletions by earlier snapshots are dropped. Delete manifests
// are passed through after the data manifests. Paths of the manifests written are appended
// to `written`; `replaced` receives those of the input manifests that were merged away.
Result<std::vector<manifest::ManifestFile>> MergeManifests(
    const std::vector<manifest::ManifestFile>& manifests, const ManifestMergeOptions& options,
    const ManifestMergeTarget& target, std::vector<std::string>* written,
    std::vector<std::string>* replaced);

}  // namespace floe::table
