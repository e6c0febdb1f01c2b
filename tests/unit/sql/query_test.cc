// Queries: SELECT clauses, FROM items and joins, set operations, WITH, VALUES, and the
// time-travel clause of table references.

#include "sql_test_util.h"

namespace floe::sql {
namespace {

using testing::Canonical;
using testing::RoundTrip;

const Query& QueryOf(const Statement& s) { return std::get<Query>(s.node); }
const Select& SelectOf(const Statement& s) { return std::get<Select>(QueryOf(s).body); }

TEST(QueryTest, SelectClauses) {
  ASSERT_OK_AND_ASSIGN(
      Statement s,
      RoundTrip("select distinct a, b as bee, c cee, t.* from t where a > 1 group by a, b "
                "having count(*) > 2 order by a desc nulls last, b asc, c nulls first "
                "limit 10 offset 5"));
  const Select& select = SelectOf(s);
  EXPECT_TRUE(select.distinct);
  ASSERT_EQ(select.items.size(), 4u);
  EXPECT_FALSE(select.items[0].alias);
  EXPECT_EQ(select.items[1].alias->name, "bee");
  EXPECT_EQ(select.items[2].alias->name, "cee");
  EXPECT_TRUE(select.items[3].expr.Is<Star>());
  EXPECT_TRUE(select.where);
  EXPECT_EQ(select.group_by.size(), 2u);
  EXPECT_TRUE(select.having);
  const Query& q = QueryOf(s);
  ASSERT_EQ(q.order_by.size(), 3u);
  EXPECT_FALSE(q.order_by[0].ascending);
  EXPECT_EQ(q.order_by[0].nulls, NullsOrder::kLast);
  EXPECT_TRUE(q.order_by[1].ascending);
  EXPECT_EQ(q.order_by[1].nulls, NullsOrder::kDefault);
  EXPECT_EQ(q.order_by[2].nulls, NullsOrder::kFirst);
  EXPECT_EQ(ToSql(*q.limit), "10");
  EXPECT_EQ(ToSql(*q.offset), "5");
  EXPECT_EQ(ToSql(s),
            "SELECT DISTINCT a, b AS bee, c AS cee, t.* FROM t WHERE a > 1 GROUP BY a, b "
            "HAVING count(*) > 2 ORDER BY a DESC NULLS LAST, b, c NULLS FIRST LIMIT 10 OFFSET 5");
  EXPECT_EQ(Canonical("SELECT 1"), "SELECT 1");
  EXPECT_EQ(Canonical("SELECT ALL a FROM t OFFSET 3 LIMIT 2"), "SELECT a FROM t LIMIT 2 OFFSET 3");
  EXPECT_EQ(Canonical("SELECT a AS \"x y\" FROM t"), "SELECT a AS `x y` FROM t");
  EXPECT_EQ(Canonical("SELECT a FROM t LIMIT ALL"), "SELECT a FROM t");
}

TEST(QueryTest, FromItems) {
  ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip("SELECT * FROM lakehouse.gold.report r, range(10), "
                                              "range(1, 10) AS g(id), (SELECT 1 AS x) sub"));
  const Select& select = SelectOf(s);
  ASSERT_EQ(select.from.size(), 4u);
  const TableRef* t = select.from[0].As<TableRef>();
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->name.parts.size(), 3u);
  EXPECT_EQ(t->name.parts[2].name, "report");
  EXPECT_EQ(t->alias->name.name, "r");
  const TableFunctionRef* fn = select.from[1].As<TableFunctionRef>();
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->name.parts[0].name, "range");
  EXPECT_EQ(fn->args.size(), 1u);
  const TableFunctionRef* fn2 = select.from[2].As<TableFunctionRef>();
  ASSERT_NE(fn2, nullptr);
  EXPECT_EQ(fn2->args.size(), 2u);
  EXPECT_EQ(fn2->alias->columns.size(), 1u);
  const SubqueryRef* sub = select.from[3].As<SubqueryRef>();
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->alias->name.name, "sub");
  EXPECT_EQ(ToSql(s),
            "SELECT * FROM lakehouse.gold.report AS r, range(10), range(1, 10) AS g(id), "
            "(SELECT 1 AS x) AS sub");
  // Metadata tables and refs stay name parts, exactly as written.
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SELECT * FROM \"t$snapshots\" JOIN db.\"orders$history\" h ON true"));
  const Join* join = SelectOf(s).from[0].As<Join>();
  ASSERT_NE(join, nullptr);
  EXPECT_EQ(join->left->As<TableRef>()->name.parts[0].name, "t$snapshots");
  EXPECT_TRUE(join->left->As<TableRef>()->name.parts[0].quoted);
  EXPECT_EQ(join->right->As<TableRef>()->name.parts[1].name, "orders$history");
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SELECT * FROM db.t.branch_audit, db.t.snapshot_id_123, "
                                    "db.t.`tag_q2-2024`, cat.db.t.at_timestamp_1718000000000"));
  EXPECT_EQ(SelectOf(s).from[0].As<TableRef>()->name.parts[2].name, "branch_audit");
  EXPECT_EQ(SelectOf(s).from[1].As<TableRef>()->name.parts[2].name, "snapshot_id_123");
  EXPECT_EQ(SelectOf(s).from[2].As<TableRef>()->name.parts[2].name, "tag_q2-2024");
  EXPECT_EQ(SelectOf(s).from[3].As<TableRef>()->name.parts.size(), 4u);
  // Inline tables.
  EXPECT_EQ(Canonical("SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(id, name)"),
            "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t(id, name)");
  EXPECT_EQ(Canonical("SELECT * FROM (VALUES 1, 2) v"), "SELECT * FROM (VALUES (1), (2)) AS v");
}

