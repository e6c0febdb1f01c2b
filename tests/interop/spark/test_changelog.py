"""create_changelog_view against Spark's own: Spark writes a copy-on-write table through
appends with duplicate rows, DELETE, UPDATE, MERGE, a compaction, INSERT OVERWRITE, a
whole-file delete and an UPDATE of duplicate keys; for each set of arguments floe's view holds
exactly the rows of Spark's view (as multisets), and fails where Spark's fails, with its text.
So does a partitioned table through static and dynamic INSERT OVERWRITE, a whole-partition
delete, added, renamed and dropped columns and NULL keys.
Then the same workload on a merge-on-read twin, which Spark's changelog refuses: floe's view
of it equals Spark's view of the copy-on-write table, snapshot ids aside. table_changes, on both
tables as Spark wrote them, replays: the state at `from` (Spark reading it) plus its rows is the
state at `to`, per snapshot, over long ranges and across a rollback; its net mode is the
difference of the two states; with TIMESTAMP points on commit times it equals Spark's view of
the same start-timestamp and end-timestamp."""

from collections import Counter

import pytest

COW = ("'write.delete.mode' = 'copy-on-write', 'write.update.mode' = 'copy-on-write', "
       "'write.merge.mode' = 'copy-on-write'")
MOR = COW.replace("copy-on-write", "merge-on-read")

WORKLOAD = [
    "INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    "INSERT INTO {t} VALUES (4, 'd'), (5, 'x'), (5, 'x')",
    "DELETE FROM {t} WHERE id = 2",
    "UPDATE {t} SET data = 'cc' WHERE id = 3",
    "MERGE INTO {t} t USING (SELECT * FROM VALUES (1, 'aa', 'U'), (4, '', 'D'), (6, 'f', 'I') AS s(id, data, op)) s "
    "ON t.id = s.id WHEN MATCHED AND s.op = 'D' THEN DELETE WHEN MATCHED THEN UPDATE SET t.data = s.data "
    "WHEN NOT MATCHED THEN INSERT (id, data) VALUES (s.id, s.data)",
    "CALL lakehouse.system.rewrite_data_files(table => '{name}', options => map('rewrite-all', 'true'))",
    "INSERT OVERWRITE {t} VALUES (1, 'aa'), (3, 'cc'), (5, 'x'), (7, 'g')",
    "INSERT INTO {t} VALUES (9, 'i')",
    "DELETE FROM {t} WHERE id = 9",
    "INSERT INTO {t} VALUES (8, 'h'), (8, 'h')",
    "UPDATE {t} SET data = 'hh' WHERE id = 8",
]


def write(spark, name: str, properties: str) -> list[int]:
    """Runs the workload in Spark; the snapshot each statement left current."""
    t = f"lakehouse.{name}"
    spark.sql(f"CREATE TABLE {t} (id INT NOT NULL, data STRING) USING iceberg TBLPROPERTIES ({properties})")
    snapshots = []
    for statement in WORKLOAD:
        spark.sql(statement.format(t=t, name=name)).collect()
        snapshots.append(spark.sql(f"SELECT snapshot_id FROM {t}.refs WHERE name = 'main'").first()[0])
    return snapshots


def call_text(name: str, view: str, args: str) -> str:
    return (f"CALL lakehouse.system.create_changelog_view(table => '{name}', changelog_view => '{view}'"
            f"{', ' + args if args else ''})")


def spark_view(spark, name: str, view: str, args: str):
    spark.sql(call_text(name, view, args)).collect()
    return Counter(tuple(r) for r in spark.sql(f"SELECT * FROM {view}").collect())


def floe_view(floe, name: str, view: str, args: str):
    rows = floe.sql(call_text(name, view, args), f"SELECT * FROM {view}")
    return Counter((r["id"], r["data"], r["_change_type"], r["_change_ordinal"], r["_commit_snapshot_id"])
                   for r in rows if "_change_type" in r)


