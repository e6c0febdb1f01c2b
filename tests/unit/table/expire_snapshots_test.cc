#include "floe/table/expire_snapshots.h"

#include <thread>

#include <gtest/gtest.h>

#include "floe/scan/table_scan.h"
#include "floe/table/manifest_walk.h"
#include "floe/table/retention.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "floe/util/clock.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::FilesUnder;
using floe::testing::People;
using floe::testing::Range;
using floe::testing::SetSnapshotTimes;
using floe::testing::SortedIds;

constexpr int64_t kDay = 24LL * 60 * 60 * 1000;

std::vector<int64_t> SnapshotIds(const Table& t) {
  std::vector<int64_t> out;
  for (const auto& s : t.metadata()->snapshots) out.push_back(s.snapshot_id);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> Sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Three appends committed 20, 10 and 1 days ago.
class ExpireSnapshotsTest : public floe::testing::PeopleTableTest {
 protected:
  void SetUp() override {
    PeopleTableTest::SetUp();
    ASSERT_OK_AND_ASSIGN(s1_, AppendData(*table_, *People(0, 10)));
    ASSERT_OK_AND_ASSIGN(s2_, AppendData(*table_, *People(10, 10)));
    ASSERT_OK_AND_ASSIGN(s3_, AppendData(*table_, *People(20, 10)));
    now_ = NowMillis();
    ASSERT_OK(SetSnapshotTimes(
        *table_, {{s1_, now_ - 20 * kDay}, {s2_, now_ - 10 * kDay}, {s3_, now_ - kDay}}));
  }

  std::vector<int64_t> IdsAt(int64_t snapshot_id) {
    scan::TableScan scan(table_);
    scan.UseSnapshot(snapshot_id);
    return SortedIds(*scan.ToArrowTable().ValueOrDie());
  }

  // Every file under the table is one its metadata reaches, and every one it reaches exists.
  void ExpectFilesOnDiskMatchMetadata() {
    auto md = table_->metadata();
    ManifestWalk walk(*table_->io(), *md);
    ASSERT_OK_AND_ASSIGN(ReachedFiles reach, Reach(walk, *md));
    std::set<std::string> expected(reach.manifest_lists.begin(), reach.manifest_lists.end());
    for (const auto& [path, length] : reach.manifests) expected.insert(path);
    for (const auto& [path, file] : reach.content) expected.insert(path);
    expected.insert(table_->metadata_location());
    for (const auto& e : md->metadata_log) expected.insert(e.metadata_file);
    std::set<std::string> on_disk = FilesUnder(*table_->io(), md->location);
    EXPECT_EQ(on_disk, expected);
  }

  int64_t s1_ = 0, s2_ = 0, s3_ = 0, now_ = 0;
};

TEST_F(ExpireSnapshotsTest, DefaultsKeepFiveDaysAndTheCurrentSnapshot) {
  ExpireSnapshotsOptions options;
  options.now_ms = now_;
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(*table_, options));
  EXPECT_EQ(r.expired_snapshot_ids, Sorted({s1_, s2_}));
  EXPECT_EQ(SnapshotIds(*table_), std::vector<int64_t>{s3_});
  // Appends share their data files: nothing but the two manifest lists is unreachable.
  EXPECT_EQ(r.deleted_data_files, 0);
  EXPECT_EQ(r.deleted_manifests, 0);
  EXPECT_EQ(r.deleted_manifest_lists, 2);
  EXPECT_EQ(IdsAt(s3_), Range(0, 30));
  ExpectFilesOnDiskMatchMetadata();
  // History before the first kept entry is gone with the snapshots it named.
  ASSERT_EQ(table_->metadata()->snapshot_log.size(), 1u);
  EXPECT_EQ(table_->metadata()->snapshot_log[0].snapshot_id, s3_);
}

