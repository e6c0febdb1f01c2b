"""floe as a client of an Iceberg REST catalog that misbehaves: the floe CLI (the whole process,
`floe sql --catalog rest+http://...`) writes through the fault proxy (tests/support/
rest_fault_proxy.py) in front of Iceberg's reference REST server (tests/support/
reference_rest_server.py); one server and one proxy for the module, a namespace and table of
its own for each test.

Each test reads the outcome afterwards straight from the reference server, not through the
proxy: the rows, every snapshot with its parent and operation (and the statement floe stamps in
its summary, which says whose snapshot it is), the number of metadata files the server wrote
(one per commit it applied: a commit applied twice shows here), and the requests the proxy saw
on the table's route (loadTable GETs and commit POSTs, with what each was answered and whether
it reached the server).

What floe must do (src/floe/catalog/rest_catalog.cc, src/floe/table/commit.cc):
- 409 on a commit: a conflict; floe reloads, validates its change again from the new base
  (Iceberg's serializable isolation for DELETE) and retries, or fails naming the conflict;
- a 5xx other than 503 after the request may have reached the server, or a connection dropped
  after sending: the commit state is unknown; floe reloads and counts the commit as done when
  the table holds it (it is never applied twice), else as a conflict to retry;
- 429 and 503: the same request again after 100 ms, doubling, or after Retry-After seconds, up
  to 6 tries, then an error naming the catalog and the request.

Needs scripts/setup-rest-kit.sh (the reference server's jar) and build/floe; without the jar
the tests are skipped, unless CI=true: then they fail."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import time

import pytest

from floe_driver import CLI  # also puts tests/support on the path
from names import name_for_test
from reference_rest_server import ReferenceRestServer, require_reference_jar
from rest_fault_proxy import RestFaultProxy

# The endpoint name floe's errors give a commit (Iceberg's OpenAPI route).
COMMIT_ENDPOINT = "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}"
LOAD_ENDPOINT = "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_reference_jar()
    if not CLI.exists():
        pytest.fail(f"{CLI} is missing; build floe first (scripts/build.sh)", pytrace=False)
    with ReferenceRestServer(tmp_path_factory.mktemp("reference-rest")) as s:
        yield s


@pytest.fixture(scope="module")
def proxy(server):
    with RestFaultProxy(server.uri) as p:
        yield p


# ---- floe, the server's view of a table, the proxy's record ----


class Run:
    """One finished floe process: exit status, output, seconds it took."""

    def __init__(self, proc: subprocess.CompletedProcess | subprocess.Popen, out: str, err: str,
                 seconds: float):
        self.returncode = proc.returncode
        self.stdout = out
        self.stderr = err
        self.seconds = seconds

    def __repr__(self):
        return (f"floe exited {self.returncode} after {self.seconds:.2f} s; "
                f"stdout={self.stdout!r} stderr={self.stderr!r}")


def floe_command(catalog_uri: str, *statements: str, options: tuple[str, ...] = ()) -> list[str]:
    cmd = [str(CLI), "sql", "--catalog", catalog_uri, "--format", "json", "-q", *options]
    for statement in statements:
        cmd += ["-c", statement]
    return cmd


def floe(catalog_uri: str, *statements: str, options: tuple[str, ...] = (),
         timeout: float = 60) -> Run:
    start = time.monotonic()
    proc = subprocess.run(floe_command(catalog_uri, *statements, options=options),
                          capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=timeout)
    return Run(proc, proc.stdout, proc.stderr, time.monotonic() - start)


def json_rows(run: Run) -> list[dict]:
    return [json.loads(line) for line in run.stdout.splitlines() if line.strip()]


class Table:
    """A table of one test, `ns`.t, made and read directly on the reference server."""

    def __init__(self, server: ReferenceRestServer, proxy: RestFaultProxy, ns: str):
        self.server = server
        self.proxy = proxy
        self.ns = ns
        self.name = f"{ns}.t"
        self.route = re.compile(rf"^/v1/namespaces/{re.escape(ns)}/tables/t(\?|$)")

    def direct(self, *statements: str) -> Run:
        """Statements run by floe on the reference server itself, no proxy; they must succeed."""
        run = floe(self.server.catalog_uri, *statements)
        assert run.returncode == 0, f"{statements} on the reference server: {run}"
        return run

    def rows(self) -> list[dict]:
        return json_rows(self.direct(f"SELECT * FROM {self.name} ORDER BY id, v"))

    def snapshots(self) -> list[dict]:
        """Every snapshot, oldest first: id, parent, operation, and the statement that made it."""
        return json_rows(self.direct(
            "SELECT snapshot_id, parent_id, operation, summary['floe.statement'] AS statement "
            f"FROM {self.name}.snapshots ORDER BY committed_at"))

    def metadata(self) -> dict:
        """The table's metadata as the server answers loadTable."""
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=30)
        try:
            conn.request("GET", f"/v1/namespaces/{self.ns}/tables/t")
            response = conn.getresponse()
            body = response.read()
        finally:
            conn.close()
        assert response.status == 200, body
        return json.loads(body)["metadata"]

    def commits_applied(self) -> int:
        """Metadata files the server wrote for this table: its creation and one per commit it
        applied (the metadata log holds the ones before the current file)."""
        return len(self.metadata()["metadata-log"]) + 1

    def state(self) -> dict:
        return {"rows": self.rows(), "snapshots": self.snapshots(),
                "commits_applied": self.commits_applied()}

    def exchanges(self) -> list[tuple[str, int | None, bool]]:
        """The loadTable GETs and commit POSTs the proxy saw for this table, in order:
        (method, status answered (None: no answer), whether it reached the server)."""
        return [(r.method, r.status, r.forwarded) for r in self.proxy.requests
                if r.method in ("GET", "POST") and self.route.search(r.path)]

    def report(self, run: Run) -> str:
        """What a failed assertion shows: floe's exit and output, and the proxy's record."""
        record = "\n  ".join(map(str, self.proxy.requests))
        return f"{run}\nproxy record:\n  {record}"


