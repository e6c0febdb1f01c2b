"""Row lineage through rewrites, floe against Spark 3.5 with Iceberg 1.10 on format-version 3
tables, copy-on-write and merge-on-read (deletion vectors): the same statements (two single-file
inserts, then a DELETE, an UPDATE, a MERGE that updates, deletes and inserts, a MERGE whose NOT
MATCHED BY SOURCE clause updates, and a compaction) run by Spark on one table and by floe on its
twin. At every snapshot, each row's (id, v, _row_id, _last_updated_sequence_number) of Spark's
table as Spark reads it equals that of floe's table as Spark reads it and as floe reads it: a
row carried over keeps both values, an updated row keeps its id and takes the sequence number of
the snapshot that updated it, an inserted row takes a new id. The data files both engines'
row-level changes and compactions write store both columns (Parquet field ids 2147483540 and
2147483539) after the table's; their inserts do not. Both compactions leave no deletion vector.

Single-file inserts and MERGE sources in id order make Spark's row id assignment deterministic:
the rows a MERGE inserts come after every row written beside them in both engines."""

import pyarrow.parquet as pq
import pytest

from .test_floe_reads_spark_v3 import LINEAGE_COLUMNS
from .test_v3_lifecycle import floe_snapshots, spark_snapshot

ROW_ID, LAST_UPDATED = 2147483540, 2147483539


def statements(table: str, name: str) -> list[str]:
    """What both engines run on `table` (catalog.namespace.table; `name` without the catalog)."""
    return [
        f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e'), (6, 'f')",
        f"INSERT INTO {table} VALUES (7, 'g'), (8, 'h')",
        f"DELETE FROM {table} WHERE id = 2",
        f"UPDATE {table} SET v = 'x' WHERE id IN (3, 7)",
        f"MERGE INTO {table} t USING (SELECT * FROM VALUES (4, 'm'), (5, 'del'), (10, 'i1'), (15, 'i2') "
        "AS s(id, v)) s ON t.id = s.id WHEN MATCHED AND s.v = 'del' THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *",
        f"MERGE INTO {table} t USING (SELECT * FROM VALUES (1, 'n') AS s(id, v)) s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED BY SOURCE AND t.id = 8 THEN UPDATE SET v = 'y'",
        f"CALL lakehouse.system.rewrite_data_files(table => '{name}', options => map('rewrite-all', 'true'))",
    ]


# The snapshots the statements commit; a merge-on-read DELETE writes deletion vectors alone.
OPERATIONS = {
    "copy-on-write": ["append", "append", "overwrite", "overwrite", "overwrite", "overwrite", "replace"],
    "merge-on-read": ["append", "append", "delete", "overwrite", "overwrite", "overwrite", "replace"],
}
# The rows at the end, (id, v, _row_id, _last_updated_sequence_number): the MERGE's inserted
# rows take the ids after the rows written beside them (after the 6 rows rewritten at row id 20
# copy-on-write; after the 1 row updated at row id 10 merge-on-read).
FINAL = {
    "copy-on-write": [(1, "n", 0, 6), (3, "x", 2, 4), (4, "m", 3, 5), (6, "f", 5, 1), (7, "x", 6, 4),
                      (8, "y", 7, 6), (10, "i1", 26, 5), (15, "i2", 27, 5)],
    "merge-on-read": [(1, "n", 0, 6), (3, "x", 2, 4), (4, "m", 3, 5), (6, "f", 5, 1), (7, "x", 6, 4),
                      (8, "y", 7, 6), (10, "i1", 11, 5), (15, "i2", 12, 5)],
}


def create(table: str, mode: str) -> str:
    return (f"CREATE TABLE {table} (id BIGINT, v STRING) USING iceberg TBLPROPERTIES ('format-version'='3', "
            f"'write.delete.mode'='{mode}', 'write.update.mode'='{mode}', 'write.merge.mode'='{mode}')")


def snapshot_ids(spark, table: str) -> list[int]:
    return [r.snapshot_id for r in spark.sql(
        f"SELECT snapshot_id FROM lakehouse.{table}.snapshots ORDER BY committed_at").collect()]


