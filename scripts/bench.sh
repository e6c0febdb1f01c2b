#!/usr/bin/env bash
# Benchmarks.
#   scripts/bench.sh [runner options]   floe's CLI side by side with DuckDB, PyIceberg (and
#                                       Spark with --engines ...,spark) on the same tables:
#                                       build/bench-results/side_by_side.json, docs/benchmarks.md
#                                       and docs/benchmarks.png (options: scripts/bench.sh --help)
#   scripts/bench.sh micro [args]       the Google Benchmark programs build/bench/*_bench; JSON
#                                       results in build/bench-results/<name>.json
#   scripts/bench.sh rest-client [args] time travel and rollback, whole `floe` processes, through
#                                       floe serve --rest and Iceberg's reference REST server beside
#                                       the SQLite catalog (bench/rest_client_bench.py: --runs 20,
#                                       --snapshots 200); build/bench-results/rest_client.json
#   scripts/bench.sh memory-limit [args] queries larger than a memory limit (GROUP BY, ORDER BY,
#                                       a join of two snapshots), floe beside DuckDB, both
#                                       spilling to disk (bench/memory_limit_bench.py: --limit 2GB,
#                                       --scale 1, --timeout 600 per run);
#                                       build/bench-results/memory_limit.json
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

if [ "${1:-}" = "micro" ]; then
  shift
  scripts/build.sh release >/dev/null
  mkdir -p build/bench-results
  # commit_bench also runs on a PostgreSQL catalog: a throwaway server, stopped on exit.
  pg_dir=build/bench-results/postgres
  .venv/bin/python tests/support/postgres_server.py start "$pg_dir" >/dev/null
  trap '.venv/bin/python tests/support/postgres_server.py stop "$pg_dir"' EXIT
  export FLOE_BENCH_POSTGRES=$(cat "$pg_dir/uri")
  for b in build/bench/*_bench; do
    name=$(basename "$b")
    echo "== $name"
    "$b" --benchmark_out="build/bench-results/$name.json" --benchmark_out_format=json "$@"
  done
  exit 0
fi

if [ "${1:-}" = "rest-client" ]; then
  shift
  scripts/setup-rest-kit.sh
  scripts/build.sh release --target floe >/dev/null
  exec .venv/bin/python bench/rest_client_bench.py build/floe "$@"
fi

if [ "${1:-}" = "memory-limit" ]; then
  shift
  scripts/build.sh release --target floe >/dev/null
  exec .venv/bin/python bench/memory_limit_bench.py build/floe "$@"
fi

scripts/build.sh release --target floe >/dev/null
exec .venv/bin/python -m bench.runner "$@"
