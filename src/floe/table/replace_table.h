#pragma once

// CREATE OR REPLACE TABLE / REPLACE TABLE on an existing table.

#include "floe/spec/schema.h"
#include "floe/table/table.h"
#include "floe/table/table_catalog.h"

namespace floe::table {

// Gives the table a new current schema, default partition spec and properties (merged over
// the old ones) in one commit. The history stays and stays readable; main is cleared, so
// the next snapshot has no parent. A column keeps its field id when the current schema has
// a primitive column of the same name (case-insensitive) and the new one is primitive too;
// other columns get ids after last-column-id. Partition fields get ids after
// last-partition-id. `options.location` and `options.format_version` are not changed.
Status ReplaceTable(Table& table, const spec::Schema& schema, const CreateTableOptions& options);

}  // namespace floe::table
