"""`floe rollback --catalog-tag`: the preview lists each table's move (from the procedure's dry
run), a pipe without --yes and the answer n change nothing, y and --yes roll every table back
in one step and print the statement, a table moved while the question waited stops it, and the
errors (an unknown tag, a table given with the tag). Usage: catalog_tag_rollback_test.py FLOE_BINARY"""

import sys

from floe_cli import Checks, Floe

floe = Floe(sys.argv[1])
c = Checks()

floe.sql("CREATE NAMESPACE db", "CREATE NAMESPACE db.sub",
         "CREATE TABLE db.orders (id BIGINT) USING iceberg",
         "CREATE TABLE db.revenue (amount BIGINT) USING iceberg",
         "CREATE TABLE db.sub.items (id BIGINT) USING iceberg")
floe.sql("INSERT INTO db.orders VALUES (1)", "INSERT INTO db.revenue VALUES (100)",
         "INSERT INTO db.sub.items VALUES (10)")
o1, r1, i1 = floe.current("db.orders"), floe.current("db.revenue"), floe.current("db.sub.items")
floe.sql("CREATE CATALOG TAG run_41")
floe.sql("INSERT INTO db.orders VALUES (2)", "INSERT INTO db.revenue VALUES (100)",
         "CREATE TABLE db.late (id BIGINT) USING iceberg", "INSERT INTO db.late VALUES (1)")
o2, r2 = floe.current("db.orders"), floe.current("db.revenue")

preview = [
    "Rolling back to catalog tag run_41 changes what every reader of 2 tables sees:",
    "  db.late       created after the tag (left alone)",
    f"  db.orders     {o2} -> {o1}  rolled back",
    f"  db.revenue    {r2} -> {r1}  rolled back",
    "  db.sub.items  unchanged",
]
refusal = ("Error: Not changing every table of catalog tag run_41 without confirmation: standard input "
           "is not a terminal (pass --yes to confirm)\n")
r = floe.run("rollback", "--catalog-tag", "run_41")
c.equal(r.stdout.splitlines(), preview, "preview")
c.equal((r.returncode, r.stderr), (1, refusal), "refusal on a pipe")
c.equal((floe.current("db.orders"), floe.current("db.revenue")), (o2, r2), "nothing changed after the refusal")

question = "Roll back 2 tables to catalog tag run_41? [y/N] "
status, shown = floe.in_terminal("rollback", "--catalog-tag", "run_41", replies=[(question, "n")])
c.equal(status, 1, f"answer n: exit status ({shown})")
c.check("Cancelled: every table of catalog tag run_41 is unchanged and still reads its current snapshot"
        in shown, "answer n message", shown)
c.equal((floe.current("db.orders"), floe.current("db.revenue")), (o2, r2), "answer n: nothing moved")

status, shown = floe.in_terminal("rollback", "--catalog-tag", "run_41", replies=[(question, "y")])
c.equal(status, 0, f"answer y: exit status ({shown})")
c.check("SQL: CALL lakehouse.system.rollback_to_catalog_tag(tag => 'run_41')\n" in shown, "answer y prints the SQL",
        shown)
c.check("Rolled back 2 tables to catalog tag run_41 in one catalog transaction.\n" in shown, "answer y report", shown)
c.equal((floe.current("db.orders"), floe.current("db.revenue"), floe.current("db.sub.items")), (o1, r1, i1),
        "answer y: every table at its tag")

# Nothing left to move; then --yes with a namespace and the new tables emptied.
r = floe.run("rollback", "--catalog-tag", "run_41", "--yes")
c.equal(r.returncode, 0, f"nothing to move: {r.stderr}")
c.check(r.stdout.endswith("nothing to change.\n"), "nothing to move says so", r.stdout)
r = floe.run("rollback", "--catalog-tag", "run_41", "--namespace", "db", "--include-new-tables", "--yes")
c.equal(r.returncode, 0, f"--include-new-tables --yes: {r.stderr}")
c.check("SQL: CALL lakehouse.system.rollback_to_catalog_tag(tag => 'run_41', namespace => 'db', "
        "include_new_tables => true)\n" in r.stdout, "--include-new-tables SQL", r.stdout)
c.check("emptied (created after the tag)" in r.stdout, "the new table is emptied", r.stdout)
c.equal(floe.rows("SELECT count(*) FROM db.late.refs WHERE name = 'main'")[0][0], "0",
        "db.late has no current snapshot")

# Errors.
r = floe.run("rollback", "--catalog-tag", "run_9", "--yes")
c.equal((r.returncode, r.stderr.splitlines()[0] if r.stderr else ""),
        (1, "Error: Catalog tag run_9 does not exist in catalog lakehouse (line 1, column 6)"), "unknown tag")
r = floe.run("rollback", "db.orders", "--catalog-tag", "run_41", "--yes")
c.equal((r.returncode, r.stderr),
        (1, "Error: --catalog-tag rolls back every table of the tag: give no table, --to-snapshot or "
            "--to-timestamp with it\n"), "a table with --catalog-tag")
r = floe.run("rollback", "--yes")
c.equal((r.returncode, r.stderr), (1, "Error: Give a table, or --catalog-tag\n"), "neither")

floe.close()
c.done("catalog_tag_rollback")
