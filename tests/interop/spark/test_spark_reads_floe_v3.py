"""Spark 3.5 with Iceberg 1.10 reads the format-version 3 tables floe writes, exactly: a table
floe creates at v3 (partitioned by day) and appends to twice, then overwrites whole; a v2 table
(partitioned by bucket) floe appends to twice, upgrades to v3, appends to and overwrites
partitions of dynamically. At every snapshot Spark's `VERSION AS OF` rows are the rows floe
wrote, and each row's `_row_id` and `_last_updated_sequence_number` as Spark reads them are
floe's; the row id ranges Java reads from floe's snapshots (first-row-id, added-rows) hold the
row ids that first appear there; the metadata tables agree, the files tables with the v3
columns; Spark sees format-version 3. Then Spark appends to each table (with row lineage, on
floe's next-row-id) and floe reads Spark's snapshot with Spark's rows and lineage."""

from .support import (
    as_floe_text,
    check_metadata_tables,
    check_v3_files_tables,
    make_rows,
    rows_of,
    spark_read,
    to_arrow,
)
from .test_floe_reads_spark import insert
from .test_floe_reads_spark_v3 import LINEAGE_COLUMNS, format_version
from .test_v3_lifecycle import floe_snapshots

SQL_COLUMNS = ("id BIGINT, customer STRING, amount DECIMAL(10,2), score DOUBLE, ts TIMESTAMP, "
               "local_ts TIMESTAMP_NTZ, day DATE")
OTHER_COLUMNS = "customer, amount, score, ts, local_ts, day"


def spark_lineage_reads(spark, table: str, snapshot_ids: list) -> dict:
    """Each snapshot as Spark reads it `VERSION AS OF` its id (the table's current one for
    None) with the lineage columns, in one Spark query: the rows alone, as sorted plain dicts,
    and the rows with their lineage as floe's JSON output writes values, by id."""
    query = " UNION ALL ".join(
        f"SELECT {i} AS _at, *, {LINEAGE_COLUMNS} FROM lakehouse.{table}"
        + ("" if snapshot_id is None else f" VERSION AS OF {snapshot_id}")
        for i, snapshot_id in enumerate(snapshot_ids))
    collected = {snapshot_id: [] for snapshot_id in snapshot_ids}
    for r in spark.sql(query).collect():
        r = r.asDict()
        collected[snapshot_ids[r.pop("_at")]].append(r)
    out = {}
    for snapshot_id, rows in collected.items():
        data = rows_of([{k: v for k, v in r.items() if not k.startswith("_")} for r in rows])
        with_lineage = sorted(({k: as_floe_text(v) for k, v in r.items()} for r in rows), key=lambda r: r["id"])
        out[snapshot_id] = data, with_lineage
    return out


def java_snapshots(spark, table: str) -> tuple[dict[int, tuple], int, int]:
    """What Iceberg's Java library reads from the table's metadata: each snapshot's
    (sequence number, first-row-id, added-rows), the table's next-row-id and format version."""
    jvm = spark._jvm
    t = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, f"lakehouse.{table}")
    t.refresh()
    metadata = t.operations().current()
    snaps = {s.snapshotId(): (s.sequenceNumber(), s.firstRowId(), s.addedRows()) for s in t.snapshots()}
    return snaps, metadata.nextRowId(), metadata.formatVersion()


