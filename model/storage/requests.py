"""Requests at random offsets: each pays its drives' positioning, its RAID write penalty and the
host CPU a request costs.

A random request of ``request_KiB`` lands on one drive of a striped group (a piece of at most one
chunk) or on one copy of a mirror; a write smaller than a RAID5/6 stripe costs the drive commands of
read-modify-write or reconstruct-write, the one with fewer reads as md and RAID cards choose
(``small_write_commands``: 1 + 3 on four drives of md RAID6, 3 + 3 from six on, not a fixed penalty
of 6), spread over the group's drives, and waits for the reads before it writes. Requests fall
anywhere in the volume, or in its first ``workload.span_GB`` (``span_share``). A hard disk serves a
piece in a positioning time (``positioning_s``: seek, then the rotation to its first sector) plus
its transfer at the drive's mean media rate over the span (``model.storage.disk``); a flash drive in
the larger of its latency and its transfer, many at once (``model.storage.flash``).

A ZFS read may first read indirect blocks the ARC does not hold (``RandomLayout.lookups``,
``model.storage.zfs``): one after another before its own, each on the drives as a record.

A disk also spends its own time on each command (``disk.command_overhead_s``: the catalog's
``command_overhead_ms``, 0 where it gives none), read from a data sheet's queued random IOPS.

A disk's seek follows the curve of ``disk.seek_curve`` (square root of the distance for short
seeks, linear for long ones: Ruemmler and Wilkes, "An introduction to disk drive modeling", IEEE
Computer 27(3), 1994, whose HP 97560 seeks 3.24 + 0.400 sqrt(d) ms up to 383 cylinders and 8.00 +
0.008 d ms beyond), through the datasheet's track-to-track and full-stroke times and averaging its
average seek over the whole stroke; a span crosses only part of the stroke, so its seeks are
shorter (``mean_seek_ms``). A drive holding several commands (its ``queue_depth``: SATA NCQ's 32,
SCSI tagged queuing) serves first the one it reaches soonest, seek and rotation together
(shortest positioning time first: Worthington, Ganger and Patt, "Scheduling Algorithms for Modern
Disk Drives", SIGMETRICS 1994; Intel and Seagate, "Serial ATA Native Command Queuing", joint
whitepaper, July 2003, whose Rotational Position Ordering picks the queued command with the least
seek plus rotational latency). The commands at a drive are the streams' requests in flight times
the commands each keeps at it (Little's law, ``queued``), at most its queue depth; at depth 1 (a
catalog drive that gives none) a drive serves in arrival order, an average seek plus half a
revolution.

A drive that queues commands and has its write cache on (``writecache.write_cache_on``) takes a
write into its DRAM cache and acknowledges it there; it then destages the writes it holds in the
order it reaches them soonest, as it orders queued commands, but among every write its cache
holds rather than the host's queue depth (``cached_writes``: the catalog's ``cache_MB`` over a
command's piece). Once the cache is full the host waits on that destaging: the drive's rate is
``drive_Bps`` with that many commands, and a request's response is its transfer across the
interface (``acknowledged_s``), so a short queue no longer holds the writes back (Little's law).
The model gives that steady state; a run whose writes all fit in the cache finishes sooner, which
is not modelled. A drive with its cache off finishes each write on the platters and orders queued
writes as it orders reads.

So a drive carries pieces at piece / service time; one stream with d requests in flight carries at
most d requests per response time (Little's law), the response being the device's time for a
request alone plus the host CPU the request costs, which a synchronous stream pays in series. A
direct stream keeps ``queue_depth`` in flight, a buffered reader one, a buffered writer's flusher up
to the block layer's queue (``NR_REQUESTS``).

The host CPU of a request is the larger of its bytes' cost (the calibrated per-byte passes of
``model.storage.stream``) and ``io_cycles_per_request`` (a declared free parameter no table
informs), so a 1-byte write costs a whole system call and a 1 MiB one its bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ..errors import UserError
from ..parts import Disk, Host, Ssd
from . import disk as disk_model
from . import flash
from .raid import LEVELS
from .spec import Volume

# Requests the Linux block layer queues per device by default (``nr_requests``, BLKDEV_MAX_RQ = 128
# in include/linux/blkdev.h): what the flusher threads keep in flight for a buffered writer.
NR_REQUESTS = 128

# Grid of the numerical mean of a queue's shortest positioning time (``_shortest_positioning_ms``):
# head places over half the span (the other half mirrors it) and times from 0 to the longest
# positioning; finer grids move the mean by under 0.1 %.
HEAD_POINTS = 32
TIME_POINTS = 2048


@dataclass(frozen=True)
class RandomLayout:
    """Where one random request's bytes go on a group of ``drives``."""

    share: float  # bytes on each drive's surface per byte the stream moves
    piece_B: float  # bytes one drive moves per command
    phases: int  # drive operations one after another per request (2: read, then write)
    commands: int = 1  # drive commands per request (a small parity write's reads and writes)
    # a two-phase write reads and writes the same sectors (read-modify-write: a turn between), or
    # reads other drives' and writes these (reconstruct-write)
    rewrites_in_place: bool = True
    # the drives each phase's commands go to at once (a mirrored write's two copies, a parity
    # write's reads, then its data and parities): the phase ends when the slowest is done
    at_once: tuple[int, ...] = (1,)
    # whether those drives' heads lie together, one request at a time: a mirror's copies take the
    # same writes at the same places, and a parity write that touches every member of its group
    # leaves them all at its stripe row; then only their rotations differ
    heads_together: bool = False
    # reads a request makes one after another before its own, on average, each laid out as
    # ``lookup`` (a ZFS read's indirect blocks the ARC does not hold: ``zfs.random_layout``);
    # ``share`` and ``piece_B`` are the request's own reads
    lookups: float = 0.0
    lookup: RandomLayout | None = None

    def drive_share(self) -> float:
        """Bytes on each drive per byte the stream moves, its lookups' with the request's own."""
        if self.lookup is None:
            return self.share
        return self.share + self.lookups * self.lookup.share

    def mean_piece_B(self) -> float:
        """The bytes a drive moves per command, over the request's own commands and its
        lookups': a disk's time for a command is linear in its bytes (``service_s``), so commands
        of this piece take the drive as long as the mix does."""
        if self.lookup is None:
            return self.piece_B
        lookup_commands = self.lookups * self.lookup.share / self.lookup.piece_B
        return self.drive_share() / (self.share / self.piece_B + lookup_commands)


