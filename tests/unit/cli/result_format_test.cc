#include "floe/cli/result_format.h"

#include <cmath>
#include <limits>

#include <arrow/api.h>
#include <arrow/json/from_string.h>

#include "floe_test.h"

namespace floe::cli {
namespace {

std::shared_ptr<arrow::Array> Json(const std::shared_ptr<arrow::DataType>& type,
                                   const std::string& json) {
  return arrow::json::ArrayFromJSONString(type, json).ValueOrDie();
}

std::shared_ptr<arrow::Table> MakeTable(
    const std::vector<std::pair<std::string, std::shared_ptr<arrow::Array>>>& columns) {
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (const auto& [name, array] : columns) {
    fields.push_back(arrow::field(name, array->type()));
    arrays.push_back(array);
  }
  return arrow::Table::Make(arrow::schema(fields), arrays);
}

std::shared_ptr<arrow::Table> Orders() {
  return MakeTable({{"id", Json(arrow::int64(), "[1, 2, 10]")},
                    {"customer", Json(arrow::utf8(), R"(["alice", null, "bob"])")},
                    {"amount", Json(arrow::decimal128(10, 2), R"(["184320.50", "7.00", null])")}});
}

TEST(ShowStringTest, LooksLikeSparkShow) {
  EXPECT_EQ(ShowString(*Orders(), sql::ValueText()),
            "+---+--------+---------+\n"
            "| id|customer|   amount|\n"
            "+---+--------+---------+\n"
            "|  1|   alice|184320.50|\n"
            "|  2|    NULL|     7.00|\n"
            "| 10|     bob|     NULL|\n"
            "+---+--------+---------+\n");
}

TEST(ShowStringTest, MinimumWidthIsThree) {
  auto table = MakeTable({{"a", Json(arrow::int32(), "[1]")}});
  EXPECT_EQ(ShowString(*table, sql::ValueText()),
            "+---+\n"
            "|  a|\n"
            "+---+\n"
            "|  1|\n"
            "+---+\n");
}

TEST(ShowStringTest, EmptyResult) {
  auto table = MakeTable({{"count(1)", Json(arrow::int64(), "[]")}});
  EXPECT_EQ(ShowString(*table, sql::ValueText()),
            "+--------+\n"
            "|count(1)|\n"
            "+--------+\n"
            "+--------+\n");
}

TEST(ShowStringTest, OnlyShowingTopRowsFooter) {
  auto table = MakeTable({{"n", Json(arrow::int32(), "[1, 2, 3]")}});
  EXPECT_EQ(ShowString(*table, sql::ValueText(), 2),
            "+---+\n"
            "|  n|\n"
            "+---+\n"
            "|  1|\n"
            "|  2|\n"
            "+---+\n"
            "only showing top 2 rows\n");
  EXPECT_EQ(ShowString(*table, sql::ValueText(), 1),
            "+---+\n|  n|\n+---+\n|  1|\n+---+\nonly showing top 1 row\n");
  // Exactly num_rows rows: no footer.
  EXPECT_EQ(ShowString(*table, sql::ValueText(), 3),
            "+---+\n|  n|\n+---+\n|  1|\n|  2|\n|  3|\n+---+\n");
  // <= 0: everything, no footer.
  EXPECT_EQ(ShowString(*table, sql::ValueText(), 0), ShowString(*table, sql::ValueText(), 3));
}

TEST(ShowStringTest, TruncatesLongCellsButNotHeaders) {
  auto table = MakeTable(
      {{"a_rather_long_column_name", Json(arrow::utf8(), R"(["abcdefghijklmnopqrstuvwxyz"])")}});
  EXPECT_EQ(ShowString(*table, sql::ValueText()),
            "+-------------------------+\n"
            "|a_rather_long_column_name|\n"
            "+-------------------------+\n"
            "|     abcdefghijklmnopq...|\n"
            "+-------------------------+\n");
  // truncate = 0: whole cells, left-aligned.
  EXPECT_EQ(ShowString(*table, sql::ValueText(), 20, 0),
            "+--------------------------+\n"
            "|a_rather_long_column_name |\n"
            "+--------------------------+\n"
            "|abcdefghijklmnopqrstuvwxyz|\n"
            "+--------------------------+\n");
}

TEST(ShowStringTest, FullWidthCharactersTakeTwoColumns) {
  auto table = MakeTable({{"name", Json(arrow::utf8(), R"(["日本", "abc", "é"])")}});
  EXPECT_EQ(ShowString(*table, sql::ValueText()),
            "+----+\n"
            "|name|\n"
            "+----+\n"
            "|日本|\n"
            "| abc|\n"
            "|   é|\n"
            "+----+\n");
}

TEST(ShowStringTest, EscapesLineBreaksAndTabs) {
  auto table = MakeTable({{"s", Json(arrow::utf8(), R"(["a\nb\tc"])")}});
  EXPECT_EQ(ShowString(*table, sql::ValueText()),
            "+-------+\n"
            "|      s|\n"
            "+-------+\n"
            "|a\\nb\\tc|\n"
            "+-------+\n");
}

TEST(ShowStringTest, NestedValuesAndTimestamps) {
  auto table = MakeTable(
      {{"tags", Json(arrow::list(arrow::utf8()), R"([["x", "y"]])")},
       {"at", Json(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), "[1705314600000000]")}});
  ASSERT_OK_AND_ASSIGN(sql::ValueText moscow, sql::ValueText::Make("Europe/Moscow"));
  EXPECT_EQ(ShowString(*table, moscow),
            "+------+-------------------+\n"
            "|  tags|                 at|\n"
            "+------+-------------------+\n"
            "|[x, y]|2024-01-15 13:30:00|\n"
            "+------+-------------------+\n");
}

TEST(ShowStringTest, ChunkedColumns) {
  auto chunked = std::make_shared<arrow::ChunkedArray>(
      arrow::ArrayVector{Json(arrow::int32(), "[1, 2]"), Json(arrow::int32(), "[3]")});
  auto table = arrow::Table::Make(arrow::schema({arrow::field("n", arrow::int32())}), {chunked});
  EXPECT_EQ(ShowString(*table, sql::ValueText(), 0),
            "+---+\n|  n|\n+---+\n|  1|\n|  2|\n|  3|\n+---+\n");
  EXPECT_EQ(RenderRows(*table, sql::ValueText(), 2).size(), 2u);
}

TEST(CsvTest, HeaderQuotingAndNulls) {
  auto table = MakeTable({{"id", Json(arrow::int32(), "[1, 2, 3, 4]")},
                          {"note", Json(arrow::utf8(), R"(["plain", "a,b", "say \"hi\"", ""])")},
                          {"x", Json(arrow::float64(), "[null, 0.5, 1e10, null]")}});
  EXPECT_EQ(CsvString(*table, sql::ValueText()),
            "id,note,x\n"
            "1,plain,\n"
            "2,\"a,b\",0.5\n"
            "3,\"say \"\"hi\"\"\",1.0E10\n"
            "4,\"\",\n");
}

TEST(CsvTest, LineBreaksAreQuotedNotEscaped) {
  auto table = MakeTable({{"a,b", Json(arrow::utf8(), R"(["line1\nline2"])")}});
  EXPECT_EQ(CsvString(*table, sql::ValueText()), "\"a,b\"\n\"line1\nline2\"\n");
}

TEST(JsonLinesTest, TypedValues) {
  auto table = MakeTable({{"id", Json(arrow::int64(), "[1, null]")},
                          {"ok", Json(arrow::boolean(), "[true, false]")},
                          {"amount", Json(arrow::decimal128(10, 2), R"(["184320.50", "-0.07"])")},
                          {"ratio", Json(arrow::float64(), "[0.25, null]")},
                          {"name", Json(arrow::utf8(), R"(["a\"b\\c\n", "é"])")},
                          {"day", Json(arrow::date32(), "[19737, null]")}});
  EXPECT_EQ(
      JsonLinesString(*table, sql::ValueText()),
      R"({"id":1,"ok":true,"amount":184320.50,"ratio":0.25,"name":"a\"b\\c\n","day":"2024-01-15"})"
      "\n"
      R"({"id":null,"ok":false,"amount":-0.07,"ratio":null,"name":"é","day":null})"
      "\n");
}

