"""Shared fixtures: a fresh catalog and warehouse, the floe_interop driver, and PyIceberg's
SqlCatalog on the same catalog. Every test runs twice, once on each kind of catalog floe
opens: a SQLite file, and a database of its own on a throwaway PostgreSQL server (one server
for the session, tests/support/postgres_server.py)."""

import sys
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog

from floe_driver import DRIVER, ROOT, Floe

sys.path.insert(0, str(ROOT / "tests" / "support"))
from names import name_for_test  # noqa: E402
from postgres_server import PostgresServer  # noqa: E402

CATALOGS = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def postgres(tmp_path_factory):
    """One PostgreSQL server for the session (a database per test)."""
    with PostgresServer(tmp_path_factory.mktemp("postgres"), fsync=False) as server:
        yield server


def database_name(request) -> str:
    """A new database name for one test: a counter and the test's name, in PostgreSQL's 63."""
    return name_for_test(request, length=50)[:63]


@pytest.fixture(params=CATALOGS)
def floe(request, tmp_path: Path) -> Floe:
    if not DRIVER.exists():
        pytest.fail(f"{DRIVER} is missing; build floe first (scripts/build.sh)")
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    if request.param == "sqlite":
        return Floe(tmp_path / "catalog.db", warehouse, scratch)
    server = request.getfixturevalue("postgres")
    return Floe(server.create_database(database_name(request)), warehouse, scratch)


@pytest.fixture
def pyiceberg_catalog(floe: Floe) -> SqlCatalog:
    if floe.is_postgres:
        uri = floe.catalog.replace("postgresql://", "postgresql+psycopg2://", 1)
    else:
        uri = f"sqlite:///{floe.catalog_path}"
    catalog = SqlCatalog("lakehouse", uri=uri, warehouse=f"file://{floe.warehouse}")
    yield catalog
    catalog.engine.dispose()  # its pooled connections would outlive the test


def rows(table: pa.Table, key: str = "id") -> list[dict]:
    """Rows as plain Python values, ordered by `key`."""
    return sorted(table.to_pylist(), key=lambda r: (r[key] is None, r[key]))
