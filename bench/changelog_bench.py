"""The change feed over many snapshots: a table of --rows rows, then --snapshots commits that
each update 1% of its rows, copy-on-write (and, for floe alone, merge-on-read, which Spark's
changelog refuses). Times whole processes: floe's `CALL create_changelog_view` and a count of
the view, and the same in Spark 3.5 with Iceberg 1.10 on the same catalog (a new JVM, as a job
would start it). Both must count the same rows.

Run after scripts/setup-spark.sh:
    build-spark/venv/bin/python bench/changelog_bench.py build/floe [--rows 1000000]
        [--snapshots 10] [--runs 3]"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SPARK_JOB = """
import sys
sys.path.insert(0, {scripts!r})
from spark_lakehouse import lakehouse_session
spark = lakehouse_session(app="changelog-bench", classpath={classpath!r}, catalog_db={catalog!r},
                          warehouse={warehouse!r}, local_dir={local!r},
                          java_options=("-XX:+UseSerialGC",), settings={{"spark.sql.adaptive.enabled": "false"}})
spark.sql("CALL lakehouse.system.create_changelog_view(table => 'db.{table}', changelog_view => 'v')").collect()
print(spark.sql("SELECT count(*) FROM v").first()[0])
spark.stop()
"""


def run(cmd, env):
    """Seconds and stdout of a whole process."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    return took, proc.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("floe")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--snapshots", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    floe = os.path.realpath(args.floe)
    classpath = (ROOT / "build-spark" / "classpath").read_text().strip()
    with tempfile.TemporaryDirectory(prefix="floe-changelog-bench-") as d:
        env = dict(os.environ, FLOE_CATALOG=f"{d}/catalog.db", FLOE_WAREHOUSE=f"{d}/wh")
        job = Path(d) / "spark_job.py"
        setup = ["-c", "CREATE NAMESPACE db"]
        for table, mode in (("cow", "copy-on-write"), ("mor", "merge-on-read")):
            setup += ["-c", f"CREATE TABLE db.{table} (id BIGINT, v BIGINT, pad STRING) USING iceberg "
                            f"TBLPROPERTIES ('write.update.mode' = '{mode}')",
                      "-c", f"INSERT INTO db.{table} SELECT id, 0, concat('row-', id) FROM range({args.rows})"]
            for k in range(args.snapshots):
                setup += ["-c", f"UPDATE db.{table} SET v = v + 1 WHERE id % 100 = {k}"]
        start = time.perf_counter()
        subprocess.run([floe, "sql", "-q", *setup], env=env, check=True)
        print(f"{args.rows} rows, {args.snapshots} updates of 1% each, copy-on-write and merge-on-read: "
              f"written in {time.perf_counter() - start:.1f} s")
        expected = args.rows + args.snapshots * 2 * (args.rows // 100)
        print(f"{'what':<52} {'min s':>7} {'median s':>9} {'rows':>10}")
        cases = []
        for table in ("cow", "mor"):
            cases.append((f"floe create_changelog_view + count ({table})",
                          [floe, "sql", "-q", "--format", "csv", "-c",
                           f"CALL lakehouse.system.create_changelog_view(table => 'db.{table}', changelog_view => 'v')",
                           "-c", "SELECT count(*) FROM v"], table))
        job.write_text(SPARK_JOB.format(scripts=str(ROOT / "scripts"), classpath=classpath,
                                        catalog=f"{d}/catalog.db", warehouse=f"{d}/wh", local=f"{d}/spark-local",
                                        table="cow"))
        cases.append(("Spark create_changelog_view + count (cow)", [sys.executable, str(job)], "cow"))
        for what, cmd, table in cases:
            times, out = [], ""
            for _ in range(args.runs):
                took, out = run(cmd, env)
                times.append(took)
            rows = int(out.strip().splitlines()[-1])
            assert rows == expected, (what, rows, expected)
            print(f"{what:<52} {min(times):>7.2f} {statistics.median(times):>9.2f} {rows:>10}")


if __name__ == "__main__":
    main()
