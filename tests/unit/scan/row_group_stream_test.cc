#include "floe/scan/row_group_stream.h"

#include <array>
#include <chrono>
#include <map>
#include <thread>

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/util/thread_pool.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/writer.h>
#include <parquet/properties.h>

#include "floe/scan/parquet_file_reader.h"
#include "floe_test.h"
#include "test_values.h"

namespace floe::scan {
namespace {

using floe::testing::IdField;
using floe::testing::Range;

using Op = ColumnPredicate::Op;
using spec::Type;

// Rows id, n (id, or null for ids in [null_from, null_to)), s ("s" + id), d (id / 2).
std::shared_ptr<arrow::Table> Rows(const std::vector<int64_t>& ids, int64_t null_from = -1, int64_t null_to = -1) {
  arrow::Int64Builder id, n;
  arrow::StringBuilder s;
  arrow::DoubleBuilder d;
  for (int64_t v : ids) {
    EXPECT_TRUE(id.Append(v).ok());
    EXPECT_TRUE((v >= null_from && v < null_to ? n.AppendNull() : n.Append(v)).ok());
    EXPECT_TRUE(s.Append("s" + std::to_string(v)).ok());
    EXPECT_TRUE(d.Append(static_cast<double>(v) / 2).ok());
  }
  auto schema = arrow::schema({IdField("id", arrow::int64(), 1), IdField("n", arrow::int64(), 2),
                               IdField("s", arrow::utf8(), 3), IdField("d", arrow::float64(), 4)});
  return arrow::Table::Make(schema, {id.Finish().ValueOrDie(), n.Finish().ValueOrDie(), s.Finish().ValueOrDie(),
                                     d.Finish().ValueOrDie()});
}

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

ColumnPredicate Pred(int32_t field_id, Op op, spec::Literal value = {}) {
  ColumnPredicate p;
  p.field_id = field_id;
  p.op = op;
  p.value = std::move(value);
  return p;
}

class RowGroupStreamTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK_AND_ASSIGN(io_, FileIO::MakeLocal()); }

  struct WriteOptions {
    int64_t row_group_rows = 10;
    bool statistics = true;
    int64_t page_rows = 0;  // rows per data page; 0 keeps the writer's default
  };

  std::string Write(const arrow::Table& rows, WriteOptions options) {
    std::string path = dir_.str() + "/f" + std::to_string(++n_) + ".parquet";
    parquet::WriterProperties::Builder builder;
    builder.max_row_group_length(options.row_group_rows);
    if (!options.statistics) builder.disable_statistics()->disable_write_page_index();
    if (options.page_rows > 0) builder.disable_dictionary()->data_pagesize(1)->write_batch_size(options.page_rows);
    auto out = arrow::io::FileOutputStream::Open(path).ValueOrDie();
    EXPECT_OK(parquet::arrow::WriteTable(rows, arrow::default_memory_pool(), out, options.row_group_rows,
                                         builder.build()));
    EXPECT_OK(out->Close());
    return path;
  }

