"""The sweep runner under failures outside the model: killed workers, kernels that die, ports in
use, a second sweep on the same folder, a full disk, an unreachable scheduler. Each ends in one
line and the right status, the store consistent."""

import asyncio
import errno
import fcntl
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile

import pandas as pd
import pytest
from grid_files import ended, notebook
from grid_files import grid as _grid

from model import paths
from model.errors import UserError
from model.sweep import grid as grid_module
from model.sweep import point as point_module
from model.sweep import run as run_module
from model.sweep import specs as specs_module
from model.sweep import store as store_module
from model.sweep.store import Store


def _message(err):
    """stderr without the progress bar: it must be one line."""
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("sweep t:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def _counts(tmp_path, name):
    """How many times each point ran, counted in a file (workers are other processes)."""
    path = tmp_path / name
    return json.loads(path.read_text()) if path.exists() else {}


def _flaky(tmp_path, fails, error):
    """_inprocess that raises ``error`` the first ``fails`` times it runs a point."""
    real = point_module._inprocess

    def flaky(spec):
        counts = _counts(tmp_path, "runs.json")
        key = str(spec["index"])
        counts[key] = counts.get(key, 0) + 1
        (tmp_path / "runs.json").write_text(json.dumps(counts))
        if counts[key] <= fails:
            raise error
        return real(spec)

    return flaky


def test_an_infrastructure_failure_is_retried_and_a_model_failure_is_not(tmp_path, monkeypatch):
    in_use = OSError(errno.EADDRINUSE, "Address already in use")
    monkeypatch.setattr(point_module, "_inprocess", _flaky(tmp_path, 2, in_use))
    path = _grid(tmp_path, product={"controllers.promise1.transfer": ["dma", "pio"]})
    grid, points = grid_module.load(path)
    assert run_module.run(grid, points, tmp_path / "out", workers=1, progress=False) == (2, 1, 0)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet").set_index(
        "param:controllers.promise1.transfer"
    )
    assert table.loc["dma", "status"] == "ok" and table.loc["dma", "attempts"] == 3
    # pio failed twice for the port, then for the model: the model's failure is final
    assert table.loc["pio", "status"] == "failed" and table.loc["pio", "failure"] == "model"
    assert "programmed I/O" in table.loc["pio", "error"] and table.loc["pio", "attempts"] == 3


def test_retry_failed_runs_failed_points_again(tmp_path, monkeypatch, run_cli):
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2]})
    out = str(tmp_path / "out")
    in_use = OSError(errno.EADDRINUSE, "Address already in use")
    with monkeypatch.context() as patch:  # the port stays taken for every try
        patch.setattr(point_module, "_inprocess", _flaky(tmp_path, 99, in_use))
        status, stdout, _ = run_cli("sweep", str(path), "--out", out, "--workers", "1")
    # the sweep audit: a sweep whose every point failed exited 0, the reasons only in the table
    assert status == 4 and "2 run now (2 failed)" in stdout
    assert (
        "failed, by reason:\n  2 points (the first at volumes.md0.disks.count=1): "
        "infrastructure: OSError: [Errno 98]"
    ) in stdout
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert set(table.failure) == {"infrastructure"} and set(table.attempts) == {3}
    assert "Address already in use" in table.error.iloc[0]
    status, stdout, _ = run_cli("sweep", str(path), "--out", out, "--workers", "1")
    assert status == 4 and "0 run now" in stdout and "2 already done" in stdout
    # the stored failures are told, not hidden behind "0 failed"
    assert "2 already done (2 of them failed: --retry-failed runs them again)" in stdout
    status, stdout, _ = run_cli(
        "sweep", str(path), "--out", out, "--workers", "1", "--retry-failed"
    )
    assert status == 0 and "2 run now (0 failed)" in stdout
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert table.status.tolist() == ["ok", "ok"]


def test_a_worker_the_system_kills_costs_only_its_point(tmp_path, monkeypatch):
    """A worker killed (out of memory) ended the sweep with a BrokenProcessPool traceback."""
    real = point_module._inprocess

    def oom(spec):
        if spec["point"]["volumes.md0.disks.count"] == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(spec)

    monkeypatch.setattr(point_module, "_inprocess", oom)
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2, 3, 4, 5]})
    grid, points = grid_module.load(path)
    assert run_module.run(grid, points, tmp_path / "out", workers=2, progress=False) == (5, 1, 0)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    bad = table[table.status == "failed"]
    assert bad["param:volumes.md0.disks.count"].tolist() == [3]
    assert "killed by SIGKILL" in bad.error.iloc[0] and bad.attempts.iloc[0] == 3
    assert (table[table.status == "ok"].throughput_MBps > 0).all()


