#include "floe/table/catalog_tags.h"

#include "floe/table/protection.h"
#include "floe/table/snapshot_producer.h"
#include "forwarding_catalog.h"
#include "table_test_util.h"

namespace floe::table {
namespace {

using floe::testing::People;

// The SQL catalog, seen through a catalog that notes every multi-table swap and can let
// another writer commit to a table just before each one.
class WatchedCatalog : public floe::testing::ForwardingCatalog {
 public:
  using ForwardingCatalog::ForwardingCatalog;

  Status SwapMetadataLocations(const std::vector<TableSwap>& swaps,
                               const CatalogTagChange* catalog_tag) override {
    if (interfere) ARROW_RETURN_NOT_OK(interfere());
    seen.push_back(swaps);
    return inner_->SwapMetadataLocations(swaps, catalog_tag);
  }
  bool KeepsCatalogTags() const override { return keeps_tags && inner_->KeepsCatalogTags(); }
  Result<std::optional<CatalogTag>> LoadCatalogTag(const std::string& name) override {
    return inner_->LoadCatalogTag(name);
  }
  Result<std::vector<CatalogTag>> ListCatalogTags() override { return inner_->ListCatalogTags(); }
  Result<std::vector<AuditEntry>> ReadAuditLog(const AuditQuery& query) override {
    return inner_->ReadAuditLog(query);
  }
  bool HasAuditLog() const override { return inner_->HasAuditLog(); }

  std::function<Status()> interfere;
  std::vector<std::vector<TableSwap>> seen;
  bool keeps_tags = true;
};

class CatalogTagsTest : public floe::testing::PeopleTableTest {
 protected:
  void SetUp() override {
    PeopleTableTest::SetUp();
    ASSERT_OK_AND_ASSIGN(auto schema, SchemaFromArrow(*People(0, 1)->schema()));
    ASSERT_OK_AND_ASSIGN(other_, wh_.tables->CreateTable(other_ident_, *schema));
    ASSERT_OK(AppendData(*table_, *People(0, 2)).status());
    ASSERT_OK(AppendData(*other_, *People(0, 2)).status());
    watched_ = std::make_shared<WatchedCatalog>(wh_.catalog);
    tables_ = std::make_unique<TableCatalog>(watched_, wh_.io);
  }

  std::optional<int64_t> Main(Table& table) {
    EXPECT_OK(table.Refresh());
    return table.metadata()->current_snapshot_id;
  }
  std::string Location(const TableIdentifier& ident) {
    return wh_.catalog->LoadMetadataLocation(ident).ValueOr("");
  }

  TableIdentifier other_ident_{Namespace({"db"}), "other"};
  std::shared_ptr<Table> other_;
  std::shared_ptr<WatchedCatalog> watched_;
  std::unique_ptr<TableCatalog> tables_;
};

TEST_F(CatalogTagsTest, EveryTableIsTaggedInOneSwapSharingOneTransactionId) {
  ASSERT_OK_AND_ASSIGN(auto rows, CreateCatalogTag(*tables_, "run_1", {}));
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(watched_->seen.size(), 1u);
  const auto& swaps = watched_->seen[0];
  ASSERT_EQ(swaps.size(), 2u);
  EXPECT_FALSE(swaps[0].record.transaction_id.empty());
  EXPECT_EQ(swaps[0].record.transaction_id, swaps[1].record.transaction_id);
  EXPECT_EQ(swaps[0].record.kind, audit_kind::kRefCreate);
  ASSERT_OK_AND_ASSIGN(auto tag, wh_.catalog->LoadCatalogTag("run_1"));
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->transaction_id, swaps[0].record.transaction_id);
  EXPECT_EQ(tag->tables.size(), 2u);

