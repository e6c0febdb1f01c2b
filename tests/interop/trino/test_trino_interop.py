"""Trino and floe on one catalog: a PostgreSQL database with the warehouse on local files and
in an S3 bucket, and a SQLite file with a local warehouse (see conftest.py). Trino reads every
snapshot floe wrote (by id with FOR VERSION AS OF, by time with FOR TIMESTAMP AS OF in UTC and
America/New_York, and through "t$snapshots"), floe reads every snapshot Trino wrote (inserts,
row-level UPDATE, DELETE and MERGE as position deletes), a rollback or an expiry by either
engine is seen by the other, and Trino reads each table at a catalog tag floe made (FOR VERSION
AS OF 'tag')."""

import datetime as dt
import decimal
import re
from zoneinfo import ZoneInfo

import floe as floe_package
import pytest
from catalog_tag_runs import RUNS, write_two_runs_tagged_between

UTC = dt.timezone.utc
NEW_YORK = ZoneInfo("America/New_York")
COLUMNS = "id, customer, CAST(amount AS VARCHAR) AS amount, day, ts"
FLOE_COLUMNS = "id, customer, CAST(amount AS STRING) AS amount, day, ts"
_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$")
_DATE = re.compile(r"^\d{4}-\d\d-\d\d$")


def norm(value, zone=UTC):
    """One value as both engines' answers compare: timestamps as naive UTC datetimes (floe
    shows a timestamp with time zone in the session's `zone`), dates as dates, numbers as
    Decimals."""
    if isinstance(value, dt.datetime):
        return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
    if isinstance(value, str) and _TIMESTAMP.match(value):
        local = dt.datetime.fromisoformat(value).replace(tzinfo=zone)
        return local.astimezone(UTC).replace(tzinfo=None)
    if isinstance(value, str) and _DATE.match(value):
        return dt.date.fromisoformat(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float, decimal.Decimal)):
        return decimal.Decimal(str(value)).normalize()
    return value


def floe_rows(floe, sql, tz=None):
    prefix = f"SET TIME ZONE '{tz}'; " if tz else ""
    zone = ZoneInfo(tz) if tz else UTC
    return sorted(tuple(norm(v, zone) for v in row.values()) for row in floe.sql(prefix + sql))


def trino_rows(trino, sql, tz="UTC"):
    return sorted(tuple(norm(v) for v in row) for row in trino.query(sql, time_zone=tz))


def floe_snapshots(floe, table):
    return floe.sql(f"SELECT snapshot_id, parent_id, operation, committed_at FROM {table}.snapshots "
                    "ORDER BY committed_at")


def trino_snapshots(trino, cat, ns, name):
    return trino.query(f'SELECT snapshot_id, parent_id, operation, committed_at FROM '
                       f'{cat}.{ns}."{name}$snapshots" ORDER BY committed_at')


def check_files_in_warehouse(floe, trino, cat, ns, name):
    """Every data file of the table lies in the lab's warehouse (the bucket, in the S3 lab)."""
    paths = [row[0] for row in trino.query(f'SELECT file_path FROM {cat}.{ns}."{name}$files"')]
    assert paths
    prefix = str(floe.warehouse) + "/" if floe.on_s3 else ("file:", "/")
    assert all(p.startswith(prefix) for p in paths), paths


def floe_connection(floe):
    """A floe connection (the Python package, in this process) on the lab's catalog and
    warehouse, under its catalog name; in the S3 lab with the lab's S3 server."""
    s3 = None
    if floe.on_s3:
        s3 = {"endpoint": floe.env["AWS_ENDPOINT_URL"], "access_key_id": floe.env["AWS_ACCESS_KEY_ID"],
              "secret_access_key": floe.env["AWS_SECRET_ACCESS_KEY"],
              "region": floe.env.get("AWS_REGION", "us-east-1")}
    return floe_package.connect(catalog=str(floe.catalog), warehouse=str(floe.warehouse),
                                catalog_name=floe.catalog_name, s3=s3)


def millis(value) -> int:
    """A commit time, from floe's text in UTC or Trino's zoned datetime, in epoch millis."""
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value).replace(tzinfo=UTC)
    return int(value.timestamp() * 1000)