def test_a_killed_worker_takes_what_it_started_with_it(tmp_path, monkeypatch):
    """A worker killed while its point ran left that point's kernel running (jupyter_client starts
    it in a session of its own) and its temporary files in the system's temporary folder."""
    system_tmp, started = tmp_path / "system_tmp", tmp_path / "started"
    system_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_tmp))
    real = point_module._inprocess

    def oom(spec):
        if spec["point"]["volumes.md0.disks.count"] == 2:
            _, connection_file = tempfile.mkstemp(".json")  # a kernel names its own so
            kernel = [sys.executable, "-c", "import time; time.sleep(60)", connection_file]
            child = subprocess.Popen(kernel, start_new_session=True)
            with open(started, "a") as f:
                f.write(f"{child.pid}\n")
            os.kill(os.getpid(), signal.SIGKILL)
        return real(spec)

    monkeypatch.setattr(point_module, "_inprocess", oom)
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2]})
    grid, points = grid_module.load(path)
    assert run_module.run(grid, points, tmp_path / "out", workers=2, progress=False) == (2, 1, 0)
    pids = [int(line) for line in started.read_text().split()]
    assert len(pids) == 1 + run_module.RETRIES
    assert all(ended(pid) for pid in pids)
    assert list(system_tmp.iterdir()) == []


def test_a_kernel_that_dies_is_retried(tmp_path):
    """A kernel that died before replying was recorded as the point's failure and never retried."""
    marker = tmp_path / "died-once"
    source = [
        "marker = ''\nx = 1\nresult_path = ''\n",
        "import json, os, pathlib\n"
        "if not pathlib.Path(marker).exists():\n"
        "    pathlib.Path(marker).touch()\n"
        "    os._exit(1)\n"
        "pathlib.Path(result_path).write_text(json.dumps({'x_squared': x * x}))\n",
    ]
    nb = notebook(tmp_path / "dies.ipynb", *source)
    path = _grid(
        tmp_path,
        scenario=None,
        notebook=str(nb),
        engine="papermill",
        product={"x": [3], "marker": [str(marker)]},
    )
    grid, points = grid_module.load(path, trust_notebook=True)
    run_module.run(grid, points, tmp_path / "out", workers=1, progress=False)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert table.status.tolist() == ["ok"] and table.attempts.tolist() == [2], table.error
    assert table.x_squared.tolist() == [9] and marker.exists()


def test_what_a_kernel_writes_goes_to_its_point_s_error_not_the_terminal(
    tmp_path, monkeypatch, capfd
):
    """A point's kernel wrote to the sweep's terminal (the new-user audit: tracebacks after the
    sweep's one line). What it writes now goes to a file in the point's folder, and a point that
    fails says its last line: a kernel that dies as it starts says why only there."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(  # run by the kernel's Python as it starts
        "import os\nos.write(2, b'Traceback\\nImportError: no kernel here\\n')\nos._exit(1)\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(site))  # behind the checkout (_this_checkout_first)
    nb = notebook(tmp_path / "nb.ipynb", "x = 1\nresult_path = ''\n")
    path = _grid(tmp_path, scenario=None, notebook=str(nb), engine="papermill", product={"x": [2]})
    grid, points = grid_module.load(path, trust_notebook=True)
    (spec,) = specs_module.specs(grid, points, tmp_path / "out")
    record = point_module.run_point(spec)
    assert record["status"] == "failed" and record["failure"] == "infrastructure"
    error = record["error"]
    assert error.startswith("RuntimeError: Kernel died"), error
    assert error.endswith("(the point's kernel wrote: ImportError: no kernel here)"), error
    assert "no kernel here" not in "".join(capfd.readouterr())


def test_a_point_whose_notebook_writes_no_result_says_so_alike(tmp_path):
    """Its reason had been FileNotFoundError naming the point's own temporary folder: one reason a
    point, none grouped in the sweep's summary."""
    nb = notebook(tmp_path / "nb.ipynb", "x = 1\nresult_path = ''\n", "y = x\n")
    path = _grid(
        tmp_path, scenario=None, notebook=str(nb), engine="papermill", product={"x": [2, 3]}
    )
    grid, points = grid_module.load(path, trust_notebook=True)
    errors = {
        point_module.run_point(spec)["error"]
        for spec in specs_module.specs(grid, points, tmp_path / "out")
    }
    assert errors == {
        "ValueError: the notebook wrote nothing to result_path; it must write its figures there "
        "as a JSON object"
    }


