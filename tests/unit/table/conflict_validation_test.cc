// Overwrites validate what others committed since the snapshot they read; appends retry
// freely; failed attempts leave no file behind.
#include <set>

#include "floe/scan/table_scan.h"
#include "floe/table/commit.h"
#include "floe/table/conflict_validation.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::Concat;
using floe::testing::People;
using floe::testing::Range;
using floe::testing::SortedIds;

using floe::testing::FilesUnder;

// The data files a snapshot added, by path.
std::vector<std::string> AddedPaths(FileIO& io, const spec::TableMetadata& md, int64_t snapshot) {
  auto changes = CollectChangesSince(io, md, "t", snapshot, md.SnapshotById(snapshot)->parent_snapshot_id);
  std::vector<std::string> out;
  if (!changes.ok()) return out;
  for (const auto& f : changes->added) out.push_back(f.file_path);
  return out;
}

class ConflictTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
    options_.properties["commit.retry.min-wait-ms"] = "1";
    options_.properties["commit.retry.max-wait-ms"] = "5";
    ASSERT_OK_AND_ASSIGN(table_, wh_.tables->CreateTable(ident_, *schema, options_));
    ASSERT_OK_AND_ASSIGN(first_, AppendData(*table_, *People(0, 2)));
  }

  std::shared_ptr<arrow::Table> Read(const std::shared_ptr<Table>& t) {
    auto rows = scan::TableScan(t).ToArrowTable();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : nullptr;
  }

  floe::testing::Warehouse wh_;
  TableIdentifier ident_{Namespace({"db"}), "t"};
  CreateTableOptions options_;
  std::shared_ptr<Table> table_;
  int64_t first_ = 0;
};

TEST_F(ConflictTest, OverwriteOfWholeTableFailsWhenRowsWereAppendedSinceItRead) {
  // The overwriter reads the table (2 rows), then another writer appends 3 rows.
  ASSERT_OK_AND_ASSIGN(auto overwriter, wh_.tables->LoadTable(ident_));
  auto read = Read(overwriter);
  ASSERT_OK_AND_ASSIGN(int64_t appended, AppendData(*table_, *People(10, 3)));
  auto before = FilesUnder(*wh_.io, table_->metadata()->location);
  const std::string pointer = table_->metadata_location();

  auto added = AddedPaths(*wh_.io, *table_->metadata(), appended);
  ASSERT_EQ(added.size(), 1u);
  ASSERT_RAISES_WITH_MESSAGE(
      "Found conflicting files that can contain records matching true: [" + added[0] + "]",
      OverwriteData(*overwriter, *read, OverwriteFilter::All()));

  // Nothing changed: same pointer, same files (the overwrite's data files, manifests and
  // manifest lists are gone), and the appended rows are all there.
  ASSERT_OK_AND_ASSIGN(std::string now, wh_.catalog->LoadMetadataLocation(ident_));
  EXPECT_EQ(now, pointer);
  EXPECT_EQ(FilesUnder(*wh_.io, table_->metadata()->location), before);
  EXPECT_EQ(SortedIds(*Read(table_)), Concat(Range(0, 2), Range(10, 3)));
}

TEST_F(ConflictTest, OverwriteThatReadTheLatestSnapshotCommits) {
  ASSERT_OK(AppendData(*table_, *People(10, 3)).status());
  ASSERT_OK_AND_ASSIGN(auto overwriter, wh_.tables->LoadTable(ident_));
  auto read = Read(overwriter);
  ASSERT_OK_AND_ASSIGN(int64_t id, OverwriteData(*overwriter, *read, OverwriteFilter::All()));
  EXPECT_EQ(overwriter->metadata()->current_snapshot_id, id);
  EXPECT_EQ(SortedIds(*Read(overwriter)), Concat(Range(0, 2), Range(10, 3)));
}

