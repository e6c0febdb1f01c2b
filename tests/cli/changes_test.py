"""`floe changes`: the rows each commit changed, with the commit, over appends, copy-on-write
and merge-on-read deletes and updates and a MERGE; update images by --key; --net; points as
snapshot ids, refs and timestamps in --tz; the text heading; and one-line errors with status 1.
The invariant: over every range of the table's history, a branch and a rollback, `floe changes
--net --key id` reports exactly the rows `floe diff --key id` reports as added, removed and
changed.
Usage: changes_test.py FLOE_BINARY"""

import csv
import io
import json
import os
import re
import sys
from datetime import datetime, timedelta

from floe_cli import Checks, Floe

floe = Floe(sys.argv[1])
c = Checks()
T = "db.c"
META = ["_change_type", "_change_ordinal", "_commit_snapshot_id", "_commit_timestamp", "_commit_sequence_number",
        "_operation"]

floe.sql("CREATE NAMESPACE db")
s = floe.write_mixed_history(T)
floe.sql(f"MERGE INTO {T} t USING (SELECT * FROM VALUES (1, 'A'), (2, 'b2'), (7, NULL) AS s(id, v)) s "
         "ON t.id = s.id WHEN MATCHED AND s.v IS NULL THEN DELETE WHEN MATCHED THEN UPDATE SET t.v = s.v "
         "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)")
s.append(floe.current(T))
c.equal(len(set(s)), 7, "seven snapshots")
op = dict((int(i), o) for i, o in floe.rows(f"SELECT snapshot_id, operation FROM {T}.snapshots"))
seq = {x: str(i + 1) for i, x in enumerate(s)}  # one commit after another: sequence numbers 1 to 7
c.equal([op[x] for x in s], ["append", "append", "overwrite", "overwrite", "delete", "overwrite", "overwrite"],
        "the operations")


def changes(*args):
    """The CSV rows of `floe changes T args...`, header first."""
    r = floe.run("changes", T, *args, "--format", "csv")
    c.equal((r.returncode, r.stderr), (0, ""), f"changes {args}")
    return list(csv.reader(io.StringIO(r.stdout)))


def row(id_, v, kind, ordinal, snapshot):
    """A row as CSV shows it; ordinal None for NULL."""
    return [str(id_), v, kind, "" if ordinal is None else str(ordinal), str(snapshot),
            floe.commit_time(T, snapshot), seq[snapshot], op[snapshot]]


# Every change from the table's creation, with update images by key: ordered by ordinal, key,
# then the before image first.
got = changes("--key", "id")
c.equal(got[0], ["id", "v"] + META, "columns")
c.equal(got[1:], [
    row(1, "a", "INSERT", 0, s[0]), row(2, "b", "INSERT", 0, s[0]), row(3, "c", "INSERT", 0, s[0]),
    row(4, "d", "INSERT", 0, s[0]), row(5, "e", "INSERT", 0, s[0]),
    row(6, "f", "INSERT", 1, s[1]), row(7, "g", "INSERT", 1, s[1]),
    row(2, "b", "DELETE", 2, s[2]),
    row(3, "c", "UPDATE_BEFORE", 3, s[3]), row(3, "X", "UPDATE_AFTER", 3, s[3]),
    row(4, "d", "DELETE", 4, s[4]),
    row(5, "e", "UPDATE_BEFORE", 5, s[5]), row(5, "Y", "UPDATE_AFTER", 5, s[5]),
    row(1, "a", "UPDATE_BEFORE", 6, s[6]), row(1, "A", "UPDATE_AFTER", 6, s[6]),
    row(2, "b2", "INSERT", 6, s[6]), row(7, "g", "DELETE", 6, s[6])], "every change by key id")

# Without a key (or with --no-updates) a change is a DELETE and an INSERT, deletes first.
without_key = [
    row(2, "b", "DELETE", 0, s[2]), row(3, "c", "DELETE", 1, s[3]), row(3, "X", "INSERT", 1, s[3]),
    row(4, "d", "DELETE", 2, s[4])]
