"""The workloads: the SQL each engine runs, and the shared names the report uses.

Every query workload reads one table at one snapshot; `{t}` is the engine's way to name it
at that snapshot (floe and Spark: `db.t VERSION AS OF id`; DuckDB: `iceberg_scan(...)`)."""

from __future__ import annotations

# Scan workloads: name -> (title, SQL over {t}). ORDER BY keeps row order comparable.
SCANS: dict[str, tuple[str, str]] = {
    "count": ("count(*)", "SELECT count(*) FROM {t}"),
    "count_sum": ("count(*), sum(v)", "SELECT count(*), sum(v) FROM {t}"),
    "group_mod10": (
        "GROUP BY id % 10: count, avg",
        "SELECT id % 10 AS k, count(*), avg(v) FROM {t} GROUP BY id % 10 ORDER BY k",
    ),
    "range_filter": (
        "WHERE id BETWEEN 1000000 AND 1100000: count, sum",
        "SELECT count(*), sum(v) FROM {t} WHERE id BETWEEN 1000000 AND 1100000",
    ),
    "top3": ("ORDER BY v DESC LIMIT 3", "SELECT id, v FROM {t} ORDER BY v DESC LIMIT 3"),
}

# Time travel over a table with many snapshots.
TIME_TRAVEL: dict[str, str] = {
    "ts_as_of": "count(*) at TIMESTAMP AS OF (snapshot resolution)",
    "history": "SELECT * FROM t.history (all rows fetched)",
}

# Planning over many files: the partition filter should prune manifests.
PLANNING: dict[str, tuple[str, str]] = {
    "plan_all": ("count(*), no filter", "SELECT count(*) FROM {t}"),
    "plan_p7": ("count(*) WHERE p = 7", "SELECT count(*) FROM {t} WHERE p = 7"),
}

# Row-level writes on db.rl_<mode>_<size> (id BIGINT, v DOUBLE; range(N) in one snapshot),
# one table per write mode. `{t}` is the target, `{src}` the MERGE source (db.rl_src_<size>).
MODES: dict[str, str] = {"cow": "copy-on-write", "mor": "merge-on-read"}
ROWLEVEL_DELETE = "DELETE FROM {t} WHERE id % 100 = 0"
ROWLEVEL_MERGE = (
    "MERGE INTO {t} t USING {src} s ON t.id = s.id "
    "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *"
)
MERGE_UPDATES = 90_000  # source rows that match a target row (spread evenly over the ids)
MERGE_INSERTS = 10_000  # source rows with new ids
ROWLEVEL: dict[str, str] = {
    **{f"delete_{m}": f"DELETE FROM t WHERE id % 100 = 0 (1% of the rows, spread over the table), {name}"
       for m, name in MODES.items()},
    **{f"scan_{m}": f"count(*), sum(v) of the table a {name} DELETE left" for m, name in MODES.items()},
    **{f"merge_{m}": f"MERGE INTO t of {MERGE_UPDATES // 1000}k updated and {MERGE_INSERTS // 1000}k new rows, {name}"
       for m, name in MODES.items()},
}

# Compaction of db.compact_<files> (many small files) into 128 MB targets, from its first
# snapshot every run. `{t}` is the table's name as the engine's CALL takes it.
COMPACTION_TARGET = 128 * 1024 * 1024
COMPACTION_ROWS_PER_FILE = 2_000
COMPACTION_CALL = (
    "CALL lakehouse.system.rewrite_data_files(table => '{t}', "
    f"options => map('target-file-size-bytes', '{COMPACTION_TARGET}'))"
)
COMPACTION: dict[str, str] = {
    "rewrite_data_files": "rewrite_data_files (bin-pack) of many small files into 128 MB targets",
}

