"""DuckDB 1.5 with floe's Iceberg REST catalog (`floe serve --rest`) as an attached catalog.

DuckDB (the pinned duckdb wheel, with its iceberg, avro and httpfs extensions loaded from their
PyPI packages, nothing downloaded) attaches `floe serve --rest 127.0.0.1:0` over the test's
catalog and warehouse (`ATTACH 'lakehouse' AS lake (TYPE iceberg, ENDPOINT ..., AUTHORIZATION_TYPE
'none')`), through a relay that notes every request and floe's answer. Through the server DuckDB
creates a schema and tables, inserts, updates and deletes (merge-on-read: DuckDB writes position
delete files), reads each snapshot `AT (VERSION => id)` and `AT (TIMESTAMP => t)`, and commits
two tables in one transaction (one POST /v1/transactions/commit) or rolls one back (no request,
nothing changes). floe then reads every snapshot DuckDB made with the rows DuckDB read there, by
id and by time, lists the same snapshots, and its audit log names each DuckDB commit with
DuckDB's User-Agent. The other way, DuckDB reads a partitioned table floe created, wrote, updated
and deleted from (merge-on-read), with floe's column types, at every snapshot, value for value.
Each test runs on the three catalogs of conftest.py; on S3 DuckDB reaches the bucket with an S3
secret of its own, as floe's REST answers vend no credentials.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from decimal import Decimal

import duckdb
import pytest

from floe_driver import Floe
from duckdb_rest import Duck, Relay  # tests/support, on the path floe_driver sets
from names import name_for_test

UTC = dt.timezone.utc
# What DuckDB's requests say they are (User-Agent), as floe's audit log names the client.
DUCKDB_CLIENT = re.compile(rf"rest \(duckdb/v{re.escape(duckdb.__version__)}\(\w+\) python/[\d.]+ [0-9a-f]+\)")


@pytest.fixture
def server(floe):
    """`floe serve --rest 127.0.0.1:0` (the REST catalog alone) on the test's catalog and
    warehouse, its stderr kept, with a Relay in front: `server.relay`, where DuckDB attaches."""
    s = floe.serve_rest()
    s.relay = Relay(s.rest_port)
    yield s
    s.relay.close()
    s.stop(check=True)
    # floe answered every request DuckDB made, none with a server error.
    assert [str(e) for e in s.relay.exchanges if e.status is None or e.status >= 500] == []


@pytest.fixture
def duck(floe, server):
    d = Duck(floe, server.relay, server.stderr)
    yield d
    d.close()


@pytest.fixture
def ns(request) -> str:
    return name_for_test(request, prefix="duck", length=20)


def floe_rows(floe: Floe, query: str, parse: dict) -> list[tuple]:
    """The rows of a floe query as tuples of Python values, as DuckDB gives them: `parse` maps
    a column to the function that reads floe's JSON text of it (dates and timestamps)."""
    out = []
    for row in floe.sql(query, decimals=True):
        out.append(tuple(None if v is None else parse.get(k, lambda x: x)(v) for k, v in row.items()))
    return out


def ts_text(t: dt.datetime) -> str:
    """A timestamp as both engines' SQL takes it, to the microsecond."""
    return t.strftime("%Y-%m-%d %H:%M:%S.%f")


