"""Sweeps: refused before running on bad grids, resumable, failures recorded, serial = parallel,
Dask."""

import dataclasses
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from grid_files import grid as _grid
from grid_files import notebook
from grid_files import one_line as _one_line

from model import paths
from model.errors import UserError
from model.sweep import grid as grid_module
from model.sweep import point as point_module
from model.sweep import run as run_module
from model.sweep import specs as specs_module
from model.sweep.store import Stopped, Store


def test_unknown_key_is_refused_before_anything_runs(run_cli, tmp_path):
    path = _grid(tmp_path, product={"volumes.md0.disks.colour": ["red"]})
    _one_line(
        run_cli("sweep", str(path), "--out", str(tmp_path / "out")),
        "volumes.md0.disks.colour",
        "no such key",
    )
    assert not (tmp_path / "out").exists()


def test_value_the_scenario_refuses_is_refused_before_anything_runs(run_cli, tmp_path):
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [2, 0]})
    status, out, err = run_cli("sweep", str(path), "--out", str(tmp_path / "out"))
    _one_line((status, out, err), "volumes.md0.disks.count", "positive integer")
    assert err.startswith(f"{path}: product.volumes.md0.disks.count: must be")  # named once
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "spec,key",
    [
        ({"product": {"volumes.md0.disks.count": []}}, "product.volumes.md0.disks.count"),
        (
            {"sample": {"method": "lhs", "n": 10, "ranges": {"workload.total_MB": [500, 500]}}},
            "sample.ranges.workload.total_MB",
        ),
    ],
)
def test_empty_range_is_refused(run_cli, tmp_path, spec, key):
    _one_line(run_cli("sweep", str(_grid(tmp_path, **spec)), "--out", str(tmp_path / "out")), key)


def test_a_failing_point_is_recorded_and_the_others_finish(tmp_path):
    # programmed I/O is not modelled: those points fail, the others run
    path = _grid(
        tmp_path,
        product={"controllers.promise1.transfer": ["dma", "pio"], "workload.op": ["read", "write"]},
    )
    grid, points = grid_module.load(path)
    finished, failed, skipped = run_module.run(
        grid, points, tmp_path / "out", workers=1, progress=False
    )
    assert (finished, failed, skipped) == (4, 2, 0)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    bad = table[table.status == "failed"]
    assert set(bad["param:controllers.promise1.transfer"]) == {"pio"}
    assert bad.error.str.contains("programmed I/O").all()
    assert (table[table.status == "ok"].throughput_MBps > 0).all()


def _comparable(table):
    return table.drop(columns=["wall_s"]).sort_values("point_id").reset_index(drop=True)


def test_serial_and_parallel_give_identical_results(tmp_path):
    path = _grid(
        tmp_path,
        product={"volumes.md0.disks.count": [1, 2, 3, 4, 5], "workload.op": ["read", "write"]},
    )
    grid, points = grid_module.load(path)
    run_module.run(grid, points, tmp_path / "serial", workers=1, progress=False)
    run_module.run(grid, points, tmp_path / "parallel", workers=2, progress=False)
    serial = pd.read_parquet(tmp_path / "serial" / "results.parquet")
    parallel = pd.read_parquet(tmp_path / "parallel" / "results.parquet")
    pd.testing.assert_frame_equal(_comparable(serial), _comparable(parallel))


# a grid long enough to be stopped part way: 400 points drawn at random
LONG_SAMPLE = {
    "method": "random",
    "n": 400,
    "seed": 3,
    "ranges": {"workload.total_MB": [100.0, 10000.0]},
}