def check_spark_reads_every_snapshot(spark, floe, table: str, expected: list[list[dict]],
                                     operations: list[str], v2_snapshots: int = 0) -> None:
    """Spark's snapshots are floe's (check_metadata_tables, check_v3_files_tables); at each,
    Spark reads the rows written (`expected`, one list per snapshot) and floe reads Spark's
    rows with Spark's _row_id and _last_updated_sequence_number; Java's row id ranges hold the
    row ids first seen at each snapshot, and a row keeps its lineage from snapshot to snapshot."""
    ours = check_metadata_tables(spark, floe, table)
    check_v3_files_tables(spark, floe, table)
    ids = [s["snapshot-id"] for s in ours]
    assert [s["operation"] for s in ours] == operations, f"{table}: {ours}"
    assert len(ids) == len(expected)

    floe_rows = floe_snapshots(floe, table, ids)
    spark_rows = spark_lineage_reads(spark, table, [*ids, None])
    java, next_row_id, version = java_snapshots(spark, table)
    assert version == 3, f"{table}: Java reads format version {version}"
    seen_row_ids, born, previous = set(), {}, {}
    for i, (snapshot_id, want) in enumerate(zip(ids, expected)):
        where = f"{table} VERSION AS OF {snapshot_id} ({operations[i]})"
        data, lineage = spark_rows[snapshot_id]
        assert data == rows_of(want), f"{where}: Spark's rows are not the rows written"
        assert floe_rows[snapshot_id] == lineage, f"{where}: floe's rows and lineage, Spark's differ"

        sequence_number, first_row_id, added_rows = java[snapshot_id]
        for r in lineage:
            born.setdefault(r["id"], sequence_number)
        if i < v2_snapshots:
            # A v2 snapshot: no row id range, no lineage.
            assert (first_row_id, added_rows) == (None, None), f"{where}: Java reads {java[snapshot_id]}"
            assert all(r["_row_id"] is None and r["_last_updated_sequence_number"] is None for r in lineage), where
            previous = {}
            continue
        row_ids = [r["_row_id"] for r in lineage]
        assert None not in row_ids and len(set(row_ids)) == len(row_ids), f"{where}: row ids {row_ids}"
        # Ids first seen here come from this snapshot's range (an append's rows take all of it).
        new = set(row_ids) - seen_row_ids
        assert new <= set(range(first_row_id, first_row_id + added_rows)), (
            f"{where}: new row ids {sorted(new)} outside Java's range {first_row_id} + {added_rows}")
        if operations[i] == "append":
            assert new == set(range(first_row_id, first_row_id + added_rows)), (
                f"{where}: an append's rows take exactly its range: {sorted(new)}, {first_row_id} + {added_rows}")
        seen_row_ids |= new
        for r in lineage:
            if r["id"] in previous:  # a row kept: its lineage too
                assert r == previous[r["id"]], f"{where}: {r}, before {previous[r['id']]}"
            else:  # a row written here, or (first v3 snapshot) by the snapshot that added it
                assert r["_row_id"] in new and r["_last_updated_sequence_number"] == born[r["id"]], (
                    f"{where}: {r}, first read at sequence number {born[r['id']]}")
        previous = {r["id"]: r for r in lineage}
    v3 = [java[s] for s in ids[v2_snapshots:]]
    for (_, first, added), (_, following, _) in zip(v3, v3[1:]):
        assert first + added == following, f"{table}: row id ranges {v3}"
    assert next_row_id == v3[-1][1] + v3[-1][2], f"{table}: next-row-id {next_row_id}, ranges {v3}"
    current, _ = spark_rows[None]
    assert current == rows_of(floe.read(table)) == rows_of(expected[-1]), f"{table}: the current rows"


def java_buckets(spark, ids: list[int]) -> dict[int, int]:
    """bucket(4, id) of each id by Iceberg's own (Java) transform."""
    values = ", ".join(f"(CAST({i} AS BIGINT))" for i in ids)
    rows = spark.sql(f"SELECT id, lakehouse.system.bucket(4, id) AS b FROM VALUES {values} AS t(id)").collect()
    return {r.id: r.b for r in rows}


def check_spark_sees_v3(spark, table: str) -> None:
    assert format_version(spark, table) == "3"
    described = {r.col_name: r.data_type for r in spark.sql(f"DESCRIBE TABLE EXTENDED lakehouse.{table}").collect()}
    properties = described["Table Properties"].strip("[]").split(",")
    assert "format-version=3" in properties, described["Table Properties"]


