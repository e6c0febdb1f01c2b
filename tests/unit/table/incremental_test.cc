#include "floe/table/incremental.h"

#include "floe/scan/incremental_scan.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;
using floe::testing::Range;
using floe::testing::SortedIds;

class IncrementalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
    ASSERT_OK_AND_ASSIGN(table_, wh_.tables->CreateTable(ident_, *schema));
    ASSERT_OK_AND_ASSIGN(s1_, AppendData(*table_, *People(0, 10)));
    ASSERT_OK_AND_ASSIGN(s2_, AppendData(*table_, *People(10, 5)));
    ASSERT_OK_AND_ASSIGN(s3_, AppendData(*table_, *People(15, 2)));
  }

  floe::testing::Warehouse wh_;
  TableIdentifier ident_{Namespace({"db"}), "inc"};
  std::shared_ptr<Table> table_;
  int64_t s1_ = 0, s2_ = 0, s3_ = 0;
};

TEST_F(IncrementalTest, AppendsBetweenStartExclusiveAndEndInclusive) {
  ASSERT_OK_AND_ASSIGN(auto files, AppendedFilesBetween(*table_, s1_, s3_));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].snapshot_id, s2_);
  EXPECT_EQ(files[1].snapshot_id, s3_);
  ASSERT_OK_AND_ASSIGN(auto rows, scan::ReadAppendedRows(*table_, s1_, s3_));
  EXPECT_EQ(SortedIds(*rows), Range(10, 7));
  ASSERT_OK_AND_ASSIGN(rows, scan::ReadAppendedRows(*table_, s1_, s2_));
  EXPECT_EQ(SortedIds(*rows), Range(10, 5));
  // Defaults: from the start of history to the current snapshot.
  ASSERT_OK_AND_ASSIGN(rows, scan::ReadAppendedRows(*table_, std::nullopt, std::nullopt));
  EXPECT_EQ(rows->num_rows(), 17);
}

TEST_F(IncrementalTest, OverwritesAndDeletesInTheRangeAreSkipped) {
  ASSERT_OK_AND_ASSIGN(int64_t s4, OverwriteData(*table_, *People(0, 1), OverwriteFilter::All()));
  ASSERT_OK_AND_ASSIGN(int64_t s5, AppendData(*table_, *People(100, 1)));
  ASSERT_OK_AND_ASSIGN(auto files, AppendedFilesBetween(*table_, s2_, s5));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].snapshot_id, s3_);
  EXPECT_EQ(files[1].snapshot_id, s5);
  ASSERT_OK_AND_ASSIGN(auto rows, scan::ReadAppendedRows(*table_, s2_, s5));
  EXPECT_EQ(SortedIds(*rows), (std::vector<int64_t>{15, 16, 100}));
  ASSERT_OK_AND_ASSIGN(rows, scan::ReadAppendedRows(*table_, s4, s5));
  EXPECT_EQ(SortedIds(*rows), Range(100, 1));
}

TEST_F(IncrementalTest, RangeMustBeOneLineOfAncestry) {
  ASSERT_RAISES_WITH_MESSAGE("Starting snapshot (exclusive) " + std::to_string(s3_) +
                                 " is not a parent ancestor of end snapshot " + std::to_string(s1_),
                             AppendedFilesBetween(*table_, s3_, s1_));
  ASSERT_RAISES_WITH_MESSAGE("Starting snapshot (exclusive) 42 is not a parent ancestor of end snapshot " +
                                 std::to_string(s3_),
                             AppendedFilesBetween(*table_, 42, s3_));
  ASSERT_RAISES_WITH_MESSAGE("Cannot find the end snapshot: 42",
                             AppendedFilesBetween(*table_, s1_, 42));
  RefOptions at1;
  at1.snapshot_id = s1_;
  ASSERT_OK(CreateOrReplaceBranch(*table_, "side", at1));
  WriteOptions side;
  side.branch = "side";
  ASSERT_OK_AND_ASSIGN(int64_t sb, AppendData(*table_, *People(500, 4), side));
  ASSERT_RAISES_WITH_MESSAGE("is not a parent ancestor of end snapshot " + std::to_string(sb),
                             AppendedFilesBetween(*table_, s2_, sb));
  ASSERT_OK_AND_ASSIGN(auto rows, scan::ReadAppendedRows(*table_, s1_, sb));
  EXPECT_EQ(SortedIds(*rows), Range(500, 4));
}

}  // namespace
}  // namespace floe::table
