"""Requests at random offsets: each pays its drives' positioning, its RAID write penalty and the
host CPU a request costs.

A random request of ``request_KiB`` lands on one drive of a striped group (a piece of at most one
chunk) or on one copy of a mirror; a write smaller than a RAID5/6 stripe costs the level's write
penalty in drive commands (``raid.Level.write_penalty``: read data and parity, write both back),
spread over the group's drives, and waits for the reads before it writes. A hard disk serves a
piece in an average seek (the datasheet's, for reads or writes) plus half a revolution plus its
transfer at the drive's mean media rate (``model.storage.disk``), one at a time (command queueing's
reordering is not credited); a flash drive in the larger of its latency and its transfer, many at
once (``model.storage.flash``). So a drive carries pieces at piece / service time; one stream with
d requests in flight carries at most d requests per response time (Little's law), the response
being the device's time plus the host CPU the request costs, which a synchronous stream pays in
series. A direct stream keeps ``queue_depth`` in flight, a buffered reader one, a buffered writer's
flusher up to the block layer's queue (``NR_REQUESTS``).

The host CPU of a request is the larger of its bytes' cost (the calibrated per-byte passes of
``model.storage.stream``) and ``io_cycles_per_request`` (a declared free parameter no table
informs), so a 1-byte write costs a whole system call and a 1 MiB one its bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import Disk, Host, Ssd
from . import disk as disk_model
from . import flash
from .raid import LEVELS
from .spec import Volume

# Requests the Linux block layer queues per device by default (``nr_requests``, BLKDEV_MAX_RQ = 128
# in include/linux/blkdev.h): what the flusher threads keep in flight for a buffered writer.
NR_REQUESTS = 128


@dataclass(frozen=True)
class RandomLayout:
    """Where one random request's bytes go on a group of ``drives``."""

    share: float  # bytes on each drive's surface per byte the stream moves
    piece_B: float  # bytes one drive moves per command
    phases: int  # drive operations one after another per request (2: read, then write)


def layout(volume: Volume, op: str, request_B: float, drives: int) -> RandomLayout:
    """A random request's drive commands on one RAID group of ``drives`` (a ZFS vdev's are
    ``model.storage.zfs.random_layout``)."""
    level = LEVELS[volume.layout()[0]]
    chunk_B = volume.chunk_KiB * 1024
    piece_B = min(request_B, chunk_B) if level.striped_reads else request_B
    if op == "read":
        return RandomLayout(1.0 / drives, piece_B, 1)
    if level.parity_chunks and request_B < level.data_members(drives) * chunk_B:
        return RandomLayout(level.write_penalty / drives, piece_B, 2)
    return RandomLayout(level.drive_share(drives, "write"), piece_B, 1)


def service_s(part: Disk | Ssd, op: str, piece_B: float, stream_Bps: float) -> float:
    """One command of ``piece_B`` at a random place, alone on its drive."""
    if isinstance(part, Ssd):
        return flash.request_s(part, op, piece_B, stream_Bps)
    seek_ms = part.avg_seek_read_ms
    if op == "write" and part.avg_seek_write_ms is not None:
        seek_ms = part.avg_seek_write_ms
    return seek_ms / 1e3 + 0.5 * disk_model.revolution_s(part) + piece_B / stream_Bps


def drive_Bps(part: Disk | Ssd, op: str, piece_B: float, stream_Bps: float) -> float:
    """A drive's rate (B/s) for random commands of ``piece_B`` with work always waiting."""
    if isinstance(part, Ssd):
        return flash.random_Bps(part, op, piece_B, stream_Bps)
    return piece_B / service_s(part, op, piece_B, stream_Bps)


def response_s(part: Disk | Ssd, op: str, lay: RandomLayout, stream_Bps: float) -> float:
    """The device time of one request alone: its pieces in parallel, its phases in turn (a disk
    writes back where it read one revolution after the read began)."""
    once = service_s(part, op if lay.phases == 1 else "read", lay.piece_B, stream_Bps)
    if lay.phases == 1:
        return once
    if isinstance(part, Ssd):
        return once + flash.request_s(part, "write", lay.piece_B, stream_Bps)
    return once + max(disk_model.revolution_s(part) - lay.piece_B / stream_Bps, 0.0)


def in_flight(io: str, op: str, queue_depth: int) -> int:
    """Requests one stream keeps in flight: a direct stream its queue depth, a buffered reader one,
    a buffered writer's flusher the block layer's queue."""
    if io == "direct":
        return queue_depth
    return NR_REQUESTS if op == "write" else 1


def core_s_per_byte(params: dict[str, float], host: Host, request_B: float, byte_s: float) -> float:
    """Core seconds per byte of requests of ``request_B``: the larger of the bytes' own cost and a
    request's fixed cost spread over its bytes."""
    return max(byte_s, params["io_cycles_per_request"] / (host.clock_GHz * 1e9) / request_B)
