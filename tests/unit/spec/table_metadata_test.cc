#include <chrono>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "floe/spec/table_metadata.h"
#include "floe_test.h"

namespace floe::spec {
namespace {

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(FLOE_TEST_DATA_DIR) + "/spec/" + name, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::shared_ptr<TableMetadata> MustParse(const std::string& json) {
  auto result = ParseTableMetadata(json, "test.json");
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *result : std::make_shared<TableMetadata>();
}

// Writing then reading gives an equal model, and writing again gives the same text.
void ExpectRoundTrip(const TableMetadata& md) {
  for (bool pretty : {false, true}) {
    std::string text = WriteTableMetadata(md, pretty);
    ASSERT_OK_AND_ASSIGN(auto back, ParseTableMetadata(text));
    EXPECT_TRUE(*back == md) << text;
    EXPECT_EQ(WriteTableMetadata(*back, pretty), text);
  }
}

TEST(TableMetadataJsonTest, FullV2Fixture) {
  std::string text = ReadFixture("v2_full.json");
  auto md = MustParse(text);
  EXPECT_EQ(md->format_version, 2);
  EXPECT_EQ(md->table_uuid, "9c12d441-03fe-4693-9a96-a0705ddf69c1");
  EXPECT_EQ(md->location, "s3://bucket/warehouse/db/events");
  EXPECT_EQ(md->last_sequence_number, 34);
  EXPECT_EQ(md->last_updated_ms, 1602638573590);
  EXPECT_EQ(md->last_column_id, 12);
  ASSERT_EQ(md->schemas.size(), 2u);
  EXPECT_EQ(md->current_schema_id, 1);
  SchemaPtr schema = md->current_schema();
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(schema->identifier_field_ids(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(schema->FindFieldById(1)->doc, "row id");
  EXPECT_EQ(schema->FindFieldById(3)->initial_default_json, "\"0.00\"");
  EXPECT_EQ(schema->FindFieldById(3)->write_default_json, "\"1.50\"");
  EXPECT_EQ(*schema->FindFieldById(3)->type, *Type::Decimal(9, 2));
  EXPECT_EQ(schema->FindColumnName(7), "tags.element");
  EXPECT_TRUE(schema->FindFieldById(7)->required);
  EXPECT_EQ(schema->FindColumnName(10), "attrs.value.v");
  EXPECT_FALSE(schema->FindFieldById(9)->required);
  EXPECT_EQ(*schema->FindFieldById(10)->type, *Type::Fixed(16));
  EXPECT_EQ(schema->FindFieldByName("loc.uid")->id, 12);

  ASSERT_EQ(md->partition_specs.size(), 2u);
  EXPECT_EQ(md->default_spec_id, 1);
  const PartitionSpec* spec = md->default_spec();
  ASSERT_NE(spec, nullptr);
  ASSERT_EQ(spec->fields().size(), 5u);
  EXPECT_EQ(spec->fields()[0], (PartitionField{2, 1000, "ts_day", Transform::Day()}));
  EXPECT_EQ(spec->fields()[1].transform, Transform::Bucket(16));
  EXPECT_EQ(spec->fields()[2].transform, Transform::Truncate(50));
  EXPECT_EQ(spec->fields()[3].transform, Transform::Void());
  EXPECT_EQ(spec->fields()[4].transform.kind(), TransformKind::kUnknown);
  EXPECT_EQ(spec->fields()[4].transform.ToString(), "zorder[3]");
  EXPECT_EQ(md->last_partition_id, 1004);

  EXPECT_EQ(md->default_sort_order_id, 3);
  const SortOrder* order = md->SortOrderById(3);
  ASSERT_NE(order, nullptr);
  ASSERT_EQ(order->fields.size(), 2u);
  EXPECT_EQ(order->fields[1].direction, SortDirection::kDesc);
  EXPECT_EQ(order->fields[1].null_order, NullOrder::kNullsLast);
  EXPECT_EQ(order->fields[1].transform, Transform::Bucket(4));

  EXPECT_EQ(md->Property("write.format.default", "avro"), "parquet");
  EXPECT_EQ(md->Property("missing", "x"), "x");
  EXPECT_EQ(md->PropertyAsInt("commit.retry.num-retries", 1), 4);
  EXPECT_EQ(md->PropertyAsInt("write.format.default", 7), 7);

  ASSERT_TRUE(md->current_snapshot_id.has_value());
  const Snapshot* current = md->current_snapshot();
  ASSERT_NE(current, nullptr);
  EXPECT_EQ(current->snapshot_id, 3055729675574597004);
  EXPECT_EQ(current->parent_snapshot_id, 3051729675574597004);
  EXPECT_EQ(current->sequence_number, 34);
  EXPECT_EQ(current->timestamp_ms, 1555100955770);
  EXPECT_EQ(current->operation, "overwrite");
  EXPECT_EQ(current->summary.at("spark.app.id"), "local-1");
  EXPECT_EQ(current->summary.count("operation"), 0u);
  EXPECT_EQ(current->schema_id, 1);
  EXPECT_EQ(current->manifest_list,
            "s3://bucket/warehouse/db/events/metadata/snap-3055729675574597004-1-b.avro");
  EXPECT_EQ(md->SnapshotById(3051729675574597004)->parent_snapshot_id, std::nullopt);
  EXPECT_EQ(md->SnapshotById(42), nullptr);

  ASSERT_EQ(md->refs.size(), 3u);
  const SnapshotRef& dev = md->refs.at("dev");
  EXPECT_TRUE(dev.is_branch());
  EXPECT_EQ(dev.min_snapshots_to_keep, 2);
  EXPECT_EQ(dev.max_snapshot_age_ms, 86400000);
  EXPECT_EQ(dev.max_ref_age_ms, 604800000);
  const SnapshotRef& audit = md->refs.at("audit");
  EXPECT_EQ(audit.type, SnapshotRefType::kTag);
  EXPECT_EQ(audit.max_ref_age_ms, 10000000);
  EXPECT_EQ(audit.min_snapshots_to_keep, std::nullopt);

  ASSERT_EQ(md->statistics.size(), 1u);
  EXPECT_EQ(md->statistics[0].file_footer_size_in_bytes, 42);
  EXPECT_EQ(md->statistics[0].key_metadata, "aWNlYmVyZwo=");
  ASSERT_EQ(md->statistics[0].blob_metadata.size(), 1u);
  EXPECT_EQ(md->statistics[0].blob_metadata[0].fields, std::vector<int32_t>{1});
  EXPECT_EQ(md->statistics[0].blob_metadata[0].properties.at("ndv"), "10");
  ASSERT_EQ(md->partition_statistics.size(), 1u);
  EXPECT_EQ(md->partition_statistics[0].file_size_in_bytes, 43);
  ASSERT_EQ(md->snapshot_log.size(), 2u);
  EXPECT_EQ(md->snapshot_log[1].snapshot_id, 3055729675574597004);
  ASSERT_EQ(md->metadata_log.size(), 1u);
  EXPECT_EQ(md->metadata_log[0].metadata_file,
            "s3://bucket/warehouse/db/events/metadata/00000-a.metadata.json");

  ExpectRoundTrip(*md);
  // The fixture is laid out as Java writes metadata files, with sorted maps, so the pretty
  // writer reproduces it byte for byte.
  EXPECT_EQ(WriteTableMetadata(*md, /*pretty=*/true), text);
}

TEST(TableMetadataJsonTest, V1FixtureFillsTheV2Model) {
  auto md = MustParse(ReadFixture("v1.json"));
  EXPECT_EQ(md->format_version, 1);
  EXPECT_EQ(md->last_sequence_number, 0);
  ASSERT_EQ(md->schemas.size(), 1u);
  EXPECT_EQ(md->current_schema_id, 0);
  EXPECT_EQ(md->current_schema()->FindFieldById(2)->doc, "comment");
  ASSERT_EQ(md->partition_specs.size(), 1u);
  EXPECT_EQ(md->default_spec_id, 0);
  const auto& fields = md->default_spec()->fields();
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[0].field_id, 1000);  // assigned as the v1 reference implementation did
  EXPECT_EQ(fields[1].field_id, 1001);
  EXPECT_EQ(fields[1].transform, Transform::Bucket(8));
  EXPECT_EQ(md->last_partition_id, 1001);
  ASSERT_EQ(md->sort_orders.size(), 1u);
  EXPECT_TRUE(md->sort_orders[0].is_unsorted());
  EXPECT_EQ(md->default_sort_order_id, 0);
  EXPECT_EQ(md->current_snapshot_id, 2);
  ASSERT_EQ(md->refs.size(), 1u);
  EXPECT_EQ(md->refs.at("main").snapshot_id, 2);
  EXPECT_TRUE(md->refs.at("main").is_branch());
  ASSERT_EQ(md->snapshots.size(), 2u);
  EXPECT_EQ(md->snapshots[0].sequence_number, 0);
  EXPECT_EQ(md->snapshots[0].manifest_list, "");
  EXPECT_EQ(md->snapshots[0].v1_manifests.size(), 2u);
  EXPECT_EQ(md->snapshots[1].summary.at("added-data-files"), "4");
  ExpectRoundTrip(*md);

  // v1 files keep the deprecated `schema` and `partition-spec` for old readers.
  std::string written = WriteTableMetadata(*md);
  EXPECT_NE(written.find("\"schema\":{"), std::string::npos);
  EXPECT_NE(written.find("\"partition-spec\":[{"), std::string::npos);
  EXPECT_EQ(written.find("last-sequence-number"), std::string::npos);
  EXPECT_NE(written.find("\"manifests\":[\"s3://bucket/test/location/metadata/m1.avro\""),
            std::string::npos);
}

TEST(TableMetadataJsonTest, JavaWrittenFiles) {
  std::string text = ReadFixture("java_1_10_v2.json");
  auto md = MustParse(text);
  EXPECT_EQ(md->current_snapshot()->summary.at("iceberg-version"),
            "Apache Iceberg 1.10.0 (commit 2114bf631e49af532d66e2ce148ee49dd1dd1f1f)");
  EXPECT_EQ(md->current_snapshot()->summary.size(), 15u);
  EXPECT_EQ(md->current_schema()->FindFieldByName("ts")->type->id(), TypeId::kTimestampTz);
  ExpectRoundTrip(*md);

  std::string empty_text = ReadFixture("java_1_10_v2_empty.json");
  auto empty = MustParse(empty_text);
  EXPECT_EQ(empty->current_snapshot_id, std::nullopt);
  EXPECT_EQ(empty->current_snapshot(), nullptr);
  EXPECT_TRUE(empty->refs.empty());
  EXPECT_EQ(empty->last_partition_id, 999);
  // Java 1.10 writes -1 for a v2 table without a snapshot; so do we, in the same layout.
  EXPECT_EQ(WriteTableMetadata(*empty, true), empty_text);
  ExpectRoundTrip(*empty);
}

// Spark 3.5 + Iceberg 1.10 on a format-version 3 table: two inserts, a merge-on-read DELETE
// (a deletion vector), a tag, an UPDATE. Each snapshot takes the next range of row ids.
TEST(TableMetadataJsonTest, JavaWrittenV3File) {
  std::string text = ReadFixture("java_1_10_v3.json");
  auto md = MustParse(text);
  EXPECT_EQ(md->format_version, 3);
  EXPECT_EQ(md->next_row_id, 6);
  EXPECT_EQ(md->last_sequence_number, 4);
  EXPECT_EQ(md->current_snapshot_id, 865218611489970331);
  struct Lineage {
    int64_t id;
    int64_t sequence_number;
    int64_t first_row_id;
    int64_t added_rows;
    std::string operation;
  };
  const std::vector<Lineage> want = {{644824708592463418, 1, 0, 3, "append"},
                                     {8646875635554662321, 2, 3, 2, "append"},
                                     {8179769079124331207, 3, 5, 0, "delete"},
                                     {865218611489970331, 4, 5, 1, "overwrite"}};
  ASSERT_EQ(md->snapshots.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const Snapshot& s = md->snapshots[i];
    EXPECT_EQ(s.snapshot_id, want[i].id);
    EXPECT_EQ(s.sequence_number, want[i].sequence_number);
    EXPECT_EQ(s.first_row_id, want[i].first_row_id);
    EXPECT_EQ(s.added_rows, want[i].added_rows);
    EXPECT_EQ(s.operation, want[i].operation);
    EXPECT_EQ(s.key_id, std::nullopt);
  }
  EXPECT_EQ(md->refs.at("t1").snapshot_id, 8179769079124331207);
  EXPECT_TRUE(md->encryption_keys_json.empty());
  // Written back with every field Java wrote, the same values (maps keep floe's key order).
  rapidjson::Document java, ours;
  java.Parse(text.c_str());
  const std::string written = WriteTableMetadata(*md);
  ours.Parse(written.c_str());
  EXPECT_TRUE(java == ours) << written;
  ExpectRoundTrip(*md);

  // v3 needs next-row-id; it writes a missing current snapshot as null; keys round-trip.
  std::string no_next = text;
  no_next.erase(no_next.find("\"next-row-id\":6,"), std::string("\"next-row-id\":6,").size());
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse missing long: next-row-id",
                             ParseTableMetadata(no_next));
  TableMetadata keyed = *md;
  keyed.encryption_keys_json = R"([{"key-id":"k1","encrypted-key-metadata":"AAEC"}])";
  keyed.snapshots.back().key_id = "k1";
  ExpectRoundTrip(keyed);
  TableMetadata empty = *md;
  empty.snapshots.clear();
  empty.snapshot_log.clear();
  empty.refs.clear();
  empty.current_snapshot_id.reset();
  EXPECT_NE(WriteTableMetadata(empty).find("\"current-snapshot-id\":null,\"next-row-id\":6,"),
            std::string::npos);
  ExpectRoundTrip(empty);
}

TEST(TableMetadataJsonTest, CurrentSnapshotNullAndMissingRefs) {
  std::string text = ReadFixture("java_1_10_v2_empty.json");
  std::string with_null = text;
  with_null.replace(with_null.find("-1"), 2, "null");
  auto md = MustParse(with_null);
  EXPECT_EQ(md->current_snapshot_id, std::nullopt);

  // A v2 file without refs but with a current snapshot gets a main branch.
  std::string java = ReadFixture("java_1_10_v2.json");
  size_t start = java.find("  \"refs\"");
  size_t end = java.find("  \"snapshots\"");
  auto no_refs = MustParse(java.substr(0, start) + java.substr(end));
  ASSERT_EQ(no_refs->refs.size(), 1u);
  EXPECT_EQ(no_refs->refs.at("main").snapshot_id, 6487417640373155931);
}

TEST(TableMetadataJsonTest, BrokenFixturesNameTheFileAndTheProblem) {
  struct Case {
    const char* file;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"broken_truncated.json", "Invalid JSON at byte offset 300"},
           {"broken_missing_uuid.json", "Cannot parse missing string: table-uuid"},
           {"broken_wrong_type.json", "Cannot parse to an integer value: last-column-id: \"3\""},
           {"broken_current_schema.json",
            "Cannot find schema with current-schema-id=7 from schemas"},
           {"broken_version.json", "Cannot read unsupported version 9"},
           {"broken_duplicate_field_id.json",
            "Invalid schema 0: field id 3 is used by both 'data' and 'ts'"},
           {"broken_duplicate_nested_field_id.json",
            "Invalid schema 0: field id 1 is used by both 'id' and 'point.y'"},
       }) {
    auto result = ParseTableMetadata(ReadFixture(c.file), c.file);
    ASSERT_FALSE(result.ok()) << c.file;
    EXPECT_THAT(result.status().message(), ::testing::HasSubstr(c.message)) << c.file;
    EXPECT_THAT(result.status().message(),
                ::testing::HasSubstr(std::string("Cannot parse table metadata ") + c.file));
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kValidation);
  }
}

