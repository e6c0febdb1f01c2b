// What only a PostgreSQL catalog has: its URI forms, connection errors, reconnecting after
// the server ends a connection, and retrying serialization failures among many writers.

#include <atomic>
#include <set>
#include <thread>

#include "floe/catalog/postgres_driver.h"
#include "floe/catalog/sql_catalog.h"
#include "floe_test.h"
#include "unit/catalog/catalog_names.h"
#include "unit/catalog/raw_database.h"

namespace floe {
namespace {

using testing::Ns;
using testing::Tbl;

TEST(PostgresUriTest, Forms) {
  EXPECT_TRUE(IsPostgresUri("postgresql://u@h:5432/db"));
  EXPECT_TRUE(IsPostgresUri("postgres://h/db"));
  EXPECT_TRUE(IsPostgresUri("postgresql+psycopg2://u@h/db"));
  EXPECT_TRUE(IsPostgresUri("jdbc:postgresql://h/db"));
  EXPECT_FALSE(IsPostgresUri("jdbc:sqlite:/tmp/c.db"));
  EXPECT_FALSE(IsPostgresUri("/tmp/postgresql.db"));

  auto uri = [](std::string_view in) { return PostgresConnectionUri(in).ValueOrDie(); };
  EXPECT_EQ(uri("postgresql://u:p@h:5432/db"), "postgresql://u:p@h:5432/db");
  EXPECT_EQ(uri("postgresql+psycopg2://u@h/db"), "postgresql://u@h/db");
  EXPECT_EQ(uri("jdbc:postgresql://h:5433/lake"), "postgresql://h:5433/lake");
  // JDBC's own parameters are left out; libpq's are kept.
  EXPECT_EQ(uri("jdbc:postgresql://h/lake?user=spark&currentSchema=x&password=s&ssl=true"),
            "postgresql://h/lake?user=spark&password=s");
  EXPECT_EQ(uri("jdbc:postgresql:lake"), "postgresql:///lake");
}

TEST(PostgresCatalogTest, ConnectionErrorsNameTheServerNotThePassword) {
  // Port 1 on loopback: nothing listens there.
  Status st = SqlCatalog::Open("postgresql://floe:secret@127.0.0.1:1/lake").status();
  ASSERT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_THAT(st.message(), ::testing::StartsWith("Cannot connect to PostgreSQL catalog "
                                                  "postgresql://floe@127.0.0.1:1/lake: "));
  EXPECT_THAT(st.message(), ::testing::HasSubstr("Connection refused"));
  EXPECT_THAT(st.message(), ::testing::Not(::testing::HasSubstr("secret")));

  const std::string server = testing::PostgresServerUri();
  ASSERT_FALSE(server.empty());
  const std::string missing = server.substr(0, server.rfind('/') + 1) + "no_such_database";
  st = SqlCatalog::Open(missing).status();
  EXPECT_THAT(st.message(), ::testing::HasSubstr("database \"no_such_database\" does not exist"));
}

class PostgresCatalogOnServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = testing::FreshPostgresDatabase();
    ASSERT_FALSE(uri_.empty());
    ASSERT_OK_AND_ASSIGN(catalog_, SqlCatalog::Open(uri_, "lakehouse", "/wh"));
  }

  std::string uri_;
  std::unique_ptr<SqlCatalog> catalog_;
};

TEST_F(PostgresCatalogOnServerTest, TheJdbcFormOpensTheSameCatalog) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  // postgresql://floe@127.0.0.1:<port>/<db> -> jdbc:postgresql://127.0.0.1:<port>/<db>?user=floe
  const std::string rest = uri_.substr(uri_.find('@') + 1);
  ASSERT_OK_AND_ASSIGN(auto jdbc,
                       SqlCatalog::Open("jdbc:postgresql://" + rest + "?user=floe", "lakehouse"));
  ASSERT_OK_AND_ASSIGN(bool exists, jdbc->NamespaceExists(Ns({"db"})));
  EXPECT_TRUE(exists);
  EXPECT_EQ(jdbc->database_path(), uri_);
  EXPECT_EQ(catalog_->JournalMode().status().message(),
            "PostgreSQL catalog " + uri_ + " has no journal mode");
}

TEST_F(PostgresCatalogOnServerTest, ReconnectsWhenTheServerEndsItsConnection) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.t"), "/m/v1.json"));
  testing::RawPostgres raw(uri_);

  // Between statements: the next read and the next commit find a new connection.
  ASSERT_EQ(raw.TerminateOtherConnections(), 1);
  ASSERT_OK_AND_ASSIGN(auto location, catalog_->LoadMetadataLocation(Tbl("db.t")));
  EXPECT_EQ(location, "/m/v1.json");
  ASSERT_EQ(raw.TerminateOtherConnections(), 1);
  ASSERT_OK(catalog_->SwapMetadataLocation(Tbl("db.t"), "/m/v1.json", "/m/v2.json"));
  ASSERT_EQ(raw.TerminateOtherConnections(), 1);
  ASSERT_OK(catalog_->CreateTableEntry(Tbl("db.u"), "/m/u1.json"));
  ASSERT_EQ(raw.TerminateOtherConnections(), 1);
  ASSERT_OK(catalog_->DropTableEntry(Tbl("db.u"), DropRecord::kKeep).status());

  EXPECT_THAT(raw.Rows("SELECT table_name, metadata_location, previous_metadata_location "
                       "FROM iceberg_tables ORDER BY table_name"),
              ::testing::ElementsAre("t|/m/v2.json|/m/v1.json"));
  EXPECT_THAT(raw.Rows("SELECT drop_id, table_name, metadata_location FROM floe_dropped_tables"),
              ::testing::ElementsAre("1|u|/m/u1.json"));
}

// SERIALIZABLE transactions that collide fail with a serialization failure; the catalog runs
// them again, so that each of many concurrent writers succeeds exactly once.
TEST_F(PostgresCatalogOnServerTest, ConcurrentWritersAreRetriedNotFailed) {
  ASSERT_OK(catalog_->CreateNamespace(Ns({"db"}), {}));
  constexpr int kWriters = 6;
  constexpr int kEach = 8;
  std::vector<std::unique_ptr<SqlCatalog>> catalogs;
  for (int i = 0; i < kWriters; ++i) {
    ASSERT_OK_AND_ASSIGN(auto c, SqlCatalog::Open(uri_, "lakehouse", "/wh"));
    catalogs.push_back(std::move(c));
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kEach; ++i) {
        const std::string name = StrCat("db.t", w, "_", i);
        Status st = catalogs[w]->CreateTableEntry(Tbl(name), "/m/" + name + ".json");
        // Every drop takes the next drop id from the same rows: they collide.
        if (st.ok()) st = catalogs[w]->DropTableEntry(Tbl(name), DropRecord::kKeep).status();
        if (st.ok()) st = catalogs[w]->CreateNamespace(Ns({StrCat("ns", w, "_", i)}), {});
        if (!st.ok()) {
          ++failures;
          ADD_FAILURE() << name << ": " << st.ToString();
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  testing::RawPostgres raw(uri_);
  EXPECT_THAT(raw.Rows("SELECT count(*), count(DISTINCT drop_id), min(drop_id), max(drop_id) "
                       "FROM floe_dropped_tables"),
              ::testing::ElementsAre(
                  StrCat(kWriters * kEach, "|", kWriters * kEach, "|1|", kWriters * kEach)));
  ASSERT_OK_AND_ASSIGN(auto top, catalog_->ListNamespaces(Namespace()));
  EXPECT_EQ(top.size(), static_cast<size_t>(kWriters * kEach + 1));
}

}  // namespace
}  // namespace floe
