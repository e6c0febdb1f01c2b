"""floe and Spark on one PostgreSQL catalog (Iceberg's JDBC layout) with the files in an S3
bucket (floe through Arrow's S3 file system, Spark through Iceberg's S3FileIO), end to end: tables one engine creates and the other changes, schema evolution by each, time
travel by snapshot id and by timestamp in UTC and America/New_York, rollbacks and expiry by
either engine, and the revenue-report incident: a bad MERGE by Spark that floe audits and
rolls back, after which Spark reads the restored figures. Spark's catalog `pglake` and
floe's catalog name are the same, so both read and write the same catalog rows. The Python
package opens the same catalog too."""

import datetime as dt
import decimal
import json
import os
import pwd
import re
from zoneinfo import ZoneInfo

import pytest

import floe as floe_package
from floe.iceberg import history as iceberg_history
from floe.iceberg import rollback_to

from .support import check_metadata_tables, rows_of

CAT = "pglake"
NEW_YORK = ZoneInfo("America/New_York")
D = decimal.Decimal


def check_every_snapshot(spark, floe, table: str, operations: list[str]) -> None:
    """Both engines list the same snapshots, of these operations, and read each one alike,
    each under the schema it was written with."""
    snapshots = check_metadata_tables(spark, floe, table)
    assert [s["operation"] for s in snapshots] == operations
    for s in snapshots:
        got = floe.read(table, s["snapshot-id"])
        want = spark.sql(f"SELECT * FROM {CAT}.{table} VERSION AS OF {s['snapshot-id']}")
        assert got.column_names == want.columns
        assert rows_of(got) == rows_of(want), f"snapshot {s['snapshot-id']} ({s['operation']})"


def spark_rows(spark, sql: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(sql).collect()]


def floe_rows(floe, sql: str, tz: str | None = None) -> list[tuple]:
    return [tuple(r.values()) for r in floe.sql(sql, tz=tz, decimals=True)]


def snapshot_ids(floe, table: str) -> list[int]:
    """The table's snapshot ids, oldest first, as floe_interop reads them."""
    return [s["snapshot-id"] for s in floe.snapshots(table)]


def current_snapshot(floe, table: str) -> int:
    return floe.sql(f"SELECT snapshot_id FROM {CAT}.{table}.refs WHERE name = 'main'")[0]["snapshot_id"]


def history(engine, table: str) -> list[tuple]:
    """(snapshot_id, parent_id, is_current_ancestor) of each entry of the table's history."""
    sql = (f"SELECT snapshot_id, parent_id, is_current_ancestor FROM {CAT}.{table}.history "
           "ORDER BY made_current_at")
    return floe_rows(engine, sql) if hasattr(engine, "snapshots") else spark_rows(engine, sql)


def floe_error(floe, statement: str, tz: str | None = None) -> str:
    """The first line of the error floe's CLI prints for a statement (the message and where in
    the statement it points; the statement and a caret follow)."""
    with pytest.raises(RuntimeError) as e:
        floe.sql(statement, tz=tz)
    return str(e.value).split("failed: ", 1)[1].splitlines()[0]


def position(statement: str, part: str) -> str:
    """floe's position suffix of an error about `part` of a one-line statement."""
    return f" (line 1, column {statement.index(part) + 1})"


def spark_error(spark, sql: str) -> str:
    with pytest.raises(Exception) as e:
        spark.sql(sql).collect()
    return str(e.value)


