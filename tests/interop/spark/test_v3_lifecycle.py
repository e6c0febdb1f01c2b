"""floe's table maintenance and inspection on format-version 3 tables Spark 3.5 with Iceberg
1.10 wrote, merge-on-read: deletion vectors (DVs) in Puffin files, one Puffin file holding the
DVs of two data files, DVs replaced by merged ones (their Puffin files then reached by older
snapshots only), UPDATE and MERGE, a compaction and DVs written after it.

- Expiry twins: the same Spark history twice; Spark's expire_snapshots on one, floe's on the
  other, after floe's dry run on both: the same counts (a Puffin file counts as one position
  delete file, however many DVs it holds), each run deletes exactly what floe's dry run named
  and never a Puffin file the kept snapshot reaches; each engine reads the table the other
  expired, row lineage included; the table's directory holds exactly what is kept.
- Orphans: a stray Puffin file and a stray Parquet file beside the table's data are all floe's
  remove_orphan_files finds with every file of the table older than older_than (dry run, then
  the run); the live Puffin files stay as they were; every snapshot reads the same in both
  engines afterwards.
- `floe verify` checks every file of the table, each Puffin file once, and names a live Puffin
  file deleted behind the table's back (exit status 2).
- `floe diff` and `floe changes` over ranges across DV-only deletes and an UPDATE report what
  Spark's `VERSION AS OF` reads differ by; floe's create_changelog_view of the merge-on-read
  table (which Spark's changelog refuses: "Delete files are currently not supported in
  changelog scans") equals Spark's view of a copy-on-write v3 twin, snapshot ids aside.
"""

import datetime as dt
import json
import os
from collections import Counter

import pytest

from .support import SPARK_DDL, as_floe_text, make_rows, to_spark
from .test_floe_reads_spark_v3 import LINEAGE_COLUMNS, MERGE_ON_READ

# tests/support, on sys.path through support.py's floe_driver and conftest.py.
import s3_server  # noqa: E402
from names import name_for_test  # noqa: E402

COPY_ON_WRITE = MERGE_ON_READ.replace("merge-on-read", "copy-on-write")


# ---- reading every snapshot in both engines ----


def spark_snapshot(spark, table: str, snapshot_id: int) -> list[dict]:
    """A snapshot's rows with their lineage columns, as floe's JSON output writes values."""
    rows = spark.sql(f"SELECT *, {LINEAGE_COLUMNS} FROM lakehouse.{table} VERSION AS OF {snapshot_id}").collect()
    return sorted(({k: as_floe_text(v) for k, v in r.asDict().items()} for r in rows), key=lambda r: r["id"])


def floe_snapshots(floe, table: str, snapshot_ids: list[int]) -> dict[int, list[dict]]:
    """Each snapshot's rows with their lineage columns, read by one floe process."""
    statements = [f"SELECT {i} AS _at, *, {LINEAGE_COLUMNS} FROM lakehouse.{table} VERSION AS OF {snapshot_id}"
                  for i, snapshot_id in enumerate(snapshot_ids)]
    out = {snapshot_id: [] for snapshot_id in snapshot_ids}
    for r in floe.sql(*statements, decimals=True):
        out[snapshot_ids[r.pop("_at")]].append(r)
    return {k: sorted(v, key=lambda r: r["id"]) for k, v in out.items()}


def check_snapshots_read_alike(spark, floe, table: str, snapshot_ids: list[int]) -> None:
    """floe reads every snapshot as Spark does: each row, its _row_id and its
    _last_updated_sequence_number."""
    ours = floe_snapshots(floe, table, snapshot_ids)
    for snapshot_id in snapshot_ids:
        theirs = spark_snapshot(spark, table, snapshot_id)
        assert ours[snapshot_id] == theirs, f"{table} at snapshot {snapshot_id}"
        assert all(r["_row_id"] is not None and r["_last_updated_sequence_number"] is not None for r in theirs)


# ---- files ----


def local(floe, path: str) -> str:
    """A location as files_under names it (file:///x and file:/x as /x)."""
    return floe.location(path.replace("file://", "file:", 1))


