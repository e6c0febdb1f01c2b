"""floe's DROP TABLE records the drop in its own table of the shared catalog, and UNDROP
TABLE registers the table again: Spark's JdbcCatalog keeps listing and reading the catalog
throughout, and reads an undropped table with all its snapshots."""

import pytest

from .support import check_metadata_tables, make_rows, rows_of, spark_read, to_arrow



def spark_tables(spark, ns: str) -> list[str]:
    return sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN lakehouse.{ns}").collect())


def test_spark_reads_the_catalog_through_floe_drop_and_undrop(spark, lakehouse, ns):
    floe = lakehouse
    table = f"{ns}.kept"
    floe.create(table, to_arrow(make_rows(1, 1)))
    floe.append(table, to_arrow(make_rows(1, 3)))
    floe.append(table, to_arrow(make_rows(4, 2)))
    floe.create(f"{ns}.other", to_arrow(make_rows(1, 1)))
    snapshots = [s["snapshot-id"] for s in floe.snapshots(table)]
    assert len(snapshots) == 2
    [(location,)] = floe.catalog_rows(
        f"SELECT metadata_location FROM iceberg_tables WHERE table_namespace = '{ns}' AND table_name = 'kept'")

    floe.sql(f"DROP TABLE {table}")
    # Spark still opens the catalog and sees the drop; floe's record is in a table of its own.
    assert spark_tables(spark, ns) == ["other"]
    assert ns in {r[0] for r in spark.sql("SHOW NAMESPACES IN lakehouse").collect()}
    with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql(f"SELECT * FROM lakehouse.{table}").collect()
    assert spark_read(spark, f"{ns}.other") == []
    assert floe.catalog_rows(
        "SELECT catalog_name, table_name, metadata_location, purged FROM floe_dropped_tables "
        f"WHERE table_namespace = '{ns}'") == [("lakehouse", "kept", location, 0)]
    shown = floe.sql(f"SHOW DROPPED TABLES IN {ns}")
    assert [(r["namespace"], r["tableName"], r["metadataLocation"]) for r in shown] == [(ns, "kept", location)]

    floe.sql(f"UNDROP TABLE {table}")
    assert spark_tables(spark, ns) == ["kept", "other"]
    assert spark_read(spark, table) == rows_of(make_rows(1, 5))
    assert spark_read(spark, table, snapshots[0]) == rows_of(make_rows(1, 3))
    check_metadata_tables(spark, floe, table)
    assert floe.sql(f"SHOW DROPPED TABLES IN {ns}") == []

    # Spark writes to the undropped table; floe reads what it wrote.
    spark.sql(f"INSERT INTO lakehouse.{table} SELECT * FROM lakehouse.{table} WHERE id = 1")
    assert sorted(floe.read(table).column("id").to_pylist()) == [1, 1, 2, 3, 4, 5]

    # Spark's own DROP TABLE is Iceberg's: it records nothing, so there is nothing to undrop.
    spark.sql(f"DROP TABLE lakehouse.{ns}.other")
    with pytest.raises(RuntimeError, match=f"Table {ns}.other was not dropped"):
        floe.sql(f"UNDROP TABLE {ns}.other")

    # Spark refuses to drop a namespace with tables; dropped tables do not count as tables.
    floe.sql(f"DROP TABLE {table}")
    spark.sql(f"DROP NAMESPACE lakehouse.{ns}")
    with pytest.raises(RuntimeError, match=f"Cannot undrop table {ns}.kept: namespace {ns} does not exist"):
        floe.sql(f"UNDROP TABLE {table}")
    spark.sql(f"CREATE NAMESPACE lakehouse.{ns}")
    floe.sql(f"UNDROP TABLE {table}")
    assert spark_tables(spark, ns) == ["kept"]
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM lakehouse.{table}").collect()) == [1, 1, 2, 3, 4, 5]


def test_floe_purge_leaves_spark_nothing_to_read(spark, lakehouse, ns):
    floe = lakehouse
    table = f"{ns}.gone"
    floe.create(table, to_arrow(make_rows(1, 1)))
    floe.append(table, to_arrow(make_rows(1, 3)))
    floe.sql(f"DROP TABLE {table} PURGE")
    assert spark_tables(spark, ns) == []
    with pytest.raises(RuntimeError, match=f"Cannot undrop table {ns}.gone: it was dropped with PURGE"):
        floe.sql(f"UNDROP TABLE {table}")
    # The name is free for Spark.
    spark.sql(f"CREATE TABLE lakehouse.{table} (id BIGINT) USING iceberg")
    spark.sql(f"INSERT INTO lakehouse.{table} VALUES (7)")
    assert floe.sql(f"SELECT id FROM {table}") == [{"id": 7}]
