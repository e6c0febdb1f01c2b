#!/usr/bin/env bash
# Sets up, builds and runs every floe test: unit tests in the normal and the sanitizer
# build, a short run of every fuzz target, the interop tests against PyIceberg, the Python
# package's tests, the interop tests against Trino, then those against Spark 3.5 with
# Iceberg 1.10, each also on a PostgreSQL catalog with its warehouse in an S3 bucket. Tests
# that need PostgreSQL, an S3 server or Trino start their own servers on free loopback ports
# and stop them.
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
# Again with the suite's catalog on PostgreSQL and its warehouse in an S3 bucket; the SQLite
# file's own tests and the lab (on PostgreSQL and S3 already) ran above.
FLOE_SPARK_LAKEHOUSE=postgresql+s3 build-spark/venv/bin/python -m pytest -q tests/interop/spark \
  --ignore=tests/interop/spark/test_catalog.py --ignore=tests/interop/spark/test_postgres_lab.py