def _wait_for_points(out, count: int) -> None:
    """Wait (a minute at most) until a sweep running into ``out`` has stored ``count`` points."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list((out / "points").glob("*.parquet"))) < count:
        time.sleep(0.05)


def test_a_killed_run_resumes_without_redoing_or_losing_anything(tmp_path):
    path = _grid(tmp_path, sample=LONG_SAMPLE)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "model", "sweep", str(path), "--out", str(out), "--workers", "1"],
        cwd=paths.PROJECT_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_for_points(out, 40)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = {p.name: p.stat().st_mtime_ns for p in (out / "points").glob("*.parquet")}
    assert 40 <= len(before) < 400
    grid, points = grid_module.load(path)
    finished, failed, skipped = run_module.run(grid, points, out, workers=1, progress=False)
    assert skipped == len(before) and finished == 400 - len(before) and failed == 0
    after = {p.name: p.stat().st_mtime_ns for p in (out / "points").glob("*.parquet")}
    assert all(
        after[name] == mtime for name, mtime in before.items()
    )  # nothing finished was redone
    table = pd.read_parquet(out / "results.parquet")
    assert len(table) == 400 and table.point_id.is_unique  # nothing lost


def test_dask_cluster_runs_the_same_grid(tmp_path):
    from dask.distributed import LocalCluster

    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 3, 5]})
    grid, points = grid_module.load(path)
    run_module.run(grid, points, tmp_path / "local", workers=1, progress=False)
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        run_module.run(
            grid, points, tmp_path / "dask", scheduler=cluster.scheduler_address, progress=False
        )
    local = pd.read_parquet(tmp_path / "local" / "results.parquet")
    dask = pd.read_parquet(tmp_path / "dask" / "results.parquet")
    pd.testing.assert_frame_equal(_comparable(local), _comparable(dask))


def test_a_cluster_with_no_worker_yet_is_said_to_be_waited_for(tmp_path, capfd):
    """The sweep audit's case: with no worker connected the sweep waited without a word."""
    import threading

    from dask.distributed import LocalCluster

    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1]})
    grid, points = grid_module.load(path)
    with LocalCluster(
        n_workers=0, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        runner = threading.Thread(
            target=run_module.run,
            args=(grid, points, tmp_path / "dask"),
            kwargs={"scheduler": cluster.scheduler_address, "progress": False},
        )
        runner.start()
        deadline = time.monotonic() + 60
        said = ""
        while "no Dask worker is connected yet" not in said and time.monotonic() < deadline:
            time.sleep(0.2)
            said += capfd.readouterr().err
        cluster.scale(1)
        runner.join(timeout=120)
    assert "no Dask worker is connected yet; the points wait up to 60 s for one" in said
    assert pd.read_parquet(tmp_path / "dask" / "results.parquet").status.tolist() == ["ok"]


def test_papermill_point_keeps_its_executed_notebook(tmp_path):
    path = _grid(tmp_path, engine="papermill", product={"volumes.md0.disks.count": [2]})
    grid, points = grid_module.load(path)
    run_module.run(grid, points, tmp_path / "out", workers=1, progress=False)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert table.status.tolist() == ["ok"]
    assert (tmp_path / "out" / "notebooks" / f"{table.point_id.iloc[0]}.ipynb").exists()
    inprocess = point_module.run_point(
        specs_module.specs(dataclasses.replace(grid, engine="inprocess"), points, tmp_path / "x")[0]
    )
    assert table.throughput_MBps.iloc[0] == pytest.approx(inprocess["throughput_MBps"])


def test_a_notebook_grid_records_the_defaults_its_points_ran_with(tmp_path):
    """The input audit: a grid of sweep_point.ipynb's scenario alone ran its settings too (4,073
    MB/s where em_ingest predicts 254.6), and its results held only param:scenario. Each
    parameter a point leaves at the notebook's default is kept as the notebook writes it, point
    by point (the review: points setting different keys had dropped a default some ran with)."""
    nb = notebook(
        tmp_path / "nb.ipynb",
        "a = 1\nb = {'x':  2,  # two\n     'y': 'p  q'}\nc, d = 5, 6\nb['z'] = 9\ne: int\n"
        "result_path = ''\n",
        "import json, pathlib\n"
        "pathlib.Path(result_path).write_text(json.dumps({'sum': a + b['x']}))\n",
    )
    path = _grid(
        tmp_path, scenario=None, notebook=str(nb), engine="papermill", points=[{"a": 3}, {}]
    )
    grid, points = grid_module.load(path, trust_notebook=True)
    run_module.run(grid, points, tmp_path / "out", workers=1, progress=False)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert table.status.tolist() == ["ok", "ok"] and table["sum"].tolist() == [5, 3]
    assert table["param:a"].tolist()[0] == 3
    assert table["default:a"].isna().tolist() == [True, False]  # the first point set it
    assert table["default:a"].tolist()[1] == "1"
    assert table["default:b"].tolist() == ["{'x':  2,  # two\n     'y': 'p  q'}"] * 2
    assert table["default:c"].tolist() == ["c, d = 5, 6"] * 2 == table["default:d"].tolist()
    assert "default:e" not in table and "default:result_path" not in table


def test_a_papermill_point_s_kernel_writes_nothing_to_the_terminal(tmp_path, capfd):
    """ipykernel 7 warns on every start over TCP without encryption: a line per point through the
    progress bar, unless the kernel logs only its errors."""
    path = _grid(tmp_path, engine="papermill", product={"volumes.md0.disks.count": [3]})
    grid, points = grid_module.load(path)
    run_module.run(grid, points, tmp_path / "out", workers=1, progress=False)
    out, err = capfd.readouterr()
    assert pd.read_parquet(tmp_path / "out" / "results.parquet").status.tolist() == ["ok"]
    assert "IPKernelApp" not in out + err and "WARNING" not in out + err, err


def test_results_come_in_the_grid_s_order_whatever_the_point_ids(tmp_path, monkeypatch):
    # a point's id is a hash of its inputs: a recalibration renames every point, and the table
    # must not reshuffle with it (a notebook that sorts a tie would print other rows)
    from model import params

    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2, 3, 4, 5]})
    grid, points = grid_module.load(path)
    design = [p["volumes.md0.disks.count"] for p in points]
    key = "param:volumes.md0.disks.count"
    run_module.run(grid, points, tmp_path / "out", workers=1, progress=False)
    first = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert first[key].tolist() == design and first.point_index.tolist() == list(range(5))
    changed = dict(params.calibrated(), bus_efficiency=0.5)
    monkeypatch.setattr(params, "calibrated", lambda: changed)
    run_module.run(grid, points, tmp_path / "out", workers=1, progress=False)
    second = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert set(second.point_id).isdisjoint(first.point_id)
    assert second[key].tolist() == design


