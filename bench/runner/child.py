"""One measured run of a peer engine, in its own process:
    python -m bench.runner.child '<json spec>'
Start-up (imports, connection, Spark session) happens before the clock starts; the last line
on stdout is `BENCH_RESULT {"rows": [...], "inproc_ms": ...}`."""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path

MARK = "BENCH_RESULT "


def metadata_location(spec: dict) -> str:
    ns, name = spec["table"].split(".")
    with sqlite3.connect(f"file:{spec['catalog']}?mode=ro", uri=True) as con:
        row = con.execute(
            "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = 'lakehouse' "
            "AND table_namespace = ? AND table_name = ?",
            (ns, name),
        ).fetchone()
    if row is None:
        raise SystemExit(f"table {spec['table']} is not in catalog {spec['catalog']}")
    return row[0]


def plain_rows(rows) -> list[list]:
    return [[v if isinstance(v, (int, float, str)) or v is None else str(v) for v in r] for r in rows]


# floe: the Python package in this process, on the runner's catalog, running the statement
# the floe CLI runs; the clock covers the statement and its result as a pyarrow Table (the
# package's native result; plain rows only for the few-row answers).
def run_floe(spec: dict) -> tuple[list, float]:
    import floe

    s3 = spec.get("s3")
    conn = floe.connect(catalog=spec["catalog"], warehouse=spec["warehouse"],
                        **({"s3": {k: s3[k] for k in ("endpoint", "access_key_id", "secret_access_key", "region")}}
                           if s3 else {}))
    start = time.perf_counter()
    table = conn.sql(spec["floe_sql"])
    if spec["op"] == "history":
        rows = [[table.num_rows]]
    elif spec["op"] == "rollback":
        rows = []  # the runner reads what the catalog then points to
    else:
        rows = [list(r.values()) for r in table.to_pylist()]
    elapsed = (time.perf_counter() - start) * 1000
    conn.close()
    return plain_rows(rows), elapsed


# DuckDB: iceberg_scan over the metadata file the catalog points to (DuckDB has no JDBC
# catalog), extensions loaded from the pinned wheels with auto-install and auto-load off.
def run_duckdb(spec: dict) -> tuple[list, float]:
    import duckdb

    con = duckdb.connect()
    con.execute("SET autoinstall_known_extensions=false")
    con.execute("SET autoload_known_extensions=false")
    s3 = spec.get("s3")
    for ext in ("avro", "iceberg") + (("httpfs",) if s3 else ()):
        con.execute(f"LOAD '{spec['duckdb_extensions'][ext]}'")
    if s3:
        host = s3["endpoint"].removeprefix("http://")
        con.execute(f"CREATE SECRET bench_s3 (TYPE s3, KEY_ID '{s3['access_key_id']}', "
                    f"SECRET '{s3['secret_access_key']}', REGION '{s3['region']}', ENDPOINT '{host}', "
                    "URL_STYLE 'path', USE_SSL false)")
    start = time.perf_counter()
    loc = metadata_location(spec).replace("'", "''")
    op = spec["op"]
    if op == "query":
        src = f"iceberg_scan('{loc}'"
        if spec.get("snapshot_id") is not None:
            src += f", snapshot_from_id={int(spec['snapshot_id'])}"
        rows = con.sql(spec["sql"].format(t=src + ")")).fetchall()
    elif op == "ts_as_of":
        ts = spec["timestamp"]
        rows = con.sql(
            f"SELECT count(*) FROM iceberg_scan('{loc}', snapshot_from_timestamp=TIMESTAMP '{ts}')"
        ).fetchall()
    elif op == "history":
        rows = [[len(con.sql(f"SELECT * FROM iceberg_snapshots('{loc}')").fetchall())]]
    else:
        raise SystemExit(f"duckdb cannot run {op}")
    return plain_rows(rows), (time.perf_counter() - start) * 1000


