#include "floe/table/remove_orphan_files.h"

#include <filesystem>
#include <set>

#include "floe/scan/table_scan.h"
#include "floe/table/commit.h"
#include "floe/table/reachable_files.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/update_properties.h"
#include "floe/table/verify_table.h"
#include "floe/util/clock.h"
#include "table_test_util.h"

#include <gmock/gmock.h>

namespace floe::table {
namespace {

using floe::testing::FilesUnder;
using floe::testing::People;
using floe::testing::Range;
using floe::testing::SortedIds;

constexpr int64_t kHour = 60 * 60 * 1000;

class RemoveOrphanFilesTest : public floe::testing::PeopleTableTest {
 protected:
  std::string Location() const { return table_->metadata()->location; }

  // A stray file with the given age.
  std::string Plant(const std::string& relative, int64_t age_ms) {
    std::string path = Location() + "/" + relative;
    EXPECT_OK(wh_.io->WriteFile(path, FileKind::kOther, "stray"));
    SetAge(path, age_ms);
    return path;
  }
  static void SetAge(const std::string& path, int64_t age_ms) {
    auto when = std::filesystem::file_time_type::clock::now() - std::chrono::milliseconds(age_ms);
    std::filesystem::last_write_time(path, when);
  }
  // Every file of the table made old, so only what is in use protects it.
  void AgeEverything(int64_t age_ms) {
    for (const auto& f : FilesUnder(*wh_.io, Location())) SetAge(f, age_ms);
  }
  std::vector<int64_t> Ids() {
    auto rows = scan::TableScan(table_).ToArrowTable();
    EXPECT_OK(rows.status());
    return rows.ok() ? SortedIds(**rows) : std::vector<int64_t>{};
  }
  void ExpectAllPresent() {
    ASSERT_OK_AND_ASSIGN(
        auto report, VerifyTableFiles(*wh_.io, *table_->metadata(), table_->metadata_location()));
    EXPECT_TRUE(report.ok()) << report.problems.size() << " problems, first: "
                             << (report.ok() ? "" : report.problems[0].file.location);
  }
};

TEST_F(RemoveOrphanFilesTest, DryRunListsExactlyThePlantedOrphansAndDeletesNothing) {
  ASSERT_OK(AppendData(*table_, *People(0, 10)).status());
  ASSERT_OK(AppendData(*table_, *People(10, 5)).status());
  AgeEverything(4 * 24 * kHour);
  std::string a = Plant("data/stray-1.parquet", 4 * 24 * kHour);
  std::string b = Plant("metadata/snap-1-1-lost.avro", 4 * 24 * kHour);
  std::string c = Plant("data/id=3/deep/stray-2.parquet", 5 * 24 * kHour);
  auto before = FilesUnder(*wh_.io, Location());

  RemoveOrphanFilesOptions options;
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, options));
  std::vector<std::string> expected = {a, c, b};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(result.orphan_file_locations, expected);
  EXPECT_EQ(FilesUnder(*wh_.io, Location()), before);

  // The same run for real deletes exactly those.
  options.dry_run = false;
  ASSERT_OK_AND_ASSIGN(result, RemoveOrphanFiles(*table_, options));
  EXPECT_EQ(result.orphan_file_locations, expected);
  auto after = before;
  for (const auto& f : expected) after.erase(f);
  EXPECT_EQ(FilesUnder(*wh_.io, Location()), after);
  EXPECT_EQ(Ids(), Range(0, 15));
  ExpectAllPresent();
  // Nothing is left to find.
  ASSERT_OK_AND_ASSIGN(result, RemoveOrphanFiles(*table_, options));
  EXPECT_TRUE(result.orphan_file_locations.empty());
}

TEST_F(RemoveOrphanFilesTest, DefaultOlderThanKeepsFilesYoungerThanThreeDays) {
  ASSERT_OK(AppendData(*table_, *People(0, 10)).status());
  std::string young = Plant("data/young.parquet", 2 * 24 * kHour);
  std::string old = Plant("data/old.parquet", 3 * 24 * kHour + kHour);
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, {}));
  EXPECT_EQ(result.orphan_file_locations, std::vector<std::string>{old});
  EXPECT_TRUE(std::filesystem::exists(young));
  EXPECT_FALSE(std::filesystem::exists(old));
}

