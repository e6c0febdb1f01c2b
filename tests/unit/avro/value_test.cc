#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "avro_test_util.h"
#include "floe/avro/datum_reader.h"
#include "floe/avro/datum_writer.h"
#include "floe/avro/schema.h"
#include "floe/avro/value.h"

namespace floe::avro {
namespace {

std::shared_ptr<const Schema> MustParse(const std::string& json) {
  auto schema = Schema::Parse(json);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  return schema.ok() ? *schema : nullptr;
}

// Writes `value`, reads it back with the same schema, and returns the encoding.
std::string RoundTrip(const std::shared_ptr<const Schema>& schema, const Value& value,
                      const Value& expected) {
  auto writer = DatumWriter::Make(schema).ValueOrDie();
  auto reader = DatumReader::Make(schema).ValueOrDie();
  Encoder e;
  Status st = writer->Write(value, &e);
  EXPECT_TRUE(st.ok()) << st.ToString();
  Decoder d(e.buffer());
  Value back;
  st = reader->Read(&d, &back);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(d.AtEnd());
  EXPECT_EQ(back, expected);
  return e.buffer();
}

std::string RoundTrip(const std::shared_ptr<const Schema>& schema, const Value& value) {
  return RoundTrip(schema, value, value);
}

TEST(ValueTest, EveryPrimitiveRoundTrips) {
  RoundTrip(MustParse(R"("null")"), Value::Null());
  RoundTrip(MustParse(R"("boolean")"), Value::Bool(true));
  RoundTrip(MustParse(R"("boolean")"), Value::Bool(false));
  for (int32_t v : {0, 1, -1, 64, INT32_MAX, INT32_MIN}) {
    RoundTrip(MustParse(R"("int")"), Value::Int(v));
  }
  for (int64_t v : {int64_t{0}, int64_t{-1}, INT64_MAX, INT64_MIN, int64_t{1} << 40}) {
    RoundTrip(MustParse(R"("long")"), Value::Long(v));
  }
  RoundTrip(MustParse(R"("float")"), Value::Float(3.25f));
  RoundTrip(MustParse(R"("float")"), Value::Float(std::numeric_limits<float>::quiet_NaN()));
  RoundTrip(MustParse(R"("double")"), Value::Double(-0.0));
  RoundTrip(MustParse(R"("double")"), Value::Double(std::numeric_limits<double>::infinity()));
  RoundTrip(MustParse(R"("string")"), Value::String("héllo wörld"));
  RoundTrip(MustParse(R"("string")"), Value::String(""));
  RoundTrip(MustParse(R"("bytes")"), Value::Bytes(std::string("\x00\x01\xff", 3)));
  RoundTrip(MustParse(R"({"type":"fixed","name":"f","size":4})"), Value::Fixed("abcd"));
  RoundTrip(MustParse(R"({"type":"fixed","name":"f","size":0})"), Value::Fixed(""));
  RoundTrip(MustParse(R"({"type":"enum","name":"e","symbols":["A","B","C"]})"), Value::Enum(2));
  // A long accepts an int value, read back as a long.
  RoundTrip(MustParse(R"("long")"), Value::Int(7), Value::Long(7));
}

TEST(ValueTest, KnownEncodings) {
  EXPECT_EQ(RoundTrip(MustParse(R"("long")"), Value::Long(1)), "\x02");
  EXPECT_EQ(RoundTrip(MustParse(R"("long")"), Value::Long(-1)), "\x01");
  EXPECT_EQ(RoundTrip(MustParse(R"("long")"), Value::Long(64)), "\x80\x01");
  EXPECT_EQ(RoundTrip(MustParse(R"("string")"), Value::String("foo")), "\x06" "foo");
  // Union branch index, then the value.
  EXPECT_EQ(RoundTrip(MustParse(R"(["null","string"])"), Value::Union(1, Value::String("a"))),
            "\x02\x02" "a");
  EXPECT_EQ(RoundTrip(MustParse(R"(["null","string"])"), Value::Union(0, Value::Null())),
            std::string("\x00", 1));
  // An array: one block of two items, then the terminating zero count.
  EXPECT_EQ(RoundTrip(MustParse(R"({"type":"array","items":"long"})"),
                      Value::Array({Value::Long(3), Value::Long(27)})),
            std::string("\x04\x06\x36\x00", 4));
  EXPECT_EQ(RoundTrip(MustParse(R"({"type":"map","values":"int"})"),
                      Value::Map({{"a", Value::Int(1)}})),
            std::string("\x02\x02" "a" "\x02\x00", 5));
  EXPECT_EQ(RoundTrip(MustParse(R"({"type":"array","items":"long"})"), Value::Array({})),
            std::string("\x00", 1));
}

constexpr const char* kNestedSchema =
    R"({"type":"record","name":"entry","fields":[)"
    R"({"name":"status","type":"int","field-id":0},)"
    R"({"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},)"
    R"({"name":"data_file","type":{"type":"record","name":"r2","fields":[)"
    R"({"name":"file_path","type":"string","field-id":100},)"
    R"({"name":"partition","type":{"type":"record","name":"r102","fields":[)"
    R"({"name":"day","type":["null",{"type":"int","logicalType":"date"}],"field-id":1000}]},"field-id":102},)"
    R"({"name":"lower_bounds","type":["null",{"type":"array","items":{"type":"record","name":"k126_v127","fields":[)"
    R"({"name":"key","type":"int","field-id":126},{"name":"value","type":"bytes","field-id":127}]},"logicalType":"map"}],"field-id":125},)"
    R"({"name":"props","type":{"type":"map","values":["null","string"]}},)"
    R"({"name":"offsets","type":["null",{"type":"array","items":"long","element-id":133}],"field-id":132},)"
    R"({"name":"nested","type":{"type":"array","items":{"type":"array","items":"double"}}},)"
    R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["DATA","DELETES"]}},)"
    R"({"name":"checksum","type":["null",{"type":"fixed","name":"md5","size":16}]},)"
    R"({"name":"checksum2","type":"md5"},)"
    R"({"name":"flag","type":"boolean"},{"name":"ratio","type":"float"}]},"field-id":2}]})";

