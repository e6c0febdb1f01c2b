"""floe's change feed on format-version 3 tables Spark 3.5 with Iceberg 1.10 wrote: row
lineage (`_row_id`, `_last_updated_sequence_number`) decides carry-over and updates.

Spark writes one workload twice, copy-on-write (whole files rewritten, the rows kept carry
their lineage physically) and merge-on-read (deletion vectors): appends with duplicate
identical rows, DELETE, UPDATE, MERGE, an UPDATE of two identical rows, a compaction and a
DELETE after it.

- The lineage oracle: for each snapshot, Spark's own reads of it and of its parent with the
  lineage columns give the changes: a row id only the parent has is a DELETE, one only the
  snapshot has an INSERT, one in both with a newer sequence number an UPDATE_BEFORE /
  UPDATE_AFTER pair, one with the same an untouched (or carried-over) row. floe's
  table_changes, `floe changes` and create_changelog_view with compute_updates => true and
  no identifier columns give exactly those rows on both tables.
- Spark's create_changelog_view of the copy-on-write table with compute_updates and
  identifier_columns ['id'] (over the ranges it can compute: the UPDATE of two identical rows
  makes it fail) equals floe's without identifier columns, on both tables.
- Net mode without identifier columns compares the states at two snapshots by row id, as
  Spark's reads of the two ends with their lineage say.
- Where lineage and values disagree: an UPDATE that writes a row's values again, and an
  INSERT OVERWRITE with the rows the table held (new row ids): Spark's view drops them as
  carry-over, floe reports them, as the lineage oracle says.
"""

import json
from collections import Counter

import pytest

from .test_changelog import COW, MOR

# tests/support, on sys.path through conftest.py.
from names import name_for_test  # noqa: E402

LINEAGE = "_row_id, _last_updated_sequence_number"

WORKLOAD = [
    "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (4, 'd')",
    "INSERT INTO {t} VALUES (5, 'e'), (6, 'f'), (6, 'f')",
    "DELETE FROM {t} WHERE id = 2",
    "UPDATE {t} SET data = 'cc' WHERE id = 3",
    "MERGE INTO {t} t USING (SELECT * FROM VALUES (1, 'aa', 'U'), (5, '', 'D'), (7, 'g', 'I') AS s(id, data, op)) s "
    "ON t.id = s.id WHEN MATCHED AND s.op = 'D' THEN DELETE WHEN MATCHED THEN UPDATE SET t.data = s.data "
    "WHEN NOT MATCHED THEN INSERT (id, data) VALUES (s.id, s.data)",
    "UPDATE {t} SET data = 'ff' WHERE id = 6",  # two identical rows, told apart by row id only
    "CALL lakehouse.system.rewrite_data_files(table => '{name}', options => map('rewrite-all', 'true'))",
    "DELETE FROM {t} WHERE id = 7",
    "UPDATE {t} SET data = 'ccc' WHERE id = 3",
]
DUPLICATE_UPDATE = 5  # the statement Spark's update images fail on


def write(spark, name: str, properties: str, workload: list[str]) -> list[int]:
    """Creates the v3 table and runs `workload`; the snapshot each statement left current."""
    t = f"lakehouse.{name}"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, data STRING) USING iceberg "
              f"TBLPROPERTIES ('format-version' = '3', {properties})")
    snapshots = []
    for statement in workload:
        spark.sql(statement.format(t=t, name=name)).collect()
        snapshots.append(spark.sql(f"SELECT snapshot_id FROM {t}.refs WHERE name = 'main'").first()[0])
    return snapshots


def lineage_rows(spark, name: str, snapshot_id: int | None) -> dict[int, tuple]:
    """A snapshot's rows by row id, as Spark reads them: (id, data, sequence number)."""
    if snapshot_id is None:
        return {}
    out = {}
    for r in spark.sql(f"SELECT id, data, {LINEAGE} FROM lakehouse.{name} VERSION AS OF {snapshot_id}").collect():
        assert r._row_id is not None and r._row_id not in out, (name, snapshot_id, r)
        out[r._row_id] = (r.id, r.data, r._last_updated_sequence_number)
    return out


