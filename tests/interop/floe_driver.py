"""The floe_interop driver: makes floe create, append to, overwrite and read tables of a
catalog and warehouse that a peer (PyIceberg, Spark) uses too. Data crosses as Arrow IPC."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("FLOE_BUILD_DIR", ROOT / "build"))
DRIVER = BUILD / "tests" / "floe_interop"
CLI = BUILD / "floe"


class Floe:
    """Runs floe_interop against one catalog and warehouse."""

    def __init__(
        self, catalog_path: Path, warehouse: Path, scratch: Path, catalog_name: str = "lakehouse"
    ):
        self.catalog_path = catalog_path
        self.warehouse = warehouse
        self.scratch = scratch
        self.catalog_name = catalog_name
        self._n = 0

    def run(self, *args: str) -> str:
        cmd = [str(DRIVER), "--catalog-name", self.catalog_name]
        cmd += [str(self.catalog_path), str(self.warehouse), *args]
        proc = subprocess.run(cmd, capture_output=True, text=True)
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

    def sql(self, statement: str) -> list[dict]:
        """The rows of one statement run by the floe CLI on this catalog, as JSON objects."""
        cmd = [str(CLI), "sql", "--catalog", str(self.catalog_path), "--warehouse", str(self.warehouse)]
        cmd += ["--catalog-name", self.catalog_name, "--format", "json", "-q", "-c", statement]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"floe sql {statement!r} failed: {proc.stderr.strip()}")
        return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]

    def snapshots(self, name: str) -> list[dict]:
        return json.loads(self.run("snapshots", name))
