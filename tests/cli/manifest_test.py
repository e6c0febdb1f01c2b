#!/usr/bin/env python3
"""`floe manifest create` and `floe manifest open`: the recorded snapshots, the JSON shapes,
no overwrite without --force, a bad manifest refused before any statement runs, and the shell
running -c and -f as `floe sql` does. With --pinned-read: after a later insert, reads through
the opened manifest still see the recorded snapshot (the session setting
floe.read.run-manifest).
Usage: manifest_test.py FLOE_BINARY [--pinned-read]"""
import json
import os
import sys

from cli_checks import Floe

f = Floe(sys.argv[1])
f.sql("CREATE NAMESPACE db", "CREATE TABLE db.t (id BIGINT) USING iceberg", "INSERT INTO db.t VALUES (1), (2)",
      "CREATE TABLE db.u (k STRING) USING iceberg", "INSERT INTO db.u VALUES ('x')")
t1 = f.value("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'")
u1 = f.value("SELECT snapshot_id FROM db.u.refs WHERE name = 'main'")
run = f"{f.dir}/run.json"

if "--pinned-read" in sys.argv:
    f.expect(f.run("manifest", "create", "db.t", "db.u", "-o", "run.json"), 0)
    f.sql("INSERT INTO db.t VALUES (3)", "INSERT INTO db.u VALUES ('y')")
    f.expect(f.run("manifest", "open", "run.json", "--format", "csv",
                   "-c", "SELECT count(*) AS n, sum(id) AS s FROM db.t",
                   "-c", "SELECT count(*) AS n FROM db.u JOIN db.t ON true"), 0,
             "n,s\n2,3\nn\n2\n", "", "reads through the manifest see the recorded snapshots")
    # Outside the manifest's shell, the tables have moved on.
    f.check(f.value("SELECT count(*) FROM db.t") == "3", "the current state has the later insert")
    f.finish("manifest (pinned read)")
    sys.exit(0)

# create: one snapshot per table, relative paths from the current directory.
f.expect(f.run("manifest", "create", "db.t", "lakehouse.db.u", "-o", "run.json"), 0,
         f"Run manifest {run}:\n  lakehouse.db.t at snapshot {t1}\n  lakehouse.db.u at snapshot {u1}\n", "")
manifest = json.load(open(run))
f.check(list(manifest) == ["run_started_at", "run_started_at_ms", "sources"]
        and list(manifest["sources"]) == ["lakehouse.db.t", "lakehouse.db.u"]
        and manifest["sources"]["lakehouse.db.t"]["snapshot_id"] == int(t1)
        and manifest["sources"]["lakehouse.db.u"]["snapshot_id"] == int(u1), "the manifest file", manifest)

# Never overwritten without --force.
f.sql("INSERT INTO db.t VALUES (3)")
t2 = f.value("SELECT snapshot_id FROM db.t.refs WHERE name = 'main'")
f.expect(f.run("manifest", "create", "db.t", "-o", run), 1, "",
         f"Error: Run manifest {run} already exists; --force replaces it\n")
f.check(json.load(open(run)) == manifest, "a refused create leaves the file alone")
r = f.run("manifest", "create", "db.t", "-o", run, "--force", "--json")
doc = json.loads(r.stdout) if r.returncode == 0 else {}
f.check(list(doc) == ["path", "manifest"] and doc["path"] == run and doc["manifest"] == json.load(open(run))
        and doc["manifest"]["sources"]["lakehouse.db.t"]["snapshot_id"] == int(t2), "create --force --json", r.stdout, r.stderr)

# Errors of create: nothing is written.
f.expect(f.run("manifest", "create", "db.t", "db.t", "-o", "twice.json"), 1, "",
         "Error: Table lakehouse.db.t is listed twice\n")
f.expect(f.run("manifest", "create", "db.nope", "-o", "nope.json"), 1, "", "Error: Table lakehouse.db.nope not found\n")
f.sql("CREATE TABLE db.empty (id BIGINT) USING iceberg")
f.expect(f.run("manifest", "create", "db.empty", "-o", "empty.json"), 1, "",
         "Error: Table lakehouse.db.empty has no current snapshot to record\n")
f.expect(f.run("manifest", "create", "db.t"), 1, "", "Error: --output is required\n")
f.check(not any(os.path.exists(f"{f.dir}/{n}") for n in ["twice.json", "nope.json", "empty.json"]),
        "failed creates write no file")

# open: the floe sql shell, -c and -f in order, its output formats and exit statuses.
with open(f"{f.dir}/q.sql", "w") as q:
    q.write("SELECT k FROM db.u;\n")
f.expect(f.run("manifest", "open", run, "--format", "csv", "-c", "SELECT 1 AS one", "-f", "q.sql"), 0,
         "one\n1\nk\nx\n", "")
r = f.run("manifest", "open", run, "-c", "SELECT nope FROM db.t")
f.check(r.returncode == 1 and r.stderr.startswith("Error: [UNRESOLVED_COLUMN"), "a failed statement exits 1",
        r.stdout, r.stderr)

# A bad manifest fails up front, before any statement runs.
f.expect(f.run("manifest", "open", "missing.json", "-c", "CREATE TABLE db.z (id INT)"), 1, "",
         f"Error: Cannot read file {f.dir}/missing.json: file does not exist\n")
with open(f"{f.dir}/bad.json", "w") as bad:
    bad.write('{"run_started_at_ms": 1}')
f.expect(f.run("manifest", "open", "bad.json", "-c", "CREATE TABLE db.z (id INT)"), 1, "",
         f'Error: {f.dir}/bad.json: Invalid run manifest: no "sources" object\n')
other = dict(manifest)
other["sources"] = {"elsewhere.db.t": manifest["sources"]["lakehouse.db.t"]}
json.dump(other, open(f"{f.dir}/other.json", "w"))
f.expect(f.run("manifest", "open", "other.json", "-c", "CREATE TABLE db.z (id INT)"), 1, "",
         "Error: Run manifest source elsewhere.db.t is in another catalog, not lakehouse\n")
f.sql("CALL lakehouse.system.expire_snapshots(table => 'db.u', older_than => TIMESTAMP '2999-01-01 00:00:00', "
      "retain_last => 1)", "INSERT INTO db.u VALUES ('y')",
      "CALL lakehouse.system.expire_snapshots(table => 'db.u', older_than => TIMESTAMP '2999-01-01 00:00:00', "
      "retain_last => 1)")
json.dump(manifest, open(f"{f.dir}/old.json", "w"))
f.expect(f.run("manifest", "open", "old.json", "-c", "CREATE TABLE db.z (id INT)"), 1, "",
         f"Error: Table lakehouse.db.u: Cannot find snapshot with ID {u1}\n")
f.sql("DROP TABLE db.u", "CREATE TABLE db.u (k STRING) USING iceberg", "INSERT INTO db.u VALUES ('z')")
json.dump(manifest, open(f"{f.dir}/recreated.json", "w"))
r = f.run("manifest", "open", "recreated.json", "-c", "CREATE TABLE db.z (id INT)")
f.check(r.returncode == 1 and r.stderr.startswith("Error: Table lakehouse.db.u is not the table the run manifest "
                                                  "recorded (uuid ") and r.stderr.count("\n") == 1,
        "a re-created table is refused", r.stderr)
f.expect(f.run("show", "db.z"), 1, "", "Error: Table lakehouse.db.z not found\n",
         "no statement ran after a refused manifest")
f.expect(f.run("manifest", "open"), 1, "", "Error: manifest is required\n")

f.finish("manifest")
