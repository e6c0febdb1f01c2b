"""`floe sql` on an s3:// warehouse, against the S3 server of the ctest fixture `s3`
(FLOE_TEST_S3 names the directory whose file `endpoint` holds its address): a table's life
(create, insert, time travel by id and by timestamp, rollback, expire_snapshots deleting its
objects, remove_orphan_files listing the bucket), each step checked against the objects the
bucket holds; then uploads failing (500, 503) and stalling behind a fault-injecting proxy: the
commit fails with an error naming the object, the table reads exactly as before, and no file
object is left behind; and a data file over 1 MiB read through the proxy, its row groups fetched
ahead in pieces. Usage: s3_test.py FLOE_BINARY"""

import csv
import io
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from floe_cli import Checks  # noqa: E402
import s3_fault_proxy  # noqa: E402
import s3_server  # noqa: E402

binary = os.path.realpath(sys.argv[1])
with open(os.path.join(os.environ["FLOE_TEST_S3"], "endpoint")) as f:
    endpoint = f.read().strip()
c = Checks()
tmp = tempfile.TemporaryDirectory(prefix="floe-s3-")
bucket = f"floe-cli-{os.getpid()}"
s3_server.client(endpoint).create_bucket(Bucket=bucket)
warehouse = f"s3://{bucket}/wh"
env = dict(os.environ)
env.update({"AWS_ACCESS_KEY_ID": s3_server.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": s3_server.SECRET_KEY,
            "AWS_REGION": s3_server.REGION, "FLOE_CATALOG": os.path.join(tmp.name, "catalog.db"),
            "FLOE_WAREHOUSE": warehouse, "TMPDIR": tmp.name})
for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
    env.pop(name, None)


def run_sql(*statements, via=None, extra=()):
    """`floe sql` on the warehouse, through the server or the proxy `via`."""
    args = [binary, "sql", "--format", "csv", "--s3-endpoint", via or endpoint, *extra]
    for s in statements:
        args += ["-c", s]
    start = time.time()
    r = subprocess.run(args, env=env, text=True, capture_output=True, stdin=subprocess.DEVNULL,
                       timeout=300)
    r.seconds = time.time() - start
    return r


def rows(*statements, **kw):
    """The rows the last statement answers (CSV, header dropped)."""
    r = run_sql(*statements, **kw)
    assert r.returncode == 0, f"{statements}: {r.stderr}"
    out = r.stdout
    if statements[0].startswith("SET "):  # its own two lines: key,value and the setting
        out = out.split("\n", 2)[2]
    return list(csv.reader(io.StringIO(out)))[1:]


def ok(*statements):
    r = run_sql(*statements)
    assert r.returncode == 0, f"{statements}: {r.stderr}"
    return r


def objects():
    """Every object of the bucket: (key, size), directory markers ("dir/", size 0) included."""
    return s3_server.list_objects(endpoint, bucket)


def files():
    """The keys of the objects that are files (not directory markers)."""
    return [k for k, _ in objects() if not k.endswith("/")]


def kinds(keys):
    """How many of each kind of table file the keys hold."""
    out = {"metadata": 0, "manifest-list": 0, "manifest": 0, "data": 0, "other": 0}
    for k in keys:
        name = k.rsplit("/", 1)[1]
        if k.startswith("wh/db/t/metadata/") and name.endswith(".metadata.json"):
            out["metadata"] += 1
        elif k.startswith("wh/db/t/metadata/snap-") and name.endswith(".avro"):
            out["manifest-list"] += 1
        elif k.startswith("wh/db/t/metadata/") and name.endswith("-m0.avro"):
            out["manifest"] += 1
        elif k.startswith("wh/db/t/data/") and name.endswith(".parquet"):
            out["data"] += 1
        else:
            out["other"] += 1
    return out


T = "db.t"

# ---- a table's life on S3 ----
ok("CREATE NAMESPACE db", f"CREATE TABLE {T} (id BIGINT, v STRING) USING iceberg")
created = objects()
c.equal(len(created), 1, f"one object after CREATE TABLE: {created}")
c.check(re.fullmatch(r"wh/db/t/metadata/00000-[0-9a-f-]{36}\.metadata\.json", created[0][0]) is not None,
        "the first metadata file", created)
loc = [r for r in rows("DESCRIBE TABLE EXTENDED db.t") if r and r[0] == "Location"]
c.equal(loc, [["Location", f"{warehouse}/db/t", ""]], "the table's location is in the bucket")