TEST_F(ExpireSnapshotsTest, OverwrittenFilesAreDeletedOnceNoSnapshotReachesThem) {
  ASSERT_OK_AND_ASSIGN(int64_t s4, OverwriteData(*table_, *People(100, 5), OverwriteFilter::All()));
  ExpireSnapshotsOptions options;
  options.now_ms = now_;
  options.older_than_ms = NowMillis() + 1;
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(*table_, options));
  EXPECT_EQ(SnapshotIds(*table_), std::vector<int64_t>{s4});
  EXPECT_EQ(r.deleted_data_files, 3);
  EXPECT_EQ(r.deleted_manifest_lists, 3);
  EXPECT_EQ(r.deleted_manifests, 3);  // the three appends' manifests; s4 rewrote them as deletions
  EXPECT_EQ(IdsAt(s4), Range(100, 5));
  ExpectFilesOnDiskMatchMetadata();
}

TEST_F(ExpireSnapshotsTest, DryRunListsExactlyWhatTheRunDeletesAndChangesNothing) {
  ASSERT_OK_AND_ASSIGN(int64_t s4, OverwriteData(*table_, *People(100, 5), OverwriteFilter::All()));
  ExpireSnapshotsOptions options;
  options.now_ms = now_;
  options.older_than_ms = NowMillis() + 1;
  options.dry_run = true;
  const std::string location = table_->metadata_location();
  const std::set<std::string> on_disk = FilesUnder(*table_->io(), table_->metadata()->location);
  ASSERT_OK_AND_ASSIGN(auto dry, ExpireSnapshots(*table_, options));
  EXPECT_EQ(dry.expired_snapshot_ids, Sorted({s1_, s2_, s3_}));
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(table_->metadata_location(), location);
  EXPECT_EQ(SnapshotIds(*table_), Sorted({s1_, s2_, s3_, s4}));
  EXPECT_EQ(FilesUnder(*table_->io(), table_->metadata()->location), on_disk);

  // Three data files, their three manifests and three manifest lists, in deletion order, each
  // with its size and the newest expired snapshot that reached it: the appends' files
  // stayed live until s3, the overwrite's parent.
  ASSERT_EQ(dry.files.size(), 9u);
  std::vector<std::string> types;
  std::set<std::string> predicted;
  for (const auto& f : dry.files) {
    types.push_back(f.type);
    predicted.insert(f.path);
    ASSERT_TRUE(f.size) << f.path;
    EXPECT_GT(*f.size, 0) << f.path;
    ASSERT_TRUE(f.last_snapshot_id) << f.path;
    if (f.type == "manifest list") {
      EXPECT_EQ(table_->metadata()->SnapshotById(*f.last_snapshot_id)->manifest_list, f.path);
    } else {
      EXPECT_EQ(*f.last_snapshot_id, s3_) << f.path;
    }
  }
  EXPECT_EQ(types, (std::vector<std::string>{"data file", "data file", "data file", "manifest", "manifest",
                                             "manifest", "manifest list", "manifest list", "manifest list"}));
  EXPECT_EQ(dry.deleted_data_files, 3);
  EXPECT_EQ(dry.deleted_manifests, 3);
  EXPECT_EQ(dry.deleted_manifest_lists, 3);

  options.dry_run = false;
  ASSERT_OK_AND_ASSIGN(auto real, ExpireSnapshots(*table_, options));
  std::set<std::string> deleted;
  const std::set<std::string> left = FilesUnder(*table_->io(), table_->metadata()->location);
  for (const auto& path : on_disk) {
    // The run's own new metadata file aside, what went is exactly what the dry run listed.
    if (!left.count(path)) deleted.insert(path);
  }
  EXPECT_EQ(deleted, predicted);
  std::set<std::string> reported;
  for (const auto& f : real.files) reported.insert(f.path);
  EXPECT_EQ(reported, predicted);
  EXPECT_EQ(real.deleted_data_files, dry.deleted_data_files);
  EXPECT_EQ(real.deleted_manifests, dry.deleted_manifests);
  EXPECT_EQ(real.deleted_manifest_lists, dry.deleted_manifest_lists);
}

TEST_F(ExpireSnapshotsTest, RetainLastKeepsAncestorsWhateverTheirAge) {
  ExpireSnapshotsOptions options;
  options.now_ms = now_;
  options.older_than_ms = now_;
  options.retain_last = 2;
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(*table_, options));
  EXPECT_EQ(r.expired_snapshot_ids, std::vector<int64_t>{s1_});
  EXPECT_EQ(SnapshotIds(*table_), Sorted({s2_, s3_}));
  EXPECT_EQ(IdsAt(s2_), Range(0, 20));
}

