// Compaction (RewriteDataFiles) against commits made while it rewrites: deletes of a rewritten
// file fail it with Iceberg's messages, appends are kept, and equality deletes committed
// meanwhile still apply because the new files keep the starting snapshot's sequence number.
#include <filesystem>
#include <map>
#include <set>

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/writer.h>

#include "floe/scan/position_deletes.h"
#include "floe/scan/rewrite_data_files.h"
#include "floe/scan/row_group_stream.h"
#include "floe/scan/table_scan.h"
#include "floe/table/rewrite_data_files.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"
#include "test_values.h"

namespace floe::table {
namespace {


using manifest::DataFile;
using manifest::FileContent;

class RewriteDataFilesTest : public floe::testing::PeopleTableTest {
 protected:
  // Five appends of two rows each: ids 0..9 in five small files.
  void FiveSmallFiles() {
    for (int64_t i = 0; i < 5; ++i) {
      auto s = AppendData(*table_, *floe::testing::People(i * 2, 2));
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      start_ = *s;
    }
  }

  DataFile WriteDeletes(const arrow::Table& rows, FileContent content,
                        std::vector<int32_t> equality_ids = {}) {
    return testing::WriteDeleteFile(*table_, ++n_, rows, content, std::move(equality_ids));
  }

  DataFile EqualityDeletesOfIds(const std::vector<int64_t>& ids) {
    return WriteDeletes(*floe::testing::IdDeleteRows(ids), FileContent::kEqualityDeletes, {1});
  }

  DataFile PositionDeletes(const std::string& data_file, const std::vector<int64_t>& positions) {
    DataFile f = WriteDeletes(*floe::testing::PositionDeleteRows(data_file, positions),
                              FileContent::kPositionDeletes);
    f.lower_bounds[scan::kDeleteFilePathId] = data_file;
    f.upper_bounds[scan::kDeleteFilePathId] = data_file;
    return f;
  }

  // Rewrites the current snapshot's files with `options`; `meanwhile` runs after the plan and
  // before the commit, through another handle on the table (another writer).
  Result<RewriteDataFilesResult> Rewrite(
      std::function<Status(Table& other)> meanwhile = nullptr,
      std::vector<std::pair<std::string, std::string>> options = {}, bool dry_run = false) {
    auto md = table_->metadata();
    RewriteDataFilesRequest request;
    request.options = std::move(options);
    request.dry_run = dry_run;
    request.starting_snapshot_id = md->current_snapshot()->snapshot_id;
    ARROW_ASSIGN_OR_RAISE(auto tasks, scan::TableScan(table_).PlanFiles());
    for (auto& t : tasks) request.candidates.push_back({t.file, t.deletes, t.data_sequence_number});
    bool ran = false;
    auto read = [&](const std::vector<const RewriteCandidate*>& group)
        -> Result<std::shared_ptr<arrow::RecordBatchReader>> {
      if (meanwhile && !ran) {
        ran = true;
        ARROW_ASSIGN_OR_RAISE(auto other, wh_.tables->LoadTable(ident_));
        ARROW_RETURN_NOT_OK(meanwhile(*other));
      }
      std::vector<scan::ScanFile> files;
      for (const RewriteCandidate* c : group) {
        std::vector<std::string> positions;
        std::vector<scan::EqualityDeleteRef> equality;
        for (const auto& d : c->deletes) {
          if (d.content == FileContent::kPositionDeletes) {
            positions.push_back(d.file_path);
          } else {
            equality.push_back({d.file_path, d.equality_ids});
          }
        }
        files.emplace_back(c->file.file_path, std::move(positions), std::move(equality));
      }
      return scan::MakeRowGroupStream(table_->io(), std::move(files), md->current_schema(), {},
                                      md->current_schema(),
                                      std::make_shared<scan::RowGroupCounters>());
    };
    return RewriteDataFiles(*table_, request, read);
  }

  std::vector<int64_t> Ids() {
    EXPECT_OK(table_->Refresh());
    auto rows = scan::TableScan(table_).ToArrowTable();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? floe::testing::SortedIds(**rows) : std::vector<int64_t>{};
  }

  std::vector<std::string> LivePaths() {
    auto tasks = scan::TableScan(table_).PlanFiles();
    EXPECT_TRUE(tasks.ok());
    std::vector<std::string> out;
    for (const auto& t : *tasks) out.push_back(t.file.file_path);
    std::sort(out.begin(), out.end());
    return out;
  }

