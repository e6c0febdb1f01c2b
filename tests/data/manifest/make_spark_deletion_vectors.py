"""Writes spark_deletion_vectors.puffin, read by tests/unit/manifest/deletion_vector_test.cc:
the Puffin file of a merge-on-read DELETE by Spark 3.5 with Iceberg 1.10 on a format-version 3
table of two data files (20 and 12 rows), so it holds two deletion vectors. Prints the
positions Spark deleted in each file (read as _pos before the DELETE) and the files' locations,
which the test asserts. Run from the repository root with the Spark virtualenv:
  build-spark/venv/bin/python tests/data/manifest/make_spark_deletion_vectors.py
The file is committed; rerun only to regenerate it (data file names are random), then update
the test's expectations from what this prints.
"""

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from spark_lakehouse import lakehouse_session  # noqa: E402

# A fixed place, so the referenced data files' locations read plainly in the test.
BASE = Path("/tmp/floe-dv-fixture")
# ids deleted: a run of six and two single rows in the first file (a run container once
# Iceberg run-length encodes it), three single rows in the second (an array container).
DELETE = "DELETE FROM lakehouse.db.t WHERE id IN (1, 4, 5, 6, 7, 8, 9, 17, 102, 105, 111)"


def main() -> None:
    classpath = (ROOT / "build-spark" / "classpath").read_text().strip()
    shutil.rmtree(BASE, ignore_errors=True)
    spark = lakehouse_session(app="floe-dv-fixture", classpath=classpath,
                              catalog_db=BASE / "spark.db", warehouse=BASE / "warehouse",
                              local_dir=BASE / "local")
    spark.sql("CREATE NAMESPACE lakehouse.db")
    spark.sql("CREATE TABLE lakehouse.db.t (id bigint, name string) USING iceberg "
              "TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read')")
    # One INSERT per data file: a local[1] session writes each as one file, rows in order.
    spark.sql("INSERT INTO lakehouse.db.t VALUES " +
              ", ".join(f"({i}, 'r{i}')" for i in range(20)))
    spark.sql("INSERT INTO lakehouse.db.t VALUES " +
              ", ".join(f"({i}, 'r{i}')" for i in range(100, 112)))
    where = DELETE.split(" WHERE ", 1)[1]
    expected: dict[str, list[int]] = {}
    for row in spark.sql(f"SELECT _file, _pos FROM lakehouse.db.t WHERE {where} "
                         "ORDER BY _file, _pos").collect():
        expected.setdefault(row["_file"], []).append(row["_pos"])
    spark.sql(DELETE)
    puffins = sorted((BASE / "warehouse").rglob("*.puffin"))
    if len(puffins) != 1:
        raise SystemExit(f"expected one Puffin file, found {puffins}")
    out = HERE / "spark_deletion_vectors.puffin"
    shutil.copyfile(puffins[0], out)
    print(f"wrote {out} ({out.stat().st_size} bytes) from {puffins[0]}")
    for location, positions in expected.items():
        print(f"{location}: {positions}")
    for row in spark.sql("SELECT file_path, content_offset, content_size_in_bytes, record_count, "
                         "referenced_data_file FROM lakehouse.db.t.delete_files").collect():
        print(row)
    spark.stop()


if __name__ == "__main__":
    main()
