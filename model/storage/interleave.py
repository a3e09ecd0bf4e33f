"""Concurrent sequential readers on hard disks: each stream's reads reach a drive as pieces, and a
piece of one stream after another's costs the drive a positioning.

One stream reading a file in order keeps its drives streaming: the kernel's read-ahead asks for
the next window before the reader needs it, and what a drive reads next lies just after what it
read. Streams reading different files at once take turns at the drives (the Einstein@home download
server's clients, which the request-level ``model.servers.download`` simulates window by window
and its table measured: one worker's clients, 1 to 9, each a window's seek and rotation). Each
stream has its window in flight, so a drive holds a piece of each stream whose window touches it
and serves first the one it reaches soonest (``requests.positioning_s``, shortest positioning
first among the commands it holds, at most its queue depth), a seek within the part of the drive
the streams' files take and the rotation to the piece; then it transfers the piece.

What a stream asks for at once (``window_B``): a buffered reader its read-ahead window, the block
device's ``read_ahead_kb`` (``Kernel.read_ahead_KiB``, 128 KiB by default) or, on an md array of
a striped level, two stripes where that is more (Linux md sets the array's read-ahead to twice its
stripe of data chunks: ``ra_pages = 2 * stripe`` in drivers/md/raid0.c, raid5.c and raid10.c,
and since 5.9 ``blk_queue_io_opt``, which sets a disk's read-ahead to twice its optimal I/O size,
the stripe); a direct stream its requests in flight, which lie one after another. A window covers
chunks of consecutive stripes, so a drive's share of it is one piece in a row (``piece_B``). A ZFS
pool reads ahead by its own prefetcher, up to ``zfetch_max_distance`` a stream, spread over its
vdevs;
a RAIDZ vdev splits each record over its data columns, a mirror reads it from one copy; and it
issues those reads itself, at most ``zfs_vdev_async_read_max_active`` (3) at each drive. The
distance is the pool's ``zfetch_max_distance_MiB``: 8 MiB through OpenZFS 2.1
(zfs-module-parameters(5), 'Max bytes to prefetch per stream', default 8,388,608; the Lustre
wiki's 'ZFS Tunables for Lustre Object Storage Servers' gives the same), 64 MiB on 64-bit systems
from 2.2, where the prefetcher lets a stream's distance grow to it while its prefetches
come late (openzfs/zfs #13452: 'new 64MB maximum depth allows the same thread to reach 1.5GB/s on
wide HDD pool'), as they do while streams take turns.

On md, that is how a scheduler that serves what is queued without waiting works (``mq-deadline``,
Linux's default for a hard disk since 5.0, ``none``, ``kyber``; ``deadline`` and ``noop`` before).
``cfq`` and ``bfq`` instead keep a process's queue on the drive for a slice, idling a few
milliseconds for its next request (``slice_idle``), before they turn to the next one: then each
reading process streams for its slice and the drive pays one positioning a slice (``SLICE_S``).
They key their queues by process, so that holds where each stream is its own process (local
streams, an SMB client's smbd); the kernel NFS server's threads serve every client's calls, and an
HTTP server's workers many connections each, so their streams interleave window by window anyway;
ZFS issues its reads from its own threads, so no slice keeps one stream's on a drive.

Left out, the streams staying flows there: a RAID controller's volumes, whose controller reads
ahead on its own when it sees reads in order (Dell's PERC H310 user's manual: 'Adaptive Read
Ahead-Begins using Read-Ahead if the two most recent disk accesses occurred in sequential
sectors', 'The default read cache setting for virtual disks is Adaptive Read Ahead',
https://manualarchiveguide.com/manuals/Dell-H310-User-Manual-4998031?page=18; the MD Storage
Manager of Dell's MD3000 and MD3200 arrays, the microscope store's kind: 'dynamic cache read
prefetch', which copies 'additional data blocks into the cache'), by amounts their manuals do not
give, so what reaches its drives is not the kernel's windows; a drive's own look-ahead, which
some firmware keeps per stream (it would raise these rates toward one stream's; nothing the
catalog cites gives it); and writes (the flusher writes each file back in large runs and drives
and controllers gather writes in their caches; the microscope ingest's writers, 1 to 16 at once,
fit the table as flows).
"""

