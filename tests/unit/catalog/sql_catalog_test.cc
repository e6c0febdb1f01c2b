#include "floe/catalog/sql_catalog.h"
#include "floe/catalog/sqlite_driver.h"

#include <atomic>
#include <barrier>
#include <thread>

#include "floe_test.h"
#include "unit/catalog/catalog_names.h"
#include "unit/catalog/raw_database.h"

namespace floe {
namespace {

using testing::Ns;
using testing::Tbl;

enum class Backend { kSqlite, kPostgres };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "sqlite" : "postgresql";
}

void PrintTo(Backend backend, std::ostream* os) {
  *os << (backend == Backend::kSqlite ? "SQLite" : "PostgreSQL");
}

// The catalog conformance suite: each test runs on a SQLite file and on a fresh PostgreSQL
// database, through the same SqlCatalog, and checks the rows other engines would read.
class SqlCatalogTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    uri_ = FreshUri();
    ASSERT_FALSE(uri_.empty());
    ASSERT_OK_AND_ASSIGN(catalog_,
                         SqlCatalog::Open(uri_, "lakehouse", "file:" + dir_.str() + "/wh/"));
  }

  // A new empty catalog database of this test's backend.
  std::string FreshUri() {
    if (GetParam() == Backend::kPostgres) return testing::FreshPostgresDatabase();
    return StrCat(dir_.str(), "/catalog", files_++, ".db");
  }
  std::unique_ptr<testing::RawDatabase> Raw(const std::string& uri) {
    if (GetParam() == Backend::kPostgres) return std::make_unique<testing::RawPostgres>(uri);
    return std::make_unique<testing::RawSqlite>(uri);
  }
  std::unique_ptr<testing::RawDatabase> Raw() { return Raw(uri_); }

  testing::TempDir dir_;
  int files_ = 0;
  std::string uri_;
  std::unique_ptr<SqlCatalog> catalog_;
};

INSTANTIATE_TEST_SUITE_P(Backends, SqlCatalogTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

// What only a SQLite file has: URI forms, WAL mode, the busy timeout.
class SqliteCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.str() + "/catalog.db";
    ASSERT_OK_AND_ASSIGN(catalog_,
                         SqlCatalog::Open(path_, "lakehouse", "file:" + dir_.str() + "/wh/"));
  }

  testing::TempDir dir_;
  std::string path_;
  std::unique_ptr<SqlCatalog> catalog_;
};

using RawDb = testing::RawSqlite;

TEST(SqliteDatabasePathTest, UriForms) {
  auto path = [](std::string_view uri) { return SqliteDatabasePath(uri).ValueOrDie(); };
  EXPECT_EQ(path("/tmp/cat.db"), "/tmp/cat.db");
  EXPECT_EQ(path("rel/cat.db"), "rel/cat.db");
  EXPECT_EQ(path("sqlite:////tmp/cat.db"), "/tmp/cat.db");
  EXPECT_EQ(path("sqlite:///cat.db"), "cat.db");
  EXPECT_EQ(path("sqlite+pysqlite:////tmp/cat.db"), "/tmp/cat.db");
  EXPECT_EQ(path("sqlite://"), ":memory:");
  EXPECT_EQ(path("sqlite:///:memory:"), ":memory:");
  EXPECT_EQ(path("jdbc:sqlite:/tmp/cat.db"), "/tmp/cat.db");
  EXPECT_EQ(path("jdbc:sqlite:file:/tmp/cat.db"), "/tmp/cat.db");
  EXPECT_EQ(path("jdbc:sqlite:/tmp/cat.db?journal_mode=WAL"), "/tmp/cat.db");
  EXPECT_EQ(path("jdbc:sqlite::memory:"), ":memory:");
  EXPECT_EQ(path("file:///tmp/cat.db"), "/tmp/cat.db");
  EXPECT_EQ(path(":memory:"), ":memory:");
  ASSERT_RAISES_WITH_MESSAGE("floe's catalogs are SQLite files and PostgreSQL databases",
                             SqliteDatabasePath("jdbc:mysql://h/db"));
  ASSERT_RAISES_WITH_MESSAGE("floe's catalogs are SQLite files and PostgreSQL databases",
                             SqliteDatabasePath("mysql://h/db"));
}

TEST(SqlCatalogOpenTest, OpensEveryUriFormOfOneFile) {
  testing::TempDir dir;
  const std::string file = dir.str() + "/c.db";
  ASSERT_OK_AND_ASSIGN(auto a, SqlCatalog::Open(file));
  ASSERT_OK(a->CreateNamespace(Ns({"db"}), {}));
  for (const std::string& uri : {"sqlite:///" + file, "jdbc:sqlite:" + file, "file://" + file}) {
    ASSERT_OK_AND_ASSIGN(auto b, SqlCatalog::Open(uri));
    EXPECT_EQ(b->database_path(), file);
    ASSERT_OK_AND_ASSIGN(bool exists, b->NamespaceExists(Ns({"db"})));
    EXPECT_TRUE(exists) << uri;
  }
  ASSERT_OK_AND_ASSIGN(auto memory, SqlCatalog::Open("sqlite://"));
  ASSERT_OK(memory->CreateNamespace(Ns({"m"}), {}));
  ASSERT_RAISES_WITH_MESSAGE("Cannot open catalog database " + dir.str() + "/no/such/dir/c.db",
                             SqlCatalog::Open(dir.str() + "/no/such/dir/c.db"));
}

TEST_P(SqlCatalogTest, CreatesJdbcCatalogTables) {
  auto raw = Raw();
  EXPECT_THAT(raw->Columns("iceberg_tables"),
              ::testing::ElementsAre(
                  "catalog_name|VARCHAR(255)|1|1", "table_namespace|VARCHAR(255)|1|2",
                  "table_name|VARCHAR(255)|1|3", "metadata_location|VARCHAR(1000)|0|0",
                  "previous_metadata_location|VARCHAR(1000)|0|0", "iceberg_type|VARCHAR(5)|0|0"));
  // The same DDL: PostgreSQL makes a primary-key column NOT NULL, SQLite does not.
  const std::string key_not_null = GetParam() == Backend::kPostgres ? "1" : "0";
  EXPECT_THAT(raw->Columns("iceberg_namespace_properties"),
              ::testing::ElementsAre("catalog_name|VARCHAR(255)|1|1", "namespace|VARCHAR(255)|1|2",
                                     "property_key|VARCHAR(255)|" + key_not_null + "|3",
                                     "property_value|VARCHAR(1000)|0|0"));
  EXPECT_FALSE(raw->HasTable("floe_dropped_tables"));
}

