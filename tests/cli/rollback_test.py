"""`floe rollback`, `floe set-current` and `floe incident`: the preview of what every reader
will see change, the question on a terminal answered no (nothing changes) and yes (the
current snapshot moves, as the history shows), the refusal on a pipe, --yes, the statement
printed, Iceberg's errors, and the incident candidates (--json shape, --pick, and picking on
a terminal). Usage: rollback_test.py FLOE_BINARY"""

import json
import os
import re
import sys

from floe_cli import Checks, Floe

floe = Floe(sys.argv[1])
c = Checks()
T = "db.t"

floe.sql("CREATE NAMESPACE db", f"CREATE TABLE {T} (id BIGINT, v STRING) USING iceberg")
floe.sql(f"INSERT INTO {T} VALUES (1, 'a'), (2, 'b')")
s1 = floe.current(T)
floe.sql(f"INSERT INTO {T} VALUES (3, 'c')")
s2 = floe.current(T)
floe.sql(f"DELETE FROM {T} WHERE id = 1")
s3 = floe.current(T)

# The preview: current and target, records and files, the diff from current to target.
r = floe.run("rollback", T, "--to-snapshot", s1, "--key", "id")
preview = r.stdout.splitlines()
c.equal(preview[0], "Rolling back lakehouse.db.t changes what every reader of it sees:", "preview heading")
c.check(re.fullmatch(rf"  current: snapshot {s3}, committed \S+ \S+ UTC, overwrite", preview[1]) is not None,
        "preview current line", preview[1])
c.check(re.fullmatch(r"           2 records in 2 data files; made by .+", preview[2]) is not None,
        "preview current totals", preview[2])
c.check(re.fullmatch(rf"  target:  snapshot {s1}, committed \S+ \S+ UTC, append", preview[3]) is not None,
        "preview target line", preview[3])
c.check(re.fullmatch(r"           2 records in 1 data file; made by .+", preview[4]) is not None,
        "preview target totals", preview[4])
c.equal(preview[5:], ["  change:  1 row added, 1 removed, 0 changed; 0 unchanged data files skipped"], "preview change")

# On a pipe without --yes: refused, even with a "y" waiting on the pipe.
refusal = "Error: Not changing lakehouse.db.t without confirmation: standard input is not a terminal (pass --yes " \
          "to confirm)\n"
c.equal((r.returncode, r.stderr), (1, refusal), "refusal on /dev/null")
r = floe.run("rollback", T, "--to-snapshot", s1, input="y\n")
c.equal((r.returncode, r.stderr), (1, refusal), "refusal on a pipe")
c.equal(floe.current(T), s3, "nothing changed after the refusals")

# On a terminal: "n" changes nothing, "y" rolls back.
question = f"Roll back lakehouse.db.t from {s3} to {s1}? [y/N] "
status, shown = floe.in_terminal("rollback", T, "--to-snapshot", s1, replies=[(question, "n")])
c.equal(status, 1, f"answer n: exit status ({shown})")
c.check(f"Cancelled: lakehouse.db.t is unchanged and still reads snapshot {s3}" in shown, "answer n message", shown)
c.check("SQL:" not in shown, "answer n runs no statement", shown)
c.equal(floe.current(T), s3, "answer n: current snapshot unchanged")
status, shown = floe.in_terminal("rollback", T, "--to-snapshot", s1, replies=[(question, "y")])
c.equal(status, 0, f"answer y: exit status ({shown})")
c.check(f"SQL: CALL lakehouse.system.rollback_to_snapshot('db.t', {s1})\n" in shown, "answer y prints the SQL", shown)
c.check(f"Rolled back lakehouse.db.t from {s3} to {s1}.\n" in shown, "answer y report", shown)
c.equal(floe.last_history_entry(T), s1, "answer y: the history's newest entry is the target")
c.equal(floe.current(T), s1, "answer y: current snapshot")

