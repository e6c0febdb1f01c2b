#include "floe/cli/statement_splitter.h"

#include "floe_test.h"

namespace floe::cli {
namespace {

std::vector<std::string> Texts(const std::vector<SqlStatement>& statements) {
  std::vector<std::string> out;
  for (const auto& s : statements) out.push_back(s.text);
  return out;
}

using ::testing::ElementsAre;

TEST(StatementSplitterTest, SplitsAtSemicolons) {
  EXPECT_THAT(Texts(SplitStatements("SELECT 1; SELECT 2;")), ElementsAre("SELECT 1", "SELECT 2"));
  EXPECT_THAT(Texts(SplitStatements("SELECT 1;\nSELECT 2")), ElementsAre("SELECT 1", "SELECT 2"));
  EXPECT_THAT(Texts(SplitStatements(" ;; \n ; ")), ElementsAre());
  EXPECT_THAT(Texts(SplitStatements("")), ElementsAre());
}

TEST(StatementSplitterTest, SemicolonsInsideQuotesAndComments) {
  EXPECT_THAT(Texts(SplitStatements("SELECT 'a;b', \"c;d\", `e;f` FROM t; SELECT 2")),
              ElementsAre("SELECT 'a;b', \"c;d\", `e;f` FROM t", "SELECT 2"));
  EXPECT_THAT(Texts(SplitStatements("SELECT 'it''s;' ; SELECT 'x\\';y'; SELECT 3")),
              ElementsAre("SELECT 'it''s;'", "SELECT 'x\\';y'", "SELECT 3"));
  EXPECT_THAT(Texts(SplitStatements("SELECT 1 -- not the end;\n + 1; SELECT 2")),
              ElementsAre("SELECT 1 -- not the end;\n + 1", "SELECT 2"));
  EXPECT_THAT(Texts(SplitStatements("SELECT /* a; /* nested; */ still; */ 1; SELECT 2")),
              ElementsAre("SELECT /* a; /* nested; */ still; */ 1", "SELECT 2"));
  // Backquotes take no backslash escapes.
  EXPECT_THAT(Texts(SplitStatements("SELECT `a\\`; SELECT 2")),
              ElementsAre("SELECT `a\\`", "SELECT 2"));
}

TEST(StatementSplitterTest, DropsLeadingCommentsAndKnowsLines) {
  std::vector<SqlStatement> s = SplitStatements(
      "-- setup\n\nCREATE TABLE t (a INT);\n/* two */\nINSERT INTO t\nVALUES (1);\n");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].text, "CREATE TABLE t (a INT)");
  EXPECT_EQ(s[0].line, 3);
  EXPECT_EQ(s[1].text, "INSERT INTO t\nVALUES (1)");
  EXPECT_EQ(s[1].line, 5);
}

TEST(StatementSplitterTest, LineByLine) {
  StatementSplitter splitter;
  splitter.Feed("SELECT *\n");
  EXPECT_TRUE(splitter.TakeStatements().empty());
  EXPECT_TRUE(splitter.HasPendingStatement());
  splitter.Feed("FROM t WHERE s = 'a\n");
  EXPECT_TRUE(splitter.InsideQuoteOrComment());
  splitter.Feed("b;'; SELECT 2; SELECT\n");
  EXPECT_THAT(Texts(splitter.TakeStatements()),
              ElementsAre("SELECT *\nFROM t WHERE s = 'a\nb;'", "SELECT 2"));
  EXPECT_TRUE(splitter.HasPendingStatement());
  splitter.Feed("3;\n");
  std::vector<SqlStatement> last = splitter.TakeStatements();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].text, "SELECT\n3");
  EXPECT_EQ(last[0].line, 3);
  EXPECT_FALSE(splitter.HasPendingStatement());
}

TEST(StatementSplitterTest, CommentMarkersSplitAcrossChunks) {
  StatementSplitter splitter;
  splitter.Feed("SELECT 1 -");
  splitter.Feed("- ; not a statement\n; SELECT 2 /");
  splitter.Feed("* ; */;");
  EXPECT_THAT(Texts(splitter.TakeStatements()),
              ElementsAre("SELECT 1 -- ; not a statement", "SELECT 2 /* ; */"));
}

TEST(StatementSplitterTest, RestWithoutSemicolon) {
  StatementSplitter splitter;
  splitter.Feed("SELECT 1; SELECT 2 -");
  EXPECT_THAT(Texts(splitter.TakeStatements()), ElementsAre("SELECT 1"));
  SqlStatement rest;
  ASSERT_TRUE(splitter.TakeRest(&rest));
  EXPECT_EQ(rest.text, "SELECT 2 -");
  EXPECT_FALSE(splitter.TakeRest(&rest));
  splitter.Feed("-- only a comment\n");
  EXPECT_FALSE(splitter.HasPendingStatement());
  EXPECT_FALSE(splitter.TakeRest(&rest));
}

TEST(StatementSplitterTest, ResetDropsPartialInput) {
  StatementSplitter splitter;
  splitter.Feed("SELECT 'unterminated\n");
  splitter.Reset();
  splitter.Feed("SELECT 1;");
  EXPECT_THAT(Texts(splitter.TakeStatements()), ElementsAre("SELECT 1"));
}

}  // namespace
}  // namespace floe::cli
