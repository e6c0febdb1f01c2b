// ExecuteStreaming: a query's rows batch by batch from its plan, other statements' results as
// streams, and the command and count of every kind of statement.

#include <arrow/api.h>

#include "session_fixture.h"

namespace floe::sql {
namespace {

using StatementStreamTest = testing::SessionFixture;

struct Drained {
  int64_t rows = 0;
  int64_t batches = 0;
  int64_t largest_batch = 0;
  int64_t sum = 0;  // of the first column, when it is int64
};

Drained Drain(StatementStream& stream) {
  Drained d;
  while (true) {
    auto batch = stream.Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) break;
    d.rows += (*batch)->num_rows();
    d.batches += 1;
    d.largest_batch = std::max(d.largest_batch, (*batch)->num_rows());
    if ((*batch)->num_columns() > 0 && (*batch)->column(0)->type_id() == arrow::Type::INT64) {
      const auto& ids = static_cast<const arrow::Int64Array&>(*(*batch)->column(0));
      for (int64_t i = 0; i < ids.length(); ++i) d.sum += ids.Value(i);
    }
  }
  return d;
}

TEST_F(StatementStreamTest, QueryStreamsInBoundedBatches) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.big (id BIGINT, label STRING) USING iceberg");
  Ok("INSERT INTO db.big SELECT id, concat('row ', CAST(id AS STRING)) FROM range(300000)");
  ASSERT_OK_AND_ASSIGN(auto stream,
                       session_->ExecuteStreaming("SELECT id AS n, label FROM db.big"));
  ASSERT_NE(stream->schema(), nullptr);
  EXPECT_EQ(stream->schema()->ToString(), "n: int64\nlabel: string");
  Drained d = Drain(*stream);
  EXPECT_EQ(d.rows, 300000);
  EXPECT_EQ(d.sum, int64_t{300000} * 299999 / 2);
  // Many batches, none near the whole result.
  EXPECT_GT(d.batches, 3);
  EXPECT_LE(d.largest_batch, 65536);
  EXPECT_EQ(stream->command(), "SELECT");
  EXPECT_EQ(stream->rows_affected(), 300000);
  EXPECT_EQ(stream->message(), "");
  // Reading after the end stays at the end.
  ASSERT_OK_AND_ASSIGN(auto after, stream->Next());
  EXPECT_EQ(after, nullptr);
}

TEST_F(StatementStreamTest, AbandonedStreamLeavesSessionUsable) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.big (id BIGINT) USING iceberg");
  Ok("INSERT INTO db.big SELECT id FROM range(200000)");
  {
    ASSERT_OK_AND_ASSIGN(auto stream, session_->ExecuteStreaming("SELECT id FROM db.big"));
    ASSERT_OK_AND_ASSIGN(auto first, stream->Next());
    ASSERT_NE(first, nullptr);
  }
  EXPECT_EQ(Value("SELECT count(*) FROM db.big"), "200000");
}

TEST_F(StatementStreamTest, ParametersAndErrors) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.t (id INT) USING iceberg");
  Ok("INSERT INTO db.t VALUES (1), (2), (3)");
  ASSERT_OK_AND_ASSIGN(
      auto stream,
      session_->ExecuteStreaming("SELECT id FROM db.t WHERE id >= $1 ORDER BY id",
                                 {Parameter{std::make_shared<arrow::StringScalar>("2"), true}}));
  ASSERT_OK_AND_ASSIGN(auto batch, stream->Next());
  ASSERT_NE(batch, nullptr);
  ASSERT_EQ(batch->column(0)->type_id(), arrow::Type::INT32);
  const auto& ids = static_cast<const arrow::Int32Array&>(*batch->column(0));
  ASSERT_EQ(ids.length(), 2);
  EXPECT_EQ(ids.Value(0), 2);
  EXPECT_EQ(ids.Value(1), 3);
  stream.reset();
  auto missing = session_->ExecuteStreaming("SELECT $2");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(),
              ::testing::HasSubstr("Parameter $2 was not given a value"));
  auto unknown = session_->ExecuteStreaming("SELECT * FROM db.nope");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), ::testing::HasSubstr("TABLE_OR_VIEW_NOT_FOUND"));
}

