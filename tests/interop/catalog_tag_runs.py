"""Two runs of two tables written by floe, a catalog tag between them: what the Spark and
Trino suites read back at the tag (tests/interop/spark/test_spark_reads_floe.py,
tests/interop/trino/test_trino_interop.py)."""

from __future__ import annotations

import datetime as dt

# The rows each run writes, per table: (run, id).
RUNS = {"orders": lambda run: [(run, 10 * run + i) for i in (1, 2, 3)],
        "revenue": lambda run: [(run, 100 * run)]}


def write_two_runs_tagged_between(conn, ns: str) -> dict[str, int]:
    """Creates the tables in `ns` through the floe connection `conn`, writes run 1 (one
    transaction), CREATE CATALOG TAG run_1 IN NAMESPACE ns, then run 2. Asserts the tag's rows
    and its SHOW CATALOG TAGS row; returns each table's snapshot at the tag."""
    for table in RUNS:
        conn.sql(f"CREATE TABLE {ns}.{table} (run INT, id BIGINT) USING iceberg")

    def write(run):
        with conn.transaction():
            for table, rows in RUNS.items():
                values = ", ".join(f"({r}, {i})" for r, i in rows(run))
                conn.sql(f"INSERT INTO {ns}.{table} VALUES {values}")

    def main_snapshot(table):
        (row,) = conn.sql(f"SELECT snapshot_id FROM {ns}.{table}.refs WHERE name = 'main'").to_pylist()
        return row["snapshot_id"]

    write(1)
    run_1 = {table: main_snapshot(table) for table in RUNS}
    now = dt.datetime.now(dt.timezone.utc)
    before = now.replace(microsecond=now.microsecond // 1000 * 1000)  # created_at has milliseconds
    tagged = conn.sql(f"CREATE CATALOG TAG run_1 IN NAMESPACE {ns}").to_pylist()
    after = dt.datetime.now(dt.timezone.utc)
    assert tagged == [{"table": f"{ns}.{table}", "snapshot_id": run_1[table], "action": "tagged"}
                      for table in sorted(RUNS)]
    write(2)
    shown = [r for r in conn.sql("SHOW CATALOG TAGS").to_pylist() if r["namespace"] == ns]
    assert len(shown) == 1, shown
    created = shown[0].pop("created_at")
    assert before <= created <= after, (before, created, after)
    assert shown == [{"name": "run_1", "namespace": ns, "expires_at": None, "tables": 2, "skipped_tables": 0}]
    return run_1
