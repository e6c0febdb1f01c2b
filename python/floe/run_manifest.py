"""Reading a run manifest's tables at their recorded snapshots."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Iterator, Sequence

import pyarrow as pa

from .table import Table


class RunManifestReader(Mapping):
    """A read-only mapping from each table of a run manifest (its full name,
    "lakehouse.db.orders") to its rows at the recorded snapshot, read when asked for:
    ``reader["db.orders"]`` (the catalog may be left out) is the whole table as a pyarrow
    Table; ``reader.read(table, columns=..., filter=...)`` reads part of it. ``snapshot_ids``
    gives the recorded snapshot of each table, ``manifest`` the parsed JSON."""

    def __init__(self, connection, manifest: dict, sources: list[tuple[str, int]]):
        self._connection = connection
        self.manifest = manifest
        self.snapshot_ids: dict[str, int] = dict(sources)

    def read(self, table: str, columns: Sequence[str] | None = None, filter: str | None = None) -> pa.Table:
        name = self._key(table)
        return Table(self._connection, name).scan(snapshot_id=self.snapshot_ids[name], columns=columns, filter=filter)

    def _key(self, table: str) -> str:
        if table in self.snapshot_ids:
            return table
        qualified = f"{self._connection.catalog_name}.{table}"
        if qualified in self.snapshot_ids:
            return qualified
        raise KeyError(f"Table {table} is not in the run manifest (it records {', '.join(self.snapshot_ids)})")

    def __getitem__(self, table: str) -> pa.Table:
        return self.read(table)

    def __contains__(self, table: object) -> bool:
        try:
            self._key(table)  # type: ignore[arg-type]
        except (KeyError, TypeError):
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self.snapshot_ids)

    def __len__(self) -> int:
        return len(self.snapshot_ids)

    def __repr__(self) -> str:
        tables = ", ".join(f"{t} @ {s}" for t, s in self.snapshot_ids.items())
        return f"<floe.RunManifestReader {tables}>"
