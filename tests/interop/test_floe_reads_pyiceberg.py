"""floe reads every snapshot of a table PyIceberg wrote into the shared catalog."""

import datetime as dt
import decimal

import pyarrow as pa
import pytest
from pyiceberg.expressions import EqualTo, GreaterThanOrEqual
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform, IdentityTransform
from pyiceberg.types import (
    DateType,
    DecimalType,
    DoubleType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
    TimestamptzType,
)

from conftest import rows

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "region", StringType()),
    NestedField(3, "amount", DecimalType(12, 2)),
    NestedField(4, "score", DoubleType()),
    NestedField(5, "ts", TimestampType()),
    NestedField(6, "day", DateType()),
    NestedField(7, "seen", TimestamptzType()),
)


def batch(first: int, count: int) -> pa.Table:
    ids = list(range(first, first + count))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "region": pa.array([["eu", "us", "apac"][i % 3] for i in ids], pa.large_string()),
            "amount": pa.array([decimal.Decimal(i) / 4 for i in ids], pa.decimal128(12, 2)),
            "score": pa.array([i * 0.5 if i % 4 else None for i in ids], pa.float64()),
            "ts": pa.array([dt.datetime(2024, 5, 1 + i % 4, i % 24) for i in ids], pa.timestamp("us")),
            "day": pa.array([dt.date(2024, 5, 1 + i % 4) for i in ids], pa.date32()),
            "seen": pa.array([dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=i)
                              for i in ids], pa.timestamp("us", tz="UTC")),
        },
        schema=SCHEMA.as_arrow(),
    )


def check_every_snapshot(floe, table, name):
    snapshots = table.metadata.snapshots
    assert len(snapshots) >= 4
    for snap in snapshots:
        want = table.scan(snapshot_id=snap.snapshot_id).to_arrow()
        got = floe.read(name, snap.snapshot_id)
        assert got.column_names == ["id", "region", "amount", "score", "ts", "day", "seen"]
        assert rows(got) == rows(want), f"snapshot {snap.snapshot_id} ({snap.summary.operation})"
    assert rows(floe.read(name)) == rows(table.scan().to_arrow())


def test_unpartitioned_table_written_by_pyiceberg(floe, pyiceberg_catalog):
    pyiceberg_catalog.create_namespace("db")
    table = pyiceberg_catalog.create_table("db.sales", schema=SCHEMA)
    table.append(batch(1, 20))
    table.append(batch(21, 10))
    table.overwrite(batch(100, 5))
    table.append(batch(200, 8))
    table.delete(EqualTo("region", "eu"))
    table = pyiceberg_catalog.load_table("db.sales")
    ops = [s.summary.operation.value for s in table.metadata.snapshots]
    assert "overwrite" in ops and ops[0] == "append"
    check_every_snapshot(floe, table, "db.sales")


def test_partitioned_table_written_by_pyiceberg(floe, pyiceberg_catalog):
    pyiceberg_catalog.create_namespace("db")
    spec = PartitionSpec(
        PartitionField(source_id=5, field_id=1000, transform=DayTransform(), name="ts_day"),
        PartitionField(source_id=2, field_id=1001, transform=IdentityTransform(), name="region"),
    )
    table = pyiceberg_catalog.create_table("db.parts", schema=SCHEMA, partition_spec=spec)
    table.append(batch(1, 30))
    table.append(batch(31, 30))
    table.delete(GreaterThanOrEqual("id", 50))
    table.overwrite(batch(500, 6), overwrite_filter=EqualTo("region", "us"))
    table = pyiceberg_catalog.load_table("db.parts")
    check_every_snapshot(floe, table, "db.parts")


