"""Queries larger than a memory limit: floe (`floe sql --memory-limit L`) beside DuckDB
(`SET memory_limit = L`, `threads = 2`, a `temp_directory` to spill to), each case run by both
engines one after the other, each run a fresh process. Both spill to a temp directory of the
run's (floe's `floe.temp_directory`) when a statement outgrows the limit. Cases (row counts times --scale):

- group_by_100M, group_by_400M: `SELECT id, count(*) FROM range(N) GROUP BY id ORDER BY id
  LIMIT 1` over N distinct keys (DuckDB: `range(N) t(id)`);
- order_by_100M: `SELECT count(*), min(id) FROM (SELECT id FROM range(N) ORDER BY id DESC)`, a
  full sort of N rows with a one-row answer (both engines keep the ORDER BY);
- join_50M: a table `db.t (id BIGINT, v BIGINT)` written by floe into a catalog and warehouse
  in the run's temporary directory: N rows from range(N) (snapshot 1), then N/10 more
  (snapshot 2); floe joins `db.t VERSION AS OF <s1> a JOIN db.t VERSION AS OF <s2> b ON
  a.id = b.id`, DuckDB the same Parquet files floe wrote for each snapshot through
  read_parquet. Both must count N.

floe reads the units of a limit as powers of 1024 (`2GB` is 2 GiB), DuckDB as powers of 1000
(`2GB` is 1.86 GiB): DuckDB is given the same number of bytes (`2GiB`).

Each run reports its outcome (ok, out of memory, timeout, or the error's first 100 characters;
an answer other than the expected one is reported too), its wall time from spawn to exit, the
child's peak RSS (ru_maxrss from os.wait4, so each child is measured alone; DuckDB's includes
its Python interpreter), and the largest size the engine's temp directory reached (sampled
every 0.2 s; floe's must be empty when it exits).

Usage: .venv/bin/python bench/memory_limit_bench.py build/floe [--limit 2GB] [--scale 1.0]
           [--cases group_by_100M,group_by_400M,order_by_100M,join_50M] [--timeout 600]
           [--json build/bench-results/memory_limit.json] [--dir DIR]
Prints a Markdown table and writes the runs to --json (none with --json '')."""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from table_changes_memory import directory_bytes  # a spill directory's size, as that bench watches it

ROOT = Path(__file__).resolve().parents[1]
CASES = ["group_by_100M", "group_by_400M", "order_by_100M", "join_50M"]
BASE_ROWS = {"group_by_100M": 100_000_000, "group_by_400M": 400_000_000,
             "order_by_100M": 100_000_000, "join_50M": 50_000_000}

# The DuckDB child: one connection, the limit, two threads, a temp directory, one query; its
# rows as CSV on stdout, an error on stderr and exit status 1.
DUCKDB_CHILD = r"""
import sys, duckdb
query, limit, threads, temp = sys.argv[1:5]
try:
    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{limit}'")
    con.execute(f"SET threads = {int(threads)}")
    con.execute(f"SET temp_directory = '{temp}'")
    for row in con.sql(query).fetchall():
        print(",".join(str(v) for v in row))
except Exception as e:
    print(f"{type(e).__name__}: {e}", file=sys.stderr)
    sys.exit(1)
"""


