#include "floe/table/metadata_update.h"

#include "floe/table/metadata_files.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/transaction_commit.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;
using Kind = UpdateRequirement::Kind;

class MetadataUpdateTest : public floe::testing::PeopleTableTest {
 protected:
  void SetUp() override {
    PeopleTableTest::SetUp();
    ASSERT_OK_AND_ASSIGN(first_, AppendData(*table_, *People(0, 2)));
    ASSERT_OK_AND_ASSIGN(second_, AppendData(*table_, *People(2, 2)));
  }

  Status Check(UpdateRequirement r) { return CheckRequirement(r, table_->metadata().get()); }
  Status Apply(std::vector<MetadataUpdate> updates) {
    return ApplyTableChanges(table_->metadata(), {}, std::move(updates)).status();
  }

  int64_t first_ = 0;
  int64_t second_ = 0;
};

UpdateRequirement Ref(std::string name, std::optional<int64_t> id) {
  UpdateRequirement r;
  r.kind = Kind::kAssertRefSnapshotId;
  r.ref = std::move(name);
  r.snapshot_id = id;
  return r;
}

UpdateRequirement Id(Kind kind, int64_t id) {
  UpdateRequirement r;
  r.kind = kind;
  r.id = id;
  return r;
}

TEST_F(MetadataUpdateTest, RequirementsFailInIcebergsWords) {
  EXPECT_OK(Check(Ref("main", second_)));
  Status moved = Check(Ref("main", first_));
  EXPECT_TRUE(IsCommitConflict(moved));
  EXPECT_EQ(moved.message(), "Requirement failed: branch main has changed: expected id " +
                                 std::to_string(first_) + " != " + std::to_string(second_));
  EXPECT_EQ(Check(Ref("main", std::nullopt)).message(),
            "Requirement failed: branch main was created concurrently");
  EXPECT_EQ(Check(Ref("audit", 7)).message(),
            "Requirement failed: branch or tag audit is missing, expected 7");
  EXPECT_OK(Check(Ref("audit", std::nullopt)));

  UpdateRequirement uuid;
  uuid.kind = Kind::kAssertTableUuid;
  uuid.uuid = "not-the-uuid";
  EXPECT_EQ(Check(uuid).message(),
            "Requirement failed: UUID does not match: expected "
            "not-the-uuid != " +
                table_->metadata()->table_uuid);
  EXPECT_EQ(Check(Id(Kind::kAssertCurrentSchemaId, 3)).message(),
            "Requirement failed: current schema changed: expected id 3 != 0");
  EXPECT_EQ(Check(Id(Kind::kAssertLastAssignedFieldId, 1)).message(),
            "Requirement failed: last assigned field id changed: expected id 1 != 2");
  EXPECT_EQ(Check(Id(Kind::kAssertLastAssignedPartitionId, 1000)).message(),
            "Requirement failed: last assigned partition id changed: expected id 1000 != 999");
  EXPECT_EQ(Check(Id(Kind::kAssertDefaultSpecId, 1)).message(),
            "Requirement failed: default partition spec changed: expected id 1 != 0");
  EXPECT_EQ(Check(Id(Kind::kAssertDefaultSortOrderId, 1)).message(),
            "Requirement failed: default sort order changed: expected id 1 != 0");
  EXPECT_EQ(Check(Id(Kind::kAssertCreate, 0)).message(),
            "Requirement failed: table already exists");
  EXPECT_EQ(CheckRequirement(Ref("main", 1), nullptr).message(),
            "Requirement failed: current table metadata is missing");
  EXPECT_OK(CheckRequirement(Id(Kind::kAssertCreate, 0), nullptr));
}

