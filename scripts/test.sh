#!/usr/bin/env bash
# Sets up, builds and runs every floe test: unit tests in the normal and the sanitizer
# build, a short run of every fuzz target, the interop tests against PyIceberg, the Python
# package's tests, the interop tests against Trino, then those against Spark 3.5 with
# Iceberg 1.10. Tests that need PostgreSQL or Trino start their own servers on free loopback
# ports and stop them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
(cd build && ctest --output-on-failure --timeout 600)
scripts/build.sh asan
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --output-on-failure --timeout 900)
FUZZ_SECONDS=45 scripts/fuzz.sh  # every libFuzzer target: its regression inputs, then 45 s of fuzzing
.venv/bin/python -m pytest -q tests/interop --ignore=tests/interop/spark --ignore=tests/interop/trino
scripts/setup-trino.sh
.venv/bin/python -m pytest -q tests/interop/trino  # Trino 476 on a PostgreSQL catalog, warehouses on local files and S3
.venv/bin/python -m pytest -q tests/python  # the Python package, installed into .venv by setup
scripts/setup-spark.sh
build-spark/venv/bin/python -m pytest -q tests/interop/spark
