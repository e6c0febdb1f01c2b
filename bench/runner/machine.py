"""What the figures were measured on: CPU, cores, memory, OS and each engine's version."""

from __future__ import annotations

import functools
import os
import platform
import subprocess
from pathlib import Path

from .setup import ROOT


def _cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _ram_gb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / 1024**2, 1)
    return 0.0


def _os() -> str:
    name = platform.platform()
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                name = line.split("=", 1)[1].strip('"') + f" (Linux {platform.release()})"
    except OSError:
        pass
    return name


def _git(*args: str) -> str:
    r = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return r.stdout.strip()


@functools.cache
def _describe(engines: tuple[str, ...], spark_python: str | None) -> dict:
    import pyarrow
    import pyiceberg

    versions = {
        "floe": f"{_git('rev-parse', '--short', 'HEAD')} ({_git('log', '-1', '--format=%cs')})",
        "pyarrow": pyarrow.__version__,
    }
    if "duckdb" in engines:
        import duckdb

        versions["duckdb"] = f"{duckdb.__version__} (iceberg and avro extensions {duckdb.__version__})"
    if "pyiceberg" in engines:
        versions["pyiceberg"] = pyiceberg.__version__
    if spark_python:
        r = subprocess.run([spark_python, "-c", "import pyspark; print(pyspark.__version__)"], capture_output=True, text=True)
        jars = (ROOT / "build-spark" / "classpath").read_text().strip().split(":")
        iceberg = next((Path(j).stem.rsplit("-", 1)[-1] for j in jars if "iceberg-spark-runtime" in j), "?")
        java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[:1]
        versions["spark"] = f"{r.stdout.strip()} with Iceberg {iceberg}, local[1], {java[0] if java else 'java ?'}"
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "ram_gb": _ram_gb(),
        "os": _os(),
        "python": platform.python_version(),
        "versions": versions,
    }


def describe(engines: list[str], spark_python) -> dict:
    return _describe(tuple(engines), str(spark_python) if spark_python else None)
