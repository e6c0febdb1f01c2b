"""An HTTP/1.1 reverse proxy in front of an Iceberg REST catalog that fails, stalls or drops
chosen requests, for the tests of floe as a REST catalog client (stdlib only).

    with RestFaultProxy(server.uri) as proxy:
        proxy.catalog_uri                                # rest+http://127.0.0.1:<port>, for floe
        proxy.add_fault("POST", r"/tables/t$", "status_before", status=503, retry_after=1)
        proxy.add_fault("POST", r"/tables/t$", "status_after", status=504, times=2)
        proxy.add_fault("GET", r"/namespaces$", "stall", seconds=5)
        proxy.add_fault("DELETE", r"/tables/t$", "drop_after")
        proxy.requests                                   # [Request(method, path, status, forwarded)]
        proxy.clear()                                    # no faults, an empty record

Requests no fault matches are forwarded unchanged (method, target, body, headers but the
hop-by-hop ones) on a connection of their own, and the upstream's status, headers and body come
back; answers always carry Content-Length, so a client's connection stays alive between them.

Faults, `kind`:
  status_before  answers `status` with an ErrorModel body without forwarding: the catalog is
                 untouched (a 409 conflict, a 429 or 503 refusal)
  status_after   forwards, discards the upstream's answer and answers `status` with an
                 ErrorModel body: the catalog applied the request, the client hears it failed
                 (a 500, 502 or 504 from a gateway after the commit)
  stall          forwards nothing, waits `seconds` (30), then closes the connection unanswered
  drop_after     forwards, then closes the connection unanswered (the catalog applied it)
The status kinds take `message`, `type` (the ErrorModel's) and `retry_after` (a Retry-After
header) too. A fault matches by method (None: any) and a regular expression searched in the
request's path (percent-encoded as sent, without the query); the first fault added that
matches acts, `times` times (None: until cleared), then is gone."""

from __future__ import annotations

import http.client
import http.server
import json
import re
import socket
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import NamedTuple

# RFC 9110 7.6.1; Content-Length is not among them but is always recomputed. Expect is
# answered here (100 Continue) before the body is read, so upstream gets the whole body at once.
_HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
               "trailer", "trailers", "transfer-encoding", "upgrade", "proxy-connection",
               "content-length", "expect"}

# ErrorModel.type when a fault names none: Iceberg's exception names for these statuses, a
# default only (Iceberg's client goes by the code); a test that cares passes type=.
_ERROR_TYPES = {400: "BadRequestException", 401: "NotAuthorizedException",
                403: "ForbiddenException", 406: "UnsupportedOperationException",
                409: "CommitFailedException",
                419: "AuthenticationTimeoutException", 429: "TooManyRequestsException",
                500: "InternalServerError", 501: "UnsupportedOperationException",
                503: "ServiceUnavailableException"}

KINDS = ("status_before", "status_after", "stall", "drop_after")
_OPTIONS = {"status_before": {"status", "message", "type", "retry_after"},
            "status_after": {"status", "message", "type", "retry_after"},
            "stall": {"seconds"}, "drop_after": set()}


class Request(NamedTuple):
    """One request through the proxy. `status` is what the client was answered (None: the
    connection was closed instead); `forwarded` whether it reached the upstream."""
    method: str
    path: str  # as sent, with the query
    status: int | None
    forwarded: bool


