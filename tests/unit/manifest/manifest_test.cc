#include <filesystem>

#include <arrow/buffer.h>

#include "floe/avro/container_reader.h"
#include "floe/manifest/avro_schemas.h"
#include "floe/manifest/manifest_reader.h"
#include "floe/manifest/manifest_writer.h"
#include "floe/spec/table_metadata.h"
#include "floe_test.h"

namespace floe::manifest {
namespace {

using spec::Literal;
using spec::Type;

class ManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(io_, FileIO::MakeLocal());
    schema_ = std::make_shared<const spec::Schema>(
        0, std::vector<spec::NestedField>{spec::Required(1, "id", Type::Long()),
                                          spec::Optional(2, "region", Type::String()),
                                          spec::Optional(3, "score", Type::Double())});
    spec_ = spec::PartitionSpec(0, {{2, 1000, "region", spec::Transform::Identity()},
                                    {1, 1001, "id-bucket", spec::Transform::Bucket(8)}});
    metadata_.schemas = {schema_};
    metadata_.partition_specs = {spec_};
  }

  DataFile File(const std::string& name, std::optional<std::string> region, int32_t bucket,
                int64_t rows) {
    DataFile f;
    f.file_path = dir_.str() + "/data/" + name;
    f.partition = {region ? Literal::String(*region) : Literal::Null(Type::String()),
                   Literal::Int(bucket)};
    f.record_count = rows;
    f.file_size_in_bytes = rows * 10;
    f.column_sizes = {{1, 100}, {2, 50}};
    f.value_counts = {{1, rows}, {2, rows}};
    f.null_value_counts = {{1, 0}, {2, 1}};
    f.nan_value_counts = {{3, 2}};
    f.lower_bounds = {{1, spec::ToSingleValueBinary(Literal::Long(-5))}};
    f.upper_bounds = {{1, spec::ToSingleValueBinary(Literal::Long(99))}};
    f.split_offsets = {4};
    f.sort_order_id = 0;
    return f;
  }

  floe::testing::TempDir dir_;
  std::shared_ptr<FileIO> io_;
  spec::SchemaPtr schema_;
  spec::PartitionSpec spec_;
  spec::TableMetadata metadata_;
};

TEST_F(ManifestTest, WritesCountsSummariesAndJavaKeyValueMetadata) {
  std::string path = dir_.str() + "/m1.avro";
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Make(io_, path, *schema_, spec_, 77));
  ASSERT_OK(writer->Add(File("a.parquet", "eu", 3, 10)));
  ASSERT_OK(writer->Add(File("b.parquet", std::nullopt, 5, 20)));
  ASSERT_OK(writer->Add(File("c.parquet", "apac", 1, 5)));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf, writer->Close());
  EXPECT_EQ(mf.manifest_path, path);
  ASSERT_OK_AND_ASSIGN(int64_t size, io_->FileSize(path));
  EXPECT_EQ(mf.manifest_length, size);
  EXPECT_EQ(mf.added_snapshot_id, 77);
  EXPECT_EQ(mf.added_files_count, 3);
  EXPECT_EQ(mf.added_rows_count, 35);
  EXPECT_EQ(mf.existing_files_count, 0);
  EXPECT_EQ(mf.sequence_number, kUnassignedSequenceNumber);
  ASSERT_EQ(mf.partitions.size(), 2u);
  EXPECT_TRUE(mf.partitions[0].contains_null);
  EXPECT_EQ(mf.partitions[0].contains_nan, false);
  EXPECT_EQ(mf.partitions[0].lower_bound, "apac");
  EXPECT_EQ(mf.partitions[0].upper_bound, "eu");
  EXPECT_FALSE(mf.partitions[1].contains_null);
  EXPECT_EQ(mf.partitions[1].lower_bound, spec::ToSingleValueBinary(Literal::Int(1)));
  EXPECT_EQ(mf.partitions[1].upper_bound, spec::ToSingleValueBinary(Literal::Int(5)));

  ASSERT_OK_AND_ASSIGN(auto bytes, io_->ReadFile(path, FileKind::kManifest));
  ASSERT_OK_AND_ASSIGN(auto reader, avro::ContainerReader::Open(bytes, path));
  EXPECT_EQ(*reader->FindMetadata("format-version"), "2");
  EXPECT_EQ(*reader->FindMetadata("content"), "data");
  EXPECT_EQ(*reader->FindMetadata("partition-spec-id"), "0");
  EXPECT_EQ(*reader->FindMetadata("schema-id"), "0");
  EXPECT_EQ(*reader->FindMetadata("partition-spec"),
            R"([{"name":"region","transform":"identity","source-id":2,"field-id":1000},)"
            R"({"name":"id-bucket","transform":"bucket[8]","source-id":1,"field-id":1001}])");
  ASSERT_OK_AND_ASSIGN(auto parsed_schema, spec::SchemaFromJson(*reader->FindMetadata("schema")));
  EXPECT_TRUE(parsed_schema->Equals(*schema_));
  EXPECT_EQ(*reader->FindMetadata("avro.codec"), "deflate");
  // The partition record's field names are valid Avro names and keep their field ids.
  std::string avro_schema = *reader->FindMetadata("avro.schema");
  EXPECT_NE(avro_schema.find(R"({"name":"id_x2Dbucket","type":["null","int"],"default":null,"field-id":1001})"),
            std::string::npos)
      << avro_schema;
}