def arguments(s: list[int]) -> list[str]:
    """The argument matrix: defaults, update images, net changes, ranges by id and time."""
    return [
        "",
        f"options => map('end-snapshot-id', '{s[7]}')",
        f"identifier_columns => array('id'), options => map('end-snapshot-id', '{s[7]}')",
        f"compute_updates => true, identifier_columns => array('id'), options => map('start-snapshot-id', '{s[0]}', "
        f"'end-snapshot-id', '{s[6]}')",
        "net_changes => true",
        f"net_changes => true, options => map('start-snapshot-id', '{s[4]}')",
        f"net_changes => true, identifier_columns => array('id'), compute_updates => false, "
        f"options => map('end-snapshot-id', '{s[7]}')",
        f"options => map('start-snapshot-id', '{s[1]}', 'end-snapshot-id', '{s[4]}')",
        f"options => map('start-snapshot-id', '{s[3]}', 'end-snapshot-id', '{s[4]}')",
        f"options => map('START-SNAPSHOT-ID', '{s[7]}')",
    ]


def test_floe_changelog_views_equal_sparks(spark, lakehouse, ns):
    floe, name = lakehouse, f"{ns}.c"
    s = write(spark, name, COW)
    # Timestamps exactly on a snapshot's commit time: the start excludes it, the end includes it.
    ms = {r[0]: r[1] for r in spark.sql(f"SELECT snapshot_id, unix_millis(committed_at) FROM lakehouse.{name}.snapshots")
          .collect()}
    on_bounds = [f"options => map('start-timestamp', '{ms[s[2]]}', 'end-timestamp', '{ms[s[6]]}')",
                 f"identifier_columns => array('id'), options => map('start-timestamp', '{ms[s[0]]}', "
                 f"'end-timestamp', '{ms[s[4]]}')"]
    for i, args in enumerate(arguments(s) + on_bounds):
        want = spark_view(spark, name, f"sv{i}", args)
        assert want, args  # every case of the matrix has rows
        assert floe_view(floe, name, f"fv{i}", args) == want, args
    # table_changes with TIMESTAMP points on the same bounds gives the same rows.
    for start, end, ids in [(s[2], s[6], ""), (s[0], s[4], ", identifier_columns => array('id')")]:
        want = spark_view(spark, name, "bounds", on_bounds[0 if not ids else 1])
        got = Counter((r["id"], r["data"], r["_change_type"], r["_change_ordinal"], r["_commit_snapshot_id"])
                      for r in changes(floe, name, f"timestamp_millis({ms[start]}), timestamp_millis({ms[end]}){ids}"))
        assert got == want, (start, end)


def spark_error(spark, name: str, args: str) -> str:
    with pytest.raises(Exception) as failure:
        spark.sql(call_text(name, "bad", args)).collect()
        spark.sql("SELECT * FROM bad").collect()
    return str(failure.value)


def floe_error(floe, name: str, args: str) -> str:
    with pytest.raises(RuntimeError) as failure:
        floe.sql(call_text(name, "bad", args), "SELECT * FROM bad")
    return str(failure.value)


def test_floe_fails_where_spark_fails(spark, lakehouse, ns):
    floe, name = lakehouse, f"{ns}.c"
    s = write(spark, name, COW)
    for args, text in [
        ("compute_updates => true, identifier_columns => array('id')",
         "Cannot compute updates because there are multiple rows with the same identifier "
         "fields([id,_change_ordinal]). Please make sure the rows are unique."),
        ("net_changes => true, identifier_columns => array('id')", "Not support net changes with update images"),
        ("compute_updates => true", "Cannot compute the update images because identifier columns are not set"),
        (f"options => map('start-snapshot-id', '{s[5]}', 'end-snapshot-id', '{s[5]}')",
         f"Starting snapshot (exclusive) {s[5]} is not a parent ancestor of end snapshot {s[5]}"),
        ("options => map('end-snapshot-id', '1')", "Cannot find the end snapshot: 1"),
        ("options => map('start-snapshot-id', '1', 'start-timestamp', '2')",
         "Cannot set both start-snapshot-id and start-timestamp for changelogs"),
        ("options => map('start-timestamp', '5', 'end-timestamp', '5')",
         "Cannot set start-timestamp to be greater than end-timestamp for changelogs"),
        ("options => map('tag', 'x')", "Cannot set neither snapshot-id, as-of-timestamp, branch and tag for changelogs"),
    ]:
        assert text in spark_error(spark, name, args), args
        assert text in floe_error(floe, name, args), args


