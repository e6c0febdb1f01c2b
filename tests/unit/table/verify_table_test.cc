#include "floe/table/verify_table.h"

#include <filesystem>

#include "floe/table/commit.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;
using Kind = ReachableFile::Kind;

using VerifyTableTest = floe::testing::PeopleTableTest;

TEST_F(VerifyTableTest, CountsEveryReachableFileOnce) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 10)));
  ASSERT_OK(AppendData(*table_, *People(10, 10)).status());
  ASSERT_OK(OverwriteData(*table_, *People(100, 5), OverwriteFilter::All()).status());
  ASSERT_OK(RollbackToSnapshot(*table_, s1).status());
  ASSERT_OK_AND_ASSIGN(auto report,
                       VerifyTableFiles(*wh_.io, *table_->metadata(), table_->metadata_location(),
                                        VerifyOptions{true}));
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.metadata_files, 5);  // create, two appends, overwrite, rollback
  EXPECT_EQ(report.manifest_lists, 3);
  // The overwrite's manifests too (one of them holds only its DELETED entries).
  auto reachable = CollectReachableFiles(*wh_.io, *table_->metadata(), table_->metadata_location());
  EXPECT_EQ(report.manifests, static_cast<int64_t>(reachable.manifests.size()));
  EXPECT_EQ(report.manifests, 5);
  EXPECT_EQ(report.data_files, 3);
  EXPECT_EQ(report.delete_files, 0);
  EXPECT_EQ(report.statistics_files, 0);
  EXPECT_EQ(report.checked(), 16);
}

TEST_F(VerifyTableTest, ReportsMissingFilesWithWhatReferencesThem) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 10)));
  ASSERT_OK_AND_ASSIGN(int64_t s2, AppendData(*table_, *People(10, 10)));
  auto md = table_->metadata();
  // The second snapshot's data file and the first snapshot's manifest list.
  ASSERT_OK_AND_ASSIGN(auto entries, wh_.io->ListFiles(md->location + "/data"));
  ASSERT_EQ(entries.size(), 2u);
  const std::string list1 = md->SnapshotById(s1)->manifest_list;
  std::filesystem::remove(list1);
  // Find the data file s2 added: the one s1's walk does not reach first.
  ASSERT_OK_AND_ASSIGN(auto before, VerifyTableFiles(*wh_.io, *md, table_->metadata_location()));
  ASSERT_EQ(before.problems.size(), 1u);
  EXPECT_EQ(before.problems[0].file.kind, Kind::kManifestList);
  EXPECT_EQ(before.problems[0].file.location, list1);
  EXPECT_EQ(before.problems[0].file.snapshot_id, s1);
  EXPECT_EQ(before.problems[0].file.referenced_by, table_->metadata_location());
  EXPECT_EQ(before.problems[0].problem, "missing");
  // s2's list still names both manifests and both data files.
  EXPECT_EQ(before.data_files, 2);

  std::string lost_data;
  std::string its_manifest;
  WalkReachableFiles(
      *wh_.io, *md, "",
      [&](const ReachableFile& f) {
        if (f.kind == Kind::kData && lost_data.empty()) {
          lost_data = f.location;
          its_manifest = f.referenced_by;
        }
      },
      [](const ReachableFile&, const Status&) {});
  ASSERT_FALSE(lost_data.empty());
  std::filesystem::remove(lost_data);
  ASSERT_OK_AND_ASSIGN(auto after, VerifyTableFiles(*wh_.io, *md, table_->metadata_location()));
  ASSERT_EQ(after.problems.size(), 2u);
  EXPECT_EQ(after.problems[1].file.kind, Kind::kData);
  EXPECT_EQ(after.problems[1].file.location, lost_data);
  EXPECT_EQ(after.problems[1].file.snapshot_id, s2);
  EXPECT_EQ(after.problems[1].file.referenced_by, its_manifest);
  EXPECT_EQ(after.problems[1].problem, "missing");
}

TEST_F(VerifyTableTest, SizesAreComparedOnlyWhenAsked) {
  ASSERT_OK(AppendData(*table_, *People(0, 10)).status());
  std::string data;
  WalkReachableFiles(
      *wh_.io, *table_->metadata(), "",
      [&](const ReachableFile& f) {
        if (f.kind == Kind::kData) data = f.location;
      },
      [](const ReachableFile&, const Status&) {});
  ASSERT_OK_AND_ASSIGN(int64_t size, wh_.io->FileSize(data));
  std::filesystem::resize_file(data, size - 1);
  ASSERT_OK_AND_ASSIGN(auto plain,
                       VerifyTableFiles(*wh_.io, *table_->metadata(), table_->metadata_location()));
  EXPECT_TRUE(plain.ok());
  ASSERT_OK_AND_ASSIGN(auto sized,
                       VerifyTableFiles(*wh_.io, *table_->metadata(), table_->metadata_location(),
                                        VerifyOptions{true}));
  ASSERT_EQ(sized.problems.size(), 1u);
  EXPECT_EQ(sized.problems[0].problem,
            "size " + std::to_string(size - 1) + ", recorded " + std::to_string(size));
}

TEST_F(VerifyTableTest, MetadataLogAndStatisticsFilesAreChecked) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 10)));
  const std::string stats = table_->metadata()->location + "/metadata/stats.puffin";
  ASSERT_OK(Commit(*table_,
                   [&](const spec::TableMetadataPtr& base,
                       std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
                     auto md = std::make_shared<spec::TableMetadata>(*base);
                     md->statistics.push_back(spec::StatisticsFile{s1, stats, 5, 0, "", {}});
                     return md;
                   }));
  const std::string first_metadata = table_->metadata()->metadata_log.front().metadata_file;
  std::filesystem::remove(first_metadata);
  ASSERT_OK_AND_ASSIGN(auto report,
                       VerifyTableFiles(*wh_.io, *table_->metadata(), table_->metadata_location()));
  ASSERT_EQ(report.problems.size(), 2u);
  EXPECT_EQ(report.problems[0].file.location, first_metadata);
  EXPECT_EQ(report.problems[0].file.referenced_by, "the metadata log");
  EXPECT_EQ(report.problems[1].file.kind, Kind::kStatistics);
  EXPECT_EQ(report.problems[1].file.location, stats);
  EXPECT_EQ(report.problems[1].file.snapshot_id, s1);
}

}  // namespace
}  // namespace floe::table
