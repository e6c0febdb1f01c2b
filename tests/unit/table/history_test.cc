#include "floe/table/history.h"

#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;

using HistoryTest = floe::testing::PeopleTableTest;

TEST_F(HistoryTest, EmptyTableHasNoRows) {
  EXPECT_TRUE(HistoryRows(*table_->metadata()).empty());
  EXPECT_TRUE(SnapshotRows(*table_->metadata()).empty());
}

TEST_F(HistoryTest, RowsComeFromTheSnapshotLog) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 10)));
  ASSERT_OK_AND_ASSIGN(int64_t s2, OverwriteData(*table_, *People(0, 3), OverwriteFilter::All()));
  ASSERT_OK_AND_ASSIGN(int64_t s3, AppendData(*table_, *People(3, 2)));
  ASSERT_OK(RollbackToSnapshot(*table_, s2).status());
  WriteOptions side;
  side.branch = "side";
  ASSERT_OK(CreateOrReplaceBranch(*table_, "side", RefOptions{}));
  ASSERT_OK(AppendData(*table_, *People(50, 1), side).status());  // branches are not in history

  auto md = table_->metadata();
  auto rows = HistoryRows(*md);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].snapshot_id, s1);
  EXPECT_FALSE(rows[0].parent_id.has_value());
  EXPECT_TRUE(rows[0].is_current_ancestor);
  EXPECT_EQ(rows[1].snapshot_id, s2);
  EXPECT_EQ(rows[1].parent_id, s1);
  EXPECT_TRUE(rows[1].is_current_ancestor);
  EXPECT_EQ(rows[2].snapshot_id, s3);
  EXPECT_FALSE(rows[2].is_current_ancestor);
  EXPECT_EQ(rows[3].snapshot_id, s2);  // the rollback, stamped with its own time
  EXPECT_TRUE(rows[3].is_current_ancestor);
  EXPECT_GE(rows[3].made_current_at_ms, rows[2].made_current_at_ms);
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].made_current_at_ms, md->snapshot_log[i].timestamp_ms);
  }

  auto snaps = SnapshotRows(*md);
  ASSERT_EQ(snaps.size(), 4u);
  EXPECT_EQ(snaps[0].snapshot_id, s1);
  EXPECT_EQ(snaps[0].operation, "append");
  EXPECT_EQ(snaps[1].operation, "overwrite");
  EXPECT_EQ(snaps[1].parent_id, s1);
  EXPECT_EQ(snaps[1].summary.at("total-records"), "3");
  EXPECT_EQ(snaps[1].summary.count("operation"), 0u);
  EXPECT_EQ(snaps[0].manifest_list, md->snapshots[0].manifest_list);
  EXPECT_EQ(snaps[0].committed_at_ms, md->snapshots[0].timestamp_ms);
}

}  // namespace
}  // namespace floe::table
