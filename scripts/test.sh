#!/usr/bin/env bash
# Sets up, builds and runs every floe test: unit tests in the normal and the sanitizer
# build, a short run of every fuzz target, the interop tests against PyIceberg, Iceberg's REST
# Compatibility Kit against `floe serve --rest`, the Python package's tests, the interop tests
# against Trino, then those against Spark 3.5 with Iceberg 1.10, each also on a PostgreSQL
# catalog with its warehouse in an S3 bucket. Tests that need PostgreSQL, an S3 server, Trino
# or floe's own servers start them on free loopback ports and stop them. Each stage prints how
# long the run has taken so far.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
stage() { printf '\n== test: %s (at %dm%02ds)\n' "$1" $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)); }

stage "setup"
scripts/setup.sh --no-wheel
# Trino, Spark and the REST kit come from Maven Central and PyPI: fetched while floe compiles,
# one after the other, as each may install Java or Maven with apt.
mkdir -p build-logs
(scripts/setup-trino.sh && scripts/setup-spark.sh --no-wheel && scripts/setup-rest-kit.sh) \
  >build-logs/peers-setup.log 2>&1 &
peers=$!

stage "release build"
scripts/build.sh release
stage "the Python package (from the release build's objects)"
scripts/setup.sh
stage "release tests"
(cd build && ctest -j2 --output-on-failure --timeout 600)

stage "sanitizer build (ASan + UBSan)"
scripts/build.sh asan
stage "sanitizer tests"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest -j2 --output-on-failure --timeout 900)
stage "fuzz targets (build-fuzz/: clang, one per core at a time)"
FUZZ_SECONDS=45 scripts/fuzz.sh  # every libFuzzer target: its regression inputs, then 45 s of fuzzing

wait "$peers" || { cat build-logs/peers-setup.log >&2; echo "test: setting up Trino, Spark or the REST kit failed" >&2; exit 1; }
# floe as a REST catalog's client runs against Iceberg's reference server there, from the kit.
stage "PyIceberg interop, and floe on Iceberg's reference REST catalog"
.venv/bin/python -m pytest -q tests/interop --ignore=tests/interop/spark --ignore=tests/interop/trino \
  --ignore=tests/interop/rest_kit
stage "Iceberg REST Compatibility Kit"
.venv/bin/python -m pytest -q tests/interop/rest_kit  # Iceberg 1.10.0's 102 tests, one JVM; report in build-rest/reports
stage "the Python package"
.venv/bin/python -m pytest -q tests/python  # the Python package, installed into .venv by setup
stage "Trino interop"
.venv/bin/python -m pytest -q tests/interop/trino  # Trino 476 on PostgreSQL (warehouses on local files and S3) and SQLite catalogs
stage "Spark interop"
scripts/setup-spark.sh  # the floe wheel into Spark's virtualenv
build-spark/venv/bin/python -m pytest -q tests/interop/spark
# Again with the suite's catalog on PostgreSQL and its warehouse in an S3 bucket; the SQLite
# file's own tests, the lab (on PostgreSQL and S3 already), the writers' torture (its own
# SQLite and PostgreSQL catalogs) and floe on Iceberg's reference REST server (its own catalog
# and warehouse) ran above.
stage "Spark interop on PostgreSQL + S3"
FLOE_SPARK_LAKEHOUSE=postgresql+s3 build-spark/venv/bin/python -m pytest -q tests/interop/spark \
  --ignore=tests/interop/spark/test_catalog.py --ignore=tests/interop/spark/test_postgres_lab.py \
  --ignore=tests/interop/spark/test_audit_torture.py \
  --ignore=tests/interop/spark/test_rest_client_reference.py
stage "done"