# Iceberg's rule: rollback only to an ancestor (s3 no longer is one); set-current takes any.
r = floe.run("rollback", T, "--to-snapshot", s3, "--yes")
c.equal((r.returncode, r.stderr, r.stdout),
        (1, f"Error: Cannot roll back to snapshot, not an ancestor of the current state: {s3}\n", ""),
        "rollback to a non-ancestor")
r = floe.run("rollback", T, "--to-snapshot", 42, "--yes")
c.equal((r.returncode, r.stderr), (1, "Error: Cannot roll back to unknown snapshot id: 42\n"), "unknown snapshot")
r = floe.run("rollback", T, "--to-snapshot", s1, "--to-timestamp", "2025-01-01", "--yes")
c.equal((r.returncode, r.stderr), (1, "Error: Give exactly one of --to-snapshot and --to-timestamp\n"), "two targets")
r = floe.run("set-current", T, "--snapshot-id", s3, "--yes")
c.equal(r.returncode, 0, f"set-current --yes: {r.stderr}")
c.check(r.stdout.startswith("Setting the current snapshot of lakehouse.db.t changes what every reader of it sees:"),
        "set-current preview", r.stdout)
c.check(f"SQL: CALL lakehouse.system.set_current_snapshot(table => 'db.t', snapshot_id => {s3})\n" in r.stdout,
        "set-current SQL", r.stdout)
c.equal(floe.last_history_entry(T), s3, "set-current moved main")

# --to-timestamp: the newest ancestor committed strictly before the instant.
at = floe.commit_time(T, s3)
r = floe.run("rollback", T, "--to-timestamp", at, "--yes")
c.equal(r.returncode, 0, f"rollback --to-timestamp: {r.stderr}")
c.check(f"SQL: CALL lakehouse.system.rollback_to_timestamp('db.t', TIMESTAMP '{at}+00:00')\n" in r.stdout,
        "rollback_to_timestamp SQL", r.stdout)
c.equal(floe.current(T), s2, "rolled back to the snapshot before")

# set-current --ref; the same snapshot again changes nothing.
floe.sql(f"ALTER TABLE {T} CREATE TAG good AS OF VERSION {s1}")
r = floe.run("set-current", T, "--ref", "good", "--yes")
c.check(r.returncode == 0 and "ref => 'good')" in r.stdout, "set-current --ref", r.stdout + r.stderr)
c.equal(floe.current(T), s1, "set-current --ref moved main")
r = floe.run("set-current", T, "--ref", "good")
c.equal((r.returncode, r.stdout), (0, f"lakehouse.db.t already reads snapshot {s1}; nothing to change.\n"),
        "nothing to change")
r = floe.run("set-current", T, "--ref", "bad", "--yes")
c.equal((r.returncode, r.stderr), (1, "Error: Cannot find matching snapshot ID for ref bad\n"), "unknown ref")

# ---- incident ----
I = "db.i"
floe.sql(f"CREATE TABLE {I} (id BIGINT, v STRING) USING iceberg")
floe.sql(f"INSERT INTO {I} VALUES (1, 'a'), (2, 'b')")
i1 = floe.current(I)
floe.sql(f"INSERT INTO {I} VALUES (3, 'c')")
i2 = floe.current(I)
floe.sql(f"UPDATE {I} SET v = 'BAD' WHERE id = 2")  # the bad write
i3 = floe.current(I)
around = floe.commit_time(I, i3)

r = floe.run("incident", I, "--around", around, "--window", "1h", "--key", "id", "--json")
c.equal(r.returncode, 0, f"incident --json: {r.stderr}")
inc = json.loads(r.stdout)
c.equal(list(inc), ["table", "around", "window_ms", "from", "to", "current_snapshot_id", "candidates"],
        "incident --json keys")
c.equal((inc["table"], inc["window_ms"], inc["current_snapshot_id"], inc["around"]),
        ("lakehouse.db.i", 3600000, i3, around.replace(" ", "T") + ("" if "." in around else ".000") + "Z"),
        "incident header")
