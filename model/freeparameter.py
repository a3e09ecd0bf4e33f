"""A free parameter: the only kind of number calibration may fit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FreeParameter:
    """A physical efficiency or overhead with bounds; shared by every scenario with the part it
    describes.

    ``levels``: the values a setting the model reads in whole steps can take (a read-ahead window
    in pages, which the kernel's windows double through). A derivative sees none of its steps, so
    calibration chooses it by profile over these values (``calibrate.profile``) instead of fitting
    it by least squares; empty for a parameter that varies smoothly.
    """

    name: str
    unit: str
    default: float
    low: float
    high: float
    meaning: str
    levels: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.levels and (
            list(self.levels) != sorted(set(self.levels))
            or not self.low <= self.levels[0]
            or not self.levels[-1] <= self.high
            or self.default not in self.levels
        ):
            raise ValueError(
                f"{self.name}: levels must ascend inside the bounds and hold the default"
            )
