// Row deltas commit delete files beside data files; scans apply them by the spec's
// sequence-number rules (equality deletes are written here in Flink's layout: the deleted
// rows' equality columns under their field ids).
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/writer.h>

#include "floe/manifest/deletion_vector.h"
#include "floe/manifest/puffin_file.h"
#include "floe/scan/position_deletes.h"
#include "floe/scan/table_scan.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"
#include "test_values.h"

namespace floe::table {
namespace {

using floe::testing::IdField;

using manifest::DataFile;
using manifest::FileContent;

class RowDeltaTest : public floe::testing::PeopleTableTest {
 protected:
  // Writes `rows` as a delete file of `content` under the table's data directory.
  DataFile WriteDeletes(const arrow::Table& rows, FileContent content,
                        std::vector<int32_t> equality_ids = {}) {
    return testing::WriteDeleteFile(*table_, ++n_, rows, content, std::move(equality_ids));
  }

  DataFile EqualityDeletesOfIds(const std::vector<int64_t>& ids) {
    return WriteDeletes(*floe::testing::IdDeleteRows(ids), FileContent::kEqualityDeletes, {1});
  }

  DataFile EqualityDeletesOfNames(const std::vector<std::optional<std::string>>& names) {
    arrow::StringBuilder b;
    for (const auto& n : names) EXPECT_OK(n ? b.Append(*n) : b.AppendNull());
    auto schema = arrow::schema({IdField("name", arrow::utf8(), 2)});
    return WriteDeletes(*arrow::Table::Make(schema, {b.Finish().ValueOrDie()}),
                        FileContent::kEqualityDeletes, {2});
  }

  DataFile PositionDeletes(const std::string& data_file, const std::vector<int64_t>& positions) {
    return WriteDeletes(*floe::testing::PositionDeleteRows(data_file, positions),
                              FileContent::kPositionDeletes);
  }

  std::vector<int64_t> IdsAt(int64_t snapshot_id) {
    scan::TableScan scan(table_);
    scan.UseSnapshot(snapshot_id);
    auto rows = scan.ToArrowTable();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? floe::testing::SortedIds(**rows) : std::vector<int64_t>{};
  }

  int n_ = 0;
};

TEST_F(RowDeltaTest, EqualityAndPositionDeletesApplyToEarlierDataOnly) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *floe::testing::People(0, 10)));
  ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(table_).PlanFiles());
  ASSERT_EQ(tasks.size(), 1u);
  const std::string first_file = tasks[0].file.file_path;

  DataFile by_id = EqualityDeletesOfIds({2, 5, 42});
  DataFile by_name = EqualityDeletesOfNames({"person-8", std::nullopt});
  DataFile by_position = PositionDeletes(first_file, {0});
  const int64_t delete_bytes =
      by_id.file_size_in_bytes + by_name.file_size_in_bytes + by_position.file_size_in_bytes;
  ASSERT_OK_AND_ASSIGN(int64_t s2, CommitRowDelta(*table_, {}, {by_id, by_name, by_position}));
  // Rows with ids 5, 6 and 7 again, and names that match no delete: added after the deletes.
  ASSERT_OK_AND_ASSIGN(int64_t s3, AppendData(*table_, *floe::testing::People(5, 3)));

  const spec::Snapshot* snap = table_->metadata()->SnapshotById(s2);
  ASSERT_NE(snap, nullptr);
  EXPECT_EQ(snap->operation, "delete");
  std::map<std::string, std::string> want = {
      {"added-delete-files", "3"},      {"added-equality-delete-files", "2"},
      {"added-equality-deletes", "5"},  {"added-position-delete-files", "1"},
      {"added-position-deletes", "1"},  {"added-files-size", std::to_string(delete_bytes)},
      {"changed-partition-count", "1"}, {"total-records", "10"},
      {"total-data-files", "1"},        {"total-delete-files", "3"},
      {"total-equality-deletes", "5"},  {"total-position-deletes", "1"},
  };
  for (const auto& [key, value] : want) EXPECT_EQ(snap->summary.at(key), value) << key;
  EXPECT_EQ(table_->metadata()->SnapshotById(s3)->summary.at("total-delete-files"), "3");

  EXPECT_EQ(IdsAt(s1), floe::testing::Range(0, 10));
  EXPECT_EQ(IdsAt(s2), (std::vector<int64_t>{1, 3, 4, 6, 7, 9}));
  EXPECT_EQ(IdsAt(s3), (std::vector<int64_t>{1, 3, 4, 5, 6, 6, 7, 7, 9}));
}

