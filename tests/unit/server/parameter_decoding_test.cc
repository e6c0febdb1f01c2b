#include "floe/server/parameter_decoding.h"

#include <arrow/scalar.h>
#include <arrow/type.h>
#include <arrow/util/decimal.h>

#include "floe/server/pg_type_map.h"
#include "floe_test.h"
#include "test_values.h"

namespace floe::server {
namespace {

using floe::testing::Bytes;

TEST(ParameterDecoding, ByteaHexText) {
  ASSERT_OK_AND_ASSIGN(Parameter p,
                       DecodeParameter(pg_oid::kBytea, false, std::string_view("\\x01fF")));
  EXPECT_TRUE(p.value->Equals(arrow::BinaryScalar(std::string("\x01\xff"))));
  auto bad = DecodeParameter(pg_oid::kBytea, false, std::string_view("\\x0g"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "invalid hexadecimal digit: \"g\"");
  bad = DecodeParameter(pg_oid::kBytea, false, std::string_view("\\x \t"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "invalid hexadecimal digit: \" \"");
}

TEST(ParameterDecoding, TextByTypeOid) {
  ASSERT_OK_AND_ASSIGN(Parameter p, DecodeParameter(pg_oid::kInt8, false, std::string_view("-42")));
  EXPECT_TRUE(p.value->Equals(arrow::Int64Scalar(-42)));
  EXPECT_FALSE(p.untyped);
  ASSERT_OK_AND_ASSIGN(p, DecodeParameter(pg_oid::kBool, false, std::string_view("true")));
  EXPECT_TRUE(p.value->Equals(arrow::BooleanScalar(true)));
  ASSERT_OK_AND_ASSIGN(p, DecodeParameter(pg_oid::kFloat8, false, std::string_view("0.5")));
  EXPECT_TRUE(p.value->Equals(arrow::DoubleScalar(0.5)));
  ASSERT_OK_AND_ASSIGN(p, DecodeParameter(pg_oid::kText, false, std::string_view("b'q")));
  EXPECT_TRUE(p.value->Equals(arrow::StringScalar("b'q")));
  EXPECT_FALSE(p.untyped);
  // Unspecified and text-read types bind like a string literal.
  ASSERT_OK_AND_ASSIGN(p, DecodeParameter(0, false, std::string_view("2024-01-01")));
  EXPECT_TRUE(p.untyped);
  EXPECT_TRUE(p.value->Equals(arrow::StringScalar("2024-01-01")));
  ASSERT_OK_AND_ASSIGN(p, DecodeParameter(pg_oid::kNumeric, false, std::string_view("1.50")));
  EXPECT_FALSE(p.untyped);
  EXPECT_TRUE(
      p.value->Equals(arrow::Decimal128Scalar(arrow::Decimal128(150), arrow::decimal128(3, 2))));
  ASSERT_OK_AND_ASSIGN(p, DecodeParameter(pg_oid::kDate, false, std::string_view("2024-01-01")));
  EXPECT_TRUE(p.value->Equals(arrow::Date32Scalar(19723)));
  ASSERT_RAISES_WITH_MESSAGE(
      "invalid input syntax for type integer: \"12x\"",
      DecodeParameter(pg_oid::kInt4, false, std::string_view("12x")).status());
}

TEST(ParameterDecoding, Binary) {
  ASSERT_OK_AND_ASSIGN(Parameter p,
                       DecodeParameter(pg_oid::kInt4, true, Bytes({0xff, 0xff, 0xff, 0xfe})));
  EXPECT_TRUE(p.value->Equals(arrow::Int32Scalar(-2)));
  ASSERT_OK_AND_ASSIGN(
      p, DecodeParameter(pg_oid::kFloat8, true, Bytes({0x3f, 0xf0, 0, 0, 0, 0, 0, 0})));
  EXPECT_TRUE(p.value->Equals(arrow::DoubleScalar(1.0)));
  ASSERT_OK_AND_ASSIGN(p, DecodeParameter(pg_oid::kDate, true, Bytes({0, 0, 0x22, 0x3e})));
  EXPECT_TRUE(p.value->Equals(arrow::Date32Scalar(19723)));
  // 12345.67 in NBASE 10000, and -0.50.
  ASSERT_OK_AND_ASSIGN(
      p, DecodeParameter(pg_oid::kNumeric, true,
                         Bytes({0, 3, 0, 1, 0, 0, 0, 2, 0, 1, 0x09, 0x29, 0x1a, 0x2c})));
  EXPECT_TRUE(p.value->Equals(
      arrow::Decimal128Scalar(arrow::Decimal128(1234567), arrow::decimal128(7, 2))));
  ASSERT_OK_AND_ASSIGN(p, DecodeParameter(pg_oid::kNumeric, true,
                                          Bytes({0, 1, 0xff, 0xff, 0x40, 0, 0, 2, 0x13, 0x88})));
  EXPECT_TRUE(
      p.value->Equals(arrow::Decimal128Scalar(arrow::Decimal128(-50), arrow::decimal128(2, 2))));
  ASSERT_RAISES_WITH_MESSAGE("wrong length",
                             DecodeParameter(pg_oid::kInt8, true, Bytes({1, 2})).status());
}

TEST(ParameterDecoding, BinaryTimestampsBeyondUnixTimeAreRefused) {
  // 2000-01-01 plus one microsecond, then PostgreSQL's +infinity, which no Unix time holds.
  ASSERT_OK_AND_ASSIGN(Parameter p, DecodeParameter(pg_oid::kTimestamp, true, Bytes({0, 0, 0, 0, 0, 0, 0, 1})));
  EXPECT_TRUE(p.value->Equals(
      arrow::TimestampScalar(946684800000001, arrow::timestamp(arrow::TimeUnit::MICRO))));
  ASSERT_RAISES_WITH_MESSAGE(
      "invalid binary value for a parameter of type oid 1184: timestamp out of range",
      DecodeParameter(pg_oid::kTimestamptz, true, Bytes({0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})).status());
}

TEST(ParameterDecoding, NullKeepsTheType) {
  ASSERT_OK_AND_ASSIGN(Parameter p, DecodeParameter(pg_oid::kInt8, false, std::nullopt));
  EXPECT_FALSE(p.value->is_valid);
  EXPECT_TRUE(p.value->type->Equals(arrow::int64()));
  ASSERT_OK_AND_ASSIGN(p, DecodeParameter(0, true, std::nullopt));
  EXPECT_FALSE(p.value->is_valid);
}

}  // namespace
}  // namespace floe::server