TEST_F(RemoveOrphanFilesTest, OlderThanIsStrict) {
  std::string f = Plant("data/x.parquet", 0);
  int64_t mtime = 0;
  for (const auto& e : *wh_.io->ListFiles(Location())) {
    if (e.path == f) mtime = e.last_modified_ms;
  }
  ASSERT_GT(mtime, 0);
  RemoveOrphanFilesOptions options;
  options.dry_run = true;
  options.older_than_ms = mtime;
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, options));
  EXPECT_TRUE(result.orphan_file_locations.empty());
  options.older_than_ms = mtime + 1;
  ASSERT_OK_AND_ASSIGN(result, RemoveOrphanFiles(*table_, options));
  EXPECT_EQ(result.orphan_file_locations, std::vector<std::string>{f});
}

TEST_F(RemoveOrphanFilesTest, FilesOfEverySnapshotAndMetadataVersionAreKept) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 10)));
  ASSERT_OK(OverwriteData(*table_, *People(100, 5), OverwriteFilter::All()).status());
  ASSERT_OK(RollbackToSnapshot(*table_, s1).status());
  ASSERT_OK(UpdateProperties(*table_, {{{"gc.enabled", "TRUE"}}, {}}));
  std::string stray = Plant("data/stray.parquet", 0);
  auto reachable = CollectReachableFiles(*wh_.io, *table_->metadata(), table_->metadata_location());
  RemoveOrphanFilesOptions options;
  options.older_than_ms = NowMillis() + kHour;  // every file is a candidate
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, options));
  EXPECT_EQ(result.orphan_file_locations, std::vector<std::string>{stray});
  std::set<std::string> all;
  for (const auto* set : {&reachable.metadata_files, &reachable.manifest_lists,
                          &reachable.manifests, &reachable.content_files}) {
    all.insert(set->begin(), set->end());
  }
  EXPECT_EQ(FilesUnder(*wh_.io, Location()), all);
  EXPECT_EQ(Ids(), Range(0, 10));
  // The overwritten snapshot still reads.
  ASSERT_OK_AND_ASSIGN(auto rows, scan::TableScan(table_)
                                      .UseSnapshot(table_->metadata()->snapshots[1].snapshot_id)
                                      .ToArrowTable());
  EXPECT_EQ(SortedIds(*rows), Range(100, 5));
}

TEST_F(RemoveOrphanFilesTest, FilesOlderMetadataInTheLogReachAreKeptUntilItLeavesTheLog) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 3)));
  ASSERT_OK_AND_ASSIGN(int64_t s2, AppendData(*table_, *People(3, 3)));
  auto with_s2 = CollectReachableFiles(*wh_.io, *table_->metadata(), "");
  // A commit that drops s2 from the metadata, as an expiry that keeps files would.
  ASSERT_OK(Commit(*table_,
                   [&](const spec::TableMetadataPtr& base,
                       std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
                     auto md = std::make_shared<spec::TableMetadata>(*base);
                     std::erase_if(md->snapshots,
                                   [&](const spec::Snapshot& s) { return s.snapshot_id == s2; });
                     std::erase_if(md->snapshot_log, [&](const spec::SnapshotLogEntry& e) {
                       return e.snapshot_id == s2;
                     });
                     md->current_snapshot_id = s1;
                     md->refs.at("main").snapshot_id = s1;
                     return md;
                   }));
  auto without_s2 = CollectReachableFiles(*wh_.io, *table_->metadata(), "");
  std::set<std::string> only_s2;
  for (const auto* set : {&with_s2.manifest_lists, &with_s2.manifests, &with_s2.content_files}) {
    for (const auto& f : *set) {
      if (!without_s2.manifest_lists.count(f) && !without_s2.manifests.count(f) &&
          !without_s2.content_files.count(f)) {
        only_s2.insert(f);
      }
    }
  }
  ASSERT_EQ(only_s2.size(), 3u);  // its manifest list, manifest and data file
  RemoveOrphanFilesOptions options;
  options.older_than_ms = NowMillis() + kHour;
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, options));
  EXPECT_TRUE(result.orphan_file_locations.empty());

  // Once the metadata files that knew s2 leave the log, its files and they are orphans.
  auto log_before = table_->metadata()->metadata_log;
  const std::string dropping_s2 = table_->metadata_location();
  ASSERT_OK(UpdateProperties(*table_, {{{"write.metadata.previous-versions-max", "1"}}, {}}));
  ASSERT_OK(UpdateProperties(*table_, {{{"k", "v"}}, {}}));
  std::set<std::string> expected = only_s2;
  for (const auto& e : log_before) expected.insert(e.metadata_file);
  expected.insert(dropping_s2);
  ASSERT_OK_AND_ASSIGN(result, RemoveOrphanFiles(*table_, options));
  EXPECT_EQ(std::set<std::string>(result.orphan_file_locations.begin(),
                                  result.orphan_file_locations.end()),
            expected);
  EXPECT_EQ(Ids(), Range(0, 3));
  ExpectAllPresent();
}

