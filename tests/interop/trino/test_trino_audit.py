"""Trino 476 on the catalog floe opened, a PostgreSQL database or a SQLite file: its commits
(create, inserts, an UPDATE, the rollback procedure) reach floe's audit log through the
database trigger, unchanged for Trino, and floe names each one: on PostgreSQL with the
database user and connection, on SQLite with the user and engine a new snapshot names. Then
floe restores a table to the state before a schema change, and Trino reads the restored schema
and rows."""

from test_trino_interop import floe_snapshots, trino_snapshots


def test_trino_commits_are_recorded_and_named(lab, ns):
    floe, trino, cat = lab
    t = f"{cat}.{ns}.audited"
    trino.query(f"CREATE TABLE {t} (id BIGINT, v VARCHAR) WITH (format_version = 2)")
    trino.query(f"INSERT INTO {t} VALUES (1, 'a')")
    trino.query(f"INSERT INTO {t} VALUES (2, 'b')")
    trino.query(f"UPDATE {t} SET v = 'B' WHERE id = 2")
    s0, s1, s2, s3 = (r[0] for r in trino_snapshots(trino, cat, ns, "audited"))
    trino.query(f"ALTER TABLE {t} EXECUTE rollback_to_snapshot({s2})")

    entries = floe.audit(f"{ns}.audited")
    got = [(e["kind"], e["operation"], e["previous_snapshot_id"], e["snapshot_id"],
            [(r["name"], r["from_snapshot_id"], r["to_snapshot_id"]) for r in e["refs"]]) for e in entries]
    # Trino's CREATE TABLE commits an empty first snapshot with the table; after each INSERT
    # it commits the table statistics it collected (a statistics file, nothing else moves).
    assert got == [
        ("create", None, None, s0, [("main", None, s0)]),
        ("commit", "append", s0, s1, [("main", s0, s1)]),
        ("metadata", None, s1, s1, []),
        ("commit", "append", s1, s2, [("main", s1, s2)]),
        ("metadata", None, s2, s2, []),
        ("commit", "overwrite", s2, s3, [("main", s2, s3)]),
        ("rollback", None, s3, s2, [("main", s3, s2)]),
    ]
    for e in entries:
        assert e["statement"] is None, e
        if floe.is_postgres:
            assert e["user_name"] == "floe", e  # Trino's user, and the catalog's database user
            # A new snapshot names its engine when it says so; else the connection names itself.
            assert e["client"] in ("trino", e["application_name"]), e
            assert e["application_name"], e
        else:
            # A SQLite file knows no user or connection: only a new snapshot says who wrote it
            # (Trino's user and engine-name in its summary). The statistics commits and the
            # rollback write no snapshot and name nobody.
            named = ("floe", "trino") if e["kind"] in ("create", "commit") else (None, "external")
            assert (e["user_name"], e["client"]) == named, e
            assert (e["client_address"], e["application_name"]) == (None, None), e
    for before, after in zip(entries, entries[1:]):
        assert after["previous_metadata_location"] == before["metadata_location"]


def test_trino_reads_a_restored_schema(lab, ns):
    floe, trino, cat = lab
    t = f"{ns}.restored"
    floe.sql(f"CREATE TABLE {t} (id BIGINT, v STRING) USING iceberg")
    floe.sql(f"INSERT INTO {t} VALUES (1, 'a')")
    floe.sql(f"ALTER TABLE {t} ADD COLUMN x INT")
    floe.sql(f"INSERT INTO {t} VALUES (2, 'b', 20)")
    assert [r[0] for r in trino.query(f"DESCRIBE {cat}.{t}")] == ["id", "v", "x"]

    # Back to the state the first insert left: no x, one row.
    first = [e for e in floe.audit(t) if e["kind"] == "commit"][0]
    floe.sql(f"CALL lakehouse.system.restore_table(table => '{t}', audit_seq => {first['seq']})")
    assert [r[0] for r in trino.query(f"DESCRIBE {cat}.{t}")] == ["id", "v"]
    assert trino.query(f"SELECT * FROM {cat}.{t}") == [[1, "a"]]
    # Every snapshot stayed; Trino still lists them.
    assert [r[0] for r in trino_snapshots(trino, cat, ns, "restored")] == [
        s["snapshot_id"] for s in floe_snapshots(floe, t)]

    # Undone: the column is back with its values.
    proc = floe.cli("undo", t, "--yes")
    assert proc.returncode == 0, proc.stderr
    assert [r[0] for r in trino.query(f"DESCRIBE {cat}.{t}")] == ["id", "v", "x"]
    assert sorted(trino.query(f"SELECT * FROM {cat}.{t}")) == [[1, "a", None], [2, "b", 20]]
