"""A local pool of worker processes that knows which point each worker runs.

Unlike ``concurrent.futures.ProcessPoolExecutor``, a worker the system kills (out of memory) costs
only its own point, reported as a failure naming the signal, and a fresh worker takes its place;
the other points go on. Workers ignore Ctrl-C (the parent decides: ``close()`` kills them at once,
so an interrupted sweep keeps what finished and discards nothing else), and each ends by itself
within half a second when its parent dies, whatever killed the parent. Workers are forked, so they
start with the parent's loaded modules and caches.

Each worker keeps its temporary files in a scratch folder of its own, and a worker killed takes
with it the processes it started (a papermill point's kernel, which runs in a session of its own
and would otherwise outlive it, its sockets and connection file in its point's folder) and that
folder. ``using`` and ``end`` find and end such processes for a point too (``model.sweep.point``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import psutil

PARENT_POLL_S = 0.5


def _watch_parent(parent_pid: int, scratch: str) -> None:
    """End the worker, what it started and its scratch folder when its parent is gone."""
    while os.getppid() == parent_pid:
        time.sleep(PARENT_POLL_S)
    _end(_descendants(os.getpid()), Path(scratch))
    os._exit(1)


def _ignore(signum, frame) -> None:
    """A worker's SIGTERM: its parent ends it once it has stored what it finished."""


def _serve(conn: Connection, parent_pid: int, task: Callable[[Any], Any], scratch: str) -> None:
    """A worker: run each spec it receives, send back the result; end quietly on any loss. Its
    temporary files, and those of the processes it starts, go to ``scratch``."""
    tempfile.tempdir = scratch
    os.environ["TMPDIR"] = scratch
    # the parent ends its workers (Ctrl-C, or a SIGTERM to the whole process group, which it
    # takes as one) once it has stored what they finished
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # a handler that does nothing, not SIG_IGN: a handler goes back to the default in a program
    # the worker starts (a notebook's kernel), which its own manager may need to end with SIGTERM
    signal.signal(signal.SIGTERM, _ignore)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    threading.Thread(target=_watch_parent, args=(parent_pid, scratch), daemon=True).start()
    try:
        while True:
            conn.send(task(conn.recv()))
    except BaseException:  # the parent closed the pipe or is gone: nothing to report to
        os._exit(0)


class _Worker:
    def __init__(self, task: Callable[[Any], Any]):
        self.scratch = Path(tempfile.mkdtemp(prefix="sweep-"))
        self.conn, child = multiprocessing.Pipe()
        context = multiprocessing.get_context("fork")
        self.process = context.Process(
            target=_serve, args=(child, os.getpid(), task, str(self.scratch)), daemon=True
        )
        # Ctrl-C or SIGTERM between the fork and the worker's own handlers would run the parent's
        # in the worker (a traceback)
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            self.process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        child.close()
        self.job: Any = None

    def kill(self) -> None:
        """End the worker, every process it started and its scratch folder, at once."""
        if self.process.exitcode is None:
            started = _descendants(self.process.pid)
        else:  # it died by itself: what it started are orphans now, found by their files
            started = using(self.scratch)
        self.process.kill()
        self.process.join(timeout=2)
        _end(started, self.scratch)
        self.conn.close()


def _end(processes: list[psutil.Process], scratch: Path) -> None:
    """Kill ``processes``, wait for them (up to 2 s), then remove ``scratch``: removed while a
    kernel was still dying, a file it or its manager wrote meanwhile had left the folder behind
    (a fresh clone's CI, once)."""
    end(processes)
    psutil.wait_procs(processes, timeout=2)
    for _ in range(SCRATCH_TRIES):
        shutil.rmtree(scratch, ignore_errors=True)
        if not scratch.exists():
            return
        time.sleep(0.1)


SCRATCH_TRIES = 5  # removals of a worker's scratch folder while the last files in it go


def end(processes: list[psutil.Process]) -> None:
    """Kill ``processes`` at once (those already gone are passed over)."""
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.kill()


def _descendants(pid: int | None) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except (psutil.Error, ValueError):  # ended already, or never started
        return []


def using(folder: Path) -> list[psutil.Process]:
    """The processes whose command line names a file in ``folder`` (a kernel names its connection
    file there)."""
    prefix = str(folder) + os.sep
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if any(prefix in arg for arg in process.info["cmdline"] or ()):
            found.append(process)
    return found


def death(exitcode: int | None) -> str:
    """Why a worker ended, in words."""
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name
        hint = (
            " (the system kills a worker that runs out of memory so)" if name == "SIGKILL" else ""
        )
        return f"worker process killed by {name}{hint}"
    return f"worker process ended with status {exitcode}"


class Pool:
    """``workers`` processes running ``task`` on the jobs given to ``submit``."""

    def __init__(self, task: Callable[[Any], Any], workers: int):
        self.task = task
        self.workers = [_Worker(task) for _ in range(workers)]
        self.queue: deque = deque()

    def submit(self, job: Any) -> None:
        self.queue.append(job)

    def results(self) -> Iterator[tuple[Any, Any, str | None]]:
        """(job, result, None) as each job finishes, or (job, None, why) when its worker died;
        jobs submitted meanwhile are run too."""
        while True:
            for worker in self.workers:
                if worker.job is None and self.queue:
                    worker.job = self.queue.popleft()
                    worker.conn.send(worker.job)
            busy = [w for w in self.workers if w.job is not None]
            if not busy:
                return
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
            for worker in busy:
                if worker.conn in ready or worker.conn.poll():
                    try:
                        result = worker.conn.recv()
                    except (EOFError, OSError):
                        pass  # died while answering: its sentinel reports it below
                    else:
                        job, worker.job = worker.job, None
                        yield job, result, None
                        continue
                if worker.process.sentinel in ready or not worker.process.is_alive():
                    worker.process.join()
                    job, why = worker.job, death(worker.process.exitcode)
                    worker.kill()
                    self.workers[self.workers.index(worker)] = _Worker(self.task)
                    yield job, None, why

    def close(self) -> None:
        """Kill every worker at once (running jobs are abandoned). A Ctrl-C or SIGTERM meanwhile
        waits until every worker is dead: one that cut the loop short left a worker alive, which
        ignores the SIGTERM the interpreter's exit sends its daemons and joined it for ever, the
        sweep's folder locked (the sweep audit's double Ctrl-C). One raised before the mask took
        hold (a Ctrl-C the interpreter had received but not yet raised: ``timeout -s INT`` sends
        one to the sweep and one to its group) is kept until every worker is dead, then raised."""
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        interrupted = False
        try:
            left = list(self.workers)
            while left:
                try:
                    left[0].kill()
                except KeyboardInterrupt:  # delivered before the mask (timeout -s INT sends two)
                    interrupted = True
                    continue  # the same worker again: a kill already done is done again
                left.pop(0)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        if interrupted:
            raise KeyboardInterrupt
