"""The memory-mapped test's pass, compiled with numba: ``model.storage.mmap`` run as arrays.

The same program, page cache, reclaim, write caches and drives as ``model.storage.mmap`` describes
(its docstring is the model, its sources and the table that calibrates it, ``psu_mmap``), written as
loops over arrays so that a pass of the 4 GB file's 131,072 chunks takes 40 ms rather than half a
second:

- the page cache is a ring of block numbers, oldest first (``order``), with a byte a block saying
  whether it is in memory and whether it has been written since it was read;
- the dirty blocks reclaim has evicted since its last write-back wait in ``to_write``; a write-back
  sorts them and merges contiguous ones up to the driver's largest request, as the elevator does
  (``merged_runs`` of ``tests/mmap_reference.py``, the Python model the loop is checked against);
- a write-back cache holds its dirty extents by block (``extent_B``, the bytes held from that
  block's offset) and destages them ascending, merged where contiguous;
- each drive is ``model.storage.spindle.Spindle`` on the arrays of ``model.storage.drive_arrays``
  (``drive_constants``, ``drive_state``, its look-ahead segments), with the read's service time
  (``service_s``) and the writes (``_write``) in ``Spindle``'s own order of operations, so that
  every result is the same to the last bit as the Python classes give (``tests/mmap_reference.py``,
  checked in ``tests/test_mmap_loop.py``).
"""

from __future__ import annotations

import math

import numpy as np

from ..compiled import jit
from .drive_arrays import (
    BUSY,
    CACHE,
    DONE_COUNT,
    DONE_FROM,
    FREE_AT,
    HEAD,
    IDLE_SINCE,
    K_ZONE,
    LEAD,
    OUTER,
    READS,
    SIZE,
    STREAM,
    D,
    copy_to_read,
    drive_constants,
    drive_state,
    keep,
    pending,
    rotation_s,
    seek_s,
    service_s,
)
from .spindle import MAX_SEGMENTS, Spindle

# The page cache's counters (``counters``)
(
    ORDER_FROM,
    ORDER_COUNT,
    EVICTED,
    FAULTS,
    READ_B,
    WRITTEN_B,
    TO_WRITE,
    HELD,
    HELD_B,
    OVERFLOW,
) = range(10)


@jit("b1(i8[:, ::1], f8[:, ::1], i8, f8)")
def _complete(drive_i, done_at, d, done_s):
    """Remember a command that completes at ``done_s``; False when the ring is full."""
    ring = done_at.shape[1]
    if drive_i[d, DONE_COUNT] == ring:
        return False
    done_at[d, (drive_i[d, DONE_FROM] + drive_i[d, DONE_COUNT]) % ring] = done_s
    drive_i[d, DONE_COUNT] += 1
    return True


@jit(f"f8({D}, f8[:, ::1], i8, f8, f8, f8)")
def _submit(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now_s, offset_B, length_B):
    """``Spindle.submit``: queue a read at ``now_s``; when it completes (-1 when the drive's ring
    of completions is full)."""
    pending(drive_i, done_at, d, now_s)
    start = max(now_s, drive_f[d, FREE_AT])
    service = service_s(c, drive_f, drive_i, seg_s, seg_l, seg_t, d, start, offset_B, length_B)
    drive_f[d, BUSY] += service
    drive_i[d, READS] += 1
    done = start + service
    drive_f[d, FREE_AT] = done
    return done if _complete(drive_i, done_at, d, done) else -1.0