ok(f"INSERT INTO {T} VALUES (1, 'a'), (2, 'b')")
s1 = int(rows(f"SELECT snapshot_id FROM {T}.refs WHERE name = 'main'")[0][0])
t1 = rows(f"SELECT committed_at FROM {T}.snapshots WHERE snapshot_id = {s1}")[0][0]
time.sleep(0.05)
ok(f"INSERT INTO {T} VALUES (3, 'c')")
s2 = int(rows(f"SELECT snapshot_id FROM {T}.refs WHERE name = 'main'")[0][0])
after_inserts = files()
c.equal(kinds(after_inserts), {"metadata": 3, "manifest-list": 2, "manifest": 2, "data": 2, "other": 0},
        f"files after two inserts: {after_inserts}")
c.equal([k for k, _ in objects() if k.endswith("/")], [], "no directory marker before any delete")

c.equal(rows(f"SELECT * FROM {T} ORDER BY id"), [["1", "a"], ["2", "b"], ["3", "c"]], "current rows")
c.equal(rows(f"SELECT * FROM {T} VERSION AS OF {s1} ORDER BY id"), [["1", "a"], ["2", "b"]],
        "time travel by snapshot id")
c.equal(rows(f"SELECT * FROM {T} TIMESTAMP AS OF '{t1}' ORDER BY id"), [["1", "a"], ["2", "b"]],
        "time travel by timestamp")

ok(f"CALL lakehouse.system.rollback_to_snapshot('{T}', {s1})")
c.equal(rows(f"SELECT snapshot_id FROM {T}.refs WHERE name = 'main'"), [[str(s1)]], "rolled back to s1")
c.equal(rows(f"SELECT * FROM {T} ORDER BY id"), [["1", "a"], ["2", "b"]], "rows after the rollback")
c.equal(rows(f"SELECT * FROM {T} VERSION AS OF {s2} ORDER BY id"), [["1", "a"], ["2", "b"], ["3", "c"]],
        "s2 still readable before expiry")
after_rollback = files()
c.equal(kinds(after_rollback)["metadata"], 4, "a rollback writes one metadata file and no data")
c.equal(kinds(after_rollback)["data"], 2, "a rollback writes no data file")

# Expiring s2 (no longer an ancestor of main) deletes the objects only it reached: its data
# file, its manifest and its manifest list.
expired = rows(f"CALL lakehouse.system.expire_snapshots(table => '{T}', "
               "older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)")
c.equal(expired, [["1", "0", "0", "1", "1", "0"]], "expire_snapshots counts")
after_expire = files()
gone = sorted(set(after_rollback) - set(after_expire))
c.equal(kinds(gone), {"metadata": 0, "manifest-list": 1, "manifest": 1, "data": 1, "other": 0},
        f"objects expiry deleted: {gone}")
c.equal(sorted(set(after_expire) - set(after_rollback)),
        [k for k in after_expire if k not in after_rollback], "expiry adds only its metadata file")
c.equal(kinds(after_expire)["metadata"], 5, "expiry commits one metadata file")
c.equal(rows(f"SELECT count(*) FROM {T}.snapshots"), [["1"]], "one snapshot left")
r = run_sql(f"SELECT * FROM {T} VERSION AS OF {s2}")
c.equal((r.returncode, r.stderr.splitlines()[0]),
        (1, f"Error: Cannot find matching snapshot ID or reference name for version {s2} "
            "(line 1, column 34)"), "an expired snapshot cannot be read")
# Arrow's S3 file system leaves a directory marker for the parent of each object it deletes.
markers = sorted(k for k, _ in objects() if k.endswith("/"))
c.equal(markers, ["wh/db/t/data/", "wh/db/t/metadata/"], "directory markers after deletes")

# remove_orphan_files lists the table's prefix in the bucket: an object no metadata reaches
# is an orphan; the directory markers are not files.
orphan = "wh/db/t/data/00000-0-orphan.parquet"
stray = "wh/db/t-other/not-this-table.parquet"  # same prefix characters, another directory
client = s3_server.client(endpoint)
client.put_object(Bucket=bucket, Key=orphan, Body=b"orphan")
client.put_object(Bucket=bucket, Key=stray, Body=b"stray")
future = "TIMESTAMP '2999-01-01 00:00:00'"
# spark.testing lets older_than be younger than a day, as in Iceberg.
testing = "SET spark.testing = true"
c.equal(rows(testing, f"CALL lakehouse.system.remove_orphan_files(table => '{T}', older_than => {future}, "
                      "dry_run => true)"), [[f"s3://{bucket}/{orphan}"]], "orphans found (dry run)")