  spec::SchemaPtr Schema() const {
    return std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{spec::Optional(1, "id", Type::Long()), spec::Optional(2, "n", Type::Long()),
                                          spec::Optional(3, "s", Type::String()),
                                          spec::Optional(4, "d", Type::Double())});
  }

  spec::SchemaPtr Only(const std::string& name) const {
    auto schema = Schema();
    for (const auto& f : schema->fields()) {
      if (f.name == name) return std::make_shared<const spec::Schema>(0, std::vector<spec::NestedField>{f});
    }
    return nullptr;
  }

  Result<std::shared_ptr<arrow::RecordBatchReader>> Stream(std::vector<std::string> files,
                                                           std::vector<ColumnPredicate> predicates = {},
                                                           spec::SchemaPtr projection = nullptr,
                                                           RowGroupStreamOptions options = {}) {
    counters_ = std::make_shared<RowGroupCounters>();
    return MakeRowGroupStream(io_, {files.begin(), files.end()}, projection ? projection : Schema(), std::move(predicates),
                              Schema(), counters_, options);
  }

  // The first column (an int64) of everything `reader` returns, in order.
  std::vector<int64_t> Drain(arrow::RecordBatchReader& reader, int64_t* max_batch = nullptr) {
    std::vector<int64_t> out;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      EXPECT_OK(reader.ReadNext(&batch));
      if (!batch) break;
      if (max_batch) *max_batch = std::max(*max_batch, batch->num_rows());
      const auto& a = static_cast<const arrow::Int64Array&>(*batch->column(0));
      for (int64_t i = 0; i < a.length(); ++i) out.push_back(a.Value(i));
    }
    return out;
  }

  // Ids returned for `predicates` on `file`, with what the counters say was skipped as
  // "total/stats/bloom/page index/filter columns".
  std::pair<std::vector<int64_t>, std::string> Scan(const std::string& file, std::vector<ColumnPredicate> predicates,
                                                    spec::SchemaPtr projection = nullptr) {
    auto reader = Stream({file}, std::move(predicates), projection);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return {};
    auto ids = Drain(**reader);
    const auto& c = *counters_;
    return {ids, std::to_string(c.total) + "/" + std::to_string(c.skipped_by_stats) + "/" +
                     std::to_string(c.skipped_by_bloom_filter) + "/" + std::to_string(c.skipped_by_page_index) +
                     "/" + std::to_string(c.skipped_by_filter_columns)};
  }

  // Streams two copies of a file of 200 row groups in batches of 100 rows and reads one batch.
  std::shared_ptr<arrow::RecordBatchReader> FirstOfTwoLargeFiles(bool ordered, std::shared_ptr<arrow::RecordBatch>* first) {
    std::string path = Write(*Rows(Range(0, 200000)), {.row_group_rows = 1000});
    RowGroupStreamOptions options;
    options.ordered = ordered;
    options.batch_rows = 100;
    auto reader = Stream({path, path}, {}, nullptr, options).ValueOrDie();
    EXPECT_OK(reader->ReadNext(first));
    EXPECT_TRUE(*first && (*first)->num_rows() == 100);
    return reader;
  }

  floe::testing::TempDir dir_;
  std::shared_ptr<FileIO> io_;
  std::shared_ptr<RowGroupCounters> counters_;
  int n_ = 0;
};

TEST_F(RowGroupStreamTest, KeepsFileAndRowGroupOrderInSmallBatches) {
  std::string a = Write(*Rows(Range(0, 350)), {.row_group_rows = 7});
  std::string b = Write(*Rows(Range(1000, 100)), {.row_group_rows = 10});
  RowGroupStreamOptions options;
  options.batch_rows = 3;
  options.max_in_flight = 6;
  ASSERT_OK_AND_ASSIGN(auto reader, Stream({a, b}, {}, nullptr, options));
  EXPECT_EQ(reader->schema()->ToString(false), "id: int64\nn: int64\ns: string\nd: double");
  int64_t max_batch = 0;
  EXPECT_EQ(Drain(*reader, &max_batch), Concat(Range(0, 350), Range(1000, 100)));
  EXPECT_EQ(max_batch, 3);
  EXPECT_EQ(counters_->total, 60);
  EXPECT_EQ(counters_->skipped_by_stats, 0);
  // The end of the stream stays the end.
  std::shared_ptr<arrow::RecordBatch> batch;
  ASSERT_OK(reader->ReadNext(&batch));
  EXPECT_EQ(batch, nullptr);
}

TEST_F(RowGroupStreamTest, ProjectsByFieldIdWithNullsForMissingColumns) {
  std::string path = Write(*Rows(Range(0, 25)), {.row_group_rows = 10});
  auto projection = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{spec::Optional(3, "renamed", Type::String()),
                                        spec::Optional(9, "added", Type::Int())});
  ASSERT_OK_AND_ASSIGN(auto reader, Stream({path}, {}, projection));
  ASSERT_OK_AND_ASSIGN(auto table, arrow::Table::FromRecordBatchReader(reader.get()));
  EXPECT_EQ(table->schema()->ToString(false), "renamed: string\nadded: int32");
  ASSERT_EQ(table->num_rows(), 25);
  EXPECT_EQ(table->column(0)->GetScalar(24).ValueOrDie()->ToString(), "s24");
  EXPECT_EQ(table->column(1)->null_count(), 25);
}

