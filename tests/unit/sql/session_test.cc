// What needs C++ to check: files a scan reads, and output naming the warehouse path.
// Plain SQL behaviour lives in tests/sql/.

#include "session_fixture.h"

namespace floe::sql {
namespace {

using PruningTest = testing::SessionFixture;

int64_t DataFilesRead(Session& s) { return s.io()->counters().reads(FileKind::kData); }

TEST_F(PruningTest, PartitionsAndBoundsSkipFiles) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.events (id BIGINT, ts TIMESTAMP, kind STRING) USING iceberg PARTITIONED BY (days(ts))");
  for (int day = 1; day <= 3; ++day) {
    Ok("INSERT INTO db.events SELECT id + " + std::to_string(day * 100) + ", TIMESTAMP '2024-01-0" + std::to_string(day) +
       " 12:00:00', 'k' FROM range(10)");
  }
  session_->io()->ResetCounters();
  EXPECT_EQ(Value("SELECT count(*) FROM db.events WHERE ts >= '2024-01-03'"), "10");
  EXPECT_EQ(DataFilesRead(*session_), 1);
  session_->io()->ResetCounters();
  // Bounds of the id column rule out the other two files.
  EXPECT_EQ(Value("SELECT count(*) FROM db.events WHERE id = 205"), "1");
  EXPECT_EQ(DataFilesRead(*session_), 1);
  session_->io()->ResetCounters();
  EXPECT_EQ(Value("SELECT count(*) FROM db.events WHERE id > 1000"), "0");
  EXPECT_EQ(DataFilesRead(*session_), 0);
  session_->io()->ResetCounters();
  EXPECT_EQ(Value("SELECT count(*) FROM db.events WHERE kind = 'k' OR id = 1"), "30");
  EXPECT_EQ(DataFilesRead(*session_), 3);
}

}  // namespace
}  // namespace floe::sql

namespace floe::sql {
namespace {

using ShowTest = testing::SessionFixture;

TEST_F(ShowTest, ShowCreateTableDescribeExtendedExplainReplace) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.t (id BIGINT NOT NULL, name STRING) USING iceberg PARTITIONED BY (bucket(8, id)) "
     "TBLPROPERTIES ('owner' = 'ops')");
  const std::string location = dir_.str() + "/warehouse/db/t";
  EXPECT_EQ(Value("SHOW CREATE TABLE db.t"),
            "CREATE TABLE lakehouse.db.t (\n  id BIGINT NOT NULL,\n  name STRING)\nUSING iceberg\n"
            "PARTITIONED BY (bucket(8, id))\nLOCATION '" + location + "'\nTBLPROPERTIES (\n"
            "  'format' = 'iceberg/parquet',\n  'format-version' = '2',\n  'owner' = 'ops',\n"
            "  'write.parquet.compression-codec' = 'zstd')\n");
  auto extended = Rows("DESCRIBE EXTENDED db.t");
  EXPECT_THAT(extended, ::testing::Contains("Location|" + location + "|"));
  EXPECT_THAT(extended, ::testing::Contains("Provider|iceberg|"));
  EXPECT_THAT(extended, ::testing::Contains("Part 0|bucket(8, id)|"));
  Ok("INSERT INTO db.t VALUES (1, 'a')");
  const std::string id = Value("SELECT snapshot_id FROM db.t.snapshots");
  Ok("SET TIME ZONE 'Europe/Moscow'");
  auto plan = Value("EXPLAIN SELECT * FROM db.t TIMESTAMP AS OF '2999-01-01 03:00:00'");
  EXPECT_THAT(plan, ::testing::HasSubstr("lakehouse.db.t TIMESTAMP AS OF 2999-01-01T00:00:00+00:00 -> snapshot " + id));
  plan = Value("EXPLAIN SELECT * FROM db.t VERSION AS OF " + id);
  EXPECT_THAT(plan, ::testing::HasSubstr("-> snapshot " + id));
  // REPLACE TABLE: a new schema on the same table; the old snapshot stays readable.
  Ok("REPLACE TABLE db.t (code STRING) USING iceberg");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t"), "0");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t VERSION AS OF " + id), "1");
  EXPECT_EQ(Rows("DESCRIBE db.t"), std::vector<std::string>({"code|string|NULL"}));
  // Trino's procedure form; the snapshot before REPLACE is no ancestor of the new state.
  Ok("INSERT INTO db.t VALUES ('x')");
  const std::string x = Value("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'");
  Ok("INSERT INTO db.t VALUES ('y')");
  EXPECT_THAT(Error("ALTER TABLE db.t EXECUTE rollback_to_snapshot(" + id + ")"),
              ::testing::HasSubstr("Cannot roll back to snapshot, not an ancestor of the current state: " + id +
                                   " (line 1, column 13)"));
  EXPECT_EQ(Rows("ALTER TABLE db.t EXECUTE rollback_to_snapshot(" + x + ")").size(), 1u);
  EXPECT_EQ(Value("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'"), x);
  EXPECT_EQ(Rows("SELECT * FROM db.t"), std::vector<std::string>({"x"}));
}

}  // namespace
}  // namespace floe::sql
