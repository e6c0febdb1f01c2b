#!/usr/bin/env bash
# Installs the Trino interop peer for tests/interop/trino: Trino 476 from Maven Central
# (io.trino:trino-server, checked by SHA-256) in build-trino/trino-server with only its Iceberg
# plugin kept, the SQLite JDBC driver added to that plugin (org.xerial:sqlite-jdbc, the version
# scripts/setup-spark.sh pins, checked by SHA-256; Trino ships only PostgreSQL's, so without it
# its JDBC catalog cannot open a SQLite catalog file), and the pinned Trino Python client in
# .venv (requirements.txt). Trino needs Java 24 or newer: a JDK under /usr/lib/jvm (these
# machines have a Java 25 beside the default Java 17) or FLOE_TRINO_JAVA_HOME. Safe to run
# again: each step is skipped when done, and done again when its pinned version changes.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=476
SHA256=cfd5accde17e8ebd251eeeb78aed1f490e77bb3a164d95a0f454bf8a7c1cbd3f
# org.xerial:sqlite-jdbc, as scripts/setup-spark.sh pins it.
SQLITE_JDBC=3.54.1.0
SQLITE_JDBC_SHA256=f8dce420a6016278497f4f0560f65602b9db858de141b541cf91a4644ebe4639
DIR=build-trino
die() { echo "setup-trino: $*" >&2; exit 1; }

if ! command -v mvn >/dev/null 2>&1; then
  echo "setup-trino: installing Debian package maven"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq maven >/dev/null
fi
.venv/bin/python -c 'import trino' 2>/dev/null || die "the trino client is not in .venv; run scripts/setup.sh"
.venv/bin/python -c 'import sys; sys.path.insert(0, "tests/support"); import trino_server; trino_server.java_home()' \
  || die "no Java 24 or newer for Trino"

stamp=$DIR/trino-server/.version
if [ "$(cat "$stamp" 2>/dev/null)" != "$VERSION" ]; then
  echo "setup-trino: fetching io.trino:trino-server:$VERSION from Maven Central"
  mkdir -p $DIR
  tarball=$DIR/trino-server-$VERSION.tar.gz
  if [ ! -f "$tarball" ] || ! echo "$SHA256  $tarball" | sha256sum -c --quiet 2>/dev/null; then
    mvn -q -B -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
      -Dartifact=io.trino:trino-server:$VERSION:tar.gz -DoutputDirectory=$DIR >/dev/null \
      || die "cannot fetch io.trino:trino-server:$VERSION"
  fi
  echo "$SHA256  $tarball" | sha256sum -c --quiet || die "$tarball does not match its SHA-256"
  rm -rf $DIR/trino-server $DIR/trino-server-$VERSION
  tar xzf "$tarball" -C $DIR
  # The tarball links identical jars across plugins: removing the others keeps Iceberg's.
  find $DIR/trino-server-$VERSION/plugin -mindepth 1 -maxdepth 1 ! -name iceberg -exec rm -rf {} +
  mv $DIR/trino-server-$VERSION $DIR/trino-server
  rm -f "$tarball"
  echo "$VERSION" > "$stamp"
fi

# The SQLite JDBC driver, beside the PostgreSQL driver Trino ships in its Iceberg plugin (the
# plugin's class loader reads every jar there). A new Trino above starts without it; a new
# pinned version replaces the old jar.
plugin=$DIR/trino-server/plugin/iceberg
driver=$plugin/org.xerial_sqlite-jdbc-$SQLITE_JDBC.jar
stamp=$DIR/trino-server/.sqlite-jdbc
if [ "$(cat "$stamp" 2>/dev/null)" != "$SQLITE_JDBC" ] || [ ! -f "$driver" ]; then
  echo "setup-trino: fetching org.xerial:sqlite-jdbc:$SQLITE_JDBC from Maven Central"
  rm -f "$stamp" $plugin/org.xerial_sqlite-jdbc-*.jar $DIR/sqlite-jdbc-*.jar
  mvn -q -B -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact=org.xerial:sqlite-jdbc:$SQLITE_JDBC -Dtransitive=false -DoutputDirectory=$DIR >/dev/null \
    || die "cannot fetch org.xerial:sqlite-jdbc:$SQLITE_JDBC"
  fetched=$DIR/sqlite-jdbc-$SQLITE_JDBC.jar
  echo "$SQLITE_JDBC_SHA256  $fetched" | sha256sum -c --quiet || { rm -f "$fetched"; die "$fetched does not match its SHA-256"; }
  mv "$fetched" "$driver"
  echo "$SQLITE_JDBC" > "$stamp"
fi
