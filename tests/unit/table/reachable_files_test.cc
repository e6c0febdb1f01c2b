#include "floe/table/reachable_files.h"

#include <filesystem>

#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::FilesUnder;
using floe::testing::People;

using ReachableFilesTest = floe::testing::PeopleTableTest;

TEST_F(ReachableFilesTest, EveryFileOfEverySnapshotAndMetadataVersion) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 10)));
  ASSERT_OK(AppendData(*table_, *People(10, 10)).status());
  ASSERT_OK(OverwriteData(*table_, *People(100, 5), OverwriteFilter::All()).status());
  // A rollback keeps the overwritten snapshots reachable through the history.
  ASSERT_OK(RollbackToSnapshot(*table_, s1).status());

  auto md = table_->metadata();
  ReachableFiles files = CollectReachableFiles(*wh_.io, *md, table_->metadata_location());
  EXPECT_TRUE(files.unreadable.empty());
  EXPECT_EQ(files.metadata_files.size(), md->metadata_log.size() + 1);
  EXPECT_EQ(files.metadata_files.size(), 5u);  // create, two appends, overwrite, rollback
  EXPECT_EQ(files.manifest_lists.size(), 3u);
  EXPECT_EQ(files.content_files.size(), 3u);   // one data file per write
  // Nothing a normal history writes is left out, and nothing else is named.
  std::set<std::string> all;
  for (const auto* set : {&files.metadata_files, &files.manifest_lists, &files.manifests,
                          &files.content_files}) {
    all.insert(set->begin(), set->end());
  }
  EXPECT_EQ(all, FilesUnder(*wh_.io, md->location));

  // The current file can be left out (a caller that handles it on its own).
  EXPECT_EQ(CollectReachableFiles(*wh_.io, *md, "").metadata_files.size(), 4u);
}

TEST_F(ReachableFilesTest, UnreadableManifestListsAreReportedNotFatal) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 10)));
  ASSERT_OK(AppendData(*table_, *People(10, 10)).status());
  auto md = table_->metadata();
  const std::string lost = md->SnapshotById(s1)->manifest_list;
  std::filesystem::remove(lost);
  ReachableFiles files = CollectReachableFiles(*wh_.io, *md, table_->metadata_location());
  EXPECT_EQ(files.unreadable, std::set<std::string>{lost});
  EXPECT_EQ(files.manifest_lists.size(), 2u);
  // The second snapshot's list still names both manifests and both data files.
  EXPECT_EQ(files.manifests.size(), 2u);
  EXPECT_EQ(files.content_files.size(), 2u);
}

}  // namespace
}  // namespace floe::table
