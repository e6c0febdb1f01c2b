// Reads Avro files written by PyIceberg (tests/data/avro/make_pyiceberg_fixtures.py).

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <arrow/io/memory.h>

#include "avro_test_util.h"
#include "floe/avro/container_reader.h"
#include "floe/avro/container_writer.h"

namespace floe::avro {
namespace {

std::string DataPath(const std::string& name) {
  return std::string(FLOE_TEST_DATA_DIR) + "/avro/" + name;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The position of the field with Iceberg field id `id` in a record schema, or -1.
int FieldById(const Schema& schema, const Node& record_use, int32_t id) {
  const Node& record = schema.Resolve(record_use);
  for (size_t i = 0; i < record.fields.size(); ++i) {
    if (record.fields[i].field_id() == id) return static_cast<int>(i);
  }
  return -1;
}

// The record inside an optional (["null", record]) or plain record type.
const Node& RecordOf(const Schema& schema, const Node& type) {
  const Node& t = schema.Resolve(type);
  if (t.type == Type::kUnion) return schema.Resolve(t.children[1 - t.NullBranch()]);
  return t;
}

int64_t LittleEndian64(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes.size() && i < 8; ++i) {
    v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  }
  return static_cast<int64_t>(v);
}

class PyIcebergManifestTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PyIcebergManifestTest, ReadsEntriesByFieldId) {
  const std::string path = DataPath("pyiceberg_manifest_" + GetParam() + ".avro");
  ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(testing::ToBuffer(Slurp(path)), path));
  EXPECT_EQ(CodecName(reader->codec()), GetParam());
  ASSERT_NE(reader->FindMetadata("format-version"), nullptr);
  EXPECT_EQ(*reader->FindMetadata("format-version"), "2");
  EXPECT_EQ(*reader->FindMetadata("content"), "data");
  EXPECT_EQ(*reader->FindMetadata("partition-spec-id"), "0");
  EXPECT_NE(reader->FindMetadata("partition-spec")->find("bucket[16]"), std::string::npos);
  EXPECT_NE(reader->FindMetadata("schema")->find("timestamptz"), std::string::npos);

  const Schema& schema = *reader->schema();
  const Node& root = schema.root();
  const int status = FieldById(schema, root, 0);
  const int snapshot_id = FieldById(schema, root, 1);
  const int data_file = FieldById(schema, root, 2);
  ASSERT_GE(status, 0);
  ASSERT_GE(snapshot_id, 0);
  ASSERT_GE(data_file, 0);
  const Node& df = RecordOf(schema, root.fields[data_file].type);
  const int file_path = FieldById(schema, df, 100);
  const int partition = FieldById(schema, df, 102);
  const int record_count = FieldById(schema, df, 103);
  const int column_sizes = FieldById(schema, df, 108);
  const int lower_bounds = FieldById(schema, df, 125);
  const int split_offsets = FieldById(schema, df, 132);
  ASSERT_GE(std::min({file_path, partition, record_count, column_sizes, lower_bounds, split_offsets}), 0);
  const Node& column_sizes_type = RecordOf(schema, df.fields[column_sizes].type);
  (void)column_sizes_type;
  const Node& cs_array = schema.Resolve(df.fields[column_sizes].type).children[1];
  EXPECT_EQ(cs_array.logical_type(), "map");
  EXPECT_EQ(schema.Resolve(cs_array.items()).fields[0].field_id(), 117);
  EXPECT_EQ(schema.Resolve(df.fields[split_offsets].type).children[1].element_id(), 133);
  const Node& part = RecordOf(schema, df.fields[partition].type);
  EXPECT_EQ(part.fields[0].field_id(), 1000);
  EXPECT_EQ(schema.Resolve(part.fields[0].type).children[1].logical_type(), "date");

