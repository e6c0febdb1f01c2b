"""DuckDB 1.5 attached to floe's Iceberg REST catalog (`floe serve --rest`), for the tests of
DuckDB with floe (tests/interop/test_duckdb_rest.py) and with Spark (tests/interop/spark/
test_rest_duckdb.py): the pinned duckdb wheel with its iceberg, avro and httpfs extensions
loaded from their PyPI packages, nothing downloaded, and a relay in front of the server that
notes every request DuckDB makes and floe's answer to it."""

from __future__ import annotations

import collections
import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import duckdb
import duckdb_extension_avro
import duckdb_extension_httpfs
import duckdb_extension_iceberg
import pyarrow
from tcp_relay import TcpRelay


@dataclass
class Exchange:
    """One request through the relay and floe's answer to it."""
    method: str
    path: str
    body: bytes  # the request's
    status: int | None = None  # None: not answered (yet)
    answer: str = ""  # floe's body, kept for errors (status 400 and up)

    def __str__(self):
        return " ".join(str(x) for x in (self.method, self.path, self.status, self.answer) if x not in (None, ""))


class Relay(TcpRelay):
    """A TCP relay in front of floe's REST port that follows the HTTP/1.1 exchanges through it
    (persistent connections too): `exchanges` in the order DuckDB sent them; `uri` is where
    DuckDB attaches. It shows what a
    DuckDB statement asked of floe and, when a step fails, what floe answered. Bodies are
    Content-Length bytes: floe refuses chunked requests and answers none."""

    def __init__(self, upstream_port: int):
        self.exchanges: list[Exchange] = []
        super().__init__(upstream_port)
        self.uri = f"http://127.0.0.1:{self.port}"

    def mark(self) -> int:
        with self.lock:
            return len(self.exchanges)

    def since(self, mark: int) -> list[Exchange]:
        with self.lock:
            return self.exchanges[mark:]

    def log(self) -> str:
        with self.lock:
            return "\n".join(map(str, self.exchanges))

    def watchers(self):
        waiting = collections.deque()  # this connection's exchanges not answered yet
        requests, answers = self._requests(waiting), self._answers(waiting)
        next(requests)
        next(answers)
        return requests.send, answers.send

    def _requests(self, waiting):
        buf = b""
        while True:
            buf += yield
            while (end := buf.find(b"\r\n\r\n")) >= 0:
                start, headers = _head(buf[:end])
                length = int(headers.get("content-length", "0"))
                if len(buf) < end + 4 + length:
                    break
                method, path = start.split(" ")[:2]
                exchange = Exchange(method, path, buf[end + 4:end + 4 + length])
                buf = buf[end + 4 + length:]
                with self.lock:
                    self.exchanges.append(exchange)
                waiting.append(exchange)

    def _answers(self, waiting):
        buf = b""
        while True:
            buf += yield
            while (end := buf.find(b"\r\n\r\n")) >= 0:
                start, headers = _head(buf[:end])
                status = int(start.split(" ")[1])
                exchange = waiting[0]
                bodiless = exchange.method == "HEAD" or status in (204, 304) or status < 200
                length = 0 if bodiless else int(headers.get("content-length", "0"))
                if len(buf) < end + 4 + length:
                    break
                body = buf[end + 4:end + 4 + length]
                buf = buf[end + 4 + length:]
                waiting.popleft()
                with self.lock:
                    exchange.status = status
                    if status >= 400:
                        exchange.answer = body.decode("utf-8", "replace")[:1000]


def _head(raw: bytes) -> tuple[str, dict[str, str]]:
    lines = raw.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return lines[0], headers



def extension_path(module) -> str:
    """The extension binary a duckdb-extension-* wheel ships for this duckdb version."""
    name = module.__name__.removeprefix("duckdb_extension_")
    path = Path(module.__file__).parent / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    assert path.is_file(), \
        f"{path} is missing: requirements.txt and requirements-spark.txt pin duckdb and its extensions together"
    return str(path)


class Duck:
    """A DuckDB connection with floe's REST catalog attached as `lake` through `relay`, in front
    of the `floe serve --rest` of `floe` (a floe_driver.Floe: its catalog name, and on S3 its
    bucket's credentials) whose stderr lines are `server_stderr`. `sql` runs a statement and
    returns its rows; on an error it raises with the relay's log of requests and answers and
    the server's stderr, which say what floe made of it."""

    def __init__(self, floe, relay: Relay, server_stderr: list[str]):
        self.relay = relay
        self.server_stderr = server_stderr
        self.con = duckdb.connect()
        # Offline: only the wheels' binaries, never a download or a guess at a local install.
        self.con.execute("SET autoinstall_known_extensions = false")
        self.con.execute("SET autoload_known_extensions = false")
        for module in (duckdb_extension_httpfs, duckdb_extension_avro, duckdb_extension_iceberg):
            self.con.execute(f"LOAD '{extension_path(module)}'")
        self.con.execute("SET TimeZone = 'UTC'")  # AT (TIMESTAMP => ...) and TIMESTAMPTZ in UTC, as floe's
        if floe.on_s3:
            # floe's REST answers vend no credentials: DuckDB reads and writes the bucket itself.
            endpoint = floe.env["AWS_ENDPOINT_URL"].removeprefix("http://")
            self.sql(f"CREATE SECRET s3 (TYPE s3, KEY_ID '{floe.env['AWS_ACCESS_KEY_ID']}', "
                     f"SECRET '{floe.env['AWS_SECRET_ACCESS_KEY']}', REGION '{floe.env['AWS_REGION']}', "
                     f"ENDPOINT '{endpoint}', URL_STYLE 'path', USE_SSL false)")
        self.sql(f"ATTACH '{floe.catalog_name}' AS lake "
                 f"(TYPE iceberg, ENDPOINT '{relay.uri}', AUTHORIZATION_TYPE 'none')")

    def sql(self, statement: str) -> list[tuple]:
        return self._run(statement, lambda result: result.fetchall())

    def table(self, statement: str) -> pyarrow.Table:
        """The result as an Arrow table: TIMESTAMPTZ values come back as timestamps in UTC,
        where fetchall() would need pytz."""
        return self._run(statement, lambda result: result.to_arrow_table())

    def _run(self, statement: str, fetch):
        try:
            return fetch(self.con.execute(statement))
        except duckdb.Error as e:
            raise AssertionError(
                f"DuckDB: {statement}\n{type(e).__name__}: {e}\n--- requests through the relay:\n"
                f"{self.relay.log()}\n--- floe serve stderr:\n{''.join(self.server_stderr)}") from e

    def snapshots(self, table: str) -> list[tuple[int, dt.datetime, str]]:
        """(snapshot id, timestamp (UTC), operation) of each snapshot, oldest first."""
        return self.sql(f"SELECT snapshot_id, timestamp_ms, operation FROM iceberg_snapshots({table}) "
                        "ORDER BY sequence_number")

    def close(self):
        self.con.close()
