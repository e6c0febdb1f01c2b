"""Table.changes(): the rows each commit changed between two points, with the commit, through
SQL's table_changes; points as snapshot ids, refs, datetimes and ISO-8601 text; net mode and
update images; the order of the rows; and the errors."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

import floe

UTC = dt.timezone.utc


@pytest.fixture
def history(conn):
    """db.m, merge-on-read: an insert, an update, a delete, a tag, a MERGE. Its snapshot ids,
    oldest first, and their commit times."""
    conn.sql("CREATE TABLE db.m (id BIGINT, name STRING) TBLPROPERTIES ('write.delete.mode' = 'merge-on-read', "
             "'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')")
    conn.sql("INSERT INTO db.m VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    conn.sql("UPDATE db.m SET name = 'bb' WHERE id = 2")
    conn.sql("DELETE FROM db.m WHERE id = 3")
    conn.sql("ALTER TABLE db.m CREATE TAG before_merge")
    conn.sql("MERGE INTO db.m t USING (SELECT * FROM VALUES (1, 'aa'), (4, 'd') AS s(id, name)) s ON t.id = s.id "
             "WHEN MATCHED THEN UPDATE SET t.name = s.name WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, s.name)")
    snapshots = conn.sql("SELECT snapshot_id, committed_at, operation FROM db.m.snapshots ORDER BY committed_at")
    assert snapshots["operation"].to_pylist() == ["append", "overwrite", "delete", "overwrite"]
    return snapshots["snapshot_id"].to_pylist(), snapshots["committed_at"].to_pylist()


def change(history, id_, name, kind, ordinal, k, seq=None):
    """A row as changes() returns it, committed by snapshot k of the history (0 = oldest)."""
    ids, times = history
    return {"id": id_, "name": name, "_change_type": kind, "_change_ordinal": ordinal,
            "_commit_snapshot_id": ids[k], "_commit_timestamp": times[k],
            "_commit_sequence_number": k + 1 if seq is None else seq,
            "_operation": ["append", "overwrite", "delete", "overwrite"][k]}


def test_every_change_with_its_commit(conn, history):
    t = conn.table("db.m")
    got = t.changes()
    assert got.schema == pa.schema([
        ("id", pa.int64()), ("name", pa.string()), ("_change_type", pa.string()), ("_change_ordinal", pa.int32()),
        ("_commit_snapshot_id", pa.int64()), ("_commit_timestamp", pa.timestamp("us", tz="UTC")),
        ("_commit_sequence_number", pa.int64()), ("_operation", pa.string())])
    # By ordinal, then DELETEs before INSERTs, then the columns.
    assert got.to_pylist() == [
        change(history, 1, "a", "INSERT", 0, 0), change(history, 2, "b", "INSERT", 0, 0),
        change(history, 3, "c", "INSERT", 0, 0),
        change(history, 2, "b", "DELETE", 1, 1), change(history, 2, "bb", "INSERT", 1, 1),
        change(history, 3, "c", "DELETE", 2, 2),
        change(history, 1, "a", "DELETE", 3, 3), change(history, 1, "aa", "INSERT", 3, 3),
        change(history, 4, "d", "INSERT", 3, 3)]
    assert got["_commit_timestamp"][0].as_py().tzinfo is not None


def test_update_images_by_identifier_columns(conn, history):
    ids, _ = history
    t = conn.table("db.m")
    # By ordinal, then key, a before image ahead of its after image.
    assert t.changes(from_=ids[0], identifier_columns=["id"]).to_pylist() == [
        change(history, 2, "b", "UPDATE_BEFORE", 0, 1), change(history, 2, "bb", "UPDATE_AFTER", 0, 1),
        change(history, 3, "c", "DELETE", 1, 2),
        change(history, 1, "a", "UPDATE_BEFORE", 2, 3), change(history, 1, "aa", "UPDATE_AFTER", 2, 3),
        change(history, 4, "d", "INSERT", 2, 3)]
    assert t.changes(from_=ids[0], to=ids[1], identifier_columns=["ID"], compute_updates=False).to_pylist() == [
        change(history, 2, "b", "DELETE", 0, 1), change(history, 2, "bb", "INSERT", 0, 1)]


def test_net_changes(conn, history):
    ids, _ = history
    t = conn.table("db.m")
    # Per key the state at from_ against the state at to, each row with the commit of to.
    assert t.changes(from_=ids[0], mode="net", identifier_columns=["id"]).to_pylist() == [
        change(history, 1, "a", "UPDATE_BEFORE", None, 3), change(history, 1, "aa", "UPDATE_AFTER", None, 3),
        change(history, 2, "b", "UPDATE_BEFORE", None, 3), change(history, 2, "bb", "UPDATE_AFTER", None, 3),
        change(history, 3, "c", "DELETE", None, 3), change(history, 4, "d", "INSERT", None, 3)]
    # Without keys whole rows compare.
    assert t.changes(to="before_merge", mode="net").to_pylist() == [
        change(history, 1, "a", "INSERT", None, 2), change(history, 2, "bb", "INSERT", None, 2)]


def test_points(conn, history):
    ids, times = history
    t = conn.table("db.m")
    only_the_delete = [change(history, 3, "c", "DELETE", 0, 2)]
    # A snapshot id, as an int or as text; a tag; a branch.
    assert t.changes(from_=ids[1], to=ids[2]).to_pylist() == only_the_delete
    assert t.changes(from_=str(ids[1]), to="before_merge").to_pylist() == only_the_delete
    assert t.changes(from_="before_merge", to="main").to_pylist() == t.changes(from_=ids[2]).to_pylist()
    # Timestamps: the snapshot current then. A datetime (naive read as UTC), ISO-8601 text (read
    # as UTC without a zone, whatever the session's time zone), a date.
    assert t.changes(from_=times[1], to=times[2]).to_pylist() == only_the_delete
    naive = times[2].astimezone(UTC).replace(tzinfo=None)
    assert t.changes(from_=times[1], to=naive).to_pylist() == only_the_delete
    conn.sql("SET spark.sql.session.timeZone = Asia/Kolkata")
    text = naive.isoformat(sep=" ")
    assert t.changes(from_=ids[1], to=text).to_pylist() == only_the_delete
    assert t.changes(from_=ids[1], to=times[2].astimezone(dt.timezone(dt.timedelta(hours=-5))).isoformat()
                     ).to_pylist() == only_the_delete
    assert t.changes(from_=dt.date(2000, 1, 1)).num_rows == 9
    # A tag named like a timestamp is the tag.
    conn.sql(f"ALTER TABLE db.m CREATE TAG `2000-01-01` AS OF VERSION {ids[1]}")
    assert t.changes(from_="2000-01-01", to=ids[2]).to_pylist() == only_the_delete


def test_names_of_the_table(conn, history):
    ids, _ = history
    assert conn.table("lakehouse.db.m").changes(from_=ids[2]).num_rows == 3
    conn.sql("USE db")
    assert conn.table("m").changes(from_=ids[2]).num_rows == 3


def test_errors(conn, history):
    ids, _ = history
    t = conn.table("db.m")
    with pytest.raises(floe.ValidationError) as e:
        t.changes(mode="some")
    assert str(e.value) == "Invalid mode 'some' for table_changes: expected 'all' or 'net'"
    with pytest.raises(floe.ValidationError) as e:
        t.changes(from_="nope")
    assert str(e.value) == ("Cannot resolve 'nope' in table lakehouse.db.m: it is not a branch or tag, a snapshot id "
                            "or a timestamp")
    with pytest.raises(floe.FloeError) as e:
        t.changes(from_=42)
    assert str(e.value) == "Cannot find snapshot with ID 42 in table lakehouse.db.m"
    with pytest.raises(floe.ValidationError) as e:
        t.changes(from_=ids[3], to=ids[1])
    assert str(e.value) == f"Starting snapshot (exclusive) {ids[3]} is after end snapshot {ids[1]} in table lakehouse.db.m"
    with pytest.raises(floe.ValidationError) as e:
        t.changes(to=dt.datetime(2000, 1, 1))
    assert str(e.value) == "Cannot find a snapshot older than 2000-01-01T00:00:00+00:00"
    with pytest.raises(floe.ValidationError) as e:
        t.changes(compute_updates=True)
    assert str(e.value) == "Cannot compute the update images because identifier columns are not set"
    with pytest.raises(floe.ValidationError, match="identifier_columns must be a list of names"):
        t.changes(identifier_columns="id")
    with pytest.raises(floe.ValidationError) as e:
        t.changes(from_=True)
    assert str(e.value) == "Cannot use True as from_: give a snapshot id, a ref, a timestamp or None"
    with pytest.raises(floe.ValidationError) as e:
        t.changes(to=1.5)
    assert str(e.value) == "Cannot use 1.5 as to: give a snapshot id, a ref, a timestamp or None"
    with pytest.raises(floe.NotFound) as e:
        conn.table("db.nope").changes()
    assert str(e.value) == "[TABLE_OR_VIEW_NOT_FOUND] The table or view `lakehouse`.`db`.`nope` cannot be found."
