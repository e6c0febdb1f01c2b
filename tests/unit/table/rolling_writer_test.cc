#include <cmath>
#include <limits>

#include <arrow/api.h>

#include "floe/scan/table_scan.h"
#include "floe/table/data_writer.h"
#include "floe/table/rolling_writer.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/update_properties.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::FilesUnder;
using floe::testing::People;
using floe::testing::Range;
using floe::testing::SortedIds;

class RollingWriterTest : public floe::testing::PeopleTableTest {
 protected:
  std::vector<manifest::DataFile> CurrentFiles(const std::shared_ptr<Table>& table) {
    auto tasks = scan::TableScan(table).IncludeColumnStats().PlanFiles();
    EXPECT_TRUE(tasks.ok()) << tasks.status().ToString();
    std::vector<manifest::DataFile> files;
    if (tasks.ok()) {
      for (const auto& t : *tasks) files.push_back(t.file);
    }
    return files;
  }

  std::vector<int64_t> Ids(const std::shared_ptr<Table>& table) {
    auto rows = scan::TableScan(table).ToArrowTable();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? SortedIds(**rows) : std::vector<int64_t>{};
  }

  std::set<std::string> DataFilesOnDisk(const Table& table) {
    return FilesUnder(*table.io(), table.metadata()->location + "/data");
  }
};

// Rows of `data` in batches of `batch_rows`.
std::shared_ptr<arrow::RecordBatchReader> Batches(const std::shared_ptr<arrow::Table>& data, int64_t batch_rows) {
  auto reader = std::make_shared<arrow::TableBatchReader>(data);
  reader->set_chunksize(batch_rows);
  return reader;
}

// Hands every batch of `reader` to `writer`.
Status WriteAll(RollingDataWriter& writer, arrow::RecordBatchReader& reader) {
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (!batch) return Status::OK();
    ARROW_RETURN_NOT_OK(writer.Write(*batch));
  }
}

TEST_F(RollingWriterTest, RollsFilesAtTheTargetSizeAndCommitsThemAll) {
  // Small row groups: a file's size is estimated from the compression of those written.
  ASSERT_OK(UpdateProperties(*table_, {{{"write.parquet.row-group-size-bytes", "8192"}}, {}}));
  RollingWriterOptions options;
  options.target_file_size_bytes = 64 * 1024;
  ASSERT_OK_AND_ASSIGN(auto writer, RollingDataWriter::Make(*table_, options));
  ASSERT_OK(WriteAll(*writer, *Batches(People(0, 100000), 4096)));
  ASSERT_OK_AND_ASSIGN(auto files, writer->Finish());
  ASSERT_GT(files.size(), 3u);
  int64_t total = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    total += files[i].record_count;
    EXPECT_GT(files[i].record_count, 0);
    // Every file but the last was closed once it reached the target.
    if (i + 1 < files.size()) {
      EXPECT_GE(files[i].file_size_in_bytes, options.target_file_size_bytes / 2);
    }
    EXPECT_LT(files[i].file_size_in_bytes, 2 * options.target_file_size_bytes);
    EXPECT_EQ(files[i].value_counts.at(1), files[i].record_count);
    EXPECT_EQ(files[i].null_value_counts.at(1), 0);
  }
  EXPECT_EQ(total, 100000);
  // The files are contiguous runs of the stream: bounds chain from 0 to 99999.
  EXPECT_EQ(files.front().lower_bounds.at(1), spec::ToSingleValueBinary(spec::Literal::Long(0)));
  EXPECT_EQ(files.back().upper_bounds.at(1), spec::ToSingleValueBinary(spec::Literal::Long(99999)));

  ASSERT_OK_AND_ASSIGN(int64_t id, AppendFiles(*table_, files));
  auto snapshot = table_->metadata()->SnapshotById(id);
  EXPECT_EQ(snapshot->summary.at("added-data-files"), std::to_string(files.size()));
  EXPECT_EQ(snapshot->summary.at("added-records"), "100000");
  EXPECT_EQ(CurrentFiles(table_).size(), files.size());
  EXPECT_EQ(Ids(table_), Range(0, 100000));
}

