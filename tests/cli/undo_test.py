"""`floe undo`: the table's last change, whatever it was (a schema change, a property change, a
bad rollback, a moved tag, a restore), is previewed, confirmed and put back; on a pipe it is
refused without --yes, "n" on a terminal changes nothing, and a second undo undoes the first.
Usage: undo_test.py FLOE_BINARY"""

import re
import sqlite3
import sys

from floe_cli import Checks, Floe

floe = Floe(sys.argv[1])
c = Checks()
T = "db.t"


def last_entry():
    """(seq, kind, previous metadata location) of the table's newest audit-log row."""
    seq, kind, previous = floe.rows(f"SELECT seq, kind, previous_metadata_location FROM {T}.audit_log "
                                    f"ORDER BY seq DESC LIMIT 1")[0]
    return int(seq), kind, previous


def columns():
    r = floe.run("sql", "--format", "csv", "-c", f"SELECT * FROM {T} LIMIT 0")
    return r.stdout.strip().split(",")


def undo_yes(what):
    r = floe.run("undo", T, "--yes")
    c.equal(r.returncode, 0, f"{what}: exit status ({r.stderr})")
    return r.stdout.splitlines()


floe.sql("CREATE NAMESPACE db", f"CREATE TABLE {T} (id BIGINT, v STRING) USING iceberg")

# Only the creation: nothing before it to go back to.
seq, _, _ = last_entry()
r = floe.run("undo", T, "--yes")
c.equal((r.returncode, r.stderr),
        (1, f"Error: Cannot undo the creation of lakehouse.db.t (audit log entry {seq}): there is no state "
            f"before it; DROP TABLE removes the table\n"), "undo of the creation")

floe.sql(f"INSERT INTO {T} VALUES (1, 'a')")
s1 = floe.current(T)
floe.sql(f"INSERT INTO {T} VALUES (2, 'b')")
s2 = floe.current(T)

# A schema change, undone.
floe.sql(f"ALTER TABLE {T} ADD COLUMN x INT")
c.equal(columns(), ["id", "v", "x"], "the column was added")
seq, kind, previous = last_entry()
c.equal(kind, "schema", "the change is a schema change")

# On a pipe without --yes: refused, nothing changes.
r = floe.run("undo", T, input="y\n")
c.equal((r.returncode, r.stderr),
        (1, "Error: Not changing lakehouse.db.t without confirmation: standard input is not a terminal "
            "(pass --yes to confirm)\n"), "refusal on a pipe")
c.equal(r.stdout.splitlines()[0], "Undoing the last change of lakehouse.db.t:", "the preview comes first")
c.equal(columns(), ["id", "v", "x"], "nothing changed after the refusal")

# On a terminal: "n" changes nothing.
question = f"Undo audit log entry {seq} of lakehouse.db.t? [y/N] "
status, shown = floe.in_terminal("undo", T, replies=[(question, "n")])
c.equal(status, 1, f"answer n: exit status ({shown})")
c.check(f"Cancelled: lakehouse.db.t is unchanged and audit log entry {seq} stands" in shown, "answer n", shown)
c.equal(columns(), ["id", "v", "x"], "answer n: nothing changed")

out = undo_yes("schema undo")
c.equal(out[0], "Undoing the last change of lakehouse.db.t:", "heading")
c.check(re.fullmatch(rf"  change:   audit log entry {seq}, \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{{3}} UTC, schema by .+ "
                     rf"\(floe sql\)", out[1]) is not None, "the change line", out[1])
c.equal(out[2], f"            ALTER TABLE {T} ADD COLUMN x INT", "the statement of the change")
c.equal(out[3], f"  restores: {previous}", "the metadata file restored")
c.equal(out[4], "  schema: columns (id, v, x) -> (id, v)", "what changes")
c.equal(out[5], f"SQL: CALL lakehouse.system.restore_table(table => '{T}', metadata_file => '{previous}')",
        "the statement run")
c.equal(out[6], f"Undid audit log entry {seq} of lakehouse.db.t.", "the report")
c.equal(columns(), ["id", "v"], "the column is gone again")
c.equal(floe.rows(f"SELECT * FROM {T} ORDER BY id"), [["1", "a"], ["2", "b"]], "the rows stay")
c.equal(last_entry()[1], "restore", "the undo is itself in the log")

# Undoing the undo brings the column back.
out = undo_yes("undo of the undo")
c.equal(out[4], "  schema: columns (id, v) -> (id, v, x)", "the undo of the undo restores the column")
c.equal(columns(), ["id", "v", "x"], "the column is back")

