#include "floe/table/table_metadata_builder.h"

#include <gtest/gtest.h>

#include "floe/util/clock.h"
#include "floe_test.h"

namespace floe::table {
namespace {

using spec::PartitionField;
using spec::PartitionSpec;
using spec::Schema;
using spec::Snapshot;
using spec::SnapshotRef;
using spec::SnapshotRefType;
using spec::SortOrder;
using spec::TableMetadata;
using spec::Transform;
using spec::Type;

// A v2 table with schema 0 (1: id, 2: name), no snapshots, written an hour ago.
std::shared_ptr<TableMetadata> Base() {
  auto builder = TableMetadataBuilder::ForNewTable(2, "uuid-1", "/wh/db/t");
  Schema schema(0, {spec::Required(1, "id", Type::Long()), spec::Optional(2, "name", Type::String())});
  EXPECT_TRUE(builder.AddSchema(schema).ok());
  EXPECT_TRUE(builder.SetCurrentSchema(TableMetadataBuilder::kLastAdded).ok());
  EXPECT_TRUE(builder.AddPartitionSpec(PartitionSpec::Unpartitioned()).ok());
  EXPECT_TRUE(builder.SetDefaultPartitionSpec(0).ok());
  EXPECT_TRUE(builder.AddSortOrder(SortOrder::Unsorted()).ok());
  EXPECT_TRUE(builder.SetDefaultSortOrder(0).ok());
  auto md = builder.Build();
  md->last_updated_ms = NowMillis() - 3600 * 1000;
  return md;
}

Snapshot MakeSnapshot(int64_t id, std::optional<int64_t> parent, int64_t sequence, int64_t ts) {
  Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = sequence;
  s.timestamp_ms = ts;
  s.operation = "append";
  s.manifest_list = "/wh/db/t/metadata/snap-" + std::to_string(id) + "-1-x.avro";
  return s;
}

SnapshotRef Branch(int64_t id) { return SnapshotRef{id, SnapshotRefType::kBranch, {}, {}, {}}; }
SnapshotRef Tag(int64_t id) { return SnapshotRef{id, SnapshotRefType::kTag, {}, {}, {}}; }

// Base() with snapshots 1 <- 2 <- 3 on main (sequence numbers 1..3), history 1, 2, 3.
std::shared_ptr<TableMetadata> WithHistory() {
  auto base = Base();
  TableMetadataBuilder builder(base);
  const int64_t t0 = base->last_updated_ms;
  for (int64_t id = 1; id <= 3; ++id) {
    std::optional<int64_t> parent;
    if (id > 1) parent = id - 1;
    EXPECT_TRUE(builder.SetBranchSnapshot(MakeSnapshot(id, parent, id, t0 + id * 1000), "main").ok());
  }
  return builder.Build();
}

TEST(TableMetadataBuilderTest, NewTableStartsAtTheFirstIds) {
  auto md = Base();
  EXPECT_EQ(md->format_version, 2);
  EXPECT_EQ(md->table_uuid, "uuid-1");
  EXPECT_EQ(md->schemas.size(), 1u);
  EXPECT_EQ(md->current_schema_id, 0);
  EXPECT_EQ(md->last_column_id, 2);
  EXPECT_EQ(md->partition_specs.size(), 1u);
  EXPECT_EQ(md->default_spec_id, 0);
  EXPECT_EQ(md->last_partition_id, 999);
  EXPECT_EQ(md->sort_orders.size(), 1u);
  EXPECT_EQ(md->default_sort_order_id, 0);
  EXPECT_EQ(md->last_sequence_number, 0);
  EXPECT_FALSE(md->current_snapshot_id.has_value());
}

TEST(TableMetadataBuilderTest, SchemasGetNewIdsAndLastColumnIdNeverDecreases) {
  auto base = Base();
  TableMetadataBuilder builder(base);
  // The id a schema carries is ignored: the next free one is used.
  Schema added(17, {spec::Required(1, "id", Type::Long()), spec::Optional(2, "name", Type::String()),
                    spec::Optional(3, "age", Type::Int())});
  ASSERT_OK_AND_ASSIGN(int32_t id, builder.AddSchema(added));
  EXPECT_EQ(id, 1);
  EXPECT_EQ(builder.current().last_column_id, 3);
  // Dropping a column keeps last-column-id at 3.
  Schema dropped(0, {spec::Required(1, "id", Type::Long())});
  ASSERT_OK_AND_ASSIGN(int32_t dropped_id, builder.AddSchema(dropped));
  EXPECT_EQ(dropped_id, 2);
  EXPECT_EQ(builder.current().last_column_id, 3);
  // The same structure again reuses the existing schema.
  ASSERT_OK_AND_ASSIGN(int32_t again, builder.AddSchema(*base->current_schema()));
  EXPECT_EQ(again, 0);
  ASSERT_OK(builder.SetCurrentSchema(TableMetadataBuilder::kLastAdded));
  EXPECT_EQ(builder.current().current_schema_id, 0);
  ASSERT_OK(builder.SetCurrentSchema(2));
  auto md = builder.Build();
  EXPECT_EQ(md->schemas.size(), 3u);
  EXPECT_EQ(md->current_schema_id, 2);
  EXPECT_EQ(md->last_column_id, 3);
  EXPECT_EQ(base->schemas.size(), 1u);  // the base is never modified
}

TEST(TableMetadataBuilderTest, CurrentSchemaMustExist) {
  TableMetadataBuilder builder(Base());
  Status st = builder.SetCurrentSchema(7);
  EXPECT_EQ(st.message(), "Cannot set current schema to unknown schema: 7");
  st = builder.SetCurrentSchema(TableMetadataBuilder::kLastAdded);
  EXPECT_EQ(st.message(), "Cannot set last added schema: no schema has been added");
  EXPECT_FALSE(builder.changed());
}

TEST(TableMetadataBuilderTest, PartitionSpecsAndLastPartitionId) {
  TableMetadataBuilder builder(Base());
  PartitionSpec by_id(0, {PartitionField{1, 1000, "id_bucket", Transform::Bucket(16)},
                          PartitionField{2, 1001, "name", Transform::Identity()}});
  ASSERT_OK_AND_ASSIGN(int32_t spec_id, builder.AddPartitionSpec(by_id));
  EXPECT_EQ(spec_id, 1);
  EXPECT_EQ(builder.current().last_partition_id, 1001);
  ASSERT_OK_AND_ASSIGN(int32_t same, builder.AddPartitionSpec(by_id));
  EXPECT_EQ(same, 1);
  PartitionSpec fewer(0, {PartitionField{1, 1000, "id_bucket", Transform::Bucket(16)}});
  ASSERT_OK_AND_ASSIGN(int32_t fewer_id, builder.AddPartitionSpec(fewer));
  EXPECT_EQ(fewer_id, 2);
  EXPECT_EQ(builder.current().last_partition_id, 1001);
  ASSERT_OK(builder.SetDefaultPartitionSpec(TableMetadataBuilder::kLastAdded));
  EXPECT_EQ(builder.current().default_spec_id, 2);
  EXPECT_EQ(builder.SetDefaultPartitionSpec(9).message(),
            "Cannot set default partition spec to unknown spec: 9");
}

TEST(TableMetadataBuilderTest, SortOrdersStartAtOne) {
  TableMetadataBuilder builder(Base());
  SortOrder by_id;
  by_id.fields.push_back({Transform::Identity(), 1, spec::SortDirection::kAsc, spec::NullOrder::kNullsFirst});
  ASSERT_OK_AND_ASSIGN(int32_t first, builder.AddSortOrder(by_id));
  EXPECT_EQ(first, 1);
  ASSERT_OK_AND_ASSIGN(int32_t same, builder.AddSortOrder(by_id));
  EXPECT_EQ(same, 1);
  SortOrder by_name;
  by_name.fields.push_back({Transform::Identity(), 2, spec::SortDirection::kDesc, spec::NullOrder::kNullsLast});
  ASSERT_OK_AND_ASSIGN(int32_t second, builder.AddSortOrder(by_name));
  EXPECT_EQ(second, 2);
  ASSERT_OK_AND_ASSIGN(int32_t unsorted, builder.AddSortOrder(SortOrder::Unsorted()));
  EXPECT_EQ(unsorted, 0);
  EXPECT_EQ(builder.SetDefaultSortOrder(5).message(), "Cannot set default sort order to unknown order: 5");
  ASSERT_OK(builder.SetDefaultSortOrder(2));
  EXPECT_EQ(builder.Build()->default_sort_order_id, 2);
}

TEST(TableMetadataBuilderTest, SnapshotsTakeTheNextSequenceNumber) {
  auto base = Base();
  TableMetadataBuilder builder(base);
  const int64_t now = builder.ChangeTime();
  EXPECT_EQ(builder.NextSequenceNumber(), 1);
  ASSERT_OK(builder.AddSnapshot(MakeSnapshot(11, std::nullopt, 1, now)));
  EXPECT_EQ(builder.current().last_sequence_number, 1);
  EXPECT_EQ(builder.NextSequenceNumber(), 2);
  EXPECT_EQ(builder.AddSnapshot(MakeSnapshot(12, 11, 1, now)).message(),
            "Cannot add snapshot with sequence number 1 older than last sequence number 1");
  EXPECT_EQ(builder.AddSnapshot(MakeSnapshot(11, std::nullopt, 2, now)).message(),
            "Snapshot already exists for id: 11");
  EXPECT_EQ(builder.AddSnapshot(MakeSnapshot(13, 99, 2, now)).message(),
            "Cannot add snapshot 13: parent snapshot 99 does not exist");
  ASSERT_OK(builder.AddSnapshot(MakeSnapshot(13, 11, 2, now)));
  // A replace transaction's snapshot has no parent and may carry a number already used; the
  // table's last sequence number stays.
  ASSERT_OK(builder.AddSnapshot(MakeSnapshot(14, std::nullopt, 1, now)));
  EXPECT_EQ(builder.current().last_sequence_number, 2);
  ASSERT_OK(builder.RemoveSnapshots({14}));
  auto md = builder.Build();
  EXPECT_EQ(md->snapshots.size(), 2u);
  EXPECT_EQ(md->last_sequence_number, 2);
  // Adding a snapshot moves no ref.
  EXPECT_FALSE(md->current_snapshot_id.has_value());
  EXPECT_TRUE(md->snapshot_log.empty());
  EXPECT_TRUE(md->refs.empty());
  EXPECT_EQ(md->SnapshotById(13)->parent_snapshot_id, 11);
}

// Format v3 row lineage: every snapshot names the first row id it assigns and how many rows it
// added; the table's next-row-id moves past them. Upgrading a v2 table starts at row id 0.
TEST(TableMetadataBuilderTest, V3SnapshotsTakeTheNextRowIds) {
  TableMetadataBuilder upgrade(Base());
  ASSERT_OK(upgrade.UpgradeFormatVersion(3, 3));
  auto v3 = upgrade.Build();
  EXPECT_EQ(v3->format_version, 3);
  EXPECT_EQ(v3->next_row_id, 0);

  TableMetadataBuilder builder(v3);
  const int64_t now = builder.ChangeTime();
  Snapshot first = MakeSnapshot(21, std::nullopt, 1, now);
  EXPECT_EQ(builder.AddSnapshot(first).message(), "Cannot add a snapshot: first-row-id is null");
  first.first_row_id = 0;
  EXPECT_EQ(builder.AddSnapshot(first).message(), "Cannot add a snapshot: added-rows is null");
  first.added_rows = 10;
  ASSERT_OK(builder.AddSnapshot(first));
  EXPECT_EQ(builder.current().next_row_id, 10);
  Snapshot behind = MakeSnapshot(22, 21, 2, now);
  behind.first_row_id = 9;
  behind.added_rows = 1;
  Status st = builder.AddSnapshot(behind);
  EXPECT_TRUE(IsCommitConflict(st)) << st.ToString();  // another writer took the ids: retry
  EXPECT_EQ(st.message(), "Cannot add a snapshot, first-row-id is behind table next-row-id: 9 < 10");
  Snapshot deletes = MakeSnapshot(22, 21, 2, now);
  deletes.first_row_id = 10;
  deletes.added_rows = 0;
  ASSERT_OK(builder.AddSnapshot(deletes));
  Snapshot gap = MakeSnapshot(23, 22, 3, now);
  gap.first_row_id = 15;  // ids may be skipped, never reused
  gap.added_rows = 5;
  ASSERT_OK(builder.AddSnapshot(gap));
  auto md = builder.Build();
  EXPECT_EQ(md->next_row_id, 20);
  // A v2 table's snapshots carry no row ids.
  TableMetadataBuilder v2(Base());
  ASSERT_OK(v2.AddSnapshot(MakeSnapshot(31, std::nullopt, 1, now)));
  EXPECT_EQ(v2.Build()->next_row_id, 0);
}

TEST(TableMetadataBuilderTest, SnapshotTimestampsMayNotRunBackwardsMoreThanAMinute) {
  auto base = WithHistory();
  const int64_t last = base->snapshot_log.back().timestamp_ms;
  TableMetadataBuilder builder(base);
  // Within a minute of clock skew is accepted.
  ASSERT_OK(builder.AddSnapshot(MakeSnapshot(4, 3, 4, last - 59000)));
  Status st = builder.AddSnapshot(MakeSnapshot(5, 3, 5, last - 61000));
  EXPECT_EQ(st.message(), "Invalid snapshot timestamp " + std::to_string(last - 61000) +
                              ": before last snapshot timestamp " + std::to_string(last));
}

TEST(TableMetadataBuilderTest, SettingMainMovesCurrentSnapshotAndLogsIt) {
  auto base = WithHistory();
  ASSERT_EQ(base->current_snapshot_id, 3);
  ASSERT_EQ(base->snapshot_log.size(), 3u);
  // Snapshots added in the same builder are logged at their own timestamps.
  EXPECT_EQ(base->snapshot_log[0].snapshot_id, 1);
  EXPECT_EQ(base->snapshot_log[0].timestamp_ms, base->SnapshotById(1)->timestamp_ms);
  EXPECT_EQ(base->snapshot_log[2].timestamp_ms, base->SnapshotById(3)->timestamp_ms);
  EXPECT_EQ(base->refs.at("main"), Branch(3));
  EXPECT_EQ(base->last_sequence_number, 3);

  TableMetadataBuilder builder(base);
  ASSERT_OK(builder.SetRef("main", Branch(1)));  // a rollback
  ASSERT_OK(builder.SetRef("main", Branch(1)));  // the same again changes nothing
  ASSERT_OK(builder.SetRef("v1", Tag(2)));       // a tag moves no current snapshot
  auto md = builder.Build();
  EXPECT_EQ(md->current_snapshot_id, 1);
  ASSERT_EQ(md->snapshot_log.size(), 4u);
  EXPECT_EQ(md->snapshot_log[3].snapshot_id, 1);
  EXPECT_EQ(md->snapshot_log[3].timestamp_ms, builder.ChangeTime());
  EXPECT_EQ(md->refs.at("v1"), Tag(2));
  EXPECT_GE(md->last_updated_ms, base->last_updated_ms);
}

TEST(TableMetadataBuilderTest, RefsMustPointAtKnownSnapshots) {
  TableMetadataBuilder builder(WithHistory());
  EXPECT_EQ(builder.SetRef("main", Branch(42)).message(), "Cannot set main to unknown snapshot: 42");
  EXPECT_EQ(builder.SetRef("dev", Branch(42)).message(), "Cannot set dev to unknown snapshot: 42");
  EXPECT_FALSE(builder.changed());
}

TEST(TableMetadataBuilderTest, BranchSnapshotsKeepRetentionAndRefuseTags) {
  auto base = WithHistory();
  TableMetadataBuilder builder(base);
  SnapshotRef dev{2, SnapshotRefType::kBranch, 5, 3600000, std::nullopt};
  ASSERT_OK(builder.SetRef("dev", dev));
  ASSERT_OK(builder.SetRef("v1", Tag(1)));
  const int64_t ts = base->snapshot_log.back().timestamp_ms + 10;
  ASSERT_OK(builder.SetBranchSnapshot(MakeSnapshot(7, 2, 4, ts), "dev"));
  EXPECT_EQ(builder.SetBranchSnapshot(MakeSnapshot(8, 1, 5, ts), "v1").message(),
            "Cannot append snapshot to non-branch reference v1");
  auto md = builder.Build();
  SnapshotRef moved = dev;
  moved.snapshot_id = 7;
  EXPECT_EQ(md->refs.at("dev"), moved);
  EXPECT_EQ(md->current_snapshot_id, 3);      // main did not move
  EXPECT_EQ(md->snapshot_log.size(), 3u);     // so nothing was logged
  EXPECT_EQ(md->SnapshotById(8), nullptr);    // the refused snapshot was not added
  EXPECT_EQ(md->last_sequence_number, 4);
}

TEST(TableMetadataBuilderTest, RemovingMainClearsCurrentSnapshot) {
  TableMetadataBuilder builder(WithHistory());
  builder.RemoveRef("main");
  builder.RemoveRef("no-such-ref");
  auto md = builder.Build();
  EXPECT_FALSE(md->current_snapshot_id.has_value());
  EXPECT_EQ(md->refs.count("main"), 0u);
  EXPECT_EQ(md->snapshots.size(), 3u);
  EXPECT_EQ(md->snapshot_log.size(), 3u);
}

TEST(TableMetadataBuilderTest, ReferencedSnapshotsCannotBeRemoved) {
  auto base = WithHistory();
  TableMetadataBuilder builder(base);
  ASSERT_OK(builder.SetRef("v1", Tag(3)));
  ASSERT_OK(builder.SetRef("b1", Branch(2)));
  EXPECT_EQ(builder.RemoveSnapshots({1, 3}).message(),
            "Cannot expire 3. Still referenced by refs: [main, v1]");
  EXPECT_EQ(builder.RemoveSnapshots({2}).message(), "Cannot expire 2. Still referenced by refs: [b1]");
  // Nothing was removed by the refused calls.
  EXPECT_EQ(builder.current().snapshots.size(), 3u);
}

TEST(TableMetadataBuilderTest, RemovedSnapshotsLeaveNoHistoryBehind) {
  auto base = WithHistory();
  TableMetadataBuilder builder(base);
  // History 1, 2, 3, then a rollback to 1 and forward to 3: 1, 2, 3, 1, 3.
  ASSERT_OK(builder.SetRef("main", Branch(1)));
  ASSERT_OK(builder.SetRef("main", Branch(3)));
  auto md = builder.Build();
  md->statistics.push_back({2, "/wh/db/t/metadata/2.stats", 10, 2, "", {}});
  md->partition_statistics.push_back({2, "/wh/db/t/metadata/2.pstats", 10});
  md->statistics.push_back({3, "/wh/db/t/metadata/3.stats", 10, 2, "", {}});

  TableMetadataBuilder remover(md);
  ASSERT_OK(remover.RemoveSnapshots({2, 99}));
  auto after = remover.Build();
  ASSERT_EQ(after->snapshots.size(), 2u);
  EXPECT_EQ(after->SnapshotById(2), nullptr);
  EXPECT_NE(after->SnapshotById(1), nullptr);
  // The entry for 2 goes, and so does the history before it: it would claim 1 stayed
  // current until 3.
  ASSERT_EQ(after->snapshot_log.size(), 3u);
  EXPECT_EQ(after->snapshot_log[0].snapshot_id, 3);
  EXPECT_EQ(after->snapshot_log[1].snapshot_id, 1);
  EXPECT_EQ(after->snapshot_log[2].snapshot_id, 3);
  ASSERT_EQ(after->statistics.size(), 1u);
  EXPECT_EQ(after->statistics[0].snapshot_id, 3);
  EXPECT_TRUE(after->partition_statistics.empty());
  EXPECT_EQ(after->current_snapshot_id, 3);
}

TEST(TableMetadataBuilderTest, PropertiesSetAndRemove) {
  auto base = Base();
  TableMetadataBuilder builder(base);
  builder.SetProperties({{"write.parquet.compression-codec", "zstd"}, {"owner", "ana"}});
  EXPECT_TRUE(builder.changed());
  builder.RemoveProperties({"owner", "missing"});
  auto md = builder.Build();
  EXPECT_EQ(md->properties, (std::map<std::string, std::string>{{"write.parquet.compression-codec", "zstd"}}));

  TableMetadataBuilder same(md);
  same.SetProperties({{"write.parquet.compression-codec", "zstd"}});
  same.RemoveProperties({"missing"});
  EXPECT_FALSE(same.changed());
}

TEST(TableMetadataBuilderTest, CommitsLogThePreviousFileWithinPreviousVersionsMax) {
  auto base = Base();
  base->properties["write.metadata.previous-versions-max"] = "2";
  base->metadata_log = {{100, "/wh/db/t/metadata/00000-a.metadata.json"},
                        {200, "/wh/db/t/metadata/00001-b.metadata.json"}};
  TableMetadataBuilder builder(base);
  auto md = builder.Build();
  TableMetadataBuilder::RecordCommit(*base, "/wh/db/t/metadata/00002-c.metadata.json", md.get());
  ASSERT_EQ(md->metadata_log.size(), 2u);
  EXPECT_EQ(md->metadata_log[0].metadata_file, "/wh/db/t/metadata/00001-b.metadata.json");
  EXPECT_EQ(md->metadata_log[1].metadata_file, "/wh/db/t/metadata/00002-c.metadata.json");
  EXPECT_EQ(md->metadata_log[1].timestamp_ms, base->last_updated_ms);
  EXPECT_GT(md->last_updated_ms, base->last_updated_ms);

  // A new table has no previous file; a base stamped in the future keeps time from
  // running backwards.
  auto future = Base();
  future->last_updated_ms = NowMillis() + 3600 * 1000;
  auto next = TableMetadataBuilder(future).Build();
  TableMetadataBuilder::RecordCommit(*future, "", next.get());
  EXPECT_TRUE(next->metadata_log.empty());
  EXPECT_EQ(next->last_updated_ms, future->last_updated_ms);
}

}  // namespace
}  // namespace floe::table
