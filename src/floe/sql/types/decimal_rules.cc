#include "floe/sql/types/decimal_rules.h"

#include "floe/sql/types/decimal_kernels.h"

#include <algorithm>

#include <arrow/type.h>

namespace floe::sql {

DecimalSpec AdjustPrecisionScale(int32_t precision, int32_t scale) {
  if (precision <= kMaxDecimalPrecision) return {precision, scale};
  int32_t whole = precision - scale;
  int32_t min_scale = std::min(scale, kMinimumAdjustedScale);
  return {kMaxDecimalPrecision, std::max(kMaxDecimalPrecision - whole, min_scale)};
}

DecimalSpec AddResult(DecimalSpec a, DecimalSpec b) {
  int32_t scale = std::max(a.scale, b.scale);
  int32_t whole = std::max(a.precision - a.scale, b.precision - b.scale);
  return AdjustPrecisionScale(whole + scale + 1, scale);
}

DecimalSpec MultiplyResult(DecimalSpec a, DecimalSpec b) {
  return AdjustPrecisionScale(a.precision + b.precision + 1, a.scale + b.scale);
}

DecimalSpec DivideResult(DecimalSpec a, DecimalSpec b) {
  int32_t scale = std::max(kMinimumAdjustedScale, a.scale + b.precision + 1);
  int32_t precision = a.precision - a.scale + b.scale + scale;
  return AdjustPrecisionScale(precision, scale);
}

DecimalSpec RemainderResult(DecimalSpec a, DecimalSpec b) {
  int32_t scale = std::max(a.scale, b.scale);
  int32_t whole = std::min(a.precision - a.scale, b.precision - b.scale);
  return AdjustPrecisionScale(whole + scale, scale);
}

DecimalSpec SumResult(DecimalSpec a) {
  return {std::min(kMaxDecimalPrecision, a.precision + 10), a.scale};
}

DecimalSpec AvgResult(DecimalSpec a) {
  return {std::min(kMaxDecimalPrecision, a.precision + 4), std::min(kMaxDecimalPrecision, a.scale + 4)};
}

std::optional<DecimalSpec> ForIntegralType(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT8: return DecimalSpec{3, 0};
    case arrow::Type::INT16: return DecimalSpec{5, 0};
    case arrow::Type::INT32: return DecimalSpec{10, 0};
    case arrow::Type::INT64: return DecimalSpec{20, 0};
    default: return std::nullopt;
  }
}

DecimalSpec ForIntegerLiteral(int64_t value) {
  // Count digits on the negative side, where INT64_MIN still fits.
  int64_t v = value > 0 ? -value : value;
  int32_t digits = 1;
  while (v <= -10) {
    v /= 10;
    ++digits;
  }
  return {digits, 0};
}

namespace {
DecimalSpec SpecOf(const arrow::DataType& type) {
  const auto& d = static_cast<const arrow::Decimal128Type&>(type);
  return {d.precision(), d.scale()};
}
}  // namespace

std::shared_ptr<arrow::DataType> SumResultType(const std::shared_ptr<arrow::DataType>& input) {
  if (arrow::is_integer(input->id())) return arrow::int64();
  if (input->id() == arrow::Type::DECIMAL128) {
    DecimalSpec out = SumResult(SpecOf(*input));
    return arrow::decimal128(out.precision, out.scale);
  }
  return arrow::float64();
}

std::shared_ptr<arrow::DataType> AvgResultType(const std::shared_ptr<arrow::DataType>& input,
                                               arrow::compute::Expression* argument) {
  if (input->id() == arrow::Type::DECIMAL128) {
    DecimalSpec out = AvgResult(SpecOf(*input));
    if (argument) *argument = DecimalCall(DecimalOp::kRescale, {*argument}, {kMaxDecimalPrecision, out.scale});
    return arrow::decimal128(out.precision, out.scale);
  }
  return arrow::float64();
}

}  // namespace floe::sql
