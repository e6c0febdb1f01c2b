-- The SQL that floe's users write in their pipelines, notebooks and Python code, verbatim
-- except that Python f-string placeholders are filled in with concrete names and values.

-- pipeline: addressing by tag / snapshot id / timestamp
SELECT *
FROM lakehouse.analytics.orders VERSION AS OF 'audit-2024-q2';

SELECT *
FROM lakehouse.analytics.orders VERSION AS OF 5847203991234567890;

SELECT *
FROM lakehouse.analytics.orders VERSION AS OF 'audit-2024-q2';

SELECT *
FROM lakehouse.analytics.orders
FOR SYSTEM_VERSION AS OF 5847203991234567890;

SELECT *
FROM lakehouse.analytics.orders
TIMESTAMP AS OF '2025-06-15 15:00:00';

SELECT *
FROM lakehouse.analytics.orders
FOR SYSTEM_TIME AS OF '2025-06-15 15:00:00';

SELECT *
FROM lakehouse.analytics.orders
TIMESTAMP AS OF TIMESTAMP '2025-06-15 15:00:00';

-- pipeline: the week-over-week diff
    SELECT
        cur.order_id,
        cur.status   AS status_now,
        old.status   AS status_week_ago,
        cur.amount   AS amount_now,
        old.amount   AS amount_week_ago
    FROM lakehouse.analytics.orders cur
    JOIN lakehouse.analytics.orders TIMESTAMP AS OF '2025-06-08 00:00:00' AS old
        ON cur.order_id = old.order_id
    WHERE cur.status != old.status
       OR cur.amount  != old.amount
;

-- pipeline: resolve_snapshot_as_of and run manifests
        SELECT snapshot_id
        FROM lakehouse.analytics.orders.history
        WHERE made_current_at <= timestamp_millis(1749999600000)
          AND is_current_ancestor = true
        ORDER BY made_current_at DESC
        LIMIT 1
;
        SELECT snapshot_id, committed_at
        FROM lakehouse.analytics.orders.snapshots
        ORDER BY committed_at DESC
        LIMIT 1
;

-- pipeline: procedures
CALL lakehouse.system.rollback_to_snapshot(
    'analytics.orders', 5847203991111111111
);

CALL lakehouse.system.rollback_to_timestamp(
    'analytics.orders', TIMESTAMP '2025-06-15 14:50:00'
);

CALL lakehouse.system.set_current_snapshot(
    'analytics.orders', snapshot_id => 5847203991234567890
);

CALL lakehouse.system.set_current_snapshot(
    'analytics.orders', ref => 'audit-2024-q2'
);

-- pipeline: the report, the daily revenue
    CREATE TABLE IF NOT EXISTS lakehouse.gold.daily_revenue_report (
        report_date    DATE,
        total_orders   BIGINT,
        total_revenue  DECIMAL(18, 2)
    )
    USING iceberg
;
    INSERT OVERWRITE lakehouse.gold.daily_revenue_report
    SELECT
        CAST(updated_at AS DATE) AS report_date,
        COUNT(*)                 AS total_orders,
        SUM(amount)               AS total_revenue
    FROM lakehouse.analytics.orders
    WHERE status != 'cancelled'
    GROUP BY CAST(updated_at AS DATE)
;
    SELECT * FROM lakehouse.gold.daily_revenue_report ORDER BY report_date
;
    SELECT snapshot_id, committed_at, operation
    FROM lakehouse.gold.daily_revenue_report.snapshots
    ORDER BY committed_at
;

-- pipeline: the bad write, a MERGE
    MERGE INTO lakehouse.gold.daily_revenue_report t
    USING (
        SELECT
            CAST(o.updated_at AS DATE) AS report_date,
            COUNT(*)                   AS total_orders,
            SUM(o.amount * r.rate)     AS total_revenue
        FROM lakehouse.analytics.orders o
        JOIN lakehouse.ref.currency_rates r
            ON o.currency = r.currency_code   -- БАГ: пропущено "AND r.is_current = true"
        WHERE o.status != 'cancelled'
        GROUP BY CAST(o.updated_at AS DATE)
    ) s
    ON t.report_date = s.report_date
    WHEN MATCHED THEN UPDATE SET
        t.total_orders  = s.total_orders,
        t.total_revenue = s.total_revenue
;
    SELECT * FROM lakehouse.gold.daily_revenue_report ORDER BY report_date
;

-- pipeline: the audit
    SELECT
        snapshot_id, parent_id, committed_at, operation,
        summary['total-records'] AS total_records
    FROM lakehouse.gold.daily_revenue_report.snapshots
    ORDER BY committed_at
;
SELECT * FROM lakehouse.gold.daily_revenue_report VERSION AS OF 9001
;
    SELECT
        cur.report_date,
        cur.total_revenue                      AS revenue_now_corrupted,
        old.total_revenue                      AS revenue_before_incident,
        cur.total_revenue - old.total_revenue  AS diff
    FROM lakehouse.gold.daily_revenue_report cur
    JOIN lakehouse.gold.daily_revenue_report VERSION AS OF 9001 AS old
        ON cur.report_date = old.report_date
    ORDER BY cur.report_date
;

-- pipeline: the rollback, redo, rollback again
CALL lakehouse.system.rollback_to_snapshot('gold.daily_revenue_report', 9001);
    SELECT * FROM lakehouse.gold.daily_revenue_report ORDER BY report_date
;
    SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor
    FROM lakehouse.gold.daily_revenue_report.history
    ORDER BY made_current_at