def test_floe_and_spark_share_the_catalog_rows(spark, pglake, pg_ns, postgres):
    floe, ns = pglake, pg_ns
    floe.sql(f"CREATE TABLE {CAT}.{ns}.by_floe (id BIGINT, name STRING) USING iceberg",
             f"INSERT INTO {CAT}.{ns}.by_floe VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"CREATE TABLE {CAT}.{ns}.by_spark (id BIGINT, name STRING) USING iceberg")
    spark.sql(f"INSERT INTO {CAT}.{ns}.by_spark VALUES (3, 'c')")
    floe.sql(f"CREATE NAMESPACE {CAT}.{ns}_floe")

    assert {ns, f"{ns}_floe"} <= {r[0] for r in spark.sql(f"SHOW NAMESPACES IN {CAT}").collect()}
    assert {ns, f"{ns}_floe"} <= {r["namespace"] for r in floe.sql(f"SHOW NAMESPACES IN {CAT}")}
    assert sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {CAT}.{ns}").collect()) == ["by_floe", "by_spark"]
    assert sorted(r["tableName"] for r in floe.sql(f"SHOW TABLES IN {CAT}.{ns}")) == ["by_floe", "by_spark"]
    assert spark_rows(spark, f"SELECT * FROM {CAT}.{ns}.by_floe ORDER BY id") == [(1, "a"), (2, "b")]
    assert floe_rows(floe, f"SELECT * FROM {CAT}.{ns}.by_spark") == [(3, "c")]

    # The same rows from both engines, in the JDBC catalog's V1 layout: the metadata file after
    # the first commit and the one before it, both s3:// locations under the warehouse.
    rows = postgres.psql(
        "SELECT catalog_name, table_namespace, table_name, iceberg_type, metadata_location, "
        "previous_metadata_location FROM iceberg_tables "
        f"WHERE table_namespace LIKE '{ns}%' ORDER BY table_name", "pglake")
    uuid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    wh = re.escape(str(floe.warehouse))
    patterns = [
        rf"{CAT}\|{ns}\|by_floe\|TABLE\|{wh}/{ns}/by_floe/metadata/00001-{uuid}\.metadata\.json"
        rf"\|{wh}/{ns}/by_floe/metadata/00000-{uuid}\.metadata\.json",
        rf"{CAT}\|{ns}\|by_spark\|TABLE\|{wh}/{ns}/by_spark/metadata/00001-{uuid}\.metadata\.json"
        rf"\|{wh}/{ns}/by_spark/metadata/00000-{uuid}\.metadata\.json",
    ]
    lines = rows.splitlines()
    assert len(lines) == 2 and all(re.fullmatch(p, line) for p, line in zip(patterns, lines)), lines
    # Spark's CREATE NAMESPACE records its user as the owner; floe's records the namespace only.
    rows = postgres.psql(
        "SELECT catalog_name, namespace, property_key, property_value FROM iceberg_namespace_properties "
        f"WHERE namespace LIKE '{ns}%' ORDER BY namespace, property_key", "pglake")
    assert rows.splitlines() == [f"{CAT}|{ns}|exists|true", f"{CAT}|{ns}|owner|{pwd.getpwuid(os.geteuid()).pw_name}",
                                 f"{CAT}|{ns}_floe|exists|true"]


def test_spark_creates_floe_changes_and_evolves_the_schema(spark, pglake, pg_ns):
    floe, table = pglake, f"{pg_ns}.orders"
    t = f"{CAT}.{table}"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, customer STRING, amount DECIMAL(10,2)) USING iceberg")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 10.00), (2, 'b', 20.00), (3, 'c', 30.00)")
    floe.sql(f"INSERT INTO {t} VALUES (4, 'd', 40.00)")
    floe.sql(f"UPDATE {t} SET amount = amount * 2 WHERE id = 2")
    floe.sql(f"DELETE FROM {t} WHERE id = 3")
    before_evolution = current_snapshot(floe, table)
    floe.sql(f"ALTER TABLE {t} ADD COLUMN region STRING")
    floe.sql(f"ALTER TABLE {t} RENAME COLUMN customer TO client")
    floe.sql(f"INSERT INTO {t} VALUES (5, 'e', 50.00, 'eu')")

    # Spark reads floe's changes under floe's schema, and each snapshot under its own.
    assert spark.table(t).columns == ["id", "client", "amount", "region"]
    assert spark_rows(spark, f"SELECT * FROM {t} ORDER BY id") == [
        (1, "a", D("10.00"), None), (2, "b", D("40.00"), None), (4, "d", D("40.00"), None), (5, "e", D("50.00"), "eu")]
    old = spark.sql(f"SELECT * FROM {t} VERSION AS OF {before_evolution}")
    assert old.columns == ["id", "customer", "amount"]
    assert sorted(tuple(r) for r in old.collect()) == [(1, "a", D("10.00")), (2, "b", D("40.00")), (4, "d", D("40.00"))]
    check_every_snapshot(spark, floe, table, ["append", "append", "overwrite", "overwrite", "append"])

    # Spark writes through the evolved schema and evolves it further; floe reads both.
    spark.sql(f"INSERT INTO {t} VALUES (6, 'f', 60.00, 'us')")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN region TO area")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN note STRING")
    spark.sql(f"UPDATE {t} SET note = 'checked' WHERE area IS NOT NULL")
    assert floe.sql(f"SELECT * FROM {t} ORDER BY id", decimals=True) == [
        {"id": 1, "client": "a", "amount": D("10.00"), "area": None, "note": None},
        {"id": 2, "client": "b", "amount": D("40.00"), "area": None, "note": None},
        {"id": 4, "client": "d", "amount": D("40.00"), "area": None, "note": None},
        {"id": 5, "client": "e", "amount": D("50.00"), "area": "eu", "note": "checked"},
        {"id": 6, "client": "f", "amount": D("60.00"), "area": "us", "note": "checked"},
    ]
    assert rows_of(floe.read(table)) == rows_of(spark.table(t))