@pytest.fixture
def table(request, server, proxy):
    """A new namespace with table t (id BIGINT, v STRING) holding (1, 'a') and (2, 'b') in one
    snapshot, made directly on the server; the proxy without faults and with an empty record."""
    t = Table(server, proxy, name_for_test(request, prefix="rf", length=30))
    t.direct(f"CREATE NAMESPACE {t.ns}", f"CREATE TABLE {t.name} (id BIGINT, v STRING)",
             f"INSERT INTO {t.name} VALUES (1, 'a'), (2, 'b')")
    proxy.clear()
    yield t
    proxy.clear()


SEED_ROWS = [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}]


def one_new_snapshot(before: list[dict], after: list[dict], operation: str,
                     statement: str) -> dict:
    """Asserts `after` is `before` and exactly one snapshot more, on top of the last one, made by
    `statement`; returns it."""
    assert len(after) == len(before) + 1, after
    assert after[:-1] == before
    new = after[-1]
    assert new["snapshot_id"] not in {s["snapshot_id"] for s in before}
    assert new == {"snapshot_id": new["snapshot_id"], "parent_id": before[-1]["snapshot_id"],
                   "operation": operation, "statement": statement}
    return new


def assert_insert_committed_once(table: Table, before: dict, run: Run, insert: str):
    """The INSERT of (3, 'c') succeeded and is in the table exactly once: one snapshot more
    (current on the server), the row once, one commit applied."""
    assert run.returncode == 0, table.report(run)
    after = table.state()
    assert after["rows"] == SEED_ROWS + [{"id": 3, "v": "c"}], table.report(run)
    new = one_new_snapshot(before["snapshots"], after["snapshots"], "append", insert)
    assert table.metadata()["current-snapshot-id"] == new["snapshot_id"]
    assert after["commits_applied"] == before["commits_applied"] + 1, table.report(run)


# ---- 1. a 409 the proxy makes up: retried after a reload ----


def test_409_on_the_first_commit_is_retried_after_a_reload(table, proxy):
    before = table.state()
    proxy.add_fault("POST", table.route.pattern, "status_before", status=409,
                    type="CommitFailedException")
    insert = f"INSERT INTO {table.name} VALUES (3, 'c')"
    run = floe(proxy.catalog_uri, insert)
    assert_insert_committed_once(table, before, run, insert)
    # The refused commit never reached the server; floe loaded the table again, then sent its
    # commit once more.
    assert table.exchanges() == [("GET", 200, True), ("POST", 409, False), ("GET", 200, True),
                                 ("POST", 200, True)], table.report(run)