TEST_F(ConflictTest, SnapshotIsolationLetsTheOverwriteReplaceNewFiles) {
  ASSERT_OK_AND_ASSIGN(auto overwriter, wh_.tables->LoadTable(ident_));
  ASSERT_OK(AppendData(*table_, *People(10, 3)).status());
  WriteOptions options;
  options.isolation = IsolationLevel::kSnapshot;
  ASSERT_OK_AND_ASSIGN(int64_t id, OverwriteData(*overwriter, *People(100, 1), OverwriteFilter::All(), options));
  auto md = overwriter->metadata();
  EXPECT_EQ(md->SnapshotById(id)->summary.at("deleted-data-files"), "2");
  EXPECT_EQ(SortedIds(*Read(overwriter)), Range(100, 1));
}

TEST_F(ConflictTest, OverwriteFailsUnderEitherLevelWhenFilesItReplacesWereRemoved) {
  ASSERT_OK_AND_ASSIGN(auto overwriter, wh_.tables->LoadTable(ident_));
  std::vector<std::string> original = AddedPaths(*wh_.io, *table_->metadata(), first_);
  ASSERT_OK_AND_ASSIGN(int64_t replaced, OverwriteData(*table_, *People(50, 1), OverwriteFilter::All()));
  std::vector<std::string> replacement = AddedPaths(*wh_.io, *table_->metadata(), replaced);
  ASSERT_EQ(original.size(), 1u);
  ASSERT_EQ(replacement.size(), 1u);

  WriteOptions options;
  options.starting_snapshot_id = first_;
  options.isolation = IsolationLevel::kSnapshot;
  ASSERT_RAISES_WITH_MESSAGE(
      "Found conflicting deleted files that can contain records matching true: [" + original[0] + "]",
      OverwriteData(*overwriter, *People(60, 1), OverwriteFilter::All(), options));
  options.isolation = IsolationLevel::kSerializable;
  ASSERT_RAISES_WITH_MESSAGE(
      "Found conflicting files that can contain records matching true: [" + replacement[0] + "]",
      OverwriteData(*overwriter, *People(60, 1), OverwriteFilter::All(), options));
  EXPECT_EQ(SortedIds(*Read(table_)), Range(50, 1));
}

TEST_F(ConflictTest, DynamicPartitionOverwriteConflictsOnlyWithItsPartitions) {
  ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
  CreateTableOptions options = options_;
  options.partition_by = {{"name", spec::Transform::Identity(), ""}};
  TableIdentifier ident{Namespace({"db"}), "p"};
  ASSERT_OK_AND_ASSIGN(auto t, wh_.tables->CreateTable(ident, *schema, options));
  ASSERT_OK(AppendData(*t, *People(0, 3)).status());

  // Another partition: no conflict, the append survives.
  ASSERT_OK_AND_ASSIGN(auto overwriter, wh_.tables->LoadTable(ident));
  ASSERT_OK(AppendData(*t, *People(7, 1)).status());
  ASSERT_OK(OverwriteData(*overwriter, *People(1, 1), OverwriteFilter::DynamicPartitions()).status());
  EXPECT_EQ(SortedIds(*Read(overwriter)), (std::vector<int64_t>{0, 1, 2, 7}));

  // The same partition: the overwrite would drop the new row, so it fails.
  ASSERT_OK_AND_ASSIGN(overwriter, wh_.tables->LoadTable(ident));
  ASSERT_OK(AppendData(*t, *People(2, 1)).status());
  ASSERT_RAISES_WITH_MESSAGE(
      "Found conflicting files that can contain records matching partitions [name=person-2]: [",
      OverwriteData(*overwriter, *People(2, 1), OverwriteFilter::DynamicPartitions()));
  ASSERT_OK(t->Refresh());
  EXPECT_EQ(SortedIds(*Read(t)), (std::vector<int64_t>{0, 1, 2, 2, 7}));
}

