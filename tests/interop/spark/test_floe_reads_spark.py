"""floe reads every snapshot of tables Spark wrote: appends, INSERT OVERWRITE, and DELETE, UPDATE
and MERGE INTO both copy-on-write and merge-on-read (position delete files)."""

import pytest

from .support import (
    COLUMNS,
    SPARK_DDL,
    check_metadata_tables,
    make_rows,
    rows_of,
    spark_read,
    to_spark,
)


def insert(spark, table: str, rows: list[dict]) -> None:
    to_spark(spark, rows).createOrReplaceTempView("new_rows")
    spark.sql(f"INSERT INTO lakehouse.{table} SELECT * FROM new_rows")


def insert_overwrite(spark, table: str, rows: list[dict]) -> None:
    to_spark(spark, rows).createOrReplaceTempView("new_rows")
    spark.sql(f"INSERT OVERWRITE lakehouse.{table} SELECT * FROM new_rows")


def check_floe_reads_every_snapshot(spark, floe, table: str) -> list[dict]:
    """floe's rows at each snapshot are Spark's `VERSION AS OF` rows; floe's view of the
    snapshots is Spark's. Returns floe's snapshots."""
    snapshots = check_metadata_tables(spark, floe, table)
    for s in snapshots:
        got = floe.read(table, s["snapshot-id"])
        assert got.column_names == COLUMNS, f"{table}: floe reads columns {got.column_names}"
        want = spark_read(spark, table, s["snapshot-id"])
        assert rows_of(got) == want, f"{table}: floe's rows at snapshot {s['snapshot-id']} ({s['operation']})"
    assert rows_of(floe.read(table)) == spark_read(spark, table)
    return snapshots


def copy_on_write(spark, table: str) -> None:
    props = dict((r.key, r.value) for r in spark.sql(f"SHOW TBLPROPERTIES lakehouse.{table}").collect())
    assert props["format-version"] == "2"
    for mode in ("write.delete.mode", "write.update.mode", "write.merge.mode"):
        assert props.get(mode, "copy-on-write") == "copy-on-write", f"{table}: {mode} = {props[mode]}"


def merge_on_read(spark, table: str) -> None:
    spark.sql(
        f"ALTER TABLE lakehouse.{table} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read', "
        "'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read')"
    )


@pytest.mark.parametrize("partitioned", [False, True], ids=["unpartitioned", "partitioned"])
def test_floe_reads_spark_merge_on_read_deletes(spark, lakehouse, ns, partitioned):
    table = f"{ns}.mor_{'partitioned' if partitioned else 'unpartitioned'}"
    spec = " PARTITIONED BY (bucket(4, id))" if partitioned else ""
    spark.sql(f"CREATE TABLE lakehouse.{table} ({SPARK_DDL}) USING iceberg{spec}")
    merge_on_read(spark, table)
    insert(spark, table, make_rows(1, 30))
    insert(spark, table, make_rows(31, 20))
    spark.sql(f"DELETE FROM lakehouse.{table} WHERE id % 4 = 0")
    spark.sql(f"UPDATE lakehouse.{table} SET customer = 'vip', amount = amount * 2 WHERE id > 40")
    # Rows appended after the deletes: their sequence number is above the delete files'.
    insert(spark, table, make_rows(51, 10))
    spark.sql(f"DELETE FROM lakehouse.{table} WHERE id IN (3, 45, 52)")
    to_spark(spark, make_rows(55, 10)).createOrReplaceTempView("changes")
    spark.sql(
        f"MERGE INTO lakehouse.{table} t USING changes s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET t.customer = 'merged' WHEN NOT MATCHED THEN INSERT *"
    )

    by_id = {r["id"]: r for r in make_rows(1, 64)}
    want = []
    for i, r in sorted(by_id.items()):
        if (i <= 50 and i % 4 == 0) or i in (3, 45, 52):
            continue
        if 40 < i <= 50:
            r = r | {"customer": "vip", "amount": r["amount"] * 2}
        if 55 <= i <= 60:
            r = r | {"customer": "merged"}
        want.append(r)
    assert spark_read(spark, table) == rows_of(want)

    snapshots = check_floe_reads_every_snapshot(spark, lakehouse, table)
    # Deletes alone commit a `delete`; deletes with new rows (UPDATE, MERGE) an `overwrite`.
    operations = ["append", "append", "delete", "overwrite", "append", "delete", "overwrite"]
    assert [s["operation"] for s in snapshots] == operations
    assert int(snapshots[-1]["summary"]["total-position-deletes"]) > 0, "merge-on-read left no position deletes"
    assert int(snapshots[-1]["summary"]["total-delete-files"]) > 0

    # Counts are of the rows left, never of the data files' record counts.
    for s in (snapshots[2], snapshots[-1]):
        sid = s["snapshot-id"]
        floe_count = lakehouse.sql(f"SELECT count(*) AS n FROM lakehouse.{table} VERSION AS OF {sid}")
        spark_count = spark.sql(f"SELECT count(*) AS n FROM lakehouse.{table} VERSION AS OF {sid}").collect()[0].n
        assert floe_count == [{"n": spark_count}], f"{table}: count(*) at snapshot {sid}"