# PyIceberg: the SQL catalog on the same SQLite file, scans to Arrow, pyarrow.compute on top.
def run_pyiceberg(spec: dict) -> tuple[list, float]:
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.expressions import And, EqualTo, GreaterThanOrEqual, LessThanOrEqual

    s3 = spec.get("s3")
    if s3:
        # pyarrow's S3 file system, pointed at the endpoint the runner gives.
        catalog = SqlCatalog("lakehouse", uri=f"sqlite:///{spec['catalog']}", warehouse=spec["warehouse"],
                             **{"py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO", "s3.endpoint": s3["endpoint"],
                                "s3.access-key-id": s3["access_key_id"],
                                "s3.secret-access-key": s3["secret_access_key"], "s3.region": s3["region"]})
    else:
        catalog = SqlCatalog("lakehouse", uri=f"sqlite:///{spec['catalog']}", warehouse=f"file://{spec['warehouse']}")
    op = spec["op"]
    data = None
    if op == "append":
        # The rows are built before the clock starts: the append itself is measured.
        ids = pa.array(range(spec["append_rows"]), pa.int64())
        data = pa.table({"id": ids, "v": pc.multiply(ids, 0.5)})
    start = time.perf_counter()
    table = catalog.load_table(spec["table"])
    sid = spec.get("snapshot_id")
    w = spec.get("workload")
    if op == "append":
        table.append(data)
        rows = [[data.num_rows]]
    elif op == "ts_as_of":
        snap = table.snapshot_as_of_timestamp(spec["timestamp_ms"])
        rows = [[table.scan(snapshot_id=snap.snapshot_id).count()]]
    elif op == "history":
        rows = [[table.inspect.history().num_rows]]
    elif op == "rollback":
        table.manage_snapshots().rollback_to_snapshot(int(spec["snapshot_id"])).commit()
        rows = []
    elif w in ("count", "plan_all"):
        rows = [[table.scan(snapshot_id=sid).count()]]
    elif w == "plan_p7":
        rows = [[table.scan(snapshot_id=sid, row_filter=EqualTo("p", 7)).count()]]
    elif w == "count_sum":
        a = table.scan(snapshot_id=sid, selected_fields=("v",)).to_arrow()
        rows = [[a.num_rows, pc.sum(a["v"]).as_py()]]
    elif w == "range_filter":
        flt = And(GreaterThanOrEqual("id", 1_000_000), LessThanOrEqual("id", 1_100_000))
        a = table.scan(snapshot_id=sid, row_filter=flt, selected_fields=("id", "v")).to_arrow()
        rows = [[a.num_rows, pc.sum(a["v"]).as_py() if a.num_rows else None]]
    elif w == "group_mod10":
        a = table.scan(snapshot_id=sid, selected_fields=("id", "v")).to_arrow()
        k = pc.subtract(a["id"], pc.multiply(pc.divide(a["id"], 10), 10))  # ids are >= 0
        g = pa.table({"k": k, "v": a["v"]}).group_by("k").aggregate([("v", "count"), ("v", "mean")])
        g = g.sort_by("k")
        rows = [[r["k"], r["v_count"], r["v_mean"]] for r in g.to_pylist()]
    elif w == "top3":
        a = table.scan(snapshot_id=sid, selected_fields=("id", "v")).to_arrow()
        top = a.take(pc.select_k_unstable(a, 3, [("v", "descending")]))
        top = top.sort_by([("v", "descending")])
        rows = [[r["id"], r["v"]] for r in top.to_pylist()]
    else:
        raise SystemExit(f"pyiceberg cannot run {w or op}")
    return plain_rows(rows), (time.perf_counter() - start) * 1000


# Spark 3.5 + Iceberg 1.10 in local mode on one core: Iceberg's JDBC catalog `lakehouse` on
# floe's SQLite file.
def spark_session(spec: dict):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    from spark_lakehouse import lakehouse_session

    local = Path(spec["spark_local"])
    local.mkdir(parents=True, exist_ok=True)
    return lakehouse_session(
        app="floe-bench",
        classpath=spec["spark_classpath"],
        catalog_db=spec["catalog"],
        warehouse=spec["warehouse"],
        local_dir=local,
        memory=spec.get("spark_memory", "2g"),
    )


def run_spark(spec: dict) -> tuple[list, float]:
    spark = spark_session(spec)
    spark.sql("SHOW NAMESPACES IN lakehouse").collect()  # catalog connection is start-up
    start = time.perf_counter()
    name = f"lakehouse.{spec['table']}"
    op = spec["op"]
    if op == "query":
        rows = spark.sql(spec["sql"].format(t=f"{name} VERSION AS OF {int(spec['snapshot_id'])}")).collect()
    elif op == "ts_as_of":
        rows = spark.sql(f"SELECT count(*) FROM {name} TIMESTAMP AS OF '{spec['timestamp']}'").collect()
    elif op == "history":
        rows = [[len(spark.sql(f"SELECT * FROM {name}.history").collect())]]
    elif op == "append":
        n = int(spec["append_rows"])
        spark.sql(f"INSERT INTO {name} SELECT id, id * 0.5 FROM range({n})").collect()
        rows = [[n]]
    elif op == "dml":
        # A row-level write (DELETE, MERGE INTO); what it left is read back by the runner.
        src = f"lakehouse.{spec['source']}" if spec.get("source") else ""
        spark.sql(spec["sql"].format(t=name, src=src)).collect()
        rows = []
    else:
        raise SystemExit(f"spark cannot run {op}")
    elapsed = (time.perf_counter() - start) * 1000
    out = plain_rows([list(r) for r in rows])
    spark.stop()
    return out, elapsed


def main() -> None:
    spec = json.loads(sys.argv[1])
    runner = {"floe": run_floe, "duckdb": run_duckdb, "pyiceberg": run_pyiceberg, "spark": run_spark}[spec["engine"]]
    rows, ms = runner(spec)
    sys.stdout.write(MARK + json.dumps({"rows": rows, "inproc_ms": ms}) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
