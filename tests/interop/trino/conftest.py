"""Fixtures of the Trino interop suite: a PostgreSQL server whose database `lake` holds the
Iceberg JDBC catalog `lakehouse`, a warehouse on local files, floe on them (the floe CLI and
floe_interop), and one Trino server (Trino 476 with its Iceberg connector) on the same
catalog. Run it after scripts/setup-trino.sh:
    .venv/bin/python -m pytest tests/interop/trino
Nothing is skipped: a missing Trino, Java or PostgreSQL fails the run."""

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1] / "support"))

from floe_driver import CLI, DRIVER, Floe  # noqa: E402
from postgres_server import PostgresServer  # noqa: E402
from names import name_for_test  # noqa: E402
from trino_server import TRINO_HOME, TrinoServer  # noqa: E402


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """(floe, trino) on one PostgreSQL catalog and one warehouse."""
    for needed in (DRIVER, CLI):
        if not needed.exists():
            pytest.fail(f"{needed} is missing; build it: scripts/build.sh release")
    if not (TRINO_HOME / "bin" / "launcher").exists():
        pytest.fail(f"{TRINO_HOME} is missing; run scripts/setup-trino.sh")
    base = tmp_path_factory.mktemp("lab")
    warehouse = base / "warehouse"
    warehouse.mkdir()
    scratch = base / "scratch"
    scratch.mkdir()
    with PostgresServer(base / "postgres", fsync=False) as pg:
        uri = pg.create_database("lake")
        floe = Floe(uri, warehouse, scratch)
        floe.sql("SHOW NAMESPACES")  # creates the catalog's tables
        with TrinoServer(base / "trino", jdbc_url=pg.jdbc_uri("lake"), jdbc_user="floe",
                         warehouse=f"file://{warehouse}") as trino:
            yield floe, trino



@pytest.fixture
def ns(lab, request) -> str:
    """A fresh namespace (a Trino schema) for one test."""
    floe, _ = lab
    name = name_for_test(request)
    floe.sql(f"CREATE NAMESPACE {name}")
    return name
