"""nginx's workers and its accept mutex in the download loop, compiled with numba.

Which worker serves a connection, and when, as ``model.servers.download`` describes the server
(its docstring gives the reasons and the sources), for ``model.servers.download_loop``:

- a worker is a FIFO lock (``simpy.Resource`` of one): a connection that finds it free takes it at
  once (``take``), without the zero-delay event SimPy spends on the grant (the same instant; only
  the order of commands sent at one instant can differ, which is equal in expectation); when its
  turn at a connection ends (``turn_ends``), it turns to the next connection waiting for it;
- nginx's accept mutex (``accepting``): a new connection (``connect``) goes to the worker waiting
  with the mutex, or waits in the listen queue until a worker's event loop takes the mutex
  (``loop``: at the end of each of its turns, or at a ``TRY`` event ``accept_mutex_delay`` after
  a free worker missed it); the first tries' phases are drawn from
  ``stream(seed, "nginx accept")``. Without the mutex, every worker hears of a connection and an
  idle one takes it, else the one with the fewest connections.

The workers' arrays are the loop's (``download_loop.scratch``), passed as ``turn_end``: (held,
waiting, wait_from, wait_count, worker_of, connections); ``accept`` is
``accepting``'s.
"""

from __future__ import annotations

import math

import numpy as np

from ..storage.drive_arrays import jit
from .download_events import RESUME, TRY, push

# The accept mutex's integers (``accepting``'s first array): whether it is used, the worker that
# holds it waiting for connections (-1: none), the listen queue's first slot and its length
MUTEX_ON, HOLDER, LISTEN_FROM, LISTEN_COUNT = range(4)


def accepting(clients: int, workers: int, mutex: bool, delay_s: float, first_tries_s):
    """The accept mutex's state (``download_loop.run``'s ``accept``): nginx's ``accept_mutex`` when
    ``mutex`` and more than one worker. Worker 0 holds it first, waiting for connections; each other
    worker tries it first at its ``first_tries_s`` (its start's phase in its ``delay_s`` cycle).
    Then the connections waiting to be accepted (at most every client's), the state each goes on to
    once a worker has it, and each worker's next try (infinite: none pending)."""
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


@jit("i8(i8[::1])")
def _fewest(connections):
    """The worker with the fewest connections (the first of equals)."""
    best = 0
    for w in range(1, connections.shape[0]):
        if connections[w] < connections[best]:
            best = w
    return best


@jit("b1(i8[::1], i8[:, ::1], i8[::1], i8[::1], i8[::1], i8, i8)")
def take(held, waiting, wait_from, wait_count, flags, w, cl):
    """Whether ``cl`` has worker ``w`` now, its turn beginning (a worker that held the accept
    mutex lets it go first: nginx unlocks before it handles the events it posted); else it waits
    its turn (FIFO)."""
    if not held[w]:
        held[w] = True
        if flags[HOLDER] == w:
            flags[HOLDER] = -1
        return True
    ring = waiting.shape[1]
    waiting[w, (wait_from[w] + wait_count[w]) % ring] = cl
    wait_count[w] += 1
    return False


@jit("void(i8[::1], i8[:, ::1], i8[::1], i8[::1], i8, f8, f8[::1], i8[:, ::1], i8[::1])")
def _give(held, waiting, wait_from, wait_count, w, now, ev_t, ev_rows, events):
    """Worker ``w`` turns to the next connection waiting for it, if any."""
    if not wait_count[w]:
        held[w] = False
        return
    nxt = waiting[w, wait_from[w]]
    wait_from[w] = (wait_from[w] + 1) % waiting.shape[1]
    wait_count[w] -= 1
    push(ev_t, ev_rows, events, now, RESUME, nxt, 0)


@jit
def connect(cl, after, turn_end, accept):
    """A new connection from client ``cl``: the worker that accepts it, or -1 while it waits in the
    listen queue (it goes on to state ``after`` once a worker has it). Without the accept mutex,
    every worker hears of it and an idle one takes it (``_fewest``); with it, the worker waiting
    with the mutex accepts it and lets the mutex go."""
    connections = turn_end[5]
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
    worker_of, connections = turn_end[4], turn_end[5]
    worker_of[cl] = w
    connections[w] += 1


@jit
def turn_ends(w, now, turn_end, accept, event_heap):
    """Worker ``w``'s turn at a connection ends: it turns to the next waiting one, if any
    (``_give``), and runs its event loop once (``loop``)."""
    held, waiting, wait_from, wait_count = turn_end[:4]
    ev_t, ev_rows, events = event_heap
    _give(held, waiting, wait_from, wait_count, w, now, ev_t, ev_rows, events)
    if accept[0][MUTEX_ON]:
        loop(w, now, turn_end, accept, event_heap)


@jit
def loop(w, now, turn_end, accept, event_heap):
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