def test_duckdb_writes_through_floe_rest_and_floe_reads_every_snapshot(floe, server, duck, ns):
    t = f"lake.{ns}.orders"
    duck.sql(f"CREATE SCHEMA lake.{ns}")
    duck.sql(f"CREATE TABLE {t} (id BIGINT, name VARCHAR, amount DECIMAL(10, 2), day DATE, ts TIMESTAMP)")
    assert duck.sql(f"SELECT * FROM {t}") == []
    assert duck.snapshots(t) == []

    d1, d2 = dt.date(2026, 1, 2), dt.date(2026, 2, 3)
    t1, t2 = dt.datetime(2026, 1, 2, 3, 4, 5, 500000), dt.datetime(2026, 2, 3, 4, 5, 6, 123456)
    states = []  # the rows after each commit, ordered by id
    assert duck.sql(f"INSERT INTO {t} VALUES (1, 'ana', 12.50, DATE '2026-01-02', TIMESTAMP '{t1}'), "
                    f"(2, 'bo', -0.01, DATE '2026-02-03', TIMESTAMP '{t2}'), "
                    "(3, NULL, 7.00, NULL, NULL)") == [(3,)]
    states.append([(1, "ana", Decimal("12.50"), d1, t1), (2, "bo", Decimal("-0.01"), d2, t2),
                   (3, None, Decimal("7.00"), None, None)])
    time.sleep(0.01)  # distinct snapshot timestamps, so each is the one AT (TIMESTAMP => its time) picks
    assert duck.sql(f"INSERT INTO {t} VALUES (4, 'dee', 100.00, DATE '2026-01-02', NULL)") == [(1,)]
    states.append(states[-1] + [(4, "dee", Decimal("100.00"), d1, None)])
    time.sleep(0.01)
    assert duck.sql(f"UPDATE {t} SET amount = amount + 1, name = upper(name) WHERE id IN (2, 4)") == [(2,)]
    states.append([states[-1][0], (2, "BO", Decimal("0.99"), d2, t2), states[-1][2],
                   (4, "DEE", Decimal("101.00"), d1, None)])
    time.sleep(0.01)
    assert duck.sql(f"DELETE FROM {t} WHERE id = 1 OR name IS NULL") == [(2,)]
    states.append([states[-1][1], states[-1][3]])
    for rows in states:
        rows.sort()
    assert duck.sql(f"SELECT * FROM {t} ORDER BY id") == states[-1]

    snaps = duck.snapshots(t)
    assert [op for _, _, op in snaps] == ["append", "append", "overwrite", "delete"]
    ids = [s for s, _, _ in snaps]
    times = [ts for _, ts, _ in snaps]
    assert len(set(ids)) == 4 and times == sorted(set(times)), snaps

    # DuckDB reads each snapshot by id and by time; a millisecond before one is the one before.
    for i, (sid, at, _) in enumerate(snaps):
        assert duck.sql(f"SELECT * FROM {t} AT (VERSION => {sid}) ORDER BY id") == states[i]
        assert duck.sql(f"SELECT * FROM {t} AT (TIMESTAMP => TIMESTAMP '{ts_text(at)}') ORDER BY id") == states[i]
        before = at - dt.timedelta(milliseconds=1)
        assert duck.sql(f"SELECT * FROM {t} AT (TIMESTAMP => TIMESTAMP '{ts_text(before)}') ORDER BY id") == \
            (states[i - 1] if i else [])

    # Merge-on-read: the update and the delete added position delete files (one per data file
    # they touched), and every data file stayed; floe's files table lists the same files.
    files = duck.sql(f"SELECT content, file_path, record_count FROM iceberg_metadata({t})")
    assert sorted((c, n) for c, _, n in files) == [
        ("EXISTING", 1), ("EXISTING", 2), ("EXISTING", 3),
        ("POSITION_DELETES", 1), ("POSITION_DELETES", 1), ("POSITION_DELETES", 2)]
    content = {"EXISTING": 0, "POSITION_DELETES": 1}
    assert sorted((r["content"], r["file_path"], r["record_count"])
                  for r in floe.sql(f"SELECT content, file_path, record_count FROM lakehouse.{ns}.orders.files")) == \
        sorted((content[c], p, n) for c, p, n in files)

    # floe lists the snapshots DuckDB made, and reads each with the rows DuckDB read there.
    q = f"lakehouse.{ns}.orders"
    assert floe.sql(f"SELECT snapshot_id, parent_id, operation FROM {q}.snapshots ORDER BY committed_at") == [
        {"snapshot_id": sid, "parent_id": ids[i - 1] if i else None, "operation": op}
        for i, (sid, _, op) in enumerate(snaps)]
    parse = {"day": dt.date.fromisoformat, "ts": dt.datetime.fromisoformat}
    for i, (sid, at, _) in enumerate(snaps):
        assert floe_rows(floe, f"SELECT * FROM {q} VERSION AS OF {sid} ORDER BY id", parse) == states[i]
        assert floe_rows(floe, f"SELECT * FROM {q} TIMESTAMP AS OF '{ts_text(at)}' ORDER BY id", parse) == states[i]
    assert floe_rows(floe, f"SELECT * FROM {q} ORDER BY id", parse) == states[-1]

    # floe's audit log: the create and DuckDB's four commits, each by DuckDB through the server.
    entries = floe.audit(f"{ns}.orders")
    assert [(e["kind"], e["operation"], e["previous_snapshot_id"], e["snapshot_id"],
             [(r["name"], r["from_snapshot_id"], r["to_snapshot_id"]) for r in e["refs"]]) for e in entries] == [
        ("create", None, None, None, []),
        *[("commit", op, ids[i - 1] if i else None, sid, [("main", ids[i - 1] if i else None, sid)])
          for i, (sid, _, op) in enumerate(snaps)],
    ]
    for e in entries:
        assert DUCKDB_CLIENT.fullmatch(e["client"]), e
        assert (e["user_name"], e["statement"]) == ("anonymous", None), e
        assert e["client_address"].startswith("127.0.0.1:"), e


