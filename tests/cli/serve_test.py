"""`floe serve`: psql and psycopg over the PostgreSQL wire protocol against a fresh catalog.
The rollback story through psql (rows equal to `floe sql`), every type in text and binary,
errors with their SQLSTATE and position, SCRAM and trust authentication, TLS, the idle
timeout, many clients at once, and malformed messages from a raw socket.
Run: FLOE_BINARY=build/floe pytest tests/cli/serve_test.py"""

import csv
import datetime
import decimal
import io
import os
import socket
import struct
import subprocess
import threading
import time

import psycopg
import pytest

from serve_support import Serve

BINARY = os.environ.get("FLOE_BINARY", "build/floe")


@pytest.fixture
def server():
    s = Serve(BINARY)
    yield s
    s.stop()


def psql_csv(srv, *commands, dbname="lakehouse"):
    args = ["psql", srv.dsn(dbname=dbname), "--csv", "-X", "-v", "ON_ERROR_STOP=1"]
    for c in commands:
        args += ["-c", c]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def floe_csv(srv, query):
    r = subprocess.run([srv.binary, "sql", "--catalog", srv.catalog, "--warehouse", srv.warehouse,
                        "--format", "csv", "-c", query], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return list(csv.reader(io.StringIO(r.stdout)))


def rows_of(text):
    return list(csv.reader(io.StringIO(text)))


def test_listening_line_and_clean_stop():
    s = Serve(BINARY)
    assert s.line == f"floe serve: listening on 127.0.0.1:{s.port} (catalog lakehouse)\n"
    s.proc.terminate()
    assert s.proc.wait(timeout=30) == 0
    assert s.proc.stdout.read() == "floe serve: stopped\n"
    s.stop()


def test_psql_rollback_story(server):
    out = psql_csv(server, "CREATE NAMESPACE db",
                   "CREATE TABLE db.t (id BIGINT, name STRING, amount DECIMAL(10,2)) USING iceberg",
                   "INSERT INTO db.t VALUES (1, 'a', 10.50), (2, 'b', 20.00)")
    assert out.splitlines() == ["CREATE SCHEMA", "CREATE TABLE", "INSERT 0 2"]
    good = rows_of(psql_csv(server, "SELECT snapshot_id FROM db.t.snapshots"))[1:]
    assert len(good) == 1
    good_id = good[0][0]
    psql_csv(server, "INSERT INTO db.t VALUES (3, 'bad', -999.99)")

    for query in ["SELECT * FROM db.t ORDER BY id",
                  "SELECT snapshot_id, parent_id, operation FROM db.t.snapshots ORDER BY committed_at",
                  "SELECT snapshot_id, parent_id FROM db.t.history ORDER BY made_current_at",
                  f"SELECT * FROM db.t FOR VERSION AS OF {good_id} ORDER BY id"]:
        assert rows_of(psql_csv(server, query)) == floe_csv(server, query), query
    bad_rows = rows_of(psql_csv(server, "SELECT * FROM db.t ORDER BY id"))
    assert bad_rows[1:] == [["1", "a", "10.50"], ["2", "b", "20.00"], ["3", "bad", "-999.99"]]

    bad_id = floe_csv(server, "SELECT snapshot_id FROM db.t.refs WHERE name = 'main'")[1][0]
    call = rows_of(psql_csv(server, f"CALL lakehouse.system.rollback_to_snapshot('db.t', {good_id})"))
    assert call == [["previous_snapshot_id", "current_snapshot_id"], [bad_id, good_id]]
    after = rows_of(psql_csv(server, "SELECT * FROM db.t ORDER BY id"))
    assert after[1:] == [["1", "a", "10.50"], ["2", "b", "20.00"]]
    assert after == floe_csv(server, "SELECT * FROM db.t ORDER BY id")
    history = rows_of(psql_csv(server, "SELECT snapshot_id, is_current_ancestor FROM db.t.history ORDER BY made_current_at"))
    assert history[-1] == [good_id, "t"]


def test_psql_lists_namespaces_tables_and_columns(server):
    psql_csv(server, "CREATE NAMESPACE db", "CREATE NAMESPACE empty_ns",
             "CREATE TABLE db.t (id INT NOT NULL, name STRING, amount DECIMAL(10,2), ts TIMESTAMP) USING iceberg",
             "CREATE TABLE db.u (day DATE) USING iceberg")

    def psql(command):
        r = subprocess.run(["psql", server.dsn(), "-X", "-c", command], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout

    assert psql("\\dn") == (
        " List of schemas\n"
        "   Name   | Owner \n"
        "----------+-------\n"
        " db       | floe\n"
        " empty_ns | floe\n"
        "(2 rows)\n\n")
    assert psql("\\dt db.*") == (
        "       List of relations\n"
        " Schema | Name | Type  | Owner \n"
        "--------+------+-------+-------\n"
        " db     | t    | table | floe\n"
        " db     | u    | table | floe\n"
        "(2 rows)\n\n")
    assert psql("\\d db.t") == (
        "                            Table \"db.t\"\n"
        " Column |           Type           | Collation | Nullable | Default \n"
        "--------+--------------------------+-----------+----------+---------\n"
        " id     | integer                  |           | not null | \n"
        " name   | text                     |           |          | \n"
        " amount | numeric(10,2)            |           |          | \n"
        " ts     | timestamp with time zone |           |          | \n\n")
    r = subprocess.run(["psql", server.dsn(), "-X", "-c", "\\d db.missing"], capture_output=True,
                       text=True, timeout=120)
    assert r.stderr == 'Did not find any relation named "db.missing".\n'


def test_result_columns_are_named_as_postgresql_names_them(server):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        cur = conn.execute("SELECT current_database(), 1 + 1, 'a'::text, CASE WHEN true THEN 1 END, "
                           "count(*), 2 AS two, r.id FROM range(3) AS r(id) GROUP BY r.id ORDER BY r.id")
        assert [d.name for d in cur.description] == [
            "current_database", "?column?", "text", "case", "count", "two", "id"]
        assert cur.fetchall() == [("lakehouse", 2, "a", 1, 1, 2, 0), ("lakehouse", 2, "a", 1, 1, 2, 1),
                                  ("lakehouse", 2, "a", 1, 1, 2, 2)]
    # `floe sql` keeps Spark's names for the same expressions.
    assert floe_csv(server, "SELECT current_database(), 1 + 1")[0] == ["current_database()", "(1 + 1)"]


def test_simple_query_several_statements_and_empty(server):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        pgconn = conn.pgconn
        pgconn.send_query(b"SELECT 1 AS a; SELECT 'x' AS b, 2 AS c")
        results = []
        while (r := pgconn.get_result()) is not None:
            results.append((r.status, r.ntuples, r.command_status, [r.fname(i) for i in range(r.nfields)]))
        assert results == [(psycopg.pq.ExecStatus.TUPLES_OK, 1, b"SELECT 1", [b"a"]),
                           (psycopg.pq.ExecStatus.TUPLES_OK, 1, b"SELECT 1", [b"b", b"c"])]
        pgconn.send_query(b" ; -- nothing\n")
        r = pgconn.get_result()
        assert r.status == psycopg.pq.ExecStatus.EMPTY_QUERY
        assert pgconn.get_result() is None
        # An error stops the statements after it.
        pgconn.send_query(b"SELECT 1; SELECT * FROM nope; SELECT 3")
        statuses = []
        while (r := pgconn.get_result()) is not None:
            statuses.append(r.status)
        assert statuses == [psycopg.pq.ExecStatus.TUPLES_OK, psycopg.pq.ExecStatus.FATAL_ERROR]


TYPES_DDL = ("CREATE TABLE db.types (b BOOLEAN, i SMALLINT, n INT, l BIGINT, f FLOAT, d DOUBLE, "
             "m DECIMAL(12,3), s STRING, bin BINARY, dt DATE, t TIMESTAMP_NTZ, tz TIMESTAMP, "
             "li ARRAY<INT>, mp MAP<STRING,INT>, st STRUCT<x: INT, y: STRING>) USING iceberg")
TYPES_ROW = ("INSERT INTO db.types VALUES (true, 7, -42, 9007199254740993, 1.5, 0.1, 12345.678, 'héllo', "
             "X'01ff', DATE '2024-02-29', TIMESTAMP_NTZ '2024-01-01 10:00:00.25', "
             "TIMESTAMP '2024-01-01 10:00:00', array(1, 2), map('k', 3), named_struct('x', 1, 'y', 'b')), "
             "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
EXPECTED = (True, 7, -42, 9007199254740993, 1.5, 0.1, decimal.Decimal("12345.678"), "héllo", b"\x01\xff",
            datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 1, 10, 0, 0, 250000),
            datetime.datetime(2024, 1, 1, 10, 0, tzinfo=datetime.timezone.utc),
            "{1,2}", '{"k": 3}', '{"x": 1, "y": "b"}')


@pytest.mark.parametrize("binary", [False, True])
def test_every_type_text_and_binary(server, binary):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute("CREATE NAMESPACE IF NOT EXISTS db")
        conn.execute(TYPES_DDL)
        conn.execute(TYPES_ROW)
        cur = conn.cursor(binary=binary)
        cur.execute("SELECT * FROM db.types ORDER BY n NULLS LAST")
        rows = cur.fetchall()
        assert [d.type_code for d in cur.description] == [16, 23, 23, 20, 700, 701, 1700, 25, 17, 1082, 1114,
                                                          1184, 25, 25, 25]
        assert rows[0] == EXPECTED
        assert rows[1] == (None,) * 15
        assert [d.name for d in cur.description][:3] == ["b", "i", "n"]


def test_timestamptz_in_the_session_time_zone(server):
    with psycopg.connect(server.dsn(options="'-c TimeZone=Asia/Kolkata'"), autocommit=True) as conn:
        assert conn.info.parameter_status("TimeZone") == "Asia/Kolkata"
        cur = conn.execute("SELECT CAST(TIMESTAMP '2024-01-01 10:00:00 UTC' AS STRING) AS s, "
                           "TIMESTAMP '2024-01-01 10:00:00 UTC' AS ts")
        row = cur.fetchone()
        assert row[1] == datetime.datetime(2024, 1, 1, 15, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30)))
    text = psql_csv(server, "SELECT TIMESTAMP '2024-01-01 10:00:00 UTC' AS ts")
    assert text == "ts\n2024-01-01 10:00:00+00\n"


