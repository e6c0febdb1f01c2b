"""floe.iceberg on a floe connection: the exact shapes of history / snapshot_at /
rollback_to, resolve_snapshot_as_of, and the exactly-one rule."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

import floe
from floe.iceberg import history, resolve_snapshot_as_of, rollback_to, snapshot_at

from support import ids

UTC = dt.timezone.utc


def committed(conn, table: str) -> dict[int, dt.datetime]:
    rows = conn.sql(f"SELECT snapshot_id, committed_at FROM {table}.snapshots").to_pylist()
    return {r["snapshot_id"]: r["committed_at"] for r in rows}


def iso_z(when: dt.datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def test_history_shape(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    at = committed(conn, "db.t")
    assert history(conn, "db.t") == {
        "success": True,
        "table": "db.t",
        "snapshots": [
            {"snapshot_id": s1, "committed_at": iso_z(at[s1]), "operation": "append", "parent_id": None,
             "is_current_ancestor": True},
            {"snapshot_id": s2, "committed_at": iso_z(at[s2]), "operation": "append", "parent_id": s1,
             "is_current_ancestor": True},
            {"snapshot_id": s3, "committed_at": iso_z(at[s3]), "operation": "append", "parent_id": s2,
             "is_current_ancestor": True},
        ],
    }
    # committed_at: ISO-8601, UTC, milliseconds, with Z.
    assert history(conn, "db.t")["snapshots"][0]["committed_at"].endswith("Z")
    assert len(history(conn, "db.t")["snapshots"][0]["committed_at"]) == len("2024-01-15T10:30:00.123Z")


def test_history_of_a_table_without_snapshots(conn):
    conn.sql("CREATE TABLE db.empty (id BIGINT)")
    assert history(conn, "db.empty") == {"success": True, "table": "db.empty", "snapshots": []}


def test_rollback_shape_moves_the_pointer_and_creates_no_snapshot(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    assert rollback_to(conn, "db.t", s1) == {"success": True, "table": "db.t", "rolled_back_to": s1}
    assert conn.sql("SELECT snapshot_id FROM db.t.snapshots ORDER BY committed_at")["snapshot_id"].to_pylist() == [
        s1, s2, s3]
    assert [(s["snapshot_id"], s["is_current_ancestor"]) for s in history(conn, "db.t")["snapshots"]] == [
        (s1, True), (s2, False), (s3, False)]
    assert ids(conn.sql("SELECT id FROM db.t")) == [1, 2]
    # The later snapshots are still there to read.
    assert ids(snapshot_at(conn, "db.t", snapshot_id=s3)) == [1, 2, 3, 4, 5, 6]


def test_rollback_to_a_snapshot_that_is_not_an_ancestor(conn, three_snapshots):
    s1, _, s3 = three_snapshots
    rollback_to(conn, "db.t", s1)
    with pytest.raises(floe.ValidationError) as e:
        rollback_to(conn, "db.t", s3)
    assert str(e.value) == f"Cannot roll back to snapshot, not an ancestor of the current state: {s3}"


def test_rollback_to_a_missing_snapshot(conn, three_snapshots):
    with pytest.raises(floe.ValidationError) as e:
        rollback_to(conn, "db.t", 42)
    assert str(e.value) == "Cannot roll back to unknown snapshot id: 42"


def test_snapshot_at_returns_the_rows_of_that_snapshot(conn, three_snapshots):
    s1, s2, _ = three_snapshots
    first = snapshot_at(conn, "db.t", snapshot_id=s1)
    assert isinstance(first, pa.Table)
    assert sorted(first.to_pylist(), key=lambda r: r["id"]) == [{"id": 1, "name": "r1"}, {"id": 2, "name": "r2"}]
    assert ids(snapshot_at(conn, "db.t", snapshot_id=s2)) == [1, 2, 3, 4]


def test_snapshot_at_a_timestamp(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    at = committed(conn, "db.t")
    second = at[s2].astimezone(UTC)
    # ISO text without a zone is UTC; with Z or an offset it says its zone; datetimes too.
    naive_text = second.replace(tzinfo=None).isoformat(timespec="milliseconds")
    assert ids(snapshot_at(conn, "db.t", timestamp=naive_text)) == [1, 2, 3, 4]
    assert ids(snapshot_at(conn, "db.t", timestamp=naive_text + "Z")) == [1, 2, 3, 4]
    plus_two = (second.astimezone(dt.timezone(dt.timedelta(hours=2)))).isoformat(timespec="milliseconds")
    assert ids(snapshot_at(conn, "db.t", timestamp=plus_two)) == [1, 2, 3, 4]
    assert ids(snapshot_at(conn, "db.t", timestamp=second.replace(tzinfo=None))) == [1, 2, 3, 4]
    assert ids(snapshot_at(conn, "db.t", timestamp=at[s3])) == [1, 2, 3, 4, 5, 6]
    # Epoch milliseconds, as Iceberg's as-of-timestamp.
    ms = int(at[s1].timestamp() * 1000)
    assert ids(snapshot_at(conn, "db.t", timestamp=ms)) == [1, 2]
    before = (at[s1] - dt.timedelta(seconds=1)).astimezone(UTC)
    with pytest.raises(floe.NotFound) as e:
        snapshot_at(conn, "db.t", timestamp=before)
    expected = before.replace(tzinfo=None).isoformat(timespec="milliseconds").rstrip("0").rstrip(".")
    assert str(e.value).startswith(f"Cannot find a snapshot older than {expected}")


def test_snapshot_at_bad_timestamp_text(conn, three_snapshots):
    with pytest.raises(floe.ValidationError) as e:
        snapshot_at(conn, "db.t", timestamp="yesterday")
    assert str(e.value) == (
        "Cannot parse timestamp 'yesterday': expected ISO-8601 such as '2024-01-15T10:30:00Z' or "
        "'2024-01-15 10:30:00.123' (read as UTC)"
    )


def test_snapshot_at_exactly_one(conn, three_snapshots):
    s1 = three_snapshots[0]
    with pytest.raises(floe.ValidationError) as e:
        snapshot_at(conn, "db.t", snapshot_id=s1, timestamp="2024-01-15T10:30:00Z")
    assert str(e.value) == f"Can specify only one of snapshot-id ({s1}), as-of-timestamp (2024-01-15T10:30:00Z)"
    with pytest.raises(floe.ValidationError) as e:
        snapshot_at(conn, "db.t")
    assert str(e.value) == "snapshot_at needs one of snapshot_id or timestamp"


def test_resolve_snapshot_as_of(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    at = committed(conn, "db.t")
    assert resolve_snapshot_as_of(conn, "db.t", at[s2]) == s2  # at: inclusive
    assert resolve_snapshot_as_of(conn, "db.t", at[s3] + dt.timedelta(days=1)) == s3
    assert resolve_snapshot_as_of(conn, "db.t", iso_z(at[s1])) == s1
    before = at[s1] - dt.timedelta(milliseconds=1)
    with pytest.raises(floe.NotFound) as e:
        resolve_snapshot_as_of(conn, "db.t", before)
    ms = int(before.timestamp() * 1000)
    text = before.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S") + (f".{ms % 1000:03d}" if ms % 1000 else "")
    assert str(e.value) == f"Cannot find a snapshot older than {text}+00:00"
    # After a rollback to s1, s2 and s3 are no longer ancestors: never chosen.
    rollback_to(conn, "db.t", s1)
    assert resolve_snapshot_as_of(conn, "db.t", at[s3] + dt.timedelta(days=1)) == s1


def test_functions_take_only_sessions(three_snapshots):
    with pytest.raises(TypeError) as e:
        history("not a session", "db.t")
    assert str(e.value) == "Expected a floe connection or a SparkSession, not str"


def test_missing_table(conn):
    with pytest.raises(floe.NotFound) as e:
        history(conn, "db.nope")
    assert str(e.value).startswith("[TABLE_OR_VIEW_NOT_FOUND] The table or view `lakehouse`.`db`.`nope` cannot be found.")
