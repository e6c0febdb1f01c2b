"""PyIceberg 0.12 and DuckDB 1.5 (its iceberg extension, through `floe serve --rest`) read the
format-version 3 tables floe writes: a table floe creates at v3 (partitioned by bucket), appends
to twice and overwrites whole; a v2 table (partitioned by identity) floe appends to twice,
upgrades to v3, appends to and overwrites partitions of dynamically; floe's deletion vectors;
a copy-on-write DELETE and a compaction whose files store the rows' lineage.

At every snapshot PyIceberg's scan and DuckDB's `AT (VERSION => id)` read the rows floe wrote,
as floe does. Row lineage: DuckDB reads `_row_id` and `_last_updated_sequence_number`, and at
every v3 snapshot each row's are floe's. At the snapshots from before the upgrade both engines
read `_row_id` NULL; floe reads `_last_updated_sequence_number` NULL there too, as Iceberg's
Java reader (and Spark) do, while DuckDB 1.5 reads the row's data sequence number: the test
holds each engine to what it reads. PyIceberg 0.12 reads no lineage column (its scans and
manifest readers know no first_row_id) but reads the metadata's: each snapshot's first-row-id
and added-rows and the table's next-row-id, whose ranges must hold the row ids that first
appear at each snapshot. Each test runs on the three catalogs of conftest.py."""

from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa

from conftest import rows
# floe serve --rest with a Relay in front, and DuckDB attached to it, as the DuckDB suite has them.
from test_duckdb_rest import duck, server  # noqa: F401
from test_pyiceberg_reads_floe import check_snapshots_match

UTC = dt.timezone.utc
LINEAGE = "_row_id, _last_updated_sequence_number"
COLUMNS = "id, customer, amount, ts, day"
SQL_COLUMNS = "id BIGINT, customer STRING, amount DECIMAL(10,2), ts TIMESTAMP, day DATE"


def batch(first: int, count: int) -> pa.Table:
    """Rows with ids first..first+count-1: some NULL customers, timestamps to the microsecond."""
    ids = list(range(first, first + count))
    ts = [dt.datetime(2024, 1, 1 + i % 3, i % 24, i % 60, 0, i * 7 % 1000, tzinfo=UTC) for i in ids]
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "customer": pa.array([f"c{i % 3}" if i % 7 else None for i in ids], pa.string()),
        "amount": pa.array([decimal.Decimal(i * 125 - 400) / 100 for i in ids], pa.decimal128(10, 2)),
        "ts": pa.array(ts, pa.timestamp("us", tz="UTC")),
        "day": pa.array([t.date() for t in ts], pa.date32()),
    })


def floe_lineage(floe, name: str, snapshot_ids: list[int]) -> dict[int, list[tuple]]:
    """(id, _row_id, _last_updated_sequence_number) of each snapshot's rows as floe reads them,
    by id; one floe process for all."""
    out = {s: [] for s in snapshot_ids}
    statements = [f"SELECT {i} AS at, id, {LINEAGE} FROM {name} VERSION AS OF {s}" for i, s in enumerate(snapshot_ids)]
    for r in floe.sql(*statements):
        out[snapshot_ids[r["at"]]].append((r["id"], r["_row_id"], r["_last_updated_sequence_number"]))
    return {s: sorted(v) for s, v in out.items()}


