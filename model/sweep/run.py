"""Run a sweep's points on a local process pool or a Dask cluster, each written as it finishes.

Each point runs in-process through ``simulate()`` (``engine: inprocess``) or through papermill on
a parameterised notebook (``engine: papermill``; the executed notebook is kept beside the
results). A point that fails is stored with its error and the others go on; points already in
the store are skipped, so an interrupted sweep resumes where it stopped. A failure is classified:
``model`` (the scenario or the notebook's cells raised) or ``infrastructure`` (a kernel that died,
a port in use, a worker the system killed), which is run again up to ``RETRIES`` times at once;
``retry_failed`` runs every stored failure again. Ctrl-C keeps the points finished and stops the
rest at once (status 130); a full disk or a lost scheduler stops the sweep with one line.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Iterator
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any

from .. import paths, provenance
from ..errors import INTERRUPTED_STATUS, UserError, one_line
from ..progress import counter
from .grid import Grid, names_a_file, notebook_value, setting, setting_text
from .pool import Pool
from .store import Stopped, Store, point_id, point_settings

SWEEP_POINT_NOTEBOOK = "notebooks/sweep_point.ipynb"
# A point's kernel logs nothing: jupyter_client shuts a kernel down by interrupting it first, which
# a kernel still answering a message logs as an ERROR ("KeyboardInterrupt caught in kernel."), and
# over TCP ipykernel 7 warns on every start that CurveZMQ keys are missing. Nor does tornado, whose
# logger printed a traceback ("Uncaught exception in ZMQStream callback", a ZMQError from a socket
# already closed) when a Ctrl-C stopped a kernel in mid-reply. A point's own errors still reach its
# notebook and its record.
QUIET_KERNEL = [
    "--IPKernelApp.log_level=CRITICAL",
    "--IPKernelApp.exec_lines="
    "import logging as _l; _l.getLogger('tornado').disabled = True; del _l",
]


# How long jupyter_client lets a point's kernel stop by itself once asked, in seconds: half of it
# waiting for the kernel to exit, then SIGTERM and the other half. A kernel stops in a tenth of a
# second or so; about one in six ipykernel 7.4 kernels hangs at exit instead and never stops unasked
# (measured: 5 of 30 empty notebooks waited the default's full 2.5 s, then were terminated), which
# cost a papermill sweep 0.5 s a point on average. With 1 s the rest exit as before.
KERNEL_SHUTDOWN_WAIT_S = 1.0


def kernel_options(folder: Path) -> dict[str, Any]:
    """papermill's options for a quiet kernel that talks over Unix sockets in ``folder`` and is
    stopped within ``KERNEL_SHUTDOWN_WAIT_S`` once its notebook is done.

    The kernel is the lab's ``python3`` (the environment's own Python) and the parameters are
    written as Python, whatever kernel or language the notebook's metadata names: papermill takes
    the parameters' language from the metadata unless told (the kernel's name does not tell it),
    and with ``language: bash`` there it wrote the grid's values into the parameters cell in bash's
    quoting, which the Python kernel then ran.

    Over TCP jupyter_client picks five free ports, closes them and lets the kernel bind them;
    kernels started at once on a pool can take each other's port ("Address already in use") and
    the client then waits 60 s for a kernel that never answers. Sockets in the point's own temporary
    folder cannot collide. A Unix socket's path holds at most ``IPC_PATH_MAX_LEN`` bytes (107 on
    Linux): in a folder deeper than that (a long ``TMPDIR``) the kernel could not start, and there,
    as on Windows, which has no Unix sockets for ZeroMQ, the kernel stays on TCP.
    """
    from traitlets.config import Config

    manager: dict[str, Any] = {"shutdown_wait_time": KERNEL_SHUTDOWN_WAIT_S}
    sockets = folder / "k"  # the kernel binds k-1 to k-5
    if os.name == "posix" and len(os.fsencode(f"{sockets}-5")) <= _ipc_path_max():
        manager.update(transport="ipc", ip=str(sockets))
    return {
        "kernel_name": "python3",
        "language": "python",
        "progress_bar": False,
        "extra_arguments": QUIET_KERNEL,
        "config": Config({"KernelManager": manager}),
    }


def _this_checkout_first() -> None:
    """The kernels this process starts import ``model`` from this checkout, whatever package an
    environment shared with another checkout installed (``pip install -e`` of the other: a point's
    kernel computed with that one's code, which the worker's own check did not see). Set for the
    process and kept (a Dask worker's threads start kernels side by side)."""
    root = str(paths.PROJECT_ROOT)
    before = os.environ.get("PYTHONPATH", "")
    if before.split(os.pathsep)[0] != root:
        os.environ["PYTHONPATH"] = os.pathsep.join([root, *([before] if before else [])])


def _ipc_path_max() -> int:
    import zmq

    return getattr(zmq, "IPC_PATH_MAX_LEN", 0) or 0


SCHEDULER_TIMEOUT_S = 10  # to reach a Dask scheduler before giving up


def _inprocess(spec: dict[str, Any]) -> dict[str, Any]:
    from .. import scenario as scenario_module
    from ..simulate import simulate

    overrides = list(spec["base"]) + [
        setting(k, v, spec["folder"]) for k, v in spec["point"].items()
    ]
    # a file a value names was resolved in the grid's folder: read as given; a refusal names the
    # point's key (``point: volumes.md0.level: ...``), not --set
    scenario = scenario_module.load(
        spec["scenario"], overrides, typed=True, where_overrides="point"
    )
    result = simulate(scenario)
    out = {
        k: v for k, v in result.to_dict().items() if k not in ("utilization", "notes", "scenario")
    }
    out["utilization"] = json.dumps(result.utilization, sort_keys=True)
    if spec.get("intervals"):
        from .. import uncertainty

        interval = uncertainty.interval(scenario)
        out["interval_90_low_MBps"] = interval.low
        out["interval_90_high_MBps"] = interval.high
        out["drivers"] = json.dumps(interval.drivers, sort_keys=True)
    return out


def _papermill(spec: dict[str, Any]) -> dict[str, Any]:
    import papermill

    notebook = paths.PROJECT_ROOT / spec["notebook"]
    out_nb = Path(spec["out"]) / "notebooks" / f"{spec['point_id']}.ipynb"
    out_nb.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        result_path = Path(tmp) / "result.json"
        if spec["scenario"] is not None:  # scenario keys are dotted: they travel as one mapping
            # every value as the YAML text --set reads (the notebook joins key=value)
            settings = dict(o.split("=", 1) for o in spec["base"])
            settings.update(
                {k: setting_text(k, v, spec["folder"]) for k, v in spec["point"].items()}
            )
            parameters = {"scenario": spec["scenario"], "settings": settings}
        else:
            parameters = {k: notebook_value(v, spec["folder"]) for k, v in spec["point"].items()}
            if spec["seed"] is not None:  # the grid checked that the notebook declares it
                parameters.setdefault("seed", spec["seed"])
        parameters["result_path"] = str(result_path)
        # executed beside the result, kept once it ran to its end or to its error: a point
        # interrupted leaves no half-run notebook among the finished ones
        running_nb = Path(tmp) / "point.ipynb"
        _this_checkout_first()
        try:
            papermill.execute_notebook(
                str(notebook),
                str(running_nb),
                parameters=parameters,
                cwd=str(notebook.parent),
                **kernel_options(Path(tmp)),
            )
        except Exception:
            if running_nb.exists():
                shutil.move(running_nb, out_nb)
            raise
        shutil.move(running_nb, out_nb)
        figures = json.loads(result_path.read_text())
    if not isinstance(figures, dict):
        raise ValueError(
            f"the notebook wrote {type(figures).__name__} to result_path; it must be a JSON "
            "object of named figures"
        )
    return figures


MODEL, INFRASTRUCTURE = "model", "infrastructure"
RETRIES = 2  # an infrastructure failure is run again up to twice in the same sweep
# failures outside the model: a kernel gone, a port taken, a worker killed, a lost scheduler
OUTSIDE_THE_MODEL = {
    "DeadKernelError",
    "CellTimeoutError",
    "ZMQError",
    "KeyboardInterrupt",
    "MemoryError",
    "KilledWorker",
    "CommClosedError",
}
OUTSIDE_PACKAGES = ("jupyter_client", "nbclient", "zmq", "ipykernel", "distributed")


def failure_kind(exc: BaseException) -> str:
    """``infrastructure`` for a failure outside the model (worth running again), else ``model``."""
    name = type(exc).__name__
    if name == "PapermillExecutionError":  # a cell raised: the model's failure, unless interrupted
        return INFRASTRUCTURE if getattr(exc, "ename", "") in OUTSIDE_THE_MODEL else MODEL
    if name in OUTSIDE_THE_MODEL or isinstance(exc, (OSError, MemoryError, TimeoutError)):
        return INFRASTRUCTURE
    frames = traceback.extract_tb(exc.__traceback__)
    raised_in = frames[-1].filename if frames else ""
    if any(f"{os.sep}{package}{os.sep}" in raised_in for package in OUTSIDE_PACKAGES):
        return INFRASTRUCTURE  # e.g. jupyter_client's "Kernel died before replying"
    return MODEL


INT64 = range(-(2**63), 2**63)  # the integers a parquet column holds


def _storable(value: Any) -> Any:
    """``value`` as one parquet column holds it whatever the other points hold: a list or a mapping
    as its JSON text, as ``utilization`` is, and an integer beyond 64 bits as its digits."""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, sort_keys=True, default=str)
    if isinstance(value, int) and value not in INT64:
        return str(value)
    return value