c.check(orphan in files(), "a dry run deletes nothing")
c.equal(rows(testing, f"CALL lakehouse.system.remove_orphan_files(table => '{T}', older_than => {future})"),
        [[f"s3://{bucket}/{orphan}"]], "orphans removed")
c.equal(sorted(files()), sorted(after_expire + [stray]), "only the orphan was deleted")
c.equal(rows(f"SELECT * FROM {T} ORDER BY id"), [["1", "a"], ["2", "b"]], "the table reads the same")
client.delete_object(Bucket=bucket, Key=stray)

# ---- uploads failing and stalling ----
# Each fault leaves the table exactly as it was (same snapshot, same rows) and the bucket with
# exactly the files it had; the error names the object that could not be written.
before_rows = rows(f"SELECT * FROM {T} ORDER BY id")
before_snapshot = rows(f"SELECT snapshot_id FROM {T}.refs WHERE name = 'main'")
quick = ["--s3-request-timeout", "1", "--s3-connect-timeout", "1", "--s3-max-attempts", "2"]
insert = f"INSERT INTO {T} VALUES (4, 'd')"


def unchanged(what):
    c.equal(rows(f"SELECT snapshot_id FROM {T}.refs WHERE name = 'main'"), before_snapshot,
            f"{what}: the current snapshot is unchanged")
    c.equal(rows(f"SELECT * FROM {T} ORDER BY id"), before_rows, f"{what}: the rows are unchanged")
    c.equal(sorted(files()), sorted(after_expire), f"{what}: no file object left behind")
    c.equal(s3_server.list_uploads(endpoint, bucket), [], f"{what}: no multipart upload left open")


with s3_fault_proxy.FaultProxy(endpoint) as proxy:
    for status, code in ((500, "INTERNAL_FAILURE"), (503, "SLOW_DOWN")):
        # Every upload fails: the first data file is never written.
        proxy.clear()
        proxy.fail("PUT", status=status)
        r = run_sql(insert, via=proxy.endpoint, extra=quick)
        c.equal(r.returncode, 1, f"all PUTs {status}: exit status")
        c.check(re.search(rf"Error: .*Cannot write file s3://{bucket}/wh/db/t/data/[^ :]+\.parquet: "
                          rf".*AWS Error {code} during PutObject", r.stderr) is not None,
                f"all PUTs {status}: the error names the data file", r.stderr)
        c.equal(proxy.hits("fail") >= 2, True, f"all PUTs {status}: retried once ({proxy.log})")
        unchanged(f"all PUTs {status}")

    # Only the new metadata file fails (twice: both attempts): the data file and manifests
    # were uploaded and must be removed again.
    proxy.clear()
    proxy.log.clear()
    proxy.fail("PUT", status=500, key=r"\.metadata\.json$")
    r = run_sql(insert, via=proxy.endpoint, extra=quick)
    c.equal(r.returncode, 1, "metadata PUT 500: exit status")
    c.check(re.search(rf"Cannot write file s3://{bucket}/wh/db/t/metadata/00005-[0-9a-f-]+\.metadata\.json",
                      r.stderr) is not None, "metadata PUT 500: the error names the metadata file", r.stderr)
    uploaded = sorted({p for m, p, a in proxy.log if m == "PUT" and a == "forward" and not p.endswith("/")})
    c.equal(len(uploaded), 3, f"metadata PUT 500: data file, manifest and manifest list were uploaded: {uploaded}")
    unchanged("metadata PUT 500")

    # Uploads stall: the request timeout ends each attempt, in seconds.
    proxy.clear()
    proxy.stall("PUT", seconds=60)
    r = run_sql(insert, via=proxy.endpoint, extra=quick)
    c.equal(r.returncode, 1, "stalled PUTs: exit status")
    c.check(re.search(rf"Cannot write file s3://{bucket}/wh/db/t/data/[^ :]+\.parquet: .*"
                      r"(Timeout was reached|timed out)", r.stderr) is not None,
            "stalled PUTs: the error names the data file and the timeout", r.stderr)
    c.check(r.seconds < 60, "stalled PUTs: failed within seconds", f"{r.seconds:.1f} s")
    print(f"stalled PUTs failed the insert in {r.seconds:.1f} s")
    unchanged("stalled PUTs")

    # The stall only on the metadata file: everything else is uploaded, then removed.
    proxy.clear()
    proxy.stall("PUT", seconds=60, key=r"\.metadata\.json$")
    r = run_sql(insert, via=proxy.endpoint, extra=quick)
    c.equal(r.returncode, 1, "stalled metadata PUT: exit status")
    c.check(re.search(rf"Cannot write file s3://{bucket}/wh/db/t/metadata/00005-", r.stderr) is not None,
            "stalled metadata PUT: the error names the metadata file", r.stderr)
    unchanged("stalled metadata PUT")

    # With the faults gone, the same statement commits.
    proxy.clear()
    r = run_sql(insert, via=proxy.endpoint, extra=quick)
    c.equal((r.returncode, r.stderr), (0, ""), "after the faults: the insert commits")
