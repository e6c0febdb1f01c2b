"""`floe diff`: exact counts for appends, copy-on-write and merge-on-read deletes and updates,
with and without a key; the --json shape and samples; points given as snapshot ids, refs
(a tag named like a number included) and timestamps in --tz; one-line errors with status 1.
Usage: diff_test.py FLOE_BINARY"""

import json
import re
import sys
from datetime import datetime, timedelta

from floe_cli import Checks, Floe

floe = Floe(sys.argv[1])
c = Checks()
T = "db.d"

floe.sql("CREATE NAMESPACE db")
s = floe.write_mixed_history(T)
c.equal(len(set(s)), 6, "six snapshots")
n_deletes = int(floe.rows(f"SELECT count(*) FROM {T}.delete_files")[0][0])
c.equal(n_deletes, 2, "merge-on-read wrote position delete files")


def diff(*args):
    r = floe.run("diff", T, *args, "--json")
    c.equal(r.returncode, 0, f"diff {args} exit status: {r.stderr}")
    return json.loads(r.stdout) if r.returncode == 0 else {}


def counts(d):
    return (d.get("added"), d.get("removed"), d.get("changed"), d.get("unchanged_files_skipped"))


# (from, to): (added, removed, changed, unchanged data files skipped), by key id.
expected = {
    (0, 1): (2, 0, 0, 1),  # append: only the new file is read
    (1, 2): (0, 1, 0, 1),  # copy-on-write delete of id 2
    (2, 3): (0, 0, 1, 1),  # copy-on-write update of id 3
    (3, 4): (0, 1, 0, 1),  # merge-on-read delete of id 4
    (4, 5): (0, 0, 1, 1),  # merge-on-read update of id 5
    (0, 5): (2, 2, 2, 0),
    (5, 0): (2, 2, 2, 0),
}
for (a, b), want in expected.items():
    c.equal(counts(diff(s[a], s[b], "--key", "id")), want, f"diff s{a + 1} s{b + 1} --key id")
# Without a key a changed row is one removed and one added.
c.equal(counts(diff(s[0], s[5])), (4, 4, None, 0), "diff s1 s6 without key")
c.equal(counts(diff(s[2], s[3])), (1, 1, None, 1), "diff s3 s4 without key")
c.equal(counts(diff(s[5], s[5], "--key", "id")), (0, 0, 0, 3), "a snapshot against itself")

# The JSON shape and the samples.
d = diff(s[0], s[5], "--key", "id")
c.equal(list(d), ["table", "from", "to", "key_columns", "columns", "columns_only_in_from", "columns_only_in_to",
                  "added", "removed", "changed", "unchanged_files_skipped", "files_read", "rows_read", "partitions",
                  "spilled_bytes", "sample"], "diff --json keys")
c.equal(d["table"], "lakehouse.db.d", "table")
c.equal(d["from"], {"point": str(s[0]), "resolved_as": "snapshot id", "snapshot_id": s[0],
                    "committed_at": floe.commit_time(T, s[0]).replace(" ", "T") + "Z", "operation": "append"},
        "from point")
c.equal(d["to"]["snapshot_id"], s[5], "to point")
c.equal(d["to"]["operation"], "overwrite", "to operation")
c.equal((d["key_columns"], d["columns"], d["columns_only_in_from"], d["columns_only_in_to"]),
        (["id"], ["id", "v"], [], []), "columns")
c.equal(d["files_read"], {"from": 1, "to": 3}, "files read")
c.equal(d["rows_read"], {"from": 5, "to": 5}, "rows read after deletes")
c.equal(d["spilled_bytes"], 0, "a small diff stays in memory")
c.equal(d["sample"], {
    "added": [{"id": 6, "v": "f"}, {"id": 7, "v": "g"}],
    "removed": [{"id": 2, "v": "b"}, {"id": 4, "v": "d"}],
    "changed": [{"before": {"id": 3, "v": "c"}, "after": {"id": 3, "v": "X"}},
                {"before": {"id": 5, "v": "e"}, "after": {"id": 5, "v": "Y"}}]}, "samples")