TEST_P(SqlCatalogTest, NamespacesCreateListExistsDrop) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {{"owner", "ana"}}));
  ASSERT_OK(catalog_->CreateNamespace(Ns({"a", "b", "c"}), {}));
  ASSERT_OK(catalog_->CreateNamespace(Ns({"a", "x"}), {}));

  Status st = catalog_->CreateNamespace(Ns({"db"}), {});
  EXPECT_TRUE(IsAlreadyExists(st));
  EXPECT_EQ(st.message(), "Namespace already exists: db");
  // A parent exists through its children, as in JdbcCatalog.
  ASSERT_RAISES_WITH_MESSAGE("Namespace already exists: a.b",
                             catalog_->CreateNamespace(Ns({"a", "b"}), {}));

  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->NamespaceExists(Ns({"a"})));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, catalog_->NamespaceExists(Ns({"a", "b"})));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, catalog_->NamespaceExists(Ns({"A"})));
  EXPECT_FALSE(exists);
  ASSERT_OK_AND_ASSIGN(exists, catalog_->NamespaceExists(Ns({"a", "b", "c", "d"})));
  EXPECT_FALSE(exists);
  // "a_" must not match "ab" or "a.x" through LIKE wildcards.
  ASSERT_OK_AND_ASSIGN(exists, catalog_->NamespaceExists(Ns({"a_"})));
  EXPECT_FALSE(exists);

  ASSERT_OK_AND_ASSIGN(auto top, catalog_->ListNamespaces(Namespace()));
  EXPECT_THAT(top, ::testing::ElementsAre(Ns({"a"}), Ns({"db"})));
  ASSERT_OK_AND_ASSIGN(auto under_a, catalog_->ListNamespaces(Ns({"a"})));
  EXPECT_THAT(under_a, ::testing::ElementsAre(Ns({"a", "b"}), Ns({"a", "x"})));
  ASSERT_OK_AND_ASSIGN(auto under_ab, catalog_->ListNamespaces(Ns({"a", "b"})));
  EXPECT_THAT(under_ab, ::testing::ElementsAre(Ns({"a", "b", "c"})));
  ASSERT_OK_AND_ASSIGN(auto leaf, catalog_->ListNamespaces(Ns({"db"})));
  EXPECT_TRUE(leaf.empty());
  st = catalog_->ListNamespaces(Ns({"nope"})).status();
  EXPECT_TRUE(IsNotFound(st));
  EXPECT_EQ(st.message(), "Namespace does not exist: nope");

  // Stored as JdbcCatalog stores them: levels joined by '.', with the exists marker.
  auto raw = Raw();
  EXPECT_THAT(raw->Rows("SELECT catalog_name, namespace, property_key, property_value FROM "
                        "iceberg_namespace_properties ORDER BY namespace, property_key"),
              ::testing::ElementsAre("lakehouse|a.b.c|exists|true", "lakehouse|a.x|exists|true",
                                     "lakehouse|db|exists|true", "lakehouse|db|owner|ana"));

  ASSERT_RAISES_WITH_MESSAGE("Namespace not empty: a", catalog_->DropNamespace(Ns({"a"})));
  ASSERT_OK(catalog_->DropNamespace(Ns({"a", "b", "c"})));
  ASSERT_OK(catalog_->DropNamespace(Ns({"a", "x"})));
  ASSERT_OK_AND_ASSIGN(exists, catalog_->NamespaceExists(Ns({"a"})));
  EXPECT_FALSE(exists);
  st = catalog_->DropNamespace(Ns({"a"}));
  EXPECT_TRUE(IsNotFound(st));
  EXPECT_EQ(st.message(), "Namespace does not exist: a");
  ASSERT_OK_AND_ASSIGN(top, catalog_->ListNamespaces(Namespace()));
  EXPECT_THAT(top, ::testing::ElementsAre(Ns({"db"})));
}

TEST_P(SqlCatalogTest, NamespaceValidation) {
  ASSERT_RAISES_WITH_MESSAGE("Cannot create the empty namespace",
                             catalog_->CreateNamespace(Namespace(), {}));
  ASSERT_RAISES_WITH_MESSAGE("it contains '.'", catalog_->CreateNamespace(Ns({"a.b"}), {}));
  ASSERT_RAISES_WITH_MESSAGE("Cannot set reserved property: exists",
                             catalog_->CreateNamespace(Ns({"a"}), {{"exists", "false"}}));
}

TEST_P(SqlCatalogTest, NamespaceProperties) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {{"owner", "ana"}, {"comment", "c1"}}));
  ASSERT_OK_AND_ASSIGN(auto props, catalog_->LoadNamespaceProperties(Ns({"db"})));
  EXPECT_EQ(props, (NamespaceProperties{{"owner", "ana"},
                                        {"comment", "c1"},
                                        {"location", "file:" + dir_.str() + "/wh/db"}}));

  ASSERT_OK(catalog_->UpdateNamespaceProperties(
      Ns({"db"}), {{"owner", "bo"}, {"location", "/data/db"}}, {"comment", "not-there"}));
  ASSERT_OK_AND_ASSIGN(props, catalog_->LoadNamespaceProperties(Ns({"db"})));
  EXPECT_EQ(props, (NamespaceProperties{{"owner", "bo"}, {"location", "/data/db"}}));

  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot set reserved property: exists",
      catalog_->UpdateNamespaceProperties(Ns({"db"}), {{"exists", "x"}}, {}));
  ASSERT_RAISES_WITH_MESSAGE("Cannot remove reserved property: exists",
                             catalog_->UpdateNamespaceProperties(Ns({"db"}), {}, {"exists"}));
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot set and remove the same property: owner",
      catalog_->UpdateNamespaceProperties(Ns({"db"}), {{"owner", "x"}}, {"owner"}));
  Status st = catalog_->UpdateNamespaceProperties(Ns({"nope"}), {{"k", "v"}}, {});
  EXPECT_TRUE(IsNotFound(st));
  EXPECT_EQ(st.message(), "Namespace does not exist: nope");
  st = catalog_->LoadNamespaceProperties(Ns({"nope"})).status();
  EXPECT_EQ(st.message(), "Namespace does not exist: nope");
}

TEST_P(SqlCatalogTest, TablesCreateLoadListRenameDrop) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  ASSERT_OK(catalog_->CreateNamespace(Ns({"other"}), {}));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t1"), "/wh/db/t1/metadata/v1.metadata.json"));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t0"), "/wh/db/t0/metadata/v1.metadata.json"));

  Status st = catalog_->CreateTableEntry(Tbl("db.t1"), "/x.json");
  EXPECT_TRUE(IsAlreadyExists(st));
  EXPECT_EQ(st.message(), "Table already exists: db.t1");
  st = catalog_->CreateTableEntry(Tbl("nope.t"), "/x.json");
  EXPECT_TRUE(IsNotFound(st));
  EXPECT_EQ(st.message(), "Namespace does not exist: nope");
  ASSERT_RAISES_WITH_MESSAGE("a table needs a namespace",
                             catalog_->CreateTableEntry(Tbl("t"), "/x.json"));

  ASSERT_OK_AND_ASSIGN(auto loc, catalog_->LoadMetadataLocation(Tbl("db.t1")));
  EXPECT_EQ(loc, "/wh/db/t1/metadata/v1.metadata.json");
  st = catalog_->LoadMetadataLocation(Tbl("db.missing")).status();
  EXPECT_TRUE(IsNotFound(st));
  EXPECT_EQ(st.message(), "Table does not exist: db.missing");
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->TableExists(Tbl("db.t0")));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, catalog_->TableExists(Tbl("db.missing")));
  EXPECT_FALSE(exists);

  ASSERT_OK_AND_ASSIGN(auto tables, catalog_->ListTables(Ns({"db"})));
  EXPECT_THAT(tables, ::testing::ElementsAre(Tbl("db.t0"), Tbl("db.t1")));
  ASSERT_OK_AND_ASSIGN(tables, catalog_->ListTables(Ns({"other"})));
  EXPECT_TRUE(tables.empty());
  ASSERT_RAISES_WITH_MESSAGE("Namespace does not exist: nope", catalog_->ListTables(Ns({"nope"})));

  auto raw = Raw();
  EXPECT_THAT(
      raw->Rows("SELECT * FROM iceberg_tables WHERE table_name = 't1'"),
      ::testing::ElementsAre("lakehouse|db|t1|/wh/db/t1/metadata/v1.metadata.json|NULL|TABLE"));

  ASSERT_RAISES_WITH_MESSAGE("Namespace not empty: db", catalog_->DropNamespace(Ns({"db"})));

  ASSERT_OK(catalog_->RenameTable(Tbl("db.t1"), Tbl("other.renamed")));
  ASSERT_OK_AND_ASSIGN(loc, catalog_->LoadMetadataLocation(Tbl("other.renamed")));
  EXPECT_EQ(loc, "/wh/db/t1/metadata/v1.metadata.json");
  ASSERT_OK_AND_ASSIGN(exists, catalog_->TableExists(Tbl("db.t1")));
  EXPECT_FALSE(exists);
  ASSERT_RAISES_WITH_MESSAGE("Table does not exist: db.t1",
                             catalog_->RenameTable(Tbl("db.t1"), Tbl("db.t2")));
  ASSERT_RAISES_WITH_MESSAGE("Table already exists: other.renamed",
                             catalog_->RenameTable(Tbl("db.t0"), Tbl("other.renamed")));
  ASSERT_RAISES_WITH_MESSAGE("Namespace does not exist: nope",
                             catalog_->RenameTable(Tbl("db.t0"), Tbl("nope.t0")));
  ASSERT_OK(catalog_->RenameTable(Tbl("db.t0"), Tbl("db.t0")));

  ASSERT_OK_AND_ASSIGN(auto dropped, catalog_->DropTableEntry(Tbl("other.renamed")));
  EXPECT_EQ(dropped, "/wh/db/t1/metadata/v1.metadata.json");
  st = catalog_->DropTableEntry(Tbl("other.renamed")).status();
  EXPECT_TRUE(IsNotFound(st));
  EXPECT_EQ(st.message(), "Table does not exist: other.renamed");
  ASSERT_OK(catalog_->DropNamespace(Ns({"other"})));
}