# A bad rollback, undone.
floe.sql(f"CALL lakehouse.system.rollback_to_snapshot('{T}', {s1})")
out = undo_yes("rollback undo")
c.equal(out[4], f"  current snapshot: {s1} -> {s2}", "a rollback undone moves the current snapshot")
c.equal(floe.current(T), s2, "the rollback is undone")

# A property change and a tag replacement, undone.
floe.sql(f"ALTER TABLE {T} SET TBLPROPERTIES ('owner' = 'ops')")
out = undo_yes("property undo")
c.equal(out[4], "  property owner: ops -> (unset)", "a property change undone")
floe.sql(f"ALTER TABLE {T} CREATE TAG v1 AS OF VERSION {s2}")
floe.sql(f"ALTER TABLE {T} REPLACE TAG v1 AS OF VERSION {s1}")
out = undo_yes("tag undo")
c.equal(out[4], f"  tag v1: {s1} -> {s2}", "a tag replacement undone")
c.equal(floe.rows(f"SELECT snapshot_id FROM {T}.refs WHERE name = 'v1'"), [[str(s2)]], "the tag is back")

# A refused change moved nothing: undo skips it and undoes the change before.
floe.sql(f"ALTER TABLE {T} SET PROTECTION ON TAG v1")
r = floe.run("sql", "-c", f"ALTER TABLE {T} DROP TAG v1")
c.equal(r.returncode, 1, "dropping a locked tag is refused")
c.equal(last_entry()[1], "refused", "the refusal is in the log")
seq = int(floe.rows(f"SELECT seq FROM {T}.audit_log WHERE kind = 'protection'")[0][0])
r = floe.run("undo", T, "--yes")
c.equal((r.returncode, r.stderr),
        (1, f"Error: Cannot undo audit log entry {seq} of lakehouse.db.t, a protection rule change (tag 'v1' is "
            f"locked): ALTER TABLE ... SET or UNSET PROTECTION changes rules\n"),
        "undo skips the refusal and leaves protection rules to their own statements")

# Another engine (here: by hand, in the catalog database) rolls a protected main back and drops
# the locked tag with it. floe cannot stop it; the audit log records it, `floe verify` reports
# both moves against their rules, and `floe undo` puts the table back, rules included.
floe.sql(f"ALTER TABLE {T} SET PROTECTION ON BRANCH main ALLOW FAST_FORWARD")
s1_file = floe.rows(f"SELECT file FROM {T}.metadata_log_entries WHERE latest_snapshot_id = {s1} "
                    f"ORDER BY timestamp LIMIT 1")[0][0]
now_file = floe.rows(f"SELECT metadata_location FROM {T}.audit_log ORDER BY seq DESC LIMIT 1")[0][0]
db = sqlite3.connect(floe.env["FLOE_CATALOG"])
db.execute("UPDATE iceberg_tables SET previous_metadata_location = metadata_location, metadata_location = ? "
           "WHERE table_namespace = 'db' AND table_name = 't'", (s1_file,))
db.commit()
db.close()
c.equal(floe.current(T), s1, "the hand-made rollback happened")
seq, kind, _ = last_entry()
c.equal(kind, "rollback", "the hand-made change is recorded and named")
r = floe.run("verify", T)
c.equal(r.returncode, 2, f"verify fails on a protected ref moved against its rule ({r.stderr})")
lift = "(ALTER TABLE lakehouse.db.t UNSET PROTECTION ON {} lifts the rule)"
c.check("2 protected ref changes against the rule:\n" in r.stdout, "verify counts the moves", r.stdout)
c.check(f"protection: audit log entry {seq} (external): Cannot roll back branch 'main' of lakehouse.db.t from "
        f"{s2} to {s1}: branch 'main' is protected and allows only fast-forward {lift.format('BRANCH main')}\n"
        in r.stdout, "verify names the rollback of main", r.stdout)
c.check(f"protection: audit log entry {seq} (external): Cannot drop tag 'v1' of lakehouse.db.t: tag 'v1' is "
        f"locked {lift.format('TAG v1')}\n" in r.stdout, "verify names the dropped tag", r.stdout)
r = floe.run("verify", T, "--json")
c.check('"ok": false' in r.stdout and f"audit log entry {seq} (external)" in r.stdout, "verify --json", r.stdout)
out = undo_yes("external rollback undo")
c.check(f"  current snapshot: {s1} -> {s2}" in out and f"  tag v1: (none) -> {s2}" in out
        and "  property floe.protected.branch.main: (unset) -> fast-forward" in out, "the undo preview", out)
c.equal(floe.current(T), s2, "main is back")
c.equal(floe.rows(f"SHOW TBLPROPERTIES {T} ('floe.protected.tag.v1')"), [["floe.protected.tag.v1", "locked"]],
        "the tag's rule is back with the tag")

floe.close()
c.done("undo_test")
