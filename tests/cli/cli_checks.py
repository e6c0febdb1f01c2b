"""What the checks of the floe command's conventions, history, show, refs, manifest and
progress share: a fresh catalog and warehouse, runs of the real binary, and checks that
report every failure before the test exits."""
import os
import subprocess
import sys
import tempfile


class Floe:
    def __init__(self, binary):
        self.binary = os.path.realpath(binary)
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name
        self.env = dict(os.environ, FLOE_CATALOG=f"{self.dir}/catalog.db",
                        FLOE_WAREHOUSE=f"{self.dir}/wh")
        self.env.pop("FLOE_PROGRESS_DELAY_MS", None)
        self.failures = 0

    def run(self, *args, env=None):
        return subprocess.run([self.binary, *args], env=env or self.env, capture_output=True,
                              text=True, timeout=600, cwd=self.dir)

    def sql(self, *statements):
        """Runs statements (each its own -c); any failure ends the test."""
        args = ["sql", "-q", "--format", "csv"]
        for s in statements:
            args += ["-c", s]
        r = self.run(*args)
        if r.returncode != 0:
            sys.exit(f"setup failed: {statements}: {r.stderr}")
        return r.stdout

    def value(self, query):
        """The single value a query returns."""
        lines = self.sql(query).splitlines()
        if len(lines) != 2:
            sys.exit(f"expected one value from {query}, got {lines}")
        return lines[1]

    def check(self, ok, what, *details):
        if not ok:
            self.failures += 1
            print(f"FAIL: {what}")
            for d in details:
                print(f"  {d}")
        return ok

    def expect(self, result, status, stdout=None, stderr=None, what=""):
        """The run exited with `status` and printed exactly `stdout` / `stderr` (when given)."""
        ok = result.returncode == status
        ok = ok and (stdout is None or result.stdout == stdout)
        ok = ok and (stderr is None or result.stderr == stderr)
        return self.check(ok, what or " ".join(result.args[1:])[:200],
                          f"expected status {status}, stdout {stdout!r}, stderr {stderr!r}",
                          f"got status {result.returncode}, stdout {result.stdout!r}, "
                          f"stderr {result.stderr!r}")

    def finish(self, name):
        if self.failures:
            print(f"{name}: {self.failures} check(s) failed")
            sys.exit(1)
        print(f"{name}: all passed")