def test_a_kernel_that_dies_as_it_starts_leaves_the_terminal_the_sweep_s_own_lines(tmp_path):
    """A real sweep whose point's kernel dies as it starts: papermill's logger (nbclient's) printed
    "Error occurred while starting new kernel client for kernel ID: Kernel died before replying
    to kernel_info" on the sweep's terminal, once a try (three lines), beside the sweep's own line
    for the point, which says the same. Now only the sweep speaks, and the record keeps why."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(  # run by every Python that starts: ends a kernel only
        "import os\nif os.environ.get('JPY_PARENT_PID'):\n"
        "    os.write(2, b'ImportError: no kernel here\\n')\n    os._exit(1)\n"
    )
    nb = notebook(tmp_path / "nb.ipynb", "x = 1\nresult_path = ''\n")
    path = _grid(tmp_path, scenario=None, notebook=str(nb), engine="papermill", product={"x": [2]})
    python_path = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(site)]))
    sweep = subprocess.run(
        [sys.executable, "-m", "model", "sweep", str(path), "--out", str(tmp_path / "out")]
        + ["--workers", "1", "--trust-notebook"],
        cwd=paths.PROJECT_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": python_path},
        timeout=120,
    )
    progress = sweep.stderr.replace("\r", "\n").splitlines()
    assert [line for line in progress if line.strip() and not line.startswith("sweep t:")] == []
    reason = "infrastructure: RuntimeError: Kernel died before replying to kernel_info"
    said = f"  1 point (at x=2): {reason} (the point's kernel wrote: ImportError: no kernel here)"
    assert said in sweep.stdout.splitlines(), sweep.stdout
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert table.attempts.tolist() == [1 + run_module.RETRIES]


def test_what_papermill_logs_as_a_point_runs_is_in_its_record(tmp_path, caplog):
    """A kernel that died in a cell: nbclient's "Kernel died while waiting for execute reply." went
    to the terminal, the record saying only "DeadKernelError: Kernel died"."""
    nb = notebook(tmp_path / "nb.ipynb", "x = 1\nresult_path = ''\n", "import os\nos._exit(1)\n")
    path = _grid(tmp_path, scenario=None, notebook=str(nb), engine="papermill", product={"x": [2]})
    grid, points = grid_module.load(path, trust_notebook=True)
    (spec,) = specs_module.specs(grid, points, tmp_path / "out")
    record = point_module.run_point(spec)
    assert record["error"] == (
        "DeadKernelError: Kernel died (papermill logged: Kernel died while waiting for execute "
        "reply.)"
    )
    assert caplog.records == []  # nothing reached a handler (the terminal's)


def test_what_papermill_logs_is_kept_for_a_point_run_under_an_event_loop(tmp_path, caplog):
    """The review: run from a thread with an event loop running (a notebook's cell), nbclient ran
    on a thread of its own, so its "Kernel died while waiting for execute reply." reached the
    terminal and the record said only "DeadKernelError: Kernel died"."""
    nb = notebook(tmp_path / "nb.ipynb", "x = 1\nresult_path = ''\n", "import os\nos._exit(1)\n")
    path = _grid(tmp_path, scenario=None, notebook=str(nb), engine="papermill", product={"x": [2]})
    grid, points = grid_module.load(path, trust_notebook=True)
    (spec,) = specs_module.specs(grid, points, tmp_path / "out")

    async def in_a_cell():
        return point_module.run_point(spec)

    record = asyncio.run(in_a_cell())
    assert record["error"].endswith(
        "(papermill logged: Kernel died while waiting for execute reply.)"
    ), record["error"]
    assert caplog.records == []


def test_what_papermill_s_child_loggers_say_is_kept_too(caplog):
    """A filter on the papermill logger let its children's records (papermill.translators'
    warnings) through to the terminal."""
    with point_module._PAPERMILL_LOG.kept() as logged:
        logging.getLogger("papermill.translators").warning("Black is not installed")
    assert logged == ["Black is not installed"]
    assert caplog.records == []


def test_what_papermill_logs_outside_any_point_is_logged_as_before(caplog):
    """The review: once a point had run, the papermill logger passed nothing up, so what it said
    outside any point (a notebook's own papermill call in the same kernel) was lost."""
    with point_module._PAPERMILL_LOG.kept():
        pass
    logging.getLogger("papermill").warning("outside any point")
    assert [r.getMessage() for r in caplog.records] == ["outside any point"]


def test_a_cell_s_own_error_is_its_point_s_reason_without_what_the_kernel_wrote(tmp_path):
    """The review: a cell that raised was recorded with the kernel's last line of output beside
    its error ('ValueError: x is two (the point's kernel wrote: low-level warning from a C
    library)'), output that had nothing to do with it. That line is for a kernel that died."""
    source = (
        "import os\n"
        "os.write(2, b'low-level warning from a C library\\n')\n"
        "if x == 2:\n    raise ValueError('x is two')\n"
    )
    nb = notebook(tmp_path / "nb.ipynb", "x = 1\nresult_path = ''\n", source)
    path = _grid(tmp_path, scenario=None, notebook=str(nb), engine="papermill", product={"x": [2]})
    grid, points = grid_module.load(path, trust_notebook=True)
    (spec,) = specs_module.specs(grid, points, tmp_path / "out")
    record = point_module.run_point(spec)
    assert (record["status"], record["failure"]) == ("failed", "model")
    assert record["error"] == "ValueError: x is two"


def test_a_notebook_runs_on_the_lab_s_kernel_whatever_its_metadata_names(tmp_path):
    """papermill took the parameters' language from the notebook's metadata when not told: a
    notebook naming bash there had the grid's values written in bash's quoting into its parameters
    cell, which the Python kernel ran (a SyntaxError, or other code). The kernel is the lab's
    python3, and the parameters are Python, whatever the metadata names."""
    source = [
        "word = ''\nresult_path = ''\n",
        "import json, pathlib, sys\n"
        "figures = {'got': word, 'python': sys.executable}\n"
        "pathlib.Path(result_path).write_text(json.dumps(figures))\n",
    ]
    nb = notebook(tmp_path / "own.ipynb", *source)
    data = json.loads(nb.read_text())
    data["metadata"]["kernelspec"] = {
        "name": "no_such_kernel",
        "display_name": "B",
        "language": "bash",
    }
    data["metadata"]["language_info"] = {"name": "bash"}
    nb.write_text(json.dumps(data))
    word = 'it\'s "$(quoted)"; `ls`'
    spec = {"scenario": None, "notebook": "own.ipynb", "engine": "papermill"}
    path = _grid(tmp_path, **spec, product={"word": [word]})
    grid, points = grid_module.load(path, trust_notebook=True)
    run_module.run(grid, points, tmp_path / "out", workers=1, progress=False)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert table.status.tolist() == ["ok"], table.error.tolist()
    assert table.got.tolist() == [word]
    assert os.path.samefile(table.python[0], sys.executable)


def test_failures_are_classified():
    from model.errors import NotModelled, UserError

    assert point_module.failure_kind(NotModelled("programmed I/O")) == "model"
    assert point_module.failure_kind(UserError("a.yaml", "k", "bad")) == "model"
    assert point_module.failure_kind(ZeroDivisionError()) == "model"
    assert point_module.failure_kind(OSError(errno.EADDRINUSE, "in use")) == "infrastructure"
    assert point_module.failure_kind(MemoryError()) == "infrastructure"
    from nbclient.exceptions import DeadKernelError

    assert point_module.failure_kind(DeadKernelError("Kernel died")) == "infrastructure"


def test_workers_never_outnumber_the_points(tmp_path, monkeypatch):
    """--workers 64 forked 64 processes for 2 points."""
    started = []
    real = run_module.Pool

    def pool(task, workers):
        started.append(workers)
        return real(task, workers)

    monkeypatch.setattr(run_module, "Pool", pool)
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2]})
    grid, points = grid_module.load(path)
    assert run_module.run(grid, points, tmp_path / "out", workers=64, progress=False) == (2, 0, 0)
    assert started == [2]


