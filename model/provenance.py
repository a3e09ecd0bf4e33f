"""What produced a run: the lab's version and commit and the versions of the packages it rests on,
recorded beside every prediction (``predict --json``) and every sweep point."""

from __future__ import annotations

import functools
import subprocess
from importlib import metadata

from . import paths

VERSIONED = ("capacity-lab", "simpy", "numpy", "scipy", "pandas", "papermill")


@functools.cache
def versions() -> dict[str, str]:
    return {name: metadata.version(name) for name in VERSIONED}


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
