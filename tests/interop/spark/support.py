"""Helpers of the Spark interop suite: the floe_interop driver, the test data, and rows of
Spark and of Arrow turned into the same plain Python values."""

from __future__ import annotations

import base64
import calendar
import datetime as dt
import decimal
import sys
from pathlib import Path

import pyarrow as pa

# The driver lives beside the PyIceberg suite; this package is collected on its own.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from floe_driver import DRIVER, ROOT, Floe  # noqa: E402,F401

UTC = dt.timezone.utc


# The test data: one schema, written by both engines.
#   id bigint, customer string, amount decimal(10,2), score double, ts timestamptz,
#   local_ts timestamp (without zone), day date
COLUMNS = ["id", "customer", "amount", "score", "ts", "local_ts", "day"]

ARROW_SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("customer", pa.string()),
        ("amount", pa.decimal128(10, 2)),
        ("score", pa.float64()),
        ("ts", pa.timestamp("us", tz="UTC")),
        ("local_ts", pa.timestamp("us")),
        ("day", pa.date32()),
    ]
)

SPARK_DDL = (
    "id BIGINT, customer STRING, amount DECIMAL(10,2), score DOUBLE, ts TIMESTAMP, "
    "local_ts TIMESTAMP_NTZ, day DATE"
)


def make_rows(first: int, count: int) -> list[dict]:
    """Rows with ids first..first+count-1, over four days of January 2024, some nulls."""
    out = []
    for i in range(first, first + count):
        ts = dt.datetime(2024, 1, 1 + i % 4, i % 24, i % 60, 0, i % 1000, tzinfo=UTC)
        out.append(
            {
                "id": i,
                "customer": f"c{i % 5}" if i % 7 else None,
                "amount": decimal.Decimal(i * 125) / 100 if i % 6 else decimal.Decimal("-0.01"),
                "score": i * 0.5 if i % 4 else None,
                "ts": ts,
                "local_ts": ts.replace(tzinfo=None) + dt.timedelta(hours=3),
                "day": ts.date(),
            }
        )
    return out


def to_arrow(rows: list[dict]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=ARROW_SCHEMA)


def to_spark(spark, rows: list[dict]):
    return spark.createDataFrame([tuple(r[c] for c in COLUMNS) for r in rows], SPARK_DDL)


def plain(value):
    """One value as both engines should agree on it: timestamps with a zone become naive UTC
    (Spark hands them back naive, in the session time zone, which the suite sets to UTC)."""
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _sorted(rows: list[dict]) -> list[dict]:
    rows = [{k: plain(v) for k, v in r.items()} for r in rows]
    return sorted(rows, key=lambda r: (r.get("id") is None, r.get("id"), repr(r)))


def rows_of(data) -> list[dict]:
    """Rows of an Arrow table, a Spark DataFrame, a list of Spark Rows or of dicts, as sorted
    plain dicts."""
    if isinstance(data, pa.Table):
        return _sorted(data.to_pylist())
    if hasattr(data, "collect"):
        data = data.collect()
    return _sorted([r.asDict(recursive=True) if hasattr(r, "asDict") else dict(r) for r in data])


