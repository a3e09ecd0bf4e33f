"""A sweep on a Dask cluster whose workers are not the sweep's own: another checkout's code, data,
packages or files, a checkout changed since they started, no lab at all, no worker left, a point
that kills its workers, a Ctrl-C while papermill points run. Each is said in one line, or
recorded as the cluster's failure, and never answered with another checkout's figures."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import types

import pandas as pd
import psutil
import pytest
from grid_files import grid as _grid
from grid_files import notebook

from model import paths, provenance
from model.errors import INTERRUPTED_STATUS
from model.sweep import grid as grid_module
from model.sweep import point as point_module
from model.sweep import run as run_module
from model.sweep import specs as specs_module
from model.sweep.store import Stopped


def _message(err):
    """stderr without the progress lines: it must be one line."""
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("sweep t:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def _local_cluster(**kwargs):
    from dask.distributed import LocalCluster

    options = {"n_workers": 1, "threads_per_worker": 1, "processes": False}
    return LocalCluster(dashboard_address=None, **{**options, **kwargs})


@pytest.fixture
def fresh_fingerprint():
    """``lab_fingerprint`` computed afresh in the test, and again after it."""
    caches = (point_module.lab_fingerprint, provenance.computing_versions)
    for cache in caches:
        cache.cache_clear()
    yield
    for cache in caches:
        cache.cache_clear()


@pytest.mark.parametrize(
    "changed",
    [
        "scenarios/atlas_lightpath.yaml",  # the audit's: circuits 2 -> 1 gave 24 of 72 wrong
        "calibrated/model_error.json",  # an interval grid's
        "calibrated/parameters.json",  # the fit's intervals and covariance beside its values
        "hardware/disks.yaml",
        "templates/raid_array.yaml",
        "measured/psu_copy.csv",  # the model's error is told apart by the reports' tables
    ],
)
def test_the_lab_fingerprint_covers_every_data_file_a_point_may_read(
    tmp_path, monkeypatch, fresh_fingerprint, changed
):
    """The sweep audit's worker whose atlas_lightpath.yaml differed passed the check, which read
    only the model's code, the calibrated values and the catalog, and answered 24 of 72 points
    wrong with exit 0."""
    before = point_module.lab_fingerprint()
    data = tmp_path / "data"
    shutil.copytree(paths.DATA, data)
    with open(data / changed, "a") as f:
        f.write("\n# changed\n")
    monkeypatch.setattr(paths, "DATA", data)
    point_module.lab_fingerprint.cache_clear()
    after = point_module.lab_fingerprint()
    assert after != before
    assert point_module.fingerprint_differs(after, before) == "data"


def test_the_lab_fingerprint_leaves_out_the_grids_and_covers_the_computing_packages(
    tmp_path, monkeypatch, fresh_fingerprint
):
    """A grid is read by the sweep's own process alone: editing one needs no worker restarted.
    The records' versions had been the client's, whatever the worker computed with."""
    before = point_module.lab_fingerprint()
    data = tmp_path / "data"
    shutil.copytree(paths.DATA, data)
    (data / "sweeps" / "another.yaml").write_text("name: another\n")
    monkeypatch.setattr(paths, "DATA", data)
    point_module.lab_fingerprint.cache_clear()
    assert point_module.lab_fingerprint() == before
    real = provenance.metadata.version
    monkeypatch.setattr(
        provenance.metadata, "version", lambda name: "0.1" if name == "numba" else real(name)
    )
    point_module.lab_fingerprint.cache_clear()
    provenance.computing_versions.cache_clear()
    assert point_module.fingerprint_differs(point_module.lab_fingerprint(), before) == (
        "package versions"
    )


def test_a_file_the_grid_names_that_differs_fails_its_point_as_the_cluster_s(tmp_path):
    """The sweep audit's: a file a grid's value names is resolved to the client's path and read
    on the worker, unchecked; and a worker whose notebooks/sweep_point.ipynb differed doubled
    every figure. Both are now in the point's spec, as the sweep read them, and checked."""
    scenario = tmp_path / "mine.yaml"
    shutil.copy(paths.SCENARIOS / "atlas_intellistation.yaml", scenario)
    path = _grid(tmp_path, scenario="mine.yaml", product={"volumes.md0.disks.count": [1]})
    grid, points = grid_module.load(path)
    (spec,) = specs_module.specs(grid, points, tmp_path / "out")
    assert list(spec["inputs"]) == [str(scenario)]
    assert point_module.run_point(spec)["status"] == "ok"
    scenario.write_text(scenario.read_text() + "\n# another worker's copy\n")
    record = point_module.run_point(spec)
    assert record["status"] == "failed" and record["failure"] == point_module.INFRASTRUCTURE
    assert f"{paths.shown(scenario)} is not as the sweep read it" in record["error"]
    papermill = _grid(tmp_path, engine="papermill", product={"volumes.md0.disks.count": [1]})
    (spec,) = specs_module.specs(*grid_module.load(papermill), tmp_path / "out")
    assert list(spec["inputs"]) == [str(paths.PROJECT_ROOT / point_module.SWEEP_POINT_NOTEBOOK)]