TEST(TableMetadataJsonTest, ControlCharactersInStringsAreEscapedOnWrite) {
  auto md = MustParse(ReadFixture("java_1_10_v2.json"));
  // 0x1A-0x1F are the characters RapidJSON 1.1's SSE2 writer would have left raw.
  md->properties["comment"] = std::string("tab\there\nnew \x1a\x1f \x01 \"q\" \\ end");
  md->location = std::string("/tmp/odd\x1e/location");
  std::string text = WriteTableMetadata(*md);
  EXPECT_NE(text.find(R"("comment":"tab\there\nnew \u001A\u001F \u0001 \"q\" \\ end")"),
            std::string::npos)
      << text;
  ExpectRoundTrip(*md);
}

// Replaces the first occurrence of `from` in the Java fixture.
std::string JavaWith(const std::string& from, const std::string& to) {
  std::string text = ReadFixture("java_1_10_v2.json");
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return text.replace(pos, from.size(), to);
}

TEST(TableMetadataJsonTest, ValidationErrors) {
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse metadata from a non-object: [...]",
                             ParseTableMetadata("[1]"));
  ASSERT_RAISES_WITH_MESSAGE("Invalid JSON at byte offset 0", ParseTableMetadata(""));
  ASSERT_RAISES_WITH_MESSAGE("Invalid JSON at byte offset 3", ParseTableMetadata("{} x"));
  ASSERT_RAISES_WITH_MESSAGE("Invalid JSON at byte offset 2: NUL character",
                             ParseTableMetadata(std::string("{}\0 x", 5)));
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse missing int: format-version", ParseTableMetadata("{}"));
  {
    // A lone low surrogate escape would decode to bytes that are not UTF-8.
    std::string text = JavaWith("\"location\" : \"", "\"location\" : \"x\\uDDA2");
    ASSERT_RAISES_WITH_MESSAGE("Invalid JSON at byte offset " +
                                   std::to_string(text.find("\\uDDA2")) +
                                   ": the surrogate pair in string is invalid",
                               ParseTableMetadata(text, "m.json"));
    // An escaped backslash before "uDC00" and a real pair are fine.
    auto md = MustParse(JavaWith("\"location\" : \"", "\"location\" : \"a\\\\uDC00 \\uD83D\\uDE00 "));
    EXPECT_EQ(md->location.substr(0, 13), "a\\uDC00 \xF0\x9F\x98\x80 ");
    ExpectRoundTrip(*md);
  }
  // Raw control characters inside strings, at every offset mod 16 (the reader scans 16
  // bytes at a time), are damage even where the vector scan would let them through.
  for (int pad = 0; pad < 16; ++pad) {
    for (char c : {'\x01', '\x1a', '\x1f'}) {
      std::string text = JavaWith("\"location\" : \"", "\"location\" : \"" + std::string(pad, 'x') + c);
      size_t at = text.find(c);
      static constexpr char kHex[] = "0123456789ABCDEF";
      std::string want = "Invalid JSON at byte offset " + std::to_string(at) +
                         ": unescaped control character 0x" + kHex[(c >> 4) & 0xF] + kHex[c & 0xF];
      ASSERT_RAISES_WITH_MESSAGE(want, ParseTableMetadata(text, "m.json"));
    }
  }
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse missing string: location",
                             ParseTableMetadata(JavaWith("\"location\"", "\"loc\"")));
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse missing long: last-sequence-number",
                             ParseTableMetadata(JavaWith("\"last-sequence-number\"", "\"x\"")));
  ASSERT_RAISES_WITH_MESSAGE("schemas must exist in format v2",
                             ParseTableMetadata(JavaWith("\"schemas\"", "\"schemaz\"")));
  ASSERT_RAISES_WITH_MESSAGE("partition-specs must exist in format v2",
                             ParseTableMetadata(JavaWith("\"partition-specs\"", "\"p\"")));
  ASSERT_RAISES_WITH_MESSAGE("last-partition-id must exist in format v2",
                             ParseTableMetadata(JavaWith("\"last-partition-id\"", "\"p\"")));
  ASSERT_RAISES_WITH_MESSAGE("sort-orders must exist in format v2",
                             ParseTableMetadata(JavaWith("\"sort-orders\"", "\"s\"")));
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot find partition spec with default-spec-id=4",
      ParseTableMetadata(JavaWith("\"default-spec-id\" : 0", "\"default-spec-id\" : 4")));
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse type string to primitive: varchar",
                             ParseTableMetadata(JavaWith("\"long\"", "\"varchar\"")));
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse missing boolean: required",
                             ParseTableMetadata(JavaWith("\"required\"", "\"r\"")));
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot parse to a long value: snapshot-id: \"x\"",
      ParseTableMetadata(JavaWith("\"snapshot-id\" : 6487417640373155931,\n    \"timestamp-ms\"",
                                  "\"snapshot-id\" : \"x\",\n    \"timestamp-ms\"")));
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot parse to a string value: added-records: 3",
      ParseTableMetadata(JavaWith("\"added-records\" : \"3\"", "\"added-records\" : 3")));
  ASSERT_RAISES_WITH_MESSAGE("Invalid snapshot ref type: leaf",
                             ParseTableMetadata(JavaWith("\"branch\"", "\"leaf\"")));
  ASSERT_RAISES_WITH_MESSAGE(
      "Invalid table metadata: Cannot find current version 5",
      ParseTableMetadata(JavaWith("\"current-snapshot-id\" : 6487417640373155931",
                                  "\"current-snapshot-id\" : 5")));
  ASSERT_RAISES_WITH_MESSAGE(
      "Snapshot for reference main (snapshot 5) does not exist",
      ParseTableMetadata(JavaWith("\"snapshot-id\" : 6487417640373155931,\n      \"type\"",
                                  "\"snapshot-id\" : 5,\n      \"type\"")));
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse missing list: manifests",
                             ParseTableMetadata(JavaWith("\"manifest-list\"", "\"m\"")));
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot parse spec with missing field IDs",
      ParseTableMetadata(JavaWith(
          "\"default-spec-id\" : 0,\n  \"partition-specs\" : [ {\n    \"spec-id\" : 0,\n    "
          "\"fields\" : [ {",
          "\"default-spec-id\" : 0,\n  \"partition-specs\" : [ {\n    \"spec-id\" : 0,\n    "
          "\"fields\" : [ {\"name\": \"a\", \"transform\": \"identity\", \"source-id\": 1}, {")));
  // Deep nesting is an error, not a crash.
  std::string deep =
      "{\"format-version\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse to an integer value: format-version: [...]",
                             ParseTableMetadata(deep));
}