c.equal(changes("--from", s[1], "--to", s[4])[1:], without_key, "(s2, s5] without a key")
c.equal(changes("--from", s[1], "--to", s[4], "--key", "id", "--no-updates")[1:], without_key, "--no-updates")
c.equal(changes("--from", s[1], "--to", s[4], "--key", "id")[1:], [
    row(2, "b", "DELETE", 0, s[2]), row(3, "c", "UPDATE_BEFORE", 1, s[3]), row(3, "X", "UPDATE_AFTER", 1, s[3]),
    row(4, "d", "DELETE", 2, s[4])], "(s2, s5] by key")
c.equal(changes("--from", s[6], "--to", s[6])[1:], [], "an empty range")
c.equal(changes("--key", "id", "--limit", "2")[1:], got[1:3], "--limit")

# Net: per key the state at --from against the state at --to, carrying the commit of --to.
c.equal(changes("--from", s[0], "--net", "--key", "id")[1:], [
    row(1, "a", "UPDATE_BEFORE", None, s[6]), row(1, "A", "UPDATE_AFTER", None, s[6]),
    row(2, "b", "UPDATE_BEFORE", None, s[6]), row(2, "b2", "UPDATE_AFTER", None, s[6]),
    row(3, "c", "UPDATE_BEFORE", None, s[6]), row(3, "X", "UPDATE_AFTER", None, s[6]),
    row(4, "d", "DELETE", None, s[6]),
    row(5, "e", "UPDATE_BEFORE", None, s[6]), row(5, "Y", "UPDATE_AFTER", None, s[6]),
    row(6, "f", "INSERT", None, s[6])], "--net --key id from s1")
c.equal(changes("--from", s[0], "--to", s[3], "--net")[1:], [
    row(2, "b", "DELETE", None, s[3]), row(3, "c", "DELETE", None, s[3]),
    row(3, "X", "INSERT", None, s[3]), row(6, "f", "INSERT", None, s[3]), row(7, "g", "INSERT", None, s[3])],
    "--net without a key: whole rows")

# Points: a tag, a branch, a tag named like a number (the tag wins), a timestamp read in --tz.
floe.sql(f"ALTER TABLE {T} CREATE TAG start AS OF VERSION {s[1]}",
         f"ALTER TABLE {T} CREATE TAG `12345` AS OF VERSION {s[2]}")
c.equal(changes("--from", "start", "--to", "main", "--key", "id"), changes("--from", s[1], "--key", "id"),
        "a tag and a branch as points")
c.equal(changes("--from", s[1], "--to", "12345")[1:], [row(2, "b", "DELETE", 0, s[2])],
        "a tag named like a number is the tag")
made = floe.rows(f"SELECT made_current_at FROM {T}.history WHERE snapshot_id = {s[4]}")[0][0]
fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in made else "%Y-%m-%d %H:%M:%S"
local = (datetime.strptime(made, fmt) + timedelta(hours=2)).strftime(fmt)
r = floe.run("changes", T, "--from", s[3], "--to", local, "--tz", "+02:00", "--format", "csv")
c.equal((r.returncode, r.stderr), (0, ""), "a timestamp in --tz")
rows = list(csv.reader(io.StringIO(r.stdout)))[1:]
c.equal([x[:5] for x in rows], [["4", "d", "DELETE", "0", str(s[4])]], "a timestamp read in --tz")

# JSON: one object per row, typed; the table format under a heading naming the range.
r = floe.run("changes", T, "--from", s[4], "--to", s[5], "--key", "id", "--json")
c.equal([json.loads(line) for line in r.stdout.splitlines()], [
    {"id": 5, "v": v, "_change_type": kind, "_change_ordinal": 0, "_commit_snapshot_id": s[5],
     "_commit_timestamp": floe.commit_time(T, s[5]), "_commit_sequence_number": int(seq[s[5]]),
     "_operation": "overwrite"} for v, kind in (("e", "UPDATE_BEFORE"), ("Y", "UPDATE_AFTER"))], "--json")