  int64_t start_ = 0;
  int n_ = 0;
};

TEST_F(RewriteDataFilesTest, SmallFilesBecomeOneReplaceSnapshotWithTheStartingSequenceNumber) {
  FiveSmallFiles();
  const int64_t start_seq = table_->metadata()->SnapshotById(start_)->sequence_number;
  ASSERT_OK_AND_ASSIGN(auto r, Rewrite());
  EXPECT_EQ(r.rewritten_data_files_count, 5);
  EXPECT_EQ(r.added_data_files_count, 1);
  EXPECT_EQ(r.removed_delete_files_count, 0);
  ASSERT_TRUE(r.snapshot_id);
  const spec::Snapshot* snap = table_->metadata()->current_snapshot();
  EXPECT_EQ(snap->snapshot_id, *r.snapshot_id);
  EXPECT_EQ(snap->operation, "replace");
  EXPECT_EQ(snap->parent_snapshot_id, start_);
  EXPECT_EQ(snap->summary.at("deleted-data-files"), "5");
  EXPECT_EQ(snap->summary.at("added-data-files"), "1");
  EXPECT_EQ(snap->summary.at("total-records"), "10");
  EXPECT_EQ(Ids(), floe::testing::Range(0, 10));
  ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(table_).PlanFiles());
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].data_sequence_number, start_seq);
  EXPECT_GT(snap->sequence_number, start_seq);
}

TEST_F(RewriteDataFilesTest, ConcurrentPositionDeleteOfARewrittenFileFailsTheRewrite) {
  FiveSmallFiles();
  const auto before = LivePaths();
  const std::string victim = before.front();
  int64_t deleted_at = 0;
  auto r = Rewrite([&](Table& other) -> Status {
    ARROW_ASSIGN_OR_RAISE(deleted_at, CommitRowDelta(other, {}, {PositionDeletes(victim, {0})}));
    return Status::OK();
  });
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot commit, found new position delete for replaced data file: " + victim, r);
  ASSERT_RAISES_WITH_MESSAGE("Cannot commit rewrite of " + table_->name(), r);
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(table_->metadata()->current_snapshot()->snapshot_id, deleted_at);
  EXPECT_EQ(LivePaths(), before);
  EXPECT_EQ(Ids().size(), 9u);
  // The files the failed rewrite wrote are gone: only the five data files and the delete file.
  size_t parquet = 0;
  for (const auto& p : floe::testing::FilesUnder(*wh_.io, table_->metadata()->location + "/data")) {
    parquet += p.size() > 8 && p.substr(p.size() - 8) == ".parquet";
  }
  EXPECT_EQ(parquet, 6u);
}

TEST_F(RewriteDataFilesTest, ConcurrentRemovalOfARewrittenFileFailsTheRewrite) {
  FiveSmallFiles();
  const std::string victim = LivePaths().back();
  auto r = Rewrite(
      [&](Table& other) { return DeleteFiles(other, OverwriteFilter::Files({victim})).status(); });
  ASSERT_RAISES_WITH_MESSAGE("Missing required files to delete: " + victim, r);
  EXPECT_EQ(Ids().size(), 8u);
}

TEST_F(RewriteDataFilesTest, ConcurrentAppendIsKept) {
  FiveSmallFiles();
  int64_t appended = 0;
  ASSERT_OK_AND_ASSIGN(auto r, Rewrite([&](Table& other) -> Status {
                         ARROW_ASSIGN_OR_RAISE(appended,
                                               AppendData(other, *floe::testing::People(100, 3)));
                         return Status::OK();
                       }));
  EXPECT_EQ(r.rewritten_data_files_count, 5);
  EXPECT_EQ(r.added_data_files_count, 1);
  ASSERT_OK(table_->Refresh());
  const spec::Snapshot* snap = table_->metadata()->current_snapshot();
  EXPECT_EQ(snap->snapshot_id, *r.snapshot_id);
  EXPECT_EQ(snap->parent_snapshot_id, appended);
  EXPECT_EQ(snap->summary.at("total-records"), "13");
  EXPECT_EQ(LivePaths().size(), 2u);
  EXPECT_EQ(Ids(),
            floe::testing::Concat(floe::testing::Range(0, 10), floe::testing::Range(100, 3)));
}

