// Planning reads a snapshot's manifests in parallel, keeps manifest-list order, decodes
// only the filter's metrics and reuses decoded manifests.
#include <arrow/api.h>

#include "floe/manifest/manifest_reader.h"
#include "floe/scan/table_scan.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using scan::ColumnPredicate;

class PlanFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    auto arrow_schema = arrow::schema({arrow::field("id", arrow::int64(), false),
                                       arrow::field("part", arrow::int32(), false)});
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*arrow_schema));
    CreateTableOptions options;
    options.partition_by = {{"part", spec::Transform::Identity(), ""}};
    options.properties["commit.manifest-merge.enabled"] = "false";
    ASSERT_OK_AND_ASSIGN(table_, wh_.tables->CreateTable(ident_, *schema, options));
    // 20 commits of 5 files each, one partition per commit: 20 manifests.
    for (int m = 0; m < 20; ++m) {
      std::vector<manifest::DataFile> files;
      for (int i = 0; i < 5; ++i) {
        manifest::DataFile f;
        f.file_path = Path(m, i);
        f.partition = {spec::Literal::Int(m)};
        f.record_count = 1;
        f.file_size_in_bytes = 10;
        const int64_t id = m * 100 + i;
        f.value_counts = {{1, 1}, {2, 1}};
        f.null_value_counts = {{1, 0}, {2, 0}};
        f.lower_bounds = {{1, spec::ToSingleValueBinary(spec::Literal::Long(id))},
                          {2, spec::ToSingleValueBinary(spec::Literal::Int(m))}};
        f.upper_bounds = f.lower_bounds;
        files.push_back(std::move(f));
      }
      ASSERT_OK_AND_ASSIGN(int64_t id, AppendFiles(*table_, std::move(files)));
      snapshots_.push_back(id);
    }
  }

  std::string Path(int m, int i) const {
    return table_->metadata()->location + "/data/part=" + std::to_string(m) + "/f" + std::to_string(i) + ".parquet";
  }

  std::vector<std::string> Paths(const std::vector<scan::FileScanTask>& tasks) {
    std::vector<std::string> out;
    for (const auto& t : tasks) out.push_back(t.file.file_path);
    return out;
  }

  floe::testing::Warehouse wh_;
  TableIdentifier ident_{Namespace({"db"}), "events"};
  std::shared_ptr<Table> table_;
  std::vector<int64_t> snapshots_;
};

TEST_F(PlanFilesTest, TasksFollowManifestListOrder) {
  scan::TableScan scan(table_);
  ASSERT_OK_AND_ASSIGN(auto tasks, scan.PlanFiles());
  // Newest manifest first, as the manifest list has them; entries in file order.
  std::vector<std::string> expected;
  for (int m = 19; m >= 0; --m) {
    for (int i = 0; i < 5; ++i) expected.push_back(Path(m, i));
  }
  EXPECT_EQ(Paths(tasks), expected);
  EXPECT_EQ(scan.metrics().manifests, 20);
  EXPECT_EQ(scan.metrics().files, 100);
  EXPECT_EQ(tasks[7].data_sequence_number, table_->metadata()->SnapshotById(snapshots_[18])->sequence_number);
  // Without a filter no column metrics are decoded.
  EXPECT_TRUE(tasks[0].file.lower_bounds.empty());
  EXPECT_TRUE(tasks[0].file.value_counts.empty());
}

TEST_F(PlanFilesTest, PartitionFilterSkipsManifestsAndColumnFilterSkipsFiles) {
  scan::TableScan by_partition(table_);
  by_partition.Filter({ColumnPredicate{2, ColumnPredicate::Op::kEq, spec::Literal::Int(7)}});
  ASSERT_OK_AND_ASSIGN(auto tasks, by_partition.PlanFiles());
  EXPECT_EQ(Paths(tasks), (std::vector<std::string>{Path(7, 0), Path(7, 1), Path(7, 2), Path(7, 3), Path(7, 4)}));
  EXPECT_EQ(by_partition.metrics().manifests, 20);
  EXPECT_EQ(by_partition.metrics().manifests_skipped, 19);
  EXPECT_EQ(by_partition.metrics().files, 5);
  EXPECT_EQ(by_partition.metrics().files_skipped, 0);

  scan::TableScan by_id(table_);
  by_id.Filter({ColumnPredicate{1, ColumnPredicate::Op::kEq, spec::Literal::Long(703)}});
  ASSERT_OK_AND_ASSIGN(tasks, by_id.PlanFiles());
  ASSERT_EQ(Paths(tasks), (std::vector<std::string>{Path(7, 3)}));
  EXPECT_EQ(by_id.metrics().manifests_skipped, 0);
  EXPECT_EQ(by_id.metrics().files, 100);
  EXPECT_EQ(by_id.metrics().files_skipped, 99);
  // Only the filtered column's metrics were decoded.
  EXPECT_EQ(tasks[0].file.lower_bounds,
            (manifest::IdMap<std::string>{{1, spec::ToSingleValueBinary(spec::Literal::Long(703))}}));
  EXPECT_EQ(tasks[0].file.value_counts, (manifest::IdMap<int64_t>{{1, 1}}));
}

TEST_F(PlanFilesTest, RepeatedTimeTravelDoesNotReadManifestsAgain) {
  scan::TableScan early(table_);
  early.UseSnapshot(snapshots_[9]);
  ASSERT_OK_AND_ASSIGN(auto first, early.PlanFiles());
  ASSERT_EQ(first.size(), 50u);
  const auto before = wh_.io->counters();
  for (int run = 0; run < 3; ++run) {
    scan::TableScan again(table_);
    again.UseSnapshot(snapshots_[9]);
    ASSERT_OK_AND_ASSIGN(auto tasks, again.PlanFiles());
    EXPECT_EQ(Paths(tasks), Paths(first));
  }
  const auto after = wh_.io->counters();
  EXPECT_EQ(after.reads(FileKind::kManifest), before.reads(FileKind::kManifest));
  EXPECT_EQ(after.reads(FileKind::kManifestList), before.reads(FileKind::kManifestList));
}

}  // namespace
}  // namespace floe::table