def test_workers_that_run_other_code_are_refused_before_any_point_runs(
    tmp_path, monkeypatch, run_cli
):
    """The sweep audit's long-running cluster: after any edit every point failed "give every
    worker the sweep's checkout", stored as the model's failures, so that a rerun said "0 run now"
    and exit 4. The workers are now checked once, before any point is sent, and the line says what
    to do. (Here the sweep's own fingerprint is made another, as an edit would.)"""
    real = specs_module.lab_fingerprint
    monkeypatch.setattr(specs_module, "lab_fingerprint", lambda: "0123456789ab/" + real()[13:])
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2]})
    with _local_cluster() as cluster:
        address = cluster.scheduler_address
        status, stdout, err = run_cli(
            "sweep", str(path), "--out", str(tmp_path / "out"), "--scheduler", address
        )
    line = _message(err)
    assert status == 2 and stdout == ""
    assert line.startswith(f"--scheduler: the worker at {address.split('://')[0]}://")
    assert f"runs other model code than this checkout, {paths.PROJECT_ROOT}" in line
    assert "(e.g. started before an edit): restart it, e.g. `client.restart()`" in line
    assert not list((tmp_path / "out" / "points").glob("*.parquet"))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_worker_without_the_lab_is_said_at_once_not_waited_for(tmp_path):
    """The sweep audit's: a worker that could not import the lab could not read a point and
    closed ("Failed to deserialize"), and the sweep waited 120 s without a word."""
    no_lab = tmp_path / "no_lab" / "model"
    no_lab.mkdir(parents=True)
    (no_lab / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'model'\", name='model')\n"
    )
    address = f"tcp://127.0.0.1:{_free_port()}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1"]
        + ["--port", address.rsplit(":", 1)[1], "--dashboard-address", ":0", "--no-show"],
        **quiet,
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address]
        + ["--nthreads", "1", "--no-dashboard"],
        env={**os.environ, "PYTHONPATH": str(no_lab.parent)},
        cwd=tmp_path,
        **quiet,
    )
    try:
        from dask.distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(1, timeout=60)
        sweep = subprocess.run(
            [sys.executable, "-m", "model", "sweep", str(_grid(tmp_path, product={"seed": [1]}))]
            + ["--out", str(tmp_path / "out"), "--scheduler", address],
            cwd=paths.PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=90,
        )
    finally:
        for process in (worker, scheduler):
            process.kill()
            process.wait()
    line = _message(sweep.stderr)
    assert sweep.returncode == 2 and sweep.stdout == ""
    assert "cannot import the lab (ModuleNotFoundError: No module named 'model')" in line
    assert f"with PYTHONPATH={paths.PROJECT_ROOT}" in line


def test_a_cluster_left_without_a_worker_stops_the_sweep_in_one_line(tmp_path, monkeypatch):
    """A cluster whose workers all closed (or never came) had kept the sweep waiting without
    end."""
    from model.sweep import cluster as cluster_module

    monkeypatch.setattr(cluster_module, "NO_WORKERS_S", 1.0)
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1]})
    grid, points = grid_module.load(path)
    stopped = []

    def sweep():
        try:
            run_module.run(grid, points, tmp_path / "out", scheduler=address, progress=False)
        except Stopped as exc:
            stopped.append(exc)

    with _local_cluster(n_workers=0) as cluster:
        address = cluster.scheduler_address
        runner = threading.Thread(target=sweep)
        runner.start()
        runner.join(timeout=30)
        waited = runner.is_alive()
    runner.join(timeout=30)
    assert not waited, "the sweep went on waiting for a worker"
    (exc,) = stopped
    assert exc.exit_status == 1
    assert f"{address} has had no worker for 1 s" in exc.line()
    assert "the points finished are kept" in exc.line()


