#pragma once

// Every file a table's metadata reaches, for DROP TABLE ... PURGE (and for the expiry and
// orphan-file removal that must agree with it about what is still in use).

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
  // Manifest lists and manifests that could not be read: what they name is missing above.
  std::set<std::string> unreadable;
};

// Walks `metadata` (read from `metadata_location`; empty to leave it out) through every
// snapshot. A manifest list or manifest that cannot be read is recorded in `unreadable`
// rather than failing the walk, so a damaged table can still be purged as far as it goes.
ReachableFiles CollectReachableFiles(FileIO& io, const spec::TableMetadata& metadata,
                                     const std::string& metadata_location);

}  // namespace floe::table