def test_floe_appends_to_a_pyiceberg_table(floe, pyiceberg_catalog):
    pyiceberg_catalog.create_namespace("db")
    table = pyiceberg_catalog.create_table("db.mixed", schema=SCHEMA)
    table.append(batch(1, 5))
    floe_snapshot = floe.append("db.mixed", batch(6, 5))
    table = pyiceberg_catalog.load_table("db.mixed")
    assert table.current_snapshot().snapshot_id == floe_snapshot
    assert table.current_snapshot().parent_snapshot_id == table.metadata.snapshots[0].snapshot_id
    assert table.current_snapshot().summary["total-records"] == "10"
    assert rows(table.scan().to_arrow()) == rows(pa.concat_tables([batch(1, 5), batch(6, 5)]))
    table.append(batch(11, 2))
    assert rows(floe.read("db.mixed")) == rows(pa.concat_tables([batch(1, 5), batch(6, 5), batch(11, 2)]))


# The snapshots PyIceberg commits: two appends; each delete() rewrites the files it matches in
# part (overwrite) and drops those it matches whole (delete: the eu partition); overwrite() is
# a rewrite and an append; upsert() rewrites the updated rows (overwrite, append) and appends.
OPERATIONS = {
    False: ["append", "append", "overwrite", "overwrite", "overwrite", "overwrite", "append",
            "overwrite", "append", "append"],
    True: ["append", "append", "overwrite", "delete", "overwrite", "overwrite", "append",
           "overwrite", "append", "append"],
}


@pytest.mark.parametrize("partitioned", [False, True], ids=["unpartitioned", "partitioned"])
def test_floe_reads_pyiceberg_deletes_and_overwrites(floe, pyiceberg_catalog, partitioned):
    """PyIceberg's copy-on-write delete(), overwrite() with a filter and upsert(): whole files
    dropped, files rewritten without some rows, rows replaced. floe reads every snapshot as
    PyIceberg does, and the rows a Python model of the changes leaves."""
    pyiceberg_catalog.create_namespace("db")
    spec = (
        PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="region"))
        if partitioned
        else PartitionSpec()
    )
    table = pyiceberg_catalog.create_table("db.changes", schema=SCHEMA, partition_spec=spec)
    model = {}

    def apply(data: pa.Table) -> None:
        model.update({r["id"]: r for r in data.to_pylist()})

    table.append(batch(1, 30))
    apply(batch(1, 30))
    table.append(batch(31, 20))
    apply(batch(31, 20))
    table.delete(EqualTo("id", 7))
    del model[7]
    table.delete(EqualTo("region", "eu"))
    model = {i: r for i, r in model.items() if r["region"] != "eu"}
    table.delete("score IS NULL")
    model = {i: r for i, r in model.items() if r["score"] is not None}
    replacement = batch(40, 6).set_column(1, "region", pa.array(["us"] * 6, pa.large_string()))
    table.overwrite(replacement, overwrite_filter=GreaterThanOrEqual("id", 40))
    model = {i: r for i, r in model.items() if i < 40}
    apply(replacement)
    changed = batch(1, 3).set_column(3, "score", pa.array([9.5, 9.5, 9.5], pa.float64()))
    result = table.upsert(pa.concat_tables([changed, batch(60, 2)]), join_cols=["id"])
    assert (result.rows_updated, result.rows_inserted) == (2, 3)  # 3 was deleted with the eu rows
    apply(pa.concat_tables([changed, batch(60, 2)]))

    table = pyiceberg_catalog.load_table("db.changes")
    ops = [s.summary.operation.value for s in table.metadata.snapshots]
    assert ops == OPERATIONS[partitioned], ops
    check_every_snapshot(floe, table, "db.changes")
    want = [model[i] for i in sorted(model)]
    assert rows(floe.read("db.changes")) == rows(pa.Table.from_pylist(want, schema=SCHEMA.as_arrow()))
    assert sorted(model) == [1, 2, 3, 5, 10, 11, 13, 14, 17, 19, 22, 23, 25, 26, 29, 31, 34, 35, 37, 38,
                             40, 41, 42, 43, 44, 45, 60, 61]
    # Copy-on-write: no delete files, and floe's metadata tables count what PyIceberg left.
    floe_sql = "SELECT count(*) AS n, sum(record_count) AS records FROM lakehouse.db.changes.files"
    [files] = floe.sql(floe_sql)
    assert files["records"] == len(model)
    assert floe.sql("SELECT count(*) AS n FROM lakehouse.db.changes.delete_files") == [{"n": 0}]
