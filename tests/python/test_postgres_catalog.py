"""floe.connect() on a PostgreSQL catalog: the same API as on a SQLite file, its tables in
the Iceberg JDBC-catalog rows other engines read, and a clear error for an unreachable
server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import floe
from support import two_snapshots

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from postgres_server import PostgresServer  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with PostgresServer(tmp_path_factory.mktemp("postgres"), fsync=False) as pg:
        yield pg


def test_history_and_rollback_on_postgres(server, tmp_path):
    uri = server.create_database("py_history")
    with floe.connect(catalog=uri, warehouse=tmp_path / "wh") as conn:
        first, second = two_snapshots(conn)
        assert conn.table("db.t").history()["snapshot_id"].to_pylist() == [first, second]
        conn.sql(f"CALL lakehouse.system.rollback_to_snapshot('db.t', {first})")
        assert conn.sql("SELECT id, name FROM db.t").to_pylist() == [{"id": 1, "name": "a"}]
    # What Spark's and Trino's JdbcCatalog read: one row pointing at the current metadata.
    rows = server.psql("SELECT catalog_name, table_namespace, table_name, iceberg_type, "
                       "metadata_location LIKE '%.metadata.json' FROM iceberg_tables", "py_history")
    assert rows.split() == ["lakehouse|db|t|TABLE|t"]


def test_an_unreachable_server_is_named(tmp_path):
    with pytest.raises(floe.FloeError, match=r"Cannot connect to PostgreSQL catalog "
                                             r"postgresql://floe@127\.0\.0\.1:1/lake: .*refused"):
        floe.connect(catalog="postgresql://floe:secret@127.0.0.1:1/lake", warehouse=tmp_path / "wh")
