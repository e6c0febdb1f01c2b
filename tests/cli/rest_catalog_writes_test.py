"""`floe serve --rest`: PyIceberg's RestCatalog writing tables through the REST catalog. A
table created with a partition spec, a sort order and properties, then appended to,
overwritten (a delete and an append in one commit), deleted from by a filter, its snapshots
managed (tags, branches, a rollback), its schema evolved and its properties updated; a staged
create; rename, drop, register and purge; two writers racing; Iceberg's errors. After every
write the rows PyIceberg reads back, and floe's own reads of every snapshot, history and audit
log, agree with what was written.
Run: FLOE_BINARY=build/floe pytest tests/cli/rest_catalog_writes_test.py"""

import json
import logging
import os
import re
import subprocess
from datetime import datetime, timezone

import pyarrow as pa
import pyiceberg
import pytest
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import (CommitFailedException, NoSuchNamespaceError, NoSuchTableError,
                                  TableAlreadyExistsError)
from pyiceberg.expressions import EqualTo, GreaterThan
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.sorting import NullOrder, SortDirection, SortField, SortOrder
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import LongType, NestedField, StringType

from serve_support import Serve

BINARY = os.environ.get("FLOE_BINARY", "build/floe")

SCHEMA = Schema(NestedField(1, "id", LongType()), NestedField(2, "region", StringType()),
                NestedField(3, "amount", LongType()))
SPEC = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(),
                                    name="region"))
ORDER = SortOrder(SortField(source_id=1, transform=IdentityTransform(),
                            direction=SortDirection.ASC, null_order=NullOrder.NULLS_FIRST))


@pytest.fixture(scope="module")
def server():
    """`floe serve` with the REST catalog beside the wire protocol."""
    s = Serve(BINARY, rest=True)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def catalog(server):
    c = load_catalog("lakehouse", type="rest", uri=server.uri)
    c.create_namespace("w")
    return c