def columns_written(spark, table: str) -> dict[str, set[tuple]]:
    """The Parquet columns (name, field id) of the data files each kind of snapshot added."""
    out = {}
    for r in spark.sql(f"SELECT s.operation, e.data_file.file_path AS path FROM lakehouse.{table}.all_entries e "
                       f"JOIN lakehouse.{table}.snapshots s ON e.snapshot_id = s.snapshot_id "
                       "WHERE e.status = 1 AND e.data_file.content = 0").collect():
        schema = pq.read_schema(r.path.removeprefix("file:"))
        out.setdefault(r.operation, set()).add(
            tuple((f.name, int(f.metadata[b"PARQUET:field_id"])) for f in schema))
    return out


@pytest.mark.parametrize("mode", ["copy-on-write", "merge-on-read"])
def test_row_lineage_through_rewrites_as_spark(spark, lakehouse, ns, mode):
    floe = lakehouse
    if floe.on_s3:
        pytest.skip("reads the data files' Parquet schemas from the local warehouse")
    theirs, ours = f"{ns}.spark_{mode.replace('-', '_')}", f"{ns}.floe_{mode.replace('-', '_')}"
    spark.sql(create(f"lakehouse.{theirs}", mode))
    floe.sql(create(f"lakehouse.{ours}", mode))
    for s_stmt, f_stmt in zip(statements(f"lakehouse.{theirs}", theirs), statements(f"lakehouse.{ours}", ours)):
        spark.sql(s_stmt).collect()
        floe.sql(f_stmt)

    spark_ids, floe_ids = snapshot_ids(spark, theirs), snapshot_ids(spark, ours)
    operations = OPERATIONS[mode]
    assert len(spark_ids) == len(floe_ids) == len(operations)
    for table in (theirs, ours):
        written = [r.operation for r in spark.sql(
            f"SELECT operation FROM lakehouse.{table}.snapshots ORDER BY committed_at").collect()]
        assert written == operations, f"{table}: {written}"
    floe_reads = floe_snapshots(floe, ours, floe_ids)
    for i, (spark_id, floe_id) in enumerate(zip(spark_ids, floe_ids)):
        where = f"after {operations[i]} #{i + 1}: {statements(ours, ours)[i]}"
        want = spark_snapshot(spark, theirs, spark_id)
        assert spark_snapshot(spark, ours, floe_id) == want, f"{where}: Spark reads floe's table"
        assert floe_reads[floe_id] == want, f"{where}: floe reads its table"
        assert all(r["_row_id"] is not None and r["_last_updated_sequence_number"] is not None for r in want)

    # The values themselves, as Spark wrote them (sequence numbers 1 to 7).
    assert [(r["id"], r["v"], r["_row_id"], r["_last_updated_sequence_number"])
            for r in spark_snapshot(spark, ours, floe_ids[-1])] == FINAL[mode]

    # The files the rewrites add store the lineage columns after the table's, as Spark's do;
    # the inserts' do not.
    plain = (("id", 1), ("v", 2))
    lineage = plain + (("_row_id", ROW_ID), ("_last_updated_sequence_number", LAST_UPDATED))
    for table in (theirs, ours):
        assert columns_written(spark, table) == {"append": {plain}, "overwrite": {lineage}, "replace": {lineage}}, table
        assert spark.sql(f"SELECT count(*) AS n FROM lakehouse.{table}.delete_files").first().n == 0, table


def test_floe_inserts_and_v2_rewrites_write_no_lineage_columns(spark, lakehouse, ns):
    """A plain INSERT into a v3 table and a rewrite of a v2 table store the table's columns
    alone, as Spark's do."""
    floe = lakehouse
    if floe.on_s3:
        pytest.skip("reads the data files' Parquet schemas from the local warehouse")
    floe.sql(create(f"lakehouse.{ns}.v3", "copy-on-write"),
             f"INSERT INTO lakehouse.{ns}.v3 VALUES (1, 'a'), (2, 'b')",
             f"CREATE TABLE lakehouse.{ns}.v2 (id BIGINT, v STRING) USING iceberg",
             f"INSERT INTO lakehouse.{ns}.v2 VALUES (1, 'a'), (2, 'b')",
             f"UPDATE lakehouse.{ns}.v2 SET v = 'x' WHERE id = 1")
    plain = {(("id", 1), ("v", 2))}
    assert columns_written(spark, f"{ns}.v3") == {"append": plain}
    assert columns_written(spark, f"{ns}.v2") == {"append": plain, "overwrite": plain}
