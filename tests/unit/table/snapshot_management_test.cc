#include "floe/table/snapshot_management.h"

#include "floe/scan/table_scan.h"
#include "floe/table/commit.h"
#include "floe/table/history.h"
#include "floe/table/metadata_files.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/time_travel.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;
using floe::testing::SetSnapshotTimes;

class SnapshotManagementTest : public floe::testing::PeopleTableTest {
 protected:
  // The notebook: 1000 rows, +500, +200 bad rows.
  void Notebook() {
    ASSERT_OK_AND_ASSIGN(s1_, AppendData(*table_, *People(0, 1000)));
    ASSERT_OK_AND_ASSIGN(s2_, AppendData(*table_, *People(1000, 500)));
    ASSERT_OK_AND_ASSIGN(s3_, AppendData(*table_, *People(-200, 200)));  // the bad write
  }

  int64_t Rows(std::optional<int64_t> snapshot = std::nullopt) {
    scan::TableScan scan(table_);
    if (snapshot) scan.UseSnapshot(*snapshot);
    auto t = scan.ToArrowTable();
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? (*t)->num_rows() : -1;
  }

  int64_t BadRows() {
    auto t = scan::TableScan(table_).ToArrowTable().ValueOrDie();
    int64_t bad = 0;
    for (int64_t id : floe::testing::SortedIds(*t)) bad += id < 0;
    return bad;
  }

  int64_t s1_ = 0, s2_ = 0, s3_ = 0;
};

TEST_F(SnapshotManagementTest, NotebookRollback) {
  Notebook();
  EXPECT_EQ(Rows(), 1700);
  ASSERT_OK_AND_ASSIGN(auto r, RollbackToSnapshot(*table_, s2_));
  EXPECT_EQ(r.previous_snapshot_id, s3_);
  EXPECT_EQ(r.current_snapshot_id, s2_);
  EXPECT_EQ(Rows(), 1500);
  EXPECT_EQ(BadRows(), 0);
  auto md = table_->metadata();
  EXPECT_EQ(md->snapshots.size(), 3u);
  auto history = HistoryRows(*md);
  ASSERT_EQ(history.size(), 4u);
  EXPECT_EQ(history.back().snapshot_id, s2_);
  EXPECT_TRUE(history.back().is_current_ancestor);
  EXPECT_EQ(history[2].snapshot_id, s3_);
  EXPECT_FALSE(history[2].is_current_ancestor);
  EXPECT_TRUE(history[0].is_current_ancestor);
  // The bypassed snapshot is still readable.
  EXPECT_EQ(Rows(s3_), 1700);

  // Redo and undo: snapshots stay at 3, history grows by one each time.
  ASSERT_OK_AND_ASSIGN(r, SetCurrentSnapshot(*table_, s3_));
  EXPECT_EQ(r.previous_snapshot_id, s2_);
  EXPECT_EQ(r.current_snapshot_id, s3_);
  EXPECT_EQ(Rows(), 1700);
  ASSERT_OK(RollbackToSnapshot(*table_, s2_).status());
  md = table_->metadata();
  EXPECT_EQ(md->snapshots.size(), 3u);
  EXPECT_EQ(HistoryRows(*md).size(), 6u);
  EXPECT_EQ(Rows(), 1500);
}