def table_dir(spark, floe, table: str) -> str:
    location = spark.sql(f"SELECT file FROM lakehouse.{table}.metadata_log_entries ORDER BY timestamp DESC "
                         "LIMIT 1").first()[0]
    return local(floe, location.rsplit("/", 2)[0])


def without_crc(paths: set[str]) -> set[str]:
    # Spark's local file system writes (and deletes) .crc checksums beside its files.
    return {p for p in paths if not p.endswith(".crc")}


def spark_paths(spark, floe, sql: str) -> set[str]:
    """The locations a Spark query's first column names, as files_under names them."""
    return {local(floe, r[0]) for r in spark.sql(sql).collect()}


def _s3(floe, location: str):
    bucket, _, key = location.removeprefix("s3://").partition("/")
    return s3_server.client(floe.env["AWS_ENDPOINT_URL"]), bucket, key


def put_file(floe, location: str, data: bytes) -> None:
    if location.startswith("s3://"):
        client, bucket, key = _s3(floe, location)
        client.put_object(Bucket=bucket, Key=key, Body=data)
    else:
        with open(location, "wb") as f:
            f.write(data)


def get_file(floe, location: str) -> bytes:
    if location.startswith("s3://"):
        client, bucket, key = _s3(floe, location)
        return client.get_object(Bucket=bucket, Key=key)["Body"].read()
    with open(location, "rb") as f:
        return f.read()


def delete_file(floe, location: str) -> None:
    if location.startswith("s3://"):
        client, bucket, key = _s3(floe, location)
        client.delete_object(Bucket=bucket, Key=key)
    else:
        os.remove(location)


def puffins_reached(spark, table: str, snapshots: list[int]) -> tuple[list[str], dict[int, set[str]]]:
    """The Puffin files of the table in the order snapshots added them, and the ones each
    snapshot reaches (by index): those holding a DV the snapshot has, from the all_entries
    table (a DV is live from the snapshot that added it to the one that removed it)."""
    entries = spark.sql(
        f"SELECT status, snapshot_id, data_file.file_path AS puffin, data_file.referenced_data_file AS data_file "
        f"FROM lakehouse.{table}.all_entries WHERE data_file.content = 1 AND status <> 0").collect()
    assert entries and all(e.puffin.endswith(".puffin") for e in entries), entries
    added, removed = {}, {}
    for e in entries:
        (added if e.status == 1 else removed)[(e.puffin, e.data_file)] = snapshots.index(e.snapshot_id)
    order = sorted({p for p, _ in added}, key=lambda p: min(i for (q, _), i in added.items() if q == p))
    reached = {i: {p for (p, d), a in added.items() if a <= i < removed.get((p, d), len(snapshots))}
               for i in range(len(snapshots))}
    current = spark.sql(f"SELECT DISTINCT file_path FROM lakehouse.{table}.delete_files").collect()
    assert {r.file_path for r in current} == reached[len(snapshots) - 1], (table, entries)
    return order, reached


# ---- 1. expiry twins ----

# Each statement's snapshot, and the DVs it leaves. Data files: A (ids 1-30), B (31-50), U (the
# UPDATE's rows 40-42), K (the compaction of B and U).
HISTORY = [
    "INSERT INTO {t} SELECT * FROM rows_a",  # s0: A
    "INSERT INTO {t} SELECT * FROM rows_b",  # s1: B
    "DELETE FROM {t} WHERE id IN (2, 33)",  # s2: P1 holds DV(A) and DV(B)
    "DELETE FROM {t} WHERE id IN (4, 5)",  # s3: DV(A) merged into P2; P1 still holds the live DV(B)
    # s4: DV(B) merged into P3 (P1 is reached by s2 and s3 only), and U.
    "UPDATE {t} SET amount = amount + 1, customer = 'upd' WHERE id BETWEEN 40 AND 42",
    "DELETE FROM {t} WHERE id = 10",  # s5: DV(A) merged into P4 (P2 is reached by s3 and s4)
    # s6: B and U compacted into K; DV(B) in P3 goes with B. A and P4 stay.
    "CALL lakehouse.system.rewrite_data_files(table => '{name}', where => 'id >= 31', "
    "options => map('rewrite-all', 'true'))",
    "DELETE FROM {t} WHERE id = 45",  # s7: DV(K) in P5. The current snapshot reaches P4 and P5.
]
OPERATIONS = ["append", "append", "delete", "delete", "overwrite", "delete", "replace", "delete"]
# Which of P1-P5 each snapshot reaches.
REACHED = [[], [], [1], [1, 2], [2, 3], [3, 4], [4], [4, 5]]


