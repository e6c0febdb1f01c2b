#!/usr/bin/env python3
"""The progress bar: drawn on standard error when it is a terminal (a pseudo-terminal here),
only after the delay ($FLOE_PROGRESS_DELAY_MS lowers the one second for the test), cut to the
terminal's width and cleared at the end; never drawn when standard error is not a terminal,
and never on standard output. Usage: progress_test.py FLOE_BINARY"""
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

from cli_checks import Floe

CLEAR = b"\r\x1b[K"

f = Floe(sys.argv[1])
f.sql("CREATE NAMESPACE db", "CREATE TABLE db.m (id BIGINT) USING iceberg",
      *[f"INSERT INTO db.m VALUES ({i})" for i in range(1, 13)])


def on_terminal(args, delay=None, columns=200, extra_env=None):
    """Runs floe with standard error on a pseudo-terminal; returns (status, stdout, stderr)."""
    env = dict(f.env)
    if delay is not None:
        env["FLOE_PROGRESS_DELAY_MS"] = str(delay)
    env.update(extra_env or {})
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    p = subprocess.Popen([f.binary, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=slave, env=env, cwd=f.dir)
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    out = p.stdout.read()
    return p.wait(), out, err


scan = ["show", "db.m", "--format", "csv"]
rows = sorted([b"id"] + [str(i).encode() for i in range(1, 13)])

# A scan of 12 files: drawn at once with no delay, then cleared; the rows untouched.
status, out, err = on_terminal(scan, delay=0)
f.check(status == 0 and sorted(out.splitlines()) == rows, "rows of the scan", out, err)
f.check(err.startswith(CLEAR + b"Reading data files [........................] 0/12") and err.endswith(CLEAR),
        "the bar of a scan, cleared at the end", err)
f.check(b"\x1b" not in out and b"Reading" not in out, "nothing on standard output", out)

# Cut to the terminal's width (one column short, so the cursor never wraps).
status, out, err = on_terminal(scan, delay=0, columns=30)
f.check(status == 0 and err.startswith(CLEAR + b"Reading data files [........." + CLEAR), "the bar cut to 29 columns",
        err)
f.check(all(len(frame) <= 29 for frame in err.split(CLEAR)), "no frame wider than 29", err)

# Quick work before the delay: nothing drawn.
status, out, err = on_terminal(scan, delay=60000)
f.check(status == 0 and sorted(out.splitlines()) == rows and err == b"", "no bar before the delay", err)
# Standard error not a terminal, or FLOE_PROGRESS=0: nothing, whatever the delay.
r = f.run(*scan, env=dict(f.env, FLOE_PROGRESS_DELAY_MS="0"))
f.check(r.returncode == 0 and r.stderr == "" and sorted(r.stdout.encode().splitlines()) == rows,
        "no bar when standard error is a pipe", r.stderr)
status, out, err = on_terminal(scan, delay=0, extra_env={"FLOE_PROGRESS": "0"})
f.check(status == 0 and err == b"", "FLOE_PROGRESS=0 turns the bar off", err)

# Compaction counts file groups; expiry counts the files it deletes.
status, out, err = on_terminal(["sql", "-q", "-c", "CALL lakehouse.system.rewrite_data_files('db.m')"], delay=0)
f.check(status == 0 and err.startswith(CLEAR + b"Rewriting file groups [........................] 0/1")
        and err.endswith(CLEAR), "the bar of a compaction", err)
status, out, err = on_terminal(["sql", "-q", "-c", "CALL lakehouse.system.expire_snapshots(table => 'db.m', "
                                "older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)"], delay=0)
f.check(status == 0 and err.startswith(CLEAR + b"Deleting expired files [........................] 0/36")
        and err.endswith(CLEAR), "the bar of an expiry: 12 data files, 12 manifests, 12 lists", err)
f.check(f.value("SELECT sum(id) FROM db.m") == "78", "the table after both")

f.finish("progress")