TEST_F(SnapshotManagementTest, RollbackIsOneMetadataFileAndOpensNoManifestOrDataFile) {
  Notebook();
  auto before = table_->metadata();
  const std::string before_location = table_->metadata_location();
  table_->io()->ResetCounters();
  ASSERT_OK(RollbackToSnapshot(*table_, s1_).status());
  auto c = table_->io()->counters();
  EXPECT_EQ(c.reads(FileKind::kManifestList), 0);
  EXPECT_EQ(c.reads(FileKind::kManifest), 0);
  EXPECT_EQ(c.reads(FileKind::kData), 0);
  EXPECT_EQ(c.reads(FileKind::kDelete), 0);
  EXPECT_EQ(c.creates(FileKind::kMetadata), 1);
  EXPECT_EQ(c.total_creates(), 1);
  auto after = table_->metadata();
  EXPECT_EQ(after->snapshots, before->snapshots);
  EXPECT_EQ(after->snapshot_log.size(), before->snapshot_log.size() + 1);
  EXPECT_EQ(after->snapshot_log.back().snapshot_id, s1_);
  EXPECT_GE(after->snapshot_log.back().timestamp_ms, before->snapshot_log.back().timestamp_ms);
  EXPECT_EQ(after->metadata_log.size(), before->metadata_log.size() + 1);
  EXPECT_EQ(after->metadata_log.back().metadata_file, before_location);
  EXPECT_EQ(ParseMetadataVersion(table_->metadata_location()),
            ParseMetadataVersion(before_location) + 1);
  EXPECT_EQ(after->refs.at("main").snapshot_id, s1_);
  EXPECT_EQ(after->current_snapshot_id, s1_);
  // The catalog points at the new file too.
  ASSERT_OK_AND_ASSIGN(auto reloaded, wh_.tables->LoadTable(ident_));
  EXPECT_EQ(reloaded->metadata()->current_snapshot_id, s1_);
}

TEST_F(SnapshotManagementTest, RollbackToTheCurrentSnapshotCommitsNothing) {
  Notebook();
  const std::string location = table_->metadata_location();
  ASSERT_OK_AND_ASSIGN(auto r, RollbackToSnapshot(*table_, s3_));
  EXPECT_EQ(r.previous_snapshot_id, s3_);
  EXPECT_EQ(r.current_snapshot_id, s3_);
  EXPECT_EQ(table_->metadata_location(), location);
}

TEST_F(SnapshotManagementTest, RollbackErrors) {
  Notebook();
  ASSERT_RAISES_WITH_MESSAGE("Cannot roll back to unknown snapshot id: 42",
                             RollbackToSnapshot(*table_, 42));
  ASSERT_OK(RollbackToSnapshot(*table_, s2_).status());
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot roll back to snapshot, not an ancestor of the current state: " + std::to_string(s3_),
      RollbackToSnapshot(*table_, s3_));
  EXPECT_EQ(KindOf(RollbackToSnapshot(*table_, s3_).status()), ErrorKind::kValidation);
}

// Homework 4: a branch's snapshot is no ancestor of main; set_current_snapshot may still
// move main there.
TEST_F(SnapshotManagementTest, BranchSnapshotNeedsSetCurrent) {
  Notebook();
  RefOptions at1;
  at1.snapshot_id = s1_;
  ASSERT_OK(CreateOrReplaceBranch(*table_, "fix", at1));
  WriteOptions fix;
  fix.branch = "fix";
  ASSERT_OK_AND_ASSIGN(int64_t sb, AppendData(*table_, *People(5000, 7), fix));
  EXPECT_EQ(table_->metadata()->current_snapshot_id, s3_);  // main untouched
  EXPECT_EQ(Rows(), 1700);
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot roll back to snapshot, not an ancestor of the current state: " + std::to_string(sb),
      RollbackToSnapshot(*table_, sb));
  ASSERT_OK_AND_ASSIGN(auto r, SetCurrentSnapshot(*table_, sb));
  EXPECT_EQ(r.previous_snapshot_id, s3_);
  EXPECT_EQ(r.current_snapshot_id, sb);
  EXPECT_EQ(Rows(), 1007);
  EXPECT_EQ(table_->metadata()->refs.at("fix").snapshot_id, sb);
}