def lineage_diff(before: dict[int, tuple], after: dict[int, tuple]) -> Counter:
    """The changes from one state to another by row id: (change type, id, data)."""
    out = Counter()
    for row_id, (i, d, seq) in before.items():
        if row_id not in after:
            out[("DELETE", i, d)] += 1
        elif after[row_id][2] != seq:
            out[("UPDATE_BEFORE", i, d)] += 1
            out[("UPDATE_AFTER", *after[row_id][:2])] += 1
    for row_id, (i, d, _) in after.items():
        if row_id not in before:
            out[("INSERT", i, d)] += 1
    return out


def lineage_changes(spark, name: str) -> Counter:
    """The changes of every snapshot but compactions, from Spark's reads with lineage:
    (ordinal, change type, id, data)."""
    snaps = spark.sql(f"SELECT snapshot_id, parent_id, operation FROM lakehouse.{name}.snapshots "
                      "ORDER BY committed_at").collect()
    out = Counter()
    ordinal = 0
    for s in snaps:
        if s.operation == "replace":
            continue
        changes = lineage_diff(lineage_rows(spark, name, s.parent_id), lineage_rows(spark, name, s.snapshot_id))
        out.update({(ordinal, *k): n for k, n in changes.items()})
        ordinal += 1
    return out


def feed(rows) -> Counter:
    return Counter((r["_change_ordinal"], r["_change_type"], r["id"], r["data"]) for r in rows if "_change_type" in r)


def spark_rows(spark, sql: str) -> Counter:
    return Counter((r._change_ordinal, r._change_type, r.id, r.data) for r in spark.sql(sql).collect())


def call(name: str, view: str, args: str) -> str:
    return (f"CALL lakehouse.system.create_changelog_view(table => '{name}', changelog_view => '{view}'"
            f"{', ' + args if args else ''})")


@pytest.fixture(scope="module")
def tables(spark, lakehouse, request):
    ns = name_for_test(request, prefix="c")
    spark.sql(f"CREATE NAMESPACE lakehouse.{ns}")
    cow, mor = f"{ns}.cow", f"{ns}.mor"
    out = {cow: write(spark, cow, COW, WORKLOAD), mor: write(spark, mor, MOR, WORKLOAD)}
    assert spark.sql(f"SELECT count(*) FROM lakehouse.{cow}.all_delete_files").first()[0] == 0
    formats = spark.sql(f"SELECT DISTINCT file_format FROM lakehouse.{mor}.all_delete_files").collect()
    assert [r.file_format for r in formats] == ["PUFFIN"], formats
    return out


def test_v3_feed_follows_row_lineage(spark, lakehouse, tables):
    floe = lakehouse
    expected = {}
    for name in tables:
        want = lineage_changes(spark, name)
        expected[name] = want
        # Carry-over never shows: only the rows each statement changed, the duplicate (4, 'd')
        # rows rewritten by every copy-on-write statement included.
        assert all(k[2] != 4 for k in want if k[0] > 0), (name, want)
        # The UPDATE of the two identical rows: two pairs, which lineage alone tells apart.
        assert want[(DUPLICATE_UPDATE, "UPDATE_BEFORE", 6, "f")] == 2, (name, want)
        # No identifier columns, no schema identifier fields: table_changes and the view pair
        # by row id on v3.
        got = floe.sql(
            f"SELECT * FROM table_changes('{name}', NULL, NULL)",
            call(name, "v3_updates", "compute_updates => true"),
            "SELECT * FROM v3_updates")
        assert feed(r for r in got if "_commit_timestamp" in r) == want, (name, sorted(want.items()))
        assert feed(r for r in got if "_commit_timestamp" not in r) == want, name
        # `floe changes` prints the same rows.
        proc = floe.cli("changes", name, "--json")
        assert (proc.returncode, proc.stderr) == (0, ""), proc
        assert feed(json.loads(line) for line in proc.stdout.splitlines() if line.strip()) == want, name
        # Without update images: each pair a DELETE and an INSERT, carry-over still gone.
        plain = Counter()
        for (o, kind, i, d), n in want.items():
            plain[(o, {"UPDATE_BEFORE": "DELETE", "UPDATE_AFTER": "INSERT"}.get(kind, kind), i, d)] += n
        got = floe.sql(f"SELECT * FROM table_changes('{name}', NULL, NULL, compute_updates => false)",
                       call(name, "v3_plain", ""), "SELECT * FROM v3_plain")
        assert feed(r for r in got if "_commit_timestamp" in r) == plain, name
        assert feed(r for r in got if "_commit_timestamp" not in r) == plain, name
    # The copy-on-write and merge-on-read twins changed alike.
    cow, mor = tables
    assert expected[cow] == expected[mor]


