#!/usr/bin/env python3
"""`floe tag` and `floe branch`: create, replace and drop print the ALTER TABLE statement they
ran and where the ref points now; list reads the refs table; --json shapes; one-line errors.
Usage: refs_test.py FLOE_BINARY"""
import json
import sys

from cli_checks import Floe

f = Floe(sys.argv[1])
f.sql("CREATE NAMESPACE db", "CREATE TABLE db.t (id BIGINT) USING iceberg", "INSERT INTO db.t VALUES (1)")
s1 = f.value("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'")
f.sql("INSERT INTO db.t VALUES (2)")
s2 = f.value("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'")


def refs():
    return f.sql("SELECT name, type, snapshot_id, max_reference_age_in_ms, min_snapshots_to_keep, "
                 "max_snapshot_age_in_ms FROM db.t.refs ORDER BY name").splitlines()[1:]


# Tags.
f.expect(f.run("tag", "create", "db.t", "v1"), 0,
         f"ALTER TABLE lakehouse.db.t CREATE TAG v1\nTag v1 of lakehouse.db.t points at snapshot {s2}\n", "")
f.expect(f.run("tag", "create", "lakehouse.db.t", "first", "--snapshot-id", s1, "--retain", "7"), 0,
         f"ALTER TABLE lakehouse.db.t CREATE TAG first AS OF VERSION {s1} RETAIN 7 DAYS\n"
         f"Tag first of lakehouse.db.t points at snapshot {s1}\n", "")
f.expect(f.run("tag", "create", "db.t", "first", "--if-not-exists", "--json"), 0,
         '{"table": "lakehouse.db.t", "type": "tag", "action": "create", "name": "first", '
         f'"snapshot_id": {s1}, "sql": "ALTER TABLE lakehouse.db.t CREATE TAG IF NOT EXISTS first"}}\n', "")
f.expect(f.run("tag", "replace", "db.t", "v1", "--snapshot-id", s1, "--retain", "12h"), 0,
         f"ALTER TABLE lakehouse.db.t REPLACE TAG v1 AS OF VERSION {s1} RETAIN 12 HOURS\n"
         f"Tag v1 of lakehouse.db.t points at snapshot {s1}\n", "")
f.expect(f.run("tag", "replace", "db.t", "my tag", "--create", "--retain", "2w"), 0,
         "ALTER TABLE lakehouse.db.t CREATE OR REPLACE TAG `my tag` RETAIN 14 DAYS\n"
         f"Tag my tag of lakehouse.db.t points at snapshot {s2}\n", "")
f.check(refs() == [f"first,TAG,{s1},604800000,,", f"main,BRANCH,{s2},,,", f"my tag,TAG,{s2},1209600000,,",
                   f"v1,TAG,{s1},43200000,,"], "tags in the refs table", refs())
f.expect(f.run("tag", "list", "db.t", "--json"), 0,
         '{"table": "lakehouse.db.t", "tags": ['
         f'{{"name": "first", "snapshot_id": {s1}, "max_reference_age_ms": 604800000}}, '
         f'{{"name": "my tag", "snapshot_id": {s2}, "max_reference_age_ms": 1209600000}}, '
         f'{{"name": "v1", "snapshot_id": {s1}, "max_reference_age_ms": 43200000}}]}}\n', "")
r = f.run("tag", "list", "db.t")
f.check(r.returncode == 0 and r.stdout.splitlines()[1] == "|name  |snapshot_id        |max_reference_age_in_ms|".replace(
    "snapshot_id        ", "snapshot_id".ljust(max(len("snapshot_id"), len(s1), len(s2))))
        and len(r.stdout.splitlines()) == 7 and f"|v1    |{s1}" in r.stdout, "tag list", r.stdout, r.stderr)
f.expect(f.run("tag", "drop", "db.t", "my tag"), 0,
         "ALTER TABLE lakehouse.db.t DROP TAG `my tag`\nTag my tag of lakehouse.db.t dropped\n", "")
f.expect(f.run("tag", "drop", "db.t", "my tag", "--if-exists"), 0,
         "ALTER TABLE lakehouse.db.t DROP TAG IF EXISTS `my tag`\nTag my tag of lakehouse.db.t does not exist\n", "")
f.expect(f.run("tag", "drop", "db.t", "first", "--json"), 0,
         '{"table": "lakehouse.db.t", "type": "tag", "action": "drop", "name": "first", "snapshot_id": null, '
         '"sql": "ALTER TABLE lakehouse.db.t DROP TAG first"}\n', "")