def test_a_second_sweep_on_the_same_folder_is_refused(tmp_path, run_cli):
    """Two sweeps on the same --out both computed every point."""
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2]})
    out = tmp_path / "out"
    out.mkdir()
    with open(out / ".lock", "w") as held:  # as a running sweep holds it
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write("4242")
        held.flush()
        status, stdout, err = run_cli("sweep", str(path), "--out", str(out))
        assert status == 2 and stdout == "" and len(err.strip().splitlines()) == 1
        assert "another sweep (pid 4242)" in err and "Traceback" not in err
        assert not list((out / "points").glob("*.parquet"))
    status, stdout, _ = run_cli("sweep", str(path), "--out", str(out), "--workers", "1")
    assert status == 0 and "2 run now" in stdout


def test_what_a_killed_run_left_half_written_is_removed(tmp_path):
    """A .results.PID.partial stayed after a kill while gathering."""
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1]})
    out = tmp_path / "out"
    (out / "points").mkdir(parents=True)
    (out / ".results.99999.partial").write_bytes(b"PAR1 half")
    (out / "points" / ".abc.99999.partial").write_bytes(b"PAR1 half")
    grid, points = grid_module.load(path)
    run_module.run(grid, points, out, workers=1, progress=False)
    assert not list(out.rglob("*.partial"))
    assert len(pd.read_parquet(out / "results.parquet")) == 1


