"""The download server's event loop, compiled with numba: ``model.servers.download`` run as arrays.

The same server as ``model.servers.download`` describes (its docstring is the model), written as one
event loop over arrays so that a cell simulates thousands of pairs in a fraction of a second:

- the clients are state machines (``run``'s ``state``) resumed from one heap of (time, order)
  events, in time order and, at one time, in the order they were scheduled, as SimPy does;
- each drive is ``model.storage.spindle.Spindle``'s arithmetic on arrays
  (``model.storage.drive_arrays``: seek, rotation, transfer, the look-ahead cache;
  ``QueuedSpindle``'s nearest-first choice when the controller keeps several commands at a drive);
- the server link: every connection's flow crosses the one link and its own client's link, all
  clients' links alike (``flow_cap_Bps``), so the max-min fair share of ``model.sim.flows`` is the
  server link's capacity over the flows active (processor sharing), or the client's link where that
  is less; what the link carries with so many flows active (``link_Bps``, by flows) is the NIC's
  rate, or the send work its interrupt cores keep up with where that is less; the loop keeps it
  with a virtual clock (the bytes each active flow has been given since the start), a flow ending
  when the clock reaches its start plus its size. This is the same
  allocation as ``FlowNetwork``'s, not an approximation;
- a worker is a FIFO lock (``simpy.Resource`` of one): a connection that finds it free takes it at
  once, without the zero-delay event SimPy spends on the grant (the same instant; only the order
  of commands sent at one instant can differ, which is equal in expectation);
- nginx's accept mutex (``accepting``): a new connection goes to the worker waiting with the
  mutex, or waits in the listen queue until a worker's event loop takes the mutex (``_loop``: at
  the end of each of its turns, or at a ``TRY`` event ``accept_mutex_delay`` after a free worker
  missed it); the first tries' phases are drawn from ``stream(seed, "nginx accept")``;
- a pair whose files the page cache holds (``cached``, drawn in ``model.servers.download``) reads
  nothing from the drives: its reads are done when they are asked for;
- a pair's inode page is written back ``write_back_s`` after its read (``_write_back``): a
  ``WRITE_BACK`` event sends the small write's commands to the drives, which nobody waits for; a
  write goes to the platter (``write``), not the drive's cache. The SimPy model had none.

The random file picks are drawn up front (``stream(seed, "download")``), three a pair, in the
order the pairs start.
"""

from __future__ import annotations

import math

import numpy as np

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

# the volume's busy spans (``busy``): the span its reads keep it busy, the time it waited in
# spans before, and its reads in flight (queued drives) since when
SPAN_FROM, SPAN_TO, WAITED, IN_FLIGHT, IN_FLIGHT_SINCE = range(5)
# the read slot of a command nobody waits for: a write, or the read of a read-modify-write
WRITE, OLD_DATA = -1, -2


@jit(f"f8({D}, f8[:, ::1], i8, f8, f8, f8, f8)")
def _send(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now, offset_B, length_B, slot):
    """A command for read slot ``slot`` in arrival order: a write (``WRITE``) or a read."""
    if slot == WRITE:
        return write(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now, offset_B, length_B)
    return submit(c, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, d, now, offset_B, length_B)


def scratch(clients: int, workers: int, drives: int, commands: int):
    """The loop's working arrays: the clients' counters and times (two read slots a client: the
    window it waits on and the one read ahead), the workers' queues of connections, a read's member
    commands (at most ``commands``), then the accept mutex's (``accepting``)."""
    counts = tuple(np.zeros(n, np.int64) for n in [clients] * 8 + [2 * clients] * 2)
    counts[4][:] = -1  # asleep on no read
    counts[9][:] = -1  # no client waits on the read
    counts += tuple(np.zeros(workers, np.int64) for _ in range(4))
    counts += (np.zeros(clients, np.int64), np.full(drives, -1, np.int64))
    times = tuple(np.zeros(clients) for _ in range(6)) + (np.zeros(2 * clients), np.zeros(5))
    return (
        counts,
        times,
        np.zeros((workers, clients + 1), np.int64),
        np.zeros((commands, 3), np.int64),
    )