def test_startup_parameters(server):
    with psycopg.connect(server.dsn(application_name="probe"), autocommit=True) as conn:
        info = conn.info
        assert info.parameter_status("server_version").startswith("15.")
        assert info.parameter_status("server_encoding") == "UTF8"
        assert info.parameter_status("client_encoding") == "UTF8"
        assert info.parameter_status("DateStyle") == "ISO, MDY"
        assert info.parameter_status("integer_datetimes") == "on"
        assert info.parameter_status("standard_conforming_strings") == "on"
        assert info.parameter_status("application_name") == "probe"
        assert info.parameter_status("is_superuser") == "off"
        assert info.parameter_status("session_authorization") == "tester"
        assert info.backend_pid > 0


def test_errors_carry_sqlstate_and_position(server):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        with pytest.raises(psycopg.errors.SyntaxError) as e:
            conn.execute("SELECT 1 FORM x")
        assert e.value.diag.sqlstate == "42601"
        # "FORM" reads as an alias; the error is at the 'x' after it.
        assert e.value.diag.statement_position == "15"
        assert e.value.diag.message_primary == "Syntax error at or near 'x'"
        with pytest.raises(psycopg.errors.UndefinedTable) as e:
            conn.execute("SELECT * FROM nope")
        assert e.value.diag.sqlstate == "42P01"
        assert e.value.diag.statement_position == "15"
        conn.execute("CREATE NAMESPACE db")
        conn.execute("CREATE TABLE db.t (id INT) USING iceberg")
        with pytest.raises(psycopg.errors.DuplicateTable):
            conn.execute("CREATE TABLE db.t (id INT) USING iceberg")
        with pytest.raises(psycopg.errors.UndefinedColumn) as e:
            conn.execute("SELECT idx FROM db.t")
        assert e.value.diag.statement_position == "8"
        # Still usable after errors.
        assert conn.execute("SELECT 41 + 1").fetchone() == (42,)
    with pytest.raises(psycopg.OperationalError) as e:
        psycopg.connect(server.dsn(dbname="elsewhere"))
    assert 'database "elsewhere" does not exist' in str(e.value)