def test_floe_creates_spark_changes_and_evolves_the_schema(spark, pglake, pg_ns):
    floe, table = pglake, f"{pg_ns}.accounts"
    t = f"{CAT}.{table}"
    floe.sql(f"CREATE TABLE {t} (id BIGINT, owner STRING, balance DECIMAL(12,2)) USING iceberg "
             "PARTITIONED BY (bucket(4, id))")
    floe.sql(f"INSERT INTO {t} VALUES (1, 'ann', 100.00), (2, 'bob', 200.00), (3, 'cy', 300.00)")
    spark.sql(f"INSERT INTO {t} VALUES (4, 'dee', 400.00)")
    spark.sql(f"DELETE FROM {t} WHERE id = 1")
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW account_changes AS SELECT * FROM VALUES (2, 'bob', 250.00), (5, 'eve', 500.00) "
              "AS v(id, owner, balance)")
    spark.sql(f"MERGE INTO {t} a USING account_changes c ON a.id = c.id "
              "WHEN MATCHED THEN UPDATE SET a.balance = c.balance WHEN NOT MATCHED THEN INSERT *")
    before_evolution = current_snapshot(floe, table)
    spark.sql(f"ALTER TABLE {t} ADD COLUMN currency STRING")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN owner TO holder")
    spark.sql(f"INSERT INTO {t} VALUES (6, 'fay', 600.00, 'EUR')")

    # floe reads Spark's changes under Spark's schema, each snapshot under its own.
    assert floe.sql(f"SELECT * FROM {t} ORDER BY id", decimals=True) == [
        {"id": 2, "holder": "bob", "balance": D("250.00"), "currency": None},
        {"id": 3, "holder": "cy", "balance": D("300.00"), "currency": None},
        {"id": 4, "holder": "dee", "balance": D("400.00"), "currency": None},
        {"id": 5, "holder": "eve", "balance": D("500.00"), "currency": None},
        {"id": 6, "holder": "fay", "balance": D("600.00"), "currency": "EUR"},
    ]
    old = floe.read(table, before_evolution)
    assert old.column_names == ["id", "owner", "balance"]
    assert sorted(tuple(r.values()) for r in old.to_pylist()) == [
        (2, "bob", D("250.00")), (3, "cy", D("300.00")), (4, "dee", D("400.00")), (5, "eve", D("500.00"))]
    check_every_snapshot(spark, floe, table, ["append", "append", "overwrite", "overwrite", "append"])

    # floe writes through Spark's schema and evolves it further; Spark reads both.
    floe.sql(f"INSERT INTO {t} VALUES (7, 'gus', 700.00, 'USD')")
    floe.sql(f"ALTER TABLE {t} ADD COLUMN opened DATE")
    floe.sql(f"ALTER TABLE {t} RENAME COLUMN currency TO ccy")
    floe.sql(f"UPDATE {t} SET opened = DATE '2025-01-02' WHERE ccy IS NOT NULL")
    assert spark.table(t).columns == ["id", "holder", "balance", "ccy", "opened"]
    assert spark_rows(spark, f"SELECT * FROM {t} ORDER BY id") == [
        (2, "bob", D("250.00"), None, None),
        (3, "cy", D("300.00"), None, None),
        (4, "dee", D("400.00"), None, None),
        (5, "eve", D("500.00"), None, None),
        (6, "fay", D("600.00"), "EUR", dt.date(2025, 1, 2)),
        (7, "gus", D("700.00"), "USD", dt.date(2025, 1, 2)),
    ]


