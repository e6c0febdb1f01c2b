"""PyIceberg opens floe's catalog and reads every snapshot floe wrote."""

import datetime as dt
import decimal
import uuid

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from pyiceberg.transforms import BucketTransform, DayTransform
from pyiceberg.types import LongType, TimestampType

from conftest import rows

UTC = dt.timezone.utc


def orders(first: int, count: int) -> pa.Table:
    ids = list(range(first, first + count))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "customer": pa.array([f"c{i % 5}" for i in ids], pa.string()),
            "amount": pa.array([decimal.Decimal(i * 125) / 100 for i in ids], pa.decimal128(10, 2)),
            "ts": pa.array(
                [dt.datetime(2024, 1, 1 + i % 3, i % 24, 0, 0) for i in ids], pa.timestamp("us")
            ),
        }
    )


def check_snapshots_match(floe, catalog, name):
    """Snapshot ids, parents, sequence numbers, operations and summaries agree."""
    ours = floe.snapshots(name)
    table = catalog.load_table(name)
    theirs = {s.snapshot_id: s for s in table.metadata.snapshots}
    assert [s["snapshot-id"] for s in ours] == [s.snapshot_id for s in table.metadata.snapshots]
    for s in ours:
        t = theirs[s["snapshot-id"]]
        assert t.parent_snapshot_id == s["parent-snapshot-id"]
        assert t.sequence_number == s["sequence-number"]
        assert t.timestamp_ms == s["timestamp-ms"]
        assert t.summary.operation.value == s["operation"]
        assert t.summary.additional_properties == s["summary"]
    return ours


def test_appends_and_overwrite_read_back_at_every_snapshot(floe, pyiceberg_catalog):
    name = "db.orders"
    batches = [orders(1, 10), orders(11, 5), orders(16, 7)]
    floe.create(name, batches[0])
    ids = [floe.append(name, b) for b in batches]
    replacement = orders(100, 4)
    ids.append(floe.overwrite(name, replacement))

    snapshots = check_snapshots_match(floe, pyiceberg_catalog, name)
    assert [s["operation"] for s in snapshots] == ["append", "append", "append", "overwrite"]
    assert [s["parent-snapshot-id"] for s in snapshots] == [None, ids[0], ids[1], ids[2]]
    assert [s["summary"]["total-records"] for s in snapshots] == ["10", "15", "22", "4"]
    assert snapshots[3]["summary"]["deleted-data-files"] == "3"
    assert snapshots[3]["summary"]["deleted-records"] == "22"

    table = pyiceberg_catalog.load_table(name)
    expected = [
        pa.concat_tables(batches[:1]),
        pa.concat_tables(batches[:2]),
        pa.concat_tables(batches[:3]),
        replacement,
    ]
    for snapshot_id, want in zip(ids, expected):
        got = table.scan(snapshot_id=snapshot_id).to_arrow()
        assert rows(got) == rows(want), snapshot_id
    assert table.current_snapshot().snapshot_id == ids[-1]
    assert [f.name for f in table.schema().fields] == ["id", "customer", "amount", "ts"]
    assert [f.field_id for f in table.schema().fields] == [1, 2, 3, 4]
    assert str(table.schema().find_field("amount").field_type) == "decimal(10, 2)"
    # floe reads its own table the same way.
    for snapshot_id, want in zip(ids, expected):
        assert rows(floe.read(name, snapshot_id)) == rows(want)


