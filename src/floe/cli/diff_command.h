#pragma once

// `floe diff <table> <from> <to> [--key col,...] [--sample N] [--json]`: the rows added,
// removed and changed between two points of a table's history (see snapshot_point.h for
// how a point is read, and scan/snapshot_diff.h for how rows are matched), streaming, so it
// works on tables larger than memory.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "floe/scan/snapshot_diff.h"
#include "floe/spec/snapshot.h"
#include "floe/sql/session.h"
#include "floe/util/byte_size.h"
#include "floe/util/json_writer.h"
#include "floe/util/status.h"
#include "floe/util/time_zone.h"

namespace floe::cli {

struct DiffCommandOptions {
  std::string table, from, to;
  std::vector<std::string> keys;
  int64_t sample = 10;
  bool json = false;
  std::string memory_budget = "256MB";
  std::string spill_directory;
};

// Prints the diff (text or JSON) to `out`; returns 0, or 1 after one `Error:` line on `err`.
int RunDiff(sql::Session& session, const DiffCommandOptions& options, std::ostream& out,
            std::ostream& err);

// The DiffOptions of --key, --sample and --memory-budget.
Result<scan::DiffOptions> MakeDiffOptions(const std::vector<std::string>& keys, int64_t sample,
                                          const std::string& memory_budget,
                                          const std::string& spill_directory = "");

// "3 rows added, 1 removed, 1 changed; 4 unchanged data files skipped" ("changed" only with
// key columns).
std::string DiffSummaryText(const scan::SnapshotDiff& diff);
// Writes {"added": 3, "removed": 1, "changed": 1, "unchanged_files_skipped": 4} ("changed" is
// null without key columns).
void WriteDiffCounts(const scan::SnapshotDiff& diff, JsonWriter* json);

// The samples of `diff` as tables (added, removed, changed before and after), each under a
// title line; nothing for an empty one.
void PrintDiffSamples(const scan::SnapshotDiff& diff, const TimeZone& zone, std::ostream& out);

// "2025-06-15 09:05:00 UTC": an instant in the session's zone, with the zone's name.
std::string ZonedTime(int64_t epoch_ms, const TimeZone& zone);

// "snapshot 123, committed 2025-06-15 09:05:00 UTC, overwrite".
std::string SnapshotLine(const spec::Snapshot& snapshot, const TimeZone& zone);

}  // namespace floe::cli