def write_history(spark, table: str) -> tuple[list[int], list[str], dict[int, set[str]]]:
    """Creates the v3 merge-on-read table and runs HISTORY in Spark. Returns the snapshot ids,
    oldest first, the Puffin files P1-P5 and the ones each snapshot reaches, checked with Spark
    alone."""
    spark.sql(f"CREATE TABLE lakehouse.{table} ({SPARK_DDL}) USING iceberg "
              f"TBLPROPERTIES ('format-version' = '3', {MERGE_ON_READ})")
    for i, rows in enumerate([make_rows(1, 30), make_rows(31, 20)]):
        to_spark(spark, rows).createOrReplaceTempView("rows_" + "ab"[i])
    for statement in HISTORY:
        spark.sql(statement.format(t=f"lakehouse.{table}", name=table)).collect()
    snaps = spark.sql(f"SELECT snapshot_id, operation, summary FROM lakehouse.{table}.snapshots "
                      "ORDER BY committed_at").collect()
    assert [s.operation for s in snaps] == OPERATIONS, f"{table}: {snaps}"
    s = [r.snapshot_id for r in snaps]
    p, reached = puffins_reached(spark, table, s)
    assert len(p) == 5, p
    assert [sorted(p.index(x) + 1 for x in reached[i]) for i in range(len(s))] == REACHED, reached
    shared = spark.sql(f"SELECT DISTINCT data_file.referenced_data_file FROM lakehouse.{table}.all_entries "
                       f"WHERE data_file.file_path = '{p[0]}'").collect()
    assert len(shared) == 2, f"{table}: P1 holds the DVs of two data files: {shared}"
    assert int(snaps[3].summary["removed-dvs"]) == 1 and int(snaps[4].summary["removed-dvs"]) == 1, snaps
    return s, p, reached


def counts(row) -> list[int]:
    return [int(row[k]) for k in (
        "deleted_data_files_count", "deleted_position_delete_files_count", "deleted_equality_delete_files_count",
        "deleted_manifest_files_count", "deleted_manifest_lists_count", "deleted_statistics_files_count")]


