#pragma once

// Spark's `%` on integers as one Arrow compute function: the remainder of the quotient
// truncated toward zero (it has the dividend's sign, as in Java), x % -1 is 0 even at the
// type's minimum, and x % 0 is NULL (Spark without ANSI mode). One pass over the rows, where
// divide, multiply, subtract and a NULL test took four.

#include <arrow/compute/expression.h>

namespace floe::sql {

// A call computing `a % b` over two operands of one signed integer type (int8 to int64).
// Registers the function on first use.
arrow::compute::Expression IntegerRemainder(arrow::compute::Expression a, arrow::compute::Expression b);

}  // namespace floe::sql
