#!/usr/bin/env bash
# `floe retention`: the report of a young table, its exit status against a required horizon
# (0 kept, 2 at risk), the JSON shape, and one-line errors with status 1.
# Usage: retention_test.sh FLOE_BINARY
set -uo pipefail
floe=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
failures=0
flags=(--catalog "$dir/catalog.db" --warehouse "$dir/warehouse")
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$floe" sql "${flags[@]}" -c "CREATE NAMESPACE db; CREATE TABLE db.t (id BIGINT) USING iceberg;
  INSERT INTO db.t VALUES (1); INSERT INTO db.t VALUES (2); CREATE TABLE db.u (id BIGINT) USING iceberg" >/dev/null \
  || { echo "FAIL: setup"; exit 1; }

"$floe" retention "${flags[@]}" db.t > out.txt 2> err.txt
status=$?
[ "$status" = 0 ] || fail "plain report exits $status: $(cat err.txt)"
grep -q '^table lakehouse.db.t$' out.txt || fail "no table line: $(cat out.txt)"
grep -q '^snapshots: 2, oldest ' out.txt || fail "no snapshot count: $(cat out.txt)"
grep -q '^  branch main -> [0-9]*: readable back to .* (2 snapshots)' out.txt || fail "no main horizon: $(cat out.txt)"
grep -q '^kept only for history: 1 file, ' out.txt || fail "history bytes: $(cat out.txt)"
grep -q '^expiry settings: max-snapshot-age 5d, min-snapshots-to-keep 1, max-ref-age forever$' out.txt \
  || fail "settings line: $(cat out.txt)"

# The default five days cannot keep 30: at risk, exit 2.
"$floe" retention "${flags[@]}" lakehouse.db.t --require 30d > out.txt 2> err.txt
status=$?
[ "$status" = 2 ] || fail "30d requirement exits $status, expected 2"
grep -q '^requirement 30d (readable as of .*): AT RISK$' out.txt || fail "no AT RISK line: $(cat out.txt)"
grep -q 'history.expire.max-snapshot-age-ms is 5d, shorter than the required 30d' out.txt || fail "no reason: $(cat out.txt)"

"$floe" sql "${flags[@]}" -c "ALTER TABLE db.t SET TBLPROPERTIES ('history.expire.max-snapshot-age-ms' = '7776000000')" >/dev/null
"$floe" retention "${flags[@]}" db.t --require 90d --json > out.json 2> err.txt
status=$?
[ "$status" = 0 ] || fail "90d with a 90-day policy exits $status: $(cat out.txt err.txt)"
python3 - out.json <<'PY' || fail "json shape: $(cat out.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["table"] == "lakehouse.db.t", r
assert r["snapshot_count"] == 2, r
assert r["at_risk"] is False and r["problems"] == [], r
assert r["required_ms"] == 90 * 86400000, r
assert r["settings"] == {"max_snapshot_age_ms": 7776000000, "min_snapshots_to_keep": 1,
                         "max_ref_age_ms": None, "gc_enabled": True}, r
main = r["refs"][0]
assert main["name"] == "main" and main["type"] == "branch" and main["snapshots"] == 2, main
assert main["horizon"].endswith("Z") and r["oldest_snapshot"]["committed_at"] == main["horizon"], r
PY

# A table without snapshots has nothing to keep.
"$floe" retention "${flags[@]}" db.u --require 1d > out.txt 2> err.txt
status=$?
[ "$status" = 0 ] || fail "empty table exits $status: $(cat out.txt err.txt)"

"$floe" retention "${flags[@]}" db.nope > out.txt 2> err.txt
status=$?
[ "$status" = 1 ] || fail "unknown table exits $status"
[ "$(wc -l < err.txt)" = 1 ] && grep -q '^Error: .*db.nope' err.txt || fail "unknown table message: $(cat err.txt)"

"$floe" retention "${flags[@]}" db.t --require 90 > out.txt 2> err.txt
status=$?
[ "$status" = 1 ] || fail "bad duration exits $status"
grep -q "^Error: Invalid duration '90'" err.txt || fail "bad duration message: $(cat err.txt)"

[ "$failures" = 0 ] && echo "retention: all passed"
exit "$failures"
