#pragma once

// What row-level writes (DELETE, UPDATE, MERGE, compaction) need of a table's format version.
// On format-version 3 the data files such a change rewrites store each carried-over row's
// lineage (`_row_id`, `_last_updated_sequence_number`, spec: "Row Lineage"), and deletes must
// be deletion vectors; merge-on-read changes, which need deletion vectors, are refused on v3
// by name before any file is written. Appends, overwrites and whole-file deletes are
// unaffected.

#include <memory>
#include <string_view>

#include "floe/table/rolling_writer.h"
#include "floe/table/table.h"

namespace floe::table {

// Whether rewrites of `metadata`'s table carry row lineage: format version 3 and newer.
bool CarriesRowLineage(const spec::TableMetadata& metadata);

// OK unless `table` is format-version 3 or newer and the change is merge-on-read;
// `statement` says what was asked ("DELETE FROM", "UPDATE", "MERGE INTO").
Status CheckRowLevelWrites(const Table& table, std::string_view statement, bool merge_on_read);

// A writer of the data files a row-level change writes to `table`, with the row lineage
// columns when the table carries them (RollingWriterOptions::row_lineage).
Result<std::unique_ptr<RollingDataWriter>> MakeRowLevelWriter(const Table& table);

}  // namespace floe::table