def _record(spec: dict[str, Any]) -> dict[str, Any]:
    record = {
        "point_id": spec["point_id"],
        "point_index": spec["index"],
        "engine": spec["engine"],
        "seed": _storable(spec["seed"]),
        "versions": spec["versions"],
        "git_commit": spec["commit"],
        "attempts": spec.get("attempt", 1),
    }
    record.update({f"param:{k}": _storable(v) for k, v in spec["point"].items()})
    return record


def failed(spec: dict[str, Any], error: str, kind: str) -> dict[str, Any]:
    """The record of a point that failed outside ``run_point`` (its worker died)."""
    return dict(_record(spec), status="failed", failure=kind, error=error, wall_s=float("nan"))


def error_line(exc: BaseException) -> str:
    """A failed point's error as one line: the exception and its message; a notebook cell's error
    as its name and value, not the cell's traceback papermill's message carries (27 lines)."""
    if type(exc).__name__ == "PapermillExecutionError":
        return one_line(f"{exc.ename}: {exc.evalue}")
    return one_line(traceback.format_exception_only(type(exc), exc)[-1].strip())


def run_point(spec: dict[str, Any]) -> dict[str, Any]:
    """One point, never raising: a failure comes back as a record with its error and kind."""
    started = time.perf_counter()
    record = _record(spec)
    try:
        here = lab_fingerprint()
        if here != spec["lab"]:  # a Dask worker with another checkout: its figures are not ours
            raise RuntimeError(
                f"this worker computes with other model code, calibration or catalog (code/data "
                f"{here}, the sweep's {spec['lab']}): give every worker the sweep's checkout"
            )
        figures = _papermill(spec) if spec["engine"] == "papermill" else _inprocess(spec)
        taken = sorted(set(figures) & (set(record) | {"status", "failure", "error", "wall_s"}))
        if taken:
            raise ValueError(
                f"the point's figures name columns the sweep keeps ({', '.join(taken)}); "
                "rename them"
            )
        record.update({k: _storable(v) for k, v in figures.items()})
        record.update(status="ok", failure="", error="")
    except Exception as exc:  # a failed point is data: recorded, and the rest go on
        record.update(status="failed", failure=failure_kind(exc), error=error_line(exc))
    record["wall_s"] = time.perf_counter() - started
    return record