def _sleepy(tmp_path, seconds):
    """A notebook grid whose one point sleeps ``seconds``."""
    nb = notebook(
        tmp_path / "sleepy.ipynb",
        "seconds = 0\nresult_path = ''\n",
        "import json, pathlib, time\ntime.sleep(seconds)\n"
        "pathlib.Path(result_path).write_text(json.dumps({'slept_s': seconds}))\n",
    )
    path = _grid(
        tmp_path, scenario=None, notebook=str(nb), engine="papermill", product={"seconds": seconds}
    )
    return grid_module.load(path, trust_notebook=True)


def _kernels():
    """The kernels this process started (a point's, on an in-process Dask worker)."""
    return [
        p
        for p in psutil.Process().children(recursive=True)
        if p.status() != psutil.STATUS_ZOMBIE and "ipykernel_launcher" in " ".join(p.cmdline())
    ]


def test_ctrl_c_ends_the_kernels_of_the_sweep_s_points_on_the_cluster(tmp_path):
    """The sweep audit's: Ctrl-C (or SIGTERM) left a papermill point's kernel running on its
    worker, and a hung one held the worker's thread from later sweeps."""
    from model.sweep import probe as probe_module

    grid, points = _sleepy(tmp_path, [120])
    with _local_cluster() as cluster:

        def ctrl_c_once_a_kernel_runs():
            deadline = time.monotonic() + 60
            while not _kernels() and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(1)  # the kernel running its cell
            os.kill(os.getpid(), signal.SIGINT)

        threading.Thread(target=ctrl_c_once_a_kernel_runs, daemon=True).start()
        with pytest.raises(Stopped) as stopped:
            run_module.run(
                grid, points, tmp_path / "out", scheduler=cluster.scheduler_address, progress=False
            )
        ended = time.monotonic() + 10
        while _kernels() and time.monotonic() < ended:
            time.sleep(0.1)
        left = _kernels()
        for kernel in left:  # a failing test's, not the next test's
            kernel.kill()
        time.sleep(3)  # the point's thread, its kernel gone, ending
    assert stopped.value.exit_status == INTERRUPTED_STATUS
    assert left == []
    assert not (tmp_path / "out" / probe_module.MARKER).exists()
    # the review: the half-run notebook had been kept among the finished ones, its cells marked
    # completed, with no record
    assert not list((tmp_path / "out").glob("notebooks/*.ipynb"))


def test_a_point_that_kills_its_workers_is_not_run_again(tmp_path, monkeypatch):
    """The sweep audit's point that killed 12 workers: Dask ran it on 4 (its allowed failures),
    then the sweep's own retries ran that twice more; its error was Dask's 400 characters."""
    from dask.distributed import KilledWorker
    from distributed.client import Future

    real = Future.result
    submitted = []

    def result(self, *args, **kwargs):
        record = real(self, *args, **kwargs)
        if record["point_index"] == 0:
            raise KilledWorker(self.key, types.SimpleNamespace(address="tcp://w:1"), 3)
        return record

    monkeypatch.setattr(Future, "result", result)
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2]})
    grid, points = grid_module.load(path)
    with _local_cluster() as cluster:
        from dask.distributed import Client

        real_client_submit = Client.submit

        def submit(self, function, spec, **kwargs):
            submitted.append(spec["index"])
            return real_client_submit(self, function, spec, **kwargs)

        monkeypatch.setattr(Client, "submit", submit)
        run_module.run(
            grid, points, tmp_path / "out", scheduler=cluster.scheduler_address, progress=False
        )
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    killed = table.iloc[0]
    assert sorted(submitted) == [0, 1]
    assert killed.failure == "infrastructure" and killed.attempts == 1
    assert killed.error == "killed its worker 4 times (Dask's KilledWorker)"
    assert table.iloc[1].status == "ok"


