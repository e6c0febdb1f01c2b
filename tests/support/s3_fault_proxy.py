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
    prints its endpoint and serves until interrupted.

A rule matches a request by method (PUT and POST are the uploads: PutObject, UploadPart,
CreateMultipartUpload, CompleteMultipartUpload) and, optionally, a regular expression searched
in the path; `times` limits how many requests it hits (None: all). The first matching rule
acts; requests no rule matches are forwarded unchanged (the Host header too, so signatures
stay valid for servers that check them).
"""

import argparse
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


class FaultProxy:
    def __init__(self, upstream):
        parsed = urllib.parse.urlparse(upstream)
        self.upstream_host = parsed.hostname
        self.upstream_port = parsed.port or 80
        self._rules = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.log = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

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

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

        self._server = _Server(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self._thread = None

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

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


def main(argv):
    parser = argparse.ArgumentParser(description="Fault-injecting proxy for an S3 server")
    parser.add_argument("upstream")
    parser.add_argument("--fail", action="append", default=[], metavar="METHOD:STATUS")
    parser.add_argument("--stall", action="append", default=[], metavar="METHOD:SECONDS")
    args = parser.parse_args(argv[1:])
    proxy = FaultProxy(args.upstream)
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