def wall_time(ms: int, zone) -> str:
    """An instant as a zone's wall-clock text with milliseconds, as a TIMESTAMP literal."""
    at = dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).astimezone(zone)
    return at.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}"


def shown_time(ms: int, zone) -> str:
    """An instant as both engines cast it to a string in that session zone: the fraction only
    when non-zero, without trailing zeros."""
    text = wall_time(ms, zone).rstrip("0")
    return text.removesuffix(".")


def iceberg_instant(ms: int) -> str:
    """An instant as Iceberg's messages give it (Java's Instant, Z written +00:00)."""
    at = dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc)
    return at.isoformat(timespec="milliseconds" if ms % 1000 else "seconds")


def test_time_travel_by_id_and_timestamp_in_utc_and_new_york(spark, pglake, pg_ns):
    floe, table = pglake, f"{pg_ns}.events"
    t = f"{CAT}.{table}"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, what STRING) USING iceberg")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'spark')")
    floe.sql(f"INSERT INTO {t} VALUES (2, 'floe')")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'spark')")
    floe.sql(f"DELETE FROM {t} WHERE id = 1")
    snapshots = floe.snapshots(table)
    ids = [s["snapshot-id"] for s in snapshots]
    times = [s["timestamp-ms"] for s in snapshots]
    assert len(ids) == 4 and times == sorted(times) and len(set(times)) == 4
    want = [[1], [1, 2], [1, 2, 3], [2, 3]]

    def spark_ids(clause):
        return sorted(r.id for r in spark.sql(f"SELECT id FROM {t} {clause}").collect())

    def floe_ids(clause, tz=None, set_zone=None):
        statements = [f"SET TIME ZONE '{set_zone}'"] if set_zone else []
        return sorted(r["id"] for r in floe.sql(*statements, f"SELECT id FROM {t} {clause}", tz=tz))

    for snapshot_id, rows in zip(ids, want):
        assert spark_ids(f"VERSION AS OF {snapshot_id}") == floe_ids(f"VERSION AS OF {snapshot_id}") == rows

    try:
        for zone_name in ("UTC", "America/New_York"):
            spark.conf.set("spark.sql.session.timeZone", zone_name)
            zone = ZoneInfo(zone_name)
            for ms, rows, before in zip(times, want, [None, *want]):
                at = wall_time(ms, zone)
                where = f"{zone_name} {at}"
                clause = f"TIMESTAMP AS OF '{at}'"
                assert spark_ids(clause) == rows, where
                assert floe_ids(clause, tz=zone_name) == rows, where
                assert floe_ids(clause, set_zone=zone_name) == rows, where
                # A millisecond earlier: the snapshot before (none before the first).
                earlier = f"TIMESTAMP AS OF '{wall_time(ms - 1, zone)}'"
                if before is None:
                    message = f"Cannot find a snapshot older than {iceberg_instant(ms - 1)}"
                    sql = f"SELECT id FROM {t} {earlier}"
                    assert message in spark_error(spark, sql), where
                    assert floe_error(floe, sql, tz=zone_name) == f"Error: {message}" + position(sql, "'"), where
                else:
                    assert spark_ids(earlier) == floe_ids(earlier, tz=zone_name) == before, where
            # floe shows commit times in the session zone, as Spark's string cast does.
            shown = floe.sql(f"SELECT CAST(committed_at AS STRING) AS at FROM {t}.snapshots ORDER BY committed_at",
                             tz=zone_name)
            assert [r["at"] for r in shown] == [shown_time(ms, zone) for ms in times]
            assert [r.at for r in spark.sql(
                f"SELECT CAST(committed_at AS STRING) AS at FROM {t}.snapshots ORDER BY committed_at").collect()] == [
                shown_time(ms, zone) for ms in times]
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")

    # New York's wall-clock time of a commit, read in UTC, is hours before the table existed.
    wall = wall_time(times[2], NEW_YORK)
    offset = dt.datetime.fromisoformat(wall).replace(tzinfo=NEW_YORK).utcoffset()
    assert offset in (dt.timedelta(hours=-5), dt.timedelta(hours=-4))
    message = f"Cannot find a snapshot older than {iceberg_instant(times[2] + int(offset.total_seconds()) * 1000)}"
    sql = f"SELECT id FROM {t} TIMESTAMP AS OF '{wall}'"
    assert message in spark_error(spark, sql)
    assert floe_error(floe, sql) == f"Error: {message}" + position(sql, "'")


