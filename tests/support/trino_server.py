#!/usr/bin/env python3
"""A Trino server (coordinator and worker in one JVM) on a free loopback port, whose catalogs
are Iceberg JDBC catalogs on PostgreSQL databases or SQLite files, or Iceberg REST catalogs,
for the tests that need one.

    with TrinoServer(tmp_dir, catalogs={
            "lakehouse": JdbcCatalog("jdbc:postgresql://127.0.0.1:5432/lake", "floe",
                                     warehouse="file:/tmp/wh"),
            "lakehouse_s3": JdbcCatalog("jdbc:postgresql://127.0.0.1:5432/lake_s3", "floe",
                                        warehouse="s3://bucket/wh"),
            "lakehouse_sqlite": JdbcCatalog("jdbc:sqlite:/tmp/catalog.db", "",
                                            warehouse="file:/tmp/wh2")},
            s3=S3Access("http://127.0.0.1:9000", "key", "secret")) as trino:
        trino.query("SELECT * FROM lakehouse.db.t")   # rows as lists of Python values

Each Trino catalog reads the JDBC catalog named `lakehouse` (the catalog_name column floe,
Spark and PyIceberg write) in its own database. A SQLite file is opened with Xerial's driver
(scripts/setup-trino.sh adds it to the Iceberg plugin) and no user; its connections wait up to
SQLITE_BUSY_TIMEOUT_MS for a writer such as floe to finish. A RestCatalog is Trino's REST
catalog client on a server's base URI (`floe serve --rest`, say), which places new tables.
Trino comes from build-trino/ (scripts/setup-trino.sh: Maven Central's trino-server with only
its Iceberg plugin kept). It needs Java 24 or newer: FLOE_TRINO_JAVA_HOME, else the newest JDK
under /usr/lib/jvm. Every catalog reads tables on local files through Trino's Hadoop file
system (`fs.hadoop.enabled`), which reads the `file:` locations and the paths floe, Spark and
PyIceberg write; s3:// ones through its native S3 file system, with path-style requests to the
given endpoint.
"""

import glob
import json
import os
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRINO_HOME = ROOT / "build-trino" / "trino-server"
JDBC_CATALOG_NAME = "lakehouse"
START_TIMEOUT_S = 240
SQLITE_BUSY_TIMEOUT_MS = 30000


@dataclass
class JdbcCatalog:
    """`jdbc_url` is jdbc:postgresql://... or jdbc:sqlite:PATH; a SQLite file has no user."""
    jdbc_url: str
    jdbc_user: str
    warehouse: str
    jdbc_password: str = ""

    @property
    def is_sqlite(self) -> bool:
        return self.jdbc_url.startswith("jdbc:sqlite:")


@dataclass
class RestCatalog:
    """An Iceberg REST catalog at `uri` (http://HOST:PORT), Trino's `iceberg.catalog.type=rest`."""
    uri: str


@dataclass
class S3Access:
    endpoint: str
    access_key: str
    secret_key: str
    region: str = "us-east-1"


def _java_major(home):
    release = Path(home) / "release"
    if not release.exists():
        return 0
    for line in release.read_text().splitlines():
        if line.startswith("JAVA_VERSION="):
            version = line.split("=", 1)[1].strip('"')
            return int(version.split(".")[0])
    return 0