TEST(JsonLinesTest, SpecialDoublesBinaryAndNesting) {
  auto table =
      MakeTable({{"d", Json(arrow::float64(), "[1e300]")},
                 {"b", Json(arrow::binary(), R"(["abcd"])")},
                 {"l", Json(arrow::list(arrow::int32()), "[[1, null]]")},
                 {"m", Json(arrow::map(arrow::utf8(), arrow::utf8()), R"([[["k", "v"]]])")},
                 {"s", Json(arrow::struct_({arrow::field("x", arrow::int32())}), R"([{"x": 5}])")},
                 {"t", Json(arrow::timestamp(arrow::TimeUnit::MICRO), "[1705314600000000]")}});
  EXPECT_EQ(
      JsonLinesString(*table, sql::ValueText()),
      R"({"d":1.0E300,"b":"YWJjZA==","l":[1,null],"m":{"k":"v"},"s":{"x":5},"t":"2024-01-15 10:30:00"})"
      "\n");
  arrow::DoubleBuilder builder;
  ASSERT_OK(builder.AppendValues({std::nan(""), -std::numeric_limits<double>::infinity()}));
  ASSERT_OK_AND_ASSIGN(auto nan_array, builder.Finish());
  EXPECT_EQ(JsonLinesString(*MakeTable({{"v", nan_array}}), sql::ValueText()),
            "{\"v\":\"NaN\"}\n{\"v\":\"-Infinity\"}\n");
}

