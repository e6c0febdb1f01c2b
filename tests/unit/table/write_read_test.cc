#include <filesystem>

#include <arrow/json/from_string.h>

#include "floe/scan/table_scan.h"
#include "floe/table/commit.h"
#include "floe/table/metadata_files.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::Concat;
using floe::testing::People;
using floe::testing::Range;
using floe::testing::SortedIds;

class WriteReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
    ASSERT_OK_AND_ASSIGN(table_, wh_.tables->CreateTable(ident_, *schema));
  }

  std::vector<int64_t> IdsAt(std::optional<int64_t> snapshot) {
    scan::TableScan scan(table_);
    if (snapshot) scan.UseSnapshot(*snapshot);
    auto result = scan.ToArrowTable();
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? SortedIds(**result) : std::vector<int64_t>{};
  }

  floe::testing::Warehouse wh_;
  TableIdentifier ident_{Namespace({"db"}), "people"};
  std::shared_ptr<Table> table_;
};

TEST_F(WriteReadTest, NewTableHasSpecDefaults) {
  auto md = table_->metadata();
  EXPECT_EQ(md->format_version, 2);
  EXPECT_EQ(md->location, wh_.dir.str() + "/wh/db/people");
  EXPECT_EQ(md->last_column_id, 2);
  EXPECT_EQ(md->last_partition_id, 999);
  EXPECT_EQ(md->default_sort_order_id, 0);
  EXPECT_FALSE(md->current_snapshot_id.has_value());
  EXPECT_EQ(md->properties.at("write.parquet.compression-codec"), "zstd");
  EXPECT_EQ(ParseMetadataVersion(table_->metadata_location()), 0);
  EXPECT_TRUE(IdsAt(std::nullopt).empty());
  EXPECT_TRUE(md->current_schema()->fields()[0].required);
}

TEST_F(WriteReadTest, AppendsChainSnapshotsAndLogs) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 10)));
  ASSERT_OK_AND_ASSIGN(int64_t s2, AppendData(*table_, *People(10, 5)));
  ASSERT_OK_AND_ASSIGN(int64_t s3, AppendData(*table_, *People(15, 1)));
  auto md = table_->metadata();
  ASSERT_EQ(md->snapshots.size(), 3u);
  EXPECT_EQ(md->current_snapshot_id, s3);
  EXPECT_EQ(md->snapshots[0].parent_snapshot_id, std::nullopt);
  EXPECT_EQ(md->snapshots[1].parent_snapshot_id, s1);
  EXPECT_EQ(md->snapshots[2].parent_snapshot_id, s2);
  EXPECT_EQ(md->snapshots[2].sequence_number, 3);
  EXPECT_EQ(md->last_sequence_number, 3);
  EXPECT_EQ(md->snapshots[1].operation, "append");
  EXPECT_EQ(md->snapshots[1].schema_id, 0);
  const auto& summary = md->snapshots[1].summary;
  EXPECT_EQ(summary.at("added-data-files"), "1");
  EXPECT_EQ(summary.at("added-records"), "5");
  EXPECT_EQ(summary.at("total-records"), "15");
  EXPECT_EQ(summary.at("total-data-files"), "2");
  EXPECT_EQ(summary.at("total-delete-files"), "0");
  EXPECT_EQ(summary.at("changed-partition-count"), "1");
  EXPECT_EQ(std::stoll(summary.at("total-files-size")),
            std::stoll(md->snapshots[0].summary.at("total-files-size")) +
                std::stoll(summary.at("added-files-size")));
  ASSERT_EQ(md->snapshot_log.size(), 3u);
  EXPECT_EQ(md->snapshot_log[2].snapshot_id, s3);
  EXPECT_EQ(md->snapshot_log[2].timestamp_ms, md->snapshots[2].timestamp_ms);
  ASSERT_EQ(md->metadata_log.size(), 3u);
  EXPECT_EQ(ParseMetadataVersion(md->metadata_log[0].metadata_file), 0);
  EXPECT_EQ(ParseMetadataVersion(table_->metadata_location()), 3);
  EXPECT_EQ(md->refs.at("main").snapshot_id, s3);

  EXPECT_EQ(IdsAt(s1), Range(0, 10));
  EXPECT_EQ(IdsAt(s2), Range(0, 15));
  EXPECT_EQ(IdsAt(std::nullopt), Range(0, 16));

  // Reloading from the catalog sees the same state.
  ASSERT_OK_AND_ASSIGN(auto reloaded, wh_.tables->LoadTable(ident_));
  EXPECT_TRUE(*reloaded->metadata() == *md);
}

