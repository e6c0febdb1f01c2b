"""The side-by-side runner: builds the tables with floe, runs every workload on every engine
as a child process (engines alternating run by run), checks that the answers agree, and
writes build/bench-results/side_by_side.json and docs/benchmarks.md (+ docs/benchmarks.png)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
from pathlib import Path

from . import setup
from .workloads import (COMPACTION_CALL, COMPACTION_ROWS_PER_FILE, DELETE_VERSIONS, DELETES_DELETE, DELETES_SCANS, ENGINES, MODES,
                        OBJECTSTORE_BUCKET, OBJECTSTORE_ENGINES, OBJECTSTORE_ROLLBACK_ENGINES, OBJECTSTORE_SCANS, PLANNING,
                        ROWLEVEL_DELETE, ROWLEVEL_MERGE, SCANS, TIME_TRAVEL, deletes_expected, parse_size, range_expected,
                        size_label)

ROOT = setup.ROOT
GROUPS = ("scan", "timetravel", "planning", "rollback", "append", "expire", "rowlevel", "compaction", "deletes",
          "objectstore")
# The reads floe also runs through its Python package, for the in-process column.
FLOE_IN_PROCESS = ("query", "ts_as_of", "history")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="scripts/bench.sh", description=__doc__)
    ap.add_argument("--sizes", default="1M,20M,100M", help="rows of the scanned tables (default 1M,20M,100M)")
    ap.add_argument("--engines", default="floe,duckdb,pyiceberg", help=f"comma-separated subset of {','.join(ENGINES)}")
    ap.add_argument("--reps", type=int, default=5, help="runs per engine and workload (default 5)")
    ap.add_argument("--history", default="10K,100K", help="snapshot counts of the time-travel tables")
    ap.add_argument("--append-rows", default="10M", help="rows per append run (default 10M)")
    ap.add_argument("--rowlevel-sizes", default="10M", help="rows of the tables the rowlevel group writes to (default 10M)")
    ap.add_argument("--deletes-sizes", default="20M",
                    help="rows of the tables the deletes group scans with a tenth of them deleted (default 20M)")
    ap.add_argument("--compaction-files", default="1K", help="small files of the table the compaction group rewrites (default 1K)")
    ap.add_argument("--objectstore-rows", default="20M",
                    help="rows of the table the objectstore group scans in the bucket (default 20M)")
    ap.add_argument("--objectstore-files", default="1K",
                    help="data files of the objectstore group's time-travel table at the snapshot read (default 1K)")
    ap.add_argument("--objectstore-manifests", default="100",
                    help="manifests of that snapshot, one per append (default 100)")
    ap.add_argument("--objectstore-snapshots", default="10K",
                    help="snapshots of the objectstore group's TIMESTAMP AS OF and .history table (default 10K)")
    ap.add_argument("--objectstore-latency-ms", type=float, default=20,
                    help="delay the proxy adds to every S3 answer, in ms (default 20)")
    ap.add_argument("--objectstore-bandwidth", default="100M",
                    help="bytes per second of each connection through the proxy, 0 for no cap (default 100M)")
    ap.add_argument(
        "--groups",
        default=",".join(GROUPS),
        help=f"comma-separated groups to run: {', '.join(GROUPS)} (default: all); the report keeps the "
        "last figures of the groups not run",
    )
    ap.add_argument("--floe", default=str(ROOT / "build" / "floe"), help="the floe binary (default build/floe)")
    ap.add_argument("--data", default=str(ROOT / "build" / "bench-data"), help="warehouse of the tables (default build/bench-data)")
    ap.add_argument("--out", default=str(ROOT / "build" / "bench-results" / "side_by_side.json"),
                    help="JSON of every run and the summary (default build/bench-results/side_by_side.json)")
    ap.add_argument("--docs", default=str(ROOT / "docs" / "benchmarks.md"), help="report to regenerate ('' for none)")
    ap.add_argument("--report-only", action="store_true", help="regenerate --docs from --out without running anything")
    ap.add_argument("--resume", action="store_true", help="keep the runs of --out that finished without error; run the rest")
    ap.add_argument("--timeout", type=float, default=300, help="seconds before a run is killed (default 300)")
    args = ap.parse_args(argv)
    args.engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    for e in args.engines:
        if e not in ENGINES:
            ap.error(f"unknown engine '{e}' (known: {', '.join(ENGINES)})")
    if "floe" not in args.engines:
        ap.error("floe must be one of the engines: it writes the tables and is the reference")
    args.sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    args.history = [parse_size(s) for s in args.history.split(",") if s.strip()]
    args.append_rows = parse_size(args.append_rows)
    args.rowlevel_sizes = [parse_size(s) for s in args.rowlevel_sizes.split(",") if s.strip()]
    args.compaction_files = parse_size(args.compaction_files)
    args.deletes_sizes = [parse_size(s) for s in args.deletes_sizes.split(",") if s.strip()]
    args.objectstore_rows = parse_size(args.objectstore_rows)
    args.objectstore_files = parse_size(args.objectstore_files)
    args.objectstore_manifests = parse_size(args.objectstore_manifests)
    args.objectstore_snapshots = parse_size(args.objectstore_snapshots)
    args.objectstore_bandwidth = parse_size(args.objectstore_bandwidth)
    args.groups = {g.strip() for g in args.groups.split(",") if g.strip()}
    for g in args.groups:
        if g not in GROUPS:
            ap.error(f"unknown group '{g}' (known: {', '.join(GROUPS)})")
    return args


def normalise(rows: list[list]) -> list[list]:
    """Values as every engine should agree on them: numbers as floats to 10 significant digits."""
    out = []
    for r in rows:
        out.append([float(f"{float(v):.10g}") if isinstance(v, (int, float)) and not isinstance(v, bool) else v for v in r])
    return out


class Runner:
    def __init__(self, args: argparse.Namespace):
        from .data import Data, Floe

        self.args = args
        self.floe = Floe(Path(args.floe).resolve(), Path(args.data).resolve())
        if not self.floe.binary.exists():
            raise SystemExit(f"{self.floe.binary} is missing: scripts/build.sh release --target floe")
        self.floe.warehouse.mkdir(parents=True, exist_ok=True)
        self.data = Data(self.floe, log)
        optional = ("httpfs",) if "objectstore" in args.groups else ()
        self.extensions = setup.duckdb_extensions(optional) if "duckdb" in args.engines else {}
        self.spark_python, self.spark_classpath = (None, "")
        if "spark" in args.engines:
            self.spark_python, self.spark_classpath = setup.ensure_spark()
        self.runs: list[dict] = []
        self.notes: list[tuple[str, str]] = []  # (group, text)
        self.mismatches: list[str] = []
        # Answers known before any engine runs, keyed as check() groups runs: floe's must match.
        self.expected: dict[tuple, list] = {}
        self.tables: dict[str, dict] = {}
        self.done: dict[tuple, dict] = {}
        self.on_progress = lambda: None
        if args.resume and Path(args.out).exists():
            for run in json.loads(Path(args.out).read_text())["runs"]:
                if run["error"] is None:
                    self.done[self._run_key(run, run["engine"], run["rep"])] = run
            log(f"resume: {len(self.done)} finished runs kept from {args.out}")

    def note(self, group: str, text: str) -> None:
        if (group, text) not in self.notes:
            self.notes.append((group, text))

    @staticmethod
    def _run_key(key: dict, engine: str, rep: int) -> tuple:
        return (key["group"], key["workload"], key.get("table"), key["size"], engine, rep)

    # One measured run of one engine.
    def measure(self, engine: str, spec: dict, floe_sql: str | None) -> dict:
        from . import measure

        inproc_error = None
        if engine == "floe":
            r = measure.run(self.floe.argv([floe_sql]), timeout=self.args.timeout)
            rows = [list(json.loads(line).values()) for line in r.stdout.splitlines() if line.startswith("{")]
            if spec.get("op") == "history":
                rows = [[len(rows)]]
            inproc = None
            if spec.get("op") in FLOE_IN_PROCESS and r.returncode == 0 and not r.timed_out:
                try:
                    inproc = self.floe_in_process(spec, floe_sql, rows)
                except RuntimeError as e:
                    inproc_error = str(e)
        else:
            spec = dict(spec, engine=engine, catalog=str(self.floe.catalog), warehouse=str(self.floe.warehouse))
            env = dict(os.environ)
            if engine == "spark":
                python = str(self.spark_python)
                spec.update(spark_classpath=self.spark_classpath, spark_local=str(self.floe.warehouse.parent / "bench-spark-local"))
                env["PYTHONPATH"] = str(ROOT)
            else:
                python = sys.executable
                spec["duckdb_extensions"] = self.extensions
                env["PYTHONPATH"] = f"{setup.PYLIB}:{ROOT}"
            r = measure.run([python, "-m", "bench.runner.child", json.dumps(spec)], env=env, cwd=str(ROOT), timeout=self.args.timeout)
            rows, inproc = None, None
            for line in r.stdout.splitlines():
                if line.startswith("BENCH_RESULT "):
                    res = json.loads(line[len("BENCH_RESULT ") :])
                    rows, inproc = res["rows"], res["inproc_ms"]
        error = None
        if r.timed_out:
            error = f"timed out after {self.args.timeout:.0f} s"
            log(f"  {engine}: {error}")
        elif r.returncode != 0 or rows is None:
            error = (r.stderr.strip().splitlines() or ["no output"])[-1][:500]
            log(f"  {engine}: FAILED (exit {r.returncode}): {error}")
        elif inproc_error:
            error = inproc_error[:500]
            log(f"  floe in-process: FAILED: {error}")
        return {
            "engine": engine,
            "wall_ms": round(r.wall_ms, 2),
            "inproc_ms": None if inproc is None else round(inproc, 2),
            "peak_mb": round(r.peak_rss_mb, 1),
            "rows": rows,
            "error": error,
        }

    def floe_in_process(self, spec: dict, floe_sql: str, cli_rows: list) -> float:
        """The same statement through the floe Python package, timed inside its own process
        after start-up (the import and floe.connect()), as DuckDB's and PyIceberg's are; its
        answer must be the CLI's."""
        from . import measure

        spec = dict(spec, engine="floe", floe_sql=floe_sql, catalog=str(self.floe.catalog),
                    warehouse=str(self.floe.warehouse))
        env = dict(os.environ, PYTHONPATH=str(ROOT))  # .venv's floe and pyarrow, not build/bench-pylib
        r = measure.run([sys.executable, "-m", "bench.runner.child", json.dumps(spec)], env=env, cwd=str(ROOT),
                        timeout=self.args.timeout)
        for line in r.stdout.splitlines():
            if line.startswith("BENCH_RESULT "):
                res = json.loads(line[len("BENCH_RESULT "):])
                if normalise(res["rows"]) != normalise(cli_rows):
                    raise RuntimeError(f"floe's Python package returned {res['rows'][:5]}, its CLI {cli_rows[:5]}")
                return res["inproc_ms"]
        raise RuntimeError(f"floe's Python package failed (exit {r.returncode}): {r.stderr.strip()[-500:]}")

    def record(self, key: dict, result: dict, rep: int) -> None:
        run = dict(key, rep=rep, **result)
        self.runs.append(run)
        inproc = f", in-process {run['inproc_ms']:.0f} ms" if run["inproc_ms"] is not None else ""
        reqs = ""
        if run.get("requests"):
            c = run["requests"]
            reqs = f", {c['requests']} requests ({', '.join(f'{k} {v}' for k, v in sorted(c['by_method'].items()))})"
        log(f"  {key['workload']} {key.get('label', '')} {run['engine']} rep {rep}: {run['wall_ms']:.0f} ms{inproc}, "
            f"{run['peak_mb']:.0f} MB{reqs}")

    def alternate(self, key: dict, engines: list[str], make, measure=None, after=None) -> None:
        """reps rounds; each round runs every engine once, starting one further along. An engine
        that overstays --timeout once is not run again on this workload. `measure` replaces
        Runner.measure; `after` runs, untimed, after every run."""
        gave_up: set[str] = set()
        for rep in range(self.args.reps):
            for i in range(len(engines)):
                engine = engines[(rep + i) % len(engines)]
                if engine in gave_up or self.resumed(key, engine, rep):
                    continue
                spec, floe_sql = make(engine)
                result = (measure or self.measure)(engine, spec, floe_sql)
                self.record(key, result, rep)
                if after is not None:
                    after()
                if result["error"] and result["error"].startswith("timed out"):
                    gave_up.add(engine)
                    self.note(
                        key["group"],
                        f"{key['group']}/{key['workload']} on {key.get('table')}: {engine} did not finish "
                        f"within {self.args.timeout:.0f} s, so it was not run again."
                    )
        self.on_progress()

    def resumed(self, key: dict, engine: str, rep: int) -> bool:
        run = self.done.get(self._run_key(key, engine, rep))
        if run is not None:
            self.runs.append(run)
        return run is not None

    # Workload groups.
    def scans(self) -> None:
        for rows in self.args.sizes:
            files_of_one = None
            for several in (False, True):
                info = self.data.scan_table(rows, several)
                self.tables[info["table"]] = info
                if not several:
                    files_of_one = info["data_files"]
                elif info["data_files"] == files_of_one:
                    # The writer did not split it: the same layout again would tell nothing new.
                    self.note(
                        "scan",
                        f"{info['table']} (target file size 64 MB) got {info['data_files']} data file(s), "
                        f"as many as the one-file table: its scans are not run."
                    )
                    continue
                variant = "several files" if several else "one file"
                files = info["data_files"]
                label = f"{size_label(rows)} rows, {variant} ({files} data file{'' if files == 1 else 's'})"
                for w, (_title, sql) in SCANS.items():
                    key = {"group": "scan", "workload": w, "size": rows, "variant": variant, "label": label, "table": info["table"]}
                    spec = {"op": "query", "workload": w, "sql": sql, "table": info["table"], "snapshot_id": info["snapshot_id"]}
                    floe_sql = sql.format(t=f"{info['table']} VERSION AS OF {info['snapshot_id']}")
                    self.alternate(key, self.args.engines, lambda e: (spec, floe_sql))

    def time_travel(self) -> None:
        for n in self.args.history:
            info = self.data.history_table(n)
            self.tables[info["table"]] = info
            t = info["table"]
            for w in TIME_TRAVEL:
                key = {"group": "timetravel", "workload": w, "size": n, "label": f"{size_label(n)} snapshots", "table": t}
                spec = {"op": w, "workload": w, "table": t, "timestamp": info["as_of"], "timestamp_ms": info["as_of_ms"]}
                if w == "ts_as_of":
                    floe_sql = f"SELECT count(*) FROM {t} TIMESTAMP AS OF '{info['as_of']}'"
                else:
                    floe_sql = f"SELECT * FROM {t}.history"
                self.alternate(key, self.args.engines, lambda e: (spec, floe_sql))

    def planning(self) -> None:
        info = self.data.plan_table()
        self.tables[info["table"]] = info
        label = f"{info['data_files']} data files in {info['manifests']} manifests"
        for w, (_title, sql) in PLANNING.items():
            key = {"group": "planning", "workload": w, "size": info["data_files"], "label": label, "table": info["table"]}
            spec = {"op": "query", "workload": w, "sql": sql, "table": info["table"], "snapshot_id": info["snapshot_id"]}
            floe_sql = sql.format(t=f"{info['table']} VERSION AS OF {info['snapshot_id']}")
            self.alternate(key, self.args.engines, lambda e: (spec, floe_sql))

    def rollback(self) -> None:
        from . import measure

        for rows in sorted({1000, *self.args.sizes}):
            info = self.data.scan_table(rows, False)
            self.tables[info["table"]] = info
            t, first, second = info["table"], info["snapshot_id"], info["second_snapshot_id"]
            key = {"group": "rollback", "workload": "rollback", "size": rows, "label": f"{size_label(rows)} rows", "table": t}
            try:
                for rep in range(self.args.reps):
                    if self.resumed(key, "floe", rep):
                        continue
                    self.floe.sql(f"CALL lakehouse.system.set_current_snapshot('{t}', {second})")
                    r = measure.run(self.floe.argv([f"CALL lakehouse.system.rollback_to_snapshot('{t}', {first})"]))
                    out = [list(json.loads(line).values()) for line in r.stdout.splitlines() if line.startswith("{")]
                    err = None if r.returncode == 0 else r.stderr.strip()[-500:]
                    if err is None and (not out or int(out[0][-1]) != first):
                        err = f"rollback of {t} to {first} reported {out}"
                    res = {"engine": "floe", "wall_ms": round(r.wall_ms, 2), "inproc_ms": None, "peak_mb": round(r.peak_rss_mb, 1), "rows": out, "error": err}
                    self.record(key, res, rep)
            finally:
                # The tables are read at their first snapshot; their current one goes back.
                self.floe.sql(f"CALL lakehouse.system.set_current_snapshot('{t}', {second})")

    def append(self) -> None:
        n = self.args.append_rows
        engines = [e for e in self.args.engines if e != "duckdb"]
        if "duckdb" in self.args.engines:
            self.note("append", "append: DuckDB's iceberg extension inserts only into tables of an attached Iceberg REST "
                "catalog, not through this SQLite (JDBC) catalog, so it is left out.")
        # One key for all engines, so their answers are compared and the ratios computed.
        key = {"group": "append", "workload": "append", "size": n, "label": f"{size_label(n)} rows", "table": "db.append_<engine>"}
        for rep in range(self.args.reps):
            for i in range(len(engines)):
                engine = engines[(rep + i) % len(engines)]
                if self.resumed(key, engine, rep):
                    continue
                t = self.data.empty_table(f"append_{engine}")
                spec = {"op": "append", "workload": "append", "table": t, "append_rows": n}
                res = self.measure(engine, spec, f"INSERT INTO {t} SELECT id, id * 0.5 FROM range({n})")
                # What landed is checked by floe, the same way for every engine.
                res["rows"] = [[r["n"], r["s"]] for r in self.floe.sql(f"SELECT count(*) AS n, sum(v) AS s FROM {t}")]
                self.record(key, res, rep)

    # Row-level writes: every run starts from the table's first snapshot (rolled back to it,
    # untimed, before the run), and what it committed is read back by floe.
    def _restore(self, info: dict) -> None:
        t, base = info["table"], info["snapshot_id"]
        _, meta = self.data.metadata(t)
        if meta.get("current-snapshot-id") != base:
            self.floe.sql(f"CALL lakehouse.system.rollback_to_snapshot('{t}', {base})")
            _, meta = self.data.metadata(t)
        if meta.get("current-snapshot-id") != base:
            raise RuntimeError(f"{t} did not go back to snapshot {base}")

    @staticmethod
    def _files(root: str) -> dict[str, int]:
        out = {}
        for path in Path(root).rglob("*"):
            if path.is_file():
                out[str(path)] = path.stat().st_size
        return out

    def _write_run(self, key: dict, engine: str, rep: int, info: dict, sql: str, source: str | None) -> int | None:
        """One timed DELETE or MERGE by one engine from the table's first snapshot; returns
        the snapshot it committed."""
        t = info["table"]
        self._restore(info)
        before = self._files(info["location"])
        spec = {"op": "dml", "workload": key["workload"], "table": t, "sql": sql, "source": source}
        res = self.measure(engine, spec, sql.format(t=t, src=source or ""))
        _, meta = self.data.metadata(t)
        sid = meta.get("current-snapshot-id")
        snap = next((s for s in meta["snapshots"] if s["snapshot-id"] == sid), None)
        if res["error"] is None and (snap is None or sid == info["snapshot_id"]):
            res["error"] = f"{engine} committed nothing to {t}"
        elif res["error"] is None and snap.get("parent-snapshot-id") != info["snapshot_id"]:
            res["error"] = f"{engine}'s commit to {t} does not follow snapshot {info['snapshot_id']}"
        if res["error"] is None:
            summary = snap["summary"]
            new = {p: n for p, n in self._files(info["location"]).items() if p not in before}
            meta_dir = str(Path(info["location"]) / "metadata")
            res["written"] = {
                # What the snapshot summary says the commit added (data and delete files) ...
                "added_files_size": int(summary.get("added-files-size", 0)),
                "added_data_files": int(summary.get("added-data-files", 0)),
                "added_delete_files": int(summary.get("added-delete-files", 0)),
                "added_position_deletes": int(summary.get("added-position-deletes", 0)),
                **({"added_dvs": int(summary["added-dvs"])} if "added-dvs" in summary else {}),
                # ... and what appeared on disk: the same files, plus the metadata.
                "new_file_bytes": sum(n for p, n in new.items() if not p.startswith(meta_dir)),
                "metadata_bytes": sum(n for p, n in new.items() if p.startswith(meta_dir)),
            }
            res["snapshot_id"] = sid
            # The answer every engine must agree on: what the table holds after the write.
            got = self.floe.sql(f"SELECT count(*) AS n, sum(v) AS s FROM {t} VERSION AS OF {sid}")
            res["rows"] = [[r["n"], r["s"]] for r in got]
        self.record(key, res, rep)
        return sid if res["error"] is None else None

    def rowlevel(self) -> None:
        writers = [e for e in self.args.engines if e in ("floe", "spark")]
        skipped = [e for e in self.args.engines if e not in writers]
        if skipped:
            self.note(
                "rowlevel",
                "rowlevel: DELETE and MERGE INTO are run by floe and Spark only: DuckDB's iceberg extension "
                "commits only to an Iceberg REST catalog, and PyIceberg 0.12 has no MERGE INTO nor an `id % 100` "
                "filter expression (its `delete` takes a boolean expression over columns, and it only copies on "
                "write). Every engine scans the table floe's DELETE left; all but Spark also scan the one Spark's left."
            )
        for rows in self.args.rowlevel_sizes:
            src = self.data.merge_source(rows)
            self.tables[src["table"]] = src
            for mode, mode_name in MODES.items():
                info = self.data.rowlevel_table(rows, mode)
                self.tables[info["table"]] = info
                t = info["table"]
                deleted_by: dict[str, int] = {}
                try:
                    for op, sql, source in (("delete", ROWLEVEL_DELETE, None), ("merge", ROWLEVEL_MERGE, src["table"])):
                        key = {"group": "rowlevel", "workload": f"{op}_{mode}", "size": rows,
                               "label": f"{size_label(rows)} rows", "table": t}
                        for rep in range(self.args.reps):
                            for i in range(len(writers)):
                                engine = writers[(rep + i) % len(writers)]
                                if self.resumed(key, engine, rep):
                                    continue
                                sid = self._write_run(key, engine, rep, info, sql, source)
                                if op == "delete" and sid is not None:
                                    deleted_by[engine] = sid
                        self.on_progress()
                finally:
                    self._restore(info)
                # Full scans of what each engine's DELETE left (its last run's snapshot). Spark
                # reads floe's, the same input floe reads; the other engines read both.
                for writer, sid in deleted_by.items():
                    readers = [e for e in self.args.engines if writer == "floe" or e != "spark"]
                    key = {"group": "rowlevel", "workload": f"scan_{mode}", "size": rows,
                           "label": f"{size_label(rows)} rows, DELETE by {writer}", "table": f"{t}@{writer}"}
                    sql = SCANS["count_sum"][1]
                    spec = {"op": "query", "workload": "count_sum", "sql": sql, "table": t, "snapshot_id": sid}
                    floe_sql = sql.format(t=f"{t} VERSION AS OF {sid}")
                    self.alternate(key, readers, lambda e: (spec, floe_sql))

    def deletes(self) -> None:
        """Scans of the same table, a tenth of its rows deleted merge-on-read, at format version
        3 (a deletion vector) and 2 (a position delete file), by every engine; then floe's
        DELETE that wrote those deletes, timed from the table's state before it."""
        if "spark" in self.args.engines:
            self.note("deletes", "deletes: the DELETE is timed in floe only; Spark scans the tables like the other engines.")
        for rows in self.args.deletes_sizes:
            tables = {v: self.data.deletes_table(rows, v) for v in DELETE_VERSIONS}
            for v, info in tables.items():
                self.tables[info["table"]] = info

            def label(info: dict) -> str:
                kind = (f"{info['dvs']} deletion vector{'' if info['dvs'] == 1 else 's'}" if info["dvs"]
                        else f"{info['delete_files']} position delete file{'' if info['delete_files'] == 1 else 's'}")
                return (f"{size_label(rows)} rows, v{info['format_version']} ({info['data_files']} data "
                        f"file{'' if info['data_files'] == 1 else 's'}, {kind}, {info['deleted_rows']:,} rows deleted)")

            for w in DELETES_SCANS:
                sql = SCANS[w][1]
                for v, info in tables.items():
                    t, sid = info["table"], info["deleted_snapshot_id"]
                    key = {"group": "deletes", "workload": w, "size": rows, "variant": v, "label": label(info), "table": t}
                    self.expected[(key["group"], w, t, rows)] = deletes_expected(rows, w)
                    spec = {"op": "query", "workload": w, "sql": sql, "table": t, "snapshot_id": sid}
                    floe_sql = sql.format(t=f"{t} VERSION AS OF {sid}")
                    self.alternate(key, self.args.engines, lambda e: (spec, floe_sql))
            # The DELETE itself, from the snapshot before it, the versions taking turns; the table
            # goes back to the snapshot the scans read afterwards.
            try:
                for rep in range(self.args.reps):
                    for i in range(len(tables)):
                        v = list(tables)[(rep + i) % len(tables)]
                        info = tables[v]
                        key = {"group": "deletes", "workload": "delete", "size": rows, "variant": v,
                               "label": label(info), "table": info["table"]}
                        self.expected[("deletes", "delete", info["table"], rows)] = deletes_expected(rows, "count_sum")
                        if not self.resumed(key, "floe", rep):
                            self._write_run(key, "floe", rep, info, DELETES_DELETE, None)
                self.on_progress()
            finally:
                for info in tables.values():
                    _, meta = self.data.metadata(info["table"])
                    if meta.get("current-snapshot-id") != info["deleted_snapshot_id"]:
                        self.floe.sql(f"CALL lakehouse.system.set_current_snapshot('{info['table']}', "
                                      f"{info['deleted_snapshot_id']})")

    def compaction(self) -> None:
        """rewrite_data_files of a table of many small files, by floe and Spark (the engines
        with the procedure), each run from the table's first state; floe then reads what the
        run left, which must be the same rows."""
        writers = [e for e in self.args.engines if e in ("floe", "spark")]
        skipped = [e for e in self.args.engines if e not in writers]
        if skipped:
            self.note(
                "compaction",
                "compaction: rewrite_data_files is run by floe and Spark only (DuckDB and PyIceberg 0.12 have no "
                "compaction). Every run starts from the table's state before any rewrite (rollback_to_snapshot, "
                "untimed); floe then reads count(*), sum(v) of what the run committed."
            )
        files = self.args.compaction_files
        info = self.data.compaction_table(files, COMPACTION_ROWS_PER_FILE)
        self.tables[info["table"]] = info
        t = info["table"]
        key = {"group": "compaction", "workload": "rewrite_data_files", "size": files,
               "label": f"{info['data_files']:,} files of {COMPACTION_ROWS_PER_FILE:,} rows", "table": t}
        try:
            for rep in range(self.args.reps):
                for i in range(len(writers)):
                    engine = writers[(rep + i) % len(writers)]
                    if self.resumed(key, engine, rep):
                        continue
                    self._write_run(key, engine, rep, info, COMPACTION_CALL, None)
            self.on_progress()
        finally:
            self._restore(info)

    def expire(self) -> None:
        # Building 10k real snapshots through any engine takes hours; bench/expire_bench builds
        # the history file by file and times floe's expiry in-process.
        self.note(
            "expire",
            "expire_snapshots over 10,002 snapshots is measured by bench/expire_bench "
            "(`scripts/bench.sh micro`), floe only: see the head of this page.",
        )

    def objectstore(self) -> None:
        """Tables in a bucket of a moto server, read through tests/support/s3_fault_proxy.py
        with a delay on every answer and a bandwidth cap on every connection, by floe's CLI,
        floe's Python package, DuckDB (httpfs) and PyIceberg (pyarrow's S3); the proxy counts
        each run's requests."""
        import shutil

        sys.path.insert(0, str(ROOT / "tests" / "support"))
        import s3_fault_proxy
        import s3_server

        from .data import ObjectStoreData, S3Floe

        a = self.args
        engines = [e for e in OBJECTSTORE_ENGINES if e in ("floe", "floe-py") or e in a.engines]
        if "spark" in a.engines:
            self.note("objectstore", "objectstore: Spark is left out: reading S3 needs Hadoop's S3A jars, which "
                      "scripts/setup-spark.sh does not fetch.")
        work = Path(a.data).resolve() / "objectstore"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        server = s3_server.S3Server(str(work / "moto"), bucket=OBJECTSTORE_BUCKET).start()
        proxy = None
        try:
            # Credentials and region only: every engine is given the proxy as its endpoint, and
            # no AWS_ENDPOINT_URL is left for one to go around it.
            env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
            env.update({k: v for k, v in s3_server.environment(server.endpoint).items() if k != "AWS_ENDPOINT_URL"})
            floe = S3Floe(self.floe.binary, work / "catalog.db", OBJECTSTORE_BUCKET, server.endpoint, env)
            data = ObjectStoreData(floe, s3_server.client(server.endpoint), log)
            tt = data.time_travel_table(a.objectstore_files, a.objectstore_manifests)
            h = data.history_table(a.objectstore_snapshots)
            t = data.scan_table(a.objectstore_rows)
            for info in (tt, h, t):
                self.tables[info["table"]] = info
            latency = a.objectstore_latency_ms / 1000
            proxy = s3_fault_proxy.FaultProxy(server.endpoint, latency=latency,
                                              bandwidth=a.objectstore_bandwidth or None, cache_reads=True).start()
            held = proxy.preload(OBJECTSTORE_BUCKET)
            log(f"objectstore: proxy {proxy.endpoint} (+{a.objectstore_latency_ms:g} ms an answer, "
                f"{a.objectstore_bandwidth / 1e6:g} MB/s a connection) holds {held / 1e6:.1f} MB of the bucket")
            self._os = {"floe": floe, "data": data, "proxy": proxy, "env": env, "latency": latency}
            s3 = {"endpoint": proxy.endpoint, "access_key_id": s3_server.ACCESS_KEY,
                  "secret_access_key": s3_server.SECRET_KEY, "region": s3_server.REGION}

            def run(key: dict, spec: dict, floe_sql: str) -> None:
                spec = dict(spec, s3=s3)
                self.alternate(key, engines, lambda e: (spec, floe_sql), measure=self._os_measure)

            sid = tt["snapshot_id"]
            key = {"group": "objectstore", "workload": "version_as_of", "size": tt["data_files"], "table": tt["table"],
                   "label": f"{tt['data_files']:,} data files in {tt['manifests']} manifests, snapshot "
                            f"{tt['manifests']} of {tt['snapshots']}"}
            self.expected[("objectstore", "version_as_of", tt["table"], tt["data_files"])] = \
                range_expected(tt["rows"], "count_sum")
            sql = SCANS["count_sum"][1]
            run(key, {"op": "query", "workload": "count_sum", "sql": sql, "table": tt["table"], "snapshot_id": sid},
                sql.format(t=f"{tt['table']} VERSION AS OF {sid}"))

            for w in ("ts_as_of", "history"):
                key = {"group": "objectstore", "workload": w, "size": h["snapshots"], "table": h["table"],
                       "label": f"{size_label(h['snapshots'])} snapshots"}
                self.expected[("objectstore", w, h["table"], h["snapshots"])] = \
                    [[h["rows"]]] if w == "ts_as_of" else [[h["snapshots"]]]
                floe_sql = (f"SELECT count(*) FROM {h['table']} TIMESTAMP AS OF '{h['as_of']}'" if w == "ts_as_of"
                            else f"SELECT * FROM {h['table']}.history")
                run(key, {"op": w, "workload": w, "table": h["table"], "timestamp": h["as_of"],
                          "timestamp_ms": h["as_of_ms"]}, floe_sql)

            for w in OBJECTSTORE_SCANS:
                sql = SCANS[w][1]
                key = {"group": "objectstore", "workload": w, "size": t["rows"], "table": t["table"],
                       "label": f"{size_label(t['rows'])} rows, {t['data_files']} data file"
                                f"{'' if t['data_files'] == 1 else 's'}"}
                expected = range_expected(t["rows"], w)
                if expected:
                    self.expected[("objectstore", w, t["table"], t["rows"])] = expected
                run(key, {"op": "query", "workload": w, "sql": sql, "table": t["table"], "snapshot_id": t["snapshot_id"]},
                    sql.format(t=f"{t['table']} VERSION AS OF {t['snapshot_id']}"))

            # Rollbacks last: each moves the table's current snapshot (and adds to its history);
            # the runner moves it back, untimed, straight on moto.
            rollers = [e for e in engines if e in OBJECTSTORE_ROLLBACK_ENGINES]
            if "duckdb" in engines:
                self.note("objectstore", "objectstore/rollback: DuckDB's iceberg extension commits only to an "
                          "Iceberg REST catalog, so it is left out; PyIceberg runs "
                          "`manage_snapshots().rollback_to_snapshot(id).commit()`.")
            for info, what in ((tt, f"{tt['manifests']} manifests"), (h, f"{size_label(h['snapshots'])} snapshots")):
                target, latest = info["snapshot_id"], info["current_snapshot_id"]
                key = {"group": "objectstore", "workload": "rollback", "size": info.get("snapshots", 0),
                       "table": info["table"], "label": f"{info['table']}, {what}, "
                       f"{info['metadata_file_bytes'] / 1e6:.1f} MB metadata file"}
                spec = {"op": "rollback", "workload": "rollback", "table": info["table"], "snapshot_id": target,
                        "s3": s3}
                floe_sql = f"CALL lakehouse.system.rollback_to_snapshot('{info['table']}', {target})"
                self._os_restore(info["table"], latest)
                try:
                    self.alternate(key, rollers, lambda e: (spec, floe_sql), measure=self._os_measure,
                                   after=lambda: self._os_restore(info["table"], latest))
                finally:
                    self._os_restore(info["table"], latest)
        finally:
            if proxy is not None:
                proxy.stop()
            server.stop()

    def _os_restore(self, table: str, snapshot_id: int) -> None:
        o = self._os
        _, meta = o["data"].metadata(table)
        if meta["current-snapshot-id"] != snapshot_id:
            o["floe"].sql(f"CALL lakehouse.system.set_current_snapshot('{table}', {snapshot_id})")
            o["proxy"].preload(OBJECTSTORE_BUCKET)  # the new metadata file, so no run pays moto for it

    def _os_measure(self, engine: str, spec: dict, floe_sql: str) -> dict:
        """One run through the proxy: whole-process time, the answer, and the requests it made."""
        from . import measure

        o = self._os
        proxy = o["proxy"]
        proxy.reset()
        op = spec["op"]
        spawned = time.perf_counter()
        if engine == "floe":
            r = measure.run(o["floe"].argv([floe_sql], endpoint=spec["s3"]["endpoint"]), env=o["env"],
                            timeout=self.args.timeout)
            rows = [list(json.loads(line).values()) for line in r.stdout.splitlines() if line.startswith("{")]
            if op == "history":
                rows = [[len(rows)]]
            inproc = None
        else:
            spec = dict(spec, engine="floe" if engine == "floe-py" else engine, floe_sql=floe_sql,
                        catalog=str(o["floe"].catalog), warehouse=o["floe"].warehouse_uri,
                        duckdb_extensions=self.extensions)
            # floe's package and its pyarrow from .venv; the peers' DuckDB from build/bench-pylib.
            path = str(ROOT) if engine == "floe-py" else f"{setup.PYLIB}:{ROOT}"
            env = dict(o["env"], PYTHONPATH=path)
            r = measure.run([sys.executable, "-m", "bench.runner.child", json.dumps(spec)], env=env, cwd=str(ROOT),
                            timeout=self.args.timeout)
            rows, inproc = None, None
            for line in r.stdout.splitlines():
                if line.startswith("BENCH_RESULT "):
                    res = json.loads(line[len("BENCH_RESULT "):])
                    rows, inproc = res["rows"], res["inproc_ms"]
        counts = proxy.counts()
        # Where the process's time went: before its first request, while it made them, after.
        first, last = counts.pop("first_start"), counts.pop("last_end")
        if first is not None:
            counts["before_first_ms"] = round((first - spawned) * 1000, 1)
            counts["span_ms"] = round((last - first) * 1000, 1)
            counts["after_last_ms"] = round(r.wall_ms - (last - spawned) * 1000, 1)
        error = None
        if r.timed_out:
            error = f"timed out after {self.args.timeout:.0f} s"
        elif r.returncode != 0 or rows is None:
            error = (r.stderr.strip().splitlines() or ["no output"])[-1][:500]
        elif op == "rollback":
            _, meta = o["data"].metadata(spec["table"])
            rows = [[meta["current-snapshot-id"]]]
            if meta["current-snapshot-id"] != spec["snapshot_id"]:
                error = f"{engine} left {spec['table']} at {meta['current-snapshot-id']}, not {spec['snapshot_id']}"
        if error:
            log(f"  {engine}: FAILED: {error}")
        result = {"engine": engine, "wall_ms": round(r.wall_ms, 2), "inproc_ms": None if inproc is None else round(inproc, 2),
                  "peak_mb": round(r.peak_rss_mb, 1), "rows": rows, "error": error, "requests": counts}
        if engine in ("floe", "floe-py"):
            # Where each request went and when, for reading floe's critical path.
            with proxy._lock:
                reqs = list(proxy.requests)
            t0 = min((q.start for q in reqs), default=0)
            result["trace"] = [[q.method, q.kind, round((q.start - t0) * 1000, 2), round((q.end - q.start) * 1000, 2),
                                q.body_bytes] for q in reqs]
        return result

    def check(self) -> None:
        """Every run of every engine must return what floe's first run returned."""
        groups: dict[tuple, list[dict]] = {}
        for run in self.runs:
            groups.setdefault((run["group"], run["workload"], run.get("table"), run["size"]), []).append(run)
        for (group, workload, table, size), runs in groups.items():
            ref = next((r for r in runs if r["engine"] == "floe" and r["error"] is None), None)
            expected = self.expected.get((group, workload, table, size))
            if ref is not None and expected is not None and normalise(ref["rows"]) != normalise(expected):
                msg = f"{group}/{workload} on {table}: floe rep {ref['rep']} returned {ref['rows'][:5]}, expected {expected}"
                if msg not in self.mismatches:
                    self.mismatches.append(msg)
            for r in runs:
                r["agrees"] = None
                if r["error"] or ref is None or group == "rollback":
                    continue
                r["agrees"] = normalise(r["rows"]) == normalise(ref["rows"])
                if not r["agrees"]:
                    msg = f"{group}/{workload} on {table}: {r['engine']} rep {r['rep']} returned {r['rows'][:5]}, floe {ref['rows'][:5]}"
                    if msg not in self.mismatches:
                        self.mismatches.append(msg)
        for msg in self.mismatches:
            log(f"MISMATCH {msg}")

    def summary(self) -> list[dict]:
        rows: dict[tuple, list[dict]] = {}
        for run in self.runs:
            if run["error"] is None:
                key = (run["group"], run["workload"], run.get("table"), run["size"], run.get("label", ""), run["engine"])
                rows.setdefault(key, []).append(run)
        out = []
        failed: dict[tuple, str] = {}
        for run in self.runs:
            key = (run["group"], run["workload"], run.get("table"), run["size"], run.get("label", ""), run["engine"])
            if run["error"] is not None and key not in rows:
                failed[key] = run["error"]
        for (group, workload, table, size, label, engine), error in failed.items():
            out.append({"group": group, "workload": workload, "table": table, "size": size, "label": label,
                        "engine": engine, "runs": 0, "error": error, "median_ms": None, "ratio_floe_to_peer": None})
        for (group, workload, table, size, label, engine), runs in rows.items():
            wall = [r["wall_ms"] for r in runs]
            inproc = [r["inproc_ms"] for r in runs if r["inproc_ms"] is not None]
            out.append(
                {
                    "group": group, "workload": workload, "table": table, "size": size, "label": label, "engine": engine,
                    "runs": len(runs), "median_ms": statistics.median(wall), "min_ms": min(wall), "max_ms": max(wall),
                    "inproc_median_ms": statistics.median(inproc) if inproc else None,
                    "peak_mb": statistics.median(r["peak_mb"] for r in runs),
                    "agrees": all(r.get("agrees") is not False for r in runs),
                }
            )
            written = [r["written"] for r in runs if r.get("written")]
            if written:
                out[-1]["written"] = {k: statistics.median(w[k] for w in written) for k in written[0]}
            counted = [r["requests"] for r in runs if r.get("requests")]
            if counted:
                out[-1]["requests"] = median_counts(counted)
        floe = {(s["group"], s["workload"], s["table"], s["size"]): s["median_ms"] for s in out if s["engine"] == "floe"}
        for s in out:
            if s["median_ms"] is None:
                continue
            f = floe.get((s["group"], s["workload"], s["table"], s["size"]))
            s["ratio_floe_to_peer"] = (None if f is None or s["engine"] in ("floe", "floe-py")
                                       else round(f / s["median_ms"], 3))
        return out


