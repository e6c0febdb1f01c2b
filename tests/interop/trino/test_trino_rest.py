"""Trino 476 with floe's Iceberg REST catalog: the suite's Trino server has a catalog `rest`
(`iceberg.catalog.type=rest`) on `floe serve --rest 127.0.0.1:0`, started before Trino over
its own SQLite catalog and local warehouse (the `rest` lab of conftest.py).

Trino writes through the server: CREATE SCHEMA, CREATE TABLE (partitioned, format 2), two
INSERTs, a DELETE and an UPDATE (merge-on-read: position delete files). Trino reads every
snapshot it made by id (FOR VERSION AS OF) and by commit time (FOR TIMESTAMP AS OF) with the
rows each statement left, and its `$snapshots` table lists them; floe's CLI, on the catalog
file the server serves, reads each snapshot with the same rows, lists the same snapshots, and
its audit log shows each of Trino's commits (and the statistics Trino commits after an
INSERT), each named as the server's REST client. Then floe creates and writes a table (with
a merge-on-read DELETE and UPDATE) and Trino reads it, and each of its snapshots, through the
server."""

import datetime as dt

import pytest
from names import name_for_test

CAT = "rest"  # Trino's catalog on floe's REST server
COLUMNS = "id, customer, CAST(amount AS VARCHAR), CAST(day AS VARCHAR)"
FLOE_COLUMNS = "id, customer, CAST(amount AS STRING) AS amount, CAST(day AS STRING) AS day"

# Each statement Trino runs, its snapshot's operation, and the rows (id, customer, amount,
# day) the table holds after it. Trino's CREATE TABLE commits an empty snapshot; a DELETE is
# `delete`, an UPDATE (position deletes and the new rows) `overwrite`.
WORKLOAD = [
    ("CREATE TABLE {t} (id BIGINT, customer VARCHAR, amount DECIMAL(10,2), day DATE) "
     "WITH (partitioning = ARRAY['day'], format_version = 2)",
     "append", []),
    ("INSERT INTO {t} VALUES (1, 'ana', 10.50, DATE '2024-01-01'), (2, 'bo', 20.25, DATE '2024-01-01')",
     "append", [(1, "ana", "10.50", "2024-01-01"), (2, "bo", "20.25", "2024-01-01")]),
    ("INSERT INTO {t} VALUES (3, NULL, 30.00, DATE '2024-01-02'), (4, 'cy', 0.01, DATE '2024-01-02')",
     "append", [(1, "ana", "10.50", "2024-01-01"), (2, "bo", "20.25", "2024-01-01"),
                (3, None, "30.00", "2024-01-02"), (4, "cy", "0.01", "2024-01-02")]),
    ("DELETE FROM {t} WHERE id = 2",
     "delete", [(1, "ana", "10.50", "2024-01-01"), (3, None, "30.00", "2024-01-02"),
                (4, "cy", "0.01", "2024-01-02")]),
    ("UPDATE {t} SET amount = amount + 1 WHERE id IN (1, 4)",
     "overwrite", [(1, "ana", "11.50", "2024-01-01"), (3, None, "30.00", "2024-01-02"),
                   (4, "cy", "1.01", "2024-01-02")]),
]


@pytest.fixture
def rest_lab(labs):
    return labs["rest"]


@pytest.fixture
def rest_ns(rest_lab, request) -> str:
    """A fresh namespace name (not yet created) for one test."""
    return name_for_test(request, prefix="r")


def query(lab, sql, **kwargs):
    """Trino's rows; a failure names Trino's error and what floe's server wrote to stderr."""
    try:
        return lab.trino.query(sql, **kwargs)
    except Exception as e:  # noqa: BLE001 - reported with the server's side, then failed
        pytest.fail(f"Trino: {sql}\n  failed: {type(e).__name__}: {e}\n"
                    f"  floe serve stderr: {''.join(lab.server.stderr)!r}")


def trino_reads(lab, table, clauses: dict[str, str]) -> dict[str, list[tuple]]:
    """The rows (by id) Trino reads from `table` at each time-travel clause (`FOR VERSION AS OF
    ...`, `FOR TIMESTAMP AS OF ...` or none), by key, in one query: a UNION ALL of the reads."""
    sql = " UNION ALL ".join(f"SELECT '{key}', {COLUMNS} FROM {table} {clause}" for key, clause in clauses.items())
    got = {key: [] for key in clauses}
    for key, *row in query(lab, sql):
        got[key].append(tuple(row))
    return {key: sorted(rows, key=lambda r: r[0]) for key, rows in got.items()}


def floe_rows(floe, sql):
    return [tuple(row.values()) for row in floe.sql(sql)]


def trino_snapshots(lab, ns, name):
    return query(lab, f'SELECT snapshot_id, parent_id, operation, committed_at, summary '
                      f'FROM {CAT}.{ns}."{name}$snapshots" ORDER BY committed_at')


