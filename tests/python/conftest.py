"""Fixtures of the Python package's tests: a fresh catalog and warehouse per test, opened
with floe.connect(), and a table with three snapshots of two rows each.

Run with the interpreter the package is installed in: .venv/bin/python -m pytest tests/python
(scripts/setup.sh installs it there)."""

from __future__ import annotations

from pathlib import Path

import pytest

import floe


@pytest.fixture
def paths(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "catalog.db", tmp_path / "warehouse"


@pytest.fixture
def conn(paths):
    catalog, warehouse = paths
    with floe.connect(catalog=catalog, warehouse=warehouse) as c:
        c.sql("CREATE NAMESPACE db")
        yield c


@pytest.fixture
def three_snapshots(conn) -> list[int]:
    """db.t (id BIGINT, name STRING) with ids 1-2, 3-4 and 5-6 appended in three snapshots;
    their ids, oldest first, as the snapshots table lists them."""
    conn.sql("CREATE TABLE db.t (id BIGINT, name STRING)")
    for i in range(3):
        conn.sql(f"INSERT INTO db.t VALUES ({2 * i + 1}, 'r{2 * i + 1}'), ({2 * i + 2}, 'r{2 * i + 2}')")
    return conn.sql("SELECT snapshot_id FROM db.t.snapshots ORDER BY committed_at")["snapshot_id"].to_pylist()
