// Error messages, asserted by their exact text, and limits on nesting.

#include <pthread.h>

#include <atomic>

#include "floe/catalog/sql_catalog.h"
#include "floe/io/file_io.h"
#include "floe/sql/parse/lexer.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/session.h"
#include "forwarding_catalog.h"
#include "sql_test_util.h"

namespace floe::sql {
namespace {

using testing::ErrorText;

// The caret line for a 1-based column (no tabs before it).
std::string Caret(int column) { return std::string(column - 1, ' ') + "^"; }

TEST(ErrorTest, SyntaxErrorFormat) {
  EXPECT_EQ(ErrorText("SELECT * FORM t"),
            "Syntax error at or near 'FORM' (line 1, column 10)\n"
            "SELECT * FORM t\n" +
            Caret(10));
  EXPECT_EQ(ErrorText("SELECT a,\n       b\n  FROM t WHERE\n"),
            "Syntax error at end of input: expected an expression (line 4, column 1)\n"
            "\n" +
            Caret(1));
  EXPECT_EQ(ErrorText("SELECT a\nFROM t\nWHERE a = = 1"),
            "Syntax error at or near '=': expected an expression (line 3, column 11)\n"
            "WHERE a = = 1\n" +
            Caret(11));
  EXPECT_EQ(ErrorText("SELEC 1"),
            "Syntax error at or near 'SELEC': expected a statement (line 1, column 1)\n"
            "SELEC 1\n" +
            Caret(1));
  EXPECT_EQ(ErrorText(""), "Syntax error at end of input: expected a statement (line 1, column 1)\n\n^");
  EXPECT_EQ(ErrorText("SELECT (1"),
            "Syntax error at end of input: expected ')' (line 1, column 10)\n"
            "SELECT (1\n" +
            Caret(10));
  // Tabs are kept so that the caret lines up; columns count characters, not bytes.
  EXPECT_EQ(ErrorText("SELECT\t'ё', x y z"),
            "Syntax error at or near 'z' (line 1, column 17)\n"
            "SELECT\t'ё', x y z\n"
            "      \t         ^");
  EXPECT_EQ(ErrorText("SELECT 1 2"),
            "Syntax error at or near '2' (line 1, column 10)\n"
            "SELECT 1 2\n" +
            Caret(10));
}

TEST(ErrorTest, StatementErrors) {
  EXPECT_EQ(ErrorText("CREATE VIEW v AS SELECT 1"),
            "Syntax error at or near 'VIEW': expected TABLE or NAMESPACE (line 1, column 8)\n"
            "CREATE VIEW v AS SELECT 1\n" +
            Caret(8));
  EXPECT_EQ(ErrorText("ALTER TABLE t FROB x"),
            "Syntax error at or near 'FROB': expected an ALTER TABLE action (line 1, column 15)\n"
            "ALTER TABLE t FROB x\n" +
            Caret(15));
  EXPECT_EQ(ErrorText("CALL cat.system.rollback_to_snapshot(table => 'db.t', 5)"),
            "A positional argument cannot follow a named argument (line 1, column 55)\n"
            "CALL cat.system.rollback_to_snapshot(table => 'db.t', 5)\n" +
            Caret(55));
  EXPECT_EQ(ErrorText("CREATE TABLE t (a int) PARTITIONED BY (weeks(ts))"),
            "Unsupported partition transform 'weeks' (line 1, column 40)\n"
            "CREATE TABLE t (a int) PARTITIONED BY (weeks(ts))\n" +
            Caret(40));
  EXPECT_EQ(ErrorText("CREATE TABLE t (a int) PARTITIONED BY (bucket(0, a))"),
            "Expected a positive bucket count (line 1, column 40)\n"
            "CREATE TABLE t (a int) PARTITIONED BY (bucket(0, a))\n" +
            Caret(40));
  EXPECT_EQ(ErrorText("SELECT * FROM t VERSION AS OF"),
            "Syntax error at end of input: expected a version (line 1, column 30)\n"
            "SELECT * FROM t VERSION AS OF\n" +
            Caret(30));
  EXPECT_EQ(ErrorText("SELECT * FROM t VERSION AS OF 1 TIMESTAMP AS OF '2025-01-01'"),
            "Syntax error at or near 'TIMESTAMP' (line 1, column 33)\n"
            "SELECT * FROM t VERSION AS OF 1 TIMESTAMP AS OF '2025-01-01'\n" +
            Caret(33));
  EXPECT_EQ(ErrorText("SELECT count(*) OVER (PARTITION BY a ROWS BETWEEN 1 AND 2) FROM t"),
            "Syntax error at or near ')': expected PRECEDING or FOLLOWING (line 1, column 58)\n"
            "SELECT count(*) OVER (PARTITION BY a ROWS BETWEEN 1 AND 2) FROM t\n" +
            Caret(58));
  EXPECT_EQ(ErrorText("SELECT 1; SELECT 2"),
            "Syntax error at or near ';' (line 1, column 9)\n"
            "SELECT 1; SELECT 2\n" +
            Caret(9));
  EXPECT_EQ(ErrorText("SELECT CAST(x AS geometry)"),
            "Syntax error at or near 'geometry': unknown data type (line 1, column 18)\n"
            "SELECT CAST(x AS geometry)\n" +
            Caret(18));
  // A script reports positions in the whole script.
  auto script = ParseScript("SELECT 1;\nSELECT 2;\nSELECT FROM");
  ASSERT_FALSE(script.ok());
  EXPECT_EQ(script.status().message(),
            "Syntax error at or near 'FROM': expected an expression (line 3, column 8)\n"
            "SELECT FROM\n" +
            Caret(8));
  EXPECT_EQ(KindOf(script.status()), ErrorKind::kValidation);
}

TEST(ErrorTest, LexicalErrors) {
  EXPECT_EQ(ErrorText("SELECT 'abc"),
            "Unterminated string literal (line 1, column 8)\n"
            "SELECT 'abc\n" +
            Caret(8));
  EXPECT_EQ(ErrorText("SELECT 1 /* open\ncomment"),
            "Unterminated comment (line 1, column 10)\n"
            "SELECT 1 /* open\n" +
            Caret(10));
  EXPECT_EQ(ErrorText("SELECT `abc"),
            "Unterminated quoted identifier (line 1, column 8)\n"
            "SELECT `abc\n" +
            Caret(8));
  EXPECT_EQ(ErrorText("SELECT \"abc"),
            "Unterminated quoted text (line 1, column 8)\n"
            "SELECT \"abc\n" +
            Caret(8));
  EXPECT_EQ(ErrorText("SELECT 12abc"),
            "Invalid number '12abc' (line 1, column 8)\n"
            "SELECT 12abc\n" +
            Caret(8));
  EXPECT_EQ(ErrorText("SELECT 1e"),
            "Invalid number '1e' (line 1, column 8)\n"
            "SELECT 1e\n" +
            Caret(8));
  EXPECT_EQ(ErrorText("SELECT 1.2.3"),
            "Invalid number '1.2.3' (line 1, column 8)\n"
            "SELECT 1.2.3\n" +
            Caret(8));
  EXPECT_EQ(ErrorText("SELECT 300Y"),
            "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 300 is outside the valid range for tinyint with minimum "
            "value of -128 and maximum value of 127. Please adjust the value accordingly. (line 1, column 8)\n"
            "SELECT 300Y\n" +
            Caret(8));
  EXPECT_EQ(ErrorText("SELECT -32769S"),
            "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal -32769 is outside the valid range for smallint with minimum "
            "value of -32768 and maximum value of 32767. Please adjust the value accordingly. (line 1, column 8)\n"
            "SELECT -32769S\n" +
            Caret(8));
  EXPECT_EQ(ErrorText("SELECT 9223372036854775808L"),
            "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 9223372036854775808 is outside the valid range for bigint with minimum "
            "value of -9223372036854775808 and maximum value of 9223372036854775807. Please adjust the value accordingly. (line 1, column 8)\n"
            "SELECT 9223372036854775808L\n" +
            Caret(8));
  EXPECT_EQ(ErrorText("SELECT a # b"),
            "Unexpected character '#' (line 1, column 10)\n"
            "SELECT a # b\n" +
            Caret(10));
  EXPECT_EQ(ErrorText("SELECT X'0G'"),
            "Invalid binary literal X'0G' (line 1, column 8)\n"
            "SELECT X'0G'\n" +
            Caret(8));
  EXPECT_EQ(ErrorText("ALTER TABLE t CREATE TAG x AS OF VERSION 99999999999999999999"),
            "Number 99999999999999999999 is out of range for a snapshot id (line 1, column 42)\n"
            "ALTER TABLE t CREATE TAG x AS OF VERSION 99999999999999999999\n" +
            Caret(42));
}

TEST(ErrorTest, DeepNestingIsAnErrorNotACrash) {
  auto nested = [](const std::string& open, const std::string& middle, const std::string& close,
                   int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += open;
    out += middle;
    for (int i = 0; i < n; ++i) out += close;
    return out;
  };
  // Reasonable depth parses.
  ASSERT_OK(ParseStatement("SELECT " + nested("(", "1", ")", 100)));
  ASSERT_OK(ParseStatement(nested("SELECT * FROM (", "SELECT 1", ")", 40)));
  // Absurd depth is refused with a positioned error.
  for (const std::string& sql : {
           "SELECT " + nested("(", "1", ")", 20000),
           "SELECT " + nested("- ", "1", "", 20000),
           "SELECT " + nested("NOT ", "a", "", 20000),
           "SELECT " + nested("f(", "1", ")", 20000),
           "SELECT " + nested("CASE WHEN ", "1", " THEN 1 END", 5000),
           "SELECT " + nested("a[", "1", "]", 20000),
           "SELECT 1" + nested(" + 1", "", "", 20000),
           "SELECT a" + nested(" AND a", "", "", 20000),
           "SELECT a" + nested("[0]", "", "", 20000),
           "SELECT a" + nested("::int", "", "", 20000),
           nested("SELECT * FROM (", "SELECT 1", ")", 20000),
           "SELECT * FROM a" + nested(" JOIN a ON true", "", "", 20000),
           "SELECT 1" + nested(" UNION SELECT 1", "", "", 20000),
           "SELECT CAST(x AS " + nested("array<", "int", ">", 20000) + ")",
           nested("EXPLAIN ", "SELECT 1", "", 20000),
       }) {
    auto s = ParseStatement(sql);
    ASSERT_FALSE(s.ok()) << sql.substr(0, 40);
    EXPECT_THAT(s.status().message(),
                ::testing::StartsWith("SQL nested too deeply (more than 256 levels) (line 1, column "))
        << sql.substr(0, 40);
  }
  // Generated filters with long flat chains are fine.
  std::string ors = "SELECT * FROM t WHERE id = 0";
  for (int i = 1; i < 1500; ++i) ors += " OR id = " + std::to_string(i);
  ASSERT_OK_AND_ASSIGN(Statement big, testing::RoundTrip(ors));
  EXPECT_EQ(ToSql(big), ors);
  // Just under the limit still prints and round-trips.
  std::string sum = "SELECT 1" + nested(" + 1", "", "", 200);
  ASSERT_OK_AND_ASSIGN(Statement s, testing::RoundTrip(sum));
  EXPECT_EQ(ToSql(s), sum);
}

// The deepest inputs the limit lets through fit in a thread with a modest stack (measured:
// about 1 MiB optimized, 4 MiB under ASan at -O0).
TEST(ErrorTest, DeepestInputsFitInASmallThreadStack) {
  auto nested = [](const std::string& open, const std::string& middle, const std::string& close,
                   int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += open;
    out += middle;
    for (int i = 0; i < n; ++i) out += close;
    return out;
  };
  struct Job {
    std::string sql;
    bool done = false;
  };
  for (std::string sql : {"SELECT " + nested("(", "1", ")", 200),
                          "SELECT " + nested("f(", "1", ")", 200),
                          "SELECT " + nested("CASE WHEN ", "1", " THEN 1 END", 200),
                          "SELECT " + nested("(SELECT ", "1", ")", 200),
                          nested("SELECT * FROM (", "SELECT 1", ")", 200)}) {
    Job job{sql};
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 6 << 20);
    pthread_t thread;
    auto run = [](void* p) -> void* {
      auto* j = static_cast<Job*>(p);
      auto s = ParseStatement(j->sql);
      if (s.ok()) (void)ToSql(*s);
      j->done = true;
      return nullptr;
    };
    ASSERT_EQ(pthread_create(&thread, &attr, run, &job), 0);
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attr);
    EXPECT_TRUE(job.done);
  }
}

