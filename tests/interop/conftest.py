"""Shared fixtures: a fresh SQLite catalog and warehouse, the floe_interop driver, and
PyIceberg's SqlCatalog on the same file."""

import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("FLOE_BUILD_DIR", ROOT / "build"))
DRIVER = BUILD / "tests" / "floe_interop"


class Floe:
    """Runs floe_interop against one catalog and warehouse."""

    def __init__(self, catalog_path: Path, warehouse: Path, scratch: Path):
        self.catalog_path = catalog_path
        self.warehouse = warehouse
        self.scratch = scratch
        self._n = 0

    def run(self, *args: str) -> str:
        cmd = [str(DRIVER), str(self.catalog_path), str(self.warehouse), *args]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()}")
        return proc.stdout.strip()

    def ipc(self, table: pa.Table) -> str:
        self._n += 1
        path = self.scratch / f"data-{self._n}.arrow"
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
        self._n += 1
        out = self.scratch / f"read-{self._n}.arrow"
        args = ["read", name, str(out)]
        if snapshot_id is not None:
            args.append(str(snapshot_id))
        self.run(*args)
        with pa.ipc.open_file(out) as reader:
            return reader.read_all()

    def snapshots(self, name: str) -> list[dict]:
        return json.loads(self.run("snapshots", name))


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
