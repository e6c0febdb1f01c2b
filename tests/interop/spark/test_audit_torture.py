"""Seven floe processes (appends, overwrites, tags, rollbacks) and Spark appending, all at
once, to one table of a JDBC catalog with floe's audit trigger, on SQLite and on
PostgreSQL. Afterwards floe_torture verifies every snapshot row by row and every
acknowledged change, including Spark's, and that the audit log holds exactly one row per
pointer move in the catalog's order, its chain of metadata files ending with the table's
metadata log; and floe names each of Spark's commits as Spark's append."""

import os
import subprocess

import pytest
from pyspark.sql.types import IntegerType, LongType, StructField, StructType

from spark_lakehouse import jdbc_catalog_settings

from .support import ROOT, Floe

TORTURE = ROOT / "build" / "tests" / "floe_torture"
FLOE_WRITERS = 7
COMMITS = 40
SPARK_ID_BASE = 9_000_000  # floe's writers use ids below 1,000,000
ROWS = StructType([StructField("id", LongType(), False), StructField("writer", IntegerType())])


@pytest.fixture(params=["sqlite", "postgresql"])
def torture_catalog(request, spark, tmp_path):
    """A fresh catalog holding db.t (ids 0..9) made by floe_torture, open in Spark as
    `torture_sqlite` or `torture_postgresql`, and the environment floe's processes share."""
    if not TORTURE.exists():
        pytest.fail(f"{TORTURE} is missing; build it: scripts/build.sh release")
    warehouse = tmp_path / "wh"
    # A Spark session keeps a catalog once opened: each run has a name of its own.
    name = f"torture_{request.param}"
    env = dict(os.environ, FLOE_TORTURE_CATALOG_NAME=name, FLOE_TORTURE_WAREHOUSE=str(warehouse))

    def open_in_spark(catalog):
        for key, value in jdbc_catalog_settings(name, catalog, warehouse).items():
            spark.conf.set(key, value)
        spark.conf.set(f"spark.sql.catalog.{name}.cache-enabled", "false")
        spark.sql(f"SHOW NAMESPACES IN {name}").collect()

    args = [str(TORTURE), "prepare", str(tmp_path)]
    if request.param == "postgresql":
        args += ["--catalog", request.getfixturevalue("postgres").uri()]
    else:
        # Spark creates the SQLite file's tables: Iceberg's JdbcCatalog, opening tables that
        # already exist, keeps a read transaction open on its connection, and then fails its
        # commits with SQLITE_BUSY_SNAPSHOT once anyone else has written (see conftest.py).
        open_in_spark(tmp_path / "catalog.db")
    made = subprocess.run(args, capture_output=True, text=True, env=env)
    assert made.returncode == 0, made.stderr
    catalog = made.stdout.strip()
    if request.param == "postgresql":
        open_in_spark(catalog)
    return name, catalog, tmp_path, env


def spark_append(spark, table: str, ids: list[int], batch: int) -> int:
    """Appends `ids` as Spark's rows; returns the snapshot that did it, found by the property
    the commit carries."""
    mark = f"spark-{batch}"
    (spark.createDataFrame([(i, -2) for i in ids], ROWS).writeTo(table)
     .option("snapshot-property.floe-torture-batch", mark).append())
    found = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots "
                      f"WHERE summary['floe-torture-batch'] = '{mark}'").collect()
    assert len(found) == 1, found
    return found[0][0]


def test_floe_and_spark_writers_leave_one_audit_row_per_move(spark, torture_catalog):
    name, catalog, work, env = torture_catalog
    floe = Floe(catalog, work / "wh", work, catalog_name=name)

    spark_log = open(work / "spark.log", "w")
    spark_snapshots = []

    def append_by_spark():
        batch = len(spark_snapshots)
        ids = [SPARK_ID_BASE + batch * 10 + k for k in range(2)]
        spark_log.write(f"try append {','.join(map(str, ids))}\n")
        spark_log.flush()
        snapshot = spark_append(spark, f"{name}.db.t", ids, batch)
        spark_snapshots.append(snapshot)
        spark_log.write(f"ack append {snapshot} {','.join(map(str, ids))}\n")
        spark_log.flush()

    append_by_spark()  # Spark's first write plans its job slowly: before the writers start
    logs = [work / f"writer-{w}.log" for w in range(FLOE_WRITERS)]
    writers = [subprocess.Popen([str(TORTURE), "writer", catalog, str(w), str(COMMITS), str(log)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
               for w, log in enumerate(logs)]
    # Then Spark appends for as long as the floe writers run (at least five times in all).
    while len(spark_snapshots) < 5 or (len(spark_snapshots) < 60 and any(w.poll() is None for w in writers)):
        append_by_spark()
    spark_log.close()
    for w in writers:
        _, err = w.communicate(timeout=600)
        assert w.returncode == 0, err

    verified = subprocess.run([str(TORTURE), "verify", catalog, *map(str, logs), spark_log.name],
                              capture_output=True, text=True, env=env)
    assert verified.returncode == 0, verified.stderr + verified.stdout
    assert "the audit log holds one row for each of the" in verified.stdout, verified.stdout

    # floe names each of Spark's commits: one commit row, an append by Spark, moving main.
    entries = floe.audit("db.t")
    moves = [e for e in entries if e["kind"] != "refused"]
    for snapshot in spark_snapshots:
        rows = [e for e in moves if e["snapshot_id"] == snapshot and e["kind"] == "commit"]
        assert len(rows) == 1, (snapshot, rows)
        assert (rows[0]["operation"], rows[0]["client"]) == ("append", "spark"), rows[0]
        assert [(r["name"], r["to_snapshot_id"]) for r in rows[0]["refs"]] == [("main", snapshot)], rows[0]
    # The writers really were concurrent: floe's moves lie between Spark's first and last.
    spark_at = [i for i, e in enumerate(moves) if e["snapshot_id"] in spark_snapshots and e["kind"] == "commit"]
    between = [e for e in moves[spark_at[0]:spark_at[-1]] if e["client"] != "spark"]
    assert between, "no floe commit landed between Spark's first and last append"
