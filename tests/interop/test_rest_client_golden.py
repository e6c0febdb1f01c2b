"""The golden SQL stories of time travel, rollback, refs, DML and maintenance (tests/sql/) run
unchanged on Iceberg's reference REST catalog server (one JVM for the module), floe committing
through it as a REST client: floe_sqltest --catalog rest+http://... empties the catalog before
each file. Six files are about records a REST catalog does not keep, and floe says so
instead (tests below): restore_table (restores by audit-log row), drop_undrop (UNDROP),
protected_refs (its refused writes are read back from the audit log), transaction_audit (a
transaction's audit rows), catalog_tags and commit_tag (the record of a catalog tag's tables).
Needs scripts/setup-rest-kit.sh; without it the tests are skipped, unless CI=true: then they
fail."""

from __future__ import annotations

import subprocess

import pytest

from floe_driver import ROOT
from reference_rest_server import ReferenceRestServer, require_reference_jar

SQLTEST = ROOT / "build" / "floe_sqltest"
FLOE = ROOT / "build" / "floe"
NEEDS_RECORDS = {
    "timetravel/restore_table.test",
    "maintenance/drop_undrop.test",
    "maintenance/protected_refs.test",
    "dml/transaction_audit.test",
    "timetravel/catalog_tags.test",
    "timetravel/commit_tag.test",
}
STORIES = sorted(
    str(p.relative_to(ROOT / "tests" / "sql"))
    for folder in ("timetravel", "dml", "maintenance")
    for p in (ROOT / "tests" / "sql" / folder).glob("*.test"))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_reference_jar()
    with ReferenceRestServer(tmp_path_factory.mktemp("reference-rest")) as s:
        yield s


@pytest.mark.parametrize("story", [s for s in STORIES if s not in NEEDS_RECORDS])
def test_golden_story_on_the_reference_rest_catalog(server, story):
    r = subprocess.run([str(SQLTEST), "--catalog", server.catalog_uri,
                        str(ROOT / "tests" / "sql" / story)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1].endswith(" passed, 0 failed")


def floe_sql(server, *statements):
    args = [str(FLOE), "sql", "--catalog", server.catalog_uri]
    for s in statements:
        args += ["-c", s]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def test_what_a_rest_catalog_does_not_keep_is_said_plainly(server):
    r = floe_sql(server, "CREATE NAMESPACE IF NOT EXISTS kept",
                 "CREATE TABLE kept.t (id BIGINT) USING iceberg", "INSERT INTO kept.t VALUES (1)",
                 "DROP TABLE kept.t")
    assert r.returncode == 0, r.stderr
    r = floe_sql(server, "UNDROP TABLE kept.t")
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == (
        "Error: UNDROP needs a catalog that keeps dropped tables; this REST catalog does not "
        "(line 1, column 14)")
    r = floe_sql(server, "SHOW DROPPED TABLES")
    assert r.stderr == ("Error: UNDROP needs a catalog that keeps dropped tables; this REST "
                        "catalog does not\n")
    r = floe_sql(server, "CREATE TABLE kept.u (id BIGINT) USING iceberg",
                 "SELECT * FROM kept.u.audit_log")
    assert r.returncode == 1
    assert r.stderr == ("Error: The audit log needs a catalog that keeps one; this REST catalog "
                        "does not (floe keeps it in the SQL catalogs it opens directly: SQLite, "
                        "PostgreSQL)\n")
    r = floe_sql(server, "CREATE CATALOG TAG run_1")
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == (
        "Error: Cannot create catalog tag run_1: catalog lakehouse is a REST catalog, which has no "
        "place to record the tables a catalog tag covers; catalog tags need a SQL catalog (SQLite "
        "or PostgreSQL) (line 1, column 20)")
    # COMMIT TAG fails the COMMIT: the block's write is not visible.
    r = floe_sql(server, "BEGIN; INSERT INTO kept.u VALUES (1); COMMIT TAG run_1")
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == (
        "Error: Cannot commit the transaction: Cannot create catalog tag run_1: catalog lakehouse "
        "is a REST catalog, which has no place to record the tables a catalog tag covers; catalog "
        "tags need a SQL catalog (SQLite or PostgreSQL) (line 1, column 12)")
    r = floe_sql(server, "SELECT count(*) FROM kept.u")
    assert r.returncode == 0 and r.stdout.splitlines()[3] == "|       0|", r.stdout
    r = subprocess.run([str(FLOE), "audit", "--catalog", server.catalog_uri],
                       capture_output=True, text=True, timeout=120)
    assert r.stderr == ("Error: Cannot read the audit log: catalog lakehouse is a REST catalog, "
                        "which keeps no audit log\n")
    r = subprocess.run([str(FLOE), "undo", "kept.u", "--catalog", server.catalog_uri],
                       capture_output=True, text=True, timeout=120)
    assert r.stderr == ("Error: Cannot undo a change of lakehouse.kept.u: catalog lakehouse is a "
                        "REST catalog, which keeps no audit log\n")


def test_transactions_go_to_the_rest_catalog_as_one(server, tmp_path):
    """floe serve --rest over the reference server: a transaction a client commits to floe is
    sent on as one POST /transactions/commit; both tables move, or (a requirement failing on
    one) neither does."""
    import http.client
    import json
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "support"))
    from floe_serve import FloeServe

    r = floe_sql(server, "CREATE NAMESPACE IF NOT EXISTS tx", "CREATE TABLE tx.a (id BIGINT) USING iceberg",
                 "CREATE TABLE tx.b (id BIGINT) USING iceberg")
    assert r.returncode == 0, r.stderr
    front = FloeServe(FLOE, "--catalog", server.catalog_uri, rest=True)
    try:
        def post(body):
            c = http.client.HTTPConnection("127.0.0.1", front.rest_port, timeout=60)
            c.request("POST", "/v1/transactions/commit", body=json.dumps(body),
                      headers={"Content-Type": "application/json"})
            resp = c.getresponse()
            return resp.status, resp.read()

        def change(name, value, uuid=None):
            requirements = [] if uuid is None else [{"type": "assert-table-uuid", "uuid": uuid}]
            return {"identifier": {"namespace": ["tx"], "name": name}, "requirements": requirements,
                    "updates": [{"action": "set-properties", "updates": {"owner": value}}]}

        status, _ = post({"table-changes": [change("a", "ops"), change("b", "ops")]})
        assert status == 204
        status, body = post({"table-changes": [change("a", "finance"),
                                               change("b", "finance", uuid="00000000-0000-0000-0000-000000000000")]})
        assert status == 409, body
    finally:
        front.stop()
    r = floe_sql(server, "SHOW TBLPROPERTIES tx.a ('owner')", "SHOW TBLPROPERTIES tx.b ('owner')")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("|owner|  ops|") == 2, r.stdout
