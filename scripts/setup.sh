#!/usr/bin/env bash
# Installs everything floe needs on a Debian 12 machine. Safe to run again: each step is
# skipped when already done.
#   scripts/setup.sh               everything: build and test packages, .venv, the floe wheel
#   scripts/setup.sh --build-only  what building floe needs: compilers, libraries, pyarrow
#   scripts/setup.sh --no-wheel    everything but the floe Python package
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
case "$mode" in all|--build-only|--no-wheel) ;; *) echo "setup: unknown option $mode" >&2; exit 2 ;; esac

BUILD_PACKAGES=(build-essential cmake ninja-build ccache pkg-config python3-venv
  rapidjson-dev libdeflate-dev libroaring-dev libsqlite3-dev sqlite3 libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev libhowardhinnant-date-dev tzdata libedit-dev libpq-dev libssl-dev openssl
  libcurl4-openssl-dev)
TEST_PACKAGES=(chromium  # the browser the metadata page tests drive through Playwright
  postgresql clang-format
  clang libclang-rt-14-dev)  # clang and its sanitizer and libFuzzer runtimes: build-fuzz/
packages=("${BUILD_PACKAGES[@]}")
[ "$mode" = --build-only ] || packages+=("${TEST_PACKAGES[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The project virtualenv: pinned pyarrow (Arrow C++ for the build), and for the tests
# pyiceberg, pytest and the rest of requirements.txt. A stamp per requirements file.
requirements=requirements-core.txt
[ "$mode" = --build-only ] || requirements=requirements.txt
stamp=.venv/.$requirements.sha
want=$(cat requirements-core.txt "$requirements" | sha256sum | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing $requirements into .venv"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check --upgrade pip==24.3.1
  .venv/bin/pip install -q -r "$requirements"
  echo "$want" > "$stamp"
fi
[ "$mode" = all ] || exit 0

# The floe Python package (pyproject.toml) into .venv, from a wheel built in build-python/
# (the Spark virtualenv installs the same wheel: scripts/setup-spark.sh). It is built like
# `scripts/build.sh release` (same compiler, build type, flags, unity groups and
# CCACHE_BASEDIR), so after that build ccache serves every object and only the extension
# links; build-python/ keeps its CMake tree, so a rebuild compiles and links only what changed.
echo "setup: building the floe Python package (build-python/)"
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
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