// A catalog whose compare-and-swap can be told to refuse every commit, or to lose track of
// whether it landed.
class SwitchableCatalog : public floe::testing::ForwardingCatalog {
 public:
  enum class Swap { kForward, kRefuse, kLoseTrack };
  using ForwardingCatalog::ForwardingCatalog;
  Status SwapMetadataLocation(const TableIdentifier& ident, const std::string& expected,
                              const std::string& location) override {
    switch (swap.load()) {
      case Swap::kRefuse:
        return CommitConflict("the catalog refused the swap of ", ident.ToString());
      case Swap::kLoseTrack:
        return CommitStateUnknown("connection lost while swapping ", ident.ToString());
      case Swap::kForward:
        break;
    }
    return inner_->SwapMetadataLocation(ident, expected, location);
  }
  std::atomic<Swap> swap{Swap::kForward};
};

// Errors that reach Session::Execute keep the kind their layer gave them, with the SQL
// position added to the message only.
class ErrorKindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(auto inner, SqlCatalog::Open(dir_.str() + "/catalog.db", "lakehouse",
                                                      dir_.str() + "/warehouse"));
    catalog_ = std::make_shared<SwitchableCatalog>(std::move(inner));
    ASSERT_OK_AND_ASSIGN(auto io, FileIO::MakeLocal());
    ASSERT_OK_AND_ASSIGN(session_, Session::Make(catalog_, std::move(io)));
    for (const char* sql : {"CREATE NAMESPACE db",
                            "CREATE TABLE db.t (id BIGINT) USING iceberg "
                            "TBLPROPERTIES ('commit.retry.num-retries' = '0')",
                            "INSERT INTO db.t VALUES (1)"}) {
      ASSERT_OK(session_->Execute(sql).status());
    }
  }

  Status Run(const std::string& sql) { return session_->Execute(sql).status(); }

  floe::testing::TempDir dir_;
  std::shared_ptr<SwitchableCatalog> catalog_;
  std::unique_ptr<Session> session_;
};

