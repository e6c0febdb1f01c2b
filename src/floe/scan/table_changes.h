#pragma once

// The rows that changed between two points of a table's history, as the `table_changes`
// table function gives them: the changelog of ReadChangelog (exact on merge-on-read, carry-over
// removed) with the commit of each row, or, when the range is not one line of history, the
// difference between the states at its two ends.
//
//  - mode all, `from` an ancestor of `to` and every snapshot between them kept: one row per
//    change of each snapshot, with its ordinal in the range and its commit.
//  - mode net: per key (the identifier columns; the whole row without them) the state at
//    `from` against the state at `to`, that is the first before-image and the last
//    after-image of the range. The same rows as `floe diff from to --key ...`. On a format v3
//    table without identifier columns, when both ends were written at v3, the key is the
//    row id: a row is changed when its _last_updated_sequence_number is.
//  - a range across a rollback, between branches or over expired snapshots: as net, since
//    only its two ends are known. Such rows have no ordinal (NULL).
// Net and state-difference rows carry the commit of `to` (the point they were observed at).
// They are computed by the snapshot diff, which spills to disk past its memory budget, so
// the rows read are bounded whatever the table's size, and its rows stream out as it runs.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::scan {

// The columns after _change_type, _change_ordinal and _commit_snapshot_id.
inline constexpr char kCommitTimestampColumn[] = "_commit_timestamp";
inline constexpr char kCommitSequenceNumberColumn[] = "_commit_sequence_number";
inline constexpr char kOperationColumn[] = "_operation";

struct TableChangesOptions {
  // (from, to]: none for `from` is the table as created (empty); none for `to` is the
  // current snapshot.
  std::optional<int64_t> from_exclusive;
  std::optional<int64_t> to_inclusive;
  // `to` names a branch's head (the current state): a range back along its line of history,
  // as after a rollback, is answered as a state difference instead of refused.
  bool to_is_head = false;
  bool net = false;
  // A DELETE and an INSERT of one key in one snapshot (in net mode: over the range) become
  // UPDATE_BEFORE and UPDATE_AFTER; in mode all on a format v3 table also (first) those of
  // one _row_id, identifier columns or not. Unset: on when identifier columns are named, or
  // in mode all on a format v3 table.
  std::optional<bool> compute_updates;
  // Names of the current schema; empty: the schema's identifier fields.
  std::vector<std::string> identifier_columns;
  int64_t memory_budget_bytes = 256LL << 20;
  std::string spill_directory;
};

// Errors besides ReadChangelog's and DiffSnapshots': `Cannot find snapshot with ID <id> in
// table <t>`, and `Starting snapshot (exclusive) <from> is after end snapshot <to> in table
// <t>` when `to` is an ancestor of `from` named as a fixed point.
//
// Net and two-ends rows stream: the diff runs on a thread of its own as the reader reads.
Result<std::shared_ptr<arrow::RecordBatchReader>> ReadTableChanges(
    const std::shared_ptr<table::Table>& table, const TableChangesOptions& options);

}  // namespace floe::scan
