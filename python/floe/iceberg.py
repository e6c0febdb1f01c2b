"""The time-travel functions of Iceberg users, on a floe connection or a pyspark SparkSession.

    history(session, table)                      -> {"success": True, "table": ..., "snapshots": [...]}
    snapshot_at(session, table, snapshot_id=None, timestamp=None)
                                                 -> the rows then (floe: pyarrow.Table; Spark: DataFrame)
    rollback_to(session, table, snapshot_id)     -> {"success": True, "table": ..., "rolled_back_to": id}
    resolve_snapshot_as_of(session, table, ts)   -> a snapshot id

`session` is a floe connection (floe.connect()) or a SparkSession whose catalog holds the
table (Spark 3.5 with Iceberg's runtime); with Spark the same calls run as Spark SQL (Iceberg's
procedures, metadata tables and VERSION / TIMESTAMP AS OF), so code written against floe runs
unchanged on a Spark cluster. `table` is the table's name as SQL writes it ("db.t", or
"lakehouse.db.t" for Spark when the catalog is not the session's current one). Failures
raise: floe's exceptions (floe.NotFound, floe.ValidationError, ...) on floe, Spark's own on
Spark; the argument checks here raise floe.ValidationError on both.

A rollback, as in Iceberg, moves the table's current-snapshot pointer back to an ancestor
and creates no snapshot: the snapshots after it stay (no longer current ancestors) and can
be read or made current again.

Run manifests (floe connections only) record the current snapshot of each table a run reads,
as JSON, so a later run reads exactly the same data:
    build_run_manifest(conn, table), build_multi_table_manifest(conn, tables) -> JSON text
    open_run_manifest(conn, manifest) -> RunManifestReader (a mapping table -> pyarrow.Table)
"""

from __future__ import annotations

import json
import os
import time
from typing import Sequence

from . import _timestamps
from ._floe_engine import FloeEngine
from ._spark_engine import SparkEngine, is_spark_session
from .connection import Connection
from .exceptions import NotFound, ValidationError
from .run_manifest import RunManifestReader

__all__ = [
    "history",
    "snapshot_at",
    "rollback_to",
    "resolve_snapshot_as_of",
    "build_run_manifest",
    "build_multi_table_manifest",
    "open_run_manifest",
    "RunManifestReader",
]


def _engine(session):
    if isinstance(session, Connection):
        return FloeEngine(session)
    if is_spark_session(session):
        return SparkEngine(session)
    raise TypeError(f"Expected a floe connection or a SparkSession, not {type(session).__name__}")


def _connection(conn, function: str) -> Connection:
    if not isinstance(conn, Connection):
        raise TypeError(f"{function} needs a floe connection (floe.connect()), not {type(conn).__name__}")
    return conn


def history(session, table: str) -> dict:
    """Every snapshot of `table`, oldest first: its id, when it was committed (ISO-8601 UTC,
    "2024-01-15T10:30:00.123Z"), the operation, the parent, and whether it is an ancestor of
    (or is) the current snapshot."""
    engine = _engine(session)
    listed = engine.snapshots(table)
    ancestors = {snapshot_id for snapshot_id, _ in engine.ancestors(table)}
    snapshots = [
        {
            "snapshot_id": snapshot_id,
            "committed_at": _timestamps.iso_z(committed_ms),
            "operation": operation,
            "parent_id": parent_id,
            "is_current_ancestor": snapshot_id in ancestors,
        }
        for snapshot_id, committed_ms, operation, parent_id in listed
    ]
    return {"success": True, "table": table, "snapshots": snapshots}


def snapshot_at(session, table: str, snapshot_id: int | None = None, timestamp=None):
    """The rows of `table` at exactly one point in time: the snapshot `snapshot_id`, or the
    snapshot that was current at `timestamp` (ISO-8601 text, read as UTC when it has no zone;
    a datetime, naive read as UTC; or epoch milliseconds). A pyarrow Table on floe, a Spark
    DataFrame on Spark."""
    if snapshot_id is not None and timestamp is not None:
        raise ValidationError(f"Can specify only one of snapshot-id ({snapshot_id}), as-of-timestamp ({timestamp})")
    if snapshot_id is None and timestamp is None:
        raise ValidationError("snapshot_at needs one of snapshot_id or timestamp")
    engine = _engine(session)
    if snapshot_id is not None:
        return engine.read(table, snapshot_id=int(snapshot_id))
    return engine.read(table, micros=_timestamps.to_micros(timestamp))


def rollback_to(session, table: str, snapshot_id: int) -> dict:
    """Makes the ancestor `snapshot_id` the current snapshot of `table` again (Iceberg's
    rollback_to_snapshot: the pointer moves, no snapshot is created, no file is touched)."""
    if snapshot_id is None:
        raise ValidationError("rollback_to needs a snapshot_id")
    current = _engine(session).rollback(table, int(snapshot_id))
    return {"success": True, "table": table, "rolled_back_to": current}


def resolve_snapshot_as_of(session, table: str, ts) -> int:
    """The newest snapshot committed at or before `ts` among the current snapshot and its
    ancestors (so snapshots a rollback left behind are never chosen). Raises floe.NotFound
    ("Cannot find a snapshot older than ...") when there is none."""
    micros = _timestamps.to_micros(ts)
    for snapshot_id, committed_ms in _engine(session).ancestors(table):  # newest first
        if committed_ms * 1000 <= micros:
            return snapshot_id
    raise NotFound(f"Cannot find a snapshot older than {_timestamps.iso_instant(micros // 1000)}")


def build_run_manifest(conn: Connection, table: str) -> str:
    """The run manifest of one table: its current snapshot (JSON text; see
    build_multi_table_manifest)."""
    return build_multi_table_manifest(conn, [table])


def build_multi_table_manifest(conn: Connection, tables: Sequence[str]) -> str:
    """The run manifest of `tables`, one snapshot id each, as JSON text:
        {"run_started_at": "2024-01-15T10:30:00.123+00:00", "run_started_at_ms": 1705314600123,
         "sources": {"lakehouse.db.orders": {"snapshot_id": 123, "committed_at": "2024-01-15 10:29:58.1",
                     "committed_at_ms": 1705314598100, "table_uuid": "..."}}}
    Keep it beside what the run produced; open_run_manifest reads the same data later. A
    table without a snapshot, or named twice, raises floe.ValidationError or floe.NotFound."""
    if isinstance(tables, str):
        raise ValidationError(f"tables must be a list of table names, not the string {tables!r}")
    conn = _connection(conn, "build_multi_table_manifest")
    return conn._live().build_run_manifest(list(tables), int(time.time() * 1000))


def open_run_manifest(conn: Connection, manifest) -> RunManifestReader:
    """The tables of a run manifest, each read at exactly its recorded snapshot. `manifest` is
    the JSON text, the parsed dict, or the path of a file holding it. Checks at once that every
    table is still the one recorded (same table uuid) and every snapshot still exists (else
    floe.NotFound / floe.ValidationError naming the table); reading is lazy: see
    RunManifestReader."""
    conn = _connection(conn, "open_run_manifest")
    if isinstance(manifest, dict):
        text = json.dumps(manifest)
    elif isinstance(manifest, os.PathLike) or (isinstance(manifest, str) and not manifest.lstrip().startswith("{")):
        with open(manifest, encoding="utf-8") as f:
            text = f.read()
    elif isinstance(manifest, str):
        text = manifest
    else:
        raise TypeError(f"A run manifest is JSON text, a dict or a file path, not {type(manifest).__name__}")
    sources = conn._live().resolve_run_manifest(text)
    return RunManifestReader(conn, json.loads(text), sources)
