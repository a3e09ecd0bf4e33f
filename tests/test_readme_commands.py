"""The README's commands work as written: each ``predict`` of a project scenario, each ``schema``
and ``new``, and the quote walk-through (``new`` a template, ``predict`` it, a what-if)."""

import re
import shlex

import pytest

from model import paths, scenario

PREFIX = ".venv/bin/python -m model "


def readme_commands() -> list[list[str]]:
    """The argument lists of the README's ``python -m model`` lines, comments dropped."""
    text = (paths.PROJECT_ROOT / "README.md").read_text()
    lines = re.findall(r"^" + re.escape(PREFIX) + r"(.*)$", text, flags=re.MULTILINE)
    return [shlex.split(line, comments=True) for line in lines]


def runs_here(args: list[str]) -> bool:
    """A command that needs no file of the user's and answers at once (not calibrate, validate
    or a sweep, which other tests run)."""
    if args[0] in ("schema", "new"):
        return "--out" not in args
    return args[0] == "predict" and scenario.plain_name(args[1])


@pytest.mark.parametrize("args", [a for a in readme_commands() if runs_here(a)], ids=shlex.join)
def test_a_readme_command_runs(run_cli, args):
    status, out, err = run_cli(*args)
    assert status == 0 and out and not err, err


def test_the_readme_s_quote_walk_through(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    quote = [a for a in readme_commands() if "quote.yaml" in a]
    assert [a[0] for a in quote] == ["new", "predict", "predict"]
    for args in quote:
        status, _, err = run_cli(*args)
        assert status == 0 and "Traceback" not in err, err
