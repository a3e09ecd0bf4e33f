"""The download loop's events, compiled with numba: what happens next, in SimPy's order.

``model.servers.download_loop`` takes what happens next to its clients, drives and workers from one
heap of events, a binary heap kept in arrays (``new_heap``): each entry is a time, the order it was
scheduled in, its kind and two integers (the client, drive, pair or worker it is about; a drive's
read slot). ``pop`` gives the events in time order and, at one time, in the order they were
scheduled (``push``), as SimPy's event queue does. A heap of the same kind keeps the link's flows,
with the link's virtual clock (bytes) for times and a flow's client for its kind: the flows come
out in the order they end.
"""

from __future__ import annotations

import numpy as np

from ..storage.drive_arrays import jit

# The events' kinds: a client resumes, a queueing drive finishes a command, a pair's inode page is
# written back, a worker tries the accept mutex again
RESUME, PIECE_DONE, WRITE_BACK, TRY = 0, 1, 2, 3
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