def test_partitioned_by_day_and_bucket(floe, pyiceberg_catalog):
    name = "db.events"
    data = orders(1, 40)
    floe.create(name, data, "day(ts)", "bucket(16,id)")
    first = floe.append(name, data)
    more = orders(41, 20)
    second = floe.append(name, more)

    table = pyiceberg_catalog.load_table(name)
    spec = table.spec()
    assert [(f.name, str(f.transform), f.field_id) for f in spec.fields] == [
        ("ts_day", "day", 1000),
        ("id_bucket", "bucket[16]", 1001),
    ]
    assert rows(table.scan(snapshot_id=first).to_arrow()) == rows(data)
    assert rows(table.scan().to_arrow()) == rows(pa.concat_tables([data, more]))

    # Every file's partition tuple is what PyIceberg's own transforms give for its rows.
    day = DayTransform().transform(TimestampType())
    bucket = BucketTransform(16).transform(LongType())
    tasks = list(table.scan().plan_files())
    assert len(tasks) > 1
    for task in tasks:
        part = task.file.partition
        file_rows = floe_rows_in_file(table, task.file.file_path)
        for r in file_rows:
            micros = int((r["ts"] - dt.datetime(1970, 1, 1)).total_seconds() * 1_000_000)
            assert part[0] == day(micros)
            assert part[1] == bucket(r["id"])

    # Partition pruning in PyIceberg works on floe's manifests.
    got = table.scan(row_filter="id == 7").to_arrow()
    assert rows(got) == rows(data.filter(pc.equal(data["id"], 7)))
    check_snapshots_match(floe, pyiceberg_catalog, name)
    assert second != first


def floe_rows_in_file(table, path):
    import pyarrow.parquet as pq

    with table.io.new_input(path).open() as f:
        return pq.read_table(f).to_pylist()


def all_types() -> pa.Table:
    n = 6
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "b": pa.array([True, False, None, True, False, True], pa.bool_()),
            "i": pa.array([1, -2, None, 2**31 - 1, -(2**31), 0], pa.int32()),
            "l": pa.array([1, -2, None, 2**63 - 1, -(2**63), 0], pa.int64()),
            "f": pa.array([1.5, -2.25, None, 3.0e38, -0.0, 7.0], pa.float32()),
            "d": pa.array([1.5, -2.25, None, 1e308, float("nan"), 7.0], pa.float64()),
            "dec": pa.array(
                [decimal.Decimal(x) for x in ["1.05", "-2.50", "0.00", "99999999.99", "-0.01", "3.14"]],
                pa.decimal128(10, 2),
            ),
            "dt": pa.array([dt.date(2024, 1, 1), dt.date(1969, 12, 31), None, dt.date(2000, 2, 29),
                            dt.date(1970, 1, 1), dt.date(2038, 1, 19)], pa.date32()),
            "tm": pa.array([dt.time(0, 0), dt.time(23, 59, 59, 999999), None, dt.time(12, 30),
                            dt.time(1, 2, 3), dt.time(4, 5, 6)], pa.time64("us")),
            "ts": pa.array([dt.datetime(2024, 1, 15, 10, 30), None, dt.datetime(1969, 12, 31, 23, 59, 59),
                            dt.datetime(2000, 1, 1), dt.datetime(2024, 3, 1, 0, 0, 0, 1),
                            dt.datetime(1970, 1, 1)], pa.timestamp("us")),
            "tstz": pa.array([dt.datetime(2024, 1, 15, 10, 30, tzinfo=UTC), None,
                              dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC),
                              dt.datetime(2000, 1, 1, tzinfo=UTC), dt.datetime(2024, 3, 1, tzinfo=UTC),
                              dt.datetime(1970, 1, 1, tzinfo=UTC)], pa.timestamp("us", tz="UTC")),
            "s": pa.array(["alpha", "", None, "ünïcödé ✓", "a" * 40, "zeta"], pa.string()),
            "u": pa.array([uuid.UUID(int=i * 7919).bytes if i != 2 else None for i in range(n)], pa.uuid()),
            "fx": pa.array([bytes([i] * 4) if i != 2 else None for i in range(n)], pa.binary(4)),
            "bin": pa.array([bytes(range(i)) if i != 2 else None for i in range(n)], pa.binary()),
        }
    )


def comparable(table: pa.Table) -> list[dict]:
    out = []
    for r in rows(table):
        r = dict(r)
        if r["d"] is not None and r["d"] != r["d"]:
            r["d"] = "NaN"
        if isinstance(r["u"], uuid.UUID):
            r["u"] = r["u"].bytes
        out.append(r)
    return out


