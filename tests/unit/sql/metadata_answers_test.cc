// Aggregates answered from manifests: each answer must equal the one the normal plan reads
// from the data files (rows, names and types), and must not open a data file.

#include <filesystem>

#include <arrow/io/file.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/writer.h>

#include "floe/scan/table_scan.h"
#include "floe/sql/plan/metadata_answers.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table_catalog.h"
#include "session_fixture.h"

namespace floe::sql {
namespace {

class MetadataAnswersTest : public testing::SessionFixture {
 protected:
  int64_t DataFilesRead() { return session_->io()->counters().reads(FileKind::kData); }

  struct Answer {
    std::vector<std::string> rows;
    std::string schema;
    int64_t files_read = 0;
  };

  Answer Run(const std::string& sql) {
    session_->io()->ResetCounters();
    auto result = session_->Execute(sql);
    Answer out;
    EXPECT_TRUE(result.ok()) << sql << "\n" << result.status().ToString();
    if (!result.ok() || !result->rows) return out;
    out.rows = Lines(*result->rows);
    out.schema = result->rows->schema()->ToString();
    out.files_read = DataFilesRead();
    return out;
  }

  // Runs `sql` with and without metadata answers; both must agree exactly. Returns the
  // rows and how many data files the answer with metadata opened.
  Answer Compare(const std::string& sql) {
    Ok("SET floe.metadata-answers.enabled = false");
    Answer normal = Run(sql);
    Ok("RESET floe.metadata-answers.enabled");
    Answer fast = Run(sql);
    EXPECT_EQ(fast.rows, normal.rows) << sql;
    EXPECT_EQ(fast.schema, normal.schema) << sql;
    return fast;
  }

  std::string Plan(const std::string& sql) { return Value("EXPLAIN " + sql); }
};

TEST_F(MetadataAnswersTest, CountFromRecordCounts) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.t (id BIGINT, region STRING, day DATE, v DOUBLE) USING iceberg PARTITIONED BY (region, day)");
  EXPECT_EQ(Compare("SELECT count(*) FROM db.t").rows, std::vector<std::string>({"0"}));
  Ok("INSERT INTO db.t SELECT id, 'eu', DATE '2024-01-01', id * 0.5 FROM range(10)");
  const std::string first = Value("SELECT snapshot_id FROM db.t.snapshots");
  Ok("INSERT INTO db.t SELECT id, 'us', DATE '2024-01-02', id * 0.5 FROM range(7)");
  Ok("INSERT INTO db.t SELECT id, NULL, DATE '2024-01-02', NULL FROM range(5)");

  Answer a = Compare("SELECT count(*) FROM db.t");
  EXPECT_EQ(a.rows, std::vector<std::string>({"22"}));
  EXPECT_EQ(a.files_read, 0);
  a = Compare("SELECT count(1) AS n, count(*), count(*) + 1, count('x') FROM db.t");
  EXPECT_EQ(a.rows, std::vector<std::string>({"22|22|23|22"}));
  EXPECT_EQ(a.schema, "n: int64\ncount(1): int64\n(count(1) + 1): int64\ncount(x): int64");
  EXPECT_EQ(a.files_read, 0);
  a = Compare("SELECT count(*) FROM db.t VERSION AS OF " + first);
  EXPECT_EQ(a.rows, std::vector<std::string>({"10"}));
  EXPECT_EQ(a.files_read, 0);

  // Predicates on identity-partition columns decide each file by its partition value.
  a = Compare("SELECT count(*) FROM db.t WHERE region = 'eu'");
  EXPECT_EQ(a.rows, std::vector<std::string>({"10"}));
  EXPECT_EQ(a.files_read, 0);
  a = Compare("SELECT count(*) FROM db.t WHERE day >= DATE '2024-01-02' AND region IS NOT NULL");
  EXPECT_EQ(a.rows, std::vector<std::string>({"7"}));
  EXPECT_EQ(a.files_read, 0);
  a = Compare("SELECT count(*) FROM db.t WHERE region IS NULL");
  EXPECT_EQ(a.rows, std::vector<std::string>({"5"}));
  EXPECT_EQ(a.files_read, 0);
  a = Compare("SELECT count(*) FROM db.t WHERE 'us' > region");
  EXPECT_EQ(a.rows, std::vector<std::string>({"10"}));
  EXPECT_EQ(a.files_read, 0);

