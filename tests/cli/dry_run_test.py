"""Exact dry runs: `floe expire --dry-run` and `rewrite_data_files(dry_run => true)` list the
files a real run deletes or replaces and change nothing; the real run that follows removes
exactly those files. Usage: dry_run_test.py FLOE_BINARY"""

import json
import os
import re
import sys

from floe_cli import Checks, Floe

floe = Floe(sys.argv[1])
c = Checks()
T = "db.t"
warehouse = floe.env["FLOE_WAREHOUSE"]


def files_on_disk():
    out = set()
    for root, _, names in os.walk(warehouse):
        out.update(os.path.join(root, n) for n in names)
    return out


def local(path):
    return path[len("file:"):] if path.startswith("file:") else path


floe.sql("CREATE NAMESPACE db", f"CREATE TABLE {T} (id BIGINT, v STRING) USING iceberg")
for i in range(3):
    floe.sql(f"INSERT INTO {T} VALUES ({i}, 'v{i}')")
s3 = floe.current(T)
floe.sql(f"INSERT OVERWRITE {T} VALUES (10, 'new')")
s4 = floe.current(T)
snapshots = floe.rows(f"SELECT snapshot_id FROM {T}.snapshots ORDER BY committed_at")
history = floe.rows(f"SELECT * FROM {T}.history")
future = "2999-01-01 00:00:00"

# The dry run: the statement, the files, the summary; nothing changes.
before = files_on_disk()
r = floe.run("expire", T, "--older-than", future, "--dry-run")
c.equal(r.returncode, 0, f"dry run exit status ({r.stderr})")
lines = r.stdout.splitlines()
c.equal(lines[0], f"SQL: CALL lakehouse.system.expire_snapshots(table => 'db.t', older_than => TIMESTAMP "
                  f"'{future}', dry_run => true)", "dry run prints its statement")
summary = re.fullmatch(r"Dry run: expiring would delete 9 files \((\d+) bytes\) of lakehouse\.db\.t; "
                       r"nothing was changed\.", lines[-1])
c.check(summary is not None, "dry run summary", lines[-1])
c.equal(files_on_disk(), before, "the dry run deleted nothing")
c.equal(floe.rows(f"SELECT snapshot_id FROM {T}.snapshots ORDER BY committed_at"), snapshots,
        "the dry run expired nothing")
c.equal(floe.rows(f"SELECT * FROM {T}.history"), history, "the dry run left the history")

r = floe.run("expire", T, "--older-than", future, "--dry-run", "--json")
c.equal(r.returncode, 0, f"dry run --json exit status ({r.stderr})")
rows = [json.loads(line) for line in r.stdout.splitlines()]
c.equal([sorted(row) for row in rows[:1]], [["file_path", "file_size_in_bytes", "file_type", "last_snapshot_id"]],
        "dry run --json keys")
c.equal([row["file_type"] for row in rows],
        ["data file"] * 3 + ["manifest"] * 3 + ["manifest list"] * 3, "dry run file types in deletion order")
c.equal(sum(row["file_size_in_bytes"] for row in rows), int(summary.group(1)) if summary else None,
        "the summary's bytes are the rows' sizes")
c.check(all(os.path.getsize(local(row["file_path"])) == row["file_size_in_bytes"] for row in rows),
        "each size is the file's size on disk")
c.equal({row["last_snapshot_id"] for row in rows if row["file_type"] != "manifest list"}, {s3},
        "content files and manifests were last reached by the overwrite's parent")
predicted = {local(row["file_path"]) for row in rows}

# The real run deletes exactly the predicted files.
r = floe.run("expire", T, "--older-than", future)
c.equal(r.returncode, 0, f"expire exit status ({r.stderr})")
c.check(re.search(r"^\|3 +\|0 +\|0 +\|3 +\|3 +\|0 +\|$", r.stdout, re.M) is not None, "expire prints its counts",
        r.stdout)
after = files_on_disk()
c.equal(before - after, predicted, "the real run deleted exactly the files the dry run listed")
c.equal(floe.rows(f"SELECT snapshot_id FROM {T}.snapshots"), [[str(s4)]], "only the current snapshot is left")
c.equal(floe.rows(f"SELECT * FROM {T} ORDER BY id"), [["10", "new"]], "the rows stay")

# A second dry run has nothing left to delete.
r = floe.run("expire", T, "--older-than", future, "--dry-run")
c.equal(r.stdout.splitlines()[-1],
        "Dry run: expiring would delete 0 files (0 bytes) of lakehouse.db.t; nothing was changed.",
        "nothing left to expire")

# rewrite_data_files: the dry run names the small files a rewrite replaces, the rewrite
# replaces exactly those.
R = "db.r"
floe.sql(f"CREATE TABLE {R} (id BIGINT) USING iceberg")
for i in range(5):
    floe.sql(f"INSERT INTO {R} VALUES ({i})")
live = {local(p) for [p] in floe.rows(f"SELECT file_path FROM {R}.files")}
current = floe.current(R)
r = floe.run("sql", "--format", "json", "-c",
             f"CALL lakehouse.system.rewrite_data_files(table => '{R}', dry_run => true)")
c.equal(r.returncode, 0, f"rewrite dry run exit status ({r.stderr})")
rows = [json.loads(line) for line in r.stdout.splitlines()]
c.equal({local(row["file_path"]) for row in rows}, live, "the rewrite dry run lists the five small files")
c.equal({(row["file_type"], row["last_snapshot_id"]) for row in rows}, {("data file", current)},
        "rewrite dry run types and snapshot")
c.equal(floe.current(R), current, "the rewrite dry run committed nothing")
r = floe.run("sql", "-c", f"CALL lakehouse.system.rewrite_data_files(table => '{R}')")
c.equal(r.returncode, 0, f"rewrite exit status ({r.stderr})")
now_live = {local(p) for [p] in floe.rows(f"SELECT file_path FROM {R}.files")}
c.equal(live - now_live, live, "the rewrite replaced exactly the listed files")
c.equal(len(now_live), 1, "into one file")

# Errors name the table; a dry run of a missing table changes nothing anywhere.
r = floe.run("expire", "db.nope", "--dry-run")
c.equal((r.returncode, r.stderr), (1, "Error: Table lakehouse.db.nope not found\n"), "unknown table")

floe.close()
c.done("dry_run_test")
