#include "floe/server/rest/rest_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/spec/table_update_json.h"
#include "floe_test.h"

namespace floe::server::rest {
namespace {

TEST(RestJsonTest, ReadsCreateNamespaceRequests) {
  ASSERT_OK_AND_ASSIGN(auto request, ParseCreateNamespaceRequest(
                                         R"({"namespace": ["a", "b"], "properties": {"k": "v"}})"));
  EXPECT_EQ(request.ns.levels, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(request.properties, (NamespaceProperties{{"k", "v"}}));
  ASSERT_OK_AND_ASSIGN(request, ParseCreateNamespaceRequest(R"({"namespace": ["a"]})"));
  EXPECT_TRUE(request.properties.empty());
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse missing field: namespace",
                             ParseCreateNamespaceRequest("{}"));
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse namespace: expected a list of strings",
                             ParseCreateNamespaceRequest(R"({"namespace": "a"})"));
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot parse properties: the value of 'k' is not a string",
      ParseCreateNamespaceRequest(R"({"namespace": [], "properties": {"k": 1}})"));
  ASSERT_RAISES_WITH_MESSAGE("Malformed request body", ParseCreateNamespaceRequest("{"));
  ASSERT_RAISES_WITH_MESSAGE("expected a JSON object", ParseCreateNamespaceRequest("[]"));
}

TEST(RestJsonTest, ReadsUpdatePropertiesRequests) {
  ASSERT_OK_AND_ASSIGN(auto request, ParseUpdateNamespacePropertiesRequest(
                                         R"({"removals": ["x"], "updates": {"k": "v"}})"));
  EXPECT_EQ(request.removals, (std::vector<std::string>{"x"}));
  EXPECT_EQ(request.updates, (NamespaceProperties{{"k", "v"}}));
  ASSERT_OK_AND_ASSIGN(request, ParseUpdateNamespacePropertiesRequest("{}"));
  EXPECT_TRUE(request.removals.empty() && request.updates.empty());
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse removals: expected a list of strings",
                             ParseUpdateNamespacePropertiesRequest(R"({"removals": [1]})"));
}

TEST(RestJsonTest, SplitsNamespacePathPartsAtTheUnitSeparator) {
  EXPECT_TRUE(NamespaceFromPathPart("").empty());
  EXPECT_EQ(NamespaceFromPathPart("a").levels, (std::vector<std::string>{"a"}));
  EXPECT_EQ(NamespaceFromPathPart("a\x1f"
                                  "b.c")
                .levels,
            (std::vector<std::string>{"a", "b.c"}));
  EXPECT_EQ(NamespaceFromPathPart("a\x1f").levels, (std::vector<std::string>{"a", ""}));
}