TEST(TableMetadataJsonTest, SchemaAndSpecJson) {
  auto md = MustParse(ReadFixture("v2_full.json"));
  SchemaPtr schema = md->current_schema();
  std::string json = SchemaToJson(*schema);
  ASSERT_OK_AND_ASSIGN(SchemaPtr back, SchemaFromJson(json));
  EXPECT_TRUE(back->Equals(*schema));
  EXPECT_EQ(SchemaToJson(*back), json);
  EXPECT_EQ(json.rfind("{\"type\":\"struct\",\"schema-id\":1,\"identifier-field-ids\":[1,2],", 0),
            0u);
  ASSERT_RAISES_WITH_MESSAGE("Cannot create schema, not a struct type: long",
                             SchemaFromJson("\"long\""));
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse schema: Invalid JSON", SchemaFromJson("{"));
  // Ids are unique across list elements and map keys and values too.
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot parse schema: Invalid schema 2: field id 1 is used by both 'id' and 'tags.element'",
      SchemaFromJson(R"({"type": "struct", "schema-id": 2, "fields": [
        {"id": 1, "name": "id", "required": true, "type": "long"},
        {"id": 2, "name": "tags", "required": false, "type": {"type": "list",
          "element-id": 1, "element": "string", "element-required": false}}]})"));
  ASSERT_RAISES_WITH_MESSAGE(
      "Invalid schema 0: field id 3 is used by both 'm.key' and 'm.value'",
      SchemaFromJson(R"({"type": "struct", "fields": [
        {"id": 1, "name": "m", "required": false, "type": {"type": "map",
          "key-id": 3, "key": "string", "value-id": 3, "value": "long",
          "value-required": false}}]})"));

  const PartitionSpec& spec = *md->default_spec();
  std::string spec_json = PartitionSpecToJson(spec);
  ASSERT_OK_AND_ASSIGN(PartitionSpec spec_back, PartitionSpecFromJson(spec_json));
  EXPECT_EQ(spec_back, spec);
  EXPECT_EQ(PartitionFieldsToJson(PartitionSpec(0, {{2, 1000, "ts_day", Transform::Day()}})),
            "[{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":2,\"field-id\":1000}]");
  EXPECT_EQ(PartitionSpecToJson(PartitionSpec::Unpartitioned()), "{\"spec-id\":0,\"fields\":[]}");
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse missing int: spec-id", PartitionSpecFromJson("{}"));
}