def test_floe_and_spark_expire_v3_twins_alike(spark, lakehouse, ns):
    floe = lakehouse
    ours, theirs = f"{ns}.expire_floe", f"{ns}.expire_spark"
    history = {t: write_history(spark, t) for t in (ours, theirs)}
    snaps = {t: history[t][0] for t in (ours, theirs)}
    # The twins are alike: the same rows, with the same row ids and sequence numbers.
    current = spark_snapshot(spark, theirs, snaps[theirs][-1])
    assert spark_snapshot(spark, ours, snaps[ours][-1]) == current
    assert all(r["_row_id"] is not None and r["_last_updated_sequence_number"] is not None for r in current)

    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    call = "CALL lakehouse.system.expire_snapshots(table => '{t}', older_than => TIMESTAMP '{now}', retain_last => 1)"
    dirs = {t: table_dir(spark, floe, t) for t in (ours, theirs)}
    dry = {t: floe.sql(call.format(t=t, now=now)[:-1] + ", dry_run => true)") for t in (ours, theirs)}
    on_disk = {t: without_crc(floe.files_under(dirs[t])) for t in (ours, theirs)}
    # The same relative set on both twins: as many files of each type, last reached by the
    # snapshot at the same place in each history.
    shape = {t: sorted((f["file_type"], snaps[t].index(f["last_snapshot_id"])) for f in dry[t])
             for t in (ours, theirs)}
    assert shape[ours] == shape[theirs], shape
    for t in (ours, theirs):
        _, p, reached = history[t]
        # The Puffin files only expired snapshots reach, each once, as a position delete file
        # last reached by the newest snapshot that reaches it: P1 (its DVs replaced by s3 and
        # s4) by s3, P2 by s4, P3 (its DV gone with B in the compaction) by s5.
        named = [(f["file_path"], snaps[t].index(f["last_snapshot_id"])) for f in dry[t]
                 if f["file_type"] == "position delete file"]
        assert sorted(named) == sorted([(p[0], 3), (p[1], 4), (p[2], 5)]), (t, named)
        assert not {f["file_path"] for f in dry[t]} & reached[7], t  # P4 and P5
        # The data files compacted away: B and U.
        assert len([f for f in dry[t] if f["file_type"] == "data file"]) == 2, (t, dry[t])

    spark_result = spark.sql(call.format(t=theirs, now=now)).collect()[0].asDict()
    floe_result = floe.sql(call.format(t=ours, now=now))[0]
    assert counts(floe_result) == counts(spark_result), (floe_result, spark_result)
    assert counts(spark_result)[:3] == [2, 3, 0], spark_result  # B, U; P1, P2, P3
    assert counts(spark_result)[4] == 7, spark_result  # the manifest lists of s0 to s6
    for t in (ours, theirs):
        gone = on_disk[t] - without_crc(floe.files_under(dirs[t]))
        assert gone == {local(floe, f["file_path"]) for f in dry[t]}, (t, sorted(gone))

    # Each engine reads the table the other expired as it read its own before: its one
    # snapshot, the rows and their lineage.
    for table in (ours, theirs):
        kept = snaps[table][-1]
        assert [r.snapshot_id for r in spark.sql(f"SELECT snapshot_id FROM lakehouse.{table}.snapshots").collect()] \
            == [kept], table
        assert spark_snapshot(spark, table, kept) == current, table
        ours_now = floe.sql(f"SELECT snapshot_id AS kept FROM lakehouse.{table}.snapshots",
                            f"SELECT *, {LINEAGE_COLUMNS} FROM lakehouse.{table}", decimals=True)
        assert [r["kept"] for r in ours_now if "kept" in r] == [kept], table
        assert sorted((r for r in ours_now if "kept" not in r), key=lambda r: r["id"]) == current, table
        with pytest.raises(Exception, match="Cannot find snapshot with ID"):
            spark.sql(f"SELECT * FROM lakehouse.{table} VERSION AS OF {snaps[table][3]}").collect()
        with pytest.raises(RuntimeError, match="Cannot find matching snapshot ID or reference name"):
            floe.sql(f"SELECT * FROM lakehouse.{table} VERSION AS OF {snaps[table][3]}")

    # Each table's directory holds exactly what the kept snapshot reaches, and metadata files:
    # P4 and P5 among them.
    for table in (ours, theirs):
        on = without_crc(floe.files_under(dirs[table]))
        files = spark_paths(spark, floe, f"SELECT file_path FROM lakehouse.{table}.all_files")
        reached = files | spark_paths(spark, floe, f"SELECT path FROM lakehouse.{table}.all_manifests") \
            | spark_paths(spark, floe, f"SELECT manifest_list FROM lakehouse.{table}.snapshots")
        rest = {p for p in on if not p.endswith(".metadata.json")}
        assert rest == reached, (table, sorted(rest - reached), sorted(reached - rest))
        assert {p for p in files if p.endswith(".puffin")} == {local(floe, x) for x in history[table][2][7]}, table


# ---- the tables of 2-4 ----

# DV-only deletes (one Puffin file for the DVs of two data files, then a merged DV), UPDATEs, a
# MERGE, a compaction, and a DV-only delete and an UPDATE after it.
WORKLOAD = [
    "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')",
    "INSERT INTO {t} VALUES (6, 'f'), (7, 'g'), (8, 'h')",
    "DELETE FROM {t} WHERE id IN (2, 7)",
    "DELETE FROM {t} WHERE id = 4",
    "UPDATE {t} SET data = 'cc' WHERE id = 3",
    "MERGE INTO {t} t USING (SELECT * FROM VALUES (1, 'aa', 'U'), (5, '', 'D'), (9, 'i', 'I') AS s(id, data, op)) s "
    "ON t.id = s.id WHEN MATCHED AND s.op = 'D' THEN DELETE WHEN MATCHED THEN UPDATE SET t.data = s.data "
    "WHEN NOT MATCHED THEN INSERT (id, data) VALUES (s.id, s.data)",
    "CALL lakehouse.system.rewrite_data_files(table => '{name}', options => map('rewrite-all', 'true'))",
    "DELETE FROM {t} WHERE id = 6",
    "UPDATE {t} SET data = 'hh' WHERE id = 8",
]
WORKLOAD_OPERATIONS = ["append", "append", "delete", "delete", "overwrite", "overwrite", "replace", "delete",
                       "overwrite"]


