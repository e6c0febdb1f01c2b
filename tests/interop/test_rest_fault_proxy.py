"""The fault proxy of the REST client tests (tests/support/rest_fault_proxy.py) in front of
Iceberg's reference REST catalog server (tests/support/reference_rest_server.py, one JVM for
the module): requests it does not fault reach the server and come back unchanged over one
kept-alive connection, and each fault kind does to the catalog and to the client exactly what
it says. Needs scripts/setup-rest-kit.sh; without it the tests are skipped, unless CI=true:
then they fail."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest

from floe_driver import ROOT  # noqa: F401  (puts tests/support on the path)
from names import name_for_test
from reference_rest_server import ReferenceRestServer, require_reference_jar
from rest_fault_proxy import Request, RestFaultProxy


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_reference_jar()
    with ReferenceRestServer(tmp_path_factory.mktemp("reference-rest")) as s:
        yield s


@pytest.fixture(scope="module")
def proxy(server):
    with RestFaultProxy(server.uri) as p:
        yield p


@pytest.fixture(autouse=True)
def clean(proxy):
    proxy.clear()
    yield
    proxy.clear()


@pytest.fixture
def ns(request):
    return name_for_test(request, prefix="ns")


def connect(endpoint, timeout=10):
    return http.client.HTTPConnection("127.0.0.1", int(endpoint.rsplit(":", 1)[1]), timeout=timeout)


@pytest.fixture
def via(proxy):
    conn = connect(proxy.uri)
    yield conn
    conn.close()


@pytest.fixture
def direct(server):
    conn = connect(server.uri)
    yield conn
    conn.close()


def call(conn, method, path, body=None, headers=None):
    """(status, the response for its headers, body as JSON or bytes) of one exchange."""
    headers = dict(headers or {})
    if body is not None and not isinstance(body, bytes):
        body = json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    try:
        data = json.loads(data) if data else data
    except ValueError:
        pass
    return r.status, r, data


def create(conn, ns):
    return call(conn, "POST", "/v1/namespaces", {"namespace": [ns]})


def exists(direct, ns):
    return call(direct, "HEAD", f"/v1/namespaces/{ns}")[0] in (200, 204)


def test_forwards_every_method_on_one_kept_alive_connection(proxy, via, direct, ns):
    status, _, data = call(via, "GET", "/v1/config")
    assert (status, data) == (200, call(direct, "GET", "/v1/config")[2])
    sock = via.sock
    status, _, data = create(via, ns)
    assert status == 200 and data["namespace"] == [ns]
    head, _, data = call(via, "HEAD", f"/v1/namespaces/{ns}")
    assert head == call(direct, "HEAD", f"/v1/namespaces/{ns}")[0] and data == b""
    status, _, data = call(via, "POST", f"/v1/namespaces/{ns}/properties",
                           {"removals": [], "updates": {"owner": "floe"}})
    assert status == 200 and data["updated"] == ["owner"]
    assert call(via, "GET", f"/v1/namespaces/{ns}")[2]["properties"]["owner"] == "floe"
    # The query reaches the server: a parent lists its children only.
    assert call(via, "POST", "/v1/namespaces", {"namespace": [ns, "child"]})[0] == 200
    status, _, data = call(via, "GET", f"/v1/namespaces?parent={ns}")
    assert (status, data["namespaces"]) == (200, [[ns, "child"]])
    dropped = call(via, "DELETE", f"/v1/namespaces/{ns}%1Fchild")[0]
    assert dropped in (200, 204)
    # The server's refusals come back whole (status, ErrorModel).
    status, _, data = create(via, ns)
    assert status == 409 and data["error"]["type"] == "AlreadyExistsException"
    assert call(via, "DELETE", f"/v1/namespaces/{ns}")[0] == dropped
    assert not exists(direct, ns)
    assert via.sock is sock, "the proxy closed a kept-alive connection"
    assert [(m, s, f) for m, _, s, f in proxy.requests] == [
        ("GET", 200, True), ("POST", 200, True), ("HEAD", head, True),
        ("POST", 200, True), ("GET", 200, True), ("POST", 200, True), ("GET", 200, True),
        ("DELETE", dropped, True), ("POST", 409, True), ("DELETE", dropped, True)]
    assert proxy.requests[6].path == f"/v1/namespaces?parent={ns}"


def test_chunked_and_expect_100_continue_bodies(proxy, direct, ns):
    # libcurl sends large bodies after a 100 Continue, and may send them chunked.
    conn = connect(proxy.uri)
    conn.request("POST", "/v1/namespaces", body=iter([json.dumps({"namespace": [ns]}).encode()]),
                 headers={"Content-Type": "application/json"}, encode_chunked=True)
    assert conn.getresponse().status == 200
    conn.close()
    body = json.dumps({"namespace": [ns + "_x"]}).encode()
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as s:
        s.sendall(b"POST /v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body))
        assert s.recv(100).startswith(b"HTTP/1.1 100 ")
        s.sendall(body)
        answer = s.recv(4096)
    assert answer.startswith(b"HTTP/1.1 200 "), answer
    assert exists(direct, ns) and exists(direct, ns + "_x")


def test_status_before_leaves_the_catalog_untouched(proxy, via, direct, ns):
    fault = proxy.add_fault("POST", r"^/v1/namespaces$", "status_before", status=409)
    status, r, data = create(via, ns)
    assert status == 409
    assert r.getheader("Content-Type") == "application/json"
    assert data["error"]["code"] == 409 and data["error"]["type"] == "CommitFailedException"
    assert data["error"]["message"]
    assert not exists(direct, ns)
    assert proxy.requests == [Request("POST", "/v1/namespaces", 409, False)]
    assert (fault.fired, fault.remaining, proxy.faults) == (1, 0, [])
    # The fault is spent; the same connection carries on.
    sock = via.sock
    assert create(via, ns)[0] == 200 and exists(direct, ns)
    assert via.sock is sock


def test_status_before_retry_after_and_times(proxy, via, direct, ns):
    proxy.add_fault("POST", r"/namespaces$", "status_before", times=2, status=503, retry_after=2)
    proxy.add_fault("POST", r"/namespaces$", "status_before", status=429, retry_after="7",
                    message="slow down", type="SlowDownException")
    for _ in range(2):
        status, r, data = create(via, ns)
        assert (status, r.getheader("Retry-After")) == (503, "2")
        assert data["error"] == {"message": data["error"]["message"],
                                 "type": "ServiceUnavailableException", "code": 503}
    status, r, data = create(via, ns)
    assert (status, r.getheader("Retry-After")) == (429, "7")
    assert data == {"error": {"message": "slow down", "type": "SlowDownException", "code": 429}}
    assert not exists(direct, ns)
    status, r, _ = create(via, ns)
    assert (status, r.getheader("Retry-After")) == (200, None)
    assert [r.status for r in proxy.requests] == [503, 503, 429, 200]


def test_status_after_applies_the_request_then_fails_it(proxy, via, direct, ns):
    proxy.add_fault("POST", r"^/v1/namespaces$", "status_after", status=500)
    status, _, data = create(via, ns)
    assert status == 500 and data["error"]["code"] == 500
    assert exists(direct, ns), "the server did not get the request"
    assert proxy.requests == [Request("POST", "/v1/namespaces", 500, True)]
    # The retry a client would make finds it done.
    status, _, data = create(via, ns)
    assert status == 409 and data["error"]["type"] == "AlreadyExistsException"


def test_status_after_on_a_table_commit(proxy, via, direct, ns):
    schema = {"type": "struct", "schema-id": 0,
              "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}]}
    assert create(direct, ns)[0] == 200
    assert call(direct, "POST", f"/v1/namespaces/{ns}/tables", {"name": "t", "schema": schema})[0] == 200
    proxy.add_fault("POST", rf"/namespaces/{ns}/tables/t$", "status_after", status=504,
                    retry_after=1)
    status, r, data = call(via, "POST", f"/v1/namespaces/{ns}/tables/t", {
        "requirements": [], "updates": [{"action": "set-properties", "updates": {"k": "v"}}]})
    assert (status, data["error"]["code"], r.getheader("Retry-After")) == (504, 504, "1")
    table = call(direct, "GET", f"/v1/namespaces/{ns}/tables/t")[2]
    assert table["metadata"]["properties"]["k"] == "v"


def test_stall_closes_without_an_answer(proxy, via, direct, ns):
    proxy.add_fault("POST", r"^/v1/namespaces$", "stall", seconds=1)
    start = time.monotonic()
    with pytest.raises(http.client.RemoteDisconnected):
        create(via, ns)
    took = time.monotonic() - start
    assert 0.9 <= took < 5, took
    assert not exists(direct, ns)
    assert proxy.requests == [Request("POST", "/v1/namespaces", None, False)]
    # A new connection gets through.
    via.close()
    assert create(via, ns)[0] == 200


def test_stop_ends_a_stall(server):
    with RestFaultProxy(server.uri) as proxy:
        proxy.add_fault(None, r"", "stall")  # 30 s
        conn = connect(proxy.uri, timeout=20)
        threading.Timer(0.5, proxy.stop).start()
        start = time.monotonic()
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            call(conn, "GET", "/v1/config")
        assert time.monotonic() - start < 5
        conn.close()


def test_drop_after_applies_the_request_then_closes(proxy, via, direct, ns):
    assert create(direct, ns)[0] == 200
    proxy.add_fault("DELETE", rf"^/v1/namespaces/{ns}$", "drop_after")
    with pytest.raises(http.client.RemoteDisconnected):
        call(via, "DELETE", f"/v1/namespaces/{ns}")
    assert not exists(direct, ns)
    assert proxy.requests == [Request("DELETE", f"/v1/namespaces/{ns}", None, True)]
    via.close()
    assert call(via, "DELETE", f"/v1/namespaces/{ns}")[0] == 404


def test_matching_order_method_and_query(proxy, via, direct, ns):
    assert create(direct, ns)[0] == 200
    # The first fault added that matches acts; the others wait their turn.
    proxy.add_fault("GET", r"^/v1/namespaces$", "status_before", status=503)
    proxy.add_fault(None, r"^/v1/namespaces", "status_before", status=502, times=None)
    proxy.add_fault("GET", r"^/v1/namespaces$", "status_before", status=500)
    # The query is not part of what the regex sees.
    assert call(via, "GET", "/v1/namespaces?pageSize=10")[0] == 503
    assert call(via, "GET", "/v1/namespaces")[0] == 502
    assert call(via, "HEAD", f"/v1/namespaces/{ns}")[0] == 502
    assert call(via, "GET", "/v1/config")[0] == 200  # no fault matches
    assert [(f.kind, f.options["status"], f.fired) for f in proxy.faults] == [
        ("status_before", 502, 2), ("status_before", 500, 0)]
    proxy.clear()
    assert (proxy.faults, proxy.requests) == ([], [])
    assert call(via, "GET", "/v1/namespaces")[0] == 200


def test_add_fault_refuses_mistakes(proxy):
    with pytest.raises(ValueError):
        proxy.add_fault("GET", "x", "status")
    with pytest.raises(TypeError):
        proxy.add_fault("GET", "x", "status_before")  # no status
    with pytest.raises(TypeError):
        proxy.add_fault("GET", "x", "stall", status=500)
    with pytest.raises(ValueError):
        proxy.add_fault("GET", "x", "drop_after", times=0)
    assert proxy.faults == []


def test_concurrent_clients_are_all_recorded(proxy):
    proxy.add_fault("GET", r"^/v1/config$", "status_before", status=503, times=5)
    statuses = []

    def client():
        conn = connect(proxy.uri)
        for _ in range(10):
            statuses.append(call(conn, "GET", "/v1/config")[0])
        conn.close()

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200] * 75 + [503] * 5
    assert sorted(r.status for r in proxy.requests) == sorted(statuses)