@jit(f"b1({D}, f8[:, ::1], i8, f8, i8[:, ::1], i8)")
def _write(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now_s, runs, n):
    """``Spindle.write``: queue writes of the first ``n`` (offset, length) ``runs`` at ``now_s``, in
    that order; False when the drive's ring of completions is full."""
    if n == 0:
        return True
    pending(drive_i, done_at, d, now_s)
    # ``Spindle._stop_streaming``: the look-ahead of the last read keeps what it gathered
    start = drive_f[d, STREAM]
    if not math.isnan(start):
        drive_f[d, STREAM] = np.nan
        y = min(start / c[SIZE], 1.0)
        gathered = drive_f[d, LEAD] + (max(now_s, drive_f[d, FREE_AT]) - drive_f[d, IDLE_SINCE]) * (
            c[OUTER] * math.sqrt(1.0 - c[K_ZONE] * y)
        )
        keep(
            c, drive_f, drive_i, seg_s, seg_l, seg_t, d, start, min(gathered, c[CACHE])
        )  # ``gathered if gathered < cache else cache``
    drive_f[d, LEAD] = 0.0
    done = drive_f[d, FREE_AT]
    head_B = drive_f[d, HEAD]
    for i in range(n):
        offset_B, length_B = float(runs[i, 0]), float(runs[i, 1])
        start_s = now_s if now_s > done else done
        x = min(offset_B / c[SIZE], 1.0)
        service = length_B / (c[OUTER] * math.sqrt(1.0 - c[K_ZONE] * x))
        if not (now_s < done and offset_B == head_B):  # not queued behind its predecessor
            drive_f[d, HEAD] = head_B
            seek = seek_s(c, drive_f, d, offset_B)
            service += seek + rotation_s(c, start_s + seek, offset_B)
        drive_f[d, BUSY] += service
        done = start_s + service
        if not _complete(drive_i, done_at, d, done):
            return False
        head_B = offset_B + length_B
    drive_f[d, HEAD] = head_B
    drive_f[d, FREE_AT] = done
    return True


@jit
def _read(drives, done_at, mirror, now_s, offset_B, length_B):
    """``MirrorOrDrive.read`` of tests/mmap_reference.py: the read goes to the copy ``mirror`` (a
    code of ``spindle.MIRROR_READS``) picks (``copy_to_read``)."""
    c, drive_f, drive_i, seg_s, seg_l, seg_t = drives
    d = copy_to_read(drive_f, drive_i, done_at, 0, drive_f.shape[0], mirror, now_s, offset_B)
    return _submit(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now_s, offset_B, length_B)


@jit
def _write_all(drives, done_at, now_s, runs, n, counters):
    """Every copy writes the first ``n`` runs (a full ring of completions is counted in
    ``counters[OVERFLOW]``)."""
    c, drive_f, drive_i, seg_s, seg_l, seg_t = drives
    for d in range(drive_f.shape[0]):
        if not _write(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now_s, runs, n):
            counters[OVERFLOW] += 1


@jit
def _merge(blocks, n, block_B, max_B, runs):
    """``merged_runs`` of the first ``n`` extents of ``blocks`` (sorted here), ``block_B`` each at
    its block's offset: ascending (offset, length) runs into ``runs``, contiguous ones joined up to
    ``max_B``; how many."""
    blocks[:n].sort()
    m = 0
    for i in range(n):
        offset_B = blocks[i] * block_B
        if m and runs[m - 1, 0] + runs[m - 1, 1] == offset_B and runs[m - 1, 1] + block_B <= max_B:
            runs[m - 1, 1] += block_B
        else:
            runs[m, 0], runs[m, 1] = offset_B, block_B
            m += 1
    return m


@jit
def _destage(drives, done_at, cache, block_B, now_s, counters):
    """``WriteBackCache.destage`` of tests/mmap_reference.py: everything held to every copy,
    ascending, merged where contiguous (extents may overlap: only a run ending where the next begins
    is joined)."""
    extent_B, held, runs = cache
    n = counters[HELD]
    held[:n].sort()
    m = 0
    for i in range(n):
        offset_B, length_B = held[i] * block_B, extent_B[held[i]]
        if m and runs[m - 1, 0] + runs[m - 1, 1] == offset_B:
            runs[m - 1, 1] += length_B
        else:
            runs[m, 0], runs[m, 1] = offset_B, length_B
            m += 1
        extent_B[held[i]] = 0
    _write_all(drives, done_at, now_s, runs, m, counters)
    counters[HELD] = 0
    counters[HELD_B] = 0


