#pragma once

// Removing orphan files: files under a table's location that none of its metadata reaches,
// left behind by failed writes, crashed jobs or expiry that kept files. Iceberg's
// DeleteOrphanFiles action (1.10), with floe's guards:
//
// - Only files last modified before `older_than` are candidates (default: three days ago).
// - The files still in use are collected after the listing, from a fresh load of the table,
//   so a commit that lands while the listing runs keeps its files. They are what the current
//   metadata reaches (every snapshot's manifest list, manifests, data and delete files,
//   statistics files, the metadata log, `version-hint.text`) and, beyond Iceberg, what the
//   older metadata files in the log still reach. A manifest list or manifest of the current
//   metadata that cannot be read fails the operation before anything is deleted.
// - Nothing outside the table's own directories (PurgeScope) is ever deleted.
//
// What no orphan removal can know is a write still in flight: its new files are referenced by
// no metadata until its commit lands. A writer's files are never older than the moment its
// commit started, so `older_than` at or before the start of the oldest write in flight is
// safe; a later `older_than` (now, or a time in the future) may delete the files of a write
// that then commits, leaving the table pointing at files that are gone.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table {

inline constexpr int64_t kDefaultOrphanAgeMillis = 3LL * 24 * 60 * 60 * 1000;

// What to do with a listed file whose path matches a file in use but whose scheme or
// authority differs (e.g. s3a://b/x listed, s3://b/x referenced).
enum class PrefixMismatchMode { kError, kIgnore, kDelete };
// "error", "ignore", "delete" in any case; else Iceberg's "Invalid mode: <text>".
Result<PrefixMismatchMode> ParsePrefixMismatchMode(const std::string& text);

// A file and its modification time, from a listing or given by the caller.
struct ListedFile {
  std::string location;
  int64_t last_modified_ms = 0;
};

struct RemoveOrphanFilesOptions {
  std::optional<int64_t> older_than_ms;  // default: now minus kDefaultOrphanAgeMillis
  // Where to look; must be the table's location or lie below it. Default: the location.
  std::optional<std::string> location;
  bool dry_run = false;  // find the orphans, delete nothing
  int max_concurrent_deletes = 1;
  // Files to consider instead of listing `location` (Iceberg's compareToFileList): those
  // under `location` and older than `older_than` are candidates.
  std::optional<std::vector<ListedFile>> file_list;
  // Schemes and authorities to treat as equal: key (a comma-separated list) -> value.
  // s3n and s3a always equal s3.
  std::map<std::string, std::string> equal_schemes;
  std::map<std::string, std::string> equal_authorities;
  PrefixMismatchMode prefix_mismatch_mode = PrefixMismatchMode::kError;
  // Runs after the listing, before the files in use are collected (tests race commits here).
  std::function<void()> after_listing;
};

struct RemoveOrphanFilesResult {
  // Deleted (or, with dry_run, to be deleted), sorted, as listed.
  std::vector<std::string> orphan_file_locations;
};

// Iceberg's refusal for a table whose gc.enabled is false: its files may be shared.
Status CheckGcEnabled(const spec::TableMetadata& metadata);

Result<RemoveOrphanFilesResult> RemoveOrphanFiles(Table& table,
                                                  const RemoveOrphanFilesOptions& options);

}  // namespace floe::table
