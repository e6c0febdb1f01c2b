// Appends and overwrites merge small manifests as Iceberg's MergeAppend does.
#include <map>
#include <set>

#include "floe/manifest/manifest_reader.h"
#include "floe/scan/table_scan.h"
#include "floe/table/conflict_validation.h"
#include "floe/table/manifest_merge.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/update_properties.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;
using floe::testing::Range;
using floe::testing::SortedIds;
using manifest::EntryStatus;
using manifest::ManifestEntry;
using manifest::ManifestFile;

class ManifestMergeTest : public ::testing::Test {
 protected:
  void Create(std::map<std::string, std::string> properties = {}) {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
    CreateTableOptions options;
    options.properties = std::move(properties);
    options.properties["commit.retry.min-wait-ms"] = "1";
    options.properties["commit.retry.max-wait-ms"] = "5";
    ASSERT_OK_AND_ASSIGN(table_, wh_.tables->CreateTable(ident_, *schema, options));
  }

  std::vector<ManifestFile> Manifests(int64_t snapshot_id) {
    const spec::Snapshot* snap = table_->metadata()->SnapshotById(snapshot_id);
    EXPECT_NE(snap, nullptr);
    if (!snap) return {};
    auto list = manifest::ReadManifestList(*wh_.io, snap->manifest_list);
    EXPECT_TRUE(list.ok()) << list.status().ToString();
    return list.ok() ? *list : std::vector<ManifestFile>{};
  }

  std::vector<ManifestEntry> Entries(const ManifestFile& mf) {
    auto entries = manifest::ReadManifest(*wh_.io, mf, *table_->metadata());
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    return entries.ok() ? *entries : std::vector<ManifestEntry>{};
  }

  std::vector<int64_t> IdsAt(int64_t snapshot_id) {
    scan::TableScan scan(table_);
    scan.UseSnapshot(snapshot_id);
    auto rows = scan.ToArrowTable();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? SortedIds(**rows) : std::vector<int64_t>{};
  }

  // Every manifest and manifest list under metadata/ is referenced by some snapshot.
  void ExpectNoStrayManifests() {
    auto md = table_->metadata();
    std::set<std::string> referenced;
    for (const auto& s : md->snapshots) {
      referenced.insert(s.manifest_list);
      for (const auto& mf : Manifests(s.snapshot_id)) referenced.insert(mf.manifest_path);
    }
    std::set<std::string> avro;
    for (const auto& f : floe::testing::FilesUnder(*wh_.io, md->location + "/metadata")) {
      if (f.size() > 5 && f.substr(f.size() - 5) == ".avro") avro.insert(f);
    }
    EXPECT_EQ(avro, referenced);
  }

  floe::testing::Warehouse wh_;
  TableIdentifier ident_{Namespace({"db"}), "t"};
  std::shared_ptr<Table> table_;
};

TEST_F(ManifestMergeTest, OptionsComeFromTableProperties) {
  spec::TableMetadata md;
  ASSERT_OK_AND_ASSIGN(auto defaults, ManifestMergeOptions::FromMetadata(md));
  EXPECT_TRUE(defaults.enabled);
  EXPECT_EQ(defaults.min_count_to_merge, 100);
  EXPECT_EQ(defaults.target_size_bytes, 8 << 20);
  md.properties = {{"commit.manifest-merge.enabled", "FALSE"},
                   {"commit.manifest.min-count-to-merge", "7"},
                   {"commit.manifest.target-size-bytes", "4096"}};
  ASSERT_OK_AND_ASSIGN(auto set, ManifestMergeOptions::FromMetadata(md));
  EXPECT_FALSE(set.enabled);
  EXPECT_EQ(set.min_count_to_merge, 7);
  EXPECT_EQ(set.target_size_bytes, 4096);
  md.properties = {{"commit.manifest.min-count-to-merge", "many"}};
  ASSERT_RAISES_WITH_MESSAGE(
      "Invalid value for commit.manifest.min-count-to-merge: 'many' (expected an integer)",
      ManifestMergeOptions::FromMetadata(md));
}

