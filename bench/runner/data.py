"""The benchmark tables, written by floe itself into a warehouse of their own, and reused when
their stamp (build/bench-data/stamps/<table>.json) says they were built from the same spec."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path

from .workloads import DELETE_VERSIONS, DELETES_DELETE, MERGE_INSERTS, MERGE_UPDATES, MODES, size_label

STAMP_FORMAT = 1
BIG_FILE_BYTES = 64 * 1024**3  # larger than any table here: one data file per insert
SMALL_FILE_BYTES = 64 * 1024**2


def widen_history(meta: dict, old_location: str, snapshots: int, spacing_ms: int, seed: int) -> dict:
    """Rewrites `meta`, the metadata at `old_location` of a table with one snapshot, to hold
    `snapshots` snapshots `spacing_ms` apart that share its manifest list (committing them one
    by one would take hours): the last takes the real commit's time, the others go back from
    it. Returns where TIMESTAMP AS OF half a step after the middle snapshot resolves: its
    time (`as_of_ms`, `as_of`) and that snapshot's id, with every id (`ids`, oldest first)."""
    base = meta["snapshots"][0]
    rng = random.Random(seed)
    ids: list[int] = [base["snapshot-id"]]
    seen = set(ids)
    while len(ids) < snapshots:
        sid = rng.getrandbits(63)
        if sid and sid not in seen:
            seen.add(sid)
            ids.append(sid)
    end_ms = base["timestamp-ms"]
    snaps, log = [], []
    for i, sid in enumerate(ids):
        ts = end_ms - (snapshots - 1 - i) * spacing_ms
        s = dict(base)
        s.update({"snapshot-id": sid, "sequence-number": i + 1, "timestamp-ms": ts})
        if i:
            s["parent-snapshot-id"] = ids[i - 1]
            summary = dict(base["summary"])
            for k in ("added-data-files", "added-records", "added-files-size", "changed-partition-count"):
                summary[k] = "0"
            s["summary"] = summary
        snaps.append(s)
        log.append({"timestamp-ms": ts, "snapshot-id": sid})
    meta.update({"snapshots": snaps, "snapshot-log": log, "last-sequence-number": snapshots,
                 "current-snapshot-id": ids[-1], "refs": {"main": {"snapshot-id": ids[-1], "type": "branch"}},
                 "last-updated-ms": max(meta["last-updated-ms"], end_ms)})
    meta["metadata-log"] = meta.get("metadata-log", []) + [
        {"timestamp-ms": meta["last-updated-ms"], "metadata-file": old_location}
    ]
    mid = snapshots // 2
    as_of_ms = end_ms - (snapshots - 1 - mid) * spacing_ms + spacing_ms // 2
    return {"ids": ids, "as_of_ms": as_of_ms,
            "as_of": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(as_of_ms // 1000)) + f".{as_of_ms % 1000:03d}",
            "as_of_snapshot_id": ids[mid]}


class Floe:
    """build/floe sql on the benchmark catalog."""

    def __init__(self, binary: Path, warehouse: Path):
        self.binary = binary
        self.warehouse = warehouse
        self.catalog = warehouse / "catalog.db"

    def argv(self, statements: list[str], fmt: str = "json") -> list[str]:
        cmd = [str(self.binary), "sql", "--catalog", str(self.catalog), "--warehouse", str(self.warehouse)]
        cmd += ["--format", fmt, "-q"]
        for s in statements:
            cmd += ["-c", s]
        return cmd

    def sql(self, *statements: str) -> list[dict]:
        proc = subprocess.run(self.argv(list(statements)), capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"floe failed on {statements[0][:200]!r}...: {proc.stderr.strip()}")
        return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]

    def procedures(self) -> set[str]:
        return {r["procedure_name"] for r in self.sql("SHOW PROCEDURES")}