# Branches, with their snapshot retention (a replace keeps the age it does not set).
f.expect(f.run("branch", "create", "db.t", "audit", "--snapshot-id", s1, "--retain", "30d",
               "--min-snapshots", "3", "--max-snapshot-age", "2d"), 0,
         f"ALTER TABLE lakehouse.db.t CREATE BRANCH audit AS OF VERSION {s1} RETAIN 30 DAYS "
         "WITH SNAPSHOT RETENTION 3 SNAPSHOTS 2 DAYS\n"
         f"Branch audit of lakehouse.db.t points at snapshot {s1}\n", "")
f.expect(f.run("branch", "create", "db.t", "dev", "--max-snapshot-age", "90m"), 0,
         "ALTER TABLE lakehouse.db.t CREATE BRANCH dev WITH SNAPSHOT RETENTION 90 MINUTES\n"
         f"Branch dev of lakehouse.db.t points at snapshot {s2}\n", "")
f.sql("INSERT INTO db.t.branch_audit VALUES (10)")
a1 = f.value("SELECT snapshot_id FROM db.t.refs WHERE name = 'audit'")
f.check(f.sql("SELECT id FROM db.t.branch_audit ORDER BY id").splitlines() == ["id", "1", "10"],
        "a branch created by floe branch takes writes")
f.expect(f.run("branch", "replace", "db.t", "dev", "--snapshot-id", a1, "--min-snapshots", "1"), 0,
         f"ALTER TABLE lakehouse.db.t REPLACE BRANCH dev AS OF VERSION {a1} WITH SNAPSHOT RETENTION 1 SNAPSHOTS\n"
         f"Branch dev of lakehouse.db.t points at snapshot {a1}\n", "")
f.expect(f.run("branch", "list", "db.t", "--json"), 0,
         '{"table": "lakehouse.db.t", "branches": ['
         f'{{"name": "audit", "snapshot_id": {a1}, "max_reference_age_ms": 2592000000, "min_snapshots_to_keep": 3, '
         '"max_snapshot_age_ms": 172800000}, '
         f'{{"name": "dev", "snapshot_id": {a1}, "max_reference_age_ms": null, "min_snapshots_to_keep": 1, '
         '"max_snapshot_age_ms": 5400000}, '
         f'{{"name": "main", "snapshot_id": {s2}, "max_reference_age_ms": null, "min_snapshots_to_keep": null, '
         '"max_snapshot_age_ms": null}]}\n', "")
f.expect(f.run("branch", "drop", "db.t", "dev"), 0,
         "ALTER TABLE lakehouse.db.t DROP BRANCH dev\nBranch dev of lakehouse.db.t dropped\n", "")
f.check([r.split(",")[0] for r in refs()] == ["audit", "main", "v1"], "refs after the round trips", refs())

# User errors: the engine's message without SQL positions, status 1, nothing changed.
before = refs()
f.expect(f.run("tag", "create", "db.t", "v1"), 1, "", "Error: Ref v1 already exists\n")
f.expect(f.run("tag", "replace", "db.t", "nope"), 1, "", "Error: Tag does not exist: nope\n")
f.expect(f.run("tag", "drop", "db.t", "nope"), 1, "", "Error: Tag does not exist: nope\n")
f.expect(f.run("branch", "drop", "db.t", "main"), 1, "", "Error: Cannot remove main branch\n")
f.expect(f.run("branch", "drop", "db.t", "v1"), 1, "", "Error: Ref v1 is a tag not a branch\n")
f.expect(f.run("tag", "create", "db.t", "x", "--snapshot-id", "42"), 1, "", "Error: Cannot set x to unknown snapshot: 42\n")
f.expect(f.run("tag", "create", "db.t", "x", "--retain", "3x"), 1, "",
         "Error: Invalid duration '3x' for --retain: expected days (7) or a number with a unit d, h, m or w (12h)\n")
f.expect(f.run("branch", "create", "db.t", "x", "--max-snapshot-age", "h"), 1, "",
         "Error: Invalid duration 'h' for --max-snapshot-age: expected days (7) or a number with a unit d, h, m or w (12h)\n")
f.expect(f.run("tag", "create", "db.nope", "x"), 1, "", "Error: Table lakehouse.db.nope not found\n")
f.expect(f.run("tag", "create", "db.t"), 1, "", "Error: name is required\n")
f.expect(f.run("tag", "list", "db.t", "--min-snapshots", "1"), 1, "",
         "Error: The following arguments were not expected: 1 --min-snapshots\n")
f.expect(f.run("tag", "create", "db.t", "x", "--min-snapshots", "1"), 1, "",
         "Error: The following arguments were not expected: 1 --min-snapshots\n")
f.expect(f.run("tag"), 1, "", "Error: A subcommand is required\n")
f.check(refs() == before, "failed commands changed no ref", refs())

f.finish("refs")
