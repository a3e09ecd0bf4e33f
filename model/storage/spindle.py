"""One drive serving read requests one at a time, with its head position and its look-ahead cache.

A request waits its turn (commands in arrival order), then costs a seek from where the head is
(the seek curve of ``disk``), the rotation to its first sector (uniform over a revolution) and the
transfer at the media rate of its zone. After a read the drive keeps reading ahead into its cache
until the next command arrives, as drives do for sequential readers; a later read of those bytes is
served from the cache at the interface rate, and a read that continues the stream the head is still
on needs no seek or rotation. The segments it keeps are bounded by the drive's cache size.

Datasheet figures come from the catalog; ``disk_format_efficiency`` is the storage path's
calibrated parameter (``001_4cf980d67b39ffac.txt``). Used by the download server of
``002_d084885fd2f4dc68.txt``.
"""
from __future__ import annotations

import random
from collections import OrderedDict, deque

from ..catalog import Disk
from . import disk as disk_model


class Spindle:
    """A drive whose commands are served in arrival order; ``submit`` returns when one completes.

    Commands reach it in time order, so a command's start, and the head and cache it finds, are
    known when it arrives: the drive needs no simulation events of its own.
    """

    def __init__(self, disk: Disk, format_efficiency: float, rng: random.Random):
        self.disk = disk
        self.rng = rng
        self.size_B = disk.capacity_GB * 1e9
        self.cache_B = disk.cache_MB * 1e6
        self.interface_Bps = disk.interface_rate_MBps * 1e6
        self.revolution_s = disk_model.revolution_s(disk)
        self._outer_Bps = disk_model.outer_rate_MBps(disk, format_efficiency) * 1e6
        self._k = 1.0 - disk_model.inner_outer_ratio(disk) ** 2
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
        self.cache_hits = 0

    def pending(self, now_s: float) -> int:
        """Commands queued or in service at ``now_s``."""
        while self.completions and self.completions[0] <= now_s:
            self.completions.popleft()
        return len(self.completions)

    def media_Bps(self, offset_B: float) -> float:
        return self._outer_Bps * (1.0 - self._k * min(offset_B / self.size_B, 1.0)) ** 0.5

    def submit(self, now_s: float, offset_B: float, length_B: float) -> float:
        """Queue a read of ``length_B`` bytes at ``offset_B`` at ``now_s``; the time it completes."""
        start = max(now_s, self.free_at_s)
        service, head_moved = self._service_s(start, offset_B, length_B)
        self.busy_s += service
        self.reads += 1
        self.free_at_s = start + service
        self.completions.append(self.free_at_s)
        if head_moved:
            self.head_B = offset_B + length_B
            self.streaming_from_B = self.head_B
            self.idle_since_s = self.free_at_s
        return self.free_at_s

    def _service_s(self, start_s: float, offset_B: float, length_B: float) -> tuple[float, bool]:
        """The request's service time, and whether the head moved for it (False: a cache hit)."""
        cached = self._take(offset_B)
        if cached >= length_B:
            self.cache_hits += 1
            self._keep(offset_B + length_B, cached - length_B)
            return length_B / self.interface_Bps, False
        ahead = self._stop_streaming(start_s)
        self.lead_B = 0.0
        if offset_B == ahead:  # the head is still on this stream: it reads on without a seek
            cached = self._take(offset_B)
            if cached >= length_B:  # served from the look-ahead, which goes on past it
                self.cache_hits += 1
                self.lead_B = cached - length_B
                return length_B / self.interface_Bps, True
            return cached / self.interface_Bps + (length_B - cached) / self.media_Bps(offset_B), True
        seek_s = disk_model.seek_ms(self.disk, abs(offset_B + cached - self.head_B) / self.size_B) / 1e3
        rotation_s = self.rng.random() * self.revolution_s
        return cached / self.interface_Bps + seek_s + rotation_s + (length_B - cached) / self.media_Bps(offset_B), True

    def _stop_streaming(self, now_s: float) -> float | None:
        """A new command ends the look-ahead of the last read: keep what it gathered."""
        start = self.streaming_from_B
        if start is None:
            return None
        self.streaming_from_B = None
        gathered = min(self.lead_B + (now_s - self.idle_since_s) * self.media_Bps(start), self.cache_B)
        self._keep(start, gathered)
        return start

    def _take(self, start_B: float) -> float:
        taken = self.segments.pop(start_B, 0.0)
        self.cached_B -= taken
        return taken

    def _keep(self, start_B: float, length_B: float) -> None:
        if length_B <= 0:
            return
        self.cached_B += length_B - self.segments.get(start_B, 0.0)
        self.segments[start_B] = length_B
        while self.cached_B > self.cache_B:
            self.cached_B -= self.segments.popitem(last=False)[1]
