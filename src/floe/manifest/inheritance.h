#pragma once

// What a manifest's entries take from the manifest list entry that names it, when they
// leave it null: snapshot ids and sequence numbers (spec: "Sequence Number Inheritance") and
// the row ids of v3 data files (spec: "First Row ID Inheritance").

#include <cstdint>
#include <optional>

#include "floe/manifest/data_file.h"
#include "floe/manifest/manifest_file.h"

namespace floe::manifest {

// Only ADDED entries may leave sequence numbers null; a v1 manifest has none at all.
inline void InheritSequenceNumbers(const ManifestFile& manifest, bool v1, EntryStatus status,
                                   std::optional<int64_t>& snapshot_id, std::optional<int64_t>& sequence_number,
                                   std::optional<int64_t>& file_sequence_number) {
  if (!snapshot_id) snapshot_id = manifest.added_snapshot_id;
  if (v1) {
    sequence_number = sequence_number.value_or(0);
    file_sequence_number = file_sequence_number.value_or(0);
  } else if (status == EntryStatus::kAdded) {
    if (!sequence_number) sequence_number = manifest.sequence_number;
    if (!file_sequence_number) file_sequence_number = manifest.sequence_number;
  }
}

// Live data files without a first row id take the next ids after the manifest's first, in
// the order they are listed (the manifest list reserved ids for added and existing rows).
class FirstRowIds {
 public:
  explicit FirstRowIds(const ManifestFile& manifest)
      : active_(manifest.first_row_id && manifest.content == ManifestContent::kData),
        next_(manifest.first_row_id.value_or(0)) {}

  // The id the next entry takes, or none when it keeps its own or takes none.
  std::optional<int64_t> Next(EntryStatus status, FileContent content, bool has_own, int64_t record_count) {
    if (!active_ || has_own || status == EntryStatus::kDeleted || content != FileContent::kData) {
      return std::nullopt;
    }
    const int64_t id = next_;
    next_ += record_count;
    return id;
  }

 private:
  bool active_;
  int64_t next_;
};

}  // namespace floe::manifest
