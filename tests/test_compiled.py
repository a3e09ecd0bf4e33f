"""The compiled loops' cache (``model.compiled``): dropped when any source it was built from
changes, since numba itself only notices a change to a function's own module."""

import ast
from pathlib import Path

from model import compiled

COMPILED = ("storage/loop_a.py", "servers/loop_b.py")
SOURCES = (*COMPILED, "storage/constants.py")


def _package(tmp_path: Path) -> Path:
    for name in SOURCES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"# {name}\n")
    return tmp_path


def _cache(package: Path) -> set[str]:
    """Write what numba would cache for both loops, and a file of another module and a .pyc."""
    names = {
        "storage/__pycache__/loop_a.step-12.py311.nbi",
        "storage/__pycache__/loop_a.step-12.py311.1.nbc",
        "servers/__pycache__/loop_b.run-40.py311.nbi",
        "servers/__pycache__/loop_b.run-40.py311.1.nbc",
        "storage/__pycache__/other.f-3.py311.nbi",
        "storage/__pycache__/loop_a.cpython-311.pyc",
    }
    for name in names:
        (package / name).parent.mkdir(exist_ok=True)
        (package / name).write_bytes(b"")
    return names


def _left(package: Path) -> set[str]:
    return {str(p.relative_to(package)) for p in package.glob("*/__pycache__/*")}


def test_a_changed_source_drops_every_compiled_module_s_cache(tmp_path):
    """The first run (no stamp) and a run after any source changed, the constants' module too,
    drop both loops' cached code, nothing else; a run with the sources as they were keeps it."""
    package = _package(tmp_path)
    kept = {"storage/__pycache__/other.f-3.py311.nbi", "storage/__pycache__/loop_a.cpython-311.pyc"}
    everything = _cache(package)
    assert compiled.refresh(package, COMPILED, SOURCES)
    assert _left(package) == kept
    _cache(package)
    assert compiled.refresh(package, COMPILED, SOURCES)
    assert _left(package) == everything
    (package / "storage/constants.py").write_text("NEAREST = 2\n")
    assert compiled.refresh(package, COMPILED, SOURCES)
    assert _left(package) == kept


def test_a_folder_the_cache_cannot_go_in_caches_nothing(tmp_path):
    package = _package(tmp_path)
    (package / "servers/__pycache__").write_text("a file where the cache folder would be")
    assert not compiled.refresh(package, COMPILED, SOURCES)


def test_the_fingerprint_follows_every_source_s_contents(tmp_path):
    package = _package(tmp_path)
    before = compiled.fingerprint(package, SOURCES)
    assert compiled.fingerprint(package, SOURCES) == before
    (package / "servers/loop_b.py").write_text("# loop_b, changed\n")
    assert compiled.fingerprint(package, SOURCES) != before


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
