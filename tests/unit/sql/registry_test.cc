// The procedure and metadata-table registries: each entry is well formed, and each is reachable
// from SQL under its registered name.

#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/sql/metadata/metadata_tables.h"
#include "floe/sql/procedures/procedure_registry.h"
#include "session_fixture.h"

namespace floe::sql {
namespace {

using ::testing::ElementsAre;

TEST(ProcedureRegistry, EntriesAreSortedUniqueAndTakeATableFirst) {
  std::set<std::string> names;
  std::string previous;
  for (const auto& p : AllProcedures()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_LT(previous, p.name);
    previous = p.name;
    EXPECT_FALSE(p.description.empty()) << p.name;
    ASSERT_FALSE(p.parameters.empty()) << p.name;
    // The table first; a procedure of the whole catalog has none.
    bool has_table = false;
    for (const auto& param : p.parameters) has_table = has_table || param.name == "table";
    if (has_table) {
      EXPECT_EQ(p.parameters[0].name, "table") << p.name;
    }
    EXPECT_TRUE(p.parameters[0].required) << p.name;
    EXPECT_TRUE(p.result_schema != nullptr) << p.name;
    EXPECT_TRUE(static_cast<bool>(p.run)) << p.name;
    // Required parameters come first, so positional calls can leave out the optional ones.
    bool optional_seen = false;
    for (const auto& param : p.parameters) {
      EXPECT_FALSE(optional_seen && param.required) << p.name << "." << param.name;
      optional_seen = optional_seen || !param.required;
    }
  }
  EXPECT_EQ(FindProcedure("ROLLBACK_TO_SNAPSHOT"), FindProcedure("rollback_to_snapshot"));
  EXPECT_EQ(FindProcedure("rollback"), nullptr);
  EXPECT_EQ(ClosestProcedureName("set_current"), "set_current_snapshot");
}

TEST(MetadataTableRegistry, EntriesAreSortedAndUnique) {
  std::string previous;
  for (const auto& t : AllMetadataTables()) {
    EXPECT_LT(previous, t.name);
    previous = t.name;
    EXPECT_FALSE(t.description.empty()) << t.name;
    EXPECT_TRUE(IsMetadataTableName(t.name));
  }
  EXPECT_FALSE(IsMetadataTableName("snapshot"));
}

class RegisteredMetadataTables : public testing::SessionFixture {};

// Every registered name answers a query, on a table with history and on one without.
TEST_F(RegisteredMetadataTables, EachAnswersUnderItsName) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.t (id BIGINT, day DATE) USING iceberg PARTITIONED BY (day)");
  Ok("CREATE TABLE db.empty (id BIGINT) USING iceberg");
  Ok("INSERT INTO db.t VALUES (1, DATE '2024-01-01')");
  Ok("INSERT INTO db.t VALUES (2, DATE '2024-01-02')");
  for (const auto& t : AllMetadataTables()) {
    auto with_history = session_->Execute("SELECT * FROM db.t." + t.name);
    EXPECT_TRUE(with_history.ok()) << t.name << ": " << with_history.status().ToString();
    auto trino = session_->Execute("SELECT count(*) FROM db.\"empty$" + t.name + "\"");
    EXPECT_TRUE(trino.ok()) << t.name << ": " << trino.status().ToString();
  }
  EXPECT_THAT(Rows("SELECT count(*) FROM db.empty.all_entries"), ElementsAre("0"));
  EXPECT_THAT(Rows("SELECT count(*) FROM db.t.all_entries"), ElementsAre("2"));
}

}  // namespace
}  // namespace floe::sql
