"""floe.iceberg's functions on a floe connection: the queries they need, in floe SQL."""

from __future__ import annotations

from . import _timestamps
from ._sql_text import sql_string


class FloeEngine:
    def __init__(self, connection):
        self.connection = connection

    def snapshots(self, table: str) -> list[tuple[int, int, str, int | None]]:
        """(snapshot_id, committed_at millis, operation, parent_id) of every snapshot, oldest first."""
        rows = self.connection._sql(
            f"SELECT snapshot_id, committed_at, operation, parent_id FROM {table}.snapshots ORDER BY committed_at"
        ).to_pylist()
        return [
            (r["snapshot_id"], _timestamps.to_micros(r["committed_at"]) // 1000, r["operation"], r["parent_id"])
            for r in rows
        ]

    def ancestors(self, table: str) -> list[tuple[int, int]]:
        """(snapshot_id, committed_at millis) of the current snapshot and its ancestors, newest first."""
        rows = self.connection._sql(
            f"CALL {self.connection.catalog_name}.system.ancestors_of({sql_string(table)})"
        ).to_pylist()
        return [(r["snapshot_id"], r["timestamp"]) for r in rows]

    def read(self, table: str, snapshot_id: int | None = None, micros: int | None = None):
        """The table at a snapshot, or at the snapshot current at an instant, as a pyarrow Table."""
        if snapshot_id is not None:
            return self.connection._sql(f"SELECT * FROM {table} VERSION AS OF {int(snapshot_id)}")
        return self.connection._sql(f"SELECT * FROM {table} TIMESTAMP AS OF {_timestamps.sql_literal(micros)}")

    def rollback(self, table: str, snapshot_id: int) -> int:
        rows = self.connection._sql(
            f"CALL {self.connection.catalog_name}.system.rollback_to_snapshot({sql_string(table)}, {int(snapshot_id)})"
        ).to_pylist()
        return rows[0]["current_snapshot_id"]
