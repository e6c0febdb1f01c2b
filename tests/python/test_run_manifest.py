"""Run manifests from Python: one snapshot id per table, read back exactly."""

from __future__ import annotations

import json

import pytest

import floe
from floe.iceberg import build_multi_table_manifest, build_run_manifest, open_run_manifest

from support import ids


def test_build_and_open_one_table(conn, three_snapshots, tmp_path):
    s3 = three_snapshots[2]
    text = build_run_manifest(conn, "db.t")
    manifest = json.loads(text)
    assert sorted(manifest) == ["run_started_at", "run_started_at_ms", "sources"]
    assert list(manifest["sources"]) == ["lakehouse.db.t"]
    source = manifest["sources"]["lakehouse.db.t"]
    assert sorted(source) == ["committed_at", "committed_at_ms", "snapshot_id", "table_uuid"]
    assert source["snapshot_id"] == s3

    conn.sql("INSERT INTO db.t VALUES (7, 'r7')")
    conn.sql("DELETE FROM db.t WHERE id = 1")
    reader = open_run_manifest(conn, text)
    assert reader.snapshot_ids == {"lakehouse.db.t": s3}
    assert list(reader) == ["lakehouse.db.t"] and len(reader) == 1
    assert ids(reader["lakehouse.db.t"]) == [1, 2, 3, 4, 5, 6]
    assert ids(reader["db.t"]) == [1, 2, 3, 4, 5, 6]
    assert "db.t" in reader and "db.other" not in reader
    assert reader.read("db.t", columns=["id"], filter="id > 4").to_pylist() == [{"id": 5}, {"id": 6}]
    # From a dict, and from a file.
    assert open_run_manifest(conn, manifest).snapshot_ids == {"lakehouse.db.t": s3}
    path = tmp_path / "run.json"
    path.write_text(text)
    assert open_run_manifest(conn, path).snapshot_ids == {"lakehouse.db.t": s3}
    assert open_run_manifest(conn, str(path)).snapshot_ids == {"lakehouse.db.t": s3}
    with pytest.raises(KeyError):
        reader["db.other"]


def test_multi_table(conn, three_snapshots):
    conn.sql("CREATE TABLE db.u (id BIGINT)")
    conn.sql("INSERT INTO db.u VALUES (10)")
    u1 = conn.sql("SELECT snapshot_id FROM db.u.snapshots")["snapshot_id"][0].as_py()
    text = build_multi_table_manifest(conn, ["db.t", "lakehouse.db.u"])
    assert {t: s["snapshot_id"] for t, s in json.loads(text)["sources"].items()} == {
        "lakehouse.db.t": three_snapshots[2], "lakehouse.db.u": u1}
    conn.sql("INSERT INTO db.u VALUES (11)")
    reader = open_run_manifest(conn, text)
    assert {t: ids(rows) for t, rows in reader.items()} == {
        "lakehouse.db.t": [1, 2, 3, 4, 5, 6], "lakehouse.db.u": [10]}


def test_errors(conn, three_snapshots):
    with pytest.raises(floe.ValidationError) as e:
        build_multi_table_manifest(conn, ["db.t", "lakehouse.db.t"])
    assert str(e.value) == "Table lakehouse.db.t is listed twice"
    conn.sql("CREATE TABLE db.empty (id BIGINT)")
    with pytest.raises(floe.FloeError) as e:
        build_run_manifest(conn, "db.empty")
    assert str(e.value) == "Table lakehouse.db.empty has no current snapshot to record"
    with pytest.raises(floe.NotFound):
        build_run_manifest(conn, "db.nope")

    text = build_run_manifest(conn, "db.t")
    conn.sql("DROP TABLE db.t")
    conn.sql("CREATE TABLE db.t (id BIGINT, name STRING)")
    conn.sql("INSERT INTO db.t VALUES (1, 'x')")
    with pytest.raises(floe.FloeError) as e:
        open_run_manifest(conn, text)
    assert str(e.value).startswith("Table lakehouse.db.t is not the table the run manifest recorded (uuid ")
    with pytest.raises(floe.FloeError) as e:
        open_run_manifest(conn, "{}")
    assert str(e.value).startswith("Invalid run manifest: ")
    with pytest.raises(TypeError):
        build_run_manifest(object(), "db.t")
