#pragma once

// Moving single values between Arrow and Iceberg literals: partition values of written
// rows, Parquet statistics as column bounds, and partition columns read back.

#include <memory>

#include <arrow/type_fwd.h>

#include "floe/spec/literal.h"

namespace floe::table {

// The value at `index` of `array` as a literal of Iceberg type `type` (null stays null).
Result<spec::Literal> LiteralFromArray(const arrow::Array& array, int64_t index,
                                       const spec::TypePtr& type);
Result<spec::Literal> LiteralFromScalar(const arrow::Scalar& scalar, const spec::TypePtr& type);
// A scalar of the Arrow type Iceberg type `type` maps to.
Result<std::shared_ptr<arrow::Scalar>> LiteralToScalar(const spec::Literal& literal);

}  // namespace floe::table
