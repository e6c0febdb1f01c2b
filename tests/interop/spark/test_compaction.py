"""Compaction across engines: Spark 3.5 with Iceberg 1.10 reads what floe's rewrite_data_files
and rewrite_manifests commit, and floe reads what Spark's procedures of the same names commit.
Both sides see the same rows at every snapshot and a `replace` snapshot on top."""

import pytest

from .support import check_metadata_tables, make_rows, rows_of, spark_read, to_arrow
from .test_floe_reads_spark import check_floe_reads_every_snapshot, insert, merge_on_read


def snapshot_ops(spark, table: str) -> list[str]:
    return [r.operation for r in spark.sql(f"SELECT operation FROM lakehouse.{table}.snapshots ORDER BY committed_at").collect()]


@pytest.mark.parametrize("partitioned", [False, True], ids=["unpartitioned", "partitioned"])
def test_spark_reads_floe_compaction(spark, lakehouse, ns, partitioned):
    floe = lakehouse
    table = f"{ns}.compact_{'partitioned' if partitioned else 'unpartitioned'}"
    floe.create(table, to_arrow(make_rows(1, 1)), *(["bucket(2,id)"] if partitioned else []))
    floe.sql(f"ALTER TABLE lakehouse.{table} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')")
    for first in range(1, 61, 10):
        floe.append(table, to_arrow(make_rows(first, 10)))
    floe.sql(f"DELETE FROM lakehouse.{table} WHERE id % 7 = 0")
    before = spark_read(spark, table)
    assert len(before) == 52
    files_before = spark.sql(f"SELECT count(*) FROM lakehouse.{table}.data_files").first()[0]
    deletes_before = spark.sql(f"SELECT count(*) FROM lakehouse.{table}.delete_files").first()[0]
    assert files_before == (12 if partitioned else 6) and deletes_before > 0

    [size] = floe.sql(f"SELECT sum(file_size_in_bytes) AS b FROM lakehouse.{table}.data_files")
    [row] = floe.sql(f"CALL lakehouse.system.rewrite_data_files('{table}')")
    assert row["rewritten_data_files_count"] == files_before
    assert row["added_data_files_count"] == (2 if partitioned else 1)
    assert row["failed_data_files_count"] == 0
    assert row["removed_delete_files_count"] == deletes_before
    assert row["rewritten_bytes_count"] == size["b"]

    # Spark: the same rows, one `replace` snapshot on top, no delete file left, and the
    # snapshot before it still reads its own files.
    assert spark_read(spark, table) == before
    assert snapshot_ops(spark, table)[-2:] == ["delete", "replace"]
    assert spark.sql(f"SELECT count(*) FROM lakehouse.{table}.delete_files").first()[0] == 0
    assert spark.sql(f"SELECT count(*) FROM lakehouse.{table}.data_files").first()[0] == (2 if partitioned else 1)
    snaps = check_metadata_tables(spark, floe, table)
    assert spark_read(spark, table, snaps[-2]["snapshot-id"]) == before

    # Deletes and appends after the rewrite, by Spark, apply on top of floe's new files.
    spark.sql(f"DELETE FROM lakehouse.{table} WHERE id IN (1, 2, 60)")
    insert(spark, table, make_rows(100, 3))
    after = rows_of([r for r in before if r["id"] not in (1, 2, 60)] + make_rows(100, 3))
    assert spark_read(spark, table) == after
    assert rows_of(floe.read(table)) == after

    # rewrite_manifests: every append left a manifest; they become one.
    manifests = spark.sql(f"SELECT count(*) FROM lakehouse.{table}.manifests WHERE content = 0").first()[0]
    assert manifests > 1
    [row] = floe.sql(f"CALL lakehouse.system.rewrite_manifests('{table}')")
    data_manifests_after = spark.sql(f"SELECT count(*) FROM lakehouse.{table}.manifests WHERE content = 0").first()[0]
    assert data_manifests_after == 1
    assert row["added_manifests_count"] >= 1 and row["rewritten_manifests_count"] >= manifests
    assert snapshot_ops(spark, table)[-1] == "replace"
    assert spark_read(spark, table) == after
    check_metadata_tables(spark, floe, table)


@pytest.mark.parametrize("partitioned", [False, True], ids=["unpartitioned", "partitioned"])
def test_floe_reads_spark_compaction(spark, lakehouse, ns, partitioned):
    floe = lakehouse
    table = f"{ns}.spark_compact_{'partitioned' if partitioned else 'unpartitioned'}"
    spec = " PARTITIONED BY (bucket(2, id))" if partitioned else ""
    spark.sql(
        f"CREATE TABLE lakehouse.{table} (id BIGINT, customer STRING, amount DECIMAL(10,2), score DOUBLE, "
        f"ts TIMESTAMP, local_ts TIMESTAMP_NTZ, day DATE) USING iceberg{spec}"
    )
    merge_on_read(spark, table)
    for first in range(1, 61, 10):
        insert(spark, table, make_rows(first, 10))
    spark.sql(f"DELETE FROM lakehouse.{table} WHERE id % 7 = 0")
    want = spark_read(spark, table)

    row = spark.sql(
        f"CALL lakehouse.system.rewrite_data_files(table => '{table}', "
        "options => map('remove-dangling-deletes', 'true'))"
    ).first()
    assert row.rewritten_data_files_count > 0 and row.failed_data_files_count == 0
    spark.sql(f"CALL lakehouse.system.rewrite_manifests('{table}')").collect()
    assert "replace" in snapshot_ops(spark, table)[-3:]

    snapshots = check_floe_reads_every_snapshot(spark, floe, table)
    assert snapshots[-1]["operation"] == "replace"
    assert rows_of(floe.read(table)) == want
    # floe's own view through SQL: the same snapshots, the same live files as Spark's.
    ops = [r["operation"] for r in floe.sql(f"SELECT operation FROM lakehouse.{table}.snapshots ORDER BY committed_at")]
    assert ops == snapshot_ops(spark, table)
    [n] = floe.sql(f"SELECT count(*) AS n FROM lakehouse.{table}.data_files")
    assert n["n"] == spark.sql(f"SELECT count(*) FROM lakehouse.{table}.data_files").first()[0]

    # floe compacts what Spark compacted: nothing left to do.
    [row] = floe.sql(f"CALL lakehouse.system.rewrite_data_files('{table}')")
    assert row["rewritten_data_files_count"] == 0
    # ... and a DELETE by floe on Spark's compacted files reads back in Spark.
    floe.sql(f"DELETE FROM lakehouse.{table} WHERE id = 11")
    assert spark_read(spark, table) == [r for r in want if r["id"] != 11]