def test_database_may_be_a_namespace(server):
    psql_csv(server, "CREATE NAMESPACE sales", "CREATE TABLE sales.o (id INT) USING iceberg",
             "INSERT INTO sales.o VALUES (5)")
    assert psql_csv(server, "SELECT * FROM o", dbname="sales") == "id\n5\n"


def test_transactions_and_failed_blocks(server):
    with psycopg.connect(server.dsn()) as conn:  # not autocommit: psycopg sends BEGIN
        assert conn.execute("SELECT 1").fetchone() == (1,)
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        with pytest.raises(psycopg.errors.UndefinedTable):
            conn.execute("SELECT * FROM nope")
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
        with pytest.raises(psycopg.errors.InFailedSqlTransaction):
            conn.execute("SELECT 1")
        conn.rollback()
        assert conn.execute("SELECT 2").fetchone() == (2,)
        conn.commit()


def test_a_block_commits_its_tables_together(server):
    """BEGIN ... COMMIT through the server: another client sees none of the block's writes
    until COMMIT, then all of them; ROLLBACK leaves nothing; DDL is refused in a block
    (25001) and fails it."""
    psql_csv(server, "CREATE NAMESPACE IF NOT EXISTS db", "CREATE TABLE db.a (id BIGINT)",
             "CREATE TABLE db.b (id BIGINT)")
    with psycopg.connect(server.dsn()) as conn, psycopg.connect(server.dsn(), autocommit=True) as other:
        conn.execute("INSERT INTO db.a VALUES (1)")
        conn.execute("INSERT INTO db.b VALUES (1), (2)")
        assert conn.execute("SELECT (SELECT count(*) FROM db.a), (SELECT count(*) FROM db.b)").fetchone() == (1, 2)
        assert other.execute("SELECT (SELECT count(*) FROM db.a), (SELECT count(*) FROM db.b)").fetchone() == (0, 0)
        conn.commit()
        assert other.execute("SELECT (SELECT count(*) FROM db.a), (SELECT count(*) FROM db.b)").fetchone() == (1, 2)
        conn.execute("DELETE FROM db.a")
        conn.rollback()
        assert other.execute("SELECT count(*) FROM db.a").fetchone() == (1,)
        with pytest.raises(psycopg.errors.ActiveSqlTransaction, match="CREATE TABLE cannot run inside a transaction block"):
            conn.execute("CREATE TABLE db.c (id BIGINT)")
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
        conn.rollback()
        with conn.transaction():
            conn.execute("INSERT INTO db.a VALUES (2)")
            with pytest.raises(psycopg.errors.UndefinedTable):
                with conn.transaction():  # a savepoint, rolled back alone
                    conn.execute("INSERT INTO db.b VALUES (3)")
                    conn.execute("SELECT * FROM db.nope")
        conn.commit()
    assert floe_csv(server, "SELECT (SELECT count(*) FROM db.a), (SELECT count(*) FROM db.b)")[1] == ["2", "2"]


