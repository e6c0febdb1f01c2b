#include <gtest/gtest.h>

#include "floe/spec/schema.h"
#include "floe/spec/table_metadata.h"
#include "floe/spec/type.h"
#include "floe_test.h"

namespace floe::spec {
namespace {

TEST(TypeTest, PrimitiveNamesRoundTrip) {
  for (const char* name :
       {"boolean", "int", "long", "float", "double", "decimal(9,2)", "date", "time", "timestamp",
        "timestamptz", "string", "uuid", "fixed[16]", "binary"}) {
    ASSERT_OK_AND_ASSIGN(TypePtr t, Type::ParsePrimitive(name));
    EXPECT_EQ(t->ToString(), name);
    EXPECT_TRUE(t->is_primitive());
  }
}

TEST(TypeTest, ParsesLooseSpellings) {
  ASSERT_OK_AND_ASSIGN(TypePtr d, Type::ParsePrimitive("decimal(38, 10)"));
  EXPECT_EQ(d->id(), TypeId::kDecimal);
  EXPECT_EQ(d->precision(), 38);
  EXPECT_EQ(d->scale(), 10);
  ASSERT_OK_AND_ASSIGN(TypePtr f, Type::ParsePrimitive("FIXED[ 3 ]"));
  EXPECT_EQ(f->length(), 3);
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse type string to primitive: varchar",
                             Type::ParsePrimitive("varchar"));
  ASSERT_RAISES_WITH_MESSAGE("precision larger than 38", Type::ParsePrimitive("decimal(39,0)"));
}

TEST(TypeTest, EqualityIsStructural) {
  EXPECT_EQ(*Type::Decimal(9, 2), *Type::Decimal(9, 2));
  EXPECT_FALSE(*Type::Decimal(9, 2) == *Type::Decimal(9, 3));
  EXPECT_FALSE(*Type::Fixed(3) == *Type::Fixed(4));
  auto a = Type::List(3, Type::String(), true);
  auto b = Type::List(3, Type::String(), true);
  auto c = Type::List(3, Type::String(), false);
  EXPECT_EQ(*a, *b);
  EXPECT_FALSE(*a == *c);
  EXPECT_EQ(a->ToString(), "list<string>");
  auto m = Type::Map(4, Type::String(), 5, Type::Double(), false);
  EXPECT_TRUE(m->key().required);
  EXPECT_FALSE(m->value().required);
  EXPECT_EQ(m->ToString(), "map<string, double>");
}

Schema NestedSchema() {
  auto point = Type::Struct({Required(6, "x", Type::Double()), Optional(7, "Y", Type::Double())});
  return Schema(3,
                {Required(1, "id", Type::Long()),
                 Optional(2, "loc",
                          Type::Struct({Required(3, "lat", Type::Double()),
                                        Optional(4, "lon", Type::Double())})),
                 Optional(5, "points", Type::List(8, point, true)),
                 Optional(9, "tags", Type::List(10, Type::String(), false)),
                 Optional(11, "props", Type::Map(12, Type::String(), 13, Type::Int(), true)),
                 Optional(14, "Attrs",
                          Type::Map(15, Type::String(), 16,
                                    Type::Struct({Optional(17, "v", Type::Long())}), false))},
                {1});
}

TEST(SchemaTest, IndexesEveryDepthById) {
  Schema s = NestedSchema();
  EXPECT_EQ(s.schema_id(), 3);
  EXPECT_EQ(s.HighestFieldId(), 17);
  for (int id = 1; id <= 17; ++id) EXPECT_NE(s.FindFieldById(id), nullptr) << id;
  EXPECT_EQ(s.FindFieldById(18), nullptr);
  EXPECT_EQ(s.FindFieldById(4)->name, "lon");
  EXPECT_EQ(s.identifier_field_ids(), std::vector<int32_t>{1});
}

TEST(SchemaTest, FullNamesAsIcebergBuildsThem) {
  Schema s = NestedSchema();
  EXPECT_EQ(s.FindColumnName(3), "loc.lat");
  EXPECT_EQ(s.FindColumnName(8), "points.element");
  EXPECT_EQ(s.FindColumnName(6), "points.element.x");
  EXPECT_EQ(s.FindColumnName(10), "tags.element");
  EXPECT_EQ(s.FindColumnName(12), "props.key");
  EXPECT_EQ(s.FindColumnName(13), "props.value");
  EXPECT_EQ(s.FindColumnName(17), "Attrs.value.v");
  EXPECT_EQ(s.FindColumnName(99), "");
  EXPECT_EQ(s.FindFieldByName("loc.lon")->id, 4);
  EXPECT_EQ(s.FindFieldByName("points.element.x")->id, 6);
  EXPECT_EQ(s.FindFieldByName("props.value")->id, 13);
  // Java's short names for structs inside lists and map values.
  EXPECT_EQ(s.FindFieldByName("points.x")->id, 6);
  EXPECT_EQ(s.FindFieldByName("Attrs.v")->id, 17);
  EXPECT_EQ(s.FindFieldByName("loc.LAT"), nullptr);
  EXPECT_EQ(s.FindFieldByName("nope"), nullptr);
}

TEST(SchemaTest, CaseInsensitiveLookup) {
  Schema s = NestedSchema();
  EXPECT_EQ(s.FindFieldByNameCaseInsensitive("LOC.LAT")->id, 3);
  EXPECT_EQ(s.FindFieldByNameCaseInsensitive("attrs.VALUE.v")->id, 17);
  EXPECT_EQ(s.FindFieldByNameCaseInsensitive("points.element.y")->id, 7);
  EXPECT_EQ(s.FindFieldByNameCaseInsensitive("missing"), nullptr);
}

TEST(SchemaTest, CopiesKeepWorkingIndexes) {
  auto original = std::make_unique<Schema>(NestedSchema());
  Schema copy = *original;
  original.reset();
  EXPECT_EQ(copy.FindFieldByName("loc.lat")->id, 3);
  EXPECT_EQ(copy.FindFieldById(17)->name, "v");
}

TEST(SchemaTest, SameStructureIgnoresSchemaId) {
  Schema a = NestedSchema();
  Schema b(9, a.fields(), a.identifier_field_ids());
  EXPECT_TRUE(a.SameStructure(b));
  EXPECT_FALSE(a.Equals(b));
  Schema c(3, a.fields());
  EXPECT_FALSE(a.SameStructure(c));
  EXPECT_TRUE(a.Equals(Schema(3, a.fields(), {1})));
}

// Format v3's types floe cannot read keep their names, so the metadata they are in survives a
// rewrite and only reading such a column fails.
TEST(TypeTest, KeepsV3TypesItCannotReadByName) {
  for (const char* name : {"variant", "unknown", "timestamp_ns", "timestamptz_ns", "geometry",
                           "geometry(srid:4326)", "geography(srid:4326, karney)"}) {
    ASSERT_OK_AND_ASSIGN(TypePtr t, Type::ParsePrimitive(name));
    EXPECT_EQ(t->id(), TypeId::kUnsupported) << name;
    EXPECT_EQ(t->ToString(), name);
  }
  ASSERT_OK_AND_ASSIGN(TypePtr a, Type::ParsePrimitive("variant"));
  ASSERT_OK_AND_ASSIGN(TypePtr b, Type::ParsePrimitive("timestamp_ns"));
  EXPECT_FALSE(a->Equals(*b));
  ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromJson(R"({"type":"struct","schema-id":0,"fields":[
      {"id":1,"name":"id","required":true,"type":"long"},
      {"id":2,"name":"payload","required":false,"type":"variant"}]})"));
  EXPECT_NE(SchemaToJson(*schema).find(R"("type":"variant")"), std::string::npos) << SchemaToJson(*schema);
}

}  // namespace
}  // namespace floe::spec
