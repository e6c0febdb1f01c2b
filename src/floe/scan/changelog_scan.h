#pragma once

// A table's changelog: the rows each snapshot of one line of history inserted and deleted,
// as Iceberg's changelog scan and Spark's create_changelog_view report them, and exact on
// merge-on-read tables too.
//
// Each snapshot is compared with its parent file by file. A data file in both with the same
// delete files holds the same rows in both and is not read. A data file the snapshot added
// gives INSERT rows, one it removed gives DELETE rows (read with the deletes that applied in
// the parent). A data file in both whose delete files changed (merge-on-read: a position or
// equality delete file was added, or the deletes were rewritten) is read on both sides, and
// the positions live in the parent but not in the snapshot are its DELETE rows: matched by
// file and position, never by value.
//
// Carry-over: copy-on-write rewrites a file to change some of its rows and writes the others
// again unchanged. Within one snapshot an INSERT row identical to a DELETE row (every column)
// cancels it, as many times as both occur; the v2 format records no row lineage, so a row
// deleted and inserted again unchanged by one commit is not reported either.
//
// Row lineage (format v3): a DELETE and an INSERT image of one snapshot with the same
// `_row_id` are one row, whatever other rows hold the same values. With the same
// `_last_updated_sequence_number` it was carried over and is not reported; with a newer one it
// was updated (with update images: UPDATE_BEFORE and UPDATE_AFTER, no identifier columns
// needed). Images of different row ids never cancel: a row deleted and inserted again with
// equal values is reported. Images without lineage (files written before the table's v3) are
// matched by values as on v2.
//
// Snapshots whose operation is `replace` (compaction) change no row and are skipped.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::scan {

inline constexpr char kChangeInsert[] = "INSERT";
inline constexpr char kChangeDelete[] = "DELETE";
inline constexpr char kChangeUpdateBefore[] = "UPDATE_BEFORE";
inline constexpr char kChangeUpdateAfter[] = "UPDATE_AFTER";

struct ChangelogOptions {
  // The range (from, to]: `from` must be the parent of an ancestor of `to` (it need not exist
  // any more); nullopt `from` goes back to the first snapshot, or to the first whose parent
  // has expired; nullopt `to` is the current snapshot.
  std::optional<int64_t> from_exclusive;
  std::optional<int64_t> to_inclusive;
  // With update images, a DELETE and an INSERT of one snapshot with equal values in these
  // columns (names of the current schema) become UPDATE_BEFORE and UPDATE_AFTER; on format
  // v3 first those of one _row_id, and the columns may be left empty.
  std::vector<std::string> identifier_columns;
  bool compute_updates = false;
  // Net changes over the whole range, as Spark computes them: rows equal in every column
  // cancel in snapshot order, DELETE and INSERT alike, whatever snapshots they are in; what
  // is left carries the snapshot of the row after the last point where they balanced. Row
  // lineage plays no part: on format v3 too, rows cancel by values.
  bool net_changes = false;
  // A range that holds no snapshot (Spark's options can name one): no rows.
  bool empty = false;
};

// The columns after the table's: _change_type (STRING), _change_ordinal (INT, the position
// of the row's snapshot among the range's snapshots, oldest 0), _commit_snapshot_id (BIGINT).
inline constexpr char kChangeTypeColumn[] = "_change_type";
inline constexpr char kChangeOrdinalColumn[] = "_change_ordinal";
inline constexpr char kCommitSnapshotIdColumn[] = "_commit_snapshot_id";

// The range Spark's read options name (keys in any case; others are ignored):
// `start-snapshot-id` (exclusive), `end-snapshot-id`, `start-timestamp` (exclusive) and
// `end-timestamp` (milliseconds since the epoch, matched against the current snapshot's
// ancestors); `empty` when they name a range with no snapshot in it. Errors in Spark's words:
// `Cannot set neither snapshot-id, as-of-timestamp, branch and tag for changelogs`, `Cannot set
// both start-snapshot-id and start-timestamp for changelogs` (and end), `Cannot set start-timestamp
// to be greater than end-timestamp for changelogs`, `For input string:
// "<text>"`.
Result<ChangelogOptions> ChangelogRangeFromReadOptions(
    const table::Table& table, const std::vector<std::pair<std::string, std::string>>& options);

// The snapshots of (from, to] oldest first, `replace` ones left out. Errors: `Cannot find the
// end snapshot: <to>`, `Starting snapshot (exclusive) <from> is not a parent ancestor of end
// snapshot <to>`.
Result<std::vector<int64_t>> ChangelogSnapshots(const table::Table& table,
                                                const ChangelogOptions& options);

// The changes, in the table's current columns (older files read by field id), ordered by
// _change_ordinal; within a snapshot its DELETE rows, then UPDATE_BEFORE and UPDATE_AFTER
// pairs, then INSERT rows. Errors besides ChangelogSnapshots', in Spark's words: `Not support
// net changes with update images`, `Cannot compute the update images because identifier
// columns are not set` (format v1 and v2), `Cannot find identifier column '<c>' in table
// <name>`, and `Cannot compute updates because there are multiple rows with the same
// identifier fields([id,_change_ordinal]). Please make sure the rows are unique.`
Result<std::shared_ptr<arrow::Table>> ReadChangelog(const std::shared_ptr<table::Table>& table,
                                                    const ChangelogOptions& options);

// The same rows as a stream. Without net changes they are read and handed out one snapshot at
// a time, so only one snapshot's changed files are held; an error of a later snapshot (its
// duplicate identifiers) comes when its rows are read. Net changes span the range: held whole.
Result<std::shared_ptr<arrow::RecordBatchReader>> StreamChangelog(
    const std::shared_ptr<table::Table>& table, const ChangelogOptions& options);

}  // namespace floe::scan