def millis(value: dt.datetime) -> int:
    """A timestamp Spark returned (naive, UTC) as epoch milliseconds."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return calendar.timegm(value.timetuple()) * 1000 + value.microsecond // 1000


# Reading and checking through Spark.


def spark_read(spark, table: str, snapshot_id: int | None = None) -> list[dict]:
    """`SELECT *` of lakehouse.TABLE, as of a snapshot when one is given, as sorted rows."""
    sql = f"SELECT * FROM lakehouse.{table}"
    if snapshot_id is not None:
        sql += f" VERSION AS OF {snapshot_id}"
    df = spark.sql(sql)
    assert df.columns == COLUMNS, f"{sql}: columns {df.columns}"
    return rows_of(df)


def check_schema_seen_by_spark(spark, table: str) -> None:
    types = {f.name: f.dataType.simpleString() for f in spark.table(f"lakehouse.{table}").schema.fields}
    assert types == {
        "id": "bigint",
        "customer": "string",
        "amount": "decimal(10,2)",
        "score": "double",
        "ts": "timestamp",
        "local_ts": "timestamp_ntz",
        "day": "date",
    }, f"{table}: Spark sees the columns as {types}"


def check_metadata_tables(spark, floe, table: str) -> list[dict]:
    """Spark's snapshots, history and entries metadata tables say what floe_interop's
    `snapshots` says: ids, parents, operations, summaries, times and sequence numbers.
    Returns floe's snapshots. Both engines name the catalog as floe does (floe.catalog_name)."""
    c = floe.catalog_name
    ours = floe.snapshots(table)
    by_id = {s["snapshot-id"]: s for s in ours}
    snaps = spark.sql(f"SELECT * FROM {c}.{table}.snapshots").collect()
    assert [r.snapshot_id for r in snaps] == [s["snapshot-id"] for s in ours], f"{table}: snapshot ids"
    for r in snaps:
        s = by_id[r.snapshot_id]
        where = f"{table} snapshot {r.snapshot_id}"
        assert r.parent_id == s["parent-snapshot-id"], f"{where}: parent"
        assert r.operation == s["operation"], f"{where}: operation"
        assert dict(r.summary) == s["summary"], f"{where}: summary"
        assert millis(r.committed_at) == s["timestamp-ms"], f"{where}: committed_at"

    # Every snapshot here was made current once, in order, on one line of history.
    history = spark.sql(f"SELECT * FROM {c}.{table}.history").collect()
    assert [(h.snapshot_id, h.parent_id, h.is_current_ancestor) for h in history] == [
        (s["snapshot-id"], s["parent-snapshot-id"], True) for s in ours
    ], f"{table}: history"
    for h in history:
        assert millis(h.made_current_at) == by_id[h.snapshot_id]["timestamp-ms"], f"{table}: made_current_at"

    # Data and delete files keep the sequence number of the snapshot that added them (floe's
    # manifests may leave it to be inherited; Java must get it right either way).
    added = spark.sql(
        f"SELECT snapshot_id, sequence_number, file_sequence_number, data_file.content AS content "
        f"FROM {c}.{table}.all_entries WHERE status = 1"
    ).collect()
    assert added, f"{table}: no added entries"
    for e in added:
        s = by_id[e.snapshot_id]
        # Data files, or position deletes of merge-on-read writes; never equality deletes.
        assert e.content in (0, 1), f"{table}: snapshot {e.snapshot_id} added an equality delete file"
        where = f"{table}: a file added by snapshot {e.snapshot_id} ({s['operation']}, sequence number {s['sequence-number']})"
        assert e.file_sequence_number == s["sequence-number"], f"{where} has file sequence number {e.file_sequence_number}"
        if s["operation"] == "replace":  # compaction keeps the data sequence number it started from
            assert e.sequence_number <= s["sequence-number"], f"{where} has sequence number {e.sequence_number}"
        else:
            assert e.sequence_number == s["sequence-number"], f"{where} has sequence number {e.sequence_number}"
    check_partitions_table(spark, floe, table)
    check_files_tables(spark, floe, table)
    return ours


def as_floe_text(value):
    """A value Spark returned as floe's JSON output writes it: dates and timestamps as their
    text (timestamps in UTC, the fraction only when non-zero), struct fields by name."""
    if isinstance(value, dt.datetime):
        text = plain(value).isoformat(sep=" ")
        return text.rstrip("0") if "." in text else text
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: as_floe_text(v) for k, v in value.items()}
    return value


def check_partitions_table(spark, floe, table: str) -> None:
    """floe's partitions table is Spark's: per partition the data files' records, files and
    bytes, the position and equality delete files' records and files, and the snapshot that
    last added a file to it."""
    c = floe.catalog_name
    rows = spark.sql(f"SELECT * FROM {c}.{table}.partitions").collect()
    theirs = [as_floe_text(r.asDict(recursive=True)) for r in rows]
    ours = floe.sql(f"SELECT * FROM {c}.{table}.partitions")
    key = lambda r: repr(sorted(r.items()))  # noqa: E731
    assert sorted(ours, key=key) == sorted(theirs, key=key), f"{table}: partitions table"