TEST_F(ManifestTest, ListAssignsSequenceNumbersAndEntriesInheritThem) {
  std::string path = dir_.str() + "/m1.avro";
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Make(io_, path, *schema_, spec_, 77));
  DataFile a = File("a.parquet", "eu", 3, 10);
  ASSERT_OK(writer->Add(a));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf, writer->Close());
  std::string list = dir_.str() + "/snap-77.avro";
  ASSERT_OK(WriteManifestList(*io_, list, 77, 76, 12, {mf}));
  ASSERT_OK_AND_ASSIGN(auto manifests, ReadManifestList(*io_, list));
  ASSERT_EQ(manifests.size(), 1u);
  EXPECT_EQ(manifests[0].sequence_number, 12);
  EXPECT_EQ(manifests[0].min_sequence_number, 12);
  ManifestFile expected = mf;
  expected.sequence_number = 12;
  expected.min_sequence_number = 12;
  EXPECT_EQ(manifests[0], expected);

  ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(*io_, manifests[0], metadata_));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].status, EntryStatus::kAdded);
  EXPECT_EQ(entries[0].snapshot_id, 77);
  EXPECT_EQ(entries[0].sequence_number, 12);
  EXPECT_EQ(entries[0].file_sequence_number, 12);
  EXPECT_EQ(entries[0].data_file, a);

  // Rewriting keeps an existing entry's numbers and marks a deleted one with the new snapshot.
  std::string path2 = dir_.str() + "/m2.avro";
  ASSERT_OK_AND_ASSIGN(auto rewriter, ManifestWriter::Make(io_, path2, *schema_, spec_, 78));
  ASSERT_OK(rewriter->Existing(entries[0]));
  ManifestEntry gone = entries[0];
  gone.data_file.file_path += ".old";
  ASSERT_OK(rewriter->Delete(gone));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf2, rewriter->Close());
  EXPECT_EQ(mf2.existing_files_count, 1);
  EXPECT_EQ(mf2.deleted_files_count, 1);
  EXPECT_EQ(mf2.deleted_rows_count, 10);
  EXPECT_EQ(mf2.min_sequence_number, 12);
  std::string list2 = dir_.str() + "/snap-78.avro";
  ASSERT_OK(WriteManifestList(*io_, list2, 78, 77, 13, {mf2}));
  ASSERT_OK_AND_ASSIGN(auto manifests2, ReadManifestList(*io_, list2));
  ASSERT_OK_AND_ASSIGN(auto entries2, ReadManifest(*io_, manifests2[0], metadata_));
  ASSERT_EQ(entries2.size(), 2u);
  EXPECT_EQ(entries2[0].status, EntryStatus::kExisting);
  EXPECT_EQ(entries2[0].snapshot_id, 77);
  EXPECT_EQ(entries2[0].sequence_number, 12);
  EXPECT_EQ(entries2[1].status, EntryStatus::kDeleted);
  EXPECT_EQ(entries2[1].snapshot_id, 78);
  EXPECT_EQ(entries2[1].sequence_number, 12);
  EXPECT_EQ(manifests2[0].sequence_number, 13);
}

