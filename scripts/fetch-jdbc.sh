#!/usr/bin/env bash
# Fetches the PostgreSQL JDBC driver that tests/cli/serve_jdbc_test.py drives `floe serve`
# with, from Maven Central into build-jdbc/, and checks its SHA-256.
set -euo pipefail
cd "$(dirname "$0")/.."
version=42.7.14
sha256=73914527305a40cce504b0d3d90b23caf565136912d607ae8ae7c5895512332c
jar="build-jdbc/postgresql-$version.jar"
if [ -f "$jar" ] && echo "$sha256  $jar" | sha256sum -c --status; then
  echo "$jar"
  exit 0
fi
mkdir -p build-jdbc
curl -fsSL --retry 3 -o "$jar.part" \
  "https://repo1.maven.org/maven2/org/postgresql/postgresql/$version/postgresql-$version.jar"
if ! echo "$sha256  $jar.part" | sha256sum -c --status; then
  echo "fetch-jdbc.sh: $jar does not have the expected SHA-256 $sha256" >&2
  rm -f "$jar.part"
  exit 1
fi
mv "$jar.part" "$jar"
echo "$jar"