r = floe.run("changes", T, "--from", "start", "--to", s[2], "--key", "id")
lines = r.stdout.splitlines()
c.equal(lines[0], "Changes of lakehouse.db.c by key id", "heading")
c.check(re.fullmatch(rf"from: snapshot {s[1]}, committed \S+ \S+ UTC, append \(tag start\)", lines[1]) is not None,
        "from line", lines[1])
c.check(re.fullmatch(rf"to:   snapshot {s[2]}, committed \S+ \S+ UTC, overwrite", lines[2]) is not None,
        "to line", lines[2])
c.equal(lines[4], "| id|  v|_change_type|_change_ordinal|_commit_snapshot_id|   _commit_timestamp|"
                  "_commit_sequence_number|_operation|", "table header")
c.equal(len(lines), 8, "one row")
lines = floe.run("changes", T, "--net").stdout.splitlines()
c.equal(lines[0], "Net changes of lakehouse.db.c", "net heading")
c.equal(lines[1], "from: the table as created", "from the start")
c.check(re.fullmatch(rf"to:   snapshot {s[6]}, committed \S+ \S+ UTC, overwrite \(current\)", lines[2]) is not None,
        "to the current snapshot", lines[2])

# --memory-budget and --spill-dir reach the comparison of the two states.
spill = os.path.join(floe.dir.name, "spill")
os.mkdir(spill)
c.equal(changes("--from", s[0], "--net", "--key", "id", "--memory-budget", "1KB", "--spill-dir", spill),
        changes("--from", s[0], "--net", "--key", "id"), "--memory-budget 1KB")
c.equal(os.listdir(spill), [], "spill files removed")
not_a_directory = os.path.join(spill, "file")
open(not_a_directory, "w").close()
r = floe.run("changes", T, "--from", s[0], "--net", "--spill-dir", not_a_directory)
c.equal((r.returncode, r.stderr), (1, f"Error: Cannot create a spill directory under {not_a_directory}: "
                                      "Not a directory\n"), "--spill-dir is where the comparison spills")


# The invariant: net changes by key are the diff's added, removed and changed rows.
def diff_rows(a, b):
    r = floe.run("diff", T, a, b, "--key", "id", "--json", "--sample", "1000000")
    c.equal(r.returncode, 0, f"diff {a} {b}: {r.stderr}")
    d = json.loads(r.stdout)
    key = lambda x: json.dumps(x, sort_keys=True)  # noqa: E731
    changed = sorted(((p["before"], p["after"]) for p in d["sample"]["changed"]), key=lambda p: key(p[0]))
    return (sorted(d["sample"]["added"], key=key), sorted(d["sample"]["removed"], key=key), changed,
            (d["added"], d["removed"], d["changed"]))


def net_rows(*args):
    r = floe.run("changes", T, *args, "--net", "--key", "id", "--json")
    c.equal(r.returncode, 0, f"changes {args} --net: {r.stderr}")
    objects = [json.loads(line) for line in r.stdout.splitlines()]
    c.check(all(o["_change_ordinal"] is None for o in objects), f"{args}: net rows have no ordinal")
    data = lambda o: {k: v for k, v in o.items() if k not in META}  # noqa: E731
    key = lambda x: json.dumps(x, sort_keys=True)  # noqa: E731
    kinds = [o["_change_type"] for o in objects]
    before = [data(o) for o in objects if o["_change_type"] == "UPDATE_BEFORE"]
    after = [data(o) for o in objects if o["_change_type"] == "UPDATE_AFTER"]
    c.check([b["id"] for b in before] == [a["id"] for a in after], f"{args}: update images pair by key")
    added = sorted((data(o) for o in objects if o["_change_type"] == "INSERT"), key=key)
    removed = sorted((data(o) for o in objects if o["_change_type"] == "DELETE"), key=key)
    changed = sorted(zip(before, after), key=lambda p: key(p[0]))
    return added, removed, changed, (len(added), len(removed), kinds.count("UPDATE_BEFORE"))