# Reading snapshots is the same on every catalog once Trino has the table's metadata file, and
# the SQLite lab's other tests have Trino load tables floe just changed: this one runs on the
# PostgreSQL labs only, to keep the suite short.
@pytest.mark.parametrize("lab", ["local", "s3"], indirect=True)
def test_trino_reads_every_snapshot_floe_wrote(lab, ns):
    floe, trino, cat = lab
    t = f"{ns}.orders"
    floe.sql(f"CREATE TABLE {t} (id BIGINT, customer STRING, amount DECIMAL(10,2), day DATE, "
             "ts TIMESTAMP) USING iceberg PARTITIONED BY (day) TBLPROPERTIES ("
             "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read')")
    floe.sql(f"INSERT INTO {t} VALUES (1, 'ana', 10.50, DATE '2024-01-01', TIMESTAMP '2024-01-01 09:00:00'), "
             "(2, 'bo', 20.25, DATE '2024-01-01', TIMESTAMP '2024-01-01 10:30:00.123456'), "
             "(3, NULL, 30.00, DATE '2024-01-02', TIMESTAMP '2024-01-02 23:59:59.999999')")
    floe.sql(f"INSERT INTO {t} VALUES (4, 'cy', 0.01, DATE '2024-01-02', TIMESTAMP '2024-01-02 12:00:00'), "
             "(5, 'ana', -5.10, DATE '2024-01-03', TIMESTAMP '2024-01-03 00:00:00')")
    floe.sql(f"DELETE FROM {t} WHERE id = 2")
    floe.sql(f"UPDATE {t} SET amount = amount * 2 WHERE customer = 'ana'")
    floe.sql(f"ALTER TABLE {t} ADD COLUMN note STRING")
    floe.sql(f"INSERT INTO {t} VALUES (6, 'dee', 7.00, DATE '2024-01-03', TIMESTAMP '2024-01-03 08:00:00', 'late')")

    snapshots = floe_snapshots(floe, t)
    assert [s["operation"] for s in snapshots] == ["append", "append", "delete", "overwrite", "append"]
    check_files_in_warehouse(floe, trino, cat, ns, "orders")
    seen = trino_snapshots(trino, cat, ns, "orders")
    assert [(r[0], r[1], r[2], millis(r[3])) for r in seen] == [
        (s["snapshot_id"], s["parent_id"], s["operation"], millis(s["committed_at"])) for s in snapshots]

    for s in snapshots:
        sid = s["snapshot_id"]
        expected = floe_rows(floe, f"SELECT {FLOE_COLUMNS} FROM {t} VERSION AS OF {sid}")
        assert trino_rows(trino, f"SELECT {COLUMNS} FROM {cat}.{t} FOR VERSION AS OF {sid}") == expected
        # By time: the commit instant, written in each session's zone.
        at = dt.datetime.fromisoformat(s["committed_at"]).replace(tzinfo=UTC)
        for zone in (UTC, NEW_YORK):
            local = at.astimezone(zone).replace(tzinfo=None).isoformat(sep=" ", timespec="milliseconds")
            tz = "UTC" if zone is UTC else "America/New_York"
            assert floe_rows(floe, f"SELECT {FLOE_COLUMNS} FROM {t} TIMESTAMP AS OF '{local}'", tz=tz) == expected
            assert trino_rows(trino, f"SELECT {COLUMNS} FROM {cat}.{t} FOR TIMESTAMP AS OF "
                                     f"TIMESTAMP '{local}'", tz=tz) == expected

    final = trino_rows(trino, f"SELECT id, customer, CAST(amount AS VARCHAR), note FROM {cat}.{t}")
    assert final == sorted([
        (norm(1), "ana", "21.00", None), (norm(3), None, "30.00", None), (norm(4), "cy", "0.01", None),
        (norm(5), "ana", "-10.20", None), (norm(6), "dee", "7.00", "late")])


def test_floe_reads_every_snapshot_trino_wrote(lab, ns):
    floe, trino, cat = lab
    t = f"{cat}.{ns}.orders"
    trino.query(f"CREATE TABLE {t} (id BIGINT, customer VARCHAR, amount DECIMAL(10,2), day DATE, "
                "ts TIMESTAMP(6) WITH TIME ZONE) WITH (partitioning = ARRAY['day'], format_version = 2)")
    trino.query(f"INSERT INTO {t} VALUES (1, 'ana', 10.50, DATE '2024-01-01', TIMESTAMP '2024-01-01 09:00:00 UTC'), "
                "(2, 'bo', 20.25, DATE '2024-01-01', TIMESTAMP '2024-01-01 10:30:00.123456 UTC')")
    trino.query(f"INSERT INTO {t} VALUES (3, 'cy', 30.00, DATE '2024-01-02', TIMESTAMP '2024-01-02 23:59:59.999999 UTC')")
    trino.query(f"UPDATE {t} SET amount = amount + 1 WHERE id = 1")
    trino.query(f"DELETE FROM {t} WHERE id = 2")
    trino.query(f"MERGE INTO {t} o USING (VALUES (3, 99.99), (4, 4.00)) AS s(id, amount) ON o.id = s.id "
                "WHEN MATCHED THEN UPDATE SET amount = s.amount "
                "WHEN NOT MATCHED THEN INSERT (id, customer, amount, day, ts) "
                "VALUES (s.id, 'new', s.amount, DATE '2024-01-03', TIMESTAMP '2024-01-03 00:00:00 UTC')")

    seen = trino_snapshots(trino, cat, ns, "orders")
    check_files_in_warehouse(floe, trino, cat, ns, "orders")
    # Trino's CREATE TABLE commits an empty snapshot; UPDATE and MERGE are row deltas
    # (position deletes and new rows): `overwrite`; a DELETE alone is `delete`.
    assert [r[2] for r in seen] == ["append", "append", "append", "overwrite", "delete", "overwrite"]
    snapshots = floe_snapshots(floe, f"{ns}.orders")
    assert [(s["snapshot_id"], s["parent_id"], s["operation"], millis(s["committed_at"])) for s in snapshots] == [
        (r[0], r[1], r[2], millis(r[3])) for r in seen]
    for row in seen:
        sid = row[0]
        expected = trino_rows(trino, f"SELECT {COLUMNS} FROM {t} FOR VERSION AS OF {sid}")
        assert floe_rows(floe, f"SELECT {FLOE_COLUMNS} FROM {ns}.orders VERSION AS OF {sid}") == expected
    assert floe_rows(floe, f"SELECT id, CAST(amount AS STRING) FROM {ns}.orders") == sorted([
        (norm(1), "11.50"), (norm(3), "99.99"), (norm(4), "4.00")])


