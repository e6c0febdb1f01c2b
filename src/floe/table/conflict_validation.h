#pragma once

// What a write must re-check before it commits on top of snapshots it did not read.
// A write starts from a snapshot (the one it read); when others committed to the same
// branch meanwhile, the write inspects the data files those snapshots added and removed
// and refuses to commit when they could change its result (Iceberg's validateFromSnapshot,
// validateNoConflictingData and validateNoConflictingDeletes, with Iceberg's messages).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/manifest/data_file.h"
#include "floe/spec/table_metadata.h"

namespace floe::table {

// Iceberg's isolation levels for writes that read the table (write.<op>.isolation-level).
enum class IsolationLevel {
  kSerializable,  // fail when files that could match the write's filter were added since
  kSnapshot,      // only fail when files the write depends on were removed since
};

// The level for an operation ("delete", "update", "merge", ...): the table property
// write.<operation>.isolation-level, serializable when unset. Unknown values are errors.
Result<IsolationLevel> IsolationLevelFor(const spec::TableMetadata& metadata,
                                         std::string_view operation);

// Which files a write's result depends on: those that "can contain records matching"
// `description` (shown in conflict messages, e.g. "true" or "partitions [region=EU]").
struct ConflictFilter {
  std::function<bool(const manifest::DataFile&)> matches;
  std::string description;
};

// The data files added and removed on a branch after a starting snapshot.
struct ChangesSince {
  std::vector<int64_t> snapshot_ids;  // newest first; empty when nothing was committed
  std::vector<manifest::DataFile> added;
  std::vector<manifest::DataFile> deleted;
};

// Walks the branch from `head` back to `starting` (exclusive; nullopt: the branch had no
// snapshot, so everything is new) and reads what each snapshot on the way changed. Fails
// when `starting` is not an ancestor of `head` (the branch was rolled back or replaced
// underneath the write), since nothing can then be said about what changed.
Result<ChangesSince> CollectChangesSince(FileIO& io, const spec::TableMetadata& metadata,
                                         const std::string& table_name,
                                         std::optional<int64_t> head,
                                         std::optional<int64_t> starting);

// The delete files added on a branch after a starting snapshot (same walk and errors as
// CollectChangesSince), each with the data sequence number it was committed at.
struct AddedDeleteFile {
  manifest::DataFile file;
  int64_t sequence_number = 0;
};
Result<std::vector<AddedDeleteFile>> DeleteFilesAddedSince(FileIO& io, const spec::TableMetadata& metadata,
                                                           const std::string& table_name,
                                                           std::optional<int64_t> head,
                                                           std::optional<int64_t> starting);

// The checks of an overwrite that read the table: under serializable isolation no added
// file may match `filter`; under either level no removed file may match it.
Status ValidateNoConflicts(const ChangesSince& changes, const ConflictFilter& filter,
                           IsolationLevel isolation);

}  // namespace floe::table