def test_merge_on_read_feed_equals_sparks_copy_on_write_feed(spark, lakehouse, ns):
    floe = lakehouse
    cow = write(spark, f"{ns}.cow", COW)
    mor = write(spark, f"{ns}.mor", MOR)
    assert floe.sql(f"SELECT count(*) AS n FROM {ns}.mor.all_delete_files")[0]["n"] > 0
    with pytest.raises(Exception, match="Delete files are currently not supported in changelog scans"):
        spark_view(spark, f"{ns}.mor", "smor", "")

    def anonymous(rows, snapshots):
        """Snapshot ids as the statement that made them."""
        return Counter({(r[0], r[1], r[2], r[3], snapshots.index(r[4])): n for r, n in rows.items()})

    for i, args in enumerate(["", "identifier_columns => array('id'), options => map('end-snapshot-id', '{e}')",
                              "net_changes => true"]):
        want = anonymous(spark_view(spark, f"{ns}.cow", f"cv{i}", args.format(e=cow[7])), cow)
        got = anonymous(floe_view(floe, f"{ns}.mor", f"mv{i}", args.format(e=mor[7])), mor)
        assert got == want, args


def state(spark, table: str, snapshot: int | None) -> Counter:
    """The table's rows at a snapshot (empty before the first), as Spark reads them."""
    if snapshot is None:
        return Counter()
    return Counter(tuple(r) for r in spark.sql(f"SELECT id, data FROM {table} VERSION AS OF {snapshot}").collect())


def changes(floe, name: str, args: str) -> list[dict]:
    return [r for r in floe.sql(f"SELECT * FROM table_changes('{name}', {args})") if "_change_type" in r]


def replayed(before: Counter, rows: list[dict]) -> Counter:
    after = Counter(before)
    for r in rows:
        row = (r["id"], r["data"])
        if r["_change_type"] in ("DELETE", "UPDATE_BEFORE"):
            assert after[row] > 0, r
            after[row] -= 1
        else:
            after[row] += 1
    return +after


@pytest.mark.parametrize("mode", ["cow", "mor"])
def test_table_changes_replay_spark_written_tables(spark, lakehouse, ns, mode):
    """On tables Spark wrote (copy-on-write, and merge-on-read with position deletes): the state
    at `from` plus table_changes equals the state at `to`, Spark reading both states, for every
    snapshot, for long ranges and across a rollback; net mode is the difference of the two
    states; and on copy-on-write every row equals Spark's changelog."""
    floe, name = lakehouse, f"{ns}.{mode}"
    t = f"lakehouse.{name}"
    s = write(spark, name, COW if mode == "cow" else MOR)
    points = [None] + s
    for i in range(1, len(points)):
        rows = changes(floe, name, f"{points[i - 1] or 'NULL'}, {points[i]}")
        assert {r["_commit_snapshot_id"] for r in rows} <= {points[i]}
        assert replayed(state(spark, t, points[i - 1]), rows) == state(spark, t, points[i]), i
    for a, b in [(None, s[-1]), (s[1], s[8]), (s[3], s[4])]:
        frm = "NULL" if a is None else a
        assert replayed(state(spark, t, a), changes(floe, name, f"{frm}, {b}")) == state(spark, t, b)
        net = changes(floe, name, f"{frm}, {b}, mode => 'net'")
        before, after = state(spark, t, a), state(spark, t, b)
        assert Counter((r["id"], r["data"]) for r in net if r["_change_type"] == "INSERT") == after - before
        assert Counter((r["id"], r["data"]) for r in net if r["_change_type"] == "DELETE") == before - after
        assert {(r["_change_ordinal"], r["_commit_snapshot_id"]) for r in net} <= {(None, b)}
    if mode == "cow":
        want = spark_view(spark, name, "everything", "")
        got = Counter((r["id"], r["data"], r["_change_type"], r["_change_ordinal"], r["_commit_snapshot_id"])
                      for r in changes(floe, name, "NULL, NULL"))
        assert got == want
    # Across Spark's rollback: from the newest snapshot to the current state, which is older.
    spark.sql(f"CALL lakehouse.system.rollback_to_snapshot('{name}', {s[4]})").collect()
    rows = changes(floe, name, f"{s[-1]}, NULL, identifier_columns => array('data')")
    assert all(r["_change_ordinal"] is None for r in rows)
    assert replayed(state(spark, t, s[-1]), rows) == state(spark, t, s[4])