TEST_F(RowGroupStreamTest, StatisticsSkipRowGroups) {
  // Five row groups of ten rows; n is null in the third.
  std::string path = Write(*Rows(Range(0, 50), 20, 30), {.row_group_rows = 10});
  using spec::Literal;
  EXPECT_EQ(Scan(path, {Pred(1, Op::kEq, Literal::Long(23))}), std::make_pair(Range(20, 10), std::string("5/4/0/0/0")));
  EXPECT_EQ(Scan(path, {Pred(1, Op::kLt, Literal::Long(15))}), std::make_pair(Range(0, 20), std::string("5/3/0/0/0")));
  EXPECT_EQ(Scan(path, {Pred(1, Op::kLe, Literal::Long(9))}), std::make_pair(Range(0, 10), std::string("5/4/0/0/0")));
  EXPECT_EQ(Scan(path, {Pred(1, Op::kGe, Literal::Long(40))}), std::make_pair(Range(40, 10), std::string("5/4/0/0/0")));
  EXPECT_EQ(Scan(path, {Pred(1, Op::kGt, Literal::Long(49))}), std::make_pair(Range(0, 0), std::string("5/5/0/0/0")));
  EXPECT_EQ(Scan(path, {Pred(2, Op::kIsNull)}), std::make_pair(Range(20, 10), std::string("5/4/0/0/0")));
  EXPECT_EQ(Scan(path, {Pred(2, Op::kNotNull)}),
            std::make_pair(Concat(Range(0, 20), Range(30, 20)), std::string("5/1/0/0/0")));
  // All nulls cannot equal anything; ANDed predicates each prune.
  EXPECT_EQ(Scan(path, {Pred(2, Op::kGe, Literal::Long(10)), Pred(1, Op::kLt, Literal::Long(30))}),
            std::make_pair(Range(10, 10), std::string("5/4/0/0/0")));
  // Strings order as bytes: "s33" lies between "s0" and "s9", so the first row group is only
  // ruled out once its s column is decoded.
  EXPECT_EQ(Scan(path, {Pred(3, Op::kEq, Literal::String("s33"))}), std::make_pair(Range(30, 10), std::string("5/3/0/0/1")));
  EXPECT_EQ(Scan(path, {Pred(4, Op::kLt, Literal::Double(5.0))}), std::make_pair(Range(0, 10), std::string("5/4/0/0/0")));
}

TEST_F(RowGroupStreamTest, FloatingGreaterThanNeverPrunes) {
  // NaN is left out of statistics but is greater than every number in Spark.
  std::string path = Write(*Rows(Range(0, 30)), {.row_group_rows = 10});
  EXPECT_EQ(Scan(path, {Pred(4, Op::kGt, spec::Literal::Double(1000))}),
            std::make_pair(Range(0, 30), std::string("3/0/0/0/0")));
  EXPECT_EQ(Scan(path, {Pred(4, Op::kEq, spec::Literal::Double(std::nan("")))}),
            std::make_pair(Range(0, 30), std::string("3/0/0/0/0")));
}

TEST_F(RowGroupStreamTest, MissingStatisticsNeverPruneButFilterColumnsDo) {
  std::string path = Write(*Rows(Range(0, 50), 20, 30), {.row_group_rows = 10, .statistics = false});
  using spec::Literal;
  // Without statistics or page index, the id column of each row group is decoded first
  // and the other columns only for the row group that holds 23.
  EXPECT_EQ(Scan(path, {Pred(1, Op::kEq, Literal::Long(23))}), std::make_pair(Range(20, 10), std::string("5/0/0/0/4")));
  EXPECT_EQ(Scan(path, {Pred(2, Op::kIsNull)}), std::make_pair(Range(20, 10), std::string("5/0/0/0/4")));
  // A predicate on a column that is not read skips nothing.
  auto [rows, counts] = Scan(path, {Pred(1, Op::kEq, Literal::Long(23))}, Only("n"));
  EXPECT_EQ(rows.size(), 50u);
  EXPECT_EQ(counts, "5/0/0/0/0");
}

