#include "floe/table/time_travel.h"

#include "floe/table/commit.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "floe/util/time_zone.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;
using floe::testing::SetSnapshotTimes;

class TimeTravelTest : public floe::testing::PeopleTableTest {
 protected:
  // Three appends committed at 1000, 2000 and 3000 ms.
  void ThreeAppends() {
    ASSERT_OK_AND_ASSIGN(s1_, AppendData(*table_, *People(0, 10)));
    ASSERT_OK_AND_ASSIGN(s2_, AppendData(*table_, *People(10, 5)));
    ASSERT_OK_AND_ASSIGN(s3_, AppendData(*table_, *People(15, 1)));
    ASSERT_OK(SetSnapshotTimes(*table_, {{s1_, 1000}, {s2_, 2000}, {s3_, 3000}}));
  }

  // Adds schema 1 (a new optional column) and makes it current.
  void EvolveSchema() {
    ASSERT_OK(Commit(*table_,
                     [](const spec::TableMetadataPtr& base,
                        std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
                       auto md = std::make_shared<spec::TableMetadata>(*base);
                       std::vector<spec::NestedField> fields = base->current_schema()->fields();
                       spec::NestedField age = fields.back();
                       age.id = base->last_column_id + 1;
                       age.name = "age";
                       age.required = false;
                       age.type = spec::Type::Long();
                       fields.push_back(age);
                       md->schemas.push_back(std::make_shared<const spec::Schema>(1, fields));
                       md->current_schema_id = 1;
                       md->last_column_id = age.id;
                       return md;
                     }));
  }

  int64_t s1_ = 0, s2_ = 0, s3_ = 0;
};

TEST_F(TimeTravelTest, ResolvesEachAddressWithItsSchema) {
  ThreeAppends();
  RefOptions tag;
  tag.snapshot_id = s1_;
  ASSERT_OK(CreateOrReplaceTag(*table_, "t1", tag));
  RefOptions branch;
  branch.snapshot_id = s2_;
  ASSERT_OK(CreateOrReplaceBranch(*table_, "b2", branch));
  EvolveSchema();

  ASSERT_OK_AND_ASSIGN(auto by_id, ResolveTimeTravel(*table_, TimeTravelSpec::Snapshot(s2_)));
  EXPECT_EQ(by_id.snapshot_id(), s2_);
  EXPECT_EQ(by_id.schema->schema_id(), 0);
  EXPECT_FALSE(by_id.branch);

  ASSERT_OK_AND_ASSIGN(auto by_time, ResolveTimeTravel(*table_, TimeTravelSpec::AsOf(2500)));
  EXPECT_EQ(by_time.snapshot_id(), s2_);
  EXPECT_EQ(by_time.schema->schema_id(), 0);

  ASSERT_OK_AND_ASSIGN(auto by_tag, ResolveTimeTravel(*table_, TimeTravelSpec::Tag("t1")));
  EXPECT_EQ(by_tag.snapshot_id(), s1_);
  EXPECT_EQ(by_tag.schema->schema_id(), 0);

  ASSERT_OK_AND_ASSIGN(auto by_branch, ResolveTimeTravel(*table_, TimeTravelSpec::Branch("b2")));
  EXPECT_EQ(by_branch.snapshot_id(), s2_);
  EXPECT_EQ(by_branch.schema->schema_id(), 1);  // branches read with the current schema
  EXPECT_EQ(by_branch.branch, "b2");

  ASSERT_OK_AND_ASSIGN(auto ref_tag, ResolveTimeTravel(*table_, TimeTravelSpec::Ref("t1")));
  EXPECT_EQ(ref_tag.schema->schema_id(), 0);
  ASSERT_OK_AND_ASSIGN(auto ref_branch, ResolveTimeTravel(*table_, TimeTravelSpec::Ref("b2")));
  EXPECT_EQ(ref_branch.schema->schema_id(), 1);

  ASSERT_OK_AND_ASSIGN(auto current, ResolveTimeTravel(*table_, TimeTravelSpec{}));
  EXPECT_EQ(current.snapshot_id(), s3_);
  EXPECT_EQ(current.schema->schema_id(), 1);
  EXPECT_EQ(current.branch, "main");
}

TEST_F(TimeTravelTest, ExactlyOneAddress) {
  ThreeAppends();
  TimeTravelSpec two = TimeTravelSpec::Snapshot(s1_);
  two.as_of_timestamp_ms = 2000;
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot time-travel by more than one of snapshot id, timestamp, tag, branch or ref (got "
      "snapshot id and timestamp)",
      ResolveTimeTravel(*table_, two));
  TimeTravelSpec tag_branch = TimeTravelSpec::Tag("a");
  tag_branch.branch = "b";
  auto st = ResolveTimeTravel(*table_, tag_branch).status();
  EXPECT_EQ(KindOf(st), ErrorKind::kValidation);
}

