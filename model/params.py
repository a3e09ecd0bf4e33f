"""The few free parameters calibration may fit, each with bounds and a physical meaning.

Everything else comes from datasheets in the catalog. A parameter is shared by every scenario whose
hardware has the part it describes; ``python -m model calibrate`` fits them all at once and writes
``data/calibrated/parameters.json`` with a 95% interval for each.
"""

from __future__ import annotations

import json

from . import paths, registry
from .freeparameter import FreeParameter

# Every registered model's free parameters (each model package declares its own).
DECLARED: dict[str, FreeParameter] = registry.declared_parameters()


def defaults() -> dict[str, float]:
    return {name: p.default for name, p in DECLARED.items()}


def _stored() -> dict:
    path = paths.CALIBRATED_PARAMETERS
    return json.loads(path.read_text()) if path.exists() else {}


def units(names=None) -> dict[str, str]:
    """Each parameter's unit (of ``names`` only, when given): what a JSON output's bare values of
    them are in."""
    return {n: p.unit for n, p in DECLARED.items() if names is None or n in names}


def calibrated() -> dict[str, float]:
    """The fitted values where a calibration exists, the declared defaults elsewhere."""
    values = defaults()
    for name, entry in _stored().get("parameters", {}).items():
        if name in values:
            values[name] = float(entry["value"])
    return values


def intervals() -> dict[str, tuple[float, float]]:
    """The 95% interval of each fitted parameter (the declared bounds where none was fitted)."""
    spans = {name: (p.low, p.high) for name, p in DECLARED.items()}
    for name, entry in _stored().get("parameters", {}).items():
        if name in spans:
            spans[name] = (float(entry["ci95_low"]), float(entry["ci95_high"]))
    return spans


def rows_depending() -> dict[str, int]:
    """How many measured rows the last calibration found moving each parameter (its stored
    ``rows_depending_on_it``); 0 where none was stored, as no fit informed it."""
    counts = dict.fromkeys(DECLARED, 0)
    for name, entry in _stored().get("parameters", {}).items():
        if name in counts:
            counts[name] = int(entry["rows_depending_on_it"])
    return counts


def covariance() -> tuple[list[str], list[list[float]]]:
    """The fitted parameters' covariance from the last calibration: their names and the matrix
    in natural units (empty where no fit stored one)."""
    stored = _stored().get("covariance", {})
    matrix = [list(map(float, r)) for r in stored.get("matrix", [])]
    return list(stored.get("parameters", [])), matrix


class Recording(dict):
    """Parameter values that note which of them a model reads (so that callers vary or cache only
    those)."""

    def __init__(self, values: dict[str, float]):
        super().__init__(values)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> float:
        self.read.add(key)
        return super().__getitem__(key)
