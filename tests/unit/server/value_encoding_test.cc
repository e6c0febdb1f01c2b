#include "floe/server/value_encoding.h"

#include <arrow/array.h>
#include <arrow/array/util.h>
#include <arrow/builder.h>
#include <arrow/extension/uuid.h>
#include <arrow/scalar.h>
#include <arrow/type.h>
#include <arrow/util/decimal.h>

#include "floe/server/pg_type_map.h"
#include "floe_test.h"
#include "test_values.h"

namespace floe::server {
namespace {

using floe::testing::Bytes;

std::shared_ptr<arrow::Array> One(const std::shared_ptr<arrow::Scalar>& scalar) {
  auto array = arrow::MakeArrayFromScalar(*scalar, 1);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  return *array;
}

std::string Text(const std::shared_ptr<arrow::Scalar>& scalar,
                 const TimeZone& zone = TimeZone::Utc()) {
  auto text = TextValue(*One(scalar), 0, zone);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

std::string Binary(const std::shared_ptr<arrow::Scalar>& scalar) {
  auto bytes = BinaryValue(*One(scalar), 0, TimeZone::Utc());
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : "";
}

TEST(ValueEncoding, BoolAndIntegers) {
  EXPECT_EQ(Text(arrow::MakeScalar(true)), "t");
  EXPECT_EQ(Binary(arrow::MakeScalar(false)), Bytes({0}));
  EXPECT_EQ(Text(arrow::MakeScalar(int16_t{-5})), "-5");
  EXPECT_EQ(Binary(arrow::MakeScalar(int16_t{-2})), Bytes({0xff, 0xfe}));
  EXPECT_EQ(Binary(arrow::MakeScalar(int32_t{258})), Bytes({0, 0, 1, 2}));
  EXPECT_EQ(Text(arrow::MakeScalar(int64_t{9007199254740993})), "9007199254740993");
  EXPECT_EQ(Binary(arrow::MakeScalar(int64_t{-1})), std::string(8, '\xff'));
}

TEST(ValueEncoding, FloatsAsPostgresPrintsThem) {
  EXPECT_EQ(Text(arrow::MakeScalar(1.5)), "1.5");
  EXPECT_EQ(Text(arrow::MakeScalar(0.1)), "0.1");
  EXPECT_EQ(Text(arrow::MakeScalar(100000.0)), "100000");
  EXPECT_EQ(Text(arrow::MakeScalar(1e20)), "1e+20");
  EXPECT_EQ(Text(arrow::MakeScalar(0.0001)), "0.0001");
  EXPECT_EQ(Text(arrow::MakeScalar(0.00001)), "1e-05");
  EXPECT_EQ(Text(arrow::MakeScalar(-2.5e-10)), "-2.5e-10");
  EXPECT_EQ(Text(arrow::MakeScalar(std::numeric_limits<double>::infinity())), "Infinity");
  EXPECT_EQ(Text(arrow::MakeScalar(std::nan(""))), "NaN");
  EXPECT_EQ(Text(arrow::MakeScalar(1.25f)), "1.25");
  EXPECT_EQ(Text(arrow::MakeScalar(0.1f)), "0.1");
  EXPECT_EQ(Binary(arrow::MakeScalar(1.0)), Bytes({0x3f, 0xf0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Binary(arrow::MakeScalar(1.0f)), Bytes({0x3f, 0x80, 0, 0}));
}

TEST(ValueEncoding, NumericTextAndNbaseBinary) {
  auto dec = [](const char* text, int p, int s) {
    return std::make_shared<arrow::Decimal128Scalar>(*arrow::Decimal128::FromString(text),
                                                     arrow::decimal128(p, s));
  };
  EXPECT_EQ(Text(dec("12345.67", 10, 2)), "12345.67");
  EXPECT_EQ(Text(dec("-0.50", 4, 2)), "-0.50");
  // 12345.67: digits 1, 2345, 6700; weight 1; scale 2.
  EXPECT_EQ(Binary(dec("12345.67", 10, 2)),
            Bytes({0, 3, 0, 1, 0, 0, 0, 2, 0, 1, 0x09, 0x29, 0x1a, 0x2c}));
  // -0.5 (scale 2): digit 5000 at weight -1, negative.
  EXPECT_EQ(Binary(dec("-0.50", 4, 2)), Bytes({0, 1, 0xff, 0xff, 0x40, 0, 0, 2, 0x13, 0x88}));
  // 0: no digits.
  EXPECT_EQ(Binary(dec("0.00", 4, 2)), Bytes({0, 0, 0, 0, 0, 0, 0, 2}));
  EXPECT_EQ(NumericBinary("10000", 0), Bytes({0, 1, 0, 1, 0, 0, 0, 0, 0, 1}));
}

TEST(ValueEncoding, TextAndBytea) {
  EXPECT_EQ(Text(arrow::MakeScalar("héllo")), "héllo");
  EXPECT_EQ(Binary(arrow::MakeScalar("héllo")), "héllo");
  auto bytes = std::make_shared<arrow::BinaryScalar>(std::string("\x01\xab\xff", 3));
  EXPECT_EQ(Text(bytes), "\\x01abff");
  EXPECT_EQ(Binary(bytes), std::string("\x01\xab\xff", 3));
}

TEST(ValueEncoding, DatesTimesAndTimestamps) {
  auto date = std::make_shared<arrow::Date32Scalar>(19723);  // 2024-01-01
  EXPECT_EQ(Text(date), "2024-01-01");
  EXPECT_EQ(Binary(date), Bytes({0, 0, 0x22, 0x3e}));  // 8766 days after 2000-01-01
  auto time = std::make_shared<arrow::Time64Scalar>(int64_t{36000500000},
                                                    arrow::time64(arrow::TimeUnit::MICRO));
  EXPECT_EQ(Text(time), "10:00:00.5");
  int64_t micros = int64_t{1704103200} * 1000000;  // 2024-01-01 10:00:00 UTC
  auto ts =
      std::make_shared<arrow::TimestampScalar>(micros, arrow::timestamp(arrow::TimeUnit::MICRO));
  EXPECT_EQ(Text(ts), "2024-01-01 10:00:00");
  auto tstz = std::make_shared<arrow::TimestampScalar>(
      micros + 123000, arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"));
  EXPECT_EQ(Text(tstz), "2024-01-01 10:00:00.123+00");
  ASSERT_OK_AND_ASSIGN(TimeZone kolkata, TimeZone::Make("Asia/Kolkata"));
  EXPECT_EQ(Text(tstz, kolkata), "2024-01-01 15:30:00.123+05:30");
  ASSERT_OK_AND_ASSIGN(TimeZone ny, TimeZone::Make("America/New_York"));
  EXPECT_EQ(Text(tstz, ny), "2024-01-01 05:00:00.123-05");
  // Binary: microseconds since 2000-01-01 00:00:00 UTC, whatever the session zone.
  int64_t pg = micros - int64_t{946684800} * 1000000;
  std::string expected;
  for (int i = 7; i >= 0; --i) expected.push_back(static_cast<char>((pg >> (8 * i)) & 0xff));
  EXPECT_EQ(Binary(std::make_shared<arrow::TimestampScalar>(
                micros, arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))),
            expected);
  auto before_1970 = std::make_shared<arrow::TimestampScalar>(
      int64_t{-1}, arrow::timestamp(arrow::TimeUnit::MICRO));
  EXPECT_EQ(Text(before_1970), "1969-12-31 23:59:59.999999");
}

TEST(ValueEncoding, Uuid) {
  std::string raw = Bytes({0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67,
                           0x89, 0xab, 0xcd, 0xef});
  auto fixed = std::make_shared<arrow::FixedSizeBinaryScalar>(arrow::Buffer::FromString(raw),
                                                              arrow::fixed_size_binary(16));
  EXPECT_EQ(Text(fixed), "\\x123456789abcdef00123456789abcdef");  // fixed(16) is bytea
  EXPECT_EQ(Binary(fixed), raw);
  auto ext = std::make_shared<arrow::ExtensionScalar>(fixed, arrow::extension::uuid());
  EXPECT_EQ(Text(ext), "12345678-9abc-def0-0123-456789abcdef");
  EXPECT_EQ(Binary(ext), raw);
  EXPECT_EQ(PgTypeFor(*arrow::extension::uuid()).oid, pg_oid::kUuid);
}

TEST(ValueEncoding, ListsMapsAndStructsAsText) {
  arrow::ListBuilder list(arrow::default_memory_pool(), std::make_shared<arrow::StringBuilder>());
  auto& strings = static_cast<arrow::StringBuilder&>(*list.value_builder());
  ASSERT_OK(list.Append());
  ASSERT_OK(strings.Append("a"));
  ASSERT_OK(strings.Append("b c"));
  ASSERT_OK(strings.AppendNull());
  ASSERT_OK(strings.Append(""));
  ASSERT_OK(strings.Append("q\"x"));
  std::shared_ptr<arrow::Array> lists;
  ASSERT_OK(list.Finish(&lists));
  EXPECT_EQ(*TextValue(*lists, 0, TimeZone::Utc()), "{a,\"b c\",NULL,\"\",\"q\\\"x\"}");

  arrow::ListBuilder ints(arrow::default_memory_pool(), std::make_shared<arrow::Int32Builder>());
  ASSERT_OK(ints.Append());
  ASSERT_OK(static_cast<arrow::Int32Builder&>(*ints.value_builder()).AppendValues({1, 2}));
  std::shared_ptr<arrow::Array> int_lists;
  ASSERT_OK(ints.Finish(&int_lists));
  EXPECT_EQ(*TextValue(*int_lists, 0, TimeZone::Utc()), "{1,2}");
  EXPECT_EQ(*BinaryValue(*int_lists, 0, TimeZone::Utc()), "{1,2}");
  EXPECT_EQ(PgTypeFor(*int_lists->type()).oid, pg_oid::kText);

  auto map_type = arrow::map(arrow::utf8(), arrow::int32());
  arrow::MapBuilder map(arrow::default_memory_pool(), std::make_shared<arrow::StringBuilder>(),
                        std::make_shared<arrow::Int32Builder>());
  ASSERT_OK(map.Append());
  ASSERT_OK(static_cast<arrow::StringBuilder&>(*map.key_builder()).AppendValues({"k", "z"}));
  ASSERT_OK(static_cast<arrow::Int32Builder&>(*map.item_builder()).Append(1));
  ASSERT_OK(static_cast<arrow::Int32Builder&>(*map.item_builder()).AppendNull());
  std::shared_ptr<arrow::Array> maps;
  ASSERT_OK(map.Finish(&maps));
  EXPECT_EQ(*TextValue(*maps, 0, TimeZone::Utc()), "{\"k\": 1, \"z\": null}");

  auto s = arrow::StructScalar::Make({arrow::MakeScalar(int32_t{7}), arrow::MakeScalar("x")},
                                     {"id", "name"});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Text(*s), "{\"id\": 7, \"name\": \"x\"}");
}

TEST(ValueEncoding, NullFieldIsMinusOne) {
  auto null = arrow::MakeNullScalar(arrow::int32());
  std::string out;
  ASSERT_OK(AppendField(*One(null), 0, false, TimeZone::Utc(), &out));
  EXPECT_EQ(out, std::string(4, '\xff'));
  out.clear();
  ASSERT_OK(AppendField(*One(arrow::MakeScalar(int32_t{1})), 0, true, TimeZone::Utc(), &out));
  EXPECT_EQ(out, Bytes({0, 0, 0, 4, 0, 0, 0, 1}));
}

TEST(PgTypeMap, OidsAndTypmods) {
  EXPECT_EQ(PgTypeFor(*arrow::int32()).oid, 23);
  EXPECT_EQ(PgTypeFor(*arrow::int64()).oid, 20);
  EXPECT_EQ(PgTypeFor(*arrow::int16()).oid, 21);
  EXPECT_EQ(PgTypeFor(*arrow::float32()).oid, 700);
  EXPECT_EQ(PgTypeFor(*arrow::float64()).oid, 701);
  EXPECT_EQ(PgTypeFor(*arrow::decimal128(10, 2)).oid, 1700);
  EXPECT_EQ(PgTypeFor(*arrow::decimal128(10, 2)).typmod, ((10 << 16) | 2) + 4);
  EXPECT_EQ(PgTypeFor(*arrow::utf8()).oid, 25);
  EXPECT_EQ(PgTypeFor(*arrow::large_utf8()).oid, 25);
  EXPECT_EQ(PgTypeFor(*arrow::boolean()).oid, 16);
  EXPECT_EQ(PgTypeFor(*arrow::date32()).oid, 1082);
  EXPECT_EQ(PgTypeFor(*arrow::timestamp(arrow::TimeUnit::MICRO)).oid, 1114);
  EXPECT_EQ(PgTypeFor(*arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")).oid, 1184);
  EXPECT_EQ(PgTypeFor(*arrow::binary()).oid, 17);
  EXPECT_EQ(PgTypeFor(*arrow::fixed_size_binary(16)).oid, 17);
  EXPECT_EQ(PgTypeFor(*arrow::time64(arrow::TimeUnit::MICRO)).oid, 1083);
  EXPECT_EQ(PgTypeFor(*arrow::struct_({arrow::field("a", arrow::int32())})).oid, 25);
}

}  // namespace
}  // namespace floe::server