def range_options(s: list[int], first: int | None, last: int | None) -> str:
    """The view's options for the range (s[first], s[last]]; None: an open end."""
    o = []
    if first is not None:
        o.append(f"'start-snapshot-id', '{s[first]}'")
    if last is not None:
        o.append(f"'end-snapshot-id', '{s[last]}'")
    return f", options => map({', '.join(o)})"


def test_v3_feed_equals_spark_update_images(spark, lakehouse, tables):
    """Spark's view with update images by identifier column, over the ranges it computes, is
    floe's without identifier columns, on the copy-on-write table and its merge-on-read twin."""
    floe = lakehouse
    cow, mor = tables
    c, m = tables[cow], tables[mor]
    ranges = [(None, DUPLICATE_UPDATE - 1), (DUPLICATE_UPDATE, None), (1, 4)]
    keyed = "compute_updates => true, identifier_columns => array('id')"
    # Over the whole history Spark cannot pair the UPDATE of the two identical rows by key;
    # floe pairs them by row id before keys are looked at.
    with pytest.raises(Exception, match="Cannot compute updates because there are multiple rows with the same"):
        spark.sql(call(cow, "spark_all", keyed)).collect()
        spark.sql("SELECT * FROM spark_all").collect()
    for name in tables:
        got = feed(floe.sql(call(name, "floe_all", keyed), "SELECT * FROM floe_all"))
        assert got == lineage_changes(spark, name), name
    for first, last in ranges:
        spark.sql(call(cow, "spark_range", keyed + range_options(c, first, last))).collect()
        want = spark_rows(spark, "SELECT * FROM spark_range")
        assert any(k[1] == "UPDATE_AFTER" for k in want), (first, last, want)
        for name, s in ((cow, c), (mor, m)):
            got = feed(floe.sql(call(name, "floe_range", "compute_updates => true" + range_options(s, first, last)),
                                "SELECT * FROM floe_range"))
            assert got == want, (name, first, last, sorted(got.items()), sorted(want.items()))
            # With Spark's arguments, the same.
            got = feed(floe.sql(call(name, "floe_keyed", keyed + range_options(s, first, last)),
                                "SELECT * FROM floe_keyed"))
            assert got == want, (name, first, last)
    # Spark's default view (no update images) of the whole history is floe's: carry-over of
    # the duplicate rows cancels either way.
    spark.sql(call(cow, "spark_default", "")).collect()
    want = spark_rows(spark, "SELECT * FROM spark_default")
    for name in tables:
        assert feed(floe.sql(call(name, "floe_default", ""), "SELECT * FROM floe_default")) == want, name


