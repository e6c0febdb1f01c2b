"""Time travel and rollback through floe's REST catalog client, whole process, against the same
work on floe's SQLite (JDBC) catalog. Three catalogs in one run, each with its own SQLite file
and warehouse:

- JDBC: `--catalog <dir>/catalog.db --warehouse <dir>/wh`, read and written by floe directly;
- floe REST: `floe serve --rest 127.0.0.1:0` over a SQLite catalog of its own, which floe reaches
  as `--catalog rest+http://127.0.0.1:PORT`;
- reference REST: Iceberg's reference RESTCatalogServer (iceberg-open-api 1.10.0, fetched by
  scripts/setup-rest-kit.sh) over a SQLite catalog of its own, the same way.

Each gets the same table, `db.t (id BIGINT, v DOUBLE)` with --snapshots appends of two rows (one
`floe sql -f` process per catalog). Then every timed run is a new `floe` process, as a user runs
it, timed from spawn to exit; the catalogs take turns run by run (each round starts one catalog
further along), after --warmup untimed runs of each operation on each catalog:

- VERSION AS OF:    floe sql -c "SELECT count(*), sum(id) FROM db.t VERSION AS OF <id>"
- TIMESTAMP AS OF:  the same with TIMESTAMP AS OF the commit time of that snapshot
- rollback_to_snapshot: floe sql -c "CALL lakehouse.system.rollback_to_snapshot('db.t', <id>)"
                    from the newest snapshot back to that one;
- set_current_snapshot: the roll forward after it, to the newest snapshot again (timed too, so
                    that every run moves the table and writes a new metadata file);
- floe rollback:    floe rollback db.t --to-snapshot <id> --yes (the preview's diff included),
                    then an untimed set_current_snapshot forward again.

<id> is the snapshot a quarter of the way into the history (`--snapshots` 200: the 50th). Every
time-travel run must answer the count and sum of that snapshot's rows, every call must print the
snapshot ids expected.

Usage: .venv/bin/python bench/rest_client_bench.py build/floe [--runs 20] [--snapshots 200]
           [--warmup 2] [--target 1.5]
Prints a Markdown table (median / p90 ms per catalog, the REST paths' medians over JDBC's) and a
verdict per REST path against --target, and writes the runs to
build/bench-results/rest_client.json."""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from floe_serve import FloeServe  # noqa: E402
from reference_rest_server import REFERENCE_JAR, ReferenceRestServer  # noqa: E402

CATALOGS = ["jdbc", "floe-rest", "reference-rest"]
LABELS = {"jdbc": "JDBC (SQLite)", "floe-rest": "floe REST", "reference-rest": "reference REST"}
OPERATIONS = ["version_as_of", "timestamp_as_of", "rollback_to_snapshot", "set_current_snapshot",
              "floe_rollback"]
OP_LABELS = {
    "version_as_of": "`SELECT count(*), sum(id) ... VERSION AS OF`",
    "timestamp_as_of": "`SELECT count(*), sum(id) ... TIMESTAMP AS OF`",
    "rollback_to_snapshot": "`CALL rollback_to_snapshot` (newest to old)",
    "set_current_snapshot": "`CALL set_current_snapshot` (old to newest)",
    "floe_rollback": "`floe rollback --to-snapshot --yes`",
}


def run(command, expect=None):
    """Runs command to its exit; the wall time in ms. Its output must contain `expect`."""
    t0 = time.perf_counter()
    p = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    took = (time.perf_counter() - t0) * 1000
    if p.returncode != 0 or (expect is not None and expect not in p.stdout):
        raise RuntimeError(f"{' '.join(command)} exited {p.returncode}, expected {expect!r} in "
                           f"its output:\n{p.stdout}\n{p.stderr}")
    return took


