#!/usr/bin/env bash
# Installs everything floe needs on a Debian 12 machine and configures the builds.
# Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(build-essential cmake ninja-build ccache pkg-config python3-venv
  rapidjson-dev libdeflate-dev libsqlite3-dev sqlite3 libgtest-dev libgmock-dev libbenchmark-dev
  chromium  # the browser the metadata page tests drive through Playwright
  libcli11-dev libhowardhinnant-date-dev tzdata libedit-dev libpq-dev postgresql clang-format
  clang libclang-rt-14-dev libssl-dev openssl)  # clang and its libFuzzer/sanitizer runtimes: scripts/fuzz.sh

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The project virtualenv: pinned pyarrow (Arrow C++ for the build), pyiceberg and pytest.
stamp=.venv/.requirements.sha
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip==24.3.1
  .venv/bin/pip install -q -r requirements.txt
  echo "$want" > "$stamp"
fi

# The floe Python package (pyproject.toml) into .venv, from a wheel built in build-python/
# (the Spark virtualenv installs the same wheel: scripts/setup-spark.sh). It is built like
# `scripts/build.sh release` (same compiler, build type, flags and CCACHE_BASEDIR), so ccache
# serves the objects the release build compiled, and build-python/ keeps its CMake tree, so
# a rebuild compiles and links only what changed.
echo "setup: building the floe Python package (build-python/)"
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
rm -f build-python/dist/floe-*.whl
.venv/bin/pip wheel -q --no-build-isolation --no-deps --no-cache-dir -w build-python/dist \
  --config-settings=build-dir=build-python \
  --config-settings=cmake.define.FLOE_WERROR=ON \
  --config-settings=cmake.define.FLOE_PYTHON="$PWD/.venv/bin/python" .
wheel=$(echo build-python/dist/floe-*.whl)
stamp=.venv/.floe-wheel.sha
want=$(sha256sum "$wheel" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install -q --no-deps --force-reinstall "$wheel"
  echo "$want" > "$stamp"
fi
