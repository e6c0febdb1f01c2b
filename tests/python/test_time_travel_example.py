"""examples/time_travel.py on floe: three snapshots of two rows each; 6, 2 and 2 rows.
(tests/interop/spark/test_python_api.py runs the same example on a SparkSession.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "time_travel.py"
OUTPUT = "current: 6 rows\nfirst snapshot: 2 rows\nafter rollback: 2 rows\n"


def test_example_prints_6_2_2(tmp_path):
    r = subprocess.run(
        [sys.executable, str(EXAMPLE), "--catalog", str(tmp_path / "catalog.db"), "--warehouse", str(tmp_path / "w")],
        capture_output=True, text=True, timeout=120,
    )
    assert (r.returncode, r.stdout, r.stderr) == (0, OUTPUT, "")