TEST_F(RowGroupStreamTest, EqualityBetweenValuesIsSkippedAfterFilterColumns) {
  std::vector<int64_t> evens;
  for (int64_t i = 0; i < 40; i += 2) evens.push_back(i);
  std::string path = Write(*Rows(evens), {.row_group_rows = 10});
  // 21 lies inside the first two row groups' [min, max] but is in neither.
  EXPECT_EQ(Scan(path, {Pred(1, Op::kEq, spec::Literal::Long(21))}), std::make_pair(Range(0, 0), std::string("2/1/0/0/1")));
  EXPECT_EQ(Scan(path, {Pred(1, Op::kEq, spec::Literal::Long(22))}),
            std::make_pair(std::vector<int64_t>(evens.begin() + 10, evens.end()), std::string("2/1/0/0/0")));
}

TEST_F(RowGroupStreamTest, PageIndexSkipsRowGroupWhoseGapHoldsTheValue) {
  // One row group of four pages: ids k * 10000 + [0, 1024) in page k.
  std::vector<int64_t> ids;
  for (int64_t k = 0; k < 4; ++k) {
    for (int64_t j = 0; j < 1024; ++j) ids.push_back(k * 10000 + j);
  }
  std::string path = Write(*Rows(ids), {.row_group_rows = 4096, .page_rows = 1024});
  EXPECT_EQ(Scan(path, {Pred(1, Op::kEq, spec::Literal::Long(15000))}), std::make_pair(std::vector<int64_t>{}, std::string("1/0/0/1/0")));
  // Pages kept by different predicates must share rows: id < 1000 keeps page 0, n >= 30000 page 3.
  EXPECT_EQ(Scan(path, {Pred(1, Op::kLt, spec::Literal::Long(1000)), Pred(2, Op::kGe, spec::Literal::Long(30000))}),
            std::make_pair(std::vector<int64_t>{}, std::string("1/0/0/1/0")));
  auto [rows, counts] = Scan(path, {Pred(1, Op::kEq, spec::Literal::Long(10500))});
  EXPECT_EQ(rows, ids);  // the row group is read whole: callers filter rows
  EXPECT_EQ(counts, "1/0/0/0/0");
}

TEST_F(RowGroupStreamTest, PageIndexLeavesOutPagesThatCannotMatchOfFixedWidthColumns) {
  // One row group of eight pages of 1024 rows; n is null for ids [2000, 2500).
  std::string path = Write(*Rows(Range(0, 8192), 2000, 2500), {.row_group_rows = 8192, .page_rows = 1024});
  auto fixed = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{spec::Optional(1, "id", Type::Long()), spec::Optional(2, "n", Type::Long()),
                                        spec::Optional(4, "d", Type::Double())});
  // Every column's (id, n or -1 for null, d * 2) of what the stream returns.
  auto read = [&](std::vector<ColumnPredicate> predicates) {
    std::vector<std::array<int64_t, 3>> out;
    auto reader = Stream({path}, std::move(predicates), fixed);
    EXPECT_OK(reader.status());
    if (!reader.ok()) return out;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      EXPECT_OK((*reader)->ReadNext(&batch));
      if (!batch) break;
      const auto& id = static_cast<const arrow::Int64Array&>(*batch->column(0));
      const auto& n = static_cast<const arrow::Int64Array&>(*batch->column(1));
      const auto& d = static_cast<const arrow::DoubleArray&>(*batch->column(2));
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        out.push_back({id.Value(i), n.IsNull(i) ? -1 : n.Value(i), static_cast<int64_t>(d.Value(i) * 2)});
      }
    }
    return out;
  };
  auto expected = [](int64_t first, int64_t count) {
    std::vector<std::array<int64_t, 3>> out;
    for (int64_t id = first; id < first + count; ++id) out.push_back({id, id >= 2000 && id < 2500 ? -1 : id, id});
    return out;
  };
  // Rows of pages 4 and 5 only: the others are never decoded.
  EXPECT_EQ(read({Pred(1, Op::kGe, spec::Literal::Long(5000)), Pred(1, Op::kLt, spec::Literal::Long(6100))}),
            expected(4096, 2048));
  // The pages holding nulls, with the nulls where they were.
  EXPECT_EQ(read({Pred(2, Op::kIsNull)}), expected(1024, 2048));
  // Two columns' pages intersect: d < 600 keeps pages 0 and 1, id > 1100 pages 1 to 7.
  EXPECT_EQ(read({Pred(4, Op::kLt, spec::Literal::Double(600)), Pred(1, Op::kGt, spec::Literal::Long(1100))}),
            expected(1024, 1024));
  EXPECT_EQ(counters_->skipped_by_page_index, 0);
  // Page 1 is left by both, but none of its rows has both: dropped after decoding it.
  EXPECT_EQ(read({Pred(4, Op::kLt, spec::Literal::Double(600)), Pred(1, Op::kGt, spec::Literal::Long(1500))}),
            expected(0, 0));
  EXPECT_EQ(counters_->skipped_by_filter_columns, 1);
  // No page ruled out: the row group is read whole.
  EXPECT_EQ(read({Pred(1, Op::kGe, spec::Literal::Long(0))}), expected(0, 8192));
  // A string column in the projection: whole row group, as before.
  auto [ids, counts] = Scan(path, {Pred(1, Op::kGe, spec::Literal::Long(5000)), Pred(1, Op::kLt, spec::Literal::Long(6100))});
  EXPECT_EQ(ids, Range(0, 8192));
  EXPECT_EQ(counts, "1/0/0/0/0");
}

