// SET floe.read.run-manifest pins reads to a run manifest's snapshots; snapshot provenance
// records the statement, the user and the client of each commit.

#include <fstream>

#include <gtest/gtest.h>

#include "floe/table/commit_provenance.h"
#include "floe/table/run_manifest.h"
#include "session_fixture.h"

namespace floe::sql::testing {
namespace {

class ReadPointTest : public SessionFixture {
 protected:
  // Records the current snapshot of each table into a run manifest file.
  std::string WriteManifest(const std::vector<std::string>& tables) {
    std::string json = R"({"run_started_at_ms": 1, "sources": {)";
    for (size_t i = 0; i < tables.size(); ++i) {
      std::string id =
          Value("SELECT snapshot_id FROM " + tables[i] +
                ".history WHERE is_current_ancestor ORDER BY made_current_at DESC LIMIT 1");
      json += (i ? ", " : "") + std::string("\"lakehouse.") + tables[i] +
              "\": {\"snapshot_id\": " + id + "}";
    }
    json += "}}";
    std::string path = dir_.str() + "/run.json";
    std::ofstream(path) << json;
    return path;
  }
};

TEST_F(ReadPointTest, RunManifestPinsListedTablesOnly) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.a (id BIGINT)");
  Ok("CREATE TABLE db.b (id BIGINT)");
  Ok("INSERT INTO db.a VALUES (1), (2)");
  Ok("INSERT INTO db.b VALUES (10)");
  std::string path = WriteManifest({"db.a"});
  Ok("INSERT INTO db.a VALUES (3)");
  Ok("INSERT INTO db.b VALUES (11)");

  Ok("SET floe.read.run-manifest = '" + path + "'");
  EXPECT_EQ(Value("SELECT count(*) FROM db.a"), "2");
  EXPECT_EQ(Value("SELECT count(*) FROM db.b"), "2");  // not in the manifest: current
  EXPECT_EQ(Value("SELECT count(*) FROM db.a VERSION AS OF 'main'"), "3");  // its own AS OF wins
  // A write's target reads its current state: id 3 is deleted although the pinned read
  // does not see it.
  Ok("DELETE FROM db.a WHERE id = 3");
  EXPECT_EQ(Value("SELECT count(*) FROM db.a"), "2");
  Ok("SET floe.read.run-manifest = ''");
  EXPECT_EQ(Value("SELECT count(*) FROM db.a"), "2");
  EXPECT_EQ(Value("SELECT max(id) FROM db.a"), "2");
}

TEST_F(ReadPointTest, RunManifestOfAnotherTableWithTheSameNameIsRefused) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.a (id BIGINT)");
  Ok("INSERT INTO db.a VALUES (1)");
  std::string id = Value("SELECT snapshot_id FROM db.a.snapshots");
  std::string uuid_json = R"({"sources": {"lakehouse.db.a": {"snapshot_id": )" + id +
                          R"(, "table_uuid": "00000000-0000-0000-0000-000000000000"}}})";
  std::string path = dir_.str() + "/other.json";
  std::ofstream(path) << uuid_json;
  Ok("SET floe.read.run-manifest = '" + path + "'");
  std::string error = Error("SELECT * FROM db.a");
  EXPECT_NE(error.find("Table lakehouse.db.a is not the table the run manifest recorded (uuid "),
            std::string::npos)
      << error;
}

TEST_F(ReadPointTest, ExplainNamesEachTablesSnapshot) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.a (id BIGINT)");
  Ok("CREATE TABLE db.b (id BIGINT)");
  Ok("INSERT INTO db.a VALUES (1)");
  Ok("INSERT INTO db.b VALUES (2)");
  const std::string a = Value("SELECT snapshot_id FROM db.a.snapshots");
  const std::string b = Value("SELECT snapshot_id FROM db.b.snapshots");
  auto time_travel_section = [&](const std::string& query) {
    std::string plan = Value("EXPLAIN " + query);
    size_t from = plan.find("== Time travel ==\n");
    size_t to = plan.find("\n\n", from);
    return plan.substr(from, to - from);
  };
  EXPECT_EQ(time_travel_section("SELECT * FROM db.a JOIN db.b ON true"),
            "== Time travel ==\nlakehouse.db.a -> snapshot " + a +
                " (current)\nlakehouse.db.b -> snapshot " + b + " (current)");
  Ok("SET floe.read.as-of = '2999-01-01 00:00:00'");
  EXPECT_EQ(time_travel_section("SELECT * FROM db.a JOIN db.b VERSION AS OF " + b + " ON true"),
            "== Time travel ==\nlakehouse.db.a TIMESTAMP AS OF 2999-01-01T00:00:00+00:00 "
            "(floe.read.as-of) -> snapshot " +
                a + "\nlakehouse.db.b VERSION AS OF " + b + " -> snapshot " + b);
}

TEST_F(ReadPointTest, BadRunManifestIsRefusedBySet) {
  std::string path = dir_.str() + "/bad.json";
  std::ofstream(path) << "{\"sources\": 3}";
  std::string error = Error("SET floe.read.run-manifest = '" + path + "'");
  EXPECT_EQ(error, "Invalid floe.read.run-manifest: " + path +
                       ": Invalid run manifest: no \"sources\" object");
  EXPECT_EQ(Value("SET floe.read.run-manifest"), "floe.read.run-manifest|<undefined>");
}

TEST_F(ReadPointTest, CommitsRecordStatementUserAndClient) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.a (id BIGINT)");
  Ok("INSERT   INTO db.a\n  VALUES (1)");
  EXPECT_EQ(Value("SELECT summary['floe.statement'], summary['floe.client'] FROM db.a.snapshots"),
            "INSERT INTO db.a VALUES (1)|c++ api");
  EXPECT_EQ(Value("SELECT summary['floe.user'] FROM db.a.snapshots"), table::OperatingSystemUser());
  EXPECT_FALSE(table::OperatingSystemUser().empty());
}

TEST(CommitProvenanceTest, LongStatementsAreCutAtACharacterBoundary) {
  std::string statement =
      "SELECT '" + std::string(table::kMaxStatementBytes - 9, 'x') + "\xc3\xa9xyz'";
  std::string cut = table::TruncateStatement(statement);
  // 499 ASCII bytes, then a two-byte character that would straddle the limit: cut before it.
  EXPECT_EQ(cut.size(), table::kMaxStatementBytes - 1 + 3);
  EXPECT_EQ(cut.substr(cut.size() - 4), "x...");
  EXPECT_EQ(table::TruncateStatement("  a \n\t b  "), "a b");
}

}  // namespace
}  // namespace floe::sql::testing
