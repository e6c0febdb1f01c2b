"""python -m bench.runner [options]: see scripts/bench.sh and docs/benchmarks.md."""

from .main import main

main()
