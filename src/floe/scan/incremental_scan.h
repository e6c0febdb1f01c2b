#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include <arrow/type_fwd.h>

#include "floe/table/table.h"

namespace floe::scan {

// The rows appended in (from_exclusive, to_inclusive] (see table::AppendedFilesBetween for
// the rules and errors), read with the table's current schema as Iceberg's incremental
// scans do.
Result<std::shared_ptr<arrow::Table>> ReadAppendedRows(const table::Table& table,
                                                       std::optional<int64_t> from_exclusive,
                                                       std::optional<int64_t> to_inclusive);

}  // namespace floe::scan
