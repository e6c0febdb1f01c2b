#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <set>

#include "floe/scan/table_scan.h"
#include "floe/table/commit.h"
#include "floe/table/snapshot_producer.h"
#include "forwarding_catalog.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;
using floe::testing::Range;
using floe::testing::SortedIds;

using floe::testing::FilesUnder;

class CommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
    CreateTableOptions options;
    options.properties["commit.retry.min-wait-ms"] = "1";
    options.properties["commit.retry.max-wait-ms"] = "20";
    ASSERT_OK_AND_ASSIGN(table_, wh_.tables->CreateTable(ident_, *schema, options));
    ASSERT_OK(AppendData(*table_, *People(0, 2)).status());
  }

  floe::testing::Warehouse wh_;
  TableIdentifier ident_{Namespace({"db"}), "t"};
  std::shared_ptr<Table> table_;
};

TEST_F(CommitTest, StaleWriterRetriesAndBothAppendsLand) {
  ASSERT_OK_AND_ASSIGN(auto stale, wh_.tables->LoadTable(ident_));
  ASSERT_OK_AND_ASSIGN(int64_t first, AppendData(*table_, *People(10, 3)));
  // `stale` still points at the previous metadata: its swap conflicts, it reloads and retries.
  ASSERT_OK_AND_ASSIGN(int64_t second, AppendData(*stale, *People(20, 4)));
  auto md = stale->metadata();
  EXPECT_EQ(md->SnapshotById(second)->parent_snapshot_id, first);
  EXPECT_EQ(md->SnapshotById(second)->summary.at("total-records"), "9");
  EXPECT_EQ(md->SnapshotById(second)->sequence_number, 3);
  ASSERT_OK_AND_ASSIGN(auto rows, scan::TableScan(stale).ToArrowTable());
  EXPECT_EQ(SortedIds(*rows),
            floe::testing::Concat(floe::testing::Concat(Range(0, 2), Range(10, 3)), Range(20, 4)));
  // The failed attempt's metadata file and manifest list are gone: one metadata file per
  // version and one list per snapshot remain.
  int metadata_files = 0, lists = 0;
  for (const auto& f : FilesUnder(*wh_.io, md->location)) {
    metadata_files += f.ends_with(".metadata.json");
    lists += f.find("/snap-") != std::string::npos;
  }
  EXPECT_EQ(metadata_files, 4);
  EXPECT_EQ(lists, 3);
}

TEST_F(CommitTest, ConflictWithoutRetriesFailsAndLeavesNoFiles) {
  ASSERT_OK(Commit(*table_, [](const spec::TableMetadataPtr& base, std::vector<std::string>*) {
    auto md = std::make_shared<spec::TableMetadata>(*base);
    md->properties["commit.retry.num-retries"] = "0";
    return Result<std::shared_ptr<spec::TableMetadata>>(md);
  }));
  ASSERT_OK_AND_ASSIGN(auto stale, wh_.tables->LoadTable(ident_));
  ASSERT_OK(AppendData(*table_, *People(10, 3)).status());
  auto before = FilesUnder(*wh_.io, table_->metadata()->location);
  std::string pointer = table_->metadata_location();
  ASSERT_RAISES_WITH_MESSAGE("Table has been updated by another process: db.t",
                             AppendData(*stale, *People(20, 4)));
  EXPECT_EQ(FilesUnder(*wh_.io, table_->metadata()->location), before);
  ASSERT_OK_AND_ASSIGN(std::string now, wh_.catalog->LoadMetadataLocation(ident_));
  EXPECT_EQ(now, pointer);
}

TEST_F(CommitTest, FailedMetadataWriteLeavesTableAndFilesUnchanged) {
  auto before = FilesUnder(*wh_.io, table_->metadata()->location);
  std::string pointer = table_->metadata_location();
  wh_.io->SetFaultInjector([](FileOp op, const std::string& location, FileKind kind) -> Status {
    if (kind == FileKind::kMetadata && op != FileOp::kDelete && op != FileOp::kRead) {
      return Status::IOError("injected failure writing ", location);
    }
    return Status::OK();
  });
  auto result = AppendData(*table_, *People(50, 5));
  wh_.io->SetFaultInjector(nullptr);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), ::testing::HasSubstr("Cannot commit lakehouse.db.t"));
  EXPECT_THAT(result.status().message(), ::testing::HasSubstr("injected failure"));
  EXPECT_EQ(FilesUnder(*wh_.io, table_->metadata()->location), before);
  ASSERT_OK_AND_ASSIGN(std::string now, wh_.catalog->LoadMetadataLocation(ident_));
  EXPECT_EQ(now, pointer);
  ASSERT_OK_AND_ASSIGN(auto rows, scan::TableScan(table_).ToArrowTable());
  EXPECT_EQ(SortedIds(*rows), Range(0, 2));
}

// A catalog whose swap reports that it cannot tell whether the commit happened.
class UnknownOutcomeCatalog : public floe::testing::ForwardingCatalog {
 public:
  using ForwardingCatalog::ForwardingCatalog;
  Status SwapMetadataLocation(const TableIdentifier&, const std::string&,
                              const std::string&) override {
    return CommitStateUnknown("connection lost");
  }
};