TEST_F(MetadataUpdateTest, InvalidUpdatesAreRefusedNamingThem) {
  const auto& md = *table_->metadata();
  spec::Snapshot stale = *md.SnapshotById(second_);
  stale.snapshot_id = 99;
  stale.parent_snapshot_id = second_;
  EXPECT_EQ(Apply({update::AddSnapshot{stale}}).message(),
            "Invalid update add-snapshot: Cannot add snapshot with sequence number 2 older than "
            "last sequence number 2");
  spec::SnapshotRef ref;
  ref.snapshot_id = 42;
  EXPECT_EQ(Apply({update::SetSnapshotRef{"main", ref}}).message(),
            "Invalid update set-snapshot-ref: Cannot set main to unknown snapshot: 42");
  EXPECT_EQ(Apply({update::RemoveSnapshots{{second_}}}).message(),
            "Invalid update remove-snapshots: Cannot expire " + std::to_string(second_) +
                ". Still referenced by refs: [main]");
  EXPECT_EQ(Apply({update::UpgradeFormatVersion{4}}).message(),
            "Invalid update upgrade-format-version: Cannot upgrade table to unsupported format "
            "version: v4 (supported: v3)");
  EXPECT_EQ(Apply({update::UpgradeFormatVersion{1}}).message(),
            "Invalid update upgrade-format-version: Cannot downgrade v2 table to v1");
  EXPECT_EQ(Apply({update::AssignUuid{"another"}}).message(),
            "Invalid update assign-uuid: Cannot reassign uuid");
  EXPECT_EQ(Apply({update::SetCurrentSchema{7}}).message(),
            "Invalid update set-current-schema: Cannot set current schema to unknown schema: 7");
  EXPECT_EQ(Apply({update::RemovePartitionSpecs{{0}}}).message(),
            "Invalid update remove-partition-specs: Cannot remove the default partition spec");
  // Nothing above reached the table.
  EXPECT_EQ(table_->metadata()->snapshots.size(), 2u);
}

TEST_F(MetadataUpdateTest, SchemaMayNotReuseAFieldIdForAnotherType) {
  // Drop `name` (id 2), then try to add `score` (a long) under the same id.
  auto without_name = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{table_->metadata()->current_schema()->fields()[0]});
  ASSERT_OK_AND_ASSIGN(auto dropped, ApplyTableChanges(table_->metadata(), {},
                                                       {update::AddSchema{without_name},
                                                        update::SetCurrentSchema{-1}}));
  spec::NestedField score{2, "score", spec::Type::Long(), false, "", "", ""};
  auto reusing = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{dropped->current_schema()->fields()[0], score});
  EXPECT_EQ(ApplyTableChanges(dropped, {}, {update::AddSchema{reusing}}).status().message(),
            "Invalid update add-schema: Cannot add schema: field score (long) reuses field id 2 "
            "of name (string) in schema 0");
  // The same column under a fresh id is fine, and raises last-column-id.
  score.id = 3;
  auto fresh = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{dropped->current_schema()->fields()[0], score});
  ASSERT_OK_AND_ASSIGN(auto added, ApplyTableChanges(dropped, {}, {update::AddSchema{fresh}}));
  EXPECT_EQ(added->last_column_id, 3);
  EXPECT_EQ(added->schemas.size(), 3u);
}

TEST_F(MetadataUpdateTest, OneCommitOfTwoSnapshotsIsOneHistoryEntry) {
  // A delete and an append in one commit, main moved to each in turn.
  spec::Snapshot deleted = *table_->metadata()->SnapshotById(second_);
  deleted.snapshot_id = 31;
  deleted.parent_snapshot_id = second_;
  deleted.sequence_number = 3;
  spec::Snapshot appended = deleted;
  appended.snapshot_id = 32;
  appended.parent_snapshot_id = 31;
  appended.sequence_number = 4;
  spec::SnapshotRef main;
  main.snapshot_id = 31;
  spec::SnapshotRef main_again = main;
  main_again.snapshot_id = 32;
  ASSERT_OK_AND_ASSIGN(
      auto md, ApplyTableChanges(
                   table_->metadata(), {Ref("main", second_)},
                   {update::AddSnapshot{deleted}, update::SetSnapshotRef{"main", main},
                    update::AddSnapshot{appended}, update::SetSnapshotRef{"main", main_again}}));
  std::vector<int64_t> history;
  for (const auto& e : md->snapshot_log) history.push_back(e.snapshot_id);
  EXPECT_EQ(history, (std::vector<int64_t>{first_, second_, 32}));
  EXPECT_EQ(md->snapshots.size(), 4u);
  EXPECT_EQ(md->last_sequence_number, 4);
}