def test_unpartitioned_table_written_by_spark(spark, lakehouse, ns):
    table = f"{ns}.orders"
    spark.sql(f"CREATE TABLE lakehouse.{table} ({SPARK_DDL}) USING iceberg")
    copy_on_write(spark, table)
    insert(spark, table, make_rows(1, 10))
    insert(spark, table, make_rows(11, 5))
    insert(spark, table, make_rows(16, 7))
    insert_overwrite(spark, table, make_rows(100, 12))
    spark.sql(f"DELETE FROM lakehouse.{table} WHERE id % 3 = 0")
    spark.sql(f"UPDATE lakehouse.{table} SET customer = 'vip', amount = amount * 2 WHERE id > 108")

    assert spark_read(spark, table) == rows_of(
        [r | ({"customer": "vip", "amount": r["amount"] * 2} if r["id"] > 108 else {})
         for r in make_rows(100, 12) if r["id"] % 3]
    )
    # A copy-on-write MERGE: matched rows deleted or updated, new ones inserted.
    to_spark(spark, make_rows(105, 12)).createOrReplaceTempView("changes")
    spark.sql(
        f"MERGE INTO lakehouse.{table} t USING changes s ON t.id = s.id "
        "WHEN MATCHED AND s.id % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET t.customer = 'merged' "
        "WHEN NOT MATCHED THEN INSERT *"
    )
    snapshots = check_floe_reads_every_snapshot(spark, lakehouse, table)
    assert [s["operation"] for s in snapshots] == ["append"] * 3 + ["overwrite"] * 4
    for s in snapshots:
        assert s["summary"]["total-delete-files"] == "0", "copy-on-write leaves no delete files"


def test_partitioned_table_written_by_spark(spark, lakehouse, ns):
    table = f"{ns}.events"
    spark.sql(
        f"CREATE TABLE lakehouse.{table} ({SPARK_DDL}) USING iceberg "
        f"PARTITIONED BY (days(ts), bucket(4, id))"
    )
    copy_on_write(spark, table)
    insert(spark, table, make_rows(1, 40))
    insert(spark, table, make_rows(41, 20))
    insert(spark, table, make_rows(61, 15))
    # A dynamic INSERT OVERWRITE replaces only the partitions the new rows fall in.
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        insert_overwrite(spark, table, make_rows(200, 3))
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    # Whole partitions: a metadata-only delete. Some rows of files: a copy-on-write rewrite.
    spark.sql(f"DELETE FROM lakehouse.{table} WHERE ts < TIMESTAMP '2024-01-02 00:00:00'")
    spark.sql(f"DELETE FROM lakehouse.{table} WHERE id % 5 = 0")

    snapshots = check_floe_reads_every_snapshot(spark, lakehouse, table)
    assert [s["operation"] for s in snapshots] == ["append"] * 3 + ["overwrite", "delete", "overwrite"]
    assert all(s["summary"]["total-delete-files"] == "0" for s in snapshots)
    remaining = spark_read(spark, table)
    assert remaining and all(r["ts"].day != 1 and r["id"] % 5 for r in remaining)


@pytest.mark.parametrize("partitioned", [False, True], ids=["unpartitioned", "partitioned"])
def test_floe_reads_spark_types_and_nulls(spark, lakehouse, ns, partitioned):
    """Rows Spark wrote through SQL literals (not through Python) read back the same in floe."""
    table = f"{ns}.literals"
    spark.sql(
        f"CREATE TABLE lakehouse.{table} ({SPARK_DDL}) USING iceberg"
        + (" PARTITIONED BY (days(ts), bucket(4, id))" if partitioned else "")
    )
    spark.sql(
        f"""INSERT INTO lakehouse.{table} VALUES
        (1, 'a', 12345678.91, 1.5, TIMESTAMP '1969-12-31 23:59:59.999999', TIMESTAMP_NTZ '1900-01-01 00:00:00', DATE '1900-01-01'),
        (2, NULL, NULL, NULL, NULL, NULL, NULL),
        (3, '', -0.01, double('NaN'), TIMESTAMP '2038-01-19 03:14:08', TIMESTAMP_NTZ '2262-04-11 23:47:16.854775', DATE '9999-12-31'),
        (4, 'ünïcödé ✓', 0.00, -0.0, TIMESTAMP '2024-02-29 12:00:00.000001', TIMESTAMP_NTZ '2024-02-29 12:00:00.000001', DATE '2024-02-29')"""
    )
    check_floe_reads_every_snapshot(spark, lakehouse, table)


def test_floe_reads_across_spark_schema_changes(spark, lakehouse, ns):
    """Columns renamed, added, dropped and widened by Spark: floe resolves Parquet columns by
    field id and reads each snapshot with the schema Spark reads it with (the snapshot's)."""
    table = f"{ns}.evolving"
    t = f"lakehouse.{table}"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, name STRING, amount DECIMAL(10,2), qty INT, gone STRING) USING iceberg")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 1.50, 7, 'x'), (2, NULL, NULL, NULL, NULL)")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN name TO label")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN note STRING")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN amount TYPE DECIMAL(14,2)")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN qty TYPE BIGINT")
    spark.sql(f"ALTER TABLE {t} DROP COLUMN gone")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'c', 123456789012.25, 5000000000, 'new')")

    snapshots = check_metadata_tables(spark, lakehouse, table)
    assert len(snapshots) == 2
    for s in snapshots:
        want = spark.sql(f"SELECT * FROM {t} VERSION AS OF {s['snapshot-id']}")
        got = lakehouse.read(table, s["snapshot-id"])
        where = f"{table} at snapshot {s['snapshot-id']}"
        assert got.column_names == want.columns, f"{where}: floe's columns {got.column_names}, Spark's {want.columns}"
        assert rows_of(got) == rows_of(want), f"{where}: rows"
    current = spark.table(t)
    got = lakehouse.read(table)
    assert got.column_names == current.columns == ["id", "label", "amount", "qty", "note"]
    assert rows_of(got) == rows_of(current)
