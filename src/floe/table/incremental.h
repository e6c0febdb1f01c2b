#pragma once

// Incremental reads: the data files appended between two snapshots of one line of
// ancestry, start exclusive and end inclusive, as Iceberg's incremental append scan.

#include <cstdint>
#include <optional>
#include <vector>

#include "floe/manifest/data_file.h"
#include "floe/table/table.h"

namespace floe::table {

struct AppendedFile {
  manifest::DataFile file;
  int64_t snapshot_id = 0;      // the append that added it
  int64_t sequence_number = 0;  // its data sequence number
};

// Files added by the `append` snapshots in (from_exclusive, to_inclusive]; `to_inclusive`
// defaults to the current snapshot and `from_exclusive` to the start of history. Other
// snapshots (overwrite, delete, replace) are skipped, as Iceberg's incremental append scan
// skips them. `from_exclusive` need not exist any more: it must be the parent of an ancestor
// of the end. Errors: `Cannot find the end snapshot: <id>`, `End snapshot is not set and table
// has no current snapshot`, `Starting snapshot (exclusive) <from> is not a parent ancestor of
// end snapshot <to>`. Reads one manifest list per append in the range and only the manifests
// those snapshots added.
Result<std::vector<AppendedFile>> AppendedFilesBetween(const Table& table,
                                                       std::optional<int64_t> from_exclusive,
                                                       std::optional<int64_t> to_inclusive);

}  // namespace floe::table
