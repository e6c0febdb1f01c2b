"""The one way floe's tools open Spark 3.5 + Iceberg 1.10 on a floe catalog: a local,
one-core session whose catalog `lakehouse` is the SQLite (JDBC) catalog file floe uses.
Used by the Spark interop tests, the benchmark runner and the fuzz corpus maker."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def lakehouse_session(
    *,
    app: str,
    classpath: str,
    catalog_db: Path,
    warehouse: Path,
    local_dir: Path,
    memory: str = "1g",
    java_options: tuple[str, ...] = (),
    settings: dict[str, str] | None = None,
):
    # Spark hands timestamps back as naive datetimes in the Python process's zone: make it UTC,
    # like the session time zone and the JVM's default zone.
    os.environ["TZ"] = "UTC"
    time.tzset()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.pop("SPARK_HOME", None)  # use the pyspark package's own Spark
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    local_dir = Path(local_dir)
    options = " ".join(["-Duser.timezone=UTC", f"-Dderby.system.home={local_dir}", *java_options])
    catalog = "spark.sql.catalog.lakehouse"
    builder = (
        SparkSession.builder.master("local[1]")
        .appName(app)
        .config("spark.driver.extraClassPath", classpath)
        .config("spark.driver.extraJavaOptions", options)
        .config("spark.driver.memory", memory)
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.local.dir", str(local_dir))
        .config("spark.sql.warehouse.dir", str(local_dir / "spark-warehouse"))
        .config("spark.sql.catalogImplementation", "in-memory")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config(catalog, "org.apache.iceberg.spark.SparkCatalog")
        .config(f"{catalog}.type", "jdbc")
        .config(f"{catalog}.uri", f"jdbc:sqlite:{catalog_db}")
        .config(f"{catalog}.warehouse", f"file:{warehouse}")
        .config(f"{catalog}.jdbc.schema-version", "V1")
        # floe commits between Spark's statements: never serve a cached table.
        .config(f"{catalog}.cache-enabled", "false")
    )
    for key, value in (settings or {}).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