def median_counts(counted: list[dict]) -> dict:
    """The median of each figure of the proxy's counts over runs (a count missing from a run is 0)."""
    out = {}
    for k in sorted({k for c in counted for k in c}):
        if any(isinstance(c.get(k), dict) for c in counted):
            names = sorted({n for c in counted for n in c.get(k, {})})
            out[k] = {n: statistics.median(c.get(k, {}).get(n, 0) for c in counted) for n in names}
        else:
            out[k] = statistics.median(c.get(k) or 0 for c in counted)
    return out


def note_group(note) -> str:
    """The group a note belongs to (notes of older results are plain strings)."""
    if isinstance(note, dict):
        return note["group"]
    head = note.split(" ", 1)[0].split(":", 1)[0].split("/", 1)[0]
    if head in GROUPS:
        return head
    if head.startswith("expire"):
        return "expire"
    return "scan"  # the only other notes: the several-files tables that were not split


def carried_over(out: Path, groups: set[str]) -> dict:
    """What an earlier result in `out` measured for the groups other than `groups`."""
    kept = {"sections": {}, "runs": [], "summary": [], "notes": [], "tables": {}, "mismatches": []}
    if not out.exists() or groups >= set(GROUPS):
        return kept
    old = json.loads(out.read_text())
    sections = old.get("sections") or {
        g: {k: old[k] for k in ("started", "finished", "options", "machine")} for g in old["options"]["groups"]
    }
    kept["sections"] = {g: v for g, v in sections.items() if g not in groups}
    kept["runs"] = [r for r in old["runs"] if r["group"] not in groups]
    kept["summary"] = [s for s in old["summary"] if s["group"] not in groups]
    kept["notes"] = [n if isinstance(n, dict) else {"group": note_group(n), "text": n}
                     for n in old["notes"] if note_group(n) not in groups]
    kept["mismatches"] = [m for m in old["mismatches"] if m.split("/", 1)[0] not in groups]
    kept["tables"] = dict(old["tables"])  # the groups run now overwrite the tables they write
    return kept


