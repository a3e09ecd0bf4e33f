"""One drive serving requests one at a time, with its head position and its look-ahead cache.

A request waits its turn (commands in arrival order), then costs a seek from where the head is
(the seek curve of ``disk``), the rotation until its first sector comes under the head and the
transfer at the media rate of its zone. The platter turns from angle 0 at time 0; a byte's angle
is its place on its track (a track holds one revolution at the zone's media rate; ``tracks``), so
a drive reading a file backwards waits most of a turn for each request, as real ones do.

After a read the drive keeps reading ahead into its cache until the next command arrives, as
drives do for sequential readers; a later read that starts where a kept segment starts (the next
piece of that stream) is served from the cache at the interface rate, and a read that continues
the stream the head is still on needs no seek or rotation. A read that starts inside a segment, or
past the head's stream by a skipped chunk (a RAID6 member passing its parity, a mirror's copy taking
every other chunk), is not served from it: drives do serve it, but that reading moved the
Einstein@home table's leave-one-configuration-out median from 8.8 to 13.2 % (its in-sample fit
from 7.3 to 5.5 %), so the narrower one stays until a measurement separates them. The segments it
keeps are bounded by the drive's cache size and by ``MAX_SEGMENTS``.
A drive whose look-ahead is off (``look_ahead=False``: a RAID controller's "HDD Read Ahead Cache"
disabled) keeps nothing beyond what a command asked for, so the next piece of a stream waits for
its sector to come round.

The catalog's ``command_overhead_ms`` is not added: read from data sheets' queued random IOPS, it
holds the far commands shortest-positioning-first leaves waiting, which a spindle positioning
each command itself does not need; the analytic request model (``model.storage.requests``) adds
it.

A write goes to the platters (a seek, the rotation, the transfer) and ends the look-ahead; a
write cache in front of the drive is ``model.storage.writecache``.

A queuing drive holds the commands it has been sent and picks the one it can reach soonest (the
command queueing of SATA NCQ and SCSI tagged queuing; ``QueuedSpindle`` of
tests/download_reference.py, the reference the compiled loop of ``model.storage.drive_arrays``
is checked against); at a depth of one it serves them in arrival order, as ``Spindle`` does.

Datasheet figures come from the catalog; ``disk_format_efficiency`` is the storage path's
calibrated parameter (``001_4cf980d67b39ffac.txt``). Used by the download server of
``002_d084885fd2f4dc68.txt`` and the memory-mapped test of ``000_a6a829ac4238989d.txt``.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from math import sqrt
from typing import Literal, get_args

from ..parts import Disk
from . import disk as disk_model

# Segments a drive's cache is split into at most: ATA drives of 2004-2008 use adaptive segmentation
# of up to about 16 (an estimate: the datasheets of the catalog's drives do not give the count).
MAX_SEGMENTS = 16


# How a mirror (RAID1, or a RAID10 pair) picks the copy a read goes to, by its codes in the compiled
# loops: ``primary``, always the first copy; ``balanced``, the copy with fewer commands pending, the
# first of equals (RAID vendors' "read load balancing": an Areca manual's "read performance will be
# enhanced if the array controller can, in parallel, access both members of a mirrored pair");
# ``nearest``, Linux md's raid1 ``read_balance`` for rotating drives as Linux 2.6 has it
# (drivers/md/raid1.c; 2.6.9 of the Penn State servers' Red Hat Enterprise Linux 4 to 2.6.32 of
# the Einstein@home server's time): the copy the last read went to if "Don't change to another disk
# for sequential reads" holds (the read starts where that copy's last command ends), else, going
# round from it, the first idle copy, else the copy whose head is nearer than its (the search for a
# disk "whose head is closest"). Linux 3.0 to 4.9 look for the sequential or idle copy from the
# first copy instead, and 4.10 on take the nearest head whatever is pending. No controller manual
# we have says its firmware does any of them.
MirrorReads = Literal["primary", "balanced", "nearest"]
MIRROR_READS: tuple[str, ...] = get_args(MirrorReads)
PRIMARY, BALANCED, NEAREST = range(len(MIRROR_READS))


def pick_copy(
    copies: list[Spindle], now_s: float, offset_B: float, policy: str, last_used: int = 0
) -> int:
    """Which of a mirror's ``copies`` a read at ``offset_B`` goes to under ``policy``
    (``MIRROR_READS``); ``last_used``, the copy the mirror's last read went to (``nearest``)."""
    if policy == "primary":
        return 0
    if policy == "balanced":
        held = [drive.pending(now_s) for drive in copies]
        return held.index(min(held))
    best, nearest_B = last_used, abs(copies[last_used].head_B - offset_B)
    if nearest_B > 0.0:
        for i in range(1, len(copies)):
            e = (last_used + i) % len(copies)
            if copies[e].pending(now_s) == 0:
                return e
            distance_B = abs(copies[e].head_B - offset_B)
            if distance_B < nearest_B:
                best, nearest_B = e, distance_B
    return best


