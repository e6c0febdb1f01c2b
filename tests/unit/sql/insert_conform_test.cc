// INSERT's conforming of nested columns on arrays that are slices of larger ones, and with
// required fields under NULL structs.

#include <gtest/gtest.h>

#include <arrow/api.h>
#include <arrow/json/from_string.h>

#include "floe/sql/execute/insert_conform.h"

namespace floe::sql {
namespace {

std::shared_ptr<arrow::Array> Json(const std::shared_ptr<arrow::DataType>& type, const std::string& json) {
  return arrow::json::ArrayFromJSONString(type, json).ValueOrDie();
}

const char* kTable = "`cat`.`db`.`t`";

TEST(InsertConformTest, StructFieldsPairByPositionInASlice) {
  auto from = arrow::struct_({arrow::field("col1", arrow::int16()), arrow::field("col2", arrow::utf8())});
  auto want = arrow::field("s", arrow::struct_({arrow::field("x", arrow::int64()), arrow::field("y", arrow::utf8())}));
  auto data = Json(from, R"([[1, "a"], null, [3, "c"], [4, null], [5, "e"]])")->Slice(1, 3);
  auto out = ConformForInsert(std::make_shared<arrow::ChunkedArray>(data), *want, kTable);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  auto expected = Json(want->type(), R"([null, [3, "c"], [4, null]])");
  ASSERT_EQ((*out)->num_chunks(), 1);
  EXPECT_TRUE((*out)->chunk(0)->Equals(*expected)) << (*out)->chunk(0)->ToString();
}

TEST(InsertConformTest, ListOfStructsInASlice) {
  auto from = arrow::list(arrow::struct_({arrow::field("p", arrow::int32())}));
  auto want = arrow::field("l", arrow::list(arrow::field("element", arrow::struct_({arrow::field("v", arrow::float64())}))));
  auto data = Json(from, R"([[[1]], [[2], null], null, [[4]]])")->Slice(1, 2);
  auto out = ConformForInsert(std::make_shared<arrow::ChunkedArray>(data), *want, kTable);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE((*out)->chunk(0)->Equals(*Json(want->type(), R"([[[2.0], null], null])")))
      << (*out)->chunk(0)->ToString();
}

TEST(InsertConformTest, RequiredFieldUnderNullStructIsWritableAndNotNullElsewhere) {
  auto type = arrow::struct_({arrow::field("x", arrow::int32(), /*nullable=*/false), arrow::field("y", arrow::utf8())});
  auto want = arrow::field("s", type);
  auto nulls = std::make_shared<arrow::ChunkedArray>(arrow::MakeArrayOfNull(arrow::null(), 2).ValueOrDie());
  auto out = ConformForInsert(nulls, *want, kTable);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const auto& s = static_cast<const arrow::StructArray&>(*(*out)->chunk(0));
  EXPECT_EQ(s.null_count(), 2);
  // Parquet writers refuse any null in a required field's array.
  EXPECT_EQ(s.field(0)->null_count(), 0);

  auto from = arrow::struct_({arrow::field("a", arrow::int32()), arrow::field("b", arrow::utf8())});
  auto bad = ConformForInsert(std::make_shared<arrow::ChunkedArray>(Json(from, R"([[1, "a"], [null, "b"]])")),
                              *want, kTable);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "Cannot write NULL to the required field `s`.`x` of the table `cat`.`db`.`t`.");
}

TEST(InsertConformTest, CastByPositionFillsVoidFields) {
  auto from = arrow::struct_({arrow::field("y", arrow::null())});
  auto to = arrow::struct_({arrow::field("y", arrow::utf8())});
  auto out = CastByPosition(Json(from, R"([[null], null])"), to);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE((*out)->Equals(*Json(to, R"([[null], null])"))) << (*out)->ToString();
}

}  // namespace
}  // namespace floe::sql
