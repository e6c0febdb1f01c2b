"""Installs the pinned benchmark packages (requirements-bench.txt) once, beside the project
virtualenv: `pip install --target build/bench-pylib`, put first on the path of the runner and
its children, so `.venv` itself is never changed."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYLIB = ROOT / "build" / "bench-pylib"
REQUIREMENTS = ROOT / "requirements-bench.txt"


def ensure_packages() -> None:
    want = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    stamp = PYLIB / ".requirements.sha"
    if not (stamp.exists() and stamp.read_text().strip() == want):
        print(f"bench: installing {REQUIREMENTS.name} into {PYLIB.relative_to(ROOT)}", flush=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--upgrade", "--target", str(PYLIB), "-r", str(REQUIREMENTS)],
            check=True,
        )
        stamp.write_text(want + "\n")
    if str(PYLIB) not in sys.path:
        sys.path.insert(0, str(PYLIB))


def duckdb_extensions(optional: tuple[str, ...] = ()) -> dict[str, str]:
    """The iceberg and avro extension binaries the pinned wheels ship, and those of `optional`
    (httpfs) found in build/bench-pylib or else in .venv (requirements.txt pins
    duckdb-extension-httpfs at the same version)."""
    import importlib.util

    import duckdb

    out = {}
    for ext in ("iceberg", "avro", *optional):
        rel = Path(f"duckdb_extension_{ext}") / "extensions" / f"v{duckdb.__version__}" / f"{ext}.duckdb_extension"
        path = PYLIB / rel
        if not path.is_file() and ext in optional:
            found = importlib.util.find_spec(f"duckdb_extension_{ext}")
            if found is not None and found.submodule_search_locations:
                path = Path(list(found.submodule_search_locations)[0]).parent / rel
        if not path.is_file():
            raise SystemExit(f"bench: {path} is missing; check requirements-bench.txt (duckdb {duckdb.__version__})")
        out[ext] = str(path)
    return out


def ensure_spark() -> tuple[Path, str]:
    """Spark 3.5 + Iceberg 1.10 from scripts/setup-spark.sh: its python and the jar class path."""
    subprocess.run([str(ROOT / "scripts" / "setup-spark.sh")], check=True)
    python = ROOT / "build-spark" / "venv" / "bin" / "python"
    classpath = (ROOT / "build-spark" / "classpath").read_text().strip()
    return python, classpath
