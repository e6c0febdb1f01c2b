#!/usr/bin/env python3
"""`floe history`: the snapshot-log as a table and as JSON, with provenance from the summary
when present, and `--graph` as golden text after branches, tags and two rollbacks (snapshot
ids replaced by names from the history, times by <time>).
Usage: history_test.py FLOE_BINARY"""
import json
import os
import re
import sqlite3
import sys
from datetime import datetime, timedelta

from cli_checks import Floe

HERE = os.path.dirname(os.path.abspath(__file__))
TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?")

f = Floe(sys.argv[1])


def head(ref="main"):
    return f.value(f"SELECT snapshot_id FROM db.t.refs WHERE name = '{ref}'")


# Each step in its own process, so that no two changes share a millisecond.
f.sql("CREATE NAMESPACE db", "CREATE TABLE db.t (id BIGINT) USING iceberg",
      "INSERT INTO db.t VALUES (1), (2)")
names = {head(): "s1"}
f.sql("INSERT INTO db.t VALUES (3)")
names[head()] = "s2"
f.sql("ALTER TABLE db.t CREATE TAG v1")
s1 = next(k for k, v in names.items() if v == "s1")
f.sql(f"ALTER TABLE db.t CREATE TAG first AS OF VERSION {s1}")
f.sql(f"ALTER TABLE db.t CREATE BRANCH b2 AS OF VERSION {s1}")
f.sql(f"ALTER TABLE db.t CREATE BRANCH audit AS OF VERSION {s1}")
f.sql("ALTER TABLE db.t CREATE BRANCH dev")
f.sql("INSERT INTO db.t VALUES (4)")
names[head()] = "s3"
s2 = next(k for k, v in names.items() if v == "s2")
f.sql(f"CALL lakehouse.system.rollback_to_snapshot('db.t', {s2})")
f.sql("INSERT INTO db.t.branch_dev VALUES (5)")
names[head("dev")] = "d1"
f.sql("INSERT INTO db.t.branch_audit VALUES (6)")
names[head("audit")] = "a1"
f.sql("INSERT INTO db.t VALUES (7)")
names[head()] = "s4"
f.sql("ALTER TABLE db.t CREATE TAG v2")
f.sql("INSERT INTO db.t VALUES (8)")
names[head()] = "s5"
s4 = next(k for k, v in names.items() if v == "s4")
f.sql(f"CALL lakehouse.system.rollback_to_snapshot('db.t', {s4})")
ids = {v: int(k) for k, v in names.items()}


def named(text):
    for snapshot_id, name in sorted(names.items(), key=lambda kv: -len(kv[0])):
        text = re.sub(rf"\b{snapshot_id}\b", name, text)
    return TIME.sub("<time>", text)


# The graph, whole.
r = f.run("history", "db.t", "--graph")
with open(os.path.join(HERE, "golden", "history_graph.txt")) as golden:
    expected = golden.read()
f.check(r.returncode == 0 and r.stderr == "" and named(r.stdout) == expected, "history --graph",
        "expected:\n" + expected, "got:\n" + named(r.stdout) + r.stderr)

# Times follow --tz: the newest row (the second rollback) two hours later at +02:00.
utc = TIME.search(r.stdout).group(0)
r2 = f.run("history", "lakehouse.db.t", "--graph", "--tz", "+02:00")
shifted = TIME.search(r2.stdout).group(0) if r2.returncode == 0 else ""
f.check(shifted and datetime.fromisoformat(shifted) - datetime.fromisoformat(utc) == timedelta(hours=2),
        "history --graph --tz +02:00", f"UTC {utc}, +02:00 {shifted}", r2.stderr)
f.check(named(r2.stdout) == expected, "the drawing does not depend on the zone", r2.stdout)

# Provenance: the summary keys of floe's commits, shown when present. Set on s3 only, so the
# rows do not depend on who runs the test.
con = sqlite3.connect(f"{f.dir}/catalog.db")
(location,) = con.execute("SELECT metadata_location FROM iceberg_tables WHERE table_name = 't'").fetchone()
con.close()
path = location.removeprefix("file:")
metadata = json.load(open(path))
statement = "INSERT INTO db.t\n    VALUES (4) -- the bad write, a statement too long for one terminal column"
for snapshot in metadata["snapshots"]:
    for key in [k for k in snapshot["summary"] if k.startswith("floe.")]:
        del snapshot["summary"][key]
    if snapshot["snapshot-id"] == ids["s3"]:
        snapshot["summary"].update({"floe.user": "alice", "floe.client": "floe sql",
                                    "floe.statement": statement})
