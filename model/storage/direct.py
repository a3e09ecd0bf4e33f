"""Direct I/O (``O_DIRECT``): requests in flight only as the program keeps them (one for ``dd``,
``queue_depth`` for an asynchronous program), no page cache, so a request's drives set the pace.

A ``dd iflag=direct`` or ``oflag=direct`` stream issues ``request_KiB`` at a time and waits for it.
Nothing reads ahead or writes behind on the host, so only the member drives one request lands on
work at once: k = min(data drives, request / chunk) of a striped group, one drive of a mirror for a
read, every copy for a write. Over LVM groups (``Volume.groups_reached``) a striped volume deals the
request out over min(stripes, request / chunk) groups, each taking its piece as above; a linear one
keeps it in one group. The stream runs at most at request / (request / k / drive rate),
plus, for a write that must reach the platters before the next one is sent (no write cache on the
way), the revolution the next request waits for its first sector, which has just passed under the
head, unless the drive already holds the next request (``queue_depth`` of 2 or more at a drive that
queues commands: it writes on). A sequential read pays no such turn: the drive's look-ahead has
the next request's data, and answers it from its cache; but each such request still waits for the
host to turn round and for the drive's own time on a cached command (``disk_cache_command_us``,
from IBM's drive specifications), so small requests move far less than the platters could
(``request_limit_Bps``). Requests in flight overlap on a hard disk's stream only over the drives
they reach together (``window_drives``), each drive working on one command at a time: four 1 MiB
requests in one 4 MiB chunk keep 1.75 drives busy on average, not four.

Write caches as ``model.storage.writecache.write_cache_on`` says (ATA drives' own on, SCSI and SAS
drives' off under md, a hardware RAID volume's controller's ``write_back``). A write smaller than
a RAID5/6 stripe first reads what its parity needs (read-modify-write or reconstruct-write), and
its drives then wait for its sectors to come round unless a write cache takes it
(``sectors_come_round_s``: a partial stripe is never faster than a full one). The host CPU a
direct stream costs has no page cache and no copy in it: pinning the buffer's pages, building and
mapping the request and its completion, as a published direct read measured them per byte
(``DIRECT_IO_CYCLES_PER_BYTE``), or the fixed cost of a request where that is more
(``io_cycles_per_request``, ``requests.core_s_per_byte``); the writer pays its controller's driver
path for every byte itself.
Calibrated through the storage path's parameters (``001_4cf980d67b39ffac.txt``); no report's table
measures direct I/O (the external rows of data/measured/external/arrays.csv do).
"""

from __future__ import annotations

import math

from ..errors import NotModelled
from ..parts import Disk, Host, Ssd
from . import disk as disk_model
from . import flash
from .raid import LEVELS
from .spec import StorageBody, Volume
from .topology import StoragePath
from .writecache import write_cache_on

# The core time one byte of a direct request costs: one fio job reading 1 MiB direct requests, 32
# in flight, from an NVMe volume (EBS io2) on an AMD EPYC 7R13 guest whose lscpu gives 'BogoMIPS:
# 5299.98', a 2.65 GHz clock: 'BW=4194MiB/s (4398MB/s)' with 'cpu : usr=0.52%, sys=8.80%'
# (CMASCenter/pcluster-cmaq, docs/user_guide_pcluster/cmaq-vm/cli-vm/
# aws_cli_launch_vm_c6a.48xlarge.md, fio 3.28, 28 June 2023). fio counts its own thread's time,
# not the completion interrupts', and its core may have run faster than the base clock: both make
# the figure a floor. It is taken for a write too (the same pinning and mapping, no published run
# on a named processor found).
DIRECT_RUN_CORES = (0.52 + 8.80) / 100
DIRECT_RUN_CLOCK_GHZ = 5299.98 / 2 / 1000
DIRECT_RUN_MBps = 4398.0
DIRECT_IO_CYCLES_PER_BYTE = DIRECT_RUN_CORES * DIRECT_RUN_CLOCK_GHZ * 1e3 / DIRECT_RUN_MBps


def core_s_per_byte(host: Host) -> float:
    """Core seconds a byte of a direct request costs on ``host`` (``DIRECT_IO_CYCLES_PER_BYTE``,
    about 0.056 cycles a byte, at the host's clock)."""
    return DIRECT_IO_CYCLES_PER_BYTE / (host.clock_GHz * 1e9)


