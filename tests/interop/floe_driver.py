"""The floe_interop driver: makes floe create, append to, overwrite and read tables of a
catalog and warehouse that a peer (PyIceberg, Spark) uses too. Data crosses as Arrow IPC.
The catalog is a SQLite file or a PostgreSQL database (postgresql://floe@127.0.0.1:PORT/DB);
the warehouse a directory or an s3:// location on an S3-compatible server."""

from __future__ import annotations

import decimal
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pyarrow as pa

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
import s3_server  # noqa: E402
from floe_serve import FloeServe  # noqa: E402
BUILD = Path(os.environ.get("FLOE_BUILD_DIR", ROOT / "build"))
DRIVER = BUILD / "tests" / "floe_interop"
CLI = BUILD / "floe"


class Floe:
    """Runs floe_interop and the floe CLI against one catalog and warehouse. `catalog` is a
    SQLite file's path or a PostgreSQL URI; `catalog_name` is the name floe's SQL and the
    catalog's rows (the catalog_name column) give it, which a peer must use too. `warehouse`
    is a directory or an s3:// location; `env` adds to floe's environment (AWS_ENDPOINT_URL and
    the credentials of an S3 server)."""

    def __init__(
        self, catalog: Path | str, warehouse: Path | str, scratch: Path,
        catalog_name: str = "lakehouse", env: dict[str, str] | None = None,
    ):
        self.catalog = catalog
        self.warehouse = warehouse
        self.scratch = scratch
        self.catalog_name = catalog_name
        self.env = dict(os.environ, **(env or {}))
        self._n = 0

    @property
    def on_s3(self) -> bool:
        return str(self.warehouse).startswith("s3://")

    @property
    def warehouse_uri(self) -> str:
        """The warehouse as a peer's catalog takes it: s3://... or file:///..."""
        return str(self.warehouse) if self.on_s3 else f"file://{self.warehouse}"

    @property
    def is_postgres(self) -> bool:
        return isinstance(self.catalog, str) and self.catalog.startswith("postgresql://")

    @property
    def catalog_path(self) -> Path:
        """The SQLite catalog file."""
        assert not self.is_postgres, f"{self.catalog} is a PostgreSQL catalog, not a file"
        return Path(self.catalog)

    def catalog_rows(self, sql: str) -> list[tuple]:
        """The rows of a query on the catalog database itself (its Iceberg and floe tables)."""
        if not self.is_postgres:
            with sqlite3.connect(self.catalog_path) as con:
                return con.execute(sql).fetchall()
        import psycopg2

        with psycopg2.connect(self.catalog) as con, con.cursor() as cur:
            cur.execute(sql)
            rows = cur.fetchall()
        con.close()
        return rows

    def location(self, path: str) -> str:
        """A file's location as this warehouse names files: local files by their absolute path
        (Spark writes them as file: URIs, floe as paths), objects as s3:// URIs."""
        return path if path.startswith("s3://") else path.removeprefix("file:")

    def files_under(self, directory: str) -> set[str]:
        """Every file under a directory of the warehouse (a table's, say), by `location`; on
        S3 every object under the prefix, directory markers (keys ending in '/') left out."""
        directory = self.location(directory)
        if not directory.startswith("s3://"):
            return {os.path.join(root, n) for root, _, names in os.walk(directory) for n in names}
        bucket, _, prefix = directory.removeprefix("s3://").partition("/")
        objects = s3_server.list_objects(self.env["AWS_ENDPOINT_URL"], bucket, prefix.rstrip("/") + "/")
        return {f"s3://{bucket}/{key}" for key, _ in objects if not key.endswith("/")}

    def serve_rest(self) -> FloeServe:
        """`floe serve --rest 127.0.0.1:0` on this catalog and warehouse, under this catalog
        name and with this environment: the Iceberg REST catalog alone, no wire protocol."""
        return FloeServe(CLI, "--catalog", str(self.catalog), "--warehouse", str(self.warehouse),
                         "--catalog-name", self.catalog_name, rest=True,
                         catalog_name=self.catalog_name, env=self.env)

    def run(self, *args: str) -> str:
        cmd = [str(DRIVER), "--catalog-name", self.catalog_name]
        cmd += [str(self.catalog), str(self.warehouse), *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=self.env)
        if proc.returncode != 0:
            raise RuntimeError(f"floe_interop {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout.strip()

    def _path(self, what: str) -> Path:
        self._n += 1
        return self.scratch / f"{what}-{self._n}.arrow"

    def ipc(self, table: pa.Table) -> str:
        path = self._path("data")
        with pa.ipc.new_file(path, table.schema) as writer:
            writer.write_table(table)
        return str(path)

    def create(self, name: str, schema_like: pa.Table, *partition: str) -> str:
        return self.run("create", name, self.ipc(schema_like), *partition)

    def append(self, name: str, data: pa.Table) -> int:
        return int(self.run("append", name, self.ipc(data)))

    def overwrite(self, name: str, data: pa.Table, mode: str = "all") -> int:
        return int(self.run("overwrite", name, self.ipc(data), mode))

    def read(self, name: str, snapshot_id: int | None = None) -> pa.Table:
        out = self._path("read")
        args = ["read", name, str(out)]
        if snapshot_id is not None:
            args.append(str(snapshot_id))
        self.run(*args)
        with pa.ipc.open_file(out) as reader:
            return reader.read_all()

    def cli(self, command: str, *args: str, tz: str | None = None) -> subprocess.CompletedProcess:
        """Runs `floe COMMAND` on this catalog (with --tz when given); returns the process."""
        cmd = [str(CLI), command, "--catalog", str(self.catalog), "--warehouse", str(self.warehouse)]
        cmd += ["--catalog-name", self.catalog_name, *(["--tz", tz] if tz else []), *args]
        return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              env=self.env)

    def audit(self, *args: str) -> list[dict]:
        """The audit log's entries as `floe audit ARGS --json` prints them, oldest first."""
        proc = self.cli("audit", *args, "--json", "--limit", "0")
        assert proc.returncode == 0, proc.stderr
        return list(reversed(json.loads(proc.stdout)["entries"]))

    def sql(self, *statements: str, tz: str | None = None, decimals: bool = False) -> list[dict]:
        """The rows of the statements, run by one floe CLI process on this catalog (session time
        zone `tz`, default UTC), as JSON objects; with `decimals`, numbers with a fraction (floe
        writes DECIMAL values as JSON numbers) as decimal.Decimal rather than float."""
        args = ["--format", "json", "-q"]
        for statement in statements:
            args += ["-c", statement]
        proc = self.cli("sql", *args, tz=tz)
        if proc.returncode != 0:
            raise RuntimeError(f"floe sql {' '.join(map(repr, statements))} failed: {proc.stderr.strip()}")
        parse_float = decimal.Decimal if decimals else float
        return [json.loads(line, parse_float=parse_float) for line in proc.stdout.splitlines() if line.strip()]

    def snapshots(self, name: str) -> list[dict]:
        return json.loads(self.run("snapshots", name))
