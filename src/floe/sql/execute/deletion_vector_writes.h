#pragma once

// Merge-on-read changes on format-version 3 tables: the rows a change deletes become
// deletion vectors (one per data file, in one Puffin file), never position delete files.

#include <vector>

#include "floe/manifest/data_file.h"
#include "floe/scan/table_scan.h"
#include "floe/sql/execute/row_level.h"
#include "floe/table/table.h"

namespace floe::sql {

struct DeletionVectorWrite {
  // One per data file named: the positions deleted now and those deleted before.
  std::vector<manifest::DataFile> deletion_vectors;
  // What they replace (spec: a data file has at most one deletion vector): the file's
  // previous deletion vector, and position delete files that name only that data file.
  // Position delete files naming others too stay; their positions are copied in all the same.
  std::vector<manifest::DataFile> replaced;
};

// Writes the deletion vectors of `positions` (per data file path) into one Puffin file in the
// table's data directory. `tasks` are the planned files of the snapshot the positions were
// read from, with the delete files applying to each. A failure leaves no file.
Result<DeletionVectorWrite> WriteDeletionVectors(const table::Table& table,
                                                 const FilePositions& positions,
                                                 const std::vector<scan::FileScanTask>& tasks);

}  // namespace floe::sql