# The files table's columns floe has, with how floe's JSON writes each map's values.
FILE_METRIC_MAPS = {
    "column_sizes": int,
    "value_counts": int,
    "null_value_counts": int,
    "nan_value_counts": int,
    "lower_bounds": base64.b64decode,
    "upper_bounds": base64.b64decode,
}
FILE_COLUMNS = ["content", "file_path", "file_format", "spec_id", "record_count", "file_size_in_bytes",
                *FILE_METRIC_MAPS, "split_offsets", "equality_ids", "sort_order_id"]


def _floe_file_row(row: dict) -> dict:
    out = dict(row)
    for name, value_of in FILE_METRIC_MAPS.items():
        if out[name] is not None:
            out[name] = {int(k): value_of(v) for k, v in out[name].items()}
    return out


def _spark_file_row(row) -> dict:
    out = row.asDict(recursive=True)
    for name in ("lower_bounds", "upper_bounds"):
        if out[name] is not None:
            out[name] = {k: bytes(v) for k, v in out[name].items()}
    return out


def _check_file_rows(spark, floe, table: str, columns: list[str]) -> None:
    """`columns` of every file of floe's files, delete_files, all_files and all_delete_files
    tables are Spark's."""
    c = floe.catalog_name
    listed = ", ".join(columns)
    for metadata_table in ("files", "delete_files", "all_files", "all_delete_files"):
        sql = f"SELECT {listed} FROM {c}.{table}.{metadata_table}"
        theirs = sorted((_spark_file_row(r) for r in spark.sql(sql).collect()), key=repr)
        ours = sorted((_floe_file_row(r) for r in floe.sql(sql)), key=repr)
        assert len(ours) == len(theirs), f"{table}.{metadata_table}: {len(ours)} files, Spark {len(theirs)}"
        for a, b in zip(ours, theirs):
            assert a == b, f"{table}.{metadata_table}: floe {a}, Spark {b}"


def check_files_tables(spark, floe, table: str) -> None:
    """Every file of floe's files, delete_files and all_files tables, with the metric maps as
    the manifests hold them (NULL where a manifest has no map, {} where it has an empty one,
    as for a position delete file's value counts), is Spark's; and so are the entries table's
    statuses and contents and the all_manifests table's file counts."""
    c = floe.catalog_name
    _check_file_rows(spark, floe, table, FILE_COLUMNS)

    sql = (
        f"SELECT status, snapshot_id, data_file.content AS content, data_file.file_path AS path, "
        f"data_file.value_counts IS NULL AS no_value_counts FROM {c}.{table}.entries"
    )
    theirs = sorted(tuple(r) for r in spark.sql(sql).collect())
    ours = sorted(tuple(r.values()) for r in floe.sql(sql))
    assert ours == theirs, f"{table}.entries"

    sql = (
        f"SELECT content, path, added_data_files_count, existing_data_files_count, deleted_data_files_count, "
        f"added_delete_files_count, existing_delete_files_count, deleted_delete_files_count, "
        f"reference_snapshot_id FROM {c}.{table}.all_manifests"
    )
    theirs = sorted(tuple(r) for r in spark.sql(sql).collect())
    ours = sorted(tuple(r.values()) for r in floe.sql(sql))
    assert ours == theirs, f"{table}.all_manifests"


def partition_of(spark, rows: list[dict], transforms: str) -> dict[int, tuple]:
    """Each row's partition tuple by Iceberg's own (Java) transforms, by id: `transforms` is a
    select list over the test columns, e.g. "lakehouse.system.days(ts), lakehouse.system.bucket(16, id)"."""
    to_spark(spark, rows).createOrReplaceTempView("floe_rows")
    return {r[0]: tuple(r[1:]) for r in spark.sql(f"SELECT id, {transforms} FROM floe_rows").collect()}


