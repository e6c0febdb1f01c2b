#!/usr/bin/env bash
# Configures (once) and builds one flavour of floe.
#   scripts/build.sh            -> build/       (RelWithDebInfo)
#   scripts/build.sh asan       -> build-asan/  (ASan + UBSan)
set -euo pipefail
cd "$(dirname "$0")/.."
# Paths relative to the checkout, so a fresh clone elsewhere still hits the compiler cache.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
flavour=${1:-release}
shift || true
case "$flavour" in
  release) dir=build; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan)    dir=build-asan; args=(-DCMAKE_BUILD_TYPE=Debug -DFLOE_SANITIZE=ON) ;;
  *) echo "unknown flavour $flavour" >&2; exit 2 ;;
esac
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S . -B "$dir" -G Ninja -DFLOE_WERROR=ON "${args[@]}" >/dev/null
fi
cmake --build "$dir" "$@"