TEST_F(RowGroupStreamTest, PageIndexRulingOutEveryPageStillSkipsTheRowGroup) {
  std::string path = Write(*Rows(Range(0, 4096)), {.row_group_rows = 4096, .page_rows = 1024});
  auto [ids, counts] = Scan(path, {Pred(1, Op::kGt, spec::Literal::Long(1000)), Pred(1, Op::kLt, spec::Literal::Long(1010))},
                            Only("id"));
  EXPECT_EQ(ids, Range(0, 1024));
  EXPECT_EQ(counts, "1/0/0/0/0");
  auto [none, none_counts] = Scan(path, {Pred(1, Op::kGt, spec::Literal::Long(5000))}, Only("id"));
  EXPECT_EQ(none, Range(0, 0));
  EXPECT_EQ(none_counts, "1/1/0/0/0");
}

TEST_F(RowGroupStreamTest, DestroyingAfterOneBatchStopsTheRest) {
  std::shared_ptr<arrow::RecordBatch> batch;
  auto reader = FirstOfTwoLargeFiles(/*ordered=*/true, &batch);
  ASSERT_NE(batch, nullptr);
  const auto& ids = static_cast<const arrow::Int64Array&>(*batch->column(0));
  EXPECT_EQ(ids.Value(0), 0);
  EXPECT_EQ(ids.Value(99), 99);
  reader.reset();
  // The second file's footer was never opened.
  EXPECT_EQ(counters_->total, 200);
}

TEST_F(RowGroupStreamTest, ReadFromAPoolThreadDecodesInline) {
  std::string path = Write(*Rows(Range(0, 100)), {.row_group_rows = 10});
  ASSERT_OK_AND_ASSIGN(auto pool, arrow::internal::ThreadPool::Make(1));
  RowGroupStreamOptions options;
  options.executor = pool.get();
  ASSERT_OK_AND_ASSIGN(auto reader, Stream({path}, {}, nullptr, options));
  // With one thread, waiting on the pool from the pool would never finish.
  ASSERT_OK_AND_ASSIGN(auto ids, pool->Submit([&] { return Drain(*reader); }));
  EXPECT_EQ(ids.result().ValueOrDie(), Range(0, 100));
}

TEST_F(RowGroupStreamTest, MissingFileFailsAfterTheRowsBeforeIt) {
  std::string good = Write(*Rows(Range(0, 30)), {.row_group_rows = 10});
  std::string missing = dir_.str() + "/gone.parquet";
  ASSERT_OK_AND_ASSIGN(auto reader, Stream({good, missing}));
  std::vector<int64_t> ids;
  Status st;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    st = reader->ReadNext(&batch);
    if (!st.ok() || !batch) break;
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      ids.push_back(static_cast<const arrow::Int64Array&>(*batch->column(0)).Value(i));
    }
  }
  EXPECT_EQ(ids, Range(0, 30));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "Cannot read file " + missing + ": file does not exist");
  // The error stays.
  std::shared_ptr<arrow::RecordBatch> batch;
  EXPECT_FALSE(reader->ReadNext(&batch).ok());
}

