#include "floe/table/metadata_files.h"

#include <cstdio>

#include "floe/util/ids.h"
#include "floe/util/str_cat.h"

namespace floe::table {

namespace {
std::string StripSlash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}
}  // namespace

LruCache& MetadataFileCache() {
  static LruCache* cache =
      new LruCache(CacheBudgetFromEnvironment("FLOE_METADATA_CACHE_BYTES", int64_t{64} << 20));
  return *cache;
}

Result<spec::TableMetadataPtr> ReadMetadataFile(FileIO& io, const std::string& location) {
  // The catalog names this file, so the table exists: a missing file must not read as a
  // missing table (which would hide the entry that DROP TABLE can still remove).
  auto missing = [&](const Status& st) {
    return IsNotFound(st) ? Status::IOError("Failed to read table metadata ", location, ": file not found")
                          : st;
  };
  auto stat = io.Stat(location, FileKind::kMetadata);
  if (!stat.ok()) return missing(stat.status());
  // The modification time is part of the key: a file of the same name and size written
  // again (a path-named table dropped and created anew) is not the one cached.
  std::string key = StrCat(location, "\n", stat->last_modified_ms);
  if (auto cached = MetadataFileCache().Lookup(key, stat->size)) {
    return std::static_pointer_cast<const spec::TableMetadata>(cached);
  }
  auto buffer = io.ReadFile(location, FileKind::kMetadata, stat->size);
  if (!buffer.ok()) return missing(buffer.status());
  ARROW_ASSIGN_OR_RAISE(auto metadata,
                        spec::ParseTableMetadata(std::string_view(*(*buffer)), location));
  spec::TableMetadataPtr parsed(std::move(metadata));
  // Parsed, the snapshots, schemas and maps take about three times their JSON.
  MetadataFileCache().Insert(std::move(key), stat->size, 3 * stat->size, parsed);
  return parsed;
}

int64_t ParseMetadataVersion(const std::string& location) {
  size_t slash = location.find_last_of('/');
  std::string name = slash == std::string::npos ? location : location.substr(slash + 1);
  size_t dash = name.find('-');
  if (dash == std::string::npos || dash == 0) return -1;
  int64_t version = 0;
  for (size_t i = 0; i < dash; ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    version = version * 10 + (name[i] - '0');
    if (version > (int64_t{1} << 40)) return -1;
  }
  return version;
}

std::string MetadataDirectory(const spec::TableMetadata& metadata) {
  auto it = metadata.properties.find("write.metadata.path");
  if (it != metadata.properties.end() && !it->second.empty()) return StripSlash(it->second);
  return StripSlash(metadata.location) + "/metadata";
}

std::string DataDirectory(const spec::TableMetadata& metadata) {
  auto it = metadata.properties.find("write.data.path");
  if (it != metadata.properties.end() && !it->second.empty()) return StripSlash(it->second);
  it = metadata.properties.find("write.folder-storage.path");
  if (it != metadata.properties.end() && !it->second.empty()) return StripSlash(it->second);
  return StripSlash(metadata.location) + "/data";
}

std::string ManifestListLocation(const spec::TableMetadata& metadata, int64_t snapshot_id,
                                 int attempt) {
  return MetadataDirectory(metadata) + "/snap-" + std::to_string(snapshot_id) + "-" +
         std::to_string(attempt) + "-" + NewUuid() + ".avro";
}

std::string NextMetadataLocation(const spec::TableMetadata& metadata, const std::string& previous) {
  int64_t version = previous.empty() ? 0 : ParseMetadataVersion(previous) + 1;
  if (version < 0) version = 0;
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "%05lld", static_cast<long long>(version));
  return MetadataDirectory(metadata) + "/" + prefix + "-" + NewUuid() + ".metadata.json";
}

}  // namespace floe::table
