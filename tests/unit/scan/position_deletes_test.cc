#include "floe/scan/position_deletes.h"

#include <algorithm>

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/writer.h>
#include <parquet/properties.h>

#include "floe/scan/row_group_stream.h"
#include "floe_test.h"
#include "test_values.h"

namespace floe::scan {
namespace {

using floe::testing::IdField;

class PositionDeletesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK_AND_ASSIGN(io_, FileIO::MakeLocal()); }

  std::string WriteTable(const arrow::Table& table, int64_t row_group_rows) {
    std::string path = dir_.str() + "/f" + std::to_string(++n_) + ".parquet";
    auto out = arrow::io::FileOutputStream::Open(path).ValueOrDie();
    EXPECT_OK(parquet::arrow::WriteTable(table, arrow::default_memory_pool(), out, row_group_rows));
    EXPECT_OK(out->Close());
    return path;
  }

  // A data file of ids first..first+n-1 (field id 1), in row groups of `row_group_rows`.
  std::string WriteData(int64_t first, int64_t n, int64_t row_group_rows) {
    arrow::Int64Builder ids;
    for (int64_t i = first; i < first + n; ++i) EXPECT_OK(ids.Append(i));
    auto schema = arrow::schema({IdField("id", arrow::int64(), 1, true)});
    return WriteTable(*arrow::Table::Make(schema, {ids.Finish().ValueOrDie()}), row_group_rows);
  }

  // A position delete file of (file_path, pos) rows, in the order given.
  std::string WriteDeletes(
      const std::vector<std::pair<std::string, std::optional<int64_t>>>& rows) {
    arrow::StringBuilder paths;
    arrow::Int64Builder positions;
    for (const auto& [path, pos] : rows) {
      EXPECT_OK(paths.Append(path));
      EXPECT_OK(pos ? positions.Append(*pos) : positions.AppendNull());
    }
    auto schema = arrow::schema({IdField("file_path", arrow::utf8(), kDeleteFilePathId, false),
                                 IdField("pos", arrow::int64(), kDeletePosId, true)});
    return WriteTable(
        *arrow::Table::Make(schema, {paths.Finish().ValueOrDie(), positions.Finish().ValueOrDie()}),
        1 << 20);
  }

  spec::SchemaPtr Ids() const {
    return std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{spec::Optional(1, "id", spec::Type::Long())});
  }

  // Every id `files` read as, in the order read (sorted when `ordered` is false).
  Result<std::vector<int64_t>> Read(std::vector<ScanFile> files, bool ordered, int64_t batch_rows) {
    RowGroupStreamOptions options;
    options.ordered = ordered;
    options.batch_rows = batch_rows;
    ARROW_ASSIGN_OR_RAISE(
        auto reader, MakeRowGroupStream(io_, std::move(files), Ids(), {}, Ids(), nullptr, options));
    std::vector<int64_t> out;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      EXPECT_GT(batch->num_rows(), 0);
      const auto& a = static_cast<const arrow::Int64Array&>(*batch->column(0));
      for (int64_t i = 0; i < a.length(); ++i) out.push_back(a.Value(i));
    }
    if (!ordered) std::sort(out.begin(), out.end());
    return out;
  }

  floe::testing::TempDir dir_;
  std::shared_ptr<FileIO> io_;
  int n_ = 0;
};

TEST_F(PositionDeletesTest, RowsAreCountedAcrossRowGroupsAndBatches) {
  // Rows 0..9 in row groups of 4, read in batches of 3: positions 5, 6 and 7 straddle both.
  std::string data = WriteData(100, 10, 4);
  std::string other = WriteData(500, 3, 4);
  std::string first =
      WriteDeletes({{data, 0}, {data, 5}, {data, 6}, {data, 7}, {data, 9}, {other, 1}});
  std::string second = WriteDeletes({{data, 2}, {data, 5}});  // overlaps the first
  for (bool ordered : {true, false}) {
    SCOPED_TRACE(ordered ? "in order" : "any order");
    ASSERT_OK_AND_ASSIGN(
        auto ids, Read({ScanFile(data, {first, second}), ScanFile(other, {first})}, ordered, 3));
    EXPECT_EQ(ids, (std::vector<int64_t>{101, 103, 104, 108, 500, 502}));
  }
}

TEST_F(PositionDeletesTest, ADeleteFileNamingOtherFilesDeletesNothingHere) {
  std::string data = WriteData(0, 5, 10);
  std::string deletes = WriteDeletes({{dir_.str() + "/elsewhere.parquet", 1}});
  ASSERT_OK_AND_ASSIGN(auto ids, Read({ScanFile(data, {deletes})}, true, 100));
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST_F(PositionDeletesTest, EveryRowOfARowGroupDeleted) {
  std::string data = WriteData(0, 6, 3);
  std::string deletes = WriteDeletes({{data, 0}, {data, 1}, {data, 2}, {data, 4}});
  ASSERT_OK_AND_ASSIGN(auto ids, Read({ScanFile(data, {deletes})}, true, 2));
  EXPECT_EQ(ids, (std::vector<int64_t>{3, 5}));
}

TEST_F(PositionDeletesTest, NullPositionIsAnErrorNamingTheDeleteFile) {
  std::string data = WriteData(0, 3, 10);
  std::string deletes = WriteDeletes({{data, 1}, {data, std::nullopt}});
  auto ids = Read({ScanFile(data, {deletes})}, true, 100);
  ASSERT_RAISES_WITH_MESSAGE(
      "Position delete file " + deletes + " has a null file_path or pos in row 1", ids);
}

TEST_F(PositionDeletesTest, MissingDeleteFileIsAnErrorNamingIt) {
  std::string data = WriteData(0, 3, 10);
  const std::string missing = dir_.str() + "/gone-deletes.parquet";
  auto ids = Read({ScanFile(data, {missing})}, false, 100);
  ASSERT_RAISES_WITH_MESSAGE(missing, ids);
}

TEST_F(PositionDeletesTest, IndexReadsEachDeleteFileOnce) {
  std::string a = WriteData(0, 3, 10);
  std::string b = WriteData(0, 3, 10);
  std::string deletes = WriteDeletes({{a, 2}, {b, 0}, {b, 1}});
  PositionDeleteIndex index(io_);
  ASSERT_OK_AND_ASSIGN(auto of_a, index.For(a, {deletes}));
  ASSERT_NE(of_a, nullptr);
  EXPECT_EQ(*of_a, (DeletedPositions{2}));
  // Gone from disk after the first read: the second data file is answered from memory.
  ASSERT_TRUE(std::filesystem::remove(deletes));
  ASSERT_OK_AND_ASSIGN(auto of_b, index.For(b, {deletes}));
  ASSERT_NE(of_b, nullptr);
  EXPECT_EQ(*of_b, (DeletedPositions{0, 1}));
  ASSERT_OK_AND_ASSIGN(auto none, index.For(dir_.str() + "/other.parquet", {deletes}));
  EXPECT_EQ(none, nullptr);
}

}  // namespace
}  // namespace floe::scan
