"""Starting `floe serve` for the tests: a fresh catalog and warehouse in a temp directory,
port 0, and the port read from the line the server prints when it listens."""

import os
import re
import signal
import subprocess
import tempfile
import threading


class Serve:
    def __init__(self, binary, *args, directory=None, env=None):
        self.binary = os.path.realpath(binary)
        self.own_dir = directory is None
        self.tmp = tempfile.TemporaryDirectory(prefix="floe-serve-") if directory is None else None
        self.dir = directory or self.tmp.name
        self.catalog = os.path.join(self.dir, "catalog.db")
        self.warehouse = os.path.join(self.dir, "warehouse")
        full_env = dict(os.environ)
        full_env.update(env or {})
        listen = [] if any(a == "--listen" for a in args) else ["--listen", "127.0.0.1:0"]
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--catalog", self.catalog, "--warehouse", self.warehouse, *listen, *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env)
        line = self.proc.stdout.readline()
        m = re.fullmatch(r"floe serve: listening on (\S+):(\d+) \(catalog (\S+)\)\n", line)
        if m is None:
            err = self.proc.stderr.read()
            raise RuntimeError(f"floe serve did not start: {line!r} {err}")
        self.host = m.group(1).strip("[]")
        self.port = int(m.group(2))
        self.line = line
        # Keep draining stderr so the server never blocks on it.
        self.stderr = []
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def dsn(self, user="tester", dbname="lakehouse", **extra):
        parts = [f"host={self.host}", f"port={self.port}", f"user={user}", f"dbname={dbname}",
                 "sslmode=disable"]
        parts = [p for p in parts if not (p.startswith("sslmode") and "sslmode" in extra)]
        parts += [f"{k}={v}" for k, v in extra.items()]
        return " ".join(parts)

    def rss_kb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.tmp is not None:
            self.tmp.cleanup()