TEST_F(RollingWriterTest, AppendStreamReadsTheTargetSizeFromTheTableProperties) {
  ASSERT_OK(UpdateProperties(*table_, {{{"write.target-file-size-bytes", "65536"}}, {}}));
  ASSERT_OK(AppendStream(*table_, *Batches(People(0, 100000), 10000)).status());
  auto files = CurrentFiles(table_);
  EXPECT_GT(files.size(), 3u);
  int64_t total = 0;
  for (const auto& f : files) total += f.record_count;
  EXPECT_EQ(total, 100000);
  EXPECT_EQ(Ids(table_), Range(0, 100000));

  // The default target keeps a small write in one file.
  ASSERT_OK(UpdateProperties(*table_, {{}, {"write.target-file-size-bytes"}}));
  ASSERT_OK(AppendStream(*table_, *Batches(People(100000, 50000), 10000)).status());
  EXPECT_EQ(CurrentFiles(table_).size(), files.size() + 1);
  EXPECT_EQ(Ids(table_), Range(0, 150000));

  ASSERT_OK(UpdateProperties(*table_, {{{"write.target-file-size-bytes", "0"}}, {}}));
  ASSERT_RAISES_WITH_MESSAGE("Invalid value for write.target-file-size-bytes: '0'",
                             AppendStream(*table_, *Batches(People(0, 1), 1)));
}

// Rows (id int64 required, region string, score double) over three regions.
std::shared_ptr<arrow::Table> Scores(int64_t n) {
  arrow::Int64Builder ids;
  arrow::StringBuilder regions;
  arrow::DoubleBuilder scores;
  const char* names[] = {"eu", "us", "apac"};
  for (int64_t i = 0; i < n; ++i) {
    (void)ids.Append(i);
    (void)regions.Append(names[i % 3]);
    if (i % 10 == 0) {
      (void)scores.AppendNull();
    } else if (i % 7 == 0) {
      (void)scores.Append(std::numeric_limits<double>::quiet_NaN());
    } else {
      (void)scores.Append(static_cast<double>(i) / 4);
    }
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("region", arrow::utf8()),
                               arrow::field("score", arrow::float64())});
  return arrow::Table::Make(schema, {ids.Finish().ValueOrDie(), regions.Finish().ValueOrDie(),
                                     scores.Finish().ValueOrDie()});
}

class PartitionedRollingTest : public RollingWriterTest {
 protected:
  void SetUp() override {
    RollingWriterTest::SetUp();
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*Scores(1)->schema()));
    CreateTableOptions options;
    options.partition_by = {{"region", spec::Transform::Identity(), ""}};
    ASSERT_OK_AND_ASSIGN(scores_, wh_.tables->CreateTable(TableIdentifier(Namespace({"db"}), "scores"), *schema,
                                                          options));
  }

  // Per region: files, rows and NaN counts of the current snapshot.
  struct RegionFiles {
    int files = 0;
    int64_t rows = 0;
    int64_t nans = 0;
  };
  std::map<std::string, RegionFiles> ByRegion() {
    std::map<std::string, RegionFiles> out;
    for (const auto& f : CurrentFiles(scores_)) {
      EXPECT_EQ(f.partition.size(), 1u);
      auto& r = out[f.partition[0].ToString()];
      ++r.files;
      r.rows += f.record_count;
      r.nans += f.nan_value_counts.at(3);
      // A file holds one region: its bounds on region are that region.
      EXPECT_EQ(f.lower_bounds.at(2), f.upper_bounds.at(2)) << f.file_path;
    }
    return out;
  }

  std::shared_ptr<Table> scores_;
};