TEST_F(RemoveOrphanFilesTest, VersionHintAndStatisticsFilesAreNotOrphans) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 3)));
  std::string hint = Plant("metadata/version-hint.text", 0);
  std::string stats = Plant("metadata/stats-1.puffin", 0);
  std::string part_stats = Plant("metadata/partition-stats-1.parquet", 0);
  ASSERT_OK(
      Commit(*table_,
             [&](const spec::TableMetadataPtr& base,
                 std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
               auto md = std::make_shared<spec::TableMetadata>(*base);
               md->statistics.push_back(spec::StatisticsFile{s1, stats, 5, 0, "", {}});
               md->partition_statistics.push_back(spec::PartitionStatisticsFile{s1, part_stats, 5});
               return md;
             }));
  std::string stray = Plant("metadata/stray.puffin", 0);
  RemoveOrphanFilesOptions options;
  options.older_than_ms = NowMillis() + kHour;
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, options));
  EXPECT_EQ(result.orphan_file_locations, std::vector<std::string>{stray});
  EXPECT_TRUE(std::filesystem::exists(hint));
  EXPECT_TRUE(std::filesystem::exists(stats));
  EXPECT_TRUE(std::filesystem::exists(part_stats));
}

TEST_F(RemoveOrphanFilesTest, LocationNarrowsTheListingAndMustLieUnderTheTable) {
  std::string in_data = Plant("data/a.parquet", 0);
  Plant("metadata/b.avro", 0);
  RemoveOrphanFilesOptions options;
  options.older_than_ms = NowMillis() + kHour;
  options.dry_run = true;
  options.location = Location() + "/data";
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, options));
  EXPECT_EQ(result.orphan_file_locations, std::vector<std::string>{in_data});

  for (std::string outside : {wh_.dir.str(), wh_.dir.str() + "/wh/db", Location() + "-other",
                              Location() + "/../x", std::string("s3://bucket/db/people")}) {
    options.location = outside;
    auto refused = RemoveOrphanFiles(*table_, options);
    ASSERT_FALSE(refused.ok()) << outside;
    EXPECT_EQ(refused.status().message(), "Cannot remove orphan files under " + outside +
                                              ": it is not under the location " + Location() +
                                              " of table lakehouse.db.people");
  }
}

