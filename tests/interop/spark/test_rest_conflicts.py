"""Sixteen writers race on one table through floe's Iceberg REST catalog (`floe serve --rest`):

- four Python threads on the suite's one SparkSession, through a `type=rest` Spark catalog on
  the server: `INSERT INTO ... VALUES` and `INSERT INTO ... REPLACE WHERE grp = G VALUES` (an
  overwrite of one partition);
- eight PyIceberg 0.12 RestCatalog clients on the server: `append`, and `overwrite` of one
  partition (a delete snapshot and an append snapshot in one commit, with PyIceberg's own
  conflict validation);
- four threads running `floe sql -c "INSERT INTO ..."`, which commit to the catalog database
  itself, beside the server.

Every write has a marker of its own, the `marker` column of each of its rows (PyIceberg's also
carry it as the snapshot property `race.marker`, floe's in `floe.statement`). Retries are the
clients' defaults (Iceberg's 4, PyIceberg's 4, floe's 4). Each write is recorded as
acknowledged (with its snapshot id when the client tells it) or refused (with its error: a
CommitFailedException for Spark, a 409 CommitFailedException or a ValidationException for
PyIceberg, floe's "gave up after 5 attempts"); any other outcome fails the test.

Then, from the final metadata file and every file it reaches, read directly (PyIceberg's
FileIO for the manifests, pyarrow for the data files):
- main's snapshot log is one chain (each entry's parent the entry before, or, for PyIceberg's
  overwrite, that commit's own delete snapshot on the entry before), with rising sequence
  numbers, and the table has no snapshot outside it;
- every acknowledged write is exactly one snapshot of that log, which adds exactly its rows
  (and the snapshot id its client was told); every snapshot is an acknowledged write; no
  refused write's marker is in any file or snapshot summary the table reaches;
- floe reads every snapshot as the rows the writes before it leave (appends add their rows,
  an overwrite of G first drops every row of G); Spark reads the final table so too;
- floe's audit log has the create and then exactly one commit row per acknowledged write, in
  the log's order, each naming its client;
- every file the final metadata reaches (metadata log, manifest lists, manifests, data files)
  exists;
- and conflicts happened: some commit was refused (409) or retried.
"""

from __future__ import annotations

import collections
import dataclasses
import io
import json
import os
import random
import re
import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from floe_serve import FloeServe
from names import name_for_test
from pyiceberg.catalog import load_catalog
from pyiceberg.expressions import EqualTo
from pyiceberg.manifest import ManifestEntryStatus
from pyiceberg.table import StaticTable

from .support import Floe, spark_rest_catalog

CAT = "floe_rest_race"  # a Spark catalog of its own: Spark keeps a catalog once it opened it
RUN_SECONDS = 20  # writers start no write after this
# The table is partitioned by grp. Appends go to grp 0..3, overwrites (of one grp) to 0..7:
# half of them to a grp only overwrites write, where only another overwrite conflicts.
APPEND_GROUPS, OVERWRITE_GROUPS = 4, 8
SPARK_THREADS, PYICEBERG_THREADS, FLOE_THREADS = 4, 8, 4
MAX_WRITES = {"spark": 12, "pyiceberg": 16, "floe": 12}  # per thread
OVERWRITE_SHARE = 0.3  # of Spark's and PyIceberg's writes
# What a refused write's client says: the server's 409 (Iceberg's words), through Iceberg's
# Java client, PyIceberg; PyIceberg's own check of an overwrite after a refused attempt; floe
# giving up after its retries.
MAIN_CHANGED = r"Requirement failed: branch main has changed: expected id \d+ != \d+"
REFUSALS = {
    "spark": re.compile(rf"org\.apache\.iceberg\.exceptions\.CommitFailedException: Commit failed: {MAIN_CHANGED}"),
    "pyiceberg": re.compile(rf"CommitFailedException: CommitFailedException: {MAIN_CHANGED}"
                            r"|ValidationException: Added data files were found matching the filter for snapshots .*"),
    "floe": re.compile(r"Error: Cannot write to (\S+): Cannot commit \1: gave up after 5 attempts "
                       r"\(commit\.retry\.num-retries=4\) because other writers kept committing first; "
                       r"last conflict: .*", re.S),
}
SEED = int(os.environ.get("FLOE_RACE_SEED", "20260"))

