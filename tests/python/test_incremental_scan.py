"""Table.scan(start_snapshot_id=..., end_snapshot_id=...): the rows the appends of a range
added, with the rules and messages of Spark's start-snapshot-id and end-snapshot-id read
options (Iceberg 1.10)."""

from __future__ import annotations

import pyarrow as pa
import pytest

import floe


def rows(*ids: int) -> list[dict]:
    return [{"id": i, "name": f"r{i}"} for i in ids]


def current_snapshot(conn) -> int:
    return conn.sql("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'")["snapshot_id"][0].as_py()


def test_the_rows_each_range_appended(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    t = conn.table("db.t")
    # The start is exclusive, the end inclusive; rows come oldest append first.
    assert t.scan(start_snapshot_id=s1, end_snapshot_id=s2).to_pylist() == rows(3, 4)
    assert t.scan(start_snapshot_id=s1, end_snapshot_id=s3).to_pylist() == rows(3, 4, 5, 6)
    assert t.scan(start_snapshot_id=s2, end_snapshot_id=s3).to_pylist() == rows(5, 6)
    # Without an end, up to the current snapshot, read when the scan runs.
    assert t.scan(start_snapshot_id=s1).to_pylist() == rows(3, 4, 5, 6)
    conn.sql("INSERT INTO db.t VALUES (7, 'r7')")
    assert t.scan(start_snapshot_id=s3).to_pylist() == rows(7)
    # Nothing after the current snapshot is no range at all, as in Spark.
    s4 = current_snapshot(conn)
    with pytest.raises(floe.ValidationError) as e:
        t.scan(start_snapshot_id=s4)
    assert str(e.value) == f"Starting snapshot (exclusive) {s4} is not a parent ancestor of end snapshot {s4}"


def test_columns_and_filter(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    t = conn.table("db.t")
    got = t.scan(start_snapshot_id=s1, columns=["name"], filter="id > 3 AND name <> 'r6'")
    assert got.schema == pa.schema([("name", pa.string())])
    assert got.to_pylist() == [{"name": "r4"}, {"name": "r5"}]
    assert t.scan(start_snapshot_id=s1, columns=["name", "id"]).to_pylist() == [
        {"name": f"r{i}", "id": i} for i in (3, 4, 5, 6)]
    # The filter names columns as a query on the table does.
    assert t.scan(start_snapshot_id=s1, filter="t.id = 4 OR db.t.id = 5 OR lakehouse.db.t.id = 6").to_pylist() == rows(
        4, 5, 6)
    empty = t.scan(start_snapshot_id=s1, end_snapshot_id=s2, filter="id > 100")
    assert empty.num_rows == 0 and empty.column_names == ["id", "name"]
    with pytest.raises(floe.ValidationError) as e:
        t.scan(start_snapshot_id=s1, filter="nope = 1")
    assert str(e.value) == (
        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `nope` cannot be resolved. "
        "Did you mean one of the following? [`t`.`name`, `t`.`id`].")
    with pytest.raises(floe.ValidationError) as e:
        t.scan(start_snapshot_id=s1, filter="id IN (SELECT id FROM db.t)")
    assert str(e.value) == (
        "The filter of an incremental read cannot read tables; it reads only the appended rows' columns")
    with pytest.raises(floe.ValidationError, match="columns must be a list of names"):
        t.scan(start_snapshot_id=s1, columns="name")


def test_names_of_the_table(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    assert conn.table("lakehouse.db.t").scan(start_snapshot_id=s2).to_pylist() == rows(5, 6)
    conn.sql("USE db")
    assert conn.table("t").scan(start_snapshot_id=s2, filter="t.id = 6").to_pylist() == rows(6)


def test_compactions_are_skipped_and_rows_read_in_the_current_schema(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    conn.sql("CALL lakehouse.system.rewrite_data_files(table => 'db.t', options => map('min-input-files', '2'))")
    compacted = current_snapshot(conn)
    conn.sql("ALTER TABLE db.t ADD COLUMN extra INT")
    conn.sql("INSERT INTO db.t VALUES (7, 'r7', 70)")
    operations = conn.sql("SELECT operation FROM db.t.snapshots ORDER BY committed_at")["operation"].to_pylist()
    assert operations == ["append", "append", "append", "replace", "append"]
    t = conn.table("db.t")
    assert t.scan(start_snapshot_id=s2).to_pylist() == [
        {"id": 5, "name": "r5", "extra": None}, {"id": 6, "name": "r6", "extra": None},
        {"id": 7, "name": "r7", "extra": 70}]
    assert t.scan(start_snapshot_id=s3, end_snapshot_id=compacted).num_rows == 0


def test_an_end_on_another_branch(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    conn.sql(f"ALTER TABLE db.t CREATE BRANCH dev AS OF VERSION {s2}")
    conn.sql("INSERT INTO db.t.branch_dev VALUES (100, 'r100')")
    dev = conn.sql("SELECT snapshot_id FROM db.t.refs WHERE name = 'dev'")["snapshot_id"][0].as_py()
    t = conn.table("db.t")
    assert t.scan(start_snapshot_id=s1, end_snapshot_id=dev).to_pylist() == rows(3, 4, 100)
    with pytest.raises(floe.ValidationError) as e:
        t.scan(start_snapshot_id=s3, end_snapshot_id=dev)
    assert str(e.value) == f"Starting snapshot (exclusive) {s3} is not a parent ancestor of end snapshot {dev}"


def test_options_that_do_not_go_together(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    t = conn.table("db.t")
    with pytest.raises(floe.ValidationError) as e:
        t.scan(end_snapshot_id=s2)
    assert str(e.value) == "Cannot set only end-snapshot-id for incremental scans. Please, set start-snapshot-id too."
    either = ("Cannot set start-snapshot-id and end-snapshot-id for incremental scans when either "
              "snapshot-id or as-of-timestamp is set")
    for point in ({"snapshot_id": s2}, {"as_of_timestamp": 1700000000000}):
        for incremental in ({"start_snapshot_id": s1}, {"end_snapshot_id": s2}):
            with pytest.raises(floe.ValidationError) as e:
                t.scan(**point, **incremental)
            assert str(e.value) == either, (point, incremental)
    # Spark ignores a branch or tag given with them; floe refuses rather than read something
    # other than what was asked.
    for ref in ({"branch": "main"}, {"tag": "v1"}):
        with pytest.raises(floe.ValidationError) as e:
            t.scan(start_snapshot_id=s1, **ref)
        assert str(e.value) == ("Cannot set start-snapshot-id and end-snapshot-id for incremental scans when "
                                "either branch or tag is set")
    # Iceberg's exactly-one rule comes first.
    with pytest.raises(floe.ValidationError) as e:
        t.scan(snapshot_id=s1, tag="v1", start_snapshot_id=s1)
    assert str(e.value) == f"Can specify only one of snapshot-id ({s1}), as-of-timestamp (null), branch (null), tag (v1)"


def test_snapshots_outside_the_range(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    t = conn.table("db.t")
    with pytest.raises(floe.ValidationError) as e:
        t.scan(start_snapshot_id=s1, end_snapshot_id=42)
    assert str(e.value) == "Cannot find the end snapshot: 42"
    with pytest.raises(floe.ValidationError) as e:
        t.scan(start_snapshot_id=42)
    assert str(e.value) == f"Starting snapshot (exclusive) 42 is not a parent ancestor of end snapshot {s3}"
    with pytest.raises(floe.ValidationError) as e:
        t.scan(start_snapshot_id=s3, end_snapshot_id=s1)
    assert str(e.value) == f"Starting snapshot (exclusive) {s3} is not a parent ancestor of end snapshot {s1}"
    with pytest.raises(floe.ValidationError) as e:
        t.scan(start_snapshot_id=s2, end_snapshot_id=s2)
    assert str(e.value) == f"Starting snapshot (exclusive) {s2} is not a parent ancestor of end snapshot {s2}"


def test_overwrites_and_deletes_in_the_range_are_skipped(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    conn.sql("DELETE FROM db.t WHERE id = 1")
    s4 = current_snapshot(conn)
    conn.sql("INSERT INTO db.t VALUES (7, 'r7')")
    t = conn.table("db.t")
    # The appends around the delete, as Spark's incremental read gives them.
    assert t.scan(start_snapshot_id=s2).to_pylist() == rows(5, 6, 7)
    assert t.scan(start_snapshot_id=s4).to_pylist() == rows(7)


def test_a_table_without_snapshots(conn):
    conn.sql("CREATE TABLE db.e (id BIGINT)")
    with pytest.raises(floe.ValidationError) as e:
        conn.table("db.e").scan(start_snapshot_id=42)
    assert str(e.value) == "End snapshot is not set and table has no current snapshot"
