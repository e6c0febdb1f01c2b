// Expressions: literals, names, operators and their precedence, predicates, CASE, CAST,
// function calls, subscripts and subqueries.

#include "sql_test_util.h"

namespace floe::sql {
namespace {

using testing::CanonicalExpr;
using testing::TreeOf;

Literal LiteralOf(std::string_view sql) {
  auto e = ParseExpression(sql);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  if (!e.ok()) return {};
  const Literal* lit = e->As<Literal>();
  EXPECT_NE(lit, nullptr) << sql;
  return lit ? *lit : Literal{};
}

TEST(ExpressionTest, NumericLiterals) {
  EXPECT_EQ(LiteralOf("42"), (Literal{LiteralKind::kInteger, "42"}));
  EXPECT_EQ(LiteralOf("5847203991234567890"),
            (Literal{LiteralKind::kInteger, "5847203991234567890"}));
  EXPECT_EQ(LiteralOf("10L"), (Literal{LiteralKind::kBigInt, "10"}));
  EXPECT_EQ(LiteralOf("10l"), (Literal{LiteralKind::kBigInt, "10"}));
  EXPECT_EQ(LiteralOf("10S"), (Literal{LiteralKind::kSmallInt, "10"}));
  EXPECT_EQ(LiteralOf("10Y"), (Literal{LiteralKind::kTinyInt, "10"}));
  EXPECT_EQ(LiteralOf("-128Y"), (Literal{LiteralKind::kTinyInt, "-128"}));
  EXPECT_EQ(LiteralOf("1.5"), (Literal{LiteralKind::kDecimal, "1.5"}));
  EXPECT_EQ(LiteralOf(".5"), (Literal{LiteralKind::kDecimal, ".5"}));
  EXPECT_EQ(LiteralOf("1."), (Literal{LiteralKind::kDecimal, "1."}));
  EXPECT_EQ(LiteralOf("1.5BD"), (Literal{LiteralKind::kDecimal, "1.5"}));
  EXPECT_EQ(LiteralOf("7BD"), (Literal{LiteralKind::kDecimal, "7"}));
  EXPECT_EQ(LiteralOf("1.5e3"), (Literal{LiteralKind::kDouble, "1.5e3"}));
  EXPECT_EQ(LiteralOf("1E-2"), (Literal{LiteralKind::kDouble, "1E-2"}));
  EXPECT_EQ(LiteralOf("1.5D"), (Literal{LiteralKind::kDouble, "1.5"}));
  EXPECT_EQ(LiteralOf("1.5F"), (Literal{LiteralKind::kFloat, "1.5"}));
  EXPECT_EQ(LiteralOf("-99.99"), (Literal{LiteralKind::kDecimal, "-99.99"}));
  EXPECT_EQ(LiteralOf("-(5)"), (Literal{LiteralKind::kInteger, "-5"}));
  EXPECT_EQ(LiteralOf("- -5"), (Literal{LiteralKind::kInteger, "5"}));
  const std::pair<const char*, const char*> kCanonical[] = {
      {"42", "42"},       {"10l", "10L"},     {"10s", "10S"},   {"10Y", "10Y"},
      {"-128Y", "-128Y"}, {"1.5", "1.5"},     {".5", ".5"},     {"1.", "1."},
      {"1.5BD", "1.5"},   {"7BD", "7BD"},     {"1.5e3", "1.5e3"}, {"1.5d", "1.5D"},
      {"1.5F", "1.5F"},   {"-99.99", "-99.99"}};
  for (const auto& [sql, canonical] : kCanonical) EXPECT_EQ(CanonicalExpr(sql), canonical);
  EXPECT_EQ(CanonicalExpr("1e3BD"), "1e3BD");
  EXPECT_EQ(CanonicalExpr("2 - -5"), "2 - -5");
  EXPECT_EQ(CanonicalExpr("-x"), "-x");
  EXPECT_EQ(CanonicalExpr("-(-x)"), "- -x");
  EXPECT_EQ(CanonicalExpr("-(5)[0]"), "-(5[0])");
  EXPECT_EQ(CanonicalExpr("(-5)[0]"), "(-5)[0]");
}

TEST(ExpressionTest, OtherLiterals) {
  EXPECT_EQ(LiteralOf("'it''s'"), (Literal{LiteralKind::kString, "it's"}));
  EXPECT_EQ(LiteralOf("'it\\'s'"), (Literal{LiteralKind::kString, "it's"}));
  EXPECT_EQ(LiteralOf("'a' 'b' \"c\""), (Literal{LiteralKind::kString, "abc"}));
  // A lone double-quoted string keeps how it was written: a name for PostgreSQL clients.
  EXPECT_EQ(LiteralOf("\"x\""), (Literal{LiteralKind::kString, "x", true}));
  EXPECT_EQ(CanonicalExpr("\"a\\\"b\""), "\"a\\\"b\"");
  EXPECT_EQ(LiteralOf("NULL"), (Literal{LiteralKind::kNull, ""}));
  EXPECT_EQ(LiteralOf("true"), (Literal{LiteralKind::kBoolean, "true"}));
  EXPECT_EQ(LiteralOf("FALSE"), (Literal{LiteralKind::kBoolean, "false"}));
  EXPECT_EQ(LiteralOf("DATE '2025-06-15'"), (Literal{LiteralKind::kDate, "2025-06-15"}));
  EXPECT_EQ(LiteralOf("TIMESTAMP '2025-06-15 15:00:00'"),
            (Literal{LiteralKind::kTimestamp, "2025-06-15 15:00:00"}));
  EXPECT_EQ(LiteralOf("timestamp '2025-06-15 15:00:00 UTC'"),
            (Literal{LiteralKind::kTimestamp, "2025-06-15 15:00:00 UTC"}));
  EXPECT_EQ(LiteralOf("TIMESTAMP_NTZ '2025-06-15 15:00:00'"),
            (Literal{LiteralKind::kTimestampNtz, "2025-06-15 15:00:00"}));
  EXPECT_EQ(LiteralOf("TIMESTAMP_LTZ '2025-06-15'"),
            (Literal{LiteralKind::kTimestampLtz, "2025-06-15"}));
  EXPECT_EQ(LiteralOf("X'0aFF'"), (Literal{LiteralKind::kBinary, "0aFF"}));
  EXPECT_EQ(CanonicalExpr("'it''s \\\\ a\\nb'"), "'it\\'s \\\\ a\\nb'");
  EXPECT_EQ(CanonicalExpr("timestamp '2025-06-15'"), "TIMESTAMP '2025-06-15'");
  EXPECT_EQ(CanonicalExpr("x'0a'"), "X'0a'");
}

TEST(ExpressionTest, Intervals) {
  ASSERT_OK_AND_ASSIGN(Expr e, ParseExpression("INTERVAL '1' DAY"));
  ASSERT_TRUE(e.Is<IntervalLiteral>());
  EXPECT_EQ(e.As<IntervalLiteral>()->fields,
            (std::vector<IntervalField>{{"1", true, "DAY", ""}}));
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("interval 3 hours 15 minutes"));
  EXPECT_EQ(e.As<IntervalLiteral>()->fields,
            (std::vector<IntervalField>{{"3", false, "HOUR", ""}, {"15", false, "MINUTE", ""}}));
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("INTERVAL '1-2' YEAR TO MONTH"));
  EXPECT_EQ(e.As<IntervalLiteral>()->fields,
            (std::vector<IntervalField>{{"1-2", true, "YEAR", "MONTH"}}));
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("INTERVAL '1 day 2 hours'"));
  EXPECT_EQ(e.As<IntervalLiteral>()->fields,
            (std::vector<IntervalField>{{"1 day 2 hours", true, "", ""}}));
  EXPECT_EQ(CanonicalExpr("current_timestamp() - INTERVAL -1 DAYS"),
            "current_timestamp() - INTERVAL -1 DAY");
  EXPECT_EQ(CanonicalExpr("INTERVAL '1' DAY + INTERVAL '2' HOUR"),
            "INTERVAL '1' DAY + INTERVAL '2' HOUR");
}

