"""Spark and floe take turns writing one table; both see the whole history, each snapshot's
parent the one before it, and the same rows at every snapshot."""

from .support import (
    check_file_metrics,
    check_metadata_tables,
    make_rows,
    rows_of,
    spark_read,
    to_arrow,
    to_spark,
)


def spark_append(spark, table: str, rows: list[dict]) -> int:
    to_spark(spark, rows).createOrReplaceTempView("new_rows")
    spark.sql(f"INSERT INTO lakehouse.{table} SELECT * FROM new_rows")
    return spark.sql(f"SELECT snapshot_id FROM lakehouse.{table}.refs WHERE name = 'main'").first()[0]


def check_both_read_every_snapshot(spark, floe, table: str, ids: list[int], batches: list[list[dict]]):
    snapshots = check_metadata_tables(spark, floe, table)
    assert [s["snapshot-id"] for s in snapshots] == ids
    assert [s["parent-snapshot-id"] for s in snapshots] == [None, *ids[:-1]]
    assert [s["sequence-number"] for s in snapshots] == list(range(1, len(ids) + 1))
    assert [int(s["summary"]["total-records"]) for s in snapshots] == [
        sum(len(b) for b in batches[: i + 1]) for i in range(len(batches))
    ]
    for i, snapshot_id in enumerate(ids):
        want = rows_of([r for b in batches[: i + 1] for r in b])
        assert spark_read(spark, table, snapshot_id) == want, f"Spark at snapshot {i + 1}"
        assert rows_of(floe.read(table, snapshot_id)) == want, f"floe at snapshot {i + 1}"


def test_spark_appends_to_a_floe_table(spark, lakehouse, ns):
    floe, table = lakehouse, f"{ns}.by_floe"
    batches = [make_rows(1, 8), make_rows(9, 4), make_rows(13, 5), make_rows(18, 3)]
    floe.create(table, to_arrow(batches[0]), "day(ts)")
    ids = [floe.append(table, to_arrow(batches[0]))]
    ids.append(spark_append(spark, table, batches[1]))
    ids.append(floe.append(table, to_arrow(batches[2])))
    ids.append(spark_append(spark, table, batches[3]))
    check_both_read_every_snapshot(spark, floe, table, ids, batches)
    check_file_metrics(spark, table)


def test_floe_appends_to_a_spark_table(spark, lakehouse, ns):
    floe, table = lakehouse, f"{ns}.by_spark"
    spark.sql(
        f"CREATE TABLE lakehouse.{table} (id BIGINT, customer STRING, amount DECIMAL(10,2), "
        f"score DOUBLE, ts TIMESTAMP, local_ts TIMESTAMP_NTZ, day DATE) USING iceberg "
        f"PARTITIONED BY (bucket(4, id))"
    )
    batches = [make_rows(1, 8), make_rows(9, 4), make_rows(13, 5), make_rows(18, 3)]
    ids = [spark_append(spark, table, batches[0])]
    ids.append(floe.append(table, to_arrow(batches[1])))
    ids.append(spark_append(spark, table, batches[2]))
    ids.append(floe.append(table, to_arrow(batches[3])))
    check_both_read_every_snapshot(spark, floe, table, ids, batches)
    check_file_metrics(spark, table)

    # floe's rows went to the partitions Java's bucket transform gives them.
    wrong = spark.sql(
        f"SELECT id, _partition.id_bucket AS got, lakehouse.system.bucket(4, id) AS want "
        f"FROM lakehouse.{table} WHERE _partition.id_bucket <> lakehouse.system.bucket(4, id)"
    ).collect()
    assert wrong == [], f"rows in the wrong bucket: {wrong[:3]}"
    # Spark can still rewrite the table floe wrote to, and floe reads the result.
    spark.sql(
        f"CALL lakehouse.system.rewrite_data_files(table => '{table}', "
        f"options => map('min-input-files', '2'))"
    ).collect()
    snapshots = check_metadata_tables(spark, floe, table)
    assert [s["operation"] for s in snapshots] == ["append"] * 4 + ["replace"]
    assert snapshots[-1]["parent-snapshot-id"] == ids[-1]
    assert rows_of(floe.read(table)) == rows_of([r for b in batches for r in b])
