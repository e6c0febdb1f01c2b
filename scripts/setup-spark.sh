#!/usr/bin/env bash
# Installs the Spark interop peer: Spark 3.5 (pyspark) with Iceberg 1.10, the SQLite and
# PostgreSQL JDBC drivers and Iceberg's AWS bundle (S3FileIO), for tests/interop/spark. Everything lands in build-spark/ (git-ignored):
#   build-spark/venv/   pyspark, pyarrow, pytest, duckdb and the rest of requirements-spark.txt
#                       (apart from .venv: pyspark pins its own py4j), and the floe package's wheel
#   build-spark/jars/   the jars below, fetched from Maven Central with mvn, checked by SHA-256
# Safe to run again: each step is skipped when already done (a few milliseconds then).
# Fails loudly when something cannot be installed; the suite never skips for a missing Spark.
# build-spark/classpath lists the jars for the tests (tests/interop/spark/conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."
# --no-wheel: everything but the floe wheel (it can be fetched while floe still compiles).
mode=${1:-all}
case "$mode" in all|--no-wheel) ;; *) echo "setup-spark: unknown option $mode" >&2; exit 2 ;; esac

DIR=build-spark
# group:artifact:version  sha256 of the jar
JARS=(
  "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.0 70f9471870b2d456167d703c829f098a446b86bb1379eee338c0efa03a341026"
  "org.xerial:sqlite-jdbc:3.54.1.0 f8dce420a6016278497f4f0560f65602b9db858de141b541cf91a4644ebe4639"
  "org.postgresql:postgresql:42.7.14 73914527305a40cce504b0d3d90b23caf565136912d607ae8ae7c5895512332c"
  "org.apache.iceberg:iceberg-aws-bundle:1.10.0 172370cfc32a5f1ae5399b210e86fc04a366dc29a112d97ac8ffc74df7525596"
)

die() { echo "setup-spark: $*" >&2; exit 1; }
# shellcheck source=scripts/pinned-jars.sh
source scripts/pinned-jars.sh

# Java 17 (Spark 3.5 runs on 8/11/17) and Maven, from Debian when missing.
missing=()
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
command -v python3 >/dev/null 2>&1 && python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
if ((${#missing[@]})); then
  echo "setup-spark: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
JAVA=java; [ -n "${JAVA_HOME:-}" ] && JAVA=$JAVA_HOME/bin/java  # as pyspark picks it
java_major=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
case "$java_major" in
  8|1.8|11|17) ;;
  *) die "Spark 3.5 needs Java 8, 11 or 17 ($JAVA); found '${java_major:-none}'" ;;
esac

# The Spark virtualenv.
stamp=$DIR/venv/.requirements.sha
want=$(sha256sum requirements-spark.txt | cut -d' ' -f1)
if [ ! -x $DIR/venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup-spark: creating $DIR/venv"
  rm -rf $DIR/venv
  python3 -m venv $DIR/venv
  $DIR/venv/bin/pip install -q --upgrade pip==24.3.1
  $DIR/venv/bin/pip install -q -r requirements-spark.txt
  $DIR/venv/bin/python -c 'import pyspark, pyarrow, pytest, duckdb' || die "the Spark virtualenv does not import"
  echo "$want" > "$stamp"
fi

# The jars, straight from Maven Central, then the class path the tests hand to Spark, written
# last: its presence means setup is complete.
fetch_pinned_jars setup-spark
write_pinned_classpath

[ "$mode" = all ] || exit 0
# The floe Python package (tests/interop/spark/test_python_api.py runs floe.iceberg on a
# SparkSession): the wheel scripts/setup.sh built, installed again only when it changed.
wheel=$(ls build-python/dist/floe-*.whl 2>/dev/null | head -n 1)
[ -n "$wheel" ] || die "build-python/dist has no floe wheel; run scripts/setup.sh first"
stamp=$DIR/venv/.floe-wheel.sha
want=$(sha256sum "$wheel" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  $DIR/venv/bin/pip install -q --no-deps --force-reinstall "$wheel"
  $DIR/venv/bin/python -c 'import floe' || die "the Spark virtualenv does not import floe"
  echo "$want" > "$stamp"
fi
