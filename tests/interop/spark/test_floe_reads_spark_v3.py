"""floe reads every snapshot of format-version 3 tables Spark 3.5 with Iceberg 1.10 wrote:
merge-on-read DELETE, UPDATE and MERGE INTO as deletion vectors in Puffin files (a second
delete of a data file's rows merges its vector into a new one), compaction, columns added with
an initial default, and a v2 table with position delete files upgraded to v3 and written on.
At every snapshot floe's rows are Spark's `VERSION AS OF` rows, and so are the row lineage
columns `_row_id` and `_last_updated_sequence_number`; the metadata tables agree, the files
tables with the columns v3 adds."""

import datetime as dt

from .support import (
    SPARK_DDL,
    check_metadata_tables,
    check_v3_files_tables,
    make_rows,
    partition_of,
    rows_of,
    to_spark,
)
from .test_floe_reads_spark import insert

MERGE_ON_READ = ("'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read', "
                 "'write.merge.mode' = 'merge-on-read'")
LINEAGE_COLUMNS = "_row_id, _last_updated_sequence_number"


def create(spark, table: str, columns: str, format_version: int, partitioning: str = "") -> None:
    spark.sql(
        f"CREATE TABLE lakehouse.{table} ({columns}) USING iceberg{partitioning} "
        f"TBLPROPERTIES ('format-version' = '{format_version}', {MERGE_ON_READ})"
    )


def format_version(spark, table: str) -> str:
    props = {r.key: r.value for r in spark.sql(f"SHOW TBLPROPERTIES lakehouse.{table}").collect()}
    return props["format-version"]


class SparkSnapshot:
    """One snapshot as Spark reads it (`VERSION AS OF`): its columns, its rows, and each row's
    (id, _row_id, _last_updated_sequence_number), sorted."""

    def __init__(self, spark, table: str, snapshot_id: int, operation: str, summary: dict):
        self.snapshot_id, self.operation, self.summary = snapshot_id, operation, summary
        df = spark.sql(f"SELECT *, {LINEAGE_COLUMNS} FROM lakehouse.{table} VERSION AS OF {snapshot_id}")
        self.columns = df.columns[:-2]
        collected = df.collect()
        self.rows = rows_of([{c: r[c] for c in self.columns} for r in collected])
        self.lineage = sorted(((r.id, r._row_id, r._last_updated_sequence_number) for r in collected), key=repr)


def spark_snapshots(spark, table: str) -> list[SparkSnapshot]:
    """Every snapshot of the table, oldest first, as Spark reads it: one Spark query each,
    for the test's own checks of what Spark wrote and for floe's to compare with."""
    snaps = spark.sql(f"SELECT snapshot_id, operation, summary FROM lakehouse.{table}.snapshots").collect()
    return [SparkSnapshot(spark, table, s.snapshot_id, s.operation, dict(s.summary)) for s in snaps]


def floe_lineage(floe, table: str, snapshot_id: int) -> list[tuple]:
    rows = floe.sql(f"SELECT id, {LINEAGE_COLUMNS} FROM {floe.catalog_name}.{table} VERSION AS OF {snapshot_id}")
    return sorted(((r["id"], r["_row_id"], r["_last_updated_sequence_number"]) for r in rows), key=repr)


def added_dvs(spark, table: str) -> list:
    """The deletion vectors each snapshot added, as the all_entries metadata table lists them."""
    return spark.sql(
        f"SELECT e.snapshot_id, e.sequence_number, e.data_file.file_format AS file_format, "
        f"e.data_file.referenced_data_file AS data_file, e.data_file.record_count AS deleted "
        f"FROM lakehouse.{table}.all_entries e WHERE e.status = 1 AND e.data_file.content = 1"
    ).collect()