json.dump(metadata, open(path, "w"))

# The table: one row per snapshot-log entry, oldest first.
r = f.run("history", "db.t")
lines = r.stdout.splitlines()
header = ["made_current_at", "snapshot_id", "parent_id", "is_current_ancestor", "committed_at",
          "operation", "added_records", "deleted_records", "added_data_files",
          "deleted_data_files", "user", "client", "statement"]
rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in lines if line.startswith("|")]
short = "INSERT INTO db.t VALUES (4) -- the bad write, a statement..."
expected_rows = [
    header,
    ["<time>", "s1", "NULL", "true", "<time>", "append", "2", "NULL", "1", "NULL", "NULL", "NULL", "NULL"],
    ["<time>", "s2", "s1", "true", "<time>", "append", "1", "NULL", "1", "NULL", "NULL", "NULL", "NULL"],
    ["<time>", "s3", "s2", "false", "<time>", "append", "1", "NULL", "1", "NULL", "alice", "floe sql", short],
    ["<time>", "s2", "s1", "true", "<time>", "append", "1", "NULL", "1", "NULL", "NULL", "NULL", "NULL"],
    ["<time>", "s4", "s2", "true", "<time>", "append", "1", "NULL", "1", "NULL", "NULL", "NULL", "NULL"],
    ["<time>", "s5", "s4", "false", "<time>", "append", "1", "NULL", "1", "NULL", "NULL", "NULL", "NULL"],
    ["<time>", "s4", "s2", "true", "<time>", "append", "1", "NULL", "1", "NULL", "NULL", "NULL", "NULL"],
]
got_rows = [[named(cell) for cell in row] for row in rows]
f.check(r.returncode == 0 and got_rows == expected_rows and len(lines) == 11, "history table",
        f"got: {got_rows}", r.stdout, r.stderr)
f.check(len(short) == 60, "statements are cut to 60 characters")

# JSON: the same entries, times in UTC with a Z, the statement whole.
r = f.run("history", "db.t", "--json")
doc = json.loads(r.stdout)
f.check(list(doc) == ["table", "current_snapshot_id", "history"], "history --json keys", list(doc))
f.check(doc["table"] == "lakehouse.db.t" and doc["current_snapshot_id"] == ids["s4"], "history --json table", doc)
entry_keys = ["made_current_at", "snapshot_id", "parent_id", "is_current_ancestor", "committed_at",
              "operation", "added_records", "deleted_records", "added_data_files",
              "deleted_data_files", "user", "client", "statement"]
f.check(all(list(e) == entry_keys for e in doc["history"]), "history entry keys", doc["history"][0])
f.check([names[str(e["snapshot_id"])] for e in doc["history"]] == ["s1", "s2", "s3", "s2", "s4", "s5", "s4"],
        "history --json order", doc["history"])
bad = doc["history"][2]
f.check(bad["statement"] == statement and bad["user"] == "alice" and bad["client"] == "floe sql"
        and bad["parent_id"] == ids["s2"] and bad["is_current_ancestor"] is False
        and bad["added_records"] == 1 and bad["deleted_records"] is None, "history --json s3", bad)
f.check(all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", e["made_current_at"])
            for e in doc["history"]), "JSON times", doc["history"])
f.check(doc["history"][3]["made_current_at"] > doc["history"][3]["committed_at"],
        "a rollback entry: made current after it was committed", doc["history"][3])

# JSON with --graph: every snapshot in drawing order, the refs, the jumps of main.
r = f.run("history", "db.t", "--graph", "--json")
doc = json.loads(r.stdout)
f.check(list(doc) == ["table", "current_snapshot_id", "history", "snapshots", "refs", "jumps"],
        "history --graph --json keys", list(doc))
f.check([names[str(s["snapshot_id"])] for s in doc["snapshots"]] == ["s5", "s4", "a1", "d1", "s3", "s2", "s1"],
        "snapshots in drawing order", doc["snapshots"])
snap = {names[str(s["snapshot_id"])]: s for s in doc["snapshots"]}
f.check(list(snap["s4"]) == ["snapshot_id", "parent_id", "sequence_number", "is_current_ancestor", "refs"] + entry_keys[4:],
        "snapshot keys", list(snap["s4"]))