def same_as_diff(a, b, *args):
    got, want = net_rows(*args), diff_rows(a, b)
    c.equal(got, want, f"changes {args} --net --key id = diff {a} {b} --key id")


def same_sides_as_diff(a, b, *args):
    """For a key with several rows the diff pairs them in the order it reads them, which varies
    from run to run: compare the rows each side holds and the counts, not the pairs."""
    key = lambda x: json.dumps(x, sort_keys=True)  # noqa: E731

    def sides(d):
        added, removed, changed, counts = d
        return (sorted(removed + [p[0] for p in changed], key=key), sorted(added + [p[1] for p in changed], key=key),
                counts)

    c.equal(sides(net_rows(*args)), sides(diff_rows(a, b)), f"changes {args} --net --key id: the diff's rows")


for i in range(len(s)):
    for j in range(i, len(s)):
        same_as_diff(s[i], s[j], "--from", s[i], "--to", s[j])
# Between branches: no line of history, the two states compared.
floe.sql(f"ALTER TABLE {T} CREATE BRANCH dev AS OF VERSION {s[2]}",
         f"INSERT INTO {T}.branch_dev VALUES (9, 'i'), (8, 'h')",
         f"ALTER TABLE {T} CREATE BRANCH twin AS OF VERSION {s[2]}",
         f"INSERT INTO {T}.branch_twin VALUES (3, 'c2')")  # two rows of key 3 on twin
same_as_diff("dev", "main", "--from", "dev", "--to", "main")
same_as_diff("main", "dev", "--from", "main", "--to", "dev")
same_as_diff(s[1], "dev", "--from", s[1], "--to", "dev")
same_sides_as_diff("twin", "main", "--from", "twin", "--to", "main")
same_sides_as_diff("main", "twin", "--from", "main", "--to", "twin")
# Across a rollback: main is back at s5, after s7. Named as main (the head of the branch) the
# range is the two states compared; named as a fixed snapshot it runs backwards and is refused.
floe.sql(f"CALL lakehouse.system.rollback_to_snapshot('{T}', {s[4]})")
same_as_diff(s[6], "main", "--from", s[6], "--to", "main")
same_as_diff(s[6], "main", "--from", s[6])
c.equal(net_rows("--from", s[6])[3], (1, 1, 2), "after the rollback: the state at s5 against the state at s7")
r = floe.run("changes", T, "--from", s[6], "--to", s[4])
c.equal((r.returncode, r.stderr, r.stdout),
        (1, f"Error: Starting snapshot (exclusive) {s[6]} is after end snapshot {s[4]} in table lakehouse.db.c\n", ""),
        "a range backwards")

# Errors: one line, status 1, nothing on stdout.
for args, message in [
        (("--from", "nope"), "Cannot resolve 'nope' in table lakehouse.db.c: it is not a branch or tag, a snapshot "
                             "id or a timestamp"),
        (("--to", "42"), "Cannot find snapshot with ID 42 in table lakehouse.db.c"),
        (("--from", "2000-01-01"), "Cannot find a snapshot older than 2000-01-01T00:00:00+00:00"),
        (("--format", "xml"), "--format: xml not in {table,csv,json,markdown}"),
        (("--key", "nope"), "Cannot find identifier column 'nope' in table lakehouse.db.c"),
        (("--updates",), "Cannot compute the update images because identifier columns are not set"),
        (("--memory-budget", "lots"), "Invalid size 'lots': expected a number and a unit, e.g. 256MB"),
        (("--limit", "-1"), "--limit must be 0 or more, not -1")]:
    r = floe.run("changes", T, *args)
    c.equal((r.returncode, r.stderr, r.stdout), (1, f"Error: {message}\n", ""), f"changes {args}")
r = floe.run("changes", "db.nope")
c.equal((r.returncode, r.stderr), (1, "Error: Table lakehouse.db.nope not found\n"), "unknown table")

floe.close()
c.done("changes")