TEST_F(ConflictTest, PredicateOverwriteNamesItsFilter) {
  ASSERT_OK_AND_ASSIGN(auto overwriter, wh_.tables->LoadTable(ident_));
  ASSERT_OK(AppendData(*table_, *People(10, 1)).status());
  auto filter = OverwriteFilter::Where([](const manifest::DataFile&) { return true; }, "id > 5");
  ASSERT_RAISES_WITH_MESSAGE("Found conflicting files that can contain records matching id > 5: [",
                             OverwriteData(*overwriter, *People(20, 1), filter));
  // A predicate that cannot match the new file lets the overwrite through.
  ASSERT_OK_AND_ASSIGN(overwriter, wh_.tables->LoadTable(ident_));
  ASSERT_OK(AppendData(*table_, *People(30, 1)).status());
  std::set<std::string> old_files;
  for (const auto& p : AddedPaths(*wh_.io, *table_->metadata(), first_)) old_files.insert(p);
  auto only_old = OverwriteFilter::Where(
      [old_files](const manifest::DataFile& f) { return old_files.count(f.file_path) > 0; }, "id < 2");
  ASSERT_OK(OverwriteData(*overwriter, *People(40, 1), only_old).status());
  EXPECT_EQ(SortedIds(*Read(overwriter)), (std::vector<int64_t>{10, 30, 40}));
}

TEST_F(ConflictTest, RewriteOfNamedFilesNeedsEachFileLive) {
  std::vector<std::string> original = AddedPaths(*wh_.io, *table_->metadata(), first_);
  ASSERT_RAISES_WITH_MESSAGE("Missing required files to delete: /nowhere/x.parquet",
                             OverwriteData(*table_, *People(5, 1), OverwriteFilter::Files({"/nowhere/x.parquet"})));
  ASSERT_OK_AND_ASSIGN(auto rewriter, wh_.tables->LoadTable(ident_));
  ASSERT_OK(OverwriteData(*table_, *People(50, 1), OverwriteFilter::All()).status());
  ASSERT_RAISES_WITH_MESSAGE("Found conflicting deleted files that can contain records matching the replaced files: [" +
                                 original[0] + "]",
                             OverwriteData(*rewriter, *People(5, 1), OverwriteFilter::Files(original)));
  ASSERT_OK_AND_ASSIGN(rewriter, wh_.tables->LoadTable(ident_));
  ASSERT_OK_AND_ASSIGN(int64_t id, OverwriteData(*rewriter, *People(5, 1),
                                                 OverwriteFilter::Files(AddedPaths(*wh_.io, *rewriter->metadata(),
                                                                                   rewriter->metadata()->current_snapshot_id.value()))));
  EXPECT_EQ(rewriter->metadata()->SnapshotById(id)->summary.at("deleted-records"), "1");
  EXPECT_EQ(SortedIds(*Read(rewriter)), Range(5, 1));
}

TEST_F(ConflictTest, RollbackUnderneathAnOverwriteIsAConflict) {
  ASSERT_OK_AND_ASSIGN(int64_t second, AppendData(*table_, *People(10, 1)));
  ASSERT_OK_AND_ASSIGN(auto overwriter, wh_.tables->LoadTable(ident_));
  ASSERT_OK(RollbackToSnapshot(*table_, first_).status());
  ASSERT_RAISES_WITH_MESSAGE("Cannot determine history between starting snapshot " + std::to_string(second) +
                                 " and the last known ancestor " + std::to_string(first_) + " of table lakehouse.db.t",
                             OverwriteData(*overwriter, *People(20, 1), OverwriteFilter::All()));
  EXPECT_EQ(SortedIds(*Read(table_)), Range(0, 2));
}

TEST_F(ConflictTest, AppendsStillRetryOnTopOfOverwrites) {
  ASSERT_OK_AND_ASSIGN(auto appender, wh_.tables->LoadTable(ident_));
  ASSERT_OK(OverwriteData(*table_, *People(50, 1), OverwriteFilter::All()).status());
  ASSERT_OK(AppendData(*appender, *People(60, 1)).status());
  EXPECT_EQ(SortedIds(*Read(appender)), (std::vector<int64_t>{50, 60}));
}

