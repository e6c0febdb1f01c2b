#!/usr/bin/env bash
# `floe demo` end to end in a fresh directory: the seed's figures appear where they should,
# and the history ends with five entries over two snapshots. Usage: demo_test.sh FLOE_BINARY
set -euo pipefail
floe=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$floe" demo > out.txt
expect() {
  local count
  count=$(grep -cF -- "$1" out.txt || true)
  if [ "$count" != "$2" ]; then
    echo "expected $2 line(s) containing: $1 (found $count)"; cat out.txt; exit 1
  fi
}
expect "|2025-06-14 |842         |184320.50    |" 3
expect "|2025-06-15 |915         |201450.75    |" 3
expect "|2025-06-14 |1684        |368641.00    |" 2
expect "|2025-06-14 |368641.00            |184320.50              |184320.50|" 1
expect "|2        |" 1
# Run again: the demo starts over from fresh tables.
"$floe" demo > out.txt
expect "|2025-06-15 |915         |201450.75    |" 3
"$floe" history gold.daily_revenue_report > history.txt
[ "$(grep -c '|overwrite|2  ' history.txt)" = 5 ] || { cat history.txt; exit 1; }
echo "demo ok"
