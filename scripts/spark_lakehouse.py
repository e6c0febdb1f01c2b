"""The one way floe's tools open Spark 3.5 + Iceberg 1.10 on a floe catalog: a local,
one-core session whose catalog `lakehouse` is Iceberg's JdbcCatalog on the catalog floe uses,
a SQLite file or a PostgreSQL database. Used by the Spark interop tests, the benchmark runner
and the fuzz corpus maker."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit


def jdbc_catalog_settings(name: str, catalog: Path | str, warehouse: Path | str,
                          s3: dict[str, str] | None = None) -> dict[str, str]:
    """The Spark settings that make `name` Iceberg's JdbcCatalog (schema V1, the layout floe
    writes) on a floe catalog: a SQLite file's path, or a PostgreSQL database as floe names it
    (postgresql://USER@HOST:PORT/DB) or as JDBC does (jdbc:postgresql://HOST:PORT/DB[?user=U]).
    The PostgreSQL driver needs its role named: a URI's user becomes `jdbc.user`.
    `warehouse` is a directory or an s3:// location; for the latter the catalog's files go
    through Iceberg's S3FileIO with the AWS_* settings in `s3` (AWS_ENDPOINT_URL,
    AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION), with path-style requests."""
    conf = f"spark.sql.catalog.{name}"
    text = str(catalog)
    extra = {}
    if text.startswith("postgresql://"):
        parts = urlsplit(text)
        uri = f"jdbc:postgresql://{parts.hostname}:{parts.port or 5432}{parts.path}"
        if parts.username:
            extra[f"{conf}.jdbc.user"] = parts.username
    elif text.startswith("jdbc:postgresql:"):
        uri = text
    else:
        uri = f"jdbc:sqlite:{text}"
    location = str(warehouse)
    if location.startswith("s3://"):
        if not s3:
            raise ValueError(f"warehouse {location} needs the S3 settings (AWS_ENDPOINT_URL, ...)")
        extra.update({
            f"{conf}.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
            f"{conf}.s3.endpoint": s3["AWS_ENDPOINT_URL"],
            f"{conf}.s3.path-style-access": "true",
            f"{conf}.s3.access-key-id": s3["AWS_ACCESS_KEY_ID"],
            f"{conf}.s3.secret-access-key": s3["AWS_SECRET_ACCESS_KEY"],
            f"{conf}.client.region": s3.get("AWS_REGION", "us-east-1"),
        })
    else:
        location = f"file:{location}"
    return {
        conf: "org.apache.iceberg.spark.SparkCatalog",
        f"{conf}.type": "jdbc",
        f"{conf}.uri": uri,
        **extra,
        f"{conf}.warehouse": location,
        f"{conf}.jdbc.schema-version": "V1",
        # floe commits between Spark's statements: never serve a cached table.
        f"{conf}.cache-enabled": "false",
    }


def lakehouse_session(
    *,
    app: str,
    classpath: str,
    catalog_db: Path | str,
    warehouse: Path | str,
    local_dir: Path,
    memory: str = "1g",
    java_options: tuple[str, ...] = (),
    settings: dict[str, str] | None = None,
    s3: dict[str, str] | None = None,
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
    )
    for key, value in {**jdbc_catalog_settings("lakehouse", catalog_db, warehouse, s3), **(settings or {})}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
