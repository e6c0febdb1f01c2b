#include "floe/manifest/manifest_cache.h"

#include <cstdlib>

#include "floe/io/object_store.h"

namespace floe::manifest {

namespace {

int64_t ListBytes(const std::vector<ManifestFile>& list) {
  int64_t n = 0;
  for (const auto& m : list) {
    n += sizeof(ManifestFile) + static_cast<int64_t>(m.manifest_path.capacity());
    for (const auto& p : m.partitions) {
      n += sizeof(p) + static_cast<int64_t>(p.lower_bound ? p.lower_bound->size() : 0) +
           static_cast<int64_t>(p.upper_bound ? p.upper_bound->size() : 0);
    }
  }
  return n;
}

// The projection is part of the key: a projected read holds fewer metrics.
// Inherited sequence numbers, snapshot ids and first row ids come from the manifest list
// entry (a manifest written before a table moved to v3 gets its first row id later).
std::string ManifestKey(const ManifestFile& manifest, const ReadManifestOptions& options) {
  std::string key = "m|" + manifest.manifest_path + "|" + std::to_string(manifest.sequence_number) +
                    "|" + std::to_string(manifest.added_snapshot_id) + "|" +
                    (manifest.first_row_id ? std::to_string(*manifest.first_row_id) : "") + "|";
  if (!options.projection.metric_ids) return key + "*";
  for (int32_t id : *options.projection.metric_ids) key += std::to_string(id) + ",";
  return key;
}

// The size a cached copy is checked against. Asking object storage costs a round trip, and it
// never rewrites an object in place: there the size the manifest list gives (or none) is
// trusted. A local file is stat'ed, so one removed reads as an error as before.
Result<int64_t> CheckedSize(FileIO& io, const std::string& location, int64_t known) {
  if (IsObjectStoreLocation(location)) return known;
  return io.FileSize(location);
}

}  // namespace

ManifestCache& ManifestCache::Global() {
  static ManifestCache* cache =
      new ManifestCache(CacheBudgetFromEnvironment("FLOE_MANIFEST_CACHE_BYTES", int64_t{256} << 20));
  return *cache;
}

Result<ManifestCache::ListPtr> ManifestCache::ReadManifestList(FileIO& io, const std::string& location) {
  auto stat = CheckedSize(io, location, -1);
  // An unreadable file fails as an uncached read does, with the same message.
  if (!stat.ok()) {
    ARROW_ASSIGN_OR_RAISE(auto list, manifest::ReadManifestList(io, location));
    return std::make_shared<const std::vector<ManifestFile>>(std::move(list));
  }
  const int64_t size = *stat;
  const std::string key = "l|" + location;
  if (auto hit = cache_.Lookup(key, size)) return std::static_pointer_cast<const std::vector<ManifestFile>>(hit);
  ARROW_ASSIGN_OR_RAISE(auto list, manifest::ReadManifestList(io, location));
  auto value = std::make_shared<const std::vector<ManifestFile>>(std::move(list));
  cache_.Insert(key, size, ListBytes(*value), value);
  return value;
}

Result<ManifestCache::EntriesPtr> ManifestCache::ReadManifest(FileIO& io, const ManifestFile& manifest,
                                                              const spec::TableMetadata& metadata,
                                                              const ReadManifestOptions& options) {
  auto stat = CheckedSize(io, manifest.manifest_path, manifest.manifest_length);
  if (!stat.ok()) return manifest::ReadManifestColumns(io, manifest, metadata, options);
  const int64_t size = *stat;
  // Inherited sequence numbers come from the manifest list entry, which is fixed for a
  // committed manifest; a pending one (unassigned) is not cached.
  const bool cacheable = manifest.sequence_number != kUnassignedSequenceNumber;
  const std::string key = ManifestKey(manifest, options);
  if (cacheable) {
    if (auto hit = cache_.Lookup(key, size)) return std::static_pointer_cast<const ManifestColumns>(hit);
  }
  ARROW_ASSIGN_OR_RAISE(auto value, manifest::ReadManifestColumns(io, manifest, metadata, options));
  if (cacheable) cache_.Insert(key, size, value->bytes(), value);
  return value;
}

ManifestCache::EntriesPtr ManifestCache::Find(FileIO& io, const ManifestFile& manifest,
                                              const ReadManifestOptions& options) {
  if (manifest.sequence_number == kUnassignedSequenceNumber) return nullptr;
  auto stat = CheckedSize(io, manifest.manifest_path, manifest.manifest_length);
  if (!stat.ok()) return nullptr;
  return std::static_pointer_cast<const ManifestColumns>(cache_.Lookup(ManifestKey(manifest, options), *stat));
}

void ManifestCache::Clear() { cache_.Clear(); }

void ManifestCache::SetCapacity(int64_t capacity_bytes) { cache_.SetCapacity(capacity_bytes); }

}  // namespace floe::manifest
