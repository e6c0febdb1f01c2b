"""Spark opens floe's catalog and reads every snapshot floe wrote, and its metadata tables, and
each table at a catalog tag floe made."""

import floe as floe_package
import pytest

from .support import (
    SPARK_DDL,
    check_file_metrics,
    check_metadata_tables,
    check_schema_seen_by_spark,
    make_rows,
    partition_of,
    rows_of,
    spark_read,
    to_arrow,
    to_spark,
)
from catalog_tag_runs import RUNS, write_two_runs_tagged_between  # noqa: I001 - tests/interop, on the path .support sets

DAYS_AND_BUCKETS = "lakehouse.system.days(ts), lakehouse.system.bucket(16, id)"


def test_unpartitioned_appends_and_overwrite(spark, lakehouse, ns):
    floe, table = lakehouse, f"{ns}.orders"
    batches = [make_rows(1, 10), make_rows(11, 5), make_rows(16, 7)]
    floe.create(table, to_arrow(batches[0]))
    ids = [floe.append(table, to_arrow(b)) for b in batches]
    replacement = make_rows(100, 4)
    ids.append(floe.overwrite(table, to_arrow(replacement)))

    check_schema_seen_by_spark(spark, table)
    expected = [batches[0], batches[0] + batches[1], batches[0] + batches[1] + batches[2], replacement]
    for snapshot_id, want in zip(ids, expected):
        assert spark_read(spark, table, snapshot_id) == rows_of(want), f"VERSION AS OF {snapshot_id}"
    assert spark_read(spark, table) == rows_of(replacement)

    ours = check_metadata_tables(spark, floe, table)
    assert [s["operation"] for s in ours] == ["append", "append", "append", "overwrite"]
    assert [s["snapshot-id"] for s in ours] == ids
    assert [s["parent-snapshot-id"] for s in ours] == [None, *ids[:3]]
    assert check_file_metrics(spark, table) == 1

    # Spark's filters over floe's column bounds.
    got = spark.sql(f"SELECT id FROM lakehouse.{table} VERSION AS OF {ids[2]} WHERE amount > 20").collect()
    assert sorted(r.id for r in got) == [i for i in range(1, 23) if i * 1.25 > 20 and i % 6]


def test_partitioned_by_day_and_bucket(spark, lakehouse, ns):
    floe, table = lakehouse, f"{ns}.events"
    batches = [make_rows(1, 40), make_rows(41, 20), make_rows(61, 15)]
    floe.create(table, to_arrow(batches[0]), "day(ts)", "bucket(16,id)")
    ids = [floe.append(table, to_arrow(b)) for b in batches]
    # A dynamic overwrite replaces the partitions its rows fall in, by Java's transforms.
    replacement = make_rows(200, 3)
    ids.append(floe.overwrite(table, to_arrow(replacement), "dynamic"))

    check_schema_seen_by_spark(spark, table)
    spec = spark.sql(f"DESCRIBE TABLE EXTENDED lakehouse.{table}").collect()
    partitioning = [r.data_type for r in spec if r.col_name.startswith("Part ")]
    assert partitioning == ["days(ts)", "bucket(16, id)"], partitioning

    before = batches[0] + batches[1] + batches[2]
    replaced = set(partition_of(spark, replacement, DAYS_AND_BUCKETS).values())
    partition = partition_of(spark, before, DAYS_AND_BUCKETS)
    kept = [r for r in before if partition[r["id"]] not in replaced]
    assert len(kept) < len(before), "the overwrite should replace some partitions"
    expected = [batches[0], batches[0] + batches[1], before, kept + replacement]
    for snapshot_id, want in zip(ids, expected):
        assert spark_read(spark, table, snapshot_id) == rows_of(want), f"VERSION AS OF {snapshot_id}"

    ours = check_metadata_tables(spark, floe, table)
    assert [s["operation"] for s in ours] == ["append", "append", "append", "overwrite"]

    # Each row lies in a file whose partition tuple is what Java's transforms give for it.
    wrong = spark.sql(
        f"SELECT id, ts, _partition.ts_day AS day, _partition.id_bucket AS bucket, "
        f"lakehouse.system.days(ts) AS want_day, lakehouse.system.bucket(16, id) AS want_bucket "
        f"FROM lakehouse.{table} VERSION AS OF {ids[2]} "
        f"WHERE _partition.ts_day <> lakehouse.system.days(ts) "
        f"OR _partition.id_bucket <> lakehouse.system.bucket(16, id)"
    ).collect()
    assert wrong == [], f"floe put rows in the wrong partition: {wrong[:3]}"

    # Spark prunes by floe's partition values and bounds and still finds the rows.
    for i in (7, 45, 70):
        got = spark.sql(f"SELECT id FROM lakehouse.{table} VERSION AS OF {ids[2]} WHERE id = {i}").collect()
        assert [r.id for r in got] == [i], f"id = {i}"
    got = spark.sql(
        f"SELECT count(*) FROM lakehouse.{table} VERSION AS OF {ids[2]} "
        f"WHERE ts >= TIMESTAMP '2024-01-03 00:00:00' AND ts < TIMESTAMP '2024-01-04 00:00:00'"
    ).first()[0]
    assert got == sum(1 for r in before if r["ts"].day == 3)
    assert check_file_metrics(spark, table) > 1


