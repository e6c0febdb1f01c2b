#include <string>

#include "floe/avro/schema.h"
#include "avro_test_util.h"

namespace floe::avro {
namespace {

// A v2 data manifest entry schema the way Java Iceberg writes it (field order, doc, default,
// then field-id), with maps as arrays of key/value records.
constexpr const char* kManifestEntrySchema =
    R"({"type":"record","name":"manifest_entry","fields":[)"
    R"({"name":"status","type":"int","field-id":0},)"
    R"({"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},)"
    R"({"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},)"
    R"({"name":"file_sequence_number","type":["null","long"],"default":null,"field-id":4},)"
    R"({"name":"data_file","type":{"type":"record","name":"r2","fields":[)"
    R"({"name":"content","type":"int","doc":"Contents of the file: 0=data, 1=position deletes, 2=equality deletes","field-id":134},)"
    R"({"name":"file_path","type":"string","doc":"Location URI with FS scheme","field-id":100},)"
    R"({"name":"file_format","type":"string","doc":"File format name: avro, orc, or parquet","field-id":101},)"
    R"({"name":"partition","type":{"type":"record","name":"r102","fields":[)"
    R"({"name":"ts_day","type":["null",{"type":"int","logicalType":"date"}],"default":null,"field-id":1000},)"
    R"({"name":"id_bucket","type":["null","int"],"default":null,"field-id":1001}]},)"
    R"("doc":"Partition data tuple, schema based on the partition spec","field-id":102},)"
    R"({"name":"record_count","type":"long","doc":"Number of records in the file","field-id":103},)"
    R"({"name":"column_sizes","type":["null",{"type":"array","items":{"type":"record","name":"k117_v118","fields":[)"
    R"({"name":"key","type":"int","field-id":117},{"name":"value","type":"long","field-id":118}]},)"
    R"("logicalType":"map"}],"doc":"Map of column id to total size on disk","default":null,"field-id":108},)"
    R"({"name":"lower_bounds","type":["null",{"type":"array","items":{"type":"record","name":"k126_v127","fields":[)"
    R"({"name":"key","type":"int","field-id":126},{"name":"value","type":"bytes","field-id":127}]},)"
    R"("logicalType":"map"}],"doc":"Map of column id to lower bound","default":null,"field-id":125},)"
    R"({"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],)"
    R"("doc":"Splittable offsets","default":null,"field-id":132},)"
    R"({"name":"sort_order_id","type":["null","int"],"doc":"Sort order ID","default":null,"field-id":140}]},)"
    R"("field-id":2}]})";

TEST(SchemaTest, IcebergManifestSchemaRoundTripsExactly) {
  ASSERT_OK_AND_ASSIGN(auto schema, Schema::Parse(kManifestEntrySchema));
  EXPECT_EQ(schema->ToJson(), kManifestEntrySchema);

  const Node& root = schema->root();
  ASSERT_EQ(root.type, Type::kRecord);
  EXPECT_EQ(root.full_name, "manifest_entry");
  ASSERT_EQ(root.fields.size(), 5u);
  EXPECT_EQ(root.fields[0].field_id(), 0);
  EXPECT_EQ(root.fields[1].field_id(), 1);
  ASSERT_TRUE(root.fields[1].default_value.has_value());
  EXPECT_TRUE(root.fields[1].default_value->is_null());
  EXPECT_EQ(root.fields[1].type.NullBranch(), 0);

  const Node& data_file = root.fields[4].type;
  EXPECT_EQ(data_file.name, "r2");
  EXPECT_EQ(data_file.fields[0].doc,
            "Contents of the file: 0=data, 1=position deletes, 2=equality deletes");
  const Node& partition = data_file.fields[3].type;
  EXPECT_EQ(partition.fields[0].field_id(), 1000);
  EXPECT_EQ(partition.fields[0].type.children[1].logical_type(), "date");

  const Node& column_sizes = data_file.fields[5].type.children[1];
  EXPECT_EQ(column_sizes.type, Type::kArray);
  EXPECT_EQ(column_sizes.logical_type(), "map");
  EXPECT_EQ(column_sizes.items().fields[0].field_id(), 117);
  EXPECT_EQ(column_sizes.items().fields[1].field_id(), 118);

  const Node& split_offsets = data_file.fields[7].type.children[1];
  EXPECT_EQ(split_offsets.element_id(), 133);
  // field-id stays a JSON integer, not a string.
  EXPECT_TRUE(root.fields[0].attributes.Find("field-id")->is_int());
}