TEST(ExpressionTest, NamesAndStars) {
  ASSERT_OK_AND_ASSIGN(Expr e, ParseExpression("cur.order_id"));
  ASSERT_TRUE(e.Is<ColumnRef>());
  ASSERT_EQ(e.As<ColumnRef>()->parts.size(), 2u);
  EXPECT_EQ(e.As<ColumnRef>()->parts[0].name, "cur");
  EXPECT_EQ(e.As<ColumnRef>()->parts[1].name, "order_id");
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("`weird name`.`a``b`"));
  EXPECT_EQ(e.As<ColumnRef>()->parts[0].name, "weird name");
  EXPECT_TRUE(e.As<ColumnRef>()->parts[0].quoted);
  EXPECT_EQ(e.As<ColumnRef>()->parts[1].name, "a`b");
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("t.*"));
  ASSERT_TRUE(e.Is<Star>());
  EXPECT_EQ(e.As<Star>()->qualifier.size(), 1u);
  // Keywords that are not reserved are names.
  EXPECT_EQ(CanonicalExpr("version + timestamp + date"), "version + timestamp + date");
  EXPECT_EQ(CanonicalExpr("`select`.`order`"), "`select`.`order`");
  EXPECT_EQ(CanonicalExpr("t.order"), "t.`order`");
  EXPECT_EQ(CanonicalExpr("`current_date`"), "`current_date`");
  EXPECT_EQ(CanonicalExpr("current_date"), "current_date()");
  EXPECT_EQ(CanonicalExpr("`a b`"), "`a b`");
  EXPECT_EQ(CanonicalExpr("имя"), "`имя`");
}

