"""Fixtures of the Spark interop suite: one SparkSession (Spark 3.5, Iceberg 1.10) whose
`lakehouse` catalog is Iceberg's JdbcCatalog on the SQLite file floe_interop writes to, and
whose `pglake` catalog (for test_postgres_lab.py) is the lab a team shares: the same
JdbcCatalog on a database of a throwaway PostgreSQL server (tests/support/postgres_server.py),
its warehouse in a bucket of a throwaway S3-compatible server (tests/support/s3_server.py),
read and written through Iceberg's S3FileIO. floe opens it as `pglake` too.

With FLOE_SPARK_LAKEHOUSE=postgresql+s3 the `lakehouse` catalog is that lab instead: a
PostgreSQL database with its warehouse in the S3 bucket, so every test of the suite runs there
too (test.sh runs the suite both ways; test_catalog.py, about the SQLite file, and
test_postgres_lab.py, the lab already, run in the first way only).

Run it with the Spark virtualenv that scripts/setup-spark.sh makes:
    scripts/setup-spark.sh && build-spark/venv/bin/python -m pytest tests/interop/spark
Under another interpreter (the project's .venv, which has no pyspark) this folder is not
collected, so `pytest tests/interop` keeps running the PyIceberg suite alone. Under the Spark
virtualenv nothing is skipped: a missing driver, jar or Java fails the run.
"""

import importlib.util
import os
import sys
import time
from pathlib import Path

import pytest

if importlib.util.find_spec("pyspark") is None:
    collect_ignore_glob = ["*"]

    def pytest_configure(config):
        # Asked for this suite by name, without pyspark: fail rather than run nothing.
        here = Path(__file__).resolve().parent
        asked = [Path(a.split("::")[0]).resolve() for a in config.args]
        if asked and all(p == here or here in p.parents for p in asked):
            raise pytest.UsageError(
                f"pyspark is not importable by {sys.executable}; run scripts/setup-spark.sh and "
                "build-spark/venv/bin/python -m pytest tests/interop/spark"
            )

    def pytest_terminal_summary(terminalreporter):
        terminalreporter.write_line(
            "tests/interop/spark: not collected (no pyspark in this interpreter); run "
            "scripts/setup-spark.sh && build-spark/venv/bin/python -m pytest tests/interop/spark"
        )