def test_a_change_to_the_model_s_code_reruns_points_instead_of_keeping_stale_results(
    tmp_path, monkeypatch
):
    """Code the calibration and the catalog do not show (an update, or a local edit git has not
    seen) enters the points' ids: a resumed grid runs them again."""
    from model import provenance

    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2]})
    grid, points = grid_module.load(path)
    assert run_module.run(grid, points, tmp_path / "out", workers=1, progress=False) == (2, 0, 0)
    assert run_module.run(grid, points, tmp_path / "out", workers=1, progress=False) == (0, 0, 2)
    monkeypatch.setattr(provenance, "code_fingerprint", lambda: "other code")
    assert run_module.run(grid, points, tmp_path / "out", workers=1, progress=False) == (2, 0, 0)


def test_the_code_fingerprint_follows_every_source_s_path_and_contents(tmp_path):
    from model import provenance

    (tmp_path / "storage").mkdir()
    (tmp_path / "storage" / "disk.py").write_text("SEEK_MS = 8.5\n")
    (tmp_path / "notes.txt").write_text("not code")
    before = provenance.source_fingerprint(tmp_path)
    (tmp_path / "notes.txt").write_text("still not code")
    assert provenance.source_fingerprint(tmp_path) == before
    (tmp_path / "storage" / "disk.py").write_text("SEEK_MS = 8.6\n")
    edited = provenance.source_fingerprint(tmp_path)
    assert edited != before
    (tmp_path / "storage" / "disk.py").rename(tmp_path / "disk.py")
    assert provenance.source_fingerprint(tmp_path) != edited


def test_store_writes_are_atomic(tmp_path):
    store = Store(tmp_path)
    store.write({"point_id": "abc", "status": "ok", "x": 1.0})
    assert [p.name for p in (tmp_path / "points").iterdir()] == ["abc.parquet"]
    assert store.done() == {"abc"}


@pytest.mark.parametrize("name", [".lock", "points", "notebooks", "results.parquet", "drivers.csv"])
def test_a_link_where_a_sweep_writes_is_refused_not_written_through(run_cli, tmp_path, name):
    """The security audit's case: OUT/.lock linked to another file had that file truncated and
    overwritten with the sweep's pid; OUT/points linked elsewhere took the points there, and the
    clean-up of half-written files ran there. Each is refused, named, before anything is written."""
    out = tmp_path / "out"
    out.mkdir()
    target = tmp_path / "elsewhere"
    if name in ("points", "notebooks"):
        target.mkdir()
        (target / ".kept.1.partial").write_text("kept")  # what the clean-up removes in points/
    else:
        target.write_text("kept")
    (out / name).symlink_to(target)
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1]})
    _one_line(
        run_cli("sweep", str(path), "--out", str(out)),
        f"out/{name}: is a symbolic link, which the sweep would write through",
        "choose another --out",
    )
    if target.is_dir():
        assert [p.name for p in target.iterdir()] == [".kept.1.partial"]
    else:
        assert target.read_text() == "kept"
    assert sorted(p.name for p in out.iterdir()) == [name]


@pytest.mark.parametrize("name", ["results.parquet", "drivers.csv"])
def test_a_results_file_no_sweep_wrote_is_not_overwritten(run_cli, tmp_path, name):
    """The input audit: --out naming a folder of the user's that held a results.parquet replaced
    it without a word. A folder with such a file but no points/ was not written by a sweep."""
    out = tmp_path / "out"
    out.mkdir()
    (out / name).write_text("my precious")
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1]})
    _one_line(
        run_cli("sweep", str(path), "--out", str(out)),
        f"out/{name}: has no points/ beside it, as a sweep's folder has: a sweep did not write "
        "it (or its points/ was removed), and this one would overwrite it; move it or choose "
        "another --out",
    )
    assert (out / name).read_text() == "my precious"
    assert sorted(p.name for p in out.iterdir()) == [name]
    assert run_cli("sweep", str(path), "--out", str(tmp_path / "fresh"))[0] == 0
    assert run_cli("sweep", str(path), "--out", str(tmp_path / "fresh"))[0] == 0  # resumed