TEST(ExpressionTest, Precedence) {
  EXPECT_EQ(TreeOf("a OR b AND c"), "(a OR (b AND c))");
  EXPECT_EQ(TreeOf("a AND b OR c AND d"), "((a AND b) OR (c AND d))");
  EXPECT_EQ(TreeOf("NOT a AND b"), "((NOT a) AND b)");
  EXPECT_EQ(TreeOf("NOT a = b"), "(NOT (a = b))");
  EXPECT_EQ(TreeOf("NOT NOT a"), "(NOT (NOT a))");
  EXPECT_EQ(TreeOf("a = 1 OR b <> 2 AND c != 3"), "((a = 1) OR ((b <> 2) AND (c <> 3)))");
  EXPECT_EQ(TreeOf("a + b * c"), "(a + (b * c))");
  EXPECT_EQ(TreeOf("(a + b) * c"), "((a + b) * c)");
  EXPECT_EQ(TreeOf("a - b - c"), "((a - b) - c)");
  EXPECT_EQ(TreeOf("a - (b - c)"), "(a - (b - c))");
  EXPECT_EQ(TreeOf("a / b % c DIV d"), "(((a / b) % c) DIV d)");
  EXPECT_EQ(TreeOf("a || b + c"), "((a || b) + c)");
  EXPECT_EQ(TreeOf("a || b * c"), "(a || (b * c))");
  EXPECT_EQ(TreeOf("-a * b"), "((- a) * b)");
  EXPECT_EQ(TreeOf("-a.b"), "(- a.b)");
  EXPECT_EQ(TreeOf("a + b = c * d"), "((a + b) = (c * d))");
  EXPECT_EQ(TreeOf("a < b = c"), "((a < b) = c)");
  EXPECT_EQ(TreeOf("a = b IS NULL"), "((a = b) IS NULL)");
  EXPECT_EQ(TreeOf("a IS NOT NULL AND b IS NULL"), "((a IS NOT NULL) AND (b IS NULL))");
  EXPECT_EQ(TreeOf("NOT a IS NULL"), "(NOT (a IS NULL))");
  EXPECT_EQ(TreeOf("a + 1 BETWEEN b AND c + 1 AND d"),
            "(((a + 1) BETWEEN b AND (c + 1)) AND d)");
  EXPECT_EQ(TreeOf("a NOT BETWEEN 1 AND 2"), "(a NOT BETWEEN 1 AND 2)");
  EXPECT_EQ(TreeOf("a IN (1, 2) OR b NOT IN (3)"), "((a IN [1, 2]) OR (b NOT IN [3]))");
  EXPECT_EQ(TreeOf("a LIKE 'x%' AND b NOT LIKE 'y'"), "((a LIKE 'x%') AND (b NOT LIKE 'y'))");
  EXPECT_EQ(TreeOf("a | b ^ c & d + e"), "(a | (b ^ (c & (d + e))))");
  EXPECT_EQ(TreeOf("x::int + 1"), "(CAST(x AS INT) + 1)");
  EXPECT_EQ(TreeOf("-x::int"), "(- CAST(x AS INT))");
  EXPECT_EQ(TreeOf("summary['total-records']::bigint > 5"),
            "(CAST(summary['total-records'] AS BIGINT) > 5)");
  EXPECT_EQ(TreeOf("(a = 1) IS NULL"), "((a = 1) IS NULL)");
  EXPECT_EQ(TreeOf("(a IS NULL) IS NULL"), "((a IS NULL) IS NULL)");
  EXPECT_EQ(TreeOf("a = (b = c)"), "(a = (b = c))");
  EXPECT_EQ(TreeOf("(a OR b) AND c"), "((a OR b) AND c)");
  EXPECT_EQ(TreeOf("a IS DISTINCT FROM b + 1"), "(a IS DISTINCT FROM (b + 1))");
  EXPECT_EQ(TreeOf("a IS NOT DISTINCT FROM b"), "(a <=> b)");
  // The printer adds only the parentheses the structure needs.
  EXPECT_EQ(CanonicalExpr("((a + b)) * (c)"), "(a + b) * c");
  EXPECT_EQ(CanonicalExpr("a == b AND (c OR d)"), "a = b AND (c OR d)");
  EXPECT_EQ(CanonicalExpr("a - (b - c) - d"), "a - (b - c) - d");
  EXPECT_EQ(CanonicalExpr("NOT (a AND b)"), "NOT (a AND b)");
  EXPECT_EQ(CanonicalExpr("(a + b) IN (1)"), "a + b IN (1)");
  EXPECT_EQ(CanonicalExpr("(a AND b) IN (true)"), "(a AND b) IN (TRUE)");
}

