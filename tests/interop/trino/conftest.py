"""Fixtures of the Trino interop suite: one PostgreSQL server, one S3-compatible server and
one Trino server (Trino 476 with its Iceberg connector). Each test runs in three labs (one
reading test, whose catalog plays no part, in the first two only):
  local   the Iceberg JDBC catalog `lakehouse` in the PostgreSQL database `lake`, a warehouse
          on local files; Trino's catalog `lakehouse`
  s3      the same catalog in the database `lake_s3`, the warehouse in an S3 bucket; Trino's
          catalog `lakehouse_s3`
  sqlite  the same catalog in a SQLite file, as floe's default embedded catalog keeps it (in
          WAL mode, with floe's audit trigger), a warehouse on local files; Trino's catalog
          `lakehouse_sqlite`, through the SQLite JDBC driver scripts/setup-trino.sh adds
floe (the floe CLI and floe_interop) runs on the same catalog and warehouse as Trino in each.
One more lab, `rest`, is no parameter of these tests (test_trino_rest.py uses it): a fresh
SQLite catalog and local warehouse that `floe serve --rest 127.0.0.1:0` serves as an Iceberg
REST catalog, started before Trino, and Trino's catalog `rest` on that server.
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
from floe_serve import FloeServe  # noqa: E402
from postgres_server import PostgresServer  # noqa: E402
from names import name_for_test  # noqa: E402
from s3_server import ACCESS_KEY, SECRET_KEY, TEST_BUCKET, S3Server  # noqa: E402
from trino_server import TRINO_HOME, JdbcCatalog, RestCatalog, S3Access, TrinoServer  # noqa: E402


@dataclass
class Lab:
    floe: Floe
    trino: TrinoServer
    catalog: str  # the Trino catalog on floe's catalog
    server: FloeServe | None = None  # the REST lab's floe serve

    def __iter__(self):
        return iter((self.floe, self.trino, self.catalog))


@pytest.fixture(scope="session")
def labs(tmp_path_factory):
    """{"local": Lab, "s3": Lab, "sqlite": Lab, "rest": Lab}, sharing the servers."""
    for needed in (DRIVER, CLI):
        if not needed.exists():
            pytest.fail(f"{needed} is missing; build it: scripts/build.sh release")
    if not (TRINO_HOME / "bin" / "launcher").exists():
        pytest.fail(f"{TRINO_HOME} is missing; run scripts/setup-trino.sh")
    base = tmp_path_factory.mktemp("lab")
    warehouse = base / "warehouse"
    warehouse.mkdir()
    sqlite_warehouse = base / "sqlite-warehouse"
    sqlite_warehouse.mkdir()
    scratch = base / "scratch"
    scratch.mkdir()
    rest_warehouse = base / "rest-warehouse"
    rest_warehouse.mkdir()
    on_rest = Floe(base / "rest-catalog.db", rest_warehouse, scratch)
    with (PostgresServer(base / "postgres", fsync=False) as pg, S3Server(base / "s3", bucket=TEST_BUCKET) as s3,
          on_rest.serve_rest() as rest):
        local = Floe(pg.create_database("lake"), warehouse, scratch)
        on_s3 = Floe(pg.create_database("lake_s3"), f"s3://{TEST_BUCKET}/warehouse", scratch,
                     env=s3.environment)
        on_sqlite = Floe(base / "catalog.db", sqlite_warehouse, scratch)
        for floe in (local, on_s3, on_sqlite):
            floe.sql("SHOW NAMESPACES")  # creates the catalog's tables and the audit trigger
        catalogs = {
            "lakehouse": JdbcCatalog(pg.jdbc_uri("lake"), "floe", warehouse=local.warehouse_uri),
            "lakehouse_s3": JdbcCatalog(pg.jdbc_uri("lake_s3"), "floe", warehouse=on_s3.warehouse_uri),
            "lakehouse_sqlite": JdbcCatalog(f"jdbc:sqlite:{on_sqlite.catalog_path}", "",
                                            warehouse=on_sqlite.warehouse_uri),
            "rest": RestCatalog(rest.uri),
        }
        access = S3Access(s3.endpoint, ACCESS_KEY, SECRET_KEY)
        with TrinoServer(base / "trino", catalogs=catalogs, s3=access) as trino:
            yield {"local": Lab(local, trino, "lakehouse"), "s3": Lab(on_s3, trino, "lakehouse_s3"),
                   "sqlite": Lab(on_sqlite, trino, "lakehouse_sqlite"),
                   "rest": Lab(on_rest, trino, "rest", rest)}


@pytest.fixture(params=["local", "s3", "sqlite"])
def lab(labs, request) -> Lab:
    return labs[request.param]


@pytest.fixture
def ns(lab, request) -> str:
    """A fresh namespace (a Trino schema) for one test."""
    name = name_for_test(request)
    lab.floe.sql(f"CREATE NAMESPACE {name}")
    return name
