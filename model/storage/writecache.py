"""A write-back cache in front of drives: a drive's own, or a RAID controller's kept for a mirror.

A write is acknowledged once it has crossed the interface into the cache. Dirty extents gather
there; when they fill half the cache, the cache destages them in one sweep of the heads: merged
where contiguous, in ascending order, each run written to every drive that keeps a copy. Destaging
takes the drives' time like any command, so a read queued behind it waits. Used by the
memory-mapped test of ``000_a6a829ac4238989d.txt`` (the WD740GD's 8 MB cache, which ATA drives ship
enabled; the IOP332's cache with write-back on), whose compiled pass (``model.storage.mmap_loop``)
simulates it; the Python class it was first written as is ``tests/mmap_reference.py``.

Destaging at half the cache is an assumption (estimated), not a figure from a source: no data
sheet, manual or report cited in this repository says when a drive's or a RAID controller's cache
starts to write back (drive and controller firmware do not publish it). Half is taken so that the
other half goes on taking writes while a destage runs. The cache sizes are the catalog's
``cache_MB`` (``data/hardware/disks.yaml``, ``controllers.yaml``, each with its source; the
IOP332's is itself an estimate). No measured table calibrates the threshold: it is not a fitted
parameter, and the memory-mapped test's rows (``data/measured/psu_mmap.csv``) only check what the
model as a whole predicts.

Without a write-back cache a drive acknowledges a write only once it is on the platters. A drive
that holds one command at a time (an ATA drive without command queuing) then finishes each
request just as the next one's first sector passes under the head, and waits a revolution for it:
a buffered stream's write-back, in requests of the driver's largest size, runs at
request / (request / media rate + revolution) a drive (``write_through_share``). SCSI and SAS
drives queue tagged commands, as does a SATA drive with NCQ (``queue_depth`` > 1): the next
command is already waiting, and they stream.

Such a drive with its own write cache on also takes random writes into it and destages them in the
order it reaches them soonest, among all the writes the cache holds (``destages_random_writes``;
``model.storage.requests.cached_writes``): its random writes outrun its queued random reads. A
drive that holds one command at a time is taken to destage in arrival order, as without the cache.
"""

from __future__ import annotations

from ..catalog import Catalog
from ..parts import Controller, Disk, Ssd
from .disk import revolution_s
from .spec import StorageBody, Volume

# The largest request the Linux 2.6 block layer builds for a driver that sets no limit of its own:
# MAX_SECTORS, 255 sectors (include/linux/blkdev.h of 2.6.9)
DEFAULT_MAX_REQUEST_KIB = 127.5


def write_cache_on(body: StorageBody, vname: str, disk: Disk) -> bool:
    """Whether writes to volume ``vname`` meet a write-back cache: a hardware RAID volume's is its
    controller's (``write_back``; the controller keeps its drives' own caches off); under Linux, the
    drives' own as the volume's ``drive_write_cache`` sets it, or as they ship: ATA and SATA drives
    on, SCSI and SAS drives taken with it off."""
    volume = body.volumes[vname]
    if volume.engine == "controller":
        return body.controllers[holding_name(body, vname)].write_back
    if volume.drive_write_cache != "as_shipped":
        return volume.drive_write_cache == "enabled"
    return disk.interface in ("ide", "sata")


def max_request_B(ctrl: Controller | None) -> float:
    """The largest request the block layer sends through ``ctrl``'s driver (a shelf's drive goes
    through the driver of the controller its uplink reaches; None: an NVMe drive on the PCIe lanes,
    whose driver's limit is not in the catalog), in bytes."""
    limit_KiB = ctrl.max_request_KiB if ctrl is not None else None
    return (limit_KiB or DEFAULT_MAX_REQUEST_KIB) * 1024


def queues_commands(disk: Disk) -> bool:
    """Whether the drive holds more than one command: SCSI and SAS drives' tagged queuing, or a
    catalog ``queue_depth`` above one (NCQ)."""
    return disk.interface in ("scsi", "sas") or disk.queue_depth > 1


