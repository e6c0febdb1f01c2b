// The golden SQL runner (tests/sql/runner): file parsing, comparison and sorting, and runs
// against a fake executor.

#include <sstream>

#include <arrow/api.h>
#include <arrow/json/from_string.h>

#include "floe_test.h"
#include "sql/runner/test_file.h"
#include "sql/runner/test_runner.h"

namespace floe::sqltest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::shared_ptr<arrow::Array> Json(const std::shared_ptr<arrow::DataType>& type,
                                   const std::string& json) {
  return arrow::json::ArrayFromJSONString(type, json).ValueOrDie();
}

TEST(TestFileTest, ParsesRecords) {
  const char* text =
      "# a comment\n"
      "statement ok\n"
      "CREATE TABLE t (a INT)\n"
      "\n"
      "statement error Table or view not found\n"
      "SELECT * FROM nope\n"
      "\n"
      "statement error\n"
      "SELEC 1\n"
      "----\n"
      "Syntax error\n"
      "\n"
      "statement error\n"
      "SELECT broken\n"
      "\n"
      "query IT rowsort\n"
      "SELECT a,\n"
      "       b FROM t\n"
      "----\n"
      "1\tx\n"
      "2\t(empty)\n"
      "\n"
      "# zero rows\n"
      "query I\n"
      "SELECT a FROM t WHERE false\n"
      "----\n";
  ASSERT_OK_AND_ASSIGN(TestFile file, ParseTestFile(text, "t.test"));
  ASSERT_EQ(file.records.size(), 6u);
  EXPECT_EQ(file.records[0].kind, RecordKind::kStatementOk);
  EXPECT_EQ(file.records[0].line, 2);
  EXPECT_EQ(file.records[0].sql, "CREATE TABLE t (a INT)");
  EXPECT_EQ(file.records[1].kind, RecordKind::kStatementError);
  EXPECT_THAT(file.records[1].expected_errors, ElementsAre("Table or view not found"));
  EXPECT_THAT(file.records[2].expected_errors, ElementsAre("Syntax error"));
  EXPECT_EQ(file.records[2].line, 8);
  EXPECT_TRUE(file.records[3].expected_errors.empty());
  EXPECT_EQ(file.records[4].kind, RecordKind::kQuery);
  EXPECT_EQ(file.records[4].line, 16);
  EXPECT_EQ(file.records[4].column_types, "IT");
  EXPECT_EQ(file.records[4].sort, SortMode::kRowSort);
  EXPECT_EQ(file.records[4].sql, "SELECT a,\n       b FROM t");
  EXPECT_THAT(file.records[4].expected_lines, ElementsAre("1\tx", "2\t(empty)"));
  EXPECT_EQ(file.records[5].line, 24);
  EXPECT_TRUE(file.records[5].expected_lines.empty());
}

TEST(TestFileTest, LastRecordWithoutBlankLineAndCrLf) {
  ASSERT_OK_AND_ASSIGN(TestFile file,
                       ParseTestFile("query I\r\nSELECT 1\r\n----\r\n1", "crlf.test"));
  ASSERT_EQ(file.records.size(), 1u);
  EXPECT_EQ(file.records[0].sql, "SELECT 1");
  EXPECT_THAT(file.records[0].expected_lines, ElementsAre("1"));
  ASSERT_OK_AND_ASSIGN(TestFile records, ParseTestFile("query I\nSELECT a FROM t\n----\n", "x"));
  EXPECT_TRUE(records.records[0].expected_lines.empty());
}