def test_v3_net_changes_by_row_id(spark, lakehouse, tables):
    """Net mode without identifier columns compares the two states by row id: the rows the
    lineage of Spark's reads of the two ends says were removed, added and updated."""
    floe = lakehouse
    for name, s in tables.items():
        ranges = [(None, len(s) - 1), (0, 3), (1, DUPLICATE_UPDATE), (3, len(s) - 1), (DUPLICATE_UPDATE - 1, 6)]
        for a, b in ranges:
            before = lineage_rows(spark, name, None if a is None else s[a])
            want = lineage_diff(before, lineage_rows(spark, name, s[b]))
            start = "NULL" if a is None else s[a]
            got = floe.sql(f"SELECT * FROM table_changes('{name}', {start}, {s[b]}, mode => 'net')")
            assert Counter((r["_change_type"], r["id"], r["data"]) for r in got) == want, (name, a, b)
            assert all(r["_change_ordinal"] is None and r["_commit_snapshot_id"] == s[b] for r in got)
        # `floe changes --net`, no key: the same rows.
        proc = floe.cli("changes", name, "--from", str(s[1]), "--net", "--json")
        assert (proc.returncode, proc.stderr) == (0, ""), proc
        rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        want = lineage_diff(lineage_rows(spark, name, s[1]), lineage_rows(spark, name, s[-1]))
        assert Counter((r["_change_type"], r["id"], r["data"]) for r in rows) == want, name


# Lineage and values disagree: rows written again unchanged by an UPDATE (a newer sequence
# number) and rows deleted and inserted again with the same values (new row ids).
DISAGREE = [
    "INSERT INTO {t} VALUES (1, 'a'), (1, 'a'), (2, 'b')",
    "UPDATE {t} SET data = 'a' WHERE id = 1",
    "INSERT OVERWRITE {t} SELECT id, data FROM {t}",
    "DELETE FROM {t} WHERE id = 2",
]


def test_v3_feed_where_lineage_and_values_disagree(spark, lakehouse, ns):
    floe = lakehouse
    name = f"{ns}.disagree"
    s = write(spark, name, COW, DISAGREE)
    want = lineage_changes(spark, name)
    # The UPDATE rewrote both identical rows with a newer sequence number: two update pairs of
    # equal values. The INSERT OVERWRITE gave every row a new row id: three DELETEs and three
    # INSERTs of equal values. The DELETE carried the two (1, 'a') rows over.
    assert want == Counter({
        (0, "INSERT", 1, "a"): 2, (0, "INSERT", 2, "b"): 1,
        (1, "UPDATE_BEFORE", 1, "a"): 2, (1, "UPDATE_AFTER", 1, "a"): 2,
        (2, "DELETE", 1, "a"): 2, (2, "DELETE", 2, "b"): 1, (2, "INSERT", 1, "a"): 2, (2, "INSERT", 2, "b"): 1,
        (3, "DELETE", 2, "b"): 1,
    }), sorted(want.items())
    got = floe.sql(f"SELECT * FROM table_changes('{name}', NULL, NULL)")
    assert feed(got) == want, sorted(feed(got).items())
    # Net mode by row id: the rows the table held before the UPDATE are all gone, the
    # INSERT OVERWRITE's copies of (1, 'a') are new.
    got = floe.sql(f"SELECT * FROM table_changes('{name}', {s[0]}, NULL, mode => 'net')")
    assert Counter((r["_change_type"], r["id"], r["data"]) for r in got) == Counter(
        {("DELETE", 1, "a"): 2, ("DELETE", 2, "b"): 1, ("INSERT", 1, "a"): 2}), got
    # Spark matches values: both statements read as carry-over.
    spark.sql(call(name, "spark_disagree", "")).collect()
    theirs = spark_rows(spark, "SELECT * FROM spark_disagree")
    assert theirs == Counter({(0, "INSERT", 1, "a"): 2, (0, "INSERT", 2, "b"): 1, (3, "DELETE", 2, "b"): 1}), theirs
    # With identifier columns floe pairs by key what lineage left: the INSERT OVERWRITE's
    # rows of id 1 are two DELETEs of one key, which no update pairs.
    with pytest.raises(RuntimeError, match="Cannot compute updates because there are multiple rows"):
        floe.sql(f"SELECT * FROM table_changes('{name}', NULL, NULL, identifier_columns => array('id'))")
    got = floe.sql(f"SELECT * FROM table_changes('{name}', {s[2]}, NULL, identifier_columns => array('id'))")
    assert feed(got) == Counter({(0, "DELETE", 2, "b"): 1})
