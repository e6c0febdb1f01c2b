"""`floe diff` on a table whose changed snapshots hold far more rows than the memory it is
given: the counts are exact, the rows went through spill files, and the process's peak
resident memory stays within a limit that the rows themselves exceed several times over, so
a diff that held both sides in memory would fail here.
Usage: diff_memory_test.py FLOE_BINARY"""

import json
import os
import subprocess
import sys

from floe_cli import Checks, Floe

ROWS = 3_000_000
PAYLOAD = "-0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz"
BUDGET_MB = 32
# Peak RSS allowed above a diff of a tiny table (code, thread pools, buffers of the reader).
LIMIT_MB = 128

floe = Floe(sys.argv[1])
c = Checks()
# A sanitizer build keeps freed memory in quarantine and pads every allocation, so its resident
# memory says nothing about the diff: there the counts and the spilling are checked, not memory.
SANITIZED = b"__asan_init" in open(floe.binary, "rb").read()


def peak_rss_mb(*args):
    """Runs floe; returns its exit status, standard output and peak resident set in MiB."""
    out_path = os.path.join(floe.dir.name, "out.json")
    with open(out_path, "w") as out, open(os.devnull, "w") as err:
        proc = subprocess.Popen([floe.binary, *map(str, args)], env=floe.env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    with open(out_path) as f:
        return proc.returncode, f.read(), usage.ru_maxrss / 1024


floe.sql("CREATE NAMESPACE db",
         "CREATE TABLE db.small (id BIGINT, payload STRING) USING iceberg",
         "INSERT INTO db.small VALUES (1, 'a')", "INSERT INTO db.small VALUES (2, 'b')",
         "CREATE TABLE db.big (id BIGINT, payload STRING) USING iceberg",
         f"INSERT INTO db.big SELECT id, concat('payload-', CAST(id AS STRING), '{PAYLOAD}') FROM range({ROWS})")
start = floe.current("db.big")
# Every data file is rewritten (copy-on-write), so no file is shared and both sides are read whole.
floe.sql("UPDATE db.big SET payload = 'changed' WHERE id % 1000 = 0",   # 3000 changed
         "DELETE FROM db.big WHERE id % 5000 = 1",                       # 600 removed
         f"INSERT INTO db.big SELECT id, 'new' FROM range({ROWS}, {ROWS + 500})")  # 500 added
end = floe.current("db.big")

# The rows both sides hold, as Arrow holds them (id, string offset and bytes), against the limit.
row_bytes = 8 + 4 + len("payload-") + 7 + len(PAYLOAD)
c.check(2 * ROWS * row_bytes > 4 * LIMIT_MB * 2**20, "the rows outgrow the limit",
        f"{2 * ROWS * row_bytes >> 20} MiB of rows")

small = floe.rows("SELECT snapshot_id FROM db.small.snapshots")
status, _, baseline = peak_rss_mb("diff", "db.small", small[0][0], small[1][0], "--key", "id", "--json")
c.equal(status, 0, "diff of the small table")

status, out, peak = peak_rss_mb("diff", "db.big", start, end, "--key", "id", "--json", "--sample", "3",
                                "--memory-budget", f"{BUDGET_MB}MB")
c.equal(status, 0, "diff of the big table")
d = json.loads(out) if status == 0 else {}
c.equal((d.get("added"), d.get("removed"), d.get("changed")), (500, 600, 3000), "exact counts")
c.equal(d.get("unchanged_files_skipped"), 0, "no file shared")
c.equal(d.get("rows_read"), {"from": ROWS, "to": ROWS - 600 + 500}, "both sides read whole")
c.check(d.get("spilled_bytes", 0) > 0 and d.get("partitions", 0) > 1, "rows spilled and compared by partition",
        f"spilled_bytes {d.get('spilled_bytes')}, partitions {d.get('partitions')}")
c.equal(len(d.get("sample", {}).get("changed", [])), 3, "a sample of 3 changed rows")
c.check(SANITIZED or peak - baseline < LIMIT_MB, f"peak memory within {LIMIT_MB} MiB of a tiny diff",
        f"peak {peak:.0f} MiB, tiny diff {baseline:.0f} MiB")
print(f"peak {peak:.0f} MiB, tiny diff {baseline:.0f} MiB, spilled {d.get('spilled_bytes', 0) >> 20} MiB "
      f"in {d.get('partitions')} partitions")

floe.close()
c.done("diff_memory")