def floe(server, *args):
    r = subprocess.run([server.binary, *args, "--catalog", server.catalog], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, f"floe {' '.join(args)}: {r.stderr}"
    return r.stdout


def floe_rows(server, query):
    """floe's answer to `query`, one dict a row (`floe sql --format json` prints JSON lines)."""
    out = floe(server, "sql", "--warehouse", server.warehouse, "-q", "--format", "json",
               "-c", query)
    return [json.loads(line) for line in out.splitlines()]


def audit(server, name):
    """The table's audit log, oldest first: kind, operation, main before and after, the refs
    that moved."""
    entries = json.loads(floe(server, "audit", name, "--json", "--limit", "0"))["entries"]
    return [(e["kind"], e["operation"], e["previous_snapshot_id"], e["snapshot_id"],
             [(r["name"], r["from_snapshot_id"], r["to_snapshot_id"]) for r in e["refs"]])
            for e in reversed(entries)]


def newest_audit(server, name):
    return json.loads(floe(server, "audit", name, "--json", "--limit", "1"))["entries"][0]


def audit_clients(server, name):
    """Who made the table's changes, as the audit log says: (client, user, address host)."""
    entries = json.loads(floe(server, "audit", name, "--json", "--limit", "0"))["entries"]
    return {(e["client"], e["user_name"], (e["client_address"] or "").rpartition(":")[0])
            for e in entries}


def batch(*rows):
    return pa.Table.from_pylist([dict(zip(["id", "region", "amount"], r)) for r in rows],
                                schema=SCHEMA.as_arrow())


def by_id(rows):
    return sorted(rows, key=lambda r: r["id"])


def local(location):
    return location.removeprefix("file://").removeprefix("file:")


class Tracked:
    """What a table should hold: the rows of each snapshot (as read with that snapshot's
    schema), the rows a read of main gives now (with the current schema), and its audit log.
    check() holds PyIceberg and floe to it."""

    def __init__(self, server, catalog, name):
        self.server, self.catalog, self.name = server, catalog, name
        self.rows = {}  # snapshot id -> its rows
        self.now = []   # the rows of main, read with the current schema
        self.log = []   # the audit log, as audit() gives it
        self.main = None

    def table(self):
        return self.catalog.load_table(self.name)

    def commit(self, kind, operation=None, main=None, refs=()):
        """Records a commit that moved main to `main` (None: left it) and `refs`."""
        before = self.main
        self.main = before if main is None else main
        self.log.append((kind, operation, before, self.main, list(refs)))

    def append(self, snapshot_id, rows):
        """Records a snapshot that main moved to with one commit."""
        self.rows[snapshot_id] = self.now = by_id(rows)
        self.commit("commit", "append", snapshot_id, [("main", self.main, snapshot_id)])

    def check(self):
        table = self.table()
        name = f"lakehouse.{self.name}"
        assert by_id(table.scan().to_arrow().to_pylist()) == self.now
        assert floe_rows(self.server, f"SELECT * FROM {name} ORDER BY id") == self.now
        for snapshot_id, rows in self.rows.items():
            assert by_id(table.scan(snapshot_id=snapshot_id).to_arrow().to_pylist()) == rows
            query = f"SELECT * FROM {name} VERSION AS OF {snapshot_id} ORDER BY id"
            assert floe_rows(self.server, query) == rows
        # floe's history and snapshots are those of the metadata PyIceberg loaded.
        current = table.current_snapshot()
        ancestors = set()
        while current is not None:
            ancestors.add(current.snapshot_id)
            current = table.snapshot_by_id(current.parent_snapshot_id or -1)
        history = [{"made_current_at": e.timestamp_ms, "snapshot_id": e.snapshot_id,
                    "parent_id": table.snapshot_by_id(e.snapshot_id).parent_snapshot_id,
                    "is_current_ancestor": e.snapshot_id in ancestors} for e in table.history()]
        got = floe_rows(self.server, f"SELECT * FROM {name}.history")
        for entry in got:
            entry["made_current_at"] = millis(entry["made_current_at"])
        assert got == history
        snapshots = floe_rows(self.server,
                              f"SELECT snapshot_id, parent_id, operation FROM {name}.snapshots")
        assert snapshots == [{"snapshot_id": s.snapshot_id, "parent_id": s.parent_snapshot_id,
                              "operation": s.summary.operation.value}
                             for s in table.metadata.snapshots]
        refs = floe_rows(self.server,
                         f"SELECT name, type, snapshot_id FROM {name}.refs ORDER BY name")
        assert refs == [{"name": n, "type": r.snapshot_ref_type.value.upper(),
                         "snapshot_id": r.snapshot_id}
                        for n, r in sorted(table.metadata.refs.items())]
        assert audit(self.server, self.name) == self.log
        return table


def millis(text):
    return round(datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=timezone.utc)
                 .timestamp() * 1000)


def row(i, region, amount, **more):
    return {"id": i, "region": region, "amount": amount, **more}


