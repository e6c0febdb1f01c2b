#include <filesystem>
#include <fstream>

#include "floe/scan/table_scan.h"
#include "floe/table/commit.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::FilesUnder;
using floe::testing::People;
using floe::testing::PeopleTableTest;
using floe::testing::SortedIds;

class UndropTest : public PeopleTableTest {
 protected:
  std::vector<int64_t> IdsAt(const std::shared_ptr<Table>& table, int64_t snapshot) {
    scan::TableScan scan(table);
    scan.UseSnapshot(snapshot);
    auto result = scan.ToArrowTable();
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? SortedIds(**result) : std::vector<int64_t>{};
  }

  // Two appends; returns their snapshot ids.
  std::vector<int64_t> TwoAppends() {
    std::vector<int64_t> ids;
    for (int64_t first : {0, 3}) {
      auto appended = AppendData(*table_, *People(first, 3));
      EXPECT_TRUE(appended.ok()) << appended.status().ToString();
      ids.push_back(table_->metadata()->current_snapshot_id.value_or(-1));
    }
    return ids;
  }
};

TEST_F(UndropTest, DropKeepsEveryFileAndUndropBringsBackEverySnapshot) {
  std::vector<int64_t> snapshots = TwoAppends();
  const std::string location = table_->metadata()->location;
  const std::string metadata_location = table_->metadata_location();
  std::set<std::string> before = FilesUnder(*wh_.io, location);
  ASSERT_EQ(before.size(), 2u /*data*/ + 2u /*manifests*/ + 2u /*lists*/ + 3u /*metadata*/);

  ASSERT_OK_AND_ASSIGN(auto dropped, wh_.tables->DropTable(ident_, /*purge=*/false));
  EXPECT_EQ(dropped.Warning(), "");
  EXPECT_EQ(FilesUnder(*wh_.io, location), before);
  ASSERT_RAISES_WITH_MESSAGE("Table does not exist: db.people", wh_.tables->LoadTable(ident_));
  ASSERT_OK_AND_ASSIGN(auto records, wh_.catalog->ListDroppedTables(std::nullopt));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].ident, ident_);
  EXPECT_EQ(records[0].metadata_location, metadata_location);

  ASSERT_OK_AND_ASSIGN(auto restored, wh_.tables->UndropTable(ident_));
  EXPECT_EQ(restored->metadata_location(), metadata_location);
  ASSERT_OK_AND_ASSIGN(auto loaded, wh_.tables->LoadTable(ident_));
  EXPECT_EQ(loaded->metadata_location(), metadata_location);
  EXPECT_EQ(IdsAt(loaded, snapshots[0]), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(IdsAt(loaded, snapshots[1]), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  ASSERT_OK_AND_ASSIGN(records, wh_.catalog->ListDroppedTables(std::nullopt));
  EXPECT_TRUE(records.empty());
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot undrop table db.people: a table with that name already exists; rename or drop it "
      "first",
      wh_.tables->UndropTable(ident_));
}

TEST_F(UndropTest, RefusedWhenTheMetadataFileIsGone) {
  TwoAppends();
  const std::string metadata_location = table_->metadata_location();
  ASSERT_OK(wh_.tables->DropTable(ident_, /*purge=*/false).status());
  ASSERT_OK(wh_.io->DeleteFile(metadata_location, FileKind::kMetadata));
  ASSERT_RAISES_WITH_MESSAGE(
      StrCat("Cannot undrop table db.people: its metadata file ", metadata_location, " is gone"),
      wh_.tables->UndropTable(ident_));
  // The record stays, for when the file is put back.
  ASSERT_OK_AND_ASSIGN(auto found, wh_.catalog->FindDroppedTable(ident_));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->metadata_location, metadata_location);
  ASSERT_OK_AND_ASSIGN(bool exists, wh_.catalog->TableExists(ident_));
  EXPECT_FALSE(exists);
}

TEST_F(UndropTest, RefusedWhenTheMetadataFileIsUnreadable) {
  const std::string metadata_location = table_->metadata_location();
  ASSERT_OK(wh_.tables->DropTable(ident_, /*purge=*/false).status());
  std::string path = metadata_location;
  if (path.rfind("file://", 0) == 0) path = path.substr(7);
  if (path.rfind("file:", 0) == 0) path = path.substr(5);
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  std::ofstream(path, std::ios::trunc) << "{not json";
  auto undropped = wh_.tables->UndropTable(ident_);
  ASSERT_FALSE(undropped.ok());
  EXPECT_THAT(undropped.status().message(),
              ::testing::StartsWith(StrCat("Cannot undrop table db.people: its metadata file ",
                                           metadata_location, " cannot be read: ")));
}

TEST_F(UndropTest, RefusedAfterPurge) {
  TwoAppends();
  const std::string location = table_->metadata()->location;
  ASSERT_OK(wh_.tables->DropTable(ident_, /*purge=*/true).status());
  EXPECT_TRUE(FilesUnder(*wh_.io, location).empty());
  auto undropped = wh_.tables->UndropTable(ident_);
  ASSERT_FALSE(undropped.ok());
  EXPECT_THAT(undropped.status().message(),
              ::testing::MatchesRegex("Cannot undrop table db.people: it was dropped with PURGE "
                                      "at [0-9-]+ [0-9:.]+ UTC, which deleted its files"));
  ASSERT_OK_AND_ASSIGN(auto records, wh_.catalog->ListDroppedTables(std::nullopt));
  EXPECT_TRUE(records.empty());
}

TEST_F(UndropTest, RefusedWhenNeverDroppedOrTheNamespaceIsGone) {
  TableIdentifier other(Namespace({"db"}), "other");
  ASSERT_RAISES_WITH_MESSAGE(
      "Table db.other was not dropped: there is no dropped table of that name to undrop",
      wh_.tables->UndropTable(other));
  ASSERT_OK(wh_.tables->DropTable(ident_, /*purge=*/false).status());
  ASSERT_OK(wh_.catalog->DropNamespace(Namespace({"db"})));
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot undrop table db.people: namespace db does not exist; create it first",
      wh_.tables->UndropTable(ident_));
  ASSERT_OK(wh_.catalog->CreateNamespace(Namespace({"db"}), {}));
  ASSERT_OK(wh_.tables->UndropTable(ident_).status());
}

}  // namespace
}  // namespace floe::table
