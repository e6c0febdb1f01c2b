#include "floe/table/metadata_files.h"

#include <cstdio>
#include <optional>
#include <string_view>

#include "floe/io/object_store.h"
#include "floe/io/text_file.h"
#include "floe/spec/literal.h"
#include "floe/util/ids.h"
#include "floe/util/str_cat.h"

namespace floe::table {

namespace {

std::string StripSlash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// Iceberg's writers name a metadata file <version>-<uuid>.metadata.json, a new uuid each
// time, so no two files ever have that name.
bool HasUniqueName(const std::string& location) {
  constexpr std::string_view kSuffix = ".metadata.json";
  const size_t slash = location.find_last_of('/');
  std::string_view name = std::string_view(location).substr(slash == std::string::npos ? 0 : slash + 1);
  if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) return false;
  name.remove_suffix(kSuffix.size());
  const size_t dash = name.find('-');
  return dash != std::string_view::npos && dash > 0 && spec::UuidFromString(name.substr(dash + 1)).ok();
}

constexpr int64_t kSizeUnknown = -1;

Result<spec::TableMetadataPtr> ReadMetadata(FileIO& io, const std::string& location, bool current) {
  // The catalog names this file, so the table exists: a missing file must not read as a
  // missing table (which would hide the entry that DROP TABLE can still remove).
  auto missing = [&](const Status& st) {
    return IsNotFound(st) ? Status::IOError("Failed to read table metadata ", location, ": file not found")
                          : st;
  };
  // On object storage a file of a unique name is cached by its name alone; elsewhere the key
  // holds its size and modification time, which tell a cached file from one written again
  // under its name (a path-named table dropped and created anew).
  const bool by_name = IsObjectStoreLocation(location) && HasUniqueName(location);
  std::optional<FileEntry> stat;
  if (!by_name || !current) {
    auto found = io.Stat(location, FileKind::kMetadata);
    if (!found.ok()) return missing(found.status());
    stat = std::move(*found);
  }
  std::string key = by_name ? location : StrCat(location, "\n", stat->last_modified_ms);
  const int64_t size = by_name ? kSizeUnknown : stat->size;
  if (auto cached = MetadataFileCache().Lookup(key, size)) {
    return std::static_pointer_cast<const spec::TableMetadata>(cached);
  }
  auto buffer = stat ? io.ReadFile(location, FileKind::kMetadata, stat->size)
                     : ReadTextFile(io, location, FileKind::kMetadata);
  if (!buffer.ok()) return missing(buffer.status());
  ARROW_ASSIGN_OR_RAISE(auto metadata,
                        spec::ParseTableMetadata(std::string_view(**buffer), location));
  spec::TableMetadataPtr parsed(std::move(metadata));
  // Parsed, the snapshots, schemas and maps take about three times their JSON.
  MetadataFileCache().Insert(std::move(key), size, 3 * (*buffer)->size(), parsed);
  return parsed;
}

}  // namespace

LruCache& MetadataFileCache() {
  static LruCache* cache =
      new LruCache(CacheBudgetFromEnvironment("FLOE_METADATA_CACHE_BYTES", int64_t{64} << 20));
  return *cache;
}

Result<spec::TableMetadataPtr> ReadMetadataFile(FileIO& io, const std::string& location) {
  return ReadMetadata(io, location, /*current=*/false);
}

Result<spec::TableMetadataPtr> ReadCurrentMetadataFile(FileIO& io, const std::string& location) {
  return ReadMetadata(io, location, /*current=*/true);
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
