#pragma once

// Finishes the rows of a data file as its row groups are read: fills the metadata columns
// `_file` and `_pos`, and drops the rows that delete files delete.

#include <cstdint>
#include <memory>
#include <optional>
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

// Where a scan's metadata columns sit among the columns read, and how many it hands out.
struct RowLayout {
  int output_columns =
      -1;  // the first this many; negative: all (others were read for equality deletes)
  int file_column = -1;  // `_file`: the data file's path
  int pos_column = -1;   // `_pos`: the row's position in the data file
  int row_id_column = -1;        // `_row_id` (v3)
  int last_updated_column = -1;  // `_last_updated_sequence_number` (v3)

  bool plain() const {
    return output_columns < 0 && file_column < 0 && pos_column < 0 && row_id_column < 0 &&
           last_updated_column < 0;
  }
};

// What a data file's rows inherit when their row lineage columns are null (spec: "Row
// Lineage"): `_row_id` is the file's first row id plus the row's position, and
// `_last_updated_sequence_number` the file's data sequence number. Rows of a file without a
// first row id (written before the table's v3) have no lineage: both stay null.
struct RowLineage {
  std::optional<int64_t> first_row_id;  // null: the rows have no id (not a v3 file)
  int64_t data_sequence_number = 0;
};

// Hands out the batches of `rows`, a row group of the data file `path` whose first row is at
// `first_row`, with the metadata columns of `layout` filled in (row lineage from `lineage`),
// without the rows `deletes` delete (null: none), and with the columns `layout` hands out.
// Batches left empty are not handed out.
std::unique_ptr<ParquetDataFile::Cursor> FinishRows(std::unique_ptr<ParquetDataFile::Cursor> rows,
                                                    std::string path, int64_t first_row,
                                                    std::shared_ptr<const FileDeletes> deletes,
                                                    RowLayout layout, RowLineage lineage = {});

}  // namespace floe::scan
