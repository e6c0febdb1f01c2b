#pragma once

// A query-wide point in time: with `SET floe.read.as-of = '<timestamp>'` every table a
// query reads without its own AS OF (or snapshot_id_/branch_/tag_ suffix) reads as of that
// instant, as TIMESTAMP AS OF would; with `SET floe.read.run-manifest = '<path>'` every table
// the run manifest records reads its recorded snapshot; with `SET floe.read.as-of-tag =
// '<tag>'` every table reads its tag of that name (a catalog tag puts one on every table). A
// run manifest wins over the other two for the tables it lists; as-of and as-of-tag together
// are an error. The target of a DELETE, UPDATE or MERGE always reads its current
// state: a write is computed from, and validated against, what it replaces.

#include <optional>
#include <string>

#include "floe/sql/session/session_state.h"
#include "floe/table/time_travel.h"

namespace floe::sql {

inline constexpr char kReadAsOfKey[] = "floe.read.as-of";
inline constexpr char kReadRunManifestKey[] = "floe.read.run-manifest";
inline constexpr char kReadAsOfTagKey[] = "floe.read.as-of-tag";

// Checks a value for one of the three keys before SET stores it (the timestamp parses in the
// session time zone; the run manifest file reads and parses; the catalog tag exists, where
// the catalog keeps catalog tags). Other keys: OK.
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