def write_workload(spark, name: str, properties: str) -> list[int]:
    t = f"lakehouse.{name}"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, data STRING) USING iceberg "
              f"TBLPROPERTIES ('format-version' = '3', {properties})")
    for statement in WORKLOAD:
        spark.sql(statement.format(t=t, name=name)).collect()
    snaps = spark.sql(f"SELECT snapshot_id, operation FROM {t}.snapshots ORDER BY committed_at").collect()
    if properties == MERGE_ON_READ:
        assert [s.operation for s in snaps] == WORKLOAD_OPERATIONS, snaps
    return [s.snapshot_id for s in snaps]


@pytest.fixture(scope="module")
def workload(spark, lakehouse, request):
    """The WORKLOAD written by Spark twice in a namespace of its own: merge-on-read (DVs) and
    copy-on-write (no delete files). Tests that change the merge-on-read table put it back."""
    ns = name_for_test(request, prefix="m")
    spark.sql(f"CREATE NAMESPACE lakehouse.{ns}")
    mor, cow = f"{ns}.mor", f"{ns}.cow"
    s = write_workload(spark, mor, MERGE_ON_READ)
    c = write_workload(spark, cow, COPY_ON_WRITE)
    formats = spark.sql(f"SELECT DISTINCT file_format FROM lakehouse.{mor}.all_delete_files").collect()
    assert [r.file_format for r in formats] == ["PUFFIN"], formats
    summaries = [r.summary for r in spark.sql(f"SELECT summary FROM lakehouse.{mor}.snapshots ORDER BY committed_at")
                 .collect()]
    assert [int(x.get("added-dvs", "0")) for x in summaries] == [0, 0, 2, 1, 1, 1, 0, 1, 1], summaries
    assert [int(x.get("removed-dvs", "0")) for x in summaries] == [0, 0, 0, 1, 1, 1, 2, 0, 1], summaries
    assert spark.sql(f"SELECT count(*) FROM lakehouse.{cow}.all_delete_files").first()[0] == 0
    return mor, s, cow, c


# ---- 2. orphan files, 3. floe verify ----


