// The seeds' scenarios, run as written (seed 000 Cases 0-3, the notebook of seed 002) on
// generated data that reproduces the seeds' figures.

#include "floe/util/str_cat.h"
#include "session_fixture.h"

namespace floe::sql {
namespace {

class SeedScenarioTest : public testing::SessionFixture {
 protected:
  // lakehouse.analytics.orders: 842 live orders on 2025-06-14 totalling 184320.50 and 915
  // on 2025-06-15 totalling 201450.75, all in RUB, plus cancelled orders that the report
  // must ignore; and a currency_rates table holding RUB twice (old and current row).
  void MakeOrders() {
    Ok("CREATE NAMESPACE IF NOT EXISTS analytics");
    Ok("CREATE NAMESPACE IF NOT EXISTS gold");
    Ok("CREATE NAMESPACE IF NOT EXISTS ref");
    Ok("CREATE TABLE lakehouse.analytics.orders (order_id BIGINT, updated_at TIMESTAMP, amount DECIMAL(12, 2), "
       "status STRING, currency STRING) USING iceberg");
    Ok("INSERT INTO lakehouse.analytics.orders "
       "SELECT id, timestamp_millis(1749859200000 + id * 60000), "
       "CASE WHEN id = 0 THEN 225.60 ELSE 218.90 END, 'completed', 'RUB' FROM range(842)");
    Ok("INSERT INTO lakehouse.analytics.orders "
       "SELECT 10000 + id, timestamp_millis(1749945600000 + id * 60000), "
       "CASE WHEN id = 0 THEN 224.51 ELSE 220.16 END, 'completed', 'RUB' FROM range(915)");
    Ok("INSERT INTO lakehouse.analytics.orders "
       "SELECT 20000 + id, timestamp_millis(1749859200000 + id * 3600000), 999.99, 'cancelled', 'RUB' FROM range(40)");
    Ok("CREATE TABLE lakehouse.ref.currency_rates (currency_code STRING, rate DECIMAL(10, 4), is_current BOOLEAN) "
       "USING iceberg");
    Ok("INSERT INTO lakehouse.ref.currency_rates VALUES ('RUB', 1.0000, false), ('RUB', 1.0000, true)");
  }

  void Case0() {
    Ok(R"(CREATE TABLE IF NOT EXISTS lakehouse.gold.daily_revenue_report (
        report_date    DATE,
        total_orders   BIGINT,
        total_revenue  DECIMAL(18, 2)
    )
    USING iceberg)");
    Ok(R"(INSERT OVERWRITE lakehouse.gold.daily_revenue_report
    SELECT
        CAST(updated_at AS DATE) AS report_date,
        COUNT(*)                 AS total_orders,
        SUM(amount)               AS total_revenue
    FROM lakehouse.analytics.orders
    WHERE status != 'cancelled'
    GROUP BY CAST(updated_at AS DATE))");
  }

  // Case 1 as an INSERT OVERWRITE of the same faulty join (MERGE INTO is not supported yet).
  void Case1() {
    Ok(R"(INSERT OVERWRITE lakehouse.gold.daily_revenue_report
        SELECT
            CAST(o.updated_at AS DATE) AS report_date,
            COUNT(*)                   AS total_orders,
            SUM(o.amount * r.rate)     AS total_revenue
        FROM lakehouse.analytics.orders o
        JOIN lakehouse.ref.currency_rates r
            ON o.currency = r.currency_code
        WHERE o.status != 'cancelled'
        GROUP BY CAST(o.updated_at AS DATE))");
  }