class Catalog:
    def __init__(self, name, floe, options):
        self.name, self.floe, self.options = name, floe, options

    def sql(self, *statements, fmt="csv"):
        command = [self.floe, "sql", *self.options, "--format", fmt, "-q"]
        for s in statements:
            command += ["-c", s]
        p = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{self.name}: {statements}: {p.stderr}")
        return p.stdout

    def build(self, directory, snapshots):
        script = Path(directory) / "setup.sql"
        lines = ["CREATE NAMESPACE db;", "CREATE TABLE db.t (id BIGINT, v DOUBLE);"]
        lines += [f"INSERT INTO db.t VALUES ({2 * i}, {i * 0.5}), ({2 * i + 1}, 1.0);"
                  for i in range(snapshots)]
        script.write_text("\n".join(lines) + "\n")
        t0 = time.perf_counter()
        subprocess.run([self.floe, "sql", *self.options, "-q", "-f", str(script)], check=True,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        self.build_s = time.perf_counter() - t0
        # The history in commit order: the parent chain from the newest snapshot back.
        rows = [r.split(",") for r in self.sql(
            "SELECT snapshot_id, parent_id, committed_at FROM db.t.snapshots").splitlines()[1:]]
        by_parent = {parent: (int(sid), ts) for sid, parent, ts in rows}
        self.history, parent = [], ""
        while parent in by_parent:
            self.history.append(by_parent[parent])
            parent = str(self.history[-1][0])
        assert len(self.history) == len(rows) == snapshots, (self.name, len(rows))
        self.newest = self.history[-1][0]

    def commands(self, old, old_ts, expected):
        """The timed command of each operation, the text its output must hold, and the untimed
        command that follows it (or None)."""
        sql = [self.floe, "sql", *self.options, "--format", "csv", "-c"]
        forward = sql + [f"CALL lakehouse.system.set_current_snapshot('db.t', {self.newest})"]
        return {
            "version_as_of": (sql + [f"SELECT count(*), sum(id) FROM db.t VERSION AS OF {old}"],
                              expected, None),
            "timestamp_as_of": (sql + [f"SELECT count(*), sum(id) FROM db.t "
                                       f"TIMESTAMP AS OF '{old_ts}'"], expected, None),
            "rollback_to_snapshot": (
                sql + [f"CALL lakehouse.system.rollback_to_snapshot('db.t', {old})"],
                f"{self.newest},{old}", None),
            "set_current_snapshot": (forward, f"{old},{self.newest}", None),
            "floe_rollback": ([self.floe, "rollback", *self.options, "db.t", "--to-snapshot",
                               str(old), "--yes"],
                              f"Rolled back lakehouse.db.t from {self.newest} to {old}.",
                              (forward, f"{old},{self.newest}")),
        }


def percentile(values, q):
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def fmt(ms):
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("floe")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per operation and catalog")
    parser.add_argument("--warmup", type=int, default=2,
                        help="untimed runs per operation and catalog first")
    parser.add_argument("--snapshots", type=int, default=200, help="appends in the table's history")
    parser.add_argument("--target", type=float, default=1.5,
                        help="the REST paths' median over JDBC's to stay within")
    args = parser.parse_args()
    floe = str(Path(args.floe).resolve())
    if not REFERENCE_JAR.exists():
        raise SystemExit("run scripts/setup-rest-kit.sh first: it fetches the reference server")

    with tempfile.TemporaryDirectory(prefix="rest-client-bench-") as tmp:
        tmp = Path(tmp)
        for name in CATALOGS:
            (tmp / name).mkdir()
        server = FloeServe(floe, "--catalog", str(tmp / "floe-rest" / "catalog.db"),
                           "--warehouse", str(tmp / "floe-rest" / "wh"), rest=True)
        reference = None
        try:
            reference = ReferenceRestServer(tmp / "reference-rest").start()
            catalogs = {
                "jdbc": Catalog("jdbc", floe, ["--catalog", str(tmp / "jdbc" / "catalog.db"),
                                               "--warehouse", str(tmp / "jdbc" / "wh")]),
                "floe-rest": Catalog("floe-rest", floe, ["--catalog", "rest+" + server.uri]),
                "reference-rest": Catalog("reference-rest", floe,
                                          ["--catalog", reference.catalog_uri]),
            }
            results = measure(catalogs, tmp, args)
        finally:
            server.stop()
            if reference is not None:
                reference.stop()
    report(results, args)


def measure(catalogs, tmp, args):
    index = args.snapshots // 4 - 1
    # The rows of the first index + 1 appends: ids 0 .. 2 * index + 1.
    n = 2 * (index + 1)
    expected = f"{n},{n * (n - 1) // 2}"
    plans = {}
    for name, c in catalogs.items():
        c.build(tmp / name, args.snapshots)
        print(f"{LABELS[name]}: {args.snapshots} appends in one floe sql process, "
              f"{c.build_s:.1f} s", file=sys.stderr)
        old, old_ts = c.history[index]
        plans[name] = c.commands(old, old_ts, expected)

    load_at_start = os.getloadavg()
    startup = []
    times = {(op, name): [] for op in OPERATIONS for name in CATALOGS}
    # A rollback and the roll forward after it make one run of the pair.
    for group in [["version_as_of"], ["timestamp_as_of"],
                  ["rollback_to_snapshot", "set_current_snapshot"], ["floe_rollback"]]:
        for r in range(-args.warmup, args.runs):
            order = CATALOGS[r % 3:] + CATALOGS[:r % 3]
            for name in order:
                for op in group:
                    command, expect, after = plans[name][op]
                    took = run(command, expect)
                    if after is not None:
                        run(*after)
                    if r >= 0:
                        times[(op, name)].append(took)
            if group[0] == "version_as_of" and r >= 0:
                startup.append(run([catalogs["jdbc"].floe, "--version"]))
        print(f"{', '.join(group)}: done", file=sys.stderr)
    return {"times": times, "startup": startup,
            "load_average": {"start": load_at_start, "end": os.getloadavg()},
            "build_s": {name: round(c.build_s, 2) for name, c in catalogs.items()}}


def report(results, args):
    times = results["times"]
    summary = {}
    for (op, name), t in times.items():
        summary[(op, name)] = {"median_ms": round(statistics.median(t), 2),
                               "p90_ms": round(percentile(t, 0.9), 2),
                               "min_ms": round(min(t), 2), "max_ms": round(max(t), 2)}
    print(f"\n{args.snapshots} snapshots; {args.runs} runs each after {args.warmup} warm-up; "
          f"median / p90 ms of whole `floe` processes; ratio: median over JDBC's\n")
    print("| operation | JDBC (SQLite) ms | floe REST ms (ratio) | reference REST ms (ratio) |")
    print("|---|---|---|---|")
    worst = {"floe-rest": [], "reference-rest": []}
    for op in OPERATIONS:
        j = summary[(op, "jdbc")]
        cells = [f"{fmt(j['median_ms'])} / {fmt(j['p90_ms'])}"]
        for name in ["floe-rest", "reference-rest"]:
            s = summary[(op, name)]
            ratio = s["median_ms"] / j["median_ms"]
            s["ratio"] = round(ratio, 2)
            worst[name].append((ratio, op))
            cells.append(f"{fmt(s['median_ms'])} / {fmt(s['p90_ms'])} ({ratio:.2f}x)")
        print(f"| {OP_LABELS[op]} | " + " | ".join(cells) + " |")
    load = results["load_average"]
    print(f"\nprocess start (`floe --version`): median {fmt(statistics.median(results['startup']))}"
          f" ms; load average (1 min) {load['start'][0]:.2f} at the start of the timed runs, "
          f"{load['end'][0]:.2f} at the end")
    print()
    for name, ratios in worst.items():
        missed = [f"{op} {r:.2f}x" for r, op in ratios if r > args.target]
        r, op = max(ratios)
        if missed:
            print(f"{LABELS[name]}: misses {args.target}x of JDBC on {len(missed)} of "
                  f"{len(ratios)} operations ({', '.join(missed)})")
        else:
            print(f"{LABELS[name]}: within {args.target}x of JDBC on every operation "
                  f"(at most {r:.2f}x, {op})")
    out = ROOT / "build" / "bench-results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "rest_client.json").write_text(json.dumps({
        "options": vars(args), "build_s": results["build_s"],
        "startup_ms": [round(t, 2) for t in results["startup"]],
        "summary": {f"{op} {name}": v for (op, name), v in summary.items()},
        "runs_ms": {f"{op} {name}": [round(x, 2) for x in t] for (op, name), t in times.items()},
        "load_average": results["load_average"],
    }, indent=2))


if __name__ == "__main__":
    main()