c.equal(rows(f"SELECT * FROM {T} ORDER BY id"), [["1", "a"], ["2", "b"], ["4", "d"]], "the committed insert")

# Confinement: another bucket, a sibling prefix and '..' are refused before anything is written.
for location, error in (
        (f"s3://floe-test/x", f"Location s3://floe-test/x of table db.x is outside the warehouse {warehouse} "
                              "(allowed roots: none)"),
        (f"s3://{bucket}/wh2/x", f"Location s3://{bucket}/wh2/x of table db.x is outside the warehouse "
                                 f"{warehouse} (allowed roots: none)"),
        (f"s3://{bucket}/wh/../x", f"Location s3://{bucket}/wh/../x of table db.x is not usable: Object "
                                   f"location must not hold empty, '.' or '..' segments: s3://{bucket}/wh/../x")):
    r = run_sql(f"CREATE TABLE db.x (id BIGINT) USING iceberg LOCATION '{location}'")
    c.equal((r.returncode, r.stderr.splitlines()[0] if r.stderr else ""), (1, f"Error: {error}"),
            f"CREATE TABLE LOCATION '{location}' refused")
c.equal([k for k in files() if not k.startswith("wh/db/t/")], [], "nothing written for the refused tables")

# A data file over 1 MiB, in row groups of about 1 MiB: through the proxy its size comes from
# the manifest (no HEAD of it) and its column chunks are fetched ahead in several GETs; the
# answers are the direct read's. A failing GET of it fails the query naming the file.
ok("CREATE TABLE db.big (id BIGINT, s STRING) USING iceberg "
   "TBLPROPERTIES ('write.parquet.row-group-size-bytes'='1048576')",
   "INSERT INTO db.big SELECT id, concat(CAST(id * 2654435761 % 1000000007 AS STRING), '-', "
   "CAST(id * 40503 % 999983 AS STRING)) FROM range(300000)")
big_queries = (
    ("SELECT count(*), sum(id), max(s), count(DISTINCT s) FROM db.big",
     [["300000", "44999850000", "999997511-343513", "300000"]]),
    ("SELECT id, s FROM db.big ORDER BY s DESC LIMIT 2",
     [["182461", "999997511-343513"], ["110703", "999993012-879820"]]))
for query, expected in big_queries:
    c.equal(rows(query), expected, f"direct: {query}")
with s3_fault_proxy.FaultProxy(endpoint) as proxy:
    for query, expected in big_queries:
        proxy.log.clear()
        c.equal(rows(query, via=proxy.endpoint), expected, f"through the proxy: {query}")
        data = [m for m, p, a in proxy.log if p.endswith(".parquet")]
        c.equal(data.count("HEAD"), 0, f"no HEAD of the data file: {query}")
        c.check(data.count("GET") >= 3, f"the data file in several GETs: {query}", data)
    # A filter: the footer's GET brings the page indexes with it, and the one row group they
    # keep comes in one more (the page indexes are not asked for again, one by one).
    proxy.log.clear()
    query = "SELECT count(*), sum(id) FROM db.big WHERE id BETWEEN 160000 AND 160999"
    c.equal(rows(query, via=proxy.endpoint), [["1000", "160499500"]], f"through the proxy: {query}")
    data = [m for m, p, a in proxy.log if p.endswith(".parquet")]
    c.equal(data, ["GET", "GET"], f"the footer with the page indexes, then the row group: {query}")
    # Twice in one session: the second time the footer and its page indexes are in memory,
    # and only the row group is fetched.
    proxy.log.clear()
    r = run_sql(query, query, via=proxy.endpoint)
    c.equal((r.returncode, r.stdout.count("1000,160499500")), (0, 2), f"twice in one session: {query} ({r.stderr})")
    data = [m for m, p, a in proxy.log if p.endswith(".parquet")]
    c.equal(data, ["GET", "GET", "GET"], f"twice in one session, the footer read once: {query}")
    # The metadata file too: one GET, no HEAD before it, and none the second time (its name
    # holds a uuid, so no other file ever has it).
    metadata = [m for m, p, a in proxy.log if p.endswith(".metadata.json")]
    c.equal(metadata, ["GET"], f"twice in one session, the metadata file read once: {query}")
    proxy.fail("GET", status=500, key=r"/db/big/data/.*\.parquet$")
    r = run_sql(big_queries[0][0], via=proxy.endpoint, extra=quick)
    c.equal(r.returncode, 1, "data GETs failing: exit status")
    c.check(re.search(rf"s3://{bucket}/wh/db/big/data/[^ :]+\.parquet", r.stderr) is not None,
            "data GETs failing: the error names the data file", r.stderr)
