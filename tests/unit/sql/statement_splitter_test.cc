#include "floe/sql/parse/statement_splitter.h"

#include "floe/sql/parse/parser.h"
#include "floe_test.h"

namespace floe::sql {
namespace {

std::vector<std::string> Texts(const std::vector<StatementSpan>& statements) {
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

TEST(StatementSplitterTest, EscapesAndDoubledQuotes) {
  EXPECT_THAT(Texts(SplitStatements(R"(SELECT "a\";b" ; SELECT 'a'';b''' ; SELECT R'\';')")),
              ElementsAre(R"(SELECT "a\";b")", R"(SELECT 'a'';b''')", R"(SELECT R'\';')"));
  // A doubled quote closes and reopens: 'a''' is one string, the ';' after it splits.
  EXPECT_THAT(Texts(SplitStatements("SELECT 'a''';'';'''")),
              ElementsAre("SELECT 'a'''", "''", "'''"));
  EXPECT_THAT(Texts(SplitStatements("SELECT `a``;b`; SELECT 2")),
              ElementsAre("SELECT `a``;b`", "SELECT 2"));
}

TEST(StatementSplitterTest, TrailingCommentsAndTextWithoutSemicolon) {
  EXPECT_THAT(Texts(SplitStatements("SELECT 1 /* why */ -- note\n; SELECT 2 -- last")),
              ElementsAre("SELECT 1", "SELECT 2"));
  EXPECT_THAT(Texts(SplitStatements("SELECT 1;\n  garbage text  \n")),
              ElementsAre("SELECT 1", "garbage text"));
  // Unterminated quotes and comments run to the end; the parser reports them.
  EXPECT_THAT(Texts(SplitStatements("SELECT 1; SELECT 'open; SELECT 3")),
              ElementsAre("SELECT 1", "SELECT 'open; SELECT 3"));
  EXPECT_THAT(Texts(SplitStatements("SELECT 1; /* open; SELECT 3")), ElementsAre("SELECT 1"));
  // A character the lexer rejects does not stop the split: its statement fails alone.
  EXPECT_THAT(Texts(SplitStatements("SELECT 1; SELECT # 2; SELECT 3")),
              ElementsAre("SELECT 1", "SELECT # 2", "SELECT 3"));
}

TEST(StatementSplitterTest, PositionsAsTheLexerCountsThem) {
  std::vector<StatementSpan> s =
      SplitStatements("SELECT '\xC3\xA9';  /* c */ SELECT 2;\n\t-- x\n  SELECT\n3");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].pos.line, 1);
  EXPECT_EQ(s[0].pos.column, 1);
  EXPECT_EQ(s[0].pos.offset, 0);
  EXPECT_EQ(s[1].text, "SELECT 2");
  EXPECT_EQ(s[1].pos.line, 1);
  EXPECT_EQ(s[1].pos.column, 22);  // the two-byte letter is one column
  EXPECT_EQ(s[1].pos.offset, 22);
  EXPECT_EQ(s[2].text, "SELECT\n3");
  EXPECT_EQ(s[2].pos.line, 3);
  EXPECT_EQ(s[2].pos.column, 3);
  // Scripts parse the same statements, their positions from the lexer.
  ASSERT_OK_AND_ASSIGN(std::vector<ScriptStatement> parsed,
                       ParseScript("SELECT '\xC3\xA9';  /* c */ SELECT 2;\n\t-- x\n  SELECT\n3"));
  ASSERT_EQ(parsed.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(parsed[i].text, s[i].text);
    EXPECT_EQ(parsed[i].pos.line, s[i].pos.line);
    EXPECT_EQ(parsed[i].pos.column, s[i].pos.column);
    EXPECT_EQ(parsed[i].pos.offset, s[i].pos.offset);
  }
}

TEST(StatementSplitterTest, DropsLeadingCommentsAndKnowsLines) {
  std::vector<StatementSpan> s = SplitStatements(
      "-- setup\n\nCREATE TABLE t (a INT);\n/* two */\nINSERT INTO t\nVALUES (1);\n");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].text, "CREATE TABLE t (a INT)");
  EXPECT_EQ(s[0].pos.line, 3);
  EXPECT_EQ(s[1].text, "INSERT INTO t\nVALUES (1)");
  EXPECT_EQ(s[1].pos.line, 5);
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
  std::vector<StatementSpan> last = splitter.TakeStatements();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].text, "SELECT\n3");
  EXPECT_EQ(last[0].pos.line, 3);
  EXPECT_FALSE(splitter.HasPendingStatement());
}

TEST(StatementSplitterTest, CommentMarkersSplitAcrossChunks) {
  StatementSplitter splitter;
  splitter.Feed("SELECT 1 -");
  splitter.Feed("- ; not a statement\n; SELECT 2 /");
  splitter.Feed("* ; */;");
  EXPECT_THAT(Texts(splitter.TakeStatements()),
              ElementsAre("SELECT 1", "SELECT 2"));
}

TEST(StatementSplitterTest, RestWithoutSemicolon) {
  StatementSplitter splitter;
  splitter.Feed("SELECT 1; SELECT 2 -");
  EXPECT_THAT(Texts(splitter.TakeStatements()), ElementsAre("SELECT 1"));
  StatementSpan rest;
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
}  // namespace floe::sql
