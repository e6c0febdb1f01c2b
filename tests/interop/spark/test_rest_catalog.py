"""Spark 3.5 + Iceberg 1.10 with floe's Iceberg REST catalog (`floe serve --rest`) as its catalog.

The suite's SparkSession gets a second catalog, `floe_rest` (Iceberg's RESTCatalog, `type=rest`),
on a `floe serve --rest 127.0.0.1:0` over the suite's own catalog and warehouse (the SQLite file
and directory, or with FLOE_SPARK_LAKEHOUSE=postgresql+s3 the PostgreSQL database and S3
prefix), so floe's CLI reads what Spark commits through the server as lakehouse.<ns>.<table>.

Every write goes through the server: CREATE TABLE (partitioned or not), INSERT, MERGE INTO in
copy-on-write and then merge-on-read mode (with DELETE and UPDATE), a tag, time travel by
snapshot id, by timestamp and by tag, rollback_to_snapshot and expire_snapshots; then CTAS
(a staged create), RTAS, RENAME, register_table and DROP TABLE ... PURGE; and, through the
Java RESTCatalog under the Spark catalog, a multi-table commit (POST /v1/transactions/commit)
and a drop the server purges. At each step Spark's rows are the expected ones exactly, the
snapshot ids are those the table's metadata tables list, and floe reads every snapshot (and
the tag, and every point of the history by time) with the rows Spark read there; floe's
history, metadata tables and audit log show every commit Spark made.

The other way round, DuckDB 1.5 (tests/support/duckdb_rest.py) attaches the same server and
creates, inserts into, updates and deletes from a table (merge-on-read: position delete files);
Spark lists DuckDB's snapshots and reads each by id with the rows DuckDB read there.

A format-version 3 table, written by Spark through the server (inserts, a DELETE that writes
deletion vectors, an UPDATE, a MERGE), reads back with Iceberg's row lineage (row ids, last
updated sequence numbers) at every snapshot; the metadata floe stores gives each snapshot its
range of row ids, and floe refuses a snapshot without one, or with one already taken.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import os
import re
import time
import urllib.parse
from pathlib import Path

import pytest
import s3_server
from duckdb_rest import Duck, Relay
from floe_serve import FloeServe
from names import name_for_test

from .support import (
    COLUMNS,
    SPARK_DDL,
    Floe,
    as_floe_text,
    make_rows,
    plain,
    rows_of,
    spark_rest_catalog,
    to_arrow,
    to_spark,
)

CAT = "floe_rest"  # the Spark catalog on floe's REST server


@pytest.fixture(scope="module")
def rest(spark, lakehouse: Floe):
    """floe's REST server on the lakehouse, and the Spark catalog `floe_rest` on it."""
    server = spark_rest_catalog(spark, lakehouse, CAT)
    yield server
    server.stop(check=True)


@pytest.fixture
def rest_ns(rest, spark, request) -> str:
    """A fresh namespace, created through the REST server."""
    name = name_for_test(request, prefix="r")
    spark.sql(f"CREATE NAMESPACE {CAT}.{name}")
    return name


@pytest.fixture
def duck(lakehouse: Floe, rest):
    """DuckDB with the same REST server attached as `lake`, through a relay that notes its
    requests and floe's answers."""
    relay = Relay(rest.rest_port)
    d = Duck(lakehouse, relay, rest.stderr)
    yield d
    d.close()
    relay.close()
    # floe answered every request DuckDB made, none with a server error.
    assert [str(e) for e in relay.exchanges if e.status is None or e.status >= 500] == []


# Spark through the server.


def spark_rows(spark, sql: str) -> list[dict]:
    df = spark.sql(sql)
    assert df.columns == COLUMNS, f"{sql}: columns {df.columns}"
    return rows_of(df)


def snapshot_rows(spark, table: str) -> dict[int, object]:
    return {r.snapshot_id: r for r in spark.sql(
        f"SELECT snapshot_id, parent_id, operation, summary, committed_at FROM {CAT}.{table}.snapshots").collect()}


def main_snapshot(spark, table: str) -> int | None:
    refs = spark.sql(f"SELECT snapshot_id FROM {CAT}.{table}.refs WHERE name = 'main'").collect()
    return refs[0].snapshot_id if refs else None


def commit(spark, table: str, statement: str, operation: str) -> int:
    """Runs a write; it must add exactly one snapshot, `operation`, on the current one, and make
    it current. Returns its id."""
    before, parent = snapshot_rows(spark, table), main_snapshot(spark, table)
    spark.sql(statement)
    after = snapshot_rows(spark, table)
    new = sorted(set(after) - set(before))
    assert len(new) == 1 and set(before) <= set(after), f"{statement}: snapshots {sorted(before)} -> {sorted(after)}"
    s = after[new[0]]
    assert (s.parent_id, s.operation) == (parent, operation), f"{statement}: snapshot {s}"
    assert main_snapshot(spark, table) == s.snapshot_id, statement
    return s.snapshot_id


def insert(spark, table: str, rows: list[dict]) -> int:
    to_spark(spark, rows).createOrReplaceTempView("rest_rows")
    return commit(spark, table, f"INSERT INTO {CAT}.{table} SELECT * FROM rest_rows", "append")


def millis_text(value: dt.datetime) -> str:
    """A timestamp Spark returned (naive, UTC) as a literal to the millisecond."""
    return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def table_location(spark, table: str) -> str:
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED {CAT}.{table}").collect()
    return next(r.data_type for r in rows if r.col_name == "Location")


# floe through its CLI, on the same catalog.


def floe_rows(rows: list[dict]) -> list[dict]:
    """Rows as floe's JSON output writes them (timestamps and dates as text)."""
    return [{k: as_floe_text(plain(v)) for k, v in r.items()} for r in rows_of(rows)]


def floe_read(floe: Floe, table: str, as_of: str = "") -> list[dict]:
    return floe_rows(floe.sql(f"SELECT * FROM lakehouse.{table} {as_of}", decimals=True))


