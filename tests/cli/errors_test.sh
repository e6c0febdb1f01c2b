#!/usr/bin/env bash
# `floe sql` on inputs that once aborted the process: each now ends with exit status 1 and one
# `Error: <message>` line on stderr (bad arguments too), and nothing is committed. Usage: errors_test.sh FLOE_BINARY
set -uo pipefail
floe=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
failures=0
run() { "$floe" sql --catalog "$dir/catalog.db" --warehouse "$dir/warehouse" "$@" > out.txt 2> err.txt; }

# expect_error STATUS MESSAGE ARGS...: the run exits with STATUS and stderr's first line is MESSAGE.
expect_error() {
  local want_status=$1 want=$2
  shift 2
  run "$@"
  local status=$?
  local first
  first=$(head -n 1 err.txt)
  if [ "$status" != "$want_status" ] || [ "$first" != "$want" ]; then
    echo "FAIL: floe sql $(echo "$*" | cut -c1-300)"
    echo "  expected status $want_status and: $want"
    echo "  got status $status and: $first"
    failures=$((failures + 1))
  fi
}

# expect_rows SQL ROW: the statement succeeds and prints ROW (csv, without the header).
expect_rows() {
  # Long statements go through a file: one argument holds at most 128 KiB.
  printf '%s\n' "$1" > stmt.sql
  run --format csv -f stmt.sql
  local status=$?
  local got
  got=$(tail -n +2 out.txt)
  if [ "$status" != 0 ] || [ "$got" != "$2" ]; then
    echo "FAIL: floe sql -c $(echo "$1" | cut -c1-300)"
    echo "  expected: $2"
    echo "  got status $status and: $got $(cat err.txt)"
    failures=$((failures + 1))
  fi
}

run -c "CREATE NAMESPACE db" -c "CREATE TABLE db.t (id BIGINT) USING iceberg" -c "INSERT INTO db.t VALUES (1), (2)" \
  || { echo "setup failed"; cat err.txt; exit 1; }

range_double="is outside the valid range for double with minimum value of -1.7976931348623157E+308 and maximum value of 1.7976931348623157E+308. Please adjust the value accordingly. (line 1, column"
expect_error 1 "Error: [INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 1e400 $range_double 8)" -c "SELECT 1e400"
expect_error 1 "Error: [INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 1e39 is outside the valid range for float with minimum value of -3.4028234663852886E+38 and maximum value of 3.4028234663852886E+38. Please adjust the value accordingly. (line 1, column 8)" -c "SELECT 1e39F"
expect_error 1 "Error: [INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 1e400 $range_double 51)" \
  -c "CALL lakehouse.system.cherrypick_snapshot('db.t', 1e400)"
expect_error 1 "Error: [TABLE_OR_VIEW_NOT_FOUND] The table or view \`lakehouse\`.\`db.t\`.\`snapshot_id_x\` cannot be found. (line 1, column 15)" \
  -c "SELECT * FROM db.t.snapshot_id_x"
expect_error 1 "Error: Invalid snapshot id in lakehouse.db.t.snapshot_id_99999999999999999999: For input string: \"99999999999999999999\" (line 1, column 15)" \
  -c "SELECT * FROM db.t.snapshot_id_99999999999999999999"
expect_error 1 "Error: [ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position 2 is not in select list (valid range is [1, 1]). (line 1, column 30)" \
  -c "SELECT id FROM db.t ORDER BY 2"
expect_error 1 "Error: Cannot downgrade v2 table to v1: lakehouse.db.t (line 1, column 13)" \
  -c "ALTER TABLE db.t SET TBLPROPERTIES ('format-version'='1')"
expect_error 1 "Error: Cannot upgrade table lakehouse.db.t at unsupported format version: v4 (supported: v3) (line 1, column 13)" \
  -c "ALTER TABLE db.t SET TBLPROPERTIES ('format-version'='4')"
printf 'SELECT %s1%s\n' "$(printf '(%.0s' $(seq 100000))" "$(printf ')%.0s' $(seq 100000))" > deep.sql
expect_error 1 "Error: SQL nested too deeply (more than 256 levels) (line 1, column 135)" -f deep.sql
printf 'SELECT 1%s\n' "$(printf ' + 1%.0s' $(seq 100000))" > long_sum.sql
expect_error 1 "Error: SQL nested too deeply (more than 256 levels) (line 1, column 8136)" -f long_sum.sql
expect_error 1 "Error: Could not build name to arg map: Unknown argument: snap (line 1, column 61)" \
  -c "CALL lakehouse.system.rollback_to_snapshot(table => 'db.t', snap => 1)"

# Former crashes that have a result.
expect_rows "SELECT 1e-400" "0.0"
expect_rows "SELECT id FROM db.t ORDER BY 99999999999999999999" $'1\n2'
expect_rows "SELECT CAST(-9223372036854775808 AS BIGINT) % -1" "0"
expect_rows "SELECT count(*) FROM db.t WHERE id IN ($(seq -s, 0 9999))" "2"
expect_rows "SELECT count(*) FROM db.t WHERE id NOT IN ($(seq -s, 2 100001))" "1"

# Bad arguments: usage errors, and a file that cannot be read.
expect_error 1 "Error: The following argument was not expected: --bogus" -c "SELECT 1" --bogus
expect_error 1 "Error: --command: 1 required TEXT missing" -c
expect_error 1 "Error: --format: 1 required TEXT:{table,csv,json,markdown} missing" -c "SELECT 1" --format
expect_error 1 "Error: --format: xml not in {table,csv,json,markdown}" --format xml -c "SELECT 1"
expect_error 1 "Error: Could not convert: --max-rows = x" --max-rows x -c "SELECT 1"
expect_error 1 "Error: Cannot read $dir/missing.sql: no such file or not readable" -f "$dir/missing.sql"
mkdir -p "$dir/adir"
expect_error 1 "Error: Cannot read $dir/adir: it is a directory" -f "$dir/adir"

# Nothing above committed: one snapshot, two rows.
expect_rows "SELECT count(*) FROM db.t.snapshots" "1"
expect_rows "SELECT sum(id) FROM db.t" "3"

if [ "$failures" != 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "errors ok"