def test_workers_with_a_scheduler_are_refused_in_one_line(tmp_path, run_cli):
    """--workers beside --scheduler was silently ignored."""
    status, stdout, err = run_cli(
        "sweep", str(_grid(tmp_path)), "--workers", "4", "--scheduler", "tcp://127.0.0.1:9"
    )
    assert status == 2 and stdout == ""
    assert _message(err) == (
        "--workers: sets this machine's worker processes, and with --scheduler the cluster's "
        "workers run the points: give one of the two"
    )


def test_a_port_no_scheduler_can_listen_on_is_refused_at_once(tmp_path, run_cli):
    """Port 99999 was tried for 14 s, then said to answer no scheduler; the address is checked
    before the grid is (here a grid that does not exist)."""
    started = time.monotonic()
    status, stdout, err = run_cli(
        "sweep", str(tmp_path / "no_grid.yaml"), "--scheduler", "tcp://127.0.0.1:99999"
    )
    assert status == 2 and stdout == "" and time.monotonic() - started < 5
    assert _message(err) == (
        "--scheduler: tcp://127.0.0.1:99999 is not a Dask scheduler address (port 99999 is not "
        "one of 1 to 65535): give tcp://HOST:PORT, as the scheduler prints it"
    )


def test_the_progress_says_how_many_workers_the_cluster_has(tmp_path, monkeypatch, capfd):
    """A sweep whose cluster had no worker left said only "still running": the hang was not
    visible."""
    from model import progress

    monkeypatch.setattr(progress, "LINE_EVERY_S", 0.0)
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2, 3]})
    grid, points = grid_module.load(path)
    with _local_cluster() as cluster:
        run_module.run(grid, points, tmp_path / "out", scheduler=cluster.scheduler_address)
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("sweep t:")]
    assert lines and lines[-1].endswith("3 of 3 points (100 %) after 0 s, 1 worker"), lines


def test_a_papermill_sweep_s_folder_must_be_the_workers_own(tmp_path):
    """A papermill point writes its notebook in the sweep's folder on its worker: a worker that
    does not see the client's folder (not shared), or cannot write it, is said before any point
    runs."""
    from model.sweep import probe as probe_module

    out = tmp_path / "out"
    out.mkdir()
    elsewhere = probe_module.report({}, str(out), "a1b2")["folder"]
    assert elsewhere.startswith("is not the folder the sweep writes")
    (out / probe_module.MARKER).write_text("a1b2")
    assert probe_module.report({}, str(out), "a1b2")["folder"] is None
    out.chmod(0o500)
    try:
        unwritable = probe_module.report({}, str(out), "a1b2")["folder"]
    finally:
        out.chmod(0o700)
    if os.geteuid() != 0:  # root writes anywhere
        assert unwritable.startswith("cannot be written there (PermissionError")


def test_a_worker_that_joins_and_fails_the_check_stops_the_sweep():
    """A worker started meanwhile (from another checkout) is checked as the first ones were; one
    that joined only to go again (a cluster scaling down) does not stop the sweep."""
    from model.sweep import cluster as cluster_module

    workers = {"workers": {"tcp://a:1": {}, "tcp://b:1": {}}}
    client = types.SimpleNamespace(scheduler_info=lambda: workers)
    counted = []

    def watch(found):
        return cluster_module.Watch(
            client, "tcp://s:1", lambda joined: found, {"tcp://a:1"}, counted.append
        )

    watch(("silent", "the worker at tcp://b:1 did not answer the sweep's check")).look()
    with pytest.raises(Stopped) as stopped:
        watch(("other lab", "the worker at tcp://b:1 runs other data than this checkout")).look()
    assert stopped.value.exit_status == 1 and counted == [2, 2]
    assert stopped.value.line() == (
        "--scheduler: the worker at tcp://b:1 runs other data than this checkout; the points "
        "finished are kept, run the sweep again to resume"
    )


def test_the_data_a_point_reads_leaves_out_what_else_a_user_keeps_under_data(tmp_path):
    """The review: a sweep's results written under data/ (--out data/results/x) and an editor's
    backup counted as data, so the next sweep on the same cluster was refused."""
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "a.yaml").write_text("x: 1\n")
    before = point_module.point_data(tmp_path)
    (tmp_path / "scenarios" / "a.yaml~").write_text("x: 2\n")
    (tmp_path / "results" / "unk1").mkdir(parents=True)
    (tmp_path / "results" / "unk1" / "results.parquet").write_text("rows")
    (tmp_path / "results" / "unk1" / "grid.yaml").write_text("name: unk1\n")
    assert point_module.point_data(tmp_path) == before == ["scenarios/a.yaml"]