struct Tag {
  std::string command;
  int64_t rows;
  bool operator==(const Tag&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Tag& t) {
  return os << "{" << t.command << ", " << t.rows << "}";
}

TEST_F(StatementStreamTest, CommandTagsOfEveryKind) {
  auto tag = [&](const std::string& sql) -> Tag {
    auto result = session_->Execute(sql);
    EXPECT_TRUE(result.ok()) << sql << "\n" << result.status().ToString();
    if (!result.ok()) return {"", 0};
    // The stream of the same kind of statement reports the same.
    return {result->command, result->rows_affected};
  };
  auto streamed = [&](const std::string& sql) -> Tag {
    auto stream = session_->ExecuteStreaming(sql);
    EXPECT_TRUE(stream.ok()) << sql << "\n" << stream.status().ToString();
    if (!stream.ok()) return {"", 0};
    Drain(**stream);
    return {(*stream)->command(), (*stream)->rows_affected()};
  };
  EXPECT_EQ(tag("CREATE NAMESPACE db"), (Tag{"CREATE SCHEMA", -1}));
  EXPECT_EQ(tag("USE db"), (Tag{"USE", -1}));
  EXPECT_EQ(tag("CREATE TABLE db.t (id INT, v STRING) USING iceberg"), (Tag{"CREATE TABLE", -1}));
  EXPECT_EQ(streamed("INSERT INTO db.t VALUES (1, 'a'), (2, 'b'), (3, 'c')"), (Tag{"INSERT", 3}));
  EXPECT_EQ(tag("INSERT INTO db.t SELECT id + 10, v FROM db.t"), (Tag{"INSERT", 3}));
  EXPECT_EQ(tag("SELECT * FROM db.t"), (Tag{"SELECT", 6}));
  EXPECT_EQ(streamed("SELECT * FROM db.t WHERE id > 10"), (Tag{"SELECT", 3}));
  EXPECT_EQ(tag("UPDATE db.t SET v = 'x' WHERE id > 1 AND id < 12"), (Tag{"UPDATE", 3}));
  EXPECT_EQ(tag("UPDATE db.t SET v = 'x' WHERE id > 100"), (Tag{"UPDATE", 0}));
  EXPECT_EQ(tag("DELETE FROM db.t WHERE v = 'x'"), (Tag{"DELETE", 3}));
  EXPECT_EQ(tag("MERGE INTO db.t t USING (SELECT 1 AS id, 'm' AS v UNION ALL SELECT 50, 'n') s ON "
                "t.id = s.id "
                "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *"),
            (Tag{"MERGE", 2}));
  EXPECT_EQ(tag("SHOW TABLES IN db"), (Tag{"SHOW", 1}));
  EXPECT_EQ(tag("DESCRIBE db.t"), (Tag{"DESCRIBE", 2}));
  EXPECT_EQ(tag("SET spark.sql.session.timeZone = 'UTC'"), (Tag{"SET", -1}));
  EXPECT_EQ(tag("ALTER TABLE db.t ADD COLUMN w INT"), (Tag{"ALTER TABLE", -1}));
  EXPECT_EQ(tag("DELETE FROM db.t"), (Tag{"DELETE", 4}));
  EXPECT_EQ(tag("DROP TABLE db.t"), (Tag{"DROP TABLE", -1}));
  EXPECT_EQ(tag("DROP NAMESPACE db"), (Tag{"DROP SCHEMA", -1}));
  auto created = session_->Execute("CREATE NAMESPACE other");
  ASSERT_OK(created.status());
  ASSERT_OK_AND_ASSIGN(auto stream, session_->ExecuteStreaming("DROP NAMESPACE other"));
  EXPECT_EQ(stream->schema(), nullptr);
  ASSERT_OK_AND_ASSIGN(auto end, stream->Next());
  EXPECT_EQ(end, nullptr);
  EXPECT_EQ(stream->command(), "DROP SCHEMA");
  EXPECT_EQ(stream->rows_affected(), -1);
}

}  // namespace
}  // namespace floe::sql