  const std::vector<std::string> kClean = {"2025-06-14|842|184320.50", "2025-06-15|915|201450.75"};
  const std::vector<std::string> kDoubled = {"2025-06-14|1684|368641.00", "2025-06-15|1830|402901.50"};
};

TEST_F(SeedScenarioTest, Case0DailyRevenueReport) {
  MakeOrders();
  Case0();
  EXPECT_EQ(Rows("SELECT * FROM lakehouse.gold.daily_revenue_report ORDER BY report_date"), kClean);
  auto snapshots = Rows(R"(SELECT snapshot_id, committed_at, operation
    FROM lakehouse.gold.daily_revenue_report.snapshots
    ORDER BY committed_at)");
  ASSERT_EQ(snapshots.size(), 1u);
  EXPECT_THAT(snapshots[0], ::testing::EndsWith("|overwrite"));
  EXPECT_EQ(Rows("DESCRIBE lakehouse.gold.daily_revenue_report"),
            std::vector<std::string>({"report_date|date|NULL", "total_orders|bigint|NULL", "total_revenue|decimal(18,2)|NULL"}));
}

TEST_F(SeedScenarioTest, Cases1To3IncidentAuditRollback) {
  MakeOrders();
  Case0();
  const std::string clean = Value("SELECT snapshot_id FROM lakehouse.gold.daily_revenue_report.snapshots");
  Case1();
  EXPECT_EQ(Rows("SELECT * FROM lakehouse.gold.daily_revenue_report ORDER BY report_date"), kDoubled);

  // Case 2: the audit.
  auto audit = Rows(R"(SELECT
        snapshot_id, parent_id, operation,
        summary['total-records'] AS total_records
    FROM lakehouse.gold.daily_revenue_report.snapshots
    ORDER BY committed_at)");
  ASSERT_EQ(audit.size(), 2u);
  const std::string bad = audit[1].substr(0, audit[1].find('|'));
  EXPECT_EQ(audit[0], clean + "|NULL|overwrite|2");
  EXPECT_EQ(audit[1], bad + "|" + clean + "|overwrite|2");
  EXPECT_EQ(Rows("SELECT * FROM lakehouse.gold.daily_revenue_report VERSION AS OF " + clean + " ORDER BY report_date"),
            kClean);
  EXPECT_EQ(Rows(StrCat(R"(SELECT
        cur.report_date,
        cur.total_revenue                      AS revenue_now_corrupted,
        old.total_revenue                      AS revenue_before_incident,
        cur.total_revenue - old.total_revenue  AS diff
    FROM lakehouse.gold.daily_revenue_report cur
    JOIN lakehouse.gold.daily_revenue_report VERSION AS OF )", clean, R"( AS old
        ON cur.report_date = old.report_date
    ORDER BY cur.report_date)")),
            std::vector<std::string>({"2025-06-14|368641.00|184320.50|184320.50", "2025-06-15|402901.50|201450.75|201450.75"}));

  // Case 3: rollback, then redo with set_current_snapshot and roll back again.
  EXPECT_EQ(Rows("CALL lakehouse.system.rollback_to_snapshot('gold.daily_revenue_report', " + clean + ")"),
            std::vector<std::string>({bad + "|" + clean}));
  EXPECT_EQ(Rows("SELECT * FROM lakehouse.gold.daily_revenue_report ORDER BY report_date"), kClean);
  auto history = Rows(R"(SELECT snapshot_id, parent_id, is_current_ancestor
    FROM lakehouse.gold.daily_revenue_report.history
    ORDER BY made_current_at)");
  EXPECT_EQ(history, std::vector<std::string>({clean + "|NULL|true", bad + "|" + clean + "|false", clean + "|NULL|true"}));
  EXPECT_EQ(Value("SELECT count(*) FROM lakehouse.gold.daily_revenue_report.snapshots"), "2");
  EXPECT_EQ(Rows("SELECT * FROM lakehouse.gold.daily_revenue_report VERSION AS OF " + bad + " ORDER BY report_date"),
            kDoubled);

  Ok("CALL lakehouse.system.set_current_snapshot(\n    'gold.daily_revenue_report', snapshot_id => " + bad + "\n)");
  EXPECT_EQ(Rows("SELECT * FROM lakehouse.gold.daily_revenue_report ORDER BY report_date"), kDoubled);
  Ok("CALL lakehouse.system.rollback_to_snapshot('gold.daily_revenue_report', " + clean + ")");
  EXPECT_EQ(Rows("SELECT * FROM lakehouse.gold.daily_revenue_report ORDER BY report_date"), kClean);
  EXPECT_EQ(Value("SELECT count(*) FROM lakehouse.gold.daily_revenue_report.snapshots"), "2");
  EXPECT_EQ(Value("SELECT count(*) FROM lakehouse.gold.daily_revenue_report.history"), "5");
}

TEST_F(SeedScenarioTest, NotebookTimeTravelAndRollback) {
  Ok("CREATE NAMESPACE IF NOT EXISTS silver");
  Ok("CREATE TABLE lakehouse.silver.taxi (VendorID INT, fare_amount DOUBLE, total_amount DOUBLE, "
     "pickup_borough STRING, pickup_zone STRING) USING iceberg");
  Ok("INSERT INTO lakehouse.silver.taxi SELECT CAST(id % 2 + 1 AS INT), id * 0.5, id * 0.5 + 2.5, "
     "CASE WHEN id % 3 = 0 THEN 'Manhattan' ELSE 'Queens' END, 'zone' FROM range(3000)");
  const std::string demo = "lakehouse.default.taxi_changes_demo";
  Ok("CREATE NAMESPACE IF NOT EXISTS lakehouse.default");
  Ok("DROP TABLE IF EXISTS " + demo + " PURGE");
  Ok("CREATE TABLE " + demo + "\n    USING iceberg AS\n    SELECT VendorID, fare_amount, total_amount,\n"
     "           pickup_borough, pickup_zone\n    FROM lakehouse.silver.taxi\n    LIMIT 1000");
  EXPECT_EQ(Value("SELECT count(*) FROM " + demo), "1000");
  const std::string s1 = Value("SELECT snapshot_id FROM " + demo + ".snapshots ORDER BY committed_at ASC");
  Ok("INSERT INTO " + demo + "\n    SELECT VendorID, fare_amount, total_amount, pickup_borough, pickup_zone\n"
     "    FROM lakehouse.silver.taxi\n    WHERE pickup_borough = 'Manhattan'\n    LIMIT 500");
  EXPECT_EQ(Value("SELECT count(*) FROM " + demo), "1500");
  auto snaps = Rows("SELECT snapshot_id FROM " + demo + ".snapshots ORDER BY committed_at ASC");
  ASSERT_EQ(snaps.size(), 2u);
  const std::string s2 = snaps[1];
  EXPECT_EQ(Value("SELECT count(*) AS row_count FROM " + demo + " VERSION AS OF " + s1), "1000");
  EXPECT_EQ(Value("SELECT count(*) AS row_count FROM " + demo + " FOR VERSION AS OF " + s1), "1000");
  Ok("INSERT INTO " + demo + "\n    SELECT VendorID, -99.99 AS fare_amount, -99.99 AS total_amount,\n"
     "           'ERROR' AS pickup_borough, 'BAD_DATA' AS pickup_zone\n    FROM lakehouse.silver.taxi\n    LIMIT 200");
  EXPECT_EQ(Value("SELECT count(*) as bad_rows FROM " + demo + " WHERE fare_amount < 0"), "200");
  auto three = Rows("SELECT snapshot_id FROM " + demo + ".snapshots ORDER BY committed_at ASC");
  ASSERT_EQ(three.size(), 3u);
  const std::string s3 = three[2];
  EXPECT_EQ(Rows("CALL lakehouse.system.rollback_to_snapshot(\n        table => 'default.taxi_changes_demo',\n"
                 "        snapshot_id => " + s2 + "\n    )"),
            std::vector<std::string>({s3 + "|" + s2}));
  EXPECT_EQ(Value("SELECT count(*) FROM " + demo), "1500");
  EXPECT_EQ(Value("SELECT count(*) as bad_rows FROM " + demo + " WHERE fare_amount < 0"), "0");
  EXPECT_EQ(Value("SELECT count(*) FROM " + demo + ".snapshots"), "3");
  EXPECT_EQ(Rows("SELECT snapshot_id, is_current_ancestor FROM " + demo + ".history ORDER BY made_current_at"),
            std::vector<std::string>({s1 + "|true", s2 + "|true", s3 + "|false", s2 + "|true"}));
  // The bypassed snapshot stays readable.
  EXPECT_EQ(Value("SELECT count(*) FROM " + demo + " VERSION AS OF " + s3), "1700");
}

}  // namespace
}  // namespace floe::sql