def _again(record: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any] | None:
    """The spec to run once more when ``record`` is an infrastructure failure with tries left."""
    attempt = spec.get("attempt", 1)
    if record["status"] == "failed" and record["failure"] == INFRASTRUCTURE and attempt <= RETRIES:
        return dict(spec, attempt=attempt + 1)
    return None


def inputs_fingerprint(grid: Grid, scenario_print: str | None) -> str:
    """What a point's result depends on besides the point: calibrated parameters, catalog, scenario
    (``scenario_print``: its ``_scenario_fingerprint``, None for a notebook grid) or notebook, and
    the model's code.

    It enters each point's id, so that resuming after a recalibration, a catalog change or a change
    to the code (an update, or a local edit git has not seen) reruns the points instead of keeping
    stale results. What a point's own values name enters its id alone (``_named_by_values``)."""
    from .. import params

    digest = hashlib.sha1(json.dumps(params.calibrated(), sort_keys=True).encode())
    digest.update(provenance.code_fingerprint().encode())
    files = sorted(paths.HARDWARE.glob("*.yaml"))
    if paths.CALIBRATED_PARAMETERS.exists():  # the fit's intervals and covariance too
        files.append(paths.CALIBRATED_PARAMETERS)
    if grid.intervals:  # an interval also depends on the model's measured error
        from .. import model_error

        digest.update(b"intervals")
        files += [model_error.MODEL_ERROR] if model_error.MODEL_ERROR.exists() else []
    if scenario_print is not None:  # its file, the files of the scenarios it names, their parts
        digest.update(scenario_print.encode())
    notebook = grid.notebook or (SWEEP_POINT_NOTEBOOK if grid.engine == "papermill" else None)
    if notebook is not None:  # the notebook each point runs, the project's own included
        files.append(paths.PROJECT_ROOT / notebook)
    for f in files:
        digest.update(Path(f).read_bytes())
    return digest.hexdigest()[:12]