def test_a_full_disk_stops_the_sweep_with_one_line(tmp_path, monkeypatch, run_cli):
    """A full disk gave a chained ENOSPC traceback."""
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2, 3]})
    out = tmp_path / "out"
    real = store_module.pq.write_table
    writes = []

    def write_table(table, target, **kwargs):
        writes.append(target)
        if len(writes) > 1:  # the disk fills up during the second point's file
            target.write(b"PAR1")  # the partial file, opened by the store
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(table, target, **kwargs)

    monkeypatch.setattr(store_module.pq, "write_table", write_table)
    status, stdout, err = run_cli("sweep", str(path), "--out", str(out), "--workers", "1")
    assert status == 1 and stdout == "" and "No space left on device" in _message(err)
    assert not list(out.rglob("*.partial"))
    assert len(Store(out).done()) == 1  # the point written before the disk filled stays


def test_an_unreachable_scheduler_is_one_line(tmp_path, monkeypatch, run_cli):
    """An unreachable --scheduler gave a traceback after 32 s."""
    monkeypatch.setattr(run_module, "SCHEDULER_TIMEOUT_S", 1)
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1]})
    status, stdout, err = run_cli(
        "sweep", str(path), "--out", str(tmp_path / "out"), "--scheduler", "tcp://127.0.0.1:9"
    )
    assert status == 2 and stdout == "" and "no Dask scheduler answers" in _message(err)


@pytest.mark.parametrize(
    ("scheduler", "said"),
    [
        ("tls://127.0.0.1:9", "needs its certificates in Dask's configuration"),
        ("ucx://127.0.0.1:9", "cannot connect to ucx://127.0.0.1:9: "),
        # the sweep audit's: a malformed address had been "no Dask scheduler answers at foo"
        ("foo", "foo is not a Dask scheduler address (missing port number"),
    ],
)
def test_a_scheduler_dask_cannot_open_as_configured_is_one_line(tmp_path, run_cli, scheduler, said):
    """The sweep audit's tracebacks: tls:// with no certificates configured, ucx:// without UCX."""
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1]})
    status, stdout, err = run_cli(
        "sweep", str(path), "--out", str(tmp_path / "out"), "--scheduler", scheduler
    )
    assert status == 2 and stdout == "" and said in _message(err)


def test_an_empty_scheduler_is_refused_not_taken_as_none(tmp_path, run_cli):
    """The sweep audit: --scheduler "$DASK_SCHEDULER_ADDRESS" with the variable unset ran every
    point on the machine the job script ran on, without a word."""
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1]})
    status, stdout, err = run_cli(
        "sweep", str(path), "--out", str(tmp_path / "o"), "--scheduler", ""
    )
    assert status == 2 and stdout == "" and "got an empty string" in _message(err)
    assert not (tmp_path / "o").exists()


def test_a_refused_scheduler_leaves_no_half_made_client():
    """A Client that failed to connect stayed alive in reference cycles, 'connecting'; its
    __del__, run by a later collection inside another Client's start, hung a test run."""
    import gc

    from dask.distributed import Client

    gc.disable()
    try:
        with pytest.raises(UserError, match="is not a Dask scheduler address"):
            run_module._connect("nonsense:::")
        alive = [o for o in gc.get_objects() if type(o) is Client]  # (a dead weak proxy raises)
    finally:
        gc.enable()
    assert alive == []


