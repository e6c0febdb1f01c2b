"""The change feed over many snapshots: a table of --rows rows (`id`, `v`, a short string)
partitioned by truncate(rows / 100, id), so that its rows lie in 100 files by id, then
--snapshots UPDATEs of 1% of its rows each: a contiguous id slice, half a file off the file
boundaries (slice k is ids [k + 1/2, k + 3/2) hundredths of --rows, wrapping round), so each
UPDATE touches two files and, copy-on-write, writes half of each again unchanged. The same
table merge-on-read too. Times whole processes over the UPDATEs' snapshots (the range starts
after the load): floe's `CALL create_changelog_view` and a count of the view, and the same in
Spark 3.5 with Iceberg 1.10 on the same catalog (a new JVM, as a job would start it; copy-on-
write only: Spark's changelog refuses delete files). Every count must be --snapshots x 2 x 1%
of --rows. Prints the setup time, and each case's min and median seconds and peak RSS (the
largest sum over the process tree, sampled every 20 ms, or GNU time's figure if larger).

Run after scripts/setup-spark.sh:
    build-spark/venv/bin/python bench/changelog_bench.py build/floe [--rows 10000000]
        [--snapshots 100] [--runs 2] [--spark-memory 1g]"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SPARK_JOB = """
import sys
sys.path.insert(0, {scripts!r})
from spark_lakehouse import lakehouse_session
spark = lakehouse_session(app="changelog-bench", classpath={classpath!r}, catalog_db={catalog!r},
                          warehouse={warehouse!r}, local_dir={local!r}, memory={memory!r},
                          java_options=("-XX:+UseSerialGC",), settings={{"spark.sql.adaptive.enabled": "false"}})
spark.sql({call!r}).collect()
print(spark.sql("SELECT count(*) FROM v").first()[0])
spark.stop()
"""


def tree_rss(pid: int) -> int:
    """Bytes resident in `pid` and its descendants now."""
    total, frontier, page = 0, [pid], os.sysconf("SC_PAGE_SIZE")
    while frontier:
        p = frontier.pop()
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * page
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    frontier += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            pass  # gone meanwhile
    return total


def run(cmd, env, scratch):
    """Seconds, peak RSS in MB and stdout of a whole process."""
    rss_file = Path(scratch) / "time.rss"
    start = time.perf_counter()
    proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", str(rss_file), *cmd], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak, done = [0], threading.Event()

    def sample():
        while not done.wait(0.02):
            peak[0] = max(peak[0], tree_rss(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    took = time.perf_counter() - start
    done.set()
    sampler.join()
    assert proc.returncode == 0, err[-3000:]
    kib = int(rss_file.read_text().split()[-1])
    return took, max(peak[0], kib * 1024) / 2**20, out


def slice_predicate(k: int, rows: int) -> str:
    """Slice k of the UPDATEs: 1% of the ids, from half a file past file k's start."""
    width = rows // 100
    lo = k * width + width // 2
    hi = lo + width
    if hi <= rows:
        return f"id >= {lo} AND id < {hi}"
    return f"id >= {lo} OR id < {hi - rows}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("floe")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--snapshots", type=int, default=100)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--spark-memory", default="1g", help="the Spark driver's memory")
    args = parser.parse_args()
    assert args.rows % 200 == 0 and args.snapshots <= 100, "--rows a multiple of 200, --snapshots at most 100"
    floe = os.path.realpath(args.floe)
    classpath = (ROOT / "build-spark" / "classpath").read_text().strip()
    spark_python = ROOT / "build-spark" / "venv" / "bin" / "python"
    width = args.rows // 100
    with tempfile.TemporaryDirectory(prefix="floe-changelog-bench-") as d:
        env = dict(os.environ, FLOE_CATALOG=f"{d}/catalog.db", FLOE_WAREHOUSE=f"{d}/wh")
        subprocess.run([floe, "sql", "-q", "-c", "CREATE NAMESPACE db"], env=env, check=True)
        start_ids = {}
        for table, mode in (("cow", "copy-on-write"), ("mor", "merge-on-read")):
            setup = ["-c", f"CREATE TABLE db.{table} (id BIGINT, v BIGINT, pad STRING) USING iceberg "
                           f"PARTITIONED BY (truncate({width}, id)) TBLPROPERTIES ('write.update.mode' = '{mode}')",
                     "-c", f"INSERT INTO db.{table} SELECT id, 0, concat('row-', id) FROM range({args.rows})"]
            for k in range(args.snapshots):
                setup += ["-c", f"UPDATE db.{table} SET v = v + 1 WHERE {slice_predicate(k, args.rows)}"]
            start = time.perf_counter()
            subprocess.run([floe, "sql", "-q", *setup], env=env, check=True)
            took = time.perf_counter() - start
            out = subprocess.run([floe, "sql", "-q", "--format", "csv", "-c",
                                  f"SELECT snapshot_id FROM db.{table}.snapshots WHERE parent_id IS NULL"],
                                 env=env, check=True, capture_output=True, text=True).stdout
            start_ids[table] = int(out.split()[-1])
            print(f"{mode}: {args.rows} rows in 100 files, {args.snapshots} UPDATEs of 1% each, "
                  f"written by floe in {took:.1f} s", flush=True)
        expected = args.snapshots * 2 * width

        def call(table):
            return (f"CALL lakehouse.system.create_changelog_view(table => 'db.{table}', changelog_view => 'v', "
                    f"options => map('start-snapshot-id', '{start_ids[table]}'))")

        cases = [(f"floe create_changelog_view + count ({table})",
                  [floe, "sql", "-q", "--format", "csv", "-c", call(table), "-c", "SELECT count(*) FROM v"])
                 for table in ("cow", "mor")]
        job = Path(d) / "spark_job.py"
        job.write_text(SPARK_JOB.format(scripts=str(ROOT / "scripts"), classpath=classpath, catalog=f"{d}/catalog.db",
                                        warehouse=f"{d}/wh", local=f"{d}/spark-local", memory=args.spark_memory,
                                        call=call("cow")))
        cases.append(("Spark create_changelog_view + count (cow)", [str(spark_python), str(job)]))
        times = {what: [] for what, _ in cases}
        peaks = {what: 0.0 for what, _ in cases}
        for _ in range(args.runs):  # the cases take turns
            for what, cmd in cases:
                took, peak, out = run(cmd, env, d)
                rows = int(out.strip().splitlines()[-1])
                assert rows == expected, (what, rows, expected)
                times[what].append(took)
                peaks[what] = max(peaks[what], peak)
                print(f"  {what}: {took:.2f} s, {peak:.0f} MB", flush=True)
        print(f"{'what':<44} {'min s':>7} {'median s':>9} {'peak MB':>8} {'rows':>10}")
        for what, _ in cases:
            print(f"{what:<44} {min(times[what]):>7.2f} {statistics.median(times[what]):>9.2f} "
                  f"{peaks[what]:>8.0f} {expected:>10}")


if __name__ == "__main__":
    main()
