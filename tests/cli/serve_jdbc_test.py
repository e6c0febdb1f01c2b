"""`floe serve` through the PostgreSQL JDBC driver (scripts/fetch-jdbc.sh fetches it):
tests/cli/ServeJdbc.java reads every type with getObject and getString over prepared
statements in binary transfer, reports an error's SQLSTATE and position, and lists schemas,
tables and columns through DatabaseMetaData as DBeaver's navigator does, and the rest its and
DataGrip's generic JDBC views ask (catalogs, table types, keys, indexes, functions, procedures,
user-defined types, client info properties, the type list of getTypeInfo): PostgreSQL's
answers, empty where floe has no such thing, with PostgreSQL's column types even when empty.
Run: FLOE_BINARY=build/floe pytest tests/cli/serve_jdbc_test.py"""

import os
import subprocess
import tempfile

from serve_support import Serve

BINARY = os.environ.get("FLOE_BINARY", "build/floe")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

EXPECTED = """\
b: bool Boolean true | t
n: int4 Integer -42 | -42
l: int8 Long 9007199254740993 | 9007199254740993
f: float4 Float 1.5 | 1.5
d: float8 Double 0.1 | 0.1
m: numeric BigDecimal 12345.678 | 12345.678
s: text String héllo | héllo
bin: bytea byte[] 0x01ff | \\x01ff
dt: date Date 2024-02-29 | 2024-02-29
t: timestamp Timestamp 2024-01-01 10:00:00.25 | 2024-01-01 10:00:00.25
tz: timestamptz Timestamp 2024-01-01 10:00:00.0 | 2024-01-01 10:00:00+00
li: text String {1,2} | {1,2}
param row: -42 héllo 12345.678
param row: -42 héllo 12345.678
error: 42P01 at 15
after error: 2
schema: db
schema: information_schema
schema: pg_catalog
table: db.j TABLE
column: 1 b bool -7 YES
column: 2 n int4 4 YES
column: 3 l int8 -5 YES
column: 4 f float4 7 YES
column: 5 d float8 8 YES
column: 6 m numeric 2 YES
column: 7 s text 12 YES
column: 8 bin bytea -2 YES
column: 9 dt date 91 YES
column: 10 t timestamp 93 YES
column: 11 tz timestamptz 93 YES
column: 12 li text 12 YES
isolation: 2
catalogs: TABLE_CAT
  lakehouse
schemas like d%: TABLE_SCHEM, TABLE_CATALOG
  db|lakehouse
table types: TABLE_TYPE
  FOREIGN TABLE
  INDEX
  MATERIALIZED VIEW
  PARTITIONED INDEX
  PARTITIONED TABLE
  SEQUENCE
  SYSTEM INDEX
  SYSTEM TABLE
  SYSTEM TOAST INDEX
  SYSTEM TOAST TABLE
  SYSTEM VIEW
  TABLE
  TEMPORARY INDEX
  TEMPORARY SEQUENCE
  TEMPORARY TABLE
  TEMPORARY VIEW
  TYPE
  VIEW
tables and views: TABLE_CAT, TABLE_SCHEM, TABLE_NAME, TABLE_TYPE, REMARKS, TYPE_CAT, TYPE_SCHEM, TYPE_NAME, SELF_REFERENCING_COL_NAME, REF_GENERATION
  lakehouse|db|j|TABLE|null|||||
views: TABLE_CAT, TABLE_SCHEM, TABLE_NAME, TABLE_TYPE, REMARKS, TYPE_CAT, TYPE_SCHEM, TYPE_NAME, SELF_REFERENCING_COL_NAME, REF_GENERATION
primary keys: TABLE_CAT, TABLE_SCHEM, TABLE_NAME, COLUMN_NAME, KEY_SEQ, PK_NAME
imported keys: PKTABLE_CAT, PKTABLE_SCHEM, PKTABLE_NAME, PKCOLUMN_NAME, FKTABLE_CAT, FKTABLE_SCHEM, FKTABLE_NAME, FKCOLUMN_NAME, KEY_SEQ, UPDATE_RULE, DELETE_RULE, FK_NAME, PK_NAME, DEFERRABILITY
exported keys: PKTABLE_CAT, PKTABLE_SCHEM, PKTABLE_NAME, PKCOLUMN_NAME, FKTABLE_CAT, FKTABLE_SCHEM, FKTABLE_NAME, FKCOLUMN_NAME, KEY_SEQ, UPDATE_RULE, DELETE_RULE, FK_NAME, PK_NAME, DEFERRABILITY
index info: TABLE_CAT, TABLE_SCHEM, TABLE_NAME, NON_UNIQUE, INDEX_QUALIFIER, INDEX_NAME, TYPE, ORDINAL_POSITION, COLUMN_NAME, ASC_OR_DESC, CARDINALITY, PAGES, FILTER_CONDITION, REMARKS
best row identifier: SCOPE, COLUMN_NAME, DATA_TYPE, TYPE_NAME, COLUMN_SIZE, BUFFER_LENGTH, DECIMAL_DIGITS, PSEUDO_COLUMN
functions: FUNCTION_CAT, FUNCTION_SCHEM, FUNCTION_NAME, REMARKS, FUNCTION_TYPE, SPECIFIC_NAME
procedures: PROCEDURE_CAT, PROCEDURE_SCHEM, PROCEDURE_NAME, ?column?, ?column?, ?column?, REMARKS, PROCEDURE_TYPE, SPECIFIC_NAME
udts: TYPE_CAT, TYPE_SCHEM, TYPE_NAME, CLASS_NAME, DATA_TYPE, REMARKS, BASE_TYPE
client info properties: NAME, MAX_LEN, DEFAULT_VALUE, DESCRIPTION
  ApplicationName|63||The name of the application currently utilizing the connection.
type info: TYPE_NAME, DATA_TYPE, PRECISION, LITERAL_PREFIX, LITERAL_SUFFIX, CREATE_PARAMS, NULLABLE, CASE_SENSITIVE, SEARCHABLE, UNSIGNED_ATTRIBUTE, FIXED_PREC_SCALE, AUTO_INCREMENT, LOCAL_TYPE_NAME, MINIMUM_SCALE, MAXIMUM_SCALE, SQL_DATA_TYPE, SQL_DATETIME_SUB, NUM_PREC_RADIX
  bool|-7|0|'|'|null|1|f|3|t|f|f|null|0|0|null|null|10
  numeric|2|1000|null|null|null|1|f|3|f|f|f|null|0|1000|null|null|10
  int4|4|0|null|null|null|1|f|3|f|f|f|null|0|0|null|null|10
  varchar|12|10485760|'|'|null|1|t|3|t|f|f|null|0|0|null|null|10
  timestamptz|93|6|'|'|null|1|f|3|t|f|f|null|0|0|null|null|10
  _int4|2003|0|'|'|null|1|f|3|f|f|f|null|0|0|null|null|10
  45 types
primary keys types: KEY_SEQ int4/4
imported keys types: KEY_SEQ int4/4, UPDATE_RULE int4/4, DELETE_RULE int4/4, DEFERRABILITY int4/4
index info types: NON_UNIQUE bool/-7, TYPE int4/4, ORDINAL_POSITION int4/4, CARDINALITY float4/7, PAGES int4/4
functions types: FUNCTION_TYPE int4/4
"""


def test_jdbc_driver():
    fetch = subprocess.run([os.path.join(ROOT, "scripts", "fetch-jdbc.sh")], capture_output=True, text=True,
                           timeout=300)
    assert fetch.returncode == 0, f"cannot fetch the JDBC driver: {fetch.stderr.strip()}"
    jar = os.path.join(ROOT, fetch.stdout.strip())
    with tempfile.TemporaryDirectory(prefix="floe-jdbc-") as classes:
        subprocess.run(["javac", "-cp", jar, "-d", classes, os.path.join(HERE, "ServeJdbc.java")], check=True, timeout=300)
        s = Serve(BINARY)
        try:
            r = subprocess.run(["java", "-Duser.timezone=UTC", "-Dfile.encoding=UTF-8", "-cp",
                                f"{jar}:{classes}", "ServeJdbc", str(s.port)],
                               capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, r.stderr
            assert r.stdout == EXPECTED
        finally:
            s.stop()