TEST_F(RowGroupStreamTest, DamagedFileFailsNamingIt) {
  std::string path = dir_.str() + "/bad.parquet";
  floe::testing::WriteFileBytes(path, "PAR1 this is not a parquet file PAR1");
  ASSERT_OK_AND_ASSIGN(auto reader, Stream({path}));
  std::shared_ptr<arrow::RecordBatch> batch;
  Status st = reader->ReadNext(&batch);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("Cannot read data file " + path + ": ", 0), 0u) << st.message();
}

// Without order, every row comes exactly once and each row group's rows stay in order.
TEST_F(RowGroupStreamTest, AnyOrderReturnsEveryRowOnceRowGroupsInOrder) {
  std::string a = Write(*Rows(Range(0, 350)), {.row_group_rows = 7});
  std::string b = Write(*Rows(Range(1000, 100)), {.row_group_rows = 10});
  RowGroupStreamOptions options;
  options.batch_rows = 3;
  options.ordered = false;
  ASSERT_OK_AND_ASSIGN(auto reader, Stream({a, b}, {}, nullptr, options));
  EXPECT_EQ(reader->schema()->ToString(false), "id: int64\nn: int64\ns: string\nd: double");
  int64_t max_batch = 0;
  std::vector<int64_t> ids = Drain(*reader, &max_batch);
  std::map<int64_t, int64_t> last_in_group;  // row group key -> last id seen
  for (int64_t id : ids) {
    const int64_t group = id < 1000 ? id / 7 : 1000 + (id - 1000) / 10;
    auto [it, fresh] = last_in_group.emplace(group, id);
    if (!fresh) {
      EXPECT_GT(id, it->second) << "row group " << group;
      it->second = id;
    }
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, Concat(Range(0, 350), Range(1000, 100)));
  EXPECT_EQ(max_batch, 3);
  EXPECT_EQ(counters_->total, 60);
  std::shared_ptr<arrow::RecordBatch> batch;
  ASSERT_OK(reader->ReadNext(&batch));
  EXPECT_EQ(batch, nullptr);
}

TEST_F(RowGroupStreamTest, AnyOrderProjectsAndPrunesAsInOrder) {
  std::string path = Write(*Rows(Range(0, 50), 20, 30), {.row_group_rows = 10, .statistics = false});
  RowGroupStreamOptions options;
  options.ordered = false;
  auto projection = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{spec::Optional(3, "renamed", Type::String()),
                                        spec::Optional(9, "added", Type::Int())});
  ASSERT_OK_AND_ASSIGN(auto reader, Stream({path}, {}, projection, options));
  ASSERT_OK_AND_ASSIGN(auto table, arrow::Table::FromRecordBatchReader(reader.get()));
  EXPECT_EQ(table->schema()->ToString(false), "renamed: string\nadded: int32");
  EXPECT_EQ(table->num_rows(), 50);
  EXPECT_EQ(table->column(1)->null_count(), 50);
  // The filter columns are decoded first and four row groups dropped on them.
  ASSERT_OK_AND_ASSIGN(reader, Stream({path}, {Pred(1, Op::kEq, spec::Literal::Long(23))}, nullptr, options));
  EXPECT_EQ(Drain(*reader), Range(20, 10));
  EXPECT_EQ(counters_->skipped_by_filter_columns, 4);
}

// A consumer that stops taking batches leaves a few decoded, not the row groups.
TEST_F(RowGroupStreamTest, AnyOrderHoldsAFewBatchesWhileTheConsumerWaits) {
  // One repeated value: the column chunks are a few bytes, their decoded row groups 4 MB each.
  std::string path = Write(*Rows(std::vector<int64_t>(1 << 20, 7)), {.row_group_rows = 1 << 19});
  ASSERT_OK_AND_ASSIGN(auto pool, arrow::internal::ThreadPool::Make(2));
  RowGroupStreamOptions options;
  options.ordered = false;
  options.executor = pool.get();
  options.batch_rows = 4096;
  auto* memory = arrow::default_memory_pool();
  const int64_t before = memory->bytes_allocated();
  ASSERT_OK_AND_ASSIGN(auto reader, Stream({path}, {}, Only("id"), options));
  std::shared_ptr<arrow::RecordBatch> batch;
  ASSERT_OK(reader->ReadNext(&batch));
  ASSERT_NE(batch, nullptr);
  // Both workers park once the queue holds four batches.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const int64_t held = memory->bytes_allocated() - before;
  EXPECT_LT(held, 1 << 20);
  reader.reset();
}

