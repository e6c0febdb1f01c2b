#include "floe/scan/parquet_file_reader.h"

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/json/from_string.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/writer.h>

#include "floe_test.h"

namespace floe::scan {
namespace {

using spec::NestedField;
using spec::Type;

std::shared_ptr<arrow::Field> Field(const std::string& name, std::shared_ptr<arrow::DataType> type,
                                    int id) {
  auto md = id < 0 ? nullptr : arrow::key_value_metadata({"PARQUET:field_id"}, {std::to_string(id)});
  return arrow::field(name, std::move(type), true, md);
}

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
  auto schema = arrow::schema({Field("b_old", arrow::utf8(), 2), Field("a", arrow::int32(), 1)});
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
  auto schema = arrow::schema({Field("a", arrow::float32(), -1)});
  std::string path = Write(schema, {Json(arrow::float32(), "[1.5]")});
  spec::Schema projection(0, {spec::Optional(7, "a", Type::Double())});
  ASSERT_OK_AND_ASSIGN(auto table, ReadParquetFile(*io_, path, projection));
  EXPECT_EQ(table->column(0)->chunk(0)->ToString(), Json(arrow::float64(), "[1.5]")->ToString());
}

TEST_F(ParquetFileReaderTest, NestedStructChildrenByIdWithMissingOnes) {
  auto inner = arrow::struct_({Field("x_old", arrow::int64(), 3)});
  auto schema = arrow::schema({Field("s", inner, 2)});
  std::string path = Write(schema, {Json(inner, R"([{"x_old": 5}, null])")});
  auto struct_type = Type::Struct({spec::Optional(3, "x", Type::Long()), spec::Optional(4, "y", Type::String())});
  spec::Schema projection(0, {spec::Optional(2, "s", struct_type)});
  ASSERT_OK_AND_ASSIGN(auto table, ReadParquetFile(*io_, path, projection));
  auto want_type = arrow::struct_({arrow::field("x", arrow::int64()), arrow::field("y", arrow::utf8())});
  auto got = table->column(0)->chunk(0);
  EXPECT_TRUE(got->Equals(Json(want_type, R"([{"x": 5, "y": null}, null])"))) << got->ToString();
}

TEST_F(ParquetFileReaderTest, MissingRequiredColumnIsAnError) {
  auto schema = arrow::schema({Field("a", arrow::int64(), 1)});
  std::string path = Write(schema, {Json(arrow::int64(), "[1]")});
  spec::Schema projection(0, {spec::Required(9, "must", Type::Long())});
  ASSERT_RAISES_WITH_MESSAGE("Missing required field 'must' (id 9)", ReadParquetFile(*io_, path, projection));
  ASSERT_RAISES_WITH_MESSAGE(path, ReadParquetFile(*io_, path, projection));
}

}  // namespace
}  // namespace floe::scan