  // Anything else reads the data files.
  a = Compare("SELECT count(*) FROM db.t WHERE id < 3");
  EXPECT_EQ(a.rows, std::vector<std::string>({"9"}));
  EXPECT_EQ(a.files_read, 3);
  a = Compare("SELECT count(*) FROM db.t WHERE region = 'eu' OR region = 'us'");
  EXPECT_EQ(a.rows, std::vector<std::string>({"17"}));
  EXPECT_GT(a.files_read, 0);
  a = Compare("SELECT count(v), count(DISTINCT region) FROM db.t");
  EXPECT_EQ(a.rows, std::vector<std::string>({"17|2"}));
  EXPECT_EQ(a.files_read, 3);
  a = Compare("SELECT region, count(*) FROM db.t GROUP BY region ORDER BY region");
  EXPECT_EQ(a.rows, std::vector<std::string>({"NULL|5", "eu|10", "us|7"}));
  EXPECT_EQ(a.files_read, 3);
  a = Compare("SELECT count(*) FROM db.t HAVING count(*) > 100");
  EXPECT_TRUE(a.rows.empty());
  EXPECT_EQ(a.files_read, 0);
}

TEST_F(MetadataAnswersTest, DeleteFilesSendAggregatesToTheRows) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.t (id BIGINT, region STRING) USING iceberg PARTITIONED BY (region)");
  Ok("INSERT INTO db.t SELECT id, 'eu' FROM range(10)");
  Ok("INSERT INTO db.t SELECT id, 'us' FROM range(4)");
  const std::string before = Value("SELECT snapshot_id FROM db.t.snapshots ORDER BY committed_at DESC LIMIT 1");

  // An equality delete of ids 0 and 9 in partition region=eu, in Flink's layout.
  table::TableCatalog tables(session_->catalog(), session_->io());
  ASSERT_OK_AND_ASSIGN(auto t, tables.LoadTable(TableIdentifier{Namespace({"db"}), "t"}));
  manifest::DataFile deletes;
  deletes.content = manifest::FileContent::kEqualityDeletes;
  deletes.file_path = t->metadata()->location + "/data/region=eu/eq-deletes.parquet";
  deletes.partition = {spec::Literal::String("eu")};
  deletes.spec_id = t->metadata()->default_spec_id;
  deletes.equality_ids = {1};
  deletes.record_count = 2;
  {
    auto schema = arrow::schema(
        {arrow::field("id", arrow::int64(), false, arrow::key_value_metadata({"PARQUET:field_id"}, {"1"}))});
    arrow::Int64Builder ids;
    ASSERT_OK(ids.AppendValues({0, 9}));
    auto rows = arrow::Table::Make(schema, {ids.Finish().ValueOrDie()});
    ASSERT_OK_AND_ASSIGN(auto out, arrow::io::FileOutputStream::Open(deletes.file_path));
    ASSERT_OK(parquet::arrow::WriteTable(*rows, arrow::default_memory_pool(), out));
    ASSERT_OK(out->Close());
    deletes.file_size_in_bytes = static_cast<int64_t>(std::filesystem::file_size(deletes.file_path));
  }
  ASSERT_OK(table::CommitRowDelta(*t, {}, {deletes}).status());

  Answer a = Compare("SELECT count(*) FROM db.t");
  EXPECT_EQ(a.rows, std::vector<std::string>({"12"}));
  EXPECT_GT(a.files_read, 0);
  a = Compare("SELECT count(*), min(id), max(id) FROM db.t WHERE region = 'eu'");
  EXPECT_EQ(a.rows, std::vector<std::string>({"8|1|8"}));
  EXPECT_GT(a.files_read, 0);
  // The other partition and the snapshot before the deletes still answer from manifests.
  a = Compare("SELECT count(*) FROM db.t WHERE region = 'us'");
  EXPECT_EQ(a.rows, std::vector<std::string>({"4"}));
  EXPECT_EQ(a.files_read, 0);
  a = Compare("SELECT count(*) FROM db.t VERSION AS OF " + before);
  EXPECT_EQ(a.rows, std::vector<std::string>({"14"}));
  EXPECT_EQ(a.files_read, 0);
  EXPECT_EQ(Value("SELECT count(*) FROM db.t.delete_files"), "1");
}

