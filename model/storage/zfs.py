"""A ZFS pool: vdevs (mirrors or RAIDZ1/2/3) striped by the pool, records, checksums and the ARC.

The pool spreads a stream over its vdevs evenly (``Volume.layout``: a vdev is a group). A RAIDZ
vdev of N drives streams at its N - p data drives' rate, as RAID5/6 do (``raid.Level.drive_share``),
and a mirror vdev reads from any copy. ZFS reads and checksums a whole record (``record_KiB``): a
random read smaller than a record reads all of it, spread over the vdev's N - p data columns, so a
random read keeps N - p drives busy for one record and a RAIDZ vdev serves about one drive's
random reads (N / (N - p) of a drive's at most, the parity columns rotating with the offset); a
mirror vdev reads the record from one copy. Random writes (copy-on-write records gathered in
transaction groups) are not modelled.

A RAIDZ vdev allocates each record in whole sectors of 2^``ashift`` bytes (``raidz_sectors``): its
D data sectors, p parity sectors for each row of N - p data sectors, and the total rounded up to a
multiple of p + 1 so that no free gap too small for the smallest record is left (OpenZFS
module/zfs/vdev_raidz.c, ``vdev_raidz_asize``: ``asize = ((psize - 1) >> ashift) + 1; asize +=
nparity * ((asize + cols - nparity - 1) / (cols - nparity)); asize = roundup(asize, nparity + 1)
<< ashift``). So a vdev writes asize / record of what it stores, not N / (N - p): a 10-wide RAIDZ2
of 4 KiB sectors stores a 16 KiB record in 4 + 2 = 6 sectors (66.7 % of them data), 128 KiB in 32
+ 8 = 40, padded to 42 (76.2 %), 1 MiB in 256 + 64 = 320, padded to 321 (79.8 %), where N - p of N
is 80 %; a 4 KiB record, 1 + 2 = 3 sectors (33.3 %). The parity sectors are written with the data
and the padding is written too (``vdev_raidz_io_start`` issues optional writes of the skipped
sectors so that a drive's writes aggregate into one), so every allocated sector crosses a drive's
link and its surface (``vdev_shares``). A read on a healthy pool moves only the data sectors over
the links, while a platter turns past the parity and padding between them; a random read of a
record keeps min(D, N - p) drives busy, each with its column of the record's rows (at most
ceil(D / (N - p)) sectors). A record is taken as written whole at ``record_KiB`` (a file's last
record, and a file smaller than a record, are stored at their own size: not modelled), without
compression. A mirror vdev writes each record whole to every copy, with no parity or padding, and
reads it from one; it too allocates, writes and reads a record in whole sectors (OpenZFS
module/zfs/vdev.c, ``vdev_default_asize``, every vdev's but RAIDZ's: ``asize = P2ROUNDUP(psize, 1ULL
<< vdev_top->vdev_ashift)``), so a record smaller than a sector costs a whole one on each copy that
writes or reads it (``vdev_shares``, ``random_layout``; a 512 B record on 64 KiB sectors, 128
times its bytes), and a record of a sector or more, a power of two as a sector is, its own bytes.

The host's CPU checksums every byte read or written (fletcher4) and computes RAIDZ parity on every
byte written, on ZFS's own threads. Per-core rates from OpenZFS's boot-time benchmarks (kstats in
/proc/spl/kstat/zfs), AVX2 implementations: ``fletcher_4_bench`` native 4,950,749,767 B/s
(openzfs/zfs issue #5126, B. Behlendorf's sample output, 2016); ``vdev_raidz_bench`` gen_p
4,789,944,802, gen_pq 3,302,606,591 and gen_pqr 1,483,093,911 B/s (openzfs/zfs pull request #4860,
sample output, 2016). They are taken as one core's rates on any host (a host's own kstats would
replace them). The ARC keeps what was read, up to ``arc_GB`` (by default half the host's memory,
OpenZFS's ``zfs_arc_max`` default on Linux): a read test repeated (``workload.runs``) over data that
fits is served from memory after its first pass (``model.storage.rereads``).

A zvol (the pool's block device, ``filesystem: raw``) hands each request to a task queue of
``zvol_threads`` threads (``zvol_request`` dispatches it to ``zvol_taskq`` unless
``zvol_request_sync``, off by default, is set) and a thread reads or writes its record and waits
for it (``zvol_read``, ``dmu_read_uio_dnode``) before it takes the next: module/zfs/zvol.c of
OpenZFS 0.7 and 0.8, ``unsigned int zvol_threads = 32``; zfs(4): "the number of requests which
can be handled concurrently is controlled by zvol_threads". So however many requests the streams
queue, at most ``zvol_threads`` are at the drives (``in_flight``).
"""