TEST_F(SnapshotManagementTest, SetCurrentSnapshotArguments) {
  Notebook();
  ASSERT_RAISES_WITH_MESSAGE("Either snapshot_id or ref must be provided, not both",
                             SetCurrentSnapshot(*table_, s1_, "main"));
  ASSERT_RAISES_WITH_MESSAGE("Either snapshot_id or ref must be provided, not both",
                             SetCurrentSnapshot(*table_, std::nullopt, std::nullopt));
  ASSERT_RAISES_WITH_MESSAGE("Cannot roll back to unknown snapshot id: 42",
                             SetCurrentSnapshot(*table_, 42));
  ASSERT_RAISES_WITH_MESSAGE("Cannot find matching snapshot ID for ref nope",
                             SetCurrentSnapshot(*table_, std::nullopt, "nope"));
  RefOptions at1;
  at1.snapshot_id = s1_;
  ASSERT_OK(CreateOrReplaceTag(*table_, "v1", at1));
  ASSERT_OK_AND_ASSIGN(auto r, SetCurrentSnapshot(*table_, std::nullopt, "v1"));
  EXPECT_EQ(r.current_snapshot_id, s1_);
  EXPECT_EQ(Rows(), 1000);
}

TEST_F(SnapshotManagementTest, RollbackToTimestampIsStrictlyBeforeByCommitTime) {
  Notebook();
  ASSERT_OK(SetSnapshotTimes(*table_, {{s1_, 1000}, {s2_, 2000}, {s3_, 3000}}));
  // TIMESTAMP AS OF 2000 reads s2; rollback_to_timestamp(2000) goes to s1.
  EXPECT_EQ(SnapshotIdAsOfTime(*table_->metadata(), 2000).ValueOrDie(), s2_);
  ASSERT_OK_AND_ASSIGN(auto r, RollbackToTimestamp(*table_, 2000));
  EXPECT_EQ(r.previous_snapshot_id, s3_);
  EXPECT_EQ(r.current_snapshot_id, s1_);
  ASSERT_RAISES_WITH_MESSAGE("Cannot roll back, no valid snapshot older than: 1000",
                             RollbackToTimestamp(*table_, 1000));
  // Only ancestors of the current state count: s2 and s3 are no longer ancestors.
  ASSERT_OK_AND_ASSIGN(r, RollbackToTimestamp(*table_, 10000));
  EXPECT_EQ(r.current_snapshot_id, s1_);
}

TEST_F(SnapshotManagementTest, RollbackKeepsTheCurrentSchema) {
  Notebook();
  ASSERT_OK(Commit(*table_,
                   [](const spec::TableMetadataPtr& base,
                      std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
                     auto md = std::make_shared<spec::TableMetadata>(*base);
                     auto fields = base->current_schema()->fields();
                     spec::NestedField extra;
                     extra.id = base->last_column_id + 1;
                     extra.name = "age";
                     extra.type = spec::Type::Long();
                     fields.push_back(extra);
                     md->schemas.push_back(std::make_shared<const spec::Schema>(1, fields));
                     md->current_schema_id = 1;
                     md->last_column_id = extra.id;
                     return md;
                   }));
  ASSERT_OK(RollbackToSnapshot(*table_, s1_).status());
  EXPECT_EQ(table_->metadata()->current_schema_id, 1);
  ASSERT_OK_AND_ASSIGN(auto read, ResolveTimeTravel(*table_, TimeTravelSpec{}));
  EXPECT_EQ(read.schema->schema_id(), 1);
}

