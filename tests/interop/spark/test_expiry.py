"""Expiry across engines: twin tables with the same history, one expired by Spark's
expire_snapshots and one by floe's, delete the same counts of files and keep the same snapshots;
floe's dry run names beforehand exactly the files each run deletes, Spark's included; each
engine reads what the other expired."""

import datetime as dt

import pytest

from .support import SPARK_DDL, make_rows, rows_of, spark_read, to_spark

# Each change touches one data file no earlier change touched: Spark 3.5 with Iceberg 1.10 folds
# the old position deletes of a data file into its next delete file, floe keeps both, so only
# histories without a second delete on one file leave the twins file for file alike.
HISTORY = [
    "INSERT INTO {t} SELECT * FROM rows_a",
    "INSERT INTO {t} SELECT * FROM rows_b",
    "DELETE FROM {t} WHERE id <= 7",
    "UPDATE {t} SET amount = amount + 1 WHERE id BETWEEN 31 AND 35",
    "INSERT INTO {t} SELECT * FROM rows_c",
    "DELETE FROM {t} WHERE id > 55",
    # Replaces every data file and, as a row filter of true, every delete file too.
    "INSERT OVERWRITE {t} SELECT * FROM {t}",
]


def spark_history(spark, table: str) -> None:
    for i, rows in enumerate([make_rows(1, 30), make_rows(31, 20), make_rows(51, 10)]):
        to_spark(spark, rows).createOrReplaceTempView("rows_" + "abc"[i])
    for statement in HISTORY:
        spark.sql(statement.format(t=f"lakehouse.{table}"))


def floe_history(floe, spark, table: str) -> None:
    # The same rows, written by floe through tables Spark filled.
    for name in ("rows_a", "rows_b", "rows_c"):
        spark.sql(f"CREATE TABLE lakehouse.{table}_{name} USING iceberg AS SELECT * FROM {name}")
    for statement in HISTORY:
        sql = statement.format(t=f"lakehouse.{table}")
        for name in ("rows_a", "rows_b", "rows_c"):
            sql = sql.replace(f"FROM {name}", f"FROM lakehouse.{table}_{name}")
        floe.sql(sql)


def counts(row) -> list[int]:
    return [int(row[k]) for k in (
        "deleted_data_files_count", "deleted_position_delete_files_count", "deleted_equality_delete_files_count",
        "deleted_manifest_files_count", "deleted_manifest_lists_count", "deleted_statistics_files_count")]


@pytest.mark.parametrize("mode", ["copy-on-write", "merge-on-read"])
def test_floe_and_spark_expire_twins_alike(spark, lakehouse, ns, mode):
    floe = lakehouse
    suffix = mode.replace("-", "_")
    ours, theirs = f"{ns}.expire_floe_{suffix}", f"{ns}.expire_spark_{suffix}"
    props = (f"TBLPROPERTIES ('write.delete.mode' = '{mode}', 'write.update.mode' = '{mode}', "
             "'commit.manifest-merge.enabled' = 'false')")
    for table in (ours, theirs):
        spark.sql(f"CREATE TABLE lakehouse.{table} ({SPARK_DDL}) USING iceberg {props}")
    spark_history(spark, theirs)
    floe_history(floe, spark, ours)
    assert rows_of(floe.read(ours)) == spark_read(spark, theirs)
    kept_rows = spark_read(spark, theirs)
    before = {t: [r["snapshot_id"] for r in floe.sql(f"SELECT snapshot_id FROM lakehouse.{t}.snapshots "
                                                     "ORDER BY committed_at")] for t in (ours, theirs)}
    assert len(before[ours]) == len(before[theirs]) == 7

    # Spark's CALL takes constants only; both sessions read the literal in UTC.
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    call = "CALL lakehouse.system.expire_snapshots(table => '{t}', older_than => TIMESTAMP '{now}', retain_last => 1)"

    # floe's dry run, on its own table and on Spark's, names the files each run then deletes:
    # floe's run of its own, and Spark's of its twin.
    table_dirs = {t: floe.sql(f"SELECT file FROM lakehouse.{t}.metadata_log_entries ORDER BY timestamp DESC "
                              "LIMIT 1")[0]["file"].rsplit("/", 2)[0] for t in (ours, theirs)}
    dry = {t: floe.sql(call.format(t=t, now=now)[:-1] + ", dry_run => true)") for t in (ours, theirs)}
    on_disk = {t: floe.files_under(table_dirs[t]) for t in (ours, theirs)}
    # The same relative set on both twins: as many files of each type, last reached by the
    # snapshot at the same place in each history.
    shape = {t: sorted((f["file_type"], before[t].index(f["last_snapshot_id"])) for f in dry[t])
             for t in (ours, theirs)}
    assert shape[ours] == shape[theirs], shape

    spark_result = spark.sql(call.format(t=theirs, now=now)).collect()[0].asDict()
    floe_result = floe.sql(call.format(t=ours, now=now))[0]
    assert counts(floe_result) == counts(spark_result), (floe_result, spark_result)
    for t in (ours, theirs):
        # Spark's local file system also deletes the .crc checksums beside its files.
        gone = {p for p in on_disk[t] - floe.files_under(table_dirs[t]) if not p.endswith(".crc")}
        assert gone == {floe.location(f["file_path"]) for f in dry[t]}, (t, gone)
    assert counts(floe_result)[4] == 6
    if mode == "merge-on-read":
        assert counts(floe_result)[1] > 0, floe_result

    # Each engine reads the table the other expired, as it reads its own.
    for table in (ours, theirs):
        kept = [r["snapshot_id"] for r in spark.sql(
            f"SELECT snapshot_id FROM lakehouse.{table}.snapshots ORDER BY committed_at").collect()]
        assert kept == before[table][-1:], table
        assert [r["snapshot_id"] for r in floe.sql(
            f"SELECT snapshot_id FROM lakehouse.{table}.snapshots ORDER BY committed_at")] == kept
        for snapshot_id in kept:
            assert rows_of(floe.read(table, snapshot_id)) == spark_read(spark, table, snapshot_id)
        assert rows_of(floe.read(table)) == kept_rows
        assert spark_read(spark, table) == kept_rows
        with pytest.raises(Exception, match="Cannot find snapshot with ID"):
            spark.sql(f"SELECT * FROM lakehouse.{table} VERSION AS OF {before[table][0]}").collect()
        with pytest.raises(RuntimeError, match="Cannot find matching snapshot ID or reference name"):
            floe.sql(f"SELECT * FROM lakehouse.{table} VERSION AS OF {before[table][0]}")

    # In the warehouse, each table holds exactly the files its kept snapshots reach, and its
    # metadata.
    for table in (ours, theirs):
        location = floe.sql(f"SELECT file FROM lakehouse.{table}.metadata_log_entries "
                            "ORDER BY timestamp DESC LIMIT 1")[0]["file"]
        table_dir = location.rsplit("/", 2)[0]
        # Spark's local file system leaves .crc checksums beside its files.
        data = {p for p in floe.files_under(table_dir) if "/data/" in p and not p.endswith(".crc")}
        live = {floe.location(r["file_path"]) for r in floe.sql(
            f"SELECT file_path FROM lakehouse.{table}.all_files")}
        assert data == live, (table, sorted(data - live), sorted(live - data))