namespace floe::sql {
namespace {

using BranchTest = testing::SessionFixture;

TEST_F(BranchTest, WritesToABranchLeaveMainUntouched) {
  Ok("CREATE NAMESPACE db");
  Ok("CREATE TABLE db.t (id BIGINT) USING iceberg");
  Ok("INSERT INTO db.t VALUES (1), (2)");
  const std::string main_id = Value("SELECT snapshot_id FROM db.t.snapshots");
  Ok("ALTER TABLE db.t CREATE BRANCH audit");
  Ok("INSERT INTO db.t.branch_audit VALUES (3)");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t"), "2");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t.branch_audit"), "3");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t VERSION AS OF 'audit'"), "3");
  EXPECT_EQ(Value("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'"), main_id);
  EXPECT_THAT(Error("SELECT * FROM db.t.branch_audit VERSION AS OF " + main_id),
              ::testing::HasSubstr("Cannot do time-travel based on both table identifier and AS OF"));
  Ok("SET spark.wap.branch = audit");
  Ok("INSERT INTO db.t VALUES (4)");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t"), "4");
  Ok("RESET spark.wap.branch");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t"), "2");
  // Rolling main back to a branch's snapshot is refused; setting it current is allowed.
  const std::string branch_head = Value("SELECT snapshot_id FROM db.t.refs WHERE name = 'audit'");
  EXPECT_THAT(Error("CALL lakehouse.system.rollback_to_snapshot('db.t', " + branch_head + ")"),
              ::testing::HasSubstr("Cannot roll back to snapshot, not an ancestor of the current state: " + branch_head));
  Ok("CALL lakehouse.system.set_current_snapshot('db.t', " + branch_head + ")");
  EXPECT_EQ(Value("SELECT count(*) FROM db.t"), "4");
}

}  // namespace
}  // namespace floe::sql
