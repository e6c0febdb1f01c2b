#include "floe/server/http/lineage_layout.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace floe::server::http {
namespace {

spec::Snapshot MakeSnapshot(int64_t id, std::optional<int64_t> parent, int64_t at) {
  spec::Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = id;
  s.timestamp_ms = at;
  s.operation = "append";
  return s;
}

// "s<id>@<lane>" per snapshot row, "jump <from>-><to>" per jump row.
std::vector<std::string> Rows(const LineageLayout& layout) {
  std::vector<std::string> out;
  for (const LineageRow& row : layout.rows) {
    if (row.snapshot) {
      out.push_back("s" + std::to_string(row.snapshot->snapshot_id) + "@" +
                    std::to_string(row.lane));
    } else {
      out.push_back("jump " + std::to_string(row.jump->from_snapshot_id) + "->" +
                    std::to_string(row.jump->to_snapshot_id));
    }
  }
  return out;
}

// main: 1 <- 2 <- 3, rolled back to 2, then 4 on 2; branch b: 5 on 1.
TEST(LineageLayoutTest, BranchesAndRollbacksGetLanesAndJumpRows) {
  spec::TableMetadata md;
  md.snapshots = {MakeSnapshot(1, std::nullopt, 1000), MakeSnapshot(2, 1, 2000),
                  MakeSnapshot(3, 2, 3000), MakeSnapshot(5, 1, 5000), MakeSnapshot(4, 2, 6000)};
  md.IndexSnapshots();
  md.snapshot_log = {{1000, 1}, {2000, 2}, {3000, 3}, {4000, 2}, {6000, 4}};
  md.current_snapshot_id = 4;
  md.refs["main"] = spec::SnapshotRef{4, spec::SnapshotRefType::kBranch, {}, {}, {}};
  md.refs["b"] = spec::SnapshotRef{5, spec::SnapshotRefType::kBranch, {}, {}, {}};

  LineageLayout layout = LayOutLineage(md);
  // 3 has no lane waiting for it and opens a third; its parent 2 is already awaited in lane 0.
  EXPECT_EQ(Rows(layout),
            (std::vector<std::string>{"s4@0", "s5@1", "jump 3->2", "s3@2", "s2@0", "s1@1"}));
  EXPECT_EQ(layout.lanes, 3);
  ASSERT_EQ(layout.jumps.size(), 1u);
  EXPECT_EQ(layout.jumps[0].kind, table::MainJump::Kind::kRollback);
  EXPECT_EQ(layout.jumps[0].at_ms, 4000);
}

TEST(LineageLayoutTest, AStraightLineStaysInOneLane) {
  spec::TableMetadata md;
  md.snapshots = {MakeSnapshot(7, std::nullopt, 1), MakeSnapshot(8, 7, 2), MakeSnapshot(9, 8, 3)};
  md.IndexSnapshots();
  md.snapshot_log = {{1, 7}, {2, 8}, {3, 9}};
  md.current_snapshot_id = 9;
  LineageLayout layout = LayOutLineage(md);
  EXPECT_EQ(Rows(layout), (std::vector<std::string>{"s9@0", "s8@0", "s7@0"}));
  EXPECT_EQ(layout.lanes, 1);
  EXPECT_TRUE(layout.jumps.empty());
}

TEST(LineageLayoutTest, AnEmptyTableHasNoRows) {
  spec::TableMetadata md;
  LineageLayout layout = LayOutLineage(md);
  EXPECT_TRUE(layout.rows.empty());
  EXPECT_EQ(layout.lanes, 0);
}

}  // namespace
}  // namespace floe::server::http