TEST(QueryTest, Joins) {
  struct Case {
    const char* sql;
    JoinKind kind;
    const char* canonical;
  };
  const Case cases[] = {
      {"a JOIN b ON a.x = b.x", JoinKind::kInner, "a JOIN b ON a.x = b.x"},
      {"a INNER JOIN b USING (x, y)", JoinKind::kInner, "a JOIN b USING (x, y)"},
      {"a LEFT JOIN b ON true", JoinKind::kLeft, "a LEFT JOIN b ON TRUE"},
      {"a LEFT OUTER JOIN b ON true", JoinKind::kLeft, "a LEFT JOIN b ON TRUE"},
      {"a RIGHT OUTER JOIN b ON true", JoinKind::kRight, "a RIGHT JOIN b ON TRUE"},
      {"a FULL JOIN b ON true", JoinKind::kFull, "a FULL OUTER JOIN b ON TRUE"},
      {"a FULL OUTER JOIN b ON true", JoinKind::kFull, "a FULL OUTER JOIN b ON TRUE"},
      {"a CROSS JOIN b", JoinKind::kCross, "a CROSS JOIN b"},
      {"a LEFT SEMI JOIN b ON a.x = b.x", JoinKind::kLeftSemi, "a LEFT SEMI JOIN b ON a.x = b.x"},
      {"a SEMI JOIN b ON true", JoinKind::kLeftSemi, "a LEFT SEMI JOIN b ON TRUE"},
      {"a LEFT ANTI JOIN b ON true", JoinKind::kLeftAnti, "a LEFT ANTI JOIN b ON TRUE"},
      {"a ANTI JOIN b ON true", JoinKind::kLeftAnti, "a LEFT ANTI JOIN b ON TRUE"},
  };
  for (const Case& c : cases) {
    std::string sql = std::string("SELECT * FROM ") + c.sql;
    ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip(sql));
    const Join* join = SelectOf(s).from[0].As<Join>();
    ASSERT_NE(join, nullptr) << sql;
    EXPECT_EQ(join->kind, c.kind) << sql;
    EXPECT_EQ(ToSql(s), std::string("SELECT * FROM ") + c.canonical);
  }
  // Joins chain to the left; a parenthesized join on the right keeps its parentheses.
  ASSERT_OK_AND_ASSIGN(Statement s,
                       RoundTrip("SELECT * FROM a JOIN b ON a.x = b.x LEFT JOIN c ON b.y = c.y"));
  const Join* top = SelectOf(s).from[0].As<Join>();
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->kind, JoinKind::kLeft);
  EXPECT_NE(top->left->As<Join>(), nullptr);
  EXPECT_EQ(Canonical("SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.x = b.x"),
            "SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.x = b.x");
  EXPECT_EQ(Canonical("SELECT * FROM ((a JOIN b ON true))"), "SELECT * FROM a JOIN b ON TRUE");
  EXPECT_EQ(Canonical("SELECT * FROM a NATURAL JOIN b"), "SELECT * FROM a NATURAL JOIN b");
}

