"""A multi-table COMMIT killed (SIGKILL) at each of its steps: after the new metadata files are
written, inside the catalog database's transaction (after every pointer moved, before it
commits), and after it. Each time, either all three tables show the run or none does, `floe
verify` finds every file each table points to, and a later run commits normally. On the
embedded SQLite catalog and on PostgreSQL.
Usage: transaction_crash_test.py FLOE_BINARY"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from floe_cli import Checks, Floe  # noqa: E402
from postgres_server import PostgresServer  # noqa: E402

TABLES = ["db.orders", "db.items", "db.revenue"]
POINTS = ["transaction-after-files", "transaction-in-catalog", "transaction-after-catalog"]
c = Checks()


def run_script(floe, run, crash_point=None):
    """One run: BEGIN, an INSERT of `run` into each table, COMMIT, in one floe sql."""
    env = dict(floe.env)
    if crash_point:
        env["FLOE_CRASH_POINT"] = crash_point
    script = "BEGIN;\n" + "".join(f"INSERT INTO {t} VALUES ({run}, 'run {run}');\n" for t in TABLES) + "COMMIT;\n"
    return subprocess.run([floe.binary, "sql", "-q"], input=script, env=env, text=True,
                          capture_output=True, timeout=120)


def runs_of(floe):
    """{table: sorted run ids}."""
    return {t: sorted(int(r[0]) for r in floe.rows(f"SELECT run FROM {t}")) for t in TABLES}


def check_lab(floe, lab):
    floe.sql("CREATE NAMESPACE db", *[f"CREATE TABLE {t} (run INT, note STRING) USING iceberg" for t in TABLES])
    r = run_script(floe, 1)
    c.equal((r.returncode, r.stderr), (0, ""), f"{lab}: a run commits")
    expected = [1]
    for n, point in enumerate(POINTS, start=2):
        r = run_script(floe, n, point)
        c.equal(r.returncode, -9, f"{lab} {point}: killed ({r.stderr})")
        if point == "transaction-after-catalog":
            expected = expected + [n]
        seen = runs_of(floe)
        c.equal(seen, {t: expected for t in TABLES}, f"{lab} {point}: all tables or none show run {n}")
        for t in TABLES:
            v = floe.run("verify", t)
            c.equal((v.returncode, v.stderr), (0, ""), f"{lab} {point}: verify {t} ({v.stdout})")
        # The audit log has one row per table for a committed run, sharing its transaction.
        rows = floe.rows("SELECT count(*), count(DISTINCT detail) FROM (" + " UNION ALL ".join(
            f"SELECT detail FROM {t}.audit_log WHERE detail LIKE 'transaction %'" for t in TABLES) + ")")
        c.equal(rows, [[str(3 * len(expected)), str(len(expected))]], f"{lab} {point}: audit rows")
    r = run_script(floe, 9)
    c.equal((r.returncode, r.stderr), (0, ""), f"{lab}: a run after the crashes commits")
    c.equal(runs_of(floe), {t: expected + [9] for t in TABLES}, f"{lab}: the last run landed everywhere")


sqlite_lab = Floe(sys.argv[1])
check_lab(sqlite_lab, "sqlite")
sqlite_lab.close()

with tempfile.TemporaryDirectory(prefix="floe-txn-pg-") as base, \
        PostgresServer(Path(base) / "pg", fsync=False) as pg:
    pg_lab = Floe(sys.argv[1])
    pg_lab.env["FLOE_CATALOG"] = pg.create_database("lake")
    check_lab(pg_lab, "postgresql")
    pg_lab.close()

c.done("transaction_crash")
