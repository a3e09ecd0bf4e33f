"""One design point of a sweep: how it runs, and the record it leaves.

A point runs in-process through ``simulate()`` (``engine: inprocess``) or through papermill on a
parameterised notebook (``engine: papermill``: a quiet kernel on Unix sockets of its own, its
connection file and output in the point's temporary folder, ended before that folder goes; the
executed notebook left beside the results, which the sweep keeps with the point's record).
``run_point`` never raises: a point that fails comes back as a record with its error as one line
and its kind, ``model`` (the scenario or the notebook's cells raised) or ``infrastructure`` (a
kernel that died, a port in use, a worker the system killed, a worker whose code, data, packages
or files are not the sweep's: ``check_inputs``), which the runner (``model.sweep.run``) tries
again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil

from .. import paths, provenance
from ..errors import one_line
from . import pool, stops
from .grid import in_full, notebook_value, setting

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
KERNEL_OUTPUT = "kernel.log"  # a point's kernel's standard output and error, in its folder


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

    The kernel's connection file (its key) is in ``folder`` too, which goes with the point: in the
    system's temporary folder, where jupyter_client writes it unless told, an interrupted point
    left it behind. So is its output (``KERNEL_OUTPUT``, ``model.sweep.kernel``).
    """
    from traitlets.config import Config

    from .kernel import PointKernelManager

    manager: dict[str, Any] = {
        "shutdown_wait_time": KERNEL_SHUTDOWN_WAIT_S,
        "connection_file": str(folder / "kernel.json"),
    }
    sockets = folder / "k"  # the kernel binds k-1 to k-5
    if os.name == "posix" and len(os.fsencode(f"{sockets}-5")) <= _ipc_path_max():
        manager.update(transport="ipc", ip=str(sockets))
    return {
        "kernel_name": "python3",
        "kernel_manager_class": PointKernelManager,
        "language": "python",
        "progress_bar": False,
        "extra_arguments": QUIET_KERNEL,
        "config": Config(
            {
                "KernelManager": manager,
                "PointKernelManager": {"output_file": str(folder / KERNEL_OUTPUT)},
            }
        ),
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


# unread.not_read_at's memo of the one sweep (its token) whose points this process runs last
_UNREAD_MEMOS: dict[str, dict] = {}


def _unread_memo(sweep: str) -> dict:
    """The memo of the keys a point's grid sets that the configuration does not read, kept for
    the sweep ``sweep`` and no other: a later sweep may run after its files changed."""
    if sweep not in _UNREAD_MEMOS:
        _UNREAD_MEMOS.clear()
        _UNREAD_MEMOS[sweep] = {}
    return _UNREAD_MEMOS[sweep]


def point_scenario(spec: dict[str, Any]):
    """An in-process point's scenario: the grid's, with its base and the point's settings (a file
    a value names was resolved in the grid's folder: read as given); a refusal names the point's
    key (``point: volumes.md0.level: ...``), not --set."""
    from .. import scenario as scenario_module

    overrides = list(spec["base"]) + [
        setting(k, v, spec["folder"]) for k, v in spec["point"].items()
    ]
    return scenario_module.load(spec["scenario"], overrides, typed=True, where_overrides="point")


def _inprocess(spec: dict[str, Any]) -> dict[str, Any]:
    from .. import unread
    from ..simulate import simulate

    scenario = point_scenario(spec)
    result = simulate(scenario)
    out = {
        k: v for k, v in result.to_dict().items() if k not in ("utilization", "notes", "scenario")
    }
    out["utilization"] = json.dumps(result.utilization, sort_keys=True)
    # the grid's keys the configuration does not read
    out["not_read"] = unread.column(scenario, _unread_memo(spec["sweep"]))
    if spec.get("intervals"):
        from .. import uncertainty

        interval = uncertainty.interval(scenario)
        out["interval_90_low_MBps"] = interval.low
        out["interval_90_high_MBps"] = interval.high
        # the spread the drivers share out: NaN where the model's error widened neither end
        before = interval.before_error or (float("nan"), float("nan"))
        out["before_model_error_low_MBps"], out["before_model_error_high_MBps"] = before
        out["drivers"] = json.dumps(interval.drivers, sort_keys=True)
    return out


def _kernel_folder(notebook: Path, tmp: str) -> str:
    """Where a point's kernel runs: a notebook of the grid's own (run on --trust-notebook) in its
    folder, beside the files it may read; one of the project's in the point's own empty folder,
    where a value that names no file in the grid's folder finds nothing either (in notebooks/ it
    had been looked for there: the input audit), and from which no file of the grid's folder
    comes first on the kernel's import path (with the grid's folder there, a model/ beside the
    grid ran as the lab's code: the review)."""
    return tmp if paths.is_project_notebook(notebook) else str(notebook.parent)


UNKEPT = ".ipynb.unkept"  # how the name of a notebook not kept yet ends


def unkept_notebook(out: Path, point_id: str, sweep: str) -> Path:
    """Where a papermill point of the sweep ``sweep`` (its token) writing ``out`` leaves its
    executed notebook: a hidden name of that sweep's own in ``notebooks/``, which the sweep renames
    to the point's (``Store.keep_notebook``) only as it stores the point's record. A point cut off
    (a Ctrl-C, a lost or silent scheduler, a sweep killed) leaves no notebook among the finished
    ones, whatever its worker does after, and a resume never takes a cut-off run's notebook for
    its own; ``Store.lock`` removes what such points left. A notebook its worker kept after a lost
    scheduler had looked like finished output (the review)."""
    return out / "notebooks" / f".{point_id}.{sweep}{UNKEPT}"


def _papermill(spec: dict[str, Any]) -> dict[str, Any]:
    from .. import scenario as scenario_module

    notebook = paths.PROJECT_ROOT / spec["notebook"]
    out_nb = unkept_notebook(Path(spec["out"]), spec["point_id"], spec["sweep"])
    out_nb.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        result_path = folder / "result.json"
        if spec["scenario"] is not None:  # scenario keys are dotted: they travel as one mapping
            # every value as the grid gave it (a file it names in full), which the notebook writes
            # as the YAML text --set reads (model.sweep.grid.setting)
            settings = dict(scenario_module.parse_assignment(o, "base") for o in spec["base"])
            settings.update({k: in_full(k, v, spec["folder"]) for k, v in spec["point"].items()})
            parameters = {"scenario": spec["scenario"], "settings": settings}
        else:
            parameters = {k: notebook_value(v, spec["folder"]) for k, v in spec["point"].items()}
            if spec["seed"] is not None:  # the grid checked that the notebook declares it
                parameters.setdefault("seed", spec["seed"])
        parameters["result_path"] = str(result_path)
        # executed beside the result, then handed to the sweep under a name it keeps only once
        # it stores the point's record (``unkept_notebook``)
        running_nb = folder / "point.ipynb"
        _this_checkout_first()
        with _PAPERMILL_LOG.kept() as logged, stops.running(spec["sweep"], folder):
            try:
                _execute(notebook, running_nb, parameters, folder, spec.get("timeout_s"))
            except Exception as exc:
                _note_kernel_output(exc, folder)
                _note_logged(exc, logged)
                if running_nb.exists():
                    shutil.move(running_nb, out_nb)
                raise
        shutil.move(running_nb, out_nb)
        if not result_path.exists():  # one reason for every such point, not its own folder's
            raise ValueError(
                "the notebook wrote nothing to result_path; it must write its figures there as "
                "a JSON object"
            )
        figures = json.loads(result_path.read_text())
    if not isinstance(figures, dict):
        raise ValueError(
            f"the notebook wrote {type(figures).__name__} to result_path; it must be a JSON "
            "object of named figures"
        )
    return figures


def _execute(
    notebook: Path,
    running_nb: Path,
    parameters: dict[str, Any],
    folder: Path,
    timeout_s: int | None,
) -> None:
    """Run the point's notebook on a kernel of its own in ``folder``; a kernel left running when
    it stops (interrupted as it started: nbclient stops only a kernel that started) is ended
    before ``folder`` goes. It had run on in a folder removed under it, printing a traceback on
    the sweep's terminal (``os.getcwd()``, a ZMQError for its sockets) after the sweep's one
    line (the new-user audit)."""
    import papermill

    try:
        papermill.execute_notebook(
            str(notebook),
            str(running_nb),
            parameters=parameters,
            # the kernel's own working folder (nbclient's metadata path), not the process's:
            # papermill's cwd= changes this whole process's, which points run side by side on
            # a Dask worker's threads then left for one another's deleted folders (the review)
            resources={"metadata": {"path": _kernel_folder(notebook, str(folder))}},
            execution_timeout=timeout_s,
            **kernel_options(folder),
        )
    except BaseException:
        kernels = pool.using(folder)
        pool.end(kernels)
        psutil.wait_procs(kernels, timeout=KERNEL_SHUTDOWN_WAIT_S)  # the point's own children
        raise


def end_kernels(sweep: str) -> None:
    """End the kernels of the papermill points this process runs for the sweep ``sweep`` (its
    token), and those its points start from now on (``stops.refuse_if_stopped``). A stopped sweep's
    client runs it on every Dask worker: a point's thread cannot be stopped, but a point whose
    kernel is gone ends at once, and a hung one no longer holds its worker's thread from the next
    sweep's points."""
    folders = stops.stop(sweep)
    pool.end([kernel for folder in folders for kernel in pool.using(folder)])


class _PapermillLog(logging.Handler):
    """What papermill's loggers say as a point runs (nbclient's too, which papermill gives its
    logger, and its children's: ``papermill.translators``), kept for the point's failure record,
    not written to the sweep's terminal: a kernel that died as it started had nbclient print
    "Error occurred while starting new kernel client for kernel ID: Kernel died before replying
    to kernel_info" there, once a try, beside the sweep's one line for the point.

    A handler on the ``papermill`` logger, which then passes nothing up to the terminal's, sees
    its children's records too, which a filter there does not. A record goes to the point running
    on the thread that made it (a Dask worker runs points on threads side by side), else, where
    one point alone is running, to that one: nbclient runs on a thread of its own where the
    caller's thread has an event loop running (jupyter_core's ``run_sync``, a point run from a
    notebook's cell). A record no point can be told from goes on to the root logger's handlers,
    as it would have without this one."""

    def __init__(self) -> None:
        super().__init__()
        self.running: dict[int, list[str]] = {}  # a thread running a point -> its records

    def emit(self, record: logging.LogRecord) -> None:
        # under self.lock, which Handler.handle holds around emit, as ``kept`` does: points start
        # and end on other threads meanwhile
        logged = self.running.get(record.thread)
        if logged is None and len(self.running) == 1:
            (logged,) = self.running.values()
        if logged is not None:
            logged.append(record.getMessage())
        else:
            logging.getLogger().handle(record)

    @contextlib.contextmanager
    def kept(self) -> Iterator[list[str]]:
        """The messages papermill logs for the point this thread runs during the block, none of
        them shown."""
        papermill_log = logging.getLogger("papermill")
        if self not in papermill_log.handlers:
            papermill_log.addHandler(self)
            papermill_log.propagate = False
        thread = threading.get_ident()
        with self.lock:
            self.running[thread] = logged = []
        try:
            yield logged
        finally:
            with self.lock:
                del self.running[thread]


_PAPERMILL_LOG = _PapermillLog()


def _cell_raised(exc: BaseException) -> bool:
    """Whether ``exc`` is papermill's word that a cell of the notebook raised."""
    return type(exc).__name__ == "PapermillExecutionError"


def _note_kernel_output(exc: Exception, folder: Path) -> None:
    """Add to ``exc`` the last line the point's kernel wrote to its output, where it wrote one: a
    kernel that died as it started says why only there. Not for a cell's own error, which says
    its why itself: a C library's warning had been added to a cell's ValueError (the review)."""
    output = folder / KERNEL_OUTPUT
    if _cell_raised(exc) or not output.exists():
        return
    said = output.read_text(errors="replace").strip()
    if said:
        exc.add_note(f"(the point's kernel wrote: {said.splitlines()[-1].strip()})")


def _note_logged(exc: Exception, logged: list[str]) -> None:
    """Add to ``exc`` what papermill logged as its point ran ("Kernel died while waiting for
    execute reply."), but for a cell's own error and a message that says ``exc`` again: nbclient
    logs the error it then raises, with the kernel's id, which would make each point's reason
    its own."""
    if _cell_raised(exc):
        return
    for message in logged:
        if not (str(exc) and message.endswith(str(exc))):
            exc.add_note(f"(papermill logged: {message})")


MODEL, INFRASTRUCTURE = "model", "infrastructure"
# failures outside the model: a kernel gone, a port taken, a worker killed, a lost scheduler, a
# worker with another checkout
OUTSIDE_THE_MODEL = {
    "DeadKernelError",
    "CellTimeoutError",
    "ZMQError",
    "KeyboardInterrupt",
    "MemoryError",
    "KilledWorker",
    "CommClosedError",
    "OtherInputs",
    "SweepStopped",
}
OUTSIDE_PACKAGES = ("jupyter_client", "nbclient", "zmq", "ipykernel", "distributed")


def failure_kind(exc: BaseException) -> str:
    """``infrastructure`` for a failure outside the model (worth running again), else ``model``."""
    name = type(exc).__name__
    if _cell_raised(exc):  # a cell raised: the model's failure, unless interrupted
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
    # what the point left at its notebook's defaults, as the notebook writes them
    record.update({f"default:{k}": v for k, v in spec.get("defaults", {}).items()})
    return record


def failed(spec: dict[str, Any], error: str, kind: str) -> dict[str, Any]:
    """The record of a point that failed outside ``run_point`` (its worker died)."""
    return dict(_record(spec), status="failed", failure=kind, error=error, wall_s=float("nan"))


def error_line(exc: BaseException) -> str:
    """A failed point's error as one line: the exception and its message, then its notes (what
    its kernel wrote); a notebook cell's error as its name and value, not the cell's traceback
    papermill's message carries (27 lines)."""
    notes = getattr(exc, "__notes__", [])
    if _cell_raised(exc):
        line = f"{exc.ename}: {exc.evalue}"
    else:
        shown = traceback.TracebackException.from_exception(exc)
        shown.__notes__ = None  # each said after the line, not as lines of its own
        line = list(shown.format_exception_only())[-1].strip()
        qualified = f"{type(exc).__module__}.{type(exc).__qualname__}"
        if line.startswith(qualified):  # the class without its module: UserError, not model.errors.
            line = type(exc).__qualname__ + line[len(qualified) :]
    return one_line(" ".join([line, *notes]))


def run_point(spec: dict[str, Any]) -> dict[str, Any]:
    """One point, never raising: a failure comes back as a record with its error and kind."""
    started = time.perf_counter()
    record = _record(spec)
    try:
        check_inputs(spec)  # a Dask worker with another checkout: its figures are not ours
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
        kind, error = failure_kind(exc), error_line(exc)
        if type(exc).__name__ == "CellTimeoutError" and spec.get("timeout_s"):
            # past the grid's own limit: the point's, not the machine's (run again, it would
            # take as long)
            kind = MODEL
            error = one_line(f"a cell ran past the grid's timeout_s ({spec['timeout_s']:g} s)")
        record.update(status="failed", failure=kind, error=error)
    record["wall_s"] = time.perf_counter() - started
    return record


# the three parts of ``lab_fingerprint``, as a message names the ones that differ
FINGERPRINT_PARTS = ("model code", "data", "package versions")


@functools.cache
def lab_fingerprint() -> str:
    """What this process computes a point with, as CODE/DATA/VERSIONS (12 hex digits each): the
    lab's model code, every file under ``data/`` a point may read (``point_data``) and the versions
    of Python and of the packages that compute (``provenance.COMPUTING``). A point's worker (a Dask
    worker, on another machine or started before an edit) must compute with the sweep's own, whose
    commit and versions its record carries. Read once a process, as its code is imported once: a
    worker that imported the code before an edit keeps computing with it (20 to 30 ms, once)."""
    code = provenance.code_fingerprint()
    data = provenance.files_fingerprint(paths.DATA, point_data(paths.DATA))
    versions = json.dumps(provenance.computing_versions(), sort_keys=True)
    return "/".join(h[:12] for h in (code, data, hashlib.sha256(versions.encode()).hexdigest()))


def point_data(data: Path) -> list[str]:
    """The files under ``data`` a point may read, as paths below it: the scenarios, the catalog,
    the calibration (its values, intervals and covariance, and the model's error, which interval
    grids read), the measured tables (the model's error is told apart by them) and the templates,
    their YAML, JSON and CSV files; not the grids of ``sweeps/`` (only the sweep's own process
    reads a grid), nor hidden files, nor anything else a user keeps there."""
    return sorted(
        str(file.relative_to(data))
        for folder in POINT_DATA_FOLDERS
        for file in (data / folder).rglob("*")
        if file.is_file()
        and file.suffix in POINT_DATA_SUFFIXES
        and not any(part.startswith(".") for part in file.relative_to(data).parts)
    )


# where a point's data lies under data/, and its files' kinds: a sweep's results written under
# data/ (--out data/results/x), an editor's backup (atlas_lightpath.yaml~) or a README had been
# taken for data, so a second sweep on the same cluster was refused (the review)
POINT_DATA_FOLDERS = ("scenarios", "hardware", "calibrated", "measured", "templates")
POINT_DATA_SUFFIXES = (".yaml", ".json", ".csv")


def fingerprint_differs(here: str, sweep: str) -> str:
    """The parts of two ``lab_fingerprint`` that differ, in words: "model code and data"."""
    parts = [
        name
        for name, a, b in zip(FINGERPRINT_PARTS, here.split("/"), sweep.split("/"), strict=False)
        if a != b
    ]
    return " and ".join(parts or FINGERPRINT_PARTS)


def file_digest(path: str) -> str:
    """The contents of the file at ``path`` as 12 hex digits of its SHA-1 ("missing" where there
    is none, "unreadable" where it cannot be read), hashed once for each version of the file (its
    size, modification time and inode): a grid's own file, checked at each point. A notebook's are
    its cells' sources alone: saving it in Jupyter, or ``make notebooks`` running it again, changes
    its outputs and metadata, not what a point runs, and had failed every point still to run."""
    try:
        stat = os.stat(path)
        return _digest(path, stat.st_size, stat.st_mtime_ns, stat.st_ino)
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "unreadable"


@functools.lru_cache(maxsize=4096)
def _digest(path: str, size: int, mtime_ns: int, inode: int) -> str:
    with open(path, "rb") as f:
        contents = f.read()
    if path.endswith(".ipynb"):
        contents = _cell_sources(contents)
    return hashlib.sha1(contents).hexdigest()[:12]


def _cell_sources(notebook: bytes) -> bytes:
    """A notebook's cells' kinds and sources, as bytes to hash; the file itself where it is not a
    notebook's JSON (papermill refuses it at the point)."""
    try:
        cells = json.loads(notebook)["cells"]
        shown = [[c["cell_type"], "".join(c["source"])] for c in cells]
    except (ValueError, KeyError, TypeError):
        return notebook
    return json.dumps(shown).encode()


def changed_inputs(inputs: dict[str, str]) -> list[str]:
    """The files of ``inputs`` (each with its ``file_digest`` as the sweep read it) that differ
    here."""
    return [file for file, digest in sorted(inputs.items()) if file_digest(file) != digest]


class OtherInputs(Exception):
    """A point's worker would compute with other code, data, packages or files than the sweep's:
    its figures would be filed under the sweep's commit as the sweep's. A failure of the cluster
    (``INFRASTRUCTURE``), not of the point: the same point runs on the sweep's checkout."""


def check_inputs(spec: dict[str, Any]) -> None:
    """Raise ``OtherInputs`` unless this process computes ``spec``'s point with the sweep's own
    code, data and packages (``lab_fingerprint``) and reads the files its grid names as the sweep
    read them (``spec["inputs"]``)."""
    here = lab_fingerprint()
    if here != spec["lab"]:
        raise OtherInputs(
            f"this worker computes with other {fingerprint_differs(here, spec['lab'])} than the "
            f"sweep's (its lab {here}, the sweep's {spec['lab']}; a worker started before an "
            "edit keeps the code it imported): give every worker the sweep's checkout, and "
            "restart it after an edit"
        )
    changed = changed_inputs(spec["inputs"])
    if changed:
        more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
        raise OtherInputs(
            f"{paths.shown(Path(changed[0]))}{more} is not as the sweep read it (edited since the "
            "sweep began, or another file on this worker): give every worker the sweep's files "
            "at the same paths"
        )
