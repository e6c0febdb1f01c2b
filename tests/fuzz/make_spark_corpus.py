"""Adds seeds written by Spark 3.5 with Iceberg 1.10 to tests/fuzz/corpus: a partitioned table
with appends, an INSERT OVERWRITE, a copy-on-write DELETE and a merge-on-read DELETE (position
delete files), in format v2; and, of a format-v3 merge-on-read table, the manifest list and the
manifests of a snapshot with deletion vectors: data manifests listed with their first_row_id,
and delete manifests whose entries give each vector's referenced_data_file, content_offset and
content_size_in_bytes in a Puffin file (one vector replaced by a merged one: entries added,
existing and deleted). Run by make_corpus.py with build-spark/venv/bin/python.
"""

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from make_corpus import ROOT, put, table_files  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts"))
from spark_lakehouse import lakehouse_session  # noqa: E402

CLASSPATH = ROOT / "build-spark/classpath"


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="floe-spark-corpus-") as tmp:
        base = Path(tmp)
        warehouse = base / "warehouse"
        spark = lakehouse_session(
            app="floe-spark-corpus",
            classpath=CLASSPATH.read_text().strip(),
            catalog_db=base / "spark.db",
            warehouse=warehouse,
            local_dir=base / "local",
        )
        for statement in [
            "CREATE NAMESPACE lakehouse.db",
            "CREATE TABLE lakehouse.db.t (id bigint, name string, ts timestamp, amount decimal(10,2)) "
            "USING iceberg PARTITIONED BY (days(ts))",
            "INSERT INTO lakehouse.db.t VALUES (1, 'ann', TIMESTAMP '2025-01-01 09:00:00', 10.50), "
            "(2, NULL, TIMESTAMP '2025-01-01 17:30:00', NULL), (3, 'cy', TIMESTAMP '2025-01-02 08:00:00', -3.25)",
            "INSERT OVERWRITE lakehouse.db.t SELECT * FROM lakehouse.db.t WHERE id < 3",
            "DELETE FROM lakehouse.db.t WHERE id = 2",
            "CREATE TABLE lakehouse.db.m (id bigint, tag string) USING iceberg "
            "TBLPROPERTIES ('write.delete.mode'='merge-on-read', 'format-version'='2')",
            "INSERT INTO lakehouse.db.m VALUES (1, 'a'), (2, 'b'), (3, 'c')",
            "DELETE FROM lakehouse.db.m WHERE id = 2",
            # Format v3, outside the warehouse: only the manifests of its last snapshot are seeds.
            "CREATE TABLE lakehouse.db.v3 (id bigint, tag string) USING iceberg "
            f"LOCATION 'file://{base}/v3' "
            "TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read')",
            "INSERT INTO lakehouse.db.v3 VALUES (1, 'a'), (2, 'b'), (3, 'c')",
            "INSERT INTO lakehouse.db.v3 VALUES (4, 'd'), (5, 'e'), (6, 'f')",
            "DELETE FROM lakehouse.db.v3 WHERE id IN (2, 5)",  # one Puffin file, a vector per data file
            "DELETE FROM lakehouse.db.v3 WHERE id = 3",  # the first file's vector merged into a new one
        ]:
            spark.sql(statement).collect()
        v3 = v3_snapshot(spark, "lakehouse.db.v3")
        spark.stop()
        table_files(warehouse)
        for path in v3:
            data = path.read_bytes()
            put("manifest_list_fuzz" if path.name.startswith("snap-") else "manifest_fuzz", data)
            put("avro_container_fuzz", data)


def v3_snapshot(spark, table: str) -> list[Path]:
    """The manifest list of the table's current snapshot and the manifests it lists, checked to
    hold the v3 fields the seeds are for."""
    [(manifest_list,)] = spark.sql(f"SELECT manifest_list FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1")\
        .collect()
    manifests = [(r.path, r.content) for r in spark.sql(f"SELECT path, content FROM {table}.manifests").collect()]
    dvs = spark.sql(f"SELECT status, data_file.referenced_data_file, data_file.content_offset FROM {table}.entries "
                    "WHERE data_file.content = 1").collect()
    assert sorted(r.status for r in dvs) == [0, 1, 2], dvs  # existing, added, deleted
    assert all(r.referenced_data_file and r.content_offset is not None for r in dvs), dvs
    paths = [Path(p.removeprefix("file:")) for p in [manifest_list] + [m for m, _ in manifests]]
    assert b"first_row_id" in paths[0].read_bytes(), manifest_list
    deletes = [Path(m.removeprefix("file:")) for m, content in manifests if content == 1]
    assert deletes and all(b"referenced_data_file" in d.read_bytes() and b"content_offset" in d.read_bytes()
                           for d in deletes), deletes
    return paths


if __name__ == "__main__":
    main()
