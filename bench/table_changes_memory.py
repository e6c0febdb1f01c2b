"""Peak memory of table_changes in net mode over a large table: --rows rows (id, v, pad) in
files of about 1M rows, then an UPDATE of 1% of them spread over every file (so every file is
rewritten and both states are read in full), then, in a fresh process each,
    SELECT _change_type, count(*) FROM table_changes('db.big', <before>, NULL,
        mode => 'net', identifier_columns => array('id')) GROUP BY _change_type
for each --budget (floe.changes.memory-budget). Reports seconds, peak RSS and the spill
directory's peak size; the counts must be 1% of the rows as UPDATE_BEFORE and UPDATE_AFTER.

    .venv/bin/python bench/table_changes_memory.py build/floe [--rows 100000000]
        [--budgets 256MB,1GB] [--copy-on-write|--merge-on-read]"""

import argparse
import os
import resource
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path


def floe_sql(floe, env, *statements, capture=False):
    cmd = [floe, "sql", "-q", "--format", "csv"]
    for s in statements:
        cmd += ["-c", s]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def directory_bytes(path: Path) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("floe")
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--budgets", default="256MB,1GB")
    parser.add_argument("--mode", choices=["copy-on-write", "merge-on-read"], default="copy-on-write")
    parser.add_argument("--dir", default=None, help="where the table goes (default: a temporary directory)")
    args = parser.parse_args()
    floe = os.path.realpath(args.floe)
    d = Path(args.dir or tempfile.mkdtemp(prefix="floe-changes-memory-"))
    d.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, FLOE_CATALOG=f"{d}/catalog.db", FLOE_WAREHOUSE=f"{d}/wh")
    spill = d / "spill"
    start = time.perf_counter()
    statements = ["CREATE NAMESPACE db",
                  "CREATE TABLE db.big (id BIGINT, v BIGINT, pad STRING) USING iceberg "
                  f"TBLPROPERTIES ('write.update.mode' = '{args.mode}')"]
    chunk = 1_000_000
    for first in range(0, args.rows, chunk * 10):
        n = min(chunk * 10, args.rows - first)
        statements.append(f"INSERT INTO db.big SELECT id, 0, concat('row-', id) FROM range({first}, {first + n})")
    floe_sql(floe, env, *statements)
    before = floe_sql(floe, env, "SELECT snapshot_id FROM db.big.refs WHERE name = 'main'").split()[-1]
    floe_sql(floe, env, "UPDATE db.big SET v = 1 WHERE id % 100 = 7")
    print(f"table of {args.rows:,} rows ({args.mode}) and its update: {time.perf_counter() - start:.0f} s, "
          f"{directory_bytes(d / 'wh') / 2**30:.1f} GiB")

    for budget in args.budgets.split(","):
        spill.mkdir(exist_ok=True)
        peak_spill = [0]
        done = threading.Event()

        def watch():
            while not done.wait(0.5):
                peak_spill[0] = max(peak_spill[0], directory_bytes(spill))

        watcher = threading.Thread(target=watch)
        watcher.start()
        query = (f"SET floe.changes.memory-budget = '{budget}'", f"SET floe.changes.spill-dir = '{spill}'",
                 f"SELECT _change_type, count(*) AS n FROM table_changes('db.big', {before}, NULL, mode => 'net', "
                 "identifier_columns => array('id')) GROUP BY _change_type ORDER BY _change_type")
        cmd = ["/usr/bin/time", "-f", "%M", floe, "sql", "-q", "--format", "csv"]
        for s in query:
            cmd += ["-c", s]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        took = time.perf_counter() - t0
        done.set()
        watcher.join()
        assert proc.returncode == 0, proc.stderr[-3000:]
        peak_kib = int(proc.stderr.strip().splitlines()[-1])
        counts = {k: v for k, v in (line.split(",") for line in proc.stdout.split())
                  if k.startswith("UPDATE_") or k in ("INSERT", "DELETE")}
        want = str(args.rows // 100)
        assert counts == {"UPDATE_AFTER": want, "UPDATE_BEFORE": want}, counts
        print(f"budget {budget}: {took:.1f} s, peak RSS {peak_kib / 1024:.0f} MiB, "
              f"spill peak {peak_spill[0] / 2**20:.0f} MiB, {counts}")
        shutil.rmtree(spill, ignore_errors=True)
    if not args.dir:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