def layout(volume: Volume, op: str, request_B: float, drives: int) -> RandomLayout:
    """A random request's drive commands on one RAID group of ``drives`` (a ZFS vdev's are
    ``model.storage.zfs.random_layout``)."""
    level = LEVELS[volume.layout()[0]]
    chunk_B = volume.chunk_KiB * 1024
    # a piece a chunk at most; but a request past a whole stripe row puts its chunks of
    # consecutive rows side by side on each member, which the block layer merges (or the drive
    # streams one after another): one positioning a member and request / data members bytes, their
    # mean (a member's share of the drives' commands and bytes both right: one command each; the
    # busiest member's extra chunk, 27 of 80 on 3 members against the mean 26.7, is not waited for,
    # a chunk's transfer beside a positioning; the busiest's ceil(request / chunk / members) as the
    # piece with the mean's share undercounted the commands, 260 KiB on four 64 KiB chunks read 60 %
    # faster than 256, the second storage fuzz)
    members = level.data_members(drives)
    if not level.striped_reads:
        piece_B = request_B
    else:
        piece_B = max(min(request_B, chunk_B), request_B / members)
    # the data members a request's pieces land on at once
    # (md's RAID10 on an odd count: k chunks of a request lie on k drives, copies chosen apart)
    pieces = min(math.ceil(request_B / chunk_B), math.ceil(members)) if level.striped_reads else 1
    if op == "read":
        return RandomLayout(1.0 / drives, piece_B, 1, at_once=(pieces,))
    if level.parity_chunks and request_B < members * chunk_B:
        touched = math.ceil(request_B / chunk_B)
        reads, writes, in_place = small_write_commands(volume, drives, touched)
        # each command moves a piece: a request of several chunks is touched x piece_B
        share = (reads + writes) * piece_B / request_B / drives
        at_once = (reads, writes) if reads else (writes,)
        every = reads + writes >= drives
        return RandomLayout(
            share, piece_B, 2 if reads else 1, reads + writes, in_place, at_once, every
        )
    # every copy of each piece, and a whole stripe's parities
    written = min(pieces * level.copies_in(drives) + level.parity_chunks, drives)
    mirrored = level.copies_in(drives) > 1 and pieces == 1
    return RandomLayout(
        level.drive_share(drives, "write"), piece_B, 1, at_once=(written,), heads_together=mirrored
    )


