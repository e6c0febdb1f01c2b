// Statement parameters ($1, $2, ...): typed and untyped values wherever a literal may stand,
// errors for values not given, and Describe's shapes and parameter types.

#include <arrow/api.h>

#include "session_fixture.h"

namespace floe::sql {
namespace {

using ParametersTest = testing::SessionFixture;

Parameter Typed(std::shared_ptr<arrow::Scalar> value) { return Parameter{std::move(value), false}; }
Parameter Text(const std::string& text) {
  return Parameter{std::make_shared<arrow::StringScalar>(text), true};
}
Parameter Int(int32_t v) { return Typed(std::make_shared<arrow::Int32Scalar>(v)); }
Parameter Long(int64_t v) { return Typed(std::make_shared<arrow::Int64Scalar>(v)); }
Parameter Str(const std::string& v) { return Typed(std::make_shared<arrow::StringScalar>(v)); }

class ParametersFixture : public ParametersTest {
 protected:
  void SetUp() override {
    ParametersTest::SetUp();
    Ok("CREATE NAMESPACE db");
    Ok("CREATE TABLE db.t (id INT, name STRING, price DECIMAL(10, 2), day DATE) USING iceberg");
    Ok("INSERT INTO db.t VALUES (1, 'a', 1.50, DATE '2025-01-01'), (2, 'b', 2.25, DATE "
       "'2025-01-02'), "
       "(5, 'e', 9.99, DATE '2025-01-05')");
  }

  std::vector<std::string> Rows(const std::string& sql, const std::vector<Parameter>& params) {
    auto result = session_->Execute(sql, params);
    EXPECT_TRUE(result.ok()) << sql << "\n" << result.status().ToString();
    if (!result.ok() || !result->rows) return {};
    return Lines(*result->rows);
  }
  using ParametersTest::Rows;

