// Protection rules: how their properties read, which moves each allows, and a refused commit
// leaving the table as it was with one `refused` row in the audit log.
#include "floe/table/protection.h"

#include <gtest/gtest.h>

#include "floe/table/restore_table.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table_metadata_builder.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;

spec::TableMetadata WithProperties(std::map<std::string, std::string> properties) {
  spec::TableMetadata md;
  md.properties = std::move(properties);
  return md;
}

TEST(ProtectionRulesTest, PropertiesReadAsRules) {
  auto rules =
      ProtectionRules(WithProperties({{"floe.protected.branch.main", "fast-forward, Rollback"},
                                      {"floe.protected.branch.dev", "none"},
                                      {"floe.protected.branch.odd", "everything,cherry"},
                                      {"floe.protected.tag.v1", "locked"},
                                      {"floe.protected.tag.", "locked"},
                                      {"owner", "ops"}}));
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_EQ(rules[0].ref, "dev");
  EXPECT_EQ(rules[0].Describe(), "branch 'dev' is protected and allows no change");
  EXPECT_EQ(rules[1].ref, "main");
  EXPECT_EQ(rules[1].Describe(),
            "branch 'main' is protected and allows only fast-forward, rollback");
  EXPECT_EQ(rules[1].PropertyValue(), "fast-forward,rollback");
  // Words it does not know allow nothing: the safe reading.
  EXPECT_EQ(rules[2].Describe(), "branch 'odd' is protected and allows no change");
  EXPECT_EQ(rules[3].Describe(), "tag 'v1' is locked");
  EXPECT_EQ(rules[3].PropertyKey(), "floe.protected.tag.v1");
  EXPECT_TRUE(IsProtectionProperty("floe.protected.tag.x"));
  EXPECT_FALSE(IsProtectionProperty("floe.protected"));
}

class ProtectionTest : public floe::testing::PeopleTableTest {};

TEST_F(ProtectionTest, EachMoveOfAProtectedBranchNeedsItsAllowance) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 2)));
  ASSERT_OK_AND_ASSIGN(int64_t s2, AppendData(*table_, *People(2, 2)));
  auto at_s2 = table_->metadata();
  ProtectionRule rule;
  rule.ref = "main";
  ASSERT_OK(SetProtection(*table_, rule));
  auto protected_at_s2 = table_->metadata();

  // A rollback to s1, judged by the rules of the metadata it starts from.
  TableMetadataBuilder back(protected_at_s2);
  spec::SnapshotRef main;
  main.snapshot_id = s1;
  ASSERT_OK(back.SetRef(spec::kMainBranch, main));
  auto rolled_back = back.Build();
  EXPECT_EQ(ProtectionViolations("t", *protected_at_s2, *rolled_back),
            std::vector<std::string>{
                "Cannot roll back branch 'main' of t from " + std::to_string(s2) + " to " +
                std::to_string(s1) +
                ": branch 'main' is protected and allows no change (ALTER TABLE t UNSET "
                "PROTECTION ON BRANCH main lifts the rule)"});
  EXPECT_TRUE(ProtectionViolations("t", *at_s2, *rolled_back).empty())
      << "no rule before the rule was set";
  auto allowing = std::make_shared<spec::TableMetadata>(*protected_at_s2);
  allowing->properties["floe.protected.branch.main"] = "rollback";
  EXPECT_TRUE(ProtectionViolations("t", *allowing, *rolled_back).empty());
  // The way back is a fast-forward, which the rollback allowance does not cover.
  auto forward_rule = std::make_shared<spec::TableMetadata>(*rolled_back);
  forward_rule->properties["floe.protected.branch.main"] = "rollback";
  EXPECT_EQ(ProtectionViolations("t", *forward_rule, *protected_at_s2).size(), 1u);
  forward_rule->properties["floe.protected.branch.main"] = "fast-forward";
  EXPECT_TRUE(ProtectionViolations("t", *forward_rule, *protected_at_s2).empty());
}

