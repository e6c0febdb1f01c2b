#!/usr/bin/env python3
"""A throwaway S3-compatible server (moto's standalone server) on a free loopback port.

As a library:
    with S3Server(tmp_dir, bucket="b") as s3:   # the bucket is created once it runs
        s3.create_bucket("c")              # and others as needed
        s3.endpoint                        # http://127.0.0.1:<port>
        s3.list_objects("b")               # [(key, size), ...] sorted by key: every object,
                                           # directory markers ("dir/") included
        s3.list_uploads("b")               # keys of multipart uploads not completed or aborted
As a command (the ctest fixture in tests/CMakeLists.txt):
    s3_server.py start DIR    starts a server, writes its endpoint to DIR/endpoint and creates
                              the bucket `floe-test`
    s3_server.py stop DIR     stops it and removes DIR

The server comes from PyPI's moto[server] (requirements.txt). It accepts any credentials;
the tests use the access key `floe` and the secret `floe-secret`.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

ACCESS_KEY = "floe"
SECRET_KEY = "floe-secret"
REGION = "us-east-1"
TEST_BUCKET = "floe-test"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def client(endpoint):
    """A boto3 S3 client on `endpoint` with the test credentials."""
    import boto3
    from botocore.config import Config

    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=ACCESS_KEY,
                        aws_secret_access_key=SECRET_KEY, region_name=REGION,
                        config=Config(s3={"addressing_style": "path"},
                                      retries={"max_attempts": 1}))


def environment(endpoint):
    """The AWS_* variables by which floe (and AWS SDKs) reach `endpoint` with the test
    credentials."""
    return {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_REGION": REGION}


def list_objects(endpoint, bucket, prefix=""):
    """Every object under `prefix`, directory markers included, as (key, size) sorted."""
    s3 = client(endpoint)
    out = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        out.extend((o["Key"], o["Size"]) for o in page.get("Contents", []))
    return sorted(out)


def list_uploads(endpoint, bucket):
    """Keys of the multipart uploads that were started and neither completed nor aborted."""
    uploads = client(endpoint).list_multipart_uploads(Bucket=bucket).get("Uploads", [])
    return sorted(u["Key"] for u in uploads)


class S3Server:
    def __init__(self, directory, bucket=None):
        self.dir = os.path.abspath(directory)
        self.bucket = bucket
        self.log = os.path.join(self.dir, "server.log")
        self.port = None
        self.pid = None

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    @classmethod
    def attach(cls, directory):
        """The server `s3_server.py start DIR` started, to stop it."""
        server = cls(directory)
        with open(os.path.join(server.dir, "endpoint")) as f:
            server.port = int(f.read().strip().rsplit(":", 1)[1])
        with open(os.path.join(server.dir, "pid")) as f:
            server.pid = int(f.read().strip())
        return server

    # ---- lifecycle ----

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        for attempt in range(5):
            self.port = _free_port()
            with open(self.log, "ab") as log:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True)
            if self._wait_ready(proc):
                self.pid = proc.pid
                break
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if attempt == 4:
                with open(self.log) as f:
                    raise RuntimeError(f"moto server did not start: {f.read()[-2000:]}")
        with open(os.path.join(self.dir, "pid"), "w") as f:
            f.write(f"{self.pid}\n")
        with open(os.path.join(self.dir, "endpoint"), "w") as f:
            f.write(self.endpoint + "\n")
        if self.bucket:
            try:
                self.create_bucket(self.bucket)
            except Exception:
                self.stop()  # a `with` never reached its body: nothing else would stop it
                raise
        return self

    def _wait_ready(self, proc):
        deadline = time.time() + 30
        while time.time() < deadline:
            if proc.poll() is not None:
                return False
            try:
                urllib.request.urlopen(self.endpoint + "/moto-api/", timeout=1).read()
                return True
            except Exception:
                time.sleep(0.1)
        return False

    def stop(self):
        if self.pid is None:
            return
        try:
            os.killpg(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            self.pid = None
            return
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                break
            try:  # reap it when it is our child
                if os.waitpid(self.pid, os.WNOHANG)[0] == self.pid:
                    break
            except ChildProcessError:
                pass
            time.sleep(0.05)
        else:
            os.killpg(self.pid, signal.SIGKILL)
        self.pid = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---- use ----

    @property
    def environment(self):
        return environment(self.endpoint)

    def create_bucket(self, name):
        client(self.endpoint).create_bucket(Bucket=name)

    def list_objects(self, bucket, prefix=""):
        return list_objects(self.endpoint, bucket, prefix)

    def list_uploads(self, bucket):
        return list_uploads(self.endpoint, bucket)


def main(argv):
    if len(argv) != 3 or argv[1] not in ("start", "stop"):
        print("usage: s3_server.py start|stop DIR", file=sys.stderr)
        return 1
    directory = os.path.abspath(argv[2])
    if argv[1] == "start":
        if os.path.exists(os.path.join(directory, "pid")):
            S3Server.attach(directory).stop()  # left by a run that was killed before its stop
        shutil.rmtree(directory, ignore_errors=True)
        print(S3Server(directory, bucket=TEST_BUCKET).start().endpoint)
        return 0
    if os.path.exists(os.path.join(directory, "pid")):
        S3Server.attach(directory).stop()
    shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