def check_floe_reads_every_v3_snapshot(spark, floe, table: str, theirs: list[SparkSnapshot]) -> None:
    """At every snapshot floe reads Spark's columns and rows, and Spark's row lineage per row
    (`theirs`, the snapshots as Spark read them); the metadata tables agree (the files tables
    with the v3 columns); a count(*) counts the rows the deletion vectors leave."""
    ours = check_metadata_tables(spark, floe, table)
    check_v3_files_tables(spark, floe, table)
    assert [s["snapshot-id"] for s in ours] == [s.snapshot_id for s in theirs], f"{table}: snapshots"
    for s in theirs:
        where = f"{table} at snapshot {s.snapshot_id} ({s.operation})"
        got = floe.read(table, s.snapshot_id)
        assert got.column_names == s.columns, f"{where}: floe's columns {got.column_names}, Spark's {s.columns}"
        assert rows_of(got) == s.rows, f"{where}: rows"
        assert floe_lineage(floe, table, s.snapshot_id) == s.lineage, f"{where}: row lineage"
        [count] = floe.sql(f"SELECT count(*) AS n FROM {floe.catalog_name}.{table} VERSION AS OF {s.snapshot_id}")
        assert count == {"n": len(s.rows)}, f"{where}: count(*)"
    assert rows_of(floe.read(table)) == theirs[-1].rows, f"{table}: the current snapshot"


def test_floe_reads_spark_deletion_vectors(spark, lakehouse, ns):
    """Deletion vectors of DELETE, UPDATE and MERGE, merged when a data file's rows are deleted
    twice; a compaction that keeps the row lineage; a deletion vector on the compacted file."""
    table = f"{ns}.dvs"
    t = f"lakehouse.{table}"
    create(spark, table, SPARK_DDL, 3)
    insert(spark, table, make_rows(1, 30))
    insert(spark, table, make_rows(31, 20))
    spark.sql(f"DELETE FROM {t} WHERE id % 4 = 0")
    # Rows of both data files again: each file's deletion vector is replaced by a merged one.
    spark.sql(f"DELETE FROM {t} WHERE id IN (3, 45)")
    spark.sql(f"UPDATE {t} SET customer = 'vip', amount = amount * 2 WHERE id > 40")
    to_spark(spark, make_rows(45, 15)).createOrReplaceTempView("changes")
    spark.sql(
        f"MERGE INTO {t} t USING changes s ON t.id = s.id "
        "WHEN MATCHED AND s.id % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET t.customer = 'merged' "
        "WHEN NOT MATCHED THEN INSERT *"
    )
    before_compaction = spark.sql(f"SELECT snapshot_id FROM {t}.refs WHERE name = 'main'").first()[0]
    spark.sql(f"CALL lakehouse.system.rewrite_data_files(table => '{table}', options => map('rewrite-all', 'true'))")
    spark.sql(f"DELETE FROM {t} WHERE id % 10 = 1")

    # What Spark wrote, checked with Spark alone.
    assert format_version(spark, table) == "3"
    rows = {r["id"]: r for r in make_rows(1, 50) if r["id"] % 4 and r["id"] not in (3, 45)}
    rows |= {i: r | {"customer": "vip", "amount": r["amount"] * 2} for i, r in rows.items() if i > 40}
    for r in make_rows(45, 15):
        if r["id"] not in rows:
            rows[r["id"]] = r
        elif r["id"] % 2 == 0:
            del rows[r["id"]]
        else:
            rows[r["id"]] |= {"customer": "merged"}
    snaps = spark_snapshots(spark, table)
    assert snaps[-1].rows == rows_of([r for i, r in rows.items() if i % 10 != 1])
    ops = [s.operation for s in snaps]
    assert ops == ["append", "append", "delete", "delete", "overwrite", "overwrite", "replace", "delete"], ops
    for s in (snaps[2], snaps[3], snaps[4], snaps[5], snaps[7]):
        assert int(s.summary.get("added-dvs", "0")) > 0, f"{table}: snapshot {s.snapshot_id} ({s.operation}) added no DV"
    assert int(snaps[3].summary.get("removed-dvs", "0")) == 2, f"{table}: the second DELETE replaced {snaps[3].summary}"
    assert snaps[6].summary["total-delete-files"] == "0", "compaction left delete files"
    dvs = added_dvs(spark, table)
    assert {d.file_format for d in dvs} == {"PUFFIN"}, f"{table}: delete files {dvs}"
    by_data_file = {}
    for d in sorted(dvs, key=lambda d: d.sequence_number):
        by_data_file.setdefault(d.data_file, []).append(d.deleted)
    # A data file whose rows were deleted by several snapshots: each vector holds the earlier
    # ones' positions and more.
    merged = [counts for counts in by_data_file.values() if len(counts) > 1]
    assert merged and all(a < b for counts in merged for a, b in zip(counts, counts[1:])), by_data_file

    # Row lineage: every row has one, kept by UPDATE, MERGE and the compaction.
    lineage = snaps[-1].lineage
    assert all(row_id is not None and seq is not None for _, row_id, seq in lineage), lineage
    assert len({row_id for _, row_id, _ in lineage}) == len(lineage), "row ids repeat"
    assert snaps[5].snapshot_id == before_compaction and snaps[6].lineage == snaps[5].lineage

    check_floe_reads_every_v3_snapshot(spark, lakehouse, table, snaps)