TEST_F(ErrorKindTest, CommitConflict) {
  catalog_->swap = SwitchableCatalog::Swap::kRefuse;
  Status st = Run("INSERT INTO db.t VALUES (2)");
  EXPECT_EQ(KindOf(st), ErrorKind::kCommitConflict) << st.ToString();
  EXPECT_THAT(st.message(), ::testing::HasSubstr("the catalog refused the swap of db.t"));
  // Refused before any commit: the table layer's validation, as Iceberg's ValidationException.
  st = Run("CALL lakehouse.system.rollback_to_snapshot('db.t', 1)");
  EXPECT_EQ(KindOf(st), ErrorKind::kValidation) << st.ToString();
  EXPECT_THAT(st.message(), ::testing::StartsWith("Cannot roll back to unknown snapshot id: 1"));
  catalog_->swap = SwitchableCatalog::Swap::kForward;
  EXPECT_OK(Run("INSERT INTO db.t VALUES (2)"));
}

TEST_F(ErrorKindTest, UnknownCommitState) {
  catalog_->swap = SwitchableCatalog::Swap::kLoseTrack;
  Status st = Run("INSERT INTO db.t VALUES (2)");
  EXPECT_EQ(KindOf(st), ErrorKind::kCommitStateUnknown) << st.ToString();
  EXPECT_THAT(st.message(), ::testing::HasSubstr("connection lost while swapping db.t"));
}

