"""Ctrl-C and a killed parent, on a real ``python -m model sweep``: Ctrl-C cancels what has not
started, abandons what is running, keeps what finished and exits 130 without a traceback; workers
end with their parent however it ends. No test times the sweep (speed is ``make bench``'s): each
checks what "at once" stood for, points not started and points abandoned mid-run, a timeout only
a backstop against a hang."""

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import psutil
import pytest
from grid_files import ended as _ended
from grid_files import grid as _grid
from grid_files import notebook

from model import paths

POINTS = 2000


def _slow_grid(tmp_path):
    """Points of a few milliseconds each, about 250 a second on two workers, so many that the grid
    is far from done when the signal comes (400 of them were not: under load the whole grid could
    finish before it)."""
    sample = {
        "method": "random",
        "n": POINTS,
        "seed": 3,
        "ranges": {"workload.total_MB": [100000.0, 200000.0]},
    }
    return _grid(tmp_path, sample=sample)


def _sleepy_grid(tmp_path, seconds, woke=None):
    """A notebook grid whose points sleep ``seconds`` each (a point as slow as a real one); each
    that wakes leaves a file named for its seconds in folder ``woke``."""
    marker = (
        f"pathlib.Path({str(woke)!r}, f'{{seconds}}-{{os.getpid()}}').touch()\n" if woke else ""
    )
    source = [
        "seconds = 0\nresult_path = ''\n",
        "import json, os, pathlib, time\n"
        "time.sleep(seconds)\n" + marker + "pathlib.Path(result_path).write_text("
        "json.dumps({'slept_s': seconds}))\n",
    ]
    nb = notebook(tmp_path / "sleepy.ipynb", *source)
    return _grid(
        tmp_path,
        scenario=None,
        notebook=str(nb),
        engine="papermill",
        product={"seconds": seconds},
    )


# ``python -m model``, with each point the sweep starts (in its own process or a worker it forks)
# written to the file $POINT_LOG first
_LOGGING_POINTS = """
import os, runpy, sys
from model.sweep import run
log, real = os.environ["POINT_LOG"], run.run_point
def logged(spec):
    with open(log, "a") as f:
        f.write(spec["point_id"] + "\\n")
    return real(spec)
run.run_point = logged
runpy.run_module("model", run_name="__main__", alter_sys=True)
"""


def _start(path, out, workers, point_log=None, **env):
    """The sweep, in a process group of its own (a terminal's Ctrl-C signals the whole group)."""
    command = ["-c", _LOGGING_POINTS] if point_log else ["-m", "model"]
    if point_log:
        env["POINT_LOG"] = str(point_log)
    return subprocess.Popen(
        [sys.executable, *command, "sweep", str(path), "--out", str(out)]
        + ["--workers", str(workers), "--trust-notebook"],
        cwd=paths.PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
        start_new_session=True,
    )


