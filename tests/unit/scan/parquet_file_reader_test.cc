#include "floe/scan/parquet_file_reader.h"

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/json/from_string.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/writer.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include "floe_test.h"
#include "test_values.h"

namespace floe::scan {
namespace {

using floe::testing::IdField;

using spec::NestedField;
using spec::Type;

std::shared_ptr<arrow::Array> Json(const std::shared_ptr<arrow::DataType>& type, const std::string& json) {
  return arrow::json::ArrayFromJSONString(type, json).ValueOrDie();
}

class ParquetFileReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK_AND_ASSIGN(io_, FileIO::MakeLocal()); }

  std::string Write(const std::shared_ptr<arrow::Schema>& schema, arrow::ArrayVector columns) {
    std::string path = dir_.str() + "/f" + std::to_string(++n_) + ".parquet";
    auto table = arrow::Table::Make(schema, columns);
    auto out = arrow::io::FileOutputStream::Open(path).ValueOrDie();
    EXPECT_TRUE(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out).ok());
    EXPECT_TRUE(out->Close().ok());
    return path;
  }

  floe::testing::TempDir dir_;
  std::shared_ptr<FileIO> io_;
  int n_ = 0;
};

TEST_F(ParquetFileReaderTest, MatchesColumnsByIdNotNameOrPosition) {
  auto schema = arrow::schema({IdField("b_old", arrow::utf8(), 2), IdField("a", arrow::int32(), 1)});
  std::string path = Write(schema, {Json(arrow::utf8(), R"(["x", "y"])"), Json(arrow::int32(), "[1, 2]")});
  spec::Schema projection(1, {spec::Optional(1, "a", Type::Long()), spec::Optional(2, "b", Type::String()),
                              spec::Optional(3, "c", Type::Double())});
  ASSERT_OK_AND_ASSIGN(auto table, ReadParquetFile(*io_, path, projection));
  EXPECT_EQ(table->schema()->ToString(false), "a: int64\nb: string\nc: double");
  EXPECT_EQ(table->column(0)->chunk(0)->ToString(), Json(arrow::int64(), "[1, 2]")->ToString());
  EXPECT_EQ(table->column(1)->chunk(0)->ToString(), Json(arrow::utf8(), R"(["x", "y"])")->ToString());
  EXPECT_EQ(table->column(2)->null_count(), 2);
}

TEST_F(ParquetFileReaderTest, FilesWithoutIdsMatchByName) {
  auto schema = arrow::schema({IdField("a", arrow::float32(), -1)});
  std::string path = Write(schema, {Json(arrow::float32(), "[1.5]")});
  spec::Schema projection(0, {spec::Optional(7, "a", Type::Double())});
  ASSERT_OK_AND_ASSIGN(auto table, ReadParquetFile(*io_, path, projection));
  EXPECT_EQ(table->column(0)->chunk(0)->ToString(), Json(arrow::float64(), "[1.5]")->ToString());
}

TEST_F(ParquetFileReaderTest, NestedStructChildrenByIdWithMissingOnes) {
  auto inner = arrow::struct_({IdField("x_old", arrow::int64(), 3)});
  auto schema = arrow::schema({IdField("s", inner, 2)});
  std::string path = Write(schema, {Json(inner, R"([{"x_old": 5}, null])")});
  auto struct_type = Type::Struct({spec::Optional(3, "x", Type::Long()), spec::Optional(4, "y", Type::String())});
  spec::Schema projection(0, {spec::Optional(2, "s", struct_type)});
  ASSERT_OK_AND_ASSIGN(auto table, ReadParquetFile(*io_, path, projection));
  auto want_type = arrow::struct_({arrow::field("x", arrow::int64()), arrow::field("y", arrow::utf8())});
  auto got = table->column(0)->chunk(0);
  EXPECT_TRUE(got->Equals(Json(want_type, R"([{"x": 5, "y": null}, null])"))) << got->ToString();
}

TEST_F(ParquetFileReaderTest, MissingRequiredColumnIsAnError) {
  auto schema = arrow::schema({IdField("a", arrow::int64(), 1)});
  std::string path = Write(schema, {Json(arrow::int64(), "[1]")});
  spec::Schema projection(0, {spec::Required(9, "must", Type::Long())});
  ASSERT_RAISES_WITH_MESSAGE("Missing required field 'must' (id 9)", ReadParquetFile(*io_, path, projection));
  ASSERT_RAISES_WITH_MESSAGE(path, ReadParquetFile(*io_, path, projection));
}

