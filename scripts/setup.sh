#!/usr/bin/env bash
# Installs everything floe needs on a Debian 12 machine and configures the builds.
# Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(build-essential cmake ninja-build ccache pkg-config python3-venv
  rapidjson-dev libdeflate-dev libsqlite3-dev sqlite3 libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev libhowardhinnant-date-dev tzdata libedit-dev libpq-dev clang-format
  clang libclang-rt-14-dev)  # clang and its libFuzzer/sanitizer runtimes: scripts/fuzz.sh

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
