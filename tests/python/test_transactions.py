"""conn.transaction(): writes to several tables land together when the block ends, are
rolled back by an exception, and a conflicting commit by another connection fails the block
with nothing visible."""

from __future__ import annotations

import pytest

import floe


def counts(c, tables=("db.a", "db.b")):
    return [c.sql(f"SELECT count(*) AS n FROM {t}").column("n")[0].as_py() for t in tables]


@pytest.fixture
def two_tables(conn):
    conn.sql("CREATE TABLE db.a (id BIGINT, run INT)")
    conn.sql("CREATE TABLE db.b (run INT, n BIGINT)")
    conn.sql("INSERT INTO db.a VALUES (1, 0)")
    return conn


def test_writes_land_together(two_tables, paths):
    conn = two_tables
    catalog, warehouse = paths
    with floe.connect(catalog=catalog, warehouse=warehouse) as other:
        with conn.transaction():
            conn.sql("INSERT INTO db.a VALUES (2, 1), (3, 1)")
            conn.sql("INSERT INTO db.b SELECT run, count(*) FROM db.a WHERE run = 1 GROUP BY run")
            assert counts(conn) == [3, 1]
            assert counts(other) == [1, 0]
        assert counts(other) == [3, 1]
    times = conn.sql("SELECT committed_at FROM db.a.snapshots UNION ALL SELECT committed_at FROM db.b.snapshots "
                     "ORDER BY committed_at DESC LIMIT 2").column("committed_at").to_pylist()
    assert times[0] == times[1]


def test_an_exception_rolls_back(two_tables):
    conn = two_tables
    with pytest.raises(KeyError):
        with conn.transaction():
            conn.sql("INSERT INTO db.a VALUES (2, 1)")
            conn.sql("DELETE FROM db.b")
            raise KeyError("stop")
    assert counts(conn) == [1, 0]
    assert conn.sql("SELECT count(*) AS n FROM db.a.snapshots").column("n")[0].as_py() == 1


def test_a_failed_statement_fails_the_block(two_tables):
    conn = two_tables
    with pytest.raises(floe.FloeError, match="rolled back: a statement in it failed"):
        with conn.transaction():
            conn.sql("INSERT INTO db.a VALUES (2, 1)")
            with pytest.raises(floe.NotFound):
                conn.sql("SELECT * FROM db.nope")
            with pytest.raises(floe.FloeError, match="current transaction is aborted"):
                conn.sql("INSERT INTO db.b VALUES (1, 1)")
    assert counts(conn) == [1, 0]


def test_blocks_do_not_nest(two_tables):
    conn = two_tables
    with conn.transaction():
        with pytest.raises(floe.FloeError, match="transactions do not nest"):
            with conn.transaction():
                pass
        conn.sql("INSERT INTO db.b VALUES (7, 7)")
    assert counts(conn) == [1, 1]


def test_begin_in_a_block_and_commit_outside_one_warn_as_postgresql(two_tables):
    conn = two_tables
    assert conn.sql("BEGIN").message == ""
    assert conn.sql("BEGIN").message == "Warning: there is already a transaction in progress"
    conn.sql("INSERT INTO db.b VALUES (8, 8)")
    assert conn.sql("COMMIT").message == ""
    assert conn.sql("COMMIT").message == "Warning: there is no transaction in progress"
    assert conn.sql("ROLLBACK").message == "Warning: there is no transaction in progress"
    assert counts(conn) == [1, 1]


def test_a_conflict_fails_the_whole_block(two_tables, paths):
    conn = two_tables
    catalog, warehouse = paths
    with floe.connect(catalog=catalog, warehouse=warehouse) as other:
        with pytest.raises(floe.ValidationError, match="Cannot commit the transaction: lakehouse.db.a changed"):
            with conn.transaction():
                conn.sql("INSERT INTO db.b VALUES (1, 1)")
                conn.sql("UPDATE db.a SET run = 5 WHERE id = 1")
                other.sql("DELETE FROM db.a WHERE id = 1")
    assert counts(conn) == [0, 0]
