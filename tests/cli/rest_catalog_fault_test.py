"""`floe serve --rest` killed with SIGKILL while a client commits, and started again on the same
catalog. One client thread sends commits to db.t one after another, raw HTTP POSTs to
/v1/namespaces/db/tables/t, each under an Idempotency-Key of its own: a property set
(`set-properties` of fault.NNN = its key, with assert-table-uuid and assert-ref-snapshot-id
main), or a real append (its data and manifests written by PyIceberg 0.12, its rows and the
snapshot property fault.key carrying the key). Meanwhile the test kills the server five times:

- mid-request: the client has sent half of a commit's body (it cannot have been committed);
- in-flight (twice): a few milliseconds after a whole commit was sent;
- after-commit: once the audit log shows the commit made, before the client reads the answer,
  which it then drops as lost;
- at-random: whatever the client is doing.

Every request whose answer was lost (no connection, a reset, no response) is sent again with
the same key and body once the server is back: it must get 200, and the change must be in the
table exactly once, whether the lost attempt had committed it (the answer is then the first
one) or not (the retry commits it). At the end:

- the metadata holds every property with its key, and one snapshot per append (fault.key) on
  one chain; floe reads the snapshots table and every snapshot's rows;
- floe's audit log holds the create and then exactly one row per request, in order, each the
  change its key made (the property's metadata diff, the append's snapshot), at the metadata
  location the key's answer named; the mid-request commit was made after its kill, the
  after-commit one before;
- every key sent once more (the server restarted since most were first used) gets its first
  answer, and changes nothing;
- and no answer was a 5xx but during a kill.
Run: FLOE_BINARY=build/floe pytest tests/cli/rest_catalog_fault_test.py"""

import dataclasses
import http.client
import json
import os
import random
import signal
import subprocess
import threading
import time
import uuid
from datetime import datetime, timezone

import pyarrow as pa
import pytest
from pyiceberg.io import load_file_io
from pyiceberg.schema import Schema
from pyiceberg.table import CommitTableRequest, Table, TableIdentifier
from pyiceberg.table.metadata import TableMetadataUtil
from pyiceberg.table.update import AssertTableUUID
from pyiceberg.types import LongType, NestedField, StringType

from serve_support import Serve

BINARY = os.environ.get("FLOE_BINARY", "build/floe")
KILLS = ["mid-request", "in-flight", "after-commit", "at-random", "in-flight"]
SEED = int(os.environ.get("FLOE_FAULT_SEED", "7"))
MAX_REQUESTS = 400
AFTER_LAST_KILL = 10  # requests the client sends after the last restart
PATH = "/v1/namespaces/db/tables/t"
SCHEMA = Schema(NestedField(1, "id", LongType()), NestedField(2, "key", StringType()))
LOST = (ConnectionError, http.client.HTTPException, TimeoutError, OSError)


def rest_serve(directory):
    """`floe serve --rest` on the catalog and warehouse of `directory`."""
    return Serve(BINARY, directory=directory, rest=True)


