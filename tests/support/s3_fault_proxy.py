#!/usr/bin/env python3
"""An HTTP proxy in front of an S3 server that fails or stalls chosen requests, for fault tests.

As a library:
    with FaultProxy(upstream_endpoint) as proxy:
        proxy.endpoint                       # http://127.0.0.1:<port>, point the client here
        proxy.fail("PUT", status=503)        # every PUT answers 503 SlowDown
        proxy.fail("PUT", status=500, key=r"\\.metadata\\.json$", times=1)
        proxy.stall("POST", seconds=30)      # POSTs get no answer for 30 s
        proxy.clear()                        # pass everything through again
        proxy.log                            # [(method, path, action)] of every request
As a command (to try a client by hand):
    s3_fault_proxy.py UPSTREAM [--fail METHOD:STATUS]... [--stall METHOD:SECONDS]...
                      [--latency-ms MS] [--bandwidth BYTES_PER_S] [--shared-bandwidth] [--cache-reads]
    prints its endpoint and serves until interrupted.

Opt-in, for benchmarks (none of it is on unless asked for, and a proxy made with no shaping
forwards exactly as before):
    FaultProxy(upstream, latency=0.02,           # seconds added to every answer (before its
                                                 # first byte), requests in flight in parallel
               bandwidth=100e6,                  # bytes per second of each request's body and
                                                 # each answer's body, per connection ...
               shared_bandwidth=False,           # ... or, when True, one budget for all of them
               cache_reads=True)                 # answer GET and HEAD of an object from memory
    proxy.preload(bucket)                        # fetch every object of a bucket into that cache
    proxy.counts()                               # requests by method and kind of key, bytes, and
                                                 # the union of the time requests were in flight
    proxy.requests                               # [Request] of every request since reset()
    proxy.reset()                                # clears requests (not the log nor the rules)

The read cache exists because moto reads a whole object for every ranged GET: behind it, the
cost of a read is the injected latency and bandwidth, not moto's. An object is fetched whole
from upstream the first time it is read (or by preload) and answered from memory afterwards,
ranges included, with the headers upstream gave; a PUT, POST or DELETE of a key drops it.
Only answers 200 are kept.

A rule matches a request by method (PUT and POST are the uploads: PutObject, UploadPart,
CreateMultipartUpload, CompleteMultipartUpload) and, optionally, a regular expression searched
in the path; `times` limits how many requests it hits (None: all). The first matching rule
acts; requests no rule matches are forwarded unchanged (the Host header too, so signatures
stay valid for servers that check them).
"""

import argparse
import dataclasses
import http.client
import http.server
import re
import socketserver
import sys
import threading
import time
import urllib.parse

_ERRORS = {
    500: ("InternalError", "We encountered an internal error. Please try again."),
    503: ("SlowDown", "Please reduce your request rate."),
}


class _Rule:
    def __init__(self, method, action, status=None, seconds=None, key=None, times=None):
        self.method = method.upper()
        self.action = action
        self.status = status
        self.seconds = seconds
        self.key = re.compile(key) if key else None
        self.times = times

    def matches(self, method, path):
        if self.times is not None and self.times <= 0:
            return False
        if method != self.method:
            return False
        return self.key is None or self.key.search(urllib.parse.unquote(path)) is not None


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


# What kind of Iceberg file a key is, for counting requests by kind.
_KINDS = (
    ("metadata", re.compile(r"\.metadata\.json$")),
    ("manifest-list", re.compile(r"/snap-[^/]*\.avro$")),
    ("manifest", re.compile(r"\.avro$")),
    ("data", re.compile(r"\.parquet$")),
    ("puffin", re.compile(r"\.puffin$")),
)


def key_kind(path):
    """metadata, manifest-list, manifest, data, puffin, list (a bucket listing) or other."""
    path = urllib.parse.unquote(path.split("?", 1)[0])
    for kind, pattern in _KINDS:
        if pattern.search(path):
            return kind
    return "list" if path.rstrip("/").count("/") <= 1 else "other"  # /bucket?list-type=2...


@dataclasses.dataclass
class Request:
    """One request the proxy answered: when it arrived and when its answer was sent, in
    time.perf_counter() seconds; the bytes of its body and of its answer's body."""
    method: str
    path: str
    kind: str
    ranged: bool
    start: float
    end: float = 0.0
    status: int = 0
    body_bytes: int = 0
    upload_bytes: int = 0


class _Pacer:
    """Holds a stream of bytes to a rate: wait(n) returns once the stream has been running
    for at least (bytes so far) / rate seconds. Shared by every stream when the proxy's
    bandwidth is shared, so that they add up to the rate."""

    def __init__(self, rate):
        self.rate = rate
        self._lock = threading.Lock()
        self._next = 0.0  # when the bytes handed out so far may all have been sent

    def wait(self, n):
        with self._lock:
            now = time.perf_counter()
            self._next = max(self._next, now) + n / self.rate
            until = self._next
        delay = until - time.perf_counter()
        if delay > 0:
            time.sleep(delay)


