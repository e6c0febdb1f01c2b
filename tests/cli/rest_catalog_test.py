"""`floe serve --rest`: the Iceberg REST catalog through PyIceberg's RestCatalog and raw HTTP,
against a fresh catalog: the config and its endpoints, namespaces (nested, paged, created,
loaded, checked, dropped, their properties updated) with Iceberg's errors, tables floe wrote
listed, loaded and read by PyIceberg, persistent connections, and the refusal of a
non-loopback address.
Run: FLOE_BINARY=build/floe pytest tests/cli/rest_catalog_test.py"""

import http.client
import json
import os
import re
import socket
import ssl
import subprocess
import urllib.parse

import pyarrow as pa
import pytest
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import (BadRequestError, NamespaceAlreadyExistsError,
                                  NamespaceNotEmptyError, NoSuchNamespaceError, NoSuchTableError)

from serve_support import FloeServe, Serve

BINARY = os.environ.get("FLOE_BINARY", "build/floe")


class RestServe(Serve):
    """`floe serve` with the wire protocol and the REST catalog beside it."""

    def __init__(self, *args, **kwargs):
        super().__init__(BINARY, *args, rest=True, **kwargs)

    def floe_sql(self, *statements):
        args = [self.binary, "sql", "--catalog", self.catalog, "--warehouse", self.warehouse, "-q"]
        for s in statements:
            args += ["-c", s]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr


@pytest.fixture(scope="module")
def server():
    s = RestServe()
    yield s
    s.stop()


@pytest.fixture
def catalog(server):
    return load_catalog("lakehouse", type="rest", uri=server.uri)


def request(server, method, path, body=None, conn=None):
    c = conn or http.client.HTTPConnection("127.0.0.1", server.rest_port, timeout=30)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    c.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    r = c.getresponse()
    data = r.read()
    if conn is None:
        c.close()
    return r.status, dict(r.getheaders()), json.loads(data) if data else None


def test_config_lists_the_endpoints_served(server):
    status, headers, body = request(server, "GET", "/v1/config?warehouse=x")
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert body["defaults"] == {} and body["overrides"] == {}
    assert body["endpoints"] == [
        "GET /v1/{prefix}/namespaces",
        "POST /v1/{prefix}/namespaces",
        "GET /v1/{prefix}/namespaces/{namespace}",
        "HEAD /v1/{prefix}/namespaces/{namespace}",
        "DELETE /v1/{prefix}/namespaces/{namespace}",
        "POST /v1/{prefix}/namespaces/{namespace}/properties",
        "GET /v1/{prefix}/namespaces/{namespace}/tables",
        "POST /v1/{prefix}/namespaces/{namespace}/tables",
        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "POST /v1/{prefix}/namespaces/{namespace}/register",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
        "POST /v1/{prefix}/tables/rename",
        "POST /v1/{prefix}/transactions/commit",
    ]


def test_namespaces_through_pyiceberg(server, catalog):
    catalog.create_namespace("sales", {"owner": "ana", "comment": "orders"})
    catalog.create_namespace(("sales", "eu"))
    catalog.create_namespace(("sales", "us"))
    assert ("sales",) in catalog.list_namespaces()
    assert catalog.list_namespaces("sales") == [("sales", "eu"), ("sales", "us")]
    assert catalog.list_namespaces(("sales", "eu")) == []
    props = catalog.load_namespace_properties("sales")
    assert props["owner"] == "ana" and props["comment"] == "orders"
    assert props["location"].endswith("/warehouse/sales")
    assert catalog.namespace_exists("sales")
    assert catalog.namespace_exists(("sales", "eu"))
    assert not catalog.namespace_exists("nowhere")

    summary = catalog.update_namespace_properties("sales", removals={"comment", "gone"},
                                                  updates={"owner": "bo", "team": "x"})
    assert sorted(summary.updated) == ["owner", "team"]
    assert summary.removed == ["comment"]
    assert summary.missing == ["gone"]
    props = catalog.load_namespace_properties("sales")
    assert props["owner"] == "bo" and props["team"] == "x" and "comment" not in props

    with pytest.raises(NamespaceAlreadyExistsError, match="Namespace already exists: sales"):
        catalog.create_namespace("sales")
    with pytest.raises(NoSuchNamespaceError, match="Namespace does not exist: nowhere"):
        catalog.load_namespace_properties("nowhere")
    with pytest.raises(NoSuchNamespaceError, match="Namespace does not exist: nowhere"):
        catalog.list_namespaces("nowhere")
    with pytest.raises(NoSuchNamespaceError, match="Namespace does not exist: nowhere"):
        catalog.drop_namespace("nowhere")
    with pytest.raises(NamespaceNotEmptyError, match="Namespace sales is not empty"):
        catalog.drop_namespace("sales")
    catalog.drop_namespace(("sales", "eu"))
    catalog.drop_namespace(("sales", "us"))
    catalog.drop_namespace("sales")
    assert not catalog.namespace_exists("sales")