class Data:
    def __init__(self, floe: Floe, log):
        self.floe = floe
        self.log = log
        self.stamps = floe.warehouse / "stamps"
        self.stamps.mkdir(parents=True, exist_ok=True)

    def _stamp(self, name: str) -> Path:
        return self.stamps / f"{name}.json"

    def _cached(self, name: str, spec: dict) -> dict | None:
        try:
            entry = json.loads(self._stamp(name).read_text())
        except (OSError, ValueError):
            return None
        if entry.get("format") == STAMP_FORMAT and entry["spec"] == spec and self._exists(name):
            return entry["info"]
        return None

    def _exists(self, name: str) -> bool:
        with sqlite3.connect(self.floe.catalog) as con:
            return con.execute(
                "SELECT 1 FROM iceberg_tables WHERE table_namespace = 'db' AND table_name = ?", (name,)
            ).fetchone() is not None

    def _record(self, name: str, spec: dict, info: dict) -> dict:
        entry = {"format": STAMP_FORMAT, "spec": spec, "info": info}
        self._stamp(name).write_text(json.dumps(entry, indent=1, sort_keys=True))
        return info

    def _fresh(self, name: str, columns: str, props: dict, partitioned_by: str = "") -> None:
        self._stamp(name).unlink(missing_ok=True)
        tblprops = ", ".join(f"'{k}'='{v}'" for k, v in props.items())
        part = f" PARTITIONED BY ({partitioned_by})" if partitioned_by else ""
        self.floe.sql(
            "CREATE NAMESPACE IF NOT EXISTS db",
            f"DROP TABLE IF EXISTS db.{name} PURGE",
            f"CREATE TABLE db.{name} ({columns}) USING iceberg{part} TBLPROPERTIES ({tblprops})",
        )

    def snapshots(self, name: str) -> list[dict]:
        rows = self.floe.sql(f"SELECT snapshot_id, committed_at FROM db.{name}.snapshots ORDER BY committed_at")
        return rows

    def file_count(self, name: str, snapshot_id: int) -> int:
        rows = self.floe.sql(f"SELECT count(*) AS n FROM db.{name}.files VERSION AS OF {snapshot_id}")
        return int(rows[0]["n"])

    def scan_table(self, rows: int, several_files: bool) -> dict:
        """db.t_<size> (one file) or db.tf_<size> (64 MB target): `range(rows)` as the first
        snapshot, the one read, then ten more rows as a second snapshot."""
        name = f"{'tf' if several_files else 't'}_{size_label(rows)}"
        target = SMALL_FILE_BYTES if several_files else BIG_FILE_BYTES
        spec = {"rows": rows, "target_file_size": target, "second_insert_rows": 10}
        info = self._cached(name, spec)
        if info:
            return info
        self.log(f"data: writing db.{name} ({rows} rows)")
        t0 = time.perf_counter()
        self._fresh(name, "id BIGINT, v DOUBLE", {"write.target-file-size-bytes": target})
        self.floe.sql(f"INSERT INTO db.{name} SELECT id, id * 0.5 FROM range({rows})")
        self.floe.sql(f"INSERT INTO db.{name} SELECT id, id * 0.5 FROM range(10)")
        snaps = self.snapshots(name)
        first, second = int(snaps[0]["snapshot_id"]), int(snaps[1]["snapshot_id"])
        info = {
            "table": f"db.{name}",
            "rows": rows,
            "snapshot_id": first,
            "second_snapshot_id": second,
            "data_files": self.file_count(name, first),
            "write_s": round(time.perf_counter() - t0, 2),
        }
        return self._record(name, spec, info)

    def plan_table(self, inserts: int = 100, partitions: int = 100, rows_per_partition: int = 10) -> dict:
        """db.plan: `inserts` appends of `partitions` partitions each, manifests never merged,
        so `inserts` manifests and inserts * partitions data files."""
        name = "plan"
        spec = {"inserts": inserts, "partitions": partitions, "rows_per_partition": rows_per_partition}
        info = self._cached(name, spec)
        if info:
            return info
        self.log(f"data: writing db.{name} ({inserts} inserts of {partitions} partitions)")
        t0 = time.perf_counter()
        self._fresh(name, "id BIGINT, v DOUBLE, p INT", {"commit.manifest-merge.enabled": "false"}, "p")
        per = partitions * rows_per_partition
        stmts = [
            f"INSERT INTO db.{name} SELECT id + {i * per} AS id, id * 0.5 AS v, "
            f"CAST(id % {partitions} AS INT) AS p FROM range({per})"
            for i in range(inserts)
        ]
        for chunk in range(0, len(stmts), 25):
            self.floe.sql(*stmts[chunk : chunk + 25])
        snaps = self.snapshots(name)
        last = int(snaps[-1]["snapshot_id"])
        manifests = self.floe.sql(f"SELECT count(*) AS n FROM db.{name}.manifests")[0]["n"]
        info = {
            "table": f"db.{name}",
            "rows": inserts * per,
            "snapshot_id": last,
            "data_files": self.file_count(name, last),
            "manifests": int(manifests),
            "write_s": round(time.perf_counter() - t0, 2),
        }
        return self._record(name, spec, info)

    def history_table(self, snapshots: int) -> dict:
        """db.h_<n>: one real append, then its metadata rewritten to hold `snapshots` snapshots,
        one second apart, all sharing the append's manifest list (committing them one by one
        would take hours). The new metadata file is registered by swapping the catalog's
        pointer, as a commit would."""
        name = f"h_{size_label(snapshots)}"
        spec = {"snapshots": snapshots, "rows": 1000, "spacing_ms": 1000, "seed": 7}
        info = self._cached(name, spec)
        if info:
            return info
        self.log(f"data: writing db.{name} ({snapshots} snapshots)")
        t0 = time.perf_counter()
        self._fresh(name, "id BIGINT, v DOUBLE", {"write.target-file-size-bytes": BIG_FILE_BYTES})
        self.floe.sql(f"INSERT INTO db.{name} SELECT id, id * 0.5 FROM range(1000)")
        with sqlite3.connect(self.floe.catalog) as con:
            (old,) = con.execute(
                "SELECT metadata_location FROM iceberg_tables WHERE table_namespace = 'db' AND table_name = ?",
                (name,),
            ).fetchone()
        meta = json.loads(Path(old).read_text())
        at = widen_history(meta, old, snapshots, spec["spacing_ms"], spec["seed"])
        old_path = Path(old)
        version = int(old_path.name.split("-", 1)[0]) + 1
        new = old_path.with_name(f"{version:05d}-{uuid.uuid4()}.metadata.json")
        new.write_text(json.dumps(meta))
        with sqlite3.connect(self.floe.catalog) as con:
            cur = con.execute(
                "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? "
                "WHERE table_namespace = 'db' AND table_name = ? AND metadata_location = ?",
                (str(new), old, name, old),
            )
            if cur.rowcount != 1:
                raise RuntimeError(f"db.{name} changed while its history was being written")
        info = {
            "table": f"db.{name}",
            "snapshots": snapshots,
            "rows": 1000,
            "as_of_ms": at["as_of_ms"],
            "as_of": at["as_of"],
            "as_of_snapshot_id": at["as_of_snapshot_id"],
            "metadata_bytes": new.stat().st_size,
            "write_s": round(time.perf_counter() - t0, 2),
        }
        return self._record(name, spec, info)

    def empty_table(self, name: str) -> str:
        """An empty unpartitioned (id, v) table for appends; recreated for every run."""
        self._fresh(name, "id BIGINT, v DOUBLE", {"write.target-file-size-bytes": BIG_FILE_BYTES})
        return f"db.{name}"

    def metadata(self, table: str) -> tuple[str, dict]:
        """The table's current metadata file (as the catalog points to it) and its JSON."""
        ns, name = table.split(".")
        with sqlite3.connect(self.floe.catalog) as con:
            (loc,) = con.execute(
                "SELECT metadata_location FROM iceberg_tables WHERE table_namespace = ? AND table_name = ?",
                (ns, name),
            ).fetchone()
        path = loc.removeprefix("file:").removeprefix("//")
        return path, json.loads(Path(path).read_text())

    def rowlevel_table(self, rows: int, mode: str) -> dict:
        """db.rl_<mode>_<size>: `range(rows)` as (id, id * 0.5) in one snapshot, the state every
        row-level write starts from; write.delete/update/merge.mode set to the mode."""
        name = f"rl_{mode}_{size_label(rows)}"
        props = {f"write.{op}.mode": MODES[mode] for op in ("delete", "update", "merge")}
        props["write.target-file-size-bytes"] = BIG_FILE_BYTES
        spec = {"rows": rows, "props": props}
        info = self._cached(name, spec)
        if info:
            return info
        self.log(f"data: writing db.{name} ({rows} rows, {MODES[mode]})")
        t0 = time.perf_counter()
        self._fresh(name, "id BIGINT, v DOUBLE", props)
        self.floe.sql(f"INSERT INTO db.{name} SELECT id, id * 0.5 FROM range({rows})")
        snaps = self.snapshots(name)
        _, meta = self.metadata(f"db.{name}")
        info = {
            "table": f"db.{name}",
            "rows": rows,
            "snapshot_id": int(snaps[0]["snapshot_id"]),
            "data_files": self.file_count(name, int(snaps[0]["snapshot_id"])),
            "location": meta["location"].removeprefix("file:").removeprefix("//"),
            "write_s": round(time.perf_counter() - t0, 2),
        }
        return self._record(name, spec, info)

    def deletes_table(self, rows: int, version: str) -> dict:
        """db.dv_<version>_<size>: `range(rows)` as (id, id * 0.5) in one snapshot and one data
        file, then `DELETE FROM t WHERE id % 10 = 0` merge-on-read as the second: at format
        version 3 the deletes are a deletion vector, at 2 a position delete file. The second
        snapshot is the one read; the first is where every timed DELETE starts from."""
        name = f"dv_{version}_{size_label(rows)}"
        props = {"format-version": version.removeprefix("v"), "write.delete.mode": "merge-on-read",
                 "write.target-file-size-bytes": BIG_FILE_BYTES}
        spec = {"rows": rows, "props": props, "delete": DELETES_DELETE}
        info = self._cached(name, spec)
        if info:
            return info
        self.log(f"data: writing db.{name} ({rows} rows, {DELETE_VERSIONS[version]})")
        t0 = time.perf_counter()
        self._fresh(name, "id BIGINT, v DOUBLE", props)
        self.floe.sql(f"INSERT INTO db.{name} SELECT id, id * 0.5 FROM range({rows})")
        self.floe.sql(DELETES_DELETE.format(t=f"db.{name}"))
        _, meta = self.metadata(f"db.{name}")
        snap = next(s for s in meta["snapshots"] if s["snapshot-id"] == meta["current-snapshot-id"])
        base, deleted, summary = int(snap["parent-snapshot-id"]), int(snap["snapshot-id"]), snap["summary"]
        info = {
            "table": f"db.{name}",
            "rows": rows,
            "format_version": meta["format-version"],
            "snapshot_id": base,
            "deleted_snapshot_id": deleted,
            "data_files": int(summary["total-data-files"]),
            "delete_files": int(summary.get("total-delete-files", 0)),
            "dvs": int(summary.get("added-dvs", 0)),
            "deleted_rows": int(summary.get("total-position-deletes", 0)),
            "location": meta["location"].removeprefix("file:").removeprefix("//"),
            "write_s": round(time.perf_counter() - t0, 2),
        }
        return self._record(name, spec, info)

    def merge_source(self, rows: int) -> dict:
        """db.rl_src_<size>: MERGE_UPDATES rows whose ids are spread evenly over range(rows),
        with v = id * 0.5 + 1 (an update of every matched row), and MERGE_INSERTS rows with ids
        from `rows` on (inserts)."""
        name = f"rl_src_{size_label(rows)}"
        step = rows // MERGE_UPDATES
        spec = {"rows": rows, "updates": MERGE_UPDATES, "inserts": MERGE_INSERTS, "step": step}
        info = self._cached(name, spec)
        if info:
            return info
        self.log(f"data: writing db.{name} ({MERGE_UPDATES} updates, {MERGE_INSERTS} inserts)")
        t0 = time.perf_counter()
        self._fresh(name, "id BIGINT, v DOUBLE", {"write.target-file-size-bytes": BIG_FILE_BYTES})
        self.floe.sql(
            f"INSERT INTO db.{name} SELECT id * {step} AS id, id * {step} * 0.5 + 1 AS v FROM range({MERGE_UPDATES})",
            f"INSERT INTO db.{name} SELECT id + {rows} AS id, id * 0.5 AS v FROM range({MERGE_INSERTS})",
        )
        info = {
            "table": f"db.{name}",
            "rows": MERGE_UPDATES + MERGE_INSERTS,
            "updates": MERGE_UPDATES,
            "inserts": MERGE_INSERTS,
            "write_s": round(time.perf_counter() - t0, 2),
        }
        return self._record(name, spec, info)

    def compaction_table(self, files: int, rows_per_file: int) -> dict:
        """db.compact_<files>: `files` appends of `rows_per_file` rows (id, id * 0.5) each, so
        `files` small data files, the state every compaction run starts from."""
        name = f"compact_{size_label(files)}"
        props = {"write.target-file-size-bytes": BIG_FILE_BYTES}
        spec = {"files": files, "rows_per_file": rows_per_file, "props": props}
        info = self._cached(name, spec)
        if info:
            return info
        self.log(f"data: writing db.{name} ({files} appends of {rows_per_file} rows)")
        t0 = time.perf_counter()
        self._fresh(name, "id BIGINT, v DOUBLE", props)
        batch = 100  # statements per floe process
        for first in range(0, files, batch):
            self.floe.sql(*[
                f"INSERT INTO db.{name} SELECT id + {i * rows_per_file}, (id + {i * rows_per_file}) * 0.5 "
                f"FROM range({rows_per_file})"
                for i in range(first, min(first + batch, files))
            ])
        snaps = self.snapshots(name)
        last = int(snaps[-1]["snapshot_id"])
        _, meta = self.metadata(f"db.{name}")
        info = {
            "table": f"db.{name}",
            "rows": files * rows_per_file,
            "snapshot_id": last,
            "data_files": self.file_count(name, last),
            "location": meta["location"].removeprefix("file:").removeprefix("//"),
            "write_s": round(time.perf_counter() - t0, 2),
        }
        return self._record(name, spec, info)