TEST_P(SqlCatalogTest, TablesInMultiLevelNamespaces) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"a", "b"}), {}));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("a.b.t"), "/m1.json"));
  ASSERT_RAISES_WITH_MESSAGE("Namespace not empty: a.b", catalog_->DropNamespace(Ns({"a", "b"})));
  ASSERT_RAISES_WITH_MESSAGE("Namespace not empty: a", catalog_->DropNamespace(Ns({"a"})));
  ASSERT_OK_AND_ASSIGN(auto tables, catalog_->ListTables(Ns({"a", "b"})));
  EXPECT_THAT(tables, ::testing::ElementsAre(Tbl("a.b.t")));
  ASSERT_OK_AND_ASSIGN(auto none, catalog_->ListTables(Ns({"a"})));
  EXPECT_TRUE(none.empty());
  auto raw = Raw();
  EXPECT_THAT(raw->Rows("SELECT table_namespace, table_name FROM iceberg_tables"),
              ::testing::ElementsAre("a.b|t"));
  EXPECT_EQ(catalog_->DefaultTableLocation(Tbl("a.b.t")), "file:" + dir_.str() + "/wh/a/b/t");
}

// A namespace "new/db" and a table "tab/le" are one level each, stored as named, and each is
// one directory of the warehouse, apart from the namespace new.db and its table tab.le.
TEST_P(SqlCatalogTest, NamesWithSlashesAreOneLevelAndOneDirectory) {
  const Namespace slashed({"new/db"});
  ASSERT_OK(catalog_->CreateNamespace(slashed, {}));
  ASSERT_OK(catalog_->CreateNamespace(Ns({"new", "db"}), {}));
  const TableIdentifier table(slashed, "tab/le");
  ASSERT_OK(catalog_->CreateTableEntry(table, "/m1.json"));
  ASSERT_OK_AND_ASSIGN(auto tables, catalog_->ListTables(slashed));
  EXPECT_THAT(tables, ::testing::ElementsAre(table));
  ASSERT_OK_AND_ASSIGN(auto loc, catalog_->LoadMetadataLocation(table));
  EXPECT_EQ(loc, "/m1.json");
  ASSERT_OK_AND_ASSIGN(auto none, catalog_->ListTables(Ns({"new", "db"})));
  EXPECT_TRUE(none.empty());
  const std::string wh = "file:" + dir_.str() + "/wh";
  EXPECT_EQ(catalog_->DefaultTableLocation(table), wh + "/new~sdb/tab~sle");
  EXPECT_EQ(catalog_->DefaultTableLocation(TableIdentifier(Ns({"new", "db"}), "tab/le")),
            wh + "/new/db/tab~sle");
  ASSERT_OK_AND_ASSIGN(auto props, catalog_->LoadNamespaceProperties(slashed));
  EXPECT_EQ(props.at("location"), wh + "/new~sdb");
  ASSERT_OK(catalog_->DropTableEntry(table).status());
  ASSERT_OK(catalog_->DropNamespace(slashed));
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->NamespaceExists(slashed));
  EXPECT_FALSE(exists);
  ASSERT_OK_AND_ASSIGN(exists, catalog_->NamespaceExists(Ns({"new", "db"})));
  EXPECT_TRUE(exists);
}

TEST_P(SqlCatalogTest, ViewsAreNotTables) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  auto raw = Raw();
  raw->Exec("INSERT INTO iceberg_tables VALUES ('lakehouse', 'db', 'v', '/v.json', NULL, 'VIEW')");
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->TableExists(Tbl("db.v")));
  EXPECT_FALSE(exists);
  ASSERT_RAISES_WITH_MESSAGE("Table does not exist: db.v",
                             catalog_->LoadMetadataLocation(Tbl("db.v")));
  ASSERT_OK_AND_ASSIGN(auto tables, catalog_->ListTables(Ns({"db"})));
  EXPECT_TRUE(tables.empty());
  ASSERT_RAISES_WITH_MESSAGE("View with same name already exists: db.v",
                             catalog_->CreateTableEntry(Tbl("db.v"), "/t.json"));
  ASSERT_RAISES_WITH_MESSAGE("Table does not exist: db.v", catalog_->DropTableEntry(Tbl("db.v")));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t"), "/t.json"));
  ASSERT_RAISES_WITH_MESSAGE("Cannot rename db.t to db.v. View already exists",
                             catalog_->RenameTable(Tbl("db.t"), Tbl("db.v")));
  Status st = catalog_->SwapMetadataLocation(Tbl("db.v"), "/v.json", "/v2.json");
  EXPECT_TRUE(IsCommitConflict(st)) << st.ToString();
  ASSERT_RAISES_WITH_MESSAGE("Namespace not empty: db", catalog_->DropNamespace(Ns({"db"})));
}

TEST_P(SqlCatalogTest, CompareAndSwap) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t"), "/m/v1.json"));
  ASSERT_OK(catalog_->SwapMetadataLocation(Tbl("db.t"), "/m/v1.json", "/m/v2.json"));
  ASSERT_OK_AND_ASSIGN(auto loc, catalog_->LoadMetadataLocation(Tbl("db.t")));
  EXPECT_EQ(loc, "/m/v2.json");
  auto raw = Raw();
  EXPECT_THAT(raw->Rows("SELECT metadata_location, previous_metadata_location FROM iceberg_tables"),
              ::testing::ElementsAre("/m/v2.json|/m/v1.json"));

  Status st = catalog_->SwapMetadataLocation(Tbl("db.t"), "/m/v1.json", "/m/v3.json");
  ASSERT_TRUE(IsCommitConflict(st)) << st.ToString();
  EXPECT_EQ(st.message(),
            "Table has been updated by another process: db.t (expected metadata location "
            "/m/v1.json, found /m/v2.json); /m/v3.json was not committed");
  ASSERT_OK_AND_ASSIGN(loc, catalog_->LoadMetadataLocation(Tbl("db.t")));
  EXPECT_EQ(loc, "/m/v2.json");

  st = catalog_->SwapMetadataLocation(Tbl("db.gone"), "/m/v1.json", "/m/v2.json");
  ASSERT_TRUE(IsCommitConflict(st)) << st.ToString();
  EXPECT_THAT(st.message(), ::testing::HasSubstr("db.gone (expected metadata location "
                                                 "/m/v1.json, found no such table)"));
}

