#pragma once

// SET lists of UPDATE and of MERGE's WHEN ... THEN UPDATE: which table column each
// assignment writes, and the rows with their new values stored as INSERT stores them.

#include <memory>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/spec/schema.h"
#include "floe/sql/parse/ast.h"
#include "floe/util/status.h"

namespace floe::sql {

// One SET target.
struct Assigned {
  int column = 0;  // the table column written
  int value = 0;   // the batch column holding its new value
  std::shared_ptr<arrow::Field> field;
};

// The table columns of `schema` (`arrow_schema` as Arrow) that `assignments` write: top-level
// columns, named bare or qualified by the target's alias (or its table name when it has
// none), each at most once. The `value` of each is left for the caller to set.
Result<std::vector<Assigned>> ResolveAssignments(const std::string& sql, const spec::Schema& schema,
                                                 const arrow::Schema& arrow_schema,
                                                 const std::vector<Assignment>& assignments,
                                                 const ObjectName& table,
                                                 const std::optional<Identifier>& alias);

// The table's columns of `batch` (its first `table_schema->num_fields()` columns), with the
// assigned columns taking their new values where `matched`. Errors (a value the column
// cannot store) point at `pos` in `sql`; `table_sql` is the table as Spark quotes it.
Result<std::shared_ptr<arrow::RecordBatch>> ApplyAssignments(
    const arrow::RecordBatch& batch, const std::shared_ptr<arrow::Schema>& table_schema,
    const std::vector<Assigned>& assigned, const std::shared_ptr<arrow::Array>& matched,
    const std::string& table_sql, const std::string& sql, SourcePos pos);

// The row lineage columns a rewrite of a v3 table reads beside the table's (spec: "Row
// Lineage"), in the order its data files store them after the table's columns.
inline constexpr const char* kRowLineageColumns = "_row_id, _last_updated_sequence_number";

// `rows` followed by the row lineage columns a v3 rewrite stores for them: `row_id` as read,
// and `sequence` as read except where `changed` is TRUE, where it is NULL (a changed row
// takes the sequence number of the snapshot that writes it). A null `changed`: none changed.
Result<std::shared_ptr<arrow::RecordBatch>> WithRowLineage(
    const arrow::RecordBatch& rows, const std::shared_ptr<arrow::Array>& row_id,
    const std::shared_ptr<arrow::Array>& sequence, const std::shared_ptr<arrow::Array>& changed);

}  // namespace floe::sql