from __future__ import annotations

from ..parts import Disk
from ..settings import Kernel
from . import requests, zfs
from .raid import LEVELS
from .spec import StorageWorkload, Volume

# How long an idling scheduler keeps one process's queue on a drive: cfq's synchronous slice,
# cfq_slice_sync = HZ / 10 (block/cfq-iosched.c), and bfq's budget timeout, bfq_timeout = HZ / 8
# (block/bfq-iosched.c)
SLICE_S = {"cfq": 0.100, "bfq": 0.125}
# the prefetch reads ZFS keeps at a drive (zfs_vdev_async_read_max_active), OpenZFS's default
ZFS_ASYNC_READS = 3


def window_B(volume: Volume, kernel: Kernel, workload: StorageWorkload, drives: int) -> float:
    """What one stream has in flight on a group of ``drives``: a direct stream's requests, dealt
    out over the groups an LVM volume stripes over; a buffered one's read-ahead window (on an md
    array of a striped level at least two stripes; on a ZFS pool its prefetch, a vdev's share, of
    the bytes the pool stores its records in: ``zfs.stored_share``)."""
    if workload.io == "direct":
        return _group_share(volume, _in_flight_B(workload))
    if volume.engine == "zfs":  # the prefetcher's distance, spread over the pool's vdevs
        distance_B = volume.zfetch_max_distance_MiB * 2**20 * zfs.stored_share(volume)
        return distance_B / volume.layout()[1]
    read_ahead_B = kernel.read_ahead_KiB * 1024
    level = LEVELS[volume.layout()[0]]
    if volume.engine != "md" or not level.striped_reads or level.name == "single":
        return read_ahead_B
    stripe_B = level.data_members(drives) * volume.chunk_KiB * 1024
    return max(read_ahead_B, 2 * stripe_B)


def _in_flight_B(workload: StorageWorkload) -> float:
    """A direct stream's requests in flight, bytes: one window of consecutive requests."""
    return workload.request_KiB * 1024 * workload.queue_depth


def _group_share(volume: Volume, window: float) -> float:
    """The bytes of a window of consecutive requests on a group it reaches: all of it where the
    volume is one group or LVM concatenates them (a stream's file on one), where LVM stripes
    (lvcreate -i) its ``chunk_KiB`` stripes dealt over the groups the window reaches at once
    (``Volume.groups_reached``)."""
    return window / volume.groups_reached(window)


def _reach(volume: Volume, workload: StorageWorkload) -> float:
    """The share of the groups LVM stripes over that a direct stream's window reaches at once:
    a stream is at a group's drives that share of the time (1 for any other volume, and for a
    buffered reader, whose window is each group's own)."""
    if workload.io != "direct" or volume.lvm != "striped":
        return 1.0
    return volume.groups_reached(_in_flight_B(workload)) / volume.stripe_groups


def piece_B(volume: Volume, window: float, drives: int) -> float:
    """The bytes of one stream's window on one drive it touches, in a row: a window of whole
    stripes puts its share on every data member, a smaller one chunks on some, a mirror's or a
    single drive's all of it on one."""
    level = LEVELS[volume.layout()[0]]
    if volume.engine == "zfs" and level.parity_chunks:  # records split over the data columns
        return window / level.data_members(drives)
    if not level.striped_reads:
        return window
    chunk_B = volume.chunk_KiB * 1024
    return min(window, max(chunk_B, window / level.data_members(drives)))