TEST_F(ManifestMergeTest, HundredFiftyAppendsKeepFewManifestsAndEveryRow) {
  Create();
  std::vector<int64_t> snapshots;
  for (int64_t i = 0; i < 150; ++i) {
    ASSERT_OK_AND_ASSIGN(int64_t id, AppendData(*table_, *People(i, 1)));
    snapshots.push_back(id);
  }
  auto md = table_->metadata();
  // The 100th append reached the minimum count and merged all 100 manifests into one; the
  // 50 appends since each added one.
  auto manifests = Manifests(snapshots.back());
  ASSERT_EQ(manifests.size(), 51u);
  const ManifestFile& merged = manifests.back();
  EXPECT_EQ(merged.added_snapshot_id, snapshots[99]);
  EXPECT_EQ(merged.added_files_count, 1);
  EXPECT_EQ(merged.existing_files_count, 99);
  EXPECT_EQ(merged.deleted_files_count, 0);
  EXPECT_EQ(merged.added_rows_count, 1);
  EXPECT_EQ(merged.existing_rows_count, 99);
  EXPECT_EQ(merged.sequence_number, md->SnapshotById(snapshots[99])->sequence_number);
  EXPECT_EQ(merged.min_sequence_number, md->SnapshotById(snapshots[0])->sequence_number);
  EXPECT_EQ(Manifests(snapshots[98]).size(), 99u);
  EXPECT_EQ(Manifests(snapshots[99]).size(), 1u);

  // Each file keeps the snapshot id and sequence numbers of the append that added it.
  std::map<int64_t, int> seen;
  int existing = 0;
  for (const auto& mf : manifests) {
    for (const auto& e : Entries(mf)) {
      ASSERT_TRUE(e.snapshot_id.has_value());
      const spec::Snapshot* added_by = md->SnapshotById(*e.snapshot_id);
      ASSERT_NE(added_by, nullptr) << e.data_file.file_path;
      EXPECT_EQ(e.sequence_number, added_by->sequence_number) << e.data_file.file_path;
      EXPECT_EQ(e.file_sequence_number, added_by->sequence_number) << e.data_file.file_path;
      EXPECT_EQ(e.status == EntryStatus::kExisting, *e.snapshot_id != mf.added_snapshot_id);
      existing += e.status == EntryStatus::kExisting;
      ++seen[*e.snapshot_id];
    }
  }
  EXPECT_EQ(existing, 99);
  ASSERT_EQ(seen.size(), 150u);
  for (int64_t id : snapshots) EXPECT_EQ(seen[id], 1) << id;

  EXPECT_EQ(IdsAt(snapshots.back()), Range(0, 150));
  EXPECT_EQ(IdsAt(snapshots[0]), Range(0, 1));
  EXPECT_EQ(IdsAt(snapshots[40]), Range(0, 41));
  EXPECT_EQ(IdsAt(snapshots[99]), Range(0, 100));
  EXPECT_EQ(IdsAt(snapshots[120]), Range(0, 121));
  EXPECT_EQ(md->SnapshotById(snapshots.back())->summary.at("total-data-files"), "150");
  EXPECT_EQ(md->SnapshotById(snapshots[99])->summary.at("added-data-files"), "1");
  ExpectNoStrayManifests();
}

TEST_F(ManifestMergeTest, DisabledKeepsOneManifestPerAppend) {
  Create({{"commit.manifest-merge.enabled", "false"}, {"commit.manifest.min-count-to-merge", "3"}});
  int64_t last = 0;
  for (int64_t i = 0; i < 8; ++i) {
    ASSERT_OK_AND_ASSIGN(last, AppendData(*table_, *People(i, 1)));
  }
  auto manifests = Manifests(last);
  ASSERT_EQ(manifests.size(), 8u);
  for (const auto& mf : manifests) EXPECT_EQ(mf.added_files_count, 1);
  EXPECT_EQ(IdsAt(last), Range(0, 8));
}

