"""Hostile YAML: every user file the project reads is refused with one line and exit 2 when it
would exhaust the machine (alias bombs, deep nesting, huge or endless files) or is not text."""

import os
import time

import pytest
from grid_files import one_line as _one_line

from model import paths, yamlio

# 9 ** 9 = 387 million strings from a few hundred bytes ("billion laughs")
BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)


@pytest.mark.parametrize("command", ["predict", "sweep"])
def test_an_alias_bomb_is_refused_at_once(run_cli, tmp_path, command):
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    started = time.monotonic()
    _one_line(run_cli(command, str(path)), "bomb.yaml", "aliases")
    assert time.monotonic() - started < 10  # imports included; the bomb took 207 s and 11.6 GB


@pytest.mark.parametrize("command", ["predict", "sweep"])
def test_deep_nesting_is_refused_without_recursion_error(run_cli, tmp_path, command):
    path = tmp_path / "deep.yaml"
    path.write_text("a: " + "[" * 100_000 + "]" * 100_000 + "\n")
    started = time.monotonic()
    _one_line(run_cli(command, str(path)), "deep.yaml", "nested deeper than")
    assert time.monotonic() - started < 10  # imports included


def test_nesting_within_the_limit_loads():
    data = yamlio.safe_load("[" * yamlio.MAX_DEPTH + "]" * yamlio.MAX_DEPTH)
    for _ in range(yamlio.MAX_DEPTH - 1):
        (data,) = data
    assert data == []


@pytest.mark.parametrize("command", ["predict", "sweep"])
def test_a_directory_is_refused(run_cli, tmp_path, command):
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    _one_line(run_cli(command, str(folder)), "folder.yaml", "is a directory")


def test_an_endless_file_is_refused(run_cli):
    started = time.monotonic()
    _one_line(run_cli("predict", "/dev/zero"), "/dev/zero", "larger than")
    assert time.monotonic() - started < 2


def test_a_large_file_is_refused(run_cli, tmp_path):
    path = tmp_path / "large.yaml"
    path.write_text("# padding\n" * (yamlio.MAX_FILE_BYTES // 10 + 1))
    _one_line(run_cli("sweep", str(path)), "large.yaml", "larger than")


@pytest.mark.parametrize("command", ["predict", "sweep"])
def test_a_file_that_is_not_utf8_is_refused(run_cli, tmp_path, command):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\u00e9\n".encode("latin-1"))
    _one_line(run_cli(command, str(path)), "latin1.yaml", "not UTF-8")


def test_every_shipped_file_loads_as_before():
    """The checks refuse no shipped file and change none (buses.yaml uses anchors)."""
    import yaml

    files = sorted(paths.DATA.glob("**/*.yaml"))
    assert any("&" in f.read_text() for f in files)
    for f in files:
        text = yamlio.read_text(f, str(f))
        assert yamlio.safe_load(text, str(f)) == yaml.safe_load(text)


def test_a_few_aliases_are_fine():
    data = yamlio.safe_load("a: &a {x: 1, y: [1, 2]}\nb: *a\nc: {<<: *a, z: 3}\n")
    assert data["b"] == data["a"] and data["c"] == {"x": 1, "y": [1, 2], "z": 3}


def test_an_unreadable_file_is_refused(run_cli, tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    path = tmp_path / "secret.yaml"
    path.write_text("model: storage\n")
    path.chmod(0)
    _one_line(run_cli("predict", str(path)), "secret.yaml", "cannot read")


@pytest.mark.parametrize("command", ["predict", "sweep"])
@pytest.mark.parametrize(
    "tag, shown",
    [
        ('!!python/object/apply:os.system ["touch PWNED"]', "!!python/object/apply:os.system"),
        ("!custom 1", "!custom"),
    ],
)
def test_a_yaml_tag_is_refused_by_name_and_nothing_runs(run_cli, tmp_path, command, tag, shown):
    path = tmp_path / "tagged.yaml"
    path.write_text(f"name: x\nmodel: storage\ndescription: {tag}\n")
    _one_line(
        run_cli(command, str(path)),
        "tagged.yaml",
        f"a YAML tag (line 3), {shown}, is not allowed: write plain values",
    )
    assert not (tmp_path / "PWNED").exists() and not os.path.exists("PWNED")