TEST_F(MetadataAnswersTest, WherePartitionValueMustDecideEveryFile) {
  Ok("CREATE NAMESPACE db");
  // A day or a bucket value does not decide a predicate on its source column.
  Ok("CREATE TABLE db.t (id BIGINT, ts TIMESTAMP, k INT) USING iceberg PARTITIONED BY (days(ts), bucket(4, k))");
  Ok("INSERT INTO db.t SELECT id, TIMESTAMP '2024-01-01 06:00:00', 1 FROM range(4)");
  Ok("INSERT INTO db.t SELECT id, TIMESTAMP '2024-01-01 18:00:00', 2 FROM range(6)");
  Answer a = Compare("SELECT count(*) FROM db.t WHERE ts >= TIMESTAMP '2024-01-01 12:00:00'");
  EXPECT_EQ(a.rows, std::vector<std::string>({"6"}));
  EXPECT_EQ(a.files_read, 1);  // the other file is ruled out by its bounds
  a = Compare("SELECT count(*) FROM db.t WHERE k = 2");
  EXPECT_EQ(a.rows, std::vector<std::string>({"6"}));
  EXPECT_GT(a.files_read, 0);
  a = Compare("SELECT count(*) FROM db.t");
  EXPECT_EQ(a.rows, std::vector<std::string>({"10"}));
  EXPECT_EQ(a.files_read, 0);
}

TEST_F(MetadataAnswersTest, MinMaxFromExactBounds) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.t (i INT, l BIGINT, d DOUBLE, f FLOAT, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, "
     "dec DECIMAL(10, 2), s STRING, n BIGINT) USING iceberg");
  EXPECT_EQ(Compare("SELECT min(i), max(l), count(*) FROM db.t").rows, std::vector<std::string>({"NULL|NULL|0"}));
  Ok("INSERT INTO db.t VALUES (3, -5, 1.5, CAST(2.5 AS FLOAT), DATE '2024-03-01', TIMESTAMP '2024-03-01 10:00:00', "
     "TIMESTAMP_NTZ '2024-03-01 10:00:00', 1.25, 'b', NULL), (NULL, 7, -2.25, CAST(-1 AS FLOAT), NULL, NULL, NULL, NULL, 'a', NULL)");
  Ok("INSERT INTO db.t VALUES (-8, 100, 9.75, NULL, DATE '2023-12-31', TIMESTAMP '2025-01-01 00:00:00', "
     "TIMESTAMP_NTZ '2022-01-01 00:00:00', -3.50, 'c', NULL)");
  Answer a = Compare("SELECT min(i), max(i), min(l), max(l), count(*) FROM db.t");
  EXPECT_EQ(a.rows, std::vector<std::string>({"-8|3|-5|100|3"}));
  EXPECT_EQ(a.schema, "min(i): int32\nmax(i): int32\nmin(l): int64\nmax(l): int64\ncount(1): int64");
  EXPECT_EQ(a.files_read, 0);
  a = Compare("SELECT min(d), max(d), min(f), max(f) FROM db.t");
  EXPECT_EQ(a.rows, std::vector<std::string>({"-2.25|9.75|-1|2.5"}));
  EXPECT_EQ(a.files_read, 0);
  a = Compare("SELECT min(dt), max(dt), min(ts), max(ts), min(ntz), max(ntz), min(dec), max(dec) FROM db.t");
  EXPECT_EQ(a.files_read, 0);
  EXPECT_EQ(a.rows, std::vector<std::string>({"2023-12-31|2024-03-01|2024-03-01 10:00:00.000000Z|2025-01-01 "
                                             "00:00:00.000000Z|2022-01-01 00:00:00.000000|2024-03-01 "
                                             "10:00:00.000000|-3.50|1.25"}));
  // A column with only NULLs: no bounds, decided by its counts.
  a = Compare("SELECT min(n), max(n) FROM db.t");
  EXPECT_EQ(a.rows, std::vector<std::string>({"NULL|NULL"}));
  EXPECT_EQ(a.files_read, 0);
  // Strings may have truncated bounds; a WHERE, an expression or a DISTINCT count read the rows.
  a = Compare("SELECT min(s), max(s) FROM db.t");
  EXPECT_EQ(a.rows, std::vector<std::string>({"a|c"}));
  EXPECT_EQ(a.files_read, 2);
  a = Compare("SELECT max(l) FROM db.t WHERE l < 50");
  EXPECT_EQ(a.rows, std::vector<std::string>({"7"}));
  EXPECT_GT(a.files_read, 0);
  a = Compare("SELECT max(l + 1) FROM db.t");
  EXPECT_EQ(a.rows, std::vector<std::string>({"101"}));
  EXPECT_EQ(a.files_read, 2);
}

