#pragma once

#include <memory>

#include <arrow/type_fwd.h>

#include "floe/util/status.h"

namespace floe::table {

// Reshapes `array`, read from a data file, into the `expected` field of the read schema:
// struct children are matched by field id when both sides carry one, else by name (children the file lacks become nulls), names
// become the current ones and types are promoted (int -> long, float -> double, wider
// decimals, large strings to strings).
Result<std::shared_ptr<arrow::Array>> ConformArray(const std::shared_ptr<arrow::Array>& array,
                                                   const arrow::Field& expected);
Result<std::shared_ptr<arrow::ChunkedArray>> ConformChunkedArray(
    const std::shared_ptr<arrow::ChunkedArray>& array, const arrow::Field& expected);

}  // namespace floe::table