def main(argv: list[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    setup.ensure_packages()
    from . import machine, report

    if args.report_only:
        report.write(json.loads(Path(args.out).read_text()), Path(args.docs))
        log(f"bench: report -> {args.docs}")
        return

    started = dt.datetime.now(dt.timezone.utc)
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    runner = Runner(args)
    log(f"bench: engines {', '.join(args.engines)}; sizes {', '.join(map(size_label, args.sizes))}; {args.reps} reps")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # The groups this run leaves out keep their last figures: their runs, notes, tables and
    # the description of the run that measured them are carried over from --out.
    kept = carried_over(out, args.groups)
    if kept["sections"]:
        log(f"bench: keeping the last figures of {', '.join(sorted(kept['sections']))} from {out}")

    def save() -> dict:
        runner.check()
        options = {
            "sizes": args.sizes, "engines": args.engines, "reps": args.reps, "history": args.history,
            "append_rows": args.append_rows, "rowlevel_sizes": args.rowlevel_sizes,
            "compaction_files": args.compaction_files, "deletes_sizes": args.deletes_sizes, "groups": sorted(args.groups),
            "objectstore": {"rows": args.objectstore_rows, "files": args.objectstore_files,
                            "manifests": args.objectstore_manifests, "snapshots": args.objectstore_snapshots,
                            "latency_ms": args.objectstore_latency_ms, "bandwidth": args.objectstore_bandwidth,
                            "bandwidth_scope": "per connection"},
        }
        this_run = {
            "started": started.isoformat(timespec="seconds"),
            "finished": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "options": options,
            "machine": machine.describe(args.engines, runner.spark_python),
            "load_at_start": load_at_start,
        }
        runs = kept["runs"] + runner.runs
        mismatches = kept["mismatches"] + runner.mismatches
        result = {
            **this_run,
            "sections": {**kept["sections"], **{g: this_run for g in sorted(args.groups)}},
            "tables": {**kept["tables"], **runner.tables},
            "notes": kept["notes"] + [{"group": g, "text": t} for g, t in runner.notes],
            "mismatches": mismatches,
            "summary": kept["summary"] + runner.summary(),
            "runs": runs,
        }
        out.write_text(json.dumps(result, indent=1))
        return result

    runner.on_progress = save  # a run that stops half-way leaves every finished workload on disk
    steps = [("scan", runner.scans), ("timetravel", runner.time_travel), ("planning", runner.planning),
             ("rollback", runner.rollback), ("append", runner.append), ("expire", runner.expire),
             ("rowlevel", runner.rowlevel), ("compaction", runner.compaction), ("deletes", runner.deletes),
             ("objectstore", runner.objectstore)]
    for name, step in steps:
        if name in args.groups:
            log(f"== {name}")
            step()
            save()
    result = save()
    log(f"bench: {len(runner.runs)} runs -> {out}")
    if args.docs:
        report.write(result, Path(args.docs))
        log(f"bench: report -> {args.docs}")
    if runner.mismatches:
        log(f"bench: {len(runner.mismatches)} MISMATCHES between engines (see above and {out})")
        sys.exit(1)
