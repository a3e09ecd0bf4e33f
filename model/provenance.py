"""What produced a run: the lab's version and commit and the versions of the packages it rests on,
recorded beside every prediction (``predict --json``) and every sweep point."""

from __future__ import annotations

import functools
import hashlib
import subprocess
import sys
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from . import paths

VERSIONED = ("capacity-lab", "simpy", "numpy", "scipy", "pandas", "papermill")
# every package whose version can move a sweep point's figures: what computes (the simulation, the
# numbers, the compiled kernels), what reads the lab's files and what runs a point's notebook
COMPUTING = (*VERSIONED, "numba", "pyyaml", "nbclient", "ipykernel", "jupyter_client")


@functools.cache
def versions() -> dict[str, str]:
    return {name: metadata.version(name) for name in VERSIONED}


@functools.cache
def computing_versions() -> dict[str, str]:
    """Python's version and those of the packages ``COMPUTING`` names, as this process has them."""
    return {"python": sys.version, **{name: metadata.version(name) for name in COMPUTING}}


@functools.cache
def commit() -> str:
    """The git commit of the lab's checkout, or "unknown" outside one."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=paths.PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() or "unknown"


def files_fingerprint(root: Path, names: Iterable[str]) -> str:
    """A hash of the files ``names`` (paths under ``root``), in that order: each one's path and its
    contents."""
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
    return digest.hexdigest()


def source_fingerprint(root: Path) -> str:
    """A hash of every ``*.py`` under ``root``: each file's path below it and its contents."""
    return files_fingerprint(root, sorted(str(p.relative_to(root)) for p in root.rglob("*.py")))


@functools.cache
def code_fingerprint() -> str:
    """The lab's model code as this process runs it (``model/``, committed or not): a sweep point
    computed by other code is run again rather than kept."""
    return source_fingerprint(paths.PROJECT_ROOT / "model")