// What a client writes (spec/table_update_json) the server reads back unchanged: every
// requirement and every update, in a commit request naming its table.
TEST(RestJsonTest, CommitRequestsWrittenReadBackUnchanged) {
  using Kind = table::UpdateRequirement::Kind;
  namespace u = table::update;
  std::vector<table::UpdateRequirement> requirements;
  for (Kind kind : {Kind::kAssertCreate, Kind::kAssertTableUuid, Kind::kAssertRefSnapshotId,
                    Kind::kAssertLastAssignedFieldId, Kind::kAssertCurrentSchemaId,
                    Kind::kAssertLastAssignedPartitionId, Kind::kAssertDefaultSpecId,
                    Kind::kAssertDefaultSortOrderId}) {
    table::UpdateRequirement r;
    r.kind = kind;
    if (kind == Kind::kAssertTableUuid) r.uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
    if (kind == Kind::kAssertRefSnapshotId) r.ref = "main";
    if (kind != Kind::kAssertCreate && kind != Kind::kAssertTableUuid &&
        kind != Kind::kAssertRefSnapshotId) {
      r.id = 1000 + static_cast<int>(kind);
    }
    requirements.push_back(r);
  }
  table::UpdateRequirement tag = requirements[2];
  tag.ref = "v1";
  tag.snapshot_id = 7;
  requirements.push_back(tag);

  auto schema = std::make_shared<const spec::Schema>(
      3, std::vector<spec::NestedField>{{1, "id", spec::Type::Long(), true, "the key", "", ""},
                                        {2, "n", spec::Type::Int(), false, "", "12", "10"}});
  spec::SortOrder order;
  order.order_id = 1;
  order.fields = {{spec::Transform::Identity(), 1, spec::SortDirection::kDesc,
                   spec::NullOrder::kNullsLast}};
  spec::Snapshot snapshot;
  snapshot.snapshot_id = 42;
  snapshot.parent_snapshot_id = 41;
  snapshot.sequence_number = 5;
  snapshot.timestamp_ms = 1796506120271;
  snapshot.manifest_list = "s3://b/w/db/t/metadata/snap-42.avro";
  snapshot.operation = "append";
  snapshot.summary = {{"added-records", "3"}};
  snapshot.schema_id = 3;
  snapshot.first_row_id = 20;
  snapshot.added_rows = 3;
  spec::SnapshotRef branch;
  branch.snapshot_id = 42;
  branch.min_snapshots_to_keep = 2;
  branch.max_snapshot_age_ms = 3600000;
  branch.max_ref_age_ms = 86400000;
  spec::StatisticsFile statistics;
  statistics.snapshot_id = 42;
  statistics.statistics_path = "s3://b/w/db/t/metadata/42.stats";
  statistics.file_size_in_bytes = 100;
  statistics.file_footer_size_in_bytes = 20;
  statistics.blob_metadata = {{"apache-datasketches-theta-v1", 42, 5, {1}, {{"ndv", "3"}}}};
  spec::PartitionStatisticsFile partition_statistics{42, "s3://b/w/db/t/metadata/42.pstats", 50};
  const std::vector<table::MetadataUpdate> updates = {
      u::AssignUuid{"9c12d441-03fe-4693-9a96-a0705ddf69c1"},
      u::UpgradeFormatVersion{3},
      u::AddSchema{schema},
      u::SetCurrentSchema{-1},
      u::AddPartitionSpec{{{1, 1000, "id_bucket", spec::Transform::Bucket(16)}}, true},
      u::SetDefaultSpec{-1},
      u::AddSortOrder{order},
      u::SetDefaultSortOrder{-1},
      u::AddSnapshot{snapshot},
      u::SetSnapshotRef{"dev", branch},
      u::RemoveSnapshots{{3, 4}},
      u::RemoveSnapshotRef{"old"},
      u::SetLocation{"s3://b/w/db/t"},
      u::SetProperties{{{"owner", "ana"}, {"k \"q\"", "v"}}},
      u::RemoveProperties{{"gone"}},
      u::SetStatistics{statistics},
      u::RemoveStatistics{41},
      u::SetPartitionStatistics{partition_statistics},
      u::RemovePartitionStatistics{41},
      u::RemovePartitionSpecs{{1, 2}},
      u::RemoveSchemas{{0}},
  };
  const std::string body =
      spec::CommitRequestToJson(requirements, updates, spec::CommitTarget{{"db", "eu"}, "t"});
  ASSERT_OK_AND_ASSIGN(auto read, ParseCommitTableRequest(body));
  ASSERT_TRUE(read.identifier.has_value());
  EXPECT_EQ(read.identifier->ToString(), "db.eu.t");
  ASSERT_EQ(read.requirements.size(), requirements.size());
  for (size_t i = 0; i < requirements.size(); ++i) {
    EXPECT_EQ(spec::RequirementToJson(read.requirements[i]), spec::RequirementToJson(requirements[i]));
    EXPECT_EQ(read.requirements[i].snapshot_id, requirements[i].snapshot_id) << i;
  }
  ASSERT_EQ(read.updates.size(), updates.size());
  for (size_t i = 0; i < updates.size(); ++i) {
    EXPECT_EQ(read.updates[i].index(), updates[i].index()) << i;
    EXPECT_EQ(spec::UpdateToJson(read.updates[i]), spec::UpdateToJson(updates[i])) << i;
  }
  // Values compared beyond their JSON.
  EXPECT_EQ(std::get<u::AddSnapshot>(read.updates[8]).snapshot, snapshot);
  EXPECT_EQ(std::get<u::SetSnapshotRef>(read.updates[9]).ref, branch);
  EXPECT_EQ(std::get<u::SetStatistics>(read.updates[15]).statistics, statistics);
  EXPECT_TRUE(std::get<u::AddSchema>(read.updates[2]).schema->Equals(*schema));
  // The shapes the REST spec gives.
  EXPECT_EQ(spec::RequirementToJson(requirements[2]),
            R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null})");
  EXPECT_EQ(spec::UpdateToJson(updates[9]),
            R"({"action":"set-snapshot-ref","ref-name":"dev","snapshot-id":42,"type":"branch",)"
            R"("min-snapshots-to-keep":2,"max-snapshot-age-ms":3600000,"max-ref-age-ms":86400000})");
  EXPECT_EQ(spec::UpdateToJson(updates[10]), R"({"action":"remove-snapshots","snapshot-ids":[3,4]})");
  EXPECT_EQ(spec::CommitRequestToJson({}, {}), R"({"requirements":[],"updates":[]})");
}

}  // namespace
}  // namespace floe::server::rest
