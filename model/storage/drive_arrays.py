"""Disk drives as arrays, compiled with numba: ``model.storage.spindle.Spindle``'s state and
arithmetic (its datasheet figures and the calibrated ``disk_format_efficiency``: no figure or
parameter of its own) for the compiled loops, the download server's
(``model.servers.download_loop``, its volume's reads in ``model.servers.download_volume``) and the
memory-mapped test's pass (``model.storage.mmap_loop``).

A drive is a row of ``drive_f`` (floats) and ``drive_i`` (integers), its look-ahead cache's segments
(starts, lengths, ages: at most ``MAX_SEGMENTS`` of them, oldest dropped first) and a ring of its
completions; its constants are ``drive_constants``'s. A read's time (``service_s``) is
``Spindle._service_s`` operation for operation: the cache, then seek, rotation and transfer, the
head streaming on past the read's end; a queueing drive (the controller keeps several commands at
it) takes the nearest first, by ``reach_s`` (``QueuedSpindle`` of tests/download_reference.py).
``tests/test_download_loop.py`` checks a drive against ``Spindle`` command by command,
``tests/test_mmap_loop.py`` the memory-mapped pass against the Python classes to the last bit.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import compiled
from .spindle import NEAREST, PRIMARY

# Arrays are not reference-counted (``_nrt=False``): the loops allocate nothing, every array they
# use is their caller's and outlives the call; counting them was a third of the download loop's
# time.
jit = functools.partial(compiled.jit, _nrt=False)

# The per-drive state: float columns of ``drive_f``, integer columns of ``drive_i``
HEAD, FREE_AT, STREAM, IDLE_SINCE, LEAD, CACHED, BUSY = range(7)
READS, HITS, SEGMENTS, STAMP, DONE_FROM, DONE_COUNT, QUEUED, SERVING, LAST_USED = range(9)
# (``LAST_USED``, kept at a mirror's first drive: the copy, counted from it, its last read went to)
# The drives' constants (``drive_constants``)
SIZE, CACHE, INTERFACE, REVOLUTION, T1, K_SEEK, M_SEEK, OUTER, K_ZONE, PER_TURN = range(10)


def drive_constants(spindle) -> np.ndarray:
    """A ``Spindle``'s constants as the loop reads them."""
    t1, k, m = spindle._seek
    return np.array(
        [
            spindle.size_B,
            spindle.cache_B,
            spindle.interface_Bps,
            spindle.revolution_s,
            t1,
            k,
            m,
            spindle._outer_Bps,
            spindle._k,
            spindle._per_turn_B,
        ]
    )


def drive_state(drives: int, max_segments: int, max_pending: int, queueing: bool):
    """Fresh state of ``drives`` idle drives (``D``: floats, integers, segment starts, lengths and
    ages; then completion times and queued commands): ``max_segments`` segments a cache (and a slot
    for one more before the oldest goes), ``max_pending`` commands at a drive; ``queueing`` drives
    pick the nearest of their commands."""
    drive_f = np.zeros((drives, 7))
    drive_f[:, STREAM] = np.nan  # no look-ahead running
    drive_i = np.zeros((drives, 9), np.int64)
    drive_i[:, SERVING] = 0 if queueing else -1
    return (
        drive_f,
        drive_i,
        np.zeros((drives, max_segments + 1)),
        np.zeros((drives, max_segments + 1)),
        np.zeros((drives, max_segments + 1), np.int64),
        np.zeros((drives, max_pending)),
        np.zeros((drives, max_pending, 3)),  # (offset, length, read slot)
    )


# A drive's arguments in a compiled signature: constants, floats, integers, segment starts,
# lengths and ages
D = "f8[::1], f8[:, ::1], i8[:, ::1], f8[:, ::1], f8[:, ::1], i8[:, ::1]"


@jit("f8(f8[::1], f8, f8)")
def rotation_s(c, at_s, offset_B):
    """``Spindle.rotation_s``: from ``at_s`` until the sector of ``offset_B`` is under the head."""
    k = c[K_ZONE]
    if k < 1e-12:
        tracks = offset_B / c[PER_TURN]
    else:
        tracks = 2.0 * c[SIZE] / (k * c[PER_TURN]) * (1.0 - math.sqrt(1.0 - k * offset_B / c[SIZE]))
    turns = tracks - at_s / c[REVOLUTION]
    return (turns % 1.0) * c[REVOLUTION]


@jit("f8(f8[::1], f8[:, ::1], i8, f8)")
def seek_s(c, drive_f, d, offset_B):
    """``Spindle.seek_s``: the seek from where drive ``d``'s head is to ``offset_B``."""
    distance = abs(offset_B - drive_f[d, HEAD]) / c[SIZE]
    if distance == 0.0:
        return 0.0
    distance = min(distance, 1.0)
    return c[T1] + c[K_SEEK] * math.sqrt(distance) + c[M_SEEK] * distance


@jit(f"f8({D}, i8, f8, f8)")
def _positioning_s(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, now_s, offset_B):
    """The seek from the head to ``offset_B`` and, after it, the rotation."""
    seek = seek_s(c, drive_f, d, offset_B)
    return seek + rotation_s(c, now_s + seek, offset_B)