def test_extended_protocol_row_limit_and_describe(server):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        pgconn = conn.pgconn
        pgconn.send_prepare(b"s1", b"SELECT 1 AS one, 'x' AS two")
        assert pgconn.get_result().status == psycopg.pq.ExecStatus.COMMAND_OK
        assert pgconn.get_result() is None
        d = pgconn.describe_prepared(b"s1")
        assert d.nfields == 2 and d.ftype(0) == 23 and d.ftype(1) == 25
        r = pgconn.exec_prepared(b"s1", [], result_format=1)
        assert r.get_value(0, 0) == b"\x00\x00\x00\x01" and r.get_value(0, 1) == b"x"
        r = pgconn.exec_prepared(b"nope", [])
        assert r.error_field(psycopg.pq.DiagnosticField.SQLSTATE) == b"26000"


def test_scram_password_auth():
    with _tmpdir() as d:
        users = os.path.join(d, "users")
        add = subprocess.run([BINARY, "serve", "--add-user", "alice", "--users", users], input="s3cret!\n",
                             capture_output=True, text=True, timeout=60)
        assert add.returncode == 0, add.stderr
        text = open(users).read()
        assert text.startswith("alice:SCRAM-SHA-256$4096:") and "s3cret" not in text
        s = Serve(BINARY, "--auth", "password", "--users", users)
        try:
            with psycopg.connect(s.dsn(user="alice", password="s3cret!"), autocommit=True) as conn:
                assert conn.execute("SELECT 1").fetchone() == (1,)
            for user, password in [("alice", "wrong"), ("mallory", "s3cret!")]:
                with pytest.raises(psycopg.OperationalError) as e:
                    psycopg.connect(s.dsn(user=user, password=password))
                assert f'password authentication failed for user "{user}"' in str(e.value)
            r = subprocess.run(["psql", s.dsn(user="alice"), "-c", "SELECT 1"], capture_output=True, text=True,
                               env=dict(os.environ, PGPASSWORD="wrong"), timeout=60)
            assert r.returncode != 0 and 'password authentication failed for user "alice"' in r.stderr
        finally:
            s.stop()


