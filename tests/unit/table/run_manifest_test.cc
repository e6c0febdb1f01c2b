#include "floe/table/run_manifest.h"

#include "floe/scan/table_scan.h"
#include "floe/table/snapshot_producer.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;
using floe::testing::Range;
using floe::testing::SortedIds;

class RunManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
    ASSERT_OK_AND_ASSIGN(orders_, wh_.tables->CreateTable({Namespace({"db"}), "orders"}, *schema));
    ASSERT_OK_AND_ASSIGN(customers_,
                         wh_.tables->CreateTable({Namespace({"db"}), "customers"}, *schema));
  }

  floe::testing::Warehouse wh_;
  std::shared_ptr<Table> orders_, customers_;
};

TEST_F(RunManifestTest, RecordsAndReplaysExactlyThoseSnapshots) {
  ASSERT_OK_AND_ASSIGN(int64_t o1, AppendData(*orders_, *People(0, 10)));
  ASSERT_OK_AND_ASSIGN(int64_t c1, AppendData(*customers_, *People(0, 3)));
  ASSERT_OK_AND_ASSIGN(auto manifest, BuildRunManifest({orders_, customers_}, 1705314600123));
  ASSERT_EQ(manifest.sources.size(), 2u);
  EXPECT_EQ(manifest.sources[0].table, "lakehouse.db.orders");
  EXPECT_EQ(manifest.sources[0].snapshot_id, o1);
  EXPECT_EQ(manifest.sources[1].snapshot_id, c1);
  const std::string location = wh_.dir.str() + "/runs/run-1.json";
  ASSERT_OK(WriteRunManifest(*wh_.io, location, manifest));
  ASSERT_RAISES_WITH_MESSAGE("", WriteRunManifest(*wh_.io, location, manifest));  // never replaced

  // The tables move on.
  ASSERT_OK(AppendData(*orders_, *People(10, 5)).status());
  ASSERT_OK(AppendData(*customers_, *People(3, 1)).status());

  ASSERT_OK_AND_ASSIGN(auto read, ReadRunManifest(*wh_.io, location));
  ASSERT_OK_AND_ASSIGN(auto resolved, ResolveRunManifest(*wh_.tables, read));
  ASSERT_EQ(resolved.size(), 2u);
  EXPECT_EQ(resolved[0].snapshot.snapshot_id(), o1);
  EXPECT_EQ(resolved[1].snapshot.snapshot_id(), c1);
  auto rows = scan::TableScan(resolved[0].table).UseSnapshot(o1).ToArrowTable().ValueOrDie();
  EXPECT_EQ(SortedIds(*rows), Range(0, 10));
}

TEST_F(RunManifestTest, JsonShape) {
  RunManifest m;
  m.run_started_at_ms = 1705314600123;
  m.sources.push_back({"lakehouse.db.orders", 42, 1705314598100, "u-1"});
  std::string json = RunManifestToJson(m);
  EXPECT_EQ(
      json,
      "{\"run_started_at\":\"2024-01-15T10:30:00.123+00:00\",\"run_started_at_ms\":1705314600123,"
      "\"sources\":{\"lakehouse.db.orders\":{\"snapshot_id\":42,\"committed_at\":"
      "\"2024-01-15 10:29:58.1\",\"committed_at_ms\":1705314598100,\"table_uuid\":\"u-1\"}}}");
  ASSERT_OK_AND_ASSIGN(auto back, RunManifestFromJson(json));
  ASSERT_EQ(back.sources.size(), 1u);
  EXPECT_EQ(back.sources[0].snapshot_id, 42);
  EXPECT_EQ(back.sources[0].table_uuid, "u-1");
  EXPECT_EQ(back.run_started_at_ms, m.run_started_at_ms);
  ASSERT_RAISES_WITH_MESSAGE("Invalid run manifest: not JSON", RunManifestFromJson("{"));
  ASSERT_RAISES_WITH_MESSAGE("Invalid run manifest: no \"sources\" object",
                             RunManifestFromJson("{}"));
  ASSERT_RAISES_WITH_MESSAGE("Invalid run manifest: source t has no integer snapshot_id",
                             RunManifestFromJson("{\"sources\":{\"t\":{\"snapshot_id\":\"x\"}}}"));
}

TEST_F(RunManifestTest, Errors) {
  ASSERT_RAISES_WITH_MESSAGE("Table lakehouse.db.orders has no current snapshot to record",
                             BuildRunManifest({orders_}, 0));
  ASSERT_OK(AppendData(*orders_, *People(0, 1)).status());
  ASSERT_RAISES_WITH_MESSAGE("Table lakehouse.db.orders is listed twice",
                             BuildRunManifest({orders_, orders_}, 0));
  RunManifest m;
  m.sources.push_back({"lakehouse.db.orders", 42, 0, ""});
  ASSERT_RAISES_WITH_MESSAGE("Table lakehouse.db.orders: Cannot find snapshot with ID 42",
                             ResolveRunManifest(*wh_.tables, m));
  m.sources[0] = {"elsewhere.db.orders", 42, 0, ""};
  ASSERT_RAISES_WITH_MESSAGE(
      "Run manifest source elsewhere.db.orders is in another catalog, not lakehouse",
      ResolveRunManifest(*wh_.tables, m));
  m.sources[0] = {"lakehouse.db.orders", *orders_->metadata()->current_snapshot_id, 0,
                  "other-uuid"};
  ASSERT_RAISES_WITH_MESSAGE("Table lakehouse.db.orders is not the table the run manifest recorded",
                             ResolveRunManifest(*wh_.tables, m));
}

}  // namespace
}  // namespace floe::table
