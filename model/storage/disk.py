"""A hard disk's media rate across its zones, and its first-access latency.

Zoned recording keeps the linear bit density constant, so the user-data rate is proportional to the
track radius. With capacity spread over the platter area, the radius at capacity fraction x
(0 at the outer edge) is r(x) = R_o * sqrt(1 - x * (1 - rho^2)), rho = R_i / R_o, and the rate is
outer_rate * r(x) / R_o. A stream over a span of the disk runs at the harmonic mean of that rate.
Datasheet parameters come from ``data/hardware/disks.yaml``; ``disk_format_efficiency`` (calibrated
on the ATLAS single-drive and RAID0 tests of ``001_4cf980d67b39ffac.txt``) turns a raw internal rate
into user data where a datasheet gives no sustained rate.
"""
from __future__ import annotations

import math

from ..catalog import Disk

# Inner-to-outer data radius of a 3.5-inch drive when its datasheet gives no inner sustained rate:
# the recorded band of 2000s 3.5" platters runs from about 0.55 to 1.0 of the outer data radius
# (e.g. Seagate Cheetah and Barracuda manuals give ID rates 0.55-0.6 of OD rates).
DEFAULT_INNER_OUTER_RATIO = 0.55


def outer_rate_MBps(disk: Disk, format_efficiency: float) -> float:
    """Sustained user-data rate at the outer zone, MB/s."""
    if disk.media_rate_outer_MBps is not None:
        return disk.media_rate_outer_MBps
    return disk.internal_rate_max_Mbps / 8.0 * format_efficiency


def inner_outer_ratio(disk: Disk) -> float:
    if disk.media_rate_outer_MBps is not None:
        return disk.media_rate_inner_MBps / disk.media_rate_outer_MBps
    return DEFAULT_INNER_OUTER_RATIO


def mean_rate_MBps(disk: Disk, format_efficiency: float, start_fraction: float, span_fraction: float) -> float:
    """Harmonic-mean media rate (MB/s) of a sequential stream over [start, start + span] of capacity."""
    outer = outer_rate_MBps(disk, format_efficiency)
    k = 1.0 - inner_outer_ratio(disk) ** 2
    x0 = min(max(start_fraction, 0.0), 1.0)
    x1 = min(x0 + max(span_fraction, 0.0), 1.0)
    if x1 - x0 < 1e-12 or k < 1e-12:
        return outer * math.sqrt(1.0 - k * x0)
    # time per unit capacity: integral of dx / sqrt(1 - k x) = (2 / k) (sqrt(1 - k x0) - sqrt(1 - k x1))
    integral = 2.0 / k * (math.sqrt(1.0 - k * x0) - math.sqrt(1.0 - k * x1))
    return outer * (x1 - x0) / integral


def first_access_s(disk: Disk) -> float:
    """Mean time to the first byte: an average seek plus half a revolution."""
    return disk.avg_seek_read_ms / 1e3 + 0.5 * 60.0 / disk.rpm
