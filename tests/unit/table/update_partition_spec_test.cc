#include "floe/table/update_partition_spec.h"

#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;

class UpdatePartitionSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
    CreateTableOptions options;
    options.partition_by = {{"name", spec::Transform::Identity(), ""}};
    ASSERT_OK_AND_ASSIGN(table_, wh_.tables->CreateTable(ident_, *schema, options));
  }

  // "id:name:transform" of each field of the default spec.
  std::vector<std::string> Fields() {
    std::vector<std::string> out;
    for (const auto& f : table_->metadata()->default_spec()->fields()) {
      out.push_back(std::to_string(f.field_id) + ":" + f.name + ":" + f.transform.ToString());
    }
    return out;
  }

  floe::testing::Warehouse wh_;
  TableIdentifier ident_{Namespace({"db"}), "specs"};
  std::shared_ptr<Table> table_;
};

TEST_F(UpdatePartitionSpecTest, NewSpecsContinueFieldIdsAndRecycleEarlierFields) {
  UpdatePartitionSpec add(*table_);
  add.AddField(std::nullopt, {"id", spec::Transform::Bucket(8)});
  ASSERT_OK(add.Commit());
  EXPECT_EQ(Fields(), (std::vector<std::string>{"1000:name:identity", "1001:id_bucket_8:bucket[8]"}));
  EXPECT_EQ(table_->metadata()->default_spec_id, 1);
  EXPECT_EQ(table_->metadata()->last_partition_id, 1001);

  UpdatePartitionSpec drop(*table_);
  drop.RemoveField("name");
  ASSERT_OK(drop.Commit());
  EXPECT_EQ(Fields(), (std::vector<std::string>{"1001:id_bucket_8:bucket[8]"}));

  // The dropped field comes back with its id; the spec with those fields is spec 1 again.
  UpdatePartitionSpec again(*table_);
  again.AddField(std::nullopt, {"name", spec::Transform::Identity()});
  ASSERT_OK(again.Commit());
  EXPECT_EQ(Fields(), (std::vector<std::string>{"1001:id_bucket_8:bucket[8]", "1000:name:identity"}));
  EXPECT_EQ(table_->metadata()->default_spec_id, 3);
  EXPECT_EQ(table_->metadata()->last_partition_id, 1001);

  UpdatePartitionSpec replace(*table_);
  replace.RemoveField(PartitionTerm{"id", spec::Transform::Bucket(8)}).AddField("shard", {"id", spec::Transform::Bucket(4)});
  ASSERT_OK(replace.Commit());
  EXPECT_EQ(Fields(), (std::vector<std::string>{"1000:name:identity", "1002:shard:bucket[4]"}));
}

TEST_F(UpdatePartitionSpecTest, V1KeepsARemovedFieldAsVoid) {
  auto v1 = std::make_shared<spec::TableMetadata>(*table_->metadata());
  v1->format_version = 1;
  UpdatePartitionSpec update(*table_);
  update.RemoveField("name").AddField(std::nullopt, {"id", spec::Transform::Bucket(2)});
  ASSERT_OK_AND_ASSIGN(auto spec, update.Apply(*v1));
  ASSERT_EQ(spec.fields().size(), 2u);
  EXPECT_EQ(spec.fields()[0].transform.kind(), spec::TransformKind::kVoid);
  EXPECT_EQ(spec.fields()[0].field_id, 1000);
  EXPECT_EQ(spec.fields()[1].name, "id_bucket_2");
  EXPECT_EQ(spec.fields()[1].field_id, 1001);
}

TEST_F(UpdatePartitionSpecTest, ErrorsNameTheChangeThatFailed) {
  UpdatePartitionSpec update(*table_);
  update.AddField(std::nullopt, {"id", spec::Transform::Bucket(2)}).RemoveField("nope");
  size_t failed = 0;
  EXPECT_EQ(update.Commit(&failed).message(), "Cannot find partition field to remove: nope");
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(table_->metadata()->partition_specs.size(), 1u);

  UpdatePartitionSpec twice(*table_);
  twice.AddField(std::nullopt, {"id", spec::Transform::Day()});
  EXPECT_EQ(twice.Commit().message(), "Cannot bind: day cannot transform long values from 'id'");
}

}  // namespace
}  // namespace floe::table
