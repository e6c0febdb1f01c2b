"""The `floe` command the package installs runs the floe command line in-process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FLOE = Path(sys.executable).parent / "floe"


def run(*args, cwd=None):
    return subprocess.run([str(FLOE), *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_floe_command_runs_sql(tmp_path):
    r = run("sql", "-c", "select 1", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "+---+\n|  1|\n+---+\n|  1|\n+---+\n", "")


def test_floe_command_reports_errors_and_exit_status(tmp_path):
    r = run("sql", "--catalog", str(tmp_path / "c.db"), "--warehouse", str(tmp_path / "w"), "-c", "SELECT * FORM t")
    assert r.returncode == 1
    assert r.stderr == "Error: Syntax error at or near 'FORM' (line 1, column 10)\nSELECT * FORM t\n         ^\n"
    r = run("no-such-command")
    assert (r.returncode, r.stderr) == (1, "Error: Unknown subcommand: no-such-command\n")


def test_floe_command_sees_what_the_package_wrote(conn, paths):
    conn.sql("CREATE TABLE db.t (id BIGINT)")
    conn.sql("INSERT INTO db.t VALUES (1), (2)")
    catalog, warehouse = paths
    r = run("sql", "--catalog", str(catalog), "--warehouse", str(warehouse), "--format", "csv",
            "-c", "SELECT count(*) AS n FROM db.t")
    assert (r.returncode, r.stdout) == (0, "n\n2\n")


def test_python_dash_m_floe(tmp_path):
    r = subprocess.run([sys.executable, "-m", "floe", "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("floe ")


def test_closed_pipe_ends_the_command(tmp_path):
    # As the binary: a reader that goes away ends the command (SIGPIPE), it does not keep writing.
    cmd = f"'{FLOE}' sql --format csv -c 'SELECT id FROM range(5000000)' | head -n 2"
    r = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    assert r.stdout == "id\n0\n"
    assert r.returncode == 141  # 128 + SIGPIPE