def test_a_sweep_with_failed_points_names_the_commonest_reasons_and_where():
    """Each reason with how many points and the settings of its point, or its first (an audit: a
    summary's 'raid6 needs at least 4 drives' had not said at which of the grid's points)."""
    from model.cli import _failure_lines

    failures = [("model: A", f"n={i}") for i in range(3)] + [("model: B", "n=9")]
    failures += [("infrastructure: C", "n=4")] * 2 + [("model: D", "n=5"), ("model: E", "")]
    assert _failure_lines(failures) == [
        "  3 points (the first at n=0): model: A",
        "  2 points (the first at n=4): infrastructure: C",
        "  1 point (at n=9): model: B",
        "  2 more, for 2 other reasons (each point's in the results' error column)",
    ]
    long = [("model: F", "volumes.data.disks.count=" + "9" * 300)]
    assert _failure_lines(long)[0].endswith("9... (165 more)): model: F")


def test_a_failed_point_is_named_by_the_settings_it_had(tmp_path):
    """The review: a grid's listed points, each setting keys of its own, were named with the
    others' as None, and a count beside a gap as 8.0."""
    from model.cli import _failures_in

    results = tmp_path / "results.parquet"
    pd.DataFrame(
        {
            "status": ["ok", "failed"],
            "failure": ["", "model"],
            "error": ["", "E"],
            "param:workload.clients": [2.0, float("nan")],
            "param:level": [None, "raid10"],
            "param:disks": [float("nan"), 8.0],
        }
    ).to_parquet(results)
    assert _failures_in(results) == [("model: E", "level=raid10, disks=8")]


@pytest.mark.parametrize("error", ["CommClosedError", "CancelledError"])
def test_a_lost_scheduler_is_one_line_and_keeps_the_points(tmp_path, monkeypatch, run_cli, error):
    """A killed Dask scheduler gave a CommClosedError traceback: the client sees its futures fail
    with CommClosedError (or cancelled, once it gives up reconnecting)."""
    from concurrent.futures import CancelledError

    from dask.distributed import LocalCluster
    from distributed.client import Future
    from distributed.comm.core import CommClosedError

    real = Future.result
    results = []

    def result(self, *args, **kwargs):
        results.append(self)
        if len(results) > 1:
            raise (
                CommClosedError("in <TCP (closed)>")
                if error == "CommClosedError"
                else (CancelledError())
            )
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Future, "result", result)
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2, 3]})
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        status, stdout, err = run_cli(
            "sweep",
            str(path),
            "--out",
            str(tmp_path / "out"),
            "--scheduler",
            cluster.scheduler_address,
        )
    assert status == 1 and stdout == "" and "lost the Dask scheduler" in _message(err)
    assert len(pd.read_parquet(tmp_path / "out" / "results.parquet")) == 1


def test_a_second_ctrl_c_while_the_pool_closes_still_kills_every_worker(monkeypatch):
    """The sweep audit's hang: a second Ctrl-C cut the loop that kills the workers short; a worker
    left alive ignores the SIGTERM the interpreter's exit sends its daemons, and the exit joined it
    for ever, the sweep's folder still locked. The signal now waits until every worker is dead."""
    from model.sweep import pool as pool_module

    workers = pool_module.Pool(abs, 3)
    killed = []
    kill = pool_module._Worker.kill

    def kill_then_ctrl_c(worker):
        if not killed:
            signal.raise_signal(signal.SIGINT)
        killed.append(worker)
        kill(worker)

    monkeypatch.setattr(pool_module._Worker, "kill", kill_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        workers.close()
    assert len(killed) == 3
    assert not any(w.process.is_alive() for w in workers.workers)


def test_a_ctrl_c_raised_before_the_pool_s_mask_still_kills_every_worker(monkeypatch):
    """The last review: ``timeout -s INT`` sends two; the second, received before the mask took
    hold, was raised inside the loop that kills the workers, which left some alive and the exit
    joined them for ever. It is raised once every worker is dead."""
    from model.sweep import pool as pool_module

    workers = pool_module.Pool(abs, 3)
    killed = []
    kill = pool_module._Worker.kill

    def kill_then_raise(worker):
        killed.append(worker)
        kill(worker)
        if len(killed) == 1:
            raise KeyboardInterrupt  # as the interpreter raises one it had received

    monkeypatch.setattr(pool_module._Worker, "kill", kill_then_raise)
    with pytest.raises(KeyboardInterrupt):
        workers.close()
    assert len(set(map(id, killed))) == 3
    assert not any(w.process.is_alive() for w in workers.workers)


def test_a_worker_with_other_code_fails_its_point_instead_of_answering(tmp_path):
    """The sweep audit's case: a Dask worker on another checkout (its simulate halved the time)
    answered exit 0 with twice the throughput, filed under the client's commit and versions, and a
    rerun kept them as done. Each point now checks that its worker computes with the sweep's own
    code, data and packages; a worker that does not fails the point as the cluster's failure
    (infrastructure: a worker started before an edit had its points stored as the model's, which
    a plain rerun kept as done), and a rerun runs it again."""
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1]})
    grid, points = grid_module.load(path)
    (spec,) = specs_module.specs(grid, points, tmp_path / "out")
    assert point_module.run_point(spec)["status"] == "ok"
    code, data, versions = spec["lab"].split("/")
    record = point_module.run_point(dict(spec, lab=f"0123456789ab/{data}/{versions}"))
    assert record["status"] == "failed" and record["failure"] == point_module.INFRASTRUCTURE
    assert "this worker computes with other model code than the sweep's" in record["error"]
    assert "give every worker the sweep's checkout, and restart it after an edit" in record["error"]