def write_through_share(
    body: StorageBody, vname: str, disk: Disk | Ssd, drive_Bps: float, request_B: float
) -> float:
    """The share of its media rate a drive of volume ``vname`` writes a sequential stream at, in
    requests of ``request_B``: 1 unless its writes reach the platters before they are
    acknowledged, on a drive that waits a revolution between two requests."""
    if isinstance(disk, Ssd) or write_cache_on(body, vname, disk) or queues_commands(disk):
        return 1.0
    if body.volumes[vname].engine == "controller":
        return 1.0  # the controller's own queue to its drives: not modelled, taken as streaming
    return request_B / (request_B + revolution_s(disk) * drive_Bps)


def destages_random_writes(body: StorageBody, vname: str, disk: Disk | Ssd) -> bool:
    """Whether random writes to volume ``vname`` land in its drives' own write-back cache, which
    orders their destaging (``model.storage.requests.cached_writes``): hard disks under md that
    queue commands, with the cache on (``write_cache_on``: the volume's ``drive_write_cache``, or
    as the drives ship). A controller's volume has its drives' caches off (its own cache is not
    modelled for random requests); a ZFS pool's drives are not taken to cache."""
    if isinstance(disk, Ssd) or body.volumes[vname].engine != "md":
        return False
    return queues_commands(disk) and write_cache_on(body, vname, disk)


def _cards_at(body: StorageBody, point: str) -> list[str]:
    """The holders a drive's ``point`` hangs from: its own, or its shelf's uplinks' (in their
    order); a controller's name, or an NVMe segment's where the PCIe lanes hold it."""
    holder = point.partition(".")[0]
    links = body.shelves[holder].uplink if holder in body.shelves else (point,)
    return [link.partition(".")[0] for link in links]


def holding_name(body: StorageBody, vname: str) -> str | None:
    """The name of the controller that holds volume ``vname``'s first drive: the one it is
    attached to, or the one its shelf's first uplink lane is cabled to; None for an NVMe drive on
    the PCIe lanes."""
    holder = _cards_at(body, body.volumes[vname].disks.attach[0])[0]
    return holder if holder in body.controllers else None


def heads(body: StorageBody, volume: Volume) -> list[str]:
    """The controllers a volume's drives hang from, in their order, every group's (two cards may
    each head a group of one volume), through a shelf every card its uplink reaches."""
    names: list[str] = []
    for point in volume.disks.attach:
        names += [n for n in _cards_at(body, point) if n in body.controllers and n not in names]
    return names


def holding_controller(
    body: StorageBody, catalog: Catalog, vname: str, where: str
) -> tuple[str, Controller] | None:
    """The controller that holds volume ``vname``'s first drive (``holding_name``), by name and
    catalog part; None where the NVMe lanes hold it."""
    cname = holding_name(body, vname)
    if cname is None:
        return None
    part = body.controllers[cname].part
    return cname, catalog.get("controllers", part, where, f"controllers.{cname}.part")


def burst_note(
    body: StorageBody, catalog: Catalog, where: str, written_B: float
) -> tuple[str, ...]:
    """A note where a whole write fits in the write-back cache of its volume's RAID card: the
    model gives the drives' steady state, where a run timed to fdatasync would end once the data
    were in that cache (battery- or flash-backed), a burst it does not model."""
    w = body.workload
    if w.op not in ("write", "copy") or w.target not in body.volumes:
        return ()
    if body.volumes[w.target].engine != "controller":
        return ()
    cname, part = holding_controller(body, catalog, w.target, where)
    if (
        not body.controllers[cname].write_back
        or part.cache_MB is None
        or written_B > part.cache_MB * 1e6
    ):
        return ()
    return (
        f"the whole write, {written_B / 1e6:,.0f} MB, fits in {cname}'s {part.cache_MB:,.0f} MB "
        "write-back cache: a run timed to fdatasync ends once the data are there, sooner than "
        "the drives' steady state given here (a burst into the cache is not modelled)",
    )