def test_rollbacks_by_either_engine(spark, pglake, pg_ns):
    floe, table = pglake, f"{pg_ns}.ledger"
    t = f"{CAT}.{table}"
    floe.sql(f"CREATE TABLE {t} (id BIGINT, entry STRING) USING iceberg")
    floe.sql(f"INSERT INTO {t} VALUES (1, 'open')")
    spark.sql(f"INSERT INTO {t} VALUES (2, 'spark')")
    floe.sql(f"INSERT INTO {t} VALUES (3, 'floe')")
    s1, s2, s3 = snapshot_ids(floe, table)

    # Spark rolls back to the first snapshot; floe reads it and the history Spark wrote.
    assert spark_rows(spark, f"CALL {CAT}.system.rollback_to_snapshot('{table}', {s1})") == [(s3, s1)]
    assert floe_rows(floe, f"SELECT * FROM {t}") == [(1, "open")]
    assert history(floe, table) == history(spark, table) == [
        (s1, None, True), (s2, s1, False), (s3, s2, False), (s1, None, True)]
    # s3 is no longer an ancestor: both engines refuse to roll back to it, with Iceberg's words.
    message = f"Cannot roll back to snapshot, not an ancestor of the current state: {s3}"
    call = f"CALL {CAT}.system.rollback_to_snapshot('{table}', {s3})"
    assert f"ValidationException: {message}" in spark_error(spark, call)
    assert floe_error(floe, call) == f"Error: {message}{position(call, CAT)}"

    # floe makes s3 current again and rolls back to s2 with the same CALLs; Spark reads it.
    assert floe_rows(floe, f"CALL {CAT}.system.set_current_snapshot('{table}', {s3})") == [(s1, s3)]
    assert floe_rows(floe, f"CALL {CAT}.system.rollback_to_snapshot('{table}', {s2})") == [(s3, s2)]
    assert spark_rows(spark, f"SELECT * FROM {t} ORDER BY id") == [(1, "open"), (2, "spark")]
    assert history(spark, table) == history(floe, table) == [
        (s1, None, True), (s2, s1, True), (s3, s2, False), (s1, None, True), (s3, s2, False), (s2, s1, True)]

    # Writes after the rollbacks continue from s2 in both engines.
    spark.sql(f"INSERT INTO {t} VALUES (4, 'after')")
    s4 = current_snapshot(floe, table)
    assert floe.snapshots(table)[-1]["parent-snapshot-id"] == s2
    assert floe_rows(floe, f"SELECT * FROM {t} ORDER BY id") == [(1, "open"), (2, "spark"), (4, "after")]
    assert spark_rows(spark, f"SELECT snapshot_id, parent_id FROM {t}.snapshots ORDER BY committed_at") == [
        (s1, None), (s2, s1), (s3, s2), (s4, s2)]


EXPIRE = ("CALL {c}.system.expire_snapshots(table => '{t}', older_than => TIMESTAMP '{now}', "
          "retain_last => 1)")
COUNTS = ["deleted_data_files_count", "deleted_position_delete_files_count",
          "deleted_equality_delete_files_count", "deleted_manifest_files_count",
          "deleted_manifest_lists_count", "deleted_statistics_files_count"]


