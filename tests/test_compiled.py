"""The compiled loops' cache (``model.compiled``): one folder for each version of the sources it is
built from, since numba itself only notices a change to a function's own module."""

import ast
import os
from pathlib import Path

import numba
import pytest

from model import compiled, uncertainty

SOURCES = ("storage/loop_a.py", "servers/loop_b.py", "storage/constants.py")


def _package(tmp_path: Path) -> Path:
    for name in SOURCES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"# {name}\n")
    return tmp_path


def _folder(package: Path) -> Path | None:
    return compiled.cache_folder(
        compiled.cache_root(package, ""), compiled.fingerprint(package, SOURCES)
    )


def test_each_version_of_the_sources_has_its_own_folder(tmp_path):
    """A change to any source, the constants' module too, moves the cache to a new folder, so a
    process still running the old version (a notebook's kernel) compiles into and loads from its
    own, and a process of the new version never finds the old code; the same sources find the
    same folder again."""
    package = _package(tmp_path)
    first = _folder(package)
    assert first is not None and first.is_dir()
    assert first.parent == package / "__pycache__" / "numba"
    assert _folder(package) == first
    (package / "storage/constants.py").write_text("NEAREST = 2\n")
    second = _folder(package)
    assert second is not None and second != first
    assert first.is_dir()  # the old version's folder stays for a process still running it


def test_only_the_most_recently_used_versions_stay_cached(tmp_path):
    root = tmp_path / "numba"
    folders = []
    for version in range(compiled.KEPT + 2):
        folder = compiled.cache_folder(root, f"version {version}")
        os.utime(folder, (version, version))  # used in this order, a second apart
        folders.append(folder)
    assert sorted(root.iterdir()) == sorted(folders[-compiled.KEPT :])
    reused = folders[-compiled.KEPT]  # the oldest left, used again: the most recent now
    assert compiled.cache_folder(root, f"version {len(folders) - compiled.KEPT}") == reused
    newest = compiled.cache_folder(root, "a new version")
    assert sorted(root.iterdir()) == sorted([newest, reused, *folders[-(compiled.KEPT - 2) :]])


def test_a_cache_that_cannot_be_written_caches_nothing(tmp_path):
    package = _package(tmp_path)
    (package / "__pycache__").write_text("a file where the cache folder would be")
    assert _folder(package) is None


def test_numba_cache_dir_holds_the_folders_when_set(tmp_path):
    assert compiled.cache_root(tmp_path, "/srv/numba") == Path("/srv/numba/capacity-lab/numba")
    assert compiled.cache_root(tmp_path, "") == tmp_path / "__pycache__" / "numba"


def test_the_fingerprint_follows_every_source_s_contents(tmp_path):
    package = _package(tmp_path)
    before = compiled.fingerprint(package, SOURCES)
    assert compiled.fingerprint(package, SOURCES) == before
    (package / "servers/loop_b.py").write_text("# loop_b, changed\n")
    assert compiled.fingerprint(package, SOURCES) != before


def _doubled(x):
    return 2.0 * x


def test_jit_compiles_into_the_cache_folder_and_leaves_numba_s_setting(tmp_path, monkeypatch):
    setting = numba.config.CACHE_DIR
    monkeypatch.setattr(compiled, "CACHE", tmp_path)
    doubled = compiled.jit("f8(f8)")(_doubled)
    assert doubled(2.0) == 4.0
    assert any(tmp_path.rglob("*_doubled*.nbi"))
    assert numba.config.CACHE_DIR == setting
    monkeypatch.setattr(compiled, "CACHE", None)
    uncached = tmp_path / "uncached"
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(uncached))
    assert compiled.jit(_doubled)(3.0) == 6.0
    assert not uncached.exists()


def _decorated_with_jit(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(target, ast.Name) and target.id == "jit":
                    return True
    return False


def test_the_lists_hold_every_compiled_module_and_what_it_imports():
    """Every module with a compiled function is in ``COMPILED``, and every module of the package
    a compiled module imports (its callees and constants) is in ``SOURCES``."""
    package = compiled.PACKAGE
    for path in package.rglob("*.py"):
        name = str(path.relative_to(package))
        tree = ast.parse(path.read_text())
        assert _decorated_with_jit(tree) == (name in compiled.COMPILED), name
        if name not in compiled.COMPILED:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = path.parent
                for _ in range(node.level - 1):
                    base = base.parent
                modules = (
                    [base.joinpath(*node.module.split("."))]
                    if node.module
                    else [base / alias.name for alias in node.names]
                )
                for module in modules:
                    source = module.with_suffix(".py")
                    if source.exists():  # a module, not a package's folder
                        imported = str(source.relative_to(package))
                        assert imported in compiled.SOURCES, f"{name} imports {imported}"


def test_a_first_compile_is_said_once_and_a_cached_loop_not(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(compiled, "CACHE", tmp_path)
    monkeypatch.setattr(compiled, "_checked", set())
    compiled.announce("loop_a.run", "loop A", 15)
    compiled.announce("loop_a.run", "loop A", 15)  # once a process
    line = "compiling loop A once for this version of the sources (about 15 s) ...\n"
    assert capsys.readouterr().err == line
    (tmp_path / "storage_0123").mkdir()
    (tmp_path / "storage_0123" / "loop_b.run-12.py311.nbi").write_text("")  # numba's index
    compiled.announce("loop_b.run", "loop B", 10)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(compiled, "CACHE", None)  # no folder can be written: every process
    compiled.announce("loop_c.run", "loop C", 10)
    assert "in every process" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "loop"),
    [
        ("eah_download", "the download server's event loop"),
        ("psu_mmap", "the memory-mapped test's loop"),
    ],
)
def test_a_model_says_it_compiles_only_when_its_cache_is_empty(
    run_cli, tmp_path, monkeypatch, name, loop
):
    """The first predict of a numba model in a fresh clone took about 15 s, silently."""
    if compiled.CACHE is None:
        pytest.skip("no cache folder can be written here")
    run_cli("predict", name, "--point")  # compiled into the cache, if it was not there yet
    monkeypatch.setattr(compiled, "_checked", set())  # as a new process finds it
    uncertainty.clear_cache()  # simulated again, not taken from this process's results
    status, _, err = run_cli("predict", name, "--point")
    assert status == 0 and err == "", err
    monkeypatch.setattr(compiled, "CACHE", tmp_path)  # an empty cache: a fresh clone's
    monkeypatch.setattr(compiled, "_checked", set())
    uncertainty.clear_cache()
    status, _, err = run_cli("predict", name, "--point")
    assert status == 0 and err.startswith(f"compiling {loop} once"), err