TEST_P(SqlCatalogTest, TwoConnectionsRaceOneSwapExactlyOneWins) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t"), "/m/v0.json"));
  ASSERT_OK_AND_ASSIGN(auto other, SqlCatalog::Open(uri_, "lakehouse"));
  SqlCatalog* catalogs[2] = {catalog_.get(), other.get()};

  std::string current = "/m/v0.json";
  constexpr int kRounds = 25;
  for (int round = 0; round < kRounds; ++round) {
    std::barrier sync(2);
    Status results[2];
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) {
      threads.emplace_back([&, i] {
        sync.arrive_and_wait();
        results[i] = catalogs[i]->SwapMetadataLocation(Tbl("db.t"), current,
                                                       StrCat("/m/r", round, "-w", i, ".json"));
      });
    }
    for (auto& t : threads) t.join();
    int winners = 0;
    for (int i = 0; i < 2; ++i) {
      if (results[i].ok()) {
        ++winners;
        current = StrCat("/m/r", round, "-w", i, ".json");
      } else {
        EXPECT_TRUE(IsCommitConflict(results[i])) << results[i].ToString();
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    ASSERT_OK_AND_ASSIGN(auto loc, other->LoadMetadataLocation(Tbl("db.t")));
    ASSERT_EQ(loc, current);
  }
}

TEST_P(SqlCatalogTest, ConcurrentCreatesOfOneTableExactlyOneWins) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  std::vector<std::unique_ptr<SqlCatalog>> catalogs;
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK_AND_ASSIGN(auto c, SqlCatalog::Open(uri_));
    catalogs.push_back(std::move(c));
  }
  std::atomic<int> wins{0}, exists{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      Status st = catalogs[i]->CreateTableEntry(Tbl("db.t"), StrCat("/m/", i, ".json"));
      if (st.ok()) ++wins;
      if (IsAlreadyExists(st)) ++exists;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(exists.load(), 3);
}

TEST_P(SqlCatalogTest, TwoCatalogNamesInOneFileAreIsolated) {
  ASSERT_OK_AND_ASSIGN(auto second, SqlCatalog::Open(uri_, "other_catalog"));
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {{"k", "v1"}}));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t"), "/one.json"));

  ASSERT_OK_AND_ASSIGN(bool exists, second->NamespaceExists(Ns({"db"})));
  EXPECT_FALSE(exists);
  ASSERT_OK_AND_ASSIGN(auto top, second->ListNamespaces(Namespace()));
  EXPECT_TRUE(top.empty());
  ASSERT_OK(second->CreateNamespace(Ns({"db"}), {{"k", "v2"}}));
  ASSERT_OK_AND_ASSIGN(exists, second->TableExists(Tbl("db.t")));
  EXPECT_FALSE(exists);
  ASSERT_OK(second->CreateTableEntry(Tbl("db.t"), "/two.json"));
  ASSERT_OK(second->SwapMetadataLocation(Tbl("db.t"), "/two.json", "/two-b.json"));

  ASSERT_OK_AND_ASSIGN(auto loc, catalog_->LoadMetadataLocation(Tbl("db.t")));
  EXPECT_EQ(loc, "/one.json");
  ASSERT_OK_AND_ASSIGN(auto props, catalog_->LoadNamespaceProperties(Ns({"db"})));
  EXPECT_EQ(props.at("k"), "v1");
  ASSERT_OK_AND_ASSIGN(auto dropped, second->DropTableEntry(Tbl("db.t")));
  EXPECT_EQ(dropped, "/two-b.json");
  ASSERT_OK_AND_ASSIGN(exists, catalog_->TableExists(Tbl("db.t")));
  EXPECT_TRUE(exists);
  EXPECT_EQ(second->name(), "other_catalog");
}

TEST_P(SqlCatalogTest, AddsIcebergTypeToAV0Catalog) {
  const std::string path = FreshUri();
  {
    // The layout older PyIceberg and JdbcCatalog (schema V0) create: no iceberg_type.
    auto raw = Raw(path);
    raw->Exec(
        "CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace "
        "VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, metadata_location "
        "VARCHAR(1000), previous_metadata_location VARCHAR(1000), PRIMARY KEY (catalog_name, "
        "table_namespace, table_name))");
    raw->Exec(
        "CREATE TABLE iceberg_namespace_properties (catalog_name VARCHAR(255) NOT NULL, "
        "namespace VARCHAR(255) NOT NULL, property_key VARCHAR(255) NOT NULL, property_value "
        "VARCHAR(1000) NOT NULL, PRIMARY KEY (catalog_name, namespace, property_key))");
    raw->Exec("INSERT INTO iceberg_tables VALUES ('lakehouse', 'db', 'old', '/old.json', NULL)");
    raw->Exec(
        "INSERT INTO iceberg_namespace_properties VALUES ('lakehouse', 'db', 'exists', 'true')");
  }
  ASSERT_OK_AND_ASSIGN(auto catalog, SqlCatalog::Open(path));
  auto raw = Raw(path);
  EXPECT_EQ(raw->Columns("iceberg_tables").back(), "iceberg_type|VARCHAR(5)|0|0");
  // The pre-existing row has a NULL type and is still a table.
  ASSERT_OK_AND_ASSIGN(auto loc, catalog->LoadMetadataLocation(Tbl("db.old")));
  EXPECT_EQ(loc, "/old.json");
  ASSERT_OK(catalog->SwapMetadataLocation(Tbl("db.old"), "/old.json", "/old2.json"));
  ASSERT_OK(catalog->CreateTableEntry(Tbl("db.new"), "/new.json"));
  ASSERT_OK_AND_ASSIGN(auto tables, catalog->ListTables(Ns({"db"})));
  EXPECT_THAT(tables, ::testing::ElementsAre(Tbl("db.new"), Tbl("db.old")));
  EXPECT_THAT(raw->Rows("SELECT table_name, iceberg_type FROM iceberg_tables ORDER BY 1"),
              ::testing::ElementsAre("new|TABLE", "old|NULL"));
  // Reopening does not migrate twice.
  ASSERT_OK(SqlCatalog::Open(path).status());
}

TEST_P(SqlCatalogTest, NewNamesAreValidatedLookupsAreNot) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  EXPECT_EQ(catalog_->CreateNamespace(Ns({"ok", ".."}), {}).message(),
            "Invalid namespace name '..': a name must not be '.' or '..'");
  EXPECT_EQ(catalog_->CreateTableEntry(TableIdentifier(Ns({"db"}), "a\\b"), "/m.json").message(),
            "Invalid table name 'a\\b': a name must not contain '\\'");
  EXPECT_EQ(
      catalog_->CreateTableEntry(TableIdentifier(Ns({"db"}), std::string("x\0", 2)), "/m.json")
          .message(),
      "Invalid table name 'x\\x00': a name must not contain NUL or other control characters");
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t"), "/m.json"));
  EXPECT_EQ(catalog_->RenameTable(Tbl("db.t"), TableIdentifier(Ns({"db"}), "..")).message(),
            "Invalid table name '..': a name must not be '.' or '..'");
  EXPECT_EQ(catalog_->RenameTable(Tbl("db.t"), TableIdentifier(Ns({"db"}), "a\\b")).message(),
            "Invalid table name 'a\\b': a name must not contain '\\'");
  auto raw = Raw();
  EXPECT_THAT(raw->Rows("SELECT table_namespace, table_name FROM iceberg_tables"),
              ::testing::ElementsAre("db|t"));
  EXPECT_THAT(raw->Rows("SELECT DISTINCT namespace FROM iceberg_namespace_properties"),
              ::testing::ElementsAre("db"));
  // A row another engine wrote with such a name can still be found and dropped.
  raw->Exec(
      "INSERT INTO iceberg_tables VALUES ('lakehouse', 'db', 'b/t', '/o.json', NULL, 'TABLE')");
  ASSERT_OK_AND_ASSIGN(auto loc,
                       catalog_->LoadMetadataLocation(TableIdentifier(Ns({"db"}), "b/t")));
  EXPECT_EQ(loc, "/o.json");
  ASSERT_OK(catalog_->DropTableEntry(TableIdentifier(Ns({"db"}), "b/t")).status());
}

