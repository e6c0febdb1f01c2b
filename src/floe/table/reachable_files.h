#pragma once

// Every file a table's metadata reaches, for DROP TABLE ... PURGE, orphan-file removal and
// the verifier, which must all agree about what is still in use.

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "floe/io/file_io.h"
#include "floe/spec/table_metadata.h"

namespace floe::table {

struct ReachableFiles {
  std::set<std::string> metadata_files;   // the metadata-log entries and the current file
  std::set<std::string> manifest_lists;   // of every snapshot
  std::set<std::string> manifests;        // data and delete manifests of every snapshot
  std::set<std::string> content_files;    // data and delete files of those manifests
  std::set<std::string> statistics_files;  // table and partition statistics files
  // Manifest lists and manifests that could not be read: what they name is missing above.
  std::set<std::string> unreadable;
  // The subset of `unreadable` that failed because the file does not exist.
  std::set<std::string> not_found;
};

// Walks `metadata` (read from `metadata_location`; empty to leave it out) through every
// snapshot. A manifest list or manifest that cannot be read is recorded in `unreadable`
// rather than failing the walk, so a damaged table can still be purged as far as it goes.
ReachableFiles CollectReachableFiles(FileIO& io, const spec::TableMetadata& metadata,
                                     const std::string& metadata_location);

// As CollectReachableFiles, adding to `out`: manifest lists and manifests already in `out`
// are not read again, so several metadata versions of one table cost one read per file.
void AddReachableFiles(FileIO& io, const spec::TableMetadata& metadata,
                       const std::string& metadata_location, ReachableFiles* out);

// One file the walk reaches, with what reaches it.
struct ReachableFile {
  enum class Kind { kMetadata, kManifestList, kManifest, kData, kDelete, kStatistics };
  Kind kind;
  std::string location;
  std::optional<int64_t> snapshot_id;  // the snapshot whose walk reached it first
  std::string referenced_by;           // the metadata file, manifest list or manifest naming it
  std::optional<int64_t> recorded_size;  // the size its referrer recorded, when it records one
};
const char* ReachableKindName(ReachableFile::Kind kind);  // "data file", "manifest", ...

// Visits every file `metadata` reaches once (manifests shared by snapshots are read once).
// Only live manifest entries (ADDED, EXISTING) count: a DELETED entry names a file its
// snapshot no longer has. A manifest list or manifest that cannot be read is passed to
// `unreadable` and the walk goes on without what it names.
void WalkReachableFiles(FileIO& io, const spec::TableMetadata& metadata,
                        const std::string& metadata_location,
                        const std::function<void(const ReachableFile&)>& visit,
                        const std::function<void(const ReachableFile&, const Status&)>& unreadable);

}  // namespace floe::table