# A partitioned table whose schema changes within the range: static and dynamic INSERT
# OVERWRITE, a DELETE that drops a whole partition, columns added, renamed and dropped, and
# NULL keys, one of them updated.
EVOLVING = [
    "INSERT INTO {t} VALUES (1, 'a', 'p1'), (2, 'b', 'p1'), (3, 'c', 'p2'), (NULL, 'n', 'p2'), (4, 'd', 'p3')",
    "INSERT OVERWRITE {t} PARTITION (part = 'p1') VALUES (1, 'a'), (5, 'e')",
    "dynamic: INSERT OVERWRITE {t} VALUES (3, 'cc', 'p2'), (6, 'f', 'p4')",
    "DELETE FROM {t} WHERE part = 'p3'",
    "ALTER TABLE {t} ADD COLUMN extra STRING",
    "INSERT INTO {t} VALUES (7, 'g', 'p1', 'x')",
    "UPDATE {t} SET extra = 'y' WHERE id = 7",
    "ALTER TABLE {t} RENAME COLUMN data TO label",
    "UPDATE {t} SET label = 'E' WHERE id = 5",
    "ALTER TABLE {t} DROP COLUMN extra",
    "INSERT INTO {t} VALUES (NULL, 'm', 'p4'), (8, 'h', 'p4')",
    "UPDATE {t} SET label = 'M' WHERE id IS NULL",
]


def write_evolving(spark, name: str) -> list[int]:
    """Runs EVOLVING in Spark; the snapshot each statement that writes left current."""
    t = f"lakehouse.{name}"
    spark.sql(f"CREATE TABLE {t} (id INT, data STRING, part STRING) USING iceberg PARTITIONED BY (part) "
              f"TBLPROPERTIES ({COW})")
    snapshots = []
    for statement in EVOLVING:
        dynamic = statement.startswith("dynamic: ")
        if dynamic:
            statement = statement.removeprefix("dynamic: ")
            spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        try:
            spark.sql(statement.format(t=t)).collect()
        finally:
            if dynamic:
                spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
        if not statement.startswith("ALTER"):
            snapshots.append(spark.sql(f"SELECT snapshot_id FROM {t}.refs WHERE name = 'main'").first()[0])
    return snapshots


def test_changelog_over_partitions_and_schema_changes_equals_sparks(spark, lakehouse, ns):
    floe, name = lakehouse, f"{ns}.evolving"
    s = write_evolving(spark, name)
    assert len(set(s)) == 9
    operations = {r[0]: r[1] for r in spark.sql(f"SELECT snapshot_id, operation FROM lakehouse.{name}.snapshots").collect()}
    assert [operations[i] for i in s[1:4]] == ["overwrite", "overwrite", "delete"]
    columns = ["id", "label", "part", "_change_type", "_change_ordinal", "_commit_snapshot_id"]
    for i, args in enumerate([
        "",
        "identifier_columns => array('id')",
        "net_changes => true",
        f"options => map('start-snapshot-id', '{s[3]}')",
        f"identifier_columns => array('id'), options => map('start-snapshot-id', '{s[1]}', 'end-snapshot-id', '{s[6]}')",
        f"net_changes => true, options => map('start-snapshot-id', '{s[2]}', 'end-snapshot-id', '{s[7]}')",
    ]):
        spark.sql(call_text(name, f"ev{i}", args)).collect()
        view = spark.sql(f"SELECT * FROM ev{i}")
        assert view.columns == columns, args
        want = Counter(tuple(r) for r in view.collect())
        assert want, args
        rows = floe.sql(call_text(name, f"fev{i}", args), f"SELECT * FROM fev{i}")
        got = Counter(tuple(r[c] for c in columns) for r in rows if "_change_type" in r)
        assert got == want, args