TEST_F(WriteReadTest, OverwriteReplacesEverything) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 10)));
  ASSERT_OK(AppendData(*table_, *People(10, 10)).status());
  ASSERT_OK_AND_ASSIGN(int64_t s3, OverwriteData(*table_, *People(100, 3), OverwriteFilter::All()));
  auto md = table_->metadata();
  const auto& snap = *md->SnapshotById(s3);
  EXPECT_EQ(snap.operation, "overwrite");
  EXPECT_EQ(snap.summary.at("deleted-data-files"), "2");
  EXPECT_EQ(snap.summary.at("deleted-records"), "20");
  EXPECT_EQ(snap.summary.at("added-records"), "3");
  EXPECT_EQ(snap.summary.at("total-records"), "3");
  EXPECT_EQ(snap.summary.at("total-data-files"), "1");
  EXPECT_EQ(IdsAt(std::nullopt), Range(100, 3));
  EXPECT_EQ(IdsAt(s1), Range(0, 10));
}

TEST_F(WriteReadTest, PartitionedTableSplitsFilesAndOverwritesPartitions) {
  arrow::Int64Builder ids;
  arrow::StringBuilder regions;
  for (int i = 0; i < 12; ++i) {
    ASSERT_OK(ids.Append(i));
    ASSERT_OK(regions.Append(i % 3 == 0 ? "eu" : (i % 3 == 1 ? "us" : "apac")));
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("region", arrow::utf8())});
  auto data = arrow::Table::Make(schema, {ids.Finish().ValueOrDie(), regions.Finish().ValueOrDie()});
  ASSERT_OK_AND_ASSIGN(auto iceberg_schema, SchemaFromArrow(*schema));
  CreateTableOptions options;
  options.partition_by = {{"region", spec::Transform::Identity(), ""}, {"id", spec::Transform::Bucket(4), ""}};
  TableIdentifier ident(Namespace({"db"}), "regions");
  ASSERT_OK_AND_ASSIGN(auto t, wh_.tables->CreateTable(ident, *iceberg_schema, options));
  auto spec = t->metadata()->default_spec();
  ASSERT_EQ(spec->fields().size(), 2u);
  EXPECT_EQ(spec->fields()[0].name, "region");
  EXPECT_EQ(spec->fields()[0].field_id, 1000);
  EXPECT_EQ(spec->fields()[1].name, "id_bucket");
  EXPECT_EQ(t->metadata()->last_partition_id, 1001);

  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*t, *data));
  ASSERT_OK_AND_ASSIGN(auto tasks, scan::TableScan(t).PlanFiles());
  EXPECT_GT(tasks.size(), 3u);
  for (const auto& task : tasks) {
    EXPECT_NE(task.file.file_path.find("/data/region="), std::string::npos) << task.file.file_path;
    EXPECT_NE(task.file.file_path.find("/id_bucket="), std::string::npos) << task.file.file_path;
  }
  // Dynamic overwrite replaces only the partitions the new rows touch.
  auto eu_only = data->Slice(0, 1);  // id 0, region eu
  ASSERT_OK_AND_ASSIGN(int64_t s2, OverwriteData(*t, *eu_only, OverwriteFilter::DynamicPartitions()));
  scan::TableScan scan(t);
  ASSERT_OK_AND_ASSIGN(auto now, scan.ToArrowTable());
  // Ids in the same (eu, bucket(0)) partition as id 0 are gone; everything else stays.
  auto md = t->metadata();
  EXPECT_EQ(md->SnapshotById(s2)->operation, "overwrite");
  EXPECT_EQ(md->SnapshotById(s2)->summary.at("changed-partition-count"), "1");
  int64_t deleted = std::stoll(md->SnapshotById(s2)->summary.at("deleted-records"));
  EXPECT_EQ(now->num_rows(), 12 - deleted + 1);
  EXPECT_NE(s1, s2);
}