def check_file_metrics(spark, table: str) -> int:
    """Each live data file's metrics, as Java decodes them (the `readable_metrics` of the files
    metadata table: bounds in the spec's binary form, counts), agree with the rows Spark reads
    from that file. Returns how many files were checked."""
    metrics = {
        r.file_path: r
        for r in spark.sql(
            f"SELECT file_path, record_count, readable_metrics FROM lakehouse.{table}.files WHERE content = 0"
        ).collect()
    }
    aggregates = ", ".join(f"min({c}) AS min_{c}, max({c}) AS max_{c}, count({c}) AS n_{c}" for c in COLUMNS)
    actual = spark.sql(
        f"SELECT _file, count(*) AS records, {aggregates} FROM lakehouse.{table} GROUP BY _file"
    ).collect()
    assert sorted(metrics) == sorted(r._file for r in actual), f"{table}: files metadata table vs _file"
    for a in actual:
        m = metrics[a._file]
        where = f"{table} file {a._file}"
        assert m.record_count == a.records, f"{where}: record_count"
        for c in COLUMNS:
            got = m.readable_metrics[c]
            assert got.value_count == a.records, f"{where}: {c} value_count {got.value_count}"
            assert got.null_value_count == a.records - a[f"n_{c}"], f"{where}: {c} null_value_count"
            assert (got.lower_bound, got.upper_bound) == (a[f"min_{c}"], a[f"max_{c}"]), (
                f"{where}: {c} bounds {got.lower_bound!r}..{got.upper_bound!r}, "
                f"rows {a[f'min_{c}']!r}..{a[f'max_{c}']!r}"
            )
    return len(actual)


def spark_rest_catalog(spark, lakehouse: Floe, catalog: str):
    """Starts floe's REST server on the lakehouse and points the Spark catalog `catalog` at
    it; returns the server, for the caller to stop."""
    server = lakehouse.serve_rest()
    conf = f"spark.sql.catalog.{catalog}"
    settings = {
        conf: "org.apache.iceberg.spark.SparkCatalog",
        f"{conf}.type": "rest",
        f"{conf}.uri": server.uri,
        # Never serve a cached table: every read loads the table from the server.
        f"{conf}.cache-enabled": "false",
    }
    if lakehouse.on_s3:
        # The server sends no storage configuration: Spark writes the table's files through
        # Iceberg's S3FileIO with the suite's S3 server, as its JDBC catalogs do.
        settings.update({
            f"{conf}.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
            f"{conf}.s3.endpoint": lakehouse.env["AWS_ENDPOINT_URL"],
            f"{conf}.s3.path-style-access": "true",
            f"{conf}.s3.access-key-id": lakehouse.env["AWS_ACCESS_KEY_ID"],
            f"{conf}.s3.secret-access-key": lakehouse.env["AWS_SECRET_ACCESS_KEY"],
            f"{conf}.client.region": lakehouse.env.get("AWS_REGION", "us-east-1"),
        })
    for key, value in settings.items():
        spark.conf.set(key, value)
    return server


# The columns format-version 3 adds to the files tables: where a deletion vector lives in its
# Puffin file (content_offset, content_size_in_bytes) and which data file it deletes from, and
# the row id of a data file's first row.
V3_FILE_COLUMNS = [*FILE_COLUMNS, "referenced_data_file", "content_offset", "content_size_in_bytes", "first_row_id"]


def check_v3_files_tables(spark, floe, table: str) -> None:
    """Every file of floe's files, delete_files, all_files and all_delete_files tables is
    Spark's, with the columns of format-version 3 too: deletion vectors are delete files
    (content 1, file_format PUFFIN) with their referenced data file, offset and size, and data
    files have the first row id Spark gives them (inherited from the manifest when the entry
    has none)."""
    _check_file_rows(spark, floe, table, V3_FILE_COLUMNS)
