#!/usr/bin/env bash
# Sets up, builds and runs floe's demo on the embedded default catalog (./warehouse).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release --target floe_cli >/dev/null
exec build/floe demo "$@"
