#!/usr/bin/env python3
"""A throwaway PostgreSQL server on a free loopback port, for the tests that need one.

As a library:
    with PostgresServer(tmp_dir) as pg:
        uri = pg.create_database("t1")     # postgresql://floe@127.0.0.1:<port>/t1
        pg.restart()                       # a fast shutdown and start on the same port
As a command (the ctest fixture in tests/CMakeLists.txt):
    postgres_server.py start DIR    starts a server whose files live in DIR, writes DIR/uri
    postgres_server.py restart DIR [fast|immediate]
                                    a shutdown (fast: open transactions roll back and
                                    connections end; immediate: a crash, recovered from at
                                    start) and a start on the same port
    postgres_server.py stop DIR     stops it and removes DIR

The server comes from Debian's postgresql package (scripts/setup.sh installs it); it trusts
every loopback connection of the role `floe`, listens on no Unix socket and keeps its data
in DIR. PostgreSQL refuses to run as root, so under root it runs as the `postgres` user the
Debian package creates, with its data in a directory of its own under /tmp (DIR, such as a
pytest temporary directory, may be closed to other users); DIR/server_dir names it.
"""

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile

ROLE = "floe"


def _bindir():
    for candidate in ("pg_config",):
        path = shutil.which(candidate)
        if path:
            out = subprocess.run([path, "--bindir"], capture_output=True, text=True)
            bindir = out.stdout.strip()
            if out.returncode == 0 and os.path.exists(os.path.join(bindir, "initdb")):
                return bindir
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed (no initdb); run scripts/setup.sh")
    return os.path.dirname(found[-1])


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    def __init__(self, directory, server_dir=None, fsync=True):
        """`fsync=False` for a throwaway server whose many databases would otherwise cost
        seconds each at the shutdown checkpoint."""
        self.dir = os.path.abspath(directory)
        self.fsync = fsync
        self.bin = _bindir()
        self.port = None
        self._as_user = []
        if os.geteuid() == 0:
            self._as_user = ["runuser", "-u", "postgres", "--"]
        self.server_dir = server_dir or self.dir
        self.data = os.path.join(self.server_dir, "data")
        self.log = os.path.join(self.server_dir, "server.log")

    @classmethod
    def attach(cls, directory):
        """The server `postgres_server.py start DIR` started, to restart or stop it."""
        directory = os.path.abspath(directory)
        with open(os.path.join(directory, "server_dir")) as f:
            server = cls(directory, server_dir=f.read().strip())
        with open(os.path.join(server.dir, "uri")) as f:
            server.port = int(f.read().split("@127.0.0.1:")[1].split("/")[0])
        return server

    # ---- lifecycle ----

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        if self._as_user and self.server_dir == self.dir:
            self.server_dir = tempfile.mkdtemp(prefix="floe-postgres-")
            pw = pwd.getpwnam("postgres")
            os.chown(self.server_dir, pw.pw_uid, pw.pw_gid)
            self.data = os.path.join(self.server_dir, "data")
            self.log = os.path.join(self.server_dir, "server.log")
        with open(os.path.join(self.dir, "server_dir"), "w") as f:
            f.write(self.server_dir + "\n")
        if not os.path.exists(self.data):
            self._run([os.path.join(self.bin, "initdb"), "-D", self.data, "-U", ROLE,
                       "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "-N"])
        for attempt in range(5):
            self.port = _free_port()
            try:
                self._pg_ctl("start")
                break
            except RuntimeError:
                if attempt == 4:
                    raise
        self._write_uri()
        return self

    def _pg_ctl(self, action, *extra):
        # Frequent checkpoints keep the WAL a crash (an immediate restart) replays short: each
        # CREATE DATABASE logs a whole copy of the template, and a suite creates hundreds.
        options = f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories='' " \
                  "-c max_connections=200 -c max_wal_size=64MB -c checkpoint_timeout=30s" + \
                  ("" if self.fsync else " -c fsync=off")
        self._run([os.path.join(self.bin, "pg_ctl"), action, "-D", self.data, "-l", self.log, "-w",
                   "-t", "60", "-o", options, *extra])

    def restart(self, mode="fast"):
        """Stops the server (`fast` rolls back open transactions, `immediate` is a crash) and
        starts it again on the same port."""
        self._run([os.path.join(self.bin, "pg_ctl"), "stop", "-D", self.data, "-m", mode, "-w"])
        self._pg_ctl("start")

    def stop(self):
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            self._run([os.path.join(self.bin, "pg_ctl"), "stop", "-D", self.data, "-m", "fast", "-w"],
                      check=False)
        if self.server_dir != self.dir:
            shutil.rmtree(self.server_dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---- use ----

    def uri(self, database="postgres"):
        return f"postgresql://{ROLE}@127.0.0.1:{self.port}/{database}"

    def jdbc_uri(self, database="postgres"):
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{database}"

    def psql(self, sql, database="postgres"):
        out = subprocess.run([os.path.join(self.bin, "psql"), "-X", "-q", "-A", "-t", "-v",
                              "ON_ERROR_STOP=1", "-d", self.uri(database), "-c", sql],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"psql failed on {sql!r}: {out.stderr.strip()}")
        return out.stdout

    def create_database(self, name):
        """A new empty database; returns its URI."""
        self.psql(f'CREATE DATABASE "{name}"')
        return self.uri(name)

    # ---- internals ----

    def _write_uri(self):
        with open(os.path.join(self.dir, "uri"), "w") as f:
            f.write(self.uri() + "\n")

    def _run(self, argv, check=True):
        out = subprocess.run(self._as_user + argv, capture_output=True, text=True)
        if check and out.returncode != 0:
            log = ""
            if os.path.exists(self.log):
                with open(self.log) as f:
                    log = f.read()[-2000:]
            raise RuntimeError(f"{' '.join(argv)} failed: {out.stdout}{out.stderr}{log}")
        return out


def stop_in(directory):
    """Stops the server `start DIR` started in `directory`, if any, and removes DIR."""
    directory = os.path.abspath(directory)
    if os.path.exists(os.path.join(directory, "server_dir")) and os.path.exists(os.path.join(directory, "uri")):
        PostgresServer.attach(directory).stop()
    shutil.rmtree(directory, ignore_errors=True)


def main(argv):
    if argv[1:2] == ["restart"] and len(argv) == 4 and argv[3] in ("fast", "immediate"):
        PostgresServer.attach(argv[2]).restart(argv[3])
        return 0
    if len(argv) != 3 or argv[1] not in ("start", "restart", "stop"):
        print("usage: postgres_server.py start|stop DIR | restart DIR [fast|immediate]", file=sys.stderr)
        return 1
    if argv[1] == "restart":
        PostgresServer.attach(argv[2]).restart()
        return 0
    stop_in(argv[2])  # on start: a server a run killed before its stop left behind
    if argv[1] == "start":
        print(PostgresServer(argv[2]).start().uri())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
