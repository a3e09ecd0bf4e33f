"""Run a sweep's points on a local process pool or a Dask cluster, each written as it finishes.

Each point runs as ``model.sweep.point`` runs it, under the id ``model.sweep.specs`` gives it. A
point that fails is stored with its error and the others go on; points already in the store are
skipped, so an interrupted sweep resumes where it stopped. A failure outside the model (a kernel
that died, a port in use, a worker the system killed) is run again up to ``RETRIES`` times at
once, but for a point that killed its Dask workers; ``retry_failed`` runs every stored failure
again. Ctrl-C keeps the points finished and stops the rest at once (status 130), on a Dask cluster
too (``model.sweep.cluster``, which also checks the cluster's workers before any point runs); a
full disk, a lost scheduler or a cluster without workers stops the sweep with one line.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import os
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Iterator
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any

from .. import paths
from ..errors import INTERRUPTED_STATUS, UserError, one_line
from ..progress import counter
from . import cluster
from .grid import Grid
from .point import INFRASTRUCTURE, failed, run_point
from .pool import Pool
from .specs import specs
from .store import Stopped, Store

RETRIES = 2  # an infrastructure failure is run again up to twice in the same sweep
SCHEDULER_TIMEOUT_S = 10  # to reach a Dask scheduler before giving up
POLL_S = 0.05  # how long a sweep on a cluster waits for a point between looks at its workers


def _again(record: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any] | None:
    """The spec to run once more when ``record`` is an infrastructure failure with tries left."""
    attempt = spec.get("attempt", 1)
    if record["status"] == "failed" and record["failure"] == INFRASTRUCTURE and attempt <= RETRIES:
        return dict(spec, attempt=attempt + 1)
    return None


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity: a batch job's share of a node, not the
    node's every core), where the system tells; else the machine's."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # a system without affinity (macOS)
        return os.cpu_count() or 1


def _serial(todo: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    queue = deque(todo)
    while queue:
        spec = queue.popleft()
        record = run_point(spec)
        again = _again(record, spec)
        if again is None:
            yield record
        else:
            queue.appendleft(again)


def _local(todo: list[dict[str, Any]], workers: int) -> Iterator[dict[str, Any]]:
    pool = Pool(run_point, workers)
    try:
        for spec in todo:
            pool.submit(spec)
        for spec, record, died in pool.results():
            record = record or failed(spec, died, INFRASTRUCTURE)
            again = _again(record, spec)
            if again is None:
                yield record
            else:
                pool.submit(again)
    finally:
        pool.close()


TCP_PORTS = range(1, 65536)  # a port a scheduler listens on


def check_address(scheduler: str) -> None:
    """Refuse in one line, at once, an address that names no Dask scheduler: one Dask cannot
    parse, or a TCP port no scheduler can listen on (port 99999 had been tried for 14 s, then
    said to answer no scheduler)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(scheduler)
        if scheme in ("tcp", "tls") and parse_host_port(location)[1] not in TCP_PORTS:
            raise ValueError(f"port {parse_host_port(location)[1]} is not one of 1 to 65535")
    except ValueError as exc:
        raise _refusal(scheduler, exc) from None


def _connect(scheduler: str):
    """A Dask client of the scheduler at ``scheduler``; one line when none answers."""
    from dask.distributed import Client

    check_address(scheduler)
    try:
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
    except Exception as exc:
        failure = exc
    # The half-made Client lives on in reference cycles, some still 'connecting'. Left to a later
    # collection, its __del__ closes it wherever that falls: inside another Client's start, which
    # holds the lock its close takes, the process hung (a test run stopped by pytest-timeout in
    # distributed's LoopRunner.stop). Dropped with the tracebacks that hold it, and collected here.
    failure.__traceback__ = failure.__context__ = failure.__cause__ = None
    gc.collect()
    raise _refusal(scheduler, failure) from None


