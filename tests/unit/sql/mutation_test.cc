// Mutated statements either fail with an error or print back to an equal tree: a cheap,
// deterministic stand-in for the libFuzzer target where no fuzzing compiler is at hand.

#include <fstream>
#include <random>
#include <sstream>

#include "floe/sql/parse/lexer.h"
#include "sql_test_util.h"

namespace floe::sql {
namespace {

TEST(MutationTest, ParsedMutantsRoundTrip) {
  std::ifstream in(std::string(FLOE_TEST_DATA_DIR) + "/sql/story_statements.sql");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::vector<StatementSpan> spans = SplitStatements(buffer.str());
  std::vector<std::string> sources;
  for (const StatementSpan& s : spans) sources.push_back(s.text);
  for (const char* extra : {
           "SELECT a, -b, c[1].d, CAST(e AS map<string, int>) FROM t WHERE x IN (1, 2) AND NOT "
           "y BETWEEN 1 AND 2 OR z LIKE 'a' ESCAPE '!' GROUP BY a HAVING count(DISTINCT b) > 1",
           "WITH q AS (SELECT * FROM t VERSION AS OF 1) SELECT * FROM q LEFT JOIN u USING (k) "
           "UNION ALL (SELECT 1 LIMIT 1) ORDER BY 1 DESC NULLS LAST LIMIT 3 OFFSET 1",
           "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED "
           "THEN INSERT (a) VALUES (CASE WHEN s.a IS NULL THEN 0 ELSE s.a END)",
           "ALTER TABLE t CREATE BRANCH b AS OF VERSION 1 RETAIN 2 DAYS WITH SNAPSHOT RETENTION 3 "
           "SNAPSHOTS 4 HOURS",
           "SELECT x::decimal(10, 2) || 'a' & 1 ^ 2 | 3 <=> 4, INTERVAL '1' DAY, DATE '2020-01-01'",
       }) {
    sources.push_back(extra);
  }
  const std::vector<std::string> vocabulary = {
      "(", ")", ",", ".", "*", "-", "+", "=", "<>", "||", "::", "[", "]", "=>", "AND", "OR",
      "NOT", "IS", "NULL", "IN", "SELECT", "FROM", "WHERE", "JOIN", "ON", "AS", "OF",
      "VERSION", "TIMESTAMP", "FOR", "SYSTEM_TIME", "UNION", "ALL", "ORDER", "BY", "LIMIT",
      "CASE", "WHEN", "THEN", "ELSE", "END", "CAST", "int", "x", "`y z`", "\"q$r\"", "'s'",
      "1", "-2", "1.5", "3L", "LEFT", "SEMI", "VALUES", "WITH", "EXISTS", "INTERVAL", "DAY",
      "BETWEEN", "LIKE", "DISTINCT", "count", "t", "TABLE", "SET", "TAG", "BRANCH"};
  std::mt19937 rng(20250615);
  int parsed = 0;
  int failures = 0;
  for (int iteration = 0; iteration < 4000; ++iteration) {
    const std::string& source = sources[rng() % sources.size()];
    auto tokens = Lex(source);
    ASSERT_TRUE(tokens.ok());
    std::vector<std::string> words;
    for (const Token& t : *tokens) {
      if (t.kind != TokenKind::kEnd) words.emplace_back(t.raw);
    }
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !words.empty(); ++e) {
      size_t at = rng() % words.size();
      switch (rng() % 3) {
        case 0: words.erase(words.begin() + static_cast<std::ptrdiff_t>(at)); break;
        case 1: words[at] = vocabulary[rng() % vocabulary.size()]; break;
        default:
          words.insert(words.begin() + static_cast<std::ptrdiff_t>(at),
                       vocabulary[rng() % vocabulary.size()]);
      }
    }
    std::string mutant;
    for (const std::string& w : words) mutant += w + " ";
    auto statement = ParseStatement(mutant);
    if (!statement.ok()) {
      EXPECT_EQ(KindOf(statement.status()), ErrorKind::kValidation);
      EXPECT_NE(statement.status().message().find("(line "), std::string::npos);
      continue;
    }
    ++parsed;
    auto round = testing::RoundTrip(mutant);
    if (!round.ok() && ++failures <= 10) ADD_FAILURE() << mutant << "\n" << round.status().ToString();
  }
  EXPECT_GT(parsed, 200);
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace floe::sql