TEST(TestFileTest, ErrorsNameFileAndLine) {
  ASSERT_RAISES_WITH_MESSAGE("bad.test:3: unknown record 'halt'; expected statement, query or let",
                             ParseTestFile("# c\n\nhalt\n", "bad.test"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:1: record without SQL",
                             ParseTestFile("statement ok\n\nSELECT 1\n", "bad.test"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:2: query without ---- and expected rows",
                             ParseTestFile("\nquery I\nSELECT 1\n\n", "bad.test"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:1: unknown sort mode 'sorted'",
                             ParseTestFile("query I sorted\nSELECT 1\n----\n1\n", "bad.test"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:1: column types must be capital letters",
                             ParseTestFile("query i\nSELECT 1\n----\n1\n", "bad.test"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:3: 'statement ok' takes no ---- section",
                             ParseTestFile("statement ok\nSELECT 1\n----\n1\n", "bad.test"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:1: expected 'statement ok' or 'statement error'",
                             ParseTestFile("statement maybe\nSELECT 1\n", "bad.test"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:1: 'query' needs column type letters",
                             ParseTestFile("query\nSELECT 1\n----\n", "bad.test"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:3: ---- without an expected error message",
                             ParseTestFile("statement error\nSELECT 1\n----\n\n", "bad.test"));
}

TEST(TestFileTest, LetRecords) {
  ASSERT_OK_AND_ASSIGN(TestFile file,
                       ParseTestFile("let good_id\nSELECT snapshot_id\n  FROM t\n", "let.test"));
  ASSERT_EQ(file.records.size(), 1u);
  EXPECT_EQ(file.records[0].kind, RecordKind::kLet);
  EXPECT_THAT(file.records[0].variables, ElementsAre("good_id"));
  EXPECT_EQ(file.records[0].sql, "SELECT snapshot_id\n  FROM t");
  ASSERT_OK_AND_ASSIGN(file, ParseTestFile("let previous current\nCALL p()\n", "let.test"));
  EXPECT_THAT(file.records[0].variables, ElementsAre("previous", "current"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:1: 'let' needs variable names",
                             ParseTestFile("let\nSELECT 1\n", "bad.test"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:1: '1a' is not a variable name",
                             ParseTestFile("let a 1a\nSELECT 1\n", "bad.test"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:1: 'a-b' is not a variable name",
                             ParseTestFile("let a-b\nSELECT 1\n", "bad.test"));
  ASSERT_RAISES_WITH_MESSAGE("bad.test:3: 'let' takes no ---- section",
                             ParseTestFile("let a\nSELECT 1\n----\n1\n", "bad.test"));
}

TEST(VariablesTest, Substitution) {
  Variables vars{{"good", "42"}, {"t", "2024-01-15 10:30:00"}};
  auto substitute = [&](std::string_view text) {
    Result<std::string> out = SubstituteVariables(text, vars);
    return out.ok() ? *out : "error: " + out.status().message();
  };
  EXPECT_EQ("VERSION AS OF 42", substitute("VERSION AS OF ${good}"));
  EXPECT_EQ("42\t'2024-01-15 10:30:00'42", substitute("${good}\t'${t}'${good}"));
  // What is not a variable reference stays as written.
  EXPECT_EQ("${ x} $good ${", substitute("${ x} $good ${"));
  EXPECT_EQ("", substitute(""));
  ASSERT_RAISES_WITH_MESSAGE("unknown variable ${bad}: no 'let bad' record before this one",
                             SubstituteVariables("SELECT ${good}, ${bad}", vars));
}

TEST(ComparisonTest, SortModes) {
  std::vector<std::vector<std::string>> rows = {{"b", "1"}, {"a", "2"}, {"a", "10"}};
  EXPECT_EQ(SortForComparison(rows, SortMode::kNoSort), rows);
  EXPECT_EQ(SortForComparison(rows, SortMode::kRowSort),
            (std::vector<std::vector<std::string>>{{"a", "10"}, {"a", "2"}, {"b", "1"}}));
  EXPECT_EQ(SortForComparison(rows, SortMode::kValueSort),
            (std::vector<std::vector<std::string>>{{"1"}, {"10"}, {"2"}, {"a"}, {"a"}, {"b"}}));
}

TEST(ComparisonTest, ValuesAsTheFileWritesThem) {
  auto schema =
      arrow::schema({arrow::field("s", arrow::utf8()), arrow::field("d", arrow::float64())});
  auto table = arrow::Table::Make(schema, {Json(arrow::utf8(), R"(["", null, "a\tb", "NULL"])"),
                                           Json(arrow::float64(), "[1e10, 0.5, null, 2]")});
  EXPECT_EQ(ResultValues(*table, sql::ValueText()),
            (std::vector<std::vector<std::string>>{
                {"(empty)", "1.0E10"}, {"NULL", "0.5"}, {"a\\tb", "NULL"}, {"NULL", "2.0"}}));
  EXPECT_EQ(ExpectedValues({"a\tb", "x", "\t"}),
            (std::vector<std::vector<std::string>>{{"a", "b"}, {"x"}, {"", ""}}));
}

TEST(ComparisonTest, ColumnTypeLetters) {
  auto schema =
      arrow::schema({arrow::field("i", arrow::int64()), arrow::field("r", arrow::decimal128(10, 2)),
                     arrow::field("t", arrow::utf8())});
  EXPECT_EQ(CheckColumnTypes("IRT", *schema), "");
  EXPECT_EQ(CheckColumnTypes("ITT", *schema), "");  // T takes anything
  EXPECT_THAT(CheckColumnTypes("IT", *schema), HasSubstr("expected 2 column(s) (IT), got 3"));
  EXPECT_THAT(CheckColumnTypes("RRT", *schema),
              HasSubstr("column 1 (i) is int64, but the type letter is R"));
  EXPECT_THAT(CheckColumnTypes("IIT", *schema),
              HasSubstr("column 2 (r) is decimal128(10, 2), but the type letter is I"));
}

// Answers SELECT 1 + 1 with 2, 'a' || 'b' with ab, and anything else with a syntax error.
cli::Executor FakeExecutor() {
  cli::Executor e;
  e.execute = [](const std::string& sql) -> Result<sql::StatementResult> {
    sql::StatementResult result;
    if (sql == "SELECT 1") {
      result.rows = arrow::Table::Make(arrow::schema({arrow::field("1", arrow::int64())}),
                                       {Json(arrow::int64(), "[1]")});
    } else if (sql == "SELECT NULL") {
      result.rows = arrow::Table::Make(arrow::schema({arrow::field("NULL", arrow::int64())}),
                                       {Json(arrow::int64(), "[null]")});
    } else if (sql == "CALL p()") {
      result.rows = arrow::Table::Make(
          arrow::schema({arrow::field("previous", arrow::int64()),
                         arrow::field("current", arrow::int64())}),
          {Json(arrow::int64(), "[5]"), Json(arrow::int64(), "[7]")});
    } else if (sql == "SELECT 1 + 1") {
      result.rows = arrow::Table::Make(arrow::schema({arrow::field("(1 + 1)", arrow::int32())}),
                                       {Json(arrow::int32(), "[2]")});
    } else if (sql == "SELECT 'a' || 'b'") {
      result.rows = arrow::Table::Make(arrow::schema({arrow::field("x", arrow::utf8())}),
                                       {Json(arrow::utf8(), R"(["ab"])")});
    } else if (sql == "SELECT * FROM VALUES (2), (1)") {
      result.rows = arrow::Table::Make(arrow::schema({arrow::field("col1", arrow::int32())}),
                                       {Json(arrow::int32(), "[2, 1]")});
    } else if (sql.rfind("CREATE", 0) == 0) {
      result.message = "Created";
    } else {
      return Status::Invalid("Syntax error at or near '", sql, "'");
    }
    return result;
  };
  return e;
}

TEST(RunnerTest, PassingFile) {
  const char* text =
      "statement ok\nCREATE TABLE t (a INT)\n\n"
      "query I\nSELECT 1 + 1\n----\n2\n\n"
      "query T\nSELECT 'a' || 'b'\n----\nab\n\n"
      "query I rowsort\nSELECT * FROM VALUES (2), (1)\n----\n1\n2\n\n"
      "statement error Syntax error\nSELEC 1\n\n"
      "statement error\nSELEC 1\n----\nat or near 'SELEC 1'\n";
  ASSERT_OK_AND_ASSIGN(TestFile file, ParseTestFile(text, "ok.test"));
  std::ostringstream out;
  FileSummary summary = RunTestFile(file, FakeExecutor(), out);
  EXPECT_EQ(summary.passed, 6);
  EXPECT_EQ(summary.failed, 0);
  EXPECT_EQ(out.str(), "");
}

TEST(RunnerTest, FailuresAreReportedWithLocationSqlExpectedAndActual) {
  const char* text =
      "query I\nSELECT 1 + 1\n----\n3\n\n"                      // line 1
      "query I\nSELECT * FROM VALUES (2), (1)\n----\n1\n2\n\n"  // line 6: order matters
      "statement ok\nSELEC 1\n\n"                               // line 12
      "statement error\nCREATE TABLE t (a INT)\n\n"             // line 15
      "statement error Table not found\nSELEC 1\n\n"            // line 18
      "query II\nSELECT 1 + 1\n----\n2\n\n"                     // line 21
      "query I\nCREATE TABLE u (a INT)\n----\n\n"               // line 26
      "query I\nSELECT 1 + 1\n----\n2\n";                       // line 30: passes
  ASSERT_OK_AND_ASSIGN(TestFile file, ParseTestFile(text, "bad.test"));
  std::ostringstream out;
  FileSummary summary = RunTestFile(file, FakeExecutor(), out);
  EXPECT_EQ(summary.passed, 1);
  EXPECT_EQ(summary.failed, 7);
  std::string report = out.str();
  EXPECT_THAT(report, HasSubstr("bad.test:1: wrong result (nosort)\nExpected:\n  3\nActual:\n  2\n"
                                "SQL:\n  SELECT 1 + 1\n"));
  EXPECT_THAT(report, HasSubstr("bad.test:6: wrong result (nosort)\nExpected:\n  1\n  2\n"
                                "Actual:\n  2\n  1\n"));
  EXPECT_THAT(report,
              HasSubstr("bad.test:12: statement failed: Syntax error at or near 'SELEC 1'"));
  EXPECT_THAT(report, HasSubstr("bad.test:15: statement succeeded, but an error was expected"));
  EXPECT_THAT(report, HasSubstr("bad.test:18: error message does not contain the expected text\n"
                                "Expected to contain:\n  Table not found\nActual error:\n"
                                "  Syntax error at or near 'SELEC 1'\n"));
  EXPECT_THAT(report, HasSubstr("bad.test:21: expected 2 column(s) (II), got 1"));
  EXPECT_THAT(report, HasSubstr("bad.test:26: statement returned no result set"));
}

TEST(RunnerTest, LetKeepsAValueForLaterRecords) {
  const char* text =
      "let one\nSELECT 1\n\n"
      "let two\nSELECT ${one} + 1\n\n"
      "query I\nSELECT ${one} + ${one}\n----\n${two}\n\n"
      "statement error at or near 'SELEC ${two}'\nSELEC ${two}\n\n"
      "statement error\nSELEC ${one}\n----\nnear 'SELEC ${one}'\n";
  ASSERT_OK_AND_ASSIGN(TestFile file, ParseTestFile(text, "let.test"));
  std::ostringstream out;
  FileSummary summary = RunTestFile(file, FakeExecutor(), out);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(summary.passed, 5);
  EXPECT_EQ(summary.failed, 0);
}

TEST(RunnerTest, LetWithSeveralColumns) {
  const char* text =
      "let previous current\nCALL p()\n\n"
      "statement error near 'SELEC ${previous} ${current}'\nSELEC ${previous} ${current}\n\n"
      "let only\nCALL p()\n\n"                 // line 7: two columns for one name
      "let a b c\nCALL p()\n";                  // line 10: two columns for three names
  ASSERT_OK_AND_ASSIGN(TestFile file, ParseTestFile(text, "let.test"));
  std::ostringstream out;
  FileSummary summary = RunTestFile(file, FakeExecutor(), out);
  EXPECT_EQ(summary.passed, 2);
  EXPECT_EQ(summary.failed, 2);
  EXPECT_THAT(out.str(), HasSubstr("let.test:7: let only: the statement must return one row with "
                                   "1 column(s), got 1 row(s) with 2 column(s)\n"));
  EXPECT_THAT(out.str(), HasSubstr("let.test:10: let a b c: the statement must return one row "
                                   "with 3 column(s), got 1 row(s) with 2 column(s)\n"));
}

TEST(RunnerTest, LetFailures) {
  const char* text =
      "query I\nSELECT ${later}\n----\n1\n\n"          // line 1: not set yet
      "let later\nSELECT 1\n\n"                          // line 6: passes
      "let rows\nSELECT * FROM VALUES (2), (1)\n\n"      // line 9: two rows
      "let nothing\nCREATE TABLE t (a INT)\n\n"          // line 12: no result set
      "let broken\nSELEC 1\n\n"                          // line 15: fails
      "let null\nSELECT NULL\n\n"                        // line 18: NULL
      "query I\nSELECT 1\n----\n${rows}\n\n"           // line 21: never set
      "statement error ${nope}\nSELEC 1\n\n"             // line 26: unknown in the error
      "query I\nSELECT ${later} + ${later}\n----\n2\n";  // line 29: passes, with 1 + 1
  ASSERT_OK_AND_ASSIGN(TestFile file, ParseTestFile(text, "let.test"));
  std::ostringstream out;
  FileSummary summary = RunTestFile(file, FakeExecutor(), out);
  EXPECT_EQ(summary.passed, 2);
  EXPECT_EQ(summary.failed, 7);
  std::string report = out.str();
  EXPECT_THAT(report, HasSubstr("let.test:1: unknown variable ${later}: no 'let later' record "
                                "before this one set it\nSQL:\n  SELECT ${later}\n"));
  EXPECT_THAT(report, HasSubstr("let.test:9: let rows: the statement must return one row with 1 "
                                "column(s), got 2 row(s) with 1 column(s)\n"));
  EXPECT_THAT(report, HasSubstr("let.test:12: let nothing: the statement must return one row "
                                "with 1 column(s), got no result set\n"));
  EXPECT_THAT(report, HasSubstr("let.test:15: let broken: statement failed: Syntax error at or "
                                "near 'SELEC 1'\n"));
  EXPECT_THAT(report, HasSubstr("let.test:18: let null: null would be NULL\n"));
  EXPECT_THAT(report, HasSubstr("let.test:21: unknown variable ${rows}"));
  EXPECT_THAT(report, HasSubstr("let.test:26: unknown variable ${nope}"));
}

TEST(RunnerTest, TimestampsInTheSessionZone) {
  cli::Executor e;
  e.execute = [](const std::string&) -> Result<sql::StatementResult> {
    sql::StatementResult result;
    auto ts = Json(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), "[1705314600000000]");
    result.rows = arrow::Table::Make(arrow::schema({arrow::field("ts", ts->type())}), {ts});
    return result;
  };
  e.time_zone = [] { return std::string("Asia/Tokyo"); };
  ASSERT_OK_AND_ASSIGN(TestFile file,
                       ParseTestFile("query T\nSELECT ts\n----\n2024-01-15 19:30:00\n", "tz.test"));
  std::ostringstream out;
  EXPECT_EQ(RunTestFile(file, e, out).passed, 1);
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace floe::sqltest