TEST_F(SnapshotManagementTest, TagsAndBranchesShareOneNamespace) {
  Notebook();
  RefOptions create;
  ASSERT_OK(CreateOrReplaceTag(*table_, "t", create));
  auto md = table_->metadata();
  EXPECT_EQ(md->refs.at("t").snapshot_id, s3_);
  EXPECT_FALSE(md->refs.at("t").is_branch());
  EXPECT_EQ(md->snapshot_log.size(), 3u);  // refs never touch the log unless main moves
  ASSERT_RAISES_WITH_MESSAGE("Ref t already exists", CreateOrReplaceTag(*table_, "t", create));
  ASSERT_RAISES_WITH_MESSAGE("Ref t already exists", CreateOrReplaceBranch(*table_, "t", create));
  RefOptions if_not_exists;
  if_not_exists.if_not_exists = true;
  const std::string location = table_->metadata_location();
  ASSERT_OK(CreateOrReplaceTag(*table_, "t", if_not_exists));
  EXPECT_EQ(table_->metadata_location(), location);

  RefOptions replace;
  replace.mode = RefWriteMode::kReplace;
  replace.snapshot_id = s1_;
  ASSERT_RAISES_WITH_MESSAGE("Tag does not exist: nope",
                             CreateOrReplaceTag(*table_, "nope", replace));
  ASSERT_RAISES_WITH_MESSAGE("Branch does not exist: nope",
                             CreateOrReplaceBranch(*table_, "nope", replace));
  ASSERT_RAISES_WITH_MESSAGE("Ref t is a tag not a branch",
                             CreateOrReplaceBranch(*table_, "t", replace));
  ASSERT_RAISES_WITH_MESSAGE("Ref main is a branch not a tag",
                             CreateOrReplaceTag(*table_, "main", replace));
  ASSERT_OK(CreateOrReplaceTag(*table_, "t", replace));
  EXPECT_EQ(table_->metadata()->refs.at("t").snapshot_id, s1_);

  RefOptions cor;
  cor.mode = RefWriteMode::kCreateOrReplace;
  cor.snapshot_id = s2_;
  ASSERT_OK(CreateOrReplaceTag(*table_, "t", cor));
  ASSERT_OK(CreateOrReplaceTag(*table_, "fresh", cor));
  EXPECT_EQ(table_->metadata()->refs.at("t").snapshot_id, s2_);
  EXPECT_EQ(table_->metadata()->refs.at("fresh").snapshot_id, s2_);

  RefOptions unknown;
  unknown.snapshot_id = 42;
  ASSERT_RAISES_WITH_MESSAGE("Cannot set u to unknown snapshot: 42",
                             CreateOrReplaceTag(*table_, "u", unknown));

  ASSERT_RAISES_WITH_MESSAGE("Tag does not exist: nope", DropTag(*table_, "nope"));
  ASSERT_OK(DropTag(*table_, "nope", /*if_exists=*/true));
  ASSERT_RAISES_WITH_MESSAGE("Ref main is a branch not a tag", DropTag(*table_, "main"));
  ASSERT_RAISES_WITH_MESSAGE("Cannot remove main branch", DropBranch(*table_, "main"));
  ASSERT_RAISES_WITH_MESSAGE("Cannot remove main branch", DropBranch(*table_, "main", true));
  ASSERT_RAISES_WITH_MESSAGE("Branch does not exist: nope", DropBranch(*table_, "nope"));
  ASSERT_OK(DropBranch(*table_, "nope", true));
  ASSERT_RAISES_WITH_MESSAGE("Ref t is a tag not a branch", DropBranch(*table_, "t"));
  ASSERT_RAISES_WITH_MESSAGE("Ref t is a tag not a branch", DropBranch(*table_, "t", true));
  ASSERT_OK(DropTag(*table_, "t"));
  EXPECT_EQ(table_->metadata()->refs.count("t"), 0u);
  EXPECT_EQ(table_->metadata()->current_snapshot_id, s3_);
}

TEST_F(SnapshotManagementTest, RetentionSettings) {
  Notebook();
  RefOptions branch;
  branch.snapshot_id = s2_;
  branch.max_ref_age_ms = 7 * 86400000LL;
  branch.min_snapshots_to_keep = 3;
  branch.max_snapshot_age_ms = 2 * 86400000LL;
  ASSERT_OK(CreateOrReplaceBranch(*table_, "audit", branch));
  auto ref = table_->metadata()->refs.at("audit");
  EXPECT_TRUE(ref.is_branch());
  EXPECT_EQ(ref.snapshot_id, s2_);
  EXPECT_EQ(ref.max_ref_age_ms, 7 * 86400000LL);
  EXPECT_EQ(ref.min_snapshots_to_keep, 3);
  EXPECT_EQ(ref.max_snapshot_age_ms, 2 * 86400000LL);

  // Replacing keeps the retention it does not set, as Iceberg's builderFrom.
  RefOptions replace;
  replace.mode = RefWriteMode::kReplace;
  replace.snapshot_id = s3_;
  ASSERT_OK(CreateOrReplaceBranch(*table_, "audit", replace));
  ref = table_->metadata()->refs.at("audit");
  EXPECT_EQ(ref.snapshot_id, s3_);
  EXPECT_EQ(ref.min_snapshots_to_keep, 3);

  RefOptions tag;
  tag.max_ref_age_ms = 3600000;
  ASSERT_OK(CreateOrReplaceTag(*table_, "q1", tag));
  EXPECT_EQ(table_->metadata()->refs.at("q1").max_ref_age_ms, 3600000);
  tag.min_snapshots_to_keep = 2;
  ASSERT_RAISES_WITH_MESSAGE("Tags do not support setting minSnapshotsToKeep",
                             CreateOrReplaceTag(*table_, "q2", tag));
  RefOptions bad;
  bad.min_snapshots_to_keep = 0;
  ASSERT_RAISES_WITH_MESSAGE("Min snapshots to keep must be greater than 0",
                             CreateOrReplaceBranch(*table_, "b", bad));
  bad = {};
  bad.max_ref_age_ms = 0;
  ASSERT_RAISES_WITH_MESSAGE("Max reference age must be greater than 0",
                             CreateOrReplaceTag(*table_, "b", bad));
}