TEST_F(ExpireSnapshotsTest, TagRetainsItsSnapshotUntilItsMaxRefAgePasses) {
  RefOptions tag;
  tag.snapshot_id = s1_;
  tag.max_ref_age_ms = 25 * kDay;
  ASSERT_OK(CreateOrReplaceTag(*table_, "audit", tag));

  ExpireSnapshotsOptions options;
  options.now_ms = now_;
  options.older_than_ms = now_;
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(*table_, options));
  EXPECT_EQ(r.expired_snapshot_ids, std::vector<int64_t>{s2_});
  EXPECT_TRUE(r.removed_refs.empty());
  EXPECT_EQ(SnapshotIds(*table_), Sorted({s1_, s3_}));
  EXPECT_EQ(IdsAt(s1_), Range(0, 10));

  // Six days later the tag is 26 days old: the next expiry drops it, and its snapshot.
  options.now_ms = now_ + 6 * kDay;
  options.older_than_ms = now_;
  ASSERT_OK_AND_ASSIGN(r, ExpireSnapshots(*table_, options));
  EXPECT_EQ(r.removed_refs, std::vector<std::string>{"audit"});
  EXPECT_EQ(r.expired_snapshot_ids, std::vector<int64_t>{s1_});
  EXPECT_EQ(SnapshotIds(*table_), std::vector<int64_t>{s3_});
  EXPECT_EQ(table_->metadata()->refs.count("audit"), 0u);
  ExpectFilesOnDiskMatchMetadata();
}

TEST_F(ExpireSnapshotsTest, BranchRetentionOverridesTheTableDefaults) {
  RefOptions branch;
  branch.snapshot_id = s2_;
  branch.min_snapshots_to_keep = 2;
  ASSERT_OK(CreateOrReplaceBranch(*table_, "dev", branch));
  ExpireSnapshotsOptions options;
  options.now_ms = now_;
  options.older_than_ms = now_;
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(*table_, options));
  EXPECT_TRUE(r.expired_snapshot_ids.empty());
  EXPECT_EQ(SnapshotIds(*table_), Sorted({s1_, s2_, s3_}));

  // main keeps its ancestors younger than its own max-snapshot-age (15 days): s2, not s1.
  ASSERT_OK(DropBranch(*table_, "dev"));
  RefOptions main;
  main.mode = RefWriteMode::kReplace;
  main.max_snapshot_age_ms = 15 * kDay;
  ASSERT_OK(CreateOrReplaceBranch(*table_, "main", main));
  ASSERT_OK_AND_ASSIGN(r, ExpireSnapshots(*table_, options));
  EXPECT_EQ(r.expired_snapshot_ids, std::vector<int64_t>{s1_});
}

TEST_F(ExpireSnapshotsTest, SnapshotIdsAloneExpireExactlyThose) {
  ExpireSnapshotsOptions options;
  options.now_ms = now_;
  options.snapshot_ids = {s2_};
  ASSERT_OK_AND_ASSIGN(auto r, ExpireSnapshots(*table_, options));
  EXPECT_EQ(r.expired_snapshot_ids, std::vector<int64_t>{s2_});
  EXPECT_EQ(SnapshotIds(*table_), Sorted({s1_, s3_}));
  EXPECT_EQ(IdsAt(s1_), Range(0, 10));

  options.snapshot_ids = {s3_};
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot expire " + std::to_string(s3_) + ". Still referenced by refs: [main]",
      ExpireSnapshots(*table_, options).status());
}

TEST_F(ExpireSnapshotsTest, UnreadableManifestListFailsBeforeAnythingChanges) {
  const std::string list = table_->metadata()->SnapshotById(s2_)->manifest_list;
  ASSERT_OK(table_->io()->DeleteFile(list, FileKind::kManifestList));
  const std::string before = table_->metadata_location();
  ExpireSnapshotsOptions options;
  options.now_ms = now_;
  auto r = ExpireSnapshots(*table_, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(list), std::string::npos) << r.status().message();
  EXPECT_EQ(table_->metadata_location(), before);
  EXPECT_EQ(SnapshotIds(*table_), Sorted({s1_, s2_, s3_}));
}