Value NestedValue(int64_t i) {
  std::vector<Value> bounds;
  for (int k = 0; k < 3; ++k) {
    bounds.push_back(Value::Record({Value::Int(k + 1), Value::Bytes(std::string(k + 1, 'x'))}));
  }
  Value data_file = Value::Record({
      Value::String("s3://bucket/data/file-" + std::to_string(i) + ".parquet"),
      Value::Record({i % 2 == 0 ? Value::Union(0, Value::Null())
                                : Value::Union(1, Value::Int(static_cast<int32_t>(19000 + i)))}),
      Value::Union(1, Value::Array(std::move(bounds))),
      Value::Map({{"a", Value::Union(1, Value::String("x"))}, {"b", Value::Union(0, Value::Null())}}),
      Value::Union(1, Value::Array({Value::Long(4), Value::Long(1 << 20)})),
      Value::Array({Value::Array({Value::Double(1.5)}), Value::Array({})}),
      Value::Enum(static_cast<int32_t>(i % 2)),
      Value::Union(1, Value::Fixed(std::string(16, static_cast<char>('a' + i % 26)))),
      Value::Fixed(std::string(16, '\0')),
      Value::Bool(i % 3 == 0),
      Value::Float(0.5f),
  });
  return Value::Record({Value::Int(1), Value::Union(1, Value::Long(i * 1000003)),
                        std::move(data_file)});
}

TEST(ValueTest, NestedRecordsArraysMapsUnionsRoundTrip) {
  auto schema = MustParse(kNestedSchema);
  for (int64_t i = 0; i < 5; ++i) RoundTrip(schema, NestedValue(i));
}