TEST(SqlCatalogOpenTest, WarehouseAndRootsMustBeAbsolute) {
  testing::TempDir dir;
  const std::string db = dir.str() + "/c.db";
  EXPECT_EQ(
      SqlCatalog::Open(db, "lakehouse", "warehouse").status().message(),
      "Warehouse 'warehouse' of catalog lakehouse is not an absolute path, file: URI or s3:// URI");
  EXPECT_EQ(
      SqlCatalog::Open(db, "lakehouse", "/wh", {"/ok", "rel/x"}).status().message(),
      "Allowed root 'rel/x' of catalog lakehouse is not an absolute path, file: URI or s3:// URI");
  ASSERT_OK_AND_ASSIGN(auto catalog,
                       SqlCatalog::Open(db, "lakehouse", "file:///wh/", {"/a/", "file:/b"}));
  EXPECT_EQ(catalog->warehouse(), "file:///wh");
  EXPECT_THAT(catalog->allowed_roots(), ::testing::ElementsAre("/a", "file:/b"));
  ASSERT_OK_AND_ASSIGN(auto s3,
                       SqlCatalog::Open(dir.str() + "/s3.db", "lakehouse", "s3://bucket/wh/",
                                        {"s3a://other/root", "/local"}));
  EXPECT_EQ(s3->warehouse(), "s3://bucket/wh");
  EXPECT_THAT(s3->allowed_roots(), ::testing::ElementsAre("s3a://other/root", "/local"));
  EXPECT_EQ(
      SqlCatalog::Open(db, "lakehouse", "s3:///wh").status().message(),
      "Warehouse 's3:///wh' of catalog lakehouse is not an absolute path, file: URI or s3:// URI");
}

TEST(SqlCatalogWalTest, NewCatalogFilesUseWriteAheadLogging) {
  testing::TempDir dir;
  const std::string path = dir.str() + "/catalog.db";
  ASSERT_OK_AND_ASSIGN(auto catalog, SqlCatalog::Open(path));
  ASSERT_OK_AND_ASSIGN(auto mode, catalog->JournalMode());
  EXPECT_EQ(mode, "wal");
  // Stored in the file: another connection sees it too.
  RawDb raw(path);
  EXPECT_THAT(raw.Rows("PRAGMA journal_mode"), ::testing::ElementsAre("wal"));
}

TEST(SqlCatalogWalTest, SwitchesAFileAnotherEngineCreated) {
  testing::TempDir dir;
  const std::string path = dir.str() + "/catalog.db";
  {
    // As PyIceberg or Spark leave it: rollback journal.
    RawDb raw(path);
    raw.Exec("CREATE TABLE x (a INT)");
    EXPECT_THAT(raw.Rows("PRAGMA journal_mode"), ::testing::ElementsAre("delete"));
  }
  ASSERT_OK_AND_ASSIGN(auto catalog, SqlCatalog::Open("jdbc:sqlite:" + path));
  RawDb raw(path);
  EXPECT_THAT(raw.Rows("PRAGMA journal_mode"), ::testing::ElementsAre("wal"));
}

TEST_F(SqliteCatalogTest, AReaderHoldingATransactionDoesNotBlockCommits) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t"), "/v1.json"));
  // What Iceberg's JdbcCatalog does for the life of a Spark session: a read left open.
  RawDb reader(path_);
  reader.Exec("BEGIN");
  EXPECT_THAT(reader.Rows("SELECT metadata_location FROM iceberg_tables"),
              ::testing::ElementsAre("/v1.json"));
  ASSERT_OK(catalog_->SwapMetadataLocation(Tbl("db.t"), "/v1.json", "/v2.json"));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.u"), "/u1.json"));
  // The reader keeps its snapshot until it ends its transaction.
  EXPECT_THAT(reader.Rows("SELECT metadata_location FROM iceberg_tables"),
              ::testing::ElementsAre("/v1.json"));
  reader.Exec("COMMIT");
  EXPECT_THAT(reader.Rows("SELECT metadata_location FROM iceberg_tables ORDER BY 1"),
              ::testing::ElementsAre("/u1.json", "/v2.json"));
}

TEST_F(SqliteCatalogTest, ABusyCatalogNamesItsFile) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t"), "/v1.json"));
  RawDb writer(path_);
  writer.Exec("BEGIN IMMEDIATE");  // holds the write lock past the busy timeout
  Status st = catalog_->SwapMetadataLocation(Tbl("db.t"), "/v1.json", "/v2.json");
  writer.Exec("ROLLBACK");
  EXPECT_TRUE(IsCommitConflict(st)) << st.ToString();
  EXPECT_EQ(st.message(), "Cannot commit table db.t: catalog database " + path_ +
                              ": database is locked (it stayed locked by another connection "
                              "for 10 s); /v2.json was not committed");
  ASSERT_OK_AND_ASSIGN(auto loc, catalog_->LoadMetadataLocation(Tbl("db.t")));
  EXPECT_EQ(loc, "/v1.json");
}