TEST_F(ManifestMergeTest, TargetSizeBelowTwoManifestsMergesNothing) {
  Create({{"commit.manifest.min-count-to-merge", "2"}});
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 1)));
  auto one = Manifests(s1);
  ASSERT_EQ(one.size(), 1u);
  // Each manifest fills a bin alone, and a bin of one is never rewritten.
  ASSERT_OK(UpdateProperties(*table_, {{{"commit.manifest.target-size-bytes",
                                         std::to_string(one[0].manifest_length * 3 / 2)}},
                                       {}}));
  ASSERT_OK(AppendData(*table_, *People(1, 1)).status());
  ASSERT_OK_AND_ASSIGN(int64_t s3, AppendData(*table_, *People(2, 1)));
  auto three = Manifests(s3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0].added_snapshot_id, s3);
  EXPECT_EQ(three[2].manifest_path, one[0].manifest_path);
  EXPECT_EQ(IdsAt(s3), Range(0, 3));
  ExpectNoStrayManifests();
}

TEST_F(ManifestMergeTest, OverwriteMergesItsDeletionsAndLaterMergesDropThem) {
  Create({{"commit.manifest.min-count-to-merge", "2"}});
  ASSERT_OK(AppendData(*table_, *People(0, 1)).status());
  ASSERT_OK(AppendData(*table_, *People(1, 1)).status());
  ASSERT_OK_AND_ASSIGN(
      int64_t s3, OverwriteData(*table_, *People(10, 1), OverwriteFilter::Where([](const manifest::DataFile& f) {
                                  return f.lower_bounds.at(1) == spec::ToSingleValueBinary(spec::Literal::Long(0));
                                }, "id = 0")));
  auto manifests = Manifests(s3);
  ASSERT_EQ(manifests.size(), 1u);
  EXPECT_EQ(manifests[0].added_files_count, 1);
  EXPECT_EQ(manifests[0].existing_files_count, 1);
  EXPECT_EQ(manifests[0].deleted_files_count, 1);
  auto md = table_->metadata();
  const auto& summary = md->SnapshotById(s3)->summary;
  EXPECT_EQ(summary.at("added-data-files"), "1");
  EXPECT_EQ(summary.at("deleted-data-files"), "1");
  EXPECT_EQ(summary.at("total-data-files"), "2");
  // Conflict validation still finds what the overwrite added and removed.
  ASSERT_OK_AND_ASSIGN(auto changes, CollectChangesSince(*wh_.io, *md, "t", s3, md->SnapshotById(s3)->parent_snapshot_id));
  ASSERT_EQ(changes.added.size(), 1u);
  ASSERT_EQ(changes.deleted.size(), 1u);
  EXPECT_EQ(IdsAt(s3), (std::vector<int64_t>{1, 10}));

  ASSERT_OK_AND_ASSIGN(int64_t s4, AppendData(*table_, *People(20, 1)));
  manifests = Manifests(s4);
  ASSERT_EQ(manifests.size(), 1u);
  EXPECT_EQ(manifests[0].added_files_count, 1);
  EXPECT_EQ(manifests[0].existing_files_count, 2);
  EXPECT_EQ(manifests[0].deleted_files_count, 0);
  EXPECT_EQ(IdsAt(s4), (std::vector<int64_t>{1, 10, 20}));
  ExpectNoStrayManifests();
}

TEST_F(ManifestMergeTest, RetriedAppendMergesAgainstTheNewBaseAndLeavesNoStrayFile) {
  Create({{"commit.manifest.min-count-to-merge", "3"}});
  ASSERT_OK(AppendData(*table_, *People(0, 1)).status());
  // A writer loaded the table at one snapshot; another then commits twice.
  ASSERT_OK_AND_ASSIGN(auto stale, wh_.tables->LoadTable(ident_));
  ASSERT_OK(AppendData(*table_, *People(1, 1)).status());
  // Its first attempt sees two manifests (no merge), the retry three (a merge).
  ASSERT_OK_AND_ASSIGN(int64_t last, AppendData(*stale, *People(2, 1)));
  ASSERT_OK(table_->Refresh());
  auto manifests = Manifests(last);
  ASSERT_EQ(manifests.size(), 1u);
  EXPECT_EQ(manifests[0].added_files_count, 1);
  EXPECT_EQ(manifests[0].existing_files_count, 2);
  EXPECT_EQ(IdsAt(last), Range(0, 3));
  ExpectNoStrayManifests();
}

}  // namespace
}  // namespace floe::table
