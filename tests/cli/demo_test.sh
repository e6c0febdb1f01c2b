#!/usr/bin/env bash
# `floe demo` end to end in a fresh directory: the steps are headed by the story, the
# report's figures appear where they should, and the history ends with seven entries over two snapshots. Usage: demo_test.sh FLOE_BINARY
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
# The terminal part: the bad write made current again, the graph with four jumps of main, the
# diff of the two report rows by date, and the rollback after its preview.
expect "Set the current snapshot of lakehouse.gold.daily_revenue_report from " 1
expect "~ main rolled back from " 2
expect "~ main fast-forwarded from " 2
expect "0 rows added, 0 removed, 2 changed; 0 unchanged data files skipped" 1
expect "| after| 2025-06-14|        1684|    368641.00|" 1
expect "  change:  2 rows added, 2 removed; 0 unchanged data files skipped" 2
expect "Rolled back lakehouse.gold.daily_revenue_report from " 1
# The steps, in order, and no numbered cases.
[ "$(grep '^== ' out.txt)" = "$(printf '%s\n' \
  '== The report: daily revenue from the orders ==' \
  '== The bad write: a faulty join doubles the report ==' \
  '== The audit: what changed, and what the report said before ==' \
  '== The rollback: back to the good snapshot, redo, and back again ==' \
  '== From a terminal: the lineage, the diff and a guarded rollback ==')" ] \
  || { echo "unexpected step headings:"; grep -n '^==' out.txt; exit 1; }
! grep -qi 'case [0-9]\|seed' out.txt || { echo "numbered cases in the output"; exit 1; }
# Run again: the demo starts over from fresh tables.
"$floe" demo > out.txt
expect "|2025-06-15 |915         |201450.75    |" 3
"$floe" history gold.daily_revenue_report > history.txt
# Seven history entries over two snapshots: five from SQL, two from set-current and rollback.
[ "$(grep -c '|overwrite|2  ' history.txt)" = 7 ] || { cat history.txt; exit 1; }
echo "demo ok"
