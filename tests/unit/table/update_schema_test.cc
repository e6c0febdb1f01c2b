#include "floe/table/update_schema.h"

#include "floe/scan/table_scan.h"
#include "floe/table/replace_table.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/update_properties.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;
using spec::Type;

class UpdateSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
    ASSERT_OK_AND_ASSIGN(table_, wh_.tables->CreateTable(ident_, *schema));
  }

  std::vector<std::string> Names() {
    std::vector<std::string> out;
    for (const auto& f : table_->metadata()->current_schema()->fields()) {
      out.push_back(std::to_string(f.id) + ":" + f.name);
    }
    return out;
  }

  floe::testing::Warehouse wh_;
  TableIdentifier ident_{Namespace({"db"}), "evolve"};
  std::shared_ptr<Table> table_;
};

TEST_F(UpdateSchemaTest, ChangesApplyInOrderAsOneSchema) {
  ASSERT_OK(AppendData(*table_, *People(0, 3)).status());
  UpdateSchema update(*table_);
  // A struct column's nested fields get ids after its own.
  auto point = Type::Struct({spec::Optional(0, "x", Type::Double()), spec::Optional(0, "y", Type::Double())});
  update.AddColumn("point", point, std::string("where"), ColumnPosition{true, ""})
      .AddColumn("score", Type::Int(), std::nullopt, ColumnPosition{false, "ID"})
      .RenameColumn("name", "full_name")
      .UpdateColumnType("score", Type::Long())
      .MoveColumn("full_name", ColumnPosition{false, "point"});
  ASSERT_OK(update.Commit());
  auto md = table_->metadata();
  EXPECT_EQ(Names(), (std::vector<std::string>{"3:point", "2:full_name", "1:id", "6:score"}));
  EXPECT_EQ(md->current_schema_id, 1);
  EXPECT_EQ(md->last_column_id, 6);
  const auto& fields = md->current_schema()->fields();
  EXPECT_EQ(fields[0].doc, "where");
  EXPECT_EQ(fields[0].type->fields()[0].id, 4);
  EXPECT_EQ(fields[0].type->fields()[1].id, 5);
  EXPECT_EQ(fields[3].type->ToString(), "long");
  // Rows written before read through the new schema by field id.
  ASSERT_OK_AND_ASSIGN(auto rows, scan::TableScan(table_).ToArrowTable());
  EXPECT_EQ(rows->num_rows(), 3);
  EXPECT_EQ(rows->schema()->field(1)->name(), "full_name");
}

TEST_F(UpdateSchemaTest, ErrorsSayWhichChangeFailed) {
  SchemaChangeError error;
  UpdateSchema missing(*table_);
  missing.RenameColumn("name", "label").DeleteColumn("nope");
  Status st = missing.Commit(&error);
  EXPECT_EQ(st.message(),
            "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `nope` cannot be resolved.");
  EXPECT_EQ(error.change, 1u);
  EXPECT_EQ(error.part, SchemaChangeError::Part::kColumn);

  UpdateSchema clash(*table_);
  clash.RenameColumn("name", "ID");
  EXPECT_EQ(clash.Commit(&error).message(),
            "[FIELDS_ALREADY_EXISTS] Cannot rename column, because `ID` already exists in lakehouse.db.evolve.");
  EXPECT_EQ(error.part, SchemaChangeError::Part::kNewName);

  UpdateSchema after(*table_);
  after.AddColumn("c", Type::Int(), std::nullopt, ColumnPosition{false, "zzz"});
  EXPECT_EQ(after.Commit(&error).message(),
            "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `zzz` cannot be resolved.");
  EXPECT_EQ(error.part, SchemaChangeError::Part::kAfter);

  UpdateSchema narrow(*table_);
  narrow.UpdateColumnType("id", Type::Int());
  EXPECT_EQ(narrow.Commit().message(), "Cannot change column type: id: long -> int");

  UpdateSchema required(*table_);
  required.RequireColumn("name");
  EXPECT_EQ(required.Commit().message(), "Cannot change column nullability: name: optional -> required");

  UpdateSchema all(*table_);
  all.DeleteColumn("id").DeleteColumn("name");
  EXPECT_EQ(all.Commit(&error).message(), "Cannot drop all columns of a table");
  EXPECT_EQ(error.part, SchemaChangeError::Part::kTable);

  // None of the failures committed anything.
  EXPECT_EQ(table_->metadata()->schemas.size(), 1u);
  EXPECT_TRUE(table_->metadata()->metadata_log.empty());
}