class S3Floe(Floe):
    """build/floe sql on a SQLite catalog whose warehouse is s3://<bucket>/wh, reaching the
    bucket at `endpoint` (the moto server itself, or the proxy in front of it)."""

    def __init__(self, binary: Path, catalog: Path, bucket: str, endpoint: str, env: dict):
        super().__init__(binary, catalog.parent)
        self.catalog = catalog
        self.bucket = bucket
        self.warehouse_uri = f"s3://{bucket}/wh"
        self.endpoint = endpoint
        self.env = env

    def argv(self, statements: list[str], fmt: str = "json", endpoint: str | None = None) -> list[str]:
        cmd = [str(self.binary), "sql", "--catalog", str(self.catalog), "--warehouse", self.warehouse_uri,
               "--s3-endpoint", endpoint or self.endpoint, "--format", fmt, "-q"]
        for s in statements:
            cmd += ["-c", s]
        return cmd

    def sql(self, *statements: str) -> list[dict]:
        proc = subprocess.run(self.argv(list(statements)), capture_output=True, text=True, env=self.env)
        if proc.returncode != 0:
            raise RuntimeError(f"floe failed on {statements[0][:200]!r}...: {proc.stderr.strip()}")
        return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


class ObjectStoreData:
    """The object store group's tables, written by floe straight into a bucket of a fresh moto
    server (not through the proxy), on a catalog of their own; moto keeps nothing between runs,
    so they are written anew every run."""

    def __init__(self, floe: S3Floe, s3_client, log):
        self.floe = floe
        self.s3 = s3_client
        self.log = log

    def _create(self, name: str, columns: str, props: dict, partitioned_by: str = "") -> None:
        tblprops = ", ".join(f"'{k}'='{v}'" for k, v in props.items())
        part = f" PARTITIONED BY ({partitioned_by})" if partitioned_by else ""
        self.floe.sql("CREATE NAMESPACE IF NOT EXISTS os",
                      f"CREATE TABLE os.{name} ({columns}) USING iceberg{part} TBLPROPERTIES ({tblprops})")

    def location(self, table: str) -> str:
        ns, name = table.split(".")
        with sqlite3.connect(self.floe.catalog) as con:
            (loc,) = con.execute("SELECT metadata_location FROM iceberg_tables WHERE table_namespace = ? "
                                 "AND table_name = ?", (ns, name)).fetchone()
        return loc

    def _key(self, uri: str) -> str:
        prefix = f"s3://{self.floe.bucket}/"
        if not uri.startswith(prefix):
            raise RuntimeError(f"{uri} is not in s3://{self.floe.bucket}")
        return uri[len(prefix):]

    def metadata(self, table: str) -> tuple[str, dict]:
        loc = self.location(table)
        body = self.s3.get_object(Bucket=self.floe.bucket, Key=self._key(loc))["Body"].read()
        return loc, json.loads(body)

    def object_sizes(self, prefix: str) -> dict[str, int]:
        out = {}
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.floe.bucket, Prefix=prefix):
            out.update({o["Key"]: o["Size"] for o in page.get("Contents", [])})
        return out

    def _sizes(self, table: str) -> dict:
        """The bytes of the table's files by kind, for the critical-path estimate."""
        _, name = table.split(".")
        sizes = self.object_sizes(f"wh/os/{name}/")
        data = [n for k, n in sizes.items() if k.endswith(".parquet")]
        manifests = [n for k, n in sizes.items() if k.endswith(".avro") and "/snap-" not in k]
        return {"data_bytes": sum(data), "largest_data_file": max(data, default=0),
                "largest_manifest": max(manifests, default=0),
                "metadata_file_bytes": sizes.get(self._key(self.location(table)), 0)}

    def time_travel_table(self, files: int, manifests: int) -> dict:
        """os.tt: `manifests` appends of files / manifests partitions each, OBJECTSTORE_ROWS_PER_FILE
        rows a partition, manifests never merged: at its `manifests`-th snapshot, the one read,
        `manifests` manifests and `files` data files. OBJECTSTORE_LATER_SNAPSHOTS appends of
        one partition follow, so that snapshot is an old one."""
        from .workloads import OBJECTSTORE_LATER_SNAPSHOTS, OBJECTSTORE_ROWS_PER_FILE

        if files % manifests:
            raise SystemExit(f"--objectstore-files {files} is not a multiple of --objectstore-manifests {manifests}")
        parts, per_file = files // manifests, OBJECTSTORE_ROWS_PER_FILE
        per = parts * per_file
        self.log(f"objectstore: writing os.tt ({manifests} appends of {parts} partitions) into the bucket")
        t0 = time.perf_counter()
        self._create("tt", "id BIGINT, v DOUBLE, p INT", {"commit.manifest-merge.enabled": "false"}, "p")
        stmts = [f"INSERT INTO os.tt SELECT id + {i * per} AS id, (id + {i * per}) * 0.5 AS v, "
                 f"CAST(id % {parts} AS INT) AS p FROM range({per})" for i in range(manifests)]
        for chunk in range(0, len(stmts), 25):
            self.floe.sql(*stmts[chunk:chunk + 25])
        _, meta = self.metadata("os.tt")
        old = meta["current-snapshot-id"]
        rows = manifests * per
        self.floe.sql(*[f"INSERT INTO os.tt SELECT id + {rows + i * per_file}, (id + {rows + i * per_file}) * 0.5, "
                        f"CAST(0 AS INT) FROM range({per_file})" for i in range(OBJECTSTORE_LATER_SNAPSHOTS)])
        _, meta = self.metadata("os.tt")
        n_manifests = self.floe.sql(f"SELECT count(*) AS n FROM os.tt.manifests VERSION AS OF {old}")[0]["n"]
        n_files = self.floe.sql(f"SELECT count(*) AS n FROM os.tt.files VERSION AS OF {old}")[0]["n"]
        return {"table": "os.tt", "rows": rows, "snapshot_id": old, "current_snapshot_id": meta["current-snapshot-id"],
                "snapshots": len(meta["snapshots"]), "manifests": int(n_manifests), "data_files": int(n_files),
                **self._sizes("os.tt"), "write_s": round(time.perf_counter() - t0, 2)}

    def history_table(self, snapshots: int) -> dict:
        """os.h: one real append of 1,000 rows, then its metadata rewritten to hold `snapshots`
        snapshots one second apart sharing the append's manifest list (as Data.history_table
        does on local disk), uploaded as the next metadata file and registered by swapping the
        catalog's pointer."""
        self.log(f"objectstore: writing os.h ({snapshots} snapshots) into the bucket")
        t0 = time.perf_counter()
        self._create("h", "id BIGINT, v DOUBLE", {"write.target-file-size-bytes": BIG_FILE_BYTES})
        self.floe.sql("INSERT INTO os.h SELECT id, id * 0.5 FROM range(1000)")
        old, meta = self.metadata("os.h")
        at = widen_history(meta, old, snapshots, 1000, 7)
        name = old.rsplit("/", 1)[1]
        version = int(name.split("-", 1)[0]) + 1
        new = f"{old.rsplit('/', 1)[0]}/{version:05d}-{uuid.uuid4()}.metadata.json"
        body = json.dumps(meta).encode()
        self.s3.put_object(Bucket=self.floe.bucket, Key=self._key(new), Body=body)
        with sqlite3.connect(self.floe.catalog) as con:
            cur = con.execute("UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? "
                              "WHERE table_namespace = 'os' AND table_name = 'h' AND metadata_location = ?",
                              (new, old, old))
            if cur.rowcount != 1:
                raise RuntimeError("os.h changed while its history was being written")
        return {"table": "os.h", "snapshots": snapshots, "rows": 1000, "as_of_ms": at["as_of_ms"],
                "as_of": at["as_of"], "as_of_snapshot_id": at["as_of_snapshot_id"],
                "snapshot_id": at["as_of_snapshot_id"], "current_snapshot_id": at["ids"][-1],
                "metadata_bytes": len(body), **self._sizes("os.h"), "write_s": round(time.perf_counter() - t0, 2)}

    def scan_table(self, rows: int) -> dict:
        """os.t: range(rows) as (id, id * 0.5) in one data file as the first snapshot, the one
        read, then ten more rows as a second."""
        self.log(f"objectstore: writing os.t ({rows} rows) into the bucket")
        t0 = time.perf_counter()
        self._create("t", "id BIGINT, v DOUBLE", {"write.target-file-size-bytes": BIG_FILE_BYTES})
        self.floe.sql(f"INSERT INTO os.t SELECT id, id * 0.5 FROM range({rows})")
        self.floe.sql("INSERT INTO os.t SELECT id, id * 0.5 FROM range(10)")
        _, meta = self.metadata("os.t")
        first = next(s for s in meta["snapshots"] if "parent-snapshot-id" not in s)["snapshot-id"]
        return {"table": "os.t", "rows": rows, "snapshot_id": first, "current_snapshot_id": meta["current-snapshot-id"],
                "data_files": self.floe.sql(f"SELECT count(*) AS n FROM os.t.files VERSION AS OF {first}")[0]["n"],
                **self._sizes("os.t"), "write_s": round(time.perf_counter() - t0, 2)}