ok("DROP TABLE db.big PURGE")

# DROP TABLE ... PURGE deletes the table's objects and nothing else.
ok("CREATE TABLE db.p (id BIGINT) USING iceberg", "INSERT INTO db.p VALUES (1)", "INSERT INTO db.p VALUES (2)")
c.equal(kinds([k.replace("wh/db/p/", "wh/db/t/") for k in files() if k.startswith("wh/db/p/")]),
        {"metadata": 3, "manifest-list": 2, "manifest": 2, "data": 2, "other": 0}, "db.p's files")
ok("DROP TABLE db.p PURGE")
c.equal([k for k in files() if k.startswith("wh/db/p/")], [], "DROP TABLE PURGE deleted db.p's objects")
c.equal(rows(f"SELECT * FROM {T} ORDER BY id"), [["1", "a"], ["2", "b"], ["4", "d"]], "db.t is untouched")

# One catalog, one session: a local warehouse with a table there and one in the bucket (an
# allowed root).
mixed = ["--catalog", os.path.join(tmp.name, "mixed.db"), "--warehouse", os.path.join(tmp.name, "local-wh"),
         "--allow-root", f"s3://{bucket}/ext"]
r = run_sql("CREATE NAMESPACE m", "CREATE TABLE m.local (id BIGINT) USING iceberg",
            f"CREATE TABLE m.remote (id BIGINT) USING iceberg LOCATION 's3://{bucket}/ext/remote'",
            "INSERT INTO m.local VALUES (1), (2)", "INSERT INTO m.remote VALUES (2), (3)", extra=mixed)
c.equal((r.returncode, r.stderr), (0, ""), "a local and an S3 table in one session")
c.equal(rows("SELECT l.id FROM m.local l JOIN m.remote r ON l.id = r.id", extra=mixed), [["2"]],
        "a join of a local and an S3 table")
c.equal(kinds([k.replace("ext/remote/", "wh/db/t/") for k in files() if k.startswith("ext/")]),
        {"metadata": 2, "manifest-list": 1, "manifest": 1, "data": 1, "other": 0}, "the S3 table's objects")
c.check(os.path.isdir(os.path.join(tmp.name, "local-wh", "m", "local", "data")), "the local table's files")

# Credentials from flags, none in the environment: the key id on the command line, the secret
# in a file.
secret_file = os.path.join(tmp.name, "secret")
with open(secret_file, "w") as f:
    f.write(s3_server.SECRET_KEY + "\n")
no_keys = {k: v for k, v in env.items() if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
no_keys.update({"AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"})
flags = ["--s3-access-key-id", s3_server.ACCESS_KEY, "--s3-secret-access-key-file", secret_file]
saved, env = env, no_keys
c.equal(rows(f"SELECT * FROM {T} ORDER BY id", extra=flags), [["1", "a"], ["2", "b"], ["4", "d"]],
        "credentials from --s3-access-key-id and --s3-secret-access-key-file")
for extra, error in (
        (flags[:2], "--s3-access-key-id needs --s3-secret-access-key-file"),
        (flags[2:], "--s3-secret-access-key-file needs --s3-access-key-id"),
        (flags[:3] + [os.path.join(tmp.name, "missing")],
         f"Cannot read the S3 secret access key from {os.path.join(tmp.name, 'missing')}")):
    r = run_sql(f"SELECT * FROM {T}", extra=extra)
    c.equal((r.returncode, r.stderr), (1, f"Error: {error}\n"), f"refused: {' '.join(extra[::2])}")
env = saved

# A warehouse in a bucket that does not exist: the error names the object.
r = run_sql("CREATE TABLE db.n (id BIGINT) USING iceberg", extra=["--warehouse", "s3://floe-no-such-bucket/wh"])
c.equal(r.returncode, 1, "missing bucket: exit status")
c.check(r.stderr.startswith("Error: ") and "s3://floe-no-such-bucket/wh/db/n/metadata/" in r.stderr,
        "missing bucket: the error names the object", r.stderr)

c.done("s3")