TEST(ExpressionTest, Predicates) {
  ASSERT_OK_AND_ASSIGN(Expr e, ParseExpression("name NOT ILIKE 'a!%%' ESCAPE '!'"));
  const Like* like = e.As<Like>();
  ASSERT_NE(like, nullptr);
  EXPECT_EQ(like->kind, LikeKind::kILike);
  EXPECT_TRUE(like->negated);
  ASSERT_TRUE(like->escape);
  EXPECT_EQ(CanonicalExpr("name NOT ILIKE 'a!%%' ESCAPE '!'"), "name NOT ILIKE 'a!%%' ESCAPE '!'");
  EXPECT_EQ(CanonicalExpr("name rlike '^a' OR name regexp 'b'"), "name RLIKE '^a' OR name RLIKE 'b'");
  EXPECT_EQ(CanonicalExpr("flag IS NOT TRUE"), "flag IS NOT TRUE");
  EXPECT_EQ(CanonicalExpr("flag is unknown"), "flag IS UNKNOWN");
  EXPECT_EQ(CanonicalExpr("a <=> b"), "a <=> b");
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("id IN (SELECT id FROM t WHERE x > 1)"));
  ASSERT_TRUE(e.Is<InSubquery>());
  EXPECT_FALSE(e.As<InSubquery>()->negated);
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("id NOT IN (SELECT id FROM t)"));
  EXPECT_TRUE(e.As<InSubquery>()->negated);
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("NOT EXISTS (SELECT 1 FROM t WHERE t.a = b)"));
  ASSERT_TRUE(e.Is<Unary>());
  EXPECT_TRUE(e.As<Unary>()->operand->Is<Exists>());
  EXPECT_EQ(CanonicalExpr("NOT EXISTS (SELECT 1 FROM t)"), "NOT EXISTS (SELECT 1 FROM t)");
  EXPECT_EQ(CanonicalExpr("x IN (SELECT a FROM t UNION SELECT b FROM u)"),
            "x IN (SELECT a FROM t UNION SELECT b FROM u)");
}

