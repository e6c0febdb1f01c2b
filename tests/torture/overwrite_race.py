#!/usr/bin/env python3
"""Four processes append single rows while a fifth rewrites the table with
`INSERT OVERWRITE db.t SELECT * FROM db.t`, each through the `floe sql` command.

Every append that exited 0 must be in the final table exactly once; every overwrite either
commits on top of the appends it read or fails with Iceberg's conflict message.
Usage: overwrite_race.py FLOE_BINARY
"""
import concurrent.futures
import os
import subprocess
import sys
import tempfile

APPENDERS = 4
APPENDS_EACH = 20
OVERWRITES = 10
CONFLICT = "Found conflicting files that can contain records matching true"


def main():
    floe = os.path.realpath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, FLOE_CATALOG=f"{tmp}/catalog.db", FLOE_WAREHOUSE=f"{tmp}/wh")

        def sql(statement):
            return subprocess.run([floe, "sql", "--format", "csv", "-c", statement], env=env,
                                  capture_output=True, text=True, timeout=600)

        setup = sql("CREATE NAMESPACE db; "
                    "CREATE TABLE db.t (id BIGINT, writer INT) USING iceberg "
                    "TBLPROPERTIES ('commit.retry.num-retries'='20', 'commit.retry.min-wait-ms'='10', "
                    "'commit.retry.max-wait-ms'='200'); "
                    "INSERT INTO db.t VALUES (0, -1)")
        assert setup.returncode == 0, setup.stderr

        def appender(w):
            acked = []
            for i in range(APPENDS_EACH):
                row_id = (w + 1) * 1000 + i
                r = sql(f"INSERT INTO db.t VALUES ({row_id}, {w})")
                if r.returncode == 0:
                    acked.append(row_id)
                else:
                    assert "Error:" in r.stderr, r.stderr
            return acked

        def overwriter():
            outcomes = []
            for _ in range(OVERWRITES):
                r = sql("INSERT OVERWRITE db.t SELECT * FROM db.t")
                if r.returncode == 0:
                    outcomes.append("ok")
                else:
                    assert CONFLICT in r.stderr or "gave up after" in r.stderr, r.stderr
                    outcomes.append("conflict")
            return outcomes

        with concurrent.futures.ThreadPoolExecutor(APPENDERS + 1) as pool:
            appends = [pool.submit(appender, w) for w in range(APPENDERS)]
            overwrites = pool.submit(overwriter)
            acked = sorted(i for f in appends for i in f.result())
            outcomes = overwrites.result()

        final = sql("SELECT id FROM db.t ORDER BY id")
        assert final.returncode == 0, final.stderr
        ids = [int(line) for line in final.stdout.split()[1:]]
        missing = sorted(set(acked) - set(ids))
        assert not missing, f"acknowledged appends lost: {missing}"
        assert len(ids) == len(set(ids)), "rows duplicated"
        assert set(ids) <= set(acked) | {0}, f"unexpected rows: {sorted(set(ids) - set(acked) - {0})}"
        assert 0 in ids
        assert len(acked) >= APPENDERS * APPENDS_EACH // 2, f"only {len(acked)} appends committed"

        snapshots = sql("SELECT operation, count(*) FROM db.t.snapshots GROUP BY operation ORDER BY operation")
        assert snapshots.returncode == 0, snapshots.stderr
        counts = dict(line.split(",") for line in snapshots.stdout.split()[1:])
        # One append per acknowledged INSERT plus the first row; one overwrite per success.
        assert int(counts.get("append", 0)) == len(acked) + 1, (counts, len(acked))
        assert int(counts.get("overwrite", 0)) == outcomes.count("ok"), (counts, outcomes)
        print(f"{len(acked)} of {APPENDERS * APPENDS_EACH} appends acknowledged, all present; "
              f"overwrites: {outcomes.count('ok')} committed, {outcomes.count('conflict')} refused")


if __name__ == "__main__":
    main()