def test_a_notebook_s_digest_is_its_cells_sources(tmp_path):
    """The review: saving sweep_point.ipynb during a sweep (its outputs and metadata new, its code
    the same) failed every point still to run."""
    path = tmp_path / "nb.ipynb"
    cells = [{"cell_type": "code", "source": ["x = 1\n"], "outputs": [], "metadata": {}}]
    path.write_text(json.dumps({"cells": cells, "metadata": {}}))
    first = point_module.file_digest(str(path))
    cells[0]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "1\n"}]
    path.write_text(json.dumps({"cells": cells, "metadata": {"saved": "in Jupyter"}}))
    assert point_module.file_digest(str(path)) == first
    cells[0]["source"] = ["x = 2\n"]
    path.write_text(json.dumps({"cells": cells, "metadata": {}}))
    assert point_module.file_digest(str(path)) != first


def test_a_relative_out_reaches_the_sweep_as_an_absolute_folder(tmp_path, run_cli, monkeypatch):
    """The review: a relative --out was checked by each worker in its own working folder, so a
    shared folder was refused ("give --out a folder every worker shares")."""
    given = []
    monkeypatch.setattr(
        run_module, "run", lambda grid, points, out, **kw: given.append(out) or (0, 0, 0)
    )
    monkeypatch.chdir(tmp_path)
    run_cli("sweep", str(paths.PROJECT_ROOT / "data/sweeps/raid0_disks.yaml"), "--out", "relout")
    assert given == [tmp_path / "relout"]


@pytest.mark.parametrize("stopped", ["as its kernel starts", "before it registers"])
def test_a_point_of_a_stopped_sweep_ends_the_kernel_it_starts_at_once(
    tmp_path, monkeypatch, stopped
):
    """The review: a point registered whose kernel had not started yet when the stopped sweep
    ended the kernels (or one that started after) escaped, its kernel running on. The kernel's
    start is held until the stop has looked; a later sweep on the same folder runs."""
    from jupyter_client.manager import AsyncKernelManager

    start = AsyncKernelManager.start_kernel
    registered, go = threading.Event(), threading.Event()

    async def start_once_told(self, **kw):
        registered.set()
        go.wait(60)  # the point's own thread and event loop: only this point waits
        await start(self, **kw)

    monkeypatch.setattr(AsyncKernelManager, "start_kernel", start_once_told)
    (spec,) = specs_module.specs(*_sleepy(tmp_path, [600]), tmp_path / "out")
    if stopped == "before it registers":
        point_module.end_kernels(spec["sweep"])
    records = []
    runner = threading.Thread(target=lambda: records.append(point_module.run_point(spec)))
    runner.start()
    assert registered.wait(60)
    if stopped == "as its kernel starts":
        point_module.end_kernels(spec["sweep"])  # finds no kernel yet
    go.set()
    runner.join(timeout=60)
    left = _kernels()
    for kernel in left:  # a failing test's, not the next test's
        kernel.kill()
    runner.join(timeout=30)
    assert left == []
    (record,) = records
    assert record["failure"] == point_module.INFRASTRUCTURE
    assert record["error"].startswith("SweepStopped: the sweep was stopped as the point's kernel")
    (later,) = specs_module.specs(*_sleepy(tmp_path, [0]), tmp_path / "out")
    assert point_module.run_point(later)["status"] == "ok"


def test_a_notebook_joins_the_finished_ones_only_with_its_record(tmp_path):
    """The review: after a lost scheduler, the notebooks its workers' points left (run on, or
    cut off) stayed in OUT/notebooks looking like finished output, with no record. A point whose
    record the sweep never stored (here: run as a worker runs it) leaves none there; the next
    sweep keeps its own and removes the one left."""
    grid, points = _sleepy(tmp_path, [0])
    out = tmp_path / "out"
    (cut_off,) = specs_module.specs(grid, points, out)
    assert point_module.run_point(cut_off)["status"] == "ok"
    assert not list(out.glob("notebooks/*.ipynb"))
    run_module.run(grid, points, out, workers=1, progress=False)
    assert os.listdir(out / "notebooks") == [f"{cut_off['point_id']}.ipynb"]