# The accept mutex's integers (``accepting``'s first array): whether it is used, the worker that
# holds it waiting for connections (-1: none), the listen queue's first slot and its length
MUTEX_ON, HOLDER, LISTEN_FROM, LISTEN_COUNT = range(4)


def accepting(clients: int, workers: int, mutex: bool, delay_s: float, first_tries_s):
    """The accept mutex's state (``run``'s ``accept``): nginx's ``accept_mutex`` when ``mutex`` and
    more than one worker. Worker 0 holds it first, waiting for connections; each other worker tries
    it first at its ``first_tries_s`` (its start's phase in its ``delay_s`` cycle). Then the
    connections waiting to be accepted (at most every client's), the state each goes on to once a
    worker has it, and each worker's next try (infinite: none pending)."""
    on = mutex and workers > 1
    flags = np.array([on, 0 if on else -1, 0, 0], np.int64)
    next_try = np.full(workers, math.inf)
    if on:
        next_try[1:] = first_tries_s[1:]
    return (
        flags,
        np.zeros(clients, np.int64),
        np.zeros(clients, np.int64),
        next_try,
        np.array([delay_s]),
    )


# event kinds of the loop's heap
RESUME, PIECE_DONE, WRITE_BACK, TRY = 0, 1, 2, 3
ACCEPTED = 9  # a client's state: its connection waits in the listen queue until a worker takes it
# A heap's arguments: times, [order, kind, a, b] rows, [size, next order]
HEAP = "f8[::1], i8[:, ::1], i8[::1]"