def test_floe_and_the_rest_catalog_see_one_catalog(server, catalog):
    server.floe_sql("CREATE NAMESPACE shop", "CREATE TABLE shop.orders (id BIGINT) USING iceberg")
    assert ("shop",) in catalog.list_namespaces()
    with pytest.raises(NamespaceNotEmptyError,
                       match=r"Namespace shop is not empty\. 1 tables exist\.$"):
        catalog.drop_namespace("shop")


def test_errors_in_the_spec_shape(server):
    status, _, body = request(server, "GET", "/v1/namespaces/nowhere%1Fdeeper")
    assert status == 404
    assert body == {"error": {"message": "Namespace does not exist: nowhere.deeper",
                              "type": "NoSuchNamespaceException", "code": 404}}
    status, _, body = request(server, "POST", "/v1/namespaces", {"namespace": "flat"})
    assert status == 400
    assert body["error"]["type"] == "BadRequestException"
    assert "namespace" in body["error"]["message"]
    status, _, body = request(server, "POST", "/v1/namespaces", {"namespace": ["a.b"]})
    assert status == 400
    status, _, body = request(server, "POST", "/v1/namespaces/nowhere/properties",
                              {"removals": ["k"], "updates": {"k": "v"}})
    assert status == 422
    assert body["error"]["message"] == (
        "Invalid namespace update, cannot simultaneously set and remove keys: [k]")
    status, headers, body = request(server, "PUT", "/v1/namespaces")
    assert status == 405 and headers["Allow"] == "GET, POST"
    status, _, body = request(server, "GET", "/v1/nothing")
    assert status == 404 and body["error"]["type"] == "NotFoundException"
    status, _, body = request(server, "HEAD", "/v1/namespaces/nowhere")
    assert status == 404 and body is None


def test_list_pages(server):
    for name in ["p1", "p2", "p3", "p4", "p5"]:
        assert request(server, "POST", "/v1/namespaces", {"namespace": ["paged", name]})[0] == 200
    seen, token, pages = [], "", 0
    while token is not None:
        query = urllib.parse.urlencode({"parent": "paged", "pageToken": token, "pageSize": 2})
        status, _, body = request(server, "GET", "/v1/namespaces?" + query)
        assert status == 200
        seen += body["namespaces"]
        token = body["next-page-token"]
        pages += 1
    assert seen == [["paged", f"p{i}"] for i in range(1, 6)]
    assert pages == 3
    # Without paging, everything and no token.
    status, _, body = request(server, "GET", "/v1/namespaces?parent=paged")
    assert len(body["namespaces"]) == 5 and "next-page-token" not in body
    assert request(server, "GET", "/v1/namespaces?pageSize=0")[0] == 400


def test_one_connection_serves_many_requests(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.rest_port, timeout=30)
    conn.connect()
    sock = conn.sock
    for _ in range(3):
        status, headers, _ = request(server, "GET", "/v1/config", conn=conn)
        assert status == 200 and headers["Connection"] == "keep-alive"
        status, _, _ = request(server, "HEAD", "/v1/namespaces/nowhere", conn=conn)
        assert status == 404
        assert conn.sock is sock  # the same socket every time
    conn.close()