TEST(QueryTest, SetOperationsAndParentheses) {
  ASSERT_OK_AND_ASSIGN(Statement s,
                       RoundTrip("SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1 LIMIT 3"));
  const Query& q = QueryOf(s);
  const SetOperation* op = q.As<SetOperation>();
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->kind, SetOpKind::kUnion);
  EXPECT_TRUE(op->all);
  EXPECT_EQ(q.order_by.size(), 1u);  // on the union, not on its last SELECT
  EXPECT_TRUE(op->right->order_by.empty());
  // INTERSECT binds tighter than UNION and EXCEPT.
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3 EXCEPT SELECT 4"));
  const SetOperation* top = QueryOf(s).As<SetOperation>();
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->kind, SetOpKind::kExcept);
  const SetOperation* left = top->left->As<SetOperation>();
  ASSERT_NE(left, nullptr);
  EXPECT_EQ(left->kind, SetOpKind::kUnion);
  EXPECT_EQ(left->right->As<SetOperation>()->kind, SetOpKind::kIntersect);
  EXPECT_EQ(Canonical("SELECT 1 UNION (SELECT 2 UNION SELECT 3)"),
            "SELECT 1 UNION (SELECT 2 UNION SELECT 3)");
  EXPECT_EQ(Canonical("(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3"),
            "(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3");
  EXPECT_EQ(Canonical("SELECT 1 UNION DISTINCT SELECT 2 MINUS SELECT 3"),
            "SELECT 1 UNION SELECT 2 EXCEPT SELECT 3");
  // Parentheses that carry their own ORDER BY / LIMIT stay; others go.
  EXPECT_EQ(Canonical("((SELECT a FROM t)) ORDER BY a"), "SELECT a FROM t ORDER BY a");
  EXPECT_EQ(Canonical("(SELECT a FROM t ORDER BY a LIMIT 1) UNION SELECT 2"),
            "(SELECT a FROM t ORDER BY a LIMIT 1) UNION SELECT 2");
  EXPECT_EQ(Canonical("(SELECT a FROM t LIMIT 5) ORDER BY a"),
            "(SELECT a FROM t LIMIT 5) ORDER BY a");
  EXPECT_EQ(Canonical("VALUES (1, 2), (3, 4)"), "VALUES (1, 2), (3, 4)");
}

TEST(QueryTest, With) {
  ASSERT_OK_AND_ASSIGN(Statement s,
                       RoundTrip("WITH a AS (SELECT 1 AS x), b (y) AS (SELECT x FROM a) "
                                 "SELECT * FROM b"));
  const Query& q = QueryOf(s);
  ASSERT_EQ(q.with.size(), 2u);
  EXPECT_EQ(q.with[0].name.name, "a");
  EXPECT_EQ(q.with[1].columns.size(), 1u);
  EXPECT_EQ(ToSql(s), "WITH a AS (SELECT 1 AS x), b (y) AS (SELECT x FROM a) SELECT * FROM b");
  EXPECT_EQ(Canonical("WITH a AS (SELECT 1) (WITH b AS (SELECT 2) SELECT * FROM b)"),
            "WITH a AS (SELECT 1) (WITH b AS (SELECT 2) SELECT * FROM b)");
}