TEST(SchemaTest, LogicalTypesMapsAndCustomAttributesRoundTrip) {
  const std::string json =
      R"({"type":"record","name":"r","namespace":"org.example","doc":"top","fields":[)"
      R"({"name":"ts","type":{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true},"field-id":1},)"
      R"({"name":"t","type":{"type":"long","logicalType":"time-micros"},"field-id":2},)"
      R"({"name":"d","type":{"type":"fixed","name":"fixed_9","size":9,"logicalType":"decimal","precision":20,"scale":2},"field-id":3},)"
      R"({"name":"u","type":{"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"},"field-id":4},)"
      R"({"name":"m","type":{"type":"map","values":["null","double"],"key-id":5,"value-id":6},"field-id":7,"custom":{"a":[1,2.5,"x",false,null]}},)"
      R"({"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"],"default":"RED"},"default":"GREEN","aliases":["colour"]},)"
      R"({"name":"n","type":"float","default":1.5,"order":"descending"},)"
      R"({"name":"s","type":{"type":"string","avro.java.string":"String"},"default":"abc"},)"
      R"({"name":"b","type":"bytes","default":"ÿ"}]})";
  ASSERT_OK_AND_ASSIGN(auto schema, Schema::Parse(json));
  EXPECT_EQ(schema->ToJson(), json);

  const Node& root = schema->root();
  EXPECT_EQ(root.full_name, "org.example.r");
  EXPECT_EQ(root.name_space, "org.example");
  EXPECT_EQ(root.doc, "top");
  const Node& ts = root.fields[0].type;
  EXPECT_EQ(ts.type, Type::kLong);
  EXPECT_EQ(ts.logical_type(), "timestamp-micros");
  EXPECT_EQ(ts.attributes.GetBool("adjust-to-utc"), true);
  const Node& dec = root.fields[2].type;
  EXPECT_EQ(dec.fixed_size, 9);
  EXPECT_EQ(dec.full_name, "org.example.fixed_9");
  EXPECT_EQ(dec.attributes.GetInt32("precision"), 20);
  EXPECT_EQ(dec.attributes.GetInt32("scale"), 2);
  const Node& map = root.fields[4].type;
  EXPECT_EQ(map.key_id(), 5);
  EXPECT_EQ(map.value_id(), 6);
  EXPECT_EQ(map.values().type, Type::kUnion);
  EXPECT_EQ(root.fields[4].attributes.Find("custom")->ToJson(), R"({"a":[1,2.5,"x",false,null]})");
  const Node& color = root.fields[5].type;
  EXPECT_EQ(color.symbols, (std::vector<std::string>{"RED", "GREEN"}));
  EXPECT_EQ(root.fields[5].default_value->as_string(), "GREEN");
  EXPECT_EQ(root.fields[6].default_value->as_double(), 1.5);
  // Bytes defaults are strings of code points 0-255; escapes are read, written as UTF-8.
  ASSERT_OK_AND_ASSIGN(auto escaped, Schema::Parse(R"({"type":"record","name":"x","fields":[)"
                                                   R"({"name":"b","type":"bytes","default":"\u00ff"}]})"));
  EXPECT_EQ(escaped->root().fields[0].default_value->as_string(), "\xc3\xbf");
}

TEST(SchemaTest, NamedReferencesResolve) {
  const std::string json =
      R"({"type":"record","name":"outer","namespace":"ns","fields":[)"
      R"({"name":"a","type":{"type":"record","name":"pair","fields":[{"name":"k","type":"int"}]}},)"
      R"({"name":"b","type":"pair"},)"
      R"({"name":"c","type":["null","ns.pair"]},)"
      R"({"name":"d","type":{"type":"array","items":"pair"}},)"
      R"({"name":"h","type":{"type":"fixed","name":"md5","namespace":"other","size":16}},)"
      R"({"name":"i","type":"other.md5"},)"
      R"({"name":"next","type":["null","outer"]}]})";
  ASSERT_OK_AND_ASSIGN(auto schema, Schema::Parse(json));
  EXPECT_EQ(schema->ToJson(), json);
  const Node& root = schema->root();
  const Node& b = root.fields[1].type;
  EXPECT_TRUE(b.is_reference);
  EXPECT_EQ(b.type, Type::kRecord);
  EXPECT_EQ(b.full_name, "ns.pair");
  EXPECT_EQ(&schema->Resolve(b), &root.fields[0].type);
  EXPECT_EQ(&schema->Resolve(root.fields[2].type.children[1]), &root.fields[0].type);
  EXPECT_EQ(schema->Resolve(root.fields[5].type).fixed_size, 16);
  EXPECT_EQ(&schema->Resolve(root.fields[6].type.children[1]), &root);
  EXPECT_NE(schema->FindNamed("other.md5"), nullptr);
  EXPECT_EQ(schema->FindNamed("md5"), nullptr);
}