def test_rest_alone_and_loopback_only(tmp_path):
    server = FloeServe(BINARY, "--catalog", str(tmp_path / "c.db"), "--warehouse",
                       str(tmp_path / "w"), rest=True)
    try:
        c = http.client.HTTPConnection("127.0.0.1", server.rest_port, timeout=30)
        c.request("GET", "/v1/namespaces")
        assert json.loads(c.getresponse().read()) == {"namespaces": []}
        c.close()
        server.stop(check=True)  # SIGTERM: exit 0 within 30 s, `floe serve: stopped` last
    finally:
        server.stop()

    r = subprocess.run([BINARY, "serve", "--catalog", str(tmp_path / "c.db"), "--warehouse",
                        str(tmp_path / "w"), "--rest", "0.0.0.0:0"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert r.stderr == ("Error: Cannot listen on 0.0.0.0:0: the REST catalog runs without "
                        "authentication (--auth password), so it serves only loopback addresses "
                        "(127.0.0.1, [::1])\n")


def test_password_auth_takes_oauth2_client_credentials(tmp_path):
    users = str(tmp_path / "users")
    add = subprocess.run([BINARY, "serve", "--add-user", "ana", "--users", users],
                         input="pa ss+word\n", capture_output=True, text=True, timeout=60)
    assert add.returncode == 0, add.stderr
    server = RestServe("--auth", "password", "--users", users)
    try:
        # Without a token nothing is answered and nothing changes.
        status, headers, body = request(server, "POST", "/v1/namespaces", {"namespace": ["db"]})
        assert status == 401 and headers["WWW-Authenticate"] == "Bearer"
        assert body == {"error": {
            "message": "Not authorized: this catalog needs a bearer token from /v1/oauth/tokens",
            "type": "NotAuthorizedException", "code": 401}}
        bogus = {"Authorization": "Bearer 0123"}
        c = http.client.HTTPConnection("127.0.0.1", server.rest_port, timeout=30)
        c.request("GET", "/v1/namespaces", headers=bogus)
        r = c.getresponse()
        assert r.status == 401 and json.loads(r.read())["error"]["message"] == (
            "Not authorized: the bearer token is unknown or expired")

        def token(form):
            c.request("POST", "/v1/oauth/tokens", body=form,
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
            r = c.getresponse()
            return r.status, json.loads(r.read())

        # A form's '+' is a space: the password's own plus must come as %2B.
        status, issued = token("grant_type=client_credentials&client_id=ana&client_secret=pa+ss%2Bword")
        assert status == 200 and issued["token_type"] == "bearer" and issued["expires_in"] == 3600
        assert len(issued["access_token"]) == 64
        for secret in ["wrong", "pa+ss+word"]:
            assert token("grant_type=client_credentials&client_id=ana&client_secret=" + secret) == (
                401, {"error": "invalid_client",
                      "error_description": "Invalid client_id or client_secret"})
        assert token("grant_type=client_credentials&client_id=bob&client_secret=x")[0] == 401
        assert token("grant_type=password&username=ana")[1]["error"] == "unsupported_grant_type"
        c.close()

        # PyIceberg fetches a token with the credential and sends it with every request.
        catalog = load_catalog("lakehouse", type="rest", uri=server.uri,
                               credential="ana:pa ss+word")
        catalog.create_namespace("db")
        table = catalog.create_table("db.t", schema=pa.schema([("id", pa.int64())]))
        table.append(pa.table({"id": [1, 2]}))
        assert request(server, "GET", "/v1/namespaces")[0] == 401
        audit = subprocess.run([BINARY, "audit", "--catalog", server.catalog, "--warehouse",
                                server.warehouse, "--json"],
                               capture_output=True, text=True, timeout=60)
        assert audit.returncode == 0, audit.stderr
        rows = json.loads(audit.stdout)["entries"]
        assert [(r["table_name"], r["kind"], r["user_name"], r["client"]) for r in rows] == [
            ("t", "commit", "ana", "rest (PyIceberg/0.12.0)"),
            ("t", "create", "ana", "rest (PyIceberg/0.12.0)")]
        assert rows[0]["client_address"].startswith("127.0.0.1:")
    finally:
        server.stop()


def test_tables_floe_wrote_load_and_read_in_pyiceberg(server, catalog):
    server.floe_sql("CREATE NAMESPACE lake",
                    "CREATE TABLE lake.events (id BIGINT, name STRING) USING iceberg",
                    "INSERT INTO lake.events VALUES (1, 'a'), (2, 'b')",
                    "INSERT INTO lake.events VALUES (3, 'c')",
                    "CREATE TABLE lake.audit (id BIGINT) USING iceberg")
    assert catalog.list_tables("lake") == [("lake", "audit"), ("lake", "events")]
    assert catalog.table_exists("lake.events")
    assert not catalog.table_exists("lake.nope")
    table = catalog.load_table("lake.events")
    assert len(table.metadata.snapshots) == 2
    rows = sorted(table.scan().to_arrow().to_pylist(), key=lambda r: r["id"])
    assert rows == [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}]
    first = table.metadata.snapshots[0].snapshot_id
    assert sorted(r["id"] for r in table.scan(snapshot_id=first).to_arrow().to_pylist()) == [1, 2]

    # The metadata is the file floe wrote, as it wrote it.
    status, _, body = request(server, "GET", "/v1/namespaces/lake/tables/events")
    assert status == 200 and body["config"] == {}
    assert body["metadata-location"] == table.metadata_location
    path = body["metadata-location"].removeprefix("file:")
    with open(path) as f:
        assert json.load(f) == body["metadata"]

    with pytest.raises(NoSuchTableError, match="Table does not exist: lake.nope"):
        catalog.load_table("lake.nope")
    with pytest.raises(NoSuchNamespaceError, match="Namespace does not exist: nowhere"):
        catalog.list_tables("nowhere")
    status, _, body = request(server, "GET", "/v1/namespaces/lake/tables?pageSize=1")
    assert body == {"identifiers": [{"namespace": ["lake"], "name": "audit"}],
                    "next-page-token": "audit"}
    status, _, body = request(server, "GET",
                              "/v1/namespaces/lake/tables?pageSize=1&pageToken=audit")
    assert body == {"identifiers": [{"namespace": ["lake"], "name": "events"}],
                    "next-page-token": None}
    assert request(server, "HEAD", "/v1/namespaces/lake/tables/events")[0] == 204


def test_idempotency_key_replays_the_first_answer(tmp_path):
    server = RestServe(directory=str(tmp_path))
    try:
        catalog = load_catalog("lakehouse", type="rest", uri=server.uri)
        catalog.create_namespace("db")
        table = catalog.create_table("db.t", schema=pa.schema([("id", pa.int64())]))
        location = table.metadata_location
        commit = {"requirements": [], "updates": [
            {"action": "set-properties", "updates": {"owner": "ana"}}]}

        def send(body, key, path="/v1/namespaces/db/tables/t", method="POST"):
            c = http.client.HTTPConnection("127.0.0.1", server.rest_port, timeout=30)
            c.request(method, path, body=json.dumps(body) if body is not None else None,
                      headers={"Content-Type": "application/json", "Idempotency-Key": key})
            r = c.getresponse()
            data = r.read()
            c.close()
            return r.status, json.loads(data) if data else None

        status, first = send(commit, "0190b1b2-7a5e-7000-8000-000000000001")
        assert status == 200 and first["metadata-location"] != location
        # The same key: the first answer again, and no second commit, even with another body.
        again = {"requirements": [], "updates": [
            {"action": "set-properties", "updates": {"owner": "bob"}}]}
        assert send(again, "0190b1b2-7a5e-7000-8000-000000000001") == (200, first)
        assert catalog.load_table("db.t").metadata_location == first["metadata-location"]
        assert catalog.load_table("db.t").properties["owner"] == "ana"
        # Another key is another request.
        status, second = send(again, "0190b1b2-7a5e-7000-8000-000000000002")
        assert status == 200 and second["metadata"]["properties"]["owner"] == "bob"
        assert send(None, "", "/v1/namespaces/db/tables/t", "DELETE")[0] == 400
    finally:
        server.stop()

    # After a restart the key is still known: it was kept in the catalog with the commit.
    server = RestServe(directory=str(tmp_path))
    try:
        status, replayed = send(commit, "0190b1b2-7a5e-7000-8000-000000000001")
        assert (status, replayed["metadata-location"]) == (200, first["metadata-location"])
        assert replayed["metadata"] == first["metadata"]
        assert send(None, "drop-1", "/v1/namespaces/db/tables/t", "DELETE") == (204, None)
        assert send(None, "drop-1", "/v1/namespaces/db/tables/t", "DELETE") == (204, None)
        assert send(None, "drop-2", "/v1/namespaces/db/tables/t", "DELETE")[0] == 404
        audit = subprocess.run([BINARY, "audit", "--catalog", server.catalog, "--warehouse",
                                server.warehouse, "--json"],
                               capture_output=True, text=True, timeout=60)
        kinds = [e["kind"] for e in json.loads(audit.stdout)["entries"]]
        assert kinds == ["drop", "properties", "properties", "create"]
    finally:
        server.stop()


def test_protected_branches_refuse_rest_commits(server, catalog):
    server.floe_sql("CREATE NAMESPACE guarded",
                    "CREATE TABLE guarded.t (id bigint) USING iceberg",
                    "INSERT INTO guarded.t VALUES (1)",
                    "ALTER TABLE guarded.t SET PROTECTION ON BRANCH main")
    table = catalog.load_table("guarded.t")
    before = table.metadata_location
    with pytest.raises(BadRequestError) as refused:
        table.append(pa.table({"id": pa.array([2], pa.int64())}))
    message = str(refused.value)
    assert re.fullmatch(r"BadRequestException: Cannot write snapshot \d+ directly to branch 'main' "
                        r"of lakehouse\.guarded\.t: branch 'main' is protected and allows no change "
                        r"\(ALTER TABLE lakehouse\.guarded\.t UNSET PROTECTION ON BRANCH main lifts "
                        r"the rule\)", message), message
    assert catalog.load_table("guarded.t").metadata_location == before
    audit = subprocess.run([BINARY, "audit", "guarded.t", "--catalog", server.catalog,
                            "--warehouse", server.warehouse, "--json"],
                           capture_output=True, text=True, timeout=60)
    newest = json.loads(audit.stdout)["entries"][0]
    assert (newest["kind"], newest["client"], newest["user_name"]) == (
        "refused", "rest (PyIceberg/0.12.0)", "anonymous")
    assert newest["detail"] == message.removeprefix("BadRequestException: ")


def test_https_with_auth_serves_other_addresses(tmp_path, monkeypatch):
    # requests prefers these to the catalog's own CA bundle.
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    cert, key = str(tmp_path / "cert.pem"), str(tmp_path / "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    users = str(tmp_path / "users")
    subprocess.run([BINARY, "serve", "--add-user", "ana", "--users", users], input="secret\n",
                   check=True, capture_output=True, text=True, timeout=60)
    args = ["--catalog", str(tmp_path / "c.db"), "--warehouse", str(tmp_path / "w")]
    # Authentication without TLS stays on loopback: tokens would cross the network in clear.
    r = subprocess.run([BINARY, "serve", *args, "--auth", "password", "--users", users,
                        "--rest", "0.0.0.0:0"], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert r.stderr == ("Error: Cannot listen on 0.0.0.0:0: the REST catalog serves no TLS "
                        "without --tls-cert and --tls-key, and tokens and secrets must not cross "
                        "the network in clear; it serves only loopback addresses (127.0.0.1, "
                        "[::1])\n")
    proc = subprocess.Popen([BINARY, "serve", *args, "--auth", "password", "--users", users,
                             "--tls-cert", cert, "--tls-key", key, "--rest", "0.0.0.0:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.fullmatch(r"floe serve: Iceberg REST catalog on https://0\.0\.0\.0:(\d+) "
                         r"\(catalog lakehouse\)\n", line)
        assert m, line + proc.stderr.read()
        port = int(m.group(1))
        context = ssl.create_default_context(cafile=cert)
        c = http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=context)
        c.request("GET", "/v1/namespaces")
        r = c.getresponse()
        assert r.status == 401 and json.loads(r.read())["error"]["type"] == "NotAuthorizedException"
        # PyIceberg over HTTPS, trusting the certificate: a token, then a table.
        catalog = load_catalog("lakehouse", type="rest", uri=f"https://127.0.0.1:{port}",
                               credential="ana:secret", ssl={"cabundle": cert})
        catalog.create_namespace("db")
        table = catalog.create_table("db.t", schema=pa.schema([("id", pa.int64())]))
        table.append(pa.table({"id": pa.array([1, 2], pa.int64())}))
        assert catalog.load_table("db.t").scan().to_arrow().column("id").to_pylist() == [1, 2]
        # Plain HTTP to the TLS port gets no answer.
        plain = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        plain.request("GET", "/v1/config")
        with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
            plain.getresponse()
        # Beyond the connections it serves at once, a client gets nothing in clear either: the
        # connection is closed (a plain port answers 503 there).
        held = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(32)]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as extra:
                try:
                    assert extra.recv(64) == b""
                except ConnectionResetError:
                    pass
        finally:
            for s in held:
                s.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
