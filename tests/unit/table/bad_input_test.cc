// Truncated and corrupted files give errors that name the file, never a crash (these tests
// run under ASan and UBSan too).

#include <filesystem>
#include <fstream>

#include "floe/manifest/manifest_reader.h"
#include "floe/manifest/manifest_cache.h"
#include "floe/scan/table_scan.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;

using floe::testing::ReadFileBytes;
using floe::testing::WriteFileBytes;

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
    ASSERT_OK_AND_ASSIGN(table_, wh_.tables->CreateTable(ident_, *schema));
    ASSERT_OK(AppendData(*table_, *People(0, 50)).status());
    ASSERT_OK(AppendData(*table_, *People(50, 50)).status());
    auto md = table_->metadata();
    manifest_list_ = md->current_snapshot()->manifest_list;
    ASSERT_OK_AND_ASSIGN(auto manifests, manifest::ReadManifestList(*wh_.io, manifest_list_));
    manifest_ = manifests.at(0).manifest_path;
    ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(table_).PlanFiles());
    data_file_ = tasks.at(0).file.file_path;
  }

  // Every damaged form of `path` (cut at several points, bytes flipped at the start and the
  // end) makes `read` fail with a message naming the file. Bytes flipped in the middle must
  // not crash, and when detected, the error names the file too: formats without checksums
  // (Avro blocks) cannot notice every changed byte.
  template <typename Read>
  void ExpectErrorsNaming(const std::string& path, Read read, bool middle_detected) {
    const std::string original = ReadFileBytes(path);
    ASSERT_GT(original.size(), 16u);
    std::vector<std::string> damaged;
    for (size_t cut : {size_t{0}, size_t{3}, original.size() / 3, original.size() / 2, original.size() - 1}) {
      damaged.push_back(original.substr(0, cut));
    }
    for (size_t pos : {size_t{0}, original.size() / 2, original.size() - 10}) {
      std::string flipped = original;
      for (size_t i = pos; i < pos + 8 && i < flipped.size(); ++i) flipped[i] = static_cast<char>(~flipped[i]);
      damaged.push_back(flipped);
    }
    const size_t middle = damaged.size() - 2;
    for (size_t i = 0; i < damaged.size(); ++i) {
      WriteFileBytes(path, damaged[i]);
      Status st = read();
      if (i == middle && !middle_detected && st.ok()) continue;
      EXPECT_FALSE(st.ok()) << "damaged form " << i << " of " << path << " read without error";
      EXPECT_THAT(st.message(), ::testing::HasSubstr(path)) << "form " << i;
    }
    WriteFileBytes(path, original);
    EXPECT_OK(read());
  }

  Status ReadAll() {
    // Planning trusts a manifest it decoded while the file keeps its size (Iceberg never
    // rewrites one); bytes flipped in place must be read again to be noticed.
    manifest::ManifestCache::Global().Clear();
    auto fresh = wh_.tables->LoadTable(ident_);
    if (!fresh.ok()) return fresh.status();
    return scan::TableScan(*fresh).ToArrowTable().status();
  }

  floe::testing::Warehouse wh_;
  TableIdentifier ident_{Namespace({"db"}), "t"};
  std::shared_ptr<Table> table_;
  std::string manifest_list_, manifest_, data_file_;
};

TEST_F(BadInputTest, MetadataFile) {
  ExpectErrorsNaming(table_->metadata_location(), [&] { return ReadAll(); }, true);
}

TEST_F(BadInputTest, ManifestList) {
  ExpectErrorsNaming(manifest_list_, [&] { return ReadAll(); }, false);
}

TEST_F(BadInputTest, Manifest) {
  ExpectErrorsNaming(manifest_, [&] { return ReadAll(); }, false);
}

TEST_F(BadInputTest, ParquetDataFile) {
  ExpectErrorsNaming(data_file_, [&] { return ReadAll(); }, true);
}

TEST_F(BadInputTest, MissingFilesAreNamed) {
  std::filesystem::remove(data_file_);
  Status st = ReadAll();
  EXPECT_THAT(st.message(), ::testing::HasSubstr(data_file_));
  std::filesystem::remove(manifest_list_);
  st = ReadAll();
  EXPECT_THAT(st.message(), ::testing::HasSubstr(manifest_list_));
}

}  // namespace
}  // namespace floe::table
