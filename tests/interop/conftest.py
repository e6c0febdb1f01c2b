"""Shared fixtures: a fresh SQLite catalog and warehouse, the floe_interop driver, and
PyIceberg's SqlCatalog on the same file."""

from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog

from floe_driver import DRIVER, Floe


@pytest.fixture
def floe(tmp_path: Path) -> Floe:
    if not DRIVER.exists():
        pytest.fail(f"{DRIVER} is missing; build floe first (scripts/build.sh)")
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return Floe(tmp_path / "catalog.db", warehouse, scratch)


@pytest.fixture
def pyiceberg_catalog(floe: Floe) -> SqlCatalog:
    return SqlCatalog(
        "lakehouse",
        uri=f"sqlite:///{floe.catalog_path}",
        warehouse=f"file://{floe.warehouse}",
    )


def rows(table: pa.Table, key: str = "id") -> list[dict]:
    """Rows as plain Python values, ordered by `key`."""
    return sorted(table.to_pylist(), key=lambda r: (r[key] is None, r[key]))
