#pragma once

// A process-wide cache of parsed manifest lists and manifests, keyed by file path. Iceberg
// never rewrites a manifest or a manifest list (new ones get new names), so reading one
// snapshot after another, or the same snapshot again, decodes each file once. Entries are
// evicted least recently used first when the approximate size passes the byte budget.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/manifest/manifest_reader.h"
#include "floe/util/lru_cache.h"

namespace floe::manifest {

class ManifestCache {
 public:
  explicit ManifestCache(int64_t capacity_bytes) : cache_(capacity_bytes) {}

  // The one planning uses: 256 MB, or FLOE_MANIFEST_CACHE_BYTES (0 turns it off).
  static ManifestCache& Global();

  using ListPtr = std::shared_ptr<const std::vector<ManifestFile>>;
  using EntriesPtr = std::shared_ptr<const ManifestColumns>;

  // As manifest::ReadManifestList / ReadManifestColumns. A cached local file is still checked to
  // exist with the size it had (one stat), so a removed file reads as an error as before; on
  // object storage, where that check is a round trip, the path and the manifest's length
  // from its list are trusted.
  Result<ListPtr> ReadManifestList(FileIO& io, const std::string& location);
  Result<EntriesPtr> ReadManifest(FileIO& io, const ManifestFile& manifest,
                                  const spec::TableMetadata& metadata,
                                  const ReadManifestOptions& options = {});

  // The cached entries of `manifest` read with `options`, or nullptr (nothing is read).
  EntriesPtr Find(FileIO& io, const ManifestFile& manifest, const ReadManifestOptions& options = {});

  using Stats = LruCache::Stats;
  Stats stats() const { return cache_.stats(); }
  void Clear();
  void SetCapacity(int64_t capacity_bytes);

 private:
  LruCache cache_;
};

}  // namespace floe::manifest