TEST_F(ManifestTest, DecimalAndDatePartitionValuesRoundTrip) {
  auto schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{spec::Optional(1, "amount", Type::Decimal(9, 2)),
                                        spec::Optional(2, "d", Type::Date()),
                                        spec::Optional(3, "u", Type::Uuid())});
  spec::PartitionSpec spec(0, {{1, 1000, "amount", spec::Transform::Identity()},
                               {2, 1001, "d", spec::Transform::Identity()},
                               {3, 1002, "u", spec::Transform::Identity()}});
  spec::TableMetadata md;
  md.schemas = {schema};
  md.partition_specs = {spec};
  DataFile f;
  f.file_path = "/x.parquet";
  f.partition = {Literal::Decimal(arrow::Decimal128(-12345), 9, 2), Literal::Date(-3),
                 Literal::Uuid(std::string("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10", 16))};
  f.record_count = 1;
  std::string path = dir_.str() + "/m.avro";
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Make(io_, path, *schema, spec, 5));
  ASSERT_OK(writer->Add(f));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf, writer->Close());
  mf.sequence_number = 1;
  ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(*io_, mf, md));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].data_file.partition, f.partition);
  EXPECT_EQ(entries[0].data_file.partition[0].ToString(), "-123.45");
}

TEST(AvroNamesTest, MatchesJavasEscaping) {
  EXPECT_EQ(AvroCompatibleName("ts_day"), "ts_day");
  EXPECT_EQ(AvroCompatibleName("my-col"), "my_x2Dcol");
  EXPECT_EQ(AvroCompatibleName("1st"), "_1st");
  EXPECT_EQ(AvroCompatibleName("a.b"), "a_x2Eb");
  EXPECT_EQ(AvroCompatibleName("$x"), "_x24x");
}

// Java writes an empty map where a file has no such metric (nan_value_counts of a table
// without float columns); floe writes none. Reading keeps the difference, writing keeps it.
TEST_F(ManifestTest, EmptyMetricMapsStayApartFromMissingOnes) {
  std::string path = dir_.str() + "/empty_maps.avro";
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Make(io_, path, *schema_, spec_, 9));
  DataFile java = File("java.parquet", "eu", 1, 4);
  java.nan_value_counts = {};
  java.column_sizes = {};
  java.empty_metric_maps = kNanValueCountsMap | kColumnSizesMap;
  DataFile ours = File("floe.parquet", "eu", 1, 4);
  ours.nan_value_counts = {};
  ours.column_sizes = {};
  ASSERT_OK(writer->Add(java));
  ASSERT_OK(writer->Add(ours));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf, writer->Close());
  mf.sequence_number = 1;
  ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(*io_, mf, metadata_));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].data_file, java);
  EXPECT_EQ(entries[0].data_file.empty_metric_maps, kNanValueCountsMap | kColumnSizesMap);
  EXPECT_EQ(entries[1].data_file, ours);
  EXPECT_EQ(entries[1].data_file.empty_metric_maps, 0);
  // A projected read cannot tell an empty map from one whose ids it left out.
  ReadManifestOptions options;
  options.projection.metric_ids = std::vector<int32_t>{3};
  ASSERT_OK_AND_ASSIGN(auto projected, ReadManifest(*io_, mf, metadata_, options));
  EXPECT_EQ(projected[0].data_file.empty_metric_maps, 0);
}

}  // namespace
}  // namespace floe::manifest

namespace floe::manifest {
namespace {

class ManifestProjectionTest : public ManifestTest {};

TEST_F(ManifestProjectionTest, DecodesOnlyTheMetricsOfTheProjectedColumns) {
  std::string path = dir_.str() + "/projected.avro";
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Make(io_, path, *schema_, spec_, 5));
  DataFile a = File("a.parquet", "eu", 3, 10);
  a.lower_bounds[2] = "amsterdam";
  a.upper_bounds[2] = "zurich";
  ASSERT_OK(writer->Add(a));
  ASSERT_OK(writer->Add(File("b.parquet", std::nullopt, 5, 20)));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf, writer->Close());
  mf.sequence_number = 3;
  ASSERT_OK_AND_ASSIGN(auto full, ReadManifest(*io_, mf, metadata_));
  ASSERT_EQ(full.size(), 2u);
  EXPECT_EQ(full[0].data_file, a);

