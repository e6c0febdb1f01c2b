#include "floe/util/json_writer.h"

#include <limits>

#include "floe_test.h"

namespace floe {

namespace {

std::string StringJson(std::string_view text) {
  JsonWriter json;
  json.String(text);
  return json.Take();
}

}  // namespace

TEST(JsonWriterTest, EscapesStringsAsRfc8259Asks) {
  EXPECT_EQ(StringJson(""), R"("")");
  EXPECT_EQ(StringJson("say \"hi\" \\ back"), R"("say \"hi\" \\ back")");
  EXPECT_EQ(StringJson("a\nb\rc\td\be\ff"), R"("a\nb\rc\td\be\ff")");
  EXPECT_EQ(StringJson("\x01\x1f"), R"("\u0001\u001F")");
  EXPECT_EQ(StringJson(std::string_view("a\0b", 3)), R"("a\u0000b")");
  // Nothing else is escaped: not '/', '<', DEL, nor UTF-8.
  EXPECT_EQ(StringJson("</script> \x7f é 日本 𝄞"), "\"</script> \x7f é 日本 𝄞\"");
}

TEST(JsonWriterTest, EscapesKeys) {
  JsonWriter json;
  json.StartObject().Key("a\"b\n").Int64(1).EndObject();
  EXPECT_EQ(json.view(), R"({"a\"b\n":1})");
}

TEST(JsonWriterTest, NestsCompactly) {
  JsonWriter json;
  json.StartObject();
  json.Key("id").Int64(7);
  json.Key("tags").StartArray().String("x").String("y").EndArray();
  json.Key("empty").StartObject().EndObject();
  json.Key("none").StartArray().EndArray();
  json.Key("inner").StartObject().Key("ok").Bool(true).Key("no").Bool(false).EndObject();
  json.Key("list").StartArray().StartArray().Int64(1).EndArray().StartObject().EndObject();
  json.EndArray();
  json.EndObject();
  EXPECT_EQ(json.view(),
            R"({"id":7,"tags":["x","y"],"empty":{},"none":[],"inner":{"ok":true,"no":false},)"
            R"("list":[[1],{}]})");
}

TEST(JsonWriterTest, SpacedStylePutsASpaceAfterEachSeparator) {
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("table").String("db.t");
  json.Key("ids").StartArray().Int64(1).Int64(2).EndArray();
  json.Key("empty").StartArray().EndArray();
  json.Key("point").StartObject().Key("a").Null().Key("b").StartObject().EndObject().EndObject();
  json.EndObject();
  EXPECT_EQ(json.view(),
            R"({"table": "db.t", "ids": [1, 2], "empty": [], "point": {"a": null, "b": {}}})");
}

TEST(JsonWriterTest, StringsAreOneArray) {
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject().Key("columns").Strings({"id", "na\"me"}).Key("none").Strings({}).EndObject();
  EXPECT_EQ(json.view(), R"({"columns": ["id", "na\"me"], "none": []})");
}

TEST(JsonWriterTest, Int64AtItsLimits) {
  JsonWriter json;
  json.StartArray()
      .Int64(0)
      .Int64(-1)
      .Int64(std::numeric_limits<int64_t>::max())
      .Int64(std::numeric_limits<int64_t>::min())
      .EndArray();
  EXPECT_EQ(json.view(), "[0,-1,9223372036854775807,-9223372036854775808]");
}

TEST(JsonWriterTest, TimesAreIsoInUtcWithAZ) {
  JsonWriter json;
  json.StartArray()
      .Time(1705314600123)  // 2024-01-15 10:30:00.123 UTC
      .Time(1705314600000)
      .Time(1705314600120)
      .Time(0)
      .Time(-1)
      .EndArray();
  EXPECT_EQ(json.view(),
            R"(["2024-01-15T10:30:00.123Z","2024-01-15T10:30:00Z","2024-01-15T10:30:00.12Z",)"
            R"("1970-01-01T00:00:00Z","1969-12-31T23:59:59.999Z"])");
}

TEST(JsonWriterTest, AbsentOptionalsAreNull) {
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("n").OptionalInt64(std::nullopt);
  json.Key("s").OptionalString(std::nullopt);
  json.Key("t").OptionalTime(std::nullopt);
  json.Key("null").Null();
  json.Key("n2").OptionalInt64(42);
  json.Key("s2").OptionalString(std::string("x\ty"));
  json.Key("t2").OptionalTime(1705314600000);
  json.EndObject();
  EXPECT_EQ(json.view(),
            R"({"n": null, "s": null, "t": null, "null": null, "n2": 42, "s2": "x\ty", )"
            R"("t2": "2024-01-15T10:30:00Z"})");
}

TEST(JsonWriterTest, RawTextIsCopiedAsIs) {
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("amount").Raw("184320.50");
  json.Key("d").Raw("1.0E300");
  json.Key("doc").Raw(R"({"sources":{"a":1}})");
  json.Key("list").StartArray().Raw("-0.07").Raw("1e10").EndArray();
  json.EndObject();
  EXPECT_EQ(json.view(), R"({"amount": 184320.50, "d": 1.0E300, "doc": {"sources":{"a":1}}, )"
                         R"("list": [-0.07, 1e10]})");
}

TEST(JsonWriterTest, EveryControlCharacterIsEscapedAtAnyOffset) {
  // Long enough for any vectorised string scan to see each character in a full block.
  std::string text(40, 'x');
  for (int c = 1; c < 0x20; ++c) text += static_cast<char>(c);
  text += std::string(40, 'y');
  JsonWriter json;
  json.String(text);
  std::string expected = "\"" + std::string(40, 'x') +
                         "\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000B\\f\\r"
                         "\\u000E\\u000F\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
                         "\\u0018\\u0019\\u001A\\u001B\\u001C\\u001D\\u001E\\u001F" +
                         std::string(40, 'y') + "\"";
  EXPECT_EQ(json.view(), expected);
}

TEST(JsonWriterTest, TakeStartsOver) {
  JsonWriter json;
  EXPECT_EQ(json.view(), "");
  json.StartObject().Key("row").Int64(1).EndObject();
  EXPECT_EQ(json.Take(), R"({"row":1})");
  EXPECT_EQ(json.view(), "");
  json.StartObject().Key("row").Int64(2).EndObject();
  EXPECT_EQ(json.Take(), R"({"row":2})");
  json.Null();
  EXPECT_EQ(json.Take(), "null");
}

}  // namespace floe