TEST_F(ConflictTest, RetryExhaustionSaysSoAndNamesTheCount) {
  ASSERT_OK(Commit(*table_, [](const spec::TableMetadataPtr& base, std::vector<std::string>*) {
    auto md = std::make_shared<spec::TableMetadata>(*base);
    md->properties["commit.retry.num-retries"] = "2";
    return Result<std::shared_ptr<spec::TableMetadata>>(md);
  }));
  // A change that never lands: every attempt, someone else commits first.
  int attempts = 0;
  Status st = Commit(*table_, [&](const spec::TableMetadataPtr& base, std::vector<std::string>*)
                                  -> Result<std::shared_ptr<spec::TableMetadata>> {
    ++attempts;
    auto other = wh_.tables->LoadTable(ident_).ValueOrDie();
    ARROW_RETURN_NOT_OK(AppendData(*other, *People(100 + attempts, 1)).status());
    return std::make_shared<spec::TableMetadata>(*base);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(IsCommitConflict(st));
  EXPECT_EQ(attempts, 3);
  EXPECT_THAT(st.message(), ::testing::HasSubstr("Cannot commit lakehouse.db.t: gave up after 3 attempts "
                                                 "(commit.retry.num-retries=2) because other writers kept "
                                                 "committing first; last conflict: "));
}

TEST_F(ConflictTest, IsolationLevelComesFromTheOperationsProperty) {
  auto md = std::make_shared<spec::TableMetadata>(*table_->metadata());
  ASSERT_OK_AND_ASSIGN(auto level, IsolationLevelFor(*md, "delete"));
  EXPECT_EQ(level, IsolationLevel::kSerializable);
  md->properties["write.delete.isolation-level"] = "Snapshot";
  ASSERT_OK_AND_ASSIGN(level, IsolationLevelFor(*md, "delete"));
  EXPECT_EQ(level, IsolationLevel::kSnapshot);
  md->properties["write.merge.isolation-level"] = "strict";
  ASSERT_RAISES_WITH_MESSAGE(
      "Invalid value for write.merge.isolation-level: 'strict' (expected serializable or snapshot)",
      IsolationLevelFor(*md, "merge"));
}

TEST_F(ConflictTest, OldMetadataFilesGoWhenDeleteAfterCommitIsEnabled) {
  ASSERT_OK(Commit(*table_, [](const spec::TableMetadataPtr& base, std::vector<std::string>*) {
    auto md = std::make_shared<spec::TableMetadata>(*base);
    md->properties["write.metadata.delete-after-commit.enabled"] = "true";
    md->properties["write.metadata.previous-versions-max"] = "2";
    return Result<std::shared_ptr<spec::TableMetadata>>(md);
  }));
  for (int i = 0; i < 5; ++i) ASSERT_OK(AppendData(*table_, *People(10 + i, 1)).status());
  auto md = table_->metadata();
  std::set<std::string> metadata_files;
  for (const auto& f : FilesUnder(*wh_.io, md->location)) {
    if (f.ends_with(".metadata.json")) metadata_files.insert(f);
  }
  ASSERT_EQ(md->metadata_log.size(), 2u);
  std::set<std::string> expected{table_->metadata_location()};
  for (const auto& e : md->metadata_log) expected.insert(e.metadata_file);
  EXPECT_EQ(metadata_files, expected);
}

TEST_F(ConflictTest, OldMetadataFilesStayByDefault) {
  for (int i = 0; i < 3; ++i) ASSERT_OK(AppendData(*table_, *People(10 + i, 1)).status());
  int metadata_files = 0;
  for (const auto& f : FilesUnder(*wh_.io, table_->metadata()->location)) metadata_files += f.ends_with(".metadata.json");
  EXPECT_EQ(metadata_files, 5);
}

}  // namespace
}  // namespace floe::table
