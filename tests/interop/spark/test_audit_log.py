"""Spark's commits to the catalog floe opened (append, overwrite, a tag, the rollback
procedure) reach floe's audit log through the database trigger, unchanged for Spark, and floe
names each one; on PostgreSQL the rows Spark made without a snapshot carry the database user
and the JDBC driver's application name. Then floe undoes Spark's property change, restores
the table to the state before Spark's schema change and back, and Spark reads each state
(columns and rows)."""


def main_snapshot(spark, table: str) -> int:
    return spark.sql(f"SELECT snapshot_id FROM lakehouse.{table}.refs WHERE name = 'main'").first()[0]


def columns(spark, table: str) -> list[str]:
    return spark.table(f"lakehouse.{table}").columns


def rows(spark, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.sql(f"SELECT * FROM lakehouse.{table}").collect())


def test_spark_commits_are_recorded_and_named(spark, lakehouse, ns):
    floe, t = lakehouse, f"{ns}.audited"
    proc = floe.cli("audit", "--trigger")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Audit trigger: installed (every engine's changes are recorded)\n"

    spark.sql(f"CREATE TABLE lakehouse.{t} (id BIGINT, v STRING) USING iceberg")
    spark.sql(f"INSERT INTO lakehouse.{t} VALUES (1, 'a')")
    s1 = main_snapshot(spark, t)
    spark.sql(f"INSERT INTO lakehouse.{t} VALUES (2, 'b')")
    s2 = main_snapshot(spark, t)
    spark.sql(f"INSERT OVERWRITE lakehouse.{t} SELECT * FROM lakehouse.{t} WHERE id = 2")
    s3 = main_snapshot(spark, t)
    spark.sql(f"ALTER TABLE lakehouse.{t} CREATE TAG v1 AS OF VERSION {s1}")
    spark.sql(f"CALL lakehouse.system.rollback_to_snapshot('{t}', {s2})").collect()

    entries = floe.audit(t)
    got = [(e["kind"], e["operation"], e["previous_snapshot_id"], e["snapshot_id"],
            [(r["name"], r["from_snapshot_id"], r["to_snapshot_id"]) for r in e["refs"]]) for e in entries]
    assert got == [
        ("create", None, None, None, []),
        ("commit", "append", None, s1, [("main", None, s1)]),
        ("commit", "append", s1, s2, [("main", s1, s2)]),
        ("commit", "overwrite", s2, s3, [("main", s2, s3)]),
        ("ref-create", None, s3, s3, [("v1", None, s1)]),
        ("rollback", None, s3, s2, [("main", s3, s2)]),
    ]
    # Who: a new snapshot names its engine; the other rows name the connection, on PostgreSQL.
    for e in entries:
        assert e["statement"] is None, e
        if e["kind"] == "commit":
            assert e["client"] == "spark", e
        elif floe.is_postgres:
            assert e["client"] == "PostgreSQL JDBC Driver", e
            assert e["application_name"] == "PostgreSQL JDBC Driver", e
        else:
            assert e["client"] == "external", e
        if floe.is_postgres:
            assert e["user_name"] == "floe", e
    for before, after in zip(entries, entries[1:]):
        assert after["previous_metadata_location"] == before["metadata_location"]


def test_floe_undoes_and_restores_what_spark_changed(spark, lakehouse, ns):
    floe, t = lakehouse, f"{ns}.restored"
    spark.sql(f"CREATE TABLE lakehouse.{t} (id BIGINT, v STRING) USING iceberg")
    spark.sql(f"INSERT INTO lakehouse.{t} VALUES (1, 'a')")
    s1 = main_snapshot(spark, t)
    spark.sql(f"ALTER TABLE lakehouse.{t} ADD COLUMN x INT")
    spark.sql(f"INSERT INTO lakehouse.{t} VALUES (2, 'b', 20)")
    s2 = main_snapshot(spark, t)
    spark.sql(f"ALTER TABLE lakehouse.{t} SET TBLPROPERTIES ('team' = 'spark-job')")

    # floe undoes Spark's property change: Spark no longer sees the property.
    proc = floe.cli("undo", t, "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "  property team: spark-job -> (unset)\n" in proc.stdout, proc.stdout
    props = {r[0]: r[1] for r in spark.sql(f"SHOW TBLPROPERTIES lakehouse.{t}").collect()}
    assert "team" not in props, props

    # floe restores the state Spark's first insert left: Spark sees the schema without x and
    # the one row.
    first = [e for e in floe.audit(t) if e["kind"] == "commit" and e["snapshot_id"] == s1][0]
    out = floe.sql(f"CALL lakehouse.system.restore_table(table => '{t}', audit_seq => {first['seq']})")
    assert [(r["previous_snapshot_id"], r["current_snapshot_id"]) for r in out] == [(s2, s1)]
    assert columns(spark, t) == ["id", "v"]
    assert rows(spark, t) == [(1, "a")]

    # The restore undone by another: x is back, with its values.
    restore = [e for e in floe.audit(t) if e["kind"] == "restore"][-1]
    floe.sql(f"CALL lakehouse.system.restore_table(table => '{t}', "
             f"metadata_file => '{restore['previous_metadata_location']}')")
    assert columns(spark, t) == ["id", "v", "x"]
    assert rows(spark, t) == [(1, "a", None), (2, "b", 20)]
    # The column that came back is the same column: its values are there, and Spark adds to it.
    spark.sql(f"INSERT INTO lakehouse.{t} VALUES (3, 'c', 30)")
    assert rows(spark, t) == [(1, "a", None), (2, "b", 20), (3, "c", 30)]
    assert [r["x"] for r in floe.sql(f"SELECT x FROM {t} ORDER BY id")] == [None, 20, 30]


def test_spark_maintenance_and_layout_changes_are_named(spark, lakehouse, ns):
    """Spark's other kinds of change, each named from its two metadata files: a partition
    spec, a sort order, a cherry-pick, a rewrite, an expiry, and a table registered from a
    metadata file with a history."""
    floe, t = lakehouse, f"{ns}.layout"
    spark.sql(f"CREATE TABLE lakehouse.{t} (id BIGINT, v STRING) USING iceberg")
    spark.sql(f"INSERT INTO lakehouse.{t} VALUES (1, 'a')")
    s1 = main_snapshot(spark, t)
    spark.sql(f"INSERT INTO lakehouse.{t} VALUES (2, 'b')")
    s2 = main_snapshot(spark, t)
    spark.sql(f"CALL lakehouse.system.rollback_to_snapshot('{t}', {s1})").collect()
    spark.sql(f"INSERT INTO lakehouse.{t} VALUES (3, 'c')")
    s3 = main_snapshot(spark, t)
    spark.sql(f"CALL lakehouse.system.cherrypick_snapshot('{t}', {s2})").collect()
    s4 = main_snapshot(spark, t)
    spark.sql(f"ALTER TABLE lakehouse.{t} ADD PARTITION FIELD v")
    spark.sql(f"ALTER TABLE lakehouse.{t} WRITE ORDERED BY id")
    spark.sql(f"CALL lakehouse.system.rewrite_data_files(table => '{t}', "
              "options => map('min-input-files', '2'))").collect()
    s5 = main_snapshot(spark, t)
    spark.sql(f"CALL lakehouse.system.expire_snapshots(table => '{t}', "
              f"older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)").collect()
    location = spark.sql(f"SELECT file FROM lakehouse.{t}.metadata_log_entries "
                         "ORDER BY timestamp DESC LIMIT 1").first()[0]
    spark.sql(f"CALL lakehouse.system.register_table(table => '{ns}.registered', "
              f"metadata_file => '{location}')").collect()

    got = [(e["kind"], e["operation"], e["previous_snapshot_id"], e["snapshot_id"]) for e in floe.audit(t)]
    assert got == [
        ("create", None, None, None),
        ("commit", "append", None, s1),
        ("commit", "append", s1, s2),
        ("rollback", None, s2, s1),
        ("commit", "append", s1, s3),
        ("cherry-pick", "append", s3, s4),
        ("spec", None, s4, s4),
        ("sort-order", None, s4, s4),
        ("rewrite", "replace", s4, s5),
        ("expire", None, s5, s5),
    ]
    registered = floe.audit(f"{ns}.registered")
    assert [(e["kind"], e["snapshot_id"], e["metadata_location"]) for e in registered] == [
        ("register", s5, location)]