class Spindle:
    """A drive whose commands are served in arrival order; ``submit`` returns when one completes.

    Commands reach it in time order, so a command's start, and the head and cache it finds, are
    known when it arrives: the drive needs no simulation events of its own.
    """

    __slots__ = (
        "disk",
        "size_B",
        "cache_B",
        "interface_Bps",
        "revolution_s",
        "_seek",
        "_outer_Bps",
        "_k",
        "_per_turn_B",
        "head_B",
        "free_at_s",
        "streaming_from_B",
        "idle_since_s",
        "lead_B",
        "segments",
        "cached_B",
        "completions",
        "busy_s",
        "reads",
        "writes",
        "cache_hits",
    )

    def __init__(self, disk: Disk, format_efficiency: float, look_ahead: bool = True):
        self.disk = disk
        self.size_B = disk.capacity_GB * 1e9
        self.cache_B = disk.cache_MB * 1e6 if look_ahead else 0.0
        self.interface_Bps = disk.interface_rate_MBps * 1e6
        self.revolution_s = disk_model.revolution_s(disk)
        self._seek = tuple(c / 1e3 for c in disk_model.seek_curve(disk))  # seconds
        self._outer_Bps = disk_model.outer_rate_MBps(disk, format_efficiency) * 1e6
        self._k = 1.0 - disk_model.inner_outer_ratio(disk) ** 2
        self._per_turn_B = self._outer_Bps * self.revolution_s  # an outer track
        self.head_B = 0.0
        self.free_at_s = 0.0
        self.streaming_from_B: float | None = None  # where the look-ahead of the last read goes on
        self.idle_since_s = 0.0
        self.lead_B = 0.0  # bytes of the stream already in the cache when the look-ahead went idle
        self.segments: OrderedDict[float, float] = OrderedDict()  # start offset -> bytes read ahead
        self.cached_B = 0.0  # bytes the segments hold
        self.completions: deque[float] = deque()
        self.busy_s = 0.0
        self.reads = 0
        self.writes = 0
        self.cache_hits = 0

    def pending(self, now_s: float) -> int:
        """Commands queued or in service at ``now_s``."""
        while self.completions and self.completions[0] <= now_s:
            self.completions.popleft()
        return len(self.completions)

    def media_Bps(self, offset_B: float) -> float:
        x = offset_B / self.size_B
        return self._outer_Bps * sqrt(1.0 - self._k * (x if x < 1.0 else 1.0))

    def submit(self, now_s: float, offset_B: float, length_B: float) -> float:
        """Queue a read of ``length_B`` bytes at ``offset_B`` at ``now_s``; when it completes."""
        completions = self.completions
        while completions and completions[0] <= now_s:  # drop the ones that are past
            completions.popleft()
        start = now_s if now_s > self.free_at_s else self.free_at_s
        service = self._service_s(start, offset_B, length_B)
        self.busy_s += service
        self.reads += 1
        self.free_at_s = done = start + service
        completions.append(done)
        return done

    def write(self, now_s: float, runs: list[tuple[int, int]]) -> float:
        """Queue writes of the (offset, length) ``runs`` to the platters at ``now_s``, in that
        order; the time the last completes (``now_s`` when there are none).

        A write that continues the last one and was queued behind it goes on without a seek or a
        turn (the command was waiting at the drive); any other pays a seek and the rotation.
        """
        if not runs:
            return now_s
        completions = self.completions
        while completions and completions[0] <= now_s:
            completions.popleft()
        self._stop_streaming(max(now_s, self.free_at_s))
        self.lead_B = 0.0
        done = self.free_at_s
        head_B, busy_s, media_Bps, seek_s = self.head_B, self.busy_s, self.media_Bps, self.seek_s
        for offset_B, length_B in runs:
            start = now_s if now_s > done else done
            service = length_B / media_Bps(offset_B)
            if not (now_s < done and offset_B == head_B):  # not queued behind its predecessor
                self.head_B = head_B
                seek = seek_s(offset_B)
                service += seek + self.rotation_s(start + seek, offset_B)
            busy_s += service
            done = start + service
            completions.append(done)
            head_B = offset_B + length_B
        self.head_B, self.busy_s = head_B, busy_s
        self.writes += len(runs)
        self.free_at_s = done
        return done

    def _service_s(self, start_s: float, offset_B: float, length_B: float) -> float:
        """The read's service time from ``start_s``; a read the head moved for leaves it streaming
        on from the read's end (a cache hit leaves the head and the look-ahead where they were).

        The hot path of the request-level models: seek, rotation and zone rate are written out here
        rather than called (the same arithmetic as ``seek_s``, ``rotation_s`` and ``media_Bps``).
        """
        segments = self.segments
        cached = 0.0
        if segments:
            cached = segments.pop(offset_B, 0.0)
            self.cached_B -= cached
        if cached >= length_B:
            self.cache_hits += 1
            self._keep(offset_B + length_B, cached - length_B)
            return length_B / self.interface_Bps
        ahead = self.streaming_from_B
        interface_Bps = self.interface_Bps
        x = offset_B / self.size_B
        media_Bps = self._outer_Bps * sqrt(1.0 - self._k * (x if x < 1.0 else 1.0))
        if ahead is not None:  # a new command ends the look-ahead of the last read: keep its bytes
            self.streaming_from_B = None
            y = ahead / self.size_B
            gathered = self.lead_B + (start_s - self.idle_since_s) * (
                self._outer_Bps * sqrt(1.0 - self._k * (y if y < 1.0 else 1.0))
            )
            running = gathered < self.cache_B
            self._keep(ahead, gathered if running else self.cache_B)
            self.lead_B = 0.0
            if offset_B == ahead:  # the head is still on this stream: it reads on without a seek
                cached = segments.pop(offset_B, 0.0)
                self.cached_B -= cached
                if cached >= length_B:  # served from the look-ahead, which goes on past it
                    self.cache_hits += 1
                    self.lead_B = cached - length_B
                    self._moved(offset_B + length_B, start_s + length_B / interface_Bps)
                    return length_B / interface_Bps
                from_cache_s = cached / interface_Bps
                rest_s = (length_B - cached) / media_Bps
                if running:  # the look-ahead was still reading: the rest follows at once
                    service = from_cache_s + rest_s
                else:  # the look-ahead had filled the cache and stopped: the rest awaits its sector
                    service = (
                        from_cache_s
                        + self.rotation_s(start_s + from_cache_s, offset_B + cached)
                        + rest_s
                    )
                self._moved(offset_B + length_B, start_s + service)
                return service
        else:
            self.lead_B = 0.0
        to_B = offset_B + cached
        d = abs(to_B - self.head_B) / self.size_B
        if d == 0.0:
            seek_s = 0.0
        else:
            if d > 1.0:
                d = 1.0
            t1, k, m = self._seek
            seek_s = t1 + k * sqrt(d) + m * d
        on_track_s = start_s + cached / interface_Bps + seek_s
        service = (
            on_track_s
            - start_s
            + self.rotation_s(on_track_s, to_B)
            + (length_B - cached) / media_Bps
        )
        self._moved(offset_B + length_B, start_s + service)
        return service

    def _moved(self, head_B: float, done_s: float) -> None:
        """The head is at ``head_B`` when the read ends at ``done_s``, and streams on from there."""
        self.head_B = self.streaming_from_B = head_B
        self.idle_since_s = done_s

    def seek_s(self, offset_B: float) -> float:
        """The seek from where the head is to ``offset_B`` (``model.storage.disk.seek_ms``)."""
        d = abs(offset_B - self.head_B) / self.size_B
        if d == 0.0:
            return 0.0
        if d > 1.0:
            d = 1.0
        t1, k, m = self._seek
        return t1 + k * sqrt(d) + m * d

    def tracks(self, offset_B: float) -> float:
        """Revolutions of data from the outer edge to ``offset_B``: the integral of 1 / track size.

        A track holds one revolution at the zone's rate, outer * sqrt(1 - k x / size); its
        fractional part is the angle of the byte's sector.
        """
        if self._k < 1e-12:
            return offset_B / self._per_turn_B
        return (
            2.0
            * self.size_B
            / (self._k * self._per_turn_B)
            * (1.0 - sqrt(1.0 - self._k * offset_B / self.size_B))
        )

    def rotation_s(self, at_s: float, offset_B: float) -> float:
        """Time from ``at_s`` until the sector holding ``offset_B`` comes under the head."""
        k = self._k  # ``tracks`` written out: the hot path of the request-level models
        if k < 1e-12:
            tracks = offset_B / self._per_turn_B
        else:
            tracks = (
                2.0
                * self.size_B
                / (k * self._per_turn_B)
                * (1.0 - sqrt(1.0 - k * offset_B / self.size_B))
            )
        turns = tracks - at_s / self.revolution_s
        return (turns % 1.0) * self.revolution_s

    def _stop_streaming(self, now_s: float) -> tuple[float | None, bool]:
        """A new command ends the look-ahead of the last read: keep what it gathered.

        Returns where the look-ahead began, and whether it was still reading (it stops once it
        has filled the cache); (None, False) when there was none.
        """
        start = self.streaming_from_B
        if start is None:
            return None, False
        self.streaming_from_B = None
        gathered = self.lead_B + (now_s - self.idle_since_s) * self.media_Bps(start)
        running = gathered < self.cache_B
        self._keep(start, gathered if running else self.cache_B)
        return start, running

    def _keep(self, start_B: float, length_B: float) -> None:
        if length_B <= 0:
            return
        segments = self.segments
        self.cached_B += length_B - segments.get(start_B, 0.0)
        segments[start_B] = length_B
        while self.cached_B > self.cache_B or len(segments) > MAX_SEGMENTS:
            self.cached_B -= segments.popitem(last=False)[1]
