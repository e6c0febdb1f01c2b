"""Regenerates the fuzz seed corpora under tests/fuzz/corpus/<target>/.

Sources: a table written by floe (build/floe), tables written by PyIceberg (format v1 and
v2), tables written by Spark with Iceberg 1.10 when build-spark/ is set up
(tests/fuzz/make_spark_corpus.py), the metadata fixtures of tests/data/spec, the Puffin
fixtures of tests/data/manifest, and the SQL statements of tests/sql/**/*.test
plus statements against the fuzz engine's own tables. Files are named by content hash.

    .venv/bin/python tests/fuzz/make_corpus.py     # after scripts/build.sh release --target floe_cli
"""

import datetime as dt
import decimal
import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests/fuzz/corpus"
FLOE = ROOT / "build/floe"
MAX_SQL = 512  # the engine target's -max_len

# The same tables the engine target builds (tests/fuzz/fuzz_support.cc), plus a delete.
FLOE_SETUP = """
CREATE NAMESPACE db;
CREATE TABLE db.t (id bigint, name string, ts timestamp, amount decimal(10,2))
  USING iceberg PARTITIONED BY (days(ts));
INSERT INTO db.t VALUES (1, 'ann', TIMESTAMP '2025-01-01 09:00:00', 10.50),
  (2, NULL, TIMESTAMP '2025-01-01 17:30:00', NULL), (3, 'cy', TIMESTAMP '2025-01-02 08:00:00', -3.25);
ALTER TABLE db.t CREATE TAG v1;
ALTER TABLE db.t ADD COLUMN note string;
INSERT INTO db.t VALUES (4, 'dee', TIMESTAMP '2025-01-03 12:00:00', 0.01, 'late');
INSERT OVERWRITE db.t SELECT * FROM db.t WHERE id <> 2;
CREATE TABLE db.plain (k int, v string, d double) USING iceberg;
INSERT INTO db.plain VALUES (1, 'x', 1.5), (NULL, 'y', NULL);
"""

# Statements that exercise the engine target's tables (db.t, db.u).
ENGINE_SQL = [
    "SELECT * FROM db.t ORDER BY id",
    "SELECT name, sum(amount) FROM db.t GROUP BY name HAVING count(*) > 0 ORDER BY 1 NULLS LAST",
    "SELECT * FROM db.t VERSION AS OF 'v1' WHERE ts >= TIMESTAMP '2025-01-01 12:00:00'",
    "SELECT * FROM db.t.branch_dev",
    "SELECT * FROM db.t.tag_v1 t JOIN db.u u ON t.id = u.k",
    "SELECT * FROM db.t TIMESTAMP AS OF '2030-01-01 00:00:00'",
    "SELECT snapshot_id, operation FROM db.t.snapshots",
    "SELECT * FROM db.t.history",
    "SELECT * FROM db.t.refs",
    "SELECT file_path, record_count FROM db.t.files",
    "SELECT * FROM db.t.manifests",
    "SELECT * FROM db.t.partitions",
    "SELECT * FROM db.t.metadata_log_entries",
    'SELECT * FROM db."t$snapshots"',
    "CALL lakehouse.system.ancestors_of('db.t')",
    "CALL lakehouse.system.rollback_to_timestamp('db.t', TIMESTAMP '2025-01-01 00:00:00')",
    "CALL lakehouse.system.fast_forward('db.t', 'main', 'dev')",
    "INSERT INTO db.t VALUES (9, 'zed', TIMESTAMP '2025-02-01 00:00:00', 1.00, NULL); SELECT count(*) FROM db.t",
    "DESCRIBE EXTENDED db.t",
    "SHOW CREATE TABLE db.t",
    "SHOW TBLPROPERTIES db.t",
    "EXPLAIN SELECT id FROM db.t WHERE amount > 1 AND name LIKE 'a%'",
    "WITH x AS (SELECT k FROM db.u) SELECT * FROM db.t WHERE id IN (SELECT k FROM x)",
    "SELECT CAST(amount AS string), coalesce(name, 'none'), CASE WHEN id > 2 THEN 'b' END FROM db.t",
    "ALTER TABLE db.t RENAME COLUMN name TO who; SELECT who FROM db.t",
    "SET spark.sql.session.timeZone = 'America/New_York'; SELECT ts FROM db.t",
    "CREATE CATALOG TAG run_1 IN NAMESPACE db RETAIN 7 DAYS; SHOW CATALOG TAGS",
    "CREATE CATALOG TAG run_1; INSERT INTO db.u VALUES (1); "
    "CALL lakehouse.system.rollback_to_catalog_tag(tag => 'run_1', include_new_tables => true)",
    "CREATE CATALOG TAG run_1; SET floe.read.as-of-tag = 'run_1'; SELECT * FROM db.t; DROP CATALOG TAG run_1",
    "BEGIN; INSERT INTO db.u VALUES (1); DELETE FROM db.t WHERE id = 1; SELECT count(*) FROM db.t; COMMIT",
    "BEGIN; SAVEPOINT a; UPDATE db.t SET name = 'x' WHERE id = 2; ROLLBACK TO SAVEPOINT a; "
    "RELEASE SAVEPOINT a; INSERT INTO db.u VALUES (2); COMMIT TAG run_2 IN NAMESPACE db RETAIN 1 DAYS",
    "START TRANSACTION; SELECT * FROM db.missing; INSERT INTO db.u VALUES (3); COMMIT; ROLLBACK",
    "BEGIN; CREATE TABLE db.v (x INT); ABORT; BEGIN; BEGIN; END",
]


