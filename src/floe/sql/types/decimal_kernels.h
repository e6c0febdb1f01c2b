#pragma once

// Spark's decimal arithmetic as Arrow compute functions over decimal128 operands: computed
// exactly in 256 bits, rounded half up (away from zero) to the result type, and NULL when
// the value does not fit it or a divisor is zero (Spark without ANSI mode).

#include <vector>

#include <arrow/compute/expression.h>

#include "floe/sql/types/decimal_rules.h"

namespace floe::sql {

enum class DecimalOp { kAdd, kSubtract, kMultiply, kDivide, kRemainder, kRescale };

// A call computing `op` on `args` (two decimal128 operands, one for kRescale), whose result
// is decimal128(out.precision, out.scale). Registers the functions on first use.
arrow::compute::Expression DecimalCall(DecimalOp op, std::vector<arrow::compute::Expression> args,
                                       DecimalSpec out);

// The scalar function behind one arithmetic step, for tests: `a op b` at the result type,
// nullopt when it is NULL. Values are unscaled integers at their scales.
std::optional<arrow::Decimal128> DecimalCompute(DecimalOp op, const arrow::Decimal128& a, int32_t a_scale,
                                                const arrow::Decimal128& b, int32_t b_scale, DecimalSpec out);

}  // namespace floe::sql
