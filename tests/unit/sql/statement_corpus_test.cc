// Every statement of tests/data/sql/story_statements.sql (what users write in pipelines,
// notebooks and Python code) parses, and prints back to an equal tree.

#include <fstream>
#include <sstream>

#include "sql_test_util.h"

namespace floe::sql {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(StatementCorpusTest, EveryStatementParsesAndRoundTrips) {
  std::string script = ReadFile(std::string(FLOE_TEST_DATA_DIR) + "/sql/story_statements.sql");
  ASSERT_FALSE(script.empty());
  ASSERT_OK_AND_ASSIGN(std::vector<ScriptStatement> statements, ParseScript(script));
  EXPECT_EQ(statements.size(), 64u);
  int time_travel = 0;
  int calls = 0;
  for (const ScriptStatement& s : statements) {
    auto again = testing::RoundTrip(s.text);
    ASSERT_TRUE(again.ok()) << "line " << s.pos.line << ": " << again.status().ToString();
    EXPECT_EQ(*again, s.statement);
    std::string printed = ToSql(s.statement);
    if (printed.find(" AS OF ") != std::string::npos) ++time_travel;
    if (s.statement.As<Call>()) ++calls;
  }
  EXPECT_EQ(time_travel, 16);
  EXPECT_EQ(calls, 9);
}

TEST(StatementCorpusTest, TheAuditDiffQuery) {
  ASSERT_OK_AND_ASSIGN(Statement s, ParseStatement(R"(
    SELECT
        cur.report_date,
        cur.total_revenue                      AS revenue_now_corrupted,
        old.total_revenue                      AS revenue_before_incident,
        cur.total_revenue - old.total_revenue  AS diff
    FROM lakehouse.gold.daily_revenue_report cur
    JOIN lakehouse.gold.daily_revenue_report VERSION AS OF 9001 AS old
        ON cur.report_date = old.report_date
    ORDER BY cur.report_date)"));
  EXPECT_EQ(ToSql(s),
            "SELECT cur.report_date, cur.total_revenue AS revenue_now_corrupted, "
            "old.total_revenue AS revenue_before_incident, "
            "cur.total_revenue - old.total_revenue AS diff "
            "FROM lakehouse.gold.daily_revenue_report AS cur "
            "JOIN lakehouse.gold.daily_revenue_report VERSION AS OF 9001 AS old "
            "ON cur.report_date = old.report_date ORDER BY cur.report_date");
  const Select& select = std::get<Select>(std::get<Query>(s.node).body);
  const Join* join = select.from[0].As<Join>();
  ASSERT_NE(join, nullptr);
  const TableRef* cur = join->left->As<TableRef>();
  const TableRef* old = join->right->As<TableRef>();
  EXPECT_FALSE(cur->time_travel);
  ASSERT_TRUE(old->time_travel);
  EXPECT_EQ(old->time_travel->kind, TimeTravelKind::kVersion);
  EXPECT_EQ(old->time_travel->pos.line, 8);
  EXPECT_EQ(old->alias->name.name, "old");
}

}  // namespace
}  // namespace floe::sql