// Connections of one process to one file take turns at a lock of their own before SQLite's:
// each way a transaction ends hands it on, or the next writer would wait out the busy timeout.
TEST_F(SqliteCatalogTest, EveryEndOfAWriteLetsTheNextWriterIn) {
  ASSERT_OK_AND_ASSIGN(auto first, SqliteDriver::Open(path_));
  ASSERT_OK_AND_ASSIGN(auto second, SqliteDriver::Open("sqlite:///" + path_));
  ASSERT_OK(first->Begin());
  ASSERT_OK(first->Exec("CREATE TABLE turns (n INTEGER)"));
  ASSERT_OK(first->Commit());
  ASSERT_OK(second->Begin());
  ASSERT_OK(second->Exec("INSERT INTO turns VALUES (1)"));
  second->Rollback();
  ASSERT_OK(first->Begin());
  EXPECT_FALSE(first->Begin().ok());  // already in a transaction: it keeps its turn
  ASSERT_OK(first->Exec("INSERT INTO turns VALUES (2)"));
  first.reset();  // a connection closed mid-transaction rolls back
  std::thread other([&] {
    ASSERT_OK(second->Begin());
    ASSERT_OK(second->Exec("INSERT INTO turns VALUES (3)"));
    ASSERT_OK(second->Commit());
  });
  other.join();
  ASSERT_OK_AND_ASSIGN(auto rows, second->Query("SELECT n FROM turns", {}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "3");
}

TEST_P(SqlCatalogTest, DropsAreRecordedBesideTheIcebergTables) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  auto raw = Raw();
  // Nothing is created before a drop is recorded; a plain drop (as Iceberg's) records none.
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.a"), "/a0.json"));
  ASSERT_OK(catalog_->DropTableEntry(Tbl("db.a")).status());
  EXPECT_FALSE(raw->HasTable("floe_dropped_tables"));
  ASSERT_OK_AND_ASSIGN(auto listed, catalog_->ListDroppedTables(std::nullopt));
  EXPECT_TRUE(listed.empty());
  ASSERT_OK_AND_ASSIGN(auto found, catalog_->FindDroppedTable(Tbl("db.a")));
  EXPECT_FALSE(found.has_value());

  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.a"), "/a1.json"));
  ASSERT_OK_AND_ASSIGN(auto location, catalog_->DropTableEntry(Tbl("db.a"), DropRecord::kKeep));
  EXPECT_EQ(location, "/a1.json");
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.a"), "/a2.json"));
  ASSERT_OK(catalog_->DropTableEntry(Tbl("db.a"), DropRecord::kKeep).status());
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.b"), "/b.json"));
  ASSERT_OK(catalog_->DropTableEntry(Tbl("db.b"), DropRecord::kPurged).status());
  // Only floe's own table holds them; the Iceberg tables look as Iceberg would leave them.
  EXPECT_TRUE(raw->Rows("SELECT * FROM iceberg_tables").empty());
  EXPECT_THAT(raw->Rows("SELECT catalog_name, drop_id, table_namespace, table_name, "
                        "metadata_location, purged FROM floe_dropped_tables ORDER BY drop_id"),
              ::testing::ElementsAre("lakehouse|1|db|a|/a1.json|0", "lakehouse|2|db|a|/a2.json|0",
                                     "lakehouse|3|db|b|/b.json|1"));

  ASSERT_OK_AND_ASSIGN(listed, catalog_->ListDroppedTables(std::nullopt));
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].metadata_location, "/a2.json");
  EXPECT_EQ(listed[1].metadata_location, "/a1.json");
  EXPECT_GE(listed[0].dropped_at_ms, listed[1].dropped_at_ms);
  EXPECT_GT(listed[0].drop_id, listed[1].drop_id);
  ASSERT_OK_AND_ASSIGN(listed, catalog_->ListDroppedTables(Ns({"other"})));
  EXPECT_TRUE(listed.empty());
  ASSERT_OK_AND_ASSIGN(found, catalog_->FindDroppedTable(Tbl("db.b")));
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->purged);

  // The newest drop comes back first; the record goes with it.
  ASSERT_OK_AND_ASSIGN(found, catalog_->FindDroppedTable(Tbl("db.a")));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->metadata_location, "/a2.json");
  ASSERT_OK(catalog_->UndropTableEntry(*found));
  ASSERT_OK_AND_ASSIGN(auto current, catalog_->LoadMetadataLocation(Tbl("db.a")));
  EXPECT_EQ(current, "/a2.json");
  EXPECT_THAT(raw->Rows("SELECT catalog_name, table_namespace, table_name, metadata_location, "
                        "previous_metadata_location, iceberg_type FROM iceberg_tables"),
              ::testing::ElementsAre("lakehouse|db|a|/a2.json|NULL|TABLE"));
  ASSERT_RAISES_WITH_MESSAGE("Cannot undrop table db.a: a table with that name already exists",
                             catalog_->UndropTableEntry(*found));
  ASSERT_OK(catalog_->RenameTable(Tbl("db.a"), Tbl("db.a2")));
  // A record that is no longer the newest (used up here) is a conflict.
  Status st = catalog_->UndropTableEntry(*found);
  EXPECT_TRUE(IsCommitConflict(st)) << st.ToString();
  ASSERT_OK_AND_ASSIGN(found, catalog_->FindDroppedTable(Tbl("db.a")));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->metadata_location, "/a1.json");
  ASSERT_OK(catalog_->UndropTableEntry(*found));
  ASSERT_OK_AND_ASSIGN(found, catalog_->FindDroppedTable(Tbl("db.a")));
  EXPECT_FALSE(found.has_value());

  // Dropped tables do not keep a namespace alive.
  ASSERT_OK(catalog_->DropTableEntry(Tbl("db.a"), DropRecord::kKeep).status());
  ASSERT_OK(catalog_->DropTableEntry(Tbl("db.a2"), DropRecord::kKeep).status());
  ASSERT_OK(catalog_->DropNamespace(Ns({"db"})));
  ASSERT_OK_AND_ASSIGN(found, catalog_->FindDroppedTable(Tbl("db.a")));
  ASSERT_TRUE(found.has_value());
  ASSERT_RAISES_WITH_MESSAGE("Cannot undrop table db.a: namespace db does not exist",
                             catalog_->UndropTableEntry(*found));

  // Another catalog in the same file sees none of them.
  ASSERT_OK_AND_ASSIGN(auto other, SqlCatalog::Open(uri_, "other", ""));
  ASSERT_OK_AND_ASSIGN(listed, other->ListDroppedTables(std::nullopt));
  EXPECT_TRUE(listed.empty());
}

}  // namespace
}  // namespace floe

// ---- the audit log ----

namespace floe {
namespace {

AuditRecord Record(const char* kind, const std::string& statement = "") {
  AuditRecord r;
  r.kind = kind;
  r.user = "alice";
  r.client = "floe sql";
  r.statement = statement;
  return r;
}

// kind|namespace.table|previous location|new location|classified|detail, oldest first. The
// sequence numbers must grow; PostgreSQL's may skip the numbers of rolled-back transactions.
std::vector<std::string> LogLines(Catalog& catalog, AuditQuery query = {}) {
  auto rows = catalog.ReadAuditLog(query);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<std::string> out;
  if (!rows.ok()) return out;
  for (size_t i = 1; i < rows->size(); ++i) EXPECT_GT((*rows)[i - 1].seq, (*rows)[i].seq);
  for (auto it = rows->rbegin(); it != rows->rend(); ++it) {
    out.push_back(StrCat(it->kind, "|", it->ident.ToString(), "|",
                         it->previous_metadata_location.value_or("NULL"), "|",
                         it->metadata_location.value_or("NULL"), "|", it->classified ? 1 : 0,
                         "|", it->detail));
  }
  return out;
}

TEST_P(SqlCatalogTest, AuditLogRecordsEveryPointerMoveInItsTransaction) {
  ASSERT_TRUE(catalog_->HasAuditLog());
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t"), "/m/v1.json", Record("create")));
  AuditRecord commit = Record("commit", "INSERT INTO db.t VALUES (1)");
  commit.operation = "append";
  commit.snapshot_id = 11;
  commit.refs = {{"main", std::nullopt, 11}};
  ASSERT_OK(catalog_->SwapMetadataLocation(Tbl("db.t"), "/m/v1.json", "/m/v2.json", commit));
  // A swap that loses leaves the log as it was.
  Status st = catalog_->SwapMetadataLocation(Tbl("db.t"), "/m/v1.json", "/m/v3.json",
                                             Record("commit"));
  ASSERT_TRUE(IsCommitConflict(st)) << st.ToString();
  ASSERT_OK(catalog_->RenameTable(Tbl("db.t"), Tbl("db.u"), Record("rename")));
  ASSERT_OK(catalog_->DropTableEntry(Tbl("db.u"), DropRecord::kKeep, Record("drop")).status());
  ASSERT_OK_AND_ASSIGN(auto dropped, catalog_->FindDroppedTable(Tbl("db.u")));
  ASSERT_OK(catalog_->UndropTableEntry(*dropped, Record("undrop")));
  EXPECT_THAT(LogLines(*catalog_),
              ::testing::ElementsAre("create|db.t|NULL|/m/v1.json|1|",
                                     "commit|db.t|/m/v1.json|/m/v2.json|1|",
                                     "rename|db.u|/m/v2.json|/m/v2.json|1|renamed from db.t",
                                     "drop|db.u|/m/v2.json|NULL|1|",
                                     "undrop|db.u|NULL|/m/v2.json|1|"));
  // Every field comes back as it was written.
  ASSERT_OK_AND_ASSIGN(auto all, catalog_->ReadAuditLog(AuditQuery{}));
  ASSERT_EQ(all.size(), 5u);
  AuditQuery one;
  one.seq = all[3].seq;
  ASSERT_OK_AND_ASSIGN(auto rows, catalog_->ReadAuditLog(one));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].operation, "append");
  EXPECT_EQ(rows[0].snapshot_id, 11);
  EXPECT_EQ(rows[0].previous_snapshot_id, std::nullopt);
  EXPECT_EQ(rows[0].refs, (std::vector<AuditRefMove>{{"main", std::nullopt, 11}}));
  EXPECT_EQ(rows[0].user, "alice");
  EXPECT_EQ(rows[0].client, "floe sql");
  EXPECT_EQ(rows[0].statement, "INSERT INTO db.t VALUES (1)");
  EXPECT_GT(rows[0].at_ms, 0);

