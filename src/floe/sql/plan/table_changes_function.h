#pragma once

// The table function table_changes: the rows that changed between two points of a table.
//
//   table_changes('db.t', from, to [, mode => 'all' | 'net'] [, compute_updates => bool]
//                 [, identifier_columns => array('id', ...)])
//
// `from` (exclusive) and `to` (inclusive) are each a snapshot id, a timestamp (TIMESTAMP or
// text that reads as one: the snapshot current then, as TIMESTAMP AS OF reads it), a tag or
// branch name, or NULL: the table as created for `from`, the current snapshot for `to`. A
// string is a tag or branch first, then a snapshot id, then a timestamp. Arguments bind by
// position in that order or by name. Session settings: floe.changes.memory-budget (e.g.
// '256MB', the state comparison of net mode spills past it) and floe.changes.spill-dir.
// Rows and modes: scan/table_changes.h.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/sql/parse/ast.h"
#include "floe/sql/session/session_state.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::sql {

inline constexpr char kTableChangesFunction[] = "table_changes";
inline constexpr char kChangesMemoryBudgetKey[] = "floe.changes.memory-budget";
inline constexpr char kChangesSpillDirKey[] = "floe.changes.spill-dir";

struct TableFunctionArgument {
  std::optional<std::string> name;  // lower-cased; none when positional
  std::shared_ptr<arrow::Scalar> value;
};

// Errors name the function, the argument and the table: `table_changes has no parameter
// `<x>`...`, `Invalid mode '<m>' for table_changes: expected 'all' or 'net'`, `Cannot resolve
// '<text>' in table <t>: it is not a branch or tag, a snapshot id or a timestamp`, `Cannot
// set start-timestamp to be greater than end-timestamp for changelogs`, and those of
// ReadTableChanges.
Result<std::shared_ptr<arrow::RecordBatchReader>> TableChanges(
    SessionState& session,
    const std::function<Result<std::shared_ptr<table::Table>>(const ObjectName&)>& load_table,
    const std::vector<TableFunctionArgument>& args);

}  // namespace floe::sql
