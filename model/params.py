"""The few free parameters calibration may fit, each with bounds and a physical meaning.

Everything else comes from datasheets in the catalog. A parameter is shared by every scenario whose
hardware has the part it describes; ``python -m model calibrate`` fits them all at once and writes
``data/calibrated/parameters.json`` with a 95% interval for each.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from . import paths


@dataclass(frozen=True)
class FreeParameter:
    name: str
    unit: str
    default: float
    low: float
    high: float
    meaning: str


DECLARED: dict[str, FreeParameter] = {p.name: p for p in (
    FreeParameter("disk_format_efficiency", "1", 0.65, 0.40, 0.95,
                  "share of a drive's raw internal media rate (datasheet 'buffer to disk' Mbit/s) that "
                  "reaches the host as user data, after sector headers, ECC, servo fields and zoning"),
    FreeParameter("bus_efficiency", "1", 0.90, 0.50, 1.00,
                  "share of a parallel bus's or IDE channel's peak rate that DMA bursts sustain after "
                  "arbitration, command and turnaround cycles"),
    FreeParameter("io_cycles_per_byte", "cycle/B", 8.0, 1.0, 40.0,
                  "CPU cycles one core spends per byte a process streams through the kernel's "
                  "buffered I/O path (page cache, copy to or from user space, block layer, interrupts)"),
)}


def defaults() -> dict[str, float]:
    return {name: p.default for name, p in DECLARED.items()}


def _stored() -> dict:
    path = paths.CALIBRATED_PARAMETERS
    return json.loads(path.read_text()) if path.exists() else {}


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
