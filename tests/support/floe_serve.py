"""`floe serve` as the tests start it: its output piped, the lines it prints when it listens
read and checked, its standard error kept, and a stop by SIGTERM.

floe serve prints, once it listens, `floe serve: listening on HOST:PORT (catalog NAME)` for the
PostgreSQL wire protocol (served unless the REST catalog is alone: --rest without --listen),
then `floe serve: Iceberg REST catalog on http://127.0.0.1:PORT (catalog NAME)` for the Iceberg
REST catalog on a loopback port of its choosing (`--rest 127.0.0.1:0`), and on a stop
`floe serve: stopped`."""

import re
import signal
import subprocess
import threading

LISTEN_LINE = re.compile(r"floe serve: listening on (\S+):(\d+) \(catalog (\S+)\)\n")
REST_LINE = re.compile(r"floe serve: Iceberg REST catalog on http://127\.0\.0\.1:(\d+) \(catalog (\S+)\)\n")


class FloeServe:
    """`binary serve *args`, with `rest` also `--rest 127.0.0.1:0`, in the environment `env`
    (None: this process's). Once it listens:
      host, port, line  the wire protocol's address and the line giving it (None without it)
      rest_port, uri    the REST catalog's port and http://127.0.0.1:PORT (None without it)
      catalog_name      the catalog the REST catalog serves, which must be `catalog_name`
      stderr            the server's standard error so far, a list of lines (drained, so the
                        server never blocks on it)
    A line other than the one expected kills the server and raises, with the line and the
    server's standard error."""

    def __init__(self, binary, *args, rest=False, catalog_name="lakehouse", env=None):
        self.binary = str(binary)
        command = [self.binary, "serve", *args] + (["--rest", "127.0.0.1:0"] if rest else [])
        self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.host = self.port = self.line = None
        self.rest_port = self.uri = self.catalog_name = None
        if not rest or "--listen" in args:
            m = self._expect(LISTEN_LINE)
            self.host = m.group(1).strip("[]")
            self.port = int(m.group(2))
            self.line = m.group(0)
        if rest:
            m = self._expect(REST_LINE, catalog_name)
            self.rest_port = int(m.group(1))
            self.uri = f"http://127.0.0.1:{self.rest_port}"
            self.catalog_name = m.group(2)
        self.stderr = []
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def _expect(self, pattern, catalog_name=None):
        line = self.proc.stdout.readline()
        m = pattern.fullmatch(line)
        if m is None or (catalog_name is not None and m.group(m.re.groups) != catalog_name):
            self.proc.kill()
            self.proc.wait()
            expected = "" if catalog_name is None else f" (catalog {catalog_name} expected)"
            raise RuntimeError(f"floe serve did not start{expected}: {line!r} {self.proc.stderr.read()}")
        return m

    def alive(self):
        return self.proc.poll() is None

    def stop(self, check=False):
        """SIGTERM, then SIGKILL if the server has not stopped within 30 s. With `check`, the
        server must have exited 0, its last output `floe serve: stopped`."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if check:
            assert self.proc.returncode == 0, \
                f"floe serve exited with {self.proc.returncode}: {''.join(self.stderr)}"
            assert self.proc.stdout.read() == "floe serve: stopped\n"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