  ASSERT_OK_AND_ASSIGN(auto entries, reader->ReadAll());
  ASSERT_EQ(entries.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const Value& e = entries[i];
    EXPECT_EQ(e.field(status).AsInt32(), 1);  // ADDED
    EXPECT_EQ(e.field(snapshot_id).AsInt64(), 3051729675574597004);
    const Value& f = e.field(data_file);
    EXPECT_EQ(f.field(file_path).AsString(),
              "s3://bucket/db/t/data/ts_day=2024-01-0" + std::to_string(i + 1) + "/file-" +
                  std::to_string(i) + ".parquet");
    EXPECT_EQ(f.field(record_count).AsInt64(), 100 * (i + 1));
    EXPECT_EQ(f.field(partition).field(0).AsInt32(), 19723 + i);
    EXPECT_EQ(f.field(partition).field(1).AsInt32(), i);
    const Value& sizes = f.field(column_sizes);
    ASSERT_EQ(sizes.size(), 3u);
    EXPECT_EQ(sizes.item(0).field(0).AsInt32(), 1);
    EXPECT_EQ(sizes.item(0).field(1).AsInt64(), 800 + i);
    const Value& lower = f.field(lower_bounds);
    ASSERT_EQ(lower.size(), 2u);
    EXPECT_EQ(lower.item(0).field(0).AsInt32(), 1);
    EXPECT_EQ(LittleEndian64(lower.item(0).field(1).AsBytes()), i);
    EXPECT_EQ(lower.item(1).field(1).AsBytes(), "a");
    ASSERT_EQ(f.field(split_offsets).size(), 1u);
    EXPECT_EQ(f.field(split_offsets).item(0).AsInt64(), 4);
  }

  // Written again by floe with the same schema and codec, the entries read back the same.
  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  Metadata user;
  for (const auto& kv : reader->metadata()) {
    if (kv.first.rfind("avro.", 0) != 0) user.push_back(kv);
  }
  ASSERT_OK_AND_ASSIGN(auto writer,
                       ContainerWriter::Make(sink, reader->schema(), reader->codec(), user));
  for (const Value& e : entries) ASSERT_OK(writer->Write(e));
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(auto buffer, sink->Finish());
  ASSERT_OK_AND_ASSIGN(auto again, ContainerReader::Open(buffer, "rewritten.avro"));
  ASSERT_OK_AND_ASSIGN(auto entries_again, again->ReadAll());
  EXPECT_EQ(entries_again, entries);
  EXPECT_EQ(again->schema()->root(), reader->schema()->root());
}

INSTANTIATE_TEST_SUITE_P(Codecs, PyIcebergManifestTest,
                         ::testing::Values("null", "deflate", "zstandard"));

TEST(PyIcebergManifestListTest, ReadsManifestList) {
  const std::string path = DataPath("pyiceberg_manifest_list.avro");
  ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(testing::ToBuffer(Slurp(path)), path));
  EXPECT_EQ(reader->codec(), Codec::kDeflate);
  EXPECT_EQ(*reader->FindMetadata("format-version"), "2");
  EXPECT_EQ(*reader->FindMetadata("snapshot-id"), "3051729675574597004");
  const Schema& schema = *reader->schema();
  const int manifest_path = FieldById(schema, schema.root(), 500);
  const int manifest_length = FieldById(schema, schema.root(), 501);
  const int added_files = FieldById(schema, schema.root(), 504);
  const int partitions = FieldById(schema, schema.root(), 507);
  ASSERT_GE(std::min({manifest_path, manifest_length, added_files, partitions}), 0);
  EXPECT_EQ(schema.Resolve(schema.root().fields[partitions].type).children[1].element_id(), 508);

  ASSERT_OK_AND_ASSIGN(auto manifests, reader->ReadAll());
  ASSERT_EQ(manifests.size(), 1u);
  const Value& m = manifests[0];
  EXPECT_NE(m.field(manifest_path).AsString().find("pyiceberg_manifest_zstandard.avro"),
            std::string::npos);
  EXPECT_EQ(m.field(manifest_length).AsInt64(),
            static_cast<int64_t>(
                std::filesystem::file_size(DataPath("pyiceberg_manifest_zstandard.avro"))));
  EXPECT_EQ(m.field(added_files).AsInt32(), 3);
  ASSERT_EQ(m.field(partitions).size(), 2u);
}

}  // namespace
}  // namespace floe::avro
