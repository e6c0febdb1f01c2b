"""Running the floe binary from the CLI tests: on a pipe, or on a pseudo-terminal that
answers its questions, against a fresh catalog and warehouse in a temp directory."""

import csv
import io
import os
import select
import subprocess
import tempfile
import time


class Floe:
    def __init__(self, binary):
        self.binary = os.path.realpath(binary)
        self.dir = tempfile.TemporaryDirectory(prefix="floe-cli-")
        self.env = dict(os.environ)
        self.env["FLOE_CATALOG"] = os.path.join(self.dir.name, "catalog.db")
        self.env["FLOE_WAREHOUSE"] = os.path.join(self.dir.name, "warehouse")
        self.env["TMPDIR"] = self.dir.name

    def close(self):
        self.dir.cleanup()

    def run(self, *args, input=None):
        """Runs `floe args...` with standard input a pipe (given `input`) or /dev/null."""
        return subprocess.run([self.binary, *map(str, args)], env=self.env, text=True,
                              input=input, stdin=None if input is not None else subprocess.DEVNULL,
                              capture_output=True, timeout=300)

    def sql(self, *statements):
        args = ["sql", "-q"]
        for s in statements:
            args += ["-c", s]
        r = self.run(*args)
        assert r.returncode == 0, f"floe sql failed: {r.stderr}"
        return r

    def rows(self, query):
        r = self.run("sql", "--format", "csv", "-c", query)
        assert r.returncode == 0, f"{query}: {r.stderr}"
        return list(csv.reader(io.StringIO(r.stdout)))[1:]

    def current(self, table):
        """The current snapshot id, as main's ref says."""
        return int(self.rows(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'")[0][0])

    def last_history_entry(self, table):
        """The snapshot id of the newest history entry (the latest change of the current snapshot)."""
        rows = self.rows(f"SELECT snapshot_id, is_current_ancestor FROM {table}.history ORDER BY made_current_at DESC")
        return int(rows[0][0])

    def write_mixed_history(self, table):
        """Creates `table` (id BIGINT, v STRING) and writes six snapshots: two appends, a
        copy-on-write DELETE and UPDATE, then a merge-on-read DELETE and UPDATE (position
        deletes). Returns their snapshot ids, oldest first."""
        self.sql(f"CREATE TABLE {table} (id BIGINT, v STRING) USING iceberg")
        snapshots = []
        for statement in [f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')",
                          f"INSERT INTO {table} VALUES (6, 'f'), (7, 'g')",
                          f"DELETE FROM {table} WHERE id = 2",
                          f"UPDATE {table} SET v = 'X' WHERE id = 3",
                          f"ALTER TABLE {table} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read', "
                          "'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')",
                          f"DELETE FROM {table} WHERE id = 4",
                          f"UPDATE {table} SET v = 'Y' WHERE id = 5"]:
            self.sql(statement)
            if not statement.startswith("ALTER"):
                snapshots.append(self.current(table))
        return snapshots

    def commit_time(self, table, snapshot_id):
        """A snapshot's commit time in UTC, as 'yyyy-mm-dd hh:mm:ss[.fff]'."""
        return self.rows(f"SELECT committed_at FROM {table}.snapshots WHERE snapshot_id = {snapshot_id}")[0][0]

    def in_terminal(self, *args, replies=(), timeout=120):
        """Runs `floe args...` on a pseudo-terminal (standard input, output and error). Each
        reply (prompt, answer) is typed once `prompt` has appeared. Returns the exit status and
        everything the terminal showed (line ends as '\\n')."""
        master, slave = os.openpty()
        proc = subprocess.Popen([self.binary, *map(str, args)], env=self.env, stdin=slave, stdout=slave,
                                stderr=slave, close_fds=True)
        os.close(slave)
        shown = b""
        seen = 0
        pending = list(replies)
        deadline = time.time() + timeout
        try:
            while True:
                if time.time() > deadline:
                    proc.kill()
                    raise AssertionError(f"floe {' '.join(map(str, args))} did not finish: {shown.decode()}")
                ready, _, _ = select.select([master], [], [], 0.2)
                if not ready:
                    continue
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the process closed the terminal
                    chunk = b""
                if not chunk:
                    break
                shown += chunk
                if pending and pending[0][0].encode() in shown[seen:]:
                    os.write(master, pending[0][1].encode() + b"\n")
                    seen = len(shown)
                    pending.pop(0)
        finally:
            os.close(master)
        status = proc.wait(timeout=timeout)
        assert not pending, f"never asked {pending[0][0]!r}: {shown.decode()}"
        return status, shown.decode().replace("\r\n", "\n")


class Checks:
    """Collects failures so that one run reports all of them."""

    def __init__(self):
        self.failures = 0

    def check(self, ok, what, detail=""):
        if not ok:
            self.failures += 1
            print(f"FAIL: {what}\n  {detail}")

    def equal(self, got, want, what):
        self.check(got == want, what, f"expected {want!r}\n  got      {got!r}")

    def done(self, name):
        if self.failures:
            print(f"{self.failures} check(s) failed")
            raise SystemExit(1)
        print(f"{name}: all passed")