TEST(ValueTest, ConvenientAccess) {
  const Value v = NestedValue(3);
  EXPECT_EQ(v.kind(), Value::Kind::kRecord);
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(v.field(0).AsInt32(), 1);
  EXPECT_FALSE(v.field(1).IsNull());
  EXPECT_EQ(v.field(1).AsInt64(), 3000009);
  EXPECT_EQ(v.field(1).branch(), 1);
  const Value& df = v.field(2);
  EXPECT_EQ(df.field(0).AsString(), "s3://bucket/data/file-3.parquet");
  EXPECT_EQ(df.field(1).field(0).AsInt32(), 19003);
  EXPECT_TRUE(NestedValue(2).field(2).field(1).field(0).IsNull());
  // Optional array of key/value records, seen through the union.
  const Value& bounds = df.field(2);
  ASSERT_EQ(bounds.size(), 3u);
  EXPECT_EQ(bounds.item(2).field(0).AsInt32(), 3);
  EXPECT_EQ(bounds.item(2).field(1).AsBytes(), "xxx");
  const Value& props = df.field(3);
  ASSERT_EQ(props.size(), 2u);
  EXPECT_EQ(props.key(0), "a");
  EXPECT_EQ(props.value(0).AsString(), "x");
  EXPECT_TRUE(props.value(1).IsNull());
  EXPECT_EQ(df.field(6).AsEnum(), 1);
  EXPECT_EQ(df.field(10).AsFloat(), 0.5f);
  EXPECT_EQ(df.field(10).AsDouble(), 0.5);

  // Checked accessors report the kinds.
  ASSERT_OK_AND_ASSIGN(int64_t id, v.field(1).GetInt64());
  EXPECT_EQ(id, 3000009);
  ASSERT_RAISES_WITH_MESSAGE("expected an Avro string value, got record", v.GetString());
  ASSERT_RAISES_WITH_MESSAGE("no field 7", v.GetField(7));
  ASSERT_RAISES_WITH_MESSAGE("got null", Value::Null().GetInt64());
  // Unchecked accessors on the wrong kind are harmless.
  EXPECT_EQ(Value::String("x").AsInt64(), 0);
  EXPECT_EQ(Value::Long(1).AsString(), "");
  EXPECT_NE(v.ToString().find("s3://bucket/data/file-3.parquet"), std::string::npos);
}

TEST(ValueTest, PlainValuesPickTheirUnionBranch) {
  auto schema = MustParse(R"(["null","long","string",{"type":"record","name":"r","fields":[]}])");
  RoundTrip(schema, Value::Long(5), Value::Union(1, Value::Long(5)));
  RoundTrip(schema, Value::Int(5), Value::Union(1, Value::Long(5)));
  RoundTrip(schema, Value::Null(), Value::Union(0, Value::Null()));
  RoundTrip(schema, Value::String("s"), Value::Union(2, Value::String("s")));
  RoundTrip(schema, Value::Record({}), Value::Union(3, Value::Record({})));
  auto writer = DatumWriter::Make(schema).ValueOrDie();
  Encoder e;
  ASSERT_RAISES_WITH_MESSAGE("no branch for a double value", writer->Write(Value::Double(1), &e));
  ASSERT_RAISES_WITH_MESSAGE("names branch 4 of a union of 4",
                             writer->Write(Value::Union(4, Value::Null()), &e));
  EXPECT_EQ(e.size(), 0u);
}

TEST(ValueTest, WriterRejectsValuesThatDoNotMatch) {
  auto schema = MustParse(kNestedSchema);
  auto writer = DatumWriter::Make(schema).ValueOrDie();
  Encoder e;
  e.WriteRaw("keep");
  Value bad = NestedValue(1);
  bad.mutable_field(2).mutable_field(0) = Value::Long(3);
  ASSERT_RAISES_WITH_MESSAGE("cannot write an Avro long value as string (in field 'file_path' of r2)",
                             writer->Write(bad, &e));
  EXPECT_EQ(e.buffer(), "keep");  // nothing partial left behind

  Value short_fixed = NestedValue(1);
  short_fixed.mutable_field(2).mutable_field(8) = Value::Fixed("abc");
  ASSERT_RAISES_WITH_MESSAGE("md5 needs 16 bytes, got 3", writer->Write(short_fixed, &e));
  Value bad_enum = NestedValue(1);
  bad_enum.mutable_field(2).mutable_field(6) = Value::Enum(2);
  ASSERT_RAISES_WITH_MESSAGE("Kind has no symbol 2", writer->Write(bad_enum, &e));
  ASSERT_RAISES_WITH_MESSAGE("entry has 3 fields, the value has 1",
                             writer->Write(Value::Record({Value::Int(1)}), &e));
}

TEST(ValueTest, ReaderReusesValuesAcrossReads) {
  auto schema = MustParse(kNestedSchema);
  auto writer = DatumWriter::Make(schema).ValueOrDie();
  auto reader = DatumReader::Make(schema).ValueOrDie();
  Encoder e;
  for (int64_t i = 0; i < 50; ++i) ASSERT_OK(writer->Write(NestedValue(i), &e));
  Decoder d(e.buffer());
  Value v;
  for (int64_t i = 0; i < 50; ++i) {
    ASSERT_OK(reader->Read(&d, &v));
    ASSERT_EQ(v, NestedValue(i));
  }
  EXPECT_TRUE(d.AtEnd());
}