def test_a_table_life(server, catalog):
    table = catalog.create_table("w.orders", schema=SCHEMA, partition_spec=SPEC, sort_order=ORDER,
                                 properties={"owner": "ana", "comment": "orders"})
    assert table.spec() == SPEC
    assert table.sort_order() == SortOrder(*ORDER.fields, order_id=1)
    assert table.schema() == SCHEMA
    assert table.metadata.format_version == 2
    assert local(table.location()) == os.path.join(server.warehouse, "w", "orders")
    assert {k: v for k, v in table.properties.items() if k in ("owner", "comment")} == {
        "owner": "ana", "comment": "orders"}
    t = Tracked(server, catalog, "w.orders")
    t.commit("create")
    t.check()
    # floe sees the spec, the location and the properties PyIceberg sees (with the server's
    # defaults).
    properties = dict(table.properties, format="iceberg/parquet", **{"format-version": "2"})
    assert floe_rows(server, "SHOW CREATE TABLE lakehouse.w.orders") == [{"createtab_stmt": (
        "CREATE TABLE lakehouse.w.orders (\n  id BIGINT,\n  region STRING,\n  amount BIGINT)\n"
        f"USING iceberg\nPARTITIONED BY (region)\nLOCATION '{local(table.location())}'\n"
        "TBLPROPERTIES (\n" + ",\n".join(f"  '{k}' = '{v}'" for k, v in sorted(properties.items()))
        + ")\n")}]

    # Appends: each a snapshot on the last.
    table.append(batch((1, "eu", 10), (2, "us", 20)))
    s1 = table.current_snapshot().snapshot_id
    t.append(s1, [row(1, "eu", 10), row(2, "us", 20)])
    t.check()
    table.append(batch((3, "eu", 30), (4, "apac", 40), (6, "apac", 60)))
    s2 = table.current_snapshot().snapshot_id
    assert table.current_snapshot().parent_snapshot_id == s1
    t.append(s2, t.rows[s1] + [row(3, "eu", 30), row(4, "apac", 40), row(6, "apac", 60)])
    t.check()

    # An overwrite of the eu partition: one commit of two snapshots, a delete of eu's two
    # files, then an append; main moves once, to the append.
    table.overwrite(batch((5, "eu", 50)), overwrite_filter=EqualTo("region", "eu"))
    s3 = table.current_snapshot()
    deleted = table.snapshot_by_id(s3.parent_snapshot_id)
    assert (deleted.summary.operation.value, deleted.parent_snapshot_id) == ("delete", s2)
    assert s3.summary.operation.value == "append"
    s3 = s3.snapshot_id
    t.rows[deleted.snapshot_id] = [r for r in t.rows[s2] if r["region"] != "eu"]
    t.append(s3, t.rows[deleted.snapshot_id] + [row(5, "eu", 50)])
    table = t.check()

    # A delete matching part of a file: PyIceberg rewrites the file without the row, one
    # overwrite snapshot.
    table.delete(GreaterThan("amount", 50))
    s4 = table.current_snapshot()
    assert (s4.summary.operation.value, s4.parent_snapshot_id) == ("overwrite", s3)
    s4 = s4.snapshot_id
    t.rows[s4] = t.now = [r for r in t.rows[s3] if r["amount"] <= 50]
    t.commit("commit", "overwrite", s4, [("main", s3, s4)])
    table = t.check()
    assert [(s.snapshot_id, s.parent_snapshot_id) for s in table.metadata.snapshots] == [
        (s1, None), (s2, s1), (deleted.snapshot_id, s2), (s3, deleted.snapshot_id), (s4, s3)]

    # A tag and a branch, each its own commit; floe reads through both names.
    table.manage_snapshots().create_tag(s1, "v1").commit()
    t.commit("ref-create", refs=[("v1", None, s1)])
    table.manage_snapshots().create_branch(s2, "dev").commit()
    t.commit("ref-create", refs=[("dev", None, s2)])
    table = t.check()
    refs = {n: (r.snapshot_ref_type.value, r.snapshot_id) for n, r in table.metadata.refs.items()}
    assert refs == {"main": ("branch", s4), "v1": ("tag", s1), "dev": ("branch", s2)}
    name = "lakehouse.w.orders"
    assert floe_rows(server, f"SELECT * FROM {name} VERSION AS OF 'v1' ORDER BY id") == t.rows[s1]
    assert floe_rows(server, f"SELECT * FROM {name} VERSION AS OF 'dev' ORDER BY id") == t.rows[s2]

    # A commit to the branch moves dev only.
    table.append(batch((7, "us", 70)), branch="dev")
    d1 = table.metadata.refs["dev"].snapshot_id
    assert table.snapshot_by_id(d1).parent_snapshot_id == s2
    t.rows[d1] = by_id(t.rows[s2] + [row(7, "us", 70)])
    t.commit("commit", "append", refs=[("dev", s2, d1)])
    table = t.check()
    assert table.current_snapshot().snapshot_id == s4
    assert floe_rows(server, f"SELECT * FROM {name} VERSION AS OF 'dev' ORDER BY id") == t.rows[d1]

    # Main rolled back to s2, then the tag removed.
    table.manage_snapshots().rollback_to_snapshot(s2).commit()
    t.now = t.rows[s2]
    t.commit("rollback", main=s2, refs=[("main", s4, s2)])
    table = t.check()
    # The overwrite's delete snapshot was never current: it is not in the history.
    assert [e.snapshot_id for e in table.history()] == [s1, s2, s3, s4, s2]
    table.manage_snapshots().remove_tag("v1").commit()
    t.commit("ref-drop", refs=[("v1", s1, None)])
    table = t.check()
    assert sorted(table.metadata.refs) == ["dev", "main"]

    # Schema evolution: a column added, one renamed. Reads of main use the new schema; a
    # snapshot reads with the schema it was written with.
    with table.update_schema() as update:
        update.add_column("note", StringType())
        update.rename_column("amount", "total")
    t.now = [{"id": r["id"], "region": r["region"], "total": r["amount"], "note": None}
             for r in t.rows[s2]]
    t.commit("schema")
    table = t.check()
    assert [(f.field_id, f.name) for f in table.schema().fields] == [
        (1, "id"), (2, "region"), (3, "total"), (4, "note")]
    assert table.schema().schema_id == 1
    new = pa.Table.from_pylist([{"id": 8, "region": "eu", "total": 80, "note": "late"}],
                               schema=table.schema().as_arrow())
    table.append(new)
    s5 = table.current_snapshot()
    assert (s5.parent_snapshot_id, s5.schema_id) == (s2, 1)
    t.append(s5.snapshot_id, t.now + [{"id": 8, "region": "eu", "total": 80, "note": "late"}])
    table = t.check()

    # Properties set and removed in one commit.
    before = dict(table.properties)
    table.transaction().set_properties(owner="bo", tier="gold").remove_properties("comment") \
        .commit_transaction()
    t.commit("properties")
    table = t.check()
    after = dict(before, owner="bo", tier="gold")
    del after["comment"]
    assert table.properties == after
    shown = {r["key"]: r["value"] for r in floe_rows(server, f"SHOW TBLPROPERTIES {name}")}
    assert {k: v for k, v in shown.items() if k not in ("current-snapshot-id", "format",
                                                       "format-version")} == after

    # floe recorded every change itself, naming the REST client, not through its trigger.
    assert audit_clients(server, "w.orders") == {
        (f"rest (PyIceberg/{pyiceberg.__version__})", "anonymous", "127.0.0.1")}


