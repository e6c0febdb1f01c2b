#!/usr/bin/env bash
# The generated SQL reference (docs/sql-functions.md, docs/sql-procedures.md,
# docs/sql-metadata-tables.md) matches the registries of the floe binary: every function,
# procedure and metadata table is documented, nothing documented is gone, and the text is
# what scripts/sql-reference.py writes. Usage: reference_test.sh FLOE_BINARY [PYTHON]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
floe=$(realpath "$1")
python=${2:-python3}
exec "$python" "$root/scripts/sql-reference.py" --check "$floe"
