// Row hashes agree with row equality: NaNs are one value, -0.0 equals 0.0, nulls equal nulls,
// at any depth of structs and lists; different values (almost always) hash differently.
#include "floe/scan/row_hash.h"

#include <cmath>
#include <limits>

#include <arrow/api.h>
#include <arrow/json/from_string.h>

#include "floe_test.h"

namespace floe::scan {
namespace {

std::shared_ptr<arrow::RecordBatch> Batch(const std::shared_ptr<arrow::DataType>& type,
                                          const std::string& json) {
  auto array = arrow::json::ArrayFromJSONString(type, json).ValueOrDie();
  return arrow::RecordBatch::Make(arrow::schema({arrow::field("c", type)}), array->length(),
                                  {array});
}

void ExpectSameRows(const arrow::RecordBatch& batch, int64_t i, int64_t j) {
  EXPECT_TRUE(RowsEqual(batch, i, batch, j, {0})) << i << " vs " << j;
  EXPECT_EQ(HashRow(batch, {0}, i), HashRow(batch, {0}, j)) << i << " vs " << j;
}

void ExpectDifferentRows(const arrow::RecordBatch& batch, int64_t i, int64_t j) {
  EXPECT_FALSE(RowsEqual(batch, i, batch, j, {0})) << i << " vs " << j;
  EXPECT_NE(HashRow(batch, {0}, i), HashRow(batch, {0}, j)) << i << " vs " << j;
}

TEST(RowHashTest, DoublesNaNsZerosAndNulls) {
  arrow::DoubleBuilder b;
  ASSERT_OK(
      b.AppendValues({std::nan("1"), -std::numeric_limits<double>::quiet_NaN(), 0.0, -0.0, 1.5}));
  ASSERT_OK(b.AppendNull());
  ASSERT_OK(b.AppendNull());
  auto array = b.Finish().ValueOrDie();
  auto batch =
      arrow::RecordBatch::Make(arrow::schema({arrow::field("c", arrow::float64())}), 7, {array});
  ExpectSameRows(*batch, 0, 1);
  ExpectSameRows(*batch, 2, 3);
  ExpectSameRows(*batch, 5, 6);
  ExpectDifferentRows(*batch, 2, 4);
  ExpectDifferentRows(*batch, 2, 5);  // 0.0 is not null
}

TEST(RowHashTest, NestedValues) {
  auto type = arrow::struct_(
      {arrow::field("a", arrow::int64()), arrow::field("l", arrow::list(arrow::utf8()))});
  auto batch =
      Batch(type, R"([{"a": 1, "l": ["x", null]}, {"a": 1, "l": ["x", null]}, {"a": 1, "l": ["x"]},
                               {"a": null, "l": []}, {"a": null, "l": null}, null])");
  ExpectSameRows(*batch, 0, 1);
  ExpectDifferentRows(*batch, 0, 2);
  ExpectDifferentRows(*batch, 3, 4);  // an empty list is not a null one
  ExpectDifferentRows(*batch, 4, 5);
  ASSERT_OK(CheckHashable(*type));
  ASSERT_OK(CheckHashable(*arrow::map(arrow::utf8(), arrow::decimal128(10, 2))));
}

TEST(RowHashTest, SeedsAndSlices) {
  auto batch = Batch(arrow::utf8(), R"(["a", "b", "a"])");
  std::vector<uint64_t> hashes, seeded;
  HashRows(*batch, {0}, 0, &hashes);
  HashRows(*batch, {0}, 7, &seeded);
  ASSERT_EQ(hashes.size(), 3u);
  EXPECT_EQ(hashes[0], hashes[2]);
  EXPECT_NE(hashes[0], seeded[0]);
  EXPECT_EQ(seeded[0], seeded[2]);
  EXPECT_EQ(hashes[0], HashRow(*batch, {0}, 0));
  // A slice hashes its own rows.
  auto slice = batch->Slice(1);
  EXPECT_EQ(HashRow(*slice, {0}, 1), hashes[0]);
  EXPECT_TRUE(RowsEqual(*slice, 1, *batch, 0, {0}));
}

}  // namespace
}  // namespace floe::scan
