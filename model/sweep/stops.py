"""Which sweeps this process was told to stop (``model.sweep.point.end_kernels``), and the
papermill points it runs for each: shared by a point, which registers its kernel's folder, and
the kernel manager (``model.sweep.kernel``), which asks once it has started a kernel whether the
point's sweep was stopped meanwhile.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

# the folder of each papermill point running in this process, with its sweep's token (its spec's
# ``sweep``); and the sweeps stopped here (``stop``), a token each, kept for the process's life: a
# point of one that starts later ends its kernel at once
_RUNNING: dict[Path, str] = {}
_STOPPED: set[str] = set()
_RUNNING_LOCK = threading.Lock()  # a Dask worker runs points on threads side by side


@contextlib.contextmanager
def running(sweep: str, folder: Path) -> Iterator[None]:
    """The point of the sweep ``sweep`` (its token) runs its kernel in ``folder`` during the
    block."""
    with _RUNNING_LOCK:
        _RUNNING[folder] = sweep
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            del _RUNNING[folder]


class SweepStopped(Exception):
    """The point's sweep was stopped (``end_kernels``) as the point's kernel started."""


def refuse_if_stopped(folder: Path) -> None:
    """Raise ``SweepStopped`` where the point running its kernel in ``folder`` belongs to a sweep
    stopped here. The kernel manager asks once it has started the kernel
    (``model.sweep.kernel``), and ``stop`` marks a sweep stopped before its kernels are looked for:
    a kernel started before the mark is found by the look, and one started after it is ended by
    its point. A point registered but whose kernel had not started yet had escaped the look and
    run on (the review)."""
    with _RUNNING_LOCK:
        stopped = _RUNNING.get(folder) in _STOPPED
    if stopped:
        raise SweepStopped("the sweep was stopped as the point's kernel started; ended at once")


def stop(sweep: str) -> list[Path]:
    """Mark the sweep ``sweep`` (its token) stopped here, and give the kernel folders of its
    points running now."""
    with _RUNNING_LOCK:
        _STOPPED.add(sweep)
        return [folder for folder, its in _RUNNING.items() if its == sweep]
