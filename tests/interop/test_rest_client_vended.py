"""Vended credentials: `floe serve --rest --vend-credentials` over a warehouse in an S3 bucket
hands its S3 settings to the clients that ask (X-Iceberg-Access-Delegation:
vended-credentials), and floe as that catalog's client reads and writes the table's files with
them although its own S3 settings point nowhere; with --no-vended-credentials its own settings
apply, and the same statement fails on them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from floe_driver import ROOT
from s3_server import TEST_BUCKET

sys.path.insert(0, str(ROOT / "tests" / "support"))
from floe_serve import FloeServe  # noqa: E402

FLOE = ROOT / "build" / "floe"


def client_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and not k.startswith("FLOE_")}
    # floe's own S3 settings: an endpoint nothing listens on, and keys that mean nothing.
    env.update({"AWS_ENDPOINT_URL": "http://127.0.0.1:9", "AWS_ACCESS_KEY_ID": "nobody",
                "AWS_SECRET_ACCESS_KEY": "nothing", "AWS_REGION": "us-east-1",
                "AWS_EC2_METADATA_DISABLED": "true"})
    return env


def floe_sql(uri, *statements, extra=()):
    args = [str(FLOE), "sql", "--catalog", uri, "--format", "csv", "-q",
            "--s3-max-attempts", "1", "--s3-connect-timeout", "2", *extra]
    for s in statements:
        args += ["-c", s]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=client_env())


def test_vended_credentials_reach_the_tables_files(s3, tmp_path):
    env = dict(os.environ)
    env.update(s3.environment)
    server = FloeServe(FLOE, "--catalog", str(tmp_path / "catalog.db"),
                       "--warehouse", f"s3://{TEST_BUCKET}/vended", "--vend-credentials",
                       rest=True, env=env)
    try:
        uri = "rest+" + server.uri
        r = floe_sql(uri, "CREATE NAMESPACE v", "CREATE TABLE v.t (id BIGINT, s STRING)",
                     "INSERT INTO v.t VALUES (1, 'a'), (2, 'b')", "SELECT * FROM v.t ORDER BY id")
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines() == ["id,s", "1,a", "2,b"]
        keys = [key for key, _ in s3.list_objects(TEST_BUCKET, "vended/v/t/data/")]
        assert len(keys) == 1 and keys[0].endswith(".parquet")
        # Without asking, floe's own settings apply: the endpoint that answers nothing.
        r = floe_sql(uri, "SELECT * FROM v.t", extra=["--no-vended-credentials"])
        assert r.returncode == 1
        assert r.stderr.startswith("Error: Cannot read file s3://floe-test/vended/v/t/metadata/snap-")
        assert "Failed to connect to 127.0.0.1 port 9" in r.stderr, r.stderr
        assert s3.environment["AWS_SECRET_ACCESS_KEY"] not in r.stderr
    finally:
        server.stop()
