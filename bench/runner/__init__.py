"""Side-by-side benchmark runner: floe's CLI against DuckDB, PyIceberg and Spark on the same
Iceberg tables. Run it through scripts/bench.sh (see docs/benchmarks.md)."""
