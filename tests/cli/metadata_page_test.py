"""The metadata pages of a table in headless Chromium (Playwright), and their JSON endpoints
through urllib, against a table the floe command built: two appends, a tag, a branch, a bad
UPDATE, a rollback to the snapshot before it, and one more append.

The pages are served by `floe serve --http`. Run by ctest (cli/metadata_page) with
FLOE_BINARY (the floe command) in the environment."""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
from datetime import datetime

import pytest

FLOE = os.environ.get("FLOE_BINARY", "build/floe")


class Catalog:
    def __init__(self, directory):
        self.env = dict(os.environ, FLOE_CATALOG=f"{directory}/catalog.db",
                        FLOE_WAREHOUSE=f"{directory}/warehouse", TMPDIR=directory)

    def run(self, *args):
        r = subprocess.run([FLOE, *args], env=self.env, capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, f"floe {' '.join(args)}: {r.stderr}"
        return r.stdout

    def sql(self, *statements):
        args = ["sql", "-q"]
        for s in statements:
            args += ["-c", s]
        self.run(*args)

    def rows(self, query):
        return list(csv.reader(io.StringIO(self.run("sql", "--format", "csv", "-c", query))))[1:]

    def ref(self, name):
        return self.rows(f"SELECT snapshot_id FROM db.t.refs WHERE name = '{name}'")[0][0]


@pytest.fixture(scope="module")
def table():
    """Builds db.t; each change in its own process, so no two share a millisecond."""
    directory = tempfile.TemporaryDirectory(prefix="floe-http-")
    c = Catalog(directory.name)
    c.sql("CREATE NAMESPACE db", "CREATE TABLE db.t (id BIGINT, name STRING) USING iceberg",
          "INSERT INTO db.t VALUES (1, 'a'), (2, 'b')")
    s1 = c.ref("main")
    c.sql("INSERT INTO db.t VALUES (3, 'c')")
    s2 = c.ref("main")
    c.sql("ALTER TABLE db.t CREATE TAG v1")
    c.sql(f"ALTER TABLE db.t CREATE BRANCH audit AS OF VERSION {s1}")
    c.sql("UPDATE db.t SET name = 'oops' WHERE id >= 2")  # the bad write
    bad = c.ref("main")
    c.sql(f"CALL lakehouse.system.rollback_to_snapshot('db.t', {s2})")
    c.sql("INSERT INTO db.t VALUES (4, 'd')")
    s4 = c.ref("main")
    ids = dict(s1=s1, s2=s2, bad=bad, s4=s4)
    # Every snapshot, as the snapshots metadata table lists them.
    listed = {row[0]: row[1] for row in c.rows("SELECT snapshot_id, parent_id FROM db.t.snapshots")}
    assert set(listed) == set(ids.values())
    yield c, ids, listed
    directory.cleanup()


@pytest.fixture(scope="module")
def server(table):
    c, _, _ = table
    proc = subprocess.Popen([FLOE, "serve", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"],
                            env=c.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    listening = proc.stdout.readline()
    assert listening.startswith("floe serve: listening on 127.0.0.1:"), \
        f"no address from the server: {listening!r} {proc.stderr.read() if not listening else ''}"
    line = proc.stdout.readline()
    m = re.fullmatch(r"floe serve: metadata pages on (http://127\.0\.0\.1:\d+)\n", line)
    assert m, f"no metadata address from the server: {line!r}"
    yield m.group(1)
    proc.terminate()
    assert proc.wait(timeout=30) == 0


def get(base, path, method="GET"):
    """(status, content type, body) of a request."""
    request = urllib.request.Request(base + path, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


def get_json(base, path):
    status, kind, body = get(base, path)
    assert kind == "application/json", body
    return status, json.loads(body)


def history(c):
    """floe history --json, by snapshot id (the first entry of each)."""
    entries = json.loads(c.run("history", "db.t", "--json"))["history"]
    out = {}
    for e in entries:
        out.setdefault(str(e["snapshot_id"]), e)
    return entries, out


# --- the JSON endpoints ------------------------------------------------------------------------

def test_api_tables(server):
    assert get_json(server, "/api/tables") == (200, {
        "catalog": "lakehouse", "namespaces": ["db"],
        "tables": [{"namespace": "db", "name": "t", "table": "lakehouse.db.t",
                    "path": "/table/db/t"}]})


def test_api_table(server, table):
    c, ids, listed = table
    status, t = get_json(server, "/api/table/db/t")
    assert status == 200
    assert t["table"] == "lakehouse.db.t"
    assert t["current_snapshot_id"] == ids["s4"]
    # Newest first, each snapshot above its parent.
    assert [s["snapshot_id"] for s in t["snapshots"]] == [ids["s4"], ids["bad"], ids["s2"], ids["s1"]]
    for s in t["snapshots"]:
        assert (s["parent_id"] or "") == listed[s["snapshot_id"]]
    refs = {s["snapshot_id"]: s["refs"] for s in t["snapshots"]}
    assert refs == {ids["s4"]: [{"name": "main", "type": "branch"}], ids["bad"]: [],
                    ids["s2"]: [{"name": "v1", "type": "tag"}],
                    ids["s1"]: [{"name": "audit", "type": "branch"}]}
    assert sorted(t["refs"], key=lambda r: r["name"]) == [
        {"name": "audit", "type": "branch", "snapshot_id": ids["s1"]},
        {"name": "main", "type": "branch", "snapshot_id": ids["s4"]},
        {"name": "v1", "type": "tag", "snapshot_id": ids["s2"]}]
    assert [e["snapshot_id"] for e in t["log"]] == [ids["s1"], ids["s2"], ids["bad"], ids["s2"], ids["s4"]]
    entries, _ = history(c)
    rollback_time = entries[3]["made_current_at"]
    assert t["jumps"] == [{"branch": "main", "kind": "rollback", "from_snapshot_id": ids["bad"],
                           "to_snapshot_id": ids["s2"], "at": rollback_time, "row": 1}]
    assert [s["is_current"] for s in t["snapshots"]] == [True, False, False, False]
    assert [s["is_current_ancestor"] for s in t["snapshots"]] == [True, False, True, True]


def test_api_table_provenance_matches_floe_history(server, table):
    c, _, _ = table
    _, by_id = history(c)
    _, t = get_json(server, "/api/table/db/t")
    for s in t["snapshots"]:
        h = by_id[s["snapshot_id"]]
        for key in ("committed_at", "operation", "added_records", "deleted_records",
                    "added_data_files", "deleted_data_files", "client", "user"):
            assert s[key] == h[key], (s["snapshot_id"], key)
    assert [s["operation"] for s in t["snapshots"]] == ["append", "overwrite", "append", "append"]
    assert t["snapshots"][0]["added_records"] == 1 and t["snapshots"][3]["added_records"] == 2


def test_api_diff(server, table):
    _, ids, _ = table
    status, d = get_json(server, f"/api/table/db/t/diff?from={ids['s2']}&to={ids['bad']}")
    assert status == 200
    assert (d["from"]["snapshot_id"], d["to"]["snapshot_id"]) == (ids["s2"], ids["bad"])
    assert d["columns"] == ["id", "name"]
    assert (d["added"], d["removed"]) == (2, 2)
    assert d["added_rows"] == [["2", "oops"], ["3", "oops"]]
    assert d["removed_rows"] == [["2", "b"], ["3", "c"]]
    assert d["rows_limit"] == 100
    _, d = get_json(server, f"/api/table/db/t/diff?from={ids['s1']}&to={ids['s4']}")
    assert (d["added"], d["removed"], d["added_rows"], d["removed_rows"]) == (
        2, 0, [["3", "c"], ["4", "d"]], [])


def test_api_errors(server, table):
    _, ids, _ = table
    assert get_json(server, "/api/table/db/nope") == (404, {"error": "Table lakehouse.db.nope not found"})
    assert get_json(server, f"/api/table/db/t/diff?from=abc&to={ids['s1']}") == (
        400, {"error": "Invalid parameter 'from': 'abc' is not a snapshot id"})
    assert get_json(server, f"/api/table/db/t/diff?from=7&to={ids['s1']}") == (
        404, {"error": "Cannot find snapshot with ID 7 in table lakehouse.db.t"})
    status, _, body = get(server, "/api/tables", method="POST")
    assert (status, body) == (405, "405 Method Not Allowed: The metadata pages are read-only; only GET is served\n")


def change_rows(d):
    """(id, name, _change_type, _change_ordinal, _commit_snapshot_id) of each row."""
    at = {c: i for i, c in enumerate(d["columns"])}
    return [tuple(r[at[c]] for c in ("id", "name", "_change_type", "_change_ordinal",
                                      "_commit_snapshot_id")) for r in d["rows"]]


def test_api_changes(server, table):
    c, ids, _ = table
    status, d = get_json(server, f"/api/table/db/t/changes?from={ids['s2']}&to={ids['bad']}")
    assert status == 200
    assert (d["table"], d["from"]["snapshot_id"], d["to"]["snapshot_id"]) == (
        "lakehouse.db.t", ids["s2"], ids["bad"])
    assert d["columns"] == ["id", "name", "_change_type", "_change_ordinal", "_commit_snapshot_id",
                            "_commit_timestamp", "_commit_sequence_number", "_operation"]
    assert (d["total"], d["rows_limit"]) == (4, 100)
    assert change_rows(d) == [("2", "b", "DELETE", "0", ids["bad"]), ("3", "c", "DELETE", "0", ids["bad"]),
                              ("2", "oops", "INSERT", "0", ids["bad"]), ("3", "oops", "INSERT", "0", ids["bad"])]
    assert {r[7] for r in d["rows"]} == {"overwrite"}
    # The same rows as table_changes gives in floe sql, commit times and sequence numbers too.
    sql_rows = c.rows(f"SELECT * FROM table_changes('db.t', {ids['s2']}, {ids['bad']}) "
                      "ORDER BY _change_type, id")
    assert sorted(map(tuple, d["rows"])) == sorted(map(tuple, sql_rows))

    # From the table as created to the current snapshot, commit by commit along main.
    _, d = get_json(server, "/api/table/db/t/changes")
    assert (d["from"], d["to"]["snapshot_id"]) == (None, ids["s4"])
    assert change_rows(d) == [("1", "a", "INSERT", "0", ids["s1"]), ("2", "b", "INSERT", "0", ids["s1"]),
                              ("3", "c", "INSERT", "1", ids["s2"]), ("4", "d", "INSERT", "2", ids["s4"])]

    # Off one line of history (the bad write was rolled back): the two states compared.
    _, d = get_json(server, f"/api/table/db/t/changes?from={ids['bad']}&to={ids['s4']}")
    assert change_rows(d) == [("2", "oops", "DELETE", None, ids["s4"]), ("3", "oops", "DELETE", None, ids["s4"]),
                              ("2", "b", "INSERT", None, ids["s4"]), ("3", "c", "INSERT", None, ids["s4"]),
                              ("4", "d", "INSERT", None, ids["s4"])]

    _, d = get_json(server, f"/api/table/db/t/changes?from={ids['s2']}&to={ids['bad']}&limit=1")
    assert (d["total"], d["rows_limit"], change_rows(d)) == (4, 1, [("2", "b", "DELETE", "0", ids["bad"])])


def test_api_changes_errors(server, table):
    _, ids, _ = table
    assert get_json(server, "/api/table/db/t/changes?from=abc") == (
        400, {"error": "Invalid parameter 'from': 'abc' is not a snapshot id"})
    assert get_json(server, f"/api/table/db/t/changes?from=7&to={ids['s1']}") == (
        404, {"error": "Cannot find snapshot with ID 7 in table lakehouse.db.t"})
    assert get_json(server, "/api/table/db/t/changes?limit=1001") == (
        400, {"error": "Invalid parameter 'limit': '1001' is not a number from 0 to 1000"})
    assert get_json(server, f"/api/table/db/t/changes?from={ids['s4']}&to={ids['s1']}") == (
        400, {"error": f"Starting snapshot (exclusive) {ids['s4']} is after end snapshot "
                       f"{ids['s1']} in table lakehouse.db.t"})
    assert get_json(server, "/api/table/db/nope/changes")[0] == 404


# --- the pages in a browser --------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "Debian's chromium package is needed (scripts/setup.sh installs it)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, headless=True,
                              args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    page = browser.new_page()
    problems = []
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    # Chromium reports a 404 document as a failed resource; anything else is a problem.
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type == "error" and "404 (Not Found)" not in m.text else None)
    yield page
    page.close()
    assert problems == []  # no script errors, nothing the security policy blocked


def open_table(page, server):
    response = page.goto(server + "/table/db/t")
    assert response.status == 200
    page.wait_for_selector("body[data-loaded=true]", timeout=30000)


def texts(page, selector):
    return page.eval_on_selector_all(selector, "els => els.map(e => e.textContent)")


def test_index_links_to_the_table(page, server):
    page.goto(server + "/")
    assert texts(page, "#namespaces li.namespace > span") == ["db"]
    link = page.locator("#namespaces li.table a")
    assert link.get_attribute("href") == "/table/db/t"
    link.click()
    page.wait_for_selector("body[data-loaded=true]")
    assert page.text_content("#table-name") == "lakehouse.db.t"


def test_lineage_graph(page, server, table):
    _, ids, _ = table
    open_table(page, server)
    nodes = page.eval_on_selector_all(
        "#lineage-graph .snapshot-node", "els => els.map(e => e.getAttribute('data-snapshot-id'))")
    assert nodes == [ids["s4"], ids["bad"], ids["s2"], ids["s1"]]

    def labels(snapshot_id):
        return texts(page, f'.snapshot-node[data-snapshot-id="{snapshot_id}"] .ref-label')

    assert labels(ids["s4"]) == ["main"]
    assert labels(ids["bad"]) == []
    assert labels(ids["s2"]) == ["tag: v1"]
    assert labels(ids["s1"]) == ["branch: audit"]
    current = page.eval_on_selector_all("#lineage-graph .snapshot-node.current",
                                        "els => els.map(e => e.getAttribute('data-snapshot-id'))")
    assert current == [ids["s4"]]
    # The rollback: an arrow from the bad snapshot back to the one before it, and its row.
    jumps = page.eval_on_selector_all(
        "#lineage-graph path.jump",
        "els => els.map(e => [e.getAttribute('data-kind'), e.getAttribute('data-from-snapshot-id'),"
        " e.getAttribute('data-to-snapshot-id')])")
    assert jumps == [["rollback", ids["bad"], ids["s2"]]]
    rows = texts(page, "#lineage-graph text.jump-row")
    assert len(rows) == 1 and rows[0].startswith(f"~ main rolled back from {ids['bad']} to {ids['s2']} at ")
    # Each child joined to its parent.
    edges = page.eval_on_selector_all(
        "#lineage-graph path.edge",
        "els => els.map(e => [e.getAttribute('data-from-snapshot-id'), e.getAttribute('data-to-snapshot-id')])")
    assert sorted(edges) == sorted([[ids["s4"], ids["s2"]], [ids["bad"], ids["s2"]], [ids["s2"], ids["s1"]]])


def test_snapshot_list_shows_provenance(page, server, table):
    c, ids, _ = table
    _, by_id = history(c)
    open_table(page, server)
    rows = page.eval_on_selector_all(
        "#snapshots tbody tr",
        "trs => trs.map(tr => Object.fromEntries([...tr.cells].map(td => [td.classList[0], td.textContent])))")
    assert [r["snapshot-id"] for r in rows] == [ids["s4"], ids["bad"], ids["s2"], ids["s1"]]

    def shown(v):
        return "" if v is None else str(v)

    refs = {ids["s4"]: "main", ids["bad"]: "", ids["s2"]: "tag: v1", ids["s1"]: "branch: audit"}
    for r in rows:
        h = by_id[r["snapshot-id"]]
        assert r["parent-id"] == shown(h["parent_id"])
        # The page shows UTC times without the ISO T and Z.
        committed = datetime.fromisoformat(h["committed_at"].replace("Z", "+00:00"))
        assert datetime.fromisoformat(r["committed-at"] + "+00:00") == committed
        assert r["operation"] == h["operation"]
        assert r["added-records"] == shown(h["added_records"])
        assert r["deleted-records"] == shown(h["deleted_records"])
        assert r["added-files"] == shown(h["added_data_files"])
        assert r["deleted-files"] == shown(h["deleted_data_files"])
        assert r["client"] == shown(h["client"])
        assert r["refs"] == refs[r["snapshot-id"]]
    assert rows[1]["client"] == "floe sql" and rows[1]["operation"] == "overwrite"


def test_change_list_shows_the_audit_log(page, server, table):
    c, ids, _ = table
    log = json.loads(c.run("audit", "db.t", "--json", "--limit", "0"))["entries"]  # newest first
    kinds = ["commit", "rollback", "commit", "ref-create", "ref-create", "commit", "commit", "create"]
    assert [e["kind"] for e in log] == kinds
    _, t = get_json(server, "/api/table/db/t")
    assert [(ch["seq"], ch["kind"], ch["operation"], ch["statement"]) for ch in t["changes"]] == [
        (e["seq"], e["kind"], e["operation"], e["statement"]) for e in log]
    assert t["changes"][1]["refs"] == [{"name": "main", "from_snapshot_id": ids["bad"], "to_snapshot_id": ids["s2"]}]

    open_table(page, server)
    rows = page.eval_on_selector_all(
        "#changes tbody tr",
        "trs => trs.map(tr => Object.fromEntries([...tr.cells].map(td => [td.classList[0], td.textContent])))")
    assert [r["seq"] for r in rows] == [str(e["seq"]) for e in log]
    assert [r["kind"] for r in rows] == kinds
    assert rows[1]["change"] == f"main: {ids['bad']} -> {ids['s2']}"
    assert rows[1]["statement"] == f"CALL lakehouse.system.rollback_to_snapshot('db.t', {ids['s2']})"
    assert rows[2]["change"] == f"overwrite; main: {ids['s2']} -> {ids['bad']}"
    assert rows[3]["change"] == f"audit: none -> {ids['s1']}"
    assert {r["client"] for r in rows} == {"floe sql"}
    assert all(datetime.fromisoformat(r["changed-at"] + "+00:00") for r in rows)


def diff_shown(page):
    page.wait_for_selector("#diff-summary")

    def cells(selector):
        return page.eval_on_selector_all(
            selector + " tbody tr", "trs => trs.map(tr => [...tr.cells].map(td => td.textContent))")

    return dict(
        from_id=page.text_content("#diff-from-id"), to_id=page.text_content("#diff-to-id"),
        added=page.text_content("#diff-added-count"),
        removed=page.text_content("#diff-removed-count"),
        columns=texts(page, "#diff-added thead th"),
        added_rows=cells("#diff-added"), removed_rows=cells("#diff-removed"))


def test_diff_view_with_select_boxes(page, server, table):
    _, ids, _ = table
    open_table(page, server)
    page.select_option("#diff-from", ids["s2"])
    page.select_option("#diff-to", ids["bad"])
    page.click("#diff-run")
    assert diff_shown(page) == dict(
        from_id=ids["s2"], to_id=ids["bad"], added="2", removed="2", columns=["id", "name"],
        added_rows=[["2", "oops"], ["3", "oops"]], removed_rows=[["2", "b"], ["3", "c"]])


def test_diff_view_by_clicking_two_nodes(page, server, table):
    _, ids, _ = table
    open_table(page, server)
    page.click(f'.snapshot-node[data-snapshot-id="{ids["s1"]}"] circle')
    page.click(f'.snapshot-node[data-snapshot-id="{ids["s4"]}"] circle')
    assert diff_shown(page) == dict(
        from_id=ids["s1"], to_id=ids["s4"], added="2", removed="0", columns=["id", "name"],
        added_rows=[["3", "c"], ["4", "d"]], removed_rows=[])
    assert page.input_value("#diff-from") == ids["s1"]
    assert page.input_value("#diff-to") == ids["s4"]


def test_diff_view_shows_the_changes_commit_by_commit(page, server, table):
    _, ids, _ = table
    open_table(page, server)
    page.select_option("#diff-from", ids["s1"])
    page.select_option("#diff-to", ids["s4"])
    page.click("#diff-run")
    page.wait_for_selector("#row-changes-summary")
    assert (page.text_content("#row-changes-total"), page.text_content("#row-changes-from-id"),
            page.text_content("#row-changes-to-id")) == ("2", ids["s1"], ids["s4"])
    rows = page.eval_on_selector_all(
        "#row-changes-rows tbody tr", "trs => trs.map(tr => [...tr.cells].map(td => td.textContent))")
    assert [r[:5] for r in rows] == [["3", "c", "INSERT", "0", ids["s2"]], ["4", "d", "INSERT", "1", ids["s4"]]]
    assert page.query_selector("#row-changes-truncated") is None


def test_unknown_table_page_names_it(page, server):
    response = page.goto(server + "/table/db/nope")
    assert response.status == 404
    assert page.text_content("#error-message") == "Table lakehouse.db.nope not found"


def test_diff_view_shows_a_bounded_number_of_rows(page, server, table):
    c, _, _ = table
    c.sql("CREATE TABLE db.big (id INT) USING iceberg", "INSERT INTO db.big VALUES (-1)")
    c.sql("INSERT INTO db.big VALUES " + ", ".join(f"({i})" for i in range(120)))
    first, second = (r[0] for r in c.rows("SELECT snapshot_id FROM db.big.snapshots ORDER BY committed_at"))
    response = page.goto(server + "/table/db/big")
    assert response.status == 200
    page.wait_for_selector("body[data-loaded=true]")
    page.select_option("#diff-from", first)
    page.select_option("#diff-to", second)
    page.click("#diff-run")
    shown = diff_shown(page)
    assert (shown["added"], shown["removed"], len(shown["added_rows"])) == ("120", "0", 100)
    assert page.text_content("#diff-added-truncated") == "Showing 100 of 120 rows."
    # An error from the server is shown in place of the rows.
    page.evaluate("() => document.getElementById('diff-from').appendChild(new Option('gone', '7'))")
    page.select_option("#diff-from", "7")
    page.click("#diff-run")
    page.wait_for_selector("#diff-error:not([hidden])")
    assert page.text_content("#diff-error") == "Cannot find snapshot with ID 7 in table lakehouse.db.big"
    assert page.query_selector("#diff-summary") is None