def _scenario_fingerprint(name: str, overrides: list[str]) -> str:
    """The contents of the scenario ``name`` loaded with ``overrides``: its file, the files of the
    scenarios it names (and those they name), and the user's parts each was loaded with."""
    from .. import scenario as scenario_module

    digest = hashlib.sha1()
    pending = [scenario_module.load(name, overrides, typed=True)]
    while pending:
        loaded = pending.pop()
        digest.update((Path(loaded.folder) / Path(loaded.path).name).read_bytes())
        digest.update(repr(loaded.catalog.users_parts if loaded.catalog else ()).encode())
        pending += loaded.refs.values()
    return digest.hexdigest()[:12]


def _named_by_values(grid: Grid, points: list[dict[str, Any]], alone: str | None) -> list[str]:
    """For each point, the contents of what its values name that the grid's scenario alone
    (``alone``: its ``_scenario_fingerprint``, None for a notebook grid) does not: a value that
    names another scenario (``storage: b.yaml``), or a variant that does. Each distinct one is
    loaded once, with the point it is first met in (a variant may need the point's other values);
    any other value (a number, a part's or a level's name, a list) names no file and is skipped."""
    if alone is None:
        return [""] * len(points)
    base = list(grid.base)
    named: dict[tuple[str, str], str] = {}
    out = []
    for point in points:
        parts = []
        for k, v in sorted(point.items()):
            if not isinstance(v, str) or not (k == "variant" or names_a_file(k, v)):
                continue
            key = (k, v)
            if key not in named:
                settings = [setting(k2, v2, grid.folder) for k2, v2 in point.items()]
                try:
                    found = _scenario_fingerprint(grid.scenario, base + settings)
                except UserError:  # the point is refused: it fails, recorded, when it runs
                    found = f"refused with {setting(k, v, grid.folder)}"
                named[key] = "" if found == alone else f"{k}:{found}"
            if named[key]:
                parts.append(named[key])
        out.append(",".join(parts))
    return out


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity: a batch job's share of a node, not the
    node's every core), where the system tells; else the machine's."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # a system without affinity (macOS)
        return os.cpu_count() or 1


def grid_seed(grid: Grid) -> int | None:
    """The seed a grid's points run with unless a point sets its own: the grid's, else the
    scenario's; a notebook grid's, when it gives one."""
    if grid.seed is not None or grid.scenario is None:
        return grid.seed
    from .. import scenario as scenario_module

    return scenario_module.load(grid.scenario, list(grid.base), typed=True).seed


def specs(grid: Grid, points: list[dict[str, Any]], out: Path) -> list[dict[str, Any]]:
    alone = None if grid.scenario is None else _scenario_fingerprint(grid.scenario, list(grid.base))
    target = f"{grid.notebook or grid.scenario}@{inputs_fingerprint(grid, alone)}"
    notebook = grid.notebook or (SWEEP_POINT_NOTEBOOK if grid.engine == "papermill" else None)
    versions = json.dumps(provenance.versions(), sort_keys=True)
    commit = provenance.commit()
    lab = lab_fingerprint()
    seed = grid_seed(grid)
    base = grid.base + ((f"seed={grid.seed}",) if grid.seed is not None else ())
    named = _named_by_values(grid, points, alone)
    seen: Counter[str] = Counter()  # how many times each point came before (a design's repeats)
    repeats = []
    for p in points:
        text = json.dumps(point_settings(p))
        repeats.append(seen[text])
        seen[text] += 1
    return [
        {
            "point_id": point_id(
                f"{target}{named[i]}",
                grid.engine,
                1 if seed is None else seed,
                grid.base,
                repeats[i],
                p,
            ),
            "index": i,
            "point": p,
            "scenario": grid.scenario,
            "notebook": notebook,
            "engine": grid.engine,
            "base": base,
            "seed": p.get("seed", seed),
            "intervals": grid.intervals,
            "versions": versions,
            "commit": commit,
            "lab": lab,
            "folder": grid.folder,
            "out": str(out),
        }
        for i, p in enumerate(points)
    ]