TEST_F(RowDeltaTest, ColumnsReadOnlyForEqualityDeletesAreNotReturned) {
  ASSERT_OK(AppendData(*table_, *floe::testing::People(0, 6)).status());
  ASSERT_OK(CommitRowDelta(*table_, {}, {EqualityDeletesOfIds({1, 4})}).status());
  for (bool ordered : {true, false}) {
    SCOPED_TRACE(ordered ? "in order" : "any order");
    scan::TableScan scan(table_);
    scan.Select({"name"});
    ASSERT_OK_AND_ASSIGN(
        auto reader, ordered ? scan.ToRecordBatchReader() : scan.ToUnorderedRecordBatchReader());
    EXPECT_EQ(reader->schema()->ToString(), "name: string");
    ASSERT_OK_AND_ASSIGN(auto rows, arrow::Table::FromRecordBatchReader(reader.get()));
    ASSERT_OK_AND_ASSIGN(rows, rows->CombineChunks());
    EXPECT_EQ(rows->schema()->ToString(), "name: string");
    ASSERT_EQ(rows->num_rows(), 4);
    std::vector<std::string> names;
    const auto& a = static_cast<const arrow::StringArray&>(*rows->column(0)->chunk(0));
    for (int64_t i = 0; i < a.length(); ++i) names.emplace_back(a.GetView(i));
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"person-0", "person-2", "person-3", "person-5"}));
  }
}

TEST_F(RowDeltaTest, PositionsAreOfTheFileNotOfTheRowsLeft) {
  ASSERT_OK(AppendData(*table_, *floe::testing::People(0, 5)).status());
  ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(table_).PlanFiles());
  ASSERT_EQ(tasks.size(), 1u);
  const std::string path = tasks[0].file.file_path;
  ASSERT_OK(CommitRowDelta(*table_, {}, {PositionDeletes(path, {0, 2}), EqualityDeletesOfIds({4})})
                .status());
  scan::TableScan scan(table_);
  scan.Select({"_pos", "_file", "name"});
  ASSERT_OK_AND_ASSIGN(auto rows, scan.ToArrowTable());
  ASSERT_OK_AND_ASSIGN(rows, rows->CombineChunks());
  EXPECT_EQ(rows->schema()->ToString(), "_pos: int64\n_file: string\nname: string");
  ASSERT_EQ(rows->num_rows(), 2);
  const auto& pos = static_cast<const arrow::Int64Array&>(*rows->column(0)->chunk(0));
  const auto& file = static_cast<const arrow::StringArray&>(*rows->column(1)->chunk(0));
  const auto& name = static_cast<const arrow::StringArray&>(*rows->column(2)->chunk(0));
  EXPECT_EQ(pos.Value(0), 1);
  EXPECT_EQ(pos.Value(1), 3);
  EXPECT_EQ(file.GetView(0), path);
  EXPECT_EQ(file.GetView(1), path);
  EXPECT_EQ(name.GetView(0), "person-1");
  EXPECT_EQ(name.GetView(1), "person-3");
}

TEST_F(RowDeltaTest, DeletesOfAFileRemovedMeanwhileAreRefused) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *floe::testing::People(0, 5)));
  ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(table_).PlanFiles());
  const std::string path = tasks.at(0).file.file_path;
  // Another writer replaces the file after the delete read it.
  ASSERT_OK(
      OverwriteData(*table_, *floe::testing::People(100, 1), OverwriteFilter::All()).status());
  const std::string before = table_->metadata_location();
  DataFile deletes = PositionDeletes(path, {3});
  WriteOptions options;
  options.starting_snapshot_id = s1;
  RowDeltaValidation validation{{[](const DataFile&) { return true; }, "id = 3"}, {path}};
  ASSERT_RAISES_WITH_MESSAGE("Cannot commit, missing data files: [" + path + "]",
                             CommitRowDelta(*table_, {}, {deletes}, validation, options));
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(table_->metadata_location(), before);
  EXPECT_FALSE(std::filesystem::exists(deletes.file_path))
      << "a failed commit leaves its delete file behind";
}

TEST_F(RowDeltaTest, AppendsMatchingTheConditionConflictUnderSerializableOnly) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *floe::testing::People(0, 5)));
  ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(table_).PlanFiles());
  const std::string path = tasks.at(0).file.file_path;
  ASSERT_OK(AppendData(*table_, *floe::testing::People(10, 2)).status());
  RowDeltaValidation validation{{[](const DataFile&) { return true; }, "id >= 3"}, {path}};
  WriteOptions options;
  options.starting_snapshot_id = s1;
  ASSERT_RAISES_WITH_MESSAGE(
      "Found conflicting files that can contain records matching id >= 3",
      CommitRowDelta(*table_, {}, {PositionDeletes(path, {3, 4})}, validation, options));
  options.isolation = IsolationLevel::kSnapshot;
  ASSERT_OK_AND_ASSIGN(int64_t s3, CommitRowDelta(*table_, {}, {PositionDeletes(path, {3, 4})},
                                                  validation, options));
  EXPECT_EQ(IdsAt(s3), (std::vector<int64_t>{0, 1, 2, 10, 11}));
}

