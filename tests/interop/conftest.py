"""Shared fixtures: a fresh catalog and warehouse, the floe_interop driver, and PyIceberg's
SqlCatalog on the same catalog. Every test runs three times: on a SQLite file with a local
warehouse; on a database of its own on a throwaway PostgreSQL server (one server for the
session, tests/support/postgres_server.py) with a local warehouse; and on such a database
with the warehouse in a bucket of a throwaway S3-compatible server (tests/support/
s3_server.py), as a lab with a PostgreSQL catalog and object storage has it."""

import sys
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog

from floe_driver import DRIVER, ROOT, Floe

sys.path.insert(0, str(ROOT / "tests" / "support"))
from names import name_for_test  # noqa: E402
from postgres_server import PostgresServer  # noqa: E402
from s3_server import ACCESS_KEY, REGION, SECRET_KEY, TEST_BUCKET, S3Server  # noqa: E402

CATALOGS = ["sqlite", "postgresql", "postgresql+s3"]


@pytest.fixture(scope="session")
def postgres(tmp_path_factory):
    """One PostgreSQL server for the session (a database per test)."""
    with PostgresServer(tmp_path_factory.mktemp("postgres"), fsync=False) as server:
        yield server


@pytest.fixture(scope="session")
def s3(tmp_path_factory):
    """One S3-compatible server for the session, with the bucket the tests' warehouses share
    (a prefix per test)."""
    with S3Server(tmp_path_factory.mktemp("s3"), bucket=TEST_BUCKET) as server:
        yield server


def database_name(request) -> str:
    """A new database name for one test: a counter and the test's name, in PostgreSQL's 63."""
    return name_for_test(request, length=50)[:63]


@pytest.fixture(params=CATALOGS)
def floe(request, tmp_path: Path):
    if not DRIVER.exists():
        pytest.fail(f"{DRIVER} is missing; build floe first (scripts/build.sh)")
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    if request.param == "sqlite":
        yield Floe(tmp_path / "catalog.db", warehouse, scratch)
        return
    server = request.getfixturevalue("postgres")
    name = database_name(request)
    database = server.create_database(name)
    if request.param == "postgresql":
        yield Floe(database, warehouse, scratch)
        return
    s3 = request.getfixturevalue("s3")
    yield Floe(database, f"s3://{TEST_BUCKET}/{name}", scratch, env=s3.environment)
    # The tables really lived in the bucket: their metadata files are there, and nothing of
    # them went to the local directory a local warehouse would have used.
    keys = [key for key, _ in s3.list_objects(TEST_BUCKET, f"{name}/")]
    assert any(key.endswith(".metadata.json") for key in keys), f"no metadata under s3 prefix {name}/"
    assert not any(warehouse.iterdir()), f"files were written under {warehouse}"


@pytest.fixture
def pyiceberg_catalog(floe: Floe) -> SqlCatalog:
    if floe.is_postgres:
        uri = floe.catalog.replace("postgresql://", "postgresql+psycopg2://", 1)
    else:
        uri = f"sqlite:///{floe.catalog_path}"
    properties = {}
    if floe.on_s3:
        properties = {"s3.endpoint": floe.env["AWS_ENDPOINT_URL"], "s3.access-key-id": ACCESS_KEY,
                      "s3.secret-access-key": SECRET_KEY, "s3.region": REGION}
    catalog = SqlCatalog("lakehouse", uri=uri, warehouse=floe.warehouse_uri, **properties)
    yield catalog
    catalog.engine.dispose()  # its pooled connections would outlive the test


def rows(table: pa.Table, key: str = "id") -> list[dict]:
    """Rows as plain Python values, ordered by `key`."""
    return sorted(table.to_pylist(), key=lambda r: (r[key] is None, r[key]))