@pytest.mark.parametrize("expired_by", ["spark", "floe"])
def test_expire_snapshots_by_either_engine(spark, pglake, pg_ns, expired_by):
    floe, table = pglake, f"{pg_ns}.expiring"
    t = f"{CAT}.{table}"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v STRING) USING iceberg")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    floe.sql(f"INSERT INTO {t} VALUES (4, 'd'), (5, 'e')")
    spark.sql(f"DELETE FROM {t} WHERE id = 2")  # copy-on-write: rewrites the first file
    floe.sql(f"INSERT INTO {t} VALUES (6, 'f')")
    ids = snapshot_ids(floe, table)
    assert len(ids) == 4
    manifests_before = {r["path"] for r in floe.sql(f"SELECT path FROM {t}.all_manifests")}
    rows = [(1, "a"), (3, "c"), (4, "d"), (5, "e"), (6, "f")]

    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    call = EXPIRE.format(c=CAT, t=table, now=now)
    if expired_by == "spark":
        result = spark.sql(call).collect()[0].asDict()
    else:
        result = floe.sql(call)[0]
    manifests_after = {r["path"] for r in floe.sql(f"SELECT path FROM {t}.all_manifests")}
    # The first insert's file, rewritten by the DELETE, goes with the three old snapshots.
    assert [int(result[k]) for k in COUNTS] == [1, 0, 0, len(manifests_before - manifests_after), 3, 0], result

    # Both engines see one snapshot left, the same rows, and no way back to an expired one.
    assert snapshot_ids(floe, table) == ids[-1:]
    assert [r.snapshot_id for r in spark.sql(f"SELECT snapshot_id FROM {t}.snapshots").collect()] == ids[-1:]
    assert spark_rows(spark, f"SELECT * FROM {t} ORDER BY id") == rows
    assert floe_rows(floe, f"SELECT * FROM {t} ORDER BY id") == rows
    sql = f"SELECT * FROM {t} VERSION AS OF {ids[0]}"
    assert f"Cannot find snapshot with ID {ids[0]}" in spark_error(spark, sql)
    assert floe_error(floe, sql) == (
        f"Error: Cannot find matching snapshot ID or reference name for version {ids[0]}{position(sql, str(ids[0]))}")

    # In the bucket: exactly the data files the kept snapshot reaches.
    location = floe.sql(f"SELECT file FROM {t}.metadata_log_entries ORDER BY timestamp DESC LIMIT 1")[0]["file"]
    table_dir = location.rsplit("/", 2)[0]
    assert table_dir.startswith(f"{floe.warehouse}/"), table_dir
    data = {p for p in floe.files_under(table_dir) if "/data/" in p}
    live = {r["file_path"] for r in floe.sql(f"SELECT file_path FROM {t}.all_files")}
    assert data == live and len(live) == 3

    # The other engine keeps writing.
    if expired_by == "spark":
        floe.sql(f"INSERT INTO {t} VALUES (7, 'g')")
    else:
        spark.sql(f"INSERT INTO {t} VALUES (7, 'g')")
    assert spark_rows(spark, f"SELECT count(*) FROM {t}") == floe_rows(floe, f"SELECT count(*) FROM {t}") == [(6,)]


# The rollback story (tests/sql/timetravel/rollback_story.test): a daily revenue report built
# from orders, then a MERGE whose join meets the RUB rate twice and doubles every figure.
GOOD = [(dt.date(2025, 6, 14), 842, D("184320.50")), (dt.date(2025, 6, 15), 915, D("201450.75"))]
BAD = [(dt.date(2025, 6, 14), 1684, D("368641.00")), (dt.date(2025, 6, 15), 1830, D("402901.50"))]


