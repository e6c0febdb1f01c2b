#pragma once

// Spark 3.5's result types for decimal arithmetic and aggregates (DecimalPrecision with
// spark.sql.decimalOperations.allowPrecisionLoss=true, its default). Pure functions of the
// operand types; the values themselves are computed by decimal_kernels.h.

#include <cstdint>
#include <memory>
#include <optional>

#include <arrow/compute/expression.h>
#include <arrow/type_fwd.h>

namespace floe::sql {

struct DecimalSpec {
  int32_t precision = 10;
  int32_t scale = 0;

  bool operator==(const DecimalSpec&) const = default;
};

inline constexpr int32_t kMaxDecimalPrecision = 38;
// The fewest fraction digits an adjusted result keeps (Spark's MINIMUM_ADJUSTED_SCALE).
inline constexpr int32_t kMinimumAdjustedScale = 6;

// A type wider than 38 digits loses fraction digits, but keeps at least 6 of them (fewer only
// when the type asked for fewer), so that the whole part is not cut.
DecimalSpec AdjustPrecisionScale(int32_t precision, int32_t scale);

DecimalSpec AddResult(DecimalSpec a, DecimalSpec b);  // also subtraction
DecimalSpec MultiplyResult(DecimalSpec a, DecimalSpec b);
DecimalSpec DivideResult(DecimalSpec a, DecimalSpec b);
DecimalSpec RemainderResult(DecimalSpec a, DecimalSpec b);
DecimalSpec SumResult(DecimalSpec a);
DecimalSpec AvgResult(DecimalSpec a);

// The decimal an integral type widens to next to a decimal: TINYINT (3,0), SMALLINT (5,0),
// INT (10,0), BIGINT (20,0); nullopt for other types.
std::optional<DecimalSpec> ForIntegralType(const arrow::DataType& type);

// An integer literal next to a decimal counts only the digits it has (7 is decimal(1,0)).
DecimalSpec ForIntegerLiteral(int64_t value);

// Spark's result type of sum(x) and avg(x): BIGINT sums for integers, DOUBLE for floating
// values and avg of integers, the rules above for decimals.
std::shared_ptr<arrow::DataType> SumResultType(const std::shared_ptr<arrow::DataType>& input);
// When `argument` is given and the input is a decimal, it is rewritten to carry the result's
// scale, so that Arrow's mean (which keeps its input's scale) rounds only once, half up.
std::shared_ptr<arrow::DataType> AvgResultType(const std::shared_ptr<arrow::DataType>& input,
                                               arrow::compute::Expression* argument = nullptr);

}  // namespace floe::sql
