#include "floe/spec/metadata_diff.h"

#include "floe/table/expire_snapshots.h"
#include "floe/table/metadata_update.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/update_partition_spec.h"
#include "floe/table/update_properties.h"
#include "floe/table/update_schema.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;
using Kind = UpdateRequirement::Kind;
using spec::DiffTableMetadata;
using spec::TableChanges;

std::vector<int64_t> SnapshotIds(const spec::TableMetadata& md) {
  std::vector<int64_t> ids;
  for (const auto& s : md.snapshots) ids.push_back(s.snapshot_id);
  return ids;
}

std::vector<int64_t> LogIds(const spec::TableMetadata& md) {
  std::vector<int64_t> ids;
  for (const auto& e : md.snapshot_log) ids.push_back(e.snapshot_id);
  return ids;
}

std::string Describe(const UpdateRequirement& r) {
  switch (r.kind) {
    case Kind::kAssertCreate:
      return "assert-create";
    case Kind::kAssertTableUuid:
      return "assert-table-uuid " + r.uuid;
    case Kind::kAssertRefSnapshotId:
      return "assert-ref-snapshot-id " + r.ref + " " +
             (r.snapshot_id ? std::to_string(*r.snapshot_id) : "null");
    case Kind::kAssertLastAssignedFieldId:
      return "assert-last-assigned-field-id " + std::to_string(r.id);
    case Kind::kAssertCurrentSchemaId:
      return "assert-current-schema-id " + std::to_string(r.id);
    case Kind::kAssertLastAssignedPartitionId:
      return "assert-last-assigned-partition-id " + std::to_string(r.id);
    case Kind::kAssertDefaultSpecId:
      return "assert-default-spec-id " + std::to_string(r.id);
    case Kind::kAssertDefaultSortOrderId:
      return "assert-default-sort-order-id " + std::to_string(r.id);
  }
  return "";
}

// Each change floe makes, stated as updates and applied to the metadata it started from as a
// REST catalog would apply it, gives the metadata floe committed.
class MetadataDiffTest : public floe::testing::PeopleTableTest {
 protected:
  // Runs `change` on the table; returns what DiffTableMetadata made of it after checking that
  // the updates, applied to the base under their requirements, give the committed metadata.
  TableChanges Check(const std::function<Status()>& change) {
    const spec::TableMetadataPtr base = table_->metadata();
    EXPECT_OK(change());
    const spec::TableMetadataPtr updated = table_->metadata();
    auto diff = DiffTableMetadata(*base, *updated);
    EXPECT_TRUE(diff.ok()) << diff.status().ToString();
    if (!diff.ok()) return {};
    auto applied = ApplyTableChanges(base, diff->requirements, diff->updates);
    EXPECT_TRUE(applied.ok()) << applied.status().ToString();
    if (!applied.ok() || *applied == nullptr) {
      ADD_FAILURE() << "the updates changed nothing";
      return *diff;
    }
    const spec::TableMetadata& got = **applied;
    EXPECT_EQ(got.format_version, updated->format_version);
    EXPECT_EQ(got.last_column_id, updated->last_column_id);
    EXPECT_EQ(got.current_schema_id, updated->current_schema_id);
    EXPECT_EQ(got.schemas.size(), updated->schemas.size());
    for (const auto& schema : updated->schemas) {
      const spec::SchemaPtr same = got.SchemaById(schema->schema_id());
      EXPECT_TRUE(same && same->Equals(*schema)) << "schema " << schema->schema_id();
    }
    EXPECT_EQ(got.partition_specs, updated->partition_specs);
    EXPECT_EQ(got.default_spec_id, updated->default_spec_id);
    EXPECT_EQ(got.last_partition_id, updated->last_partition_id);
    EXPECT_EQ(got.sort_orders, updated->sort_orders);
    EXPECT_EQ(got.default_sort_order_id, updated->default_sort_order_id);
    EXPECT_EQ(got.properties, updated->properties);
    EXPECT_EQ(got.location, updated->location);
    EXPECT_EQ(got.snapshots, updated->snapshots);
    EXPECT_EQ(got.refs, updated->refs);
    EXPECT_EQ(got.current_snapshot_id, updated->current_snapshot_id);
    EXPECT_EQ(got.last_sequence_number, updated->last_sequence_number);
    EXPECT_EQ(LogIds(got), LogIds(*updated));
    EXPECT_EQ(got.statistics, updated->statistics);
    return *diff;
  }

  std::vector<std::string> Requirements(const TableChanges& changes) {
    std::vector<std::string> out;
    for (const auto& r : changes.requirements) out.push_back(Describe(r));
    return out;
  }
  std::vector<std::string> Updates(const TableChanges& changes) {
    std::vector<std::string> out;
    for (const auto& u : changes.updates) out.push_back(UpdateName(u));
    return out;
  }
  std::string Uuid() { return "assert-table-uuid " + table_->metadata()->table_uuid; }
  std::string Main(std::optional<int64_t> id) {
    return "assert-ref-snapshot-id main " + (id ? std::to_string(*id) : "null");
  }
};

TEST_F(MetadataDiffTest, AppendsAndOverwritesAddASnapshotAndMoveMain) {
  TableChanges first = Check([&] { return AppendData(*table_, *People(0, 2)).status(); });
  EXPECT_THAT(Updates(first), ::testing::ElementsAre("add-snapshot", "set-snapshot-ref"));
  EXPECT_THAT(Requirements(first), ::testing::ElementsAre(Uuid(), Main(std::nullopt)));
  const int64_t one = *table_->metadata()->current_snapshot_id;
  TableChanges second = Check([&] { return AppendData(*table_, *People(2, 2)).status(); });
  EXPECT_THAT(Requirements(second), ::testing::ElementsAre(Uuid(), Main(one)));
  Check([&] { return OverwriteData(*table_, *People(9, 1), OverwriteFilter::All(), {}).status(); });
}