@jit
def _write_back(drives, done_at, cache, cache_B, pages, block_B, max_request_B, now_s, counters):
    """``MappedFile.write_back`` of tests/mmap_reference.py: the dirty blocks reclaim evicted,
    sorted and merged as the elevator does, through the write-back cache (``cache_B`` of it, none
    when 0) or to every copy."""
    _, _, _, _, to_write, queued, runs = pages
    n = counters[TO_WRITE]
    m = _merge(to_write, n, block_B, max_request_B, runs)
    if cache_B > 0.0:  # ``WriteBackCache.write`` of each run in turn
        extent_B, held, _ = cache
        for i in range(m):
            block, length_B = runs[i, 0] // block_B, runs[i, 1]
            counters[HELD_B] += length_B - extent_B[block]
            if extent_B[block] == 0:
                held[counters[HELD]] = block
                counters[HELD] += 1
            extent_B[block] = max(extent_B[block], length_B)
            if counters[HELD_B] >= cache_B / 2:
                _destage(drives, done_at, cache, block_B, now_s, counters)
    else:
        _write_all(drives, done_at, now_s, runs, m, counters)
    for i in range(m):
        counters[WRITTEN_B] += runs[i, 1]
    for i in range(n):
        queued[to_write[i]] = 0
    counters[TO_WRITE] = 0


@jit
def _queue_write(block, dirty, queued, to_write, counters):
    """A dirty block is clean in memory and waits, once, among the blocks to write back."""
    dirty[block] = 0
    if not queued[block]:
        queued[block] = 1
        to_write[counters[TO_WRITE]] = block
        counters[TO_WRITE] += 1


@jit
def _evict(drives, done_at, cache, cache_B, pages, block_B, batch, max_request_B, now_s, counters):
    """``MappedFile._evict`` of tests/mmap_reference.py: the oldest block leaves the page cache;
    every ``batch`` evictions, kswapd writes back the dirty ones among them."""
    resident, dirty, order, _, to_write, queued, _ = pages
    old = order[counters[ORDER_FROM]]
    counters[ORDER_FROM] = (counters[ORDER_FROM] + 1) % order.shape[0]
    counters[ORDER_COUNT] -= 1
    resident[old] = 0
    if dirty[old]:
        _queue_write(old, dirty, queued, to_write, counters)
    counters[EVICTED] += 1
    if counters[EVICTED] % batch == 0:
        _write_back(drives, done_at, cache, cache_B, pages, block_B, max_request_B, now_s, counters)


@jit
def run(
    drives, done_at, cache, cache_B, pages, setup, max_request_B, mirror, now_s, step_s, counters
):
    """``MappedFile.run``: one pass of the program from ``now_s``, ``step_s`` of its time per
    block; when it ends. ``setup`` is (block_B, window, capacity, batch)."""
    resident, dirty, order, missing, _, _, _ = pages
    block_B, window, capacity, batch = setup[0], setup[1], setup[2], setup[3]
    last, below, ring = resident.shape[0] - 1, window // 2, order.shape[0]
    for step in range(last + 1):
        for block in (step, last - step):
            if not resident[block]:
                counters[FAULTS] += 1
                first = max(0, block - below)
                n = 0
                for b in range(first, min(last + 1, first + window)):
                    if not resident[b]:
                        missing[n] = b
                        n += 1
                done_s = now_s
                i = 0
                while i < n:  # each contiguous run of the missing blocks is one read
                    j = i + 1
                    while j < n and missing[j] == missing[j - 1] + 1:
                        j += 1
                    start, length = missing[i] * block_B, (j - i) * block_B
                    end_s = _read(drives, done_at, mirror, now_s, float(start), float(length))
                    if end_s < 0.0:
                        counters[OVERFLOW] += 1
                    counters[READ_B] += length
                    if start <= block * block_B < start + length:
                        done_s = end_s  # the program waits for its own block only
                    i = j
                now_s = done_s
                for i in range(n):
                    b = missing[i]
                    resident[b] = 1
                    order[(counters[ORDER_FROM] + counters[ORDER_COUNT]) % ring] = b
                    counters[ORDER_COUNT] += 1
                    if counters[ORDER_COUNT] > capacity:
                        _evict(
                            drives,
                            done_at,
                            cache,
                            cache_B,
                            pages,
                            block_B,
                            batch,
                            max_request_B,
                            now_s,
                            counters,
                        )
            now_s += step_s
        dirty[last - step] = 1
    return now_s