TEST(TableMetadataJsonTest, BuiltInMemoryRoundTrips) {
  TableMetadata md;
  md.format_version = 2;
  md.table_uuid = "u";
  md.location = "/t \"quoted\" \\ \xc3\xa9 \x01";
  md.schemas.push_back(
      std::make_shared<Schema>(0, std::vector<NestedField>{Required(1, "a", Type::Int())}));
  md.partition_specs.push_back(PartitionSpec::Unpartitioned());
  md.sort_orders.push_back(SortOrder::Unsorted());
  md.properties["k"] = "v\n";
  ExpectRoundTrip(md);
  EXPECT_NE(WriteTableMetadata(md).find("\"current-snapshot-id\":-1"), std::string::npos);
}

TEST(TableMetadataJsonTest, ManySnapshotsParse) {
  // Speed is measured in bench/; this only checks that a large file parses correctly.
  TableMetadata md;
  md.table_uuid = "u";
  md.location = "/t";
  md.schemas.push_back(
      std::make_shared<Schema>(0, std::vector<NestedField>{Required(1, "a", Type::Int())}));
  md.partition_specs.push_back(PartitionSpec::Unpartitioned());
  md.sort_orders.push_back(SortOrder::Unsorted());
  const int n = 20000;
  md.snapshots.reserve(n);
  for (int i = 1; i <= n; ++i) {
    Snapshot s;
    s.snapshot_id = 1000000000000 + i;
    if (i > 1) s.parent_snapshot_id = s.snapshot_id - 1;
    s.sequence_number = i;
    s.timestamp_ms = 1700000000000 + i;
    s.manifest_list = "/t/metadata/snap-" + std::to_string(s.snapshot_id) + ".avro";
    s.operation = "append";
    s.summary = {{"added-data-files", "1"}, {"total-records", std::to_string(i)}};
    s.schema_id = 0;
    md.snapshots.push_back(s);
    md.snapshot_log.push_back({s.timestamp_ms, s.snapshot_id});
  }
  md.current_snapshot_id = md.snapshots.back().snapshot_id;
  md.last_sequence_number = n;
  SnapshotRef main;
  main.snapshot_id = *md.current_snapshot_id;
  md.refs[kMainBranch] = main;
  std::string text = WriteTableMetadata(md, true);
  auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(auto back, ParseTableMetadata(text));
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  start)
                .count();
  RecordProperty("parse_ms", static_cast<int>(ms));
  EXPECT_TRUE(*back == md);
  EXPECT_EQ(back->SnapshotById(1000000000000 + n / 2)->sequence_number, n / 2);
}

}  // namespace
}  // namespace floe::spec