class _tmpdir:
    def __enter__(self):
        import tempfile
        self.t = tempfile.TemporaryDirectory(prefix="floe-serve-")
        return self.t.name

    def __exit__(self, *a):
        self.t.cleanup()


def _non_loopback_address():
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
    except OSError:
        return None
    for a in out:
        if ":" not in a and not a.startswith("127."):
            return a
    return None


def test_trust_refused_off_loopback():
    addr = _non_loopback_address()
    if addr is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    s = Serve(BINARY, "--listen", f"{addr}:0")
    try:
        with pytest.raises(psycopg.OperationalError) as e:
            psycopg.connect(s.dsn())
        assert "trust authentication is refused" in str(e.value)
    finally:
        s.stop()
    s = Serve(BINARY, "--listen", f"{addr}:0", "--allow-trust-remote")
    try:
        with psycopg.connect(s.dsn(), autocommit=True) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        s.stop()


def test_tls_with_a_self_signed_certificate():
    with _tmpdir() as d:
        cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "1", "-subj", "/CN=localhost"], check=True, capture_output=True, timeout=120)
        s = Serve(BINARY, "--tls-cert", cert, "--tls-key", key)
        try:
            with psycopg.connect(s.dsn(sslmode="require"), autocommit=True) as conn:
                assert conn.pgconn.ssl_in_use
                assert conn.execute("SELECT 'secure'").fetchone() == ("secure",)
            with psycopg.connect(s.dsn(), autocommit=True) as conn:  # plaintext still allowed
                assert not conn.pgconn.ssl_in_use
                assert conn.execute("SELECT 1").fetchone() == (1,)
        finally:
            s.stop()
    # Without a certificate the server declines SSL.
    s = Serve(BINARY)
    try:
        with pytest.raises(psycopg.OperationalError) as e:
            psycopg.connect(s.dsn(sslmode="require"))
        assert "does not support SSL" in str(e.value)
    finally:
        s.stop()


def test_idle_timeout():
    s = Serve(BINARY, "--idle-timeout", "1")
    try:
        conn = psycopg.connect(s.dsn(), autocommit=True)
        assert conn.execute("SELECT 1").fetchone() == (1,)
        time.sleep(2.5)
        with pytest.raises(psycopg.OperationalError) as e:
            conn.execute("SELECT 1")
        assert "idle-session timeout" in str(e.value) or conn.closed
        conn.close()
        with psycopg.connect(s.dsn(), autocommit=True) as again:
            assert again.execute("SELECT 1").fetchone() == (1,)
    finally:
        s.stop()


