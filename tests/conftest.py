import pytest

from model import cli


@pytest.fixture
def run_cli(capsys):
    """Run ``python -m model ARGS`` in-process: (exit status, stdout, stderr)."""
    def run(*args):
        status = cli.main(list(args))
        out = capsys.readouterr()
        return status, out.out, out.err
    return run