  ReadManifestOptions options;
  options.projection.metric_ids = std::vector<int32_t>{3, 2};
  ASSERT_OK_AND_ASSIGN(auto projected, ReadManifest(*io_, mf, metadata_, options));
  ASSERT_EQ(projected.size(), 2u);
  const DataFile& p = projected[0].data_file;
  EXPECT_TRUE(p.column_sizes.empty());
  EXPECT_EQ(p.value_counts, (IdMap<int64_t>{{2, 10}}));
  EXPECT_EQ(p.null_value_counts, (IdMap<int64_t>{{2, 1}}));
  EXPECT_EQ(p.nan_value_counts, (IdMap<int64_t>{{3, 2}}));
  EXPECT_EQ(p.lower_bounds, (IdMap<std::string>{{2, "amsterdam"}}));
  EXPECT_EQ(p.upper_bounds, (IdMap<std::string>{{2, "zurich"}}));
  EXPECT_TRUE(projected[1].data_file.lower_bounds.empty());
  // Everything but the metrics is as a full read has it.
  for (size_t i = 0; i < full.size(); ++i) {
    DataFile expected = full[i].data_file;
    expected.column_sizes = {};
    expected.value_counts = projected[i].data_file.value_counts;
    expected.null_value_counts = projected[i].data_file.null_value_counts;
    expected.nan_value_counts = projected[i].data_file.nan_value_counts;
    expected.lower_bounds = projected[i].data_file.lower_bounds;
    expected.upper_bounds = projected[i].data_file.upper_bounds;
    EXPECT_EQ(projected[i].data_file, expected);
    EXPECT_EQ(projected[i].status, full[i].status);
    EXPECT_EQ(projected[i].snapshot_id, 5);
    EXPECT_EQ(projected[i].sequence_number, 3);
    EXPECT_EQ(projected[i].file_sequence_number, 3);
  }
}

}  // namespace
}  // namespace floe::manifest

namespace floe::manifest {
namespace {

TEST(IdMapTest, OneItemInlineThenSortedWhenItGrows) {
  IdMap<std::string> m;
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.begin(), m.end());
  m[7] = "seven";
  m[7] += "!";
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.at(7), "seven!");
  EXPECT_FALSE(m.contains(3));
  m[3] = "three";  // out of order: moves to the vector, sorted
  m[9] = "nine";
  std::vector<int32_t> ids;
  for (const auto& [id, v] : m) ids.push_back(id);
  EXPECT_EQ(ids, (std::vector<int32_t>{3, 7, 9}));
  EXPECT_EQ(m.at(7), "seven!");
  EXPECT_THROW(m.at(8), std::out_of_range);

  // Equal by content, wherever the items are kept.
  IdMap<std::string> one{{7, "x"}};
  IdMap<std::string> reserved;
  reserved.reserve(4);
  reserved[7] = "x";
  EXPECT_EQ(one, reserved);
  m.clear();
  m[7] = "x";
  EXPECT_EQ(m, one);
  one.reserve(3);  // moves the inline item over
  one[2] = "two";
  EXPECT_EQ(one.size(), 2u);
  EXPECT_EQ(one.begin()->first, 2);
  IdMap<std::string> copy = one;
  EXPECT_EQ(copy, one);
  EXPECT_NE(copy, m);
}

class ManifestMalformedTest : public ManifestTest {};