  std::string Error(const std::string& sql, const std::vector<Parameter>& params) {
    auto result = session_->Execute(sql, params);
    EXPECT_FALSE(result.ok()) << sql << " succeeded";
    return result.ok() ? "" : result.status().message();
  }
  using ParametersTest::Error;
};

TEST_F(ParametersFixture, TypedValuesInWhereAndSelect) {
  EXPECT_EQ(Rows("SELECT name FROM db.t WHERE id = $1", {Int(2)}), std::vector<std::string>{"b"});
  EXPECT_EQ(Rows("SELECT id FROM db.t WHERE name = $1 OR id > $2 ORDER BY id", {Str("a"), Long(4)}),
            (std::vector<std::string>{"1", "5"}));
  // A value keeps its type: $1 + 1 on an int64 is a bigint, and the column's name is Spark's.
  auto result = session_->Execute("SELECT $1 + 1 AS v, $2 AS w",
                                  {Long(41), Typed(std::make_shared<arrow::DoubleScalar>(0.1))});
  ASSERT_OK(result.status());
  EXPECT_EQ(result->rows->schema()->field(0)->type()->ToString(), "int64");
  EXPECT_EQ(result->rows->schema()->field(1)->type()->ToString(), "double");
  EXPECT_EQ(Lines(*result->rows), std::vector<std::string>{"42|0.1"});
  // Decimals keep precision and scale; dates compare as dates.
  auto price =
      std::make_shared<arrow::Decimal128Scalar>(arrow::Decimal128(225), arrow::decimal128(10, 2));
  EXPECT_EQ(Rows("SELECT id FROM db.t WHERE price = $1", {Typed(price)}),
            std::vector<std::string>{"2"});
  EXPECT_EQ(Rows("SELECT id FROM db.t WHERE day > $1 ORDER BY id",
                 {Typed(std::make_shared<arrow::Date32Scalar>(20089))}),
            (std::vector<std::string>{"2", "5"}));
  // A typed NULL is NULL of its type.
  EXPECT_EQ(Rows("SELECT $1 IS NULL, typeof($1)", {Typed(arrow::MakeNullScalar(arrow::int32()))}),
            std::vector<std::string>{"true|int"});
}

TEST_F(ParametersFixture, UntypedValuesBindAsStringLiterals) {
  // id = '5' as Spark compares it.
  EXPECT_EQ(Rows("SELECT name FROM db.t WHERE id = $1", {Text("5")}),
            std::vector<std::string>{"e"});
  EXPECT_EQ(Rows("SELECT id FROM db.t WHERE day = $1", {Text("2025-01-02")}),
            std::vector<std::string>{"2"});
  EXPECT_EQ(Rows("SELECT $1, typeof($1)", {Text("it's")}), std::vector<std::string>{"it's|string"});
  // Text is never SQL: quotes and comments in it stay in the value.
  EXPECT_EQ(Rows("SELECT count(*) FROM db.t WHERE name = $1", {Text("a' OR '1' = '1")}),
            std::vector<std::string>{"0"});
}

TEST_F(ParametersFixture, InsertUpdateDeleteAndLimit) {
  auto inserted =
      session_->Execute("INSERT INTO db.t VALUES ($1, $2, $3, $4), ($5, 'g', NULL, NULL)",
                        {Int(6), Str("f"),
                         Typed(std::make_shared<arrow::Decimal128Scalar>(arrow::Decimal128(350),
                                                                         arrow::decimal128(10, 2))),
                         Typed(std::make_shared<arrow::Date32Scalar>(20120)), Int(7)});
  ASSERT_OK(inserted.status());
  EXPECT_EQ(inserted->command, "INSERT");
  EXPECT_EQ(inserted->rows_affected, 2);
  EXPECT_EQ(Rows("SELECT id, name, price, day FROM db.t WHERE id >= 6 ORDER BY id"),
            (std::vector<std::string>{"6|f|3.50|2025-02-01", "7|g|NULL|NULL"}));
  auto updated = session_->Execute("UPDATE db.t SET name = $1 WHERE id = $2", {Str("z"), Int(6)});
  ASSERT_OK(updated.status());
  EXPECT_EQ(updated->command, "UPDATE");
  EXPECT_EQ(updated->rows_affected, 1);
  EXPECT_EQ(Rows("SELECT name FROM db.t WHERE id = 6"), std::vector<std::string>{"z"});
  EXPECT_EQ(Rows("SELECT id FROM db.t ORDER BY id LIMIT $1", {Int(2)}),
            (std::vector<std::string>{"1", "2"}));
  auto deleted = session_->Execute("DELETE FROM db.t WHERE id > $1", {Int(4)});
  ASSERT_OK(deleted.status());
  EXPECT_EQ(deleted->command, "DELETE");
  EXPECT_EQ(deleted->rows_affected, 3);
  EXPECT_EQ(Rows("SELECT id FROM db.t ORDER BY id"), (std::vector<std::string>{"1", "2"}));
}

TEST_F(ParametersFixture, TimeTravelAndCall) {
  const std::string first = Value("SELECT snapshot_id FROM db.t.snapshots");
  Ok("INSERT INTO db.t VALUES (9, 'i', NULL, NULL)");
  const int64_t id = std::stoll(first);
  EXPECT_EQ(Rows("SELECT count(*) FROM db.t FOR VERSION AS OF $1", {Long(id)}),
            std::vector<std::string>{"3"});
  EXPECT_EQ(Rows("SELECT count(*) FROM db.t VERSION AS OF $1", {Text(first)}),
            std::vector<std::string>{"3"});
  EXPECT_EQ(Rows("CALL lakehouse.system.rollback_to_snapshot(table => $1, snapshot_id => $2)",
                 {Str("db.t"), Long(id)})
                .size(),
            1u);
  EXPECT_EQ(Rows("SELECT count(*) FROM db.t"), std::vector<std::string>{"3"});
}

TEST_F(ParametersFixture, MissingValuesAreErrors) {
  EXPECT_EQ(Error("SELECT $1 + $3", {Int(1), Int(2)}),
            "Parameter $3 was not given a value (the statement was given 2) (line 1, column 13)\n"
            "SELECT $1 + $3\n"
            "            ^");
  EXPECT_EQ(Error("SELECT * FROM db.t WHERE id = $1"),
            "Parameter $1 was not given a value (the statement was given 0) (line 1, column 31)\n"
            "SELECT * FROM db.t WHERE id = $1\n"
            "                              ^");
  // `?` stays unsupported, and $0 is no parameter.
  EXPECT_THAT(Error("SELECT ?"), ::testing::HasSubstr("Unexpected character '?'"));
  EXPECT_THAT(Error("SELECT $0"), ::testing::HasSubstr("Invalid parameter '$0'"));
}

TEST_F(ParametersFixture, DescribeQueriesDmlAndShow) {
  ASSERT_OK_AND_ASSIGN(
      auto shape,
      session_->Describe("SELECT id, name AS n, price * 2 FROM db.t WHERE id = $1 AND name <> $2"));
  EXPECT_TRUE(shape.returns_rows);
  EXPECT_EQ(shape.schema->ToString(), "id: int32\nn: string\n(price * 2): decimal128(12, 2)");
  EXPECT_EQ(shape.parameter_count, 2);
  ASSERT_EQ(shape.parameter_types.size(), 2u);
  EXPECT_EQ(shape.parameter_types[0]->ToString(), "int32");
  EXPECT_EQ(shape.parameter_types[1]->ToString(), "string");
  // Nothing ran: the table is as it was, and a describe of DML returns no rows.
  ASSERT_OK_AND_ASSIGN(shape, session_->Describe("INSERT INTO db.t (name, id) VALUES ($1, $2)"));
  EXPECT_FALSE(shape.returns_rows);
  EXPECT_EQ(shape.schema, nullptr);
  ASSERT_EQ(shape.parameter_types.size(), 2u);
  EXPECT_EQ(shape.parameter_types[0]->ToString(), "string");
  EXPECT_EQ(shape.parameter_types[1]->ToString(), "int32");
  ASSERT_OK_AND_ASSIGN(shape, session_->Describe("DELETE FROM db.t WHERE id = $1"));
  EXPECT_FALSE(shape.returns_rows);
  EXPECT_EQ(Value("SELECT count(*) FROM db.t"), "3");
  ASSERT_OK_AND_ASSIGN(shape, session_->Describe("SHOW TABLES IN db"));
  EXPECT_TRUE(shape.returns_rows);
  EXPECT_EQ(shape.schema->ToString(), "namespace: string\ntableName: string\nisTemporary: bool");
  // Given values, a parameter takes their type.
  ASSERT_OK_AND_ASSIGN(shape, session_->Describe("SELECT $1 AS x", {Long(3)}));
  EXPECT_EQ(shape.schema->ToString(), "x: int64");
}

}  // namespace
}  // namespace floe::sql