def small_write_commands(volume: Volume, drives: int, touched: int) -> tuple[int, int, bool]:
    """A write to ``touched`` of a parity stripe's data chunks on a group of ``drives``: its drive
    reads, its drive writes (the chunks and the parities) and whether it reads what it rewrites.

    Read-modify-write reads the old data and parities; reconstruct-write reads the stripe's other
    data chunks. md takes the one with fewer reads, reconstruct-write on a tie (raid5.c,
    handle_stripe_dirtying), but its RAID6 only reconstruct-writes before Linux 4.1
    (``Volume.md_raid6_rmw``); a RAID card takes the one with fewer reads, read-modify-write on a
    tie (the write penalty its vendors document). So a one-chunk write to md RAID6 is 1 + 3
    commands on four drives, 2 + 3 on five, 3 + 3 from six on; to md RAID5 1 + 2 on three drives,
    2 + 2 from four on."""
    level = LEVELS[volume.layout()[0]]
    writes = touched + level.parity_chunks
    rmw, rcw = touched + level.parity_chunks, max(level.data_members(drives) - touched, 0)
    md = volume.engine == "md"
    only_rcw = md and level.name == "raid6" and not volume.md_raid6_rmw
    if only_rcw or rcw < rmw or (rcw == rmw and md):
        return rcw, writes, False
    return rmw, writes, True


def span_share(
    volume: Volume,
    vname: str,
    part: Disk | Ssd,
    span_GB: float | None,
    groups: list[float],
    where: str,
) -> float:
    """The share of each drive's capacity random requests fall in: the volume's first ``span_GB``
    over the capacity of the groups the stream uses (``groups``, each group's share of the stream),
    since striping and mirroring lay a volume's first x of capacity on the first x of each member;
    1 without a span. A span larger than the volume is the user's mistake."""
    if span_GB is None:
        return 1.0
    n_groups = volume.layout()[1]
    group_GB = volume.group_GB(part)
    if span_GB > n_groups * group_GB:
        raise UserError(
            where,
            "workload.span_GB",
            f"must be at most the {n_groups * group_GB:,.6g} GB of volume {vname}, "
            f"got {span_GB:,.6g}",
        )
    used = sum(1 for share in groups if share > 0.0)
    return min(span_GB / (used * group_GB), 1.0)


def stroke_share(part: Disk, span: float) -> float:
    """The share of the stroke the first ``span`` of a drive's capacity crosses, zone-aware: with
    capacity spread evenly over the recorded area (``model.storage.disk``), capacity x from the
    outer edge ends at radius R_o sqrt(1 - x (1 - rho^2)), rho = R_i / R_o, so it crosses
    (1 - sqrt(1 - x (1 - rho^2))) / (1 - rho) of the stroke; near the outer edge, where tracks hold
    the most, that is about x (1 + rho) / 2. Within the span, places are taken uniform over the
    stroke it crosses."""
    if span >= 1.0:
        return 1.0
    rho = disk_model.inner_outer_ratio(part)
    if 1.0 - rho < 1e-9:
        return span
    return (1.0 - math.sqrt(1.0 - span * (1.0 - rho * rho))) / (1.0 - rho)


def mean_seek_ms(part: Disk, op: str, stroke: float) -> float:
    """Mean seek (ms) between two random places within the first ``stroke`` of the stroke.

    Two uniform places of [0, s] lie d apart with density 2 (s - d) / s^2, so sqrt(d) averages
    (8/15) sqrt(s) and d averages s / 3, and ``disk.seek_curve``'s t1 + k sqrt(d) + m d averages
    t1 + (8/15) k sqrt(s) + m s / 3. Over the whole stroke that is the datasheet's average seek,
    which the curve is built to average; it is returned as such there.
    """
    if stroke >= 1.0:
        return disk_model.average_seek_ms(part, op)
    t1, k, m = disk_model.seek_curve(part, op)
    return t1 + 8.0 / 15.0 * k * math.sqrt(stroke) + m * stroke / 3.0