TEST_F(ParquetFileReaderTest, MissingColumnsShareOneBoundedNullBuffer) {
  // Nulls for a column the file lacks are sized by the footer's row count alone: they must
  // not cost memory in proportion to it.
  const int64_t rows = 1'000'000;
  arrow::Int64Builder ids;
  for (int64_t i = 0; i < rows; ++i) ASSERT_OK(ids.Append(i));
  std::shared_ptr<arrow::Array> id_column;
  ASSERT_OK(ids.Finish(&id_column));
  std::string path = Write(arrow::schema({IdField("id", arrow::int64(), 1)}), {id_column});
  spec::Schema projection(0, {spec::Optional(2, "added_later", Type::Long())});
  ASSERT_OK_AND_ASSIGN(auto table, ReadParquetFile(*io_, path, projection));
  auto nulls = table->column(0);
  EXPECT_EQ(nulls->length(), rows);
  EXPECT_EQ(nulls->null_count(), rows);
  ASSERT_GT(nulls->num_chunks(), 1);
  const auto* shared = nulls->chunk(0)->data()->buffers[1].get();
  for (const auto& chunk : nulls->chunks()) {
    EXPECT_EQ(chunk->data()->buffers[1].get(), shared);
    EXPECT_LE(chunk->length(), 64 * 1024);
  }
}

// Rewrites the one-byte row count of row group 0 in a footer written by Arrow: the Thrift
// compact bytes are total_byte_size's field header and varint, then num_rows' header and
// varint.
void PatchRowGroupRowCount(const std::string& path, int64_t old_rows, int64_t new_rows) {
  auto reader = parquet::ParquetFileReader::OpenFile(path);
  const int64_t total = reader->metadata()->RowGroup(0)->total_byte_size();
  reader.reset();
  auto varint = [](uint64_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    out.push_back(static_cast<char>(v));
    return out;
  };
  auto zigzag = [](int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); };
  ASSERT_LT(zigzag(old_rows), 0x80u);
  ASSERT_LT(zigzag(new_rows), 0x80u);
  std::string bytes = floe::testing::ReadFileBytes(path);
  const std::string needle = "\x16" + varint(zigzag(total)) + "\x16" + varint(zigzag(old_rows));
  const size_t at = bytes.rfind(needle);
  ASSERT_NE(at, std::string::npos) << "row count not found in the footer";
  ASSERT_EQ(bytes.find(needle), at) << "row count found twice in the footer";
  bytes[at + needle.size() - 1] = static_cast<char>(zigzag(new_rows));
  floe::testing::WriteFileBytes(path, bytes);
}

TEST_F(ParquetFileReaderTest, FooterRowCountThatColumnsDoNotHoldIsAnError) {
  std::string path = Write(arrow::schema({IdField("id", arrow::int64(), 1)}), {Json(arrow::int64(), "[1, 2, 3, 4, 5, 6, 7]")});
  ASSERT_NO_FATAL_FAILURE(PatchRowGroupRowCount(path, 7, 60));
  spec::Schema projection(0, {spec::Optional(1, "id", Type::Long()), spec::Optional(2, "added_later", Type::Long())});
  auto read = ReadParquetFile(*io_, path, projection);
  ASSERT_RAISES_WITH_MESSAGE("Cannot read data file " + path, read);
  ASSERT_RAISES_WITH_MESSAGE("Row group 0 declares 60 rows but column 'id' holds 7", read);

  // A scan a batch at a time finds it at the end of the row group.
  ASSERT_OK_AND_ASSIGN(auto file, ParquetDataFile::Open(*io_, path, std::make_shared<const spec::Schema>(projection)));
  ASSERT_OK_AND_ASSIGN(auto opened, file->OpenRowGroup(0, /*batch_rows=*/4));
  ASSERT_NE(opened.cursor, nullptr);
  int64_t rows = 0;
  Status end;
  while (true) {
    auto batch = opened.cursor->Next();
    if (!batch.ok()) {
      end = batch.status();
      break;
    }
    if (!*batch) break;
    rows += (*batch)->num_rows();
  }
  EXPECT_EQ(rows, 7);
  EXPECT_EQ(end.message(), "Cannot read data file " + path + ": Row group 0 declares 60 rows but its columns hold 7");
}

}  // namespace
}  // namespace floe::scan