def test_orphans_and_verify_on_v3_table(spark, lakehouse, workload):
    floe = lakehouse
    table, s, _, _ = workload
    p, reached = puffins_reached(spark, table, s)
    tdir = table_dir(spark, floe, table)
    before = {x: get_file(floe, local(floe, x)) for x in p}

    # Strays beside the live files, named as Spark names its files: a Puffin file (a copy of
    # the first one, DVs and all) and a Parquet file (a copy of a live data file).
    stray_puffin = f"{tdir}/data/00000-99-5e1f5e1f-0000-0000-0000-000000000000-00001-deletes.puffin"
    stray_parquet = f"{tdir}/data/00000-98-5e1f5e1f-0000-0000-0000-000000000000-0-00001.parquet"
    put_file(floe, stray_puffin, before[p[0]])
    a_file = spark.sql(f"SELECT file_path FROM lakehouse.{table}.files WHERE content = 0 LIMIT 1").first()[0]
    put_file(floe, stray_parquet, get_file(floe, local(floe, a_file)))
    strays = sorted([stray_parquet, stray_puffin])
    on_disk = floe.files_under(tdir)
    # Every file of the table is older than older_than: only what no metadata reaches goes.
    cutoff = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=1)).strftime("%Y-%m-%d %H:%M:%S.%f")
    call = f"CALL lakehouse.system.remove_orphan_files(table => '{table}', older_than => TIMESTAMP '{cutoff}'{{}})"

    def orphans(dry_run: bool) -> list[str]:
        rows = floe.sql("SET spark.testing = true", call.format(", dry_run => true" if dry_run else ""))
        return sorted(local(floe, r["orphan_file_location"]) for r in rows if "orphan_file_location" in r)

    assert orphans(dry_run=True) == strays
    assert floe.files_under(tdir) == on_disk, "a dry run deletes nothing"
    assert orphans(dry_run=False) == strays
    assert floe.files_under(tdir) == on_disk - set(strays)
    assert {x: get_file(floe, local(floe, x)) for x in p} == before, "a Puffin file changed"
    assert orphans(dry_run=True) == []
    check_snapshots_read_alike(spark, floe, table, s)

    # floe verify: every file once, Puffin files as delete files.
    def spark_count(sql):
        return spark.sql(sql).first()[0]

    n = [
        spark_count(f"SELECT count(*) FROM lakehouse.{table}.metadata_log_entries"),
        len(s),
        spark_count(f"SELECT count(DISTINCT path) FROM lakehouse.{table}.all_manifests"),
        spark_count(f"SELECT count(DISTINCT file_path) FROM lakehouse.{table}.all_data_files"),
        len(p),
    ]
    summary = (f"Checked {sum(n)} files: {n[0]} metadata files, {n[1]} manifest lists, {n[2]} manifests, "
               f"{n[3]} data files, {n[4]} delete files, 0 statistics files")
    # With --sizes, each Puffin file's size is the file_size_in_bytes of each of its DVs.
    for args in ([], ["--sizes"]):
        proc = floe.cli("verify", table, *args)
        assert (proc.returncode, proc.stderr) == (0, ""), (args, proc.stdout, proc.stderr)
        lines = proc.stdout.splitlines()
        assert (lines[1], lines[-1]) == (summary, "All files present"), (args, proc.stdout)

    # A live Puffin file deleted behind the table's back: the current snapshot's.
    [live] = reached[len(s) - 1]
    delete_file(floe, local(floe, live))
    try:
        proc = floe.cli("verify", table)
        assert proc.returncode == 2, (proc.stdout, proc.stderr)
        lines = proc.stdout.splitlines()
        assert lines[1] == summary, proc.stdout
        problems = lines[lines.index("1 problem:") + 1:]
        assert len(problems) == 1 and problems[0].startswith(f"missing: delete file {live} (snapshot {s[-1]}, "), \
            proc.stdout
        proc = floe.cli("verify", table, "--json")
        assert proc.returncode == 2, (proc.stdout, proc.stderr)
        report = json.loads(proc.stdout)
        assert report["ok"] is False
        assert [(x["kind"], x["location"], x["problem"], x["snapshot_id"]) for x in report["problems"]] == [
            ("delete file", live, "missing", s[-1])], report
    finally:
        put_file(floe, local(floe, live), before[live])
    assert floe.cli("verify", table).returncode == 0


# ---- 4. diff, changes and the changelog ----


def state(spark, name: str, snapshot: int) -> dict[int, str]:
    rows = spark.sql(f"SELECT id, data FROM lakehouse.{name} VERSION AS OF {snapshot}").collect()
    out = {r.id: r.data for r in rows}
    assert len(out) == len(rows), rows
    return out


def changelog_call(name: str, view: str, args: str) -> str:
    return (f"CALL lakehouse.system.create_changelog_view(table => '{name}', changelog_view => '{view}'"
            f"{', ' + args if args else ''})")