f.check(snap["s4"]["refs"] == ["main", "v2"] and snap["s1"]["refs"] == ["b2", "first"],
        "snapshot refs", snap["s1"], snap["s4"])
f.check(snap["a1"]["is_current_ancestor"] is False and snap["s2"]["is_current_ancestor"] is True,
        "is_current_ancestor", snap["a1"], snap["s2"])
f.check(doc["refs"] == [{"name": "audit", "type": "branch", "snapshot_id": ids["a1"]},
                        {"name": "b2", "type": "branch", "snapshot_id": ids["s1"]},
                        {"name": "dev", "type": "branch", "snapshot_id": ids["d1"]},
                        {"name": "first", "type": "tag", "snapshot_id": ids["s1"]},
                        {"name": "main", "type": "branch", "snapshot_id": ids["s4"]},
                        {"name": "v1", "type": "tag", "snapshot_id": ids["s2"]},
                        {"name": "v2", "type": "tag", "snapshot_id": ids["s4"]}], "refs", doc["refs"])
jumps = [{k: (names.get(str(v), v) if k.endswith("snapshot_id") else v) for k, v in j.items() if k != "at"}
         for j in doc["jumps"]]
f.check(jumps == [{"branch": "main", "kind": "rollback", "from_snapshot_id": "s3", "to_snapshot_id": "s2"},
                  {"branch": "main", "kind": "rollback", "from_snapshot_id": "s5", "to_snapshot_id": "s4"}],
        "jumps", doc["jumps"])
f.check(doc["jumps"][0]["at"] == doc["history"][3]["made_current_at"], "a jump is at its log entry's time",
        doc["jumps"][0])

# The other jumps of main: forward to a child it had left (fast-forward), onto another line.
f.sql("CREATE TABLE db.j (id BIGINT) USING iceberg", "INSERT INTO db.j VALUES (1)")
jn = {f.value("SELECT snapshot_id FROM db.j.refs WHERE name = 'main'"): "j1"}
f.sql("INSERT INTO db.j VALUES (2)")
jn[f.value("SELECT snapshot_id FROM db.j.refs WHERE name = 'main'")] = "j2"
j = {v: k for k, v in jn.items()}
f.sql(f"CALL lakehouse.system.rollback_to_snapshot('db.j', {j['j1']})")
f.sql(f"ALTER TABLE db.j CREATE BRANCH x")
f.sql(f"CALL lakehouse.system.set_current_snapshot('db.j', {j['j2']})")
f.sql("INSERT INTO db.j.branch_x VALUES (3)")
jn[f.value("SELECT snapshot_id FROM db.j.refs WHERE name = 'x'")] = "x1"
f.sql("CALL lakehouse.system.set_current_snapshot(table => 'db.j', ref => 'x')")
names.update(jn)
r = f.run("history", "db.j", "--graph")
f.check(r.returncode == 0 and named(r.stdout) == """~ main moved from j2 to x1 at <time>
* x1 (main, branch: x) <time> append +1 records
| ~ main fast-forwarded from j1 to j2 at <time>
| ~ main rolled back from j2 to j1 at <time>
| * j2 <time> append +1 records
|/
* j1 <time> append +1 records
""", "history --graph with a fast-forward and a move", named(r.stdout), r.stderr)
kinds = [j["kind"] for j in json.loads(f.run("history", "db.j", "--graph", "--json").stdout)["jumps"]]
f.check(kinds == ["rollback", "fast-forward", "move"], "jump kinds", kinds)

# A table without snapshots: an empty drawing, an empty history.
f.sql("CREATE TABLE db.empty (id BIGINT) USING iceberg")
f.expect(f.run("history", "db.empty", "--graph"), 0, "", "")
f.expect(f.run("history", "db.empty", "--json"), 0,
         '{"table": "lakehouse.db.empty", "current_snapshot_id": null, "history": []}\n', "")

# User errors: one line, status 1.
f.expect(f.run("history", "db.nope"), 1, "", "Error: Table lakehouse.db.nope not found\n")
f.expect(f.run("history", "db.t", "--tz", "Mars/Olympus"), 1, "", "Error: Unknown time zone: 'Mars/Olympus'\n")
f.expect(f.run("history"), 1, "", "Error: table is required\n")

f.finish("history")
