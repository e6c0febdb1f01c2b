#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "floe/spec/literal.h"
#include "floe_test.h"
#include "test_values.h"

namespace floe::spec {
namespace {

using floe::testing::Bytes;

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out.push_back(kHex[static_cast<uint8_t>(c) >> 4]);
    out.push_back(kHex[static_cast<uint8_t>(c) & 15]);
  }
  return out;
}

arrow::Decimal128 Dec(const char* text) { return *arrow::Decimal128::FromString(text); }

constexpr char kUuid[] = "f79c3e09-677c-4bbd-a479-3f349cb785e7";

TEST(LiteralTest, HumanStrings) {
  EXPECT_EQ(Literal::Boolean(true).ToString(), "true");
  EXPECT_EQ(Literal::Int(-34).ToString(), "-34");
  EXPECT_EQ(Literal::Long(34).ToString(), "34");
  EXPECT_EQ(Literal::Float(1.0f).ToString(), "1.0");
  EXPECT_EQ(Literal::Double(0.1).ToString(), "0.1");
  EXPECT_EQ(Literal::Double(1e10).ToString(), "1.0E10");
  EXPECT_EQ(Literal::Double(-1.5e-5).ToString(), "-1.5E-5");
  EXPECT_EQ(Literal::Double(1234567.0).ToString(), "1234567.0");
  EXPECT_EQ(Literal::Decimal(arrow::Decimal128(1250), 9, 2).ToString(), "12.50");
  EXPECT_EQ(Literal::Decimal(arrow::Decimal128(-5), 9, 2).ToString(), "-0.05");
  EXPECT_EQ(Literal::Date(19737).ToString(), "2024-01-15");
  EXPECT_EQ(Literal::Date(-1).ToString(), "1969-12-31");
  EXPECT_EQ(Literal::Time(81068000000).ToString(), "22:31:08");
  EXPECT_EQ(Literal::Time(81060000000).ToString(), "22:31");  // LocalTime.toString
  EXPECT_EQ(Literal::Timestamp(1705314600000000).ToString(), "2024-01-15T10:30:00");
  EXPECT_EQ(Literal::TimestampTz(1705314600000000).ToString(), "2024-01-15T10:30:00+00:00");
  EXPECT_EQ(Literal::Timestamp(1510871468000001).ToString(), "2017-11-16T22:31:08.000001");
  EXPECT_EQ(Literal::Timestamp(-1).ToString(), "1969-12-31T23:59:59.999999");
  EXPECT_EQ(Literal::String("abc").ToString(), "abc");
  ASSERT_OK_AND_ASSIGN(std::string uuid, UuidFromString(kUuid));
  EXPECT_EQ(Literal::Uuid(uuid).ToString(), kUuid);
  EXPECT_EQ(Literal::Binary(Bytes({0, 1, 2, 3})).ToString(), "AAECAw==");
  EXPECT_EQ(Literal::Null(Type::Int()).ToString(), "null");
}

TEST(LiteralTest, UuidText) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, UuidFromString("F79C3E09-677C-4BBD-A479-3F349CB785E7"));
  EXPECT_EQ(Hex(bytes), "f79c3e09677c4bbda4793f349cb785e7");
  EXPECT_EQ(UuidToString(bytes), kUuid);
  ASSERT_RAISES_WITH_MESSAGE("Invalid UUID string", UuidFromString("f79c3e09-677c"));
  ASSERT_RAISES_WITH_MESSAGE("Invalid UUID string",
                             UuidFromString("g79c3e09-677c-4bbd-a479-3f349cb785e7"));
}

TEST(LiteralTest, CompareAndEquality) {
  EXPECT_LT(Literal::Int(1).Compare(Literal::Int(2)), 0);
  EXPECT_GT(Literal::Long(5).Compare(Literal::Long(-5)), 0);
  // Strings and binary compare as unsigned bytes: 0xC3 sorts after 'z'.
  EXPECT_LT(Literal::String("z").Compare(Literal::String("\xc3\xa9")), 0);
  EXPECT_LT(Literal::Binary(Bytes({0x7f})).Compare(Literal::Binary(Bytes({0x80}))), 0);
  EXPECT_LT(Literal::String("ab").Compare(Literal::String("abc")), 0);
  EXPECT_LT(Literal::Double(-0.0).Compare(Literal::Double(0.0)), 0);
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_GT(Literal::Double(nan).Compare(Literal::Double(1e300)), 0);
  EXPECT_EQ(Literal::Double(nan), Literal::Double(nan));
  EXPECT_LT(Literal::Decimal(arrow::Decimal128(1250), 9, 2)
                .Compare(Literal::Decimal(arrow::Decimal128(1251), 9, 2)),
            0);
  EXPECT_LT(Literal::Null(Type::Int()).Compare(Literal::Int(0)), 0);
  EXPECT_EQ(Literal::Int(3), Literal::Int(3));
  EXPECT_FALSE(Literal::Int(3) == Literal::Date(3));
  EXPECT_FALSE(Literal::Int(3) == Literal::Long(3));
  EXPECT_EQ(Literal::Null(Type::Int()), Literal::Null(Type::Int()));
  EXPECT_FALSE(Literal::Null(Type::Int()) == Literal::Int(0));
}