TEST_F(RewriteDataFilesTest, ConcurrentEqualityDeleteStillAppliesToTheRewrittenRows) {
  FiveSmallFiles();
  ASSERT_OK_AND_ASSIGN(auto r, Rewrite([&](Table& other) {
                         return CommitRowDelta(other, {}, {EqualityDeletesOfIds({3, 7})}).status();
                       }));
  EXPECT_EQ(r.rewritten_data_files_count, 5);
  EXPECT_EQ(Ids(), (std::vector<int64_t>{0, 1, 2, 4, 5, 6, 8, 9}));
}

TEST_F(RewriteDataFilesTest, WithNewSequenceNumbersAConcurrentEqualityDeleteFailsTheRewrite) {
  FiveSmallFiles();
  auto r = Rewrite(
      [&](Table& other) { return CommitRowDelta(other, {}, {EqualityDeletesOfIds({3})}).status(); },
      {{"use-starting-sequence-number", "false"}});
  ASSERT_RAISES_WITH_MESSAGE("Cannot commit, found new delete for replaced data file: ", r);
  EXPECT_EQ(Ids().size(), 9u);
}

TEST_F(RewriteDataFilesTest, DeletesAreAppliedAndDeleteFilesThatNoLongerApplyAreRemoved) {
  FiveSmallFiles();
  // The file of ids 4 and 5 loses its first row by position; ids 1 and 8 go by equality.
  scan::TableScan scan(table_);
  scan.Select({"id", "_file"});
  ASSERT_OK_AND_ASSIGN(auto rows, scan.ToArrowTable());
  ASSERT_OK_AND_ASSIGN(rows, rows->CombineChunks());
  const auto& ids = static_cast<const arrow::Int64Array&>(*rows->column(0)->chunk(0));
  const auto& files = static_cast<const arrow::StringArray&>(*rows->column(1)->chunk(0));
  std::string of_four;
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    if (ids.Value(i) == 4) of_four = std::string(files.GetView(i));
  }
  ASSERT_FALSE(of_four.empty());
  ASSERT_OK(
      CommitRowDelta(*table_, {}, {EqualityDeletesOfIds({1, 8}), PositionDeletes(of_four, {0})})
          .status());
  const auto before = Ids();
  ASSERT_EQ(before.size(), 7u);
  ASSERT_OK_AND_ASSIGN(auto r, Rewrite());
  EXPECT_EQ(r.rewritten_data_files_count, 5);
  EXPECT_EQ(r.removed_delete_files_count, 2);
  const spec::Snapshot* snap = table_->metadata()->current_snapshot();
  EXPECT_EQ(snap->summary.at("removed-delete-files"), "2");
  EXPECT_EQ(snap->summary.at("removed-equality-delete-files"), "1");
  EXPECT_EQ(snap->summary.at("removed-position-delete-files"), "1");
  EXPECT_EQ(snap->summary.at("total-delete-files"), "0");
  EXPECT_EQ(snap->summary.at("total-records"), "7");
  ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(table_).PlanFiles());
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_TRUE(tasks[0].deletes.empty());
  EXPECT_EQ(tasks[0].file.record_count, 7);
  EXPECT_EQ(Ids(), before);
}