def test_one_commit_of_two_snapshots_is_one_history_entry(server, catalog):
    table = catalog.create_table("w.once", schema=SCHEMA)
    table.append(batch((1, "eu", 10)))
    first = table.current_snapshot().snapshot_id
    table.overwrite(batch((2, "us", 20)))
    table = catalog.load_table("w.once")
    appended = table.current_snapshot()
    deleted = table.snapshot_by_id(appended.parent_snapshot_id)
    assert (deleted.summary.operation.value, deleted.parent_snapshot_id) == ("delete", first)
    assert [e.snapshot_id for e in table.history()] == [first, appended.snapshot_id]
    history = floe_rows(server, "SELECT snapshot_id FROM lakehouse.w.once.history")
    assert history == [{"snapshot_id": first}, {"snapshot_id": appended.snapshot_id}]


def test_staged_create(server, catalog):
    tx = catalog.create_table_transaction("w.staged", schema=SCHEMA, partition_spec=SPEC,
                                          properties={"owner": "cy"})
    tx.append(batch((1, "eu", 10), (2, "us", 20)))
    # Nothing exists until the transaction commits.
    assert not catalog.table_exists("w.staged")
    assert audit(server, "w.staged") == []
    table = tx.commit_transaction()
    snapshot = table.current_snapshot()
    assert (snapshot.parent_snapshot_id, snapshot.summary.operation.value) == (None, "append")
    t = Tracked(server, catalog, "w.staged")
    t.rows[snapshot.snapshot_id] = t.now = [row(1, "eu", 10), row(2, "us", 20)]
    # One commit creates the table and writes its first snapshot: one create row that moves
    # main (as floe names PyIceberg's staged create on a SQL catalog too).
    t.commit("create", None, snapshot.snapshot_id, [("main", None, snapshot.snapshot_id)])
    table = t.check()
    assert table.spec() == SPEC
    assert table.properties["owner"] == "cy"
    assert [e.snapshot_id for e in table.history()] == [snapshot.snapshot_id]


