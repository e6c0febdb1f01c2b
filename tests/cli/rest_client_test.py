"""floe as the client of an Iceberg REST catalog, here floe's own `floe serve --rest` with
password authentication: a bearer token from a file or $FLOE_REST_TOKEN, OAuth2 client
credentials (a client id on the command line, its secret in a file or $FLOE_REST_CREDENTIAL), a
wrong secret refused with the server's 401 and never printed, HTTPS verified against
--rest-ca-file, and `floe serve` re-serving the REST lake over the PostgreSQL wire protocol.
Run: FLOE_BINARY=build/floe pytest tests/cli/rest_client_test.py"""

import http.client
import json
import os
import re
import subprocess
import urllib.parse

import psycopg
import pytest

from serve_support import Serve

BINARY = os.environ.get("FLOE_BINARY", "build/floe")
SECRET = "pa ss+word"


def floe(*args, env=None):
    full_env = dict(os.environ)
    for name in ("FLOE_REST_TOKEN", "FLOE_REST_CREDENTIAL", "FLOE_CATALOG", "FLOE_WAREHOUSE"):
        full_env.pop(name, None)
    full_env.update(env or {})
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=120,
                          env=full_env, stdin=subprocess.DEVNULL)


def rows(result):
    assert result.returncode == 0, result.stderr
    return [tuple(line.split(",")) for line in result.stdout.splitlines()[1:]]


@pytest.fixture(scope="module")
def users(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("users") / "users")
    add = subprocess.run([BINARY, "serve", "--add-user", "ana", "--users", path], input=SECRET + "\n",
                         capture_output=True, text=True, timeout=60)
    assert add.returncode == 0, add.stderr
    return path


@pytest.fixture(scope="module")
def server(users):
    s = Serve(BINARY, "--auth", "password", "--users", users, rest=True)
    yield s
    s.stop()


def token_for(server):
    c = http.client.HTTPConnection("127.0.0.1", server.rest_port, timeout=30)
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": "ana",
                                   "client_secret": SECRET})
    c.request("POST", "/v1/oauth/tokens", body=form,
              headers={"Content-Type": "application/x-www-form-urlencoded"})
    r = c.getresponse()
    assert r.status == 200
    return json.loads(r.read())["access_token"]


def test_bearer_token_from_a_file_or_the_environment(server, tmp_path):
    uri = "rest+" + server.uri
    token_file = tmp_path / "token"
    token_file.write_text(token_for(server) + "\n")
    r = floe("sql", "--catalog", uri, "--rest-token-file", str(token_file), "-q",
             "-c", "CREATE NAMESPACE tok", "-c", "CREATE TABLE tok.t (id BIGINT, s STRING)",
             "-c", "INSERT INTO tok.t VALUES (1, 'a'), (2, 'b')")
    assert r.returncode == 0, r.stderr
    r = floe("sql", "--catalog", uri, "--format", "csv", "-c", "SELECT * FROM tok.t ORDER BY id",
             env={"FLOE_REST_TOKEN": token_file.read_text().strip()})
    assert rows(r) == [("1", "a"), ("2", "b")]
    # The server's audit log names who wrote and with what: the token's user, floe's client.
    audit = floe("audit", "tok.t", "--catalog", server.catalog, "--json")
    assert audit.returncode == 0, audit.stderr
    entries = json.loads(audit.stdout)["entries"]
    assert [(e["kind"], e["user_name"], e["client"]) for e in entries] == [
        ("commit", "ana", "rest (floe sql)"), ("create", "ana", "rest (floe sql)")]


