#include "floe/util/number_parse.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(NumberParse, Int64TakesTheWholeTextWithinRange) {
  EXPECT_EQ(ParseInt64("42"), 42);
  EXPECT_EQ(ParseInt64("+7"), 7);
  EXPECT_EQ(ParseInt64("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ParseInt64("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ParseInt64("9223372036854775808"), std::nullopt);
  EXPECT_EQ(ParseInt64("99999999999999999999"), std::nullopt);
  EXPECT_EQ(ParseInt64("x"), std::nullopt);
  EXPECT_EQ(ParseInt64("12x"), std::nullopt);
  EXPECT_EQ(ParseInt64(""), std::nullopt);
  EXPECT_EQ(ParseInt64("+"), std::nullopt);
  EXPECT_EQ(ParseInt64(" 1"), std::nullopt);
}

TEST(NumberParse, Int32AndHex) {
  EXPECT_EQ(ParseInt32("-2147483648"), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(ParseInt32("2147483648"), std::nullopt);
  EXPECT_EQ(ParseHex("ff"), 255u);
  EXPECT_EQ(ParseHex("0A"), 10u);
  EXPECT_EQ(ParseHex("-1"), std::nullopt);
  EXPECT_EQ(ParseHex("g1"), std::nullopt);
}

TEST(NumberParse, DoubleOverflowIsAnErrorAndUnderflowIsZero) {
  double d = 1;
  EXPECT_EQ(ParseDouble("1.5", &d), FloatParse::kOk);
  EXPECT_EQ(d, 1.5);
  EXPECT_EQ(ParseDouble(".5e1", &d), FloatParse::kOk);
  EXPECT_EQ(d, 5.0);
  EXPECT_EQ(ParseDouble("1e400", &d), FloatParse::kOverflow);
  EXPECT_EQ(ParseDouble("-1e400", &d), FloatParse::kOverflow);
  EXPECT_EQ(ParseDouble("123456e99999999999999999999", &d), FloatParse::kOverflow);
  EXPECT_EQ(ParseDouble("1e-400", &d), FloatParse::kOk);
  EXPECT_EQ(d, 0.0);
  EXPECT_FALSE(std::signbit(d));
  EXPECT_EQ(ParseDouble("-0.000001e-400", &d), FloatParse::kOk);
  EXPECT_EQ(d, 0.0);
  EXPECT_TRUE(std::signbit(d));
  EXPECT_EQ(ParseDouble("1.7976931348623157e308", &d), FloatParse::kOk);
  EXPECT_EQ(d, std::numeric_limits<double>::max());
  // Written above the largest double as Java prints it, though it rounds to that double.
  EXPECT_EQ(ParseDouble("1.7976931348623158e308", &d), FloatParse::kOverflow);
  EXPECT_EQ(ParseDouble("-1.79769313486231571e308", &d), FloatParse::kOverflow);
  EXPECT_EQ(ParseDouble("179769313486231570000e288", &d), FloatParse::kOk);
  EXPECT_EQ(ParseDouble("1.79769313486231569e308", &d), FloatParse::kOk);
  EXPECT_EQ(ParseDouble("inf", &d), FloatParse::kInvalid);
  EXPECT_EQ(ParseDouble("nan", &d), FloatParse::kInvalid);
  EXPECT_EQ(ParseDouble("1e", &d), FloatParse::kInvalid);
  EXPECT_EQ(ParseDouble("", &d), FloatParse::kInvalid);
}

TEST(NumberParse, FloatRange) {
  float f = 1;
  EXPECT_EQ(ParseFloat("3.4e38", &f), FloatParse::kOk);
  EXPECT_EQ(ParseFloat("1e39", &f), FloatParse::kOverflow);
  // Float.MAX_VALUE as Java prints a float is above it widened to double.
  EXPECT_EQ(ParseFloat("3.4028235e38", &f), FloatParse::kOverflow);
  EXPECT_EQ(ParseFloat("3.4028234663852886e38", &f), FloatParse::kOk);
  EXPECT_EQ(ParseFloat("1e-50", &f), FloatParse::kOk);
  EXPECT_EQ(f, 0.0f);
  EXPECT_EQ(ParseFloat("0.25", &f), FloatParse::kOk);
  EXPECT_EQ(f, 0.25f);
}

}  // namespace
}  // namespace floe