def test_diff_changes_and_changelog_of_v3_table(spark, lakehouse, workload):
    floe = lakehouse
    mor, s, cow, c = workload
    with pytest.raises(Exception, match="Delete files are currently not supported in changelog scans"):
        spark.sql(changelog_call(mor, "spark_mor", "")).collect()
        spark.sql("SELECT * FROM spark_mor").collect()

    def floe_diff(a, b, *args):
        proc = floe.cli("diff", mor, str(a), str(b), "--json", "--sample", "1000", *args)
        assert proc.returncode == 0, (a, b, args, proc.stderr)
        return json.loads(proc.stdout)

    # Ranges over the DV-only delete of two data files' rows (s2), the merged DV (s3), the
    # UPDATE (s4), all three, the DV-only delete and the UPDATE after the compaction, and back
    # over the whole history (the MERGE and the compaction too).
    states = {i: state(spark, mor, s[i]) for i in (1, 2, 3, 4, 6, 8)}
    for a, b in [(1, 2), (2, 3), (3, 4), (1, 4), (6, 8), (8, 1)]:
        before, after = states[a], states[b]
        added = sorted(k for k in after if k not in before)
        removed = sorted(k for k in before if k not in after)
        changed = sorted(k for k in after if k in before and after[k] != before[k])
        where = f"floe diff {mor} s{a} s{b}"
        d = floe_diff(s[a], s[b], "--key", "id")
        assert (d["added"], d["removed"], d["changed"]) == (len(added), len(removed), len(changed)), (where, d)
        assert sorted((r["id"], r["data"]) for r in d["sample"]["added"]) == [(k, after[k]) for k in added], where
        assert sorted((r["id"], r["data"]) for r in d["sample"]["removed"]) == [(k, before[k]) for k in removed], where
        assert sorted((r["before"]["id"], r["before"]["data"], r["after"]["data"]) for r in d["sample"]["changed"]) \
            == [(k, before[k], after[k]) for k in changed], where
        if (a, b) == (1, 4):
            # Without a key a changed row is a removed row and an added one.
            d = floe_diff(s[a], s[b])
            kept = set(before.items()) & set(after.items())
            assert sorted((r["id"], r["data"]) for r in d["sample"]["added"]) == sorted(set(after.items()) - kept), d
            assert sorted((r["id"], r["data"]) for r in d["sample"]["removed"]) == sorted(set(before.items()) - kept), d
        if a < b:
            # floe changes --net --key id: the same rows.
            proc = floe.cli("changes", mor, "--from", str(s[a]), "--to", str(s[b]), "--net", "--key", "id", "--json")
            assert (proc.returncode, proc.stderr) == (0, ""), (a, b)
            rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
            assert Counter((r["_change_type"], r["id"], r["data"]) for r in rows) == Counter(
                [("INSERT", k, after[k]) for k in added] + [("DELETE", k, before[k]) for k in removed]
                + [("UPDATE_BEFORE", k, before[k]) for k in changed]
                + [("UPDATE_AFTER", k, after[k]) for k in changed]), (f"floe changes {mor} s{a} s{b}", rows)

    # floe's changelog of the merge-on-read table is Spark's of the copy-on-write twin, snapshot
    # ids as the statement that made them; per commit, update images by key.
    def anonymous(rows, snapshots, net):
        # Net changes: the copy-on-write twin's writes after the compaction rewrite its one data
        # file, so Spark's net view dates every row kept to the last rewrite (carried over, not
        # changed), where the merge-on-read table's rows keep the commit that last changed
        # them: only the rows and their change types compare.
        return Counter((r[0], r[1], r[2]) + (() if net else (r[3], snapshots.index(r[4]))) for r in rows)

    cases = [
        "",
        "identifier_columns => array('id'), compute_updates => true",
        "compute_updates => true, identifier_columns => array('id'), options => map('start-snapshot-id', '{s1}', "
        "'end-snapshot-id', '{s4}')",
        "options => map('start-snapshot-id', '{s3}')",
        "net_changes => true",
        "net_changes => true, options => map('start-snapshot-id', '{s1}', 'end-snapshot-id', '{s4}')",
    ]
    # floe's views, by one process.
    statements = []
    for i, args in enumerate(cases):
        statements += [changelog_call(mor, f"v3mor{i}", args.format(s1=s[1], s3=s[3], s4=s[4])),
                       f"SELECT {i} AS _case, * FROM v3mor{i}"]
    ours = [r for r in floe.sql(*statements) if "_change_type" in r]
    for i, args in enumerate(cases):
        net = "net_changes" in args
        spark.sql(changelog_call(cow, f"v3cow{i}", args.format(s1=c[1], s3=c[3], s4=c[4]))).collect()
        want = anonymous([tuple(r) for r in spark.sql(f"SELECT * FROM v3cow{i}").collect()], c, net)
        assert want, args
        got = anonymous([(r["id"], r["data"], r["_change_type"], r["_change_ordinal"], r["_commit_snapshot_id"])
                         for r in ours if r["_case"] == i], s, net)
        assert got == want, (args, sorted(got.items()), sorted(want.items()))