TRANSFORMS = [
    # (floe_interop's partition argument, the same transform through Iceberg's Spark functions)
    ("customer", "customer"),
    ("truncate(1,customer)", "lakehouse.system.truncate(1, customer)"),
    ("bucket(8,customer)", "lakehouse.system.bucket(8, customer)"),
    ("truncate(10,id)", "lakehouse.system.truncate(10, id)"),
    ("bucket(4,amount)", "lakehouse.system.bucket(4, amount)"),
    ("truncate(500,amount)", "lakehouse.system.truncate(500, amount)"),
    ("hour(ts)", "lakehouse.system.hours(ts)"),
    ("month(local_ts)", "lakehouse.system.months(local_ts)"),
    ("bucket(4,local_ts)", "lakehouse.system.bucket(4, local_ts)"),
    ("year(day)", "lakehouse.system.years(day)"),
    ("bucket(4,day)", "lakehouse.system.bucket(4, day)"),
]


def test_every_transform_matches_java(spark, lakehouse, ns):
    """floe partitions rows by each transform exactly as Iceberg's Java transforms do, and Spark
    prunes floe's files by those partition values and still finds every row."""
    floe, table = lakehouse, f"{ns}.transforms"
    data = make_rows(-10, 30)
    floe.create(table, to_arrow(data), *(arg for arg, _ in TRANSFORMS))
    snapshot = floe.append(table, to_arrow(data))
    assert spark_read(spark, table, snapshot) == rows_of(data)

    fields = spark.table(f"lakehouse.{table}").select("_partition").schema["_partition"].dataType.names
    assert len(fields) == len(TRANSFORMS), fields
    mismatches = []
    for name, (arg, java) in zip(fields, TRANSFORMS):
        wrong = spark.sql(
            f"SELECT id, _partition.{name} AS floe, {java} AS java FROM lakehouse.{table} "
            f"WHERE NOT (_partition.{name} <=> {java})"
        ).collect()
        if wrong:
            mismatches.append(f"{arg} (partition field {name}): {[tuple(r) for r in wrong[:3]]}")
    assert not mismatches, "floe's partition values differ from Java's: " + "; ".join(mismatches)

    to_spark(spark, data).createOrReplaceTempView("floe_rows")
    for where in ["customer = 'c3'", "id = -7", "amount = 12.50", "day = DATE '2024-01-02'",
                  "ts = TIMESTAMP '2024-01-03 02:02:00.000002'", "customer IS NULL"]:
        got = sorted(r.id for r in spark.sql(f"SELECT id FROM lakehouse.{table} WHERE {where}").collect())
        want = sorted(r.id for r in spark.sql(f"SELECT id FROM floe_rows WHERE {where}").collect())
        assert got == want and got, f"WHERE {where}: Spark finds {got} in floe's files, the rows hold {want}"