def test_rollback_and_expiry_by_either_engine(lab, ns):
    floe, trino, cat = lab
    t = f"{ns}.events"
    floe.sql(f"CREATE TABLE {t} (id BIGINT, v STRING) USING iceberg")
    for i in range(1, 4):
        floe.sql(f"INSERT INTO {t} VALUES ({i}, 'v{i}')")
    s1, s2, s3 = (s["snapshot_id"] for s in floe_snapshots(floe, t))

    # Trino rolls back; floe reads the older state and its history.
    trino.query(f"ALTER TABLE {cat}.{t} EXECUTE rollback_to_snapshot({s1})")
    assert floe_rows(floe, f"SELECT id, v FROM {t}") == [(norm(1), "v1")]
    history = floe.sql(f"SELECT snapshot_id, is_current_ancestor FROM {t}.history ORDER BY made_current_at")
    assert [(h["snapshot_id"], h["is_current_ancestor"]) for h in history] == [
        (s1, True), (s2, False), (s3, False), (s1, True)]

    # floe moves it forward again; Trino reads that state.
    floe.sql(f"CALL lakehouse.system.set_current_snapshot('{t}', {s3})")
    assert trino_rows(trino, f"SELECT id, v FROM {cat}.{t}") == [(norm(i), f"v{i}") for i in (1, 2, 3)]
    assert trino.query(f'SELECT snapshot_id FROM {cat}.{ns}."events$snapshots" ORDER BY committed_at') == [
        [s1], [s2], [s3]]

    # floe expires the two older snapshots; Trino no longer finds them.
    floe.sql(f"CALL lakehouse.system.expire_snapshots(table => '{t}', older_than => TIMESTAMP '2999-01-01 00:00:00', "
             "retain_last => 1)")
    assert trino.query(f'SELECT snapshot_id FROM {cat}.{ns}."events$snapshots"') == [[s3]]
    with pytest.raises(Exception, match=f"Snapshot not found|{s1}"):
        trino.query(f"SELECT * FROM {cat}.{t} FOR VERSION AS OF {s1}")

    # Trino writes and expires; floe sees only what Trino kept.
    trino.query(f"INSERT INTO {cat}.{t} VALUES (4, 'v4')")
    trino.query(f"ALTER TABLE {cat}.{t} EXECUTE expire_snapshots(retention_threshold => '0s')")
    kept = floe_snapshots(floe, t)
    assert len(kept) == 1 and kept[0]["parent_id"] == s3
    assert floe_rows(floe, f"SELECT id, v FROM {t}") == [(norm(i), f"v{i}") for i in (1, 2, 3, 4)]


def test_trino_reads_a_catalog_tag_floe_made(lab, ns):
    """floe (the Python package) writes two runs of two tables, each run one transaction, and
    tags the namespace's tables between them with CREATE CATALOG TAG: Trino reads every table at
    the tag (FOR VERSION AS OF 'run_1') with run 1's rows only, finds the tag in "$refs", and
    reads both runs current; SHOW CATALOG TAGS lists the tag."""
    floe, trino, cat = lab
    with floe_connection(floe) as conn:
        run_1 = write_two_runs_tagged_between(conn, ns)

    for table, rows in RUNS.items():
        t = f"{cat}.{ns}.{table}"
        assert trino.query(f'SELECT name, type, snapshot_id FROM {cat}.{ns}."{table}$refs" '
                           "WHERE name = 'run_1'") == [["run_1", "TAG", run_1[table]]], table
        assert sorted(map(tuple, trino.query(f"SELECT run, id FROM {t} FOR VERSION AS OF 'run_1'"))) == rows(1), table
        assert sorted(map(tuple, trino.query(f"SELECT run, id FROM {t}"))) == rows(1) + rows(2), table
