#include "floe/sql/types/value_text.h"

#include <cmath>
#include <limits>

#include <arrow/api.h>
#include <arrow/extension/uuid.h>
#include <arrow/json/from_string.h>

#include "floe_test.h"

namespace floe::sql {
namespace {

std::shared_ptr<arrow::Array> Json(const std::shared_ptr<arrow::DataType>& type,
                                   const std::string& json) {
  return arrow::json::ArrayFromJSONString(type, json).ValueOrDie();
}

// The text of every element of `json` read as `type`, joined with " | ".
std::string All(const std::shared_ptr<arrow::DataType>& type, const std::string& json,
                const ValueText& text = ValueText()) {
  auto array = Json(type, json);
  std::string out;
  for (int64_t i = 0; i < array->length(); ++i) {
    if (i > 0) out += " | ";
    out += text.Format(*array, i);
  }
  return out;
}

TEST(ValueTextTest, BooleansAndIntegers) {
  EXPECT_EQ(All(arrow::boolean(), "[true, false, null]"), "true | false | NULL");
  EXPECT_EQ(All(arrow::int8(), "[-128, 0, 127]"), "-128 | 0 | 127");
  EXPECT_EQ(All(arrow::int16(), "[-32768, 32767]"), "-32768 | 32767");
  EXPECT_EQ(All(arrow::int32(), "[-2147483648, 42, null]"), "-2147483648 | 42 | NULL");
  EXPECT_EQ(All(arrow::int64(), "[-9223372036854775808, 9223372036854775807]"),
            "-9223372036854775808 | 9223372036854775807");
  EXPECT_EQ(All(arrow::uint64(), "[18446744073709551615]"), "18446744073709551615");
}

TEST(ValueTextTest, DoublesAsJavaPrintsThem) {
  EXPECT_EQ(JavaDoubleString(0.1), "0.1");
  EXPECT_EQ(JavaDoubleString(1.0), "1.0");
  EXPECT_EQ(JavaDoubleString(-2.5), "-2.5");
  EXPECT_EQ(JavaDoubleString(0.0), "0.0");
  EXPECT_EQ(JavaDoubleString(-0.0), "-0.0");
  EXPECT_EQ(JavaDoubleString(100.0), "100.0");
  EXPECT_EQ(JavaDoubleString(1234567.0), "1234567.0");
  EXPECT_EQ(JavaDoubleString(9999999.0), "9999999.0");
  EXPECT_EQ(JavaDoubleString(1.0E7), "1.0E7");
  EXPECT_EQ(JavaDoubleString(1.0E10), "1.0E10");
  EXPECT_EQ(JavaDoubleString(1.2345E10), "1.2345E10");
  EXPECT_EQ(JavaDoubleString(0.001), "0.001");
  EXPECT_EQ(JavaDoubleString(0.0001), "1.0E-4");
  EXPECT_EQ(JavaDoubleString(1.5E-7), "1.5E-7");
  EXPECT_EQ(JavaDoubleString(123.456), "123.456");
  EXPECT_EQ(JavaDoubleString(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(JavaDoubleString(std::numeric_limits<double>::max()), "1.7976931348623157E308");
  EXPECT_EQ(JavaDoubleString(std::numeric_limits<double>::denorm_min()), "4.9E-324");
  EXPECT_EQ(JavaDoubleString(std::nan("")), "NaN");
  EXPECT_EQ(JavaDoubleString(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(JavaDoubleString(-std::numeric_limits<double>::infinity()), "-Infinity");
  EXPECT_EQ(All(arrow::float64(), "[0.5, null, 3e20]"), "0.5 | NULL | 3.0E20");
}

TEST(ValueTextTest, FloatsAsJavaPrintsThem) {
  EXPECT_EQ(JavaFloatString(0.1f), "0.1");
  EXPECT_EQ(JavaFloatString(1.0f), "1.0");
  EXPECT_EQ(JavaFloatString(3.4028235E38f), "3.4028235E38");
  EXPECT_EQ(JavaFloatString(1.0E-5f), "1.0E-5");
  EXPECT_EQ(All(arrow::float32(), "[1.5, 0.1]"), "1.5 | 0.1");
}

TEST(ValueTextTest, DecimalsKeepTheirScale) {
  EXPECT_EQ(All(arrow::decimal128(10, 2), R"(["184320.50", "0.00", "-1.05", "0.07", null])"),
            "184320.50 | 0.00 | -1.05 | 0.07 | NULL");
  EXPECT_EQ(All(arrow::decimal128(38, 0), R"(["12345678901234567890123456789012345678"])"),
            "12345678901234567890123456789012345678");
  // Never Java's scientific form (0E-10) for small values or zero with a large scale.
  EXPECT_EQ(All(arrow::decimal128(20, 10), R"(["0.0000000000", "0.0000000001"])"),
            "0.0000000000 | 0.0000000001");
  EXPECT_EQ(All(arrow::decimal256(40, 3), R"(["-12.345"])"), "-12.345");
  EXPECT_EQ(PlainDecimalString("5", 3), "0.005");
  EXPECT_EQ(PlainDecimalString("-5", 1), "-0.5");
  EXPECT_EQ(PlainDecimalString("12", -2), "1200");
}

TEST(ValueTextTest, DatesAndTimes) {
  EXPECT_EQ(All(arrow::date32(), "[0, 19737, -1, null]"),
            "1970-01-01 | 2024-01-15 | 1969-12-31 | NULL");
  EXPECT_EQ(DateString(2932896), "9999-12-31");
  // Every date32 value prints as Java's LocalDate.ofEpochDay does, far beyond year 32767.
  EXPECT_EQ(DateString(2932897), "+10000-01-01");
  EXPECT_EQ(DateString(-2147463926), "-5877587-06-21");
  EXPECT_EQ(DateString(2147483647), "+5881580-07-11");
  EXPECT_EQ(DateString(-2147483648LL), "-5877641-06-23");
  EXPECT_EQ(All(arrow::time64(arrow::TimeUnit::MICRO), "[37800000000, 37800123000, 0]"),
            "10:30:00 | 10:30:00.123 | 00:00:00");
  EXPECT_EQ(All(arrow::time32(arrow::TimeUnit::MILLI), "[45296789]"), "12:34:56.789");
}

TEST(ValueTextTest, TimestampsWithoutZoneShowAsStored) {
  auto ntz = arrow::timestamp(arrow::TimeUnit::MICRO);
  // 2024-01-15 10:30:00 UTC = 1705314600 s.
  ASSERT_OK_AND_ASSIGN(ValueText moscow, ValueText::Make("Europe/Moscow"));
  EXPECT_EQ(All(ntz, "[1705314600000000, 1705314600120000, 1705314600000001, null]", moscow),
            "2024-01-15 10:30:00 | 2024-01-15 10:30:00.12 | 2024-01-15 10:30:00.000001 | NULL");
  EXPECT_EQ(All(ntz, "[-1]"), "1969-12-31 23:59:59.999999");
  EXPECT_EQ(All(arrow::timestamp(arrow::TimeUnit::NANO), "[1705314600123456789]"),
            "2024-01-15 10:30:00.123456789");
  EXPECT_EQ(All(arrow::timestamp(arrow::TimeUnit::MILLI), "[1705314600500]"),
            "2024-01-15 10:30:00.5");
}

TEST(ValueTextTest, TimestampsWithZoneShowInTheSessionZone) {
  auto tz = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
  EXPECT_EQ(All(tz, "[1705314600000000]"), "2024-01-15 10:30:00");
  ASSERT_OK_AND_ASSIGN(ValueText moscow, ValueText::Make("Europe/Moscow"));
  EXPECT_EQ(All(tz, "[1705314600000000]", moscow), "2024-01-15 13:30:00");
  ASSERT_OK_AND_ASSIGN(ValueText la, ValueText::Make("America/Los_Angeles"));
  // Winter (PST, -8) and summer (PDT, -7).
  EXPECT_EQ(All(tz, "[1705314600000000, 1721039400000000]", la),
            "2024-01-15 02:30:00 | 2024-07-15 03:30:00");
  ASSERT_OK_AND_ASSIGN(ValueText plus, ValueText::Make("+05:30"));
  EXPECT_EQ(All(tz, "[1705314600000000]", plus), "2024-01-15 16:00:00");
  ASSERT_OK_AND_ASSIGN(ValueText utc_minus, ValueText::Make("UTC-3"));
  EXPECT_EQ(All(tz, "[1705314600000000]", utc_minus), "2024-01-15 07:30:00");
  // The zone the Arrow type names does not matter: the session zone does.
  EXPECT_EQ(All(arrow::timestamp(arrow::TimeUnit::MICRO, "Asia/Tokyo"), "[1705314600000000]"),
            "2024-01-15 10:30:00");
}

TEST(ValueTextTest, UnknownZonesAreErrors) {
  ASSERT_RAISES_WITH_MESSAGE("Unknown time zone: 'Mars/Olympus'", ValueText::Make("Mars/Olympus"));
  ASSERT_RAISES_WITH_MESSAGE("Unknown time zone", ValueText::Make("+25:00"));
  ASSERT_OK_AND_ASSIGN(ValueText empty, ValueText::Make(""));
  (void)empty;
}

TEST(ValueTextTest, StringsAndBinary) {
  EXPECT_EQ(All(arrow::utf8(), R"(["a", "", "héllo", null])"), "a |  | héllo | NULL");
  EXPECT_EQ(All(arrow::large_utf8(), R"(["x"])"), "x");
  EXPECT_EQ(All(arrow::binary(), R"(["\u0001\u0002", "", "AB"])"), "[01 02] | [] | [41 42]");
  EXPECT_EQ(All(arrow::large_binary(), R"(["\u00ff"])"), "[C3 BF]");
  EXPECT_EQ(All(arrow::fixed_size_binary(2), R"(["ab"])"), "[61 62]");
}

TEST(ValueTextTest, UuidsAsText) {
  arrow::FixedSizeBinaryBuilder builder(arrow::fixed_size_binary(16));
  const uint8_t bytes[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                             0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};
  ASSERT_OK(builder.Append(bytes));
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK_AND_ASSIGN(auto fixed, builder.Finish());
  auto uuid = arrow::ExtensionType::WrapArray(arrow::extension::uuid(), fixed);
  ValueText text;
  EXPECT_EQ(text.Format(*uuid, 0), "f79c3e09-677c-4bbd-a479-3f349cb785e7");
  EXPECT_EQ(text.Format(*uuid, 1), "NULL");
}

TEST(ValueTextTest, ListsMapsAndStructsAsSparkShowsThem) {
  EXPECT_EQ(All(arrow::list(arrow::int32()), "[[1, 2], [], [null, 3], null]"),
            "[1, 2] | [] | [NULL, 3] | NULL");
  EXPECT_EQ(All(arrow::large_list(arrow::utf8()), R"([["a", "b"]])"), "[a, b]");
  EXPECT_EQ(All(arrow::fixed_size_list(arrow::int64(), 2), "[[7, 8]]"), "[7, 8]");
  EXPECT_EQ(All(arrow::map(arrow::utf8(), arrow::int64()),
                R"([[["total-records", 10], ["added-files", null]], []])"),
            "{total-records -> 10, added-files -> NULL} | {}");
  auto st = arrow::struct_({arrow::field("a", arrow::int32()), arrow::field("b", arrow::utf8())});
  EXPECT_EQ(All(st, R"([{"a": 1, "b": "x"}, {"a": null, "b": "y"}, null])"),
            "{1, x} | {NULL, y} | NULL");
  auto nested = arrow::struct_({arrow::field("l", arrow::list(arrow::float64())),
                                arrow::field("m", arrow::map(arrow::int32(), arrow::binary()))});
  EXPECT_EQ(All(nested, R"([{"l": [1.5, 1e10], "m": [[1, "\u0001"]]}])"),
            "{[1.5, 1.0E10], {1 -> [01]}}");
}

TEST(ValueTextTest, SlicedArraysUseTheirOffset) {
  auto array = Json(arrow::list(arrow::int32()), "[[1], [2, 3], [4]]")->Slice(1, 2);
  ValueText text;
  EXPECT_EQ(text.Format(*array, 0), "[2, 3]");
  auto st = Json(arrow::struct_({arrow::field("a", arrow::int32())}), R"([{"a": 1}, {"a": 2}])")
                ->Slice(1);
  EXPECT_EQ(text.Format(*st, 0), "{2}");
}

TEST(ValueTextTest, DictionariesAndNullType) {
  auto dict_type = arrow::dictionary(arrow::int8(), arrow::utf8());
  auto indices = Json(arrow::int8(), "[1, 0, null]");
  auto dictionary = Json(arrow::utf8(), R"(["x", "y"])");
  ASSERT_OK_AND_ASSIGN(auto dict,
                       arrow::DictionaryArray::FromArrays(dict_type, indices, dictionary));
  ValueText text;
  EXPECT_EQ(text.Format(*dict, 0), "y");
  EXPECT_EQ(text.Format(*dict, 2), "NULL");
  arrow::NullArray nulls(2);
  EXPECT_EQ(text.Format(nulls, 1), "NULL");
}

TEST(ValueTextTest, EscapesWidthsAndTruncation) {
  EXPECT_EQ(EscapeMetaCharacters("a\tb\nc\rd"), "a\\tb\\nc\\rd");
  EXPECT_EQ(DisplayWidth("abc"), 3);
  EXPECT_EQ(DisplayWidth("héllo"), 5);
  EXPECT_EQ(DisplayWidth("日本語"), 6);  // full width
  EXPECT_EQ(DisplayWidth("한국"), 4);    // Hangul syllables
  EXPECT_EQ(DisplayWidth("😀"), 2);       // a surrogate pair in Java
  EXPECT_EQ(TruncateForDisplay("abcdefghijklmnopqrstuvwxyz", 20), "abcdefghijklmnopq...");
  EXPECT_EQ(TruncateForDisplay("abcdefghijklmnopqrst", 20), "abcdefghijklmnopqrst");
  EXPECT_EQ(TruncateForDisplay("abcdef", 3), "abc");
  EXPECT_EQ(TruncateForDisplay("abcdef", 0), "abcdef");
  // Multi-byte characters count once; emoji count twice and are never split.
  EXPECT_EQ(TruncateForDisplay("ééééééééééééééééééééé", 20), "ééééééééééééééééé...");
  EXPECT_EQ(TruncateForDisplay("abcdefghijklmnop😀xyz", 20), "abcdefghijklmnop...");
}

}  // namespace
}  // namespace floe::sql