TEST(ValueTest, ReadsMultiBlockAndSizedArraysAndMaps) {
  auto arrays = MustParse(R"({"type":"array","items":"int"})");
  auto reader = DatumReader::Make(arrays).ValueOrDie();
  Encoder e;
  e.WriteBlockCount(2);
  e.WriteInt(1);
  e.WriteInt(2);
  e.WriteBlockCount(-1);  // negative count: one item, preceded by its size in bytes
  e.WriteLong(1);
  e.WriteInt(3);
  e.WriteBlockCount(0);
  Decoder d(e.buffer());
  Value v;
  ASSERT_OK(reader->Read(&d, &v));
  EXPECT_EQ(v, Value::Array({Value::Int(1), Value::Int(2), Value::Int(3)}));

  auto maps = MustParse(R"({"type":"map","values":"string"})");
  auto map_reader = DatumReader::Make(maps).ValueOrDie();
  Encoder m;
  m.WriteBlockCount(-1);
  m.WriteLong(4);
  m.WriteString("k");
  m.WriteString("v");
  m.WriteBlockCount(1);
  m.WriteString("k2");
  m.WriteString("");
  m.WriteBlockCount(0);
  Decoder md(m.buffer());
  ASSERT_OK(map_reader->Read(&md, &v));
  EXPECT_EQ(v, Value::Map({{"k", Value::String("v")}, {"k2", Value::String("")}}));
}

TEST(ValueTest, ReaderRejectsBadData) {
  auto read = [](const std::string& schema_json, const std::string& bytes) {
    auto reader = DatumReader::Make(MustParse(schema_json)).ValueOrDie();
    Decoder d(bytes);
    Value v;
    return reader->Read(&d, &v);
  };
  ASSERT_RAISES_WITH_MESSAGE("union branch 2 out of range", read(R"(["null","int"])", "\x04"));
  ASSERT_RAISES_WITH_MESSAGE("index out of range: -1", read(R"(["null","int"])", "\x01"));
  ASSERT_RAISES_WITH_MESSAGE("enum index 3 out of range",
                             read(R"({"type":"enum","name":"e","symbols":["A"]})", "\x06"));
  // A billion longs claimed in three bytes: rejected before allocating.
  Encoder huge;
  huge.WriteBlockCount(1000000000);
  huge.WriteLong(1);
  ASSERT_RAISES_WITH_MESSAGE("block count 1000000000 exceeds",
                             read(R"({"type":"array","items":"long"})", huge.buffer()));
  // Items that take no bytes are capped instead.
  Encoder nulls;
  nulls.WriteBlockCount(int64_t{1} << 40);
  ASSERT_RAISES_WITH_MESSAGE("zero-size items",
                             read(R"({"type":"array","items":"null"})", nulls.buffer()));
  ASSERT_RAISES_WITH_MESSAGE(
      "truncated", read(R"({"type":"record","name":"r","fields":[{"name":"a","type":"long"},)"
                        R"({"name":"b","type":"string"}]})",
                        "\x02"));
  ASSERT_RAISES_WITH_MESSAGE("(in field 'b' of r)",
                             read(R"({"type":"record","name":"r","fields":[{"name":"a","type":"long"},)"
                                  R"({"name":"b","type":"string"}]})",
                                  "\x02\x10"));
}

TEST(ValueTest, RecursiveSchemasAreBoundedByDepth) {
  auto schema = MustParse(
      R"({"type":"record","name":"node","fields":[{"name":"v","type":"int"},)"
      R"({"name":"next","type":["null","node"]}]})");
  // A list of three nodes round trips.
  Value list = Value::Record({Value::Int(1), Value::Union(1, Value::Record({Value::Int(2),
                             Value::Union(1, Value::Record({Value::Int(3), Value::Union(0, Value::Null())}))}))});
  RoundTrip(schema, list);
  // A hostile chain a million deep is an error, not a stack overflow.
  std::string deep;
  for (int i = 0; i < 1000000; ++i) deep += "\x02\x02";
  auto reader = DatumReader::Make(schema).ValueOrDie();
  Decoder d(deep);
  Value v;
  ASSERT_RAISES_WITH_MESSAGE("nested deeper than", reader->Read(&d, &v));
}

}  // namespace
}  // namespace floe::avro
