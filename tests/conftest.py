import os
import signal

import pytest
from hypothesis import settings

from model import cli

# CI runs the same examples every time (a property failure there reproduces at once); locally
# hypothesis explores new ones on every run.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# The tests that press Ctrl-C on a command mean a terminal's: a run started with SIGINT ignored (a
# script's background job, where the shell ignores it for what it starts) passes that on to every
# command a test starts, which then keeps ignoring it as it should. Those tests' commands get the
# default back.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def run_cli(capsys):
    """Run ``python -m model ARGS`` in-process: (exit status, stdout, stderr)."""

    def run(*args):
        status = cli.main(list(args))
        out = capsys.readouterr()
        return status, out.out, out.err

    return run
