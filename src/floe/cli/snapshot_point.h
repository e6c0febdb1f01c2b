#pragma once

// The table and the points in its history that floe subcommands take as arguments, resolved
// in one place.
//
// A point given alone (`floe diff <table> <from> <to>`) is, in this order:
//  1. the name of a branch or tag: its snapshot (a ref named like a number wins over the id);
//  2. an integer: that snapshot id;
//  3. a timestamp ('2025-06-15', '2025-06-15 09:05[:00[.123]]', 'T' between the two, an
//     optional zone such as 'Z', '+02:00' or ' Europe/Paris'; without one it is read in
//     --tz): the snapshot a `TIMESTAMP AS OF` query reads, that is the one that was main's
//     current snapshot at that instant.
// The explicit forms (--snapshot-id, --timestamp, --ref) take only their own kind.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "floe/spec/table_metadata.h"
#include "floe/cli/table_argument.h"
#include "floe/sql/session.h"
#include "floe/table/table.h"
#include "floe/util/status.h"
#include "floe/util/time_zone.h"

namespace floe::cli {


// The session's time zone (--tz), for reading and showing timestamps.
Result<TimeZone> SessionTimeZone(const sql::Session& session);

struct ResolvedPoint {
  int64_t snapshot_id = 0;
  // How the point was read: "snapshot id", "branch main", "tag v1" or "as of <instant>".
  std::string how;
};

// A positional point (see above). Errors: `Cannot find snapshot with ID <id> in table <t>`,
// `Cannot find a snapshot older than <instant>` (the timestamp predates the history), and
// `Cannot resolve '<text>' in table <t>: it is not a branch or tag, a snapshot id or a
// timestamp`.
Result<ResolvedPoint> ResolvePoint(const table::Table& table, std::string_view text,
                                   const TimeZone& zone);

// The explicit forms. A snapshot id must exist; a timestamp resolves as a positional one
// does; a ref must be a branch or tag (`Cannot find ref <name> in table <t>`).
Result<ResolvedPoint> ResolveSnapshotIdPoint(const table::Table& table, int64_t snapshot_id);
Result<ResolvedPoint> ResolveTimestampPoint(const table::Table& table, std::string_view text,
                                            const TimeZone& zone);
Result<ResolvedPoint> ResolveRefPoint(const table::Table& table, const std::string& ref);

}  // namespace floe::cli