TEST_F(RemoveOrphanFilesTest, NothingOutsideTheTableDirectoriesIsDeleted) {
  // Another table's files and files beside the table, all old and unreferenced here.
  std::string beside = wh_.dir.str() + "/wh/db/people-beside/x.parquet";
  ASSERT_OK(wh_.io->WriteFile(beside, FileKind::kOther, "x"));
  SetAge(beside, 10 * 24 * kHour);
  // A symbolic link inside the table to a directory outside it.
  std::string outside_dir = wh_.dir.str() + "/elsewhere";
  ASSERT_OK(wh_.io->WriteFile(outside_dir + "/precious.parquet", FileKind::kOther, "x"));
  SetAge(outside_dir + "/precious.parquet", 10 * 24 * kHour);
  std::filesystem::create_directories(Location() + "/data");
  std::filesystem::create_symlink(outside_dir, Location() + "/data/link");
  RemoveOrphanFilesOptions options;
  options.older_than_ms = NowMillis() + kHour;
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, options));
  EXPECT_TRUE(result.orphan_file_locations.empty());
  EXPECT_TRUE(std::filesystem::exists(beside));
  EXPECT_TRUE(std::filesystem::exists(outside_dir + "/precious.parquet"));
}

TEST_F(RemoveOrphanFilesTest, GcDisabledIsRefused) {
  ASSERT_OK(UpdateProperties(*table_, {{{"gc.enabled", "false"}}, {}}));
  std::string stray = Plant("data/stray.parquet", 10 * 24 * kHour);
  auto refused = RemoveOrphanFiles(*table_, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "Cannot delete orphan files: GC is disabled (deleting files may corrupt other tables)");
  EXPECT_TRUE(std::filesystem::exists(stray));
}

TEST_F(RemoveOrphanFilesTest, UnreadableManifestListRefusesToDeleteAnything) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 3)));
  ASSERT_OK(AppendData(*table_, *People(3, 3)).status());
  std::string stray = Plant("data/stray.parquet", 10 * 24 * kHour);
  const std::string list = table_->metadata()->SnapshotById(s1)->manifest_list;
  std::filesystem::remove(list);
  RemoveOrphanFilesOptions options;
  options.older_than_ms = NowMillis() + kHour;
  auto refused = RemoveOrphanFiles(*table_, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "Cannot remove orphan files of table lakehouse.db.people: cannot read " + list +
                ", which its current metadata references; nothing was deleted");
  EXPECT_TRUE(std::filesystem::exists(stray));
  // A damaged manifest is refused the same way.
  ASSERT_OK(wh_.io->WriteFile(list, FileKind::kOther, "not avro"));
  refused = RemoveOrphanFiles(*table_, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(std::filesystem::exists(stray));
}

TEST_F(RemoveOrphanFilesTest, ACommitLandingDuringTheListingKeepsItsFiles) {
  ASSERT_OK(AppendData(*table_, *People(0, 3)).status());
  // A writer's files, written before the listing and committed while it runs.
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(*table_, *People(3, 4)));
  auto writer = std::make_shared<Table>(table_->ident(), table_->catalog(), table_->io(),
                                        table_->metadata(), table_->metadata_location());
  RemoveOrphanFilesOptions options;
  options.older_than_ms = NowMillis() + kHour;
  options.after_listing = [&] { ASSERT_OK(AppendFiles(*writer, files).status()); };
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, options));
  EXPECT_TRUE(result.orphan_file_locations.empty());
  EXPECT_EQ(Ids(), Range(0, 7));
  ExpectAllPresent();
}

TEST_F(RemoveOrphanFilesTest, AWriteInFlightLosesItsFilesWhenOlderThanIsAfterItsStart) {
  // The race no orphan removal can see: files written, not yet committed.
  ASSERT_OK(AppendData(*table_, *People(0, 3)).status());
  int64_t write_started = NowMillis();
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(*table_, *People(3, 4)));
  for (const auto& f : files) SetAge(f.file_path, 0);
  RemoveOrphanFilesOptions options;
  options.older_than_ms = write_started - 1000;  // safe: before the write started
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, options));
  EXPECT_TRUE(result.orphan_file_locations.empty());
  options.older_than_ms = NowMillis() + kHour;  // unsafe: the in-flight file is a candidate
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(result, RemoveOrphanFiles(*table_, options));
  ASSERT_EQ(result.orphan_file_locations.size(), files.size());
  EXPECT_EQ(result.orphan_file_locations[0], files[0].file_path);
  // Committed after all, the write reads.
  ASSERT_OK(AppendFiles(*table_, files).status());
  EXPECT_EQ(Ids(), Range(0, 7));
}