@jit(f"f8({D}, i8, f8, b1)")
def cached_B(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, start_B, take):
    """The bytes the cache holds from ``start_B`` (0 when none), taken out of it if ``take``."""
    for j in range(drive_i[d, SEGMENTS]):
        if seg_s[d, j] == start_B:
            cached = seg_l[d, j]
            if take:
                last = drive_i[d, SEGMENTS] - 1
                seg_s[d, j], seg_l[d, j], seg_t[d, j] = (
                    seg_s[d, last],
                    seg_l[d, last],
                    seg_t[d, last],
                )
                drive_i[d, SEGMENTS] = last
                drive_f[d, CACHED] -= cached
            return cached
    return 0.0


@jit(f"void({D}, i8, f8, f8)")
def keep(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, start_B, length_B):
    """``Spindle._keep``: a segment from ``start_B`` (one already there keeps its age), then the
    oldest dropped while the cache is over its size or its segment count."""
    if length_B <= 0:
        return
    n = drive_i[d, SEGMENTS]
    j = 0
    while j < n and seg_s[d, j] != start_B:
        j += 1
    if j < n:
        drive_f[d, CACHED] += length_B - seg_l[d, j]
        seg_l[d, j] = length_B
    else:
        drive_f[d, CACHED] += length_B
        seg_s[d, n], seg_l[d, n], seg_t[d, n] = start_B, length_B, drive_i[d, STAMP]
        drive_i[d, STAMP] += 1
        n += 1
    while n and (drive_f[d, CACHED] > c[CACHE] or n >= seg_s.shape[1]):
        oldest = 0
        for k in range(1, n):
            if seg_t[d, k] < seg_t[d, oldest]:
                oldest = k
        drive_f[d, CACHED] -= seg_l[d, oldest]
        n -= 1
        seg_s[d, oldest], seg_l[d, oldest], seg_t[d, oldest] = seg_s[d, n], seg_l[d, n], seg_t[d, n]
    drive_i[d, SEGMENTS] = n


@jit("f8(f8[::1], f8)")
def _media_Bps(c, offset_B):
    """The media rate under ``offset_B`` (zoned: faster outside)."""
    return c[OUTER] * math.sqrt(1.0 - c[K_ZONE] * min(offset_B / c[SIZE], 1.0))


@jit(f"f8({D}, i8, f8, f8, f8)")
def service_s(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, start_s, offset_B, length_B):
    """``Spindle._service_s``, operation for operation: the read's service time from
    ``start_s``; a read the head moved for leaves it streaming on from the read's end."""
    cached = cached_B(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, offset_B, True)
    interface_Bps = c[INTERFACE]
    if cached >= length_B:
        drive_i[d, HITS] += 1
        keep(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, offset_B + length_B, cached - length_B)
        return length_B / interface_Bps
    ahead = drive_f[d, STREAM]
    x = min(offset_B / c[SIZE], 1.0)
    media_Bps = c[OUTER] * math.sqrt(1.0 - c[K_ZONE] * x)
    if not math.isnan(ahead):  # a new command ends the look-ahead of the last read
        drive_f[d, STREAM] = np.nan
        y = min(ahead / c[SIZE], 1.0)
        gathered = drive_f[d, LEAD] + (start_s - drive_f[d, IDLE_SINCE]) * (
            c[OUTER] * math.sqrt(1.0 - c[K_ZONE] * y)
        )
        running = gathered < c[CACHE]
        keep(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, ahead, gathered if running else c[CACHE])
        drive_f[d, LEAD] = 0.0
        if offset_B == ahead:  # the head is still on this stream: it reads on without a seek
            cached = cached_B(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, offset_B, True)
            if cached >= length_B:  # served from the look-ahead, which goes on past it
                drive_i[d, HITS] += 1
                drive_f[d, LEAD] = cached - length_B
                service = length_B / interface_Bps
            else:
                from_cache_s = cached / interface_Bps
                rest_s = (length_B - cached) / media_Bps
                if running:  # the look-ahead was still reading: the rest follows at once
                    service = from_cache_s + rest_s
                else:  # the look-ahead had stopped: the rest awaits its sector
                    service = (
                        from_cache_s
                        + rotation_s(c, start_s + from_cache_s, offset_B + cached)
                        + rest_s
                    )
            drive_f[d, HEAD] = drive_f[d, STREAM] = offset_B + length_B
            drive_f[d, IDLE_SINCE] = start_s + service
            return service
    else:
        drive_f[d, LEAD] = 0.0
    to_B = offset_B + cached
    seek = seek_s(c, drive_f, d, to_B)
    on_track_s = start_s + cached / interface_Bps + seek
    service = (
        on_track_s - start_s + rotation_s(c, on_track_s, to_B) + (length_B - cached) / media_Bps
    )
    drive_f[d, HEAD] = drive_f[d, STREAM] = offset_B + length_B
    drive_f[d, IDLE_SINCE] = start_s + service
    return service


