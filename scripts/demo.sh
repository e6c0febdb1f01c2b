#!/usr/bin/env bash
# Sets up, builds and runs floe's demo on the embedded default catalog (./warehouse). It needs
# only what building floe needs, and builds only the floe command.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --build-only
scripts/build.sh release --target floe_cli >/dev/null
exec build/floe demo "$@"
