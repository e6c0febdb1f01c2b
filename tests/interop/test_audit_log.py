"""PyIceberg's commits to a catalog floe opened reach floe's audit log through the database
trigger, unchanged for PyIceberg, and floe names each one when the log is read."""

import pyarrow as pa
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

SCHEMA = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "v", StringType()))


def batch(ids) -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.int64()), "v": pa.array([str(i) for i in ids])},
                    schema=SCHEMA.as_arrow())


def test_pyiceberg_commits_are_recorded_and_named(floe, pyiceberg_catalog):
    # floe opens the catalog first: that installs the trigger.
    proc = floe.cli("audit", "--trigger")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Audit trigger: installed (every engine's changes are recorded)\n"

    pyiceberg_catalog.create_namespace("db")
    table = pyiceberg_catalog.create_table("db.t", schema=SCHEMA)
    table.append(batch([1, 2]))
    first = table.current_snapshot().snapshot_id
    table.append(batch([3]))
    second = table.current_snapshot().snapshot_id
    table.manage_snapshots().create_tag(first, "v1").commit()
    table.manage_snapshots().rollback_to_snapshot(first).commit()
    floe_snapshot = floe.append("db.t", batch([4]))
    table = pyiceberg_catalog.load_table("db.t")
    table.append(batch([5]))
    third = table.current_snapshot().snapshot_id
    table.overwrite(batch([6]))
    overwritten = table.current_snapshot()
    deleted = table.snapshot_by_id(overwritten.parent_snapshot_id)
    assert (deleted.summary.operation.value, deleted.parent_snapshot_id) == ("delete", third)
    pyiceberg_catalog.drop_table("db.t")

    got = [(e["kind"], e["operation"], e["previous_snapshot_id"], e["snapshot_id"],
            [(r["name"], r["from_snapshot_id"], r["to_snapshot_id"]) for r in e["refs"]])
           for e in floe.audit("db.t")]
    assert got == [
        ("create", None, None, None, []),
        ("commit", "append", None, first, [("main", None, first)]),
        ("commit", "append", first, second, [("main", first, second)]),
        ("ref-create", None, second, second, [("v1", None, first)]),
        ("rollback", None, second, first, [("main", second, first)]),
        ("commit", "append", first, floe_snapshot, [("main", first, floe_snapshot)]),
        ("commit", "append", floe_snapshot, third, [("main", floe_snapshot, third)]),
        # PyIceberg's overwrite is one commit of two snapshots, a delete and then an append:
        # main moves once, to the append.
        ("commit", "append", third, overwritten.snapshot_id,
         [("main", third, overwritten.snapshot_id)]),
        ("drop", None, overwritten.snapshot_id, None, []),
    ]
    entries = floe.audit("db.t")
    floe_rows = [e for e in entries if e["client"] == "c++ api"]
    assert [e["snapshot_id"] for e in floe_rows] == [floe_snapshot]
    # Every other row came from the trigger; PostgreSQL says who was connected.
    for e in entries:
        if e["client"] == "c++ api":
            continue
        assert e["client"] == "external", e
        assert e["statement"] is None
        if floe.is_postgres:
            assert e["user_name"] == "floe", e
    # The pointer chain of the log is the catalog's: each row starts where the last ended.
    for before, after in zip(entries, entries[1:]):
        assert after["previous_metadata_location"] == before["metadata_location"]