from __future__ import annotations

import math

from ..errors import NotModelled, UserError
from ..parts import Host
from . import requests
from .raid import LEVELS
from .requests import RandomLayout
from .spec import StorageBody, StorageWorkload, Volume

FLETCHER4_Bps = 4_950_749_767.0  # fletcher_4_bench, avx2, native byte order
RAIDZ_GEN_Bps = {1: 4_789_944_802.0, 2: 3_302_606_591.0, 3: 1_483_093_911.0}  # gen_p, pq, pqr


def host_s_per_byte(volume: Volume, op: str) -> float:
    """Host CPU seconds the pool's checksums (and, for a write, RAIDZ parity) cost per byte."""
    seconds = 1.0 / FLETCHER4_Bps
    parity = LEVELS[volume.layout()[0]].parity_chunks
    if op == "write" and parity:
        seconds += 1.0 / RAIDZ_GEN_Bps[parity]
    return seconds


def checksummed_per_byte(volume: Volume, workload: StorageWorkload) -> float:
    """Bytes of records the pool checksums per byte a stream moves: a random read verifies each
    whole record it reads (``random_layout``: a 4 KiB read of a 1 MiB record checksums 256 times
    its bytes); anything else its own bytes, each record once."""
    w = workload
    if w.pattern != "random" or w.op != "read":
        return 1.0
    request_B = w.request_KiB * 1024
    return _records_read_B(volume, request_B) / request_B


def _records_read_B(volume: Volume, request_B: float) -> float:
    """The bytes a random read of ``request_B`` reads: its records' whole data sectors (a record
    smaller than a sector takes a whole one), one record at least."""
    record_B = _data_sectors(volume.record_KiB * 1024, volume.ashift) * 2**volume.ashift
    return max(1.0, request_B / (volume.record_KiB * 1024)) * record_B


def record_read_note(vname: str, volume: Volume, workload: StorageWorkload) -> str | None:
    """What to tell the user of random reads smaller than the pool's records: each reads, and
    checksums, its whole record (``checksummed_per_byte``); else None."""
    if volume.engine != "zfs" or vname != workload.target:
        return None
    times = checksummed_per_byte(volume, workload)
    if times <= 1.0:
        return None
    return (
        f"volume {vname}: each {workload.request_KiB:g} KiB random read reads and checksums its "
        f"whole {volume.record_KiB:g} KiB record, {times:,.0f} times its bytes (a record_KiB "
        "nearer the request size reads less)"
    )