def _kernels(folder):
    """The running processes whose command line names a file in ``folder``."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        if process.info["status"] != psutil.STATUS_ZOMBIE and any(
            str(folder) in arg for arg in process.info["cmdline"] or ()
        ):
            found.append(process.pid)
    return found


def _wait_for(condition, timeout_s=60, what="the sweep to get going"):
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout_s} s for {what}"
        time.sleep(0.05)


def _stored(out):
    return len(list((out / "points").glob("*.parquet")))


def _children(pid):
    try:
        return [child.pid for child in psutil.Process(pid).children()]
    except psutil.NoSuchProcess:
        return []


BACKSTOP_S = 120  # against a hang only: what "at once" means is checked by what ran


def _interrupt(proc):
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=BACKSTOP_S)
    except subprocess.TimeoutExpired:
        _kill([proc.pid, *_children(proc.pid)])
        raise AssertionError(f"the sweep went on {BACKSTOP_S} s after Ctrl-C") from None
    return err


def _kill(pids):
    """End what a failing test leaves running (a sweep and its workers)."""
    for pid in pids:
        if not _ended(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_keeps_finished_points_and_exits_130_at_once(tmp_path, workers):
    """Ctrl-C on a pool computed and threw away every remaining point (14.6 s). At once: no point is
    started after it, so the points ever started are those kept and at most one a worker (or the
    sweep's own process, on one worker) was running, which is abandoned."""
    out, point_log = tmp_path / "out", tmp_path / "started.txt"
    proc = _start(_slow_grid(tmp_path), out, workers, point_log)
    _wait_for(lambda: out.exists() and _stored(out) >= 3)
    workers_before = _children(proc.pid)
    err = _interrupt(proc)
    assert proc.returncode == 130 and "Traceback" not in err, err
    last = err.strip().replace("\r", "\n").splitlines()[-1]
    table = pd.read_parquet(out / "results.parquet")
    kept = len(table)
    assert "interrupted" in last and f"{kept} points finished now are kept" in last, err
    assert f"({POINTS - kept} left)" in last, err
    assert 3 <= kept < POINTS and kept == _stored(out) and table.point_id.is_unique
    assert (table.status == "ok").all()
    assert not list(out.rglob("*.partial"))
    started = point_log.read_text().split()
    assert len(set(started)) == len(started) and set(table.point_id) <= set(started)
    assert len(started) <= kept + workers, (len(started), kept)
    assert all(_ended(pid) for pid in workers_before)


def test_ctrl_c_on_a_papermill_pool_exits_130_at_once(tmp_path):
    """On a papermill grid: 45 s with no progress, then a traceback on the second Ctrl-C. Then the
    interrupted points' kernels outlived their killed workers, and their sockets and connection
    files stayed in the system's temporary folder (two entries a point). At once: the two points
    asleep for 30 s are abandoned, never waited for: neither wakes, and their kernels are gone."""
    out, system_tmp, woke = tmp_path / "out", tmp_path / "system_tmp", tmp_path / "woke"
    system_tmp.mkdir()
    woke.mkdir()
    proc = _start(_sleepy_grid(tmp_path, [0, 30, 30], woke), out, 2, TMPDIR=str(system_tmp))
    _wait_for(lambda: out.exists() and _stored(out) >= 1)
    _wait_for(lambda: len(_kernels(system_tmp)) == 2, what="the others' kernels")  # asleep
    workers = _children(proc.pid)
    err = _interrupt(proc)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert "1 point finished now is kept (2 left)" in err
    assert _kernels(system_tmp) == [] and list(system_tmp.iterdir()) == []
    assert sorted(p.name.split("-")[0] for p in woke.iterdir()) == ["0"]
    table = pd.read_parquet(out / "results.parquet")
    assert table.slept_s.tolist() == [0] and table.status.tolist() == ["ok"]
    assert all(_ended(pid) for pid in workers)
    # the interrupted points left no half-run notebook beside the finished one's (the sweep
    # audit: 13 notebooks for 11 points)
    kept = sorted(p.stem for p in (out / "notebooks").glob("*.ipynb"))
    assert kept == table.point_id.tolist()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_papermill_sweep_stopped_as_a_kernel_starts_says_one_line_and_leaves_nothing(
    tmp_path, signum
):
    """The new-user audit's case, a papermill grid on one worker stopped by Ctrl-C (or SIGTERM) to
    its process group as a point's kernel started: the kernel, which nbclient stops only once it
    has started, ran on in the point's folder removed under it and printed a traceback after the
    sweep's one line (os.getcwd(), a ZMQError for its sockets, or "Current working directory
    doesn't exist"), and its connection file, its key in it, stayed in the system's temporary
    folder. The kernel now ends before its folder goes, and its files are in that folder."""
    out, system_tmp = tmp_path / "out", tmp_path / "system_tmp"
    system_tmp.mkdir()
    path = _sleepy_grid(tmp_path, [0, 0.001, 0.002])
    proc = _start(path, out, 1, TMPDIR=str(system_tmp))
    try:
        _wait_for(lambda: out.exists() and _stored(out) >= 1)
        _wait_for(lambda: _kernels(system_tmp), what="the next point's kernel")  # starting
        os.killpg(proc.pid, signum)
        _, err = proc.communicate(timeout=BACKSTOP_S)
    finally:
        _kill([proc.pid, *_kernels(system_tmp)])
    lines = [line for line in err.splitlines() if line.strip()]
    said = [line for line in lines if not line.startswith(("sweep t:", "checking grid t:"))]
    assert proc.returncode == 130 and len(said) == 1, err
    assert "interrupted;" in said[0] and "left), run the sweep again to resume" in said[0], err
    assert "Traceback" not in err and "ERROR" not in err, err
    assert _kernels(system_tmp) == [] and list(system_tmp.iterdir()) == []
    again = subprocess.run(
        [sys.executable, "-m", "model", "sweep", str(path), "--out", str(out), "--workers", "1"]
        + ["--trust-notebook"],
        cwd=paths.PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=BACKSTOP_S,
    )
    assert again.returncode == 0, again.stderr
    table = pd.read_parquet(out / "results.parquet")
    assert table.slept_s.tolist() == [0, 0.001, 0.002] and (table.status == "ok").all()


def test_workers_end_with_their_parent(tmp_path):
    """Killing the parent left both pool workers running 30 s later; then their kernels' folders
    and connection files stayed in the system's temporary folder."""
    out, system_tmp, woke = tmp_path / "out", tmp_path / "system_tmp", tmp_path / "woke"
    system_tmp.mkdir()
    woke.mkdir()
    proc = _start(_sleepy_grid(tmp_path, [30, 30, 30], woke), out, 2, TMPDIR=str(system_tmp))
    _wait_for(lambda: len(_kernels(system_tmp)) == 2, what="the points' kernels")
    workers = _children(proc.pid)
    assert len(workers) == 2
    proc.kill()
    proc.wait()  # not communicate(): orphaned workers would hold its pipes open
    try:
        _wait_for(lambda: all(_ended(pid) for pid in workers), BACKSTOP_S, "the workers to end")
        _wait_for(lambda: not _kernels(system_tmp), BACKSTOP_S, "the kernels to end")
        # they ended with their parent, not once their points had run: no point woke
        assert list(woke.iterdir()) == []
        assert list(system_tmp.iterdir()) == []
    finally:
        _kill(workers + _kernels(system_tmp))


def test_a_killed_dask_scheduler_ends_the_sweep_with_one_line(tmp_path):
    """A killed Dask scheduler gave a CommClosedError traceback."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1"]
        + ["--port", str(port), "--dashboard-address", ":0", "--no-show"],
        **quiet,
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address]
        + ["--nthreads", "1", "--no-dashboard"],
        **quiet,
    )
    out = tmp_path / "out"
    proc = None
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "model", "sweep", str(_slow_grid(tmp_path)), "--out", str(out)]
            + ["--scheduler", address],
            cwd=paths.PROJECT_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        _wait_for(lambda: out.exists() and _stored(out) >= 2)
        scheduler.kill()
        _, err = proc.communicate(timeout=30)
        lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip()]
        lines = [line for line in lines if not line.startswith("sweep t:")]
        assert proc.returncode == 1 and "Traceback" not in err, err
        assert len(lines) == 1 and "lost the Dask scheduler" in lines[0], err
        table = pd.read_parquet(out / "results.parquet")
        assert len(table) == _stored(out) >= 2 and (table.status == "ok").all()
        assert not list(out.rglob("*.partial"))
    finally:
        _kill([p.pid for p in (scheduler, worker, proc) if p is not None])
        for p in (scheduler, worker, proc):
            if p is not None:
                p.wait()


def test_a_ctrl_c_while_a_point_is_stored_counts_the_point_it_keeps(tmp_path, monkeypatch):
    """The fresh clone's run: a Ctrl-C that came between a point's record written and its count
    kept nine points and said eight. It waits until the point is counted, then stops the sweep."""
    from model.sweep import grid as grid_module
    from model.sweep import run as run_module
    from model.sweep.store import Stopped, Store

    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2, 3, 4, 5]})
    g, points = grid_module.load(path)
    written = Store.write

    def write_then_ctrl_c(self, record):
        written(self, record)
        if len(list(self.points.glob("*.parquet"))) == 2:
            os.kill(os.getpid(), signal.SIGINT)  # after the file is there, before it is counted

    monkeypatch.setattr(Store, "write", write_then_ctrl_c)
    out = tmp_path / "out"
    with pytest.raises(Stopped, match=r"interrupted; 2 points finished now are kept \(3 left\)"):
        run_module.run(g, points, out, workers=1, progress=False)
    assert len(pd.read_parquet(out / "results.parquet")) == 2


def test_a_sweep_started_ignoring_ctrl_c_runs_to_its_end(tmp_path):
    """A script's background job starts with Ctrl-C ignored, and so does what it runs: the sweep
    held a Ctrl-C that came while it stored a point, and stopped. Pressed every 10 ms, it is
    ignored throughout."""
    out, n = tmp_path / "out", 300
    sample = {"method": "random", "n": n, "seed": 3, "ranges": {"workload.total_MB": [1e5, 2e5]}}
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the sweep
    try:
        proc = _start(_grid(tmp_path, sample=sample), out, 1)
    finally:
        signal.signal(signal.SIGINT, before)
    _wait_for(lambda: out.exists() and _stored(out) >= 1)
    deadline = time.monotonic() + BACKSTOP_S
    while proc.poll() is None and time.monotonic() < deadline:
        proc.send_signal(signal.SIGINT)
        time.sleep(0.01)
    _, err = proc.communicate(timeout=BACKSTOP_S)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert len(pd.read_parquet(out / "results.parquet")) == n


def test_a_sigterm_while_the_grid_is_checked_ends_the_sweep_as_ctrl_c_does(
    tmp_path, monkeypatch, capsys
):
    """The input audit: a SIGTERM while the grid was read and checked (a 100,000-value grid's check
    takes minutes) ended the process with status 143 and no word, where Ctrl-C there says so and
    exits 130, as the README promises of a SIGTERM too. The signal is sent in process, with a
    handler standing for the default end, which the code before this test ran."""
    from model import cli
    from model.sweep import grid as grid_module

    class Ended(Exception):
        """What the process did on a SIGTERM before: end."""

    def load(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the signal's handler raises first
        raise AssertionError("the SIGTERM did not end the check")

    def ended(signum, frame):
        raise Ended

    monkeypatch.setattr(grid_module, "load", load)
    before = signal.signal(signal.SIGTERM, ended)
    try:
        status = cli.main(["sweep", str(_grid(tmp_path)), "--out", str(tmp_path / "out")])
        assert signal.getsignal(signal.SIGTERM) is ended  # the handler before the sweep, again
    finally:
        signal.signal(signal.SIGTERM, before)
    assert status == 130
    assert (
        capsys.readouterr().err == f"{tmp_path / 'grid.yaml'}: interrupted before any point ran\n"
    )
    assert not (tmp_path / "out").exists()
