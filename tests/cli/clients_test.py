"""`floe serve` through the PostgreSQL clients people use, against one server for the file
(tests/cli/serve_support.py): SQLAlchemy 2.0 over psycopg2 and over psycopg 3 (connect, the
inspector, pandas.read_sql of a time-travel query), pgcli's catalog queries as its completion
refresher runs them (its PGExecute class), psql's \\l+, \\dt+ and \\x output, DuckDB's
postgres extension (from its PyPI package, loaded offline) attaching the catalog and reading
a table, COPY (query) TO STDOUT in binary and text, and the statements drivers send on
connect (SHOW TRANSACTION ISOLATION LEVEL, savepoints, ...).
Run: FLOE_BINARY=build/floe pytest tests/cli/clients_test.py"""

import datetime
import decimal
import os
import subprocess
from pathlib import Path

import duckdb
import duckdb_extension_postgres_scanner
import pandas
import psycopg
import pytest
import sqlalchemy
from sqlalchemy.dialects import postgresql

from serve_support import Serve

BINARY = os.environ.get("FLOE_BINARY", "build/floe")


@pytest.fixture(scope="module")
def server():
    s = Serve(BINARY)
    with psycopg.connect(s.dsn(), autocommit=True) as conn:
        conn.execute("CREATE NAMESPACE ns")
        conn.execute("CREATE TABLE ns.t (id BIGINT, name STRING, amount DECIMAL(10,2), ok BOOLEAN, "
                     "d DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, f FLOAT, x DOUBLE, i INT, bin BINARY) "
                     "USING iceberg")
        conn.execute("INSERT INTO ns.t VALUES (1, 'a', 1.50, true, DATE '2024-01-01', "
                     "TIMESTAMP '2024-01-01 10:00:00', TIMESTAMP_NTZ '2024-01-01 10:00:00', 0.5, 0.25, 7, X'01')")
        conn.execute("INSERT INTO ns.t VALUES (2, 'b', 2.00, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
    yield s
    s.stop()


def first_snapshot(conn):
    return conn.execute(sqlalchemy.text(
        "SELECT snapshot_id FROM ns.t.history ORDER BY made_current_at")).scalars().first()


@pytest.mark.parametrize("driver", ["psycopg2", "psycopg"])
def test_sqlalchemy(server, driver):
    engine = sqlalchemy.create_engine(
        f"postgresql+{driver}://tester@{server.host}:{server.port}/lakehouse")
    try:
        with engine.connect() as conn:
            # What the dialect asked on connect (SHOW TRANSACTION ISOLATION LEVEL, version(),
            # current_schema(), SHOW standard_conforming_strings, the hstore lookup).
            assert conn.dialect.server_version_info == (15, 0)
            assert conn.dialect.default_isolation_level == "READ COMMITTED"
            assert conn.dialect.default_schema_name == "default"
            snapshot = first_snapshot(conn)
        inspector = sqlalchemy.inspect(engine)
        assert inspector.get_schema_names() == ["information_schema", "ns"]
        assert inspector.get_table_names(schema="ns") == ["t"]
        assert inspector.get_view_names(schema="ns") == []
        assert inspector.has_table("t", schema="ns")
        columns = inspector.get_columns("t", schema="ns")
        assert [(c["name"], repr(c["type"]), c["nullable"], c["default"]) for c in columns] == [
            ("id", "BIGINT()", True, None),
            ("name", "TEXT()", True, None),
            ("amount", "NUMERIC(precision=10, scale=2)", True, None),
            ("ok", "BOOLEAN()", True, None),
            ("d", "DATE()", True, None),
            ("ts", "TIMESTAMP(timezone=True)", True, None),
            ("ntz", "TIMESTAMP()", True, None),
            ("f", "REAL()", True, None),
            ("x", "DOUBLE_PRECISION(precision=53)", True, None),
            ("i", "INTEGER()", True, None),
            ("bin", "BYTEA()", True, None),
        ]
        assert isinstance(columns[2]["type"], postgresql.NUMERIC)
        assert inspector.get_pk_constraint("t", schema="ns") == {
            "name": None, "constrained_columns": []}
        assert inspector.get_foreign_keys("t", schema="ns") == []
        assert inspector.get_indexes("t", schema="ns") == []
        assert inspector.get_unique_constraints("t", schema="ns") == []
        assert inspector.get_check_constraints("t", schema="ns") == []

        frame = pandas.read_sql(f"SELECT id, name, amount, ok, d, ts, i FROM ns.t VERSION AS OF {snapshot}",
                                engine)
        assert list(frame.columns) == ["id", "name", "amount", "ok", "d", "ts", "i"]
        assert frame.to_dict("records") == [{
            "id": 1, "name": "a", "amount": decimal.Decimal("1.50"), "ok": True,
            "d": datetime.date(2024, 1, 1),
            "ts": pandas.Timestamp("2024-01-01 10:00:00+0000", tz="UTC"), "i": 7}]
        current = pandas.read_sql("SELECT id FROM ns.t ORDER BY id", engine)
        assert current["id"].tolist() == [1, 2]
    finally:
        engine.dispose()


def test_pgcli_catalog_queries(server):
    from pgcli.pgexecute import PGExecute

    executor = PGExecute(database="lakehouse", user="tester", password="", host=server.host,
                         port=server.port, dsn=None)
    try:
        assert executor.server_version == "15.0 (floe)"
        # Its completion refresher (pgcli/completion_refresher.py), in its order.
        assert executor.search_path() == ["pg_catalog", "default"]
        assert list(executor.schemata()) == ["information_schema", "ns", "pg_catalog"]
        assert list(executor.tables()) == [("ns", "t")]
        assert [c[:4] for c in executor.table_columns()] == [
            ("ns", "t", "id", "bigint"), ("ns", "t", "name", "text"),
            ("ns", "t", "amount", "numeric"), ("ns", "t", "ok", "boolean"),
            ("ns", "t", "d", "date"), ("ns", "t", "ts", "timestamp with time zone"),
            ("ns", "t", "ntz", "timestamp without time zone"), ("ns", "t", "f", "real"),
            ("ns", "t", "x", "double precision"), ("ns", "t", "i", "integer"),
            ("ns", "t", "bin", "bytea")]
        assert list(executor.foreignkeys()) == []
        assert list(executor.views()) == []
        assert list(executor.view_columns()) == []
        assert list(executor.datatypes()) == []
        # Its function list casts with ::regtype[] and ::text[] and compares
        # prorettype::regtype with 'trigger'::regtype: floe's functions, in pg_catalog, with
        # aggregates and set-returning functions marked; floe keeps no argument types.
        functions = list(executor.functions())
        names = [f.func_name for f in functions]
        assert names == sorted(names) and {f.schema_name for f in functions} == {"pg_catalog"}
        by_name = {f.func_name: f for f in functions}
        fields = ("schema_name", "func_name", "arg_names", "arg_types", "arg_modes", "return_type",
                  "is_aggregate", "is_window", "is_set_returning", "is_extension", "arg_defaults")
        assert [tuple(getattr(by_name[n], k) for k in fields) for n in ("count", "unnest", "upper")] == [
            ("pg_catalog", "count", None, None, None, "text", True, False, False, False, ()),
            ("pg_catalog", "unnest", None, None, None, "text", False, False, True, False, ()),
            ("pg_catalog", "upper", None, None, None, "text", False, False, False, False, ())]
        assert list(executor.databases()) == ["lakehouse"]

        results = list(executor.run("SELECT id, name, amount FROM ns.t ORDER BY id"))
        assert len(results) == 1
        title, cursor, headers, status, sql, success, is_special = results[0]
        assert (headers, status, success) == (["id", "name", "amount"], "SELECT 2", True)
        assert list(cursor) == [(1, "a", decimal.Decimal("1.50")), (2, "b", decimal.Decimal("2.00"))]
    finally:
        executor.conn.close()


def psql(srv, *commands):
    args = ["psql", srv.dsn(), "-X", "-v", "ON_ERROR_STOP=1"]
    for c in commands:
        args += ["-c", c]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_psql_verbose_lists_and_expanded_output(server):
    # Sizes are 0: a table's sizes are in its metadata tables (db.t.files), not in pg_class.
    assert psql(server, "\\l+") == (
        "                                                            List of databases\n"
        "   Name    | Owner | Encoding | Collate |  Ctype  | ICU Locale | Locale Provider | "
        "Access privileges |  Size   | Tablespace | Description \n"
        "-----------+-------+----------+---------+---------+------------+-----------------+"
        "-------------------+---------+------------+-------------\n"
        " lakehouse | floe  | UTF8     | C.UTF-8 | C.UTF-8 |            | libc            | "
        "                  | 0 bytes | pg_default | \n"
        "(1 row)\n\n")
    assert psql(server, "\\dt+ ns.*") == (
        "                                  List of relations\n"
        " Schema | Name | Type  | Owner | Persistence | Access method |  Size   | Description \n"
        "--------+------+-------+-------+-------------+---------------+---------+-------------\n"
        " ns     | t    | table | floe  | permanent   | heap          | 0 bytes | \n"
        "(1 row)\n\n")
    assert psql(server, "\\x", "SELECT id, name, amount, d FROM ns.t ORDER BY id") == (
        "Expanded display is on.\n"
        "-[ RECORD 1 ]------\n"
        "id     | 1\n"
        "name   | a\n"
        "amount | 1.50\n"
        "d      | 2024-01-01\n"
        "-[ RECORD 2 ]------\n"
        "id     | 2\n"
        "name   | b\n"
        "amount | 2.00\n"
        "d      | \n\n")


def test_psql_describe_table(server):
    # \d runs a correlated ARRAY(subquery) over unnest(tc.reloptions), the columns' storage and
    # the other queries PostgreSQL 15 answers for a table with no indexes, constraints, rules,
    # triggers, policies, statistics objects, publications or inheritance.
    assert psql(server, "\\d ns.t") == (
        '                             Table "ns.t"\n'
        ' Column |            Type             | Collation | Nullable | Default \n'
        '--------+-----------------------------+-----------+----------+---------\n'
        ' id     | bigint                      |           |          | \n'
        ' name   | text                        |           |          | \n'
        ' amount | numeric(10,2)               |           |          | \n'
        ' ok     | boolean                     |           |          | \n'
        ' d      | date                        |           |          | \n'
        ' ts     | timestamp with time zone    |           |          | \n'
        ' ntz    | timestamp without time zone |           |          | \n'
        ' f      | real                        |           |          | \n'
        ' x      | double precision            |           |          | \n'
        ' i      | integer                     |           |          | \n'
        ' bin    | bytea                       |           |          | \n'
        '\n')
    assert psql(server, "\\d+ ns.t") == (
        '                                                        Table "ns.t"\n'
        ' Column |            Type             | Collation | Nullable | Default | Storage  | Compression | '
        'Stats target | Description \n'
        '--------+-----------------------------+-----------+----------+---------+----------+-------------+'
        '--------------+-------------\n'
        ' id     | bigint                      |           |          |         | plain    |             |              | \n'
        ' name   | text                        |           |          |         | extended |             |              | \n'
        ' amount | numeric(10,2)               |           |          |         | main     |             |              | \n'
        ' ok     | boolean                     |           |          |         | plain    |             |              | \n'
        ' d      | date                        |           |          |         | plain    |             |              | \n'
        ' ts     | timestamp with time zone    |           |          |         | plain    |             |              | \n'
        ' ntz    | timestamp without time zone |           |          |         | plain    |             |              | \n'
        ' f      | real                        |           |          |         | plain    |             |              | \n'
        ' x      | double precision            |           |          |         | plain    |             |              | \n'
        ' i      | integer                     |           |          |         | plain    |             |              | \n'
        ' bin    | bytea                       |           |          |         | extended |             |              | \n'
        'Access method: heap\n'
        '\n')


def test_duckdb_attaches_lists_and_reads(server):
    con = duckdb.connect()
    try:
        # Offline: only the wheel's binary, never a download.
        con.execute("SET autoinstall_known_extensions = false")
        con.execute("SET autoload_known_extensions = false")
        path = (Path(duckdb_extension_postgres_scanner.__file__).parent / "extensions"
                / f"v{duckdb.__version__}" / "postgres_scanner.duckdb_extension")
        con.execute(f"LOAD '{path}'")
        con.execute(f"ATTACH 'host={server.host} port={server.port} dbname=lakehouse user=tester' "
                    "AS f (TYPE postgres, READ_ONLY)")
        assert con.execute("SELECT schema_name, table_name FROM duckdb_tables() "
                           "WHERE database_name = 'f' ORDER BY ALL").fetchall() == [("ns", "t")]
        assert con.execute("SELECT column_name, data_type FROM duckdb_columns() "
                           "WHERE database_name = 'f' ORDER BY column_index").fetchall() == [
            ("id", "BIGINT"), ("name", "VARCHAR"), ("amount", "DECIMAL(10,2)"), ("ok", "BOOLEAN"),
            ("d", "DATE"), ("ts", "TIMESTAMP WITH TIME ZONE"), ("ntz", "TIMESTAMP"), ("f", "FLOAT"),
            ("x", "DOUBLE"), ("i", "INTEGER"), ("bin", "BLOB")]
        # Rows come through COPY (SELECT "id", ... FROM "ns"."t") TO STDOUT (FORMAT "binary").
        con.execute("SET TimeZone = 'UTC'")
        assert con.execute("SELECT id, name, amount, ok, d, CAST(ts AS VARCHAR), ntz, f, x, i, bin "
                           "FROM f.ns.t ORDER BY id").fetchall() == [
            (1, "a", decimal.Decimal("1.50"), True, datetime.date(2024, 1, 1), "2024-01-01 10:00:00+00",
             datetime.datetime(2024, 1, 1, 10, 0), 0.5, 0.25, 7, b"\x01"),
            (2, "b", decimal.Decimal("2.00"), False, None, None, None, None, None, None, None)]
        assert con.execute("SELECT count(*), sum(amount) FROM f.ns.t WHERE ok").fetchall() == [
            (1, decimal.Decimal("1.50"))]
    finally:
        con.close()


def test_copy_to_stdout(server):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        cur = conn.cursor()
        with cur.copy("COPY (SELECT id, name, amount, ok, d, ts, x, bin FROM ns.t ORDER BY id) "
                      "TO STDOUT (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "text", "numeric", "bool", "date", "timestamptz", "float8", "bytea"])
            assert list(copy.rows()) == [
                (1, "a", decimal.Decimal("1.50"), True, datetime.date(2024, 1, 1),
                 datetime.datetime(2024, 1, 1, 10, 0, tzinfo=datetime.timezone.utc), 0.25, b"\x01"),
                (2, "b", decimal.Decimal("2.00"), False, None, None, None, None)]
        with cur.copy("COPY (SELECT id FROM ns.t WHERE id > 5) TO STDOUT WITH (FORMAT binary)") as copy:
            copy.set_types(["int8"])
            assert list(copy.rows()) == []
        with cur.copy("COPY ns.t TO STDOUT") as copy:
            assert sorted(row[:4] for row in copy.rows()) == [("1", "a", "1.50", "t"), ("2", "b", "2.00", "f")]
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            cur.execute("COPY ns.t FROM STDIN")
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            cur.execute("COPY (DELETE FROM ns.t) TO STDOUT")
        assert cur.execute("SELECT count(*) FROM ns.t").fetchall() == [(2,)]
    assert psql(server, "COPY (SELECT id, name, d FROM ns.t ORDER BY id) TO STDOUT") == (
        "1\ta\t2024-01-01\n2\tb\t\\N\n")


def test_statements_drivers_send(server):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        def one(sql):
            cur = conn.execute(sql)
            return [d.name for d in cur.description], cur.fetchall()

        assert one("SHOW TRANSACTION ISOLATION LEVEL") == (["transaction_isolation"], [("read committed",)])
        assert one("show time zone") == (["TimeZone"], [("UTC",)])
        assert one("SHOW standard_conforming_strings") == (["standard_conforming_strings"], [("on",)])
        assert one("select pg_catalog.version()")[1][0][0].startswith("PostgreSQL 15.0 (floe ")
        assert one("select current_schema()") == (["current_schema"], [("default",)])
        assert one("SELECT nspname FROM pg_catalog.pg_namespace WHERE nspname NOT LIKE 'pg_%'::text "
                   "ORDER BY nspname") == (["nspname"], [("information_schema",), ("ns",)])
        assert one("SELECT typname FROM pg_catalog.pg_type WHERE oid = to_regtype('hstore')") == (
            ["typname"], [])

    # Savepoints inside a block, as psycopg's TypeInfo.fetch and SQLAlchemy's nested
    # transactions set them: each statement has committed already, so they mark places only.
    with psycopg.connect(server.dsn()) as conn:
        cur = conn.cursor()
        assert cur.execute("SAVEPOINT s1").statusmessage == "SAVEPOINT"
        with pytest.raises(psycopg.errors.UndefinedTable):
            cur.execute("SELECT * FROM ns.nope")
        with pytest.raises(psycopg.errors.InFailedSqlTransaction):
            cur.execute("SELECT 1")
        assert cur.execute("ROLLBACK TO SAVEPOINT s1").statusmessage == "ROLLBACK"
        assert cur.execute("SELECT count(*) FROM ns.t").fetchall() == [(2,)]
        assert cur.execute("RELEASE SAVEPOINT s1").statusmessage == "RELEASE"
        with pytest.raises(psycopg.errors.InvalidSavepointSpecification):
            cur.execute("RELEASE s1")
        conn.rollback()
        with pytest.raises(psycopg.errors.NoActiveSqlTransaction):
            conn.autocommit = True
            conn.execute("SAVEPOINT s2")
        with conn.transaction():
            with conn.transaction():  # a savepoint
                assert conn.execute("SELECT 1").fetchall() == [(1,)]
