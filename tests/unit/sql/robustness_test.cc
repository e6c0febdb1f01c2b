// Inputs that once exhausted the stack or threw out of the engine: long IN lists, deep
// expression trees and long set-operation chains. Each gives its result or a clear error.

#include <string>

#include <gtest/gtest.h>

#include "session_fixture.h"

namespace floe::sql::testing {
namespace {

class RobustnessTest : public SessionFixture {
 protected:
  // "first, first + step, ..." n items.
  static std::string Items(int64_t n, int64_t first = 0, int64_t step = 1) {
    std::string out;
    for (int64_t i = 0; i < n; ++i) out += (i ? ", " : "") + std::to_string(first + i * step);
    return out;
  }
  static std::string Repeat(const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
  }
};

TEST_F(RobustnessTest, InListsOfTenAndAHundredThousandItems) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.t (id BIGINT) USING iceberg");
  Ok("INSERT INTO db.t SELECT id FROM range(30000)");
  // Even numbers below 20,000: 10,000 items, of which every one is in the table.
  EXPECT_EQ(Value("SELECT count(*) FROM db.t WHERE id IN (" + Items(10000, 0, 2) + ")"), "10000");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t WHERE id NOT IN (" + Items(10000, 0, 2) + ")"), "20000");
  // 100,000 items from 25,000 on: 5,000 rows of the table fall in.
  EXPECT_EQ(Value("SELECT count(*) FROM db.t WHERE id IN (" + Items(100000, 25000) + ")"), "5000");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t WHERE id NOT IN (" + Items(100000, 25000) + ")"), "25000");
  // A NULL in the list: a non-match is NULL, so NOT IN keeps nothing; a match is still true.
  EXPECT_EQ(Value("SELECT count(*) FROM db.t WHERE id IN (" + Items(10000, 0, 2) + ", NULL)"), "10000");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t WHERE id NOT IN (" + Items(10000, 0, 2) + ", NULL)"), "0");
  // Items of mixed literal types (INT and BIGINT) against a BIGINT column.
  EXPECT_EQ(Value("SELECT count(*) FROM db.t WHERE id IN (" + Items(10000) + ", 9999999999)"), "10000");
  // A long list of non-constant items still plans, as a balanced tree of comparisons.
  std::string exprs;
  for (int i = 0; i < 2000; ++i) exprs += (i ? ", id + " : "id + ") + std::to_string(i + 1);
  EXPECT_EQ(Value("SELECT count(*) FROM db.t WHERE 5 IN (" + exprs + ")"), "5");
}

TEST_F(RobustnessTest, DeepInputsFailWithAClearErrorOrRun) {
  // 100,000 terms, parentheses and subqueries: the parser's depth limit stops them.
  EXPECT_NE(Error("SELECT 1" + Repeat(" + 1", 100000)).find("SQL nested too deeply"), std::string::npos);
  EXPECT_NE(Error("SELECT " + Repeat("(", 100000) + "1" + Repeat(")", 100000)).find("SQL nested too deeply"),
            std::string::npos);
  EXPECT_NE(Error("SELECT " + Repeat("(SELECT ", 100000) + "1" + Repeat(")", 100000)).find("SQL nested too deeply"),
            std::string::npos);
  EXPECT_NE(Error("SELECT 1 WHERE true" + Repeat(" AND true", 100000)).find("SQL nested too deeply"),
            std::string::npos);
  EXPECT_NE(Error("SELECT 1" + Repeat(" UNION ALL SELECT 1", 100000)).find("SQL nested too deeply"),
            std::string::npos);
  // The deepest the parser lets through plans and runs.
  EXPECT_EQ(Value("SELECT 1" + Repeat(" + 1", 2000)), "2001");
  EXPECT_EQ(Value("SELECT true" + Repeat(" AND true", 400) + Repeat(" OR false", 400)), "true");
  EXPECT_EQ(Value("SELECT " + Repeat("(", 120) + "7" + Repeat(")", 120)), "7");
  EXPECT_EQ(Value("SELECT " + Repeat("(SELECT ", 80) + "7" + Repeat(")", 80)), "7");
  EXPECT_EQ(Value("SELECT count(*) FROM (SELECT 1 AS x" + Repeat(" UNION ALL SELECT 1", 200) + ")"), "201");
  EXPECT_EQ(Value("SELECT count(*) FROM (SELECT 1 AS x" + Repeat(" UNION SELECT 1", 200) + ")"), "1");
}

}  // namespace
}  // namespace floe::sql::testing