// Column metrics are read by a fast loop; malformed bytes there still fail with the error
// the general reader gives.
TEST_F(ManifestMalformedTest, AMalformedBoundFailsNamingTheManifest) {
  std::string path = dir_.str() + "/bad.avro";
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Make(io_, path, *schema_, spec_, 5,
                                                         ManifestContent::kData, 2, "null"));
  DataFile a = File("a.parquet", "eu", 3, 10);
  a.lower_bounds[2] = "amsterdam";
  ASSERT_OK(writer->Add(a));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf, writer->Close());
  mf.sequence_number = 3;
  ASSERT_OK_AND_ASSIGN(auto good, ReadManifest(*io_, mf, metadata_));
  EXPECT_EQ(good[0].data_file.lower_bounds.at(2), "amsterdam");

  ASSERT_OK_AND_ASSIGN(auto buffer, io_->ReadFile(path, FileKind::kManifest));
  std::string bytes = buffer->ToString();
  const size_t at = bytes.find(std::string("\x12") + "amsterdam");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = '\x01';  // a length of -1
  std::filesystem::remove(path);
  ASSERT_OK(io_->WriteFile(path, FileKind::kManifest, bytes));
  for (bool projected : {false, true}) {
    ReadManifestOptions options;
    if (projected) options.projection.metric_ids = std::vector<int32_t>{2};
    const std::string expected = "Invalid Avro file " + path + ": Avro length is negative: -1 in block 1 (object 1)";
    auto result = ReadManifest(*io_, mf, metadata_, options);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().message(), expected);
    auto columns = ReadManifestColumns(*io_, mf, metadata_, options);
    ASSERT_FALSE(columns.ok());
    EXPECT_EQ(columns.status().message(), expected);
  }
}

}  // namespace
}  // namespace floe::manifest

namespace floe::manifest {
namespace {

class ManifestColumnsTest : public ManifestTest {
 protected:
  // Every entry of `mf` read by columns is the entry ReadManifest gives, with and without a
  // projection of the metrics.
  void ExpectColumnsMatchEntries(const ManifestFile& mf) {
    for (bool projected : {false, true}) {
      SCOPED_TRACE(projected ? "projected" : "every metric");
      ReadManifestOptions options;
      if (projected) options.projection.metric_ids = std::vector<int32_t>{3, 2};
      ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(*io_, mf, metadata_, options));
      ASSERT_OK_AND_ASSIGN(auto columns, ReadManifestColumns(*io_, mf, metadata_, options));
      ASSERT_EQ(columns->size(), entries.size());
      for (size_t i = 0; i < entries.size(); ++i) {
        EXPECT_EQ(columns->Entry(i), entries[i]) << "entry " << i;
        EXPECT_EQ(columns->status(i), entries[i].status);
        EXPECT_EQ(columns->content(i), entries[i].data_file.content);
        EXPECT_EQ(columns->file_path(i), entries[i].data_file.file_path);
        EXPECT_EQ(columns->record_count(i), entries[i].data_file.record_count);
        EXPECT_EQ(columns->sequence_number(i), entries[i].sequence_number);
      }
    }
  }
};

TEST_F(ManifestColumnsTest, DataEntriesReadAsReadManifestGivesThem) {
  std::string path = dir_.str() + "/data.avro";
  ASSERT_OK_AND_ASSIGN(auto writer, ManifestWriter::Make(io_, path, *schema_, spec_, 5, ManifestContent::kData, 3));
  DataFile a = File("a.parquet", "eu", 3, 10);
  a.lower_bounds[2] = "amsterdam";
  a.upper_bounds[2] = "zurich";
  a.split_offsets = {4, 1000, 2000};
  DataFile java = File("java.parquet", std::nullopt, 1, 4);
  java.nan_value_counts = {};
  java.column_sizes = {};
  java.empty_metric_maps = kNanValueCountsMap | kColumnSizesMap;
  java.split_offsets = {};
  java.sort_order_id = std::nullopt;
  DataFile orc = File("c.orc", "us", 2, 7);
  orc.file_format = "ORC";
  orc.key_metadata = std::string("\x01\x02", 2);
  orc.first_row_id = 500;
  orc.lower_bounds = {};
  orc.upper_bounds = {};
  ASSERT_OK(writer->Add(a));
  ASSERT_OK(writer->Add(java, 2));
  ASSERT_OK(writer->Add(orc));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf, writer->Close());
  mf.sequence_number = 3;
  mf.first_row_id = 100;
  ExpectColumnsMatchEntries(mf);

