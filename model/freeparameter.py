"""A free parameter: the only kind of number calibration may fit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FreeParameter:
    """A physical efficiency or overhead with bounds; shared by every scenario with the part it
    describes."""

    name: str
    unit: str
    default: float
    low: float
    high: float
    meaning: str