def _refusal(scheduler: str, failure: Exception) -> UserError:
    """The one line a scheduler Dask could not connect to gets."""
    if isinstance(failure, ValueError):  # not an address Dask can parse
        return UserError(
            "--scheduler",
            None,
            f"{scheduler} is not a Dask scheduler address ({one_line(str(failure))}): give "
            "tcp://HOST:PORT, as the scheduler prints it",
        )
    if isinstance(failure, (OSError, TimeoutError)):
        return UserError(
            "--scheduler",
            None,
            f"no Dask scheduler answers at {scheduler} within {SCHEDULER_TIMEOUT_S} s "
            f"({type(failure).__name__})",
        )
    # a protocol Dask cannot open as configured (tls:// with no certificates in the Dask
    # configuration, ucx:// without UCX)
    hints = {
        "tls://": " (a tls:// scheduler needs its certificates in Dask's configuration, "
        "distributed.comm.tls)",
        "ucx://": " (a ucx:// scheduler needs UCX and its Dask support, distributed-ucxx, "
        "which the lab does not install)",
    }
    hint = next((h for scheme, h in hints.items() if scheduler.startswith(scheme)), "")
    return UserError(
        "--scheduler",
        None,
        f"cannot connect to {scheduler}: {type(failure).__name__}: {failure}{hint}",
    )


def _as_finished(finished, watch: cluster.Watch) -> Iterator:
    """Each future of ``finished`` (Dask's ``as_completed``, to which futures may be added
    meanwhile) as it finishes, the cluster's workers watched all the while (``watch``)."""
    while not finished.is_empty():
        watch.look()
        batch = finished.next_batch(block=False)
        if not batch:
            time.sleep(POLL_S)
        yield from batch


def _killed_worker(spec: dict[str, Any], exc) -> dict[str, Any]:
    """The record of a point whose workers died as they ran it, as many times as Dask allows
    (``KilledWorker``): not run again, which would kill as many more (the sweep audit's point that
    killed 12 workers); a rerun of the sweep runs it again."""
    times = exc.allowed_failures + 1
    return failed(spec, f"killed its worker {times} times (Dask's KilledWorker)", INFRASTRUCTURE)


def _dask(todo: list[dict[str, Any]], client, scheduler: str, out: Path, bar) -> Iterator[dict]:
    """The points ``todo`` run on the cluster of ``client`` (``_on_cluster``), each record as it
    comes; the client closed at the end, however it ends."""
    try:
        with cluster.marked(out, todo[0]["engine"] == "papermill") as marker:
            yield from _on_cluster(todo, client, scheduler, out, marker, bar)
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=2)


def _on_cluster(
    todo: list[dict[str, Any]], client, scheduler: str, out: Path, marker: str | None, bar
) -> Iterator[dict]:
    """The points ``todo`` run on the cluster of ``client``, each record as it comes. Its workers
    are checked first (``_first_workers``), and watched as the points run (``cluster.Watch``:
    their number shown beside the progress); a point that fails outside the model runs again
    (``_outcome``); a lost or silent scheduler stops the sweep (``_lost``), and the sweep's work
    ends on the cluster when the sweep stops otherwise (``cluster.stop``)."""
    from dask.distributed import as_completed as dask_completed

    running: dict[Any, dict[str, Any]] = {}
    try:
        checker = functools.partial(cluster.check, client, todo, out, marker)
        workers = _first_workers(client, scheduler, checker)
        watch = cluster.Watch(
            client, scheduler, checker, workers, lambda n: bar.note(f"{n} worker{'s' * (n != 1)}")
        )
        running = {client.submit(run_point, s, pure=False): s for s in todo}
        finished = dask_completed(list(running))
        for future in _as_finished(finished, watch):
            record, again = _outcome(future, running.pop(future))
            if again is None:
                yield record
            else:
                retry = client.submit(run_point, again, pure=False)
                running[retry] = again
                finished.add(retry)
    except (OSError, CancelledError) as exc:  # CommClosedError, SchedulerSilent: OSErrors
        raise _lost(scheduler, exc) from None
    except BaseException:  # Ctrl-C, SIGTERM, or the sweep stopped: its work on the cluster too
        if running:
            cluster.stop(client, list(running), todo[0]["sweep"])
        raise