  // A table's rows, newest first, page by page; the old name keeps its rows.
  AuditQuery page;
  page.table = Tbl("db.u");
  page.limit = 2;
  EXPECT_THAT(LogLines(*catalog_, page),
              ::testing::ElementsAre("drop|db.u|/m/v2.json|NULL|1|",
                                     "undrop|db.u|NULL|/m/v2.json|1|"));
  page.before_seq = all[1].seq;  // the drop's
  EXPECT_THAT(LogLines(*catalog_, page),
              ::testing::ElementsAre("rename|db.u|/m/v2.json|/m/v2.json|1|renamed from db.t"));
  AuditQuery old_name;
  old_name.table = Tbl("db.t");
  EXPECT_EQ(LogLines(*catalog_, old_name).size(), 2u);
  AuditQuery future;
  future.since_ms = rows[0].at_ms + 3600 * 1000;
  EXPECT_TRUE(LogLines(*catalog_, future).empty());
}

TEST_P(SqlCatalogTest, AuditTriggerRecordsOtherEnginesChanges) {
  ASSERT_OK_AND_ASSIGN(auto trigger, catalog_->AuditTrigger());
  EXPECT_TRUE(trigger.installed) << trigger.reason;
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  auto raw = Raw();
  // As Spark's and Trino's JdbcCatalog and PyIceberg's SqlCatalog write them.
  raw->Exec("INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
            "metadata_location, previous_metadata_location, iceberg_type) "
            "VALUES ('lakehouse', 'db', 'x', '/x/v1.json', NULL, 'TABLE')");
  raw->Exec("UPDATE iceberg_tables SET metadata_location = '/x/v2.json', "
            "previous_metadata_location = '/x/v1.json' WHERE table_name = 'x'");
  // A compare-and-swap that matches no row moves nothing and records nothing.
  raw->Exec("UPDATE iceberg_tables SET metadata_location = '/x/v9.json' "
            "WHERE table_name = 'x' AND metadata_location = '/x/v1.json'");
  raw->Exec("UPDATE iceberg_tables SET table_name = 'y' WHERE table_name = 'x'");
  raw->Exec("DELETE FROM iceberg_tables WHERE table_name = 'y'");
  // Views are not tables: their moves are not recorded.
  raw->Exec("INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
            "metadata_location, previous_metadata_location, iceberg_type) "
            "VALUES ('lakehouse', 'db', 'v', '/v/v1.json', NULL, 'VIEW')");
  EXPECT_THAT(LogLines(*catalog_),
              ::testing::ElementsAre("external|db.x|NULL|/x/v1.json|0|",
                                     "external|db.x|/x/v1.json|/x/v2.json|0|",
                                     "external|db.y|/x/v2.json|/x/v2.json|0|renamed from db.x",
                                     "external|db.y|/x/v2.json|NULL|0|"));
  if (GetParam() == Backend::kPostgres) {
    // The database says who was connected: the user, and the address for TCP clients.
    EXPECT_THAT(raw->Rows("SELECT DISTINCT user_name = current_user FROM floe_audit_log"),
                ::testing::ElementsAre("t"));
  }
  // floe's own moves are recorded once, by floe, with the trigger in place.
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t"), "/t/v1.json", Record("create")));
  ASSERT_OK(catalog_->SwapMetadataLocation(Tbl("db.t"), "/t/v1.json", "/t/v2.json",
                                           Record("commit")));
  ASSERT_OK(catalog_->DropTableEntry(Tbl("db.t"), DropRecord::kNone, Record("drop")).status());
  AuditQuery t;
  t.table = Tbl("db.t");
  EXPECT_THAT(LogLines(*catalog_, t), ::testing::ElementsAre("create|db.t|NULL|/t/v1.json|1|",
                                                             "commit|db.t|/t/v1.json|/t/v2.json|1|",
                                                             "drop|db.t|/t/v2.json|NULL|1|"));

  // Classifying names a trigger row once; a classified row stays as it is.
  AuditRecord named;
  named.kind = "commit";
  named.operation = "append";
  named.snapshot_id = 5;
  named.refs = {{"main", std::nullopt, 5}};
  named.client = "spark";
  ASSERT_OK_AND_ASSIGN(auto all, catalog_->ReadAuditLog(AuditQuery{}));
  const int64_t second = all[all.size() - 2].seq;
  ASSERT_OK(catalog_->ClassifyAuditEntry(second, named));
  named.kind = "rollback";
  ASSERT_OK(catalog_->ClassifyAuditEntry(second, named));
  AuditQuery two;
  two.seq = second;
  ASSERT_OK_AND_ASSIGN(auto rows, catalog_->ReadAuditLog(two));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kind, "commit");
  EXPECT_TRUE(rows[0].classified);
  EXPECT_EQ(rows[0].client, "spark");
  EXPECT_EQ(rows[0].refs, named.refs);
}

TEST_P(SqlCatalogTest, AuditTriggerCanBeRemovedAndInstalledAgain) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  ASSERT_OK(catalog_->RemoveAuditTrigger());
  ASSERT_OK_AND_ASSIGN(auto trigger, catalog_->AuditTrigger());
  EXPECT_FALSE(trigger.installed);
  EXPECT_FALSE(trigger.refused);
  EXPECT_EQ(trigger.reason, "the trigger is not installed");
  auto raw = Raw();
  raw->Exec("INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
            "metadata_location, previous_metadata_location, iceberg_type) "
            "VALUES ('lakehouse', 'db', 'x', '/x/v1.json', NULL, 'TABLE')");
  EXPECT_TRUE(LogLines(*catalog_).empty());
  // A later open does not put it back behind the operator's back.
  ASSERT_OK_AND_ASSIGN(auto reopened, SqlCatalog::Open(uri_, "lakehouse"));
  ASSERT_OK_AND_ASSIGN(trigger, reopened->AuditTrigger());
  EXPECT_FALSE(trigger.installed);
  // floe's own changes are still recorded.
  ASSERT_OK(catalog_->SwapMetadataLocation(Tbl("db.x"), "/x/v1.json", "/x/v2.json",
                                           Record("commit")));
  EXPECT_THAT(LogLines(*catalog_), ::testing::ElementsAre("commit|db.x|/x/v1.json|/x/v2.json|1|"));
  ASSERT_OK(catalog_->InstallAuditTrigger());
  ASSERT_OK(catalog_->InstallAuditTrigger());  // twice is once
  ASSERT_OK_AND_ASSIGN(trigger, catalog_->AuditTrigger());
  EXPECT_TRUE(trigger.installed);
  raw->Exec("UPDATE iceberg_tables SET metadata_location = '/x/v3.json', "
            "previous_metadata_location = '/x/v2.json' WHERE table_name = 'x'");
  EXPECT_THAT(LogLines(*catalog_),
              ::testing::ElementsAre("commit|db.x|/x/v1.json|/x/v2.json|1|",
                                     "external|db.x|/x/v2.json|/x/v3.json|0|"));
}

