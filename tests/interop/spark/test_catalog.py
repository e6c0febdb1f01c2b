"""floe and Spark share one SQLite catalog in the Iceberg JDBC-catalog layout."""

import sqlite3

import pytest

from .support import Floe, make_rows, rows_of, spark_read, to_arrow



def test_tables_and_namespaces_cross_the_catalog(spark, lakehouse, ns):
    floe = lakehouse
    # floe creates a table in a namespace Spark created, Spark one in a namespace floe created.
    floe.create(f"{ns}.by_floe", to_arrow(make_rows(1, 1)))
    floe.append(f"{ns}.by_floe", to_arrow(make_rows(1, 3)))
    floe.create(f"{ns}_floe.other", to_arrow(make_rows(1, 1)))
    spark.sql(f"CREATE TABLE lakehouse.{ns}_floe.by_spark (id BIGINT) USING iceberg")

    namespaces = {r[0] for r in spark.sql("SHOW NAMESPACES IN lakehouse").collect()}
    assert {ns, f"{ns}_floe"} <= namespaces
    assert sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN lakehouse.{ns}").collect()) == ["by_floe"]
    assert sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN lakehouse.{ns}_floe").collect()) == [
        "by_spark",
        "other",
    ]
    assert spark_read(spark, f"{ns}.by_floe") == rows_of(make_rows(1, 3))
    assert floe.read(f"{ns}_floe.by_spark").num_rows == 0

    # Both engines wrote the same kind of catalog rows (JDBC catalog schema V1).
    rows = floe.catalog_rows(
        "SELECT catalog_name, table_namespace, table_name, iceberg_type, metadata_location IS NOT NULL, "
        "previous_metadata_location IS NOT NULL FROM iceberg_tables "
        f"WHERE table_namespace IN ('{ns}', '{ns}_floe') ORDER BY table_namespace, table_name")
    assert rows == [
        ("lakehouse", ns, "by_floe", "TABLE", 1, 1),
        ("lakehouse", f"{ns}_floe", "by_spark", "TABLE", 1, 0),
        ("lakehouse", f"{ns}_floe", "other", "TABLE", 1, 0),
    ]


def attach_catalog(spark, name, catalog_path, warehouse):
    """Registers a floe catalog file as Spark catalog `name` (Iceberg's JDBC catalog, V1 layout)."""
    conf = f"spark.sql.catalog.{name}"
    spark.conf.set(conf, "org.apache.iceberg.spark.SparkCatalog")
    spark.conf.set(f"{conf}.type", "jdbc")
    spark.conf.set(f"{conf}.uri", f"jdbc:sqlite:{catalog_path}")
    spark.conf.set(f"{conf}.warehouse", f"file:{warehouse}")
    spark.conf.set(f"{conf}.jdbc.schema-version", "V1")
    spark.conf.set(f"{conf}.cache-enabled", "false")


def test_floe_commits_while_spark_holds_a_catalog_it_did_not_create(spark, lakehouse, tmp_path):
    """Iceberg 1.10's JdbcCatalog, opening a catalog file whose tables already exist, leaves
    metadata result sets open for the life of the Spark session. In SQLite's rollback-journal
    mode that read lock would block every other process's commit; floe opens (and creates)
    catalogs in WAL mode, where readers never block writers."""
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    # Spark's JdbcCatalog reads only the rows of its own catalog name.
    floe = Floe(tmp_path / "catalog.db", warehouse, lakehouse.scratch, catalog_name="floe_first")
    floe.create("db.t", to_arrow(make_rows(1, 1)))
    attach_catalog(spark, "floe_first", floe.catalog_path, warehouse)
    assert [r.tableName for r in spark.sql("SHOW TABLES IN floe_first.db").collect()] == ["t"]
    # Spark's open read does not stop another process from taking the write lock.
    with sqlite3.connect(floe.catalog_path, timeout=0.5) as con:
        try:
            con.execute("BEGIN EXCLUSIVE")
            con.execute("ROLLBACK")
        except sqlite3.OperationalError as e:
            raise AssertionError(f"the catalog file stays locked while Spark holds it: {e}") from e
    floe.append("db.t", to_arrow(make_rows(1, 2)))
    assert sorted(floe.read("db.t").column("id").to_pylist()) == [1, 2]
    with sqlite3.connect(floe.catalog_path) as con:
        assert con.execute("PRAGMA journal_mode").fetchone() == ("wal",)


@pytest.mark.xfail(
    strict=True,
    reason="Iceberg 1.10 JdbcCatalog (initializeCatalogTables/updateSchemaIfRequired) leaves the "
    "DatabaseMetaData.getTables/getColumns ResultSets open when the catalog tables already exist; "
    "in WAL mode that sqlite-jdbc connection keeps reading the catalog as it was then, so the "
    "session neither sees later commits of other processes nor can commit itself "
    "(SQLITE_BUSY_SNAPSHOT)",
)
def test_a_spark_session_on_a_catalog_it_did_not_create_sees_later_commits(spark, lakehouse, tmp_path):
    """The other half of the leak above: floe is no longer blocked, but that Spark session's view
    of the catalog stays frozen until it stops. Recorded so that a fix upstream shows (XPASS)."""
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    floe = Floe(tmp_path / "catalog.db", warehouse, lakehouse.scratch, catalog_name="floe_second")
    floe.create("db.t", to_arrow(make_rows(1, 1)))
    attach_catalog(spark, "floe_second", floe.catalog_path, warehouse)
    assert spark.sql("SELECT count(*) FROM floe_second.db.t").first()[0] == 0
    floe.append("db.t", to_arrow(make_rows(1, 2)))
    assert spark.sql("SELECT count(*) FROM floe_second.db.t").first()[0] == 2