def test_concurrent_clients(server):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute("CREATE NAMESPACE db")
        for t in range(3):
            # 32 clients on 3 tables: more commit retries than the default 4.
            conn.execute(f"CREATE TABLE db.c{t} (client INT, n INT) USING iceberg "
                         "TBLPROPERTIES ('commit.retry.num-retries' = '100', 'commit.retry.min-wait-ms' = '10')")
            conn.execute(f"INSERT INTO db.c{t} VALUES (-1, -1)")
    acknowledged = [[] for _ in range(32)]
    errors = []
    rss = []

    def client(i):
        try:
            with psycopg.connect(server.dsn(), autocommit=True) as c:
                table = f"db.c{i % 3}"
                for n in range(6):
                    if (i + n) % 3 == 0:
                        c.execute(f"INSERT INTO {table} VALUES ({i}, {n})")
                        acknowledged[i].append((table, i, n))
                    elif (i + n) % 3 == 1:
                        first = c.execute(f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at LIMIT 1").fetchone()[0]
                        rows = c.execute(f"SELECT * FROM {table} FOR VERSION AS OF {first}").fetchall()
                        assert rows == [(-1, -1)]
                    else:
                        c.execute(f"SELECT count(*) FROM {table}").fetchone()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append((i, repr(e)))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        rss.append(server.rss_kb())
        time.sleep(0.2)
    for t in threads:
        t.join()
    assert errors == []
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        for t in range(3):
            present = set(conn.execute(f"SELECT client, n FROM db.c{t}").fetchall())
            for acks in acknowledged:
                for table, i, n in acks:
                    if table == f"db.c{t}":
                        assert (i, n) in present
    assert max(rss) < 2_000_000, f"RSS {max(rss)} kB"
    assert server.alive()
    # And it still stops promptly: no connection thread is left waiting.
    server.proc.terminate()
    assert server.proc.wait(timeout=30) == 0


def _raw(server):
    return socket.create_connection((server.host, server.port), timeout=10)


def _startup(sock, user="tester", database="lakehouse"):
    params = f"user\0{user}\0database\0{database}\0\0".encode()
    sock.sendall(struct.pack("!ii", 8 + len(params), 196608) + params)


def _read_messages(sock, until=b"Z"):
    data = b""
    out = []
    while True:
        while len(data) < 5:
            chunk = sock.recv(65536)
            if not chunk:
                return out
            data += chunk
        t, length = data[0:1], struct.unpack("!i", data[1:5])[0]
        while len(data) < 1 + length:
            chunk = sock.recv(65536)
            if not chunk:
                return out
            data += chunk
        out.append((t, data[5:1 + length]))
        data = data[1 + length:]
        if t == until:
            return out


def _msg(t, body):
    return t + struct.pack("!i", len(body) + 4) + body


def test_row_limit_suspends_the_portal(server):
    s = _raw(server)
    _startup(s)
    _read_messages(s)
    q = b"SELECT * FROM (VALUES (1), (2), (3)) AS v(x) ORDER BY x\0"
    s.sendall(_msg(b"P", b"\0" + q + b"\0\0") + _msg(b"B", b"\0\0" + b"\0\0" + b"\0\0" + b"\0\0") +
              _msg(b"E", b"\0" + struct.pack("!i", 2)) + _msg(b"E", b"\0" + struct.pack("!i", 2)) + _msg(b"S", b""))
    kinds = [(t, b) for t, b in _read_messages(s)]
    types = [t for t, _ in kinds]
    assert types == [b"1", b"2", b"D", b"D", b"s", b"D", b"C", b"Z"]
    assert kinds[6][1] == b"SELECT 3\0"
    s.close()


def test_malformed_messages_close_only_their_connection(server):
    cases = [
        struct.pack("!i", 3),                              # startup length below 8
        struct.pack("!i", 1 << 30),                        # huge startup length
        struct.pack("!ii", 8, 1 << 16),                    # protocol 1.0
        struct.pack("!ii", 12, 196608) + b"user",           # parameters without NULs
        b"\x00\x00",                                       # truncated, then hang up
    ]
    after_startup = [
        _msg(b"Q", b"SELECT 1"),                           # query without its NUL
        b"Q" + struct.pack("!i", 2),                       # length below 4
        b"Q" + struct.pack("!i", 0x7fffffff),              # huge length
        _msg(b"?", b""),                                   # unknown type
        _msg(b"B", b"\0\0\xff\xff"),                        # negative format count
        _msg(b"P", b"x"),                                  # truncated Parse
    ]
    for bad in cases:
        s = _raw(server)
        s.sendall(bad)
        s.shutdown(socket.SHUT_WR)
        msgs = _read_messages(s)
        assert all(t == b"E" for t, _ in msgs), msgs
        s.close()
    for bad in after_startup:
        s = _raw(server)
        _startup(s)
        _read_messages(s)
        s.sendall(bad)
        msgs = _read_messages(s)
        assert msgs and msgs[-1][0] == b"E" and b"FATAL" in msgs[-1][1], (bad, msgs)
        assert s.recv(10) == b""
        s.close()
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        assert conn.execute("SELECT 'still serving'").fetchone() == ("still serving",)
    assert server.alive()


LONG_QUERY = "SELECT sum(id * 7 % 13) FROM range(1000000000)"


def test_cancel_a_running_query(server):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        timer = threading.Timer(1.0, conn.cancel)
        timer.start()
        with pytest.raises(psycopg.errors.QueryCanceled) as e:
            conn.execute(LONG_QUERY)
        timer.join()
        assert e.value.diag.sqlstate == "57014"
        assert e.value.diag.message_primary == "canceling statement due to user request"
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_statement_timeout():
    s = Serve(BINARY, "--statement-timeout", "1")
    try:
        with psycopg.connect(s.dsn(), autocommit=True) as conn:
            started = time.monotonic()
            with pytest.raises(psycopg.errors.QueryCanceled) as e:
                conn.execute(LONG_QUERY)
            assert time.monotonic() - started < 30
            assert e.value.diag.message_primary == "canceling statement due to statement timeout"
            assert conn.execute("SELECT 2").fetchone() == (2,)
    finally:
        s.stop()


@pytest.mark.parametrize("binary", [False, True])
def test_prepared_statements_with_parameters(server, binary):
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute("CREATE NAMESPACE IF NOT EXISTS db")
        conn.execute("CREATE TABLE db.p (id BIGINT, name STRING, amount DECIMAL(10,2), d DATE, ok BOOLEAN, "
                     "x DOUBLE) USING iceberg")
        cur = conn.cursor(binary=binary)
        rows = [(1, "a", decimal.Decimal("1.50"), datetime.date(2024, 1, 1), True, 0.5),
                (2, "b'q", decimal.Decimal("-2.25"), datetime.date(2024, 2, 29), False, -1e20),
                (3, None, None, None, None, None)]
        for row in rows:
            cur.execute("INSERT INTO db.p VALUES (%s, %s, %s, %s, %s, %s)", row, prepare=True)
        cur.execute("SELECT * FROM db.p WHERE id >= %s ORDER BY id", (2,), prepare=True)
        assert cur.fetchall() == rows[1:]
        cur.execute("SELECT name FROM db.p WHERE name = %s", ("b'q",))
        assert cur.fetchall() == [("b'q",)]


@pytest.mark.parametrize("binary", [False, True])
def test_table_changes_from_a_client(server, binary):
    """A client reads table_changes as it reads a table: typed columns, a snapshot id bound as a
    parameter of a prepared statement, the rows floe sql gives."""
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute("CREATE NAMESPACE IF NOT EXISTS db")
        conn.execute("CREATE TABLE db.c (id BIGINT, name STRING) USING iceberg")
        conn.execute("INSERT INTO db.c VALUES (1, 'a'), (2, 'b')")
        conn.execute("UPDATE db.c SET name = 'B' WHERE id = 2")
        conn.execute("DELETE FROM db.c WHERE id = 1")
        snapshots = conn.execute(
            "SELECT snapshot_id, committed_at FROM db.c.snapshots ORDER BY committed_at").fetchall()
        assert len(snapshots) == 3
        (s1, t1), (s2, t2), (s3, t3) = snapshots
        cur = conn.cursor(binary=binary)
        query = ("SELECT id, name, _change_type, _change_ordinal, _commit_snapshot_id, _commit_timestamp, "
                 "_commit_sequence_number, _operation FROM table_changes('db.c', %s, NULL, "
                 "identifier_columns => array('id')) ORDER BY _change_ordinal, id, _change_type")
        cur.execute(query, (None,), prepare=True)
        assert [d.name for d in cur.description] == [
            "id", "name", "_change_type", "_change_ordinal", "_commit_snapshot_id", "_commit_timestamp",
            "_commit_sequence_number", "_operation"]
        assert cur.fetchall() == [
            (1, "a", "INSERT", 0, s1, t1, 1, "append"), (2, "b", "INSERT", 0, s1, t1, 1, "append"),
            (2, "B", "UPDATE_AFTER", 1, s2, t2, 2, "overwrite"), (2, "b", "UPDATE_BEFORE", 1, s2, t2, 2, "overwrite"),
            (1, "a", "DELETE", 2, s3, t3, 3, "overwrite")]  # a rewritten file: an overwrite
        cur.execute(query, (s2,), prepare=True)
        assert [r[:4] for r in cur.fetchall()] == [(1, "a", "DELETE", 0)]
        with pytest.raises(psycopg.errors.Error) as e:
            conn.execute(f"SELECT * FROM table_changes('db.c', {s3}, {s1})")
        assert e.value.diag.message_primary == (
            f"Starting snapshot (exclusive) {s3} is after end snapshot {s1} in table lakehouse.db.c")
    net = "SELECT id, name, _change_type FROM table_changes('db.c', NULL, NULL, mode => 'net') ORDER BY id"
    assert rows_of(psql_csv(server, net)) == floe_csv(server, net) == [
        ["id", "name", "_change_type"], ["2", "B", "INSERT"]]