def positioning_s(part: Disk, op: str, span: float, queued: int) -> float:
    """Mean time (s) from one command's end to the first sector of the next one the drive serves:
    its seek, then the rotation to that sector.

    Alone (``queued`` 1), a command waits the mean seek within the span plus half a revolution.
    With ``queued`` commands the drive serves the one it reaches first: its wait is the least of
    ``queued`` positioning times (``_shortest_positioning_ms``). Were seeks nothing against a turn,
    that is the least of n uniform rotational waits, a revolution / (n + 1) (the first order
    statistic of n uniforms); with seeks, each target's wait is its seek plus a rotational wait
    uniform over a turn (its angle is uniform, whatever the seek took).
    """
    stroke = stroke_share(part, span)
    if queued <= 1:
        return mean_seek_ms(part, op, stroke) / 1e3 + 0.5 * disk_model.revolution_s(part)
    curve = disk_model.seek_curve(part, op)
    revolution_ms = disk_model.revolution_s(part) * 1e3
    return _shortest_positioning_ms(*curve, revolution_ms, stroke, queued) / 1e3


def slowest_positioning_s(
    part: Disk, op: str, span: float, drives: int, heads_together: bool = False
) -> float:
    """Mean time until the last of ``drives`` drives, each given one command alone at a random
    place of the first ``span``, reaches its first sector: a request whose pieces go to several
    drives at once (a mirrored write's copies, a parity write's reads) ends with the slowest of
    them (a fork-join). Where the drives' heads lie together (``heads_together``: a mirror's
    copies, a parity write over every member of its group, one request at a time) they seek alike
    and only their rotations differ: the latest of n uniform turns waits n / (n + 1) of a
    revolution, against half for one. Else each head lies anywhere in the span, independent of
    the others', and the mean is that of the largest of ``drives`` independent positionings
    (``_slowest_positioning_ms``), taken as one drive's mean (``positioning_s``) plus the order
    statistic's excess over it: two WD1200JB drives, 13.1 ms alone, take 14.5 ms with their heads
    together and 16 ms apart."""
    alone = positioning_s(part, op, span, 1)
    if drives <= 1:
        return alone
    if heads_together:
        return alone + disk_model.revolution_s(part) * (drives / (drives + 1) - 0.5)
    curve = disk_model.seek_curve(part, op)
    revolution_ms = disk_model.revolution_s(part) * 1e3
    stroke = stroke_share(part, span)
    slowest = _slowest_positioning_ms(*curve, revolution_ms, stroke, drives)
    one = _slowest_positioning_ms(*curve, revolution_ms, stroke, 1)
    return alone + (slowest - one) / 1e3