TEST_F(ExpireSnapshotsTest, GcDisabledIsRefused) {
  ASSERT_OK(CommitUpdate(*table_, [](TableMetadataBuilder& b, std::vector<std::string>*) {
    b.SetProperties({{"gc.enabled", "false"}});
    return Status::OK();
  }));
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot expire snapshots: GC is disabled (deleting files may corrupt other tables)",
      ExpireSnapshots(*table_, {}).status());
}

TEST_F(ExpireSnapshotsTest, ExpiryRacingAppendsLosesNoAcknowledgedRow) {
  // Another process's view of the same table, appending while this one expires.
  ASSERT_OK_AND_ASSIGN(auto other, wh_.tables->LoadTable(ident_));
  std::vector<int64_t> appended;
  std::thread writer([&] {
    for (int i = 0; i < 15; ++i) {
      auto id = AppendData(*other, *People(1000 + i, 1));
      if (id.ok()) appended.push_back(1000 + i);
    }
  });
  for (int i = 0; i < 5; ++i) {
    ExpireSnapshotsOptions options;
    options.older_than_ms = NowMillis() + 1;
    (void)ExpireSnapshots(*table_, options);
  }
  writer.join();
  ASSERT_OK(table_->Refresh());
  std::vector<int64_t> expected = Range(0, 30);
  for (int64_t id : appended) expected.push_back(id);
  EXPECT_EQ(SortedIds(*scan::TableScan(table_).ToArrowTable().ValueOrDie()), expected);
  ExpectFilesOnDiskMatchMetadata();
}

TEST_F(ExpireSnapshotsTest, RetentionReportsHorizonsAndRisk) {
  RefOptions tag;
  tag.snapshot_id = s1_;
  tag.max_ref_age_ms = 25 * kDay;
  ASSERT_OK(CreateOrReplaceTag(*table_, "audit", tag));
  ASSERT_OK_AND_ASSIGN(auto r, CheckRetention(*table_, 30 * kDay, now_));
  EXPECT_EQ(r.snapshot_count, 3);
  EXPECT_EQ(r.oldest_snapshot_id, s1_);
  ASSERT_EQ(r.refs.size(), 2u);
  EXPECT_EQ(r.refs[0].name, "main");
  EXPECT_EQ(r.refs[0].oldest_timestamp_ms, now_ - 20 * kDay);
  EXPECT_EQ(r.refs[0].ancestors_kept, 3);
  // The next expiry (5 days, keep 1) would leave main readable back to s3 only.
  EXPECT_EQ(r.refs[0].oldest_after_next_expiry_ms, now_ - kDay);
  EXPECT_EQ(r.refs[1].name, "audit");
  EXPECT_EQ(r.refs[1].ref_expires_at_ms, now_ - 20 * kDay + 25 * kDay);
  EXPECT_EQ(r.history_only_files, 2);  // the manifest lists of s1 and s2
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_NE(r.problems[0].find("would expire snapshot " + std::to_string(s2_)), std::string::npos)
      << r.problems[0];
  EXPECT_NE(
      r.problems[1].find("history.expire.max-snapshot-age-ms is 5d, shorter than the required 30d"),
      std::string::npos)
      << r.problems[1];

  // With a 40-day policy the 30-day requirement holds.
  ASSERT_OK(CommitUpdate(*table_, [](TableMetadataBuilder& b, std::vector<std::string>*) {
    b.SetProperties({{"history.expire.max-snapshot-age-ms", std::to_string(40 * kDay)}});
    return Status::OK();
  }));
  ASSERT_OK_AND_ASSIGN(r, CheckRetention(*table_, 30 * kDay, now_));
  EXPECT_TRUE(r.problems.empty()) << r.problems[0];
  EXPECT_EQ(r.refs[0].oldest_after_next_expiry_ms, now_ - 20 * kDay);

  // Once s1 and s2 are gone, main cannot be read 30 days back any more.
  ExpireSnapshotsOptions options;
  options.older_than_ms = now_;
  ASSERT_OK(DropTag(*table_, "audit"));
  ASSERT_OK(ExpireSnapshots(*table_, options).status());
  ASSERT_OK_AND_ASSIGN(r, CheckRetention(*table_, 30 * kDay, now_));
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("main can already be read back only to"), std::string::npos)
      << r.problems[0];
}

}  // namespace
}  // namespace floe::table