ARROW = pa.schema([("grp", pa.int32()), ("marker", pa.string()), ("n", pa.int32())])


@dataclasses.dataclass
class Write:
    engine: str  # spark, pyiceberg, floe
    marker: str
    kind: str  # append, overwrite
    grp: int
    rows: list[tuple[int, str, int]]
    status: str = "pending"  # ack, refused, or unexpected (the test fails)
    snapshot_id: int | None = None  # as the client was told, when it was
    error: str | None = None


def s3_properties(floe: Floe) -> dict[str, str]:
    """PyIceberg's FileIO settings for the lakehouse's S3 server (none on a local warehouse)."""
    if not floe.on_s3:
        return {}
    return {"s3.endpoint": floe.env["AWS_ENDPOINT_URL"], "s3.access-key-id": floe.env["AWS_ACCESS_KEY_ID"],
            "s3.secret-access-key": floe.env["AWS_SECRET_ACCESS_KEY"],
            "s3.region": floe.env.get("AWS_REGION", "us-east-1")}


@pytest.fixture(scope="module")
def race_rest(spark, lakehouse: Floe):
    """floe's REST server on the lakehouse, and the Spark catalog `floe_rest_race` on it, as
    test_rest_catalog.py sets up `floe_rest`."""
    server = spark_rest_catalog(spark, lakehouse, CAT)
    yield server
    server.stop(check=True)


def values(rows) -> str:
    return ", ".join(f"({g}, '{m}', {n})" for g, m, n in rows)


def plan(rnd: random.Random, engine: str, thread: int, k: int, overwrites: bool) -> Write:
    kind = "overwrite" if overwrites and rnd.random() < OVERWRITE_SHARE else "append"
    grp = rnd.randrange(OVERWRITE_GROUPS if kind == "overwrite" else APPEND_GROUPS)
    marker = f"{engine[0]}{thread}{kind[0]}{k:03d}"  # 6 characters, none inside another
    return Write(engine, marker, kind, grp, [(grp, marker, n) for n in range(rnd.randint(1, 3))])