@pytest.mark.parametrize("mode", ["copy-on-write", "merge-on-read"])
@pytest.mark.parametrize("partitioned", [False, True], ids=["unpartitioned", "partitioned"])
def test_spark_reads_floe_deletes_and_updates(spark, lakehouse, ns, mode, partitioned):
    """floe's DELETE and UPDATE in either mode: Spark reads the same rows as floe at every snapshot."""
    floe = lakehouse
    table = f"{ns}.deletes_{mode.replace('-', '_')}_{'p' if partitioned else 'u'}"
    floe.create(table, to_arrow(make_rows(1, 30)), *(["bucket(4,id)"] if partitioned else []))
    floe.sql(
        f"ALTER TABLE lakehouse.{table} SET TBLPROPERTIES "
        f"('write.delete.mode' = '{mode}', 'write.update.mode' = '{mode}')"
    )
    floe.append(table, to_arrow(make_rows(1, 30)))
    floe.append(table, to_arrow(make_rows(31, 20)))
    floe.sql(f"DELETE FROM lakehouse.{table} WHERE id % 3 = 0")
    floe.sql(f"DELETE FROM lakehouse.{table} WHERE customer = 'c2' AND id > 10")
    floe.append(table, to_arrow(make_rows(51, 5)))
    floe.sql(f"DELETE FROM lakehouse.{table} WHERE id IN (1, 52)")
    floe.sql(f"UPDATE lakehouse.{table} SET customer = 'vip', amount = amount * 2 WHERE id > 40")

    # The first two deletes came before rows 51-55 were appended; a NULL customer is not 'c2'.
    want = [
        r for r in make_rows(1, 50)
        if r["id"] % 3 and not (r["customer"] == "c2" and r["id"] > 10) and r["id"] != 1
    ] + [r for r in make_rows(51, 5) if r["id"] != 52]
    want = [r | {"customer": "vip", "amount": r["amount"] * 2} if r["id"] > 40 else r for r in want]
    assert rows_of(floe.read(table)) == rows_of(want)
    ours = check_metadata_tables(spark, floe, table)
    operations = [s["operation"] for s in ours]
    row_level = "overwrite" if mode == "copy-on-write" else "delete"
    assert operations == ["append", "append", row_level, row_level, "append", row_level, "overwrite"], operations
    for s in ours:
        assert spark_read(spark, table, s["snapshot-id"]) == rows_of(floe.read(table, s["snapshot-id"]))
    assert spark_read(spark, table) == rows_of(want)
    if mode == "merge-on-read":
        assert int(ours[-1]["summary"]["total-position-deletes"]) > 0
        count = spark.sql(f"SELECT count(*) AS n FROM lakehouse.{table}.delete_files").collect()[0].n
        assert count > 0
    else:
        assert ours[-1]["summary"]["total-delete-files"] == "0"


MERGES = [
    # An upsert whose source holds deletes too: matched rows updated or deleted, new ones inserted.
    "MERGE INTO lakehouse.{t} t USING lakehouse.{s} s ON t.id = s.id "
    "WHEN MATCHED AND s.id % 5 = 0 THEN DELETE "
    "WHEN MATCHED THEN UPDATE SET t.customer = s.customer, t.amount = t.amount + s.amount "
    "WHEN NOT MATCHED AND s.id % 2 = 0 THEN INSERT *",
    # Target rows no source row joins, by the source's day: closed out or deleted.
    "MERGE INTO lakehouse.{t} t USING (SELECT * FROM lakehouse.{s} WHERE id < 40) s "
    "ON t.id = s.id AND t.day = s.day "
    "WHEN MATCHED THEN UPDATE SET * "
    "WHEN NOT MATCHED BY SOURCE AND t.id > 60 THEN DELETE "
    "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET customer = 'closed'",
    # Only new rows: an append.
    "MERGE INTO lakehouse.{t} t USING (SELECT id + 100 AS id, customer, amount, score, ts, "
    "local_ts, day FROM lakehouse.{s}) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *",
]


@pytest.mark.parametrize("mode", ["copy-on-write", "merge-on-read"])
@pytest.mark.parametrize("partitioned", [False, True], ids=["unpartitioned", "partitioned"])
def test_spark_reads_floe_merges(spark, lakehouse, ns, mode, partitioned):
    """floe's MERGE INTO in either mode leaves the rows Spark's own MERGE leaves on a twin
    table, and Spark reads every snapshot floe wrote as floe does."""
    floe = lakehouse
    suffix = f"{mode.replace('-', '_')}_{'p' if partitioned else 'u'}"
    table, twin, source = f"{ns}.merge_{suffix}", f"{ns}.merge_twin_{suffix}", f"{ns}.merge_src_{suffix}"
    spec = ["bucket(4,id)"] if partitioned else []
    floe.create(table, to_arrow(make_rows(1, 1)), *spec)
    floe.sql(f"ALTER TABLE lakehouse.{table} SET TBLPROPERTIES ('write.merge.mode' = '{mode}')")
    floe.append(table, to_arrow(make_rows(1, 40)))
    floe.append(table, to_arrow(make_rows(41, 30)))
    floe.create(source, to_arrow(make_rows(1, 1)))
    floe.append(source, to_arrow([r | {"customer": "new", "amount": r["amount"] + 1} for r in make_rows(30, 20)]))

    partitioning = " PARTITIONED BY (bucket(4, id))" if partitioned else ""
    spark.sql(f"CREATE TABLE lakehouse.{twin} ({SPARK_DDL}) USING iceberg{partitioning} "
              f"TBLPROPERTIES ('write.merge.mode' = '{mode}')")
    spark.sql(f"INSERT INTO lakehouse.{twin} SELECT * FROM lakehouse.{table}")

    for merge in MERGES:
        floe.sql(merge.format(t=table, s=source))
        spark.sql(merge.format(t=twin, s=source))
        assert rows_of(floe.read(table)) == spark_read(spark, twin), merge

    ours = check_metadata_tables(spark, floe, table)
    operations = [s["operation"] for s in ours]
    assert operations == ["append", "append", "overwrite", "overwrite", "append"], operations
    for s in ours:
        assert spark_read(spark, table, s["snapshot-id"]) == rows_of(floe.read(table, s["snapshot-id"]))
    if mode == "merge-on-read":
        assert int(ours[-1]["summary"]["total-position-deletes"]) > 0
    else:
        assert ours[-1]["summary"]["total-delete-files"] == "0"


