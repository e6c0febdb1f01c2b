"""floe.iceberg on a SparkSession: the same calls as on a floe connection, on the shared
catalog, return the same shapes and values; the time-travel example runs unchanged on both."""

from __future__ import annotations

import importlib.util

import pyarrow as pa
import pytest

import floe
from floe.iceberg import history, resolve_snapshot_as_of, rollback_to, snapshot_at

from .support import ROOT, rows_of

OUTPUT = "current: 6 rows\nfirst snapshot: 2 rows\nafter rollback: 2 rows\n"


def example():
    spec = importlib.util.spec_from_file_location("time_travel", ROOT / "examples" / "time_travel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def conn(lakehouse):
    """A floe connection in this process on the catalog the Spark session uses."""
    with floe.connect(catalog=lakehouse.catalog, warehouse=lakehouse.warehouse) as c:
        yield c


def test_example_runs_unchanged_on_spark(spark, conn, ns, capsys):
    table = f"lakehouse.{ns}.events"
    example().run(spark, table)
    assert capsys.readouterr().out == OUTPUT
    # What Spark did, floe sees the same way: three snapshots, the first one current again.
    seen_by_spark = history(spark, table)
    assert history(conn, table) == seen_by_spark
    assert [s["is_current_ancestor"] for s in seen_by_spark["snapshots"]] == [True, False, False]
    assert conn.sql(f"SELECT count(*) AS n FROM {table}")["n"].to_pylist() == [2]


def test_example_on_floe_then_spark_reads_the_same(spark, conn, ns, capsys):
    table = f"lakehouse.{ns}.events"
    example().run(conn, table)
    assert capsys.readouterr().out == OUTPUT
    assert history(spark, table) == history(conn, table)
    assert spark.sql(f"SELECT count(*) AS n FROM {table}").first().n == 2


def test_same_shapes_and_values_on_both(spark, conn, ns):
    table = f"lakehouse.{ns}.t"
    conn.sql(f"CREATE TABLE {table} (id BIGINT, name STRING)")
    for i in range(3):
        conn.sql(f"INSERT INTO {table} VALUES ({2 * i + 1}, 'r{2 * i + 1}'), ({2 * i + 2}, 'r{2 * i + 2}')")
    ours = history(conn, table)
    assert history(spark, table) == ours
    assert ours["success"] is True and ours["table"] == table
    (s1, c1), (s2, c2), (s3, _) = [(s["snapshot_id"], s["committed_at"]) for s in ours["snapshots"]]

    # snapshot_at: a Spark DataFrame on Spark, a pyarrow Table on floe; the same rows.
    on_spark = snapshot_at(spark, table, snapshot_id=s1)
    assert not isinstance(on_spark, pa.Table) and hasattr(on_spark, "collect")
    assert rows_of(on_spark) == rows_of(snapshot_at(conn, table, snapshot_id=s1)) == [
        {"id": 1, "name": "r1"}, {"id": 2, "name": "r2"}]
    assert rows_of(snapshot_at(spark, table, timestamp=c2)) == rows_of(snapshot_at(conn, table, timestamp=c2))
    assert len(rows_of(snapshot_at(spark, table, timestamp=c2.rstrip("Z")))) == 4  # zone-less: UTC
    assert resolve_snapshot_as_of(spark, table, c2) == resolve_snapshot_as_of(conn, table, c2) == s2

    # The exactly-one rule is checked before Spark is asked anything.
    with pytest.raises(floe.ValidationError) as e:
        snapshot_at(spark, table, snapshot_id=s1, timestamp=c1)
    assert str(e.value) == f"Can specify only one of snapshot-id ({s1}), as-of-timestamp ({c1})"

    # A rollback through Spark: the same result shape; no snapshot is created.
    assert rollback_to(spark, table, s1) == {"success": True, "table": table, "rolled_back_to": s1}
    after = history(conn, table)
    assert after == history(spark, table)
    assert [(s["snapshot_id"], s["is_current_ancestor"]) for s in after["snapshots"]] == [
        (s1, True), (s2, False), (s3, False)]
    assert resolve_snapshot_as_of(spark, table, after["snapshots"][-1]["committed_at"]) == s1
    # ... and one through floe, which Spark sees.
    conn.sql(f"CALL lakehouse.system.set_current_snapshot('{table}', {s3})")
    assert rollback_to(conn, table, s2) == {"success": True, "table": table, "rolled_back_to": s2}
    assert spark.sql(f"SELECT count(*) AS n FROM {table}").first().n == 4


def test_spark_errors_are_sparks(spark, conn, ns):
    table = f"lakehouse.{ns}.t"
    conn.sql(f"CREATE TABLE {table} (id BIGINT)")
    conn.sql(f"INSERT INTO {table} VALUES (1)")
    with pytest.raises(Exception) as e:
        snapshot_at(spark, table, timestamp="2000-01-01T00:00:00Z")
    assert "Cannot find a snapshot older than 2000-01-01" in str(e.value)
    with pytest.raises(floe.NotFound) as e:
        snapshot_at(conn, table, timestamp="2000-01-01T00:00:00Z")
    assert str(e.value) == "Cannot find a snapshot older than 2000-01-01T00:00:00+00:00"


def spark_appends(spark, table: str, **options):
    """spark.read with Iceberg's read options (start_snapshot_id -> start-snapshot-id)."""
    reader = spark.read
    for key, value in options.items():
        reader = reader.option(key.replace("_", "-"), str(value))
    return reader.table(table)


def spark_message(frame) -> str:
    with pytest.raises(Exception) as e:
        frame().collect()
    return str(e.value)


def test_incremental_reads_are_sparks_read_options(spark, conn, ns):
    table = f"lakehouse.{ns}.t"
    conn.sql(f"CREATE TABLE {table} (id BIGINT, name STRING)")
    for i in range(3):
        conn.sql(f"INSERT INTO {table} VALUES ({2 * i + 1}, 'r{2 * i + 1}'), ({2 * i + 2}, 'r{2 * i + 2}')")
    conn.sql(f"CALL lakehouse.system.rewrite_data_files(table => '{table}', options => map('min-input-files', '2'))")
    conn.sql(f"INSERT INTO {table} VALUES (7, 'r7')")
    snapshots = conn.sql(f"SELECT snapshot_id, operation FROM {table}.snapshots ORDER BY committed_at").to_pylist()
    assert [s["operation"] for s in snapshots] == ["append", "append", "append", "replace", "append"]
    s1, s2, s3, s4, s5 = [s["snapshot_id"] for s in snapshots]
    conn.sql(f"ALTER TABLE {table} CREATE BRANCH dev AS OF VERSION {s2}")
    conn.sql(f"INSERT INTO {table}.branch_dev VALUES (100, 'r100')")
    dev = conn.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'dev'")["snapshot_id"][0].as_py()
    t = conn.table(table)

    for options in [{"start_snapshot_id": s1}, {"start_snapshot_id": s1, "end_snapshot_id": s2},
                    {"start_snapshot_id": s2, "end_snapshot_id": s3}, {"start_snapshot_id": s3},
                    {"start_snapshot_id": s3, "end_snapshot_id": s4}, {"start_snapshot_id": s1, "end_snapshot_id": dev}]:
        want = rows_of(spark_appends(spark, table, **options))
        assert rows_of(t.scan(**options)) == want, options
    assert rows_of(t.scan(start_snapshot_id=s2)) == [{"id": i, "name": f"r{i}"} for i in (5, 6, 7)]
    # Columns and a filter: what Spark's select and where give on the same read.
    want = rows_of(spark_appends(spark, table, start_snapshot_id=s1).where("id > 3 AND name <> 'r6'").select("name"))
    assert t.scan(start_snapshot_id=s1, columns=["name"], filter="id > 3 AND name <> 'r6'").to_pylist() == want

    # The same refusals, in the same words.
    for options, text in [
        ({"end_snapshot_id": s2},
         "Cannot set only end-snapshot-id for incremental scans. Please, set start-snapshot-id too."),
        ({"start_snapshot_id": s1, "snapshot_id": s2},
         "Cannot set start-snapshot-id and end-snapshot-id for incremental scans when either snapshot-id or "
         "as-of-timestamp is set"),
        ({"end_snapshot_id": s2, "as_of_timestamp": 1700000000000},
         "Cannot set start-snapshot-id and end-snapshot-id for incremental scans when either snapshot-id or "
         "as-of-timestamp is set"),
        ({"start_snapshot_id": s1, "end_snapshot_id": 42}, "Cannot find the end snapshot: 42"),
        ({"start_snapshot_id": s3, "end_snapshot_id": s1},
         f"Starting snapshot (exclusive) {s3} is not a parent ancestor of end snapshot {s1}"),
        ({"start_snapshot_id": s3, "end_snapshot_id": dev},
         f"Starting snapshot (exclusive) {s3} is not a parent ancestor of end snapshot {dev}"),
        ({"start_snapshot_id": s5}, f"Starting snapshot (exclusive) {s5} is not a parent ancestor of end snapshot {s5}"),
    ]:
        assert text in spark_message(lambda: spark_appends(spark, table, **options)), options
        with pytest.raises(floe.ValidationError) as e:
            t.scan(**options)
        assert str(e.value) == text, options

    # A delete and an overwrite in the range are skipped: the appends around them are read.
    conn.sql(f"DELETE FROM {table} WHERE id = 1")
    conn.sql(f"INSERT OVERWRITE {table} SELECT * FROM {table}")
    conn.sql(f"INSERT INTO {table} VALUES (8, 'r8')")
    assert [r["id"] for r in rows_of(spark_appends(spark, table, start_snapshot_id=s4))] == [7, 8]
    assert [r["id"] for r in t.scan(start_snapshot_id=s4).to_pylist()] == [7, 8]
    # A start that does not exist, in Spark's words.
    assert f"Starting snapshot (exclusive) 42 is not a parent ancestor of end snapshot" in spark_message(
        lambda: spark_appends(spark, table, start_snapshot_id=42))
    with pytest.raises(floe.ValidationError, match="^Starting snapshot \\(exclusive\\) 42 is not a parent ancestor"):
        t.scan(start_snapshot_id=42)