# Scans of a table a tenth of whose rows a merge-on-read DELETE removed, db.dv_<version>_<size>
# (id BIGINT, v DOUBLE; range(N) in one data file), once per format version: v3 keeps the
# deletes as one deletion vector per data file in a Puffin file, v2 as Parquet position delete
# files. `{t}` is the table, as in ROWLEVEL_DELETE.
DELETE_VERSIONS: dict[str, str] = {"v3": "v3, deletion vectors", "v2": "v2, position delete files"}
DELETES_DELETE = "DELETE FROM {t} WHERE id % 10 = 0"
DELETES_SCANS = ("count", "count_sum")  # workloads of SCANS
DELETES: dict[str, str] = {
    **{w: f"{SCANS[w][0]} of a table a tenth of whose rows are deleted" for w in DELETES_SCANS},
    "delete": "DELETE FROM t WHERE id % 10 = 0 (a tenth of the rows), merge-on-read, by floe",
}


def deletes_expected(rows: int, workload: str) -> list[list]:
    """What count(*) (and sum(v)) of range(rows) as (id, id * 0.5) is once the ids divisible by
    10 are deleted."""
    gone = (rows + 9) // 10  # 0, 10, 20, ... below rows
    n = rows - gone
    s = 0.5 * (rows * (rows - 1) // 2 - 10 * (gone * (gone - 1) // 2))
    return [[n]] if workload == "count" else [[n, s]]


ENGINES = ("floe", "duckdb", "pyiceberg", "spark")


def parse_size(text: str) -> int:
    """'1K' -> 1000, '20M' -> 20_000_000, '7' -> 7."""
    text = text.strip().upper()
    mult = {"K": 1_000, "M": 1_000_000, "G": 1_000_000_000}.get(text[-1:], 1)
    digits = text[:-1] if mult != 1 else text
    if not digits.isdigit():
        raise ValueError(f"bad size '{text}': use a number with K, M or G, e.g. 20M")
    return int(digits) * mult


def size_label(n: int) -> str:
    for mult, suffix in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "K")):
        if n >= mult and n % mult == 0:
            return f"{n // mult}{suffix}"
    return str(n)


# The object store group: tables in a bucket of a moto server, read through
# tests/support/s3_fault_proxy.py, which adds a delay to every answer and caps each
# connection's bandwidth. Workload -> (title, the round trips that must follow one another
# on its critical path: metadata file -> manifest list -> manifests -> data file footers ->
# data; a count(*) with no deletes needs no data file, .history only the metadata file, a
# rollback reads the metadata file and writes the next one).
OBJECTSTORE_SCANS = ("count_sum", "group_mod10", "range_filter", "top3")  # workloads of SCANS
OBJECTSTORE: dict[str, tuple[str, int]] = {
    "version_as_of": ("count(*), sum(v) VERSION AS OF an old snapshot (many manifests and data files)", 5),
    "ts_as_of": ("count(*) at TIMESTAMP AS OF (many snapshots)", 3),
    "history": ("SELECT * FROM t.history (many snapshots, all rows fetched)", 1),
    **{w: (SCANS[w][0], 5) for w in OBJECTSTORE_SCANS},
    "rollback": ("rollback_to_snapshot (a metadata-only commit)", 2),
}
# Engines of the group: floe's CLI, floe's Python package (each in a process of its own), and
# the peers that read S3. Spark needs Hadoop's S3A jars, which scripts/setup-spark.sh does not
# fetch.
OBJECTSTORE_ENGINES = ("floe", "floe-py", "duckdb", "pyiceberg")
OBJECTSTORE_ROLLBACK_ENGINES = ("floe", "floe-py", "pyiceberg")  # DuckDB commits only to REST catalogs
OBJECTSTORE_BUCKET = "bench"
OBJECTSTORE_ROWS_PER_FILE = 100  # rows of each data file of the time-travel table
OBJECTSTORE_LATER_SNAPSHOTS = 5  # appends after the snapshot VERSION AS OF reads


def range_expected(rows: int, workload: str) -> list[list] | None:
    """What count(*) (and sum(v)) of range(rows) as (id, id * 0.5) are."""
    s = 0.5 * (rows * (rows - 1) // 2)
    return {"count": [[rows]], "count_sum": [[rows, s]]}.get(workload)