  ReadManifestOptions options;
  options.projection.metric_ids = std::vector<int32_t>{2};
  ASSERT_OK_AND_ASSIGN(auto columns, ReadManifestColumns(*io_, mf, metadata_, options));
  ASSERT_EQ(columns->size(), 3u);
  const int region = columns->MetricIndex(2);
  ASSERT_EQ(region, 0);
  EXPECT_EQ(columns->MetricIndex(1), -1);
  EXPECT_EQ(columns->value_count(region, 0), 10);
  EXPECT_EQ(columns->null_value_count(region, 1), 1);
  EXPECT_EQ(columns->nan_value_count(region, 0), std::nullopt);
  EXPECT_EQ(columns->lower_bound(region, 0), "amsterdam");
  EXPECT_EQ(columns->upper_bound(region, 0), "zurich");
  EXPECT_EQ(columns->lower_bound(region, 2), std::nullopt);
  EXPECT_EQ(columns->value_count(-1, 0), std::nullopt);
  EXPECT_EQ(columns->sequence_number(1), 2);
  EXPECT_EQ(columns->file_sequence_number(1), 3);
  ASSERT_EQ(columns->partition_width(), 2u);
  EXPECT_EQ(columns->partition(0)[0], Literal::String("eu"));
  EXPECT_TRUE(columns->partition(1)[0].is_null());
  EXPECT_EQ(columns->partition(2)[1], Literal::Int(2));
  // Row ids: the first two files inherit from the manifest's first, the third keeps its own.
  EXPECT_EQ(columns->Entry(0).data_file.first_row_id, 100);
  EXPECT_EQ(columns->Entry(1).data_file.first_row_id, 110);
  EXPECT_EQ(columns->Entry(2).data_file.first_row_id, 500);
  EXPECT_EQ(columns->Entry(2).data_file.file_format, "ORC");
}

TEST_F(ManifestColumnsTest, DeleteEntriesAndRewrittenEntriesReadAsReadManifestGivesThem) {
  std::string path = dir_.str() + "/deletes.avro";
  ASSERT_OK_AND_ASSIGN(auto writer,
                       ManifestWriter::Make(io_, path, *schema_, spec_, 6, ManifestContent::kDeletes, 3));
  DataFile dv = File("dv.puffin", "eu", 3, 2);
  dv.content = FileContent::kPositionDeletes;
  dv.file_format = "PUFFIN";
  dv.referenced_data_file = dir_.str() + "/data/a.parquet";
  dv.content_offset = 4;
  dv.content_size_in_bytes = 40;
  dv.split_offsets = {};
  dv.sort_order_id = std::nullopt;
  DataFile eq = File("eq.parquet", "us", 1, 3);
  eq.content = FileContent::kEqualityDeletes;
  eq.equality_ids = {1, 2};
  ASSERT_OK(writer->Add(dv));
  ASSERT_OK(writer->Add(eq));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf, writer->Close());
  mf.sequence_number = 4;
  ExpectColumnsMatchEntries(mf);

  // A rewrite: one entry carried over, one removed, in a manifest of format version 1.
  metadata_.format_version = 1;
  ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(*io_, mf, metadata_));
  std::string path2 = dir_.str() + "/rewritten.avro";
  ASSERT_OK_AND_ASSIGN(auto rewriter,
                       ManifestWriter::Make(io_, path2, *schema_, spec_, 7, ManifestContent::kDeletes, 3));
  ASSERT_OK(rewriter->Existing(entries[0]));
  ASSERT_OK(rewriter->Delete(entries[1]));
  ASSERT_OK_AND_ASSIGN(ManifestFile mf2, rewriter->Close());
  mf2.sequence_number = 0;
  ExpectColumnsMatchEntries(mf2);
  ASSERT_OK_AND_ASSIGN(auto columns, ReadManifestColumns(*io_, mf2, metadata_));
  EXPECT_EQ(columns->status(1), EntryStatus::kDeleted);
  EXPECT_EQ(columns->snapshot_id(1), 7);
  EXPECT_EQ(columns->Entry(0).data_file.referenced_data_file, dv.referenced_data_file);
  EXPECT_EQ(columns->Entry(1).data_file.equality_ids, (std::vector<int32_t>{1, 2}));
}

}  // namespace
}  // namespace floe::manifest