def check_floe_metadata(spark, floe: Floe, table: str) -> None:
    """floe's snapshots, history and refs tables are Spark's, and `floe history` lists every
    change of the current snapshot with the operation and counts of Spark's commit."""
    snap_sql = f"SELECT snapshot_id, parent_id, operation, summary FROM {{c}}.{table}.snapshots"
    theirs = sorted((r.snapshot_id, r.parent_id, r.operation, dict(r.summary))
                    for r in spark.sql(snap_sql.format(c=CAT)).collect())
    ours = sorted((r["snapshot_id"], r["parent_id"], r["operation"], r["summary"])
                  for r in floe.sql(snap_sql.format(c="lakehouse")))
    assert ours == theirs, f"{table}: floe's snapshots table"

    hist_sql = f"SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor FROM {{c}}.{table}.history"
    history = spark.sql(hist_sql.format(c=CAT)).collect()
    assert floe.sql(hist_sql.format(c="lakehouse")) == [
        {k: as_floe_text(v) for k, v in h.asDict().items()} for h in history], f"{table}: floe's history table"

    refs_sql = f"SELECT name, type, snapshot_id FROM {{c}}.{table}.refs"
    assert sorted(tuple(r.values()) for r in floe.sql(refs_sql.format(c="lakehouse"))) == sorted(
        tuple(r) for r in spark.sql(refs_sql.format(c=CAT)).collect()), f"{table}: floe's refs table"

    proc = floe.cli("history", table, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    snaps = snapshot_rows(spark, table)
    assert doc["current_snapshot_id"] == main_snapshot(spark, table)

    def count(summary, key):
        return int(summary[key]) if key in summary else None

    assert [(e["snapshot_id"], e["parent_id"], e["is_current_ancestor"], e["operation"], e["added_records"],
             e["deleted_records"]) for e in doc["history"]] == [
        (h.snapshot_id, h.parent_id, h.is_current_ancestor, snaps[h.snapshot_id].operation,
         count(snaps[h.snapshot_id].summary, "added-records"), count(snaps[h.snapshot_id].summary, "deleted-records"))
        for h in history], f"{table}: floe history"


def reachable_files(spark, floe: Floe, table: str) -> dict[str, set[str]]:
    """The files every snapshot the table keeps reaches, by kind, as `floe.location` names them."""
    t = f"{CAT}.{table}"

    def paths(sql: str) -> set[str]:
        return {floe.location(r[0]) for r in spark.sql(sql).collect()}

    return {
        "data": paths(f"SELECT file_path FROM {t}.all_data_files"),
        "position": paths(f"SELECT file_path FROM {t}.all_delete_files WHERE content = 1"),
        "equality": paths(f"SELECT file_path FROM {t}.all_delete_files WHERE content = 2"),
        "manifests": paths(f"SELECT path FROM {t}.all_manifests"),
        "lists": paths(f"SELECT manifest_list FROM {t}.snapshots"),
    }


def audit_log(floe: Floe, table: str) -> list[tuple]:
    """The table's audit log, oldest first: kind, operation, main's snapshot before and after,
    and the refs moved."""
    return [(e["kind"], e["operation"], e["previous_snapshot_id"], e["snapshot_id"],
             [(r["name"], r["from_snapshot_id"], r["to_snapshot_id"]) for r in e["refs"]])
            for e in floe.audit(table)]


# The scenario's rows.


def cow_merge(rows: dict[int, dict], source: list[dict]) -> dict[int, dict]:
    """MERGE: matched ids divisible by 3 deleted, other matched ones updated, new ones inserted."""
    out = dict(rows)
    for s in source:
        i = s["id"]
        if i in out and i % 3 == 0:
            del out[i]
        elif i in out:
            out[i] = out[i] | {"customer": "cow", "amount": out[i]["amount"] + 1}
        else:
            out[i] = s
    return out


COW_MERGE = (
    "MERGE INTO {t} t USING rest_rows s ON t.id = s.id "
    "WHEN MATCHED AND s.id % 3 = 0 THEN DELETE "
    "WHEN MATCHED THEN UPDATE SET t.customer = 'cow', t.amount = t.amount + 1 "
    "WHEN NOT MATCHED THEN INSERT *"
)


def mor_merge(rows: dict[int, dict], source: list[dict]) -> dict[int, dict]:
    """MERGE: matched even ids deleted, other matched ones updated, new ones inserted."""
    out = dict(rows)
    for s in source:
        i = s["id"]
        if i in out and i % 2 == 0:
            del out[i]
        elif i in out:
            out[i] = out[i] | {"customer": "mor", "score": 99.5}
        else:
            out[i] = s
    return out


MOR_MERGE = (
    "MERGE INTO {t} t USING rest_rows s ON t.id = s.id "
    "WHEN MATCHED AND s.id % 2 = 0 THEN DELETE "
    "WHEN MATCHED THEN UPDATE SET t.customer = 'mor', t.score = 99.5 "
    "WHEN NOT MATCHED THEN INSERT *"
)


@pytest.mark.parametrize("partitioned", [False, True], ids=["unpartitioned", "partitioned"])
def test_spark_writes_and_travels_through_floe_rest(spark, lakehouse, rest, rest_ns, partitioned):
    table = f"{rest_ns}.orders"
    t = f"{CAT}.{table}"
    spec = " PARTITIONED BY (days(ts), bucket(4, id))" if partitioned else ""
    spark.sql(f"CREATE TABLE {t} ({SPARK_DDL}) USING iceberg{spec} TBLPROPERTIES ('format-version' = '2')")
    assert spark.sql(f"SELECT * FROM {t}").collect() == []
    assert snapshot_rows(spark, table) == {}
    # floe sees the table the server created, empty, with Spark's columns and partitioning.
    assert floe_read(lakehouse, table) == []
    described = {r.col_name: r.data_type for r in spark.sql(f"DESCRIBE TABLE {t}").collect()}
    assert [described[c] for c in COLUMNS] == [
        "bigint", "string", "decimal(10,2)", "double", "timestamp", "timestamp_ntz", "date"]
    if partitioned:
        assert (described["Part 0"], described["Part 1"]) == ("days(ts)", "bucket(4, id)")

    want: dict[int, dict[int, dict]] = {}  # snapshot id -> rows by id

    # Appends, then a copy-on-write MERGE (the table's default write mode).
    s1 = insert(spark, table, make_rows(1, 20))
    want[s1] = {r["id"]: r for r in make_rows(1, 20)}
    s2 = insert(spark, table, make_rows(21, 20))
    want[s2] = want[s1] | {r["id"]: r for r in make_rows(21, 20)}
    props = {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES {t}").collect()}
    assert props["format-version"] == "2"
    assert not {"write.merge.mode", "write.delete.mode", "write.update.mode"} & set(props)
    to_spark(spark, make_rows(31, 20)).createOrReplaceTempView("rest_rows")
    s3 = commit(spark, table, COW_MERGE.format(t=t), "overwrite")
    want[s3] = cow_merge(want[s2], make_rows(31, 20))
    assert snapshot_rows(spark, table)[s3].summary["total-delete-files"] == "0"

    # Merge-on-read: a MERGE, a DELETE and an UPDATE write position delete files.
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.merge.mode' = 'merge-on-read', "
              "'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')")
    props = {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES {t}").collect()}
    assert [props[k] for k in ("write.merge.mode", "write.delete.mode", "write.update.mode")] == ["merge-on-read"] * 3
    assert main_snapshot(spark, table) == s3  # a property change adds no snapshot
    source = make_rows(1, 10) + make_rows(51, 5)
    to_spark(spark, source).createOrReplaceTempView("rest_rows")
    s4 = commit(spark, table, MOR_MERGE.format(t=t), "overwrite")
    want[s4] = mor_merge(want[s3], source)
    s5 = commit(spark, table, f"DELETE FROM {t} WHERE id BETWEEN 21 AND 25 OR customer IS NULL", "delete")
    want[s5] = {i: r for i, r in want[s4].items() if not (21 <= i <= 25 or r["customer"] is None)}
    s6 = commit(spark, table, f"UPDATE {t} SET score = -1.0, amount = amount * 2 WHERE customer = 'c1'", "overwrite")
    want[s6] = {i: r | ({"score": -1.0, "amount": r["amount"] * 2} if r["customer"] == "c1" else {})
                for i, r in want[s5].items()}
    snaps = snapshot_rows(spark, table)
    for s in (s4, s5, s6):
        summary = snaps[s].summary
        assert int(summary["added-position-delete-files"]) > 0, f"snapshot {s} wrote no position deletes: {summary}"
        assert "added-equality-delete-files" not in summary

    # Every snapshot read by id is exactly the rows expected there.
    assert spark_rows(spark, f"SELECT * FROM {t}") == rows_of(want[s6].values())
    for sid, rows in want.items():
        assert spark_rows(spark, f"SELECT * FROM {t} VERSION AS OF {sid}") == rows_of(rows.values()), sid

    # A tag on the copy-on-write MERGE's snapshot.
    spark.sql(f"ALTER TABLE {t} CREATE TAG cow_merged AS OF VERSION {s3}")
    assert spark_rows(spark, f"SELECT * FROM {t} VERSION AS OF 'cow_merged'") == rows_of(want[s3].values())
    assert sorted(tuple(r) for r in spark.sql(f"SELECT name, type, snapshot_id FROM {t}.refs").collect()) == [
        ("cow_merged", "TAG", s3), ("main", "BRANCH", s6)]
    assert main_snapshot(spark, table) == s6

    # Roll main back to the merge-on-read MERGE; append on it.
    result = spark.sql(f"CALL {CAT}.system.rollback_to_snapshot('{table}', {s4})").collect()
    assert [tuple(r) for r in result] == [(s6, s4)]
    assert main_snapshot(spark, table) == s4
    assert spark_rows(spark, f"SELECT * FROM {t}") == rows_of(want[s4].values())
    s7 = insert(spark, table, make_rows(61, 5))
    want[s7] = want[s4] | {r["id"]: r for r in make_rows(61, 5)}
    assert spark_rows(spark, f"SELECT * FROM {t}") == rows_of(want[s7].values())

    # The history: every change of main, the rollback included, in order.
    history = spark.sql(f"SELECT * FROM {t}.history").collect()
    assert [(h.snapshot_id, h.parent_id, h.is_current_ancestor) for h in history] == [
        (s1, None, True), (s2, s1, True), (s3, s2, True), (s4, s3, True), (s5, s4, False), (s6, s5, False),
        (s4, s3, True), (s7, s4, True)]
    snaps = snapshot_rows(spark, table)
    assert [h.made_current_at for h in history[:6]] == [snaps[s].committed_at for s in (s1, s2, s3, s4, s5, s6)]
    assert [tuple(r) for r in spark.sql(f"SELECT snapshot_id, parent_id FROM {t}.snapshots").collect()] == [
        (s1, None), (s2, s1), (s3, s2), (s4, s3), (s5, s4), (s6, s5), (s7, s4)]

    # Time travel by timestamp follows the history: at each change's time, what it made current.
    at_times = [(millis_text(h.made_current_at), h.snapshot_id) for h in history]
    assert len({at for at, _ in at_times}) == len(at_times), at_times
    for at, sid in at_times:
        assert spark_rows(spark, f"SELECT * FROM {t} TIMESTAMP AS OF '{at}'") == rows_of(want[sid].values()), at

    # floe reads every snapshot, the tag and every point in time as Spark did.
    for sid, rows in want.items():
        assert floe_read(lakehouse, table, f"VERSION AS OF {sid}") == floe_rows(rows.values()), f"snapshot {sid}"
    assert floe_read(lakehouse, table, "VERSION AS OF 'cow_merged'") == floe_rows(want[s3].values())
    for at, sid in at_times:
        assert floe_read(lakehouse, table, f"TIMESTAMP AS OF '{at}'") == floe_rows(want[sid].values()), at
    assert floe_read(lakehouse, table) == floe_rows(want[s7].values())
    check_floe_metadata(spark, lakehouse, table)

    # Expire: the snapshots before now but the last two of main and the tag's.
    location = table_location(spark, table)
    before = reachable_files(spark, lakehouse, table)
    stored = lakehouse.files_under(location)
    for kind, paths in before.items():
        assert paths <= stored, f"{kind} files missing before the expiry: {sorted(paths - stored)}"
    older_than = millis_text(snaps[s7].committed_at + dt.timedelta(milliseconds=1))
    result = spark.sql(f"CALL {CAT}.system.expire_snapshots(table => '{table}', "
                       f"older_than => TIMESTAMP '{older_than}', retain_last => 2)").collect()
    after = reachable_files(spark, lakehouse, table)
    gone = {kind: before[kind] - after[kind] for kind in before}
    assert [tuple(r) for r in result] == [(len(gone["data"]), len(gone["position"]), len(gone["equality"]),
                                           len(gone["manifests"]), len(gone["lists"]), 0)]
    assert len(gone["lists"]) == 4 and gone["data"] and gone["position"]
    assert sorted(snapshot_rows(spark, table)) == sorted([s3, s4, s7])
    stored = lakehouse.files_under(location)
    for kind in before:
        assert not gone[kind] & stored, f"expired {kind} files left: {sorted(gone[kind] & stored)}"
        assert after[kind] <= stored, f"{kind} files the table still reaches deleted: {sorted(after[kind] - stored)}"
    # The history keeps what is still true after the expired snapshots: the rollback and the append.
    history = spark.sql(f"SELECT * FROM {t}.history").collect()
    assert [(h.snapshot_id, h.parent_id, h.is_current_ancestor) for h in history] == [(s4, s3, True), (s7, s4, True)]
    assert [millis_text(h.made_current_at) for h in history] == [at for at, _ in at_times[-2:]]

    # What is left reads as before, in both engines; the expired snapshots are gone for both.
    for sid in (s3, s4, s7):
        assert spark_rows(spark, f"SELECT * FROM {t} VERSION AS OF {sid}") == rows_of(want[sid].values())
        assert floe_read(lakehouse, table, f"VERSION AS OF {sid}") == floe_rows(want[sid].values())
    assert floe_read(lakehouse, table, "VERSION AS OF 'cow_merged'") == floe_rows(want[s3].values())
    for sid in (s1, s2, s5, s6):
        with pytest.raises(Exception, match=f"Cannot find snapshot with ID {sid}"):
            spark.sql(f"SELECT * FROM {t} VERSION AS OF {sid}").collect()
        with pytest.raises(RuntimeError, match=f"Cannot find matching snapshot ID or reference name for version {sid}"):
            lakehouse.sql(f"SELECT * FROM lakehouse.{table} VERSION AS OF {sid}")
    check_floe_metadata(spark, lakehouse, table)

    # floe's audit log has every change Spark made through the server, the metadata-only ones
    # (a property, a tag, the rollback, the expiry) included.
    assert audit_log(lakehouse, table) == [
        ("create", None, None, None, []),
        ("commit", "append", None, s1, [("main", None, s1)]),
        ("commit", "append", s1, s2, [("main", s1, s2)]),
        ("commit", "overwrite", s2, s3, [("main", s2, s3)]),
        ("properties", None, s3, s3, []),
        ("commit", "overwrite", s3, s4, [("main", s3, s4)]),
        ("commit", "delete", s4, s5, [("main", s4, s5)]),
        ("commit", "overwrite", s5, s6, [("main", s5, s6)]),
        ("ref-create", None, s6, s6, [("cow_merged", None, s3)]),
        ("rollback", None, s6, s4, [("main", s6, s4)]),
        ("commit", "append", s4, s7, [("main", s4, s7)]),
        ("expire", None, s7, s7, []),
    ]


def test_ctas_rename_register_and_drop_purge_through_floe_rest(spark, lakehouse, rest, rest_ns):
    source = f"{rest_ns}.source"
    spark.sql(f"CREATE TABLE {CAT}.{source} ({SPARK_DDL}) USING iceberg PARTITIONED BY (bucket(2, id))")
    s1 = insert(spark, source, make_rows(1, 12))
    rows = rows_of(make_rows(1, 12))

    # CTAS: Iceberg stages the create (stage-create) and commits it with its first snapshot.
    copy = f"{rest_ns}.copy"
    spark.sql(f"CREATE TABLE {CAT}.{copy} USING iceberg AS SELECT * FROM {CAT}.{source} WHERE id > 4")
    assert spark_rows(spark, f"SELECT * FROM {CAT}.{copy}") == rows_of(make_rows(5, 8))
    [(c1, parent, operation)] = [(r.snapshot_id, r.parent_id, r.operation) for r in snapshot_rows(spark, copy).values()]
    assert (parent, operation) == (None, "append")
    assert floe_read(lakehouse, copy) == floe_rows(make_rows(5, 8))
    assert floe_read(lakehouse, copy, f"VERSION AS OF {c1}") == floe_rows(make_rows(5, 8))

    # RTAS replaces it: a second snapshot, on the first.
    spark.sql(f"CREATE OR REPLACE TABLE {CAT}.{copy} USING iceberg AS SELECT * FROM {CAT}.{source} WHERE id <= 3")
    assert spark_rows(spark, f"SELECT * FROM {CAT}.{copy}") == rows_of(make_rows(1, 3))
    c2 = main_snapshot(spark, copy)
    snaps = snapshot_rows(spark, copy)
    assert sorted(snaps) == sorted([c1, c2])
    assert (snaps[c2].parent_id, snaps[c2].operation) == (None, "overwrite")  # a replace starts a new line
    assert floe_read(lakehouse, copy) == floe_rows(make_rows(1, 3))
    assert floe_read(lakehouse, copy, f"VERSION AS OF {c1}") == floe_rows(make_rows(5, 8))

    # Rename: the same table under the new name, for both engines; the old name is free.
    moved = f"{rest_ns}.moved"
    spark.sql(f"ALTER TABLE {CAT}.{copy} RENAME TO {moved}")  # the new name is within the catalog
    names = sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {CAT}.{rest_ns}").collect())
    assert names == ["moved", "source"]
    assert spark_rows(spark, f"SELECT * FROM {CAT}.{moved}") == rows_of(make_rows(1, 3))
    assert main_snapshot(spark, moved) == c2
    assert floe_read(lakehouse, moved, f"VERSION AS OF {c1}") == floe_rows(make_rows(5, 8))
    with pytest.raises(RuntimeError, match=rf"TABLE_OR_VIEW_NOT_FOUND.*`{rest_ns}`\.`copy` cannot be found"):
        lakehouse.sql(f"SELECT * FROM lakehouse.{copy}")

    # Register the source's current metadata file as another table: the same snapshots.
    metadata = spark.sql(f"SELECT file FROM {CAT}.{source}.metadata_log_entries "
                         "ORDER BY timestamp DESC LIMIT 1").collect()[0].file
    registered = f"{rest_ns}.registered"
    result = spark.sql(f"CALL {CAT}.system.register_table('{registered}', '{metadata}')").collect()
    assert [(r.current_snapshot_id, r.total_records_count, r.total_data_files_count) for r in result] == [
        (s1, 12, 2)]
    assert spark_rows(spark, f"SELECT * FROM {CAT}.{registered}") == rows
    assert floe_read(lakehouse, registered, f"VERSION AS OF {s1}") == floe_rows(make_rows(1, 12))
    # Dropped without PURGE: the entry goes, the files it shares with the source stay.
    spark.sql(f"DROP TABLE {CAT}.{registered}")
    assert spark_rows(spark, f"SELECT * FROM {CAT}.{source}") == rows

    # DROP TABLE ... PURGE: Spark drops the table through the server without asking it to purge,
    # then deletes every file the table reached itself.
    location = table_location(spark, moved)
    assert lakehouse.files_under(location)
    spark.sql(f"DROP TABLE {CAT}.{moved} PURGE")
    names = sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {CAT}.{rest_ns}").collect())
    assert names == ["source"]
    with pytest.raises(RuntimeError, match=rf"TABLE_OR_VIEW_NOT_FOUND.*`{rest_ns}`\.`moved` cannot be found"):
        lakehouse.sql(f"SELECT * FROM lakehouse.{moved}")
    assert lakehouse.files_under(location) == set()
    assert floe_read(lakehouse, source) == floe_rows(make_rows(1, 12))

    # floe's audit log: the staged create with its snapshot, the replace, the rename, the
    # registration and the drops, each under the name the table had after it.
    assert audit_log(lakehouse, source) == [("create", None, None, None, []),
                                            ("commit", "append", None, s1, [("main", None, s1)])]
    assert audit_log(lakehouse, copy) == [("create", None, None, c1, [("main", None, c1)]),
                                          ("commit", "overwrite", c1, c2, [("main", c1, c2)])]
    assert audit_log(lakehouse, moved) == [("rename", None, None, None, []), ("drop", None, None, None, [])]
    assert [e["detail"] for e in lakehouse.audit(moved)] == [f"renamed from {copy}", None]
    assert audit_log(lakehouse, registered) == [("register", None, None, s1, [("main", None, s1)]),
                                                ("drop", None, None, None, [])]


def test_java_client_multi_table_commit_and_server_side_purge(spark, lakehouse, rest, rest_ns):
    """Iceberg's Java RESTCatalog, the one under the Spark catalog: a multi-table commit
    (POST /v1/transactions/commit) that fails as a whole on a stale requirement and then succeeds
    as a whole, and a drop with purgeRequested=true, which the server purges."""
    jvm = spark._jvm
    catalog = spark._jsparkSession.sessionState().catalogManager().catalog(CAT).icebergCatalog()
    assert catalog.getClass().getName() == "org.apache.iceberg.rest.RESTCatalog"
    a, b = f"{rest_ns}.a", f"{rest_ns}.b"
    for table in (a, b):
        spark.sql(f"CREATE TABLE {CAT}.{table} ({SPARK_DDL}) USING iceberg")
    a1, a2 = insert(spark, a, make_rows(1, 5)), insert(spark, a, make_rows(6, 5))
    b1, b2 = insert(spark, b, make_rows(11, 5)), insert(spark, b, make_rows(16, 5))

    def table_commit(table: str, change):
        """A TableCommit of `change` (on a TableMetadata.Builder) to the table as loaded now:
        its requirements are those Iceberg derives (the table's uuid, each changed ref's snapshot)."""
        ident = jvm.org.apache.iceberg.catalog.TableIdentifier.parse(table)
        base = catalog.loadTable(ident).operations().current()
        builder = jvm.org.apache.iceberg.TableMetadata.buildFrom(base)
        change(builder)
        return jvm.org.apache.iceberg.catalog.TableCommit.create(ident, base, builder.build())

    def commit_transaction(*commits):
        commit_list = jvm.java.util.ArrayList()
        for c in commits:
            commit_list.add(c)
        catalog.commitTransaction(commit_list)

    def tag(name: str, snapshot_id: int):
        return lambda m: m.setRef(name, jvm.org.apache.iceberg.SnapshotRef.tagBuilder(snapshot_id).build())

    # Roll both tables back, with a tag on each; b moves on before the commit, so none of it lands.
    stale = [table_commit(a, lambda m: tag("tx", a2)(m.setBranchSnapshot(a1, "main"))),
             table_commit(b, lambda m: tag("tx", b2)(m.setBranchSnapshot(b1, "main")))]
    b3 = insert(spark, b, make_rows(21, 5))
    with pytest.raises(Exception, match=rf"CommitFailedException: Commit failed: Requirement failed: branch main has changed: "
                                        rf"expected id {b2} != {b3}"):
        commit_transaction(*stale)
    assert (main_snapshot(spark, a), main_snapshot(spark, b)) == (a2, b3)
    for table in (a, b):
        assert [r.name for r in spark.sql(f"SELECT name FROM {CAT}.{table}.refs").collect()] == ["main"]

    commit_transaction(table_commit(a, lambda m: tag("tx", a2)(m.setBranchSnapshot(a1, "main"))),
                       table_commit(b, lambda m: tag("tx", b3)(m.setBranchSnapshot(b1, "main"))))
    for table, now, tagged, first, then in ((a, a1, a2, 1, 10), (b, b1, b3, 11, 15)):
        assert sorted(tuple(r) for r in spark.sql(f"SELECT name, type, snapshot_id FROM {CAT}.{table}.refs").collect()) == [
            ("main", "BRANCH", now), ("tx", "TAG", tagged)]
        assert spark_rows(spark, f"SELECT * FROM {CAT}.{table}") == rows_of(make_rows(first, 5))
        assert spark_rows(spark, f"SELECT * FROM {CAT}.{table} VERSION AS OF 'tx'") == rows_of(make_rows(first, then))
        assert floe_read(lakehouse, table) == floe_rows(make_rows(first, 5))
        assert floe_read(lakehouse, table, "VERSION AS OF 'tx'") == floe_rows(make_rows(first, then))
    assert audit_log(lakehouse, a)[-1] == ("rollback", None, a2, a1, [("main", a2, a1), ("tx", None, a2)])
    assert audit_log(lakehouse, b)[-1] == ("rollback", None, b3, b1, [("main", b3, b1), ("tx", None, b3)])

    # dropTable(..., purge = true) asks the server to purge (purgeRequested=true): it deletes
    # every file the table's metadata reaches; the other table keeps its own.
    location = table_location(spark, a)
    reached = set().union(*reachable_files(spark, lakehouse, a).values())
    reached |= {lakehouse.location(r.file) for r in spark.sql(f"SELECT file FROM {CAT}.{a}.metadata_log_entries").collect()}
    assert reached <= lakehouse.files_under(location)
    assert catalog.dropTable(jvm.org.apache.iceberg.catalog.TableIdentifier.parse(a), True)
    assert sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {CAT}.{rest_ns}").collect()) == ["b"]
    left = lakehouse.files_under(location)
    assert not left & reached, f"the purge left files the table reached: {sorted(left & reached)}"
    # Nothing else is left but, on a local warehouse, the checksum files Hadoop wrote beside
    # Spark's files (.NAME.crc), which no metadata names.
    sidecars = {os.path.join(os.path.dirname(f), f".{os.path.basename(f)}.crc") for f in reached}
    assert left <= sidecars, f"the purge left {sorted(left - sidecars)}"
    newest = lakehouse.audit(a)[-1]
    assert (newest["kind"], newest["detail"]) == ("drop", "purged")
    assert floe_read(lakehouse, b, f"VERSION AS OF {b3}") == floe_rows(make_rows(11, 15))


def test_spark_reads_every_snapshot_duckdb_wrote_through_floe_rest(spark, lakehouse, rest, rest_ns, duck):
    """DuckDB 1.5 (its iceberg extension) creates an unpartitioned table through the same
    server, inserts twice, updates twice and deletes, merge-on-read: its updates and delete
    write position delete files. Spark lists exactly the snapshots DuckDB made, reads each by
    id with the rows DuckDB reads there, reads the current state and sees DuckDB's data and
    delete files."""
    table = f"{rest_ns}.duck"
    t, lt = f"{CAT}.{table}", f"lake.{table}"
    duck.sql(f"CREATE TABLE {lt} (id BIGINT, customer VARCHAR, amount DECIMAL(10, 2), score DOUBLE, "
             "ts TIMESTAMPTZ, local_ts TIMESTAMP, day DATE)")
    assert duck.sql(f"SELECT * FROM {lt}") == []
    assert duck.snapshots(lt) == []
    assert spark.sql(f"SELECT * FROM {t}").collect() == []
    assert snapshot_rows(spark, table) == {}
    described = {r.col_name: r.data_type for r in spark.sql(f"DESCRIBE TABLE {t}").collect()}
    assert [described[c] for c in COLUMNS] == [
        "bigint", "string", "decimal(10,2)", "double", "timestamp", "timestamp_ntz", "date"]

    def duck_rows(sql: str) -> list[dict]:
        result = duck.table(sql)
        assert result.column_names == COLUMNS, f"{sql}: columns {result.column_names}"
        return rows_of(result)

    states: list[dict[int, dict]] = []  # the rows after each of DuckDB's commits, by id

    def write(statement: str, count: int, change) -> None:
        assert duck.sql(statement) == [(count,)], statement
        states.append(change(dict(states[-1]) if states else {}))
        assert duck_rows(f"SELECT * FROM {lt}") == rows_of(states[-1].values()), statement

    duck.con.register("duck_rows", to_arrow(make_rows(1, 20)))
    write(f"INSERT INTO {lt} SELECT * FROM duck_rows", 20, lambda rows: {r["id"]: r for r in make_rows(1, 20)})
    duck.con.register("duck_rows", to_arrow(make_rows(21, 10)))
    write(f"INSERT INTO {lt} SELECT * FROM duck_rows", 10,
          lambda rows: rows | {r["id"]: r for r in make_rows(21, 10)})
    c1 = [r for r in states[-1].values() if r["customer"] == "c1"]
    write(f"UPDATE {lt} SET customer = 'duck', amount = amount + 1 WHERE customer = 'c1'", len(c1),
          lambda rows: rows | {r["id"]: r | {"customer": "duck", "amount": r["amount"] + 1} for r in c1})
    gone = [i for i, r in states[-1].items() if 5 <= i <= 12 or r["customer"] is None]
    write(f"DELETE FROM {lt} WHERE id BETWEEN 5 AND 12 OR customer IS NULL", len(gone),
          lambda rows: {i: r for i, r in rows.items() if i not in gone})
    some = [i for i in states[-1] if i % 3 == 0 or i == 16]  # in the inserts' files and the update's
    write(f"UPDATE {lt} SET score = -1.5 WHERE id % 3 = 0 OR id = 16", len(some),
          lambda rows: rows | {i: rows[i] | {"score": -1.5} for i in some})

    snaps = duck.snapshots(lt)
    assert [op for _, _, op in snaps] == ["append", "append", "overwrite", "delete", "overwrite"]
    ids = [s for s, _, _ in snaps]
    assert len(set(ids)) == len(ids), snaps
    # DuckDB reads each of its snapshots with the rows it had written there.
    for sid, rows in zip(ids, states):
        assert duck_rows(f"SELECT * FROM {lt} AT (VERSION => {sid})") == rows_of(rows.values()), sid

    # Spark lists the same snapshots, one line of history from the first, main at the last.
    assert [tuple(r) for r in spark.sql(f"SELECT snapshot_id, parent_id, operation FROM {t}.snapshots").collect()] == [
        (sid, ids[i - 1] if i else None, op) for i, (sid, _, op) in enumerate(snaps)]
    assert [tuple(r) for r in spark.sql(f"SELECT snapshot_id, parent_id, is_current_ancestor FROM {t}.history")
            .collect()] == [(sid, ids[i - 1] if i else None, True) for i, sid in enumerate(ids)]
    assert main_snapshot(spark, table) == ids[-1]
    assert [plain(r.committed_at) for r in spark.sql(f"SELECT committed_at FROM {t}.snapshots").collect()] == \
        [plain(at) for _, at, _ in snaps]

    # Spark reads every snapshot by id with the rows DuckDB read there, and the current state.
    for sid, rows in zip(ids, states):
        assert spark_rows(spark, f"SELECT * FROM {t} VERSION AS OF {sid}") == rows_of(rows.values()), sid
    assert spark_rows(spark, f"SELECT * FROM {t}") == rows_of(states[-1].values())

    # Merge-on-read: each update and the delete added a position delete file per data file it
    # touched (the second update the first one's file too), each insert and update one data
    # file; Spark's entries carry each file's snapshot and sequence number, and its files table
    # lists the files DuckDB lists.
    s1, s2, s3, s4, s5 = ids
    entries = spark.sql(f"SELECT status, snapshot_id, sequence_number, data_file.content, data_file.record_count "
                        f"FROM {t}.entries").collect()
    assert sorted(tuple(e) for e in entries) == sorted([
        (1, s1, 1, 0, 20), (1, s2, 2, 0, 10),
        (1, s3, 3, 0, 5), (1, s3, 3, 1, 4), (1, s3, 3, 1, 1),
        (1, s4, 4, 1, 7), (1, s4, 4, 1, 2), (1, s4, 4, 1, 2),
        (1, s5, 5, 0, 7), (1, s5, 5, 1, 3), (1, s5, 5, 1, 3), (1, s5, 5, 1, 1)])
    files = duck.sql(f"SELECT content, file_path, record_count FROM iceberg_metadata({lt})")
    content = {"EXISTING": 0, "POSITION_DELETES": 1}
    assert sorted(tuple(r) for r in spark.sql(f"SELECT content, file_path, record_count FROM {t}.files").collect()) == \
        sorted((content[c], p, n) for c, p, n in files)


# A format-version 3 table: row lineage.

# Iceberg's Java client sends its HTTP library's User-Agent.
JAVA_CLIENT = r"rest \(Apache-HttpClient/[\d.]+ \(Java/[\w.]+\)\)"


def stored_metadata(floe: Floe, table: str) -> tuple[str, dict]:
    """The table's metadata location in floe's catalog, and the metadata file there."""
    ns, name = table.split(".")
    [(location,)] = floe.catalog_rows(
        f"SELECT metadata_location FROM iceberg_tables WHERE catalog_name = '{floe.catalog_name}' "
        f"AND table_namespace = '{ns}' AND table_name = '{name}'")
    path = floe.location(location)
    if path.startswith("s3://"):
        bucket, _, key = path.removeprefix("s3://").partition("/")
        text = s3_server.client(floe.env["AWS_ENDPOINT_URL"]).get_object(Bucket=bucket, Key=key)["Body"].read()
    else:
        text = Path(path).read_bytes()
    return location, json.loads(text)


def rest_post(server: FloeServe, path: str, body: dict) -> tuple[int, dict]:
    """POSTs a JSON body to the server; its status and JSON answer."""
    con = http.client.HTTPConnection("127.0.0.1", server.rest_port, timeout=60)
    try:
        con.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        answer = con.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        con.close()


def test_spark_writes_and_reads_a_v3_table_through_floe_rest(spark, lakehouse, rest, rest_ns):
    """A format-version 3 table, merge-on-read, written and read by Spark through the server:
    two inserts, a DELETE (a deletion vector per data file it touches), an UPDATE and a MERGE.
    After each write and at every snapshot, Spark reads exactly the expected rows, with the row
    ids and last-updated sequence numbers of Iceberg's row lineage: each snapshot takes the
    next range of row ids, as many as the rows of the data files it adds; a new row's id is its
    file's first row id plus its position, an updated row keeps its id and takes the update's
    sequence number. The metadata floe stores is format-version 3 with Spark's snapshots, each
    with that first-row-id and added-rows, and the table's next-row-id after the last; floe's
    audit log has each write as a commit by Iceberg's Java client; floe lists the snapshots and
    history but refuses to read the table's files, naming a manifest. A commit whose snapshot has
    no first-row-id is refused (400), one whose first-row-id is behind the table's next-row-id
    conflicts (409), and neither changes the table."""
    table = f"{rest_ns}.lineage"
    t = f"{CAT}.{table}"
    spark.sql(f"CREATE TABLE {t} ({SPARK_DDL}) USING iceberg TBLPROPERTIES ('format-version' = '3', "
              "'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read', "
              "'write.merge.mode' = 'merge-on-read')")
    props = {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES {t}").collect()}
    assert props["format-version"] == "3"
    assert [props[k] for k in ("write.merge.mode", "write.delete.mode", "write.update.mode")] == ["merge-on-read"] * 3
    assert spark.sql(f"SELECT * FROM {t}").collect() == []
    _, md = stored_metadata(lakehouse, table)
    assert (md["format-version"], md["next-row-id"], md.get("snapshots", [])) == (3, 0, [])

    # The rows after each snapshot, by id: (row, its row id, the sequence number that last wrote it).
    want: dict[int, dict[int, tuple[dict, int, int]]] = {}
    ranges: dict[int, tuple[int, int]] = {}  # snapshot id -> (first-row-id, added-rows)
    next_row_id = 0

    def check(sid: int, as_of: str = "") -> None:
        rows = want[sid]
        assert spark_rows(spark, f"SELECT * FROM {t} {as_of}") == rows_of(r for r, _, _ in rows.values()), sid
        lineage = spark.sql(f"SELECT id, _row_id, _last_updated_sequence_number FROM {t} {as_of}").collect()
        assert sorted(tuple(r) for r in lineage) == sorted((i, rid, seq) for i, (_, rid, seq) in rows.items()), sid

    def wrote(sid: int, added: int, rows: dict[int, tuple[dict, int, int]]) -> None:
        """Snapshot `sid` added data files of `added` rows, leaving `rows`."""
        nonlocal next_row_id
        ranges[sid] = (next_row_id, added)
        next_row_id += added
        want[sid] = rows
        check(sid)

    # Two appends: each row's id is its snapshot's first row id plus its position in the one
    # data file the snapshot adds (one Spark task writes it, rows in order).
    def appended(before: dict, first: int, rows: list[dict], seq: int) -> dict:
        return before | {r["id"]: (r, first + n, seq) for n, r in enumerate(rows)}

    s1 = insert(spark, table, make_rows(1, 10))
    wrote(s1, 10, appended({}, 0, make_rows(1, 10), 1))
    s2 = insert(spark, table, make_rows(11, 10))
    wrote(s2, 10, appended(want[s1], 10, make_rows(11, 10), 2))

    # DELETE: a deletion vector for each of the two data files; no rows added.
    s3 = commit(spark, table, f"DELETE FROM {t} WHERE id BETWEEN 4 AND 6 OR id = 15", "delete")
    wrote(s3, 0, {i: v for i, v in want[s2].items() if not (4 <= i <= 6 or i == 15)})
    summary = snapshot_rows(spark, table)[s3].summary
    assert (summary["added-dvs"], summary["added-position-deletes"], summary.get("added-records")) == ("2", "4", None)

    # UPDATE: the updated rows (in both files) go to a new data file, keeping their ids; the
    # deletion vectors of both files are replaced by ones that also drop the old versions.
    c1 = [i for i, (r, _, _) in want[s3].items() if r["customer"] == "c1"]
    assert c1 == [1, 11, 16]
    s4 = commit(spark, table, f"UPDATE {t} SET score = -1.0, amount = amount * 2 WHERE customer = 'c1'", "overwrite")
    wrote(s4, len(c1), want[s3] | {i: (r | {"score": -1.0, "amount": r["amount"] * 2}, rid, 4)
                                   for i, (r, rid, _) in want[s3].items() if i in c1})
    summary = snapshot_rows(spark, table)[s4].summary
    assert (summary["added-records"], summary["added-dvs"], summary["removed-dvs"]) == ("3", "2", "2")

    # MERGE: matched even ids deleted, matched odd ones updated (keeping their ids), new ones
    # inserted; the updated and inserted rows share one new data file, where an inserted row's
    # id is the snapshot's first row id plus its position in that file.
    source = make_rows(7, 6) + make_rows(21, 3)
    to_spark(spark, source).createOrReplaceTempView("rest_rows")
    s5 = commit(spark, table, MOR_MERGE.format(t=t), "overwrite")
    [(merged_file, merged_count)] = [
        (lakehouse.location(r.file_path), r.record_count) for r in spark.sql(
            f"SELECT data_file.file_path, data_file.record_count FROM {t}.entries "
            f"WHERE snapshot_id = {s5} AND status = 1 AND data_file.content = 0").collect()]
    assert merged_count == 6  # 7, 9 and 11 updated, 21, 22 and 23 inserted
    placed = {r.id: (lakehouse.location(r._file), r._pos) for r in spark.sql(
        f"SELECT id, _file, _pos FROM {t} WHERE id IN (7, 9, 11, 21, 22, 23)").collect()}
    assert {f for f, _ in placed.values()} == {merged_file}
    assert sorted(pos for _, pos in placed.values()) == list(range(6))
    rows = dict(want[s4])
    for s in source:
        i = s["id"]
        if i in rows and i % 2 == 0:
            del rows[i]
        elif i in rows:
            r, rid, _ = rows[i]
            rows[i] = (r | {"customer": "mor", "score": 99.5}, rid, 5)
        else:
            rows[i] = (s, next_row_id + placed[i][1], 5)
    wrote(s5, merged_count, rows)

    # Every snapshot, read by id, has exactly its rows, row ids and sequence numbers.
    for sid in want:
        check(sid, f"VERSION AS OF {sid}")
    snaps = snapshot_rows(spark, table)
    assert [tuple(r) for r in spark.sql(f"SELECT snapshot_id, parent_id FROM {t}.snapshots").collect()] == [
        (s1, None), (s2, s1), (s3, s2), (s4, s3), (s5, s4)]
    # Each snapshot's added rows are the records its data files added.
    assert [ranges[s][1] for s in want] == [int(snaps[s].summary.get("added-records", "0")) for s in want]
    assert [ranges[s] for s in want] == [(0, 10), (10, 10), (20, 0), (20, 3), (23, 6)]

    # The metadata floe stored: format-version 3, Spark's snapshots with their row id ranges,
    # the table's next row id after the last.
    location, md = stored_metadata(lakehouse, table)
    assert (md["format-version"], md["current-snapshot-id"], md["last-sequence-number"]) == (3, s5, 5)
    assert [(s["snapshot-id"], s.get("parent-snapshot-id"), s["sequence-number"], s["first-row-id"], s["added-rows"])
            for s in md["snapshots"]] == [
        (sid, snaps[sid].parent_id, seq, *ranges[sid]) for seq, sid in enumerate(want, start=1)]
    last = md["snapshots"][-1]
    assert md["next-row-id"] == last["first-row-id"] + last["added-rows"] == 29
    assert [s["manifest-list"] for s in md["snapshots"]] == [
        r.manifest_list for r in spark.sql(f"SELECT manifest_list FROM {t}.snapshots").collect()]

    # floe's audit log: the create, then each of Spark's writes as a commit by its client.
    entries = lakehouse.audit(table)
    chain = [None, s1, s2, s3, s4, s5]
    assert audit_log(lakehouse, table) == [("create", None, None, None, [])] + [
        ("commit", snaps[b].operation, a, b, [("main", a, b)]) for a, b in zip(chain, chain[1:])]
    for e in entries[1:]:
        assert re.fullmatch(JAVA_CLIENT, e["client"] or ""), e
    assert entries[-1]["metadata_location"] == location

    # floe lists the snapshots and history as Spark does, and reads every snapshot with Spark's
    # rows and row lineage (deletion vectors applied).
    check_floe_metadata(spark, lakehouse, table)
    for sid in chain[1:]:
        as_of = f"VERSION AS OF {sid}"
        assert floe_read(lakehouse, table, as_of) == floe_rows(r for r, _, _ in want[sid].values()), sid
        lineage = lakehouse.sql(f"SELECT id, _row_id, _last_updated_sequence_number FROM lakehouse.{table} {as_of}")
        assert sorted(tuple(r.values()) for r in lineage) == sorted(
            (i, rid, seq) for i, (_, rid, seq) in want[sid].items()), sid

    # A snapshot without a first-row-id, or with one behind the table's next-row-id, is refused;
    # the table is as it was.
    path = f"/v1/namespaces/{urllib.parse.quote(rest_ns)}/tables/lineage"
    snapshot = {"snapshot-id": 123, "timestamp-ms": int(time.time() * 1000), "sequence-number": 6,
                "manifest-list": f"{table_location(spark, table)}/metadata/x.avro", "summary": {"operation": "append"}}

    def add_snapshot(body: dict) -> tuple[int, dict]:
        return rest_post(rest, path, {"requirements": [], "updates": [{"action": "add-snapshot", "snapshot": body}]})

    status, answer = add_snapshot(snapshot)
    assert (status, answer["error"]["code"], answer["error"]["type"], answer["error"]["message"]) == (
        400, 400, "BadRequestException",
        "Invalid update add-snapshot: Cannot add a snapshot: first-row-id is null"), answer
    status, answer = add_snapshot(snapshot | {"first-row-id": 28, "added-rows": 1})
    assert (status, answer["error"]["code"], answer["error"]["type"], answer["error"]["message"]) == (
        409, 409, "CommitFailedException",
        "Cannot add a snapshot, first-row-id is behind table next-row-id: 28 < 29"), answer
    assert stored_metadata(lakehouse, table) == (location, md)
    assert snapshot_rows(spark, table) == snaps and main_snapshot(spark, table) == s5
    assert lakehouse.audit(table) == entries
    check(s5)
