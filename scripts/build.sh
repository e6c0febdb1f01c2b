#!/usr/bin/env bash
# Configures (once) and builds one flavour of floe.
#   scripts/build.sh            -> build/       (RelWithDebInfo)
#   scripts/build.sh asan       -> build-asan/  (ASan + UBSan)
#   scripts/build.sh fuzz       -> build-fuzz/  (clang, libFuzzer targets with ASan + UBSan)
set -euo pipefail
cd "$(dirname "$0")/.."
# Paths relative to the checkout, so a fresh clone elsewhere still hits the compiler cache.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
flavour=${1:-release}
shift || true
case "$flavour" in
  release) dir=build; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  # Line tables (-g1) are all a sanitizer report needs, and much cheaper to compile and link
  # than full debug information; the benchmarks are not built (no test runs them).
  asan)    dir=build-asan; args=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1
             -DFLOE_SANITIZE=ON -DFLOE_BUILD_BENCH=OFF) ;;
  # -O1 with assertions kept; only the fuzz targets are built unless targets are named.
  # Warnings stay warnings: clang warns where gcc (the -Werror builds) does not.
  fuzz)    dir=build-fuzz; args=(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
             "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" -DFLOE_FUZZ=ON -DFLOE_BUILD_TESTS=OFF
             -DFLOE_BUILD_BENCH=OFF -DFLOE_WERROR=OFF)
           [[ " $* " == *" --target "* ]] || set -- --target floe_fuzzers "$@" ;;
  *) echo "unknown flavour $flavour" >&2; exit 2 ;;
esac
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S . -B "$dir" -G Ninja -DFLOE_WERROR=ON "${args[@]}" >/dev/null
fi
# A compile that fails without a word (seen once: three groups at the end of a build, no
# diagnostics, nothing wrong with the sources) is retried once, one job at a time, with the
# machine's state printed; a real error fails again, with its message.
if ! cmake --build "$dir" "$@"; then
  echo "build: $dir failed; disk, memory and load now, then one more try with one job:" >&2
  df -h . >&2 || true; free -m >&2 || true; uptime >&2 || true
  cmake --build "$dir" "$@" -- -j1
fi
