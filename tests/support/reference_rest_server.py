"""Iceberg's reference REST catalog server (org.apache.iceberg.rest.RESTCatalogServer of
iceberg-open-api 1.10.0, the runnable jar scripts/setup-rest-kit.sh fetches into build-rest/jars)
on a free loopback port, over a JDBC catalog in a SQLite file, for the tests and benchmarks of
floe as a client of a REST catalog that is not floe's own.

    with ReferenceRestServer(tmp_dir) as server:
        server.uri           # http://127.0.0.1:<port>, for HTTP requests
        server.catalog_uri   # rest+http://127.0.0.1:<port>, for floe
        server.warehouse     # tmp_dir/warehouse, where its tables live
        server.stop()        # also on leaving the block; start() again keeps the catalog

The server reads its catalog properties from CATALOG_* environment variables (CATALOG_URI ->
uri, CATALOG_WAREHOUSE -> warehouse, CATALOG_REST_PORT -> rest.port); it has no setting for
its address, so it listens on every interface (Jetty's Server(port)), and the URIs here name
the loopback one. Its output goes to
tmp_dir/reference-rest.log; a server that does not answer GET /v1/config with 200 within
60 s is killed, and the error shows the log's tail. Java is $JAVA_HOME/bin/java when JAVA_HOME
is set (as scripts/setup-rest-kit.sh checks it), else `java` on the PATH."""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_JAR = ROOT / "build-rest" / "jars" / "iceberg-open-api-1.10.0.jar"
READY_TIMEOUT = 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.access(java, os.X_OK):
        raise RuntimeError("no java for the reference REST server; run scripts/setup-rest-kit.sh")
    return java


class ReferenceRestServer:
    """The reference server with its catalog in workdir/catalog.db and its warehouse in
    workdir/warehouse, on `port` (None: a free one, chosen now so the URIs are known before
    start)."""

    def __init__(self, workdir: Path, port: int | None = None):
        self.workdir = Path(workdir).resolve()
        self.warehouse = self.workdir / "warehouse"
        self.catalog_db = self.workdir / "catalog.db"
        self.log = self.workdir / "reference-rest.log"
        self._fixed_port = port is not None
        self.port = port if port is not None else _free_port()
        self.process: subprocess.Popen | None = None

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def catalog_uri(self) -> str:
        return f"rest+http://127.0.0.1:{self.port}"

    # ---- lifecycle ----

    def start(self) -> "ReferenceRestServer":
        if self.process is not None and self.process.poll() is None:
            return self
        if not REFERENCE_JAR.exists():
            raise RuntimeError(f"{REFERENCE_JAR} is missing; run scripts/setup-rest-kit.sh first")
        self.warehouse.mkdir(parents=True, exist_ok=True)
        # Another process may take a port between _free_port and the JVM's bind: then a port of
        # our own choosing is chosen again, a port the caller asked for is not.
        attempts = 1 if self._fixed_port else 3
        for attempt in range(attempts):
            self._launch()
            error = self._wait_ready()
            if error is None:
                return self
            self._kill()
            if attempt + 1 < attempts and "Address already in use" in self._log_tail():
                self.port = _free_port()
                continue
            raise RuntimeError(f"reference REST server on port {self.port}: {error}; "
                               f"log {self.log}:\n{self._log_tail()}")
        raise AssertionError("unreachable")

    def _launch(self):
        # Only our CATALOG_* variables: any in this process's environment would change the
        # server's catalog.
        env = {k: v for k, v in os.environ.items() if not k.startswith("CATALOG_")}
        env.update(CATALOG_REST_PORT=str(self.port), CATALOG_URI=f"jdbc:sqlite:{self.catalog_db}",
                   CATALOG_WAREHOUSE=str(self.warehouse))
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([_java(), "-jar", str(REFERENCE_JAR)], env=env,
                                            stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, cwd=self.workdir)

    def _wait_ready(self) -> str | None:
        """None once GET /v1/config answers 200, else why not."""
        end = time.monotonic() + READY_TIMEOUT
        last = "no answer"
        while time.monotonic() < end:
            if self.process.poll() is not None:
                return f"exited with {self.process.returncode} before it answered"
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                try:
                    conn.request("GET", "/v1/config")
                    status = conn.getresponse().status
                finally:
                    conn.close()
                if status == 200:
                    return None
                last = f"GET /v1/config answered {status}"
            except OSError as e:
                last = f"GET /v1/config: {e}"
            time.sleep(0.2)
        return f"not ready within {READY_TIMEOUT} s ({last})"

    def _log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def _kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self):
        """SIGTERM, then SIGKILL if the JVM has not exited within 60 s."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self._kill()

    def __enter__(self) -> "ReferenceRestServer":
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def require_reference_jar():
    """For a pytest fixture: fails when the server's jar is missing under CI=true, else skips.
    The setup script marks the jar checked only once it is whole; checking here, not at
    collection, lets the rest of a suite run."""
    import pytest

    if not REFERENCE_JAR.with_name(REFERENCE_JAR.name + ".ok").exists():
        message = f"{REFERENCE_JAR} is missing; run scripts/setup-rest-kit.sh"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
