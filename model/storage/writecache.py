"""A write-back cache in front of drives: a drive's own, or a RAID controller's kept for a mirror.

A write is acknowledged once it has crossed the interface into the cache. Dirty extents gather
there; when they fill half the cache, the cache destages them in one sweep of the heads: merged
where contiguous, in ascending order, each run written to every drive that keeps a copy. Destaging
takes the drives' time like any command, so a read queued behind it waits. Used by the
memory-mapped test of ``000_a6a829ac4238989d.txt`` (the WD740GD's 8 MB cache, which ATA drives ship
enabled; the IOP332's cache with write-back on).
"""

from __future__ import annotations

from ..catalog import Disk
from .spec import StorageBody
from .spindle import Spindle


def write_cache_on(body: StorageBody, vname: str, disk: Disk) -> bool:
    """Whether writes to volume ``vname`` meet a write-back cache: a hardware RAID volume's is its
    controller's (``write_back``; the controller keeps its drives' own caches off); under Linux, the
    drives' own as the volume's ``drive_write_cache`` sets it, or as they ship: ATA and SATA drives
    on, SCSI and SAS drives taken with it off."""
    volume = body.volumes[vname]
    if volume.engine == "controller":
        return body.controllers[volume.disks.attach[0].partition(".")[0]].write_back
    if volume.drive_write_cache != "as_shipped":
        return volume.drive_write_cache == "enabled"
    return disk.interface in ("ide", "sata")


def merged_runs(extents: dict[int, int], max_B: float = float("inf")) -> list[tuple[int, int]]:
    """(offset, length) runs of the extents, ascending, contiguous ones joined up to ``max_B``
    each."""
    runs: list[list[int]] = []
    for offset, length in sorted(extents.items()):
        if runs and runs[-1][0] + runs[-1][1] == offset and runs[-1][1] + length <= max_B:
            runs[-1][1] += length
        else:
            runs.append([offset, length])
    return [(offset, length) for offset, length in runs]


class WriteBackCache:
    """``size_B`` of write cache in front of ``drives`` (one drive, or the two copies of a
    mirror)."""

    def __init__(self, drives: list[Spindle], size_B: float, interface_Bps: float):
        self.drives = drives
        self.size_B = size_B
        self.interface_Bps = interface_Bps
        self.extents: dict[int, int] = {}  # offset -> bytes held dirty
        self.held_B = 0
        self.destages = 0

    def write(self, now_s: float, offset_B: int, length_B: int) -> float:
        """Take a write into the cache; the time it is acknowledged."""
        self.held_B += length_B - self.extents.get(offset_B, 0)
        self.extents[offset_B] = max(self.extents.get(offset_B, 0), length_B)
        if self.held_B >= self.size_B / 2:
            self.destage(now_s)
        return now_s + length_B / self.interface_Bps

    def destage(self, now_s: float) -> float:
        """Write everything held to the drives, ascending; the time the last write completes."""
        runs = merged_runs(self.extents)
        done = max(drive.write(now_s, runs) for drive in self.drives)  # each at least now_s
        self.destages += bool(self.extents)
        self.extents.clear()
        self.held_B = 0
        return done