# ---- 2. a real conflict: another writer commits while writer A's commit is held ----

# Writer A (through the proxy) runs `DELETE FROM t WHERE id = 1` (copy-on-write: an overwrite
# that replaces the table's one data file). Its first commit POST is answered 503 with
# Retry-After: HOLD, so floe waits HOLD seconds and sends the very same commit request again
# (503 means the server did not take it). The test waits until the proxy has answered that 503,
# then has writer B commit directly on the server; B is done well within HOLD (checked). A's
# second POST is forwarded, and the reference server itself refuses it with 409 (A's
# assert-ref-snapshot-id requirement no longer holds): a genuine conflict, ordered without races.
# floe then reloads and runs its conflict validation from B's snapshot. DELETE's isolation
# level is Iceberg's default, serializable: A fails if B deleted a data file A's delete removes,
# or added a file that can hold rows matching A's filter (id = 1); a file that cannot (B adds
# id 5 only, its column bounds say so) is no conflict, and A commits on top of B.
HOLD = 2


@pytest.mark.parametrize("writer_b, a_error, rows", [
    pytest.param("DELETE FROM {t} WHERE id = 1",
                 "Found conflicting deleted files that can contain records matching id = 1",
                 [{"id": 2, "v": "b"}], id="b_deleted_the_same_row"),
    pytest.param("INSERT INTO {t} VALUES (1, 'z')",
                 "Found conflicting files that can contain records matching id = 1",
                 [{"id": 1, "v": "a"}, {"id": 1, "v": "z"}, {"id": 2, "v": "b"}],
                 id="b_added_a_matching_row"),
    pytest.param("INSERT INTO {t} VALUES (5, 'e')", None,
                 [{"id": 2, "v": "b"}, {"id": 5, "v": "e"}], id="b_added_an_unrelated_row"),
])
def test_409_from_a_concurrent_writer_runs_conflict_validation(table, proxy, writer_b, a_error,
                                                               rows):
    before = table.state()
    delete = f"DELETE FROM {table.name} WHERE id = 1"
    b_statement = writer_b.format(t=table.name)
    proxy.add_fault("POST", table.route.pattern, "status_before", status=503, retry_after=HOLD)
    start = time.monotonic()
    a = subprocess.Popen(floe_command(proxy.catalog_uri, delete), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        deadline = start + 30
        while not any(r.status == 503 for r in proxy.requests):
            assert a.poll() is None and time.monotonic() < deadline, \
                f"writer A never sent its commit: {proxy.requests}"
            time.sleep(0.01)
        held = time.monotonic()
        table.direct(b_statement)
        b_took = time.monotonic() - held
        out, err = a.communicate(timeout=60)
    finally:
        if a.poll() is None:
            a.kill()
            a.wait()
    run = Run(a, out, err, time.monotonic() - start)
    assert b_took < HOLD - 0.5, f"writer B took {b_took:.2f} s, not within A's {HOLD} s hold"
    after = table.state()
    assert after["rows"] == rows, table.report(run)
    # B's commit first, on the snapshot both started from.
    b_operation = "overwrite" if b_statement.startswith("DELETE") else "append"
    b_snapshot = one_new_snapshot(before["snapshots"],
                                  after["snapshots"][:len(before["snapshots"]) + 1],
                                  b_operation, b_statement)
    # A's commit went out twice with the same body: refused by the proxy (503, not forwarded),
    # then by the server itself (409); then A reloaded.
    held_commit = [("GET", 200, True), ("POST", 503, False), ("POST", 409, True),
                   ("GET", 200, True)]
    if a_error is not None:
        assert run.returncode == 1, table.report(run)
        assert f"Cannot delete from lakehouse.{table.name}: {a_error}" in run.stderr, \
            table.report(run)
        assert after["snapshots"] == before["snapshots"] + [b_snapshot]
        assert after["commits_applied"] == before["commits_applied"] + 1
        assert table.exchanges() == held_commit, table.report(run)
    else:
        assert run.returncode == 0, table.report(run)
        one_new_snapshot(before["snapshots"] + [b_snapshot], after["snapshots"], "overwrite",
                         delete)
        assert after["commits_applied"] == before["commits_applied"] + 2
        assert table.exchanges() == held_commit + [("POST", 200, True)], table.report(run)


# ---- 3, 5. the server applied the commit, the answer was lost: committed once ----


@pytest.mark.parametrize("fault", [
    pytest.param({"kind": "status_after", "status": 500}, id="500_after"),
    pytest.param({"kind": "drop_after"}, id="dropped_after"),
])
def test_lost_answer_to_an_applied_commit_counts_as_committed_once(table, proxy, fault):
    before = table.state()
    proxy.add_fault("POST", table.route.pattern, **fault)
    insert = f"INSERT INTO {table.name} VALUES (3, 'c')"
    run = floe(proxy.catalog_uri, insert)
    # The commit reached the server exactly once; floe reloaded the table, found its snapshot
    # there and sent nothing more. (drop_after closes the kept-alive connection floe loaded the
    # table on without an answer: an HTTP layer that silently sends the POST again on a fresh
    # connection gets the server's 409, for main has moved to floe's own snapshot; taking that
    # for a conflict and removing the attempt's files would break the committed snapshot.)
    status = fault.get("status")
    assert table.exchanges() == [("GET", 200, True), ("POST", status, True), ("GET", 200, True)], \
        table.report(run)
    assert_insert_committed_once(table, before, run, insert)


# ---- 4. a schema change whose answer was lost: nothing left to change ----


@pytest.mark.parametrize("status", [502, 504])
def test_lost_answer_to_an_applied_schema_change_counts_as_committed(table, proxy, status):
    before = table.state()
    schemas_before = table.metadata()["schemas"]
    proxy.add_fault("POST", table.route.pattern, "status_after", status=status)
    run = floe(proxy.catalog_uri, f"ALTER TABLE {table.name} ADD COLUMN w INT")
    assert run.returncode == 0, table.report(run)
    assert table.exchanges() == [("GET", 200, True), ("POST", status, True), ("GET", 200, True)], \
        table.report(run)
    after = table.state()
    assert after["snapshots"] == before["snapshots"]  # a schema change adds no snapshot
    assert after["commits_applied"] == before["commits_applied"] + 1
    assert after["rows"] == [dict(r, w=None) for r in SEED_ROWS]
    metadata = table.metadata()
    new_fields = [{"id": 1, "name": "id", "required": False, "type": "long"},
                  {"id": 2, "name": "v", "required": False, "type": "string"},
                  {"id": 3, "name": "w", "required": False, "type": "int"}]
    assert metadata["schemas"] == schemas_before + [
        {"type": "struct", "schema-id": 1, "fields": new_fields}]
    assert (metadata["current-schema-id"], metadata["last-column-id"]) == (1, 3)
    described = json_rows(table.direct(f"DESCRIBE {table.name}"))
    assert [(c["col_name"], c["data_type"]) for c in described] == [
        ("id", "bigint"), ("v", "string"), ("w", "int")]


# ---- 6, 7. 503 and 429: the same request again, with backoff ----


def test_503_then_429_with_retry_after_are_retried(table, proxy):
    before = table.state()
    proxy.add_fault("POST", table.route.pattern, "status_before", status=503)
    proxy.add_fault("POST", table.route.pattern, "status_before", status=429, retry_after=1)
    insert = f"INSERT INTO {table.name} VALUES (3, 'c')"
    run = floe(proxy.catalog_uri, insert)
    assert_insert_committed_once(table, before, run, insert)
    # The same request again each time, no reload between: the server had not taken it.
    assert table.exchanges() == [("GET", 200, True), ("POST", 503, False), ("POST", 429, False),
                                 ("POST", 200, True)], table.report(run)
    # 100 ms after the 503, then the 429's Retry-After: 1 s.
    assert run.seconds >= 1.1, table.report(run)


def test_503_on_every_try_fails_naming_the_catalog_and_leaves_the_table(table, proxy):
    before = table.state()
    proxy.add_fault("POST", table.route.pattern, "status_before", times=None, status=503)
    run = floe(proxy.catalog_uri, f"INSERT INTO {table.name} VALUES (3, 'c')")
    assert run.returncode == 1, table.report(run)
    assert (f"Cannot write to lakehouse.{table.name}: The REST catalog at {proxy.catalog_uri} "
            f"failed {COMMIT_ENDPOINT}: 503 ") in run.stderr, table.report(run)
    # Six tries of the same request, none reaching the server.
    assert table.exchanges() == [("GET", 200, True)] + [("POST", 503, False)] * 6, \
        table.report(run)
    # 100 + 200 + 400 + 800 + 1600 ms between them.
    assert run.seconds >= 3.1, table.report(run)
    assert table.state() == before


# ---- 8. a 500 before the server saw the commit: unknown, then found missing, retried ----


def test_500_before_the_server_saw_the_commit_is_retried_once(table, proxy):
    before = table.state()
    proxy.add_fault("POST", table.route.pattern, "status_before", status=500)
    insert = f"INSERT INTO {table.name} VALUES (3, 'c')"
    run = floe(proxy.catalog_uri, insert)
    assert_insert_committed_once(table, before, run, insert)
    exchanges = table.exchanges()
    posts = [e for e in exchanges if e[0] == "POST"]
    assert posts == [("POST", 500, False), ("POST", 200, True)], table.report(run)
    # Between the two: only loads of the table (the one that looked for the snapshot and did
    # not find it, and the reload before the retry), all answered.
    first, second = exchanges.index(posts[0]), exchanges.index(posts[1])
    between = exchanges[first + 1:second]
    assert between and set(between) == {("GET", 200, True)}, table.report(run)
    assert exchanges[:first] == [("GET", 200, True)], table.report(run)


# ---- 9. a loadTable that never answers: the read fails after the HTTP timeout ----

# floe's REST client waits 120 s for an answer and has no option to shorten it yet. With the
# option (proposed: `--rest-request-timeout SECONDS`, as --s3-request-timeout) the test runs
# with 2 s; without it, only when FLOE_TEST_REST_DEFAULT_TIMEOUT=1 asks for the 120 s wait.
TIMEOUT_FLAG = "--rest-request-timeout"
DEFAULT_TIMEOUT = 120


def _has_timeout_flag() -> bool:
    help_text = subprocess.run([str(CLI), "sql", "--help"], capture_output=True, text=True).stdout
    return TIMEOUT_FLAG in help_text


def test_stalled_load_table_fails_the_read_after_the_timeout(table, proxy):
    if _has_timeout_flag():
        timeout, options = 2, (TIMEOUT_FLAG, "2")
    elif os.environ.get("FLOE_TEST_REST_DEFAULT_TIMEOUT") == "1":
        timeout, options = DEFAULT_TIMEOUT, ()
    else:
        pytest.skip(f"waiting for a {TIMEOUT_FLAG} option of floe (the default timeout is "
                    f"{DEFAULT_TIMEOUT} s; FLOE_TEST_REST_DEFAULT_TIMEOUT=1 runs it with that)")
    # Longer than the timeout: floe gives up before the proxy closes the connection.
    proxy.add_fault("GET", table.route.pattern, "stall", seconds=timeout + 60)
    run = floe(proxy.catalog_uri, f"SELECT * FROM {table.name} ORDER BY id", options=options,
               timeout=timeout + 60)
    assert run.returncode == 1, table.report(run)
    assert f"REST catalog at {proxy.catalog_uri} ({LOAD_ENDPOINT})" in run.stderr, table.report(run)
    assert "timed out" in run.stderr.lower(), table.report(run)
    assert run.stdout == ""
    # One wait, not one per try.
    assert timeout <= run.seconds < timeout + 15, table.report(run)
    assert table.exchanges() == [("GET", None, False)], table.report(run)


def test_lists_follow_every_page(table, server, proxy):
    """Five tables listed two to a page (--rest-page-size 2): three pages asked for, each after
    the token of the one before, and every table listed once, in order."""
    names = [f"p{i}" for i in range(5)]
    table.direct(*(f"CREATE TABLE {table.ns}.{n} (id BIGINT)" for n in names))
    proxy.clear()
    run = floe(proxy.catalog_uri, f"SHOW TABLES IN {table.ns}", options=("--rest-page-size", "2"))
    assert run.returncode == 0, table.report(run)
    assert [r["tableName"] for r in json_rows(run)] == sorted(names + ["t"])
    lists = [r.path for r in proxy.requests
             if r.method == "GET" and r.path.startswith(f"/v1/namespaces/{table.ns}/tables?")]
    assert len(lists) == 3, lists
    assert lists[0] == f"/v1/namespaces/{table.ns}/tables?pageSize=2"
    assert all("&pageToken=" in path for path in lists[1:]), lists