TEST_F(SnapshotManagementTest, RefsOnAnEmptyTable) {
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot complete create or replace tag operation on lakehouse.db.people, main has no snapshot",
      CreateOrReplaceTag(*table_, "t", RefOptions{}));
  ASSERT_OK(CreateOrReplaceBranch(*table_, "dev", RefOptions{}));
  auto md = table_->metadata();
  ASSERT_EQ(md->snapshots.size(), 1u);  // an empty snapshot on the new branch
  EXPECT_EQ(md->refs.at("dev").snapshot_id, md->snapshots[0].snapshot_id);
  EXPECT_FALSE(md->current_snapshot_id.has_value());
}

TEST_F(SnapshotManagementTest, RenameBranch) {
  Notebook();
  ASSERT_OK(CreateOrReplaceBranch(*table_, "a", RefOptions{}));
  ASSERT_OK(CreateOrReplaceTag(*table_, "t", RefOptions{}));
  ASSERT_RAISES_WITH_MESSAGE("Cannot rename main branch", RenameBranch(*table_, "main", "x"));
  ASSERT_RAISES_WITH_MESSAGE("Ref t already exists", RenameBranch(*table_, "a", "t"));
  ASSERT_RAISES_WITH_MESSAGE("Ref t is a tag not a branch", RenameBranch(*table_, "t", "x"));
  ASSERT_OK(RenameBranch(*table_, "a", "b"));
  EXPECT_EQ(table_->metadata()->refs.count("a"), 0u);
  EXPECT_EQ(table_->metadata()->refs.at("b").snapshot_id, s3_);
}

TEST_F(SnapshotManagementTest, FastForward) {
  Notebook();
  ASSERT_OK(CreateOrReplaceBranch(*table_, "dev", RefOptions{}));
  WriteOptions dev;
  dev.branch = "dev";
  ASSERT_OK_AND_ASSIGN(int64_t d1, AppendData(*table_, *People(9000, 3), dev));
  const size_t log_size = table_->metadata()->snapshot_log.size();
  ASSERT_OK_AND_ASSIGN(auto r, FastForward(*table_, "main", "dev"));
  EXPECT_EQ(r.branch_updated, "main");
  EXPECT_EQ(r.previous_ref, s3_);
  EXPECT_EQ(r.updated_ref, d1);
  auto md = table_->metadata();
  EXPECT_EQ(md->current_snapshot_id, d1);
  EXPECT_EQ(md->snapshot_log.size(), log_size + 1);
  EXPECT_EQ(Rows(), 1703);

  // main moves on; dev is now behind and cannot be fast-forwarded onto by main's old line.
  ASSERT_OK_AND_ASSIGN(int64_t m2, AppendData(*table_, *People(9100, 1)));
  ASSERT_OK_AND_ASSIGN(int64_t d2, AppendData(*table_, *People(9200, 1), dev));
  ASSERT_RAISES_WITH_MESSAGE("Cannot fast-forward: main is not an ancestor of dev",
                             FastForward(*table_, "main", "dev"));
  ASSERT_RAISES_WITH_MESSAGE("Ref does not exist: nope", FastForward(*table_, "main", "nope"));
  ASSERT_OK(CreateOrReplaceTag(*table_, "t", RefOptions{}));
  ASSERT_RAISES_WITH_MESSAGE("Ref t is a tag not a branch", FastForward(*table_, "t", "dev"));
  // A missing branch is created at the target.
  ASSERT_OK_AND_ASSIGN(r, FastForward(*table_, "copy", "dev"));
  EXPECT_FALSE(r.previous_ref.has_value());
  EXPECT_EQ(r.updated_ref, d2);
  EXPECT_EQ(table_->metadata()->current_snapshot_id, m2);
}