TEST_F(RowDeltaTest, NullEqualsNullInEqualityDeletes) {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  ASSERT_OK(ids.AppendValues({1, 2, 3}));
  ASSERT_OK(names.Append("a"));
  ASSERT_OK(names.AppendNull());
  ASSERT_OK(names.Append("c"));
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64(), false), arrow::field("name", arrow::utf8())});
  ASSERT_OK(AppendData(*table_, *arrow::Table::Make(schema, {ids.Finish().ValueOrDie(),
                                                             names.Finish().ValueOrDie()}))
                .status());
  ASSERT_OK_AND_ASSIGN(int64_t s2,
                       CommitRowDelta(*table_, {}, {EqualityDeletesOfNames({std::nullopt})}));
  EXPECT_EQ(IdsAt(s2), (std::vector<int64_t>{1, 3}));
}

TEST_F(RowDeltaTest, DataAndDeletesTogetherAreAnOverwrite) {
  ASSERT_OK(AppendData(*table_, *floe::testing::People(0, 3)).status());
  ASSERT_OK_AND_ASSIGN(auto data, WriteDataFiles(*table_, *floe::testing::People(100, 2)));
  ASSERT_OK_AND_ASSIGN(int64_t s2, CommitRowDelta(*table_, data, {EqualityDeletesOfIds({0})}));
  EXPECT_EQ(table_->metadata()->SnapshotById(s2)->operation, "overwrite");
  EXPECT_EQ(table_->metadata()->SnapshotById(s2)->summary.at("total-records"), "5");
  EXPECT_EQ(IdsAt(s2), (std::vector<int64_t>{1, 2, 100, 101}));
}

TEST_F(RowDeltaTest, MisfiledFilesAreRefusedBeforeAnythingIsCommitted) {
  ASSERT_OK(AppendData(*table_, *floe::testing::People(0, 3)).status());
  const std::string before = table_->metadata_location();
  DataFile no_ids = EqualityDeletesOfIds({1});
  no_ids.equality_ids.clear();
  ASSERT_RAISES_WITH_MESSAGE("Row delta on " + table_->name() + ": equality delete file " +
                                 no_ids.file_path + " has no equality field ids",
                             CommitRowDelta(*table_, {}, {no_ids}));
  ASSERT_OK_AND_ASSIGN(auto data, WriteDataFiles(*table_, *floe::testing::People(7, 1)));
  ASSERT_RAISES_WITH_MESSAGE(" is a data file, not a delete file",
                             CommitRowDelta(*table_, {}, data));
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(table_->metadata_location(), before);
}

// On a format-version 3 table position deletes are deletion vectors, one per data file.
class DeletionVectorDeltaTest : public RowDeltaTest {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(auto schema, table::SchemaFromArrow(*floe::testing::People(0, 1)->schema()));
    CreateTableOptions options;
    options.format_version = 3;
    ASSERT_OK_AND_ASSIGN(table_, wh_.tables->CreateTable(ident_, *schema, options));
  }

  // A Puffin file of its own holding the deletion vector of `positions` of `data_file`.
  DataFile DeletionVector(const DataFile& data_file, const std::vector<int64_t>& positions) {
    const std::string path = table_->metadata()->location + "/data/dv-" + std::to_string(++n_) + ".puffin";
    auto writer = manifest::PuffinWriter::Make(*table_->io(), path).ValueOrDie();
    auto placed = writer->Add(manifest::DeletionVectorBlobMetadata(data_file.file_path,
                                                                   static_cast<int64_t>(positions.size())),
                              manifest::EncodeDeletionVector(positions))
                      .ValueOrDie();
    auto size = writer->Finish().ValueOrDie();
    DataFile dv;
    dv.content = FileContent::kPositionDeletes;
    dv.file_path = path;
    dv.file_format = "PUFFIN";
    dv.partition = data_file.partition;
    dv.spec_id = data_file.spec_id;
    dv.record_count = static_cast<int64_t>(positions.size());
    dv.file_size_in_bytes = size.file_size;
    dv.referenced_data_file = data_file.file_path;
    dv.content_offset = placed.offset;
    dv.content_size_in_bytes = placed.length;
    return dv;
  }
};