small = diff(s[0], s[5], "--key", "id", "--sample", "1")
c.equal([len(small["sample"][k]) for k in ("added", "removed", "changed")], [1, 1, 1], "--sample 1")
none = diff(s[0], s[5], "--sample", "0")
c.equal(none["sample"], {"added": [], "removed": [], "changed": []}, "--sample 0")

# Points: refs (a tag named like a number wins over the id), timestamps in --tz.
floe.sql(f"ALTER TABLE {T} CREATE TAG start AS OF VERSION {s[0]}",
         f"ALTER TABLE {T} CREATE TAG `12345` AS OF VERSION {s[1]}")
d = diff("start", "main", "--key", "id")
c.equal((d["from"]["resolved_as"], d["from"]["snapshot_id"], d["to"]["resolved_as"], d["to"]["snapshot_id"]),
        ("tag start", s[0], "branch main", s[5]), "refs as points")
c.equal(counts(d), expected[(0, 5)], "diff start main")
d = diff("12345", "main")
c.equal((d["from"]["resolved_as"], d["from"]["snapshot_id"]), ("tag 12345", s[1]), "a numeric tag name")
made = floe.rows(f"SELECT made_current_at FROM {T}.history WHERE snapshot_id = {s[1]}")[0][0]
d = diff(made, s[5], "--key", "id")
c.equal((d["from"]["snapshot_id"], d["from"]["resolved_as"]), (s[1], f"as of {made} UTC"), "a timestamp")
fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in made else "%Y-%m-%d %H:%M:%S"
local = (datetime.strptime(made, fmt) + timedelta(hours=2)).strftime(fmt)
if "." in made:
    local = local.rstrip("0")
r = floe.run("diff", T, local, s[5], "--json", "--tz", "+02:00")
c.equal(r.returncode, 0, f"timestamp in --tz: {r.stderr}")
if r.returncode == 0:
    c.equal(json.loads(r.stdout)["from"]["snapshot_id"], s[1], "a timestamp read in --tz")

# The text form.
r = floe.run("diff", T, s[0], s[1], "--key", "id")
lines = r.stdout.splitlines()
c.equal(lines[0], "Diff of lakehouse.db.d by key id", "text heading")
c.check(re.fullmatch(rf"from: snapshot {s[0]}, committed \S+ \S+ UTC, append", lines[1]) is not None,
        "text from line", lines[1])
c.check(re.fullmatch(rf"to:   snapshot {s[1]}, committed \S+ \S+ UTC, append", lines[2]) is not None,
        "text to line", lines[2])
c.equal(lines[3], "2 rows added, 0 removed, 0 changed; 1 unchanged data file skipped", "text summary")
c.equal(lines[4:], ["", "Added rows:", "+---+---+", "| id|  v|", "+---+---+", "|  6|  f|", "|  7|  g|",
                    "+---+---+"], "text sample")

# Errors: one line, status 1.
for args, message in [
        (("nope", "main"), "Cannot resolve 'nope' in table lakehouse.db.d: it is not a branch or tag, a snapshot id "
                           "or a timestamp"),
        (("42", "main"), "Cannot find snapshot with ID 42 in table lakehouse.db.d"),
        (("2000-01-01", "main"), "Cannot find a snapshot older than 2000-01-01T00:00:00+00:00"),
        ((s[0], "main", "--key", "nope"), f"Cannot diff lakehouse.db.d by key column 'nope': it is not a column of "
                                          f"both snapshot {s[0]} and snapshot {s[5]}"),
        ((s[0], "main", "--memory-budget", "lots"), "Invalid size 'lots': expected a number and a unit, e.g. 256MB")]:
    r = floe.run("diff", T, *args)
    c.equal((r.returncode, r.stderr, r.stdout), (1, f"Error: {message}\n", ""), f"diff {args}")
r = floe.run("diff", "db.nope", "1", "2")
c.equal((r.returncode, r.stderr), (1, "Error: Table lakehouse.db.nope not found\n"), "unknown table")

floe.close()
c.done("diff")
