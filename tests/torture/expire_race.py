#!/usr/bin/env python3
"""expire_snapshots (and remove_orphan_files) from one `floe sql` process while others append,
create tags and roll back.

Expiry deletes only files that no snapshot it keeps, nor any commit made since, reaches; a write
in flight builds on the current snapshot, which expiry always keeps, and a rollback or
cherry-pick to an expired snapshot fails. So after the race `floe verify` must find every file
the metadata reaches and every kept snapshot and tag must read. Phase 1 has no rollbacks:
every acknowledged append must then be in the current snapshot. Phase 2 adds rollbacks, which
may legitimately drop appends from main (and expiry may then drop the snapshots holding them):
there only files and reads are checked.
Usage: expire_race.py FLOE_BINARY
"""
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

APPENDERS = 2
APPENDS_EACH = 12
EXPIRIES = 8
TAGS = 6


class Table:
    def __init__(self, floe, tmp):
        self.floe = floe
        self.env = dict(os.environ, FLOE_CATALOG=f"{tmp}/catalog.db", FLOE_WAREHOUSE=f"{tmp}/wh")

    def run(self, *args):
        return subprocess.run([self.floe, *args], env=self.env, capture_output=True, text=True, timeout=600)

    def sql(self, statement):
        return self.run("sql", "--format", "csv", "-q", "-c", statement)

    def rows(self, query):
        r = self.sql(query)
        assert r.returncode == 0, (query, r.stderr)
        return [line.split(",") for line in r.stdout.split("\n")[1:] if line]


def now_literal(offset_s=0.0):
    return datetime.fromtimestamp(time.time() + offset_s, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def race(t, rollbacks):
    setup = t.sql("CREATE NAMESPACE db; "
                  "CREATE TABLE db.t (id BIGINT, writer INT) USING iceberg "
                  "TBLPROPERTIES ('commit.retry.num-retries'='30', 'commit.retry.min-wait-ms'='10', "
                  "'commit.retry.max-wait-ms'='200'); "
                  "INSERT INTO db.t VALUES (0, -1)")
    assert setup.returncode == 0, setup.stderr
    started = time.time()

    def appender(w):
        acked = []
        for i in range(APPENDS_EACH):
            row_id = (w + 1) * 1000 + i
            r = t.sql(f"INSERT INTO db.t VALUES ({row_id}, {w})")
            if r.returncode == 0:
                acked.append(row_id)
            else:
                assert "Error:" in r.stderr, r.stderr
        return acked

    def tagger():
        done = 0
        for i in range(TAGS):
            r = t.sql(f"ALTER TABLE db.t CREATE TAG keep_{i} RETAIN 1 DAYS")
            done += r.returncode == 0
            if rollbacks:
                prev = t.rows("SELECT snapshot_id FROM db.t.history WHERE is_current_ancestor "
                              "ORDER BY made_current_at DESC LIMIT 1 OFFSET 1")
                if prev:
                    r = t.sql(f"CALL lakehouse.system.rollback_to_snapshot('db.t', {prev[0][0]})")
                    done += r.returncode == 0
            time.sleep(0.2)
        return done

    def expirer():
        expired = 0
        for i in range(EXPIRIES):
            r = t.sql(f"CALL lakehouse.system.expire_snapshots(table => 'db.t', "
                      f"older_than => TIMESTAMP '{now_literal()}', retain_last => 1)")
            assert r.returncode == 0 or "Error:" in r.stderr, r.stderr
            if r.returncode == 0:
                counts = r.stdout.split("\n")[1].split(",")
                expired += int(counts[4])  # manifest lists: one per expired snapshot
            if i % 2 == 1:
                # Orphan removal as the docs say is safe: older than every write in flight.
                r = t.sql("SET spark.testing = true; CALL lakehouse.system.remove_orphan_files("
                          f"table => 'db.t', older_than => TIMESTAMP '{now_literal(started - time.time() - 1)}')")
                assert r.returncode == 0, r.stderr
            time.sleep(0.3)
        return expired

    with concurrent.futures.ThreadPoolExecutor(APPENDERS + 2) as pool:
        appends = [pool.submit(appender, w) for w in range(APPENDERS)]
        tags = pool.submit(tagger)
        expiries = pool.submit(expirer)
        acked = sorted(i for f in appends for i in f.result())
        return acked, tags.result(), expiries.result()


def check(t, acked, rollbacks):
    problems = []
    verify = t.run("verify", "db.t")
    if verify.returncode != 0:
        problems.append(f"floe verify exited {verify.returncode}: {verify.stdout}{verify.stderr}")
    for (snapshot_id,) in t.rows("SELECT snapshot_id FROM db.t.snapshots"):
        r = t.sql(f"SELECT count(*) FROM db.t VERSION AS OF {snapshot_id}")
        if r.returncode != 0:
            problems.append(f"snapshot {snapshot_id} does not read: {r.stderr.strip()}")
    for name, snapshot_id in t.rows("SELECT name, snapshot_id FROM db.t.refs WHERE type = 'TAG'"):
        r = t.sql(f"SELECT count(*) FROM db.t VERSION AS OF '{name}'")
        if r.returncode != 0:
            problems.append(f"tag {name} ({snapshot_id}) does not read: {r.stderr.strip()}")
    if not rollbacks:
        current = {int(row[0]) for row in t.rows("SELECT id FROM db.t")}
        lost = sorted(set(acked) - current)
        if lost:
            problems.append(f"acknowledged appends missing from the current snapshot: {lost}")
    return problems


def main():
    floe = os.path.realpath(sys.argv[1])
    for rollbacks in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            t = Table(floe, tmp)
            acked, ref_changes, expired = race(t, rollbacks)
            assert len(acked) >= APPENDERS * APPENDS_EACH // 2, f"only {len(acked)} appends committed"
            problems = check(t, acked, rollbacks)
            assert not problems, problems
            kept = len(t.rows("SELECT snapshot_id FROM db.t.snapshots"))
            tags = t.rows("SELECT name, snapshot_id FROM db.t.refs WHERE type = 'TAG'")
            # Tags RETAIN a day: every tag created survives every expiry, with its snapshot.
            assert len(tags) == TAGS, tags
            assert kept >= len({s for _, s in tags}), (kept, tags)
            print(f"{'with' if rollbacks else 'without'} rollbacks: {len(acked)} appends, {ref_changes} ref "
                  f"changes, {expired} snapshots expired during the race, {kept} kept ({len(tags)} tags); verify and reads clean")
    print("expire race: all passed")


if __name__ == "__main__":
    main()