TEST_F(SnapshotManagementTest, CherrypickReappliesAnAppendOnMain) {
  Notebook();
  RefOptions at1;
  at1.snapshot_id = s1_;
  ASSERT_OK(CreateOrReplaceBranch(*table_, "stage", at1));
  WriteOptions stage;
  stage.branch = "stage";
  ASSERT_OK_AND_ASSIGN(int64_t staged, AppendData(*table_, *People(7000, 11), stage));
  ASSERT_OK_AND_ASSIGN(auto r, CherrypickSnapshot(*table_, staged));
  EXPECT_EQ(r.source_snapshot_id, staged);
  EXPECT_NE(r.current_snapshot_id, staged);
  auto md = table_->metadata();
  EXPECT_EQ(md->snapshots.size(), 5u);
  const spec::Snapshot* picked = md->current_snapshot();
  ASSERT_NE(picked, nullptr);
  EXPECT_EQ(picked->parent_snapshot_id, s3_);
  EXPECT_EQ(picked->operation, "append");
  EXPECT_EQ(picked->summary.at("source-snapshot-id"), std::to_string(staged));
  EXPECT_EQ(picked->summary.at("added-records"), "11");
  EXPECT_EQ(picked->summary.at("total-records"), "1711");
  EXPECT_EQ(Rows(), 1711);
  ASSERT_RAISES_WITH_MESSAGE("Cannot cherrypick snapshot " + std::to_string(staged) +
                                 ": already picked to create ancestor " +
                                 std::to_string(r.current_snapshot_id),
                             CherrypickSnapshot(*table_, staged));
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot cherrypick snapshot " + std::to_string(s2_) + ": already an ancestor",
      CherrypickSnapshot(*table_, s2_));
  ASSERT_RAISES_WITH_MESSAGE("Cannot cherry-pick unknown snapshot ID: 42",
                             CherrypickSnapshot(*table_, 42));
}

TEST_F(SnapshotManagementTest, FailedCherrypickKeepsTheSourceFiles) {
  Notebook();
  RefOptions at1;
  at1.snapshot_id = s1_;
  ASSERT_OK(CreateOrReplaceBranch(*table_, "stage", at1));
  WriteOptions stage;
  stage.branch = "stage";
  ASSERT_OK_AND_ASSIGN(int64_t staged, AppendData(*table_, *People(7000, 11), stage));
  const std::string metadata_dir = MetadataDirectory(*table_->metadata());
  const auto before = floe::testing::FilesUnder(*table_->io(), table_->metadata()->location);

  // The metadata file of the pick cannot be written: the commit fails after the manifest
  // and the manifest list were written.
  table_->io()->SetFaultInjector([](FileOp op, const std::string&, FileKind kind) {
    if (op == FileOp::kWriteFile && kind == FileKind::kMetadata) return Status::IOError("disk full");
    return Status::OK();
  });
  ASSERT_RAISES_WITH_MESSAGE("disk full", CherrypickSnapshot(*table_, staged));
  table_->io()->SetFaultInjector(nullptr);
  // Everything the attempt wrote is gone; the staged snapshot's data files are not.
  EXPECT_EQ(floe::testing::FilesUnder(*table_->io(), table_->metadata()->location), before);
  EXPECT_EQ(table_->metadata()->current_snapshot_id, s3_);

  ASSERT_OK_AND_ASSIGN(auto r, CherrypickSnapshot(*table_, staged));
  const spec::Snapshot* picked = table_->metadata()->current_snapshot();
  ASSERT_NE(picked, nullptr);
  EXPECT_EQ(picked->snapshot_id, r.current_snapshot_id);
  // Manifest lists are named as every write names them: snap-<id>-<attempt>-<uuid>.avro.
  const std::string prefix = metadata_dir + "/snap-" + std::to_string(r.current_snapshot_id) + "-1-";
  EXPECT_EQ(picked->manifest_list.substr(0, prefix.size()), prefix);
  EXPECT_EQ(picked->sequence_number, table_->metadata()->last_sequence_number);
  EXPECT_EQ(Rows(), 1711);
  EXPECT_EQ(Rows(staged), 1011);
}