def build_report(spark, ns: str) -> str:
    orders, rates, report = f"{CAT}.{ns}.orders", f"{CAT}.{ns}.currency_rates", f"{CAT}.{ns}.daily_revenue_report"
    spark.sql(f"CREATE TABLE {orders} (order_id BIGINT, updated_at TIMESTAMP, amount DECIMAL(12, 2), "
              "status STRING, currency STRING) USING iceberg")
    spark.sql(f"INSERT INTO {orders} SELECT id, timestamp_millis(1749859200000 + id * 60000), "
              "CASE WHEN id = 0 THEN 225.60 ELSE 218.90 END, 'completed', 'RUB' FROM range(842)")
    spark.sql(f"INSERT INTO {orders} SELECT 10000 + id, timestamp_millis(1749945600000 + id * 60000), "
              "CASE WHEN id = 0 THEN 224.51 ELSE 220.16 END, 'completed', 'RUB' FROM range(915)")
    spark.sql(f"INSERT INTO {orders} SELECT 20000 + id, timestamp_millis(1749859200000 + id * 3600000), "
              "999.99, 'cancelled', 'RUB' FROM range(40)")
    spark.sql(f"CREATE TABLE {rates} (currency_code STRING, rate DECIMAL(10, 4), is_current BOOLEAN) USING iceberg")
    spark.sql(f"INSERT INTO {rates} VALUES ('RUB', 1.0000, false), ('RUB', 1.0000, true)")
    spark.sql(f"CREATE TABLE {report} (report_date DATE, total_orders BIGINT, total_revenue DECIMAL(18, 2)) "
              "USING iceberg")
    spark.sql(f"INSERT OVERWRITE {report} SELECT CAST(updated_at AS DATE) AS report_date, COUNT(*) AS total_orders, "
              f"SUM(amount) AS total_revenue FROM {orders} WHERE status != 'cancelled' "
              "GROUP BY CAST(updated_at AS DATE)")
    return report


BAD_MERGE = """MERGE INTO {report} t
USING (
    SELECT CAST(o.updated_at AS DATE) AS report_date, COUNT(*) AS total_orders,
           SUM(o.amount * r.rate) AS total_revenue
    FROM {orders} o JOIN {rates} r ON o.currency = r.currency_code
    WHERE o.status != 'cancelled'
    GROUP BY CAST(o.updated_at AS DATE)
) s
ON t.report_date = s.report_date
WHEN MATCHED THEN UPDATE SET t.total_orders = s.total_orders, t.total_revenue = s.total_revenue"""