def request_s(
    body: StorageBody,
    vname: str,
    op: str,
    disk: Disk | Ssd,
    drive_Bps: float,
    queued: bool = False,
    working: bool = False,
    links: tuple[float, float] | None = None,
) -> float:
    """Seconds one request of the stream keeps the volume's drives busy; ``queued``: each drive
    holds its next piece of the stream when one ends (``pieces_held`` of 2 or more, at a drive that
    queues commands), so a write that reads nothing first writes on without waiting a turn.
    ``working``: only the time the drives work on it, its transfer and the reads a partial
    stripe's parity needs, not the turn they then wait for its sectors (which another command a
    queuing drive holds can fill). A flash drive's piece crosses its way to the host (``links``:
    the slowest link and its own, ``StoragePath.flash_links``), ``flash.request_s``."""
    volume = body.volumes[vname]
    chunk_B = volume.chunk_KiB * 1024
    request_B, touched = group_request(volume, body.workload.request_KiB * 1024)
    layout = LEVELS[volume.level]
    width = layout.data_members(volume.disks.count // volume.groups)
    seconds = request_B / touched / drive_Bps
    if isinstance(disk, Ssd):  # no turn to wait: its latency and the rest of its transfer
        return flash.request_s(disk, op, request_B / touched, drive_Bps, links)
    if op != "write":
        return seconds
    # what a write reads first for the parity of a stripe it covers only in part: a request
    # smaller than a stripe, or the part past its whole stripes (a stream of such requests leaves
    # stripes part-written at their ends: taken as one, its reads in parallel on its drives)
    partial_B = request_B % (width * chunk_B) if layout.parity_chunks else 0.0
    reads_s = min(partial_B, chunk_B) / drive_Bps
    if working or write_cache_on(body, vname, disk):  # the drive takes the write into its cache
        return seconds + reads_s
    if queued and reads_s == 0.0:  # the next write's sectors follow this one's under the head
        return seconds
    return seconds + sectors_come_round_s(disk, reads_s)


def sectors_come_round_s(disk: Disk, reads_s: float) -> float:
    """The time from a write's request to the first of its sectors under the head, its drive
    writing to the platter: a full stripe, or a partial one's reconstruct-write (the stripe's other
    chunks read on other drives first), finds its sectors just passed, the last request having
    ended on them or the reads having let them go by, and waits for them to come round; a
    read-modify-write reads the old data and parity first and writes them back where they were,
    one turn from the start of the read. Either way whole turns of the platter: at least one, and
    as many as reads longer than a turn span (which read-modify-write or reconstruct-write a
    write takes does not change it: ``requests.small_write_commands``)."""
    turn_s = disk_model.revolution_s(disk)
    return turn_s * max(1, math.ceil(reads_s / turn_s - 1e-9))


def group_request(volume: Volume, request_B: float) -> tuple[float, float]:
    """A request's piece in each group it reaches, and the drives of a group that piece reaches
    at once: k = min(data drives, piece / chunk) of a striped group (a group is its own md array
    or LUN), one drive of a mirror for a read."""
    chunk_B = volume.chunk_KiB * 1024
    request_B /= volume.groups_reached(request_B)
    width = LEVELS[volume.level].data_members(volume.disks.count // volume.groups)
    return request_B, min(width, math.ceil(request_B / chunk_B))


def pieces_held(volume: Volume, request_B: float, queue_depth: int, disk: Disk) -> float:
    """The pieces of a stream's ``queue_depth`` requests in flight each drive they reach holds at
    once (each request's pieces over the drives the requests reach together, ``group_request``),
    at most what the drive queues (its part's ``queue_depth``: a drive of one command holds one).
    The drives are counted whole, not on average as ``window_drives`` counts them: two requests in
    one chunk are both on its drive but while the window crosses a boundary, which the average
    (1.25 drives) would read as every write losing its turn."""
    group_B, touched = group_request(volume, request_B)
    reach_B, reach = group_request(volume, request_B * queue_depth)
    groups = queue_depth * request_B / reach_B
    pieces = queue_depth * (request_B / group_B) * touched / (groups * reach)
    return min(pieces, disk.queue_depth)


def window_drives(volume: Volume, request_B: float, queue_depth: int) -> float:
    """The drives a stream's ``queue_depth`` requests in flight reach together, on average.

    The requests lie one after another: a window of their bytes, dealt over the groups it reaches
    (``Volume.groups_reached``), each group's share in pieces of a request's piece there. A share of
    ``W`` bytes in pieces of ``p`` each starting where the last ended covers the ``ceil(p / chunk)``
    chunks of its first piece and one more for each chunk boundary the rest crosses,
    ``(W - p) / chunk`` on average, at most the group's data drives (one copy of a mirror for a
    read, as ``group_request``). One request in flight reaches ``group_request``'s drives; four
    1 MiB requests in a 4 MiB chunk reach 1.75 drives, not four."""
    chunk_B = volume.chunk_KiB * 1024
    group_B, _ = group_request(volume, request_B)
    window_B = request_B * queue_depth
    groups = volume.groups_reached(window_B)
    width = LEVELS[volume.level].data_members(volume.disks.count // volume.groups)
    covered = math.ceil(group_B / chunk_B) + max(0.0, window_B / groups - group_B) / chunk_B
    return groups * min(width, covered)


def request_limit_Bps(
    body: StorageBody, path: StoragePath, core_s: float, cache_command_s: float
) -> float:
    """The most a direct stream moves per second with its ``queue_depth`` requests in flight.

    A request takes its drives' time over source then target, one after the other (``request_s``).
    Where a leg is flash, each request's ``core_s`` on the host (completing it, submitting the
    next) comes on top: a flash drive waits for the next request. A hard disk answers a sequential
    read from what its look-ahead read on meanwhile, and takes a write into its cache where one is
    on (``write_cache_on``), so its platters do not wait for the host; but the request does: the
    host's turn, the drive's own time on a command it answers from its cache (``cache_command_s``,
    the free parameter ``disk_cache_command_us``) and the piece across the drive's interface, in
    series, against the platters' time in parallel (a write with no cache waits for its sectors
    to come round, which spans the host's turn, unless its drives hold the next piece queued,
    ``pieces_held``: a drive that queues commands writes it on, 'above 1, the drive orders its
    writes and loses no turn between two', ``model.parts.Disk.queue_depth``). A hard disk spends
    its command time and its platters' time on one command at a time: requests in flight overlap
    them only over the drives they reach together (``window_drives``), however many are queued at
    one drive."""
    w = body.workload
    request_B = w.request_KiB * 1024
    legs = [(w.source, "read"), (w.target, "write")] if w.op == "copy" else [(w.target, w.op)]
    platters_s = in_series_s = 0.0
    host_waits = False
    platters_Bps = commands_Bps = math.inf
    for vname, op in legs:
        disk = path.disks[vname][0][1]
        volume = body.volumes[vname]
        if volume.engine == "zfs":
            raise NotModelled(
                f"direct I/O on ZFS pool {vname}: before OpenZFS 2.3 a file opened with O_DIRECT "
                "is read and written through the ARC, which io: buffered predicts; 2.3's Direct "
                "I/O past the ARC (zfs-2.3.0 release notes, #10018) is not modelled"
            )
        drive_Bps = min(path.network.resources[name].capacity for name, _ in path.disks[vname])
        queued = isinstance(disk, Disk) and pieces_held(volume, request_B, w.queue_depth, disk) >= 2
        seconds = request_s(
            body, vname, op, disk, drive_Bps, queued, links=path.flash_links.get(vname)
        )
        platters_s += seconds
        group_B, touched = group_request(volume, request_B)
        reached = window_drives(volume, request_B, w.queue_depth)
        if isinstance(disk, Disk):  # a disk works on one piece at a time: the requests in flight
            # overlap only over the drives they reach together; the drive-seconds a request takes,
            # less the turns a drive holding the next piece fills with it
            working_s = (
                request_s(body, vname, op, disk, drive_Bps, working=True) if queued else seconds
            )
            drive_s = request_B / group_B * touched * working_s
            platters_Bps = min(platters_Bps, reached * request_B / drive_s)
        if isinstance(disk, Ssd) or (
            op == "write" and not write_cache_on(body, vname, disk) and not queued
        ):  # flash waits for the host; a write with no cache and none queued behind it waits
            in_series_s += seconds  # for its sectors
            host_waits = host_waits or isinstance(disk, Ssd)
            continue
        piece_B = group_B / touched
        command_s = cache_command_s + piece_B / (disk.interface_rate_MBps * 1e6)
        in_series_s += command_s
        host_waits = True
        commands_Bps = min(commands_Bps, reached * piece_B / command_s)
    if host_waits:
        in_series_s += core_s
    return min(w.queue_depth * request_B / max(platters_s, in_series_s), platters_Bps, commands_Bps)