def check_peers_read_every_snapshot(floe, catalog, duck, name: str, expected: list[pa.Table],
                                    operations: list[str], v2_snapshots: int = 0) -> None:
    """PyIceberg's snapshots are floe's; at each, PyIceberg, DuckDB and floe read the rows
    written (`expected`, one table per snapshot); DuckDB's row lineage is floe's; the row ids
    first seen at each v3 snapshot lie in the range PyIceberg reads from its metadata, a row
    keeps its lineage from snapshot to snapshot, and one written reads the snapshot's sequence
    number."""
    ours = check_snapshots_match(floe, catalog, name)
    assert [s["operation"] for s in ours] == operations, ours
    ids = [s["snapshot-id"] for s in ours]
    assert len(ids) == len(expected)
    table = catalog.load_table(name)
    assert table.metadata.format_version == 3
    snapshots = {s.snapshot_id: s for s in table.metadata.snapshots}
    lake = f"lake.{name}"
    assert [s for s, _, _ in duck.snapshots(lake)] == ids

    ours_lineage = floe_lineage(floe, name, ids)
    seen_row_ids, born, previous = set(), {}, {}
    for i, (snapshot_id, want) in enumerate(zip(ids, expected)):
        where = f"{name} at snapshot {snapshot_id} ({operations[i]})"
        want = rows(want)
        assert rows(table.scan(snapshot_id=snapshot_id).to_arrow()) == want, f"{where}: PyIceberg's rows"
        assert rows(floe.read(name, snapshot_id)) == want, f"{where}: floe's rows"
        got = duck.table(f"SELECT {COLUMNS}, {LINEAGE} FROM {lake} AT (VERSION => {snapshot_id})").to_pylist()
        data = [{k: v for k, v in r.items() if not k.startswith("_")} for r in got]
        assert sorted(data, key=lambda r: r["id"]) == want, f"{where}: DuckDB's rows"
        theirs = sorted((r["id"], r["_row_id"], r["_last_updated_sequence_number"]) for r in got)
        lineage = ours_lineage[snapshot_id]

        s = snapshots[snapshot_id]
        for r in lineage:
            born.setdefault(r[0], s.sequence_number)
        if i < v2_snapshots:
            # A snapshot from before the upgrade: no row id range, and no row ids. floe reads
            # _last_updated_sequence_number NULL too, as Iceberg's Java reader does (it inherits
            # the data sequence number only where the file has a first_row_id; Spark's reads
            # of such a snapshot are NULL, see spark/test_spark_reads_floe_v3.py); DuckDB 1.5
            # inherits the data sequence number (that of the snapshot that added the row).
            assert (s.first_row_id, s.added_rows) == (None, None), f"{where}: {s}"
            assert all(r[1:] == (None, None) for r in lineage), f"{where}: floe's lineage of a v2 snapshot {lineage}"
            assert theirs == [(r[0], None, born[r[0]]) for r in lineage], f"{where}: DuckDB's lineage"
            previous = {}
            continue
        assert theirs == lineage, f"{where}: DuckDB's lineage (id, row id, sequence number), floe's"
        row_ids = [r[1] for r in lineage]
        assert None not in row_ids and len(set(row_ids)) == len(row_ids), f"{where}: row ids {lineage}"
        span = set(range(s.first_row_id, s.first_row_id + s.added_rows))
        new = set(row_ids) - seen_row_ids
        assert new <= span, f"{where}: new row ids {sorted(new)}, PyIceberg's range {s.first_row_id} + {s.added_rows}"
        if operations[i] == "append":
            assert new == span, f"{where}: an append's rows take its range: {sorted(new)}, {sorted(span)}"
        seen_row_ids |= new
        for r in lineage:
            if r[0] in previous:
                assert r == previous[r[0]], f"{where}: {r}, before {previous[r[0]]}"
            else:
                assert r[1] in new and r[2] == born[r[0]], f"{where}: {r}, first read at sequence number {born[r[0]]}"
        previous = {r[0]: r for r in lineage}

    v3 = [snapshots[s] for s in ids[v2_snapshots:]]
    for a, b in zip(v3, v3[1:]):
        assert a.first_row_id + a.added_rows == b.first_row_id, f"{name}: row id ranges {v3}"
    assert table.metadata.next_row_id == v3[-1].first_row_id + v3[-1].added_rows, table.metadata.next_row_id
    assert rows(table.scan().to_arrow()) == rows(expected[-1])
    assert rows(duck.table(f"SELECT {COLUMNS} FROM {lake}")) == rows(expected[-1])


def test_peers_read_table_floe_created_at_v3(floe, pyiceberg_catalog, duck):
    name = "db.created_v3"
    floe.sql("CREATE NAMESPACE db",
             f"CREATE TABLE {name} ({SQL_COLUMNS}) USING iceberg PARTITIONED BY (bucket(4, id)) "
             "TBLPROPERTIES ('format-version'='3')")
    first, second = batch(1, 11), batch(12, 7)
    floe.append(name, first)
    floe.append(name, second)
    floe.sql(f"INSERT OVERWRITE {name} SELECT id + 1000, customer, amount, ts, day FROM {name} WHERE id % 3 = 0")
    both = pa.concat_tables([first, second])
    overwritten = pa.Table.from_pylist(
        [r | {"id": r["id"] + 1000} for r in both.to_pylist() if r["id"] % 3 == 0], schema=both.schema)

    check_peers_read_every_snapshot(floe, pyiceberg_catalog, duck, name, [first, both, overwritten],
                                    ["append", "append", "overwrite"])


def test_peers_read_table_floe_upgraded_to_v3(floe, pyiceberg_catalog, duck):
    name = "db.upgraded_v3"
    first, second, third = batch(1, 12), batch(13, 8), batch(21, 6)
    floe.create(name, first, "customer")
    floe.append(name, first)
    floe.append(name, second)
    assert pyiceberg_catalog.load_table(name).metadata.format_version == 2
    floe.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('format-version'='3')")
    floe.append(name, third)
    # A dynamic overwrite replaces the customers its rows have, keeps the others.
    floe.sql("SET spark.sql.sources.partitionOverwriteMode = dynamic",
             f"INSERT OVERWRITE {name} SELECT id + 1000, customer, amount, ts, day FROM {name} WHERE id IN (4, 14)")
    before = pa.concat_tables([first, second, third])
    replacement = [r | {"id": r["id"] + 1000} for r in before.to_pylist() if r["id"] in (4, 14)]
    replaced = {r["customer"] for r in replacement}
    kept = [r for r in before.to_pylist() if r["customer"] not in replaced]
    assert 0 < len(kept) < before.num_rows
    after = pa.Table.from_pylist(kept + replacement, schema=before.schema)

    check_peers_read_every_snapshot(
        floe, pyiceberg_catalog, duck, name,
        [first, pa.concat_tables([first, second]), before, after],
        ["append", "append", "append", "overwrite"], v2_snapshots=2)