def test_spark_reads_table_floe_created_at_v3(spark, lakehouse, ns):
    floe, table = lakehouse, f"{ns}.created_v3"
    floe.sql(f"CREATE TABLE lakehouse.{table} ({SQL_COLUMNS}) USING iceberg PARTITIONED BY (day) "
             "TBLPROPERTIES ('format-version'='3')")
    first, second = make_rows(1, 12), make_rows(13, 9)
    floe.append(table, to_arrow(first))
    floe.append(table, to_arrow(second))
    floe.sql(f"INSERT OVERWRITE lakehouse.{table} SELECT id + 1000, {OTHER_COLUMNS} FROM lakehouse.{table} "
             "WHERE id % 3 = 0")
    overwritten = [r | {"id": r["id"] + 1000} for r in first + second if r["id"] % 3 == 0]

    # Spark appends to floe's table, on the next-row-id floe left.
    spark_rows = make_rows(100, 5)
    insert(spark, table, spark_rows)

    check_spark_sees_v3(spark, table)
    expected = [first, first + second, overwritten, overwritten + spark_rows]
    check_spark_reads_every_snapshot(spark, floe, table, expected, ["append", "append", "overwrite", "append"])


def test_spark_reads_table_floe_upgraded_to_v3(spark, lakehouse, ns):
    floe, table = lakehouse, f"{ns}.upgraded_v3"
    first, second, third = make_rows(1, 14), make_rows(15, 8), make_rows(23, 6)
    floe.create(table, to_arrow(first), "bucket(4,id)")
    floe.append(table, to_arrow(first))
    floe.append(table, to_arrow(second))
    assert format_version(spark, table) == "2"
    floe.sql(f"ALTER TABLE lakehouse.{table} SET TBLPROPERTIES ('format-version'='3')")
    floe.append(table, to_arrow(third))
    # A dynamic overwrite: the buckets the new rows fall in are replaced, the others kept.
    floe.sql("SET spark.sql.sources.partitionOverwriteMode = dynamic",
             f"INSERT OVERWRITE lakehouse.{table} SELECT id + 1000, {OTHER_COLUMNS} FROM lakehouse.{table} "
             "WHERE id IN (5, 26)")
    before = first + second + third
    replacement = [r | {"id": r["id"] + 1000} for r in before if r["id"] in (5, 26)]
    bucket = java_buckets(spark, [r["id"] for r in before + replacement])
    replaced = {bucket[r["id"]] for r in replacement}
    kept = [r for r in before if bucket[r["id"]] not in replaced]
    assert 0 < len(kept) < len(before), "the overwrite should replace some buckets and keep others"

    spark_rows = make_rows(200, 5)
    insert(spark, table, spark_rows)

    check_spark_sees_v3(spark, table)
    expected = [first, first + second, before, kept + replacement, kept + replacement + spark_rows]
    operations = ["append", "append", "append", "overwrite", "append"]
    check_spark_reads_every_snapshot(spark, floe, table, expected, operations, v2_snapshots=2)


# What Iceberg counts in a row delta's summary; floe's and Spark's must be equal.
DELETE_SUMMARY_KEYS = (
    "added-dvs", "removed-dvs", "added-delete-files", "removed-delete-files", "added-position-delete-files",
    "removed-position-delete-files", "added-position-deletes", "removed-position-deletes", "added-files-size",
    "removed-files-size", "changed-partition-count", "total-delete-files", "total-position-deletes",
    "total-records", "total-data-files", "total-files-size")


def check_summaries_alike(spark, ours: str, theirs: str) -> None:
    """Snapshot by snapshot, the operation and DELETE_SUMMARY_KEYS of both tables are equal."""
    a, b = delete_summaries(spark, ours), delete_summaries(spark, theirs)
    assert len(a) == len(b), f"{ours}: {a}, {theirs}: {b}"
    for i, (x, y) in enumerate(zip(a, b)):
        assert x == y, f"snapshot {i}: {ours}: {x}, {theirs}: {y}"


def delete_summaries(spark, table: str) -> list[tuple]:
    """Each snapshot's operation and the counts of DELETE_SUMMARY_KEYS, oldest first."""
    rows = spark.sql(f"SELECT operation, summary FROM lakehouse.{table}.snapshots ORDER BY committed_at").collect()
    return [(r.operation, {k: r.summary.get(k) for k in DELETE_SUMMARY_KEYS}) for r in rows]