def test_a_block_commits_through_transactions_commit(server, tmp_path):
    """BEGIN ... COMMIT on a REST catalog: one POST /transactions/commit moves both tables
    (their audit rows share the transaction); a conflict fails it and neither moves."""
    uri = "rest+" + server.uri
    token_file = tmp_path / "token"
    token_file.write_text(token_for(server) + "\n")
    sql = ["sql", "--catalog", uri, "--rest-token-file", str(token_file), "-q"]
    r = floe(*sql, "-c", "CREATE NAMESPACE txn", "-c", "CREATE TABLE txn.a (id BIGINT)",
             "-c", "CREATE TABLE txn.b (id BIGINT)", "-c", "INSERT INTO txn.a VALUES (1)")
    assert r.returncode == 0, r.stderr
    r = floe(*sql, "-c", "BEGIN; INSERT INTO txn.a VALUES (2); INSERT INTO txn.b VALUES (2); COMMIT;")
    assert r.returncode == 0, r.stderr
    r = floe("sql", "--catalog", server.catalog, "--format", "csv", "-c",
             "SELECT count(*), count(DISTINCT detail) FROM (SELECT detail FROM txn.a.audit_log "
             "WHERE detail LIKE 'transaction %' UNION ALL SELECT detail FROM txn.b.audit_log "
             "WHERE detail LIKE 'transaction %')")
    assert rows(r) == [("2", "1")]
    # The block deletes a row; meanwhile another writer deletes it first: the COMMIT fails and
    # neither table moves. (The block runs in the floe Python package, which scripts/setup.sh
    # installs before the tests: `floe sql` reads a script on a pipe whole.)
    import floe as floe_package

    with floe_package.connect(catalog=uri, rest={"token": token_for(server)}) as conn:
        conn.sql("BEGIN")
        conn.sql("DELETE FROM txn.a WHERE id = 1")
        conn.sql("INSERT INTO txn.b VALUES (3)")
        r = floe(*sql, "-c", "DELETE FROM txn.a WHERE id = 1")
        assert r.returncode == 0, r.stderr
        with pytest.raises(floe_package.ValidationError,
                           match="Cannot commit the transaction: lakehouse.txn.a changed since the transaction read it"):
            conn.sql("COMMIT")
    r = floe(*sql[:-1], "--format", "csv", "-c", "SELECT (SELECT count(*) FROM txn.a), (SELECT max(id) FROM txn.b)")
    assert rows(r) == [("1", "2")]


def test_oauth2_client_credentials(server, tmp_path):
    uri = "rest+" + server.uri
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET + "\n")
    r = floe("sql", "--catalog", uri, "--rest-credential", "ana", "--rest-credential-secret-file",
             str(secret_file), "-q", "-c", "CREATE NAMESPACE oa",
             "-c", "CREATE TABLE oa.t (id BIGINT)", "-c", "INSERT INTO oa.t VALUES (7)")
    assert r.returncode == 0, r.stderr
    r = floe("sql", "--catalog", uri, "--format", "csv", "-c", "SELECT id FROM oa.t",
             env={"FLOE_REST_CREDENTIAL": "ana:" + SECRET})
    assert rows(r) == [("7",)]
    # The token endpoint may be named, as for an identity provider apart from the catalog.
    r = floe("sql", "--catalog", uri, "--rest-credential", "ana", "--rest-credential-secret-file",
             str(secret_file), "--rest-oauth2-uri", server.uri + "/v1/oauth/tokens",
             "--format", "csv", "-c", "SELECT count(*) FROM oa.t")
    assert rows(r) == [("1",)]


def test_a_wrong_secret_is_a_clear_401_and_never_printed(server, tmp_path):
    uri = "rest+" + server.uri
    secret_file = tmp_path / "wrong"
    secret_file.write_text("not-the-secret\n")
    r = floe("sql", "--catalog", uri, "--rest-credential", "ana", "--rest-credential-secret-file",
             str(secret_file), "-c", "SHOW NAMESPACES")
    assert r.returncode == 1
    assert r.stderr == (f"Error: Cannot get a token from {server.uri}/v1/oauth/tokens: 401 "
                        "invalid_client: Invalid client_id or client_secret\n")
    r = floe("sql", "--catalog", uri, "-c", "SHOW NAMESPACES",
             env={"FLOE_REST_CREDENTIAL": "ana:not-the-secret"})
    assert r.returncode == 1 and "not-the-secret" not in r.stderr + r.stdout
    # No credentials at all: the server's own refusal, naming the request.
    r = floe("sql", "--catalog", uri, "-c", "SHOW NAMESPACES")
    assert r.stderr == (f"Error: The REST catalog at {uri} refused GET /v1/config: not authorized "
                        "(401): Not authorized: this catalog needs a bearer token from "
                        "/v1/oauth/tokens\n")
    # A secret on the command line is refused before anything is sent.
    r = floe("sql", "--catalog", uri, "--rest-credential", "ana:" + SECRET, "-c", "SHOW NAMESPACES")
    assert r.returncode == 1
    assert r.stderr.startswith("Error: --rest-credential takes the client id alone: a secret on the "
                               "command line shows in every process listing")
    assert SECRET not in r.stderr


