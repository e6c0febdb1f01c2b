"""Fixtures of the Trino interop suite: one PostgreSQL server, one S3-compatible server and
one Trino server (Trino 476 with its Iceberg connector). Each test runs in two labs:
  local  the Iceberg JDBC catalog `lakehouse` in the database `lake`, a warehouse on local
         files; Trino's catalog `lakehouse`
  s3     the same catalog in the database `lake_s3`, the warehouse in an S3 bucket; Trino's
         catalog `lakehouse_s3`
floe (the floe CLI and floe_interop) runs on the same catalog and warehouse as Trino in each.
Run it after scripts/setup-trino.sh:
    .venv/bin/python -m pytest tests/interop/trino
Nothing is skipped: a missing Trino, Java or PostgreSQL fails the run."""

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1] / "support"))

from floe_driver import CLI, DRIVER, Floe  # noqa: E402
from postgres_server import PostgresServer  # noqa: E402
from names import name_for_test  # noqa: E402
from s3_server import ACCESS_KEY, SECRET_KEY, TEST_BUCKET, S3Server  # noqa: E402
from trino_server import TRINO_HOME, JdbcCatalog, S3Access, TrinoServer  # noqa: E402


@dataclass
class Lab:
    floe: Floe
    trino: TrinoServer
    catalog: str  # the Trino catalog on floe's catalog

    def __iter__(self):
        return iter((self.floe, self.trino, self.catalog))


@pytest.fixture(scope="session")
def labs(tmp_path_factory):
    """{"local": Lab, "s3": Lab}, sharing the servers."""
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
    with PostgresServer(base / "postgres", fsync=False) as pg, S3Server(base / "s3", bucket=TEST_BUCKET) as s3:
        local = Floe(pg.create_database("lake"), warehouse, scratch)
        on_s3 = Floe(pg.create_database("lake_s3"), f"s3://{TEST_BUCKET}/warehouse", scratch,
                     env=s3.environment)
        for floe in (local, on_s3):
            floe.sql("SHOW NAMESPACES")  # creates the catalog's tables
        catalogs = {
            "lakehouse": JdbcCatalog(pg.jdbc_uri("lake"), "floe", warehouse=local.warehouse_uri),
            "lakehouse_s3": JdbcCatalog(pg.jdbc_uri("lake_s3"), "floe", warehouse=on_s3.warehouse_uri),
        }
        access = S3Access(s3.endpoint, ACCESS_KEY, SECRET_KEY)
        with TrinoServer(base / "trino", catalogs=catalogs, s3=access) as trino:
            yield {"local": Lab(local, trino, "lakehouse"), "s3": Lab(on_s3, trino, "lakehouse_s3")}


@pytest.fixture(params=["local", "s3"])
def lab(labs, request) -> Lab:
    return labs[request.param]


@pytest.fixture
def ns(lab, request) -> str:
    """A fresh namespace (a Trino schema) for one test."""
    name = name_for_test(request)
    lab.floe.sql(f"CREATE NAMESPACE {name}")
    return name
