#include "floe/sql/plan/parallel_scan_node.h"

#include <algorithm>

#include <arrow/acero/exec_plan.h>
#include <arrow/acero/options.h>
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <parquet/arrow/writer.h>

#include "floe_test.h"

namespace floe::sql {
namespace {

namespace ac = arrow::acero;

class ParallelScanNodeTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK_AND_ASSIGN(io_, FileIO::MakeLocal()); }

  // A file of ids [first, first + n) in row groups of `group` rows.
  std::string Write(int64_t first, int64_t n, int64_t group) {
    arrow::Int64Builder ids;
    for (int64_t i = 0; i < n; ++i) EXPECT_OK(ids.Append(first + i));
    auto field = arrow::field("id", arrow::int64(), true, arrow::key_value_metadata({"PARQUET:field_id"}, {"1"}));
    auto table = arrow::Table::Make(arrow::schema({field}), {ids.Finish().ValueOrDie()});
    std::string path = dir_.str() + "/f" + std::to_string(++files_) + ".parquet";
    auto out = arrow::io::FileOutputStream::Open(path).ValueOrDie();
    EXPECT_OK(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out, group));
    EXPECT_OK(out->Close());
    return path;
  }

  std::shared_ptr<scan::SharedRowGroupScan> Scan(std::vector<std::string> files, int64_t batch_rows = 1000) {
    auto schema = std::make_shared<const spec::Schema>(0, std::vector<spec::NestedField>{
                                                              spec::Optional(1, "id", spec::Type::Long())});
    counters_ = std::make_shared<scan::RowGroupCounters>();
    return scan::SharedRowGroupScan::Make(io_, {files.begin(), files.end()}, schema, {}, schema, counters_, batch_rows).ValueOrDie();
  }

  static ac::Declaration SumAndCount(ac::Declaration source) {
    return ac::Declaration::Sequence(
        {std::move(source), {"aggregate", ac::AggregateNodeOptions({arrow::compute::Aggregate("sum", nullptr, arrow::FieldRef("id"), "s"),
                                                                    arrow::compute::Aggregate("count_all", "n")})}});
  }

  static std::string Row(const arrow::Table& t) {
    return t.column(0)->GetScalar(0).ValueOrDie()->ToString() + "," + t.column(1)->GetScalar(0).ValueOrDie()->ToString();
  }

  floe::testing::TempDir dir_;
  std::shared_ptr<FileIO> io_;
  std::shared_ptr<scan::RowGroupCounters> counters_;
  int files_ = 0;
};

TEST_F(ParallelScanNodeTest, AggregatesEveryRowOfEveryRowGroup) {
  const std::vector<std::string> files = {Write(0, 100000, 7000), Write(100000, 50000, 50000)};
  for (bool threads : {true, false}) {
    ASSERT_OK_AND_ASSIGN(auto table, ac::DeclarationToTable(SumAndCount(ParallelScanSource(Scan(files))), threads));
    EXPECT_EQ(Row(*table), "11249925000,150000") << "threads " << threads;
    EXPECT_EQ(counters_->total, 16);
  }
}

TEST_F(ParallelScanNodeTest, StreamsThroughASinkThatPushesBack) {
  auto scan = Scan({Write(0, 300000, 10000)});
  ASSERT_OK_AND_ASSIGN(auto reader, ac::DeclarationToReader(ParallelScanSource(scan), /*use_threads=*/true));
  std::vector<int64_t> ids;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    if (!batch) break;
    EXPECT_LE(batch->num_rows(), 1000);
    const auto& a = static_cast<const arrow::Int64Array&>(*batch->column(0));
    for (int64_t i = 0; i < a.length(); ++i) ids.push_back(a.Value(i));
  }
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 300000u);
  EXPECT_EQ(ids.front(), 0);
  EXPECT_EQ(ids.back(), 299999);
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
  EXPECT_EQ(counters_->total, 30);
}

TEST_F(ParallelScanNodeTest, ReaderClosedEarlyStopsTheScan) {
  auto scan = Scan({Write(0, 300000, 10000)});
  ASSERT_OK_AND_ASSIGN(auto reader, ac::DeclarationToReader(ParallelScanSource(scan), /*use_threads=*/true));
  ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
  ASSERT_NE(batch, nullptr);
  ASSERT_OK(reader->Close());
}

TEST_F(ParallelScanNodeTest, DamagedFileFailsThePlanNamingIt) {
  std::string bad = dir_.str() + "/bad.parquet";
  floe::testing::WriteFileBytes(bad, "PAR1 this is not a parquet file PAR1");
  auto scan = Scan({Write(0, 100000, 1000), bad});
  auto table = ac::DeclarationToTable(SumAndCount(ParallelScanSource(scan)), /*use_threads=*/true);
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().message().rfind("Cannot read data file " + bad + ": ", 0), 0u) << table.status().message();
}

}  // namespace
}  // namespace floe::sql
