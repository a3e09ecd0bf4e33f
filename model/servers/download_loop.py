"""The download server's event loop, compiled with numba: ``model.servers.download`` run as arrays.

The same server as ``model.servers.download`` describes (its docstring is the model), written as one
event loop over arrays so that a cell simulates thousands of pairs in a fraction of a second:

- the clients are state machines (``run``'s ``state``) resumed from one heap of (time, order)
  events (``model.servers.download_events``), in time order and, at one time, in the order they
  were scheduled, as SimPy does;
- which worker serves a connection, and when, is ``model.servers.nginx_workers``: each worker a
  FIFO lock, and nginx's accept mutex;
- the volume's reads and write-backs are ``model.servers.download_volume``: a read mapped onto the
  member drives, each drive ``model.storage.spindle.Spindle``'s arithmetic on arrays
  (``model.storage.drive_arrays``);
- the server link: every connection's flow crosses the one link and its own client's link, all
  clients' links alike (``flow_cap_Bps``), so the max-min fair share of ``model.sim.flows`` is the
  server link's capacity over the flows active (processor sharing), or the client's link where that
  is less (``_flow_Bps``); what the link carries with so many flows active (``link_Bps``, by flows)
  is the NIC's rate, or the send work its interrupt cores keep up with where that is less; the loop
  keeps it with a virtual clock (the bytes each active flow has been given since the start), a flow
  ending when the clock reaches its start plus its size. This is the same allocation as
  ``FlowNetwork``'s, not an approximation, where the interrupt cores are one resource every flow
  crosses (``cpu0``, ``spread``); with ``rss`` it takes the connections as spread evenly over the
  cores (one a core up to all), where hashing may put two on one core;
- a connection's socket holds at most its send buffer's payload (``_capacity``): a worker writes a
  window into it while it has room, else turns to its other connections until the link has drained
  it enough.

The random file picks are drawn up front (``stream(seed, "download")``), three a pair, in the
order the pairs start.
"""

from __future__ import annotations

import math

import numpy as np

from ..storage.drive_arrays import QUEUED, SERVING, jit
from .download_events import PIECE_DONE, RESUME, TRY, WRITE_BACK, pop, push
from .download_volume import (
    IN_FLIGHT,
    IN_FLIGHT_SINCE,
    SPAN_FROM,
    SPAN_TO,
    WAITED,
    read,
    read_or_cached,
    serve_next,
    wait,
    write_back,
)
from .nginx_workers import connect, loop, take, turn_ends

ACCEPTED = 9  # a client's state: its connection waits in the listen queue until a worker takes it
# a client's states: its worker reads and parses its request for the data file, or the md5 file
REQUESTED, MD5_REQUESTED = 10, 11