def test_a_link_among_the_points_or_made_once_the_store_is_open_is_refused(tmp_path):
    """A point's file or notebook that is a link (the sweep replaces or moves onto it), a .lock
    made a link after the store was opened, and a link where a point is being written: none is
    written through."""
    target = tmp_path / "elsewhere"
    target.write_text("kept")
    store = Store(tmp_path / "out")
    store.notebooks.mkdir()
    links = [store.out / ".lock", store.points / "0123.parquet", store.notebooks / "0123.ipynb"]
    for link in links:
        link.symlink_to(target)
        with pytest.raises(UserError, match=f"{link.name}: is a symbolic link"), store.lock():
            pass
        link.unlink()
    partial = store.points / f".abc.{os.getpid()}.partial"
    partial.symlink_to(target)
    with pytest.raises(Stopped, match="abc.parquet: cannot write it"):
        store.write({"point_id": "abc", "status": "ok"})
    assert target.read_text() == "kept" and not partial.exists()


def test_the_lock_a_sweep_leaves_in_its_folder_ends_with_a_newline(tmp_path):
    """The quote audit: every file the lab writes in a user's folder ends its last line; the
    sweep's .lock, which stays in OUT and names the sweep's process, did not ('cat OUT/.lock' ran
    into the prompt)."""
    store = Store(tmp_path / "out")
    with store.lock():
        assert (store.out / ".lock").read_text() == f"{os.getpid()}\n"
    assert (store.out / ".lock").read_text() == f"{os.getpid()}\n"


def test_a_recalibration_reruns_points_instead_of_keeping_stale_results(tmp_path, monkeypatch):
    from model import params

    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1, 2]})
    grid, points = grid_module.load(path)
    assert run_module.run(grid, points, tmp_path / "out", workers=1, progress=False) == (2, 0, 0)
    assert run_module.run(grid, points, tmp_path / "out", workers=1, progress=False) == (0, 0, 2)
    before = pd.read_parquet(tmp_path / "out" / "results.parquet")
    changed = dict(params.calibrated(), bus_efficiency=0.5)
    monkeypatch.setattr(params, "calibrated", lambda: changed)
    assert run_module.run(grid, points, tmp_path / "out", workers=1, progress=False) == (2, 0, 0)
    # the table holds the current points only: the stale ones stay on disk, out of it
    after = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert len(after) == len(points) and set(after.point_id).isdisjoint(before.point_id)
    assert len(list((tmp_path / "out" / "points").glob("*.parquet"))) == 2 * len(points)


def test_a_change_to_the_fit_s_intervals_or_the_point_notebook_renames_the_points(
    tmp_path, monkeypatch
):
    """An interval reads the fit's covariance and 95 % intervals beside its values, and a
    papermill scenario grid runs the project's own sweep_point notebook: a change to either
    (the values unchanged, no grid notebook named) gave the same ids, so stale results stayed."""
    from model import paths

    path = _grid(tmp_path, engine="papermill", product={"volumes.md0.disks.count": [1, 2]})
    grid, _ = grid_module.load(path)
    before = specs_module.inputs_fingerprint(grid, "s")
    fit = tmp_path / "parameters.json"
    fit.write_bytes(paths.CALIBRATED_PARAMETERS.read_bytes() + b" ")
    monkeypatch.setattr(paths, "CALIBRATED_PARAMETERS", fit)
    refit = specs_module.inputs_fingerprint(grid, "s")
    assert refit != before
    root = tmp_path / "root"
    (root / "notebooks").mkdir(parents=True)
    notebook = paths.PROJECT_ROOT / point_module.SWEEP_POINT_NOTEBOOK
    (root / point_module.SWEEP_POINT_NOTEBOOK).write_bytes(notebook.read_bytes() + b" ")
    monkeypatch.setattr(paths, "PROJECT_ROOT", root)
    assert specs_module.inputs_fingerprint(grid, "s") != refit


def test_a_sigterm_to_the_process_group_ends_the_run_as_ctrl_c_does(tmp_path):
    """timeout, a batch scheduler or kill -- -PGID sends SIGTERM to every process of the run: it
    ended them at once, with no table written and the workers' scratch folders left behind. Now
    the finished points are stored, the table written, the scratch removed, exit status 130."""
    path = _grid(tmp_path, sample=LONG_SAMPLE)
    out, scratch = tmp_path / "out", tmp_path / "scratch"
    scratch.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "model", "sweep", str(path), "--out", str(out), "--workers", "2"],
        cwd=paths.PROJECT_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(scratch)},
        start_new_session=True,
    )
    _wait_for_points(out, 20)
    os.killpg(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted;" in err.decode() and "Traceback" not in err.decode()
    table = pd.read_parquet(out / "results.parquet")
    assert 20 <= len(table) < 400
    assert list(scratch.iterdir()) == []