@functools.cache
def lab_fingerprint() -> str:
    """The model code, the calibrated parameters and the catalog this process computes with: a
    point's worker (a Dask worker on another machine) must compute with the sweep's own, whose
    commit and versions its record carries. Read once a process, as the code's fingerprint is: a
    sweep's points are named for the files as they were when it began."""
    from .. import params

    data = hashlib.sha1(json.dumps(params.calibrated(), sort_keys=True).encode())
    for file in sorted(paths.HARDWARE.glob("*.yaml")):
        data.update(file.read_bytes())
    return f"{provenance.code_fingerprint()}/{data.hexdigest()[:12]}"


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


def _connect(scheduler: str):
    """A Dask client of the scheduler at ``scheduler``; one line when none answers."""
    from dask.distributed import Client

    try:
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UserError(
            "--scheduler",
            None,
            f"no Dask scheduler answers at {scheduler} within {SCHEDULER_TIMEOUT_S} s "
            f"({type(exc).__name__})",
        ) from None
    except Exception as exc:  # a protocol Dask cannot open as configured (tls:// with no
        # certificates in the Dask configuration, ucx:// without UCX)
        hints = {
            "tls://": " (a tls:// scheduler needs its certificates in Dask's configuration, "
            "distributed.comm.tls)",
            "ucx://": " (a ucx:// scheduler needs UCX and its Dask support, distributed-ucxx, "
            "which the lab does not install)",
        }
        hint = next((h for scheme, h in hints.items() if scheduler.startswith(scheme)), "")
        raise UserError(
            "--scheduler", None, f"cannot connect to {scheduler}: {type(exc).__name__}: {exc}{hint}"
        ) from None


def _dask(todo: list[dict[str, Any]], client, scheduler: str) -> Iterator[dict[str, Any]]:
    from dask.distributed import as_completed as dask_completed

    try:
        if not client.scheduler_info().get("workers"):  # else it waits without a word
            print(
                f"{scheduler}: no Dask worker is connected yet; the points wait for one",
                file=sys.stderr,
                flush=True,
            )
        running = {client.submit(run_point, s, pure=False): s for s in todo}
        finished = dask_completed(list(running))
        for future in finished:
            spec = running.pop(future)
            try:
                record = future.result()
            except (OSError, CancelledError):
                raise
            except Exception as exc:  # the cluster killed the point's worker: KilledWorker
                line = traceback.format_exception_only(type(exc), exc)[-1].strip()
                record = failed(spec, line, INFRASTRUCTURE)
            again = _again(record, spec)
            if again is None:
                yield record
            else:
                retry = client.submit(run_point, again, pure=False)
                running[retry] = again
                finished.add(retry)
    except (OSError, CancelledError) as exc:  # CommClosedError is an OSError
        raise Stopped(
            "--scheduler",
            None,
            f"lost the Dask scheduler at {scheduler} ({type(exc).__name__}); "
            "the points finished are kept, run the sweep again to resume",
        ) from None
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=2)


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
def _sigterm_as_ctrl_c() -> Iterator[None]:
    """A SIGTERM (timeout, a batch scheduler ending the job, kill) ends the run as Ctrl-C does:
    the points finished are stored and the table written; by default it killed the process before
    that, leaving the workers' scratch folders behind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _ignoring_ctrl_c() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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
    with store.lock(), quiet, _sigterm_as_ctrl_c():
        todo_all = specs(grid, points, out)
        places = {s["point_id"]: s["index"] for s in todo_all}  # each point's place in the grid
        done = store.done(ok_only=retry_failed)
        todo = [s for s in todo_all if s["point_id"] not in done]
        skipped = len(todo_all) - len(todo)
        client = _connect(scheduler) if scheduler and todo else None
        bar = counter(len(todo), f"sweep {grid.name}" if progress else None, "point")
        finished = failed_now = 0
        records = None
        workers = min(workers or usable_cores(), len(todo))
        try:
            if client is not None:
                records = _dask(todo, client, scheduler)
            elif workers <= 1:
                records = _serial(todo)
            else:
                records = _local(todo, workers)
            for record in records:
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
            bar.close()
            with contextlib.suppress(Exception):  # the first error is the one to report
                store.gather(places)
            raise
        bar.close()
        with _ignoring_ctrl_c():  # every point ran: the table is written whatever comes now
            store.gather(places)
    return finished, failed_now, skipped