class Server:
    """The server of the moment, killed and started again on the same directory; its
    generation counts the starts."""

    def __init__(self, directory):
        self.directory = directory
        self.cond = threading.Condition()
        self.serve = rest_serve(directory)
        self.generation = 0
        self.windows = []  # (killed at, back at), monotonic
        self.killed_at = []  # wall clock, ms

    def current(self):
        with self.cond:
            return self.generation, self.serve.rest_port

    def wait_newer(self, generation, timeout=30):
        with self.cond:
            if not self.cond.wait_for(lambda: self.generation > generation, timeout):
                raise AssertionError(f"the connection to server {generation} failed, yet it was not killed")

    def kill_and_restart(self):
        with self.cond:
            killed = time.monotonic()
            self.killed_at.append(time.time() * 1000)
            self.serve.proc.send_signal(signal.SIGKILL)
            assert self.serve.proc.wait(timeout=30) == -signal.SIGKILL
            self.serve = rest_serve(self.directory)
            self.generation += 1
            self.windows.append((killed, time.monotonic()))
            self.cond.notify_all()

    def floe(self, *args):
        r = subprocess.run([self.serve.binary, *args, "--catalog", self.serve.catalog], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0, f"floe {' '.join(args)}: {r.stderr}"
        return r.stdout

    def audit(self, limit=0):
        """The audit log of db.t, oldest first."""
        out = json.loads(self.floe("audit", "db.t", "--json", "--limit", str(limit)))
        return list(reversed(out["entries"]))

    def floe_rows(self, *statements):
        args = ["sql", "--warehouse", self.serve.warehouse, "-q", "--format", "json"]
        for s in statements:
            args += ["-c", s]
        return [json.loads(line) for line in self.floe(*args).splitlines()]


@dataclasses.dataclass
class Request:
    i: int
    kind: str  # property, append
    key: str
    body: bytes
    snapshot_id: int | None = None  # an append's
    attempts: list = dataclasses.field(default_factory=list)  # (outcome, server generation)
    answer: dict | None = None
    mode: str | None = None  # the kill this request met, if one was aimed at it


def http_post(port, body, key, timeout=30):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("POST", PATH, body=body, headers={"Content-Type": "application/json", "Idempotency-Key": key})
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


class Client:
    """Sends the commits, one at a time, each until it is answered."""

    def __init__(self, server, created):
        self.server = server
        self.rnd = random.Random(SEED)
        self.requests: list[Request] = []
        self.answers = []  # every HTTP answer: status, sent at, answered at (monotonic)
        self.metadata = created["metadata"]  # the table as the last answer left it
        self.location = created["metadata-location"]
        self.io = load_file_io(location=self.location)
        self.aimed = None  # the kill the next attempt is to meet: (mode, event that says "kill now")
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.kills_done = threading.Event()
        self.error = None

    def table(self):
        return Table(("db", "t"), TableMetadataUtil.parse_obj(self.metadata), self.location, self.io, None)

    def build(self, i):
        key = f"fault-{i:03d}-{uuid.uuid4().hex[:12]}"
        main = self.metadata.get("refs", {}).get("main", {}).get("snapshot-id")
        if i % 3 != 2:
            body = json.dumps({
                "identifier": {"namespace": ["db"], "name": "t"},
                "requirements": [{"type": "assert-table-uuid", "uuid": self.metadata["table-uuid"]},
                                 {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": main}],
                "updates": [{"action": "set-properties", "updates": {f"fault.{i:03d}": key}}],
            }).encode()
            return Request(i, "property", key, body)
        # An append: PyIceberg writes the data file, the manifest and the manifest list; the
        # commit is sent here, as PyIceberg would send it, with the key.
        txn = self.table().transaction()
        txn.append(pa.Table.from_pylist([{"id": i, "key": key}], schema=SCHEMA.as_arrow()),
                   snapshot_properties={"fault.key": key})
        request = CommitTableRequest(identifier=TableIdentifier(namespace=["db"], name="t"),
                                     requirements=(AssertTableUUID(uuid=self.metadata["table-uuid"]),
                                                   *txn._requirements),
                                     updates=txn._updates)
        snapshot_id = next(u.snapshot.snapshot_id for u in txn._updates if u.action == "add-snapshot")
        return Request(i, "append", key, request.model_dump_json().encode(), snapshot_id=snapshot_id)

    def attempt(self, req):
        """One try: the answer (status, body), or None when it was lost (then the server of
        the try has been killed)."""
        generation, port = self.server.current()
        with self.lock:
            aimed, self.aimed = self.aimed, None
        if aimed is not None and aimed[0] == "after-commit":
            before = self.server.audit(limit=1)[-1]["seq"]  # the newest change before this one
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        sent_at = time.monotonic()
        try:
            c.connect()
            c.putrequest("POST", PATH)
            for name, value in [("Content-Type", "application/json"), ("Idempotency-Key", req.key),
                                ("Content-Length", str(len(req.body)))]:
                c.putheader(name, value)
            c.endheaders()
            if aimed is not None and aimed[0] == "mid-request":
                c.send(req.body[: len(req.body) // 2])
                req.mode = "mid-request"
                aimed[1].set()  # kill now
                self.server.wait_newer(generation)
                req.attempts.append(("half sent, killed", generation))
                return None
            c.send(req.body)
            if aimed is not None and aimed[0] == "after-commit":
                req.mode = "after-commit"
                deadline = time.monotonic() + 30
                while self.server.audit(limit=1)[-1]["seq"] == before:
                    assert time.monotonic() < deadline, "the commit did not happen in 30 s"
                    time.sleep(0.005)
                aimed[1].set()  # committed: kill now, and the answer is dropped unread
                self.server.wait_newer(generation)
                req.attempts.append(("committed, answer dropped", generation))
                return None
            if aimed is not None and aimed[0] == "in-flight":
                req.mode = "in-flight"
                aimed[1].set()
            r = c.getresponse()
            status, data = r.status, r.read()
        except LOST as e:
            req.attempts.append((f"lost: {type(e).__name__}", generation))
            self.server.wait_newer(generation)
            return None
        finally:
            c.close()
        with self.lock:
            self.answers.append((status, sent_at, time.monotonic()))
        req.attempts.append((status, generation))
        return status, data

    def send(self, req):
        for _ in range(20):
            answer = self.attempt(req)
            if answer is None:
                continue
            status, data = answer
            if status >= 500:  # the outcome is unknown: the same key again
                time.sleep(0.05)
                continue
            assert status == 200, f"request {req.i} ({req.kind}, {req.key}): {status} {data.decode()}"
            req.answer = json.loads(data)
            self.metadata, self.location = req.answer["metadata"], req.answer["metadata-location"]
            return
        raise AssertionError(f"request {req.i} ({req.key}) unanswered after 20 tries: {req.attempts}")

    def run(self):
        try:
            after = 0
            for i in range(MAX_REQUESTS):
                if self.kills_done.is_set():
                    after += 1
                    if after > AFTER_LAST_KILL:
                        break
                req = self.build(i)
                self.requests.append(req)
                self.send(req)
                time.sleep(self.rnd.uniform(0, 0.01))
        except BaseException as e:  # noqa: BLE001 - the test reports it
            self.error = e
        finally:
            self.done.set()


def killer(server, client, rnd):
    """The five kills, each when its moment comes, the server started again at once."""
    for mode in KILLS:
        time.sleep(rnd.uniform(0.3, 1.2))
        if client.done.is_set():
            break
        go = threading.Event()
        if mode == "at-random":
            time.sleep(rnd.uniform(0, 0.2))
        else:  # the client says when: a commit sent (in-flight), half sent, or made
            with client.lock:
                client.aimed = (mode, go)
            while not go.wait(0.05):
                if client.done.is_set():
                    client.kills_done.set()
                    return
            if mode == "in-flight":
                time.sleep(rnd.uniform(0, 0.012))
        server.kill_and_restart()
    client.kills_done.set()


def millis(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp() * 1000


@pytest.fixture
def server(tmp_path):
    s = Server(str(tmp_path))
    yield s
    s.serve.stop()


def test_killed_server_keeps_each_keyed_change_once(server):
    started = time.monotonic()
    port = server.current()[1]
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("POST", "/v1/namespaces", body=json.dumps({"namespace": ["db"]}),
              headers={"Content-Type": "application/json"})
    r = c.getresponse()
    assert (r.status, json.loads(r.read())["namespace"]) == (200, ["db"])
    c.close()
    created_body = json.dumps({"name": "t", "schema": json.loads(SCHEMA.model_dump_json()),
                               "properties": {"format-version": "2"}})
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("POST", "/v1/namespaces/db/tables", body=created_body, headers={"Content-Type": "application/json"})
    r = c.getresponse()
    created = json.loads(r.read())
    assert r.status == 200, created
    c.close()

    client = Client(server, created)
    thread = threading.Thread(target=client.run, daemon=True)
    thread.start()
    killer(server, client, random.Random(SEED + 1))
    thread.join(timeout=120)
    assert not thread.is_alive(), "the client still runs"
    if client.error is not None:
        raise client.error
    assert len(server.windows) == len(KILLS), f"only {len(server.windows)} kills happened"
    requests = client.requests
    lost = [q for q in requests if len(q.attempts) > 1]

    # No answer was a 5xx but during a kill.
    def in_a_kill(sent, answered):
        return any(sent <= back and answered >= killed for killed, back in server.windows)

    bad = [(s, a, b) for s, a, b in client.answers if s != 200 and not in_a_kill(a, b)]
    assert bad == [], f"answers other than 200 outside the kills: {bad}"
    assert all(q.answer is not None for q in requests)
    assert [q.mode for q in requests if q.mode in ("mid-request", "after-commit")] == ["mid-request", "after-commit"]
    assert len(lost) >= 2

    # The table: every property once with its key, one snapshot per append, one chain.
    c = http.client.HTTPConnection("127.0.0.1", server.current()[1], timeout=30)
    c.request("GET", PATH)
    r = c.getresponse()
    final = json.loads(r.read())
    c.close()
    assert r.status == 200
    md = final["metadata"]
    assert final["metadata-location"] == client.location
    props = {k: v for k, v in md["properties"].items() if k.startswith("fault.")}
    assert props == {f"fault.{q.i:03d}": q.key for q in requests if q.kind == "property"}
    appends = [q for q in requests if q.kind == "append"]
    snaps = md["snapshots"]
    assert [s["summary"].get("fault.key") for s in snaps] == [q.key for q in appends]
    assert [s["snapshot-id"] for s in snaps] == [q.snapshot_id for q in appends]
    assert [s.get("parent-snapshot-id") for s in snaps] == [None] + [q.snapshot_id for q in appends[:-1]]
    assert [e["snapshot-id"] for e in md["snapshot-log"]] == [q.snapshot_id for q in appends]
    assert md["refs"] == {"main": {"snapshot-id": appends[-1].snapshot_id, "type": "branch"}}

    # floe reads the metadata: its snapshots table, and every snapshot's rows.
    rows = server.floe_rows("SELECT snapshot_id, parent_id, operation, summary FROM lakehouse.db.t.snapshots")
    assert [(r["snapshot_id"], r["parent_id"], r["operation"], r["summary"]["fault.key"]) for r in rows] == [
        (s["snapshot-id"], s.get("parent-snapshot-id"), "append", s["summary"]["fault.key"]) for s in snaps]
    reads = server.floe_rows(*[
        f"SELECT {q.snapshot_id} AS at, id, key FROM lakehouse.db.t VERSION AS OF {q.snapshot_id}" for q in appends])
    for n, q in enumerate(appends):
        got = sorted((r["id"], r["key"]) for r in reads if r["at"] == q.snapshot_id)
        assert got == [(a.i, a.key) for a in appends[: n + 1]], f"snapshot {q.snapshot_id} of request {q.i}"

    # The audit log: the create, then one row per request, in order, each its key's change at
    # the location its answer named.
    entries = server.audit()
    print(f"\n{len(requests)} requests, {len(server.windows)} kills; answers lost and retried: " + "; ".join(
        f"{q.i} {q.kind} {q.mode or 'unaimed'} {q.attempts}, committed "
        + ("before" if millis(e["changed_at"]) < server.killed_at[q.attempts[0][1]] else "after") + " the kill"
        for q, e in zip(requests, entries[1:]) if q in lost))
    assert entries[0]["kind"] == "create"
    assert len(entries) == 1 + len(requests), (
        f"{len(entries) - 1} audit rows for {len(requests)} requests: "
        + ", ".join(f"{e['kind']} {e['snapshot_id']}" for e in entries[1:]))
    for q, e in zip(requests, entries[1:]):
        where = f"request {q.i} ({q.kind}, attempts {q.attempts}): audit row {e['seq']}"
        assert e["metadata_location"] == q.answer["metadata-location"], where
        if q.kind == "append":
            assert (e["kind"], e["operation"], e["snapshot_id"]) == ("commit", "append", q.snapshot_id), where
        else:
            assert (e["kind"], e["operation"]) == ("properties", None), where
            with client.io.new_input(e["previous_metadata_location"]).open() as f:
                before = json.loads(f.read())["properties"]
            with client.io.new_input(e["metadata_location"]).open() as f:
                after = json.loads(f.read())["properties"]
            assert {k: v for k, v in after.items() if before.get(k) != v} == {f"fault.{q.i:03d}": q.key}, where
            assert set(before) <= set(after), where
        if q.mode == "mid-request":  # never committed before its kill: the retry committed it
            assert millis(e["changed_at"]) > server.killed_at[KILLS.index("mid-request")], where
        if q.mode == "after-commit":  # committed before its kill: the retry got the first answer
            assert millis(e["changed_at"]) < server.killed_at[KILLS.index("after-commit")], where

    # Every key again, on the last server: its first answer, and nothing changes.
    newest = entries[-1]["seq"]
    port = server.current()[1]
    for q in requests:
        status, data = http_post(port, q.body, q.key)
        assert status == 200, (q.i, status, data)
        answer = json.loads(data)
        assert answer["metadata-location"] == q.answer["metadata-location"], f"request {q.i}: another answer"
        assert answer["metadata"] == q.answer["metadata"], f"request {q.i}: the same location, other metadata"
    assert server.audit(limit=1)[-1]["seq"] == newest
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", PATH)
    assert json.loads(c.getresponse().read())["metadata-location"] == client.location
    c.close()
    print(f"took {time.monotonic() - started:.1f} s")
