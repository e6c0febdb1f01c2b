#pragma once

// Drops the rows that delete files delete from a data file as its row groups are read.

#include <cstdint>
#include <memory>
#include <vector>

#include "floe/scan/equality_deletes.h"
#include "floe/scan/parquet_file_reader.h"
#include "floe/scan/position_deletes.h"

namespace floe::scan {

// What delete files delete from one data file.
struct FileDeletes {
  std::shared_ptr<const DeletedPositions> positions;  // null when no position is deleted
  struct Equality {
    std::vector<int> columns;  // the read columns holding the set's fields, in its order
    std::shared_ptr<const EqualityDeleteSet> set;
  };
  std::vector<Equality> equality;

  bool empty() const { return (!positions || positions->empty()) && equality.empty(); }
};

// Hands out the batches of `rows`, a row group whose first row is at `first_row` in its file,
// without the rows `deletes` delete (null: none) and with their first `output_columns` columns
// only (all when negative: columns read only for equality deletes go). Batches left empty are
// not handed out.
std::unique_ptr<ParquetDataFile::Cursor> WithoutDeletedRows(std::unique_ptr<ParquetDataFile::Cursor> rows,
                                                            int64_t first_row,
                                                            std::shared_ptr<const FileDeletes> deletes,
                                                            int output_columns);

}  // namespace floe::scan