def put(target: str, data: bytes) -> None:
    out = CORPUS / target
    out.mkdir(parents=True, exist_ok=True)
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)


def table_files(root: Path) -> None:
    """Files of every table under `root`, each to the corpora that read its kind."""
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.name.endswith(".metadata.json"):
            put("metadata_json_fuzz", data)
        elif path.suffix == ".avro":
            # Manifest lists are named snap-<id>-...; everything else is a manifest.
            put("manifest_list_fuzz" if path.name.startswith("snap-") else "manifest_fuzz", data)
            put("avro_container_fuzz", data)
        elif path.suffix == ".parquet":
            put("parquet_fuzz", data)


def paged_parquet() -> None:
    """A Parquet file of several small pages with a page index, so that filtered reads skip pages."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    def field(name: str, type_: pa.DataType, field_id: int) -> pa.Field:
        return pa.field(name, type_, metadata={b"PARQUET:field_id": str(field_id).encode()})

    n = 4096
    table = pa.table(
        [pa.array(range(n), pa.int64()),
         pa.array([None if i % 700 < 100 else i * 1_000_000 for i in range(n)], pa.timestamp("us")),
         pa.array([f"n{i}" for i in range(n)])],
        schema=pa.schema([field("id", pa.int64(), 1), field("ts", pa.timestamp("us"), 3), field("name", pa.string(), 2)]))
    out = io.BytesIO()
    pq.write_table(table, out, row_group_size=2048, data_page_size=1024, write_batch_size=256,
                   use_dictionary=False, write_page_index=True, compression="zstd")
    put("parquet_fuzz", out.getvalue())


def floe_tables(tmp: Path) -> None:
    if not FLOE.exists():
        sys.exit(f"{FLOE} is missing: scripts/build.sh release --target floe_cli")
    script = tmp / "setup.sql"
    script.write_text(FLOE_SETUP)
    warehouse = tmp / "floe"
    subprocess.run([str(FLOE), "sql", "--catalog", str(tmp / "floe.db"), "--warehouse",
                    str(warehouse), "-f", str(script)], check=True, stdout=subprocess.DEVNULL)
    table_files(warehouse)


def pyiceberg_tables(tmp: Path) -> None:
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import BucketTransform, DayTransform
    from pyiceberg.types import DecimalType, LongType, NestedField, StringType, TimestampType

    warehouse = tmp / "pyiceberg"
    warehouse.mkdir()
    catalog = SqlCatalog("lakehouse", uri=f"sqlite:///{tmp / 'py.db'}", warehouse=f"file://{warehouse}")
    catalog.create_namespace("db")
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "name", StringType(), required=False),
        NestedField(3, "ts", TimestampType(), required=False),
        NestedField(4, "amount", DecimalType(10, 2), required=False),
    )
    rows = pa.table(
        {
            "id": pa.array([1, 2, 3], pa.int64()),
            "name": pa.array(["ann", None, "cy"], pa.large_string()),
            "ts": pa.array([dt.datetime(2025, 1, 1, 9), dt.datetime(2025, 1, 1, 17), None], pa.timestamp("us")),
            "amount": pa.array([decimal.Decimal("10.50"), None, decimal.Decimal("-3.25")], pa.decimal128(10, 2)),
        },
        schema=schema.as_arrow(),
    )
    specs = {
        "t2": PartitionSpec(PartitionField(3, 1000, DayTransform(), "ts_day")),
        "b2": PartitionSpec(PartitionField(1, 1000, BucketTransform(4), "id_bucket")),
    }
    for name, spec in specs.items():
        table = catalog.create_table(f"db.{name}", schema=schema, partition_spec=spec)
        table.append(rows)
        table.append(rows.slice(0, 1))
        table.delete("id = 3")
    v1 = catalog.create_table("db.t1", schema=schema, partition_spec=specs["t2"],
                              properties={"format-version": "1"})
    v1.append(rows)
    table_files(warehouse)


def spec_fixtures() -> None:
    for path in sorted((ROOT / "tests/data/spec").glob("*.json")):
        put("metadata_json_fuzz", path.read_bytes())


def puffin_files() -> None:
    """The Puffin file Spark wrote (tests/data/manifest), its deletion vectors alone, and
    damaged copies: cut short, a footer flagged as compressed, a flipped CRC. The seeds of
    floe's own encoder and writer in tests/fuzz/corpus/puffin_fuzz are kept as they are."""
    for path in sorted((ROOT / "tests/data/manifest").glob("*.puffin")):
        data = path.read_bytes()
        put("puffin_fuzz", data)
        put("puffin_fuzz", data[:len(data) // 2])
        flagged = bytearray(data)
        flagged[-8] |= 1
        put("puffin_fuzz", bytes(flagged))
        # Each blob (its length field says how long it is), and its bitmap alone, which the
        # target also reads framed with the right length, magic and CRC.
        at = 4
        while data[at:at + 4] != b"PFA1":
            blob = data[at:at + 8 + int.from_bytes(data[at:at + 4], "big")]
            put("puffin_fuzz", blob)
            put("puffin_fuzz", blob[:-1] + bytes([blob[-1] ^ 1]))
            put("puffin_fuzz", blob[8:-4])
            at += len(blob)


def sql_statements() -> None:
    statements = list(ENGINE_SQL)
    for test in sorted((ROOT / "tests/sql").rglob("*.test")):
        lines = test.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].startswith(("statement ", "query ")):
                body = []
                i += 1
                while i < len(lines) and lines[i].strip() and lines[i] != "----":
                    body.append(lines[i])
                    i += 1
                statements.append("\n".join(body))
            i += 1
    for sql in statements:
        data = sql.encode()
        if 0 < len(data) <= MAX_SQL:
            put("sql_engine_fuzz", data)
            put("sql_parser_fuzz", data)


def main() -> None:
    for target in ["metadata_json_fuzz", "manifest_fuzz", "manifest_list_fuzz",
                   "avro_container_fuzz", "parquet_fuzz", "sql_engine_fuzz", "sql_parser_fuzz"]:
        shutil.rmtree(CORPUS / target, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="floe-corpus-") as tmp:
        floe_tables(Path(tmp))
        pyiceberg_tables(Path(tmp))
    spark_python = ROOT / "build-spark/venv/bin/python"
    if spark_python.exists():
        subprocess.run([str(spark_python), str(Path(__file__).with_name("make_spark_corpus.py"))], check=True)
    else:
        print("build-spark/ is not set up (scripts/setup-spark.sh): no Spark-written seeds")
    spec_fixtures()
    paged_parquet()
    puffin_files()
    sql_statements()
    for target in sorted(p.name for p in CORPUS.iterdir()):
        files = list((CORPUS / target).iterdir())
        print(f"{target}: {len(files)} files, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()