TEST_F(RewriteDataFilesTest, DryRunListsExactlyTheFilesTheRunReplacesAndChangesNothing) {
  FiveSmallFiles();
  ASSERT_OK(CommitRowDelta(*table_, {}, {EqualityDeletesOfIds({1, 8})}).status());
  const int64_t current = *table_->metadata()->current_snapshot_id;
  const std::string location = table_->metadata_location();
  // Every content file the table has now: five data files and one equality delete file.
  std::set<std::string> before;
  ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(table_).PlanFiles());
  for (const auto& t : tasks) {
    before.insert(t.file.file_path);
    for (const auto& d : t.deletes) before.insert(d.file_path);
  }
  ASSERT_EQ(before.size(), 6u);

  ASSERT_OK_AND_ASSIGN(auto dry, Rewrite(nullptr, {}, /*dry_run=*/true));
  EXPECT_FALSE(dry.snapshot_id);
  EXPECT_EQ(dry.rewritten_data_files_count, 5);
  EXPECT_EQ(dry.removed_delete_files_count, 1);
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(table_->metadata_location(), location);
  EXPECT_EQ(Ids().size(), 8u);
  std::set<std::string> predicted;
  std::map<std::string, int> types;
  for (const auto& f : dry.files) {
    predicted.insert(f.path);
    ++types[f.type];
    EXPECT_EQ(f.last_snapshot_id, current) << f.path;
    ASSERT_TRUE(f.size) << f.path;
    EXPECT_GT(*f.size, 0) << f.path;
  }
  EXPECT_EQ(types, (std::map<std::string, int>{{"data file", 5}, {"equality delete file", 1}}));
  int64_t data_bytes = 0;
  for (const auto& f : dry.files) data_bytes += f.type == "data file" ? *f.size : 0;
  EXPECT_EQ(dry.rewritten_bytes_count, data_bytes);

  // The real run replaces and removes exactly those files.
  ASSERT_OK_AND_ASSIGN(auto real, Rewrite());
  ASSERT_TRUE(real.snapshot_id);
  std::set<std::string> after;
  ASSERT_OK_AND_ASSIGN(tasks, scan::TableScan(table_).PlanFiles());
  for (const auto& t : tasks) {
    after.insert(t.file.file_path);
    for (const auto& d : t.deletes) after.insert(d.file_path);
  }
  std::set<std::string> removed;
  for (const auto& path : before) {
    if (!after.count(path)) removed.insert(path);
  }
  EXPECT_EQ(removed, predicted);
  EXPECT_EQ(real.rewritten_data_files_count, dry.rewritten_data_files_count);
  EXPECT_EQ(real.removed_delete_files_count, dry.removed_delete_files_count);
  EXPECT_EQ(real.rewritten_bytes_count, dry.rewritten_bytes_count);
}

TEST_F(RewriteDataFilesTest, ADeleteFileStillApplyingToAFileLeftAloneStays) {
  FiveSmallFiles();
  ASSERT_OK(CommitRowDelta(*table_, {}, {EqualityDeletesOfIds({1})}).status());
  // Three of the five files are rewritten; the equality delete still applies to the other two.
  ASSERT_OK_AND_ASSIGN(auto r,
                       Rewrite(nullptr, {{"min-input-files", "2"}, {"max-files-to-rewrite", "3"}}));
  EXPECT_EQ(r.rewritten_data_files_count, 3);
  EXPECT_EQ(r.removed_delete_files_count, 0);
  EXPECT_EQ(Ids().size(), 9u);
}

TEST_F(RewriteDataFilesTest, OptionsAreCheckedWithIcebergsMessages) {
  FiveSmallFiles();
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot use options [bogus], they are not supported by the action or the rewriter BIN-PACK",
      CheckRewriteDataFilesOptions(*table_, "binpack", {{"bogus", "1"}}));
  ASSERT_RAISES_WITH_MESSAGE("unsupported strategy: fast. Only binpack or sort is supported",
                             CheckRewriteDataFilesOptions(*table_, "fast", {}));
  ASSERT_RAISES_WITH_MESSAGE(
      "'delete-ratio-threshold' is set to 2.0 but must be <= 1",
      CheckRewriteDataFilesOptions(*table_, "binpack", {{"delete-ratio-threshold", "2"}}));
  ASSERT_OK_AND_ASSIGN(auto r,
                       scan::RewriteDataFiles(table_, {"binpack", {{"min-input-files", "6"}}, {}}));
  EXPECT_FALSE(r.snapshot_id);
  EXPECT_EQ(r.rewritten_data_files_count, 0);
}

TEST(BinPackOptionsTest, ExpectedOutputFilesFollowIceberg) {
  spec::TableMetadata md;
  ASSERT_OK_AND_ASSIGN(auto o, BinPackOptions::Parse({{"target-file-size-bytes", "1000"}}, md));
  EXPECT_EQ(o.min_file_size_bytes, 750);
  EXPECT_EQ(o.max_file_size_bytes, 1800);
  EXPECT_EQ(o.WriteMaxFileSize(), 1400);
  EXPECT_EQ(o.ExpectedOutputFiles(500), 1);
  EXPECT_EQ(o.ExpectedOutputFiles(2800), 3);  // remainder 800 > min: its own file
  EXPECT_EQ(o.ExpectedOutputFiles(2050), 2);  // remainder 50 spread: 1025 each
  EXPECT_EQ(o.ExpectedOutputFiles(1700), 2);  // 1700 in one is more than 10% over
  EXPECT_EQ(o.InputSplitSize(2050), 1400);    // 1025 + 5 KiB overhead, capped
}

}  // namespace
}  // namespace floe::table
