"""floe.connect() with its warehouse in an S3 bucket, the store named by the `s3` argument
alone (no AWS_* variables): tables are written there, read back at each snapshot and rolled
back; a wrong option is refused with a message naming it, and a store that is not there
fails the statement, not the process."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import floe
from support import two_snapshots
from floe.exceptions import FloeError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from s3_server import ACCESS_KEY, SECRET_KEY, TEST_BUCKET, S3Server  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with S3Server(tmp_path_factory.mktemp("s3"), bucket=TEST_BUCKET) as s3:
        yield s3


@pytest.fixture(autouse=True)
def no_aws_environment(monkeypatch):
    for key in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")


def options(server, **more):
    return {"endpoint": server.endpoint, "region": "us-east-1", "access_key_id": ACCESS_KEY,
            "secret_access_key": SECRET_KEY, **more}


def test_tables_live_in_the_bucket_and_travel_in_time(server, tmp_path):
    with floe.connect(catalog=tmp_path / "catalog.db", warehouse=f"s3://{TEST_BUCKET}/py",
                      s3=options(server, path_style=True)) as conn:
        first, second = two_snapshots(conn)
        assert conn.sql(f"SELECT id FROM db.t VERSION AS OF {first}")["id"].to_pylist() == [1]
        conn.sql(f"CALL lakehouse.system.rollback_to_snapshot('db.t', {first})")
        assert conn.sql("SELECT id, name FROM db.t").to_pylist() == [{"id": 1, "name": "a"}]
        files = conn.sql("SELECT file_path FROM db.t.all_files ORDER BY file_path")["file_path"].to_pylist()
    assert len(files) == 2 and all(f.startswith(f"s3://{TEST_BUCKET}/py/db/t/data/") for f in files), files
    keys = {key for key, _ in server.list_objects(TEST_BUCKET, "py/db/t/")}
    assert {f.removeprefix(f"s3://{TEST_BUCKET}/") for f in files} <= keys
    assert sum(k.endswith(".metadata.json") for k in keys) == 4  # create, two appends, rollback


@pytest.mark.parametrize("bad, message", [
    ({"endpoint_url": "x"}, "Unknown S3 option 'endpoint_url'; expected endpoint, region, path_style, "
                            "access_key_id, secret_access_key, session_token, connect_timeout, "
                            "request_timeout or max_attempts"),
    ({"path_style": "yes"}, "S3 option 'path_style' must be true or false, not 'yes'"),
    ({"max_attempts": 0}, "S3 option 'max_attempts' must be a whole number from 1 to 100, not '0'"),
    ({"request_timeout": "soon"}, "S3 option 'request_timeout' must be a number of seconds from 0 to 86400, not 'soon'"),
    ({"access_key_id": "k"}, "S3 options 'access_key_id' and 'secret_access_key' go together"),
])
def test_a_wrong_option_is_refused_by_name(tmp_path, bad, message):
    with pytest.raises(FloeError) as e:
        floe.connect(catalog=tmp_path / "catalog.db", warehouse=tmp_path / "wh", s3=bad)
    assert str(e.value) == message


def test_an_unreachable_store_fails_the_statement(server, tmp_path):
    s3 = options(server, endpoint="http://127.0.0.1:9", connect_timeout=1, request_timeout=2, max_attempts=1)
    with floe.connect(catalog=tmp_path / "catalog.db", warehouse=f"s3://{TEST_BUCKET}/nowhere", s3=s3) as conn:
        conn.sql("CREATE NAMESPACE db")
        with pytest.raises(FloeError, match=f"s3://{TEST_BUCKET}/nowhere/db/t/metadata/"):
            conn.sql("CREATE TABLE db.t (id BIGINT)")
        assert conn.sql("SHOW TABLES IN db").num_rows == 0
