#!/usr/bin/env bash
# `floe verify`: exit status 0 and a summary when every file a table's metadata reaches is
# present; 2 and one line per missing file otherwise; 1 and one `Error:` line for an unknown
# table. Usage: verify_test.sh FLOE_BINARY
set -uo pipefail
floe=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
failures=0
export FLOE_CATALOG="$dir/catalog.db" FLOE_WAREHOUSE="$dir/wh"

fail() {
  echo "FAIL: $1"
  echo "  stdout: $(cat out.txt)"
  echo "  stderr: $(cat err.txt)"
  failures=$((failures + 1))
}

"$floe" sql -q -c "CREATE NAMESPACE db" -c "CREATE TABLE db.t (id BIGINT) USING iceberg" \
  -c "INSERT INTO db.t VALUES (1), (2)" -c "INSERT INTO db.t VALUES (3)" > /dev/null 2> err.txt \
  || { echo "setup failed"; cat err.txt; exit 1; }
meta=$(ls "$dir"/wh/db/t/metadata/00002-*.metadata.json)

"$floe" verify db.t > out.txt 2> err.txt
status=$?
expected="Table lakehouse.db.t at $meta
Checked 9 files: 3 metadata files, 2 manifest lists, 2 manifests, 2 data files, 0 delete files, 0 statistics files
Audit: every engine's changes are recorded in the audit log
All files present"
[ "$status" = 0 ] && [ "$(cat out.txt)" = "$expected" ] && [ ! -s err.txt ] || fail "verify of a whole table"

# Without the audit trigger, verify says other engines' changes go unrecorded (a warning:
# the files are all there, so the exit status stays 0); installing it again puts it back.
"$floe" audit --remove-trigger > out.txt 2> err.txt || fail "audit --remove-trigger"
"$floe" verify db.t > out.txt 2> err.txt
status=$?
[ "$status" = 0 ] && grep -qx "Audit: other engines' changes are not recorded in the audit log: the trigger is not installed" out.txt \
  || fail "verify without the audit trigger"
"$floe" verify db.t --json > out.txt 2> err.txt
grep -q '"audit": {"every_engine_recorded": false, "reason": "the trigger is not installed"}' out.txt \
  || fail "verify --json without the audit trigger"
"$floe" audit --install-trigger > out.txt 2> err.txt || fail "audit --install-trigger"
"$floe" verify db.t > out.txt 2> err.txt
[ "$(cat out.txt)" = "$expected" ] || fail "verify after the trigger is back"

# The catalog name may lead, as in SQL; --json prints one object.
"$floe" verify lakehouse.db.t --json > out.txt 2> err.txt
status=$?
[ "$status" = 0 ] && grep -q '"ok": true, "checked": {"total": 9,' out.txt && grep -q '"problems": \[\], "protection_violations": \[\]}' out.txt \
  || fail "verify --json"

# A data file deleted behind the table's back: exit 2, one line naming it and its snapshot.
data=$(ls "$dir"/wh/db/t/data/*.parquet | head -n 1)
rm "$data"
"$floe" verify db.t > out.txt 2> err.txt
status=$?
[ "$status" = 2 ] && [ "$(grep -c '^missing: ' out.txt)" = 1 ] && grep -q "^1 problem:$" out.txt \
  && grep -q "^missing: data file $data (snapshot [0-9]*, referenced by $dir/wh/db/t/metadata/.*-m0.avro)$" out.txt \
  || fail "verify with a missing data file"
"$floe" verify db.t --json > out.txt 2> err.txt
status=$?
[ "$status" = 2 ] && grep -q "\"ok\": false" out.txt && grep -q "\"kind\": \"data file\", \"location\": \"$data\", \"problem\": \"missing\"" out.txt \
  || fail "verify --json with a missing data file"

# A user error: one line, exit 1.
"$floe" verify db.nope > out.txt 2> err.txt
status=$?
[ "$status" = 1 ] && [ "$(cat err.txt)" = "Error: Table lakehouse.db.nope not found" ] && [ ! -s out.txt ] \
  || fail "verify of an unknown table"

if [ "$failures" != 0 ]; then
  echo "$failures failed"
  exit 1
fi
echo "ok"
