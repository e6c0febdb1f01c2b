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
// defaults to the current snapshot and `from_exclusive` to the start of history. Snapshots
// of operation `replace` (compaction: no logical change) are skipped; an `overwrite` or
// `delete` in the range fails with Iceberg's phrase plus the snapshot:
// `Found overwrite operation, cannot support incremental data in snapshots (<from>, <to>]:
// snapshot <id> is an overwrite`. Other errors: `Cannot find the starting snapshot: <id>`,
// `Cannot find the end snapshot: <id>`, `End snapshot is not set and table has no current
// snapshot`, `Starting snapshot (exclusive) <from> is not a parent ancestor of end snapshot
// <to>`. Reads one manifest list per snapshot in the range and only the manifests those
// snapshots added.
Result<std::vector<AppendedFile>> AppendedFilesBetween(const Table& table,
                                                       std::optional<int64_t> from_exclusive,
                                                       std::optional<int64_t> to_inclusive);

}  // namespace floe::table