TEST_F(UpdateSchemaTest, RenamingBackReusesTheEarlierSchema) {
  UpdateSchema rename(*table_);
  rename.RenameColumn("name", "label");
  ASSERT_OK(rename.Commit());
  UpdateSchema back(*table_);
  back.RenameColumn("label", "name");
  ASSERT_OK(back.Commit());
  EXPECT_EQ(table_->metadata()->schemas.size(), 2u);
  EXPECT_EQ(table_->metadata()->current_schema_id, 0);
}

TEST_F(UpdateSchemaTest, PropertiesSetAndUnset) {
  ASSERT_OK(UpdateProperties(*table_, {{{"owner", "ana"}, {"team", "data"}}, {}, false}));
  bool missing = false;
  Status st = UpdateProperties(*table_, {{}, {"owner", "nope"}, false}, &missing);
  EXPECT_TRUE(missing);
  EXPECT_EQ(st.message(),
            "[UNSET_NONEXISTENT_PROPERTIES] Attempted to unset non-existent properties [`nope`] in table "
            "lakehouse.db.evolve.");
  EXPECT_EQ(table_->metadata()->properties.at("owner"), "ana");
  ASSERT_OK(UpdateProperties(*table_, {{}, {"owner", "nope"}, true}, &missing));
  EXPECT_FALSE(missing);
  EXPECT_EQ(table_->metadata()->properties.count("owner"), 0u);
  EXPECT_EQ(table_->metadata()->properties.at("team"), "data");
  EXPECT_EQ(UpdateProperties(*table_, {{{"a", "1"}}, {"a"}, false}).message(),
            "Cannot remove and update the same key: a");
}

TEST_F(UpdateSchemaTest, ReplaceKeepsPrimitiveIdsAndNumbersNewColumnsAfterTheLast) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 3)));
  auto point = Type::Struct({spec::Optional(0, "x", Type::Double()), spec::Optional(0, "y", Type::Double())});
  spec::Schema replacement(0, {spec::Required(1, "ID", Type::Long()), spec::Optional(2, "point", point)});
  CreateTableOptions options;
  options.partition_by.push_back({"id", spec::Transform::Bucket(4), ""});
  options.properties["owner"] = "ana";
  ASSERT_OK(ReplaceTable(*table_, replacement, options));
  auto md = table_->metadata();
  EXPECT_EQ(md->current_schema_id, 1);
  EXPECT_EQ(Names(), (std::vector<std::string>{"1:ID", "3:point"}));
  const auto& nested = md->current_schema()->fields()[1].type->fields();
  EXPECT_EQ(nested[0].id, 4);
  EXPECT_EQ(nested[1].id, 5);
  EXPECT_EQ(md->last_column_id, 5);
  EXPECT_EQ(md->default_spec_id, 1);
  ASSERT_EQ(md->default_spec()->fields().size(), 1u);
  EXPECT_EQ(md->default_spec()->fields()[0].field_id, 1000);
  EXPECT_EQ(md->default_spec()->fields()[0].source_id, 1);
  EXPECT_EQ(md->last_partition_id, 1000);
  EXPECT_EQ(md->properties.at("owner"), "ana");
  // History stays; main is cleared until the next write.
  EXPECT_FALSE(md->current_snapshot_id.has_value());
  EXPECT_EQ(md->refs.count("main"), 0u);
  EXPECT_NE(md->SnapshotById(s1), nullptr);
  EXPECT_EQ(md->snapshot_log.size(), 1u);
}

}  // namespace
}  // namespace floe::table
