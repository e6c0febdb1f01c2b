#include "floe/table/metadata_files.h"

#include <filesystem>

#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;

class MetadataFileCacheTest : public floe::testing::PeopleTableTest {
 protected:
  void SetUp() override {
    PeopleTableTest::SetUp();
    MetadataFileCache().Clear();
    MetadataFileCache().SetCapacity(int64_t{64} << 20);
    ASSERT_OK(AppendData(*table_, *People(0, 3)).status());
    location_ = table_->metadata_location();
  }
  void TearDown() override {
    MetadataFileCache().Clear();
    MetadataFileCache().SetCapacity(int64_t{64} << 20);
  }

  int64_t MetadataOpens() { return wh_.io->counters().reads(FileKind::kMetadata); }

  // Writes `text` over the metadata file, as a path-named table dropped and created anew would.
  void Rewrite(const std::string& text, std::filesystem::file_time_type mtime) {
    const auto path = *ToLocalPath(location_);
    floe::testing::WriteFileBytes(path, text);
    std::filesystem::last_write_time(path, mtime);
  }

  std::string location_;
};

TEST_F(MetadataFileCacheTest, AFileReadAgainIsNotParsedAgain) {
  ASSERT_OK_AND_ASSIGN(auto first, ReadMetadataFile(*wh_.io, location_));
  const int64_t opens = MetadataOpens();
  ASSERT_OK_AND_ASSIGN(auto second, ReadMetadataFile(*wh_.io, location_));
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(MetadataOpens(), opens);
  EXPECT_EQ(second->current_snapshot_id, table_->metadata()->current_snapshot_id);
  EXPECT_EQ(MetadataFileCache().stats().items, 1);
}

TEST_F(MetadataFileCacheTest, ARemovedFileFailsEvenWhenCached) {
  ASSERT_OK(ReadMetadataFile(*wh_.io, location_).status());
  std::filesystem::remove(*ToLocalPath(location_));
  ASSERT_RAISES_WITH_MESSAGE("Failed to read table metadata " + location_ + ": file not found",
                             ReadMetadataFile(*wh_.io, location_));
}

TEST_F(MetadataFileCacheTest, AFileWrittenAgainIsReadAgain) {
  ASSERT_OK_AND_ASSIGN(auto first, ReadMetadataFile(*wh_.io, location_));
  const auto written = std::filesystem::last_write_time(*ToLocalPath(location_));

  // The same size and a later modification time: another table uuid of the same length.
  spec::TableMetadata changed = *first;
  changed.table_uuid = "00000000-0000-4000-8000-000000000001";
  ASSERT_EQ(changed.table_uuid.size(), first->table_uuid.size());
  Rewrite(spec::WriteTableMetadata(changed), written + std::chrono::seconds(10));
  ASSERT_OK_AND_ASSIGN(auto second, ReadMetadataFile(*wh_.io, location_));
  EXPECT_EQ(second->table_uuid, "00000000-0000-4000-8000-000000000001");

  // The same modification time and another size.
  changed.properties["owner"] = "etl";
  Rewrite(spec::WriteTableMetadata(changed), written + std::chrono::seconds(10));
  ASSERT_OK_AND_ASSIGN(auto third, ReadMetadataFile(*wh_.io, location_));
  EXPECT_EQ(third->properties.at("owner"), "etl");
  EXPECT_EQ(second->properties.count("owner"), 0u);
}

TEST_F(MetadataFileCacheTest, ABudgetOfZeroKeepsNothing) {
  MetadataFileCache().SetCapacity(0);
  ASSERT_OK_AND_ASSIGN(auto first, ReadMetadataFile(*wh_.io, location_));
  const int64_t opens = MetadataOpens();
  ASSERT_OK_AND_ASSIGN(auto second, ReadMetadataFile(*wh_.io, location_));
  EXPECT_NE(first.get(), second.get());
  EXPECT_EQ(MetadataOpens(), opens + 1);
  EXPECT_EQ(MetadataFileCache().stats().items, 0);
}

TEST_F(MetadataFileCacheTest, AFailedReadIsNotCached) {
  const auto path = *ToLocalPath(location_);
  const std::string good = floe::testing::ReadFileBytes(path);
  const auto written = std::filesystem::last_write_time(path);
  Rewrite("{\"format-version\": 2", written);
  ASSERT_RAISES_WITH_MESSAGE(location_, ReadMetadataFile(*wh_.io, location_));
  EXPECT_EQ(MetadataFileCache().stats().items, 0);
  Rewrite(good, written);
  ASSERT_OK_AND_ASSIGN(auto read, ReadMetadataFile(*wh_.io, location_));
  EXPECT_EQ(read->current_snapshot_id, table_->metadata()->current_snapshot_id);
}

}  // namespace
}  // namespace floe::table
