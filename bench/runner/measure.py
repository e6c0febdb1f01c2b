"""Runs one child process and measures it: wall time from spawn to reap, and peak RSS.

Peak RSS is the larger of GNU time's %M for the command and the peak sum of RSS over its
process tree sampled every 20 ms (Spark's JVM is a grandchild that is not always reaped, so
the kernel's figure can miss it). The command runs under /usr/bin/time rather than straight
from this process because Linux carries the forking process's high-water mark into the
child's ru_maxrss across exec, which would report this runner's own size."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

TIME = "/usr/bin/time"  # GNU time (Debian package `time`)


@dataclass
class Run:
    wall_ms: float
    peak_rss_mb: float
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool


def _sample_tree(pid: int, stop: threading.Event, peak: list[int]) -> None:
    try:
        root = psutil.Process(pid)
    except psutil.Error:
        return
    while not stop.is_set():
        total = 0
        try:
            procs = [root] + root.children(recursive=True)
        except psutil.Error:
            break
        for p in procs:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
        peak[0] = max(peak[0], total)
        stop.wait(0.02)


def run(cmd: list[str], env: dict | None = None, cwd: str | None = None, timeout: float = 3600) -> Run:
    out_path = f"/tmp/floe-bench-{os.getpid()}.out"
    err_path = f"/tmp/floe-bench-{os.getpid()}.err"
    rss_path = f"/tmp/floe-bench-{os.getpid()}.rss"
    cmd = [TIME, "-f", "%M", "-o", rss_path, *cmd]
    with open(out_path, "w+b") as out, open(err_path, "w+b") as err:
        start = time.perf_counter()
        # A session of its own, so a run that overstays is killed with all its processes.
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd, start_new_session=True)
        stop = threading.Event()
        peak = [0]
        sampler = threading.Thread(target=_sample_tree, args=(proc.pid, stop, peak), daemon=True)
        sampler.start()
        deadline = start + timeout
        timed_out = False
        while True:
            pid, status = os.waitpid(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                pid, status = os.waitpid(proc.pid, 0)
                timed_out = True
                break
            time.sleep(0.001)
        wall_ms = (time.perf_counter() - start) * 1000
        stop.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    try:
        time_kib = int(Path(rss_path).read_text().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        time_kib = 0  # killed before time wrote it
    for path in (out_path, err_path, rss_path):
        Path(path).unlink(missing_ok=True)
    rss = max(time_kib * 1024, peak[0]) / (1024 * 1024)
    return Run(wall_ms, rss, proc.returncode, stdout, stderr, timed_out)
