"""floe reads every snapshot of a table PyIceberg wrote into the shared catalog."""

import datetime as dt
import decimal

import pyarrow as pa
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
