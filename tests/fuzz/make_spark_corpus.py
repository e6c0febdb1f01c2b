"""Adds seeds written by Spark 3.5 with Iceberg 1.10 to tests/fuzz/corpus: a partitioned table
with appends, an INSERT OVERWRITE, a copy-on-write DELETE and a merge-on-read DELETE (position
delete files), in format v2. Run by make_corpus.py with build-spark/venv/bin/python.
"""

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from make_corpus import ROOT, table_files  # noqa: E402

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
        ]:
            spark.sql(statement).collect()
        spark.stop()
        table_files(warehouse)


if __name__ == "__main__":
    main()