  // The rollback and the drop: one swap each, a fresh id each.
  ASSERT_OK(AppendData(*table_, *People(2, 2)).status());
  ASSERT_OK(AppendData(*other_, *People(2, 2)).status());
  ASSERT_OK(RollbackToCatalogTag(*tables_, "run_1", {}).status());
  ASSERT_OK(DropCatalogTag(*tables_, "run_1").status());
  ASSERT_EQ(watched_->seen.size(), 3u);
  std::set<std::string> ids;
  for (const auto& statement : watched_->seen) {
    ASSERT_EQ(statement.size(), 2u);
    EXPECT_EQ(statement[0].record.transaction_id, statement[1].record.transaction_id);
    ids.insert(statement[0].record.transaction_id);
  }
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(watched_->seen[1][0].record.kind, audit_kind::kRollback);
  EXPECT_EQ(watched_->seen[2][0].record.kind, audit_kind::kRefDrop);
}

TEST_F(CatalogTagsTest, AWriterThatKeepsWinningFailsTheTagAndNothingMoves) {
  const std::string people = Location(ident_);
  int writes = 0;
  watched_->interfere = [&]() -> Status {
    ++writes;
    return AppendData(*other_, *People(10 + writes, 1)).status();
  };
  Status st = CreateCatalogTag(*tables_, "run_1", {}).status();
  EXPECT_TRUE(IsCommitConflict(st)) << st.ToString();
  EXPECT_GT(writes, 1);  // read again and tried again
  watched_->interfere = nullptr;
  EXPECT_EQ(Location(ident_), people);
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(table_->metadata()->refs.count("run_1"), 0u);
  ASSERT_OK(other_->Refresh());
  EXPECT_EQ(other_->metadata()->refs.count("run_1"), 0u);
  ASSERT_OK_AND_ASSIGN(auto tag, wh_.catalog->LoadCatalogTag("run_1"));
  EXPECT_FALSE(tag.has_value());

  // A writer that wins once: the tag is taken again from fresh metadata, at the new snapshot.
  writes = 0;
  watched_->interfere = [&]() -> Status {
    if (writes++ > 0) return Status::OK();
    return AppendData(*other_, *People(20, 1)).status();
  };
  ASSERT_OK_AND_ASSIGN(auto rows, CreateCatalogTag(*tables_, "run_1", {}));
  ASSERT_EQ(rows[0].ident, other_ident_);
  EXPECT_EQ(rows[0].snapshot_id, Main(*other_));
  EXPECT_EQ(other_->metadata()->refs.at("run_1").snapshot_id, *Main(*other_));
}

TEST_F(CatalogTagsTest, AProtectedTableFailsTheWholeRollback) {
  ASSERT_OK(CreateCatalogTag(*tables_, "run_1", {}).status());
  const auto tagged_people = Main(*table_);
  ASSERT_OK(AppendData(*table_, *People(2, 2)).status());
  ASSERT_OK(AppendData(*other_, *People(2, 2)).status());
  const auto people = Main(*table_), other = Main(*other_);
  ProtectionRule rule;
  rule.ref = "main";
  ASSERT_OK(SetProtection(*other_, rule));
  Status st = RollbackToCatalogTag(*tables_, "run_1", {}).status();
  EXPECT_EQ(KindOf(st), ErrorKind::kValidation) << st.ToString();
  EXPECT_NE(st.message().find("lakehouse.db.other"), std::string::npos) << st.message();
  EXPECT_EQ(Main(*table_), people);
  EXPECT_EQ(Main(*other_), other);

  // A locked tag refuses the drop of the catalog tag: no table loses its tag.
  ProtectionRule lock;
  lock.branch = false;
  lock.ref = "run_1";
  ASSERT_OK(SetProtection(*table_, lock));
  EXPECT_FALSE(DropCatalogTag(*tables_, "run_1").ok());
  ASSERT_OK(other_->Refresh());
  EXPECT_EQ(other_->metadata()->refs.count("run_1"), 1u);
  ASSERT_OK_AND_ASSIGN(auto tag, wh_.catalog->LoadCatalogTag("run_1"));
  EXPECT_TRUE(tag.has_value());

  // A dry run plans without moving anything.
  RollbackToCatalogTagOptions dry;
  dry.dry_run = true;
  ASSERT_OK(SetProtection(*other_, ProtectionRule{true, "main", true, true, true}));
  ASSERT_OK_AND_ASSIGN(auto plan, RollbackToCatalogTag(*tables_, "run_1", dry));
  ASSERT_EQ(plan[1].ident, ident_);
  EXPECT_EQ(plan[1].current_snapshot_id, tagged_people);
  EXPECT_EQ(Main(*table_), people);
}

TEST_F(CatalogTagsTest, ACatalogWithoutARecordOfTagsIsRefused) {
  watched_->keeps_tags = false;
  EXPECT_EQ(CreateCatalogTag(*tables_, "run_1", {}).status().message(),
            "Cannot create catalog tag run_1: catalog lakehouse has no place to record the tables "
            "a catalog tag covers; catalog tags need a SQL catalog (SQLite or PostgreSQL)");
  EXPECT_TRUE(watched_->seen.empty());
}

}  // namespace
}  // namespace floe::table