def files_under(directory):
    return {os.path.join(d, f) for d, _, fs in os.walk(directory) for f in fs}


def test_rename_drop_register_purge(server, catalog):
    table = catalog.create_table("w.a", schema=SCHEMA, partition_spec=SPEC)
    table.append(batch((1, "eu", 10), (2, "us", 20)))
    s1 = table.current_snapshot().snapshot_id
    table.append(batch((3, "eu", 30)))
    s2 = table.current_snapshot().snapshot_id
    keep = catalog.create_table("w.keep", schema=SCHEMA)
    keep.append(batch((9, "us", 90)))
    location = local(table.location())
    assert location == os.path.join(server.warehouse, "w", "a")

    renamed = catalog.rename_table("w.a", "w.b")
    assert not catalog.table_exists("w.a")
    assert ("w", "b") in catalog.list_tables("w") and ("w", "a") not in catalog.list_tables("w")
    assert renamed.metadata_location == table.metadata_location
    assert local(renamed.location()) == location
    # The audit log files a change under the name the table had after it; a rename moves no
    # snapshot.
    assert audit(server, "w.a") == [("create", None, None, None, []),
                                    ("commit", "append", None, s1, [("main", None, s1)]),
                                    ("commit", "append", s1, s2, [("main", s1, s2)])]
    t = Tracked(server, catalog, "w.b")
    t.rows = {s1: [row(1, "eu", 10), row(2, "us", 20)],
              s2: [row(1, "eu", 10), row(2, "us", 20), row(3, "eu", 30)]}
    t.now = t.rows[s2]
    t.log = [("rename", None, None, None, [])]
    t.check()
    assert newest_audit(server, "w.b")["detail"] == "renamed from w.a"

    # A drop without purge leaves every file.
    files = files_under(location)
    metadata_location = renamed.metadata_location
    catalog.drop_table("w.b")
    assert not catalog.table_exists("w.b")
    assert files_under(location) == files
    t.log.append(("drop", None, None, None, []))
    assert audit(server, "w.b") == t.log

    # Registered back under another name, the table is as it was.
    back = catalog.register_table("w.back", metadata_location)
    assert back.metadata_location == metadata_location
    assert [(s.snapshot_id, s.parent_snapshot_id) for s in back.metadata.snapshots] == [
        (s1, None), (s2, s1)]
    t2 = Tracked(server, catalog, "w.back")
    t2.rows, t2.now, t2.main = t.rows, t.now, s2
    t2.log = [("register", None, None, s2, [("main", None, s2)])]
    t2.check()

    # A purge deletes the files under the table's location, and nothing else.
    everything = files_under(server.warehouse)
    catalog.purge_table("w.back")
    assert not catalog.table_exists("w.back")
    assert files_under(location) == set()
    assert files_under(server.warehouse) == {f for f in everything
                                             if not f.startswith(location + "/")}
    newest = newest_audit(server, "w.back")
    assert (newest["kind"], newest["detail"]) == ("drop", "purged")
    assert floe_rows(server, "SELECT * FROM lakehouse.w.keep") == [row(9, "us", 90)]