@jit
def flush(drives, done_at, cache, cache_B, pages, block_B, max_request_B, now_s, counters):
    """``MappedFile.flush``: write back every dirty block left in memory; the time the volume is
    idle again."""
    _, dirty, _, _, to_write, queued, _ = pages
    for block in range(dirty.shape[0]):
        if dirty[block]:
            _queue_write(block, dirty, queued, to_write, counters)
    _write_back(drives, done_at, cache, cache_B, pages, block_B, max_request_B, now_s, counters)
    if cache_B > 0.0:
        _destage(drives, done_at, cache, block_B, now_s, counters)
    drive_f = drives[1]
    idle_s = now_s
    for d in range(drive_f.shape[0]):
        idle_s = max(idle_s, drive_f[d, FREE_AT])
    return idle_s


class MappedFile:
    """The file's blocks in the page cache and the volume under them, as the compiled pass's arrays:
    ``blocks`` chunks of ``block_B``, ``capacity`` of them in memory, written back every ``batch``
    evictions in requests of at most ``max_request_B``; a fault reads ``window`` chunks around it.
    The volume is ``drives`` (one, or a mirror's copies, reading from the copy ``mirror``, a code of
    ``spindle.MIRROR_READS``, picks) behind a write-back cache of ``cache_B`` (none when 0)."""

    def __init__(
        self,
        blocks: int,
        capacity: int,
        batch: int,
        max_request_B: float,
        drives: list[Spindle],
        cache_B: float,
        mirror: int,
        block_B: int,
        window: int,
    ):
        self.setup = np.array([block_B, max(1, window), capacity, max(1, batch)], np.int64)
        self.max_request_B, self.cache_B = float(max_request_B), float(cache_B)
        self.mirror = mirror
        drive_f, drive_i, seg_s, seg_l, seg_t, _, _ = drive_state(
            len(drives), MAX_SEGMENTS, 1, False
        )
        self.drives = (drive_constants(drives[0]), drive_f, drive_i, seg_s, seg_l, seg_t)
        # completions a drive remembers: more than the commands of a pass and its write-back
        self.done_at = np.zeros((len(drives), 6 * blocks + 1024))
        self.pages = (
            np.zeros(blocks, np.uint8),  # resident
            np.zeros(blocks, np.uint8),  # dirty
            # the ring of blocks in memory, oldest first: a fault adds one past capacity, then
            # evicts the oldest
            np.zeros(min(blocks, capacity) + 1, np.int64),
            np.zeros(max(1, window), np.int64),  # a fault's missing blocks
            np.zeros(blocks, np.int64),  # the dirty blocks evicted since the last write-back
            np.zeros(blocks, np.uint8),  # whether a block is among them
            np.zeros((blocks, 2), np.int64),  # a write-back's (offset, length) runs
        )
        self.cache = (
            np.zeros(blocks, np.int64),  # bytes held dirty from a block's offset
            np.zeros(blocks, np.int64),  # the blocks holding them
            np.zeros((blocks, 2), np.int64),  # a destage's runs
        )
        self.counters = np.zeros(OVERFLOW + 1, np.int64)

    def run(self, now_s: float, step_s: float) -> float:
        """One pass of the program from ``now_s``, ``step_s`` of its time a block; when it ends."""
        end_s = run(
            self.drives,
            self.done_at,
            self.cache,
            self.cache_B,
            self.pages,
            self.setup,
            self.max_request_B,
            self.mirror,
            now_s,
            step_s,
            self.counters,
        )
        self._check()
        return end_s

    def flush(self, now_s: float) -> float:
        """Write back every dirty block left in memory; the time the volume is idle again."""
        idle_s = flush(
            self.drives,
            self.done_at,
            self.cache,
            self.cache_B,
            self.pages,
            self.setup[0],
            self.max_request_B,
            now_s,
            self.counters,
        )
        self._check()
        return idle_s

    def _check(self) -> None:
        if self.counters[OVERFLOW]:
            raise RuntimeError("a drive's ring of completions overflowed: enlarge done_at")

    def order(self) -> list[int]:
        """The blocks in memory, oldest first."""
        ring, first, count = self.pages[2], self.counters[ORDER_FROM], self.counters[ORDER_COUNT]
        return np.roll(ring, -first)[:count].tolist()

    def busy_s(self) -> list[float]:
        """Each drive's busy time so far."""
        return self.drives[1][:, BUSY].tolist()

    @property
    def faults(self) -> int:
        return int(self.counters[FAULTS])

    @property
    def read_B(self) -> int:
        return int(self.counters[READ_B])

    @property
    def written_B(self) -> int:
        return int(self.counters[WRITTEN_B])
