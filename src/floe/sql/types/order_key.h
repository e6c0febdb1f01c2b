#pragma once

// Ordering of arrays and structs as Spark has it, for sorts Arrow cannot do on nested types:
// each value becomes bytes whose byte order is the value order. Arrays compare element by
// element, a NULL element before any other and a prefix before a longer array; structs
// compare field by field, a NULL field first; within them numbers, strings, dates and
// timestamps keep their own order, -0.0 equals 0.0 and NaN is above every other number.

#include <string>

#include <arrow/compute/expression.h>
#include <arrow/type_fwd.h>

#include "floe/util/status.h"

namespace floe::sql {

// True for a type Arrow's sorts refuse (lists and structs), which sorts through OrderKey.
bool NeedsOrderKey(const arrow::DataType& type);
// OK when values of `type` can be ordered; otherwise (a map, or a type holding one, as in
// Spark) an error naming the type and `what`, the sort item as SQL.
Status CheckOrderable(const arrow::DataType& type, const std::string& what);
// A call computing each value's order key (binary; NULL where the value is NULL). Registers
// the function on first use.
arrow::compute::Expression OrderKey(arrow::compute::Expression value);

}  // namespace floe::sql
