"""A hard disk: its media rate across zones, its seek curve, rotation and request service time.

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

from ..parts import Disk

# Inner-to-outer data radius of a 3.5-inch drive when its datasheet gives no inner sustained rate:
# the recorded band of 2000s 3.5" platters runs from about 0.55 to 1.0 of the outer data radius
# (e.g. Seagate Cheetah and Barracuda manuals give ID rates 0.55-0.6 of OD rates).
DEFAULT_INNER_OUTER_RATIO = 0.55


def outer_rate_MBps(disk: Disk, format_efficiency: float) -> float:
    """Sustained user-data rate at the outer zone, MB/s."""
    if disk.media_rate_outer_MBps is not None:
        return disk.media_rate_outer_MBps
    return disk.internal_rate_max_Mbps / 8.0 * format_efficiency


def format_efficiency(disk: Disk, params) -> float:
    """The calibrated ``disk_format_efficiency`` for a drive without a datasheet sustained rate.

    A drive with one needs no parameter (1.0, which ``outer_rate_MBps`` then ignores), so a model
    of it reads none and its predictions carry no interval from it.
    """
    return params["disk_format_efficiency"] if disk.media_rate_outer_MBps is None else 1.0


def inner_outer_ratio(disk: Disk) -> float:
    if disk.media_rate_outer_MBps is not None:
        return disk.media_rate_inner_MBps / disk.media_rate_outer_MBps
    return DEFAULT_INNER_OUTER_RATIO


def mean_rate_MBps(
    disk: Disk, format_efficiency: float, start_fraction: float, span_fraction: float
) -> float:
    """Harmonic-mean media rate (MB/s) of a sequential stream over [start, start + span] of
    capacity."""
    outer = outer_rate_MBps(disk, format_efficiency)
    k = 1.0 - inner_outer_ratio(disk) ** 2
    x0 = min(max(start_fraction, 0.0), 1.0)
    x1 = min(x0 + max(span_fraction, 0.0), 1.0)
    if x1 - x0 < 1e-12 or k < 1e-12:
        return outer * math.sqrt(1.0 - k * x0)
    # time per unit capacity:
    # integral of dx / sqrt(1 - k x) = (2 / k) (sqrt(1 - k x0) - sqrt(1 - k x1))
    integral = 2.0 / k * (math.sqrt(1.0 - k * x0) - math.sqrt(1.0 - k * x1))
    return outer * (x1 - x0) / integral


def first_access_s(disk: Disk) -> float:
    """Mean time to the first byte: an average seek plus half a revolution."""
    return disk.avg_seek_read_ms / 1e3 + 0.5 * revolution_s(disk)


def seek_ms(disk: Disk, distance_fraction: float) -> float:
    """Seek time (ms) over a fraction of the full stroke: t1 + k sqrt(d) + m d for d > 0.

    The curve passes through the datasheet's track-to-track time near d = 0 and its full-stroke
    time at d = 1, and its mean over random seeks (distance density 2(1 - d), mean of sqrt(d)
    8/15, mean of d 1/3) equals the datasheet average. Where those three figures admit no rising
    square-root term, the curve is the straight line between the end points.
    """
    d = min(max(distance_fraction, 0.0), 1.0)
    if d == 0.0:
        return 0.0
    t1, k, m = seek_curve(disk)
    return t1 + k * d**0.5 + m * d


def average_seek_ms(disk: Disk, op: str = "read") -> float:
    """The datasheet's average seek (ms) for reads, or for writes where it gives one."""
    if op == "write" and disk.avg_seek_write_ms is not None:
        return disk.avg_seek_write_ms
    return disk.avg_seek_read_ms


def seek_curve(disk: Disk, op: str = "read") -> tuple[float, float, float]:
    """The coefficients (t1, k, m), in ms, of ``seek_ms``'s curve t1 + k sqrt(d) + m d; a write's
    curve runs through the same end points and averages the datasheet's write seek."""
    t1, avg, full = disk.track_to_track_ms, average_seek_ms(disk, op), disk.full_stroke_ms
    k = max(0.0, (avg - t1 - (full - t1) / 3.0) / (8.0 / 15.0 - 1.0 / 3.0))
    return t1, k, full - t1 - k


def revolution_s(disk: Disk) -> float:
    return 60.0 / disk.rpm


def command_overhead_s(disk: Disk) -> float:
    """The drive's own time per random command (s), beyond its seek, rotation and transfer: its
    catalog ``command_overhead_ms`` (0 where the catalog gives none). It stands for what a
    data sheet's queued random IOPS leave over the mechanics: command processing, settling, head
    switches, and the far commands shortest-positioning-time-first leaves waiting."""
    return disk.command_overhead_ms / 1e3


def service_s(
    disk: Disk,
    format_efficiency: float,
    request_B: float,
    distance_fraction: float,
    rotation_fraction: float,
    zone_fraction: float = 0.0,
) -> float:
    """One request's service time: seek, then the rotation to its first sector, the drive's own
    time per command (``command_overhead_s``), then the transfer.

    ``rotation_fraction`` is the part of a revolution the head waits (uniform on [0, 1) for a
    random request, so half a turn on average); ``zone_fraction`` places the data (0 outer edge).
    """
    rate_Bps = mean_rate_MBps(disk, format_efficiency, zone_fraction, 0.0) * 1e6
    return (
        seek_ms(disk, distance_fraction) / 1e3
        + rotation_fraction * revolution_s(disk)
        + command_overhead_s(disk)
        + request_B / rate_Bps
    )