TEST_F(RowGroupStreamTest, AnyOrderStopsEarlyAndReportsDamage) {
  std::shared_ptr<arrow::RecordBatch> batch;
  auto reader = FirstOfTwoLargeFiles(/*ordered=*/false, &batch);
  ASSERT_NE(batch, nullptr);
  reader.reset();
  RowGroupStreamOptions options;
  options.ordered = false;
  EXPECT_LT(counters_->total, 400);

  std::string bad = dir_.str() + "/bad.parquet";
  floe::testing::WriteFileBytes(bad, "PAR1 this is not a parquet file PAR1");
  ASSERT_OK_AND_ASSIGN(reader, Stream({bad}, {}, nullptr, options));
  Status st = reader->ReadNext(&batch);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("Cannot read data file " + bad + ": ", 0), 0u) << st.message();
  // The error stays.
  EXPECT_FALSE(reader->ReadNext(&batch).ok());
}

TEST_F(RowGroupStreamTest, AnyOrderReadFromAPoolThreadDecodesInline) {
  std::string path = Write(*Rows(Range(0, 100)), {.row_group_rows = 10});
  ASSERT_OK_AND_ASSIGN(auto pool, arrow::internal::ThreadPool::Make(1));
  RowGroupStreamOptions options;
  options.executor = pool.get();
  options.ordered = false;
  ASSERT_OK_AND_ASSIGN(auto reader, Stream({path}, {}, nullptr, options));
  ASSERT_OK_AND_ASSIGN(auto ids, pool->Submit([&] { return Drain(*reader); }));
  EXPECT_EQ(ids.result().ValueOrDie(), Range(0, 100));
}

TEST_F(RowGroupStreamTest, BloomFiltersWrittenBySparkSkipRowGroups) {
  // parquet-java's file (see data/make_spark_bloom_filter.py): ids 0, 2, ..., 998 in row
  // groups of 100 and s = "v<id>", no field ids (columns match by name).
  std::string path = std::string(FLOE_TEST_DATA_DIR) + "/../unit/scan/data/spark_bloom_filter.parquet";
  auto projection = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{spec::Optional(1, "id", Type::Long()), spec::Optional(2, "s", Type::String())});
  auto scan = [&](ColumnPredicate p) {
    counters_ = std::make_shared<RowGroupCounters>();
    auto reader = MakeRowGroupStream(io_, {path}, projection, {std::move(p)}, projection, counters_);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    auto ids = Drain(**reader);
    const auto& c = *counters_;
    return std::make_pair(ids, std::to_string(c.total) + "/" + std::to_string(c.skipped_by_stats) + "/" +
                                   std::to_string(c.skipped_by_bloom_filter) + "/" +
                                   std::to_string(c.skipped_by_page_index) + "/" +
                                   std::to_string(c.skipped_by_filter_columns));
  };
  std::vector<int64_t> second;
  for (int64_t i = 200; i < 400; i += 2) second.push_back(i);
  // 201 lies inside the second row group's [200, 398] but its Bloom filter rules it out.
  EXPECT_EQ(scan(Pred(1, Op::kEq, spec::Literal::Long(201))), std::make_pair(std::vector<int64_t>{}, std::string("5/4/1/0/0")));
  EXPECT_EQ(scan(Pred(1, Op::kEq, spec::Literal::Long(202))), std::make_pair(second, std::string("5/4/0/0/0")));
  // "v201" sorts inside the first two row groups' string ranges ("v0".."v98", "v200".."v398").
  EXPECT_EQ(scan(Pred(2, Op::kEq, spec::Literal::String("v201"))), std::make_pair(std::vector<int64_t>{}, std::string("5/3/2/0/0")));
  EXPECT_EQ(scan(Pred(2, Op::kEq, spec::Literal::String("v202"))), std::make_pair(second, std::string("5/3/1/0/0")));
}

}  // namespace
}  // namespace floe::scan
