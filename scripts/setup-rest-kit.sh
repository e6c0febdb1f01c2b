#!/usr/bin/env bash
# Fetches the REST catalog peers from Iceberg 1.10.0: Iceberg's REST Compatibility Kit (RCK) and
# Iceberg's reference REST catalog server. Everything lands in build-rest/ (git-ignored):
#   build-rest/jars/       the jars below, fetched from Maven Central with mvn, checked by SHA-256
#   build-rest/classpath   the kit's class path, JUnit's console launcher first
# Safe to run again: each jar is skipped when already fetched and checked.
#
# iceberg-open-api-1.10.0.jar is runnable (Main-Class org.apache.iceberg.rest.RESTCatalogServer):
# the reference server over a JDBC catalog, with Jetty, Hadoop's Configuration and the SQLite
# driver (org.xerial:sqlite-jdbc 3.50.3.0) inside; it also holds the kit's fixtures (RCKUtils,
# RESTServerExtension) and Iceberg's core test classes (CatalogTests). The kit's test classes are
# in iceberg-open-api's `tests` jar, the helpers CatalogTests calls in iceberg-api's; assertj,
# byte-buddy (assertj's assumptions), awaitility and hamcrest are what the runnable jar lacks.
# Versions are those Iceberg 1.10.0 builds its tests with (JUnit 5.13.4, platform 1.13.4).
#
# The kit reads its target from CATALOG_* environment variables (CATALOG_URI -> uri,
# CATALOG_WAREHOUSE -> warehouse) or unprefixed system properties (-Duri=...), not rck.uri; and
# it tests a server of its own on localhost:8181 unless the JUnit configuration parameter
# rck.local is false (--config=rck.local=false or -Drck.local=false).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 0 ] || { echo "setup-rest-kit: takes no arguments" >&2; exit 2; }

DIR=build-rest
# group:artifact:version[:classifier]  sha256 of the jar; in class path order.
JARS=(
  "org.junit.platform:junit-platform-console-standalone:1.13.4 3fdfc37e29744a9a67dd5365e81467e26fbde0b7aa204e6f8bbe79eeaa7ae892"
  "org.assertj:assertj-core:3.27.4 cc69aa84f79356cb635c3f9ff3f86dff0f9d8ee7ef7b684a2c9a99804ff45008"
  "net.bytebuddy:byte-buddy:1.15.11 fa08998aae1e7bdae83bde0712c50e8444d71c0e0c196bb2247ade8d4ad0eb90"
  "org.awaitility:awaitility:4.3.0 ee58568ea5945dcf988551501655183dc184e23e45a8e013fdfd9036194e6f7b"
  "org.hamcrest:hamcrest:2.1 ba93b2e3a562322ba432f0a1b53addcc55cb188253319a020ed77f824e692050"
  "org.apache.iceberg:iceberg-open-api:1.10.0:tests fa8e1ce4e0c689c2a069ad7ec16cec4c1ac7f97b55721683b27ad83bd27c016b"
  "org.apache.iceberg:iceberg-api:1.10.0:tests 5a404170b37b2200782c3b9f1e12b19982888e4dd8ae844b6a82289ce964f76e"
  "org.apache.iceberg:iceberg-core:1.10.0:tests caa79473e760a6ea0740888832d85868359142640d34f472cd565763bb9b90c7"
  "org.apache.iceberg:iceberg-open-api:1.10.0 99379edef1a65b51c40a63971ffab46d38966821af26ef6224bd217eeacae8d7"
)

die() { echo "setup-rest-kit: $*" >&2; exit 1; }
# shellcheck source=scripts/pinned-jars.sh
source scripts/pinned-jars.sh

# Java 11, 17 or 21 (Iceberg 1.10's) and Maven, from Debian when missing.
missing=()
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
if ((${#missing[@]})); then
  echo "setup-rest-kit: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
JAVA=java; [ -n "${JAVA_HOME:-}" ] && JAVA=$JAVA_HOME/bin/java
java_major=$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
case "$java_major" in
  11|17|21) ;;
  *) die "Iceberg 1.10 runs on Java 11, 17 or 21 ($JAVA); found '${java_major:-none}'" ;;
esac

# The jars, straight from Maven Central, then the kit's class path, written last: its presence
# means setup is complete. The console launcher comes first: the runnable jar carries its own
# copy of JUnit Jupiter.
fetch_pinned_jars setup-rest-kit
write_pinned_classpath
