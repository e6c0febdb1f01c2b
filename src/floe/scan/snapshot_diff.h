#pragma once

// The rows that differ between two snapshots of one table (any two: one need not be an
// ancestor of the other), streaming, so that it works on tables larger than memory.
//
//  1. Files both snapshots share are cancelled first: a data file live in both with the same
//     delete files applying to it holds the same rows in both and is not read. A small append
//     to a big table reads only the new file.
//  2. The remaining data files of each side are read with their deletes applied, and their
//     rows hash-partitioned by key (by the whole row without keys) into Arrow IPC spill files
//     once they outgrow memory.
//  3. Partitions are compared one at a time; one larger than the memory budget is split
//     again with other hash bits.
//
// Without key columns rows are compared as a multiset: a row counts as added as many times
// as it occurs more often in `to` than in `from`, and as removed the other way round.
//
// With key columns, rows whose keys are equal (a null key matches a null, as `<=>` does) are
// matched: a key in both with different values is one changed row. Rows of one key that are
// identical on both sides cancel first (duplicates counted); the rest of that key's rows pair
// up in the order read, each pair one changed row, and what one side has left over counts
// as added or removed. So `to` rows = `from` rows + added - removed, always.
//
// Columns are matched by field id. Only the columns both snapshots' schemas have are
// compared (renamed ones under their name in `to`); within a snapshot, data files written
// before a column was added read it as null. A column added or dropped between the two
// snapshots is listed in the result and not compared. Types widened in between (int to long,
// float to double, decimal precision) are read with the wider type on both sides.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/spec/schema.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::scan {

// The differing rows of one compared partition, in the compared columns: rows only in `to`,
// rows only in `from`, and changed rows before and after (row i of `changed_before` became
// row i of `changed_after`). Batches may be empty, never null.
struct DiffRows {
  std::shared_ptr<arrow::RecordBatch> added, removed, changed_before, changed_after;
};

struct DiffOptions {
  // Column names (of `to`, any case) matched as the rows' key; empty compares whole rows.
  std::vector<std::string> key_columns;
  // At most this many rows of each kind are kept as a sample; 0 keeps none.
  int64_t sample_rows = 10;
  // Memory the comparison aims to stay within (rows read, buffered and compared; the
  // decoding of data files adds a few batches per thread).
  int64_t memory_budget_bytes = 256LL << 20;
  // Where spill files go (a fresh directory inside, removed afterwards); empty: the system
  // temp directory ($TMPDIR, else /tmp).
  std::string spill_directory;
  // When set, rows compare in this schema's top-level columns (by field id; one a snapshot
  // lacks reads NULL there, as an added column reads in older rows) rather than in the columns
  // both snapshots have.
  spec::SchemaPtr compare_schema;
  // When set, every differing row (not only the samples) is handed over, one partition at a
  // time, so the whole diff streams through within the budget.
  std::function<Status(const DiffRows&)> on_rows;
};

struct SnapshotDiff {
  int64_t from_snapshot_id = 0;
  int64_t to_snapshot_id = 0;
  int64_t added = 0;
  int64_t removed = 0;
  int64_t changed = 0;  // with key columns only

  // Data files live in both snapshots with the same deletes: skipped, not read.
  int64_t unchanged_files = 0;
  // Data files read, and the rows they held after deletes.
  int64_t files_read_from = 0, files_read_to = 0;
  int64_t rows_read_from = 0, rows_read_to = 0;
  // Partitions compared (1 when everything fit in memory), those split again for outgrowing
  // the budget, and bytes written to spill files.
  int64_t partitions = 0;
  int64_t partitions_split = 0;
  int64_t spilled_bytes = 0;

  std::vector<std::string> key_columns;  // as the schema names them
  std::vector<std::string> columns;      // compared, in the order of `to`'s schema
  std::vector<std::string> columns_only_in_from, columns_only_in_to;  // not compared

  // Samples, in the compared columns, ordered by key (by all columns without keys) where
  // the types order: rows added, rows removed, and changed rows before and after (row i of
  // `changed_before` became row i of `changed_after`). The rows sampled are those with the
  // smallest hashes of their key, so the same diff always shows the same rows.
  std::shared_ptr<arrow::Table> added_sample, removed_sample, changed_before, changed_after;
};

// Errors: `Cannot find snapshot with ID <id> in table <name>`; a key column that is not a
// top-level column of both snapshots: `Cannot diff <table> by key column '<name>': it is not a
// column of both snapshot <from> and snapshot <to>`. No `from` is the table as created,
// before its first snapshot: empty, in `to`'s columns (from_snapshot_id 0).
Result<SnapshotDiff> DiffSnapshots(const std::shared_ptr<table::Table>& table,
                                   std::optional<int64_t> from_snapshot_id, int64_t to_snapshot_id,
                                   const DiffOptions& options = {});

}  // namespace floe::scan