TEST(SchemaTest, BuildsByHandLikeParsed) {
  std::vector<Field> kv;
  kv.push_back(Field("key", Node::Primitive(Type::kInt)).WithFieldId(117));
  kv.push_back(Field("value", Node::Primitive(Type::kLong)).WithFieldId(118));
  std::vector<Field> fields;
  fields.push_back(Field("status", Node::Primitive(Type::kInt)).WithFieldId(0));
  fields.push_back(Field("snapshot_id", Node::Optional(Node::Primitive(Type::kLong)))
                       .WithDefault(JsonValue::Null())
                       .WithFieldId(1));
  fields.push_back(
      Field("column_sizes",
            Node::Optional(Node::Array(Node::Record("k117_v118", std::move(kv)))
                               .WithLogicalType("map")))
          .WithDoc("Map of column id to total size on disk")
          .WithDefault(JsonValue::Null())
          .WithFieldId(108));
  ASSERT_OK_AND_ASSIGN(auto built, Schema::Make(Node::Record("manifest_entry", std::move(fields))));
  const std::string expected =
      R"({"type":"record","name":"manifest_entry","fields":[)"
      R"({"name":"status","type":"int","field-id":0},)"
      R"({"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},)"
      R"({"name":"column_sizes","type":["null",{"type":"array","items":{"type":"record","name":"k117_v118","fields":[)"
      R"({"name":"key","type":"int","field-id":117},{"name":"value","type":"long","field-id":118}]},)"
      R"("logicalType":"map"}],"doc":"Map of column id to total size on disk","default":null,"field-id":108}]})";
  EXPECT_EQ(built->ToJson(), expected);
  ASSERT_OK_AND_ASSIGN(auto parsed, Schema::Parse(expected));
  EXPECT_EQ(parsed->root(), built->root());
}

TEST(SchemaTest, PrimitivesAndWhitespace) {
  ASSERT_OK_AND_ASSIGN(auto s, Schema::Parse(R"( "long" )"));
  EXPECT_EQ(s->root().type, Type::kLong);
  EXPECT_EQ(s->ToJson(), R"("long")");
  ASSERT_OK_AND_ASSIGN(s, Schema::Parse(R"({"type": "string"})"));
  EXPECT_EQ(s->ToJson(), R"("string")");
  ASSERT_OK_AND_ASSIGN(s, Schema::Parse(R"(["null", "int", {"type":"array","items":"string"}])"));
  EXPECT_EQ(s->ToJson(), R"(["null","int",{"type":"array","items":"string"}])");
  // "error" is the spec's other record keyword.
  ASSERT_OK_AND_ASSIGN(s, Schema::Parse(R"({"type":"error","name":"E","fields":[]})"));
  EXPECT_EQ(s->root().type, Type::kRecord);
  // An explicit empty namespace is kept.
  ASSERT_OK_AND_ASSIGN(s, Schema::Parse(R"({"type":"fixed","name":"f","namespace":"","size":2})"));
  EXPECT_EQ(s->ToJson(), R"({"type":"fixed","name":"f","namespace":"","size":2})");
}

TEST(SchemaTest, RejectsInvalidSchemas) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "invalid JSON"},
      {"{", "invalid JSON"},
      {"42", "must be a string, array or object"},
      {R"({"name":"x"})", "no 'type'"},
      {R"("Missing")", "undefined type 'Missing'"},
      {R"({"type":"record","fields":[]})", "has no name"},
      {R"({"type":"record","name":"r"})", "has no 'fields'"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]})",
       "duplicate field 'a'"},
      {R"({"type":"record","name":"r","fields":[{"type":"int"}]})", "field has no name"},
      {R"({"type":"record","name":"r","fields":[{"name":"a"}]})", "'a' has no type"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"record","name":"r","fields":[]}}]})",
       "defines 'r' twice"},
      {R"({"type":"array"})", "has no 'items'"},
      {R"({"type":"map"})", "has no 'values'"},
      {R"({"type":"fixed","name":"f"})", "has no 'size'"},
      {R"({"type":"fixed","name":"f","size":-1})", "invalid size -1"},
      {R"({"type":"enum","name":"e","symbols":["A","A"]})", "duplicate symbol 'A'"},
      {R"(["int","int"])", "contains 'int' twice"},
      {R"(["null",["int"]])", "may not directly contain a union"},
      {R"([])", "no branches"},
      {R"({"type":"record","name":"int","fields":[]})", "may not be called 'int'"},
  };
  for (const auto& [json, message] : cases) {
    SCOPED_TRACE(json);
    ASSERT_RAISES_WITH_MESSAGE(message, Schema::Parse(json));
    ASSERT_RAISES_WITH_MESSAGE("Invalid Avro schema", Schema::Parse(json));
  }
}

TEST(SchemaTest, RejectsDeepNestingWithoutCrashing) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "[";
  ASSERT_RAISES_WITH_MESSAGE("Invalid Avro schema", Schema::Parse(deep));
  std::string arrays;
  for (int i = 0; i < 5000; ++i) arrays += R"({"type":"array","items":)";
  arrays += R"("int")";
  for (int i = 0; i < 5000; ++i) arrays += "}";
  ASSERT_RAISES_WITH_MESSAGE("nested deeper", Schema::Parse(arrays));
}

}  // namespace
}  // namespace floe::avro