TEST_F(RemoveOrphanFilesTest, FileListInsteadOfListing) {
  ASSERT_OK(AppendData(*table_, *People(0, 3)).status());
  std::string data_file =
      *CollectReachableFiles(*wh_.io, *table_->metadata(), "").content_files.begin();
  std::string stray = Plant("data/stray.parquet", 0);
  RemoveOrphanFilesOptions options;
  options.older_than_ms = NowMillis();
  options.dry_run = true;
  options.file_list =
      std::vector<ListedFile>{{data_file, 0},
                              {stray, 0},
                              {"file://" + Location() + "/data/gone.parquet", 0},
                              {Location() + "/data/young.parquet", NowMillis() + kHour},
                              {wh_.dir.str() + "/elsewhere.parquet", 0}};
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, options));
  EXPECT_EQ(result.orphan_file_locations,
            (std::vector<std::string>{stray, "file://" + Location() + "/data/gone.parquet"}));
}

TEST_F(RemoveOrphanFilesTest, SchemeAndAuthorityConflicts) {
  ASSERT_OK(AppendData(*table_, *People(0, 3)).status());
  std::string data_file =
      *CollectReachableFiles(*wh_.io, *table_->metadata(), "").content_files.begin();
  RemoveOrphanFilesOptions options;
  options.older_than_ms = NowMillis() + kHour;
  options.dry_run = true;
  // A file: URI of a file in use is the same file, with or without a host.
  options.file_list =
      std::vector<ListedFile>{{"file://" + data_file, 0}, {"file://localhost" + data_file, 0}};
  ASSERT_OK_AND_ASSIGN(auto result, RemoveOrphanFiles(*table_, options));
  EXPECT_TRUE(result.orphan_file_locations.empty());

  // The metadata names s3://bucket<path> for a local file at <path>: the paths match, the
  // schemes and authorities do not.
  std::string local = Plant("data/twin.parquet", 0);
  ASSERT_OK_AND_ASSIGN(auto written, WriteDataFiles(*table_, *People(3, 1)));
  manifest::DataFile remote = written[0];
  remote.file_path = "s3://bucket" + local;
  ASSERT_OK(AppendFiles(*table_, {remote}).status());
  options.file_list.reset();
  options.location = Location() + "/data";
  options.older_than_ms = NowMillis() + kHour;
  auto conflict = RemoveOrphanFiles(*table_, options);
  ASSERT_FALSE(conflict.ok());
  EXPECT_THAT(conflict.status().message(),
              ::testing::EndsWith("Conflicting authorities/schemes: [(bucket, ), (s3, file)]."));
  options.prefix_mismatch_mode = PrefixMismatchMode::kIgnore;
  ASSERT_OK_AND_ASSIGN(result, RemoveOrphanFiles(*table_, options));
  EXPECT_EQ(result.orphan_file_locations, std::vector<std::string>{written[0].file_path});
  options.prefix_mismatch_mode = PrefixMismatchMode::kDelete;
  ASSERT_OK_AND_ASSIGN(result, RemoveOrphanFiles(*table_, options));
  std::vector<std::string> both = {written[0].file_path, local};
  std::sort(both.begin(), both.end());
  EXPECT_EQ(result.orphan_file_locations, both);
  // Declared equal, s3 and file still differ in authority.
  options.prefix_mismatch_mode = PrefixMismatchMode::kError;
  options.equal_schemes = {{"s3", "file"}};
  conflict = RemoveOrphanFiles(*table_, options);
  ASSERT_FALSE(conflict.ok());
  EXPECT_THAT(conflict.status().message(),
              ::testing::EndsWith("Conflicting authorities/schemes: [(bucket, )]."));

  EXPECT_EQ(ParsePrefixMismatchMode("Delete").ValueOrDie(), PrefixMismatchMode::kDelete);
  EXPECT_EQ(ParsePrefixMismatchMode("none").status().message(), "Invalid mode: none");
}

}  // namespace
}  // namespace floe::table