def test_https_verified_against_the_ca_file(users, tmp_path, monkeypatch):
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    cert, key = str(tmp_path / "cert.pem"), str(tmp_path / "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    proc = subprocess.Popen([BINARY, "serve", "--catalog", str(tmp_path / "c.db"), "--warehouse",
                             str(tmp_path / "w"), "--auth", "password", "--users", users,
                             "--tls-cert", cert, "--tls-key", key, "--rest", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.fullmatch(r"floe serve: Iceberg REST catalog on https://127\.0\.0\.1:(\d+) "
                         r"\(catalog lakehouse\)\n", line)
        assert m, line + proc.stderr.read()
        uri = f"rest+https://127.0.0.1:{m.group(1)}"
        env = {"FLOE_REST_CREDENTIAL": "ana:" + SECRET}
        r = floe("sql", "--catalog", uri, "--rest-ca-file", cert, "-q",
                 "-c", "CREATE NAMESPACE tls", "-c", "CREATE TABLE tls.t (id BIGINT)",
                 "-c", "INSERT INTO tls.t VALUES (1)", env=env)
        assert r.returncode == 0, r.stderr
        r = floe("sql", "--catalog", uri, "--rest-ca-file", cert, "--format", "csv",
                 "-c", "SELECT id FROM tls.t", env=env)
        assert rows(r) == [("1",)]
        # Without the CA the self-signed certificate is refused: nothing is sent in clear.
        r = floe("sql", "--catalog", uri, "-c", "SHOW NAMESPACES", env=env)
        assert r.returncode == 1
        assert r.stderr == (f"Error: Cannot POST https://127.0.0.1:{m.group(1)}/v1/oauth/tokens: "
                            "SSL certificate problem: self-signed certificate\n")
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_serve_re_serves_a_rest_lake_over_the_wire_protocol(server, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(token_for(server))
    uri = "rest+" + server.uri
    r = floe("sql", "--catalog", uri, "--rest-token-file", str(token_file), "-q",
             "-c", "CREATE NAMESPACE wire", "-c", "CREATE TABLE wire.t (id BIGINT, s STRING)",
             "-c", "INSERT INTO wire.t VALUES (1, 'x')", "-c", "INSERT INTO wire.t VALUES (2, 'y')")
    assert r.returncode == 0, r.stderr
    proc = subprocess.Popen([BINARY, "serve", "--catalog", uri, "--rest-token-file", str(token_file),
                             "--listen", "127.0.0.1:0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.fullmatch(r"floe serve: listening on 127\.0\.0\.1:(\d+) \(catalog lakehouse\)\n", line)
        assert m, line + proc.stderr.read()
        with psycopg.connect(host="127.0.0.1", port=int(m.group(1)), user="floe", dbname="lakehouse",
                             autocommit=True) as conn:
            first = conn.execute(
                "SELECT snapshot_id FROM wire.t.snapshots ORDER BY committed_at LIMIT 1").fetchone()[0]
            assert conn.execute(f"SELECT id, s FROM wire.t VERSION AS OF {first}").fetchall() == [
                (1, "x")]
            conn.execute(f"CALL lakehouse.system.rollback_to_snapshot('wire.t', {first})")
            assert conn.execute("SELECT id FROM wire.t").fetchall() == [(1,)]
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    r = floe("sql", "--catalog", uri, "--rest-token-file", str(token_file), "--format", "csv",
             "-c", "SELECT id FROM wire.t ORDER BY id")
    assert rows(r) == [("1",)]
