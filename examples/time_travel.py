"""Time travel with floe.iceberg: a table gets three snapshots of two rows each; the current
snapshot has 6 rows, the first one 2; a rollback to the first makes it current again: 2 rows.

The same `run` works on a floe connection and, unchanged, on a SparkSession (Spark 3.5 with
Iceberg's runtime) whose catalog holds the table:

    python examples/time_travel.py                          # floe, on ./warehouse
    python examples/time_travel.py --catalog /tmp/c.db --warehouse /tmp/w
    run(spark, "lakehouse.db.events")                       # from a Spark job
"""

import argparse

from floe.iceberg import history, rollback_to, snapshot_at


def count(rows) -> int:
    """Rows of what snapshot_at returned: a pyarrow Table (floe) or a Spark DataFrame."""
    return rows.num_rows if hasattr(rows, "num_rows") else rows.count()


def current_snapshot_id(session, table: str) -> int:
    # The newest snapshot that is (an ancestor of) the current one is the current one.
    return [s for s in history(session, table)["snapshots"] if s["is_current_ancestor"]][-1]["snapshot_id"]


def run(session, table: str) -> None:
    namespace = table.rsplit(".", 1)[0]
    session.sql(f"CREATE NAMESPACE IF NOT EXISTS {namespace}")
    session.sql(f"CREATE TABLE {table} (id BIGINT, event STRING) USING iceberg")
    for i in range(3):  # three snapshots of two rows each
        session.sql(f"INSERT INTO {table} VALUES ({2 * i + 1}, 'click'), ({2 * i + 2}, 'view')")

    first = history(session, table)["snapshots"][0]["snapshot_id"]
    print(f"current: {count(snapshot_at(session, table, snapshot_id=current_snapshot_id(session, table)))} rows")
    print(f"first snapshot: {count(snapshot_at(session, table, snapshot_id=first))} rows")
    rollback_to(session, table, first)
    print(f"after rollback: {count(snapshot_at(session, table, snapshot_id=current_snapshot_id(session, table)))} rows")


if __name__ == "__main__":
    import floe

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catalog", help="SQLite catalog (default $FLOE_CATALOG, else ./warehouse/catalog.db)")
    parser.add_argument("--warehouse", help="warehouse directory (default $FLOE_WAREHOUSE, else ./warehouse)")
    parser.add_argument("--table", default="lakehouse.examples.events", help="the table to create")
    args = parser.parse_args()
    with floe.connect(catalog=args.catalog, warehouse=args.warehouse) as conn:
        run(conn, args.table)