def test_every_primitive_type_and_its_bounds(floe, pyiceberg_catalog):
    name = "db.types"
    data = all_types()
    floe.create(name, data)
    snapshot = floe.append(name, data)
    table = pyiceberg_catalog.load_table(name)
    types = {f.name: str(f.field_type) for f in table.schema().fields}
    assert types == {
        "id": "long", "b": "boolean", "i": "int", "l": "long", "f": "float", "d": "double",
        "dec": "decimal(10, 2)", "dt": "date", "tm": "time", "ts": "timestamp",
        "tstz": "timestamptz", "s": "string", "u": "uuid", "fx": "fixed[4]", "bin": "binary",
    }
    assert comparable(table.scan(snapshot_id=snapshot).to_arrow()) == comparable(data)
    assert comparable(floe.read(name, snapshot)) == comparable(data)

    # Lower and upper bounds decode, through PyIceberg, to the column's min and max.
    # (inspect.files() cannot build its table for uuid columns, so decode the entries here.)
    from pyiceberg.conversions import from_bytes

    schema = table.schema()
    [manifest] = table.current_snapshot().manifests(table.io)
    [entry] = manifest.fetch_manifest_entry(table.io)
    f = entry.data_file

    def bound(column, which):
        field = schema.find_field(column)
        raw = (f.lower_bounds if which == "lower" else f.upper_bounds)[field.field_id]
        return from_bytes(field.field_type, raw)

    def field_id(column):
        return schema.find_field(column).field_id

    assert bound("i", "lower") == -(2**31) and bound("i", "upper") == 2**31 - 1
    assert bound("l", "lower") == -(2**63) and bound("l", "upper") == 2**63 - 1
    assert bound("dec", "lower") == decimal.Decimal("-2.50")
    assert bound("dec", "upper") == decimal.Decimal("99999999.99")
    assert bound("dt", "lower") == (dt.date(1969, 12, 31) - dt.date(1970, 1, 1)).days
    assert bound("ts", "lower") == -1_000_000
    assert bound("ts", "upper") == 1709251200000001
    assert bound("tstz", "upper") == 1709251200000000
    assert bound("f", "lower") == -2.25 and bound("d", "upper") == 1e308
    assert bound("u", "lower") == uuid.UUID(int=0).bytes
    assert bound("u", "upper") == uuid.UUID(int=5 * 7919).bytes
    assert bound("fx", "lower") == bytes([0] * 4) and bound("bin", "upper") == bytes(range(5))
    assert bound("s", "lower") == ""
    # Strings are truncated to 16 characters; the upper bound is rounded up.
    assert bound("s", "upper") == "ünïcödé ✓"
    assert bound("b", "lower") is False and bound("b", "upper") is True
    assert f.nan_value_counts[field_id("d")] == 1
    assert f.null_value_counts[field_id("b")] == 1
    assert f.value_counts[field_id("i")] == 6
    assert f.record_count == 6


