"""floe.connect, conn.sql and conn.table(...): results, scans at a point in time with
Iceberg's exactly-one rule, metadata tables, and where connect() finds the catalog."""

from __future__ import annotations

import os
import threading
import time

import pyarrow as pa
import pytest

import floe

from support import ids


def test_sql_returns_rows_or_a_statement_result(conn):
    created = conn.sql("CREATE TABLE db.s (id BIGINT)")
    assert isinstance(created, floe.StatementResult)
    assert (created.statement, created.message) == ("CREATE TABLE db.s (id BIGINT)", "")
    inserted = conn.sql("INSERT INTO db.s VALUES (1), (2)")
    assert isinstance(inserted, floe.StatementResult)
    rows = conn.sql("SELECT id, id * 2 AS twice FROM db.s ORDER BY id")
    assert isinstance(rows, pa.Table)
    assert rows.schema == pa.schema([("id", pa.int64()), ("twice", pa.int64())])
    assert rows.to_pylist() == [{"id": 1, "twice": 2}, {"id": 2, "twice": 4}]
    assert rows.to_pandas()["twice"].tolist() == [2, 4]


def test_scan_points_in_time(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    t = conn.table("db.t")
    assert ids(t.scan()) == [1, 2, 3, 4, 5, 6]
    assert ids(t.scan(snapshot_id=s1)) == [1, 2]
    conn.sql(f"ALTER TABLE db.t CREATE TAG first AS OF VERSION {s1}")
    conn.sql(f"ALTER TABLE db.t CREATE BRANCH dev AS OF VERSION {s2}")
    conn.sql("INSERT INTO db.t.branch_dev VALUES (100, 'dev')")
    assert ids(t.scan(tag="first")) == [1, 2]
    assert ids(t.scan(branch="dev")) == [1, 2, 3, 4, 100]
    assert ids(t.scan(branch="main")) == [1, 2, 3, 4, 5, 6]
    at = conn.sql(f"SELECT committed_at FROM db.t.snapshots WHERE snapshot_id = {s2}")["committed_at"][0].as_py()
    assert ids(t.scan(as_of_timestamp=at)) == [1, 2, 3, 4]
    assert ids(t.scan(as_of_timestamp=int(at.timestamp() * 1000))) == [1, 2, 3, 4]
    assert t.scan(snapshot_id=s3, columns=["name"], filter="id > 4").to_pylist() == [{"name": "r5"}, {"name": "r6"}]


def test_scan_refs_of_the_wrong_kind(conn, three_snapshots):
    conn.sql("ALTER TABLE db.t CREATE TAG first")
    t = conn.table("db.t")
    with pytest.raises(floe.ValidationError) as e:
        t.scan(branch="first")
    assert "Ref first is a tag not a branch" in str(e.value)
    with pytest.raises(floe.NotFound) as e:
        t.scan(tag="nope")
    assert "Cannot find snapshot associated with tag name: nope" in str(e.value)


def test_scan_exactly_one_point_in_time(conn, three_snapshots):
    s1 = three_snapshots[0]
    t = conn.table("db.t")
    with pytest.raises(floe.ValidationError) as e:
        t.scan(snapshot_id=s1, as_of_timestamp=1700000000000)
    assert str(e.value) == (
        f"Can specify only one of snapshot-id ({s1}), as-of-timestamp (1700000000000), branch (null), tag (null)"
    )
    with pytest.raises(floe.ValidationError) as e:
        t.scan(tag="v1", branch="dev")
    assert str(e.value) == "Can specify only one of snapshot-id (null), as-of-timestamp (null), branch (dev), tag (v1)"


def test_metadata_tables(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    t = conn.table("db.t")
    history = t.history()
    assert history.column_names == ["made_current_at", "snapshot_id", "parent_id", "is_current_ancestor"]
    assert history["snapshot_id"].to_pylist() == [s1, s2, s3]
    snapshots = t.snapshots()
    assert snapshots["snapshot_id"].to_pylist() == [s1, s2, s3]
    assert snapshots["operation"].to_pylist() == ["append"] * 3
    conn.sql(f"ALTER TABLE db.t CREATE TAG first AS OF VERSION {s1}")
    refs = {r["name"]: (r["type"], r["snapshot_id"]) for r in t.refs().to_pylist()}
    assert refs == {"main": ("BRANCH", s3), "first": ("TAG", s1)}


def test_table_that_does_not_exist(conn):
    with pytest.raises(floe.NotFound) as e:
        conn.table("db.nope")
    assert str(e.value).startswith("[TABLE_OR_VIEW_NOT_FOUND] The table or view `lakehouse`.`db`.`nope` cannot be found.")


def test_connect_defaults_like_the_cli(tmp_path, monkeypatch):
    monkeypatch.delenv("FLOE_CATALOG", raising=False)
    monkeypatch.delenv("FLOE_WAREHOUSE", raising=False)
    monkeypatch.chdir(tmp_path)
    with floe.connect() as c:
        c.sql("CREATE NAMESPACE db")
        c.sql("CREATE TABLE db.t (id BIGINT)")
        c.sql("INSERT INTO db.t VALUES (1)")
    assert (tmp_path / "warehouse" / "catalog.db").is_file()
    assert (tmp_path / "warehouse" / "db" / "t" / "metadata").is_dir()

    other = tmp_path / "elsewhere"
    monkeypatch.setenv("FLOE_CATALOG", str(other / "c.db"))
    monkeypatch.setenv("FLOE_WAREHOUSE", str(other / "w"))
    with floe.connect() as c:
        c.sql("CREATE NAMESPACE db")
        c.sql("CREATE TABLE db.u (id BIGINT)")
        assert c.sql("SHOW TABLES IN db")["tableName"].to_pylist() == ["u"]
    assert (other / "c.db").is_file()
    # Arguments win over the environment.
    with floe.connect(catalog=tmp_path / "warehouse" / "catalog.db", warehouse=tmp_path / "warehouse") as c:
        assert c.sql("SELECT id FROM db.t")["id"].to_pylist() == [1]


def test_connect_catalog_name_and_time_zone(paths):
    catalog, warehouse = paths
    with floe.connect(catalog=catalog, warehouse=warehouse, catalog_name="lake", time_zone="America/New_York") as c:
        assert c.catalog_name == "lake"
        shown = c.sql("SELECT CAST(TIMESTAMP '2024-01-15 10:30:00 UTC' AS STRING) AS s")["s"].to_pylist()
        assert shown == ["2024-01-15 05:30:00"]
        c.sql("CREATE NAMESPACE lake.db")
        assert c.sql("SHOW NAMESPACES")["namespace"].to_pylist() == ["db"]


def test_closed_connection(conn):
    conn.close()
    with pytest.raises(floe.FloeError) as e:
        conn.sql("SELECT 1")
    assert str(e.value) == "The connection is closed"


def test_statements_release_the_gil(conn):
    # A Python thread keeps running while a long statement runs in another.
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        start = time.monotonic()
        conn.sql("SELECT count(*) FROM range(30000000) a WHERE a.id % 7 = 3")
        end = time.monotonic()
    finally:
        done.set()
        ticker.join()
    assert end - start > 0.05, "the statement was too quick to tell"
    during = [t for t in ticks if start < t < end]
    assert len(during) >= 10, f"{len(during)} ticks of the other thread during {end - start:.3f} s"


def test_commits_record_the_python_client_and_statement(conn, three_snapshots):
    rows = conn.sql(
        "SELECT summary['floe.client'] AS client, summary['floe.statement'] AS statement, "
        "summary['floe.user'] AS user FROM db.t.snapshots ORDER BY committed_at"
    ).to_pylist()
    assert [(r["client"], r["statement"]) for r in rows] == [
        ("floe python", "INSERT INTO db.t VALUES (1, 'r1'), (2, 'r2')"),
        ("floe python", "INSERT INTO db.t VALUES (3, 'r3'), (4, 'r4')"),
        ("floe python", "INSERT INTO db.t VALUES (5, 'r5'), (6, 'r6')"),
    ]
    assert all(r["user"] for r in rows)


def test_audit_log_of_the_catalog_and_of_a_table(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    conn.sql(f"CALL lakehouse.system.rollback_to_snapshot('db.t', {s1})")
    conn.sql("CREATE TABLE db.other (id BIGINT)")
    rows = conn.table("db.t").audit_log().to_pylist()
    assert [(r["kind"], r["operation"], r["snapshot_id"]) for r in rows] == [
        ("rollback", None, s1),
        ("commit", "append", s3),
        ("commit", "append", s2),
        ("commit", "append", s1),
        ("create", None, None),
    ]
    assert {r["client"] for r in rows} == {"floe python"}
    assert rows[0]["statement"] == f"CALL lakehouse.system.rollback_to_snapshot('db.t', {s1})"
    assert rows[0]["refs"] == [{"name": "main", "from_snapshot_id": s3, "to_snapshot_id": s1}]
    everything = conn.audit_log()
    assert everything.column_names[:5] == ["seq", "changed_at", "namespace", "table_name", "kind"]
    assert everything.column("table_name").to_pylist()[0] == "other"
    assert conn.audit_log(limit=2).num_rows == 2
    assert conn.audit_log(since="2999-01-01T00:00:00").num_rows == 0
    newest = everything.column("changed_at").to_pylist()[0]
    assert conn.audit_log(since=newest).column("table_name").to_pylist() == ["other"]


def test_changelog_of_a_table(conn, three_snapshots):
    s1, s2, s3 = three_snapshots
    conn.sql("UPDATE db.t SET name = 'R3' WHERE id = 3")
    s4 = conn.sql("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'")["snapshot_id"][0].as_py()
    t = conn.table("db.t")
    changes = t.changelog(start_snapshot_id=s2, identifier_columns=["id"])
    assert changes.column_names == ["id", "name", "_change_type", "_change_ordinal", "_commit_snapshot_id"]
    assert changes.to_pylist() == [
        {"id": 5, "name": "r5", "_change_type": "INSERT", "_change_ordinal": 0, "_commit_snapshot_id": s3},
        {"id": 6, "name": "r6", "_change_type": "INSERT", "_change_ordinal": 0, "_commit_snapshot_id": s3},
        {"id": 3, "name": "r3", "_change_type": "UPDATE_BEFORE", "_change_ordinal": 1, "_commit_snapshot_id": s4},
        {"id": 3, "name": "R3", "_change_type": "UPDATE_AFTER", "_change_ordinal": 1, "_commit_snapshot_id": s4},
    ]
    # Without identifier columns an update is a DELETE and an INSERT; net over the whole range
    # the old row never shows.
    plain = t.changelog(start_snapshot_id=s3, end_snapshot_id=s4).to_pylist()
    assert [(r["id"], r["name"], r["_change_type"]) for r in plain] == [(3, "r3", "DELETE"), (3, "R3", "INSERT")]
    net = t.changelog(net_changes=True).to_pylist()
    assert sorted((r["id"], r["name"]) for r in net) == [(1, "r1"), (2, "r2"), (3, "R3"), (4, "r4"), (5, "r5"),
                                                          (6, "r6")]
    assert {r["_change_type"] for r in net} == {"INSERT"}
    with pytest.raises(floe.ValidationError, match="identifier_columns must be a list of names"):
        t.changelog(identifier_columns="id")
    with pytest.raises(floe.FloeError, match="Not support net changes with update images"):
        t.changelog(net_changes=True, identifier_columns=["id"])