def raidz_sectors(record_B: float, ashift: int, drives: int, parity: int) -> int:
    """Sectors of 2^``ashift`` bytes a RAIDZ vdev of ``drives`` drives and ``parity`` parity
    allocates for a record of ``record_B`` bytes: its data sectors, ``parity`` sectors for each row
    of ``drives - parity`` of them, and the total rounded up to a multiple of ``parity + 1``
    (OpenZFS module/zfs/vdev_raidz.c, ``vdev_raidz_asize``)."""
    data = _data_sectors(record_B, ashift)
    sectors = data + parity * -(-data // (drives - parity))
    return -(-sectors // (parity + 1)) * (parity + 1)


def _data_sectors(record_B: float, ashift: int) -> int:
    """A record's data sectors: ``((psize - 1) >> ashift) + 1``."""
    return ((math.ceil(record_B) - 1) >> ashift) + 1


def vdev_shares(volume: Volume, drives: int, op: str) -> tuple[float, float]:
    """Bytes on each drive's surface, and across its link, per byte of records a vdev of
    ``drives`` reads or writes (``op``). RAIDZ: a write every sector ``raidz_sectors`` allocates,
    spread over the drives; a read its data sectors over the link, the platter turning past them
    all. A mirror: the level's shares (a write on every copy, a read from one) of the record's
    whole sectors (``_data_sectors``)."""
    level = LEVELS[volume.layout()[0]]
    record_B = volume.record_KiB * 1024
    sector_B = 2**volume.ashift
    data_B = _data_sectors(record_B, volume.ashift) * sector_B
    if not level.parity_chunks:
        padded = data_B / record_B
        return level.drive_share(drives, op) * padded, level.transfer_share(drives, op) * padded
    allocated = raidz_sectors(record_B, volume.ashift, drives, level.parity_chunks) * sector_B
    surface = allocated / record_B / drives
    if op == "write":
        return surface, surface
    return surface, data_B / record_B / drives


def random_layout(volume: Volume, op: str, request_B: float, drives: int) -> RandomLayout:
    """A random read's commands on one vdev: the whole record's sectors, from one copy or from
    the data columns of a RAIDZ vdev's rows, min(D, N - p) drives for a record of D sectors; a
    request of several records reads each one's."""
    if op == "write":
        raise NotModelled(
            "ZFS random writes (copy-on-write records gathered in transaction groups) "
            "are not modelled"
        )
    parity = LEVELS[volume.layout()[0]].parity_chunks
    data = _data_sectors(volume.record_KiB * 1024, volume.ashift)
    # the record's data sectors, on a RAIDZ vdev each column's mean (the longest is at most a
    # sector more)
    record_B = data * 2**volume.ashift
    columns = min(data, drives - parity) if parity else 1
    read_B = _records_read_B(volume, request_B)
    # a RAIDZ record's columns are read at once, at the same place on each drive (their heads
    # together, one request at a time): the read ends with the latest turn
    return RandomLayout(
        read_B / request_B / drives,
        record_B / columns,
        1,
        at_once=(columns,),
        heads_together=columns > 1,
    )


def in_flight(volume: Volume, body: StorageBody) -> float:
    """Requests one of the body's streams keeps at ``volume``'s drives: those it queues
    (``requests.in_flight``; a LAN client's reader at random, its ``StorageBody.client_depth``,
    each served by a server thread of its own); on a zvol a share of its threads at most; and on
    a ZFS dataset one, whatever its queue depth: ZFS has no asynchronous path for a file's reads,
    so an asynchronous engine's submission waits for each (one fio job at io depth 64, libaio,
    direct, async off: 11.3k 16 KiB reads a second, each submission 88 us, openzfs/zfs issue
    #18660, 2026; 'There is no asynchronous hooks in ZFS currently and all those IO calls get
    sent down the synchronous paths', Brian Atkinson, openzfs/zfs pull request #10018)."""
    w = body.workload
    if body.client_depth > 1:
        queued = body.client_depth
    elif volume.engine == "zfs" and volume.filesystem.type == "zfs":
        return 1
    else:
        queued = requests.in_flight(w.io, w.op, w.queue_depth)
    if volume.engine != "zfs" or volume.filesystem.type != "raw":
        return queued
    return min(queued, volume.zvol_threads / w.streams)


def check_arc(body: StorageBody, host: Host, where: str) -> None:
    """Each pool's ``arc_GB`` is host memory ZFS keeps for reads: at most the host's memory."""
    for name, volume in body.volumes.items():
        if volume.arc_GB is not None and volume.arc_GB * 1e3 > host.memory_MB:
            raise UserError(
                where,
                f"volumes.{name}.arc_GB",
                f"must be at most the host's memory, {host.memory_MB / 1e3:,.1f} GB "
                f"({host.name}), got {volume.arc_GB:g}",
            )


def arc_B(volume: Volume, host: Host) -> float:
    return volume.arc_GB * 1e9 if volume.arc_GB is not None else host.memory_MB * 1e6 / 2


# Copies of every block a mirror vdev holds from which the path says so: two-way mirrors are
# ZFS's usual pool of mirrors, three-way ones its own "for more redundancy" (zpool-create(8)'s
# example pools), wider ones most often a pool meant as two-way written with a small vdevs.count
WIDE_MIRROR_COPIES = 4


def wide_mirror_note(vname: str, volume: Volume) -> str | None:
    """What to tell the user of a pool whose mirror vdevs each hold ``WIDE_MIRROR_COPIES`` or more
    copies of every block (``disks.count`` split over ``vdevs.count``), else None."""
    vdevs = volume.vdevs
    if volume.engine != "zfs" or vdevs is None or vdevs.type != "mirror":
        return None
    copies = volume.disks.count // vdevs.count
    if copies < WIDE_MIRROR_COPIES:
        return None
    return (
        f"volume {vname}: each of its {vdevs.count} mirror vdev(s) holds {copies} copies of every "
        f"block (disks.count {volume.disks.count} over vdevs.count {vdevs.count}), so it writes "
        f"what one drive of each writes; two-way mirrors of these drives are vdevs.count "
        f"{volume.disks.count // 2}"
    )