TEST_F(PartitionedRollingTest, EachPartitionRollsItsOwnFiles) {
  RollingWriterOptions options;
  options.target_file_size_bytes = 32 * 1024;
  ASSERT_OK_AND_ASSIGN(auto writer, RollingDataWriter::Make(*scores_, options));
  ASSERT_OK(WriteAll(*writer, *Batches(Scores(90000), 3000)));
  ASSERT_OK_AND_ASSIGN(auto files, writer->Finish());
  ASSERT_OK(AppendFiles(*scores_, files).status());
  auto regions = ByRegion();
  ASSERT_EQ(regions.size(), 3u);
  // ids i with i % 7 == 0 and i % 10 != 0 are NaN: per region (i % 3), count them.
  std::map<int, int64_t> nans;
  for (int64_t i = 0; i < 90000; ++i) {
    if (i % 7 == 0 && i % 10 != 0) ++nans[i % 3];
  }
  const std::map<std::string, int> region_of{{spec::Literal::String("eu").ToString(), 0},
                                             {spec::Literal::String("us").ToString(), 1},
                                             {spec::Literal::String("apac").ToString(), 2}};
  for (const auto& [region, r] : regions) {
    EXPECT_GT(r.files, 1) << region;
    EXPECT_EQ(r.rows, 30000) << region;
    ASSERT_TRUE(region_of.count(region)) << region;
    EXPECT_EQ(r.nans, nans[region_of.at(region)]) << region;
  }
  EXPECT_EQ(Ids(scores_), Range(0, 90000));
}

TEST_F(PartitionedRollingTest, OpenFilesStayBounded) {
  RollingWriterOptions options;
  options.max_open_files = 2;
  ASSERT_OK_AND_ASSIGN(auto writer, RollingDataWriter::Make(*scores_, options));
  // Batches of 2 rows visit the regions in turn: with two files open, every batch evicts one.
  ASSERT_OK(WriteAll(*writer, *Batches(Scores(30), 2)));
  ASSERT_OK_AND_ASSIGN(auto files, writer->Finish());
  EXPECT_GT(files.size(), 3u);
  ASSERT_OK(AppendFiles(*scores_, files).status());
  auto regions = ByRegion();
  ASSERT_EQ(regions.size(), 3u);
  for (const auto& [region, r] : regions) EXPECT_EQ(r.rows, 10) << region;
  EXPECT_EQ(Ids(scores_), Range(0, 30));
}

TEST_F(PartitionedRollingTest, StreamedMetricsEqualThoseOfAOneShotWrite) {
  auto data = Scores(20000);
  ASSERT_OK_AND_ASSIGN(auto one_shot, WriteDataFiles(*scores_, *data));
  ASSERT_OK_AND_ASSIGN(auto writer, RollingDataWriter::Make(*scores_));
  ASSERT_OK(WriteAll(*writer, *Batches(data, 777)));
  ASSERT_OK_AND_ASSIGN(auto streamed, writer->Finish());
  ASSERT_EQ(streamed.size(), one_shot.size());
  for (size_t i = 0; i < streamed.size(); ++i) {
    const auto& s = streamed[i];
    const auto& o = one_shot[i];
    EXPECT_EQ(s.partition, o.partition);
    EXPECT_EQ(s.record_count, o.record_count);
    EXPECT_EQ(s.value_counts, o.value_counts);
    EXPECT_EQ(s.null_value_counts, o.null_value_counts);
    EXPECT_EQ(s.nan_value_counts, o.nan_value_counts);
    EXPECT_EQ(s.lower_bounds, o.lower_bounds);
    EXPECT_EQ(s.upper_bounds, o.upper_bounds);
    EXPECT_EQ(s.split_offsets.size(), o.split_offsets.size());
  }
  for (const auto& f : one_shot) ASSERT_OK(scores_->io()->DeleteFile(f.file_path, FileKind::kData));
}