else:
    # Spark hands timestamps back as naive datetimes in the Python process's zone: make it UTC,
    # like the session time zone and the JVM's default zone below.
    os.environ["TZ"] = "UTC"
    time.tzset()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.pop("SPARK_HOME", None)  # use the pyspark package's own Spark
    os.environ["PYSPARK_PYTHON"] = sys.executable

    from .support import DRIVER, ROOT, Floe

    sys.path.insert(0, str(ROOT / "scripts"))
    sys.path.insert(0, str(ROOT / "tests" / "support"))
    from names import name_for_test  # noqa: E402
    from postgres_server import PostgresServer  # noqa: E402
    from s3_server import TEST_BUCKET, S3Server  # noqa: E402
    from spark_lakehouse import jdbc_catalog_settings, lakehouse_session  # noqa: E402

    HERE = Path(__file__).resolve().parent
    CLASSPATH = ROOT / "build-spark" / "classpath"

    LAKEHOUSE = os.environ.get("FLOE_SPARK_LAKEHOUSE", "sqlite")
    if LAKEHOUSE not in ("sqlite", "postgresql+s3"):
        raise pytest.UsageError(f"FLOE_SPARK_LAKEHOUSE={LAKEHOUSE}: expected sqlite or postgresql+s3")

    @pytest.fixture(scope="session")
    def lakehouse(request, tmp_path_factory) -> Floe:
        """The shared catalog and warehouse, and floe_interop on them: a SQLite file and a
        local directory, or (FLOE_SPARK_LAKEHOUSE=postgresql+s3) a PostgreSQL database and a
        prefix of the S3 bucket."""
        if not DRIVER.exists():
            pytest.fail(f"{DRIVER} is missing; build it: scripts/build.sh release --target floe_interop")
        base = tmp_path_factory.mktemp("lakehouse")
        scratch = base / "scratch"
        scratch.mkdir()
        if LAKEHOUSE == "postgresql+s3":
            postgres = request.getfixturevalue("postgres")
            s3 = request.getfixturevalue("s3")
            return Floe(postgres.create_database("lakehouse"), f"s3://{TEST_BUCKET}/lakehouse", scratch,
                        env=s3.environment)
        warehouse = base / "warehouse"
        warehouse.mkdir()
        return Floe(base / "catalog.db", warehouse, scratch)

    @pytest.fixture(scope="session")
    def spark(lakehouse: Floe, tmp_path_factory):
        """One SparkSession for the suite; its catalog `lakehouse` is the file floe uses."""
        if not CLASSPATH.exists():
            pytest.fail(f"{CLASSPATH} is missing; run scripts/setup-spark.sh first")
        jars = CLASSPATH.read_text().strip()
        for jar in jars.split(":"):
            if not Path(jar).is_file():
                pytest.fail(f"{jar} is missing; run scripts/setup-spark.sh")
        local = tmp_path_factory.mktemp("spark-local")
        session = lakehouse_session(
            app="floe-interop",
            classpath=jars,
            catalog_db=lakehouse.catalog,
            warehouse=lakehouse.warehouse,
            s3=lakehouse.env if lakehouse.on_s3 else None,
            local_dir=local,
            java_options=(f"-Dlog4j2.configurationFile=file:{HERE / 'log4j2.properties'}", "-XX:+UseSerialGC"),
            settings={"spark.sql.adaptive.enabled": "false"},
        )
        # Spark creates the catalog's tables before floe touches the file (floe switches it to
        # WAL mode when it first opens it). Iceberg 1.10's JdbcCatalog, when it opens a catalog
        # whose tables already exist, leaves a metadata ResultSet open, a read lock that only
        # WAL mode lets other processes commit past (see
        # test_catalog.py::test_floe_commits_while_spark_holds_a_catalog_it_did_not_create).
        session.sql("SHOW NAMESPACES IN lakehouse").collect()
        if not lakehouse.is_postgres:
            assert lakehouse.catalog_path.exists(), "Spark did not create the catalog file"
        version = session.sql("SELECT lakehouse.system.iceberg_version()").first()[0]
        assert version.startswith("1.10."), f"expected Iceberg 1.10, Spark loaded {version}"
        assert session.version.startswith("3.5."), session.version
        yield session
        session.stop()

    @pytest.fixture
    def ns(spark, request) -> str:
        """A fresh namespace for one test (the catalog is shared by the whole session)."""
        name = name_for_test(request)
        spark.sql(f"CREATE NAMESPACE lakehouse.{name}")
        return name

    @pytest.fixture(scope="session")
    def postgres(tmp_path_factory):
        """A PostgreSQL server for the session."""
        with PostgresServer(tmp_path_factory.mktemp("postgres"), fsync=False) as server:
            yield server

    @pytest.fixture(scope="session")
    def s3(tmp_path_factory):
        """An S3-compatible server for the session, with the bucket `floe-test`. Its AWS_*
        settings go into this process's environment too, where the floe package reads them."""
        with S3Server(tmp_path_factory.mktemp("s3"), bucket=TEST_BUCKET) as server:
            saved = {k: os.environ.get(k) for k in server.environment}
            os.environ.update(server.environment)
            yield server
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    @pytest.fixture(scope="session")
    def pglake(spark, postgres, s3, tmp_path_factory) -> Floe:
        """floe on a PostgreSQL catalog with its warehouse at s3://floe-test/pglake, which the
        Spark session opens as its catalog `pglake`. One JVM holds one SparkSession, so the
        lab is a second catalog of the suite's session; floe names its catalog `pglake` as
        well, so both engines read and write the same catalog_name rows and spell tables alike
        (pglake.ns.table)."""
        scratch = tmp_path_factory.mktemp("pglake-scratch")
        floe = Floe(postgres.create_database("pglake"), f"s3://{TEST_BUCKET}/pglake", scratch,
                    catalog_name="pglake", env=s3.environment)
        # Here floe creates the catalog's tables and Spark opens a catalog it did not create.
        assert floe.sql("SHOW NAMESPACES") == []
        for key, value in jdbc_catalog_settings("pglake", floe.catalog, floe.warehouse, s3.environment).items():
            spark.conf.set(key, value)
        assert spark.sql("SHOW NAMESPACES IN pglake").collect() == []
        return floe

    @pytest.fixture
    def pg_ns(pglake, spark, request) -> str:
        """A fresh namespace of the PostgreSQL catalog for one test, made by Spark."""
        name = name_for_test(request, prefix="p")
        spark.sql(f"CREATE NAMESPACE pglake.{name}")
        return name
