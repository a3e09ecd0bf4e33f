"""The download server's RAID volume in the compiled loop: its reads and write-backs on the drives.
Its layouts and drives are ``model.storage.raidmap``'s and ``model.storage.spindle``'s, with their
sources; it is calibrated with the download server (``model.servers.download``), on
``002_d084885fd2f4dc68.txt``.

A read of the volume (``read``: ``Array.read`` of tests/download_reference.py) is mapped onto its
members in chunks (``commands_of``: ``raidmap.pieces`` written out, a member's contiguous pieces
merged, a mirror's copy the one ``mirror_reads`` picks) and sent to them, for
``model.servers.download_loop``:

- each drive is ``model.storage.spindle.Spindle``'s arithmetic on arrays
  (``model.storage.drive_arrays``: seek, rotation, transfer, the look-ahead cache); a drive that
  takes commands in arrival order gives a read's end when it is sent; where the controller keeps
  several commands at a drive (``drive_queue_depth``), the drive starts the one it can reach
  soonest (``serve_next``: ``QueuedSpindle``'s nearest-first choice), each command's end a
  ``PIECE_DONE`` event, and a read ends with its last command;
- a read's end goes to its read slot (two a client: the window it waits on and the one read
  ahead), where its client waits for it (``wait``); the volume's busy spans (``busy``) give the
  share of the time it has a read in flight;
- a pair whose files the page cache holds (``cached``, drawn in ``model.servers.download``) reads
  nothing from the drives: its reads are done when they are asked for (``read_or_cached``);
- a pair's inode page is written back ``write_back_s`` after its read (``write_back``): a
  ``WRITE_BACK`` event sends the small write's commands to the drives, which nobody waits for; a
  write goes to the platter (``write``), not the drive's cache. The SimPy model had none.

``volume`` is the loop's (drive, commands, last, layout, busy, read_done, read_left, event heap).
"""

from __future__ import annotations

import math

from ..storage.drive_arrays import (
    QUEUED,
    SERVING,
    D,
    copy_to_read,
    jit,
    reach_s,
    submit,
    write,
)
from .download_events import PIECE_DONE, push

# the volume's busy spans (``busy``): the span its reads keep it busy, the time it waited in
# spans before, and its reads in flight (queued drives) since when
SPAN_FROM, SPAN_TO, WAITED, IN_FLIGHT, IN_FLIGHT_SINCE = range(5)
# the read slot of a command nobody waits for: a write, or the read of a read-modify-write
WRITE, OLD_DATA = -1, -2


@jit(inline="always")
def read_or_cached(c, volume, now, offset_B, length_B, slot, cached):
    """``read``, or a read the page cache answers: done already."""
    if cached:
        read_done = volume[5]  # (the loop's volume: drive, commands, last, layout, busy, read_done)
        read_done[slot] = -1.0
    else:
        read(c, volume, now, offset_B, length_B, slot)


@jit
def read(c, volume, now, offset_B, length_B, slot):
    """``Array.read``: send the volume read's member commands; its end goes to ``read_done[slot]``
    (known at once when the drives serve in arrival order, else when the last command ends), and
    the volume's busy spans (``busy``: SPAN_FROM to IN_FLIGHT_SINCE) follow it. ``volume``: the
    loop's (drive, commands, last, layout, busy, read_done, read_left, event heap)."""
    drive, commands, last, layout, busy, read_done, read_left, event_heap = volume
    drive_f, drive_i, seg_s, seg_l, seg_t, done_at, _ = drive
    depth = layout[5]
    n = commands_of(drive, commands, last, layout, now, offset_B, length_B)
    if depth <= 1:  # in arrival order: a command's completion is known when it is sent
        done = now
        for i in range(n):
            completes = submit(
                c,
                drive_f,
                drive_i,
                seg_s,
                seg_l,
                seg_t,
                done_at,
                commands[i, 0],
                now,
                float(commands[i, 1]),
                float(commands[i, 2]),
            )
            if completes > done:
                done = completes
        if now > busy[SPAN_TO]:  # the volume was idle: a new busy span
            busy[WAITED] += busy[SPAN_TO] - busy[SPAN_FROM]
            busy[SPAN_FROM] = now
        if done > busy[SPAN_TO]:
            busy[SPAN_TO] = done
        read_done[slot] = done
        return
    if not busy[IN_FLIGHT]:
        busy[IN_FLIGHT_SINCE] = now
    busy[IN_FLIGHT] += 1
    read_done[slot] = math.inf
    read_left[slot] = n
    for i in range(n):
        _enqueue(
            c, drive, commands[i, 0], now, depth, event_heap, commands[i, 1], commands[i, 2], slot
        )


@jit("b1(f8[::1], i8[::1], i8, i8, f8)")
def wait(read_done, read_waiter, slot, cl, now):
    """Whether read ``slot`` is done by ``now``; else ``cl`` is its waiter (its end unknown yet:
    a queued drive's) or will be resumed at its known end."""
    if read_done[slot] < now:
        return True
    if math.isinf(read_done[slot]):
        read_waiter[slot] = cl
    return False


