#pragma once

// A file a maintenance operation removes from the table (expiry deletes it, a rewrite
// replaces it), as its dry run reports it.

#include <cstdint>
#include <optional>
#include <string>

#include "floe/manifest/data_file.h"

namespace floe::table {

struct RemovedFile {
  std::string path;
  // "data file", "position delete file", "equality delete file", "manifest", "manifest list",
  // "statistics file".
  std::string type;
  std::optional<int64_t> size;  // bytes: as recorded, or (a manifest list) as stored
  // The newest snapshot that reached the file: an expired one for an expiry, the starting
  // snapshot for a rewrite.
  std::optional<int64_t> last_snapshot_id;
};

inline const char* ContentFileType(manifest::FileContent content) {
  switch (content) {
    case manifest::FileContent::kData:
      return "data file";
    case manifest::FileContent::kPositionDeletes:
      return "position delete file";
    case manifest::FileContent::kEqualityDeletes:
      return "equality delete file";
  }
  return "data file";
}

}  // namespace floe::table