def test_a_notebook_that_cannot_be_kept_stops_the_sweep_in_one_line(tmp_path):
    """The last review: a folder in the notebook's place (or a notebooks folder another user's)
    raised a traceback as the point was stored, and the sweep then hung on its pool's workers."""
    grid, points = _sleepy(tmp_path, [0, 1])
    out = tmp_path / "out"
    first = specs_module.specs(grid, points, out)[0]
    (out / "notebooks" / f"{first['point_id']}.ipynb").mkdir(parents=True)
    with pytest.raises(Stopped) as stopped:
        run_module.run(grid, points, out, workers=2, progress=False)
    assert "cannot keep the point's notebook there" in str(stopped.value)
    assert "\n" not in str(stopped.value)


class _FrozenScheduler:
    """A Dask client whose scheduler was stopped (SIGSTOP): its connection open, no answer."""

    def __init__(self):
        self.thawed = threading.Event()

    def scheduler_info(self):
        self.thawed.wait(30)  # a test that fails waits no longer
        return {"workers": {}}

    def close(self, timeout):
        self.thawed.set()


def test_a_scheduler_that_does_not_answer_stops_the_sweep_in_one_line(tmp_path, monkeypatch):
    """The review: a scheduler stopped (SIGSTOP) was never noticed, the sweep saying only that it
    was still running. As it starts, and as its points run (the watch), the sweep says in one
    line that the scheduler does not answer and stops as for a lost one (status 1)."""
    from model.sweep import cluster as cluster_module

    monkeypatch.setattr(cluster_module, "SILENT_S", 0.5)
    frozen = _FrozenScheduler()
    monkeypatch.setattr(run_module, "_connect", lambda scheduler: frozen)
    grid, points = grid_module.load(_grid(tmp_path, product={"volumes.md0.disks.count": [1]}))
    with pytest.raises(Stopped) as stopped:
        run_module.run(grid, points, tmp_path / "out", scheduler="tcp://s:1", progress=False)
    assert stopped.value.exit_status == 1
    assert stopped.value.line() == (
        "--scheduler: the Dask scheduler at tcp://s:1 did not answer within 0.5 s (stopped, "
        "frozen or cut off); the points finished are kept, run the sweep again to resume"
    )
    watch = cluster_module.Watch(_FrozenScheduler(), "tcp://s:1", None, set(), [].append)
    with pytest.raises(cluster_module.SchedulerSilent):
        watch.look()
    watch.client.thawed.set()


def test_a_file_only_a_variant_names_is_in_its_point_s_digests(tmp_path):
    """The review: a scenario's variant naming another scenario, with a parts file of its own, was
    not followed into the point's digests, so a worker with another version of either computed
    silently."""
    from scenario_copies import copy_scenario

    parts = tmp_path / "parts.yaml"
    parts.write_text(
        "controllers:\n  my_md:\n    like: dell_md3260\n    processor_MHz: 100\n"
        '    sources: {processor_MHz: "estimated: a test"}\n'
    )
    store = copy_scenario(
        tmp_path,
        "em_ingest",
        "store.yaml",
        ("part: dell_md3260", "part: my_md"),
        head="catalogs: [parts.yaml]\n",
    )
    copy_scenario(
        tmp_path,
        "em_ingest_microscopes",
        "ingest.yaml",
        ("variants:\n", "variants:\n  own_store: {storage: store.yaml}\n"),
    )
    path = _grid(tmp_path, scenario="ingest.yaml", product={"variant": ["own_store"]})
    (spec,) = specs_module.specs(*grid_module.load(path), tmp_path / "out")
    assert {store, str(parts)} <= set(spec["inputs"])
    # the last review: a point the scenario refuses (no clients: built here, as the grid's own
    # check refuses it before) had left its variant's files out of every later point's digests
    points = [{"variant": "own_store", "clients": 0}, {"variant": "own_store", "clients": 2}]
    grid, _ = grid_module.load(path)
    refused, loaded = specs_module.specs(grid, points, tmp_path / "out")
    assert {store, str(parts)} <= set(loaded["inputs"])
    parts.write_text(parts.read_text() + "# another worker's copy\n")
    record = point_module.run_point(spec)
    assert record["failure"] == point_module.INFRASTRUCTURE
    assert f"{paths.shown(parts)} is not as the sweep read it" in record["error"]
