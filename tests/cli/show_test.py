#!/usr/bin/env python3
"""`floe show`: the rows of a table at a snapshot id, a time (in the --tz zone) or a ref, at
most one of them (Iceberg's rule and wording), with --where, --columns, --limit and the
output formats of `floe sql`. Usage: show_test.py FLOE_BINARY"""
import json
import sys
from datetime import datetime, timedelta

from cli_checks import Floe

f = Floe(sys.argv[1])
f.sql("CREATE NAMESPACE db", "CREATE TABLE db.t (id BIGINT, name STRING) USING iceberg",
      "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
s1 = f.value("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'")
f.sql("ALTER TABLE db.t CREATE TAG v1", "ALTER TABLE db.t CREATE BRANCH b",
      "INSERT INTO db.t VALUES (3, 'c')", "ALTER TABLE db.t ADD COLUMN score INT",
      "INSERT INTO db.t.branch_b VALUES (10, 'x', 7)")
s2 = f.value("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'")
history = json.loads(f.run("history", "db.t", "--json").stdout)["history"]
s1_at = datetime.fromisoformat(history[0]["made_current_at"].rstrip("Z"))
s2_at = datetime.fromisoformat(history[1]["made_current_at"].rstrip("Z"))


def show(*args):
    return f.run("show", "db.t", *args)


def expect_rows(args, header, rows):
    """The run succeeds and prints the header line, then `rows` in any order (a scan's
    order is the files')."""
    r = show(*args)
    lines = r.stdout.splitlines()
    f.check(r.returncode == 0 and r.stderr == "" and lines[:1] == [header] and sorted(lines[1:]) == sorted(rows),
            "show " + " ".join(args), f"expected {header} and {rows}", f"got {r.stdout!r} {r.stderr!r}")


# The current state, as `floe sql` prints it: Spark's table.
r = show()
lines = r.stdout.splitlines()
f.check(r.returncode == 0 and lines[:3] + lines[-1:] == ["+---+----+-----+", "| id|name|score|", "+---+----+-----+", "+---+----+-----+"]
        and sorted(lines[3:-1]) == ["|  1|   a| NULL|", "|  2|   b| NULL|", "|  3|   c| NULL|"], "show", r.stdout, r.stderr)
# A snapshot id: read with that snapshot's schema.
expect_rows(["--snapshot-id", s1, "--format", "csv"], "id,name", ['1,a', '2,b'])
expect_rows(["--snapshot-id", s2, "--format", "csv"], "id,name", ['1,a', '2,b', '3,c'])
# A time: the snapshot current then; the text is read in the --tz zone unless it names one.
at = (s1_at + timedelta(milliseconds=1)).isoformat(sep=" ", timespec="milliseconds")
expect_rows(["--timestamp", at, "--format", "csv"], "id,name", ['1,a', '2,b'])
local = (s1_at + timedelta(hours=2, milliseconds=1)).isoformat(sep=" ", timespec="milliseconds")
f.expect(show("--timestamp", local, "--tz", "+02:00", "--format", "csv"), 0, "id,name\n1,a\n2,b\n", "",
         "show --timestamp in the --tz zone")
f.expect(show("--timestamp", local + " +02:00", "--format", "csv"), 0, "id,name\n1,a\n2,b\n", "",
         "show --timestamp naming its zone")
at2 = s2_at.isoformat(sep=" ", timespec="milliseconds")
expect_rows(["--timestamp", at2, "--format", "csv"], "id,name", ['1,a', '2,b', '3,c'])
# Refs: a tag reads with its snapshot's schema, a branch with the current one.
expect_rows(["--ref", "v1", "--format", "csv"], "id,name", ['1,a', '2,b'])
expect_rows(["--ref", "b", "--format", "csv", "--where", "id > 1"], "id,name,score", ['2,b,', '10,x,7'])
expect_rows(["--ref", "main", "--format", "csv", "--columns", "name"], "name", ['a', 'b', 'c'])
# --where, --columns, --limit and the JSON rows of `floe sql --format json`.
r = show("--json", "--columns", "name, id", "--where", "id >= 2")
f.check(r.returncode == 0 and sorted(r.stdout.splitlines()) == ['{"name":"b","id":2}', '{"name":"c","id":3}'],
        "show --json", r.stdout, r.stderr)
f.expect(show("--ref", "b", "--columns", "id,score", "--where", "score IS NOT NULL", "--format", "markdown"), 0,
         "|  id | score |\n| --: | ----: |\n|  10 |     7 |\n", "")
r = show("--limit", "2", "--format", "csv")
f.check(r.returncode == 0 and len(r.stdout.splitlines()) == 3, "show --limit 2", r.stdout, r.stderr)
expect_rows(["--limit", "0", "--format", "csv"], "id,name,score", [])

# At most one point in time, as Iceberg words it.
both = "to select which table snapshot to scan\n"
f.expect(show("--snapshot-id", s1, "--timestamp", at), 1, "", f"Error: Cannot set both --snapshot-id and --timestamp {both}")
f.expect(show("--ref", "v1", "--snapshot-id", s1), 1, "", f"Error: Cannot set both --snapshot-id and --ref {both}")
f.expect(show("--timestamp", at, "--ref", "v1"), 1, "", f"Error: Cannot set both --timestamp and --ref {both}")
# Points that do not exist, and bad input: the engine's messages, one line, status 1.
f.expect(show("--snapshot-id", "42"), 1, "", "Error: Cannot find snapshot with ID 42\n")
f.expect(show("--ref", "nope"), 1, "", "Error: Cannot find ref nope\n")
f.expect(show("--timestamp", "2000-01-01"), 1, "", "Error: Cannot find a snapshot older than 2000-01-01T00:00:00+00:00\n")
f.expect(show("--timestamp", "2000-01-01", "--tz", "+02:00"), 1, "",
         "Error: Cannot find a snapshot older than 1999-12-31T22:00:00+00:00\n")
f.expect(show("--timestamp", "yesterday"), 1, "", "Error: Cannot parse timestamp 'yesterday': expected a year (yyyy-mm-dd)\n")
f.expect(show("--where", "nope = 1"), 1, "",
         "Error: [UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `nope` cannot be "
         "resolved. Did you mean one of the following? [`t`.`name`, `t`.`score`, `t`.`id`]. "
         "(query: SELECT * FROM lakehouse.db.t WHERE nope = 1)\n")
f.expect(show("--columns", "id,,name"), 1, "", "Error: Invalid --columns 'id,,name': an empty column name\n")
f.expect(show("--limit", "-1"), 1, "", "Error: --limit must be 0 or more, not -1\n")
f.expect(f.run("show", "db.nope"), 1, "", "Error: Table lakehouse.db.nope not found\n")

f.finish("show")
