"""floe.connect() on an Iceberg REST catalog (here `floe serve --rest` with password
authentication, from the build's `floe`): OAuth2 client credentials or a token in the `rest`
options, tables written and read at each snapshot through the server, and the options checked:
an unknown one, a wrong secret."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import floe
from floe.exceptions import FloeError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from floe_serve import FloeServe  # noqa: E402

BINARY = ROOT / "build" / "floe"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("rest")
    users = str(d / "users")
    subprocess.run([str(BINARY), "serve", "--add-user", "ana", "--users", users], input="secret\n",
                   check=True, capture_output=True, text=True, timeout=60)
    s = FloeServe(BINARY, "--catalog", str(d / "catalog.db"), "--warehouse", str(d / "w"),
                  "--auth", "password", "--users", users, rest=True)
    yield s
    s.stop()


@pytest.fixture(autouse=True)
def no_rest_environment(monkeypatch):
    monkeypatch.delenv("FLOE_REST_TOKEN", raising=False)
    monkeypatch.delenv("FLOE_REST_CREDENTIAL", raising=False)


def test_a_table_through_the_rest_catalog(server):
    with floe.connect(catalog="rest+" + server.uri, rest={"credential": "ana:secret"}) as conn:
        conn.sql("CREATE NAMESPACE py")
        conn.sql("CREATE TABLE py.t (id BIGINT, name STRING)")
        conn.sql("INSERT INTO py.t VALUES (1, 'a')")
        conn.sql("INSERT INTO py.t VALUES (2, 'b')")
        first, second = conn.sql(
            "SELECT snapshot_id FROM py.t.snapshots ORDER BY committed_at")["snapshot_id"].to_pylist()
        assert conn.table("py.t").scan(snapshot_id=first).to_pylist() == [
            {"id": 1, "name": "a"}]
        conn.sql(f"CALL lakehouse.system.rollback_to_snapshot('py.t', {first})")
        assert conn.sql("SELECT id FROM py.t")["id"].to_pylist() == [1]
        history = conn.sql("SELECT snapshot_id FROM py.t.history ORDER BY made_current_at")
        assert history["snapshot_id"].to_pylist() == [first, second, first]


def test_rest_options_are_checked(server):
    with pytest.raises(FloeError) as e:
        floe.connect(catalog="rest+" + server.uri, rest={"password": "x"})
    assert str(e.value) == ("Unknown REST option 'password'; expected warehouse, token, credential, "
                            "oauth2_uri, scope, ca_file, vended_credentials, request_timeout or "
                            "header.NAME")
    with pytest.raises(FloeError) as e:
        floe.connect(catalog="rest+" + server.uri, rest={"credential": "ana:wrong"})
    assert str(e.value) == (f"Cannot get a token from {server.uri}/v1/oauth/tokens: 401 "
                            "invalid_client: Invalid client_id or client_secret")
