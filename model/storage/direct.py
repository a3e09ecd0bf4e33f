"""Direct I/O (``O_DIRECT``): one request in flight, no page cache, so a request's drives set the
pace.

A ``dd iflag=direct`` or ``oflag=direct`` stream issues ``request_KiB`` at a time and waits for it.
Nothing reads ahead or writes behind on the host, so only the member drives one request lands on
work at once: k = min(data drives, request / chunk) of a striped group, one drive of a mirror for a
read, every copy for a write. The stream runs at most at request / (request / k / drive rate),
plus, for a write that must reach the platters before the next one is sent (no write cache on the
way), the revolution the next request waits for its first sector, which has just passed under the
head. A sequential read pays no such turn: the drive's look-ahead has the next request's data.

Write caches as ``model.storage.writecache.write_cache_on`` says (ATA drives' own on, SCSI and SAS
drives' off under md, a hardware RAID volume's controller's ``write_back``).
A write smaller than a RAID5/6 stripe first reads what its parity needs (``partial_stripe_s``:
read-modify-write or reconstruct-write). The host CPU a direct stream costs is the buffered path's
less the copy to or from user space (one copy's worth fewer,
``model.storage.stream.io_s_per_byte``), and the writer pays its controller's driver path for every
byte itself.
Calibrated through the storage path's parameters (``001_4cf980d67b39ffac.txt``); no table measures
direct I/O, so this part is a what-if only.
"""

from __future__ import annotations

import math

from ..catalog import Disk, Ssd
from ..errors import NotModelled
from . import disk as disk_model
from . import flash
from .raid import LEVELS
from .spec import StorageBody
from .topology import StoragePath
from .writecache import write_cache_on


def request_s(body: StorageBody, vname: str, op: str, disk: Disk | Ssd, drive_Bps: float) -> float:
    """Seconds one request of the stream keeps the volume's drives busy."""
    volume = body.volumes[vname]
    if volume.engine == "zfs":
        raise NotModelled("sequential direct I/O on a ZFS pool (records, the ARC) is not modelled")
    if volume.groups != 1:
        raise NotModelled("direct I/O over LVM groups arrives with a later change")
    request_B = body.workload.request_KiB * 1024
    chunk_B = volume.chunk_KiB * 1024
    layout = LEVELS[volume.level]
    width = layout.data_members(volume.disks.count)
    touched = min(width, math.ceil(request_B / chunk_B))
    seconds = request_B / touched / drive_Bps
    if isinstance(disk, Ssd):  # no turn to wait: the larger of its latency and its transfer
        return flash.request_s(disk, op, request_B / touched, drive_Bps)
    if op == "write" and layout.parity_chunks and touched < width:
        return seconds + partial_stripe_s(
            volume.level, volume.engine, touched, width, disk, min(request_B, chunk_B) / drive_Bps
        )
    if op == "write" and not write_cache_on(body, vname, disk):
        seconds += disk_model.revolution_s(disk)
    return seconds


def partial_stripe_s(
    level: str, engine: str, touched: int, width: int, disk: Disk, chunk_s: float
) -> float:
    """What a write of ``touched`` of a stripe's ``width`` data chunks adds to its own transfer.

    Read-modify-write reads the old data and parity and writes them back where they were: one turn
    from the start of the read to the start of the write. Reconstruct-write reads the stripe's other
    data chunks first, on other drives. Linux md takes the one with fewer reads, but its RAID6 knows
    only reconstruct-write (before Linux 4.1); a controller takes the one with fewer reads.
    """
    rmw_reads, rcw_reads = touched + LEVELS[level].parity_chunks, width - touched
    if (engine == "md" and level == "raid6") or rcw_reads < rmw_reads:
        return chunk_s  # the other chunks' reads, in parallel, before the writes
    return max(disk_model.revolution_s(disk) - chunk_s, 0.0)  # the turn back to the same sectors


def request_limit_Bps(body: StorageBody, path: StoragePath) -> float:
    """The most a direct stream moves per second: a request at a time over source then target."""
    w = body.workload
    legs = [(w.source, "read"), (w.target, "write")] if w.op == "copy" else [(w.target, w.op)]
    total_s = 0.0
    for vname, op in legs:
        disk = path.disks[vname][0][1]
        drive_Bps = min(path.network.resources[name].capacity for name, _ in path.disks[vname])
        total_s += request_s(body, vname, op, disk, drive_Bps)
    return w.request_KiB * 1024 / total_s