TEST_F(MetadataDiffTest, SchemaSpecAndPropertyChanges) {
  ASSERT_OK(AppendData(*table_, *People(0, 2)).status());
  TableChanges schema =
      Check([&] { return UpdateSchema(*table_).AddColumn("age", spec::Type::Int()).Commit(); });
  EXPECT_THAT(Updates(schema), ::testing::ElementsAre("add-schema", "set-current-schema"));
  EXPECT_THAT(Requirements(schema),
              ::testing::ElementsAre(Uuid(), "assert-last-assigned-field-id 2",
                                     "assert-current-schema-id 0"));
  EXPECT_EQ(std::get<update::SetCurrentSchema>(schema.updates[1]).schema_id, -1);
  // Back to an earlier schema: named by its id, nothing added.
  TableChanges back = Check([&] { return UpdateSchema(*table_).DeleteColumn("age").Commit(); });
  EXPECT_THAT(Updates(back), ::testing::ElementsAre("set-current-schema"));
  EXPECT_EQ(std::get<update::SetCurrentSchema>(back.updates[0]).schema_id, 0);

  TableChanges spec = Check([&] {
    return UpdatePartitionSpec(*table_)
        .AddField(std::nullopt, PartitionTerm{"id", spec::Transform::Bucket(4)})
        .Commit();
  });
  EXPECT_THAT(Updates(spec), ::testing::ElementsAre("add-spec", "set-default-spec"));
  EXPECT_THAT(Requirements(spec),
              ::testing::ElementsAre(Uuid(), "assert-last-assigned-partition-id 999",
                                     "assert-default-spec-id 0"));
  PropertyUpdates properties;
  properties.set = {{"owner", "ana"}, {"write.parquet.compression-codec", "snappy"}};
  TableChanges set = Check([&] { return UpdateProperties(*table_, properties); });
  EXPECT_THAT(Updates(set), ::testing::ElementsAre("set-properties"));
  EXPECT_THAT(Requirements(set), ::testing::ElementsAre(Uuid()));
  PropertyUpdates unset;
  unset.remove = {"owner"};
  EXPECT_THAT(Updates(Check([&] { return UpdateProperties(*table_, unset); })),
              ::testing::ElementsAre("remove-properties"));
}

TEST_F(MetadataDiffTest, RefsRollbackAndExpiry) {
  ASSERT_OK_AND_ASSIGN(int64_t one, AppendData(*table_, *People(0, 2)));
  ASSERT_OK_AND_ASSIGN(int64_t two, AppendData(*table_, *People(2, 2)));
  RefOptions at_one;
  at_one.snapshot_id = one;
  TableChanges tag = Check([&] { return CreateOrReplaceTag(*table_, "v1", at_one); });
  EXPECT_THAT(Updates(tag), ::testing::ElementsAre("set-snapshot-ref"));
  EXPECT_THAT(Requirements(tag), ::testing::ElementsAre(Uuid(), "assert-ref-snapshot-id v1 null"));
  Check([&] { return CreateOrReplaceBranch(*table_, "dev", {}); });
  TableChanges rollback = Check([&] { return RollbackToSnapshot(*table_, one).status(); });
  EXPECT_THAT(Updates(rollback), ::testing::ElementsAre("set-snapshot-ref"));
  EXPECT_THAT(Requirements(rollback), ::testing::ElementsAre(Uuid(), Main(two)));
  TableChanges dropped = Check([&] { return DropTag(*table_, "v1"); });
  EXPECT_THAT(Updates(dropped), ::testing::ElementsAre("remove-snapshot-ref"));
  EXPECT_THAT(Requirements(dropped),
              ::testing::ElementsAre(Uuid(), "assert-ref-snapshot-id v1 " + std::to_string(one)));
  Check([&] { return DropBranch(*table_, "dev"); });
  ExpireSnapshotsOptions expire;
  expire.snapshot_ids = {two};
  TableChanges expired = Check([&] { return ExpireSnapshots(*table_, expire).status(); });
  EXPECT_THAT(Updates(expired), ::testing::ElementsAre("remove-snapshots"));
  EXPECT_EQ(SnapshotIds(*table_->metadata()), std::vector<int64_t>{one});
}

TEST_F(MetadataDiffTest, ChangesNoUpdateCanStateAreRefused) {
  ASSERT_OK(AppendData(*table_, *People(0, 2)).status());
  const spec::TableMetadata& base = *table_->metadata();
  spec::TableMetadata other = base;
  other.table_uuid = "another";
  EXPECT_EQ(DiffTableMetadata(base, other).status().message(),
            "Cannot state the change of table " + base.table_uuid +
                " as updates: the new metadata is of table another");
  spec::TableMetadata edited = base;
  edited.snapshots[0].summary["added-records"] = "99";
  EXPECT_EQ(DiffTableMetadata(base, edited).status().message(),
            "Cannot state the change of snapshot " + std::to_string(base.snapshots[0].snapshot_id) +
                " as updates: a snapshot never changes");
  spec::TableMetadata older = base;
  older.format_version = 1;
  EXPECT_EQ(DiffTableMetadata(base, older).status().message(), "Cannot downgrade v2 table to v1");
  // No change, no updates: only the table's uuid is asserted.
  ASSERT_OK_AND_ASSIGN(auto none, DiffTableMetadata(base, base));
  EXPECT_TRUE(none.updates.empty());
  EXPECT_THAT(Requirements(none), ::testing::ElementsAre(Uuid()));
}

}  // namespace
}  // namespace floe::table