struct BinaryCase {
  Literal literal;
  std::string hex;
};

TEST(LiteralTest, SingleValueBinaryOfEveryPrimitive) {
  ASSERT_OK_AND_ASSIGN(std::string uuid, UuidFromString(kUuid));
  std::vector<BinaryCase> cases = {
      {Literal::Boolean(false), "00"},
      {Literal::Boolean(true), "01"},
      {Literal::Int(34), "22000000"},
      {Literal::Int(-1), "ffffffff"},
      {Literal::Long(34), "2200000000000000"},
      {Literal::Long(-2), "feffffffffffffff"},
      {Literal::Float(1.0f), "0000803f"},
      {Literal::Double(1.0), "000000000000f03f"},
      {Literal::Date(17486), "4e440000"},
      {Literal::Time(81068000000), "008307e012000000"},
      {Literal::Timestamp(1510871468000000), "00c3262d215e0500"},
      {Literal::TimestampTz(1510871468000000), "00c3262d215e0500"},
      {Literal::String("iceberg"), "69636562657267"},
      {Literal::String(""), ""},
      {Literal::Uuid(uuid), "f79c3e09677c4bbda4793f349cb785e7"},
      {Literal::Fixed(Bytes({0, 1, 2, 3})), "00010203"},
      {Literal::Binary(Bytes({0, 1, 2, 3})), "00010203"},
      // Decimals: minimal big-endian two's complement of the unscaled value.
      {Literal::Decimal(arrow::Decimal128(1420), 4, 2), "058c"},
      {Literal::Decimal(arrow::Decimal128(0), 9, 2), "00"},
      {Literal::Decimal(arrow::Decimal128(127), 9, 2), "7f"},
      {Literal::Decimal(arrow::Decimal128(128), 9, 2), "0080"},
      {Literal::Decimal(arrow::Decimal128(-1), 9, 2), "ff"},
      {Literal::Decimal(arrow::Decimal128(-128), 9, 2), "80"},
      {Literal::Decimal(arrow::Decimal128(-129), 9, 2), "ff7f"},
      {Literal::Decimal(Dec("-99999999999999999999999999999999999999"), 38, 0),
       "b4c4b357a5793b85f675ddc000000001"},
  };
  for (const auto& c : cases) {
    std::string bytes = ToSingleValueBinary(c.literal);
    EXPECT_EQ(Hex(bytes), c.hex) << c.literal.type()->ToString() << " " << c.literal.ToString();
    ASSERT_OK_AND_ASSIGN(Literal back, FromSingleValueBinary(c.literal.type(), bytes));
    EXPECT_EQ(back, c.literal) << c.literal.type()->ToString() << " " << c.literal.ToString();
  }
  EXPECT_EQ(ToSingleValueBinary(Literal::Null(Type::Int())), "");
}

TEST(LiteralTest, DecodingValidatesLengths) {
  ASSERT_RAISES_WITH_MESSAGE("Cannot decode int from 3 bytes: expected 4",
                             FromSingleValueBinary(Type::Int(), "abc"));
  ASSERT_RAISES_WITH_MESSAGE("Cannot decode timestamp from 4 bytes",
                             FromSingleValueBinary(Type::Timestamp(), "abcd"));
  ASSERT_RAISES_WITH_MESSAGE("Cannot decode boolean from 0 bytes",
                             FromSingleValueBinary(Type::Boolean(), ""));
  ASSERT_RAISES_WITH_MESSAGE("Cannot decode uuid from 15 bytes",
                             FromSingleValueBinary(Type::Uuid(), std::string(15, 'x')));
  ASSERT_RAISES_WITH_MESSAGE("Cannot decode fixed[4] from 3 bytes",
                             FromSingleValueBinary(Type::Fixed(4), "abc"));
  ASSERT_RAISES_WITH_MESSAGE("Cannot decode decimal(9,2) from 0 bytes",
                             FromSingleValueBinary(Type::Decimal(9, 2), ""));
  ASSERT_RAISES_WITH_MESSAGE("Cannot decode decimal(9,2) from 17 bytes",
                             FromSingleValueBinary(Type::Decimal(9, 2), std::string(17, 'x')));
  ASSERT_RAISES_WITH_MESSAGE("nested type", FromSingleValueBinary(Type::Struct({}), "x"));
  // Promoted columns keep their old 4-byte bounds.
  ASSERT_OK_AND_ASSIGN(Literal l,
                       FromSingleValueBinary(Type::Long(), Bytes({0xff, 0xff, 0xff, 0xff})));
  EXPECT_EQ(l.get<int64_t>(), -1);
  ASSERT_OK_AND_ASSIGN(Literal d, FromSingleValueBinary(Type::Double(), Bytes({0, 0, 0x80, 0x3f})));
  EXPECT_EQ(d.get<double>(), 1.0);
}

}  // namespace
}  // namespace floe::spec
