"""Partition evolution across engines: Spark reads every snapshot of a table whose spec floe
evolved, and floe reads (and appends to) a table whose spec Spark evolved, with the same rows
and the same `files` and `partitions` metadata tables at every snapshot."""

import datetime as dt


def _norm(value):
    """One value as both engines' rows should agree on it (floe's JSON writes dates as text)."""
    if hasattr(value, "asDict"):
        value = value.asDict(recursive=True)
    if isinstance(value, dict):
        return {k: _norm(v) for k, v in value.items()}
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def _rows(rows) -> list[dict]:
    out = [_norm(r) for r in rows]
    return sorted(out, key=repr)


def _spark(spark, sql: str) -> list[dict]:
    return _rows(spark.sql(sql).collect())


def _floe(floe, sql: str) -> list[dict]:
    return _rows(floe.sql(sql))


def _head(floe, table: str) -> int:
    return floe.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'")[0]["snapshot_id"]


def _batch(first: int, count: int) -> list[tuple]:
    return [(i, f"c{i % 3}", f"2024-01-0{1 + i % 4} {i % 24:02d}:00:00") for i in range(first, first + count)]


def _values(batch: list[tuple]) -> str:
    return ", ".join(f"({i}, '{c}', TIMESTAMP '{ts}')" for i, c, ts in batch)


def _expected(rows: list[tuple]) -> list[dict]:
    return _rows({"id": i, "category": c, "ts": ts} for i, c, ts in rows)


ROWS = "SELECT id, category, CAST(ts AS STRING) AS ts FROM {t}{at}"
FILES = "SELECT file_path, spec_id, partition, record_count FROM {t}.files{at}"
PARTITIONS = "SELECT partition, spec_id, record_count, file_count FROM {t}.partitions{at}"


def _same_everywhere(spark, floe, table: str, snapshots: list[int], expected: list[list[tuple]]) -> None:
    for sid, rows in zip(snapshots, expected):
        at = f" VERSION AS OF {sid}"
        want = _expected(rows)
        assert _spark(spark, ROWS.format(t=table, at=at)) == want, f"Spark {table}{at}"
        assert _floe(floe, ROWS.format(t=table, at=at)) == want, f"floe {table}{at}"
        for what in (FILES, PARTITIONS):
            sql = what.format(t=table, at=at)
            assert _floe(floe, sql) == _spark(spark, sql), sql
    # Filters prune each file by its own spec in both engines.
    for where in ("category = 'c1'", "id = 7", "ts >= TIMESTAMP '2024-01-03 00:00:00'"):
        sql = f"SELECT id FROM {table} WHERE {where}"
        assert _floe(floe, sql) == _spark(spark, sql), sql


def _partitioning(spark, floe, table: str) -> list[str]:
    """The current spec as Spark describes it, after checking floe describes the table alike."""
    spark_rows = [r.asDict() for r in spark.sql(f"DESCRIBE TABLE {table}").collect()]
    assert floe.sql(f"DESCRIBE TABLE {table}") == spark_rows, f"DESCRIBE TABLE {table}"
    parts = [r["data_type"] for r in spark_rows if r["col_name"].startswith("Part ")]
    if any(r["col_name"] == "# Partition Information" for r in spark_rows):
        parts = [r["col_name"] for r in spark_rows[spark_rows.index({"col_name": "# col_name", "data_type": "data_type", "comment": "comment"}) + 1:]]
    return parts


def test_spark_reads_every_spec_floe_evolved(spark, lakehouse, ns):
    floe, table = lakehouse, f"lakehouse.{ns}.events"
    floe.sql(f"CREATE TABLE {table} (id BIGINT, category STRING, ts TIMESTAMP) USING iceberg PARTITIONED BY (category)")
    steps = [
        (None, ["category"]),
        (f"ALTER TABLE {table} ADD PARTITION FIELD bucket(4, id)", ["category", "bucket(4, id)"]),
        (f"ALTER TABLE {table} DROP PARTITION FIELD category", ["bucket(4, id)"]),
        (f"ALTER TABLE {table} REPLACE PARTITION FIELD id_bucket_4 WITH days(ts) AS day", ["days(ts)"]),
        (f"ALTER TABLE {table} ADD PARTITION FIELD category", ["days(ts)", "category"]),
    ]
    rows, snapshots, expected = [], [], []
    for n, (alter, partitioning) in enumerate(steps):
        if alter:
            floe.sql(alter)
        assert _partitioning(spark, floe, table) == partitioning, alter
        batch = _batch(10 * n + 1, 10)
        floe.sql(f"INSERT INTO {table} VALUES {_values(batch)}")
        rows += batch
        snapshots.append(_head(floe, table))
        expected.append(list(rows))

    specs = spark.sql(f"SELECT DISTINCT spec_id FROM {table}.files").collect()
    assert sorted(r.spec_id for r in specs) == [0, 1, 2, 3, 4]
    # The field category had in spec 0 came back with its id: one column of the partition type.
    fields = spark.sql(f"SELECT partition FROM {table}.files").schema["partition"].dataType.fieldNames()
    assert fields == ["category", "id_bucket_4", "day"], fields
    _same_everywhere(spark, floe, table, snapshots, expected)

    # Spark writes the same table in floe's latest spec, and floe reads it.
    batch = _batch(100, 5)
    spark.sql(f"INSERT INTO {table} VALUES {_values(batch)}")
    rows += batch
    snapshots.append(_head(floe, table))
    expected.append(list(rows))
    _same_everywhere(spark, floe, table, snapshots, expected)