// Every spelling of the time-travel clause, and the clause wherever a table can stand.
TEST(QueryTest, TimeTravelForms) {
  struct Case {
    const char* clause;
    TimeTravelKind kind;
    bool for_prefix;
    bool system;
  };
  const Case cases[] = {
      {"VERSION AS OF 5847203991234567890", TimeTravelKind::kVersion, false, false},
      {"VERSION AS OF 'audit-2024-q2'", TimeTravelKind::kVersion, false, false},
      {"FOR SYSTEM_VERSION AS OF 5847203991234567890", TimeTravelKind::kVersion, true, true},
      {"SYSTEM_VERSION AS OF 1", TimeTravelKind::kVersion, false, true},
      {"FOR VERSION AS OF 1", TimeTravelKind::kVersion, true, false},
      {"TIMESTAMP AS OF '2025-06-15 15:00:00'", TimeTravelKind::kTimestamp, false, false},
      {"TIMESTAMP AS OF TIMESTAMP '2025-06-15 15:00:00'", TimeTravelKind::kTimestamp, false, false},
      {"FOR SYSTEM_TIME AS OF '2025-06-15 15:00:00'", TimeTravelKind::kTimestamp, true, true},
      {"FOR TIMESTAMP AS OF TIMESTAMP '2025-06-15 15:00:00 UTC'", TimeTravelKind::kTimestamp, true,
       false},
      {"TIMESTAMP AS OF current_timestamp() - INTERVAL 1 DAY", TimeTravelKind::kTimestamp, false,
       false},
  };
  for (const Case& c : cases) {
    for (const char* alias : {"", " AS old", " old"}) {
      std::string sql = std::string("SELECT * FROM lakehouse.analytics.orders ") + c.clause + alias;
      ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip(sql));
      const TableRef* t = SelectOf(s).from[0].As<TableRef>();
      ASSERT_NE(t, nullptr) << sql;
      ASSERT_TRUE(t->time_travel) << sql;
      EXPECT_EQ(t->time_travel->kind, c.kind) << sql;
      EXPECT_EQ(t->time_travel->for_prefix, c.for_prefix) << sql;
      EXPECT_EQ(t->time_travel->system, c.system) << sql;
      EXPECT_EQ(t->alias.has_value(), alias[0] != '\0') << sql;
      EXPECT_EQ(t->time_travel->pos.column, 42) << sql;
    }
  }
  ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip("SELECT * FROM t VERSION AS OF 5847203991234567890"));
  const TableRef* t = SelectOf(s).from[0].As<TableRef>();
  EXPECT_EQ(*t->time_travel->value.As<Literal>(),
            (Literal{LiteralKind::kInteger, "5847203991234567890"}));
  ASSERT_OK_AND_ASSIGN(s, RoundTrip("SELECT * FROM t VERSION AS OF 'audit-2024-q2'"));
  t = SelectOf(s).from[0].As<TableRef>();
  EXPECT_EQ(*t->time_travel->value.As<Literal>(), (Literal{LiteralKind::kString, "audit-2024-q2"}));
  // A table called version / timestamp is still a table, and a time-travel word is not an
  // alias.
  EXPECT_EQ(Canonical("SELECT * FROM version"), "SELECT * FROM version");
  EXPECT_EQ(Canonical("SELECT * FROM t timestamp"), "SELECT * FROM t AS timestamp");
  EXPECT_EQ(Canonical("SELECT * FROM t FOR VERSION AS OF 1 x"),
            "SELECT * FROM t FOR VERSION AS OF 1 AS x");
}

TEST(QueryTest, TimeTravelEverywhere) {
  const char* const queries[] = {
      // self-join diff, the audit query of the rollback story
      "SELECT cur.a, old.a FROM t cur JOIN t VERSION AS OF 9001 AS old ON cur.k = old.k",
      "SELECT * FROM t FOR SYSTEM_TIME AS OF '2025-06-08' a LEFT JOIN t FOR SYSTEM_VERSION AS OF "
      "1 b ON a.k = b.k",
      // subquery in FROM, IN, EXISTS and scalar positions
      "SELECT * FROM (SELECT * FROM t TIMESTAMP AS OF '2025-06-08 00:00:00') s",
      "SELECT * FROM t WHERE k IN (SELECT k FROM t VERSION AS OF 1)",
      "SELECT * FROM t WHERE EXISTS (SELECT 1 FROM u FOR VERSION AS OF 2 WHERE u.k = t.k)",
      "SELECT (SELECT count(*) FROM t VERSION AS OF 3) AS n",
      // CTEs and set operations
      "WITH old AS (SELECT * FROM t VERSION AS OF 1) SELECT * FROM t EXCEPT SELECT * FROM old",
      "SELECT * FROM t VERSION AS OF 1 UNION ALL SELECT * FROM t VERSION AS OF 2",
      // metadata tables of an old snapshot
      "SELECT * FROM lakehouse.db.t.files VERSION AS OF 1",
      "SELECT * FROM \"t$files\" FOR VERSION AS OF 1",
  };
  for (const char* sql : queries) {
    ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip(sql));
    EXPECT_NE(ToSql(s).find(" AS OF "), std::string::npos) << sql;
  }
  // In statements that read: CTAS, INSERT ... SELECT, MERGE sources.
  for (const char* sql : {
           "CREATE TABLE c AS SELECT * FROM t VERSION AS OF 1",
           "CREATE OR REPLACE TABLE c AS SELECT * FROM t TIMESTAMP AS OF '2025-01-01'",
           "INSERT INTO c SELECT * FROM t FOR VERSION AS OF 1",
           "INSERT OVERWRITE c SELECT * FROM t FOR TIMESTAMP AS OF TIMESTAMP '2025-01-01 UTC'",
           "MERGE INTO c USING t VERSION AS OF 1 s ON c.k = s.k WHEN MATCHED THEN DELETE",
           "EXPLAIN SELECT * FROM t VERSION AS OF 1",
       }) {
    ASSERT_OK_AND_ASSIGN(Statement s, RoundTrip(sql));
    EXPECT_NE(ToSql(s).find(" AS OF "), std::string::npos) << sql;
  }
}

}  // namespace
}  // namespace floe::sql
