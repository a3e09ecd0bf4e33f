"""Run a sweep's points on a local process pool or a Dask cluster, each written as it finishes.

Each point runs in-process through ``simulate()`` (``engine: inprocess``) or through papermill on
a parameterised notebook (``engine: papermill``; the executed notebook is kept beside the
results). A point that fails is stored with its error and the others go on; points already in
the store are skipped, so an interrupted sweep resumes where it stopped.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from importlib import metadata
from pathlib import Path
from typing import Any

from tqdm import tqdm

from .. import paths
from .grid import Grid
from .store import Store, point_id

SWEEP_POINT_NOTEBOOK = "notebooks/sweep_point.ipynb"
VERSIONED = ("simpy", "numpy", "scipy", "pandas", "papermill")
# A point's kernel logs nothing: ipykernel 7 warns on every start over TCP without CurveZMQ keys
# ("Kernel is running over TCP without encryption"), a line per point through the progress bar, and
# jupyter_client shuts a kernel down by interrupting it first, which a kernel still answering a
# message logs as an ERROR ("KeyboardInterrupt caught in kernel."). The kernel listens on this
# machine's loopback only; a point's own errors still reach its notebook and its record.
QUIET_KERNEL = ["--IPKernelApp.log_level=CRITICAL"]


def _versions() -> str:
    return json.dumps({name: metadata.version(name) for name in VERSIONED}, sort_keys=True)


def _commit() -> str:
    try:
        return (
            subprocess.run(
                ["git", "rev-parse", "HEAD"],
                cwd=paths.PROJECT_ROOT,
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
            or "unknown"
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _inprocess(spec: dict[str, Any]) -> dict[str, Any]:
    from .. import scenario as scenario_module
    from ..simulate import simulate

    overrides = list(spec["base"]) + [f"{k}={v}" for k, v in spec["point"].items()]
    result = simulate(scenario_module.load(spec["scenario"], overrides))
    out = {
        k: v for k, v in result.to_dict().items() if k not in ("utilization", "notes", "scenario")
    }
    out["utilization"] = json.dumps(result.utilization, sort_keys=True)
    return out


def _papermill(spec: dict[str, Any]) -> dict[str, Any]:
    import papermill

    notebook = paths.PROJECT_ROOT / spec["notebook"]
    out_nb = Path(spec["out"]) / "notebooks" / f"{spec['point_id']}.ipynb"
    out_nb.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        result_path = Path(tmp) / "result.json"
        if spec["scenario"] is not None:  # scenario keys are dotted: they travel as one mapping
            settings = dict(o.split("=", 1) for o in spec["base"])
            settings.update(spec["point"])
            parameters = {"scenario": spec["scenario"], "settings": settings}
        else:
            parameters = dict(spec["point"])
        parameters["result_path"] = str(result_path)
        papermill.execute_notebook(
            str(notebook),
            str(out_nb),
            parameters=parameters,
            kernel_name="python3",
            progress_bar=False,
            cwd=str(notebook.parent),
            extra_arguments=QUIET_KERNEL,
        )
        return json.loads(result_path.read_text())


def run_point(spec: dict[str, Any]) -> dict[str, Any]:
    """One point, never raising: a failure comes back as a record with its error."""
    started = time.perf_counter()
    record = {
        "point_id": spec["point_id"],
        "point_index": spec["index"],
        "engine": spec["engine"],
        "seed": spec["seed"],
        "versions": spec["versions"],
        "git_commit": spec["commit"],
    }
    record.update({f"param:{k}": v for k, v in spec["point"].items()})
    try:
        figures = _papermill(spec) if spec["engine"] == "papermill" else _inprocess(spec)
        record.update(status="ok", error="", **figures)
    except Exception as exc:  # a failed point is data: recorded, and the rest go on
        line = traceback.format_exception_only(type(exc), exc)[-1].strip()
        record.update(status="failed", error=line)
    record["wall_s"] = time.perf_counter() - started
    return record


def inputs_fingerprint(grid: Grid) -> str:
    """What a point's result depends on besides the point: calibrated parameters, catalog, scenario.

    It enters each point's id, so that resuming after a recalibration or a catalog change reruns
    the points instead of keeping stale results (code changes show in ``git_commit``)."""
    import hashlib

    from .. import params
    from .. import scenario as scenario_module

    digest = hashlib.sha1(json.dumps(params.calibrated(), sort_keys=True).encode())
    files = sorted(paths.HARDWARE.glob("*.yaml"))
    if grid.scenario is not None:
        files.append(scenario_module.resolve(grid.scenario))
    if grid.notebook is not None:
        files.append(paths.PROJECT_ROOT / grid.notebook)
    for f in files:
        digest.update(Path(f).read_bytes())
    return digest.hexdigest()[:12]


def specs(grid: Grid, points: list[dict[str, Any]], out: Path) -> list[dict[str, Any]]:
    target = f"{grid.notebook or grid.scenario}@{inputs_fingerprint(grid)}"
    notebook = grid.notebook or (SWEEP_POINT_NOTEBOOK if grid.engine == "papermill" else None)
    versions, commit = _versions(), _commit()
    return [
        {
            "point_id": point_id(target, grid.engine, grid.seed, grid.base, i, p),
            "index": i,
            "point": p,
            "scenario": grid.scenario,
            "notebook": notebook,
            "engine": grid.engine,
            "base": grid.base,
            "seed": grid.seed,
            "versions": versions,
            "commit": commit,
            "out": str(out),
        }
        for i, p in enumerate(points)
    ]


def run(
    grid: Grid,
    points: list[dict[str, Any]],
    out: Path,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
) -> tuple[int, int, int]:
    """Run the points not yet in the store; returns (finished now, failed now, skipped)."""
    store = Store(out)
    todo_all = specs(grid, points, out)
    done = store.done()
    todo = [s for s in todo_all if s["point_id"] not in done]
    skipped = len(todo_all) - len(todo)
    bar = tqdm(total=len(todo), desc=f"sweep {grid.name}", unit="point", disable=not progress)
    finished = failed = 0

    def keep(record: dict[str, Any]) -> None:
        nonlocal finished, failed
        store.write(record)
        finished += 1
        failed += record["status"] == "failed"
        bar.update(1)

    try:
        if scheduler:
            from dask.distributed import Client
            from dask.distributed import as_completed as dask_completed

            with Client(scheduler) as client:
                for future in dask_completed(client.map(run_point, todo, pure=False)):
                    keep(future.result())
        elif (workers or os.cpu_count() or 1) == 1:
            for spec in todo:
                keep(run_point(spec))
        else:
            with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
                for future in as_completed([pool.submit(run_point, s) for s in todo]):
                    keep(future.result())
    finally:
        bar.close()
        store.gather({s["point_id"] for s in todo_all})
    return finished, failed, skipped
