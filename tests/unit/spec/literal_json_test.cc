#include <gtest/gtest.h>

#include "floe/spec/literal_json.h"
#include "floe_test.h"

namespace floe::spec {
namespace {

Literal Read(std::string_view json, const TypePtr& type) {
  auto value = LiteralFromJson(json, type);
  EXPECT_TRUE(value.ok()) << json << ": " << value.status().ToString();
  return value.ok() ? *value : Literal::Null(type);
}

TEST(LiteralJsonTest, ReadsTheSpecsSingleValueForms) {
  EXPECT_EQ(Read("true", Type::Boolean()), Literal::Boolean(true));
  EXPECT_EQ(Read("7", Type::Int()), Literal::Int(7));
  EXPECT_EQ(Read("5000000000", Type::Long()), Literal::Long(5000000000));
  EXPECT_EQ(Read("1.5", Type::Float()), Literal::Float(1.5f));
  EXPECT_EQ(Read("2.25", Type::Double()), Literal::Double(2.25));
  EXPECT_EQ(Read("\"14.20\"", Type::Decimal(9, 2)),
            Literal::Decimal(*arrow::Decimal128::FromString("14.20"), 9, 2));
  EXPECT_EQ(Read("\"2017-11-16\"", Type::Date()), Literal::Date(17486));
  EXPECT_EQ(Read("\"1969-12-31\"", Type::Date()), Literal::Date(-1));
  EXPECT_EQ(Read("\"22:31:08.123456\"", Type::Time()), Literal::Time(81068123456));
  EXPECT_EQ(Read("\"22:31:08\"", Type::Time()), Literal::Time(81068000000));
  EXPECT_EQ(Read("\"2017-11-16T22:31:08.000001\"", Type::Timestamp()), Literal::Timestamp(1510871468000001));
  EXPECT_EQ(Read("\"2017-11-16T22:31:08.000001+00:00\"", Type::TimestampTz()),
            Literal::TimestampTz(1510871468000001));
  EXPECT_EQ(Read("\"2017-11-16T23:31:08.000001+01:00\"", Type::TimestampTz()),
            Literal::TimestampTz(1510871468000001));
  EXPECT_EQ(Read("\"dflt\"", Type::String()), Literal::String("dflt"));
  EXPECT_EQ(Read("\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"", Type::Uuid()),
            Literal::Uuid(*UuidFromString("f79c3e09-677c-4bbd-a479-3f349cb785e7")));
  EXPECT_EQ(Read("\"0a0B\"", Type::Binary()), Literal::Binary(std::string("\x0a\x0b", 2)));
  EXPECT_EQ(Read("\"0001\"", Type::Fixed(2)), Literal::Fixed(std::string("\x00\x01", 2)));
  EXPECT_TRUE(Read("null", Type::Int()).is_null());
}

TEST(LiteralJsonTest, RefusesWhatDoesNotFitTheType) {
  struct Case {
    const char* json;
    TypePtr type;
    const char* message;
  };
  const Case cases[] = {
      {"\"7\"", Type::Int(), "Cannot read default value \"7\" as int: expected a 32-bit integer"},
      {"5000000000", Type::Int(), "Cannot read default value 5000000000 as int: expected a 32-bit integer"},
      {"1", Type::Boolean(), "Cannot read default value 1 as boolean: expected true or false"},
      {"\"14.2\"", Type::Decimal(9, 2), "expected a decimal of that precision and scale"},
      {"\"123456789.00\"", Type::Decimal(9, 2), "expected a decimal of that precision and scale"},
      {"\"2017-11-16T00:00:00\"", Type::Date(), "expected yyyy-mm-dd"},
      {"\"25:00:00\"", Type::Time(), "expected hh:mm:ss[.ffffff]"},
      {"\"2017-11-16T22:31:08+00:00\"", Type::Timestamp(), "a timestamp without zone has no offset"},
      {"\"2017-11-16T22:31:08\"", Type::TimestampTz(), "expected an offset such as +00:00"},
      {"\"0g\"", Type::Binary(), "expected hexadecimal bytes"},
      {"\"00\"", Type::Fixed(2), "wrong length"},
      {"{", Type::Int(), ""},
  };
  for (const auto& c : cases) {
    auto value = LiteralFromJson(c.json, c.type);
    ASSERT_FALSE(value.ok()) << c.json;
    EXPECT_NE(value.status().message().find(c.message), std::string::npos) << value.status().message();
  }
  auto nested = LiteralFromJson("{}", Type::Struct({}));
  EXPECT_TRUE(nested.status().IsNotImplemented()) << nested.status().ToString();
}

}  // namespace
}  // namespace floe::spec
