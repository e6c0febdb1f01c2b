#!/usr/bin/env python3
"""Appends, tag creation and rollbacks from several `floe sql` processes race
`remove_orphan_files` from another, while stray files are planted under the table.

What floe guarantees (docs and src/floe/table/remove_orphan_files.h): a write's files are never
older than the moment its process started, and the files in use are collected after the
listing from a fresh load, so remove_orphan_files with `older_than` at or before the start of
the oldest write in flight never deletes a file a committed snapshot needs. Phase 1 runs it so,
each run's older_than being the start of the oldest writer process then running (less a
second); afterwards `floe verify` must find every reachable file, every snapshot must read,
every acknowledged append must be in a snapshot, and a last run must leave exactly the
reachable files. Phase 2 runs the same race with older_than an hour in the future, which
Iceberg documents as able to corrupt a table: it reports what `floe verify` finds and asserts
nothing about it.
Usage: orphan_race.py FLOE_BINARY
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone

APPENDERS = 2
APPENDS_EACH = 12
REF_CHANGES = 8
REMOVALS = 8
MARGIN_S = 1.0


class Table:
    def __init__(self, floe, tmp):
        self.floe = floe
        self.env = dict(os.environ, FLOE_CATALOG=f"{tmp}/catalog.db", FLOE_WAREHOUSE=f"{tmp}/wh")
        self.location = f"{tmp}/wh/db/t"
        self.lock = threading.Lock()
        self.in_flight = {}  # token -> start time (seconds) of a writer process running
        self.next_token = 0

    def run(self, *args):
        return subprocess.run([self.floe, *args], env=self.env, capture_output=True, text=True, timeout=600)

    def sql(self, statement):
        return self.run("sql", "--format", "csv", "-q", "-c", statement)

    def write(self, statement):
        """A statement that commits: registered as in flight from before its process starts."""
        with self.lock:
            token = self.next_token
            self.next_token += 1
            self.in_flight[token] = time.time()
        try:
            return self.sql(statement)
        finally:
            with self.lock:
                del self.in_flight[token]

    def safe_older_than(self):
        with self.lock:
            oldest = min(self.in_flight.values(), default=time.time())
        return min(oldest, time.time()) - MARGIN_S

    def rows(self, query, may_fail=False):
        """The query's rows; with `may_fail`, none when it fails with an error (a table the
        unsafe phase damaged may no longer load)."""
        r = self.sql(query)
        if may_fail and r.returncode != 0 and "Error:" in r.stderr:
            return []
        assert r.returncode == 0, (query, r.stderr)
        return [line.split(",") for line in r.stdout.split("\n")[1:] if line]

    def remove_orphans(self, older_than_s):
        ts = datetime.fromtimestamp(older_than_s, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        r = self.sql("SET spark.testing = true; "
                     f"CALL lakehouse.system.remove_orphan_files(table => 'db.t', older_than => TIMESTAMP '{ts}')")
        return r


def orphan_rows(result):
    """The rows of the CALL (the SET before it prints its own)."""
    lines = result.stdout.split("\n")
    start = lines.index("orphan_file_location") + 1
    return [line for line in lines[start:] if line]


def race(t, unsafe):
    setup = t.sql("CREATE NAMESPACE db; "
                  "CREATE TABLE db.t (id BIGINT, writer INT) USING iceberg "
                  "TBLPROPERTIES ('commit.retry.num-retries'='20', 'commit.retry.min-wait-ms'='10', "
                  "'commit.retry.max-wait-ms'='200'); "
                  "INSERT INTO db.t VALUES (0, -1)")
    assert setup.returncode == 0, setup.stderr
    planted = []
    stop = threading.Event()

    def appender(w):
        acked = []
        for i in range(APPENDS_EACH):
            row_id = (w + 1) * 1000 + i
            r = t.write(f"INSERT INTO db.t VALUES ({row_id}, {w})")
            if r.returncode == 0:
                acked.append(row_id)
            else:
                assert "Error:" in r.stderr, r.stderr
        return acked

    def ref_changer():
        done = 0
        for i in range(REF_CHANGES):
            r = t.write(f"ALTER TABLE db.t CREATE TAG tag_{i}")
            done += r.returncode == 0
            prev = t.rows("SELECT snapshot_id FROM db.t.history WHERE is_current_ancestor "
                          "ORDER BY made_current_at DESC LIMIT 1 OFFSET 1", may_fail=unsafe)
            if prev:
                r = t.write(f"CALL lakehouse.system.rollback_to_snapshot('db.t', {prev[0][0]})")
                done += r.returncode == 0
        return done

    def planter():
        n = 0
        while not stop.is_set():
            for sub in ("data", "metadata"):
                path = f"{t.location}/{sub}/stray-{n}.bin"
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write("stray")
                planted.append(path)
            n += 1
            time.sleep(0.3)

    def remover():
        results = []
        for _ in range(REMOVALS):
            older_than = time.time() + 3600 if unsafe else t.safe_older_than()
            r = t.remove_orphans(older_than)
            assert r.returncode == 0 or "Error:" in r.stderr, r.stderr
            results.append(r)
            time.sleep(0.2)
        return results

    plant_thread = threading.Thread(target=planter)
    plant_thread.start()
    try:
        with concurrent.futures.ThreadPoolExecutor(APPENDERS + 2) as pool:
            appends = [pool.submit(appender, w) for w in range(APPENDERS)]
            refs = pool.submit(ref_changer)
            removals = pool.submit(remover)
            acked = sorted(i for f in appends for i in f.result())
            ref_changes = refs.result()
            removal_results = removals.result()
    finally:  # a failed worker must fail the run, not leave the planter running forever
        stop.set()
        plant_thread.join()
    removed = sum(len(orphan_rows(r)) for r in removal_results if r.returncode == 0)
    failed_removals = [r.stderr.strip() for r in removal_results if r.returncode != 0]
    return acked, ref_changes, planted, removed, failed_removals


def check(t, acked, planted):
    """Every reachable file present, every snapshot reads, every acknowledged append is in one."""
    problems = []
    verify = t.run("verify", "db.t", "--json")
    if verify.returncode != 0:
        problems.append(f"floe verify exited {verify.returncode}: {verify.stdout}{verify.stderr}")
    seen = set()
    snapshots = t.sql("SELECT snapshot_id FROM db.t.snapshots")
    if snapshots.returncode != 0:  # only after the unsafe phase: its current metadata may be gone
        return problems + [f"the table does not load: {snapshots.stderr.strip()}"], verify
    for (snapshot_id,) in t.rows("SELECT snapshot_id FROM db.t.snapshots"):
        r = t.sql(f"SELECT id FROM db.t VERSION AS OF {snapshot_id}")
        if r.returncode != 0:
            problems.append(f"snapshot {snapshot_id} does not read: {r.stderr.strip()}")
            continue
        seen.update(int(x) for x in r.stdout.split()[1:])
    lost = sorted(set(acked) - seen)
    if lost:
        problems.append(f"acknowledged appends in no snapshot: {lost}")
    return problems, verify


def main():
    floe = os.path.realpath(sys.argv[1])

    with tempfile.TemporaryDirectory() as tmp:
        t = Table(floe, tmp)
        acked, ref_changes, planted, removed, failed = race(t, unsafe=False)
        assert not failed, failed
        assert len(acked) >= APPENDERS * APPENDS_EACH // 2, f"only {len(acked)} appends committed"
        problems, verify = check(t, acked, planted)
        assert not problems, problems
        report = json.loads(verify.stdout)
        assert report["ok"] and report["problems"] == [], report
        # Nothing in flight now: every planted file is an orphan, and only those remain to find.
        final = t.remove_orphans(time.time() + 3600)
        assert final.returncode == 0, final.stderr
        assert not [p for p in planted if os.path.exists(p)], "planted files left"
        problems, verify = check(t, acked, planted)
        assert not problems, problems
        again = t.remove_orphans(time.time() + 3600)
        assert again.returncode == 0 and orphan_rows(again) == [], again.stdout
        print(f"phase 1 (older_than before every write in flight): {len(acked)} appends, {ref_changes} ref "
              f"changes, {removed} orphans removed during the race, {len(planted)} planted; "
              f"verify: {report['checked']['total']} files present")

    with tempfile.TemporaryDirectory() as tmp:
        t = Table(floe, tmp)
        acked, ref_changes, planted, removed, failed = race(t, unsafe=True)
        problems, _ = check(t, acked, planted)
        print(f"phase 2 (older_than in the future): {len(acked)} appends, {removed} files removed; "
              f"{'no damage this time' if not problems else 'damage, as documented: ' + '; '.join(problems)[:2000]}")


if __name__ == "__main__":
    main()