def drive_Bps(
    part: Disk,
    volume: Volume,
    kernel: Kernel,
    workload: StorageWorkload,
    drives: int,
    media_Bps: float,
    span: float,
    own_processes: bool,
) -> float:
    """A drive's rate when ``workload.streams`` (two or more) streams read their own files from its
    group of ``drives`` at once, the files taking the first ``span`` of it. A mirror's streams
    share its copies out (md's read_balance and ZFS's vdev_mirror keep a sequential read on one
    copy): a copy with one stream streams, one with several takes turns, and the drive's rate is
    the mean over the copies (``_shared_Bps`` for each). Another group's drives take a piece of
    each stream whose window touches them."""
    level = LEVELS[volume.layout()[0]]
    copies = level.copies_in(drives)
    window = window_B(volume, kernel, workload, drives)
    piece = piece_B(volume, window, drives)
    # the streams at this group's drives: each as much of the time as its window reaches it
    streams = workload.streams * _reach(volume, workload)
    if copies == 1:
        # pieces of one window on a drive: the window's pieces over the group, each its share
        at_drive = streams * window / piece * level.drive_share(drives, "read")
        # (streams whose small windows rarely meet at a drive still take turns at it)
        return _shared_Bps(part, volume, media_Bps, span, piece, at_drive, own_processes)
    fewer, more = divmod(max(1, round(streams)), copies)  # `more` copies hold one stream more
    total = 0.0
    for streams, count in ((fewer, copies - more), (fewer + 1, more)):
        if count and streams == 1:  # a copy of its own: it streams
            total += count * media_Bps
        elif count and streams:
            total += count * _shared_Bps(
                part, volume, media_Bps, span, piece, streams, own_processes
            )
    return total / copies


def note(
    vname: str,
    volume: Volume,
    kernel: Kernel,
    workload: StorageWorkload,
    drives: int,
    own_processes: bool,
) -> str:
    """How the streams take turns at ``vname``'s drives, in the user's words."""
    head = f"{workload.streams:,} streams reading at once take turns at volume {vname}'s drives"
    if own_processes and volume.io_scheduler in SLICE_S and volume.engine == "md":
        slice_ms = SLICE_S[volume.io_scheduler] * 1e3
        return f"{head}: a {slice_ms:g} ms {volume.io_scheduler} slice each, a positioning a slice"
    window = window_B(volume, kernel, workload, drives)
    piece = f"{piece_B(volume, window, drives) / 1024:,.0f} KiB"
    if workload.io != "direct" and volume.engine == "zfs":
        distance = volume.zfetch_max_distance_MiB
        return (
            f"{head}: a stream's {distance:g} MiB prefetch (zfetch_max_distance_MiB) puts "
            f"{window / 1024:,.0f} KiB on a vdev, {piece} on a drive, a positioning each"
        )
    if workload.io != "direct":
        what = f"{window / 1024:,.0f} KiB read-ahead window"
    elif volume.lvm == "striped":
        flight_B = _in_flight_B(workload)
        reached = volume.groups_reached(flight_B)
        what = (
            f"{flight_B / 1024:,.0f} KiB requests in flight, {window / 1024:,.0f} KiB on each of "
            f"the {reached} of {volume.stripe_groups} groups LVM stripes over it reaches at once,"
        )
    else:
        what = f"{window / 1024:,.0f} KiB requests in flight"
    return f"{head}: a stream's {what} reaches a drive as {piece}, a positioning each"


def _shared_Bps(
    part: Disk,
    volume: Volume,
    media_Bps: float,
    span: float,
    piece: float,
    streams: float,
    own_processes: bool,
) -> float:
    """A drive's rate with pieces of several streams reaching it (``streams`` of them at once, on
    average): under an idling scheduler with each its own process (``own_processes``), a slice at
    ``media_Bps`` and a positioning a slice; else pieces of ``piece``, each a positioning among
    the pieces it holds (at most its queue depth) and a transfer."""
    if own_processes and volume.io_scheduler in SLICE_S and volume.engine == "md":
        slice_s = SLICE_S[volume.io_scheduler]
        switch_s = requests.service_s(part, "read", 0.0, media_Bps, span)  # no transfer
        return media_Bps * slice_s / (slice_s + switch_s)
    depth = min(part.queue_depth, ZFS_ASYNC_READS) if volume.engine == "zfs" else part.queue_depth
    held = max(1, min(depth, int(streams + 1e-9)))
    return requests.drive_Bps(part, "read", piece, media_Bps, span, held)
