"""The `floe` command of the Python package: the same command line as the floe binary."""

from __future__ import annotations

import signal
import sys


def main(argv: list[str] | None = None) -> int:
    """Runs `floe <subcommand> ...` in this process and returns its exit status."""
    from . import _floe

    # Ctrl-C and a closed pipe end the command as they end the binary (Python ignores SIGPIPE
    # and turns SIGINT into an exception the engine would never see).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = ["floe", *(sys.argv[1:] if argv is None else argv)]
    sys.stdout.flush()
    sys.stderr.flush()
    return _floe.run_cli(args)