// A database user who may not create the log's table or the trigger: floe works on, says
// why, and records what it may.
TEST(PostgresAuditLogTest, UserWithoutRightsWorksOnWithoutTheTrigger) {
  const std::string uri = testing::FreshPostgresDatabase();
  ASSERT_FALSE(uri.empty());
  {
    testing::RawPostgres owner(uri);
    // The catalog tables exist already, owned by another user (as a cluster's would be).
    owner.Exec("CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL, "
               "table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, "
               "metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000), "
               "iceberg_type VARCHAR(5), PRIMARY KEY (catalog_name, table_namespace, table_name))");
    owner.Exec("CREATE TABLE iceberg_namespace_properties(catalog_name VARCHAR(255) NOT NULL, "
               "namespace VARCHAR(255) NOT NULL, property_key VARCHAR(255), "
               "property_value VARCHAR(1000), PRIMARY KEY (catalog_name, namespace, property_key))");
    owner.Exec("DROP ROLE IF EXISTS floe_limited");
    owner.Exec("CREATE ROLE floe_limited LOGIN");
    owner.Exec("GRANT SELECT, INSERT, UPDATE, DELETE ON iceberg_tables, "
               "iceberg_namespace_properties TO floe_limited");
  }
  const auto at = uri.find("://") + 3;
  const std::string limited =
      uri.substr(0, at) + "floe_limited" + uri.substr(uri.find('@', at));
  {
    ASSERT_OK_AND_ASSIGN(auto catalog, SqlCatalog::Open(limited, "lakehouse"));
    EXPECT_FALSE(catalog->HasAuditLog());
    ASSERT_OK_AND_ASSIGN(auto trigger, catalog->AuditTrigger());
    EXPECT_FALSE(trigger.installed);
    EXPECT_TRUE(trigger.refused);
    EXPECT_THAT(trigger.reason, ::testing::HasSubstr("permission denied"));
    ASSERT_OK(catalog->CreateNamespace(Ns({"db"}), {}));
    ASSERT_OK(catalog->CreateTableEntry(Tbl("db.t"), "/t/v1.json", Record("create")));
  }
  testing::RawPostgres(uri).Exec("GRANT CREATE ON SCHEMA public TO floe_limited");
  ASSERT_OK_AND_ASSIGN(auto catalog, SqlCatalog::Open(limited, "lakehouse"));
  EXPECT_TRUE(catalog->HasAuditLog());
  ASSERT_OK_AND_ASSIGN(auto trigger, catalog->AuditTrigger());
  EXPECT_FALSE(trigger.installed);
  EXPECT_TRUE(trigger.refused);
  EXPECT_THAT(trigger.reason, ::testing::HasSubstr("permission denied for table iceberg_tables"));
  ASSERT_OK(catalog->SwapMetadataLocation(Tbl("db.t"), "/t/v1.json", "/t/v2.json",
                                          Record("commit")));
  EXPECT_THAT(LogLines(*catalog), ::testing::ElementsAre("commit|db.t|/t/v1.json|/t/v2.json|1|"));
}

}  // namespace
}  // namespace floe

namespace floe {
namespace {

// A catalog tag's record is written and deleted in the transaction that swaps the tables'
// pointers: a duplicate leaves every pointer where it was.
TEST_P(SqlCatalogTest, CatalogTagsAreRecordedWithTheSwap) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.a"), "/wh/db/a/v1.json"));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.b"), "/wh/db/b/v1.json"));
  ASSERT_OK_AND_ASSIGN(auto none, catalog_->ListCatalogTags());
  EXPECT_TRUE(none.empty());

  CatalogTagChange change;
  change.tag.name = "run_1";
  change.tag.ns = Ns({"db"});
  change.tag.created_at_ms = 1000;
  change.tag.max_ref_age_ms = 86400000;
  change.tag.transaction_id = "tx-1";
  change.tag.tables = {{Tbl("db.a"), "uuid-a", 11}, {Tbl("db.b"), "uuid-b", std::nullopt}};
  ASSERT_OK(catalog_->SwapMetadataLocations(
      {{Tbl("db.a"), "/wh/db/a/v1.json", "/wh/db/a/v2.json", {}}}, &change));
  ASSERT_OK_AND_ASSIGN(auto tag, catalog_->LoadCatalogTag("run_1"));
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->ns, Ns({"db"}));
  EXPECT_EQ(tag->created_at_ms, 1000);
  EXPECT_EQ(tag->max_ref_age_ms, 86400000);
  EXPECT_EQ(tag->transaction_id, "tx-1");
  ASSERT_EQ(tag->tables.size(), 2u);
  EXPECT_EQ(tag->tables[0].ident, Tbl("db.a"));
  EXPECT_EQ(tag->tables[0].table_uuid, "uuid-a");
  EXPECT_EQ(tag->tables[0].snapshot_id, 11);
  EXPECT_EQ(tag->tables[1].snapshot_id, std::nullopt);

  Status dup = catalog_->SwapMetadataLocations(
      {{Tbl("db.b"), "/wh/db/b/v1.json", "/wh/db/b/v2.json", {}}}, &change);
  EXPECT_TRUE(IsAlreadyExists(dup)) << dup.ToString();
  EXPECT_EQ(dup.message(), "Catalog tag run_1 already exists in catalog lakehouse");
  ASSERT_OK_AND_ASSIGN(auto b, catalog_->LoadMetadataLocation(Tbl("db.b")));
  EXPECT_EQ(b, "/wh/db/b/v1.json");

  CatalogTagChange whole;
  whole.tag.name = "run_2";
  whole.tag.created_at_ms = 2000;
  ASSERT_OK(catalog_->SwapMetadataLocations({}, &whole));
  ASSERT_OK_AND_ASSIGN(auto all, catalog_->ListCatalogTags());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].name, "run_2");
  EXPECT_EQ(all[1].ns, std::nullopt);
  EXPECT_EQ(all[1].max_ref_age_ms, std::nullopt);

  CatalogTagChange drop;
  drop.kind = CatalogTagChange::Kind::kDrop;
  drop.tag.name = "run_1";
  ASSERT_OK(catalog_->SwapMetadataLocations(
      {{Tbl("db.a"), "/wh/db/a/v2.json", "/wh/db/a/v3.json", {}}}, &drop));
  ASSERT_OK_AND_ASSIGN(tag, catalog_->LoadCatalogTag("run_1"));
  EXPECT_FALSE(tag.has_value());
  Status again = catalog_->SwapMetadataLocations(
      {{Tbl("db.a"), "/wh/db/a/v3.json", "/wh/db/a/v4.json", {}}}, &drop);
  EXPECT_TRUE(IsNotFound(again));
  EXPECT_EQ(again.message(), "Catalog tag run_1 does not exist in catalog lakehouse");
  ASSERT_OK_AND_ASSIGN(auto a, catalog_->LoadMetadataLocation(Tbl("db.a")));
  EXPECT_EQ(a, "/wh/db/a/v3.json");
}

}  // namespace
}  // namespace floe