def java_home():
    """A JDK of version 24 or newer, as Trino requires."""
    wanted = os.environ.get("FLOE_TRINO_JAVA_HOME")
    candidates = [wanted] if wanted else sorted(glob.glob("/usr/lib/jvm/*"), key=_java_major, reverse=True)
    for home in candidates:
        if home and _java_major(home) >= 24 and os.access(os.path.join(home, "bin", "java"), os.X_OK):
            return home
    raise RuntimeError("Trino needs Java 24 or newer: none under /usr/lib/jvm (set FLOE_TRINO_JAVA_HOME)")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TrinoServer:
    def __init__(self, directory, *, catalogs: dict[str, JdbcCatalog | RestCatalog], s3: S3Access | None = None):
        self.dir = Path(directory).resolve()
        self.catalogs = catalogs
        self.s3 = s3
        self.port = None
        self.process = None
        self.log = self.dir / "server.log"

    def _write_config(self):
        etc = self.dir / "etc"
        (etc / "catalog").mkdir(parents=True, exist_ok=True)
        (etc / "node.properties").write_text(
            "node.environment=test\nnode.id=floe-test\nnode.internal-address=127.0.0.1\n"
            f"node.data-dir={self.dir / 'data'}\n")
        (etc / "jvm.config").write_text("\n".join([
            "-server", "-Xmx2G", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError",
            "-Djdk.attach.allowAttachSelf=true", "-Duser.timezone=UTC", ""]))
        (etc / "config.properties").write_text("\n".join([
            "coordinator=true",
            "node-scheduler.include-coordinator=true",
            f"http-server.http.port={self.port}",
            f"discovery.uri=http://127.0.0.1:{self.port}",
            "query.max-memory=1GB",
            "query.max-memory-per-node=768MB",
            "task.concurrency=1",
            "task.max-worker-threads=2",
            ""]))
        (etc / "log.properties").write_text("io.trino=WARN\nio.airlift=WARN\n")
        for name, catalog in self.catalogs.items():
            (etc / "catalog" / f"{name}.properties").write_text("\n".join(self._catalog_config(catalog)))

    def _catalog_config(self, catalog: JdbcCatalog | RestCatalog):
        lines = ["connector.name=iceberg", *self._catalog_lines(catalog)] + [
            # The same file systems for every catalog: `file:` locations and paths through
            # Hadoop's, s3:// ones through Trino's native S3 file system (below).
            "fs.hadoop.enabled=true",
            # Expiry and orphan removal as the tests ask, without Trino's 7-day floor.
            "iceberg.expire-snapshots.min-retention=0s",
            "iceberg.remove-orphan-files.min-retention=0s",
        ]
        if self.s3:
            lines += [
                "fs.native-s3.enabled=true",
                f"s3.endpoint={self.s3.endpoint}",
                f"s3.region={self.s3.region}",
                "s3.path-style-access=true",
                f"s3.aws-access-key={self.s3.access_key}",
                f"s3.aws-secret-key={self.s3.secret_key}",
            ]
        return lines + [""]

    @staticmethod
    def _catalog_lines(catalog: JdbcCatalog | RestCatalog) -> list[str]:
        if isinstance(catalog, RestCatalog):
            return ["iceberg.catalog.type=rest", f"iceberg.rest-catalog.uri={catalog.uri}"]
        if catalog.is_sqlite:
            connection = [
                "iceberg.jdbc-catalog.driver-class=org.sqlite.JDBC",
                # Wait for another writer's lock (floe's, say) rather than fail at once.
                f"iceberg.jdbc-catalog.connection-url={catalog.jdbc_url}"
                f"?busy_timeout={SQLITE_BUSY_TIMEOUT_MS}",
            ]
        else:
            connection = [
                "iceberg.jdbc-catalog.driver-class=org.postgresql.Driver",
                f"iceberg.jdbc-catalog.connection-url={catalog.jdbc_url}",
                f"iceberg.jdbc-catalog.connection-user={catalog.jdbc_user}",
                f"iceberg.jdbc-catalog.connection-password={catalog.jdbc_password}",
            ]
        return [
            "iceberg.catalog.type=jdbc",
            f"iceberg.jdbc-catalog.catalog-name={JDBC_CATALOG_NAME}",
            *connection,
            f"iceberg.jdbc-catalog.default-warehouse-dir={catalog.warehouse}",
        ]

    def start(self):
        launcher = TRINO_HOME / "bin" / "launcher"
        if not launcher.exists():
            raise RuntimeError(f"{launcher} is missing; run scripts/setup-trino.sh")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        self._write_config()
        home = java_home()
        env = dict(os.environ, JAVA_HOME=home, PATH=f"{home}/bin:{os.environ['PATH']}")
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [str(launcher), "run", f"--etc-dir={self.dir / 'etc'}"], stdout=log,
                stderr=subprocess.STDOUT, env=env, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Trino exited with {self.process.returncode}:\n{self._log_tail()}")
            if self._ready():
                return self
            time.sleep(1)
        self.stop()
        raise RuntimeError(f"Trino did not start in {START_TIMEOUT_S} s:\n{self._log_tail()}")

    def _ready(self):
        """Started, and its one node registered with the catalog loaded: until then queries
        fail with "No nodes available to run query"."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/v1/info", timeout=2) as r:
                if json.load(r).get("starting", True):
                    return False
            # A query on the catalog needs a node that has loaded it.
            return all(self.query(f"SELECT count(*) FROM {name}.information_schema.schemata",
                                  wait_for_nodes=False)[0][0] > 0 for name in self.catalogs)
        except Exception:  # not listening yet, or no node yet
            return False

    def stop(self):
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait()
        self.process = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def connect(self, time_zone="UTC"):
        import trino
        return trino.dbapi.connect(host="127.0.0.1", port=self.port, user="floe",
                                   catalog=next(iter(self.catalogs)), timezone=time_zone)

    def query(self, sql, time_zone="UTC", wait_for_nodes=True):
        """Runs one statement; its rows as lists (an update returns its row count). While the
        single node re-registers (Trino's discovery can drop it for a moment under load), a
        statement refused with NO_NODES_AVAILABLE is run again, for up to 30 s."""
        deadline = time.monotonic() + 30
        while True:
            conn = self.connect(time_zone)
            try:
                cur = conn.cursor()
                cur.execute(sql)
                return cur.fetchall()
            except Exception as e:  # noqa: BLE001 - only the one transient error is retried
                if (not wait_for_nodes or getattr(e, "error_name", None) != "NO_NODES_AVAILABLE"
                        or time.monotonic() > deadline):
                    raise
                time.sleep(1)
            finally:
                conn.close()

    def _log_tail(self):
        try:
            return self.log.read_text()[-4000:]
        except OSError:
            return ""