def test_a_grown_grid_runs_only_its_new_points_and_lists_them_all_in_its_order(tmp_path, run_cli):
    """The sweep audit's case: a value added to a product's last key moved every point's place,
    and its id held the place: 96 of 100 points ran again. A point's id is its inputs; its row's
    place is the grid's as it is now."""
    product = {"volumes.md0.disks.count": [1, 2], "workload.request_KiB": [64, 128]}
    out = str(tmp_path / "out")
    status, stdout, _ = run_cli("sweep", str(_grid(tmp_path, product=product)), "--out", out)
    assert status == 0 and "4 run now (0 failed), 0 already done" in stdout
    product["workload.request_KiB"].append(256)
    status, stdout, _ = run_cli("sweep", str(_grid(tmp_path, product=product)), "--out", out)
    assert status == 0 and "2 run now (0 failed), 4 already done" in stdout
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert table.point_index.tolist() == list(range(6))
    assert table["param:workload.request_KiB"].tolist() == [64, 128, 256] * 2
    assert table["param:volumes.md0.disks.count"].tolist() == [1, 1, 1, 2, 2, 2]


def test_a_sampled_design_s_equal_points_are_kept_apart():
    """Saltelli's design repeats some points on purpose: each repeat is a point of its own."""
    spec = {"name": "t", "scenario": "atlas_intellistation", "engine": "inprocess"}
    grid = grid_module.Grid(**spec, points=[{"seed": 1}, {"seed": 1}, {"seed": 2}])
    ids = [s["point_id"] for s in specs_module.specs(grid, grid_module.expand(grid), "out")]
    assert len(set(ids)) == 3


def test_the_default_workers_are_the_cores_the_sweep_may_use(monkeypatch):
    """The sweep audit's case: under taskset -c 0 a sweep started a worker for each of the node's
    cores, all on the one it was given."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    assert run_module.usable_cores() == 1


def test_a_failed_point_s_error_is_one_line_naming_the_point(tmp_path, run_cli):
    """The sweep audit's cases: an in-process point's refusal named --set; a notebook cell's error
    stored the cell's whole traceback (27 lines), printed so by the summary notebook."""
    from papermill.exceptions import PapermillExecutionError

    product = {"volumes.md0.level": ["raid6"], "volumes.md0.disks.count": [3, 4]}
    out = str(tmp_path / "out")
    status, _, err = run_cli("sweep", str(_grid(tmp_path, product=product)), "--out", out)
    assert status == 4, err  # a point failed
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    error = table.error.iloc[0]
    assert error.startswith("UserError: point: volumes.md0."), error
    assert error.endswith("raid6 needs at least 4 drives; got 3 drives per group"), error
    cell = PapermillExecutionError(
        0, 1, "raise ValueError('x')", "ValueError", "bad value\nsecond", ["line 1", "line 2"]
    )
    assert point_module.error_line(cell) == "ValueError: bad value\\nsecond"


