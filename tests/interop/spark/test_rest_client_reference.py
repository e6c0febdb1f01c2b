"""floe as a client of a REST catalog that is not floe's own: Iceberg's reference REST catalog
server (tests/support/reference_rest_server.py, iceberg-open-api 1.10.0 over a SQLite file and
a local warehouse), one for the module, with floe's CLI (`--catalog rest+http://...`) on one
side and the suite's SparkSession on the other, through a second Spark catalog `ref_rest`
(Iceberg's RESTCatalog, `type=rest`) on the same server.

floe writes, Spark reads: floe creates a namespace and a partitioned table (position deletes
for DELETE), appends, UPDATEs, DELETEs, MERGEs, adds a column, writes again, tags two
snapshots, creates a branch and appends to it, rolls main back and appends again. Spark lists
exactly floe's snapshots (ids, parents, operations, summaries, commit times), refs and history,
and reads every snapshot by id and every ref by name with exactly the rows and columns floe
reads there, which are the rows the test expects.

Spark writes, floe reads: Spark creates a partitioned merge-on-read table, appends, UPDATEs,
DELETEs and MERGEs (position delete files), adds a column and writes again, and tags a
snapshot. floe lists exactly Spark's snapshots, refs and history (its metadata tables and
`floe history --json`), reads every snapshot with exactly Spark's rows, and rolls the table back
with rollback_to_snapshot, after which Spark reads the rolled-back rows and appends on them.

The reference server keeps its own catalog and local warehouse, whatever the suite's
`lakehouse` is: under FLOE_SPARK_LAKEHOUSE=postgresql+s3 this module would run the very same
thing again, so it runs with the default (SQLite) lakehouse only.
"""

from __future__ import annotations

import decimal
import json
import subprocess

import pytest
from floe_driver import CLI
from reference_rest_server import ReferenceRestServer

from .support import COLUMNS, SPARK_DDL, as_floe_text, make_rows, plain


CAT = "ref_rest"  # the Spark catalog on the reference server
NOTE_COLUMNS = [*COLUMNS, "note"]  # after ALTER TABLE ... ADD COLUMN note STRING


@pytest.fixture(scope="module")
def server(spark, tmp_path_factory):
    """The reference REST server, and the Spark catalog `ref_rest` on it."""
    ref = ReferenceRestServer(tmp_path_factory.mktemp("reference-rest")).start()
    conf = f"spark.sql.catalog.{CAT}"
    for key, value in {
        conf: "org.apache.iceberg.spark.SparkCatalog",
        f"{conf}.type": "rest",
        f"{conf}.uri": ref.uri,
        # floe commits between Spark's statements: every read loads the table from the server.
        f"{conf}.cache-enabled": "false",
    }.items():
        spark.conf.set(key, value)
    yield ref
    ref.stop()


# floe's CLI on the reference server.