def _first_workers(client, scheduler: str, checker) -> set[str]:
    """The cluster's workers as the sweep starts, each checked (``checker``, ``cluster.check``'s:
    a user's mistake, status 2, before any point runs); where there is none yet, one line says
    how long the points wait for one (else they waited without a word)."""
    workers = cluster.workers_of(client, scheduler)
    found = checker(sorted(workers)) if workers else None
    if found is not None:
        raise UserError("--scheduler", None, found[1])
    if not workers:
        print(
            f"{scheduler}: no Dask worker is connected yet; the points wait up to "
            f"{cluster.NO_WORKERS_S:g} s for one",
            file=sys.stderr,
            flush=True,
        )
    return workers


def _outcome(future, spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The record of the point ``spec`` that ``future`` ran, and the spec to run it again with
    (``_again``), if any: none for a point that killed its workers (``_killed_worker``). A lost
    scheduler raises."""
    from dask.distributed import KilledWorker

    try:
        record = future.result()
    except (OSError, CancelledError):
        raise
    except KilledWorker as exc:
        return _killed_worker(spec, exc), None
    except Exception as exc:  # the point did not reach run_point (not deserialized)
        line = traceback.format_exception_only(type(exc), exc)[-1].strip()
        record = failed(spec, line, INFRASTRUCTURE)
    return record, _again(record, spec)


def _lost(scheduler: str, exc: BaseException) -> Stopped:
    """The sweep's one line (status 1) for the scheduler at ``scheduler`` lost (``exc``) or silent
    (``cluster.SchedulerSilent``)."""
    lost = (
        str(exc)
        if isinstance(exc, cluster.SchedulerSilent)
        else f"lost the Dask scheduler at {scheduler} ({type(exc).__name__})"
    )
    return Stopped(
        "--scheduler", None, f"{lost}; the points finished are kept, run the sweep again to resume"
    )


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask logs its own tracebacks (a reconnect cancelled when the scheduler is gone) that would
    bury the sweep's one line; a failure reaches the user as that line."""
    import distributed  # noqa: F401 (its import sets its loggers' levels: set ours after)

    names = ["distributed"] + [
        n for n in logging.root.manager.loggerDict if n.startswith("distributed.")
    ]
    loggers = [logging.getLogger(name) for name in names]
    previous = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, previous, strict=True):
            logger.setLevel(level)


def _terminated(signum, frame) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _signals_to(handler, signals=(signal.SIGINT, signal.SIGTERM)) -> Iterator[None]:
    """``handler`` for ``signals`` during the block, the ones before it after; nothing off the main
    thread (a Dask worker's threads), where Python sets no handler. A signal the sweep was started
    ignoring (a shell script's background job ignores Ctrl-C) stays ignored: holding it
    had stopped such a sweep when it came while a point was stored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {
        sig: signal.signal(sig, handler)
        for sig in signals
        if signal.getsignal(sig) != signal.SIG_IGN
    }
    try:
        yield
    finally:
        for sig, before in previous.items():
            signal.signal(sig, before)


@contextlib.contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """A SIGTERM (timeout, a batch scheduler ending the job, kill) ends the run as Ctrl-C does:
    the points finished are stored and the table written; by default it killed the process before
    that, leaving the workers' scratch folders behind."""
    with _signals_to(_terminated, (signal.SIGTERM,)):
        yield


@contextlib.contextmanager
def _ctrl_c_after() -> Iterator[None]:
    """A Ctrl-C (or SIGTERM) during the block is held until it ends, then raised: a point's record
    written and counted together (a Ctrl-C between the two had kept a point the interrupted
    sweep's line did not count)."""
    held: list[int] = []
    with _signals_to(lambda signum, frame: held.append(signum)):
        yield
    if held:
        raise KeyboardInterrupt