def _positioning_cdf(
    t1: float, k: float, m: float, revolution_ms: float, stroke: float
) -> tuple[object, object]:
    """The time grid (ms) and, for each of ``HEAD_POINTS`` head places over half the span, the
    probability that a command placed uniformly over the first ``stroke`` of the stroke and over
    the turn is reached (seek, then rotation) within each time.

    A target x of the span (in units of the span) is a seek of t1 + k sqrt(d) + m d away, d =
    |x - h| stroke, so the head at h reaches within time s the targets with |x - h| <= D(s), D the
    curve's inverse over the stroke: F_seek(s) = min(h + D, 1) - max(h - D, 0). Its rotational
    wait is uniform on [0, T) (T a revolution), so P(seek + wait <= t) = (1/T) times the integral
    of F_seek over [t - T, t]."""
    import numpy as np  # here, not at the top: a sequential stream never loads it

    farthest_ms = t1 + k * math.sqrt(stroke) + m * stroke  # the longest seek within the span
    t = np.linspace(0.0, farthest_ms + revolution_ms, TIME_POINTS)
    dt = t[1] - t[0]
    c = np.clip(t - t1, 0.0, farthest_ms - t1)  # past the farthest seek every target is in reach
    root_d = np.divide(2.0 * c, k + np.sqrt(k * k + 4.0 * m * c), out=np.zeros_like(c), where=c > 0)
    reach = np.minimum(root_d**2 / stroke, 1.0)
    head = (np.arange(HEAD_POINTS) + 0.5) / (2 * HEAD_POINTS)
    seek_cdf = np.minimum(head[:, None] + reach, 1.0) - np.maximum(head[:, None] - reach, 0.0)
    area = np.zeros_like(seek_cdf)
    area[:, 1:] = np.cumsum((seek_cdf[:, 1:] + seek_cdf[:, :-1]) * dt / 2.0, axis=1)
    back = (t - revolution_ms) / dt  # grid index of t - T
    low = np.clip(np.floor(back).astype(int), 0, TIME_POINTS - 2)
    frac = np.clip(back - low, 0.0, 1.0)
    behind = np.where(back >= 0.0, area[:, low] * (1.0 - frac) + area[:, low + 1] * frac, 0.0)
    return t, (area - behind) / revolution_ms


def _mean_ms(t: object, survive: object) -> float:
    """The mean of a time whose survival function over the grid ``t`` is ``survive`` (the last
    axis), averaged over any leading axis: the integral of the survival function."""
    import numpy as np

    dt = t[1] - t[0]
    return float(np.mean(np.sum((survive[..., 1:] + survive[..., :-1]) * dt / 2.0, axis=-1)))


@lru_cache(maxsize=256)
def _shortest_positioning_ms(
    t1: float, k: float, m: float, revolution_ms: float, stroke: float, queued: int
) -> float:
    """Mean of the least positioning time (ms) of ``queued`` commands placed uniformly over the
    first ``stroke`` of the stroke and over the turn, the head uniform over the same span
    (``_positioning_cdf``).

    The least of n independent ones exceeds t with probability (1 - P)^n for the one head, and its
    mean is the integral of that over t, averaged over h. Independence overstates the gain a
    little, since under SPTF the commands left waiting are the far ones: a simulation of a drive
    that keeps 32 such commands and serves the nearest (a check, not part of the model; the Exos
    X18's read curve) waited 3.84 ms over the whole stroke against this 3.50 ms, and 0.67 ms
    against 0.66 ms within its first 30 GB.
    """
    t, reached = _positioning_cdf(t1, k, m, revolution_ms, stroke)
    return _mean_ms(t, (1.0 - reached) ** queued)


@lru_cache(maxsize=256)
def _slowest_positioning_ms(
    t1: float, k: float, m: float, revolution_ms: float, stroke: float, drives: int
) -> float:
    """Mean of the largest positioning time (ms) of one command on each of ``drives`` drives,
    every drive's head and command placed independently (``_positioning_cdf``): each drive's
    probability of having reached its command by t is P averaged over its head, and the slowest
    has reached its by t with that probability to the power ``drives``."""
    t, reached = _positioning_cdf(t1, k, m, revolution_ms, stroke)
    return _mean_ms(t, 1.0 - reached.mean(axis=0) ** drives)


def queued(part: Disk | Ssd, lay: RandomLayout, request_B: float, requests: int) -> int:
    """Commands one drive holds: the ``requests`` in flight times the commands each keeps at the
    drive at once (its pieces there over its phases and the lookups before them, one after
    another), at most the drive's queue depth (Little's law, with a request's host CPU time,
    microseconds, left out against the drive's milliseconds)."""
    if isinstance(part, Ssd):
        return 1
    in_turn = lay.phases + lay.lookups
    at_once = requests * lay.drive_share() * request_B / lay.mean_piece_B() / in_turn
    return max(1, min(part.queue_depth, int(at_once + 1e-9)))


def cached_writes(part: Disk, piece_B: float) -> int:
    """Writes of ``piece_B`` a drive's write-back cache holds for destaging: its cache (the
    catalog's ``cache_MB``, 10^6 bytes a MB as every ``_MB`` key and the look-ahead read it) over
    the piece. The drive orders its destaging among these as it orders queued commands (shortest
    positioning time first)."""
    return max(1, int(part.cache_MB * 1e6 / piece_B))


