"""`floe audit` over a large audit log: how long the first page (50 rows, newest first) takes,
for the whole catalog and for one table, with a million rows in the log. The rows are written
straight into the SQLite catalog's floe_audit_log (a thousand tables' changes, one table's
among them every thousandth row); times are whole `floe` processes, so the process start is
timed too (`floe --version`, beside them).

Usage: .venv/bin/python bench/audit_log_bench.py build/floe [--rows 1000000] [--runs 7]"""

import argparse
import os
import sqlite3
import statistics
import subprocess
import tempfile
import time


def timed(cmd, env, runs):
    took = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        took.append((time.perf_counter() - start) * 1000)
        assert proc.returncode == 0, proc.stderr
    return min(took), statistics.median(took), proc.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("floe")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    floe = os.path.realpath(args.floe)
    with tempfile.TemporaryDirectory(prefix="floe-audit-bench-") as d:
        env = dict(os.environ, FLOE_CATALOG=f"{d}/catalog.db", FLOE_WAREHOUSE=f"{d}/wh")
        subprocess.run([floe, "sql", "-q", "-c", "CREATE NAMESPACE db",
                        "-c", "CREATE TABLE db.t (id BIGINT) USING iceberg",
                        "-c", "INSERT INTO db.t VALUES (1)"], env=env, check=True)
        db = sqlite3.connect(f"{d}/catalog.db")
        columns = [r[1] for r in db.execute("PRAGMA table_info(floe_audit_log)") if r[1] != "seq"]
        template = dict(zip(columns, db.execute(
            f"SELECT {', '.join(columns)} FROM floe_audit_log ORDER BY seq DESC LIMIT 1").fetchone()))
        start = time.perf_counter()

        def rows():
            for i in range(args.rows):
                row = dict(template)
                row["table_name"] = "t" if i % 1000 == 0 else f"t{i % 1000}"
                row["at_ms"] = template["at_ms"] + i
                yield tuple(row[c] for c in columns)

        db.executemany(f"INSERT INTO floe_audit_log ({', '.join(columns)}) VALUES "
                       f"({', '.join('?' for _ in columns)})", rows())
        db.commit()
        db.close()
        print(f"wrote {args.rows} audit-log rows in {time.perf_counter() - start:.1f} s")
        print(f"{'what':<44} {'min ms':>8} {'median ms':>10}")
        for what, cmd in [("floe --version (process start)", [floe, "--version"]),
                          ("floe audit (catalog, first 50)", [floe, "audit"]),
                          ("floe audit db.t (one table, first 50)", [floe, "audit", "db.t"]),
                          ("floe audit db.t --json (first 50)", [floe, "audit", "db.t", "--json"])]:
            low, mid, out = timed(cmd, env, args.runs)
            if what.startswith("floe audit"):
                assert len([line for line in out.splitlines() if line.startswith("|")]) >= 50 or \
                    out.count('"seq"') == 50, out[:500]
            print(f"{what:<44} {low:8.1f} {mid:10.1f}")


if __name__ == "__main__":
    main()
