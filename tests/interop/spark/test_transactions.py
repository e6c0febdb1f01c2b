"""floe's multi-table transactions as Spark reads them: floe commits runs of three tables, each
run one BEGIN ... COMMIT writing the run's id into all three, while the suite's Spark session
polls the tables and joins them on the run id. As of a commit time the three never show a
mixed run; read current, table after table, each shows every run the one read before it
showed. How the polls are built, and why they read as of a commit time, is in
tests/interop/run_consistency.py. The suite's catalog is the SQLite file here, and a
PostgreSQL database with its warehouse in S3 when scripts/test.sh runs the suite again with
FLOE_SPARK_LAKEHOUSE=postgresql+s3."""

from __future__ import annotations

import floe

from .support import Floe  # noqa: I001 - puts tests/interop, where run_consistency lives, on the path
from run_consistency import Peer, Writer, check_polls, create_tables, poll_while_writing, timestamp_text


class SparkPeer(Peer):
    def __init__(self, spark, lakehouse: Floe, ns: str):
        self.spark = spark
        self.prefix = f"{lakehouse.catalog_name}.{ns}"

    def relation(self, table, as_of_ms=None):
        # A timestamp literal is in the session time zone, UTC.
        at = "" if as_of_ms is None else f" TIMESTAMP AS OF TIMESTAMP '{timestamp_text(as_of_ms)}'"
        return f"{self.prefix}.{table}{at}"

    def history(self, table):
        return f"{self.prefix}.{table}.history"

    def rows(self, sql):
        return [tuple(r) for r in self.spark.sql(sql).collect()]


def test_spark_never_sees_a_mixed_run(spark, lakehouse, ns):
    def connect():
        # On S3 the connection takes the server's AWS_* settings from the environment.
        return floe.connect(catalog=lakehouse.catalog, warehouse=lakehouse.warehouse,
                            catalog_name=lakehouse.catalog_name)

    with connect() as conn:
        create_tables(conn, ns)
    peer = SparkPeer(spark, lakehouse, ns)
    polls, runs = poll_while_writing(peer, Writer(connect, ns))
    check_polls(peer, polls, runs)
