#!/usr/bin/env python3
"""A MERGE INTO and an append from another process, the append committing while the MERGE
runs, per write.merge.mode and write.merge.isolation-level, each through `floe sql`.

What Iceberg specifies: under `serializable` a MERGE fails when a file appended meanwhile
can hold rows its condition matches (the conflict names the file) and commits nothing;
appends to partitions its condition rules out do not conflict. Under `snapshot` the MERGE
commits on top of the append, which it did not see. The appended row is never lost.
Usage: merge_isolation.py FLOE_BINARY
"""
import os
import subprocess
import sys
import tempfile
import time

CONFLICT = "Found conflicting files that can contain records matching"
MAX_RANGE = 1 << 30  # the most rows range() generates


def slow_sum(n, copies):
    """One row, column n: sums over `copies` ranges of n rows, read one after another."""
    parts = " UNION ALL ".join([f"SELECT sum(id % 7) AS s FROM range({n})"] * copies)
    return f"SELECT sum(s) AS n FROM ({parts})"


def main():
    floe = os.path.realpath(sys.argv[1])
    for mode in ("copy-on-write", "merge-on-read"):
        for isolation, append_day, conflicts in (
            ("serializable", "2025-06-15", True),
            ("serializable", "2025-06-14", False),
            ("snapshot", "2025-06-15", False),
        ):
            # On a loaded machine the append can land after a MERGE ends; that run proves
            # nothing, so the case runs again on a fresh table with a source twice as slow.
            for stretch in (2, 4, 8, 16):
                if run_case(floe, mode, isolation, append_day, conflicts, stretch):
                    break
                print(f"again: {mode}, {isolation}: the MERGE ended before the append")
            else:
                raise AssertionError("the MERGE always ended before the append: the source was not slow enough")
            print(f"ok: {mode}, {isolation}, append to {append_day}")


def run_case(floe, mode, isolation, append_day, conflicts, stretch):
    """False when the MERGE ended before the append committed: the case did not happen."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, FLOE_CATALOG=f"{tmp}/catalog.db", FLOE_WAREHOUSE=f"{tmp}/wh")

        def sql(statement):
            return subprocess.run([floe, "sql", "--format", "csv", "-q", "-c", statement], env=env,
                                  capture_output=True, text=True, timeout=900)

        def rows(query):
            r = sql(query)
            assert r.returncode == 0, r.stderr
            return [tuple(line.split(",")) for line in r.stdout.split("\n")[1:] if line]

        setup = sql(
            "CREATE NAMESPACE db; "
            "CREATE TABLE db.t (id BIGINT, day DATE, v STRING) USING iceberg PARTITIONED BY (day) "
            f"TBLPROPERTIES ('write.merge.mode' = '{mode}', 'write.merge.isolation-level' = '{isolation}'); "
            "INSERT INTO db.t VALUES (1, DATE '2025-06-15', 'a'), (2, DATE '2025-06-15', 'b'), "
            "(3, DATE '2025-06-14', 'c')")
        assert setup.returncode == 0, setup.stderr

        # A source slow enough that the append lands while the MERGE runs: its rows wait for
        # sums over ranges sized to take over a second on this machine. One range stops
        # growing at the most rows floe generates; past that the sum adds more ranges.
        n, copies = 20_000_000, 1
        while True:
            started = time.monotonic()
            r = sql(slow_sum(n, copies))
            took = time.monotonic() - started
            assert r.returncode == 0, r.stderr
            if took >= 1.5:
                break
            if n < MAX_RANGE:
                n = min(n * 2, MAX_RANGE)
            else:
                copies *= 2
        source = (f"(SELECT id, 'merged' AS v FROM (VALUES (1), (4)) AS c(id) "
                  f"CROSS JOIN ({slow_sum(n, copies * stretch)}) WHERE n >= 0)")
        merge = (f"MERGE INTO db.t t USING {source} s ON t.id = s.id AND t.day = DATE '2025-06-15' "
                 "WHEN MATCHED THEN UPDATE SET v = s.v")
        before = rows("SELECT snapshot_id FROM db.t.snapshots")
        assert len(before) == 1

        merging = subprocess.Popen([floe, "sql", "--format", "csv", "-q", "-c", merge], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(took * 0.4)
        appended = sql(f"INSERT INTO db.t VALUES (1, DATE '{append_day}', 'appended')")
        assert appended.returncode == 0, appended.stderr
        if merging.poll() is not None:
            merging.communicate()
            return False
        _, merge_err = merging.communicate(timeout=900)

        append_snapshot, append_parent = rows(
            "SELECT snapshot_id, parent_id FROM db.t.snapshots WHERE operation = 'append' "
            "ORDER BY committed_at DESC LIMIT 1")[0]
        assert (append_parent,) == before[0], "the append did not commit on the table the MERGE read"
        appended_file = rows(f"SELECT file_path FROM db.t.files VERSION AS OF {append_snapshot} "
                             f"WHERE partition.day = DATE '{append_day}' AND record_count = 1")
        got = sorted(rows("SELECT id, day, v FROM db.t"))

        if conflicts:
            assert merging.returncode != 0, "the MERGE committed over a conflicting append"
            assert CONFLICT in merge_err, merge_err
            assert appended_file[0][0] in merge_err, merge_err
            current = rows("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'")
            assert current == [(append_snapshot,)], "the failed MERGE changed the table"
            assert got == sorted([("1", "2025-06-15", "a"), ("2", "2025-06-15", "b"),
                                  ("3", "2025-06-14", "c"), ("1", append_day, "appended")]), got
            return True
        assert merging.returncode == 0, merge_err
        merge_snapshot, merge_parent, operation = rows(
            "SELECT snapshot_id, parent_id, operation FROM db.t.snapshots ORDER BY committed_at DESC LIMIT 1")[0]
        assert merge_parent == append_snapshot, "the MERGE did not commit on top of the append"
        assert operation == "overwrite", operation
        # The MERGE did not see the appended row: it keeps its value even where ON matches it.
        assert got == sorted([("1", "2025-06-15", "merged"), ("2", "2025-06-15", "b"),
                              ("3", "2025-06-14", "c"), ("1", append_day, "appended")]), got
    return True


if __name__ == "__main__":
    main()