TEST_F(TimeTravelTest, UnknownAddressesUseIcebergPhrases) {
  ThreeAppends();
  ASSERT_RAISES_WITH_MESSAGE("Cannot find snapshot with ID 42",
                             ResolveTimeTravel(*table_, TimeTravelSpec::Snapshot(42)));
  ASSERT_RAISES_WITH_MESSAGE("Cannot find snapshot associated with tag name: nope",
                             ResolveTimeTravel(*table_, TimeTravelSpec::Tag("nope")));
  ASSERT_RAISES_WITH_MESSAGE("Cannot use branch (does not exist): nope",
                             ResolveTimeTravel(*table_, TimeTravelSpec::Branch("nope")));
  ASSERT_RAISES_WITH_MESSAGE("Cannot find ref nope",
                             ResolveTimeTravel(*table_, TimeTravelSpec::Ref("nope")));
  ASSERT_RAISES_WITH_MESSAGE("Ref main is a branch not a tag",
                             ResolveTimeTravel(*table_, TimeTravelSpec::Tag("main")));
  ASSERT_OK(CreateOrReplaceTag(*table_, "t", RefOptions{}));
  ASSERT_RAISES_WITH_MESSAGE("Ref t is a tag not a branch",
                             ResolveTimeTravel(*table_, TimeTravelSpec::Branch("t")));
}

TEST_F(TimeTravelTest, TimestampPicksTheLatestEntryAtOrBefore) {
  ThreeAppends();
  auto md = table_->metadata();
  EXPECT_EQ(SnapshotIdAsOfTime(*md, 1000).ValueOrDie(), s1_);
  EXPECT_EQ(SnapshotIdAsOfTime(*md, 1999).ValueOrDie(), s1_);  // never the one after
  EXPECT_EQ(SnapshotIdAsOfTime(*md, 2000).ValueOrDie(), s2_);
  EXPECT_EQ(SnapshotIdAsOfTime(*md, 1'000'000).ValueOrDie(), s3_);
  ASSERT_RAISES_WITH_MESSAGE("Cannot find a snapshot older than 1970-01-01T00:00:00.999+00:00",
                             SnapshotIdAsOfTime(*md, 999));
  ASSERT_RAISES_WITH_MESSAGE("Cannot find a snapshot older than 1970-01-01T00:00:00+00:00",
                             ResolveTimeTravel(*table_, TimeTravelSpec::AsOf(0)));
}

TEST_F(TimeTravelTest, VersionStringIsSnapshotIdThenRefName) {
  ThreeAppends();
  auto md = table_->metadata();
  ASSERT_OK_AND_ASSIGN(auto r, ResolveVersion(md, std::to_string(s2_)));
  EXPECT_EQ(r.snapshot_id(), s2_);
  ASSERT_OK_AND_ASSIGN(r, ResolveVersion(md, s3_));
  EXPECT_EQ(r.snapshot_id(), s3_);

  // A numeric name that is no snapshot id is tried as a ref.
  RefOptions at1;
  at1.snapshot_id = s1_;
  ASSERT_OK(CreateOrReplaceTag(*table_, "2024", at1));
  ASSERT_OK(CreateOrReplaceBranch(*table_, "dev", at1));
  md = table_->metadata();
  ASSERT_OK_AND_ASSIGN(r, ResolveVersion(md, "2024"));
  EXPECT_EQ(r.snapshot_id(), s1_);
  EXPECT_FALSE(r.branch);
  ASSERT_OK_AND_ASSIGN(r, ResolveVersion(md, "dev"));
  EXPECT_EQ(r.snapshot_id(), s1_);
  EXPECT_EQ(r.branch, "dev");

  ASSERT_RAISES_WITH_MESSAGE("Cannot find matching snapshot ID or reference name for version nope",
                             ResolveVersion(md, "nope"));
  ASSERT_RAISES_WITH_MESSAGE("Cannot find matching snapshot ID or reference name for version 42",
                             ResolveVersion(md, "42"));
  ASSERT_RAISES_WITH_MESSAGE("Cannot find matching snapshot ID or reference name for version 42",
                             ResolveVersion(md, int64_t{42}));
}

TEST_F(TimeTravelTest, AsOfFollowsOnlyCurrentAncestors) {
  ThreeAppends();
  ASSERT_OK(RollbackToSnapshot(*table_, s2_).status());
  auto md = table_->metadata();
  // The log still says s3 was current at 3500; TIMESTAMP AS OF reads it...
  EXPECT_EQ(SnapshotIdAsOfTime(*md, 3500).ValueOrDie(), s3_);
  // ...while resolve_snapshot_as_of skips what the rollback bypassed.
  EXPECT_EQ(ResolveSnapshotAsOf(*table_, 3500).ValueOrDie(), s2_);
  EXPECT_EQ(ResolveSnapshotAsOf(*table_, 1500).ValueOrDie(), s1_);
  ASSERT_RAISES_WITH_MESSAGE("Cannot find a snapshot older than 1970-01-01T00:00:00.500+00:00",
                             ResolveSnapshotAsOf(*table_, 500));
}

