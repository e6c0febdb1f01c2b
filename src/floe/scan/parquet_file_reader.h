#pragma once

#include <memory>
#include <string>

#include <arrow/type_fwd.h>

#include "floe/io/file_io.h"
#include "floe/spec/schema.h"

namespace floe::scan {

// Reads one Parquet data file projected onto `projection`: columns are matched by Iceberg
// field id, never by name or position, so renamed columns still read; a column the file
// lacks reads as nulls; only the projected columns are decoded. Files written without
// field ids (imported files) fall back to matching by name.
Result<std::shared_ptr<arrow::Table>> ReadParquetFile(FileIO& io, const std::string& location,
                                                      const spec::Schema& projection);

}  // namespace floe::scan