def test_revenue_incident_spark_breaks_floe_audits_and_rolls_back(spark, pglake, pg_ns):
    floe, ns = pglake, pg_ns
    table = f"{ns}.daily_revenue_report"
    report = build_report(spark, ns)
    assert spark_rows(spark, f"SELECT * FROM {report} ORDER BY report_date") == GOOD
    spark.sql(BAD_MERGE.format(report=report, orders=f"{CAT}.{ns}.orders", rates=f"{CAT}.{ns}.currency_rates"))
    assert spark_rows(spark, f"SELECT * FROM {report} ORDER BY report_date") == BAD
    good, bad = snapshot_ids(floe, table)
    bad_at = floe.sql(f"SELECT CAST(committed_at AS STRING) AS at FROM {report}.snapshots "
                      f"WHERE snapshot_id = {bad}")[0]["at"]

    # The audit, by floe: the history shows Spark's two overwrites, the bad one on the good one.
    proc = floe.cli("history", table, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["table"] == f"{CAT}.{table}" and doc["current_snapshot_id"] == bad
    assert [(e["snapshot_id"], e["parent_id"], e["is_current_ancestor"], e["operation"], e["added_records"],
             e["deleted_records"], e["user"], e["statement"]) for e in doc["history"]] == [
        (good, None, True, "overwrite", 2, None, None, None),
        (bad, good, True, "overwrite", 2, 2, None, None),
    ]
    # ... the incident's candidates around the bad write, and what rolling back to each changes ...
    proc = floe.cli("incident", table, "--around", bad_at, "--window", "1h", "--key", "report_date", "--json")
    assert proc.returncode == 0, proc.stderr
    candidates = json.loads(proc.stdout)["candidates"]
    assert [(c["number"], c["snapshot_id"], c["operation"], c["parent_id"], c["is_current"], c["engine"],
             c["rollback_diff"]) for c in candidates] == [
        (1, bad, "overwrite", good, True, "spark 3.5.9",
         {"added": 0, "removed": 0, "changed": 0, "unchanged_files_skipped": 1}),
        (2, good, "overwrite", None, False, "spark 3.5.9",
         {"added": 0, "removed": 0, "changed": 2, "unchanged_files_skipped": 0}),
    ]
    # ... the diff of the two report rows by date ...
    proc = floe.cli("diff", table, str(good), str(bad), "--key", "report_date", "--json")
    assert proc.returncode == 0, proc.stderr
    diff = json.loads(proc.stdout)
    assert (diff["added"], diff["removed"], diff["changed"]) == (0, 0, 2)
    # ... and the figures before the incident beside the corrupted ones.
    assert floe.sql(
        "SELECT cur.report_date, cur.total_revenue AS now, old.total_revenue AS before, "
        f"cur.total_revenue - old.total_revenue AS diff FROM {report} cur "
        f"JOIN {report} VERSION AS OF {good} AS old ON cur.report_date = old.report_date "
        "ORDER BY cur.report_date", decimals=True) == [
        {"report_date": "2025-06-14", "now": D("368641.00"), "before": D("184320.50"), "diff": D("184320.50")},
        {"report_date": "2025-06-15", "now": D("402901.50"), "before": D("201450.75"), "diff": D("201450.75")},
    ]

    # floe rolls back (its guarded command, confirmed with --yes); Spark reads the good figures.
    proc = floe.cli("rollback", table, "--to-snapshot", str(good), "--key", "report_date", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert f"SQL: CALL {CAT}.system.rollback_to_snapshot('{table}', {good})\n" in proc.stdout, proc.stdout
    assert f"Rolled back {CAT}.{table} from {bad} to {good}.\n" in proc.stdout, proc.stdout
    assert spark_rows(spark, f"SELECT * FROM {report} ORDER BY report_date") == GOOD
    assert history(spark, table) == [(good, None, True), (bad, good, False), (good, None, True)]
    assert spark_rows(spark, f"SELECT * FROM {report} VERSION AS OF {bad} ORDER BY report_date") == BAD
    assert spark_rows(spark, f"SELECT * FROM {CAT}.{ns}.currency_rates ORDER BY is_current") == [
        ("RUB", D("1.0000"), False), ("RUB", D("1.0000"), True)]

    # Spark fixes the rates and reruns the MERGE: the figures stay the good ones.
    spark.sql(f"DELETE FROM {CAT}.{ns}.currency_rates WHERE NOT is_current")
    spark.sql(BAD_MERGE.format(report=report, orders=f"{CAT}.{ns}.orders", rates=f"{CAT}.{ns}.currency_rates"))
    fixed = current_snapshot(floe, table)
    assert floe.snapshots(table)[-1]["parent-snapshot-id"] == good
    assert floe_rows(floe, f"SELECT report_date, total_orders, total_revenue FROM {report} ORDER BY report_date") == [
        ("2025-06-14", 842, D("184320.50")), ("2025-06-15", 915, D("201450.75"))]
    assert history(floe, table) == [(good, None, True), (bad, good, False), (good, None, True), (fixed, good, True)]


def test_python_package_and_spark_take_turns(spark, pglake, pg_ns):
    """floe.connect on the PostgreSQL URI, named like Spark's catalog: floe.iceberg's calls give
    the same answers on the connection and on the SparkSession, and each sees the other's
    writes and rollbacks."""
    table = f"{CAT}.{pg_ns}.clicks"
    with floe_package.connect(catalog=pglake.catalog, warehouse=pglake.warehouse, catalog_name=CAT) as conn:
        assert conn.catalog_name == CAT
        conn.sql(f"CREATE TABLE {table} (id BIGINT, event STRING)")
        conn.sql(f"INSERT INTO {table} VALUES (1, 'click'), (2, 'view')")
        spark.sql(f"INSERT INTO {table} VALUES (3, 'click')")
        conn.sql(f"INSERT INTO {table} VALUES (4, 'view')")
        ours = iceberg_history(conn, table)
        assert iceberg_history(spark, table) == ours
        s1, s2, s3 = [s["snapshot_id"] for s in ours["snapshots"]]
        assert rollback_to(spark, table, s2) == {"success": True, "table": table, "rolled_back_to": s2}
        assert conn.sql(f"SELECT id FROM {table} ORDER BY id")["id"].to_pylist() == [1, 2, 3]
        assert rollback_to(conn, table, s1) == {"success": True, "table": table, "rolled_back_to": s1}
        assert spark_rows(spark, f"SELECT id FROM {table} ORDER BY id") == [(1,), (2,)]
        after = iceberg_history(conn, table)
        assert after == iceberg_history(spark, table)
        assert [(s["snapshot_id"], s["is_current_ancestor"]) for s in after["snapshots"]] == [
            (s1, True), (s2, False), (s3, False)]