def test_floe_reads_and_writes_a_spec_spark_evolved(spark, lakehouse, ns):
    floe, table = lakehouse, f"lakehouse.{ns}.events"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, category STRING, ts TIMESTAMP) USING iceberg PARTITIONED BY (days(ts))")
    steps = [
        None,
        f"ALTER TABLE {table} ADD PARTITION FIELD category",
        f"ALTER TABLE {table} DROP PARTITION FIELD ts_day",
        f"ALTER TABLE {table} REPLACE PARTITION FIELD category WITH truncate(1, category) AS head",
        f"ALTER TABLE {table} ADD PARTITION FIELD bucket(3, id)",
    ]
    rows, snapshots, expected = [], [], []
    for n, alter in enumerate(steps):
        if alter:
            spark.sql(alter)
        batch = _batch(10 * n + 1, 10)
        spark.sql(f"INSERT INTO {table} VALUES {_values(batch)}")
        rows += batch
        snapshots.append(_head(floe, table))
        expected.append(list(rows))
    _same_everywhere(spark, floe, table, snapshots, expected)

    # floe appends in Spark's latest spec; floe evolves it further and Spark follows.
    batch = _batch(100, 5)
    floe.sql(f"INSERT INTO {table} VALUES {_values(batch)}")
    rows += batch
    snapshots.append(_head(floe, table))
    expected.append(list(rows))
    spec_of = "SELECT DISTINCT _spec_id AS s FROM {t} WHERE id BETWEEN {a} AND {b}"
    spark_spec = spark.sql(spec_of.format(t=table, a=41, b=50)).collect()
    floe_spec = spark.sql(spec_of.format(t=table, a=100, b=104)).collect()
    assert [r.s for r in floe_spec] == [r.s for r in spark_spec] == [4]
    floe.sql(f"ALTER TABLE {table} DROP PARTITION FIELD head")
    assert _partitioning(spark, floe, table) == ["bucket(3, id)"]
    batch = _batch(200, 4)
    floe.sql(f"INSERT INTO {table} VALUES {_values(batch)}")
    rows += batch
    snapshots.append(_head(floe, table))
    expected.append(list(rows))
    _same_everywhere(spark, floe, table, snapshots, expected)


def test_nested_fields_floe_added_read_by_spark(spark, lakehouse, ns):
    floe, table = lakehouse, f"lakehouse.{ns}.shapes"
    floe.sql(f"CREATE TABLE {table} (id INT, point STRUCT<x: INT, y: INT>) USING iceberg")
    floe.sql(f"INSERT INTO {table} VALUES (1, named_struct('x', 1, 'y', 2))")
    floe.sql(f"ALTER TABLE {table} ADD COLUMN point.z DOUBLE AFTER x")
    floe.sql(f"ALTER TABLE {table} ALTER COLUMN point.x TYPE BIGINT")
    floe.sql(f"ALTER TABLE {table} ALTER COLUMN point.x COMMENT 'the x'")
    floe.sql(f"ALTER TABLE {table} RENAME COLUMN point.y TO yy")
    floe.sql(f"INSERT INTO {table} VALUES (2, named_struct('x', 5000000000, 'z', 2.5, 'yy', 3))")
    point = spark.table(table).schema["point"].dataType
    assert point.simpleString() == "struct<x:bigint,z:double,yy:int>"
    assert point["x"].metadata.get("comment") == "the x"
    got = [(r.id, r.point.x, r.point.z, r.point.yy) for r in spark.sql(f"SELECT * FROM {table} ORDER BY id").collect()]
    assert got == [(1, 1, None, 2), (2, 5000000000, 2.5, 3)]
