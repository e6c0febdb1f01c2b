// PostgreSQL's syntax that its clients send: regex operators, OPERATOR(...), COLLATE,
// quantified comparisons, ARRAY constructors, casts to PostgreSQL type names, SHOW/SET of
// parameters, the transaction statements floe accepts without effect, ordered aggregates and
// the standard's trim and substring forms. What they mean is tested in tests/sql/pg_catalog/.

#include "floe/sql/parse/ast.h"
#include "floe/sql/parse/parser.h"
#include "sql_test_util.h"

namespace floe::sql {
namespace {

using testing::Canonical;
using testing::CanonicalExpr;

TEST(PgSyntaxTest, RegexOperatorsAreRlike) {
  EXPECT_EQ(CanonicalExpr("n ~ '^pg_'"), "n RLIKE '^pg_'");
  EXPECT_EQ(CanonicalExpr("n !~ '^pg_'"), "n NOT RLIKE '^pg_'");
  EXPECT_EQ(CanonicalExpr("n ~* 'ab'"), "n RLIKE '(?i)ab'");
  EXPECT_EQ(CanonicalExpr("n ~* p"), "n RLIKE concat('(?i)', p)");
  EXPECT_EQ(CanonicalExpr("n !~* 'ab'"), "n NOT RLIKE '(?i)ab'");
  EXPECT_EQ(CanonicalExpr("n OPERATOR(pg_catalog.~) '^(db)$' COLLATE pg_catalog.default"),
            "n RLIKE '^(db)$'");
  EXPECT_EQ(CanonicalExpr("n OPERATOR(pg_catalog.~~) 'a%'"), "n LIKE 'a%'");
  EXPECT_EQ(CanonicalExpr("n OPERATOR(pg_catalog.=) 1"), "n = 1");
  // ~ before an operand is still the bitwise NOT.
  EXPECT_EQ(CanonicalExpr("~ 5"), "~(5)");
}

TEST(PgSyntaxTest, QuantifiedComparisons) {
  EXPECT_EQ(CanonicalExpr("x = ANY (arr)"), "array_contains(arr, x)");
  EXPECT_EQ(CanonicalExpr("x <> ALL (arr)"), "NOT array_contains(arr, x)");
  EXPECT_EQ(CanonicalExpr("x = ANY (SELECT 1)"), "x IN (SELECT 1)");
  EXPECT_EQ(CanonicalExpr("x <> ALL (SELECT 1)"), "x NOT IN (SELECT 1)");
  auto bad = ParseStatement("SELECT x < ANY (arr)");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("< ANY is not supported"), std::string::npos)
      << bad.status().message();
}

TEST(PgSyntaxTest, ArrayConstructorsAndTypes) {
  EXPECT_EQ(CanonicalExpr("ARRAY[1, 2]"), "array(1, 2)");
  EXPECT_EQ(CanonicalExpr("ARRAY(SELECT 1)"), "array_of_query((SELECT 1))");
  EXPECT_EQ(CanonicalExpr("x::pg_catalog.int2[]"), "CAST(x AS ARRAY<SMALLINT>)");
  EXPECT_EQ(CanonicalExpr("x::int4"), "CAST(x AS INT)");
  EXPECT_EQ(CanonicalExpr("x::int8"), "CAST(x AS BIGINT)");
  EXPECT_EQ(CanonicalExpr("x::oid"), "CAST(x AS BIGINT)");
  EXPECT_EQ(CanonicalExpr("x::float8"), "CAST(x AS DOUBLE)");
  EXPECT_EQ(CanonicalExpr("x::pg_catalog.text"), "CAST(x AS STRING)");
  EXPECT_EQ(CanonicalExpr("x::\"char\""), "CAST(x AS STRING)");
  EXPECT_EQ(CanonicalExpr("x::name"), "CAST(x AS STRING)");
  EXPECT_EQ(CanonicalExpr("x::character varying"), "CAST(x AS VARCHAR)");
  EXPECT_EQ(CanonicalExpr("'t'::regclass"), "regclass('t')");
  EXPECT_EQ(CanonicalExpr("c.oid::pg_catalog.regclass::pg_catalog.text"),
            "CAST(regclass(c.oid) AS STRING)");
  EXPECT_EQ(CanonicalExpr("CAST(x AS pg_catalog.regtype)"), "regtype(x)");
  EXPECT_EQ(CanonicalExpr("E'a\\tb'"), "'a\\tb'");
  EXPECT_EQ(CanonicalExpr("current_user"), "current_user()");
}

TEST(PgSyntaxTest, ShowSetAndTransactions) {
  EXPECT_EQ(Canonical("SHOW TimeZone"), "SELECT current_setting('TimeZone') AS TimeZone");
  EXPECT_EQ(Canonical("SET extra_float_digits TO 3"), "SET extra_float_digits = 3");
  EXPECT_EQ(Canonical("SET SESSION application_name = 'psql'"), "SET application_name = psql");
  for (const char* sql :
       {"BEGIN", "START TRANSACTION ISOLATION LEVEL READ COMMITTED", "COMMIT", "END", "ROLLBACK",
        "ABORT", "SET TRANSACTION READ ONLY",
        "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE"}) {
    auto s = testing::RoundTrip(sql);
    ASSERT_TRUE(s.ok()) << sql << ": " << s.status().ToString();
    ASSERT_TRUE(s->As<TransactionControl>()) << sql;
    EXPECT_EQ(s->As<TransactionControl>()->text, sql);
  }
  EXPECT_EQ(Canonical("SHOW TRANSACTION ISOLATION LEVEL"),
            "SELECT current_setting('transaction_isolation') AS transaction_isolation");
  EXPECT_EQ(Canonical("show time zone"), "SELECT current_setting('TimeZone') AS TimeZone");
  const std::pair<const char*, TransactionControlKind> savepoints[] = {
      {"SAVEPOINT \"_pg3_1\"", TransactionControlKind::kSavepoint},
      {"RELEASE SAVEPOINT s", TransactionControlKind::kRelease},
      {"RELEASE s", TransactionControlKind::kRelease},
      {"ROLLBACK TO SAVEPOINT s", TransactionControlKind::kRollbackToSavepoint},
      {"ROLLBACK WORK TO s", TransactionControlKind::kRollbackToSavepoint}};
  for (const auto& [sql, kind] : savepoints) {
    auto s = testing::RoundTrip(sql);
    ASSERT_TRUE(s.ok()) << sql << ": " << s.status().ToString();
    ASSERT_TRUE(s->As<TransactionControl>()) << sql;
    EXPECT_EQ(s->As<TransactionControl>()->kind, kind) << sql;
  }
}

TEST(PgSyntaxTest, OrderedAggregatesAndStandardStringForms) {
  EXPECT_EQ(CanonicalExpr("array_agg(CAST(a AS TEXT) ORDER BY o DESC, p)"),
            "array_agg(CAST(a AS STRING) ORDER BY o DESC, p)");
  EXPECT_EQ(CanonicalExpr("string_agg(DISTINCT a, ',' ORDER BY a)"),
            "string_agg(DISTINCT a, ',' ORDER BY a)");
  EXPECT_FALSE(ParseStatement("SELECT array_agg(a ORDER BY a) OVER () FROM t").ok());
  EXPECT_EQ(CanonicalExpr("trim(both '\"' from x)"), "btrim(x, '\"')");
  EXPECT_EQ(CanonicalExpr("trim(BOTH FROM x)"), "trim(x)");
  EXPECT_EQ(CanonicalExpr("trim(leading from x)"), "ltrim(x)");
  EXPECT_EQ(CanonicalExpr("trim(TRAILING FROM x)"), "rtrim(x)");
  EXPECT_FALSE(ParseStatement("SELECT trim(LEADING 'x' FROM y)").ok());
  EXPECT_EQ(CanonicalExpr("substring(s from 0 for 6)"), "substring(s, 0, 6)");
  EXPECT_EQ(CanonicalExpr("substring(s FROM 2)"), "substring(s, 2)");
  EXPECT_EQ(CanonicalExpr("substring(s for 2)"), "substring(s, 1, 2)");
  EXPECT_EQ(CanonicalExpr("substring(s, 2, 3)"), "substring(s, 2, 3)");
}

}  // namespace
}  // namespace floe::sql