def floe_snapshots(floe, table):
    return floe.sql(f"SELECT snapshot_id, parent_id, operation, committed_at FROM {table}.snapshots "
                    "ORDER BY committed_at")


def millis(value) -> int:
    """A commit time, from floe's text in UTC or Trino's zoned datetime, in epoch millis."""
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value).replace(tzinfo=dt.timezone.utc)
    return int(value.timestamp() * 1000)


def test_trino_writes_through_floe_rest(rest_lab, rest_ns):
    floe, ns = rest_lab.floe, rest_ns
    t = f"{CAT}.{ns}.orders"
    assert query(rest_lab, f"CREATE SCHEMA {CAT}.{ns}") == []
    assert [ns] in query(rest_lab, f"SHOW SCHEMAS FROM {CAT}")
    assert {"namespace": ns} in floe.sql("SHOW NAMESPACES")

    for statement, _, _ in WORKLOAD:
        query(rest_lab, statement.format(t=t))
    assert query(rest_lab, f"SHOW TABLES FROM {CAT}.{ns}") == [["orders"]]

    # The snapshots, one per statement, each on the one before.
    seen = trino_snapshots(rest_lab, ns, "orders")
    assert [r[2] for r in seen] == [op for _, op, _ in WORKLOAD]
    assert [r[1] for r in seen] == [None] + [r[0] for r in seen[:-1]]
    assert all(r[4]["engine-name"] == "trino" for r in seen), seen
    sids = [r[0] for r in seen]
    # Merge-on-read: the DELETE and the UPDATE wrote a position delete file in each partition
    # they changed (the UPDATE its new rows too), and left the data files as they were.
    assert seen[3][4]["added-position-delete-files"] == "1" and seen[3][4]["added-position-deletes"] == "1"
    assert seen[4][4]["added-position-delete-files"] == "2" and seen[4][4]["added-position-deletes"] == "2"
    files = query(rest_lab, f'SELECT content, partition.day, record_count, file_path FROM {CAT}.{ns}."orders$files"')
    assert sorted((c, str(d), n) for c, d, n, _ in files) == [
        (0, "2024-01-01", 1), (0, "2024-01-01", 2), (0, "2024-01-02", 1), (0, "2024-01-02", 2),
        (1, "2024-01-01", 1), (1, "2024-01-01", 1), (1, "2024-01-02", 1)]
    # In the table's directory, which the server placed in its warehouse.
    assert all(f[3].removeprefix("file:").startswith(f"{floe.warehouse}/{ns}/orders") for f in files), files

    # Trino reads each snapshot by id and by its commit time (in UTC, to the millisecond).
    clauses = {"current": ""}
    for i, (sid, row) in enumerate(zip(sids, seen)):
        at = row[3].astimezone(dt.timezone.utc).replace(tzinfo=None).isoformat(sep=" ", timespec="milliseconds")
        clauses[f"version {i}"] = f"FOR VERSION AS OF {sid}"
        clauses[f"timestamp {i}"] = f"FOR TIMESTAMP AS OF TIMESTAMP '{at}'"
    expected = {"current": WORKLOAD[-1][2]}
    for i, (_, _, rows) in enumerate(WORKLOAD):
        expected[f"version {i}"] = expected[f"timestamp {i}"] = rows
    assert trino_reads(rest_lab, t, clauses) == expected

    # floe, on the catalog file the server serves, reads every snapshot Trino made.
    snapshots = floe_snapshots(floe, f"{ns}.orders")
    assert [(s["snapshot_id"], s["parent_id"], s["operation"], millis(s["committed_at"])) for s in snapshots] == [
        (r[0], r[1], r[2], millis(r[3])) for r in seen]
    for sid, (_, _, rows) in zip(sids, WORKLOAD):
        assert floe_rows(floe, f"SELECT {FLOE_COLUMNS} FROM lakehouse.{ns}.orders VERSION AS OF {sid} "
                               "ORDER BY id") == rows
    assert floe_rows(floe, f"SELECT {FLOE_COLUMNS} FROM lakehouse.{ns}.orders ORDER BY id") == WORKLOAD[-1][2]

    # floe's audit log: each of Trino's commits through the server, in order, each on the
    # metadata file the one before left. After each INSERT Trino commits the statistics it
    # collected (a statistics file; no snapshot moves).
    entries = floe.audit(f"{ns}.orders")
    got = [(e["kind"], e["operation"], e["previous_snapshot_id"], e["snapshot_id"],
            [(r["name"], r["from_snapshot_id"], r["to_snapshot_id"]) for r in e["refs"]]) for e in entries]
    s0, s1, s2, s3, s4 = sids
    assert got == [
        ("create", None, None, s0, [("main", None, s0)]),
        ("commit", "append", s0, s1, [("main", s0, s1)]),
        ("metadata", None, s1, s1, []),
        ("commit", "append", s1, s2, [("main", s1, s2)]),
        ("metadata", None, s2, s2, []),
        ("commit", "delete", s2, s3, [("main", s2, s3)]),
        ("commit", "overwrite", s3, s4, [("main", s3, s4)]),
    ]
    for e in entries:
        # The REST client: no user (no authentication), Iceberg's HTTP client as User-Agent.
        assert e["user_name"] == "anonymous", e
        assert e["client"].startswith("rest (Apache-HttpClient/"), e
        assert e["client_address"].startswith("127.0.0.1:"), e
        assert (e["application_name"], e["statement"]) == (None, None), e
    assert entries[0]["previous_metadata_location"] is None
    for before, after in zip(entries, entries[1:]):
        assert after["previous_metadata_location"] == before["metadata_location"]
    # The metadata files Trino finds through the server are those the audit log names.
    logged = query(rest_lab, f'SELECT file FROM {CAT}.{ns}."orders$metadata_log_entries" ORDER BY timestamp')
    assert [r[0].removeprefix("file:") for r in logged] == [e["metadata_location"] for e in entries]
    assert rest_lab.server.proc.poll() is None, "".join(rest_lab.server.stderr)