TEST_F(TimeTravelTest, AsOfOnAnEmptyTable) {
  ASSERT_RAISES_WITH_MESSAGE("Table lakehouse.db.people has no snapshots",
                             ResolveSnapshotAsOf(*table_, 500));
  ASSERT_OK_AND_ASSIGN(auto current, ResolveTimeTravel(*table_, TimeTravelSpec{}));
  EXPECT_EQ(current.snapshot, nullptr);
  ASSERT_RAISES_WITH_MESSAGE("Cannot find a snapshot older than",
                             ResolveTimeTravel(*table_, TimeTravelSpec::AsOf(500)));
}

TEST_F(TimeTravelTest, Ancestry) {
  ThreeAppends();
  RefOptions at1;
  at1.snapshot_id = s1_;
  ASSERT_OK(CreateOrReplaceBranch(*table_, "side", at1));
  WriteOptions side;
  side.branch = "side";
  ASSERT_OK_AND_ASSIGN(int64_t sb, AppendData(*table_, *People(100, 1), side));
  auto md = table_->metadata();

  std::vector<int64_t> ids;
  for (const auto* s : AncestorsOf(*md, s3_)) ids.push_back(s->snapshot_id);
  EXPECT_EQ(ids, (std::vector<int64_t>{s3_, s2_, s1_}));
  ids.clear();
  for (const auto* s : AncestorsBetween(*md, s3_, s1_)) ids.push_back(s->snapshot_id);
  EXPECT_EQ(ids, (std::vector<int64_t>{s3_, s2_}));
  EXPECT_TRUE(AncestorsOf(*md, 42).empty());

  EXPECT_TRUE(IsAncestorOf(*md, s3_, s1_));
  EXPECT_TRUE(IsAncestorOf(*md, s3_, s3_));
  EXPECT_FALSE(IsAncestorOf(*md, s1_, s3_));
  EXPECT_TRUE(IsAncestorOf(*md, sb, s1_));
  EXPECT_FALSE(IsAncestorOf(*md, sb, s2_));
  EXPECT_TRUE(IsCurrentAncestor(*md, s2_));
  EXPECT_FALSE(IsCurrentAncestor(*md, sb));
  EXPECT_TRUE(IsParentAncestorOf(*md, s3_, s1_));
  EXPECT_FALSE(IsParentAncestorOf(*md, s3_, s3_));
}

// The time-zone incident: the same literal names different instants in
// Moscow and in UTC, and a commit sits between them.
TEST_F(TimeTravelTest, SessionTimeZoneChangesTheSnapshot) {
  ThreeAppends();
  const int64_t t0700z = ParseTimestampMillis("2024-01-15T07:00:00Z", TimeZone::Utc()).ValueOrDie();
  const int64_t t0900z = ParseTimestampMillis("2024-01-15T09:00:00Z", TimeZone::Utc()).ValueOrDie();
  ASSERT_OK(SetSnapshotTimes(*table_, {{s1_, t0700z - 3600000}, {s2_, t0700z}, {s3_, t0900z}}));

  const char* literal = "2024-01-15 10:30:00";
  ASSERT_OK_AND_ASSIGN(auto moscow, TimeZone::Make("Europe/Moscow"));
  ASSERT_OK_AND_ASSIGN(int64_t in_moscow, ParseTimestampMillis(literal, moscow));
  ASSERT_OK_AND_ASSIGN(int64_t in_utc, ParseTimestampMillis(literal, TimeZone::Utc()));
  ASSERT_OK_AND_ASSIGN(auto a, ResolveTimeTravel(*table_, TimeTravelSpec::AsOf(in_moscow)));
  ASSERT_OK_AND_ASSIGN(auto b, ResolveTimeTravel(*table_, TimeTravelSpec::AsOf(in_utc)));
  EXPECT_EQ(a.snapshot_id(), s2_);  // 07:30Z
  EXPECT_EQ(b.snapshot_id(), s3_);  // 10:30Z
  // An explicit offset in the literal wins over the session zone.
  ASSERT_OK_AND_ASSIGN(int64_t explicit_utc,
                       ParseTimestampMillis("2024-01-15 10:30:00+00:00", moscow));
  EXPECT_EQ(explicit_utc, in_utc);
}

}  // namespace
}  // namespace floe::table
