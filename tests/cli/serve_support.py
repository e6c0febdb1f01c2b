"""Starting `floe serve` for the tests: a fresh catalog and warehouse in a temp directory,
port 0, and the port read from the line the server prints when it listens; with rest=True the
Iceberg REST catalog beside it, on a loopback port of its own (tests/support/floe_serve.py)."""

import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from floe_serve import FloeServe  # noqa: E402


class Serve(FloeServe):
    def __init__(self, binary, *args, directory=None, env=None, rest=False):
        self.own_dir = directory is None
        self.tmp = tempfile.TemporaryDirectory(prefix="floe-serve-") if directory is None else None
        self.dir = directory or self.tmp.name
        self.catalog = os.path.join(self.dir, "catalog.db")
        self.warehouse = os.path.join(self.dir, "warehouse")
        full_env = dict(os.environ)
        full_env.update(env or {})
        listen = [] if any(a == "--listen" for a in args) else ["--listen", "127.0.0.1:0"]
        super().__init__(os.path.realpath(binary), "--catalog", self.catalog, "--warehouse",
                         self.warehouse, *listen, *args, rest=rest, env=full_env)

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

    def stop(self, check=False):
        super().stop(check=check)
        if self.tmp is not None:
            self.tmp.cleanup()