def duckdb_limit(limit):
    """floe's limit in DuckDB's spelling: its units are powers of 1024, as floe's are."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*([KMGT])i?B\s*", limit, re.IGNORECASE)
    return f"{m.group(1)}{m.group(2).upper()}iB" if m else limit


def measure(command, cwd, timeout, watch_dir=None):
    """Runs command to its exit (or kills it after timeout seconds): exit status (None on a
    timeout), wall seconds, peak RSS in bytes, stdout, stderr, and the largest size watch_dir
    reached."""
    out_path, err_path = Path(cwd) / "child.out", Path(cwd) / "child.err"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err, start_new_session=True)
        peak_dir, status, rusage, timed_out = 0, None, None, False
        next_sample = 0.0
        while True:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            now = time.perf_counter()
            if watch_dir is not None and now >= next_sample:
                peak_dir = max(peak_dir, directory_bytes(watch_dir))
                next_sample = now + 0.2
            if now - t0 > timeout and not timed_out:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
            time.sleep(0.02)
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"exit": None if timed_out else proc.returncode, "seconds": wall,
            "peak_rss": rusage.ru_maxrss * 1024, "stdout": out_path.read_text(),
            "stderr": err_path.read_text(), "peak_temp": peak_dir}


def outcome(run, expected):
    if run["exit"] is None:
        return "timeout"
    if run["exit"] != 0:
        text = " ".join(run["stderr"].split())
        if "out of memory" in text.lower():
            return "out of memory"
        return "error: " + text[:100]
    lines = [line for line in run["stdout"].splitlines() if line.strip()]
    answer = lines[-1] if lines else ""
    return "ok" if answer == expected else f"wrong answer: {answer[:100]}"


def floe_sql(floe, options, cwd, *statements):
    command = [floe, "sql", *options, "-q", "--format", "csv"]
    for s in statements:
        command += ["-c", s]
    p = subprocess.run(command, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{statements}: {p.stderr[-2000:]}")
    return p.stdout


def parquet_files(warehouse):
    return sorted(glob.glob(f"{warehouse}/**/*.parquet", recursive=True))


def prepare_join(floe, options, d, n):
    """db.t with n rows (snapshot 1), then n / 10 more (snapshot 2): the two snapshot ids and
    the data files of each."""
    t0 = time.perf_counter()
    floe_sql(floe, options, d, "CREATE NAMESPACE db", "CREATE TABLE db.t (id BIGINT, v BIGINT)",
             f"INSERT INTO db.t SELECT id, id * 2 FROM range({n})")
    files1 = parquet_files(d / "wh")
    floe_sql(floe, options, d, f"INSERT INTO db.t SELECT id, id * 2 FROM range({n}, {n + n // 10})")
    files2 = parquet_files(d / "wh")
    ids = floe_sql(floe, options, d, "SELECT snapshot_id FROM db.t.snapshots ORDER BY committed_at")
    s1, s2 = [int(x) for x in ids.splitlines()[1:]]
    print(f"join_50M: db.t of {n:,} rows then {n // 10:,} more, written in "
          f"{time.perf_counter() - t0:.0f} s ({len(files1)} and {len(files2)} data files)",
          file=sys.stderr)
    return s1, s2, files1, files2


def queries(case, n, join_setup):
    """floe's query, DuckDB's, and the answer both must print (CSV)."""
    if case.startswith("group_by"):
        return (f"SELECT id, count(*) FROM range({n}) GROUP BY id ORDER BY id LIMIT 1",
                f"SELECT id, count(*) FROM range({n}) t(id) GROUP BY id ORDER BY id LIMIT 1",
                "0,1")
    if case.startswith("order_by"):
        return (f"SELECT count(*), min(id) FROM (SELECT id FROM range({n}) ORDER BY id DESC)",
                f"SELECT count(*), min(id) FROM (SELECT id FROM range({n}) t(id) "
                f"ORDER BY id DESC)",
                f"{n},0")
    s1, s2, files1, files2 = join_setup
    return (f"SELECT count(*) FROM db.t VERSION AS OF {s1} a JOIN db.t VERSION AS OF {s2} b "
            f"ON a.id = b.id",
            f"SELECT count(*) FROM read_parquet({files1!r}) a JOIN read_parquet({files2!r}) b "
            f"ON a.id = b.id",
            f"{n}")


def mib(b):
    return f"{b / 2**20:,.0f} MiB"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("floe")
    parser.add_argument("--limit", default="2GB", help="memory limit of both engines")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="row counts times this (0.25: 25M, 100M, 25M, 12.5M rows)")
    parser.add_argument("--cases", default=",".join(CASES), help="of " + ",".join(CASES))
    parser.add_argument("--timeout", type=float, default=600, help="seconds per run")
    parser.add_argument("--threads", type=int, default=2, help="DuckDB's threads")
    parser.add_argument("--json", default=str(ROOT / "build/bench-results/memory_limit.json"),
                        help="where the runs go ('' for nowhere)")
    parser.add_argument("--dir", default=None,
                        help="working directory (default: a temporary one, removed after)")
    args = parser.parse_args()
    floe = str(Path(args.floe).resolve())
    cases = [c for c in args.cases.split(",") if c]
    for c in cases:
        if c not in CASES:
            parser.error(f"unknown case {c}")

    d = Path(args.dir or tempfile.mkdtemp(prefix="floe-memory-limit-")).resolve()
    d.mkdir(parents=True, exist_ok=True)
    options = ["--catalog", str(d / "catalog.db"), "--warehouse", str(d / "wh")]
    python = sys.executable
    results = []
    try:
        for case in cases:
            n = int(round(BASE_ROWS[case] * args.scale))
            join_setup = prepare_join(floe, options, d, n) if case == "join_50M" else None
            floe_q, duck_q, expected = queries(case, n, join_setup)
            for engine in ["floe", "duckdb"]:
                if engine == "floe":
                    temp = d / f"floe-temp-{case}"
                    temp.mkdir(exist_ok=True)
                    command = [floe, "sql", *options, "--memory-limit", args.limit,
                               "--format", "csv", "-c", f"SET floe.temp_directory = '{temp}'",
                               "-c", floe_q]
                    run = measure(command, d, args.timeout, watch_dir=temp)
                    run["temp_left"] = directory_bytes(temp)
                    shutil.rmtree(temp, ignore_errors=True)
                else:
                    temp = d / f"duckdb-temp-{case}"
                    temp.mkdir(exist_ok=True)
                    command = [python, "-c", DUCKDB_CHILD, duck_q, duckdb_limit(args.limit),
                               str(args.threads), str(temp)]
                    run = measure(command, d, args.timeout, watch_dir=temp)
                    shutil.rmtree(temp, ignore_errors=True)
                run.update(case=case, rows=n, engine=engine, limit=args.limit,
                           query=floe_q if engine == "floe" else duck_q,
                           outcome=outcome(run, expected))
                if run.get("temp_left"):
                    run["outcome"] += f" (left {mib(run['temp_left'])} in its temp directory)"
                run["stderr"] = run["stderr"][-2000:]
                results.append(run)
                print(f"{case} {engine}: {run['outcome']}, {run['seconds']:.1f} s, "
                      f"{mib(run['peak_rss'])}", file=sys.stderr)
    finally:
        if args.dir is None:
            shutil.rmtree(d, ignore_errors=True)

    print(f"\nMemory limit {args.limit} (DuckDB: {duckdb_limit(args.limit)}), "
          f"scale {args.scale:g}, DuckDB {args.threads} threads\n")
    print("| case | rows | engine | outcome | seconds | peak RSS "
          "| temp dir at its largest |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        temp = mib(r["peak_temp"])
        print(f"| {r['case']} | {r['rows']:,} | {'floe' if r['engine'] == 'floe' else 'DuckDB'} "
              f"| {r['outcome']} | {r['seconds']:.1f} | {mib(r['peak_rss'])} | {temp} |")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(
            {"limit": args.limit, "duckdb_limit": duckdb_limit(args.limit), "scale": args.scale,
             "threads": args.threads,
             "timeout": args.timeout, "runs": results}, indent=2) + "\n")
        print(f"\nruns written to {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