def test_floe_reads_spark_initial_defaults(spark, lakehouse, ns):
    """Columns added with a default through Iceberg's Java API (Spark 3.5 refuses ALTER TABLE
    ... ADD COLUMN ... DEFAULT: "setting default values in Spark is currently unsupported"):
    rows of files written before read the initial default, rows written after read what was
    written, NULL included. (No DECIMAL default: Iceberg 1.10's vectorized Parquet reader fails
    on a file that has the column, "Cannot cast default value to long".)"""
    table = f"{ns}.defaults"
    t = f"lakehouse.{table}"
    create(spark, table, "id BIGINT, name STRING", 3)
    spark.sql(f"INSERT INTO {t} VALUES " + ", ".join(f"({i}, 'n{i}')" for i in range(1, 7)))
    jvm = spark._jvm
    types = jvm.org.apache.iceberg.types.Types
    literal = jvm.org.apache.iceberg.expressions.Literal
    iceberg_table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, t)
    (
        iceberg_table.updateSchema()
        .addColumn("c", types.IntegerType.get(), "an int with a default", literal.of(7))
        .addColumn("big", types.LongType.get(), literal.of(jvm.java.lang.Long.valueOf("5000000000")))
        .addColumn("s", types.StringType.get(), literal.of("dflt"))
        .addColumn("day", types.DateType.get(), literal.of("2024-01-02").to(types.DateType.get()))
        .commit()
    )
    iceberg_table.refresh()
    assert iceberg_table.schema().findField("c").initialDefault() == 7
    spark.sql(f"INSERT INTO {t} VALUES (7, 'n7', 1, 2, 'x', DATE '2020-01-01'), (8, 'n8', NULL, NULL, NULL, NULL)")
    spark.sql(f"DELETE FROM {t} WHERE id IN (2, 8)")
    spark.sql(f"UPDATE {t} SET name = 'u' WHERE id = 3")
    spark.sql(f"CALL lakehouse.system.rewrite_data_files(table => '{table}', options => map('rewrite-all', 'true'))")

    # What Spark wrote, checked with Spark alone.
    snaps = spark_snapshots(spark, table)
    assert [s.operation for s in snaps] == ["append", "append", "delete", "overwrite", "replace"]
    assert snaps[0].columns == ["id", "name"], "the first snapshot reads with the schema it was written with"
    default = {"c": 7, "big": 5000000000, "s": "dflt", "day": dt.date(2024, 1, 2)}
    want = [{"id": i, "name": f"n{i}", **default} for i in range(1, 7)] + [
        {"id": 7, "name": "n7", "c": 1, "big": 2, "s": "x", "day": dt.date(2020, 1, 1)},
        {"id": 8, "name": "n8", "c": None, "big": None, "s": None, "day": None},
    ]
    assert snaps[1].rows == rows_of(want)
    want = [r | ({"name": "u"} if r["id"] == 3 else {}) for r in want if r["id"] not in (2, 8)]
    assert snaps[3].rows == snaps[4].rows == rows_of(want)
    assert {d.file_format for d in added_dvs(spark, table)} == {"PUFFIN"}

    check_floe_reads_every_v3_snapshot(spark, lakehouse, table, snaps)