TEST_F(SnapshotManagementTest, CherrypickFastForwardsWhenParentIsCurrent) {
  Notebook();
  ASSERT_OK(CreateOrReplaceBranch(*table_, "wap", RefOptions{}));
  WriteOptions wap;
  wap.branch = "wap";
  ASSERT_OK_AND_ASSIGN(int64_t staged, AppendData(*table_, *People(8000, 2), wap));
  table_->io()->ResetCounters();
  ASSERT_OK_AND_ASSIGN(auto r, CherrypickSnapshot(*table_, staged));
  EXPECT_EQ(r.current_snapshot_id, staged);
  EXPECT_EQ(table_->io()->counters().reads(FileKind::kManifest), 0);
  auto md = table_->metadata();
  EXPECT_EQ(md->snapshots.size(), 4u);
  EXPECT_EQ(md->snapshot_log.back().snapshot_id, staged);
  EXPECT_EQ(Rows(), 1702);
}

TEST_F(SnapshotManagementTest, CherrypickRefusesOverwritesThatAreNoFastForward) {
  Notebook();
  RefOptions at1;
  at1.snapshot_id = s1_;
  ASSERT_OK(CreateOrReplaceBranch(*table_, "ow", at1));
  WriteOptions ow;
  ow.branch = "ow";
  ASSERT_OK_AND_ASSIGN(int64_t over,
                       OverwriteData(*table_, *People(0, 1), OverwriteFilter::All(), ow));
  ASSERT_RAISES_WITH_MESSAGE("Cannot cherry-pick snapshot " + std::to_string(over) +
                                 ": not append, dynamic overwrite, or fast-forward",
                             CherrypickSnapshot(*table_, over));
  EXPECT_EQ(table_->metadata()->current_snapshot_id, s3_);
}

TEST_F(SnapshotManagementTest, AncestorsOfRows) {
  Notebook();
  ASSERT_OK(SetSnapshotTimes(*table_, {{s1_, 1000}, {s2_, 2000}, {s3_, 3000}}));
  auto rows = AncestorsOfRows(*table_->metadata());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].snapshot_id, s3_);
  EXPECT_EQ(rows[0].timestamp_ms, 3000);
  EXPECT_EQ(rows[2].snapshot_id, s1_);
  rows = AncestorsOfRows(*table_->metadata(), s2_);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].snapshot_id, s2_);
  EXPECT_TRUE(AncestorsOfRows(*table_->metadata(), 42).empty());
}

TEST_F(SnapshotManagementTest, ConcurrentCommitIsRevalidated) {
  Notebook();
  // A second handle on the same table rolls back first; ours then retries on the new base.
  ASSERT_OK_AND_ASSIGN(auto other, wh_.tables->LoadTable(ident_));
  ASSERT_OK(RollbackToSnapshot(*other, s1_).status());
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot roll back to snapshot, not an ancestor of the current state: " + std::to_string(s2_),
      RollbackToSnapshot(*table_, s2_));
  EXPECT_EQ(table_->metadata()->current_snapshot_id, s1_);
}

}  // namespace
}  // namespace floe::table