def test_duckdb_commits_two_tables_in_one_transaction_or_neither(floe, server, duck, ns):
    a, b = f"lake.{ns}.a", f"lake.{ns}.b"
    duck.sql(f"CREATE SCHEMA lake.{ns}")
    for t in (a, b):
        duck.sql(f"CREATE TABLE {t} (id BIGINT, v VARCHAR)")
    duck.sql(f"INSERT INTO {a} VALUES (1, 'a1')")
    duck.sql(f"INSERT INTO {b} VALUES (10, 'b1')")
    [(a1, _, _)], [(b1, _, _)] = duck.snapshots(a), duck.snapshots(b)
    audit_before = {t: floe.audit(f"{ns}.{t}") for t in ("a", "b")}

    duck.sql("BEGIN")
    duck.sql(f"INSERT INTO {a} VALUES (2, 'a2'), (3, 'a3')")
    duck.sql(f"INSERT INTO {b} VALUES (20, 'b2')")
    # Until COMMIT the catalog has neither insert: floe, reading it directly, sees the old rows.
    assert floe.sql(f"SELECT * FROM lakehouse.{ns}.a", f"SELECT * FROM lakehouse.{ns}.b") == [
        {"id": 1, "v": "a1"}, {"id": 10, "v": "b1"}]
    mark = server.relay.mark()
    duck.sql("COMMIT")
    # Both tables moved in one request: DuckDB's COMMIT is one POST /v1/transactions/commit that
    # asserts each table's snapshot and adds one to each.
    [commit] = [e for e in server.relay.since(mark) if e.method != "GET"]
    assert (commit.method, commit.path, commit.status) == ("POST", "/v1/transactions/commit", 204), commit
    changes = json.loads(commit.body)["table-changes"]
    assert sorted((c["identifier"]["namespace"], c["identifier"]["name"]) for c in changes) == \
        [([ns], "a"), ([ns], "b")]
    for c in changes:
        parent = {"a": a1, "b": b1}[c["identifier"]["name"]]
        assert {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": parent} in c["requirements"], c
        assert [u["snapshot"]["parent-snapshot-id"] for u in c["updates"] if u["action"] == "add-snapshot"] == \
            [parent], c
    assert duck.sql(f"SELECT * FROM {a} ORDER BY id") == [(1, "a1"), (2, "a2"), (3, "a3")]
    assert duck.sql(f"SELECT * FROM {b} ORDER BY id") == [(10, "b1"), (20, "b2")]
    a2, b2 = duck.snapshots(a)[-1][0], duck.snapshots(b)[-1][0]
    assert [(s, op) for s, _, op in duck.snapshots(a)] == [(a1, "append"), (a2, "append")]
    assert [(s, op) for s, _, op in duck.snapshots(b)] == [(b1, "append"), (b2, "append")]
    assert floe.sql(f"SELECT * FROM lakehouse.{ns}.a ORDER BY id") == [
        {"id": 1, "v": "a1"}, {"id": 2, "v": "a2"}, {"id": 3, "v": "a3"}]
    assert floe.sql(f"SELECT * FROM lakehouse.{ns}.b ORDER BY id") == [{"id": 10, "v": "b1"}, {"id": 20, "v": "b2"}]
    assert floe.sql(f"SELECT * FROM lakehouse.{ns}.a VERSION AS OF {a1}",
                    f"SELECT * FROM lakehouse.{ns}.b VERSION AS OF {b1}") == [
        {"id": 1, "v": "a1"}, {"id": 10, "v": "b1"}]
    # floe's audit log has one commit per table, next to each other: one catalog transaction.
    audit = {t: floe.audit(f"{ns}.{t}") for t in ("a", "b")}
    for t, before, after in (("a", a1, a2), ("b", b1, b2)):
        assert audit[t][:-1] == audit_before[t]
        e = audit[t][-1]
        assert (e["kind"], e["operation"], e["previous_snapshot_id"], e["snapshot_id"]) == \
            ("commit", "append", before, after), e
        assert DUCKDB_CLIENT.fullmatch(e["client"]), e
    assert abs(audit["a"][-1]["seq"] - audit["b"][-1]["seq"]) == 1

    # A transaction rolled back sends no commit and changes neither table.
    mark = server.relay.mark()
    duck.sql("BEGIN")
    duck.sql(f"INSERT INTO {a} VALUES (4, 'a4')")
    duck.sql(f"INSERT INTO {b} VALUES (40, 'b4')")
    duck.sql("ROLLBACK")
    assert [str(e) for e in server.relay.since(mark) if e.method != "GET"] == []
    assert duck.sql(f"SELECT * FROM {a} ORDER BY id") == [(1, "a1"), (2, "a2"), (3, "a3")]
    assert duck.sql(f"SELECT * FROM {b} ORDER BY id") == [(10, "b1"), (20, "b2")]
    assert [s for s, _, _ in duck.snapshots(a)] == [a1, a2]
    assert [s for s, _, _ in duck.snapshots(b)] == [b1, b2]
    assert floe.sql(f"SELECT * FROM lakehouse.{ns}.a ORDER BY id", f"SELECT * FROM lakehouse.{ns}.b ORDER BY id") == [
        {"id": 1, "v": "a1"}, {"id": 2, "v": "a2"}, {"id": 3, "v": "a3"}, {"id": 10, "v": "b1"}, {"id": 20, "v": "b2"}]
    assert {t: floe.audit(f"{ns}.{t}") for t in ("a", "b")} == audit


def test_duckdb_reads_a_table_floe_wrote(floe, server, duck, ns):
    t = f"{ns}.f"
    floe.sql(
        f"CREATE NAMESPACE {ns}",
        f"CREATE TABLE {t} (id INT, big BIGINT, name STRING, amount DECIMAL(10, 2), day DATE, "
        "ts TIMESTAMP, ntz TIMESTAMP_NTZ, score DOUBLE, ok BOOLEAN) USING iceberg PARTITIONED BY (day) "
        "TBLPROPERTIES ('write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')",
        f"INSERT INTO {t} VALUES "
        "(1, 9007199254740993, 'ana', 12.50, DATE '2026-01-02', TIMESTAMP '2026-01-02 03:04:05.123456', "
        " TIMESTAMP_NTZ '2026-01-02 03:04:05', 1.5, true), "
        "(2, -1, 'zoë', -0.01, DATE '2026-01-02', TIMESTAMP '1969-12-31 23:59:59.999999', "
        " TIMESTAMP_NTZ '1900-01-01 00:00:00.5', -2.25, false), "
        "(3, NULL, NULL, NULL, DATE '2026-02-03', NULL, NULL, NULL, NULL)",
        f"INSERT INTO {t} VALUES (4, 4, 'dee', 100.00, NULL, TIMESTAMP '2026-03-04 00:00:00', NULL, 0.0, true)",
        f"UPDATE {t} SET amount = amount * 2, name = 'ANA' WHERE id = 1",  # position deletes + a new row
        f"DELETE FROM {t} WHERE id = 2",  # position deletes
        f"DELETE FROM {t} WHERE day = DATE '2026-02-03'",  # a whole partition's file
    )
    snaps = floe.sql(f"SELECT snapshot_id, operation FROM {t}.snapshots ORDER BY committed_at")
    assert [s["operation"] for s in snaps] == ["append", "append", "overwrite", "delete", "delete"]

    jan2, feb3 = dt.date(2026, 1, 2), dt.date(2026, 2, 3)
    r1 = (1, 9007199254740993, "ana", Decimal("12.50"), jan2, dt.datetime(2026, 1, 2, 3, 4, 5, 123456, UTC),
          dt.datetime(2026, 1, 2, 3, 4, 5), 1.5, True)
    r2 = (2, -1, "zoë", Decimal("-0.01"), jan2, dt.datetime(1969, 12, 31, 23, 59, 59, 999999, UTC),
          dt.datetime(1900, 1, 1, 0, 0, 0, 500000), -2.25, False)
    r3 = (3, None, None, None, feb3, None, None, None, None)
    r4 = (4, 4, "dee", Decimal("100.00"), None, dt.datetime(2026, 3, 4, tzinfo=UTC), None, 0.0, True)
    r1u = (1, 9007199254740993, "ANA", Decimal("25.00"), *r1[4:])
    states = [[r1, r2, r3], [r1, r2, r3, r4], [r1u, r2, r3, r4], [r1u, r3, r4], [r1u, r4]]

    lt = f"lake.{t}"
    assert duck.sql(f"SELECT column_name, column_type FROM (DESCRIBE {lt})") == [
        ("id", "INTEGER"), ("big", "BIGINT"), ("name", "VARCHAR"), ("amount", "DECIMAL(10,2)"),
        ("day", "DATE"), ("ts", "TIMESTAMP WITH TIME ZONE"), ("ntz", "TIMESTAMP"), ("score", "DOUBLE"),
        ("ok", "BOOLEAN")]
    assert duck.sql(f"SELECT * FROM {lt} ORDER BY id") == states[-1]
    assert [(s, op) for s, _, op in duck.snapshots(lt)] == [(s["snapshot_id"], s["operation"]) for s in snaps]
    for i, s in enumerate(snaps):
        assert duck.sql(f"SELECT * FROM {lt} AT (VERSION => {s['snapshot_id']}) ORDER BY id") == states[i], i
    # DuckDB sees floe's files as floe wrote them: the position deletes of the update and the
    # first delete beside their partition's data files, and the other partition's file removed.
    files = duck.sql(f"SELECT status = 'DELETED', content, file_path, record_count FROM iceberg_metadata({lt})")
    assert sorted((gone, c, p.split("/")[-2], n) for gone, c, p, n in files) == [
        (False, "EXISTING", "day=2026-01-02", 1), (False, "EXISTING", "day=2026-01-02", 2),
        (False, "EXISTING", "day=null", 1),
        (False, "POSITION_DELETES", "day=2026-01-02", 1), (False, "POSITION_DELETES", "day=2026-01-02", 1),
        (True, "EXISTING", "day=2026-02-03", 1)]
    # DuckDB prunes by floe's partition values and column bounds as it reads them.
    assert duck.sql(f"SELECT id FROM {lt} WHERE day = DATE '2026-01-02' ORDER BY id") == [(1,)]
    assert duck.sql(f"SELECT id FROM {lt} AT (VERSION => {snaps[1]['snapshot_id']}) "
                    "WHERE ts < TIMESTAMPTZ '2000-01-01 00:00:00+00' ORDER BY id") == [(2,)]