TEST(ExpressionTest, CaseCastFunctions) {
  EXPECT_EQ(CanonicalExpr("case when a > 1 then 'x' when a is null then 'n' else 'y' end"),
            "CASE WHEN a > 1 THEN 'x' WHEN a IS NULL THEN 'n' ELSE 'y' END");
  EXPECT_EQ(CanonicalExpr("CASE status WHEN 'a' THEN 1 END"), "CASE status WHEN 'a' THEN 1 END");
  ASSERT_OK_AND_ASSIGN(Expr e, ParseExpression("CASE status WHEN 'a' THEN 1 END"));
  EXPECT_TRUE(e.As<Case>()->operand);
  EXPECT_FALSE(e.As<Case>()->else_result);
  EXPECT_EQ(CanonicalExpr("cast(updated_at as date)"), "CAST(updated_at AS DATE)");
  EXPECT_EQ(CanonicalExpr("try_cast(x as decimal(18, 2))"), "TRY_CAST(x AS DECIMAL(18, 2))");
  EXPECT_EQ(CanonicalExpr("x::decimal(18,2)"), "CAST(x AS DECIMAL(18, 2))");
  EXPECT_EQ(CanonicalExpr("COUNT(*)"), "COUNT(*)");
  EXPECT_EQ(CanonicalExpr("count(DISTINCT a, b)"), "count(DISTINCT a, b)");
  EXPECT_EQ(CanonicalExpr("count(ALL a)"), "count(a)");
  EXPECT_EQ(CanonicalExpr("current_timestamp()"), "current_timestamp()");
  EXPECT_EQ(CanonicalExpr("CURRENT_TIMESTAMP"), "CURRENT_TIMESTAMP()");
  EXPECT_EQ(CanonicalExpr("coalesce(a, b, 0)"), "coalesce(a, b, 0)");
  EXPECT_EQ(CanonicalExpr("left(s, 2) || right(s, 1)"), "left(s, 2) || right(s, 1)");
  EXPECT_EQ(CanonicalExpr("date_trunc('DAY', ts)"), "date_trunc('DAY', ts)");
  EXPECT_EQ(CanonicalExpr("system.bucket(16, id)"), "system.bucket(16, id)");
  EXPECT_EQ(CanonicalExpr("date(ts)"), "date(ts)");
  EXPECT_EQ(CanonicalExpr("timestamp(ts)"), "timestamp(ts)");
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("count(*)"));
  const FunctionCall* call = e.As<FunctionCall>();
  ASSERT_NE(call, nullptr);
  EXPECT_TRUE(call->star);
  EXPECT_EQ(call->name.parts[0].name, "count");
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("count(DISTINCT x)"));
  EXPECT_TRUE(e.As<FunctionCall>()->distinct);
}

TEST(ExpressionTest, SubscriptsFieldsAndSubqueries) {
  ASSERT_OK_AND_ASSIGN(Expr e, ParseExpression("summary['total-records']"));
  const Subscript* s = e.As<Subscript>();
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->base->Is<ColumnRef>());
  EXPECT_EQ(*s->index->As<Literal>(), (Literal{LiteralKind::kString, "total-records"}));
  EXPECT_EQ(CanonicalExpr("arr[0].field.sub"), "arr[0].field.sub");
  EXPECT_EQ(CanonicalExpr("(s).field"), "(s).field");
  EXPECT_EQ(CanonicalExpr("f(x).a"), "f(x).a");
  EXPECT_EQ(CanonicalExpr("m['k']['j']"), "m['k']['j']");
  ASSERT_OK_AND_ASSIGN(e, ParseExpression("(SELECT max(snapshot_id) FROM t.snapshots) + 1"));
  ASSERT_TRUE(e.Is<Binary>());
  EXPECT_TRUE(e.As<Binary>()->left->Is<ScalarSubquery>());
  EXPECT_EQ(CanonicalExpr("((SELECT 1) + 1)"), "(SELECT 1) + 1");
  EXPECT_EQ(CanonicalExpr("((SELECT 1) UNION (SELECT 2))"), "(SELECT 1 UNION SELECT 2)");
}