def test_a_papermill_point_s_refusal_names_the_point_as_an_in_process_one_s_does(tmp_path):
    """The new-user audit's case: a papermill point the scenario refused was recorded as
    'UserError: --set: ...', an option the user never typed; an in-process one says 'point:'."""
    product = {"volumes.md0.level": ["raid6"], "volumes.md0.disks.count": [3, 4]}
    errors = {}
    for engine in ("inprocess", "papermill"):
        grid, points = grid_module.load(_grid(tmp_path, engine=engine, product=product))
        run_module.run(grid, points, tmp_path / engine, workers=1, progress=False)
        errors[engine] = pd.read_parquet(tmp_path / engine / "results.parquet").error.iloc[0]
    assert errors["papermill"] == errors["inprocess"], errors
    assert errors["papermill"].startswith("UserError: point: volumes.md0."), errors


def test_a_papermill_kernel_imports_the_sweep_s_own_checkout(tmp_path, monkeypatch):
    """The sweep audit's case: in an environment another checkout installed, a point's kernel
    imported that checkout's model. The kernels' PYTHONPATH puts this one first."""
    from model import paths

    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    point_module._this_checkout_first()
    assert os.environ["PYTHONPATH"] == os.pathsep.join([str(paths.PROJECT_ROOT), "/elsewhere"])
    point_module._this_checkout_first()  # once is enough
    assert os.environ["PYTHONPATH"].count(str(paths.PROJECT_ROOT)) == 1


def test_points_of_another_grid_or_other_code_in_the_folder_are_said(tmp_path, run_cli):
    """The sweep audit: after a comment added to a module every stored point ran again, said only
    as '250 run now, 0 already done'; two grids of one name shared sweeps/NAME without a word."""
    out = str(tmp_path / "out")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _grid(tmp_path / "a", product={"volumes.md0.disks.count": [1, 2]})
    second = _grid(tmp_path / "b", product={"volumes.md0.disks.count": [2, 3]})
    status, _, err = run_cli("sweep", str(first), "--out", out, "--workers", "1")
    assert status == 0 and "not this grid's" not in err
    status, stdout, err = run_cli("sweep", str(second), "--out", out, "--workers", "1")
    assert status == 0 and "1 run now (0 failed), 1 already done" in stdout
    assert "1 stored point is not this grid's as the lab computes it now" in err


def test_a_papermill_point_past_the_grid_s_timeout_fails_alone(tmp_path, run_cli):
    """The sweep audit: a hung notebook point held the sweep for ever. With timeout_s a cell that
    runs past it fails its point, once (not retried as the machine's failure), and the rest go
    on."""
    notebook(
        tmp_path / "hang.ipynb",
        'mode = "ok"\nresult_path = ""',
        "import json, time\n"
        "if mode == 'hang':\n    time.sleep(60)\n"
        "open(result_path, 'w').write(json.dumps({'x': 1}))",
    )
    path = tmp_path / "grid.yaml"
    path.write_text(
        "name: hang\nnotebook: hang.ipynb\nengine: papermill\ntimeout_s: 3\n"
        "product: {mode: [ok, hang]}\n"
    )
    out = tmp_path / "out"
    status, stdout, _ = run_cli(
        "sweep", str(path), "--out", str(out), "--workers", "1", "--trust-notebook"
    )
    assert status == 4 and "2 run now (1 failed)" in stdout
    table = pd.read_parquet(out / "results.parquet").set_index("param:mode")
    assert table.loc["ok", "status"] == "ok"
    hung = table.loc["hang"]
    assert (hung.status, hung.failure, hung.attempts) == ("failed", "model", 1)
    assert hung.error == "a cell ran past the grid's timeout_s (3 s)"
    assert hung.wall_s < 30


def test_a_time_limit_is_only_for_papermill_points_in_whole_seconds(tmp_path, run_cli):
    path = _grid(tmp_path, timeout_s=10, product={"volumes.md0.disks.count": [1]})
    status, stdout, err = run_cli("sweep", str(path), "--out", str(tmp_path / "o"))
    assert status == 2 and stdout == "" and "timeout_s: only a papermill grid's" in err
    # papermill takes whole seconds: 2.5 had failed every point with a TraitError (the review)
    path = _grid(
        tmp_path, timeout_s=2.5, engine="papermill", product={"volumes.md0.disks.count": [1]}
    )
    status, stdout, err = run_cli("sweep", str(path), "--out", str(tmp_path / "p"))
    assert status == 2 and stdout == "" and "timeout_s: must be a positive integer" in err