TEST_F(MetadataAnswersTest, FloatingBoundsNeedKnownNanCountsAndNoZero) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.t (d DOUBLE) USING iceberg");
  Ok("INSERT INTO db.t VALUES (1.0), (2.0)");
  Ok("INSERT INTO db.t VALUES (CAST('NaN' AS DOUBLE)), (-4.0)");
  // Spark: max over a NaN is NaN, which bounds cannot tell.
  Answer a = Compare("SELECT min(d), max(d) FROM db.t");
  EXPECT_EQ(a.rows, std::vector<std::string>({"-4|nan"}));
  EXPECT_EQ(a.files_read, 2);
  Ok("CREATE TABLE db.z (d DOUBLE) USING iceberg");
  Ok("INSERT INTO db.z VALUES (0.0), (-0.0), (3.0)");
  a = Compare("SELECT max(d), min(d) FROM db.z");
  EXPECT_EQ(a.files_read, 1);
}

TEST_F(MetadataAnswersTest, ExplainSaysWhatWasRead) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.t (id BIGINT, region STRING) USING iceberg PARTITIONED BY (region)");
  Ok("INSERT INTO db.t VALUES (1, 'eu'), (2, 'us'), (3, 'ap')");
  std::string plan = Plan("SELECT count(*) FROM db.t WHERE region = 'eu'");
  EXPECT_THAT(plan, ::testing::HasSubstr("== Scans ==\nlakehouse.db.t: manifests 1 (0 skipped), data files 3 (2 skipped)\n"
                                         "lakehouse.db.t: answered from metadata: 1 data files, record counts (no data "
                                         "file read); manifests 1 (0 skipped), data files 3 (2 skipped)\n"));
  plan = Plan("SELECT min(id), max(id) FROM db.t");
  EXPECT_THAT(plan, ::testing::HasSubstr("lakehouse.db.t: answered from metadata: 3 data files, record counts and "
                                         "column bounds (no data file read)"));
  plan = Plan("SELECT * FROM db.t WHERE id = 2");
  EXPECT_THAT(plan, ::testing::HasSubstr("== Scans ==\nlakehouse.db.t: manifests 1 (0 skipped), data files 3 (2 skipped)\n\n"));
  EXPECT_THAT(plan, ::testing::Not(::testing::HasSubstr("answered from metadata")));
  Ok("SET floe.metadata-answers.enabled = false");
  plan = Plan("SELECT count(*) FROM db.t");
  EXPECT_THAT(plan, ::testing::Not(::testing::HasSubstr("answered from metadata")));
}

TEST(PartitionValueSatisfiesTest, NullDecidesAsSqlDoes) {
  using Op = scan::ColumnPredicate::Op;
  scan::ColumnPredicate p;
  p.op = Op::kGe;
  p.value = spec::Literal::Long(5);
  EXPECT_TRUE(PartitionValueSatisfies(spec::Literal::Long(5), p));
  EXPECT_FALSE(PartitionValueSatisfies(spec::Literal::Long(4), p));
  EXPECT_FALSE(PartitionValueSatisfies(spec::Literal::Null(spec::Type::Long()), p));
  p.op = Op::kIsNull;
  EXPECT_TRUE(PartitionValueSatisfies(spec::Literal::Null(spec::Type::Long()), p));
  EXPECT_FALSE(PartitionValueSatisfies(spec::Literal::Long(4), p));
  p.op = Op::kNotNull;
  EXPECT_TRUE(PartitionValueSatisfies(spec::Literal::Long(4), p));
}

}  // namespace
}  // namespace floe::sql