def test_floe_reads_spark_table_upgraded_from_v2(spark, lakehouse, ns):
    """A partitioned v2 table with position delete files, upgraded to v3: its first v3 snapshot
    gives the older rows row ids; a delete of rows of a data file with v2 position deletes
    writes a deletion vector holding those too; rewrite_position_delete_files turns the v2
    position delete files left (of the other partition) into deletion vectors; an UPDATE
    after that merges them."""
    table = f"{ns}.upgraded"
    t = f"lakehouse.{table}"
    create(spark, table, SPARK_DDL, 2, " PARTITIONED BY (bucket(2, id))")
    insert(spark, table, make_rows(1, 20))
    spark.sql(f"DELETE FROM {t} WHERE id % 5 = 0")
    spark.sql(f"UPDATE {t} SET customer = 'v2' WHERE id IN (1, 2)")
    v2_snapshots = spark.sql(f"SELECT count(*) FROM {t}.snapshots").first()[0]
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('format-version' = '3')")
    assert format_version(spark, table) == "3"
    insert(spark, table, make_rows(21, 10))
    spark.sql(f"DELETE FROM {t} WHERE id % 3 = 0 AND lakehouse.system.bucket(2, id) = 0")
    [result] = spark.sql(
        f"CALL lakehouse.system.rewrite_position_delete_files(table => '{table}', options => map('rewrite-all', 'true'))"
    ).collect()
    spark.sql(f"UPDATE {t} SET customer = 'v3', amount = amount + 1 WHERE id % 7 = 1")

    # What Spark wrote, checked with Spark alone.
    bucket = partition_of(spark, make_rows(1, 30), "lakehouse.system.bucket(2, id)")
    rows = {r["id"]: r for r in make_rows(1, 30) if r["id"] % 5 or r["id"] > 20}
    rows |= {i: r | {"customer": "v2"} for i, r in rows.items() if i in (1, 2)}
    rows = {i: r for i, r in rows.items() if i % 3 or bucket[i] != (0,)}
    rows |= {i: r | {"customer": "v3", "amount": r["amount"] + 1} for i, r in rows.items() if i % 7 == 1}
    snaps = spark_snapshots(spark, table)
    assert snaps[-1].rows == rows_of(list(rows.values()))
    assert v2_snapshots == 3
    assert [s.operation for s in snaps] == ["append", "delete", "overwrite", "append", "delete", "replace", "overwrite"]
    entries = added_dvs(spark, table)
    formats = [{e.file_format for e in entries if e.snapshot_id == s.snapshot_id} for s in snaps]
    assert formats == [set(), {"PARQUET"}, {"PARQUET"}, set(), {"PUFFIN"}, {"PUFFIN"}, {"PUFFIN"}], formats
    # The v3 DELETE and the rewrite each replaced a v2 position delete file by deletion vectors.
    for s in (snaps[4], snaps[5]):
        removed_v2 = int(s.summary.get("removed-delete-files", "0")) - int(s.summary.get("removed-dvs", "0"))
        assert removed_v2 == 1, f"{table}: snapshot {s.snapshot_id} ({s.operation}): {s.summary}"
    assert result.rewritten_delete_files_count > 0
    live = spark.sql(f"SELECT DISTINCT file_format FROM {t}.delete_files").collect()
    assert [r.file_format for r in live] == ["PUFFIN"], live
    # Rows of v2 snapshots have no lineage; from the first v3 snapshot on, every row has.
    for i, s in enumerate(snaps):
        nulls = [r for r in s.lineage if r[1] is None or r[2] is None]
        assert nulls == (s.lineage if i < v2_snapshots else []), f"{table} at snapshot {s.snapshot_id}: {s.lineage}"

    check_floe_reads_every_v3_snapshot(spark, lakehouse, table, snaps)