TEST(JsonLinesTest, EmptyResultPrintsNothing) {
  auto table = MakeTable({{"v", Json(arrow::int32(), "[]")}});
  EXPECT_EQ(JsonLinesString(*table, sql::ValueText()), "");
}

TEST(MarkdownTest, GitHubTable) {
  EXPECT_EQ(MarkdownString(*Orders(), sql::ValueText()),
            "|  id | customer |    amount |\n"
            "| --: | -------- | --------: |\n"
            "|   1 | alice    | 184320.50 |\n"
            "|   2 | NULL     |      7.00 |\n"
            "|  10 | bob      |      NULL |\n");
}

TEST(MarkdownTest, EscapesPipes) {
  auto table = MakeTable({{"a|b", Json(arrow::utf8(), R"(["x|y"])")}});
  EXPECT_EQ(MarkdownString(*table, sql::ValueText()),
            "| a\\|b |\n"
            "| ---- |\n"
            "| x\\|y |\n");
}

TEST(FormatRowsTest, Dispatches) {
  auto table = Orders();
  FormatOptions options;
  EXPECT_EQ(FormatRows(*table, sql::ValueText(), options), ShowString(*table, sql::ValueText(), 0));
  options.max_rows = 1;
  EXPECT_EQ(FormatRows(*table, sql::ValueText(), options), ShowString(*table, sql::ValueText(), 1));
  options.format = OutputFormat::kCsv;
  EXPECT_EQ(FormatRows(*table, sql::ValueText(), options), CsvString(*table, sql::ValueText()));
  options.format = OutputFormat::kJson;
  EXPECT_EQ(FormatRows(*table, sql::ValueText(), options), JsonLinesString(*table, sql::ValueText()));
  options.format = OutputFormat::kMarkdown;
  EXPECT_EQ(FormatRows(*table, sql::ValueText(), options), MarkdownString(*table, sql::ValueText()));
}

TEST(FormatRowsTest, ParsesFormatNames) {
  ASSERT_OK_AND_ASSIGN(OutputFormat f, ParseOutputFormat("CSV"));
  EXPECT_EQ(f, OutputFormat::kCsv);
  ASSERT_OK_AND_ASSIGN(f, ParseOutputFormat("markdown"));
  EXPECT_EQ(f, OutputFormat::kMarkdown);
  ASSERT_RAISES_WITH_MESSAGE("Unknown output format 'xml'", ParseOutputFormat("xml"));
}

}  // namespace
}  // namespace floe::cli