TEST_F(WriteReadTest, RenamedAndAddedColumnsReadByFieldId) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 3)));
  // Evolve the schema by hand: rename `name` (id 2) to `full_name`, add optional `age` (id 3).
  Status st = Commit(*table_, [](const spec::TableMetadataPtr& base, std::vector<std::string>*) {
    auto md = std::make_shared<spec::TableMetadata>(*base);
    std::vector<spec::NestedField> fields = base->current_schema()->fields();
    fields[1].name = "full_name";
    fields.push_back(spec::Optional(3, "age", spec::Type::Int()));
    md->schemas.push_back(std::make_shared<const spec::Schema>(1, fields));
    md->current_schema_id = 1;
    md->last_column_id = 3;
    return Result<std::shared_ptr<spec::TableMetadata>>(md);
  });
  ASSERT_OK(st);
  ASSERT_OK_AND_ASSIGN(auto now, scan::TableScan(table_).ToArrowTable());
  ASSERT_EQ(now->schema()->ToString(false),
            "id: int64 not null\nfull_name: string\nage: int32");
  EXPECT_EQ(now->GetColumnByName("full_name")->GetScalar(0).ValueOrDie()->ToString().substr(0, 7),
            "person-");
  EXPECT_EQ(now->GetColumnByName("age")->null_count(), 3);
  // A read as of the first snapshot uses the schema it was written with.
  ASSERT_OK_AND_ASSIGN(auto then, scan::TableScan(table_).UseSnapshot(s1).ToArrowTable());
  EXPECT_EQ(then->schema()->field(1)->name(), "name");
  EXPECT_EQ(then->num_columns(), 2);
  // Projection reads only the columns asked for.
  ASSERT_OK_AND_ASSIGN(auto ids_only, scan::TableScan(table_).Select({"id"}).ToArrowTable());
  EXPECT_EQ(ids_only->num_columns(), 1);
}

TEST_F(WriteReadTest, ErrorsNameTheTableAndSnapshot) {
  ASSERT_OK(AppendData(*table_, *People(0, 3)).status());
  ASSERT_RAISES_WITH_MESSAGE("Cannot find snapshot with ID 42 in table lakehouse.db.people",
                             scan::TableScan(table_).UseSnapshot(42).ToArrowTable());
  ASSERT_RAISES_WITH_MESSAGE("Cannot find column 'nope' in table lakehouse.db.people",
                             scan::TableScan(table_).Select({"nope"}).ToArrowTable());
  auto bad = arrow::Table::Make(arrow::schema({arrow::field("id", arrow::utf8())}),
                                {arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["x"])").ValueOrDie()});
  ASSERT_RAISES_WITH_MESSAGE("Cannot write incompatible data to column 'id' (long)",
                             AppendData(*table_, *bad));
  auto with_null = arrow::Table::Make(arrow::schema({arrow::field("id", arrow::int64())}),
                                      {arrow::json::ArrayFromJSONString(arrow::int64(), "[1, null]").ValueOrDie()});
  ASSERT_RAISES_WITH_MESSAGE("Cannot write null values to required column 'id'",
                             AppendData(*table_, *with_null));
  ASSERT_RAISES_WITH_MESSAGE("Table already exists: db.people",
                             wh_.tables->CreateTable(ident_, *table_->metadata()->current_schema()));
  EXPECT_EQ(table_->metadata()->snapshots.size(), 1u);
}

TEST_F(WriteReadTest, DropPurgeRemovesEveryReachableFile) {
  ASSERT_OK(AppendData(*table_, *People(0, 3)).status());
  ASSERT_OK(AppendData(*table_, *People(3, 3)).status());
  ASSERT_OK_AND_ASSIGN(auto before, wh_.io->ListFiles(table_->metadata()->location));
  EXPECT_EQ(before.size(), 2u /*data*/ + 2u /*manifests*/ + 2u /*lists*/ + 3u /*metadata*/);
  ASSERT_OK(wh_.tables->DropTable(ident_, /*purge=*/true));
  ASSERT_OK_AND_ASSIGN(auto after, wh_.io->ListFiles(table_->metadata()->location));
  EXPECT_TRUE(after.empty());
  ASSERT_RAISES_WITH_MESSAGE("Table does not exist: db.people", wh_.tables->LoadTable(ident_));
}

}  // namespace
}  // namespace floe::table