def scratch(clients: int, workers: int, drives: int, commands: int):
    """The loop's working arrays: the clients' counters and times (two read slots a client: the
    window it waits on and the one read ahead), the workers' queues of connections, a read's member
    commands (at most ``commands``), then the accept mutex's (``nginx_workers.accepting``)."""
    counts = tuple(np.zeros(n, np.int64) for n in [clients] * 8 + [2 * clients] * 2)
    counts[4][:] = -1  # asleep on no read
    counts[9][:] = -1  # no client waits on the read
    counts += tuple(np.zeros(workers, np.int64) for _ in range(4))
    counts += (np.zeros(clients, np.int64), np.full(drives, -1, np.int64))
    counts += (np.zeros(clients, np.int64),)  # whether a client's worker computes its request
    times = tuple(np.zeros(clients) for _ in range(5)) + (np.zeros(2 * clients), np.zeros(5))
    return (
        counts,
        times,
        np.zeros((workers, clients + 1), np.int64),
        np.zeros((commands, 3), np.int64),
    )


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
    request_s,
    cores,
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
    carried, asleep on opening reads s, asleep on data s, s with a volume read in flight); the
    drives' busy time, reads and cache hits are left in ``drive``.

    ``places``: a pair's reads, (index root, leaf, inode page, the md5 file's leaf or -1 when it is
    the same, the data file's start); ``cached``: whether a pair's pages are all in the page cache;
    ``link_Bps``: what the server link carries with 1, 2, ... flows active (index: the flows);
    ``flow_cap_Bps``: each client's link; ``request_s``: a worker's CPU time on a request, the
    connection holding it, on one of the host's ``cores``; ``write_back_s``: how long after its
    read each pair's inode page, its access times updated, is written back (negative: never);
    ``windows``: the read-ahead windows (offset, length);
    ``wmem``: tcp_wmem (min, default, max); ``drive``: ``drive_state``; the heaps:
    ``download_events.new_heap``; ``counts``, ``times``, ``waiting``, ``commands``: ``scratch``;
    ``accept``: ``nginx_workers.accepting``."""
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
        computing,
    ) = counts
    left_B, asleep_since, written, delivered, sending, read_done, busy = times
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
    asleep_opening_s, asleep_data_s = 0.0, 0.0
    in_cpu = 0  # workers computing a request
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
    turn_end = (held, waiting, wait_from, wait_count, worker_of, connections)
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
                write_back(c, volume, now, float(places[a, 2]), float(page_B))
            continue
        if kind == TRY:  # worker a's wait without the accept mutex is over: it loops
            next_try[a] = math.inf
            if finished < clients and not held[a]:  # (a busy worker loops when its turn ends)
                loop(a, now, turn_end, accept, event_heap)
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
                serve_next(c, drive, a, now, depth, event_heap)
            else:
                drive_i[a, SERVING] = 0
            continue
        cl = a
        if computing[cl]:  # its worker's request is done
            computing[cl] = 0
            in_cpu -= 1
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
            slot = -1  # the read slot the client goes on to wait for
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
                w = connect(cl, REQUESTED, turn_end, accept)
                if w < 0:  # in the listen queue until a worker takes the accept mutex
                    state[cl] = ACCEPTED
                    break
                state[cl] = REQUESTED
                if not take(held, waiting, wait_from, wait_count, flags, w, cl):
                    break
                continue
            elif st == 1:  # open the file: the directory index's root, its leaf, the inode page
                offset = places[pick[cl], step[cl]]
                slot = 2 * cl
                back_s = write_back_s[pick[cl]]
                if step[cl] == 2 and back_s >= 0.0:  # reading it updates the access times
                    push(ev_t, ev_rows, events, now + back_s, WRITE_BACK, pick[cl], 0)
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
                    read_or_cached(
                        c, volume, now, start + windows[0, 0], windows[0, 1], 2 * cl, hit
                    )
                    issued[cl] = 1
                # reaching window k (k >= 1; window 0 too when its mark is its first page) starts
                # the read of window k + 1
                if k + 1 < windows_n and issued[cl] == k + 1 and (k > 0 or mark_B == 0):
                    issued[cl] = k + 2
                    read_or_cached(
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
                if not wait(read_done, read_waiter, 2 * cl + k % 2, cl, now):
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
                        read_or_cached(
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
                    turn_ends(w, now, turn_end, accept, event_heap)
                    waits_writable[cl] = True
                    state[cl] = 4
                    break
                if step[cl] + 1 < windows_n:
                    step[cl] += 1
                    state[cl] = 2
                    continue
                turn_ends(w, now, turn_end, accept, event_heap)
                state[cl] = 5
                if written[cl] == delivered[cl]:
                    push(ev_t, ev_rows, events, now, RESUME, cl, 0)
                else:
                    waits_drained[cl] = True
                break
            elif st == 4:  # the socket has room again: back to the worker
                state[cl] = 3
                if not take(held, waiting, wait_from, wait_count, flags, w, cl):
                    break
                continue
            elif st == 5:  # the client has the data file: the md5 file, on a new connection
                if not keep_alive:
                    connections[w] -= 1
                    w = connect(cl, MD5_REQUESTED, turn_end, accept)
                    if w < 0:
                        state[cl] = ACCEPTED
                        break
                state[cl] = MD5_REQUESTED
                if not take(held, waiting, wait_from, wait_count, flags, w, cl):
                    break
                continue
            elif st == ACCEPTED:  # a worker took the accept mutex and this connection
                state[cl] = after_accept[cl]
                if not take(held, waiting, wait_from, wait_count, flags, w, cl):
                    break
                continue
            elif st == REQUESTED or st == MD5_REQUESTED:  # the worker takes the request (its CPU)
                state[cl] = 1 if st == REQUESTED else 6
                if request_s > 0.0:
                    # workers computing at once beyond the host's cores share them (as they stand
                    # when the request starts)
                    in_cpu += 1
                    computing[cl] = 1
                    share = in_cpu / cores if in_cpu > cores else 1.0
                    push(ev_t, ev_rows, events, now + request_s * share, RESUME, cl, 0)
                    break
                continue
            elif st == 6:  # the md5 file's leaf, when its name hashes to another one
                state[cl] = 7
                offset = places[pick[cl], 3]
                if offset < 0 or cached[pick[cl]]:
                    continue
                slot = 2 * cl
            elif st == 7:  # the md5 file's data, just after its data file
                if cached[pick[cl]]:
                    state[cl] = 8
                    continue
                offset = places[pick[cl], 4] + file_pages_B
                slot = 2 * cl
                sleep_kind = 1
                state[cl] = 8
            else:  # served: the client checks the file's md5 sum, then asks for the next pair
                connections[w] -= 1
                turn_ends(w, now, turn_end, accept, event_heap)
                state[cl] = 0
                push(ev_t, ev_rows, events, now + md5_check_s, RESUME, cl, 0)
                break
            # a page read (opening, or the md5 file's data): sleep on it
            length = md5_B if st == 7 else page_B
            read(c, volume, now, offset, length, slot)
            if not wait(read_done, read_waiter, slot, cl, now):
                asleep_kind[cl], asleep_since[cl] = sleep_kind, now
                if not math.isinf(read_done[slot]):
                    push(ev_t, ev_rows, events, read_done[slot], RESUME, cl, 0)
                break
    waited = busy[WAITED] + busy[SPAN_TO] - busy[SPAN_FROM]
    return end_s, carried_B, asleep_opening_s, asleep_data_s, waited


@jit(inline="always")
def _flow_Bps(link_Bps, flow_cap_Bps, flows):
    """The rate of each of ``flows`` active flows: its max-min share of what the server link
    carries with that many flows (``link_Bps[flows]``), or its client's link where that is less."""
    share = link_Bps[flows] / flows
    return share if share < flow_cap_Bps else flow_cap_Bps


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