@pytest.mark.parametrize("mode", ["copy-on-write", "merge-on-read"])
@pytest.mark.parametrize("partitioned", [False, True], ids=["unpartitioned", "partitioned"])
def test_row_level_changes_read_back_at_every_snapshot(floe, pyiceberg_catalog, mode, partitioned):
    """floe's DELETE, UPDATE and MERGE INTO in either mode: PyIceberg reads every snapshot as
    floe does (applying floe's position delete files in merge-on-read)."""
    name, source = "db.changes", "db.changes_src"
    floe.create(name, orders(1, 1), *(["bucket(4,id)"] if partitioned else []))
    floe.sql(
        f"ALTER TABLE lakehouse.{name} SET TBLPROPERTIES ('write.delete.mode' = '{mode}', "
        f"'write.update.mode' = '{mode}', 'write.merge.mode' = '{mode}')"
    )
    floe.create(source, orders(1, 1))
    floe.append(source, orders(44, 10).set_column(1, "customer", pa.array(["new"] * 10)))

    by_id = {r["id"]: r for r in orders(1, 60).to_pylist()}
    expected = []  # the rows floe's statements leave, after each snapshot
    ids = [floe.append(name, orders(1, 30))]
    live = {i: by_id[i] for i in range(1, 31)}
    expected.append(dict(live))
    ids.append(floe.append(name, orders(31, 20)))
    live |= {i: by_id[i] for i in range(31, 51)}
    expected.append(dict(live))

    floe.sql(f"DELETE FROM lakehouse.{name} WHERE id % 3 = 0")
    live = {i: r for i, r in live.items() if i % 3}
    expected.append(dict(live))
    floe.sql(f"UPDATE lakehouse.{name} SET customer = 'vip', amount = amount * 2 WHERE id > 40")
    live = {i: r | {"customer": "vip", "amount": r["amount"] * 2} if i > 40 else r for i, r in live.items()}
    expected.append(dict(live))
    floe.sql(
        f"MERGE INTO lakehouse.{name} t USING lakehouse.{source} s ON t.id = s.id "
        "WHEN MATCHED AND s.id % 2 = 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET t.customer = s.customer "
        "WHEN NOT MATCHED THEN INSERT *"
    )
    for i in range(44, 54):
        if i in live and i % 2 == 0:
            del live[i]
        elif i in live:
            live[i] = live[i] | {"customer": "new"}
        else:
            live[i] = by_id[i] | {"customer": "new"}
    expected.append(dict(live))

    snapshots = check_snapshots_match(floe, pyiceberg_catalog, name)
    ids = [s["snapshot-id"] for s in snapshots]
    row_level = "overwrite" if mode == "copy-on-write" else "delete"
    assert [s["operation"] for s in snapshots] == ["append", "append", row_level, "overwrite", "overwrite"]
    table = pyiceberg_catalog.load_table(name)
    for snapshot_id, want in zip(ids, expected, strict=True):
        got = table.scan(snapshot_id=snapshot_id).to_arrow()
        assert rows(got) == sorted(want.values(), key=lambda r: r["id"]), snapshot_id
        assert rows(floe.read(name, snapshot_id)) == rows(got), snapshot_id
    # The last state, by hand: the merge deleted 44, 46 and 50, updated 47 and 49, and
    # inserted 45, 48 and 51-53 (the DELETE had taken 45 and 48).
    final = rows(table.scan().to_arrow())
    assert len(final) == 36
    assert [(r["id"], r["customer"]) for r in final if r["id"] > 40] == [
        (41, "vip"), (43, "vip"), (45, "new"), (47, "new"), (48, "new"), (49, "new"),
        (51, "new"), (52, "new"), (53, "new"),
    ]

    delete_files = [d for task in table.scan().plan_files() for d in task.delete_files]
    summary = snapshots[-1]["summary"]
    if mode == "merge-on-read":
        # PyIceberg got its rows by applying floe's position deletes, not from rewritten files.
        assert delete_files and all(d.content.value == 1 for d in delete_files)
        assert int(summary["total-position-deletes"]) > 0
    else:
        assert delete_files == [] and summary["total-delete-files"] == "0"


def test_catalog_opens_and_reads_through_floe_drop_and_undrop(floe, pyiceberg_catalog):
    """floe's record of dropped tables sits beside the Iceberg tables; PyIceberg ignores it."""
    name = "db.kept"
    floe.create(name, orders(0, 1))
    floe.append(name, orders(0, 3))
    floe.append(name, orders(3, 2))
    floe.create("db.other", orders(0, 1))
    floe.sql(f"DROP TABLE {name}")
    assert pyiceberg_catalog.list_tables("db") == [("db", "other")]
    assert not pyiceberg_catalog.table_exists(name)
    floe.sql(f"UNDROP TABLE {name}")
    assert sorted(pyiceberg_catalog.list_tables("db")) == [("db", "kept"), ("db", "other")]
    snapshots = check_snapshots_match(floe, pyiceberg_catalog, name)
    table = pyiceberg_catalog.load_table(name)
    assert rows(table.scan(snapshot_id=snapshots[0]["snapshot-id"]).to_arrow()) == rows(orders(0, 3))
    assert rows(table.scan().to_arrow()) == rows(orders(0, 5))
    # A drop by PyIceberg is Iceberg's: nothing recorded, nothing to undrop.
    pyiceberg_catalog.drop_table("db.other")
    with pytest.raises(RuntimeError, match="Table db.other was not dropped"):
        floe.sql("UNDROP TABLE db.other")