def test_racing_appends_are_retried(server, catalog, caplog):
    catalog.create_table("w.race", schema=SCHEMA)
    # The second writer is another client, whose commits are watched.
    other = load_catalog("lakehouse", type="rest", uri=server.uri)
    commits = []
    other._session.hooks["response"].append(
        lambda r, *args, **kwargs: commits.append((r.status_code, r.json().get("error")))
        if r.request.method == "POST" and r.request.url.endswith("/tables/race") else None)
    one, two = catalog.load_table("w.race"), other.load_table("w.race")
    one.append(batch((1, "eu", 10)))
    first = one.current_snapshot().snapshot_id
    # The second append requires the empty main it saw; the server refuses it, PyIceberg
    # reloads the table and commits again on top of the first append.
    with caplog.at_level(logging.WARNING, logger="pyiceberg.table"):
        two.append(batch((2, "us", 20)))
    assert [re.sub(r"in \d+ ms$", "in N ms", r.getMessage()) for r in caplog.records] == [
        "Commit failed due to a concurrent update, retrying (1/4) in N ms"]
    assert [status for status, _ in commits] == [409, 200]
    error = commits[0][1]
    assert (error["message"], error["type"], error["code"]) == (
        "Requirement failed: branch main was created concurrently", "CommitFailedException", 409)
    second = two.current_snapshot()
    assert second.parent_snapshot_id == first
    t = Tracked(server, catalog, "w.race")
    t.commit("create")
    t.append(first, [row(1, "eu", 10)])
    # The refused attempt left no trace in the log.
    t.append(second.snapshot_id, [row(1, "eu", 10), row(2, "us", 20)])
    t.check()


def test_racing_writers_without_retries(server, catalog):
    table = catalog.create_table("w.clash", schema=SCHEMA,
                                 properties={"commit.retry.num-retries": "0"})
    table.append(batch((1, "eu", 10)))
    first = table.current_snapshot().snapshot_id
    one, two = catalog.load_table("w.clash"), catalog.load_table("w.clash")
    one.append(batch((2, "us", 20)))
    second = one.current_snapshot().snapshot_id
    with pytest.raises(CommitFailedException) as failed:
        two.append(batch((3, "eu", 30)))
    assert str(failed.value) == ("CommitFailedException: Requirement failed: branch main has "
                                 f"changed: expected id {first} != {second}")
    # A schema change is never retried: it fails on the changed schema id.
    one.update_schema().add_column("note", StringType()).commit()
    with pytest.raises(CommitFailedException) as failed:
        two.update_schema().add_column("other", StringType()).commit()
    assert str(failed.value) == ("CommitFailedException: Requirement failed: current schema "
                                 "changed: expected id 0 != 1")
    t = Tracked(server, catalog, "w.clash")
    t.commit("create")
    t.append(first, [row(1, "eu", 10)])
    t.append(second, [row(1, "eu", 10), row(2, "us", 20)])
    t.now = [dict(r, note=None) for r in t.now]
    t.commit("schema")
    t.check()


def test_errors(server, catalog):
    catalog.create_table("w.exists", schema=SCHEMA)
    with pytest.raises(TableAlreadyExistsError) as e:
        catalog.create_table("w.exists", schema=SCHEMA)
    assert str(e.value) == "AlreadyExistsException: Table already exists: w.exists"
    with pytest.raises(TableAlreadyExistsError) as e:
        catalog.create_table_transaction("w.exists", schema=SCHEMA)
    assert str(e.value) == "AlreadyExistsException: Table already exists: w.exists"
    for call in [lambda: catalog.load_table("w.missing"),
                 lambda: catalog.drop_table("w.missing"),
                 lambda: catalog.purge_table("w.missing"),
                 lambda: catalog.rename_table("w.missing", "w.elsewhere")]:
        with pytest.raises(NoSuchTableError) as e:
            call()
        assert str(e.value) == "NoSuchTableException: Table does not exist: w.missing"
    catalog.create_table("w.other", schema=SCHEMA)
    with pytest.raises(TableAlreadyExistsError) as e:
        catalog.rename_table("w.other", "w.exists")
    assert str(e.value) == "AlreadyExistsException: Table already exists: w.exists"
    with pytest.raises(TableAlreadyExistsError) as e:
        catalog.register_table("w.exists", catalog.load_table("w.other").metadata_location)
    assert str(e.value) == "AlreadyExistsException: Table already exists: w.exists"
    with pytest.raises(NoSuchNamespaceError) as e:
        catalog.create_table("nowhere.t", schema=SCHEMA)
    assert str(e.value) == "NoSuchNamespaceException: Namespace does not exist: nowhere"
