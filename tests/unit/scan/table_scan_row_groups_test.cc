#include <arrow/api.h>

#include "floe/scan/table_scan.h"
#include "floe/table/data_writer.h"
#include "floe/table/snapshot_producer.h"
#include "unit/table/table_test_util.h"

namespace floe::scan {
namespace {

using floe::testing::People;
using floe::testing::Range;

std::vector<int64_t> Ids(const arrow::Table& table) {
  std::vector<int64_t> out;
  for (const auto& chunk : table.GetColumnByName("id")->chunks()) {
    const auto& a = static_cast<const arrow::Int64Array&>(*chunk);
    for (int64_t i = 0; i < a.length(); ++i) out.push_back(a.Value(i));
  }
  return out;
}

class TableScanRowGroupsTest : public floe::testing::PeopleTableTest {
 protected:
  // Appends one snapshot of two files, ids [0, 30) and [30, 50), in row groups of 10.
  void AppendTwoFiles() {
    table::DataWriterOptions options;
    options.row_group_rows = 10;
    const auto& md = *table_->metadata();
    std::vector<manifest::DataFile> files;
    // Written as floe writes: the table's Arrow schema, carrying field ids.
    ASSERT_OK_AND_ASSIGN(auto arrow_schema, table::ToArrowSchema(*md.current_schema()));
    for (auto [first, n, name] : {std::tuple<int64_t, int64_t, const char*>{0, 30, "a"}, {30, 20, "b"}}) {
      auto written = table::WriteParquetDataFile(*wh_.io, md.location + "/data/" + name + ".parquet",
                                                 *arrow::Table::Make(arrow_schema, People(first, n)->columns()),
                                                 *md.current_schema(), options);
      ASSERT_TRUE(written.ok()) << written.status().ToString();
      files.push_back(*written);
    }
    ASSERT_OK(table::AppendFiles(*table_, files).status());
  }
};

TEST_F(TableScanRowGroupsTest, ReadsEveryRowGroupInOrder) {
  AppendTwoFiles();
  TableScan scan(table_);
  ASSERT_OK_AND_ASSIGN(auto rows, scan.ToArrowTable());
  EXPECT_EQ(Ids(*rows), Range(0, 50));
  EXPECT_EQ(rows->GetColumnByName("name")->GetScalar(49).ValueOrDie()->ToString(), "person-49");
  EXPECT_EQ(scan.metrics().files, 2);
  EXPECT_EQ(scan.metrics().row_groups, 5);
  EXPECT_EQ(scan.metrics().row_groups_skipped_by_stats, 0);
}

TEST_F(TableScanRowGroupsTest, FilterSkipsFilesThenRowGroups) {
  AppendTwoFiles();
  TableScan scan(table_);
  ColumnPredicate p;
  p.field_id = 1;
  p.op = ColumnPredicate::Op::kEq;
  p.value = spec::Literal::Long(23);
  scan.Filter({p});
  ASSERT_OK_AND_ASSIGN(auto reader, scan.ToRecordBatchReader());
  ASSERT_OK_AND_ASSIGN(auto rows, arrow::Table::FromRecordBatchReader(reader.get()));
  reader.reset();
  EXPECT_EQ(Ids(*rows), Range(20, 10));  // the row group holding 23, unfiltered
  const auto& m = scan.metrics();
  EXPECT_EQ(m.files, 2);
  EXPECT_EQ(m.files_skipped, 1);
  EXPECT_EQ(m.row_groups, 3);
  EXPECT_EQ(m.row_groups_skipped_by_stats, 2);
  EXPECT_EQ(m.row_groups_skipped_by_bloom_filter, 0);
  EXPECT_EQ(m.row_groups_skipped_by_page_index, 0);
  EXPECT_EQ(m.row_groups_skipped_by_filter_columns, 0);
}

TEST_F(TableScanRowGroupsTest, MissingDataFileNamesIt) {
  AppendTwoFiles();
  std::string b = table_->metadata()->location + "/data/b.parquet";
  ASSERT_OK(wh_.io->DeleteFile(b, FileKind::kData));
  ASSERT_RAISES_WITH_MESSAGE("Cannot read file " + b + ": file does not exist", TableScan(table_).ToArrowTable());
}

}  // namespace
}  // namespace floe::scan