def acknowledged_s(part: Disk, piece_B: float) -> float:
    """The time a write the drive's cache takes keeps its requester waiting: its piece across the
    drive's interface (the drive acknowledges it once it is in the cache)."""
    return piece_B / (part.interface_rate_MBps * 1e6)


def service_s(
    part: Disk | Ssd,
    op: str,
    piece_B: float,
    stream_Bps: float,
    span: float = 1.0,
    commands: int = 1,
) -> float:
    """One command of ``piece_B`` at a random place of the first ``span`` of its drive, among
    ``commands`` the drive holds (1: alone): its positioning, the drive's own time per command
    (``disk.command_overhead_s``) and its transfer."""
    if isinstance(part, Ssd):
        return flash.request_s(part, op, piece_B, stream_Bps)
    overhead_s = disk_model.command_overhead_s(part)
    return positioning_s(part, op, span, commands) + overhead_s + piece_B / stream_Bps


def drive_Bps(
    part: Disk | Ssd,
    op: str,
    piece_B: float,
    stream_Bps: float,
    span: float = 1.0,
    commands: int = 1,
) -> float:
    """A drive's rate (B/s) for random commands of ``piece_B`` with work always waiting, holding
    ``commands`` of them."""
    if isinstance(part, Ssd):
        return flash.random_Bps(part, op, piece_B, stream_Bps)
    return piece_B / service_s(part, op, piece_B, stream_Bps, span, commands)


def flash_write_Bps(part: Ssd, lay: RandomLayout, stream_Bps: float) -> float:
    """A flash drive's rate (B/s) for a random write's commands of ``lay.piece_B``: a parity
    write's reads (its first phase's) at a read's cost and its writes at a write's; it had taken
    every command at a write's, eight times a read's on a drive of 400,000 and 50,000 IOPS."""
    if lay.phases == 1:
        return flash.random_Bps(part, "write", lay.piece_B, stream_Bps)
    reads, writes = lay.at_once
    seconds = sum(
        n / flash.random_Bps(part, op, lay.piece_B, stream_Bps)
        for n, op in ((reads, "read"), (writes, "write"))
    )
    return (reads + writes) / seconds


def response_s(
    part: Disk | Ssd,
    op: str,
    lay: RandomLayout,
    stream_Bps: float,
    span: float = 1.0,
    links: tuple[float, float] | None = None,
) -> float:
    """The device time of one request alone in the first ``span`` of its drives: its lookups
    (``RandomLayout.lookups``), then its own commands (``_own_response_s``), one after another; a
    flash drive's pieces over its way to the host (``links``, ``flash.request_s``)."""
    own_s = _own_response_s(part, op, lay, stream_Bps, span, links)
    if lay.lookup is None:
        return own_s
    return own_s + lay.lookups * _own_response_s(part, op, lay.lookup, stream_Bps, span, links)


def _own_response_s(
    part: Disk | Ssd,
    op: str,
    lay: RandomLayout,
    stream_Bps: float,
    span: float,
    links: tuple[float, float] | None = None,
) -> float:
    """The device time of a request's own commands: its pieces in parallel, each phase ending
    with its slowest drive (``slowest_positioning_s``), its phases in turn (a disk writes back
    where it read one revolution after the read began)."""
    first, last = lay.at_once[0], lay.at_once[-1]
    first_op = op if lay.phases == 1 else "read"
    if isinstance(part, Ssd):  # no positioning: every piece alike
        once = flash.request_s(part, first_op, lay.piece_B, stream_Bps, links)
        if lay.phases == 1:
            return once
        return once + flash.request_s(part, "write", lay.piece_B, stream_Bps, links)
    transfer_s = disk_model.command_overhead_s(part) + lay.piece_B / stream_Bps
    together = lay.heads_together
    once = slowest_positioning_s(part, first_op, span, first, together) + transfer_s
    if lay.phases == 1:
        return once
    if not lay.rewrites_in_place:  # the writes go to other drives' sectors: a positioning each
        return once + slowest_positioning_s(part, "write", span, last, together) + transfer_s
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