;
CALL lakehouse.system.set_current_snapshot(
    'gold.daily_revenue_report', snapshot_id => 9002
);
SELECT * FROM lakehouse.gold.daily_revenue_report ORDER BY report_date;
CALL lakehouse.system.rollback_to_snapshot('gold.daily_revenue_report', 9001);

-- pipeline: the time-zone incident
SELECT * FROM lakehouse.analytics.orders
TIMESTAMP AS OF '2025-05-01 00:00:00';

-- notebook: the lab notebook (SILVER_TABLE = lakehouse.silver.nyc_taxi_yellow,
-- DEMO_TABLE = lakehouse.default.taxi_changes_demo)
SELECT snapshot_id, committed_at, operation, summary FROM lakehouse.silver.nyc_taxi_yellow.snapshots;
SELECT * FROM lakehouse.silver.nyc_taxi_yellow.history;
ALTER TABLE lakehouse.silver.nyc_taxi_yellow ADD COLUMNS (loaded_at TIMESTAMP);
SELECT VendorID, loaded_at FROM lakehouse.silver.nyc_taxi_yellow LIMIT 5;
DESCRIBE lakehouse.silver.nyc_taxi_yellow;
DROP TABLE IF EXISTS lakehouse.default.taxi_changes_demo PURGE;
    CREATE TABLE lakehouse.default.taxi_changes_demo
    USING iceberg AS
    SELECT VendorID, tpep_pickup_datetime, tpep_dropoff_datetime,
           passenger_count, trip_distance, fare_amount, total_amount,
           pickup_borough, pickup_zone
    FROM lakehouse.silver.nyc_taxi_yellow
    LIMIT 1000
;
SELECT snapshot_id, committed_at FROM lakehouse.default.taxi_changes_demo.snapshots ORDER BY committed_at ASC;
    INSERT INTO lakehouse.default.taxi_changes_demo
    SELECT VendorID, tpep_pickup_datetime, tpep_dropoff_datetime,
           passenger_count, trip_distance, fare_amount, total_amount,
           pickup_borough, pickup_zone
    FROM lakehouse.silver.nyc_taxi_yellow
    WHERE pickup_borough = 'Manhattan'
    LIMIT 500
;
    SELECT count(*) AS row_count
    FROM lakehouse.default.taxi_changes_demo
    VERSION AS OF 5847203991111111111
;
    SELECT count(*) AS row_count
    FROM lakehouse.default.taxi_changes_demo
;
SELECT count(*) FROM lakehouse.default.taxi_changes_demo FOR VERSION AS OF 5847203991111111111;
    SELECT count(*) AS row_count
    FROM lakehouse.default.taxi_changes_demo
    FOR VERSION AS OF 5847203991111111111
;
    SELECT count(*) AS row_count
    FROM lakehouse.default.taxi_changes_demo
    TIMESTAMP AS OF '2025-06-15 14:50:00.123'
;
    INSERT INTO lakehouse.default.taxi_changes_demo
    SELECT VendorID, tpep_pickup_datetime, tpep_dropoff_datetime,
           passenger_count, trip_distance,
           -99.99 AS fare_amount,
           -99.99 AS total_amount,
           'ERROR' AS pickup_borough,
           'BAD_DATA' AS pickup_zone
    FROM lakehouse.silver.nyc_taxi_yellow
    LIMIT 200
;
    SELECT count(*) as bad_rows 
    FROM lakehouse.default.taxi_changes_demo 
    WHERE fare_amount < 0
;
SELECT snapshot_id, parent_id, operation FROM lakehouse.default.taxi_changes_demo.snapshots;
    CALL lakehouse.system.rollback_to_snapshot(
        table => 'default.taxi_changes_demo',
        snapshot_id => 5847203991222222222
    )
;
SELECT count(*) as bad_rows FROM lakehouse.default.taxi_changes_demo WHERE fare_amount < 0;
SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor FROM lakehouse.default.taxi_changes_demo.history ORDER BY made_current_at;
ALTER TABLE lakehouse.default.taxi_changes_demo RENAME COLUMN pickup_borough TO borough;
SELECT borough FROM lakehouse.default.taxi_changes_demo LIMIT 3;
SELECT pickup_borough FROM lakehouse.default.taxi_changes_demo LIMIT 3;
SELECT * FROM lakehouse.default.taxi_changes_demo LIMIT 10;
SELECT * FROM lakehouse.default.taxi_changes_demo.snapshots;
-- notebook: the schema-evolution table
ALTER TABLE lakehouse.default.taxi_changes_demo ADD COLUMN quality_flag STRING;
ALTER TABLE lakehouse.default.taxi_changes_demo ALTER COLUMN passenger_count TYPE bigint;
ALTER TABLE lakehouse.default.taxi_changes_demo DROP COLUMN quality_flag;
CREATE OR REPLACE TABLE lakehouse.default.taxi_changes_demo AS SELECT * FROM lakehouse.default.taxi_changes_demo VERSION AS OF 5847203991222222222;
CALL lakehouse.system.rollback_to_snapshot(table => 'default.taxi_changes_demo', snapshot_id => 5847203991222222222);

-- Python API: the Python API page
CREATE DATABASE IF NOT EXISTS drls.travel_demo;
DROP TABLE IF EXISTS drls.travel_demo.metrics;
    CREATE TABLE drls.travel_demo.metrics (
        ts TIMESTAMP,
        metric STRING,
        value DOUBLE
    ) USING iceberg
;
        INSERT INTO drls.travel_demo.metrics VALUES
        (current_timestamp(), 'cpu', 50.0),
        (current_timestamp(), 'memory', 60.0)
;
