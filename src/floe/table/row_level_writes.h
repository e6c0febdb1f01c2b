#pragma once

// Which row-level writes a table takes. On format-version 3 a change that rewrites rows must
// carry their lineage (`_row_id`, `_last_updated_sequence_number`) and deletes must be
// deletion vectors; until floe writes both, such changes to a v3 table are refused by name
// before any file is written. Appends, overwrites and whole-file deletes are unaffected.

#include <string_view>

#include "floe/table/table.h"

namespace floe::table {

// OK unless `table` is format-version 3 or newer; `statement` says what was asked
// ("DELETE FROM", "UPDATE", "MERGE INTO", "rewrite data files of").
Status CheckRowLevelWrites(const Table& table, std::string_view statement);

}  // namespace floe::table
