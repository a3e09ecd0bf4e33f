"""A write-back cache in front of drives: a drive's own, or a RAID controller's kept for a mirror.

A write is acknowledged once it has crossed the interface into the cache. Dirty extents gather
there; when they fill half the cache, the cache destages them in one sweep of the heads: merged
where contiguous, in ascending order, each run written to every drive that keeps a copy. Destaging
takes the drives' time like any command, so a read queued behind it waits. Used by the
memory-mapped test of ``000_a6a829ac4238989d.txt`` (the WD740GD's 8 MB cache, which ATA drives ship
enabled; the IOP332's cache with write-back on), whose compiled pass (``model.storage.mmap_loop``)
simulates it; the Python class it was first written as is ``tests/mmap_reference.py``.
"""

from __future__ import annotations

from ..catalog import Disk
from .spec import StorageBody


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
