import os

import pytest
from hypothesis import settings

from model import cli

# CI runs the same examples every time (a property failure there reproduces at once); locally
# hypothesis explores new ones on every run.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def run_cli(capsys):
    """Run ``python -m model ARGS`` in-process: (exit status, stdout, stderr)."""

    def run(*args):
        status = cli.main(list(args))
        out = capsys.readouterr()
        return status, out.out, out.err

    return run
