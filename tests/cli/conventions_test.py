#!/usr/bin/env python3
"""What every subcommand of the floe command keeps: the catalog options with --tz, --json
where it prints data, --help with status 0, and the exit statuses: 0 success, 1 a user error
(bad arguments included) as one `Error:` line on standard error, 2 a failed check.
Usage: conventions_test.py FLOE_BINARY"""
import sys

from cli_checks import Floe

f = Floe(sys.argv[1])
f.sql("CREATE NAMESPACE db", "CREATE TABLE db.t (id BIGINT) USING iceberg", "INSERT INTO db.t VALUES (1)")

# (subcommand words, prints data as JSON with --json)
commands = [
    (["sql"], False), (["demo"], False), (["history"], True), (["show"], True),
    (["tag", "create"], True), (["tag", "replace"], True), (["tag", "drop"], True), (["tag", "list"], True),
    (["branch", "create"], True), (["branch", "replace"], True), (["branch", "drop"], True),
    (["branch", "list"], True), (["manifest", "create"], True), (["manifest", "open"], False),
    (["retention"], True), (["verify"], True), (["changes"], True),
]
for words, json_flag in commands:
    r = f.run(*words, "--help")
    f.check(r.returncode == 0 and r.stderr == "", f"floe {' '.join(words)} --help exits 0", r.stderr)
    for option in ["--catalog", "--warehouse", "--catalog-name", "--allow-root", "--tz", "--s3-endpoint",
                   "--s3-region", "--s3-path-style", "--s3-connect-timeout", "--s3-request-timeout",
                   "--s3-max-attempts"]:
        f.check(f"\n  {option} " in r.stdout, f"floe {' '.join(words)} has {option}", r.stdout)
    f.check(("\n  --json" in r.stdout) == json_flag, f"floe {' '.join(words)}: --json {json_flag}", r.stdout)
    r = f.run(*words, "--no-such-option")
    f.check(r.returncode == 1 and r.stdout == "" and r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1,
            f"floe {' '.join(words)} --no-such-option: status 1 and one Error line", r.returncode, r.stderr)

f.expect(f.run(), 1, "", "Error: A subcommand is required\n")
f.expect(f.run("bogus"), 1, "", "Error: Unknown subcommand: bogus\n")
f.expect(f.run("branch", "rename", "db.t"), 1, "", "Error: Unknown subcommand: rename\n")
f.expect(f.run("--help"), 0, None, "")
r = f.run("--version")
f.check(r.returncode == 0 and r.stdout.startswith("floe "), "floe --version", r.stdout)
f.expect(f.run("show", "db.t", "--limit", "x"), 1, "", "Error: Could not convert: --limit = x\n")
f.expect(f.run("history", "db.t", "--tz", "Nowhere/Town"), 1, "", "Error: Unknown time zone: 'Nowhere/Town'\n")
f.expect(f.run("tag", "list", "db.t", "--tz", "Europe/Paris", "--json"), 0,
         '{"table": "lakehouse.db.t", "tags": []}\n', "")
# A failed check: 2 (retention with a horizon the settings cannot keep).
r = f.run("retention", "db.t", "--require", "30d")
f.check(r.returncode == 2 and r.stderr == "", "a failed check exits 2", r.returncode, r.stderr)

f.finish("conventions")