@dataclass(eq=False)  # a fault is its own: two alike are still two
class Fault:
    method: str | None
    path: re.Pattern
    kind: str
    remaining: int | None  # None: every match until cleared
    options: dict = field(default_factory=dict)
    fired: int = 0

    def matches(self, method: str, path: str) -> bool:
        return ((self.method is None or self.method == method)
                and self.path.search(path) is not None)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class RestFaultProxy:
    """The proxy on a free loopback port, serving from start() (or entering the block) to
    stop(); `upstream` is the catalog's http://HOST:PORT."""

    def __init__(self, upstream: str, upstream_timeout: float = 60):
        parsed = urllib.parse.urlsplit(upstream)
        if parsed.scheme != "http" or not parsed.hostname:
            raise ValueError(f"upstream must be http://HOST:PORT, not {upstream!r}")
        self.upstream = upstream
        self._upstream_host = parsed.hostname
        self._upstream_port = parsed.port or 80
        self._upstream_timeout = upstream_timeout
        self._lock = threading.Lock()
        self._faults: list[Fault] = []
        self._requests: list[Request] = []
        self._connections: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        self.port = self._server.server_address[1]
        self._thread: threading.Thread | None = None

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def catalog_uri(self) -> str:
        return f"rest+http://127.0.0.1:{self.port}"

    # ---- faults and the record ----

    def add_fault(self, method: str | None, path_regex: str, kind: str, times: int | None = 1,
                  **kw) -> Fault:
        """Queues a fault (see the module's doc); returns it, whose `fired` and `remaining`
        tell how often it acted and will act."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        unknown = set(kw) - _OPTIONS[kind]
        if unknown:
            raise TypeError(f"{kind} takes no {sorted(unknown)}")
        if kind.startswith("status_") and not isinstance(kw.get("status"), int):
            raise TypeError(f"{kind} needs status=<int>")
        if times is not None and times < 1:
            raise ValueError("times must be 1 or more (None: until cleared)")
        fault = Fault(method.upper() if method else None, re.compile(path_regex), kind, times, kw)
        with self._lock:
            self._faults.append(fault)
        return fault

    @property
    def faults(self) -> list[Fault]:
        """The faults still queued."""
        with self._lock:
            return list(self._faults)

    @property
    def requests(self) -> list[Request]:
        """Every request so far, in the order their outcome was known (a copy)."""
        with self._lock:
            return list(self._requests)

    def clear(self):
        with self._lock:
            self._faults.clear()
            self._requests.clear()

    def _take(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.matches(method, path):
                    fault.fired += 1
                    if fault.remaining is not None:
                        fault.remaining -= 1
                        if fault.remaining == 0:
                            self._faults.remove(fault)
                    return fault
        return None

    def _record(self, request: Request):
        with self._lock:
            self._requests.append(request)

    # ---- lifecycle ----

    def start(self) -> "RestFaultProxy":
        if self._thread is None:
            self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                            name=f"rest-fault-proxy-{self.port}")
            self._thread.start()
        return self

    def stop(self):
        self._stopping.set()  # wakes stalled requests
        if self._thread is not None:
            self._server.shutdown()
            self._thread = None
        self._server.server_close()
        # A kept-alive client connection would otherwise keep being served after the stop.
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> "RestFaultProxy":
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def _error_body(status: int, options: dict, default_message: str) -> bytes:
    message = options.get("message", default_message)
    kind = options.get("type", _ERROR_TYPES.get(status, "RESTException"))
    return json.dumps({"error": {"message": message, "type": kind, "code": status}}).encode()


def _handler_for(proxy: RestFaultProxy):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def setup(self):
            super().setup()
            with proxy._lock:
                proxy._connections.add(self.connection)

        def finish(self):
            try:
                super().finish()
            finally:
                with proxy._lock:
                    proxy._connections.discard(self.connection)

        def _read_body(self) -> bytes | None:
            """The request's body; None when it declared none (no Content-Length, not
            chunked), which is forwarded as such."""
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                chunks = []
                while True:
                    size = int(self.rfile.readline().split(b";")[0], 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass  # trailers
                        return b"".join(chunks)
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
            length = self.headers.get("Content-Length")
            return None if length is None else self.rfile.read(int(length))

        def _forward(self, body: bytes | None):
            """(status, reason, headers, data) of the upstream's answer, or None if it gave
            none; and whether the request was sent."""
            headers = {}
            connection_tokens = {t.strip().lower()
                                 for t in self.headers.get("Connection", "").split(",")}
            for name, value in self.headers.items():
                if name.lower() not in _HOP_BY_HOP and name.lower() not in connection_tokens:
                    headers[name] = value
            if body is not None:
                headers["Content-Length"] = str(len(body))
            conn = http.client.HTTPConnection(proxy._upstream_host, proxy._upstream_port,
                                              timeout=proxy._upstream_timeout)
            sent = False
            try:
                conn.connect()
                sent = True  # from here on the upstream may have seen (and applied) it
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                return (resp.status, resp.reason, resp.getheaders(), data), sent
            except (OSError, http.client.HTTPException):
                return None, sent
            finally:
                conn.close()

        def _answer_error(self, status: int, options: dict, default_message: str):
            body = _error_body(status, options, default_message)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if options.get("retry_after") is not None:
                self.send_header("Retry-After", str(options["retry_after"]))
            self.send_header("Content-Length", "0" if self.command == "HEAD" else str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _answer_upstream(self, answer):
            status, reason, headers, data = answer
            self.send_response_only(status, reason)  # the upstream's Date and Server follow
            length = None
            for name, value in headers:
                if name.lower() == "content-length":
                    length = value
                elif name.lower() not in _HOP_BY_HOP:
                    self.send_header(name, value)
            bodiless = self.command == "HEAD" or status in (204, 304) or status < 200
            if bodiless:
                # A HEAD answer's length is the GET's; 204 and 304 have none to give.
                if length is not None:
                    self.send_header("Content-Length", length)
            else:
                self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if not bodiless:
                self.wfile.write(data)

        def _serve(self):
            body = self._read_body()
            path = urllib.parse.urlsplit(self.path).path
            fault = proxy._take(self.command, path)
            kind = fault.kind if fault else None
            if kind in ("status_before", "status_after"):
                status = fault.options["status"]
                injected = f"injected by the fault proxy: {kind} {status}"
            if kind == "status_before":
                self._answer_error(status, fault.options, injected)
                proxy._record(Request(self.command, self.path, status, False))
            elif kind == "stall":
                proxy._record(Request(self.command, self.path, None, False))
                proxy._stopping.wait(fault.options.get("seconds", 30))
                self.close_connection = True  # unanswered: the client sees it closed
            else:
                answer, sent = self._forward(body)
                if kind == "status_after":
                    self._answer_error(status, fault.options, injected)
                    proxy._record(Request(self.command, self.path, status, sent))
                elif kind == "drop_after":
                    self.close_connection = True
                    proxy._record(Request(self.command, self.path, None, sent))
                elif answer is None:
                    # The upstream did not answer: a gateway's 502, and a connection that may
                    # be out of step closed.
                    self._answer_error(502, {}, f"no answer from {proxy.upstream}")
                    self.close_connection = True
                    proxy._record(Request(self.command, self.path, 502, sent))
                else:
                    self._answer_upstream(answer)
                    proxy._record(Request(self.command, self.path, answer[0], True))

        do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = _serve

    return Handler