TEST_F(ErrorKindTest, MissingSnapshotTableAndBadArgument) {
  Status st = Run("SELECT * FROM db.t VERSION AS OF 1");
  EXPECT_EQ(KindOf(st), ErrorKind::kNotFound) << st.ToString();
  EXPECT_EQ(st.message(),
            "Cannot find matching snapshot ID or reference name for version 1 (line 1, column 34)\n"
            "SELECT * FROM db.t VERSION AS OF 1\n" +
                Caret(34));
  st = Run("SELECT * FROM db.t.snapshot_id_1");
  EXPECT_EQ(KindOf(st), ErrorKind::kNotFound) << st.ToString();
  st = Run("SELECT * FROM db.nope");
  EXPECT_EQ(KindOf(st), ErrorKind::kNotFound) << st.ToString();
  EXPECT_THAT(st.message(), ::testing::StartsWith("[TABLE_OR_VIEW_NOT_FOUND] The table or view "
                                                  "`lakehouse`.`db`.`nope` cannot be found."));
  st = Run("CALL lakehouse.system.rollback_to_snapshot('db.nope', 1)");
  EXPECT_EQ(KindOf(st), ErrorKind::kNotFound) << st.ToString();
  st = Run("CALL lakehouse.system.rollback_to_snapshot('db.t', 'abc')");
  EXPECT_EQ(KindOf(st), ErrorKind::kValidation) << st.ToString();
  st = Run("CREATE TABLE db.t (id BIGINT) USING iceberg");
  EXPECT_EQ(KindOf(st), ErrorKind::kAlreadyExists) << st.ToString();
  st = Run("SELEC 1");
  EXPECT_EQ(KindOf(st), ErrorKind::kValidation) << st.ToString();
}