class FaultProxy:
    def __init__(self, upstream, latency=0.0, bandwidth=None, shared_bandwidth=False, cache_reads=False):
        parsed = urllib.parse.urlparse(upstream)
        self.upstream_host = parsed.hostname
        self.upstream_port = parsed.port or 80
        self._rules = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.log = []
        self.latency = latency
        self.bandwidth = bandwidth
        self.shared_bandwidth = shared_bandwidth
        self.cache_reads = cache_reads
        self._shared_pacer = _Pacer(bandwidth) if bandwidth and shared_bandwidth else None
        self._cache = {}  # path without query -> (headers, body)
        self.requests = []
        proxy = self
        shaping = bool(latency or bandwidth or cache_reads)

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # An answer's headers and body are two writes: with Nagle's algorithm the body would
            # wait for the client's delayed ACK of the headers (40 ms), a delay nobody asked for.
            disable_nagle_algorithm = shaping

            def log_message(self, *args):
                pass

            def _body(self):
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks = []
                    while True:
                        size = int(self.rfile.readline().split(b";")[0], 16)
                        if size == 0:
                            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                                pass
                            break
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                    return b"".join(chunks), True
                length = int(self.headers.get("Content-Length", 0))
                return (self.rfile.read(length) if length else b""), False

            def _handle(self):
                if shaping:
                    return self._shaped()
                body, chunked = self._body()
                rule = proxy._match(self.command, self.path)
                action = rule.action if rule else "forward"
                with proxy._lock:
                    proxy.log.append((self.command, self.path, action))
                if action == "fail":
                    code, message = _ERRORS.get(rule.status, ("InternalError", "injected"))
                    payload = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
                               f"<Message>{message}</Message></Error>").encode()
                    self.send_response(rule.status)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if action == "stall":
                    # No answer: the client's request timeout has to end it.
                    proxy._stop.wait(rule.seconds)
                    self.close_connection = True
                    return
                self._forward(body, chunked)

            def _forward(self, body, chunked):
                conn = http.client.HTTPConnection(proxy.upstream_host, proxy.upstream_port,
                                                  timeout=60)
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("transfer-encoding", "content-length",
                                                "connection")}
                headers["Content-Length"] = str(len(body))
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status, resp.reason)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "content-length", "connection",
                                         "server", "date"):
                        self.send_header(k, v)
                # A HEAD answer has no body but the length of the object's.
                length = resp.getheader("Content-Length") if self.command == "HEAD" else None
                self.send_header("Content-Length", length or str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                conn.close()

            # ---- with latency, a bandwidth cap or the read cache ----

            def _pacer(self):
                if not proxy.bandwidth:
                    return None
                return proxy._shared_pacer or _Pacer(proxy.bandwidth)

            def _shaped(self):
                req = Request(self.command, self.path, key_kind(self.path), "Range" in self.headers,
                              time.perf_counter())
                with proxy._lock:
                    proxy.requests.append(req)
                body, chunked = self._body()
                req.upload_bytes = len(body)
                pacer = self._pacer()
                if pacer and body:
                    pacer.wait(len(body))  # the upload takes its time at the cap too
                rule = proxy._match(self.command, self.path)
                action = rule.action if rule else "forward"
                with proxy._lock:
                    proxy.log.append((self.command, self.path, action))
                if action == "stall":
                    proxy._stop.wait(rule.seconds)
                    self.close_connection = True
                    req.end = time.perf_counter()
                    return
                if action == "fail":
                    code, message = _ERRORS.get(rule.status, ("InternalError", "injected"))
                    payload = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
                               f"<Message>{message}</Message></Error>").encode()
                    status, headers, data = rule.status, [("Content-Type", "application/xml")], payload
                    length = None
                else:
                    status, headers, data, length = self._answer(body)
                if proxy.latency:
                    time.sleep(proxy.latency)
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", length or str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self._send(data, pacer)
                req.status, req.body_bytes, req.end = status, (0 if self.command == "HEAD" else len(data)), \
                    time.perf_counter()

            def _send(self, data, pacer):
                view = memoryview(data)
                step = 256 * 1024
                for at in range(0, len(view), step):
                    chunk = view[at:at + step]
                    if pacer:
                        pacer.wait(len(chunk))
                    self.wfile.write(chunk)

            def _answer(self, body):
                """status, headers, body and (for HEAD) the length to announce."""
                key = self.path.split("?", 1)[0]
                if self.command in ("PUT", "POST", "DELETE"):
                    with proxy._lock:
                        proxy._cache.pop(key, None)
                elif proxy.cache_reads and self.command in ("GET", "HEAD") and "?" not in self.path:
                    cached = proxy._cache.get(key)
                    if cached is None:
                        cached = proxy._fetch(self.path, dict(self.headers.items()))
                    if cached is not None:
                        return self._from_cache(*cached)
                status, headers, data, length = proxy._upstream(self.command, self.path, body,
                                                                dict(self.headers.items()))
                return status, headers, data, length

            def _from_cache(self, headers, data):
                size = len(data)
                rng = self.headers.get("Range")
                span = _range(rng, size) if rng else None
                if span == "invalid":
                    payload = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidRange</Code>'
                               b"<Message>The requested range is not satisfiable</Message></Error>")
                    return 416, [("Content-Type", "application/xml")], payload, None
                if span is None:
                    if self.command == "HEAD":  # moto's HEAD carries no checksum
                        return 200, [(k, v) for k, v in headers if not k.lower().startswith("x-amz-checksum-")], \
                            b"", str(size)
                    return 200, headers, data, None
                begin, end = span
                part = list(headers) if begin == 0 and end == size - 1 else \
                    [(k, v) for k, v in headers if not k.lower().startswith("x-amz-checksum-")]
                part.append(("Content-Range", f"bytes {begin}-{end}/{size}"))
                if self.command == "HEAD":
                    return 206, part, b"", str(end - begin + 1)
                return 206, part, memoryview(data)[begin:end + 1], None

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

        self._server = _Server(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self._thread = None

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    # ---- upstream, for the shaped path ----

    _DROPPED = ("transfer-encoding", "content-length", "connection", "server", "date")

    def _upstream(self, method, path, body, headers):
        """Sends a request upstream; (status, headers, body, length of a HEAD's object)."""
        conn = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=60)
        try:
            headers = {k: v for k, v in headers.items()
                       if k.lower() not in ("transfer-encoding", "content-length", "connection")}
            headers["Content-Length"] = str(len(body))
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            out = [(k, v) for k, v in resp.getheaders() if k.lower() not in self._DROPPED]
            length = resp.getheader("Content-Length") if method == "HEAD" else None
            return resp.status, out, data, length
        finally:
            conn.close()

    def _fetch(self, path, headers):
        """The whole object at `path` (no query), kept in the read cache; None unless 200."""
        headers = {k: v for k, v in headers.items() if k.lower() not in ("range", "if-match", "if-none-match")}
        status, out, data, _ = self._upstream("GET", path, b"", headers)
        if status != 200:
            return None
        # Keep Last-Modified in the form S3 gives, and everything else moto answered.
        entry = ([(k, v) for k, v in out if k.lower() not in ("content-range",)], data)
        with self._lock:
            self._cache[path.split("?", 1)[0]] = entry
        return entry

    def preload(self, bucket, prefix="", access_key="floe", secret_key="floe-secret", region="us-east-1"):
        """Fetches every object of `bucket` under `prefix` into the read cache (needs
        cache_reads), as requests signed with the given credentials; returns the bytes the
        cache holds."""
        import xml.etree.ElementTree as ET

        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials

        host = f"{self.upstream_host}:{self.upstream_port}"
        signer = SigV4Auth(Credentials(access_key, secret_key), "s3", region)

        def signed(path):
            req = AWSRequest(method="GET", url=f"http://{host}{path}",
                             headers={"x-amz-content-sha256": "UNSIGNED-PAYLOAD"})
            signer.add_auth(req)
            return dict(req.headers.items())

        token, keys = None, []
        while True:
            query = {"list-type": "2", "prefix": prefix}
            if token:
                query["continuation-token"] = token
            path = f"/{bucket}?{urllib.parse.urlencode(query)}"
            status, _, data, _ = self._upstream("GET", path, b"", signed(path))
            if status != 200:
                raise RuntimeError(f"listing s3://{bucket}/{prefix} answered {status}: {data[:200]!r}")
            root = ET.fromstring(data)
            ns = root.tag[:root.tag.index("}") + 1] if root.tag.startswith("{") else ""
            keys += [c.findtext(f"{ns}Key") for c in root.iter(f"{ns}Contents")]
            token = root.findtext(f"{ns}NextContinuationToken")
            if not token:
                break
        for key in keys:
            path = "/" + bucket + "/" + urllib.parse.quote(key, safe="/~")
            if path not in self._cache:
                self._fetch(path, signed(path))
        with self._lock:
            return sum(len(body) for _, body in self._cache.values())

    # ---- counting ----

    def reset(self):
        with self._lock:
            self.requests = []

    def counts(self, requests=None):
        """What `requests` (default: every request since reset()) were: how many by method and
        by method and kind of key ("GET data": 1000), ranged GETs, the bytes of the answers and
        of the uploads,
        the most in flight at once, the union of the time any was in flight (seconds), the
        longest chain of requests that followed one another, and when the first was sent and
        the last answered (time.perf_counter())."""
        with self._lock:
            reqs = list(self.requests if requests is None else requests)
        by_method, by_kind = {}, {}
        for r in reqs:
            by_method[r.method] = by_method.get(r.method, 0) + 1
            k = f"{r.method} {r.kind}"
            by_kind[k] = by_kind.get(k, 0) + 1
        events = sorted([(r.start, 1) for r in reqs] + [(r.end or r.start, -1) for r in reqs])
        busy, depth, most, since = 0.0, 0, 0, None
        for t, d in events:
            if depth == 0 and d > 0:
                since = t
            depth += d
            most = max(most, depth)
            if depth == 0 and since is not None:
                busy += t - since
                since = None
        # The longest chain of requests each sent after the answer before it had ended: the
        # round trips that followed one another. Ends sort before starts at the same instant.
        chain, done_best = {}, 0
        for t, d, i in sorted([(r.start, 1, i) for i, r in enumerate(reqs)] +
                              [((r.end or r.start), 0, i) for i, r in enumerate(reqs)]):
            if d:
                chain[i] = done_best + 1
            else:
                done_best = max(done_best, chain.get(i, 1))
        return {"requests": len(reqs), "by_method": by_method, "by_kind": by_kind,
                "ranged_gets": sum(1 for r in reqs if r.method == "GET" and r.ranged),
                "bytes": sum(r.body_bytes for r in reqs), "upload_bytes": sum(r.upload_bytes for r in reqs),
                "max_in_flight": most, "busy_s": round(busy, 4), "chain": max(chain.values(), default=0),
                "first_start": min((r.start for r in reqs), default=None),
                "last_end": max((r.end or r.start for r in reqs), default=None)}

    def _match(self, method, path):
        with self._lock:
            for rule in self._rules:
                if rule.matches(method, path):
                    if rule.times is not None:
                        rule.times -= 1
                    return rule
        return None

    # ---- rules ----

    def fail(self, method, status=500, key=None, times=None):
        with self._lock:
            self._rules.append(_Rule(method, "fail", status=status, key=key, times=times))

    def stall(self, method, seconds=30, key=None, times=None):
        with self._lock:
            self._rules.append(_Rule(method, "stall", seconds=seconds, key=key, times=times))

    def clear(self):
        with self._lock:
            self._rules = []

    def hits(self, action):
        """How many requests got `action` ("fail", "stall" or "forward")."""
        with self._lock:
            return sum(1 for entry in self.log if entry[2] == action)

    # ---- lifecycle ----

    def start(self):
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def _range(header, size):
    """(first, last) byte of a `Range: bytes=...` header over an object of `size` bytes, as
    moto reads it: None for the whole object, "invalid" for a range past its end."""
    try:
        unit, spec = header.split("=", 1)
    except ValueError:
        return None
    if unit.strip() != "bytes" or "," in spec:
        return None
    try:
        begin, end = [int(i) if i.strip() else None for i in spec.split("-")]
    except ValueError:
        return None
    last = size - 1
    if (begin is None and end == 0) or (begin is not None and begin > last):
        return "invalid"
    if begin is not None:
        end = last if end is None else min(end, last)
    elif end is not None:
        begin, end = size - min(end, size), last
    else:
        return None
    if begin > end:
        return None
    return begin, end


def main(argv):
    parser = argparse.ArgumentParser(description="Fault-injecting proxy for an S3 server")
    parser.add_argument("upstream")
    parser.add_argument("--fail", action="append", default=[], metavar="METHOD:STATUS")
    parser.add_argument("--stall", action="append", default=[], metavar="METHOD:SECONDS")
    parser.add_argument("--latency-ms", type=float, default=0, help="added to every answer")
    parser.add_argument("--bandwidth", type=float, default=None, help="bytes per second per connection")
    parser.add_argument("--shared-bandwidth", action="store_true", help="one bandwidth for all connections")
    parser.add_argument("--cache-reads", action="store_true", help="answer reads of an object from memory")
    args = parser.parse_args(argv[1:])
    proxy = FaultProxy(args.upstream, latency=args.latency_ms / 1000, bandwidth=args.bandwidth,
                       shared_bandwidth=args.shared_bandwidth, cache_reads=args.cache_reads)
    for spec in args.fail:
        method, status = spec.split(":")
        proxy.fail(method, int(status))
    for spec in args.stall:
        method, seconds = spec.split(":")
        proxy.stall(method, float(seconds))
    proxy.start()
    print(proxy.endpoint, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        proxy.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
