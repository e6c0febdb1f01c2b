#!/usr/bin/env bash
# Builds the release flavour and runs every benchmark in bench/; figures go to stdout and,
# as JSON, to build/bench-results/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release >/dev/null
mkdir -p build/bench-results
for b in build/bench/*_bench; do
  name=$(basename "$b")
  echo "== $name"
  "$b" --benchmark_out="build/bench-results/$name.json" --benchmark_out_format=json "$@"
done