@jit(inline="always")
def commands_of(drive, commands, last, layout, now, offset_B, length_B):
    """``Array.commands``: the read's member commands [member, offset, length] in ``commands``,
    contiguous pieces of a member merged (``raidmap.pieces`` written out); returns how many.
    ``last``: each member's command so far (-1: none), left as it was found; ``layout``: (drives,
    chunk_B, data members, a mirror's pairs, parity chunks, queue depth, how a mirror picks a copy:
    a code of ``spindle.MIRROR_READS``)."""
    drive_f, drive_i, done_at = drive[0], drive[1], drive[5]
    drives, chunk_B, width, pairs_level, parity, _, mirror = layout
    n = 0
    position, end = offset_B, offset_B + length_B
    while position < end:
        chunk, within = divmod(position, chunk_B)
        take = min(chunk_B - within, end - position)
        row, column = divmod(chunk, width)
        member_offset = row * chunk_B + within
        if pairs_level:  # a mirror: the copy this read uses, else the one ``mirror`` picks
            a = 2 * column
            if last[a] >= 0:
                member = a
            elif last[a + 1] >= 0:
                member = a + 1
            else:
                member = copy_to_read(drive_f, drive_i, done_at, a, 2, mirror, now, member_offset)
        else:
            member = _striped_member(drives, parity, row, column)
        i = last[member]
        if i >= 0 and commands[i, 1] + commands[i, 2] == member_offset:
            commands[i, 2] += take
        else:
            last[member] = n
            commands[n, 0], commands[n, 1], commands[n, 2] = member, member_offset, take
            n += 1
        position += take
    for i in range(n):
        last[commands[i, 0]] = -1
    return n


@jit("i8(i8, i8, i8, i8)")
def _striped_member(drives, parity, row, column):
    """The member holding column ``column`` of stripe row ``row`` (``raidmap.pieces``): a parity
    level's data follow its ``parity`` chunks round the members (left-symmetric), a stripe's
    columns are its members; a column past the row's data is one of its parity chunks."""
    if parity:
        return ((drives - 1 - row % drives + parity) % drives + column) % drives
    return column % drives


@jit(inline="always")
def _enqueue(c, drive, d, now, depth, event_heap, offset_B, length_B, slot):
    """Queue a command for read slot ``slot`` at queueing drive ``d``; an idle drive takes it."""
    drive_i, queue = drive[1], drive[6]
    q = drive_i[d, QUEUED]
    queue[d, q, 0], queue[d, q, 1], queue[d, q, 2] = offset_B, length_B, slot
    drive_i[d, QUEUED] = q + 1
    if not drive_i[d, SERVING]:
        serve_next(c, drive, d, now, depth, event_heap)


@jit(inline="always")
def serve_next(c, drive, d, now, depth, event_heap):
    """``QueuedSpindle.serve_next``: the free drive ``d`` starts the command among the first
    ``depth`` it can reach soonest (the first of equals). ``drive``: ``drive_state``."""
    drive_f, drive_i, seg_s, seg_l, seg_t, done_at, queue = drive
    ev_t, ev_rows, events = event_heap
    n = drive_i[d, QUEUED]
    held = min(n, depth)
    best = 0
    if held > 1:
        best_s = math.inf
        for j in range(held):
            p = reach_s(
                c, drive_f, drive_i, seg_s, seg_l, seg_t, d, now, queue[d, j, 0], queue[d, j, 1]
            )
            if p < best_s:
                best, best_s = j, p
    offset, length, slot = queue[d, best, 0], queue[d, best, 1], queue[d, best, 2]
    for j in range(best, n - 1):
        queue[d, j, 0], queue[d, j, 1], queue[d, j, 2] = (
            queue[d, j + 1, 0],
            queue[d, j + 1, 1],
            queue[d, j + 1, 2],
        )
    drive_i[d, QUEUED] = n - 1
    done = _send(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now, offset, length, slot)
    drive_i[d, SERVING] = 1
    push(ev_t, ev_rows, events, done, PIECE_DONE, d, int(slot))


@jit(f"f8({D}, f8[:, ::1], i8, f8, f8, f8, f8)")
def _send(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now, offset_B, length_B, slot):
    """A command for read slot ``slot`` in arrival order: a write (``WRITE``) or a read."""
    if slot == WRITE:
        return write(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now, offset_B, length_B)
    return submit(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now, offset_B, length_B)


@jit
def write_back(c, volume, now, offset_B, length_B):
    """The controller's small write of ``length_B`` at ``offset_B``: a parity level reads the old
    data and its parity chunks and writes them back (read-modify-write: each of the three members
    reads, then writes the same sectors), a mirror writes both copies, a stripe one member. Nobody
    waits for it; it takes the drives from the reads that come after it."""
    drive, commands, last, layout, busy, read_done, read_left, event_heap = volume
    drive_f, drive_i, seg_s, seg_l, seg_t, done_at, _ = drive
    drives, chunk_B, width, pairs_level, parity, depth, _ = layout
    chunk, within = divmod(offset_B, chunk_B)
    row, column = divmod(chunk, width)
    at = row * chunk_B + within
    members = commands[:, 0]  # the members written (scratch: no read is being mapped now)
    if pairs_level:
        members[0], members[1], n = 2 * column, 2 * column + 1, 2
    else:  # the data chunk's member and, after the row's data, its parity chunks'
        n = 1 + parity
        for k in range(n):
            members[k] = _striped_member(drives, parity, row, column if k == 0 else width + k - 1)
    for k in range(n):
        d = members[k]
        for step in range(2 if parity else 1):
            slot = OLD_DATA if parity and step == 0 else WRITE
            if depth <= 1:
                _send(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now, at, length_B, slot)
            else:
                _enqueue(c, drive, d, now, depth, event_heap, at, length_B, slot)