TEST_F(CommitTest, UnknownCommitStateIsReportedAndCleansNothing) {
  auto flaky = std::make_shared<UnknownOutcomeCatalog>(wh_.catalog);
  ASSERT_OK_AND_ASSIGN(auto t, Table::Load(flaky, wh_.io, ident_));
  auto before = FilesUnder(*wh_.io, t->metadata()->location);
  auto result = AppendData(*t, *People(50, 5));
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(IsCommitStateUnknown(result.status()));
  EXPECT_THAT(result.status().message(),
              ::testing::HasSubstr("Commit state of lakehouse.db.t is unknown: connection lost"));
  // Data file, manifest, manifest list and metadata file all stay: the commit may have landed.
  EXPECT_EQ(FilesUnder(*wh_.io, t->metadata()->location).size(), before.size() + 4);
}

// A catalog whose swap is made (or not) and then reports that its answer was lost; before
// answering it runs `meanwhile`, as another writer would.
class LostAnswerCatalog : public floe::testing::ForwardingCatalog {
 public:
  LostAnswerCatalog(std::shared_ptr<Catalog> inner, bool swap, std::function<void()> meanwhile)
      : ForwardingCatalog(std::move(inner)), swap_(swap), meanwhile_(std::move(meanwhile)) {}
  Status SwapMetadataLocation(const TableIdentifier& ident, const std::string& expected,
                              const std::string& location) override {
    if (!swapped_ && swap_)
      ARROW_RETURN_NOT_OK(inner_->SwapMetadataLocation(ident, expected, location));
    if (swapped_) return inner_->SwapMetadataLocation(ident, expected, location);
    swapped_ = true;
    if (meanwhile_) meanwhile_();
    return CommitStateUnknown("connection lost");
  }

 private:
  bool swap_;
  bool swapped_ = false;
  std::function<void()> meanwhile_;
};

TEST_F(CommitTest, ALostAnswerIsResolvedFromTheMetadataLog) {
  // The swap landed and another writer committed on top: the metadata log shows ours right
  // after our base, so the append is acknowledged.
  auto landed = std::make_shared<LostAnswerCatalog>(
      wh_.catalog, /*swap=*/true, [&] { ASSERT_OK(AppendData(*table_, *People(90, 1)).status()); });
  ASSERT_OK_AND_ASSIGN(auto t, Table::Load(landed, wh_.io, ident_));
  ASSERT_OK_AND_ASSIGN(auto committed, AppendData(*t, *People(50, 5)));
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(table_->metadata()->SnapshotById(committed)->snapshot_id, committed);
  ASSERT_OK_AND_ASSIGN(auto rows, scan::TableScan(table_).ToArrowTable());
  std::vector<int64_t> expected = Range(0, 2);
  for (int64_t id : {50, 51, 52, 53, 54, 90}) expected.push_back(id);
  EXPECT_EQ(SortedIds(*rows), expected);

  // The swap did not land and another writer won from the same base: the log follows the
  // base with theirs, so ours certainly never happened and the append is simply retried.
  auto lost = std::make_shared<LostAnswerCatalog>(wh_.catalog, /*swap=*/false, [&] {
    ASSERT_OK(table_->Refresh());
    ASSERT_OK(AppendData(*table_, *People(95, 1)).status());
  });
  ASSERT_OK_AND_ASSIGN(t, Table::Load(lost, wh_.io, ident_));
  ASSERT_OK_AND_ASSIGN(auto retried, AppendData(*t, *People(60, 2)));
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(*table_->metadata()->current_snapshot_id, retried);
  ASSERT_OK_AND_ASSIGN(rows, scan::TableScan(table_).ToArrowTable());
  for (int64_t id : {60, 61, 95}) expected.push_back(id);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(SortedIds(*rows), expected);
}

TEST_F(CommitTest, TwoProcessesRacingOneCommitBothLand) {
  constexpr int kWriters = 2;
  constexpr int kAppendsEach = 4;
  const std::string catalog_path = wh_.catalog_path();
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Child: its own catalog connection and FileIO, appending as fast as it can.
      auto catalog = SqlCatalog::Open(catalog_path, "lakehouse", wh_.dir.str() + "/wh");
      auto io = FileIO::MakeLocal();
      if (!catalog.ok() || !io.ok()) _exit(2);
      std::shared_ptr<Catalog> shared = std::move(*catalog);
      auto t = Table::Load(shared, *io, ident_);
      if (!t.ok()) _exit(3);
      for (int i = 0; i < kAppendsEach; ++i) {
        auto appended = AppendData(**t, *People(1000 * (w + 1) + i * 10, 10));
        if (!appended.ok()) {
          std::fprintf(stderr, "writer %d: %s\n", w, appended.status().ToString().c_str());
          _exit(4);
        }
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  ASSERT_OK(table_->Refresh());
  auto md = table_->metadata();
  ASSERT_EQ(md->snapshots.size(), 1u + kWriters * kAppendsEach);
  // One linear history: each snapshot's parent is the one before it, sequence numbers 1..n.
  for (size_t i = 1; i < md->snapshots.size(); ++i) {
    EXPECT_EQ(md->snapshots[i].parent_snapshot_id, md->snapshots[i - 1].snapshot_id);
    EXPECT_EQ(md->snapshots[i].sequence_number, static_cast<int64_t>(i + 1));
  }
  EXPECT_EQ(md->snapshot_log.size(), md->snapshots.size());
  EXPECT_EQ(md->current_snapshot()->summary.at("total-records"), std::to_string(2 + 80));
  ASSERT_OK_AND_ASSIGN(auto rows, scan::TableScan(table_).ToArrowTable());
  EXPECT_EQ(rows->num_rows(), 82);
}

}  // namespace
}  // namespace floe::table
