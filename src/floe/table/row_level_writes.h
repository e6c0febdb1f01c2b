#pragma once

// What row-level writes (DELETE, UPDATE, MERGE, compaction) need of a table's format version:
// on format-version 3 the data files such a change writes store each carried-over row's
// lineage (`_row_id`, `_last_updated_sequence_number`, spec: "Row Lineage"). Appends and
// overwrites store none.

#include <memory>

#include "floe/table/rolling_writer.h"
#include "floe/table/table.h"

namespace floe::table {

// Whether rewrites of `metadata`'s table carry row lineage: format version 3 and newer.
bool CarriesRowLineage(const spec::TableMetadata& metadata);

// A writer of the data files a row-level change writes to `table`, with the row lineage
// columns when the table carries them (RollingWriterOptions::row_lineage).
Result<std::unique_ptr<RollingDataWriter>> MakeRowLevelWriter(const Table& table);

}  // namespace floe::table
