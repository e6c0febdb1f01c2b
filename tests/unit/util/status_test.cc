#include "floe/util/status.h"

#include "floe/util/clock.h"
#include "floe/util/ids.h"
#include "floe_test.h"

namespace floe {

TEST(StatusTest, KindTravelsWithTheStatus) {
  Status st = NotFound("Table does not exist: ", "db.t");
  EXPECT_EQ(st.message(), "Table does not exist: db.t");
  EXPECT_TRUE(IsNotFound(st));
  EXPECT_FALSE(IsCommitConflict(st));
  EXPECT_TRUE(IsCommitConflict(CommitConflict("x")));
  EXPECT_EQ(KindOf(Status::Invalid("plain")), ErrorKind::kOther);
  Status wrapped = WithContext(st, "loading db.t");
  EXPECT_EQ(wrapped.message(), "loading db.t: Table does not exist: db.t");
  EXPECT_TRUE(IsNotFound(wrapped));
}

TEST(IdsTest, UuidIsVersion4) {
  std::string a = NewUuid();
  ASSERT_EQ(a.size(), 36u);
  EXPECT_EQ(a[14], '4');
  EXPECT_TRUE(a[19] == '8' || a[19] == '9' || a[19] == 'a' || a[19] == 'b') << a;
  EXPECT_NE(a, NewUuid());
}

TEST(IdsTest, SnapshotIdsArePositive) {
  for (int i = 0; i < 1000; ++i) EXPECT_GT(NewSnapshotId(), 0);
}

TEST(ClockTest, FormatsUtc) {
  EXPECT_EQ(FormatMillisUtc(0), "1970-01-01 00:00:00.000");
  EXPECT_EQ(FormatMillisUtc(1705314600123), "2024-01-15 10:30:00.123");
}

}  // namespace floe