TEST_F(MetadataUpdateTest, ACommitWithoutChangesChangesNothing) {
  ASSERT_OK_AND_ASSIGN(auto md, ApplyTableChanges(table_->metadata(), {Ref("main", second_)},
                                                  {update::SetProperties{{}}}));
  EXPECT_EQ(md, nullptr);
}

TEST(NewTableFromUpdatesTest, AStagedCreateBecomesATable) {
  auto schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, "", "", ""},
                                        {2, "day", spec::Type::Date(), false, "", "", ""}});
  update::AddPartitionSpec spec;
  spec.fields = {{2, 0, "day_day", spec::Transform::Day()}};
  ASSERT_OK_AND_ASSIGN(
      auto md, NewTableFromUpdates(
                   {Id(Kind::kAssertCreate, 0)},
                   {update::AssignUuid{"5b3c9f2e-0000-4000-8000-000000000001"},
                    update::UpgradeFormatVersion{2}, update::AddSchema{schema},
                    update::SetCurrentSchema{-1}, spec, update::SetDefaultSpec{-1},
                    update::SetLocation{"/w/db/t"}, update::SetProperties{{{"owner", "ana"}}}},
                   "/w/default"));
  EXPECT_EQ(md->table_uuid, "5b3c9f2e-0000-4000-8000-000000000001");
  EXPECT_EQ(md->location, "/w/db/t");
  EXPECT_EQ(md->format_version, 2);
  EXPECT_EQ(md->last_column_id, 2);
  ASSERT_EQ(md->default_spec()->fields().size(), 1u);
  // Ids the request left out are assigned from 1000, as Iceberg does.
  EXPECT_EQ(md->default_spec()->fields()[0].field_id, 1000);
  EXPECT_EQ(md->last_partition_id, 1000);
  EXPECT_EQ(md->default_sort_order_id, 0);
  EXPECT_EQ(md->properties.at("owner"), "ana");
  EXPECT_EQ(NewTableFromUpdates({}, {update::SetLocation{"/w"}}, "/w").status().message(),
            "Cannot create a table without a schema: no add-schema and set-current-schema");
}

// A staged v3 create, as Java's createTransaction sends it, then appends: each snapshot must
// carry row ids past the table's next-row-id; one that is behind is a conflict (409, retry).
TEST(NewTableFromUpdatesTest, AV3TableTakesSnapshotsWithRowIds) {
  auto schema = std::make_shared<const spec::Schema>(
      0, std::vector<spec::NestedField>{{1, "id", spec::Type::Int(), true, "", "12", "10"}});
  ASSERT_OK_AND_ASSIGN(
      auto md,
      NewTableFromUpdates({Id(Kind::kAssertCreate, 0)},
                          {update::AssignUuid{"5b3c9f2e-0000-4000-8000-000000000003"},
                           update::UpgradeFormatVersion{3}, update::AddSchema{schema},
                           update::SetCurrentSchema{-1}, update::SetLocation{"/w/db/v3"}},
                          "/w/default"));
  EXPECT_EQ(md->format_version, 3);
  EXPECT_EQ(md->next_row_id, 0);
  EXPECT_EQ(md->current_schema()->FindFieldById(1)->initial_default_json, "12");
  EXPECT_EQ(md->current_schema()->FindFieldById(1)->write_default_json, "10");

  spec::Snapshot append;
  append.snapshot_id = 5;
  append.sequence_number = 1;
  append.timestamp_ms = md->last_updated_ms;
  append.operation = "append";
  append.manifest_list = "/w/db/v3/metadata/snap-5.avro";
  spec::SnapshotRef main_ref;
  main_ref.snapshot_id = 5;
  EXPECT_EQ(ApplyTableChanges(md, {}, {update::AddSnapshot{append}}).status().message(),
            "Invalid update add-snapshot: Cannot add a snapshot: first-row-id is null");
  append.first_row_id = 0;
  append.added_rows = 3;
  ASSERT_OK_AND_ASSIGN(auto after, ApplyTableChanges(md, {}, {update::AddSnapshot{append},
                                                              update::SetSnapshotRef{"main", main_ref}}));
  EXPECT_EQ(after->next_row_id, 3);
  spec::Snapshot stale = append;
  stale.snapshot_id = 6;
  stale.parent_snapshot_id = 5;
  stale.sequence_number = 2;
  stale.first_row_id = 2;
  Status st = ApplyTableChanges(after, {}, {update::AddSnapshot{stale}}).status();
  EXPECT_TRUE(IsCommitConflict(st)) << st.ToString();
  EXPECT_EQ(st.message(), "Cannot add a snapshot, first-row-id is behind table next-row-id: 2 < 3");
}