TEST_F(ErrorKindTest, CaretOnTheLineTheErrorIsOn) {
  Status st = Run("SELECT id\nFROM db.t\nVERSION AS OF 1");
  EXPECT_EQ(st.message(),
            "Cannot find matching snapshot ID or reference name for version 1 (line 3, column 15)\n"
            "VERSION AS OF 1\n" +
                Caret(15));
  st = Run("SELECT id\n  FROM db.nope\n WHERE id > 0");
  EXPECT_THAT(st.message(), ::testing::EndsWith("(line 2, column 8)\n  FROM db.nope\n" + Caret(8)));
}

TEST(ErrorAtTest, PointsAtTheRightLineAndKeepsTheKind) {
  // The statement's first character is on line 1, and so is the caret.
  Status st = ErrorAt("INSERT INTO t\nVALUES (1)\n", PositionAt("INSERT INTO t\nVALUES (1)\n", 0),
                      "Not supported");
  EXPECT_EQ(st.message(), "Not supported (line 1, column 1)\nINSERT INTO t\n^");
  // A position never set reads as the start.
  st = ErrorAt("SELECT 1\nFROM t", SourcePos{}, "Oops");
  EXPECT_EQ(st.message(), "Oops (line 1, column 1)\nSELECT 1\n^");
  EXPECT_EQ(KindOf(st), ErrorKind::kValidation);
  EXPECT_EQ(KindOf(ErrorAt("x", SourcePos{}, "[SCHEMA_NOT_FOUND] gone")), ErrorKind::kNotFound);
  EXPECT_EQ(KindOf(ErrorAt("x", SourcePos{}, "[TABLE_ALREADY_EXISTS] there")),
            ErrorKind::kAlreadyExists);
  Status conflict = ErrorAt("SELECT 1\nFROM t", PositionAt("SELECT 1\nFROM t", 14),
                            CommitConflict("moved on"));
  EXPECT_EQ(KindOf(conflict), ErrorKind::kCommitConflict);
  EXPECT_EQ(conflict.code(), CommitConflict("x").code());
  EXPECT_EQ(conflict.message(), "moved on (line 2, column 6)\nFROM t\n     ^");
  EXPECT_OK(ErrorAt("x", SourcePos{}, Status::OK()));
}

TEST(ErrorTest, LexerTokens) {
  ASSERT_OK_AND_ASSIGN(std::vector<Token> tokens,
                       Lex("a.`b`\"c\"'d'--x\n/* y /* nested */ */ 1 <=> <> != == => :: || ;"));
  std::vector<TokenKind> kinds;
  for (const Token& t : tokens) kinds.push_back(t.kind);
  EXPECT_EQ(kinds, (std::vector<TokenKind>{
                       TokenKind::kWord, TokenKind::kDot, TokenKind::kQuotedIdent,
                       TokenKind::kDoubleQuoted, TokenKind::kString, TokenKind::kNumber,
                       TokenKind::kNullSafeEq, TokenKind::kNe, TokenKind::kNe, TokenKind::kEq,
                       TokenKind::kArrow, TokenKind::kDoubleColon, TokenKind::kConcat,
                       TokenKind::kSemicolon, TokenKind::kEnd}));
  EXPECT_EQ(tokens[5].pos.line, 2);
  EXPECT_EQ(tokens[5].pos.column, 22);
  EXPECT_EQ(tokens[5].raw, "1");
  ASSERT_OK_AND_ASSIGN(tokens, Lex("'\\t\\u0041\\101\\%\\_\\q' r'\\n' 'a''b'"));
  EXPECT_EQ(tokens[0].text, "\tAA\\%\\_q");
  EXPECT_EQ(tokens[1].text, "\\n");
  EXPECT_EQ(tokens[2].text, "a'b");
}

}  // namespace
}  // namespace floe::sql
