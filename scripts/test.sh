#!/usr/bin/env bash
# Sets up, builds and runs every floe test: unit tests in the normal and the sanitizer
# build, then the interop tests against PyIceberg and Spark 3.5 with Iceberg 1.10.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
(cd build && ctest --output-on-failure --timeout 600)
scripts/build.sh asan
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --output-on-failure --timeout 900)
.venv/bin/python -m pytest -q tests/interop --ignore=tests/interop/spark
scripts/setup-spark.sh
build-spark/venv/bin/python -m pytest -q tests/interop/spark