def without(table: pa.Table, gone) -> pa.Table:
    return pa.Table.from_pylist([r for r in table.to_pylist() if not gone(r["id"])], schema=table.schema)


def test_peers_read_floe_deletion_vectors(floe, pyiceberg_catalog, duck):
    """floe's merge-on-read deletes on a v3 table: deletion vectors in Puffin files, the second
    delete merging each file's vector into a new one."""
    name = "db.deletion_vectors"
    floe.sql("CREATE NAMESPACE IF NOT EXISTS db",
             f"CREATE TABLE {name} ({SQL_COLUMNS}) USING iceberg PARTITIONED BY (bucket(4, id)) "
             "TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read')")
    first, second = batch(1, 14), batch(15, 9)
    floe.append(name, first)
    floe.append(name, second)
    floe.sql(f"DELETE FROM {name} WHERE id % 4 = 0")
    floe.sql(f"DELETE FROM {name} WHERE id % 3 = 0 OR id = 5")
    both = pa.concat_tables([first, second])
    once = without(both, lambda i: i % 4 == 0)
    twice = without(once, lambda i: i % 3 == 0 or i == 5)
    formats = {r["file_format"] for r in floe.sql(f"SELECT file_format FROM {name}.delete_files")}
    assert formats == {"PUFFIN"}, formats

    check_peers_read_every_snapshot(floe, pyiceberg_catalog, duck, name, [first, both, once, twice],
                                    ["append", "append", "delete", "delete"])


def test_peers_read_floe_vectors_on_an_upgraded_table(floe, pyiceberg_catalog, duck):
    """A v2 table with floe's position delete files, upgraded, then deleted from again: each
    data file's first vector holds its earlier position deletes too."""
    name = "db.upgraded_deletes"
    first, second = batch(1, 10), batch(11, 10)
    floe.sql("CREATE NAMESPACE IF NOT EXISTS db",
             f"CREATE TABLE {name} ({SQL_COLUMNS}) USING iceberg TBLPROPERTIES ('write.delete.mode'='merge-on-read')")
    floe.append(name, first)
    floe.append(name, second)
    floe.sql(f"DELETE FROM {name} WHERE id IN (2, 3, 12)")
    floe.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('format-version'='3')")
    floe.sql(f"DELETE FROM {name} WHERE id IN (4, 15)")
    both = pa.concat_tables([first, second])
    v2_deleted = without(both, lambda i: i in (2, 3, 12))
    v3_deleted = without(v2_deleted, lambda i: i in (4, 15))
    files = sorted((r["file_format"], r["record_count"]) for r in floe.sql(
        f"SELECT file_format, record_count FROM {name}.delete_files"))
    # The v2 file named both data files: it stays, and each vector holds its positions too.
    assert files == [("PARQUET", 3), ("PUFFIN", 2), ("PUFFIN", 3)], files

    check_peers_read_every_snapshot(floe, pyiceberg_catalog, duck, name, [first, both, v2_deleted, v3_deleted],
                                    ["append", "append", "delete", "delete"], v2_snapshots=3)


def test_peers_read_floe_rewrites_with_lineage(floe, pyiceberg_catalog, duck):
    """floe's copy-on-write DELETE and compaction on a v3 table: the files they write store each
    row's `_row_id` and `_last_updated_sequence_number`, which DuckDB reads as floe does (a row
    keeps both), and PyIceberg reads the rows alone."""
    name = "db.rewrites_with_lineage"
    floe.sql("CREATE NAMESPACE IF NOT EXISTS db",
             f"CREATE TABLE {name} ({SQL_COLUMNS}) USING iceberg PARTITIONED BY (bucket(4, id)) "
             "TBLPROPERTIES ('format-version'='3')")
    first, second = batch(1, 14), batch(15, 9)
    floe.append(name, first)
    floe.append(name, second)
    floe.sql(f"DELETE FROM {name} WHERE id % 4 = 0")
    floe.sql(f"CALL lakehouse.system.rewrite_data_files(table => '{name}', options => map('rewrite-all', 'true'))")
    both = pa.concat_tables([first, second])
    kept = without(both, lambda i: i % 4 == 0)
    check_peers_read_every_snapshot(floe, pyiceberg_catalog, duck, name, [first, both, kept, kept],
                                    ["append", "append", "overwrite", "replace"])