TEST_F(DeletionVectorDeltaTest, AVectorReplacesTheOneBeforeIt) {
  ASSERT_OK(AppendData(*table_, *floe::testing::People(0, 5)).status());
  ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(table_).PlanFiles());
  const DataFile data = tasks.at(0).file;
  DataFile first = DeletionVector(data, {1});
  ASSERT_OK_AND_ASSIGN(int64_t s2, CommitRowDelta(*table_, {}, {first}));
  RowDeltaValidation validation{{[](const DataFile&) { return true; }, "true"}, {data.file_path}};
  ASSERT_OK_AND_ASSIGN(int64_t s3, CommitRowDelta(*table_, {}, {DeletionVector(data, {1, 3})}, validation,
                                                  WriteOptions{}, {first}));
  EXPECT_EQ(IdsAt(s2), (std::vector<int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(IdsAt(s3), (std::vector<int64_t>{0, 2, 4}));
  const auto& summary = table_->metadata()->SnapshotById(s3)->summary;
  EXPECT_EQ(summary.at("added-dvs"), "1");
  EXPECT_EQ(summary.at("removed-dvs"), "1");
  EXPECT_EQ(summary.at("total-delete-files"), "1");
  EXPECT_EQ(summary.at("total-position-deletes"), "2");
  ASSERT_OK_AND_ASSIGN(auto now, scan::TableScan(table_).PlanFiles());
  ASSERT_EQ(now.at(0).deletes.size(), 1u);
  EXPECT_EQ(now.at(0).deletes[0].record_count, 2);

  // Replacing the first vector again: it is no longer live.
  const std::string before = table_->metadata_location();
  ASSERT_RAISES_WITH_MESSAGE("Missing required files to delete: " + manifest::DeleteFileId(first),
                             CommitRowDelta(*table_, {}, {DeletionVector(data, {1, 4})}, validation,
                                            WriteOptions{}, {first}));
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(table_->metadata_location(), before);
}

TEST_F(DeletionVectorDeltaTest, AVectorAddedMeanwhileForTheSameFileFailsTheCommit) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *floe::testing::People(0, 5)));
  ASSERT_OK(AppendData(*table_, *floe::testing::People(10, 5)).status());
  ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(table_).PlanFiles());
  ASSERT_EQ(tasks.size(), 2u);
  // `a` holds ids 0 to 4, the rows that took the first row ids.
  std::sort(tasks.begin(), tasks.end(), [](const auto& x, const auto& y) { return x.file.first_row_id < y.file.first_row_id; });
  const DataFile a = tasks[0].file, b = tasks[1].file;
  WriteOptions options;
  options.starting_snapshot_id = table_->metadata()->current_snapshot()->snapshot_id;
  options.isolation = IsolationLevel::kSnapshot;
  // Another writer deletes from `a` after this one read the table.
  DataFile theirs = DeletionVector(a, {0});
  ASSERT_OK(CommitRowDelta(*table_, {}, {theirs}).status());
  const std::string before = table_->metadata_location();
  RowDeltaValidation validation{{[](const DataFile&) { return true; }, "true"}, {a.file_path}};
  DataFile mine = DeletionVector(a, {2});
  ASSERT_RAISES_WITH_MESSAGE("Found concurrently added DV for " + a.file_path + ": DV{location=" +
                                 theirs.file_path + ", offset=4, length=" +
                                 std::to_string(*theirs.content_size_in_bytes) +
                                 ", referencedDataFile=" + a.file_path + "}",
                             CommitRowDelta(*table_, {}, {mine}, validation, options));
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(table_->metadata_location(), before);
  EXPECT_FALSE(std::filesystem::exists(mine.file_path)) << "a failed commit leaves its Puffin file behind";
  // A vector for the other file commits.
  RowDeltaValidation other{{[](const DataFile&) { return true; }, "true"}, {b.file_path}};
  ASSERT_OK_AND_ASSIGN(int64_t s4, CommitRowDelta(*table_, {}, {DeletionVector(b, {4})}, other, options));
  EXPECT_EQ(IdsAt(s4), (std::vector<int64_t>{1, 2, 3, 4, 10, 11, 12, 13}));
  EXPECT_EQ(IdsAt(s1), (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST_F(DeletionVectorDeltaTest, PositionDeleteFilesAreRefusedOnV3AndVectorsOnV2) {
  ASSERT_OK(AppendData(*table_, *floe::testing::People(0, 3)).status());
  ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(table_).PlanFiles());
  DataFile v2_style = PositionDeletes(tasks.at(0).file.file_path, {0});
  ASSERT_RAISES_WITH_MESSAGE("must use deletion vectors for position deletes in v3: " + v2_style.file_path,
                             CommitRowDelta(*table_, {}, {v2_style}));
}

TEST_F(RowDeltaTest, DeletionVectorsAreRefusedOnV2) {
  ASSERT_OK(AppendData(*table_, *floe::testing::People(0, 3)).status());
  DataFile dv;
  dv.content = FileContent::kPositionDeletes;
  dv.file_path = table_->metadata()->location + "/data/x.puffin";
  dv.file_format = "PUFFIN";
  ASSERT_RAISES_WITH_MESSAGE("must not use deletion vectors for position deletes in v2: " + dv.file_path,
                             CommitRowDelta(*table_, {}, {dv}));
}

}  // namespace
}  // namespace floe::table