class CommitTableChangesTest : public MetadataUpdateTest {
 protected:
  void SetUp() override {
    MetadataUpdateTest::SetUp();
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
    ASSERT_OK_AND_ASSIGN(other_, wh_.tables->CreateTable(other_ident_, *schema));
  }

  std::string Location(const TableIdentifier& ident) {
    return wh_.catalog->LoadMetadataLocation(ident).ValueOr("");
  }

  TableIdentifier other_ident_{Namespace({"db"}), "other"};
  std::shared_ptr<Table> other_;
};

TEST_F(CommitTableChangesTest, AllTablesMoveOrNone) {
  const std::string people = Location(ident_), other = Location(other_ident_);
  const size_t files_before = floe::testing::FilesUnder(*wh_.io, wh_.dir.str()).size();
  // The second change's requirement fails: the first table keeps its metadata too.
  Status refused = CommitTableChanges(
      *wh_.tables, {{ident_, {Ref("main", second_)}, {update::SetProperties{{{"a", "1"}}}}},
                    {other_ident_, {Ref("main", 5)}, {update::SetProperties{{{"b", "2"}}}}}});
  EXPECT_TRUE(IsCommitConflict(refused));
  EXPECT_EQ(refused.message(), "Requirement failed: branch or tag main is missing, expected 5");
  EXPECT_EQ(Location(ident_), people);
  EXPECT_EQ(Location(other_ident_), other);
  EXPECT_EQ(floe::testing::FilesUnder(*wh_.io, wh_.dir.str()).size(), files_before);

  ASSERT_OK(CommitTableChanges(
      *wh_.tables,
      {{ident_, {Ref("main", second_)}, {update::SetProperties{{{"a", "1"}}}}},
       {other_ident_, {Ref("main", std::nullopt)}, {update::SetProperties{{{"b", "2"}}}}}}));
  ASSERT_OK(table_->Refresh());
  ASSERT_OK(other_->Refresh());
  EXPECT_EQ(table_->metadata()->properties.at("a"), "1");
  EXPECT_EQ(other_->metadata()->properties.at("b"), "2");
  // Each commit is in the audit log.
  ASSERT_OK_AND_ASSIGN(auto log, wh_.catalog->ReadAuditLog({}));
  EXPECT_EQ(log[0].ident.ToString() + " " + log[1].ident.ToString(), "db.other db.people");
}

TEST_F(CommitTableChangesTest, ATableIsChangedOnceAndMustExistUnlessCreated) {
  EXPECT_EQ(CommitTableChanges(*wh_.tables, {{ident_, {}, {}}, {ident_, {}, {}}}).message(),
            "Invalid table changes: table db.people is changed twice; state all its changes in "
            "one entry");
  const TableIdentifier missing{Namespace({"db"}), "missing"};
  EXPECT_EQ(CommitTableChanges(*wh_.tables, {{missing, {}, {update::SetProperties{{}}}}}).message(),
            "Table does not exist: db.missing");
  auto schema = table_->metadata()->current_schema();
  ASSERT_OK(
      CommitTableChanges(*wh_.tables, {{missing,
                                        {Id(Kind::kAssertCreate, 0)},
                                        {update::AddSchema{schema}, update::SetCurrentSchema{-1}}},
                                       {ident_, {}, {update::SetProperties{{{"c", "3"}}}}}}));
  ASSERT_OK_AND_ASSIGN(auto created, wh_.tables->LoadTable(missing));
  EXPECT_EQ(created->metadata()->location, wh_.dir.str() + "/wh/db/missing");
  EXPECT_EQ(created->metadata()->current_schema()->fields().size(), 2u);
}

}  // namespace
}  // namespace floe::table