class FloeRest:
    """`build/floe` with `--catalog rest+http://...` (the catalog is `lakehouse` in its SQL)."""

    def __init__(self, catalog_uri: str):
        self.catalog_uri = catalog_uri

    def cli(self, command: str, *args: str) -> subprocess.CompletedProcess:
        cmd = [str(CLI), command, "--catalog", self.catalog_uri, *args]
        return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)

    def sql(self, *statements: str) -> list[dict]:
        """The rows of the statements, one floe process, as JSON objects (numbers with a
        fraction as decimal.Decimal, so DECIMAL values stay exact)."""
        args = ["--format", "json", "-q"]
        for statement in statements:
            args += ["-c", statement]
        proc = self.cli("sql", *args)
        if proc.returncode != 0:
            raise RuntimeError(f"floe sql {' '.join(map(repr, statements))} failed "
                               f"({proc.returncode}): {proc.stderr.strip()}")
        return [json.loads(line, parse_float=decimal.Decimal) for line in proc.stdout.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def floe(server) -> FloeRest:
    return FloeRest(server.catalog_uri)


# Rows, as floe's JSON output writes them.


def canonical(row: dict) -> dict:
    """A row of Spark or of the expectations as floe's JSON writes it: timestamps (UTC) and
    dates as text; the double column as a float."""
    out = {k: as_floe_text(plain(v)) for k, v in row.items()}
    if out.get("score") is not None:
        out["score"] = float(out["score"])
    return out


def floe_row(row: dict) -> dict:
    out = dict(row)
    if out.get("score") is not None:
        out["score"] = float(out["score"])  # JSON wrote a double; parsed as Decimal above
    return out


def expected(rows: dict[int, dict], columns: list[str]) -> tuple[list[str], list[dict]]:
    """(columns, rows by id) as the tables below compare them."""
    return columns, [canonical({c: r.get(c) for c in columns}) for _, r in sorted(rows.items())]


def floe_read(floe: FloeRest, table: str, as_of: str = "") -> tuple[list[str], list[dict]]:
    """floe's `SELECT *` of lakehouse.TABLE (as of ...), ordered by id: (columns, rows)."""
    sql = f"SELECT * FROM lakehouse.{table} {as_of} ORDER BY id"
    rows = floe.sql(sql)
    columns = [list(r) for r in rows]
    assert all(c == columns[0] for c in columns), f"{sql}: rows with different columns {columns}"
    return (columns[0] if rows else None), [floe_row(r) for r in rows]


def spark_read(spark, table: str, as_of: str = "") -> tuple[list[str], list[dict]]:
    df = spark.sql(f"SELECT * FROM {CAT}.{table} {as_of} ORDER BY id")
    return df.columns, [canonical(r.asDict(recursive=True)) for r in df.collect()]


def check_reads(spark, floe: FloeRest, table: str, as_of: str, want: tuple[list[str], list[dict]]) -> None:
    """Spark and floe read exactly `want` (columns and rows) at `as_of`."""
    theirs = spark_read(spark, table, as_of)
    assert theirs == want, f"Spark {table} {as_of or '(current)'}"
    ours = floe_read(floe, table, as_of)
    if not want[1]:
        ours = (want[0], ours[1])  # no rows, so floe's JSON names no columns
    assert ours == want, f"floe {table} {as_of or '(current)'}"


# Metadata as each engine lists it.

SNAPSHOTS = "SELECT snapshot_id, parent_id, operation, summary, committed_at FROM {c}.{t}.snapshots"
REFS = "SELECT name, type, snapshot_id FROM {c}.{t}.refs"
HISTORY = "SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor FROM {c}.{t}.history"


def spark_snapshots(spark, table: str) -> list[tuple]:
    return [(r.snapshot_id, r.parent_id, r.operation, dict(r.summary), as_floe_text(r.committed_at))
            for r in spark.sql(SNAPSHOTS.format(c=CAT, t=table)).collect()]


def floe_snapshots(floe: FloeRest, table: str) -> list[tuple]:
    return [(r["snapshot_id"], r["parent_id"], r["operation"], r["summary"], r["committed_at"])
            for r in floe.sql(SNAPSHOTS.format(c="lakehouse", t=table))]


def spark_refs(spark, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.sql(REFS.format(c=CAT, t=table)).collect())


def floe_refs(floe: FloeRest, table: str) -> list[tuple]:
    return sorted(tuple(r.values()) for r in floe.sql(REFS.format(c="lakehouse", t=table)))


def spark_history(spark, table: str) -> list[tuple]:
    return [(as_floe_text(r.made_current_at), r.snapshot_id, r.parent_id, r.is_current_ancestor)
            for r in spark.sql(HISTORY.format(c=CAT, t=table)).collect()]


def floe_history(floe: FloeRest, table: str) -> list[tuple]:
    return [tuple(r.values()) for r in floe.sql(HISTORY.format(c="lakehouse", t=table))]


def check_metadata(spark, floe: FloeRest, table: str, snapshots: list[tuple], refs: list[tuple],
                   history: list[int]) -> list[tuple]:
    """Both engines list exactly these snapshots (id, parent, operation), refs (name, type, id)
    and history (snapshot ids, in the order they were made current), with the same summaries,
    commit times and history times. Returns Spark's snapshots."""
    theirs = spark_snapshots(spark, table)
    assert [s[:3] for s in theirs] == snapshots, f"{table}: Spark's snapshots"
    assert floe_snapshots(floe, table) == theirs, f"{table}: floe's snapshots"
    assert spark_refs(spark, table) == sorted(refs), f"{table}: Spark's refs"
    assert floe_refs(floe, table) == sorted(refs), f"{table}: floe's refs"
    hist = spark_history(spark, table)
    assert [h[1] for h in hist] == history, f"{table}: Spark's history"
    assert floe_history(floe, table) == hist, f"{table}: floe's history"
    return theirs


def check_floe_history_command(floe: FloeRest, table: str, snapshots: list[tuple], history: list[tuple]) -> None:
    """`floe history TABLE --json` lists every change of the current snapshot, as the history
    table does, with the snapshot's parent and operation, and the current snapshot."""
    proc = floe.cli("history", table, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    by_id = {s[0]: s for s in snapshots}
    assert (doc["table"], doc["current_snapshot_id"]) == (f"lakehouse.{table}", history[-1][1])
    assert [(e["snapshot_id"], e["parent_id"], e["is_current_ancestor"], e["operation"]) for e in doc["history"]] == [
        (h[1], h[2], h[3], by_id[h[1]][2]) for h in history], f"floe history {table}"


# floe writes, Spark reads.


def literal(row: dict, columns: list[str]) -> str:
    """A row of make_rows (and a note) as a VALUES tuple of floe SQL."""

    def lit(column: str, value) -> str:
        if value is None:
            return "NULL"
        if column == "id":
            return f"CAST({value} AS BIGINT)"
        if column in ("customer", "note"):
            return "'" + value.replace("'", "''") + "'"
        if column == "amount":
            return f"CAST('{value}' AS DECIMAL(10,2))"
        if column == "score":
            return f"CAST('{value!r}' AS DOUBLE)"
        if column == "ts":
            return f"TIMESTAMP '{plain(value).isoformat(sep=' ')}'"
        if column == "local_ts":
            return f"TIMESTAMP_NTZ '{value.isoformat(sep=' ')}'"
        if column == "day":
            return f"DATE '{value.isoformat()}'"
        raise AssertionError(column)

    return "(" + ", ".join(lit(c, row.get(c)) for c in columns) + ")"


def values(rows: list[dict], columns: list[str]) -> str:
    return "VALUES " + ", ".join(literal(r, columns) for r in rows)


def with_note(rows: list[dict], note) -> list[dict]:
    return [r | {"note": note(r["id"]) if callable(note) else note} for r in rows]


def floe_commit(floe: FloeRest, table: str, statement: str, operation: str, ref: str = "main") -> int:
    """floe runs a write on `ref`: it adds exactly one snapshot, `operation`, on the ref's
    snapshot, and moves the ref (only) to it. Returns its id."""
    before = {s[0]: s for s in floe_snapshots(floe, table)}
    refs = dict((name, sid) for name, _, sid in floe_refs(floe, table))
    floe.sql(statement)
    after = {s[0]: s for s in floe_snapshots(floe, table)}
    new = sorted(set(after) - set(before))
    assert len(new) == 1 and set(before) <= set(after), f"{statement}: snapshots {sorted(before)} -> {sorted(after)}"
    assert after[new[0]][1:3] == (refs.get(ref), operation), f"{statement}: snapshot {after[new[0]]}"
    assert dict((name, sid) for name, _, sid in floe_refs(floe, table)) == refs | {ref: new[0]}, statement
    return new[0]


def test_spark_reads_what_floe_wrote_through_the_reference_server(spark, server, floe):
    table = "floe_wrote.orders"
    t = f"lakehouse.{table}"
    assert floe.sql("CREATE NAMESPACE floe_wrote") == []
    floe.sql(f"CREATE TABLE {t} ({SPARK_DDL}) USING iceberg PARTITIONED BY (days(ts), bucket(4, id)) "
             "TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')")
    # Spark sees the namespace and the table floe created, empty, with floe's partitioning.
    assert [tuple(r) for r in spark.sql(f"SHOW NAMESPACES IN {CAT}").collect()] == [("floe_wrote",)]
    assert spark.sql(f"SELECT * FROM {CAT}.{table}").collect() == []
    described = {r.col_name: r.data_type for r in spark.sql(f"DESCRIBE TABLE {CAT}.{table}").collect()}
    assert [described[c] for c in COLUMNS] == [
        "bigint", "string", "decimal(10,2)", "double", "timestamp", "timestamp_ntz", "date"]
    assert (described["Part 0"], described["Part 1"]) == ("days(ts)", "bucket(4, id)")
    props = {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES {CAT}.{table}").collect()}
    assert (props["format-version"], props["write.delete.mode"]) == ("2", "merge-on-read")

    want: dict[int, dict[int, dict]] = {}  # snapshot id -> rows by id
    columns: dict[int, list[str]] = {}  # snapshot id -> its schema's columns

    def wrote(sid: int, rows: dict[int, dict], cols: list[str]) -> int:
        want[sid], columns[sid] = rows, cols
        return sid

    s1 = wrote(floe_commit(floe, table, f"INSERT INTO {t} {values(make_rows(1, 20), COLUMNS)}", "append"),
               {r["id"]: r for r in make_rows(1, 20)}, COLUMNS)
    s2 = wrote(floe_commit(floe, table, f"INSERT INTO {t} {values(make_rows(21, 20), COLUMNS)}", "append"),
               want[s1] | {r["id"]: r for r in make_rows(21, 20)}, COLUMNS)
    # UPDATE: copy-on-write (the table's default update mode).
    s3 = wrote(floe_commit(floe, table, f"UPDATE {t} SET score = -1.0, amount = amount * 2 WHERE customer = 'c1'",
                           "overwrite"),
               {i: r | ({"score": -1.0, "amount": r["amount"] * 2} if r["customer"] == "c1" else {})
                for i, r in want[s2].items()}, COLUMNS)
    # DELETE: merge-on-read, position delete files.
    s4 = wrote(floe_commit(floe, table, f"DELETE FROM {t} WHERE id BETWEEN 5 AND 12 OR customer IS NULL", "delete"),
               {i: r for i, r in want[s3].items() if not (5 <= i <= 12 or r["customer"] is None)}, COLUMNS)
    # MERGE (copy-on-write) over files with position deletes: matched ids divisible by 3
    # deleted, other matched ones updated, new ones inserted.
    source = make_rows(31, 20)
    merged = dict(want[s4])
    for s in source:
        i = s["id"]
        if i in merged and i % 3 == 0:
            del merged[i]
        elif i in merged:
            merged[i] = merged[i] | {"customer": "merged", "amount": merged[i]["amount"] + 1}
        else:
            merged[i] = s
    s5 = wrote(floe_commit(
        floe, table,
        f"MERGE INTO {t} t USING ({values(source, COLUMNS)}) AS s({', '.join(COLUMNS)}) ON t.id = s.id "
        "WHEN MATCHED AND s.id % 3 = 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET t.customer = 'merged', t.amount = t.amount + 1 "
        "WHEN NOT MATCHED THEN INSERT *", "overwrite"), merged, COLUMNS)

    # A column added: no snapshot; the next writes carry it.
    floe.sql(f"ALTER TABLE {t} ADD COLUMN note STRING")
    assert [s[0] for s in floe_snapshots(floe, table)] == [s1, s2, s3, s4, s5]
    described = [r.col_name for r in spark.sql(f"DESCRIBE TABLE {CAT}.{table}").collect()]
    assert described[:len(NOTE_COLUMNS)] == NOTE_COLUMNS
    rows6 = with_note(make_rows(51, 5), lambda i: f"n{i}")
    s6 = wrote(floe_commit(floe, table, f"INSERT INTO {t} {values(rows6, NOTE_COLUMNS)}", "append"),
               {i: r | {"note": None} for i, r in want[s5].items()} | {r["id"]: r for r in rows6}, NOTE_COLUMNS)
    s7 = wrote(floe_commit(floe, table, f"UPDATE {t} SET note = 'upd' WHERE id % 2 = 0 AND id > 40", "overwrite"),
               {i: r | ({"note": "upd"} if i % 2 == 0 and i > 40 else {}) for i, r in want[s6].items()},
               NOTE_COLUMNS)

    # Tags and a branch; an append to the branch leaves main where it was.
    floe.sql(f"ALTER TABLE {t} CREATE TAG before_merge AS OF VERSION {s4}", f"ALTER TABLE {t} CREATE TAG latest",
             f"ALTER TABLE {t} CREATE BRANCH side AS OF VERSION {s5}")
    rows8 = with_note(make_rows(71, 3), "side")
    s8 = wrote(floe_commit(floe, table, f"INSERT INTO {t}.branch_side {values(rows8, NOTE_COLUMNS)}", "append",
                           ref="side"),
               {i: r | {"note": None} for i, r in want[s5].items()} | {r["id"]: r for r in rows8}, NOTE_COLUMNS)

    # main rolled back to s5 (the tags and the branch stay), then an append on it.
    rolled = floe.sql(f"CALL lakehouse.system.rollback_to_snapshot('{table}', {s5})")
    assert rolled == [{"previous_snapshot_id": s7, "current_snapshot_id": s5}]
    # The current table has the current schema (with note) over s5's rows.
    check_reads(spark, floe, table, "", expected(want[s5], NOTE_COLUMNS))
    rows9 = with_note(make_rows(81, 4), lambda i: f"after rollback {i}")
    s9 = wrote(floe_commit(floe, table, f"INSERT INTO {t} {values(rows9, NOTE_COLUMNS)}", "append"),
               {i: r | {"note": None} for i, r in want[s5].items()} | {r["id"]: r for r in rows9}, NOTE_COLUMNS)

    # Spark lists exactly floe's snapshots, refs and history.
    snaps = check_metadata(
        spark, floe, table,
        snapshots=[(s1, None, "append"), (s2, s1, "append"), (s3, s2, "overwrite"), (s4, s3, "delete"),
                   (s5, s4, "overwrite"), (s6, s5, "append"), (s7, s6, "overwrite"), (s8, s5, "append"),
                   (s9, s5, "append")],
        refs=[("before_merge", "TAG", s4), ("latest", "TAG", s7), ("main", "BRANCH", s9), ("side", "BRANCH", s8)],
        history=[s1, s2, s3, s4, s5, s6, s7, s5, s9])
    summary = {s[0]: s[3] for s in snaps}
    assert int(summary[s4]["added-position-delete-files"]) > 0, summary[s4]
    assert "added-equality-delete-files" not in summary[s4]
    assert spark.sql(f"SELECT DISTINCT content FROM {CAT}.{table}.all_delete_files").collect() == [(1,)]
    check_floe_history_command(floe, table, snaps, spark_history(spark, table))

    # Every snapshot, by id, and every ref, by name: exactly the expected rows, in both engines.
    assert sorted(want) == sorted(s[0] for s in snaps)
    for sid in want:
        check_reads(spark, floe, table, f"VERSION AS OF {sid}", expected(want[sid], columns[sid]))
    for name, sid in (("before_merge", s4), ("latest", s7), ("side", s8), ("main", s9)):
        check_reads(spark, floe, table, f"VERSION AS OF '{name}'", expected(want[sid], columns[sid]))
    check_reads(spark, floe, table, "", expected(want[s9], NOTE_COLUMNS))


# Spark writes, floe reads.


def spark_commit(spark, table: str, statement: str, operation: str) -> int:
    """Spark runs a write: it adds exactly one snapshot, `operation`, on main's, and makes it
    main's. Returns its id."""
    before = {s[0]: s for s in spark_snapshots(spark, table)}
    parent = dict((n, sid) for n, _, sid in spark_refs(spark, table)).get("main")
    spark.sql(statement)
    after = {s[0]: s for s in spark_snapshots(spark, table)}
    new = sorted(set(after) - set(before))
    assert len(new) == 1 and set(before) <= set(after), f"{statement}: snapshots {sorted(before)} -> {sorted(after)}"
    assert after[new[0]][1:3] == (parent, operation), f"{statement}: snapshot {after[new[0]]}"
    assert dict((n, sid) for n, _, sid in spark_refs(spark, table))["main"] == new[0], statement
    return new[0]


def spark_insert(spark, table: str, rows: list[dict], columns: list[str]) -> int:
    ddl = SPARK_DDL + (", note STRING" if "note" in columns else "")
    spark.createDataFrame([tuple(r[c] for c in columns) for r in rows], ddl).createOrReplaceTempView("ref_rows")
    return spark_commit(spark, table, f"INSERT INTO {CAT}.{table} SELECT * FROM ref_rows", "append")


def test_floe_reads_and_rolls_back_what_spark_wrote_through_the_reference_server(spark, server, floe):
    table = "spark_wrote.orders"
    t = f"{CAT}.{table}"
    spark.sql(f"CREATE NAMESPACE {CAT}.spark_wrote")
    spark.sql(f"CREATE TABLE {t} ({SPARK_DDL}) USING iceberg PARTITIONED BY (days(ts), bucket(4, id)) "
              "TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read', "
              "'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')")
    assert "spark_wrote" in [next(iter(r.values())) for r in floe.sql("SHOW NAMESPACES")]
    assert floe_read(floe, table) == (None, [])

    want: dict[int, dict[int, dict]] = {}
    columns: dict[int, list[str]] = {}

    def wrote(sid: int, rows: dict[int, dict], cols: list[str]) -> int:
        want[sid], columns[sid] = rows, cols
        return sid

    s1 = wrote(spark_insert(spark, table, make_rows(1, 20), COLUMNS), {r["id"]: r for r in make_rows(1, 20)}, COLUMNS)
    s2 = wrote(spark_insert(spark, table, make_rows(21, 20), COLUMNS),
               want[s1] | {r["id"]: r for r in make_rows(21, 20)}, COLUMNS)
    s3 = wrote(spark_commit(spark, table, f"UPDATE {t} SET score = -1.0, amount = amount * 2 WHERE customer = 'c1'",
                            "overwrite"),
               {i: r | ({"score": -1.0, "amount": r["amount"] * 2} if r["customer"] == "c1" else {})
                for i, r in want[s2].items()}, COLUMNS)
    s4 = wrote(spark_commit(spark, table, f"DELETE FROM {t} WHERE id BETWEEN 21 AND 25 OR customer IS NULL", "delete"),
               {i: r for i, r in want[s3].items() if not (21 <= i <= 25 or r["customer"] is None)}, COLUMNS)
    # MERGE: matched even ids deleted, other matched ones updated, new ones inserted.
    source = make_rows(1, 10) + make_rows(51, 5)
    merged = dict(want[s4])
    for s in source:
        i = s["id"]
        if i in merged and i % 2 == 0:
            del merged[i]
        elif i in merged:
            merged[i] = merged[i] | {"customer": "mor", "score": 99.5}
        else:
            merged[i] = s
    spark.createDataFrame([tuple(r[c] for c in COLUMNS) for r in source], SPARK_DDL).createOrReplaceTempView("ref_rows")
    s5 = wrote(spark_commit(
        spark, table,
        f"MERGE INTO {t} t USING ref_rows s ON t.id = s.id WHEN MATCHED AND s.id % 2 = 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET t.customer = 'mor', t.score = 99.5 WHEN NOT MATCHED THEN INSERT *",
        "overwrite"), merged, COLUMNS)
    spark.sql(f"ALTER TABLE {t} ADD COLUMN note STRING")
    rows6 = with_note(make_rows(61, 5), lambda i: f"n{i}")
    s6 = wrote(spark_insert(spark, table, rows6, NOTE_COLUMNS),
               {i: r | {"note": None} for i, r in want[s5].items()} | {r["id"]: r for r in rows6}, NOTE_COLUMNS)
    s7 = wrote(spark_commit(spark, table, f"UPDATE {t} SET note = 'upd' WHERE id % 2 = 1", "overwrite"),
               {i: r | ({"note": "upd"} if i % 2 == 1 else {}) for i, r in want[s6].items()}, NOTE_COLUMNS)
    spark.sql(f"ALTER TABLE {t} CREATE TAG before_merge AS OF VERSION {s4}")

    snaps = check_metadata(
        spark, floe, table,
        snapshots=[(s1, None, "append"), (s2, s1, "append"), (s3, s2, "overwrite"), (s4, s3, "delete"),
                   (s5, s4, "overwrite"), (s6, s5, "append"), (s7, s6, "overwrite")],
        refs=[("before_merge", "TAG", s4), ("main", "BRANCH", s7)],
        history=[s1, s2, s3, s4, s5, s6, s7])
    summary = {s[0]: s[3] for s in snaps}
    for sid in (s3, s4, s5, s7):  # merge-on-read: position delete files, never equality deletes
        assert int(summary[sid]["added-position-delete-files"]) > 0, summary[sid]
        assert "added-equality-delete-files" not in summary[sid], summary[sid]
    check_floe_history_command(floe, table, snaps, spark_history(spark, table))

    # Every snapshot, by id, and the tag: exactly Spark's rows, which are the expected ones.
    for sid in want:
        check_reads(spark, floe, table, f"VERSION AS OF {sid}", expected(want[sid], columns[sid]))
    check_reads(spark, floe, table, "VERSION AS OF 'before_merge'", expected(want[s4], COLUMNS))
    check_reads(spark, floe, table, "", expected(want[s7], NOTE_COLUMNS))

    # floe rolls main back to s4; Spark reads s4's rows (with the current schema's note, NULL).
    rolled = floe.sql(f"CALL lakehouse.system.rollback_to_snapshot('{table}', {s4})")
    assert rolled == [{"previous_snapshot_id": s7, "current_snapshot_id": s4}]
    check_reads(spark, floe, table, "", expected(want[s4], NOTE_COLUMNS))
    snaps = check_metadata(
        spark, floe, table,
        snapshots=[s[:3] for s in snaps],
        refs=[("before_merge", "TAG", s4), ("main", "BRANCH", s4)],
        history=[s1, s2, s3, s4, s5, s6, s7, s4])
    check_floe_history_command(floe, table, snaps, spark_history(spark, table))
    for sid in want:
        check_reads(spark, floe, table, f"VERSION AS OF {sid}", expected(want[sid], columns[sid]))

    # Spark appends on the rolled-back table; floe reads it.
    rows8 = with_note(make_rows(91, 3), "after rollback")
    s8 = wrote(spark_insert(spark, table, rows8, NOTE_COLUMNS),
               {i: r | {"note": None} for i, r in want[s4].items()} | {r["id"]: r for r in rows8}, NOTE_COLUMNS)
    assert spark_snapshots(spark, table)[-1][:3] == (s8, s4, "append")
    check_reads(spark, floe, table, "", expected(want[s8], NOTE_COLUMNS))
    check_reads(spark, floe, table, f"VERSION AS OF {s8}", expected(want[s8], NOTE_COLUMNS))
    assert floe_history(floe, table) == spark_history(spark, table)