cand = inc["candidates"]
c.equal([x["snapshot_id"] for x in cand], [i3, i2, i1], "candidates newest first")
c.equal([x["number"] for x in cand], [1, 2, 3], "candidates numbered")
c.equal(list(cand[0]), ["number", "snapshot_id", "committed_at", "operation", "parent_id", "is_current",
                        "is_current_ancestor", "user", "client", "statement", "engine", "rollback_diff",
                        "rollback_diff_error"],
        "candidate keys")
c.equal([(x["operation"], x["parent_id"], x["is_current"], x["is_current_ancestor"]) for x in cand],
        [("overwrite", i2, True, True), ("append", i1, False, True), ("append", None, False, True)],
        "candidate lineage")
c.equal([x["rollback_diff"] for x in cand],
        [{"added": 0, "removed": 0, "changed": 0, "unchanged_files_skipped": 2},
         {"added": 0, "removed": 0, "changed": 1, "unchanged_files_skipped": 1},
         {"added": 0, "removed": 1, "changed": 1, "unchanged_files_skipped": 0}], "what rolling back to each changes")
r = floe.run("incident", I, "--around", "2001-01-01 00:00:00", "--json")
c.equal(json.loads(r.stdout)["candidates"] if r.returncode == 0 else r.stderr, [], "no candidates")

r = floe.run("incident", I, "--around", around)
c.equal((r.returncode, r.stderr),
        (1, "Error: Pick the snapshot to roll back to with --pick N: standard input is not a terminal\n"),
        "incident on a pipe without --pick")
c.check(f"  [2] snapshot {i2}, committed " in r.stdout, "incident lists the candidates", r.stdout)
c.equal(floe.current(I), i3, "incident without a pick changes nothing")

r = floe.run("incident", I, "--around", around, "--pick", 2, "--yes")
c.equal(r.returncode, 0, f"incident --pick 2 --yes: {r.stderr}")
c.check(f"SQL: CALL lakehouse.system.rollback_to_snapshot('db.i', {i2})\n" in r.stdout, "incident SQL", r.stdout)
c.equal(floe.current(I), i2, "incident rolled back to the pick")

# On a terminal: pick the bad write again (now off the current lineage: set_current), then confirm.
status, shown = floe.in_terminal("incident", I, "--around", around,
                                 replies=[("Roll back to which snapshot? [1-3, Enter for none] ", "1"),
                                          (f"Set the current snapshot of lakehouse.db.i from {i2} to {i3}? [y/N] ", "y")])
c.equal(status, 0, f"incident on a terminal ({shown})")
c.check(f"(not an ancestor of the current snapshot)" in shown, "non-ancestor marked", shown)
c.check(f"SQL: CALL lakehouse.system.set_current_snapshot(table => 'db.i', snapshot_id => {i3})\n" in shown,
        "incident set_current SQL", shown)
c.equal(floe.last_history_entry(I), i3, "incident on a terminal moved main")

c.equal([x["rollback_diff_error"] for x in cand], [None, None, None], "no diff failed")

# A data file gone behind the table's back: the preview cannot diff, the rollback still runs.
R = "db.r"
floe.sql(f"CREATE TABLE {R} (id BIGINT) USING iceberg", f"INSERT INTO {R} VALUES (1)")
r1 = floe.current(R)
first = {row[0] for row in floe.rows(f"SELECT file_path FROM {R}.files")}
floe.sql(f"INSERT INTO {R} VALUES (2)")
gone = [row for row in floe.rows(f"SELECT file_path FROM {R}.files") if row[0] not in first]
c.equal(len(gone), 1, "the second insert's file")
if gone:
    os.remove(gone[0][0])
    r = floe.run("rollback", R, "--to-snapshot", r1, "--yes")
    c.equal(r.returncode, 0, f"rollback with a file gone: {r.stderr}")
    c.check(re.search(r"^  change:  not known, the diff failed: .*" + re.escape(gone[0][0]), r.stdout, re.M)
            is not None, "the preview says the diff failed", r.stdout)
    c.equal(floe.current(R), r1, "rolled back anyway")

floe.close()
c.done("rollback")
