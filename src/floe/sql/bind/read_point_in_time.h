#pragma once

// A query-wide point in time: with `SET floe.read.as-of = '<timestamp>'` every table a
// query reads without its own AS OF (or snapshot_id_/branch_/tag_ suffix) reads as of that
// instant, as TIMESTAMP AS OF would; with `SET floe.read.run-manifest = '<path>'` every table
// the run manifest records reads its recorded snapshot. A run manifest wins over as-of for
// the tables it lists. The target of a DELETE, UPDATE or MERGE always reads its current
// state: a write is computed from, and validated against, what it replaces.

#include <optional>
#include <string>

#include "floe/sql/session/session_state.h"
#include "floe/table/time_travel.h"

namespace floe::sql {

inline constexpr char kReadAsOfKey[] = "floe.read.as-of";
inline constexpr char kReadRunManifestKey[] = "floe.read.run-manifest";

// Checks a value for one of the two keys before SET stores it (the timestamp parses in the
// session time zone; the run manifest file reads and parses). Other keys: OK.
Status CheckReadPointSetting(const SessionState& state, const std::string& key,
                             const std::string& value);

struct SessionReadPoint {
  table::ResolvedSnapshot snapshot;
  std::string note;  // for EXPLAIN: "<table> -> snapshot <id> (floe.read.as-of ...)"
};

// Where the session settings put a plain read of `table`; nullopt when neither is set (or the
// run manifest does not list the table and no as-of is set). Errors name the table and the
// setting.
Result<std::optional<SessionReadPoint>> ResolveSessionReadPoint(const SessionState& state,
                                                                const table::Table& table);

}  // namespace floe::sql