def test_trino_reads_a_table_floe_wrote(rest_lab, rest_ns):
    floe, ns = rest_lab.floe, rest_ns
    t = f"{ns}.orders"
    floe.sql(f"CREATE NAMESPACE {ns}")
    floe.sql(f"CREATE TABLE {t} (id BIGINT, customer STRING, amount DECIMAL(10,2), day DATE) USING iceberg "
             "PARTITIONED BY (day) TBLPROPERTIES ('write.delete.mode'='merge-on-read', "
             "'write.update.mode'='merge-on-read')")
    floe.sql(f"INSERT INTO {t} VALUES (1, 'ana', 10.50, DATE '2024-01-01'), (2, 'bo', 20.25, DATE '2024-01-01'), "
             "(3, NULL, 30.00, DATE '2024-01-02')")
    floe.sql(f"INSERT INTO {t} VALUES (4, 'cy', 0.01, DATE '2024-01-02')")
    floe.sql(f"DELETE FROM {t} WHERE id = 2")
    floe.sql(f"UPDATE {t} SET amount = amount * 2 WHERE customer = 'ana'")
    expected = [
        [(1, "ana", "10.50", "2024-01-01"), (2, "bo", "20.25", "2024-01-01"), (3, None, "30.00", "2024-01-02")],
        [(1, "ana", "10.50", "2024-01-01"), (2, "bo", "20.25", "2024-01-01"), (3, None, "30.00", "2024-01-02"),
         (4, "cy", "0.01", "2024-01-02")],
        [(1, "ana", "10.50", "2024-01-01"), (3, None, "30.00", "2024-01-02"), (4, "cy", "0.01", "2024-01-02")],
        [(1, "ana", "21.00", "2024-01-01"), (3, None, "30.00", "2024-01-02"), (4, "cy", "0.01", "2024-01-02")],
    ]

    assert [ns] in query(rest_lab, f"SHOW SCHEMAS FROM {CAT}")
    assert query(rest_lab, f"SHOW TABLES FROM {CAT}.{ns}") == [["orders"]]
    assert [r[:2] for r in query(rest_lab, f"DESCRIBE {CAT}.{t}")] == [
        ["id", "bigint"], ["customer", "varchar"], ["amount", "decimal(10,2)"], ["day", "date"]]
    snapshots = floe_snapshots(floe, t)
    assert [s["operation"] for s in snapshots] == ["append", "append", "delete", "overwrite"]
    seen = trino_snapshots(rest_lab, ns, "orders")
    assert [(r[0], r[1], r[2], millis(r[3])) for r in seen] == [
        (s["snapshot_id"], s["parent_id"], s["operation"], millis(s["committed_at"])) for s in snapshots]
    for s, rows in zip(snapshots, expected):
        assert floe_rows(floe, f"SELECT {FLOE_COLUMNS} FROM {t} VERSION AS OF {s['snapshot_id']} ORDER BY id") == rows
    clauses = {"current": "", **{f"version {i}": f"FOR VERSION AS OF {s['snapshot_id']}"
                                 for i, s in enumerate(snapshots)}}
    assert trino_reads(rest_lab, f"{CAT}.{t}", clauses) == {
        "current": expected[-1], **{f"version {i}": rows for i, rows in enumerate(expected)}}
    # floe's DELETE and UPDATE were merge-on-read: Trino read them through a position delete
    # file each (and the UPDATE's new row), beside the INSERTs' data files.
    files = query(rest_lab, f'SELECT content, partition.day, record_count FROM {CAT}.{ns}."orders$files"')
    assert sorted((c, str(d), n) for c, d, n in files) == [
        (0, "2024-01-01", 1), (0, "2024-01-01", 2), (0, "2024-01-02", 1), (0, "2024-01-02", 1),
        (1, "2024-01-01", 1), (1, "2024-01-01", 1)]
    assert rest_lab.server.proc.poll() is None, "".join(rest_lab.server.stderr)
