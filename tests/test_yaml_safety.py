"""Hostile YAML: every user file the project reads is refused with one line and exit 2 when it
would exhaust the machine (alias bombs, deep nesting, huge or endless files) or is not text."""

import errno
import os

import pytest
from grid_files import one_line as _one_line

from model import paths, yamlio

# 9 ** 9 = 387 million strings from a few hundred bytes ("billion laughs")
BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)


def _guard_loader(monkeypatch, hostile):
    """Watch the loader on ``hostile`` text: the parser events its check pulls, and any node built
    for it (``built``, which must stay empty: a node is the expansion the refusal comes before).
    Building one fails at once, so a check that let the text through cannot hang the test."""
    seen = {"events": 0, "built": []}

    class Guarded(yamlio._LOADER):
        def __init__(self, stream):
            self.hostile = stream == hostile
            super().__init__(stream)

        def get_event(self):
            seen["events"] += self.hostile
            return super().get_event()

        def get_single_node(self):
            if self.hostile:
                seen["built"].append("node")
                raise AssertionError("the hostile file reached the loader")
            return super().get_single_node()

    monkeypatch.setattr(yamlio, "_LOADER", Guarded)
    return seen


@pytest.mark.parametrize("command", ["predict", "sweep"])
def test_an_alias_bomb_is_refused_at_once(run_cli, tmp_path, monkeypatch, command):
    """The bomb took 207 s and 11.6 GB: it is refused from the parser's events, before any node is
    built from it."""
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    seen = _guard_loader(monkeypatch, BOMB)
    _one_line(run_cli(command, str(path)), "bomb.yaml", "aliases")
    assert seen["built"] == [] and seen["events"] > 0  # the check read it, the loader never did


@pytest.mark.parametrize("command", ["predict", "sweep"])
def test_deep_nesting_is_refused_without_recursion_error(run_cli, tmp_path, monkeypatch, command):
    """100,000 levels are refused at the first level past MAX_DEPTH: the check stops there (each
    level is one event; libyaml's parse time grows with the square of the depth), and nothing is
    built."""
    text = "a: " + "[" * 100_000 + "]" * 100_000 + "\n"
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    seen = _guard_loader(monkeypatch, text)
    _one_line(run_cli(command, str(path)), "deep.yaml", "nested deeper than")
    # stream, document and mapping starts, the key, then one sequence start a level
    assert seen["built"] == [] and 0 < seen["events"] <= 4 + yamlio.MAX_DEPTH


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


def _count_reads(monkeypatch):
    """Count the bytes ``yamlio`` reads from the files it opens; a read of no stated size (which
    on /dev/zero never ends) fails at once."""
    read = {"bytes": 0}

    class Counted:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def fileno(self):
            return self.f.fileno()

        def read(self, size=-1):
            assert size is not None and size >= 0, "an unbounded read"
            data = self.f.read(size)
            read["bytes"] += len(data)
            return data

    monkeypatch.setattr(yamlio, "open", lambda *a, **k: Counted(open(*a, **k)), raising=False)
    return read


def test_an_endless_file_is_refused(run_cli, monkeypatch):
    """/dev/zero never ends: it is refused after one byte more than a YAML file may hold."""
    read = _count_reads(monkeypatch)
    _one_line(run_cli("predict", "/dev/zero"), "/dev/zero", "larger than")
    assert read["bytes"] == yamlio.MAX_FILE_BYTES + 1


def test_a_large_file_is_refused(run_cli, tmp_path, monkeypatch):
    path = tmp_path / "large.yaml"
    path.write_text("# padding\n" * (yamlio.MAX_FILE_BYTES // 10 + 1))
    read = _count_reads(monkeypatch)
    _one_line(run_cli("sweep", str(path)), "large.yaml", "larger than")
    assert read["bytes"] == yamlio.MAX_FILE_BYTES + 1


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
    """Aliases as values are read as YAML reads them (a merge key, ``<<``, is refused:
    test_hostile_files)."""
    data = yamlio.safe_load("a: &a {x: 1, y: [1, 2]}\nb: *a\nc: {w: *a, z: 3}\n")
    assert data["b"] == data["a"] and data["c"] == {"w": {"x": 1, "y": [1, 2]}, "z": 3}


def test_an_unreadable_file_is_refused(run_cli, tmp_path, monkeypatch):
    """Refused in one line for any user: root reads a file of mode 0, so opening this one is made
    to fail as it does for anyone else (EACCES)."""
    path = tmp_path / "secret.yaml"
    path.write_text("model: storage\n")
    path.chmod(0)
    real_open = os.open

    def denied(file, flags, *args, **kwargs):
        if os.fspath(file) == str(path):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    _one_line(
        run_cli("predict", str(path)),
        "secret.yaml",
        f"cannot read it ({os.strerror(errno.EACCES)})",
    )


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