def test_merge_cardinality_violation_as_spark_reports_it(spark, lakehouse, ns):
    """A target row two source rows match: floe fails as Spark does and commits nothing."""
    floe = lakehouse
    table, source = f"{ns}.merge_twice", f"{ns}.merge_twice_src"
    floe.create(table, to_arrow(make_rows(1, 1)))
    floe.append(table, to_arrow(make_rows(1, 10)))
    floe.create(source, to_arrow(make_rows(1, 1)))
    floe.append(source, to_arrow(make_rows(5, 2) + make_rows(5, 1)))
    merge = (f"MERGE INTO lakehouse.{table} t USING lakehouse.{source} s ON t.id = s.id "
             "WHEN MATCHED THEN UPDATE SET customer = 'twice'")
    before = floe.snapshots(table)
    with pytest.raises(Exception) as spark_error:
        spark.sql(merge).collect()
    with pytest.raises(Exception) as floe_error:
        floe.sql(merge)
    message = (
        "[MERGE_CARDINALITY_VIOLATION] The ON search condition of the MERGE statement matched a single row "
        "from the target table with multiple rows of the source table."
    )
    assert message in str(spark_error.value)
    assert message in str(floe_error.value)
    assert floe.snapshots(table) == before


def test_spark_reads_floe_provenance_keys_and_keeps_committing(spark, lakehouse, ns):
    """floe's floe.* summary keys are visible to Spark in .snapshots and change nothing else:
    Spark still reads and writes the table, and its own snapshots carry none of them."""
    floe = lakehouse
    table = f"{ns}.provenance"
    floe.sql(f"CREATE TABLE {table} (id BIGINT, name STRING) USING iceberg")
    floe.sql(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO lakehouse.{table} VALUES (3, 'c')")
    rows = spark.sql(
        f"SELECT summary['floe.client'] AS client, summary['floe.statement'] AS statement, "
        f"summary['floe.user'] IS NOT NULL AS has_user, summary['total-records'] AS total "
        f"FROM lakehouse.{table}.snapshots ORDER BY committed_at"
    ).collect()
    assert [tuple(r) for r in rows] == [
        ("floe sql", f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b')", True, "2"),
        (None, None, False, "3"),
    ]
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM lakehouse.{table}").collect()) == [1, 2, 3]
    assert [r["statement"] for r in floe.sql(
        f"SELECT summary['floe.statement'] AS statement FROM {table}.snapshots "
        "WHERE summary['floe.statement'] LIKE 'INSERT%'"
    )] == [f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b')"]


def test_spark_reads_a_catalog_tag_floe_made(spark, lakehouse, ns):
    """floe (the Python package) writes two runs of two tables, each run one transaction, and
    tags the namespace's tables between them with CREATE CATALOG TAG: Spark reads every table
    at the tag (VERSION AS OF 'run_1') with run 1's rows only, finds the tag ref in .refs, and
    reads both runs current; SHOW CATALOG TAGS lists the tag."""
    # On S3 the connection takes the server's AWS_* settings from the environment.
    with floe_package.connect(catalog=lakehouse.catalog, warehouse=lakehouse.warehouse,
                              catalog_name=lakehouse.catalog_name) as conn:
        run_1 = write_two_runs_tagged_between(conn, ns)

    c = lakehouse.catalog_name
    for table, rows in RUNS.items():
        t = f"{c}.{ns}.{table}"
        refs = spark.sql(f"SELECT name, type, snapshot_id FROM {t}.refs WHERE name = 'run_1'").collect()
        assert [tuple(r) for r in refs] == [("run_1", "TAG", run_1[table])], table
        assert sorted(tuple(r) for r in spark.sql(f"SELECT run, id FROM {t} VERSION AS OF 'run_1'").collect()) == (
            rows(1)), table
        assert sorted(tuple(r) for r in spark.sql(f"SELECT run, id FROM {t}").collect()) == rows(1) + rows(2), table