TEST_F(RollingWriterTest, AFailedOpenDeletesEveryFileWrittenAndCommitsNothing) {
  ASSERT_OK(AppendData(*table_, *People(0, 10)).status());
  const auto before_files = DataFilesOnDisk(*table_);
  const auto before_snapshot = table_->metadata()->current_snapshot_id;
  ASSERT_OK(UpdateProperties(*table_, {{{"write.target-file-size-bytes", "16384"}}, {}}));
  int creates = 0;
  table_->io()->SetFaultInjector([&](FileOp op, const std::string&, FileKind kind) -> Status {
    if (op == FileOp::kCreate && kind == FileKind::kData && ++creates == 4) return Status::IOError("disk full");
    return Status::OK();
  });
  ASSERT_RAISES_WITH_MESSAGE("disk full", AppendStream(*table_, *Batches(People(10, 100000), 4096)));
  table_->io()->SetFaultInjector(nullptr);
  EXPECT_EQ(creates, 4);
  EXPECT_EQ(DataFilesOnDisk(*table_), before_files);
  EXPECT_EQ(table_->metadata()->current_snapshot_id, before_snapshot);
  EXPECT_EQ(Ids(table_), Range(0, 10));
}

TEST_F(RollingWriterTest, AFailedFileCloseDeletesEveryFileWritten) {
  ASSERT_OK(UpdateProperties(*table_, {{{"write.target-file-size-bytes", "16384"}}, {}}));
  int syncs = 0;
  table_->io()->SetFaultInjector([&](FileOp op, const std::string&, FileKind kind) -> Status {
    if (op == FileOp::kSync && kind == FileKind::kData && ++syncs == 3) return Status::IOError("fsync failed");
    return Status::OK();
  });
  ASSERT_RAISES_WITH_MESSAGE("fsync failed", AppendStream(*table_, *Batches(People(0, 100000), 4096)));
  table_->io()->SetFaultInjector(nullptr);
  EXPECT_EQ(syncs, 3);
  EXPECT_TRUE(DataFilesOnDisk(*table_).empty());
  EXPECT_FALSE(table_->metadata()->current_snapshot_id.has_value());
}

TEST_F(RollingWriterTest, ABadBatchMidStreamDeletesEveryFileWritten) {
  RollingWriterOptions options;
  options.target_file_size_bytes = 16 * 1024;
  ASSERT_OK_AND_ASSIGN(auto writer, RollingDataWriter::Make(*table_, options));
  ASSERT_OK(WriteAll(*writer, *Batches(People(0, 50000), 4096)));
  EXPECT_GT(DataFilesOnDisk(*table_).size(), 2u);
  // The id column is required; a later batch holds a null id.
  arrow::Int64Builder ids;
  ASSERT_OK(ids.Append(50000));
  ASSERT_OK(ids.AppendNull());
  arrow::StringBuilder names;
  ASSERT_OK(names.AppendValues({"a", "b"}));
  auto bad = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8())}), 2,
      {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie()});
  ASSERT_RAISES_WITH_MESSAGE("Cannot write null values to required column 'id'", writer->Write(*bad));
  EXPECT_TRUE(DataFilesOnDisk(*table_).empty());
  ASSERT_RAISES_WITH_MESSAGE("already finished", writer->Finish());
  EXPECT_FALSE(table_->metadata()->current_snapshot_id.has_value());
}

TEST_F(RollingWriterTest, AnAbandonedWriterLeavesNoFiles) {
  {
    ASSERT_OK_AND_ASSIGN(auto writer, RollingDataWriter::Make(*table_));
    ASSERT_OK(writer->Write(*People(0, 1000)->CombineChunksToBatch().ValueOrDie()));
    EXPECT_EQ(DataFilesOnDisk(*table_).size(), 1u);
  }
  EXPECT_TRUE(DataFilesOnDisk(*table_).empty());
}

}  // namespace
}  // namespace floe::table