class Race:
    """The writers, their writes and what the PyIceberg clients saw of their commits."""

    def __init__(self, spark, floe: Floe, server: FloeServe, ns: str):
        self.spark, self.floe, self.server, self.ns = spark, floe, server, ns
        self.writes: list[Write] = []
        self.lock = threading.Lock()
        self.responses: list[tuple[str, str, int]] = []  # PyIceberg's requests: method, path, status
        self.stop_at = 0.0

    def record(self, w: Write) -> None:
        if w.status != "ack":
            w.status = "refused" if REFUSALS[w.engine].fullmatch(w.error) else "unexpected"
        with self.lock:
            self.writes.append(w)

    def spark_writer(self, thread: int) -> None:
        rnd = random.Random(SEED * 100 + thread)
        t = f"{CAT}.{self.ns}.t"
        for k in range(MAX_WRITES["spark"]):
            if time.monotonic() >= self.stop_at:
                return
            w = plan(rnd, "spark", thread, k, overwrites=True)
            sql = (f"INSERT INTO {t} VALUES {values(w.rows)}" if w.kind == "append" else
                   f"INSERT INTO {t} REPLACE WHERE grp = {w.grp} VALUES {values(w.rows)}")
            try:
                self.spark.sql(sql)
                w.status = "ack"
            except Exception as e:  # noqa: BLE001 - classified by record()
                # Py4J's text: "An error occurred while calling o66.sql.\n: <the Java exception>\n\tat ..."
                text = str(e)
                java = re.search(r"^: (.*)$", text, re.M)
                w.error = java.group(1) if java else text
            self.record(w)

    def pyiceberg_writer(self, thread: int) -> None:
        rnd = random.Random(SEED * 100 + 20 + thread)
        catalog = load_catalog(f"race{thread}", type="rest", uri=self.server.uri, **s3_properties(self.floe))

        def seen(r, *args, **kwargs):
            with self.lock:
                self.responses.append((r.request.method, r.request.path_url, r.status_code))

        catalog._session.hooks["response"].append(seen)
        for k in range(MAX_WRITES["pyiceberg"]):
            if time.monotonic() >= self.stop_at:
                return
            w = plan(rnd, "pyiceberg", thread, k, overwrites=True)
            df = pa.Table.from_pylist([dict(zip(ARROW.names, r)) for r in w.rows], schema=ARROW)
            try:
                table = catalog.load_table(f"{self.ns}.t")
                if w.kind == "append":
                    table.append(df, snapshot_properties={"race.marker": w.marker})
                else:
                    table.overwrite(df, overwrite_filter=EqualTo("grp", w.grp),
                                    snapshot_properties={"race.marker": w.marker})
                # The commit's answer is the metadata it made: main is this write's snapshot.
                w.snapshot_id = table.current_snapshot().snapshot_id
                w.status = "ack"
            except Exception as e:  # noqa: BLE001 - classified by record()
                w.error = f"{type(e).__name__}: {e}"
            self.record(w)
            time.sleep(rnd.uniform(0, 0.3))

    def floe_writer(self, thread: int) -> None:
        rnd = random.Random(SEED * 100 + 40 + thread)
        for k in range(MAX_WRITES["floe"]):
            if time.monotonic() >= self.stop_at:
                return
            w = plan(rnd, "floe", thread, k, overwrites=False)
            statement = f"INSERT INTO {self.floe.catalog_name}.{self.ns}.t VALUES {values(w.rows)}"
            proc = self.floe.cli("sql", "-q", "-c", statement)
            if proc.returncode == 0:
                w.status = "ack"
            else:
                w.error = proc.stderr.strip()
            self.record(w)
            time.sleep(rnd.uniform(0.5, 1.5))

    def run(self) -> float:
        threads = [threading.Thread(target=self.spark_writer, args=(i,)) for i in range(SPARK_THREADS)]
        threads += [threading.Thread(target=self.pyiceberg_writer, args=(i,)) for i in range(PYICEBERG_THREADS)]
        threads += [threading.Thread(target=self.floe_writer, args=(i,)) for i in range(FLOE_THREADS)]
        started = time.monotonic()
        self.stop_at = started + RUN_SECONDS
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
            assert not t.is_alive(), "a writer still runs after five minutes"
        return time.monotonic() - started


class Reached:
    """The final metadata and everything it reaches, read straight from storage."""

    def __init__(self, metadata_location: str, properties: dict[str, str]):
        self.location = metadata_location
        table = StaticTable.from_metadata(metadata_location, properties=properties)
        self.io = table.io
        with self.io.new_input(metadata_location).open() as f:
            self.md = json.loads(f.read())
        self.snapshots = {s["snapshot-id"]: s for s in self.md["snapshots"]}
        self.missing: list[str] = []
        self.added: dict[int, set[str]] = collections.defaultdict(set)  # snapshot -> data files it added
        self.deleted: dict[int, set[str]] = collections.defaultdict(set)  # snapshot -> data files it removed
        self.rows: dict[str, collections.Counter] = {}  # data file -> its rows
        for entry in self.md.get("metadata-log", []):
            self.check_exists(entry["metadata-file"])
        data_files: set[str] = set()
        for snapshot in table.metadata.snapshots:
            if not self.check_exists(snapshot.manifest_list):
                continue
            for manifest in snapshot.manifests(self.io):
                if not self.check_exists(manifest.manifest_path):
                    continue
                assert manifest.content.value == 0, f"{manifest.manifest_path}: a delete manifest"
                for e in manifest.fetch_manifest_entry(self.io, discard_deleted=False):
                    path = e.data_file.file_path
                    data_files.add(path)
                    if e.status == ManifestEntryStatus.ADDED:
                        self.added[e.snapshot_id].add(path)
                    elif e.status == ManifestEntryStatus.DELETED:
                        self.deleted[e.snapshot_id].add(path)
        for path in sorted(data_files):
            if self.check_exists(path):
                with self.io.new_input(path).open() as f:
                    data = pq.read_table(io.BytesIO(f.read()))
                self.rows[path] = collections.Counter(
                    (r["grp"], r["marker"], r["n"]) for r in data.select(["grp", "marker", "n"]).to_pylist())

    def check_exists(self, path: str) -> bool:
        if self.io.new_input(path).exists():
            return True
        self.missing.append(path)
        return False

    def added_rows(self, snapshot_id: int) -> collections.Counter:
        out = collections.Counter()
        for path in self.added.get(snapshot_id, ()):
            out += self.rows.get(path, collections.Counter())
        return out


