"""What a Dask worker runs to show a sweep's client whether it can run the sweep's points
(``model.sweep.cluster``): which lab it imports and with what code, data and packages, whether the
files the grid names are the client's, and whether the sweep's results folder is the client's.

It runs on a worker that may not have the lab at all (its ``run_point`` would not even
deserialize there): the client sends it by value, and it imports only the standard library but
where it tries the lab.
"""

from __future__ import annotations

import importlib
import tempfile
from pathlib import Path
from typing import Any

LAB = "model.sweep.point"  # what a worker imports to run a point
MARKER = ".worker-check"  # the file the client writes in a papermill sweep's folder for the check


def report(inputs: dict[str, str], out: str | None, marker: str | None) -> dict[str, Any]:
    """This worker as the client judges it: ``unimportable``, why the lab does not import (None
    where it does); then the checkout it imports (``root``), its ``lab_fingerprint`` and
    ``versions``, which files of ``inputs`` (each one's digest as the client read it) differ here
    (``changed``), and, given the results folder ``out``, why it is not the client's (its file
    ``MARKER`` does not hold ``marker``) or cannot be written here (``folder``, None where all is
    well)."""
    try:
        point = importlib.import_module(LAB)
    except Exception as exc:  # not installed, or the lab failed as it imported
        return {"unimportable": f"{type(exc).__name__}: {exc}"}
    from model import paths, provenance

    return {
        "unimportable": None,
        "root": str(paths.PROJECT_ROOT),
        "lab": point.lab_fingerprint(),
        "versions": provenance.computing_versions(),
        "changed": point.changed_inputs(inputs),
        "folder": _folder_problem(Path(out), marker) if out is not None else None,
    }


def _folder_problem(out: Path, marker: str | None) -> str | None:
    """Why ``out`` here is not the folder the client writes, or cannot be written; None if it is
    and can."""
    try:
        if (out / MARKER).read_text() != marker:
            raise FileNotFoundError
    except OSError:
        return "is not the folder the sweep writes (the file the sweep put in it is not there)"
    try:
        with tempfile.NamedTemporaryFile(dir=out, prefix=MARKER):
            pass
    except OSError as exc:
        return f"cannot be written there ({type(exc).__name__}: {exc.strerror or exc})"
    return None