TEST(ExpressionTest, DataTypes) {
  auto type_sql = [](std::string_view sql) -> std::string {
    auto t = ParseDataType(sql);
    if (!t.ok()) return "ERROR: " + t.status().message();
    return ToSql(*t);
  };
  EXPECT_EQ(type_sql("boolean"), "BOOLEAN");
  EXPECT_EQ(type_sql("tinyint"), "TINYINT");
  EXPECT_EQ(type_sql("byte"), "TINYINT");
  EXPECT_EQ(type_sql("smallint"), "SMALLINT");
  EXPECT_EQ(type_sql("short"), "SMALLINT");
  EXPECT_EQ(type_sql("int"), "INT");
  EXPECT_EQ(type_sql("integer"), "INT");
  EXPECT_EQ(type_sql("bigint"), "BIGINT");
  EXPECT_EQ(type_sql("long"), "BIGINT");
  EXPECT_EQ(type_sql("float"), "FLOAT");
  EXPECT_EQ(type_sql("real"), "FLOAT");
  EXPECT_EQ(type_sql("double"), "DOUBLE");
  EXPECT_EQ(type_sql("decimal"), "DECIMAL");
  EXPECT_EQ(type_sql("decimal(18,2)"), "DECIMAL(18, 2)");
  EXPECT_EQ(type_sql("numeric(10)"), "DECIMAL(10)");
  EXPECT_EQ(type_sql("string"), "STRING");
  EXPECT_EQ(type_sql("varchar(20)"), "VARCHAR(20)");
  EXPECT_EQ(type_sql("char(3)"), "CHAR(3)");
  EXPECT_EQ(type_sql("binary"), "BINARY");
  EXPECT_EQ(type_sql("date"), "DATE");
  EXPECT_EQ(type_sql("timestamp"), "TIMESTAMP");
  EXPECT_EQ(type_sql("timestamp_ntz"), "TIMESTAMP_NTZ");
  EXPECT_EQ(type_sql("timestamp_ltz"), "TIMESTAMP_LTZ");
  EXPECT_EQ(type_sql("timestamp with time zone"), "TIMESTAMP_LTZ");
  EXPECT_EQ(type_sql("timestamp without time zone"), "TIMESTAMP_NTZ");
  EXPECT_EQ(type_sql("array<int>"), "ARRAY<INT>");
  EXPECT_EQ(type_sql("map<string,array<bigint>>"), "MAP<STRING, ARRAY<BIGINT>>");
  EXPECT_EQ(type_sql("struct<a: int not null comment 'x', `b c` string, d map<int,int>>"),
            "STRUCT<a: INT NOT NULL COMMENT 'x', `b c`: STRING, d: MAP<INT, INT>>");
  EXPECT_EQ(type_sql("struct<>"), "STRUCT<>");
  ASSERT_OK_AND_ASSIGN(DataType t, ParseDataType("decimal(18, 2)"));
  EXPECT_EQ(t.kind, TypeKind::kDecimal);
  EXPECT_EQ(t.precision, 18);
  EXPECT_EQ(t.scale, 2);
  EXPECT_EQ(type_sql("geometry"),
            "ERROR: Syntax error at or near 'geometry': unknown data type (line 1, column 1)\n"
            "geometry\n"
            "^");
}

}  // namespace
}  // namespace floe::sql