TEST_F(ProtectionTest, ARefusedCommitChangesNothingAndIsRecorded) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 2)));
  ProtectionRule rule;
  rule.ref = "main";
  rule.allow_fast_forward = true;
  ASSERT_OK(SetProtection(*table_, rule));
  const std::string location = table_->metadata_location();
  const std::set<std::string> files =
      floe::testing::FilesUnder(*table_->io(), table_->metadata()->location);
  auto appended = AppendData(*table_, *People(2, 2));
  ASSERT_FALSE(appended.ok());
  EXPECT_NE(appended.status().message().find(
                "directly to branch 'main' of lakehouse.db.people: branch 'main' "
                "is protected and allows only fast-forward"),
            std::string::npos)
      << appended.status().ToString();
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(table_->metadata_location(), location);
  EXPECT_EQ(table_->metadata()->current_snapshot_id, s1);
  // The refused attempt's data, manifest, manifest list and metadata file are gone.
  EXPECT_EQ(floe::testing::FilesUnder(*table_->io(), table_->metadata()->location), files);
  AuditQuery query;
  query.table = ident_;
  query.limit = 1;
  ASSERT_OK_AND_ASSIGN(auto rows, table_->catalog()->ReadAuditLog(query));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, "refused");
  EXPECT_EQ(rows[0].previous_metadata_location, location);
  EXPECT_EQ(rows[0].metadata_location, location);
  EXPECT_EQ(rows[0].snapshot_id, s1);
  EXPECT_EQ(rows[0].detail, appended.status().message());
}

TEST_F(ProtectionTest, ALockedTagKeepsItsSnapshotThroughExpiryAndRestore) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 2)));
  ASSERT_OK_AND_ASSIGN(int64_t s2, AppendData(*table_, *People(2, 2)));
  const std::string before_tag_file = table_->metadata_location();
  RefOptions tag;
  tag.snapshot_id = s1;
  ASSERT_OK(CreateOrReplaceTag(*table_, "v1", tag));
  ProtectionRule rule;
  rule.branch = false;
  rule.ref = "v1";
  ASSERT_OK(SetProtection(*table_, rule));
  EXPECT_EQ(CheckExpiryProtection(*table_->metadata(), {s2}).ToString(), "OK");
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot expire snapshot " + std::to_string(s1) + ": tag 'v1' is locked and reaches it",
      CheckExpiryProtection(*table_->metadata(), {s2, s1}));
  // A restore to a state before the tag existed would drop it: refused.
  RestorePoint before_tag;
  before_tag.metadata_file = before_tag_file;
  ASSERT_OK_AND_ASSIGN(auto target, ResolveRestorePoint(*table_, before_tag));
  EXPECT_EQ(target.metadata->current_snapshot_id, s2);
  EXPECT_FALSE(target.metadata->refs.count("v1"));
  auto restored = RestoreTable(*table_, before_tag);
  ASSERT_FALSE(restored.ok());
  EXPECT_NE(restored.status().message().find(
                "Cannot drop tag 'v1' of lakehouse.db.people: tag 'v1' is locked"),
            std::string::npos)
      << restored.status().ToString();
  EXPECT_EQ(table_->metadata()->refs.at("v1").snapshot_id, s1);
}

// Moves by a writer that goes straight to the catalog (no floe provenance): the log is read
// a page at a time, and every page size finds the same violations in the same order.
TEST_F(ProtectionTest, ViolationsInTheLogAreFoundPageByPage) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, AppendData(*table_, *People(0, 2)));
  ASSERT_OK(AppendData(*table_, *People(2, 2)).status());
  const std::string at_s2 = table_->metadata_location();
  ASSERT_OK(RollbackToSnapshot(*table_, s1).status());
  ProtectionRule rule;
  rule.ref = "main";
  ASSERT_OK(SetProtection(*table_, rule));
  const std::string protected_at_s1 = table_->metadata_location();
  // Forward to s2 moves the protected main; back again starts where there is no rule.
  std::string from = protected_at_s1;
  for (int i = 0; i < 10; ++i) {
    const std::string to = from == protected_at_s1 ? at_s2 : protected_at_s1;
    ASSERT_OK(table_->catalog()->SwapMetadataLocation(ident_, from, to));
    from = to;
  }
  AuditQuery query;
  query.table = ident_;
  query.limit = 10;
  ASSERT_OK_AND_ASSIGN(auto moves, table_->catalog()->ReadAuditLog(query));
  std::vector<std::string> expected;
  for (auto it = moves.rbegin(); it != moves.rend(); ++it) {
    if (*it->previous_metadata_location != protected_at_s1) continue;
    expected.push_back(StrCat("audit log entry ", it->seq, " (external): "));
  }
  ASSERT_EQ(expected.size(), 5u);
  for (int64_t page : {1, 2, 3, 7, 500}) {
    ASSERT_OK_AND_ASSIGN(auto found, AuditedProtectionViolations(*table_, page));
    ASSERT_EQ(found.size(), expected.size()) << "page size " << page;
    for (size_t i = 0; i < found.size(); ++i) {
      EXPECT_EQ(found[i].substr(0, expected[i].size()), expected[i]) << "page size " << page;
      EXPECT_NE(found[i].find("Cannot fast-forward branch 'main' of lakehouse.db.people"),
                std::string::npos)
          << found[i];
    }
  }
}

}  // namespace
}  // namespace floe::table