def new_heap(capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty heap of ``capacity`` entries."""
    return np.zeros(capacity), np.zeros((capacity, 4), np.int64), np.zeros(2, np.int64)


@jit(f"void({HEAP}, f8, i8, i8, i8)")
def push(times, rows, size, time, kind, a, b):
    """Add (``time``, kind, a, b); at one time, entries come out in the order they went in."""
    i = size[0]
    if i == times.shape[0]:
        raise ValueError("the event heap is full")
    order = size[1]
    size[0], size[1] = i + 1, order + 1
    while i:  # move the parents down until the new entry's place is found
        parent = (i - 1) // 2
        if times[parent] < time or (times[parent] == time and rows[parent, 0] < order):
            break
        times[i] = times[parent]
        for k in range(4):
            rows[i, k] = rows[parent, k]
        i = parent
    times[i] = time
    rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3] = order, kind, a, b


@jit(f"Tuple((f8, i8, i8, i8))({HEAP})")
def pop(times, rows, size):
    """Take out the first entry: (time, kind, a, b)."""
    out = times[0], rows[0, 1], rows[0, 2], rows[0, 3]
    n = size[0] - 1
    size[0] = n
    if n:  # the last entry sinks from the top to its place
        time, order, kind, a, b = times[n], rows[n, 0], rows[n, 1], rows[n, 2], rows[n, 3]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            right = child + 1
            if right < n and (
                times[right] < times[child]
                or (times[right] == times[child] and rows[right, 0] < rows[child, 0])
            ):
                child = right
            if time < times[child] or (time == times[child] and order < rows[child, 0]):
                break
            times[i] = times[child]
            for k in range(4):
                rows[i, k] = rows[child, k]
            i = child
        times[i] = time
        rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3] = order, kind, a, b
    return out


@jit
def run(
    c,
    drives,
    chunk_B,
    width,
    pairs_level,
    parity,
    depth,
    mirror,
    clients,
    pairs,
    places,
    cached,
    windows,
    file_B,
    file_pages_B,
    md5_B,
    page_B,
    mark_B,
    request_B,
    workers,
    link_Bps,
    flow_cap_Bps,
    keep_alive,
    wmem,
    mss,
    initial_segments,
    quickacks,
    acks_per_segment,
    md5_check_s,
    write_back_s,
    drive,
    flow_heap,
    event_heap,
    counts,
    times,
    waiting,
    commands,
    accept,
):
    """Simulate ``pairs`` pairs fetched by ``clients`` clients; returns (elapsed s, link bytes
    carried, worker turns s, asleep on opening reads s, asleep on data s, s with a volume read in
    flight); the drives' busy time, reads and cache hits are left in ``drive``.

    ``places``: a pair's reads, (index root, leaf, inode page, the md5 file's leaf or -1 when it is
    the same, the data file's start); ``cached``: whether a pair's pages are all in the page cache;
    ``link_Bps``: what the server link carries with 1, 2, ... flows active (index: the flows);
    ``flow_cap_Bps``: each client's link; ``write_back_s``: how long after its read a pair's inode
    page, its access times updated, is written back (negative: never); ``windows``: the read-ahead
    windows (offset, length);
    ``wmem``: tcp_wmem (min, default, max); ``drive``: ``drive_state``; the heaps: ``new_heap``;
    ``counts``, ``times``, ``waiting``, ``commands``: ``scratch``; ``accept``: ``accepting``."""
    drive_i = drive[1]
    windows_n = windows.shape[0]
    # the clients' state
    (
        state,
        step,  # the opening read, or the window, it is at
        pick,
        worker_of,
        asleep_kind,
        waits_writable,
        waits_drained,
        issued,  # the windows of its file read or being read
        read_left,
        read_waiter,
        held,
        connections,
        wait_from,
        wait_count,
        ended,
        last,
    ) = counts
    left_B, turn_began, asleep_since, written, delivered, sending, read_done, busy = times
    # the link, shared equally by its active flows: a virtual clock of bytes given to each
    flow_t, flow_rows, flows = flow_heap
    virtual_B, link_since_s, carried_B = 0.0, 0.0, 0.0
    # the volume's time with a read in flight
    # what a read needs: the drives, the array's layout, its busy spans, the read slots, the events
    volume = (
        drive,
        commands,
        last,
        (drives, chunk_B, width, pairs_level, parity, depth, mirror),
        busy,
        read_done,
        read_left,
        event_heap,
    )
    worker_turns_s, asleep_opening_s, asleep_data_s = 0.0, 0.0, 0.0
    ev_t, ev_rows, events = event_heap
    # the clients start a check time apart in all, evenly: started at once and served from memory
    # (nothing random drawn), they would stay in step, each sending while all the others send and
    # checking while they check, the link idle a check in each round
    for client in range(clients):
        push(ev_t, ev_rows, events, md5_check_s * client / clients, RESUME, client, 0)
    flags, after_accept, next_try = accept[0], accept[2], accept[3]
    for w in range(workers):
        if not math.isinf(next_try[w]):
            push(ev_t, ev_rows, events, next_try[w], TRY, w, 0)
    turn_end = (held, waiting, wait_from, wait_count, turn_began, worker_of, connections)
    remaining = pairs
    finished, end_s = 0, 0.0  # clients with no pair left to fetch, when the last one had its last
    drawn = 0
    now = 0.0
    while True:
        link_next = math.inf
        if flows[0]:
            link_next = link_since_s + (flow_t[0] - virtual_B) / _flow_Bps(
                link_Bps, flow_cap_Bps, flows[0]
            )
        event_next = ev_t[0] if events[0] else math.inf
        if link_next == math.inf and event_next == math.inf:
            break
        if link_next <= event_next:  # flows end: their sockets deliver what they carried
            now = link_next if link_next > now else now
            virtual_B, link_since_s = flow_t[0], now
            n_ended = 0
            while flows[0] and flow_t[0] <= virtual_B + 1e-6:
                ended[n_ended] = pop(flow_t, flow_rows, flows)[1]
                n_ended += 1
            for e in range(n_ended):
                s = ended[e]
                delivered[s] += sending[s]
                carried_B += sending[s]
                sending[s] = 0.0
                queued_B = written[s] - delivered[s]
                if queued_B > 0:
                    sending[s] = queued_B
                    push(flow_t, flow_rows, flows, virtual_B + queued_B, s, 0, 0)
                room = (
                    _capacity(
                        delivered[s],
                        keep_alive,
                        wmem,
                        mss,
                        initial_segments,
                        quickacks,
                        acks_per_segment,
                    )
                    - queued_B
                )
                if (waits_writable[s] and room >= queued_B / 2) or (
                    waits_drained[s] and queued_B <= 0
                ):
                    waits_writable[s] = waits_drained[s] = False
                    push(ev_t, ev_rows, events, now, RESUME, s, 0)
            continue
        now, kind, a, b = pop(ev_t, ev_rows, events)
        if kind == WRITE_BACK:  # pair a's inode page, its access times updated, goes to disk
            if finished < clients:  # (one due after the run is not part of it)
                _write_back(c, volume, now, float(places[a, 2]), float(page_B))
            continue
        if kind == TRY:  # worker a's wait without the accept mutex is over: it loops
            next_try[a] = math.inf
            if finished < clients and not held[a]:  # (a busy worker loops when its turn ends)
                _loop(a, now, turn_end, accept, event_heap)
            continue
        if kind == PIECE_DONE:  # a queued drive finished a command of read slot b
            if b >= 0:  # (a write-back's command has no read slot)
                read_left[b] -= 1
                if not read_left[b]:
                    read_done[b] = now
                    busy[IN_FLIGHT] -= 1
                    if not busy[IN_FLIGHT]:
                        busy[WAITED] += now - busy[IN_FLIGHT_SINCE]
                    if read_waiter[b] >= 0:
                        push(ev_t, ev_rows, events, now, RESUME, read_waiter[b], 0)
                        read_waiter[b] = -1
            # the drive turns to its next command
            if drive_i[a, QUEUED]:
                _serve_next(c, drive, a, now, depth, event_heap)
            else:
                drive_i[a, SERVING] = 0
            continue
        cl = a
        if asleep_kind[cl] >= 0:
            if asleep_kind[cl] == 0:
                asleep_opening_s += now - asleep_since[cl]
            else:
                asleep_data_s += now - asleep_since[cl]
            asleep_kind[cl] = -1
        # run the client until it waits
        while True:
            st = state[cl]
            w = worker_of[cl]
            read = -1  # the read slot the client goes on to wait for
            sleep_kind = 0
            if st == 0:  # a new pair, on a new connection
                if remaining <= 0:
                    finished += 1
                    end_s = now
                    break
                remaining -= 1
                pick[cl] = drawn
                drawn += 1
                written[cl] = delivered[cl] = sending[cl] = 0.0
                step[cl] = 0
                w = _connect(cl, 1, turn_end, accept)
                if w < 0:  # in the listen queue until a worker takes the accept mutex
                    state[cl] = ACCEPTED
                    break
                state[cl] = 1
                if not _take(held, waiting, wait_from, wait_count, flags, turn_began, w, cl, now):
                    break
                continue
            elif st == 1:  # open the file: the directory index's root, its leaf, the inode page
                offset = places[pick[cl], step[cl]]
                read = 2 * cl
                if step[cl] == 2 and write_back_s >= 0.0:  # reading it updates the access times
                    push(ev_t, ev_rows, events, now + write_back_s, WRITE_BACK, pick[cl], 0)
                step[cl] += 1
                if step[cl] == 3:
                    state[cl], step[cl] = 2, 0
                if offset < 0 or cached[pick[cl]]:  # in memory: the index root, or the pair
                    continue
            elif st == 2:  # the window ``step`` has been read: read on, then write it
                k = step[cl]
                start = places[pick[cl], 4]
                hit = cached[pick[cl]]
                if k == 0:
                    _read_or_cached(
                        c, volume, now, start + windows[0, 0], windows[0, 1], 2 * cl, hit
                    )
                    issued[cl] = 1
                # reaching window k (k >= 1; window 0 too when its mark is its first page) starts
                # the read of window k + 1
                if k + 1 < windows_n and issued[cl] == k + 1 and (k > 0 or mark_B == 0):
                    issued[cl] = k + 2
                    _read_or_cached(
                        c,
                        volume,
                        now,
                        start + windows[k + 1, 0],
                        windows[k + 1, 1],
                        2 * cl + (k + 1) % 2,
                        hit,
                    )
                left_B[cl] = min(windows[k, 1], file_B - windows[k, 0])
                state[cl] = 3
                sleep_kind = 1
                if not _wait(read_done, read_waiter, 2 * cl + k % 2, cl, now):
                    asleep_kind[cl], asleep_since[cl] = 1, now
                    if not math.isinf(read_done[2 * cl + k % 2]):
                        push(ev_t, ev_rows, events, read_done[2 * cl + k % 2], RESUME, cl, 0)
                    break
                continue
            elif st == 3:  # write the window into the socket while it has room
                entering = True
                while True:
                    # window 0's read-ahead mark: the sendfile whose pipe of pages reaches it starts
                    # the read of window 1 (a call that starts past the file's start, or one that
                    # goes on past the mark)
                    if (
                        issued[cl] == 1
                        and windows_n > 1
                        and (
                            written[cl] >= mark_B
                            or (entering and 0 < written[cl] and written[cl] + request_B > mark_B)
                        )
                    ):
                        issued[cl] = 2
                        _read_or_cached(
                            c,
                            volume,
                            now,
                            places[pick[cl], 4] + windows[1, 0],
                            windows[1, 1],
                            2 * cl + 1,
                            cached[pick[cl]],
                        )
                    entering = False
                    if left_B[cl] <= 0:
                        break
                    room = _capacity(
                        delivered[cl],
                        keep_alive,
                        wmem,
                        mss,
                        initial_segments,
                        quickacks,
                        acks_per_segment,
                    ) - (written[cl] - delivered[cl])
                    if room <= 0:
                        break
                    n = room if room < left_B[cl] else left_B[cl]
                    written[cl] += n
                    left_B[cl] -= n
                    if not sending[cl]:
                        if flows[0]:
                            virtual_B += (now - link_since_s) * _flow_Bps(
                                link_Bps, flow_cap_Bps, flows[0]
                            )
                        link_since_s = now
                        sending[cl] = written[cl] - delivered[cl]
                        push(flow_t, flow_rows, flows, virtual_B + sending[cl], cl, 0, 0)
                if left_B[cl] > 0:  # EAGAIN: the worker serves its other connections meanwhile
                    worker_turns_s += now - turn_began[cl]
                    _turn_ends(w, now, turn_end, accept, event_heap)
                    waits_writable[cl] = True
                    state[cl] = 4
                    break
                if step[cl] + 1 < windows_n:
                    step[cl] += 1
                    state[cl] = 2
                    continue
                worker_turns_s += now - turn_began[cl]
                _turn_ends(w, now, turn_end, accept, event_heap)
                state[cl] = 5
                if written[cl] == delivered[cl]:
                    push(ev_t, ev_rows, events, now, RESUME, cl, 0)
                else:
                    waits_drained[cl] = True
                break
            elif st == 4:  # the socket has room again: back to the worker
                state[cl] = 3
                if not _take(held, waiting, wait_from, wait_count, flags, turn_began, w, cl, now):
                    break
                continue
            elif st == 5:  # the client has the data file: the md5 file, on a new connection
                if not keep_alive:
                    connections[w] -= 1
                    w = _connect(cl, 6, turn_end, accept)
                    if w < 0:
                        state[cl] = ACCEPTED
                        break
                state[cl] = 6
                if not _take(held, waiting, wait_from, wait_count, flags, turn_began, w, cl, now):
                    break
                continue
            elif st == ACCEPTED:  # a worker took the accept mutex and this connection
                state[cl] = after_accept[cl]
                if not _take(held, waiting, wait_from, wait_count, flags, turn_began, w, cl, now):
                    break
                continue
            elif st == 6:  # the md5 file's leaf, when its name hashes to another one
                state[cl] = 7
                offset = places[pick[cl], 3]
                if offset < 0 or cached[pick[cl]]:
                    continue
                read = 2 * cl
            elif st == 7:  # the md5 file's data, just after its data file
                if cached[pick[cl]]:
                    state[cl] = 8
                    continue
                offset = places[pick[cl], 4] + file_pages_B
                read = 2 * cl
                sleep_kind = 1
                state[cl] = 8
            else:  # served: the client checks the file's md5 sum, then asks for the next pair
                worker_turns_s += now - turn_began[cl]
                connections[w] -= 1
                _turn_ends(w, now, turn_end, accept, event_heap)
                state[cl] = 0
                push(ev_t, ev_rows, events, now + md5_check_s, RESUME, cl, 0)
                break
            # a page read (opening, or the md5 file's data): sleep on it
            length = md5_B if st == 7 else page_B
            _read(c, volume, now, offset, length, read)
            if not _wait(read_done, read_waiter, read, cl, now):
                asleep_kind[cl], asleep_since[cl] = sleep_kind, now
                if not math.isinf(read_done[read]):
                    push(ev_t, ev_rows, events, read_done[read], RESUME, cl, 0)
                break
    waited = busy[WAITED] + busy[SPAN_TO] - busy[SPAN_FROM]
    return end_s, carried_B, worker_turns_s, asleep_opening_s, asleep_data_s, waited


@jit("f8(f8, b1, f8[::1], i8, i8, i8, f8)")
def _capacity(acked_B, keep_alive, wmem, mss, initial_segments, quickacks, acks_per_segment):
    """The socket's payload limit (``model.network.tcp.send_buffer_payload_B``, at most
    tcp_wmem[2]; a reused connection's buffer has grown to it)."""
    if keep_alive:
        return wmem[2]
    segments = acked_B / mss
    cwnd = (
        initial_segments
        + min(segments, quickacks)
        + max(segments - quickacks, 0.0) * acks_per_segment
    )
    return min(wmem[2], max(wmem[1], 2.0 * cwnd * mss))


@jit("i8(i8[::1])")
def _fewest(connections):
    """The worker with the fewest connections (the first of equals)."""
    best = 0
    for w in range(1, connections.shape[0]):
        if connections[w] < connections[best]:
            best = w
    return best


@jit("b1(i8[::1], i8[:, ::1], i8[::1], i8[::1], i8[::1], f8[::1], i8, i8, f8)")
def _take(held, waiting, wait_from, wait_count, flags, turn_began, w, cl, now):
    """Whether ``cl`` has worker ``w`` now, its turn beginning (a worker that held the accept
    mutex lets it go first: nginx unlocks before it handles the events it posted); else it waits
    its turn (FIFO)."""
    if not held[w]:
        held[w] = True
        if flags[HOLDER] == w:
            flags[HOLDER] = -1
        turn_began[cl] = now
        return True
    ring = waiting.shape[1]
    waiting[w, (wait_from[w] + wait_count[w]) % ring] = cl
    wait_count[w] += 1
    return False


@jit("void(i8[::1], i8[:, ::1], i8[::1], i8[::1], f8[::1], i8, f8, f8[::1], i8[:, ::1], i8[::1])")
def _give(held, waiting, wait_from, wait_count, turn_began, w, now, ev_t, ev_rows, events):
    """Worker ``w`` turns to the next connection waiting for it, if any."""
    if not wait_count[w]:
        held[w] = False
        return
    nxt = waiting[w, wait_from[w]]
    wait_from[w] = (wait_from[w] + 1) % waiting.shape[1]
    wait_count[w] -= 1
    turn_began[nxt] = now
    push(ev_t, ev_rows, events, now, RESUME, nxt, 0)


@jit
def _connect(cl, after, turn_end, accept):
    """A new connection from client ``cl``: the worker that accepts it, or -1 while it waits in the
    listen queue (it goes on to state ``after`` once a worker has it). Without the accept mutex,
    every worker hears of it and an idle one takes it (``_fewest``); with it, the worker waiting
    with the mutex accepts it and lets the mutex go."""
    connections = turn_end[6]
    flags, listen, after_accept = accept[0], accept[1], accept[2]
    if not flags[MUTEX_ON]:
        w = _fewest(connections)
    elif flags[HOLDER] >= 0:
        w = flags[HOLDER]
        flags[HOLDER] = -1
    else:
        listen[(flags[LISTEN_FROM] + flags[LISTEN_COUNT]) % listen.shape[0]] = cl
        flags[LISTEN_COUNT] += 1
        after_accept[cl] = after
        return -1
    _assign(cl, w, turn_end)
    return w


@jit(inline="always")
def _assign(cl, w, turn_end):
    """Client ``cl``'s new connection is worker ``w``'s."""
    worker_of, connections = turn_end[5], turn_end[6]
    worker_of[cl] = w
    connections[w] += 1


@jit
def _turn_ends(w, now, turn_end, accept, event_heap):
    """Worker ``w``'s turn at a connection ends: it turns to the next waiting one, if any
    (``_give``), and runs its event loop once (``_loop``)."""
    held, waiting, wait_from, wait_count, turn_began = turn_end[:5]
    ev_t, ev_rows, events = event_heap
    _give(held, waiting, wait_from, wait_count, turn_began, w, now, ev_t, ev_rows, events)
    if accept[0][MUTEX_ON]:
        _loop(w, now, turn_end, accept, event_heap)


@jit
def _loop(w, now, turn_end, accept, event_heap):
    """Worker ``w`` runs nginx's event loop once (``ngx_process_events_and_timers``): it tries the
    accept mutex. Held by another worker: a free ``w`` waits ``accept_mutex_delay`` before its next
    try. Free: ``w`` takes it, accepts the first connection waiting in the listen queue and lets it
    go; with none waiting, a free ``w`` keeps it and waits for connections."""
    held = turn_end[0]
    flags, listen, next_try, delay = accept[0], accept[1], accept[3], accept[4]
    ev_t, ev_rows, events = event_heap
    holder = flags[HOLDER]
    if holder == w:
        return
    if holder >= 0:
        if not held[w] and math.isinf(next_try[w]):
            next_try[w] = now + delay[0]
            push(ev_t, ev_rows, events, next_try[w], TRY, w, 0)
        return
    if flags[LISTEN_COUNT]:
        cl = listen[flags[LISTEN_FROM]]
        flags[LISTEN_FROM] = (flags[LISTEN_FROM] + 1) % listen.shape[0]
        flags[LISTEN_COUNT] -= 1
        _assign(cl, w, turn_end)
        push(ev_t, ev_rows, events, now, RESUME, cl, 0)
    elif not held[w]:
        flags[HOLDER] = w


@jit("b1(f8[::1], i8[::1], i8, i8, f8)")
def _wait(read_done, read_waiter, slot, cl, now):
    """Whether read ``slot`` is done by ``now``; else ``cl`` is its waiter (its end unknown yet:
    a queued drive's) or will be resumed at its known end."""
    if read_done[slot] < now:
        return True
    if math.isinf(read_done[slot]):
        read_waiter[slot] = cl
    return False


@jit(inline="always")
def _serve_next(c, drive, d, now, depth, event_heap):
    """``QueuedSpindle._serve_next``: the free drive ``d`` starts the command among the first
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


@jit("i8(i8, i8, i8, i8)")
def _striped_member(drives, parity, row, column):
    """The member holding column ``column`` of stripe row ``row`` (``raidmap.pieces``): a parity
    level's data follow its ``parity`` chunks round the members (left-symmetric), a stripe's
    columns are its members; a column past the row's data is one of its parity chunks."""
    if parity:
        return ((drives - 1 - row % drives + parity) % drives + column) % drives
    return column % drives


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


@jit(inline="always")
def _flow_Bps(link_Bps, flow_cap_Bps, flows):
    """The rate of each of ``flows`` active flows: its max-min share of what the server link
    carries with that many flows (``link_Bps[flows]``), or its client's link where that is less."""
    share = link_Bps[flows] / flows
    return share if share < flow_cap_Bps else flow_cap_Bps


@jit(inline="always")
def _read_or_cached(c, volume, now, offset_B, length_B, slot, cached):
    """``_read``, or a read the page cache answers: done already."""
    if cached:
        read_done = volume[5]  # (the loop's volume: drive, commands, last, layout, busy, read_done)
        read_done[slot] = -1.0
    else:
        _read(c, volume, now, offset_B, length_B, slot)


@jit
def _read(c, volume, now, offset_B, length_B, slot):
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


@jit(inline="always")
def _enqueue(c, drive, d, now, depth, event_heap, offset_B, length_B, slot):
    """Queue a command for read slot ``slot`` at queueing drive ``d``; an idle drive takes it."""
    drive_i, queue = drive[1], drive[6]
    q = drive_i[d, QUEUED]
    queue[d, q, 0], queue[d, q, 1], queue[d, q, 2] = offset_B, length_B, slot
    drive_i[d, QUEUED] = q + 1
    if not drive_i[d, SERVING]:
        _serve_next(c, drive, d, now, depth, event_heap)


@jit
def _write_back(c, volume, now, offset_B, length_B):
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
