"""floe.iceberg's functions on a pyspark SparkSession (Spark 3.5 with Iceberg's runtime): the
same queries in Spark SQL, through Iceberg's procedures and metadata tables. pyspark is never
imported here; the session brings it."""

from __future__ import annotations

from . import _timestamps
from ._sql_text import sql_string


def is_spark_session(obj) -> bool:
    return hasattr(obj, "sql") and hasattr(obj, "createDataFrame") and hasattr(obj, "conf")


class SparkEngine:
    def __init__(self, spark):
        self.spark = spark

    def catalog_of(self, table: str) -> str:
        """The catalog whose procedures apply to `table`: its first part when that names a
        configured catalog (lakehouse.db.t), else the session's current catalog."""
        first = table.split(".", 1)[0].strip("`")
        if "." in table and self.spark.conf.get(f"spark.sql.catalog.{first}", None):
            return first
        return self.spark.catalog.currentCatalog()

    def snapshots(self, table: str) -> list[tuple[int, int, str, int | None]]:
        rows = self.spark.sql(
            f"SELECT snapshot_id, unix_millis(committed_at) AS committed_ms, operation, parent_id "
            f"FROM {table}.snapshots ORDER BY committed_at"
        ).collect()
        return [(r.snapshot_id, r.committed_ms, r.operation, r.parent_id) for r in rows]

    def ancestors(self, table: str) -> list[tuple[int, int]]:
        rows = self.spark.sql(f"CALL {self.catalog_of(table)}.system.ancestors_of({sql_string(table)})").collect()
        return [(r.snapshot_id, r.timestamp) for r in rows]

    def read(self, table: str, snapshot_id: int | None = None, micros: int | None = None):
        """A Spark DataFrame of the table at a snapshot, or at the snapshot current at an instant."""
        if snapshot_id is not None:
            return self.spark.sql(f"SELECT * FROM {table} VERSION AS OF {int(snapshot_id)}")
        return self.spark.sql(f"SELECT * FROM {table} TIMESTAMP AS OF {_timestamps.sql_literal(micros)}")

    def rollback(self, table: str, snapshot_id: int) -> int:
        rows = self.spark.sql(
            f"CALL {self.catalog_of(table)}.system.rollback_to_snapshot({sql_string(table)}, {int(snapshot_id)})"
        ).collect()
        return rows[0].current_snapshot_id