@contextlib.contextmanager
def _ignoring_ctrl_c() -> Iterator[None]:
    with _signals_to(signal.SIG_IGN):
        yield


# a sweep whose points run long, or hang, says so at least this often in a log (model.progress)
HEARTBEAT_S = 120.0


def _tell_others(stored: set[str], places: dict[str, int], todo: list, out: Path) -> None:
    """One line on standard error where the folder holds points (``stored``: their ids) that are
    not the grid's as the
    lab computes it now, and some of the grid's run: a grid of the same name (sweeps/NAME), or
    points run on other model code, calibration or catalog (the sweep audit: after a comment added
    to a module, 250 stored points ran again, said only as '250 run now, 0 already done')."""
    others = len(stored - set(places))
    if others and todo:
        print(
            f"{paths.shown(out)}: {others:,} stored point{'s' if others > 1 else ''} "
            f"{'are' if others > 1 else 'is'} not this grid's as the lab computes it now "
            "(another grid's, or run on other model code, calibration or catalog): they stay "
            "in points/, out of this grid's results, and its own points run",
            file=sys.stderr,
            flush=True,
        )


def run(
    grid: Grid,
    points: list[dict[str, Any]],
    out: Path,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    retry_failed: bool = False,
) -> tuple[int, int, int]:
    """Run the points not yet in the store (with ``retry_failed``, the failed ones too); returns
    (finished now, failed now, skipped), counting the points on standard error with ``progress``
    (``model.progress``). Ctrl-C raises ``Stopped`` (status 130) once the points
    finished are stored; a lost scheduler or a full disk raises ``Stopped`` (status 1)."""
    store = Store(out)
    quiet = _quiet_dask() if scheduler else contextlib.nullcontext()
    with store.lock(), quiet, sigterm_as_ctrl_c():
        todo_all = specs(grid, points, out)
        places = {s["point_id"]: s["index"] for s in todo_all}  # each point's place in the grid
        stored = store.done()
        done = store.done(ok_only=True) if retry_failed else stored
        todo = [s for s in todo_all if s["point_id"] not in done]
        skipped = len(todo_all) - len(todo)
        _tell_others(stored, places, todo, out)
        client = _connect(scheduler) if scheduler and todo else None
        bar = counter(
            len(todo), f"sweep {grid.name}" if progress else None, "point", heartbeat_s=HEARTBEAT_S
        )
        finished = failed_now = 0
        records = None
        workers = min(workers or usable_cores(), len(todo))
        try:
            if client is not None:
                records = _dask(todo, client, scheduler, out, bar)
            elif workers <= 1:
                records = _serial(todo)
            else:
                records = _local(todo, workers)
            for record in records:
                with _ctrl_c_after():  # a point stored is a point counted
                    if record["engine"] == "papermill":
                        store.keep_notebook(record["point_id"], todo[0]["sweep"])
                    store.write(record)
                    finished += 1
                    failed_now += record["status"] == "failed"
                bar.update(1)
        except KeyboardInterrupt:
            with _ignoring_ctrl_c():  # a second Ctrl-C waits for the table
                if records is not None:
                    records.close()  # stops the workers
                bar.close()
                store.gather(places)
            raise Stopped(
                paths.shown(out),
                None,
                f"interrupted; {finished} point{'' if finished == 1 else 's'} finished now "
                f"{'is' if finished == 1 else 'are'} kept "
                f"({len(todo) - finished} left), run the sweep again to resume",
                INTERRUPTED_STATUS,
            ) from None
        except BaseException:
            with _ignoring_ctrl_c():
                if records is not None:  # stops the workers: a pool left running held the exit
                    with contextlib.suppress(Exception):
                        records.close()
                bar.close()
                with contextlib.suppress(Exception):  # the first error is the one to report
                    store.gather(places)
            raise
        bar.close()
        with _ignoring_ctrl_c():  # every point ran: the table is written whatever comes now
            store.gather(places)
    return finished, failed_now, skipped