def test_spark_reads_floe_deletion_vectors(spark, lakehouse, ns):
    """Twin v3 merge-on-read tables floe writes alike: floe deletes rows of one, Spark the same
    rows of the other, twice (the second delete merging each file's vector); then each engine
    deletes from the other's table, merging the other's vectors. Spark reads floe's deletion
    vectors at every snapshot with the rows and lineage written, and the snapshots' counts
    (DVs added and removed, delete files, positions, blob bytes) are Spark's own."""
    floe = lakehouse
    # Names of one length: the position delete files name data files, so their sizes follow.
    ours, theirs = f"{ns}.dvs_a", f"{ns}.dvs_b"
    first, second = make_rows(1, 16), make_rows(17, 12)
    for table in (ours, theirs):
        floe.sql(f"CREATE TABLE lakehouse.{table} ({SQL_COLUMNS}) USING iceberg PARTITIONED BY (day) "
                 "TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read')")
        floe.append(table, to_arrow(first))
        floe.append(table, to_arrow(second))
    conditions = ["id % 4 = 0", "id % 3 = 0 OR id = 5"]
    for condition in conditions:
        floe.sql(f"DELETE FROM lakehouse.{ours} WHERE {condition}")
        spark.sql(f"DELETE FROM lakehouse.{theirs} WHERE {condition}")
    check_summaries_alike(spark, ours, theirs)
    # Each engine merges the other's vectors.
    spark.sql(f"DELETE FROM lakehouse.{ours} WHERE id IN (7, 26)")
    floe.sql(f"DELETE FROM lakehouse.{theirs} WHERE id IN (7, 26)")
    check_summaries_alike(spark, ours, theirs)

    every = first + second
    expected = [first, every]
    gone = set()
    for condition in [lambda i: i % 4 == 0, lambda i: i % 3 == 0 or i == 5, lambda i: i in (7, 26)]:
        gone |= {r["id"] for r in every if condition(r["id"])}
        expected.append([r for r in every if r["id"] not in gone])
    operations = ["append", "append", "delete", "delete", "delete"]
    for table in (ours, theirs):
        check_spark_reads_every_snapshot(spark, floe, table, expected, operations)
        files = spark.sql(f"SELECT file_format, referenced_data_file FROM lakehouse.{table}.delete_files").collect()
        assert {f.file_format for f in files} == {"PUFFIN"}, f"{table}: {files}"
        referenced = [f.referenced_data_file for f in files]
        assert len(referenced) == len(set(referenced)), f"{table}: one vector per data file: {referenced}"


def test_spark_reads_floe_vectors_on_an_upgraded_table(spark, lakehouse, ns):
    """A v2 merge-on-read table with floe's position delete files, upgraded: floe's first
    deletion vector for each data file holds its earlier deletes too, and the position delete
    files that named only that file are removed, as Spark does on its twin."""
    floe = lakehouse
    ours, theirs = f"{ns}.upgraded_a", f"{ns}.upgraded_b"  # of one length, as above
    rows = make_rows(1, 20)
    for table in (ours, theirs):
        floe.sql(f"CREATE TABLE lakehouse.{table} ({SQL_COLUMNS}) USING iceberg "
                 "TBLPROPERTIES ('write.delete.mode'='merge-on-read')")
        floe.append(table, to_arrow(rows[:10]))
        floe.append(table, to_arrow(rows[10:]))
        floe.sql(f"DELETE FROM lakehouse.{table} WHERE id IN (2, 3)")
        floe.sql(f"ALTER TABLE lakehouse.{table} SET TBLPROPERTIES ('format-version'='3')")
    floe.sql(f"DELETE FROM lakehouse.{ours} WHERE id IN (4, 15)")
    spark.sql(f"DELETE FROM lakehouse.{theirs} WHERE id IN (4, 15)")
    check_summaries_alike(spark, ours, theirs)
    for table in (ours, theirs):
        files = spark.sql(f"SELECT file_format, record_count FROM lakehouse.{table}.delete_files "
                          "ORDER BY record_count").collect()
        assert [(f.file_format, f.record_count) for f in files] == [("PUFFIN", 1), ("PUFFIN", 3)], f"{table}: {files}"
        assert spark_read(spark, table) == rows_of([r for r in rows if r["id"] not in (2, 3, 4, 15)])
        assert rows_of(floe.read(table)) == spark_read(spark, table)
