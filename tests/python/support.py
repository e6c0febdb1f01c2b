"""Helpers of the Python package's tests."""


def ids(table) -> list[int]:
    """The sorted ids of a pyarrow Table's `id` column."""
    return sorted(table["id"].to_pylist())


def two_snapshots(conn) -> tuple[int, int]:
    """Creates db.t (id BIGINT, name STRING) with a snapshot of row (1, 'a'), then one that adds
    (2, 'b'); returns the two snapshot ids, oldest first."""
    conn.sql("CREATE NAMESPACE db")
    conn.sql("CREATE TABLE db.t (id BIGINT, name STRING)")
    conn.sql("INSERT INTO db.t VALUES (1, 'a')")
    conn.sql("INSERT INTO db.t VALUES (2, 'b')")
    first, second = conn.sql("SELECT snapshot_id FROM db.t.snapshots ORDER BY committed_at")["snapshot_id"].to_pylist()
    return first, second