# PyIceberg's overwrite of a grp that holds no rows says so.
@pytest.mark.filterwarnings("ignore:Delete operation did not match any records:UserWarning")
def test_sixteen_writers_race_through_floe_rest(spark, lakehouse: Floe, race_rest, request):
    ns = name_for_test(request, prefix="c")
    spark.sql(f"CREATE NAMESPACE {CAT}.{ns}")
    spark.sql(f"CREATE TABLE {CAT}.{ns}.t (grp INT, marker STRING, n INT) USING iceberg "
              "PARTITIONED BY (grp) TBLPROPERTIES ('format-version' = '2')")
    spark.sql(f"INSERT INTO {CAT}.{ns}.t VALUES (0, 'warmup', 0)")  # Spark plans its first write slowly

    race = Race(spark, lakehouse, race_rest, ns)
    took = race.run()
    writes = race.writes
    by_marker = {w.marker: w for w in writes}
    assert len(by_marker) == len(writes)
    acked = [w for w in writes if w.status == "ack"]
    refused = [w for w in writes if w.status == "refused"]
    unexpected = [w for w in writes if w.status == "unexpected"]
    counts = collections.Counter((w.engine, w.kind, w.status) for w in writes)
    print(f"\n{len(writes)} writes in {took:.1f} s: " + ", ".join(
        f"{e} {k} {s}: {n}" for (e, k, s), n in sorted(counts.items())))
    for w in refused[:12]:
        print(f"refused {w.engine} {w.kind} {w.marker}: {w.error}")
    assert not unexpected, "writes that failed otherwise than by a conflict:\n" + "\n".join(
        f"{w.engine} {w.kind} {w.marker}: {w.error}" for w in unexpected)
    # Every writer got some writes through.
    for engine in ("spark", "pyiceberg", "floe"):
        assert any(w.engine == engine for w in acked), f"no {engine} write was acknowledged"
    assert any(w.kind == "overwrite" for w in acked), "no overwrite was acknowledged"
    # No answer of the server to PyIceberg was a 5xx; its refusals were 409s.
    statuses = collections.Counter(status for _, _, status in race.responses)
    assert not [r for r in race.responses if r[2] >= 500], race.responses
    assert set(statuses) <= {200, 409}, statuses

    # The final metadata and every file it reaches.
    rest_catalog = load_catalog("race-check", type="rest", uri=race_rest.uri, **s3_properties(lakehouse))
    reached = Reached(rest_catalog.load_table(f"{ns}.t").metadata_location, s3_properties(lakehouse))
    md, snaps = reached.md, reached.snapshots
    assert reached.missing == [], f"files the final metadata reaches are missing: {reached.missing}"

    # Main's snapshot log: one chain, ending at main, every snapshot of the table on it (or a
    # PyIceberg overwrite's delete snapshot, under the append of the same commit).
    log = [e["snapshot-id"] for e in md["snapshot-log"]]
    assert len(set(log)) == len(log), f"a snapshot is twice in the log: {log}"
    assert set(md["refs"]) == {"main"}
    assert log[-1] == md["current-snapshot-id"] == md["refs"]["main"]["snapshot-id"]
    inside: dict[int, list[int]] = {}  # log entry -> the commit's other snapshots, under it
    previous = None
    for sid in log:
        parent, between = snaps[sid].get("parent-snapshot-id"), []
        while parent != previous and parent in snaps and parent not in log:
            between.append(parent)
            parent = snaps[parent].get("parent-snapshot-id")
        assert parent == previous, (
            f"snapshot {sid} of the log has parent {snaps[sid].get('parent-snapshot-id')}, "
            f"not the entry before it, {previous}")
        inside[sid] = between
        previous = sid
    assert sorted(snaps) == sorted([*log, *(s for b in inside.values() for s in b)]), "snapshots off main's log"
    chain = [s for sid in log for s in (*reversed(inside[sid]), sid)]
    sequence = [snaps[s]["sequence-number"] for s in chain]
    assert sequence == sorted(set(sequence)), f"sequence numbers not rising along main: {sequence}"
    assert md["last-sequence-number"] == sequence[-1]

    # Each snapshot of the log is one acknowledged write: it adds exactly that write's rows.
    writer_of: dict[int, Write] = {}
    for sid in log:
        added = reached.added_rows(sid)
        markers = {m for _, m, _ in added}
        if markers == {"warmup"}:
            assert sid == log[0] and not inside[sid]
            continue
        assert len(markers) == 1, f"snapshot {sid} adds the rows of {sorted(markers)}"
        w = by_marker.get(markers.pop())
        assert w is not None, f"snapshot {sid} adds rows of no write: {added}"
        assert w.status == "ack", f"snapshot {sid} is {w.engine}'s {w.kind} {w.marker}, refused: {w.error}"
        assert added == collections.Counter(w.rows), f"snapshot {sid} adds {added}, {w.marker} wrote {w.rows}"
        assert w.marker not in {x.marker for x in writer_of.values()}, f"{w.marker} made two snapshots"
        writer_of[sid] = w
        if w.snapshot_id is not None:
            assert w.snapshot_id == sid, f"{w.marker} was told snapshot {w.snapshot_id}, its rows are in {sid}"
        summary = snaps[sid]["summary"]
        if w.engine == "pyiceberg":
            assert summary.get("race.marker") == w.marker, summary
        if w.engine == "floe":
            assert summary.get("floe.statement") == (
                f"INSERT INTO {lakehouse.catalog_name}.{ns}.t VALUES {values(w.rows)}"), summary
        # An append removes nothing; an overwrite of G removes files of G only (floe's reads
        # below show it removed them all).
        removed = set().union(*(reached.deleted.get(x, set()) for x in (sid, *inside[sid])))
        assert {g for path in removed for g, _, _ in reached.rows[path]} <= (
            {w.grp} if w.kind == "overwrite" else set()), f"{w.kind} {w.marker} removed {sorted(removed)}"
        for other in inside[sid]:  # only a PyIceberg overwrite commits two snapshots
            assert (w.engine, w.kind) == ("pyiceberg", "overwrite"), (
                f"snapshot {other} between {sid} and its parent, from {w.engine}'s {w.kind}")
            assert snaps[other]["summary"].get("race.marker") == w.marker, snaps[other]["summary"]
            assert not reached.added.get(other), f"{w.marker}'s delete snapshot {other} adds files"
    assert sorted(w.marker for w in writer_of.values()) == sorted(w.marker for w in acked), (
        "acknowledged writes without a snapshot: "
        f"{sorted({w.marker for w in acked} - {w.marker for w in writer_of.values()})}")

    # No refused write left a trace: not in any file the table reaches, nor in any summary.
    everywhere = collections.Counter()
    for rows in reached.rows.values():
        everywhere.update(m for _, m, _ in rows)
    summaries = json.dumps([s["summary"] for s in snaps.values()])
    for w in refused:
        assert everywhere[w.marker] == 0, f"refused {w.engine} {w.kind} {w.marker} has rows in the table's files"
        assert w.marker not in summaries, f"refused {w.engine} {w.kind} {w.marker} is in a snapshot summary"

    # Each snapshot holds the rows the writes before it leave: floe reads every one.
    want: dict[int, collections.Counter] = {}
    state = collections.Counter()
    for sid in log:
        w = writer_of.get(sid)
        if w is not None and w.kind == "overwrite":
            state = collections.Counter({r: c for r, c in state.items() if r[0] != w.grp})
            for other in inside[sid]:
                want[other] = state
        state = state + reached.added_rows(sid)
        want[sid] = state
    statements = [f"SELECT {sid} AS at, grp, marker, n FROM {lakehouse.catalog_name}.{ns}.t VERSION AS OF {sid}"
                  for sid in want]
    got = collections.defaultdict(collections.Counter)
    for r in lakehouse.sql(*statements):
        got[r["at"]][(r["grp"], r["marker"], r["n"])] += 1
    for sid, rows in want.items():
        assert got.get(sid, collections.Counter()) == rows, (
            f"floe reads snapshot {sid} ({writer_of[sid].marker if sid in writer_of else 'delete'}) as "
            f"{sorted(got.get(sid, {}).items())}, expected {sorted(rows.items())}")
    # Spark reads main, and sees the snapshots and history of the metadata.
    final = collections.Counter(tuple(r) for r in spark.sql(f"SELECT grp, marker, n FROM {CAT}.{ns}.t").collect())
    assert final == want[log[-1]]
    assert sorted(tuple(r) for r in spark.sql(f"SELECT snapshot_id, parent_id FROM {CAT}.{ns}.t.snapshots").collect()) \
        == sorted((s, snaps[s].get("parent-snapshot-id")) for s in snaps)
    assert [r.snapshot_id for r in spark.sql(f"SELECT snapshot_id FROM {CAT}.{ns}.t.history").collect()] == log

    # floe's audit log: the create, then one commit row per acknowledged write, in the log's order.
    entries = lakehouse.audit(f"{ns}.t")
    assert [e["kind"] for e in entries[:2]] == ["create", "commit"] and entries[1]["snapshot_id"] == log[0]
    commits = entries[2:]
    assert [e["kind"] for e in commits] == ["commit"] * len(commits), [e["kind"] for e in commits]
    assert [e["snapshot_id"] for e in commits] == log[1:], "audit rows do not follow main's log one to one"
    assert [e["previous_snapshot_id"] for e in commits] == log[:-1]
    for e in commits:
        assert [(r["name"], r["from_snapshot_id"], r["to_snapshot_id"]) for r in e["refs"]] == [
            ("main", e["previous_snapshot_id"], e["snapshot_id"])], e
        w = writer_of[e["snapshot_id"]]
        client = {"floe": r"floe sql", "pyiceberg": r"rest \(PyIceberg/0\.12\.0\)",
                  # Iceberg's Java client sends its HTTP library's User-Agent.
                  "spark": r"rest \(Apache-HttpClient/[\d.]+ \(Java/[\w.]+\)\)"}[w.engine]
        assert re.fullmatch(client, e["client"] or ""), (w.engine, w.marker, e)

    # Conflicts really happened: a refusal, a 409 PyIceberg retried, or a Spark commit that
    # took more than one attempt (Iceberg numbers them in the manifest list's name).
    spark_retried = [writer_of[s].marker for s in log[1:] if writer_of[s].engine == "spark"
                     and not re.search(r"/snap-\d+-1-[^/]+\.avro$", snaps[s]["manifest-list"])]
    print(f"PyIceberg's answers {dict(statuses)}; Spark commits retried: {len(spark_retried)}; "
          f"refused: {len(refused)}; snapshots: {len(snaps)}")
    assert refused or statuses[409] or spark_retried, "no write conflicted: the race proved nothing"
