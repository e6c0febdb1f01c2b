#pragma once

// Reading a table's history file by file: the manifest lists of its snapshots, the manifests
// they name and the live files of each, every one read at most once however many snapshots
// share it. Expiry and the retention report both compare what sets of snapshots reach.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/manifest/data_file.h"
#include "floe/manifest/manifest_file.h"
#include "floe/spec/table_metadata.h"
#include "floe/util/status.h"

namespace floe::table {

struct LiveFile {
  std::string path;
  manifest::FileContent content = manifest::FileContent::kData;
  int64_t size = 0;
};

class ManifestWalk {
 public:
  // `metadata` types the partitions of the manifests read; it must outlive the walk.
  ManifestWalk(FileIO& io, const spec::TableMetadata& metadata) : io_(io), md_(metadata) {}

  // The manifests of a snapshot. Errors name the manifest list.
  Result<const std::vector<manifest::ManifestFile>*> Manifests(const spec::Snapshot& snapshot);
  // The files a manifest holds as ADDED or EXISTING. Errors name the manifest.
  Result<const std::vector<LiveFile>*> Live(const manifest::ManifestFile& manifest);

  // Reads every manifest list and manifest the snapshots of `metadata` reach.
  Status ReadAll(const spec::TableMetadata& metadata);

 private:
  FileIO& io_;
  const spec::TableMetadata& md_;
  const std::vector<manifest::ManifestFile> no_manifests_;
  std::map<std::string, std::vector<manifest::ManifestFile>> lists_;
  std::map<std::string, std::vector<LiveFile>> manifests_;
};

// The files some set of snapshots reaches.
struct ReachedFiles {
  std::set<std::string> manifest_lists;
  std::map<std::string, int64_t> manifests;  // path -> length
  std::map<std::string, LiveFile> content;   // path -> file
  std::set<std::string> statistics;

  void Merge(const ReachedFiles& other);
};

// What the snapshots `ids` of `metadata` reach (every snapshot when `ids` is null), with the
// statistics files `metadata` lists for them.
Result<ReachedFiles> Reach(ManifestWalk& walk, const spec::TableMetadata& metadata,
                           const std::set<int64_t>* ids = nullptr);

}  // namespace floe::table