@jit("void(i8[:, ::1], f8[:, ::1], i8, f8)")
def _forget_done(drive_i, done_at, d, now_s):
    """Drop drive ``d``'s completions that are past at ``now_s`` from its ring."""
    ring = done_at.shape[1]
    while drive_i[d, DONE_COUNT] and done_at[d, drive_i[d, DONE_FROM]] <= now_s:
        drive_i[d, DONE_FROM] = (drive_i[d, DONE_FROM] + 1) % ring
        drive_i[d, DONE_COUNT] -= 1


@jit("f8(f8[:, ::1], i8[:, ::1], f8[:, ::1], i8, f8, f8)")
def _occupy(drive_f, drive_i, done_at, d, start_s, taken_s):
    """Drive ``d`` busy from ``start_s`` for ``taken_s``: its busy time, when it is free, its
    ring of completions; returns the completion."""
    drive_f[d, BUSY] += taken_s
    done = start_s + taken_s
    drive_f[d, FREE_AT] = done
    done_at[d, (drive_i[d, DONE_FROM] + drive_i[d, DONE_COUNT]) % done_at.shape[1]] = done
    drive_i[d, DONE_COUNT] += 1
    return done


@jit("i8(i8[:, ::1], f8[:, ::1], i8, f8)")
def pending(drive_i, done_at, d, now_s):
    """Commands queued or in service at ``now_s`` (``Spindle.pending``, ``QueuedSpindle``'s); the
    completions that are past are forgotten."""
    if drive_i[d, SERVING] >= 0:  # a queueing drive
        return drive_i[d, QUEUED] + drive_i[d, SERVING]
    _forget_done(drive_i, done_at, d, now_s)
    return drive_i[d, DONE_COUNT]


@jit(f"f8({D}, f8[:, ::1], i8, f8, f8, f8)")
def submit(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now_s, offset_B, length_B):
    """``Spindle.submit``: queue a read at ``now_s`` (in arrival order); when it completes."""
    _forget_done(drive_i, done_at, d, now_s)
    start = max(now_s, drive_f[d, FREE_AT])
    service = service_s(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, start, offset_B, length_B)
    drive_i[d, READS] += 1
    return _occupy(drive_f, drive_i, done_at, d, start, service)


@jit(f"f8({D}, f8[:, ::1], i8, f8, f8, f8)")
def write(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now_s, offset_B, length_B):
    """A write at ``now_s`` (in arrival order): the head goes to its sectors and writes them (the
    drive's cache keeps what it read, but a write goes to the platter); when it completes."""
    _forget_done(drive_i, done_at, d, now_s)
    start = max(now_s, drive_f[d, FREE_AT])
    drive_f[d, STREAM] = np.nan  # the look-ahead stops where the head leaves
    drive_f[d, LEAD] = 0.0
    service = _positioning_s(
        c, drive_f, drive_i, seg_s, seg_l, seg_t, d, start, offset_B
    ) + length_B / _media_Bps(c, offset_B)
    drive_f[d, HEAD] = offset_B + length_B
    drive_f[d, IDLE_SINCE] = start + service
    return _occupy(drive_f, drive_i, done_at, d, start, service)


@jit(f"f8({D}, i8, f8, f8, f8)")
def reach_s(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, now_s, offset_B, length_B):
    """``QueuedSpindle.positioning_s``: time until the drive could transfer the first byte."""
    cached = cached_B(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, offset_B, False)
    if cached >= length_B or offset_B == drive_f[d, STREAM]:
        return 0.0
    return _positioning_s(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, now_s, offset_B)


@jit(inline="always")
def copy_to_read(drive_f, drive_i, done_at, first, copies, mirror, now_s, offset_B):
    """The drive of the ``copies`` mirrored ones from ``first`` that a read at ``offset_B`` goes to
    under ``mirror`` (a code of ``spindle.MIRROR_READS``; ``spindle.pick_copy`` written out): the
    first for ``PRIMARY``; for ``BALANCED`` the one with the fewest commands pending, the first of
    equals; for ``NEAREST`` (Linux md's ``read_balance``) the copy the last read went to if this
    read continues there, else, going round from it, the first idle copy, else the one whose head
    is nearer than its (the last used is kept at ``drive_i[first, LAST_USED]``)."""
    d = first
    if mirror == PRIMARY:
        return d
    if mirror == NEAREST:
        last = first + drive_i[first, LAST_USED]
        d = last
        nearest_B = abs(drive_f[last, HEAD] - offset_B)
        if nearest_B > 0.0:
            for i in range(1, copies):
                e = first + (last - first + i) % copies
                if pending(drive_i, done_at, e, now_s) == 0:
                    d = e
                    break
                distance_B = abs(drive_f[e, HEAD] - offset_B)
                if distance_B < nearest_B:
                    d, nearest_B = e, distance_B
        drive_i[first, LAST_USED] = d - first
        return d
    fewest = -1
    for e in range(first, first + copies):
        held = pending(drive_i, done_at, e, now_s)
        if fewest < 0 or held < fewest:
            d, fewest = e, held
    return d
