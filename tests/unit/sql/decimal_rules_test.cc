// Spark's decimal result types and the exact arithmetic behind them.

#include <gtest/gtest.h>

#include <arrow/type.h>
#include <arrow/util/decimal.h>

#include "floe/sql/types/decimal_kernels.h"
#include "floe/sql/types/decimal_rules.h"

namespace floe::sql {
namespace {

using arrow::Decimal128;

TEST(DecimalRulesTest, AdjustKeepsAtLeastSixFractionDigits) {
  EXPECT_EQ(AdjustPrecisionScale(38, 20), (DecimalSpec{38, 20}));
  // 30 whole digits leave 8 for the fraction.
  EXPECT_EQ(AdjustPrecisionScale(50, 20), (DecimalSpec{38, 8}));
  // 45 whole digits would leave none: 6 are kept anyway.
  EXPECT_EQ(AdjustPrecisionScale(65, 20), (DecimalSpec{38, 6}));
  // A type that asked for fewer than 6 keeps what it asked for.
  EXPECT_EQ(AdjustPrecisionScale(41, 0), (DecimalSpec{38, 0}));
  EXPECT_EQ(AdjustPrecisionScale(45, 3), (DecimalSpec{38, 3}));
}

TEST(DecimalRulesTest, Division) {
  EXPECT_EQ(DivideResult({10, 2}, {10, 2}), (DecimalSpec{23, 13}));
  EXPECT_EQ(DivideResult({18, 2}, {1, 0}), (DecimalSpec{22, 6}));
  EXPECT_EQ(DivideResult({10, 2}, {1, 0}), (DecimalSpec{14, 6}));
  EXPECT_EQ(DivideResult({38, 10}, {38, 10}), (DecimalSpec{38, 6}));
  EXPECT_EQ(DivideResult({20, 0}, {10, 0}), (DecimalSpec{31, 11}));
}

TEST(DecimalRulesTest, MultiplicationAdditionRemainder) {
  EXPECT_EQ(MultiplyResult({2, 1}, {3, 2}), (DecimalSpec{6, 3}));
  EXPECT_EQ(MultiplyResult({38, 18}, {38, 18}), (DecimalSpec{38, 6}));
  EXPECT_EQ(MultiplyResult({38, 0}, {2, 0}), (DecimalSpec{38, 0}));
  EXPECT_EQ(AddResult({2, 1}, {1, 0}), (DecimalSpec{3, 1}));
  EXPECT_EQ(AddResult({10, 2}, {20, 0}), (DecimalSpec{23, 2}));
  EXPECT_EQ(AddResult({38, 2}, {38, 10}), (DecimalSpec{38, 6}));
  EXPECT_EQ(RemainderResult({2, 1}, {1, 0}), (DecimalSpec{2, 1}));
  EXPECT_EQ(RemainderResult({10, 2}, {5, 4}), (DecimalSpec{5, 4}));
}

TEST(DecimalRulesTest, Aggregates) {
  EXPECT_EQ(SumResult({18, 2}), (DecimalSpec{28, 2}));
  EXPECT_EQ(SumResult({30, 5}), (DecimalSpec{38, 5}));
  EXPECT_EQ(AvgResult({18, 2}), (DecimalSpec{22, 6}));
  EXPECT_EQ(AvgResult({36, 35}), (DecimalSpec{38, 38}));
  EXPECT_TRUE(SumResultType(arrow::int32())->Equals(*arrow::int64()));
  EXPECT_TRUE(SumResultType(arrow::decimal128(10, 2))->Equals(*arrow::decimal128(20, 2)));
  EXPECT_TRUE(SumResultType(arrow::float32())->Equals(*arrow::float64()));
  EXPECT_TRUE(AvgResultType(arrow::int64())->Equals(*arrow::float64()));
  EXPECT_TRUE(AvgResultType(arrow::decimal128(10, 2))->Equals(*arrow::decimal128(14, 6)));
}

TEST(DecimalRulesTest, IntegerOperands) {
  EXPECT_EQ(ForIntegralType(*arrow::int8()), (DecimalSpec{3, 0}));
  EXPECT_EQ(ForIntegralType(*arrow::int16()), (DecimalSpec{5, 0}));
  EXPECT_EQ(ForIntegralType(*arrow::int32()), (DecimalSpec{10, 0}));
  EXPECT_EQ(ForIntegralType(*arrow::int64()), (DecimalSpec{20, 0}));
  EXPECT_EQ(ForIntegralType(*arrow::float64()), std::nullopt);
  EXPECT_EQ(ForIntegerLiteral(0), (DecimalSpec{1, 0}));
  EXPECT_EQ(ForIntegerLiteral(7), (DecimalSpec{1, 0}));
  EXPECT_EQ(ForIntegerLiteral(-10), (DecimalSpec{2, 0}));
  EXPECT_EQ(ForIntegerLiteral(INT64_MIN), (DecimalSpec{19, 0}));
}

std::string Compute(DecimalOp op, const char* a, const char* b, DecimalSpec out) {
  int32_t pa = 0, sa = 0, pb = 0, sb = 0;
  Decimal128 x, y;
  EXPECT_TRUE(Decimal128::FromString(a, &x, &pa, &sa).ok());
  EXPECT_TRUE(Decimal128::FromString(b, &y, &pb, &sb).ok());
  std::optional<Decimal128> r = DecimalCompute(op, x, sa, y, sb, out);
  return r ? r->ToString(out.scale) : "NULL";
}

TEST(DecimalKernelsTest, RoundsHalfUpAwayFromZero) {
  EXPECT_EQ(Compute(DecimalOp::kDivide, "1.00", "3", {14, 6}), "0.333333");
  EXPECT_EQ(Compute(DecimalOp::kDivide, "2.00", "3", {14, 6}), "0.666667");
  EXPECT_EQ(Compute(DecimalOp::kDivide, "-2.00", "3", {14, 6}), "-0.666667");
  EXPECT_EQ(Compute(DecimalOp::kDivide, "1", "-8", {7, 2}), "-0.13");
  EXPECT_EQ(Compute(DecimalOp::kMultiply, "0.15", "0.1", {5, 2}), "0.02");
  EXPECT_EQ(Compute(DecimalOp::kMultiply, "-0.15", "0.1", {5, 2}), "-0.02");
  EXPECT_EQ(Compute(DecimalOp::kRescale, "2.345", "0", {5, 2}), "2.35");
  EXPECT_EQ(Compute(DecimalOp::kRescale, "-2.345", "0", {5, 2}), "-2.35");
}

TEST(DecimalKernelsTest, OverflowAndZeroDivisorAreNull) {
  EXPECT_EQ(Compute(DecimalOp::kDivide, "1.5", "0", {10, 6}), "NULL");
  EXPECT_EQ(Compute(DecimalOp::kRemainder, "1.5", "0.0", {2, 1}), "NULL");
  EXPECT_EQ(Compute(DecimalOp::kMultiply, "99999999999999999999999999999999999999", "10", {38, 0}), "NULL");
  EXPECT_EQ(Compute(DecimalOp::kAdd, "99999999999999999999999999999999999999",
                    "99999999999999999999999999999999999999", {38, 0}), "NULL");
  EXPECT_EQ(Compute(DecimalOp::kRescale, "999.995", "0", {5, 2}), "NULL");
  // 10^37 / 10^-37 at scale 6 needs 80 digits: the quotient is checked before it grows.
  EXPECT_EQ(Compute(DecimalOp::kDivide, "10000000000000000000000000000000000000",
                    "0.0000000000000000000000000000000000001", {38, 6}), "NULL");
}

TEST(DecimalKernelsTest, WideOperandsStayExact) {
  // 38-digit operands: the product needs 76 digits before it is rounded to the result scale.
  EXPECT_EQ(Compute(DecimalOp::kMultiply, "1234567890123456.7890123456789012345678",
                    "1234567890123456.7890123456789012345678", {38, 6}),
            "1524157875323883675049535156256.668194");
  EXPECT_EQ(Compute(DecimalOp::kDivide, "1.0000000000", "3.0000000000", {38, 6}), "0.333333");
  EXPECT_EQ(Compute(DecimalOp::kDivide, "2", "3", {38, 37}), "0." + std::string(36, '6') + "7");
  EXPECT_EQ(Compute(DecimalOp::kSubtract, "0.1", "100", {5, 1}), "-99.9");
  EXPECT_EQ(Compute(DecimalOp::kRemainder, "-7.5", "2", {2, 1}), "-1.5");
  EXPECT_EQ(Compute(DecimalOp::kRemainder, "7.5", "-2", {2, 1}), "1.5");
}

}  // namespace
}  // namespace floe::sql
