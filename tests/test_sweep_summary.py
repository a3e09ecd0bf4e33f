"""notebooks/sweep_summary.ipynb on grids other than its own, and the Sobol ranking it prints.

The sweep audit found the notebook worked for its own grid only (another grid failed with
"Could not interpret value 'param:workload.streams'"), that its Sobol cell counted a failed point
as 0 MB/s (on a grid where 24 of 32 points failed, the ranking mostly said which points failed),
and that it named no failed point. Here it runs under papermill on small grids of the quick
``atlas_intellistation`` scenario: a product of a number and a word with intervals, and a Sobol
design where RAID10 meets an odd drive count (each end of the range is even, so the grid's check
passes it; the points between fail as they run).
"""

import json
import re

import pandas as pd
import papermill
import pytest
from grid_files import grid

from model import paths
from model.sweep import grid as grid_module
from model.sweep import point as point_module
from model.sweep import run as run_module
from model.sweep import sensitivity

NOTEBOOK = paths.NOTEBOOKS / "sweep_summary.ipynb"
# what the notebook derived, printed by a cell the test adds at its end
PROBE = (
    "print(json.dumps({'labels': [label(k) for k in keys], 'numeric': [numeric(k) for k in keys], "
    "'interval': bool(has_interval), 'figure': figure_words(figure)}))"
)
# two groups of one or two drives striped by LVM run; the Sobol design samples 3 drives between
# them, which two groups cannot split
SOBOL_FAILING = {
    "base": [
        "volumes.md0.level=raid0",
        "volumes.md0.groups=2",
        "volumes.md0.lvm=striped",
        "volumes.md0.disks.count=4",
    ],
    "sample": {
        "method": "sobol",
        "n": 4,
        "seed": 1,
        "ranges": {"volumes.md0.disks.count": [2, 4], "workload.request_KiB": [64.0, 512.0]},
    },
}


def _sweep(folder, **spec):
    """Run a grid on atlas_intellistation, written in ``folder``, into folder/out: the grid's
    path and its results table."""
    folder.mkdir(parents=True, exist_ok=True)
    path = grid(folder, **spec)
    g, points = grid_module.load(path)
    run_module.run(g, points, folder / "out", workers=1, progress=False)
    return path, pd.read_parquet(folder / "out" / "results.parquet")


def _summary(tmp_path, grid_path, probe=PROBE):
    """The notebook run by papermill on ``grid_path``'s results, with a last cell that prints
    what it derived from the grid's keys: its cells' printed text and images, one entry a cell,
    and the probe's answer."""
    nb = json.loads(NOTEBOOK.read_text())
    last = {"cell_type": "code", "id": "probe", "metadata": {}, "outputs": []}
    nb["cells"].append(dict(last, source="import json\n" + probe, execution_count=None))
    copy = tmp_path / "summary.ipynb"
    copy.write_text(json.dumps(nb))
    (tmp_path / "k").mkdir()
    ran = papermill.execute_notebook(
        str(copy),
        str(tmp_path / "summary_out.ipynb"),
        parameters={
            "grid_path": str(grid_path),
            "results_path": str(tmp_path / "out" / "results.parquet"),
            "workers": 1,
        },
        cwd=str(paths.NOTEBOOKS),
        **point_module.kernel_options(tmp_path / "k"),
    )
    cells = []
    for cell in ran["cells"]:
        if cell["cell_type"] != "code":
            continue
        text, images = "", 0
        for out in cell.get("outputs", []):
            text += "".join(out.get("text", ""))
            data = out.get("data", {})
            text += "".join(data.get("text/plain", "")) if "image/png" not in data else ""
            images += "image/png" in data
        cells.append((text, images))
    derived = json.loads(cells[-1][0])
    return cells[:-1], derived


def _cell(cells, needle):
    """The (text, images) of the one cell whose text holds ``needle``."""
    found = [c for c in cells if needle in c[0]]
    assert len(found) == 1, [c[0][:200] for c in cells]
    return found[0]


def test_the_summary_runs_on_a_product_grid_of_a_number_and_a_word(tmp_path):
    path, table = _sweep(
        tmp_path,
        intervals=True,
        product={"volumes.md0.disks.count": [1, 3, 5], "workload.op": ["read", "write"]},
    )
    assert (table.status == "ok").all() and table.bottleneck.nunique() > 1
    cells, derived = _summary(tmp_path, path)
    text = "\n".join(t for t, _ in cells)
    assert "6 points over 2 swept keys (volumes.md0.disks.count, workload.op); 6 ok, 0 failed" in (
        text
    )
    assert "No point failed." in text
    # where its results are and whether any ran now (the sweep audit: a results_path it did not
    # find had run the whole grid again without a word)
    assert f"results: {tmp_path / 'out' / 'results.parquet'} (6 points, 0 run now)" in text
    assert "not this grid's" not in text
    # the facets and the bottleneck map are drawn; no Sobol ranking, said in one line
    assert sum(images for _, images in cells) == 2
    sobol = _cell(cells, "Sobol ranking not computed")[0]
    assert sobol.strip() == (
        "Sobol ranking not computed: the grid has no sobol sample (Saltelli's design)."
    )
    # facets, axes and labels from the grid's own keys: a count is a number, an operation a word
    assert derived == {
        "labels": ["volumes.md0.disks.count", "workload.op"],
        "numeric": [True, False],
        "interval": True,
        "figure": "throughput (MB/s)",
    }


def test_the_summary_names_the_failed_points_and_ranks_no_sobol_design_with_failures(tmp_path):
    path, table = _sweep(tmp_path, **SOBOL_FAILING)
    failed = table[table.status == "failed"]
    assert 0 < len(failed) < len(table) == 16
    assert (failed["param:volumes.md0.disks.count"] == 3).all()
    cells, derived = _summary(tmp_path, path)
    listing = _cell(cells, "points failed (")[0]
    assert f"{len(failed)} of 16 points failed ({len(failed)} model)" in listing
    assert "2 groups must divide disks.count" in listing
    # each failed point, by its index, with its values (3 drives, a request size) and its kind
    rows = re.findall(r"^(\d+) +3 +([\d.]+) +model", listing, re.M)
    assert {int(i) for i, _ in rows} == set(failed.point_index)
    sizes = dict(zip(failed.point_index, failed["param:workload.request_KiB"], strict=True))
    assert all(float(size) == pytest.approx(sizes[int(i)]) for i, size in rows)
    # one line says why there is no ranking: no indices, no bar chart
    sobol, images = _cell(cells, "Sobol ranking not computed")
    assert sobol.strip() == (
        f"Sobol ranking not computed: {len(failed)} of 16 points failed in the Sobol design over "
        "volumes.md0.disks.count, workload.request_KiB; Saltelli's estimator needs every point, "
        "and a missing one filled in (as 0) would rank what fails, not what moves throughput_MBps."
    )
    assert "S1" not in "\n".join(t for t, _ in cells) and images == 0
    assert sum(images for _, images in cells) == 1  # the facets: one bottleneck, nothing to map
    assert derived["labels"] == ["volumes.md0.disks.count", "workload.request_KiB (KiB)"]
    assert derived["interval"] is False


def test_sobol_indices_come_from_the_design_s_own_points_after_a_product(tmp_path):
    """A grid's product points come before its sample: the ranking is the sample's alone, the same
    as the sample's own grid gives, over the sampled keys only."""
    sample = {
        "method": "sobol",
        "n": 8,
        "seed": 2,
        "ranges": {"volumes.md0.disks.count": [1, 5], "workload.request_KiB": [64.0, 512.0]},
    }
    alone_path, alone = _sweep(tmp_path / "alone", sample=sample)
    both_path, both = _sweep(
        tmp_path / "both", sample=sample, product={"workload.op": ["read", "write"]}
    )
    g_alone, _ = grid_module.load(alone_path)
    g_both, _ = grid_module.load(both_path)
    assert sensitivity.sobol_design(g_both) == range(2, 2 + 8 * 4)
    ranked = sensitivity.sobol_ranking(g_both, both)
    assert list(ranked.index) == ["volumes.md0.disks.count", "workload.request_KiB"]
    pd.testing.assert_frame_equal(ranked, sensitivity.sobol_ranking(g_alone, alone))
    assert ranked.loc["volumes.md0.disks.count", "ST"] > 0.5  # the drives set the rate


def test_a_failed_point_of_the_design_is_not_ranked_nor_filled_in(tmp_path):
    path, table = _sweep(tmp_path, **SOBOL_FAILING)
    g, _ = grid_module.load(path)
    with pytest.raises(sensitivity.NotRanked, match=r"^4 of 16 points failed in the Sobol design"):
        sensitivity.sobol_ranking(g, table)


def test_a_figure_no_key_moves_is_not_ranked(tmp_path):
    """Two drives read at the same rate whatever the request size: SALib would divide by a zero
    variance."""
    path, table = _sweep(
        tmp_path,
        base=["volumes.md0.disks.count=2"],
        sample={"method": "sobol", "n": 4, "ranges": {"workload.request_KiB": [64.0, 512.0]}},
    )
    g, _ = grid_module.load(path)
    with pytest.raises(sensitivity.NotRanked, match="at every point of the Sobol design"):
        sensitivity.sobol_ranking(g, table)


def test_a_grid_without_a_sobol_sample_is_not_ranked(tmp_path):
    path, table = _sweep(
        tmp_path,
        sample={"method": "lhs", "n": 4, "ranges": {"workload.request_KiB": [64.0, 512.0]}},
    )
    g, _ = grid_module.load(path)
    with pytest.raises(sensitivity.NotRanked, match="sample is lhs, not sobol"):
        sensitivity.sobol_ranking(g, table)


def test_points_spread_on_a_log_axis_stay_near_their_value_and_on_the_axis(tmp_path):
    """The sweep audit: jittered in MB before the axis turned logarithmic, points at 1,000 MB
    were drawn at 10,000 to 16,000 MB, and two of four below zero, off the axis. A scheduler that
    changes nothing for one stream puts two points at each place."""
    path, table = _sweep(
        tmp_path,
        product={
            "workload.total_MB": [1000, 200000],
            "volumes.md0.io_scheduler": ["mq-deadline", "none"],
        },
    )
    assert (table.status == "ok").all()
    probe = (
        "order, position = values('workload.total_MB')\n"
        "x = jittered(position, 'workload.total_MB', ok[figure].reindex(position.index))\n"
        "print(json.dumps({'logged': bool(log_axis('workload.total_MB')), "
        "'ratios': [float(r) for r in x / position]}))"
    )
    _, derived = _summary(tmp_path, path, probe)
    assert derived["logged"]
    ratios = derived["ratios"]
    assert any(r != 1.0 for r in ratios)  # they were spread
    assert all(0.5 < r < 2.0 for r in ratios), ratios  # by a factor, each near its value


def test_a_report_on_another_grid_s_results_reads_them_and_says_so(tmp_path):
    """The sweep audit: given a grid that did not match the results, the notebook ran that grid's
    points into the results' folder and replaced its table."""
    path, before = _sweep(tmp_path / "a", product={"volumes.md0.disks.count": [1, 2, 3, 4]})
    (tmp_path / "b").mkdir()
    other = grid(tmp_path / "b", product={"workload.request_KiB": [64, 128]})
    cells, _ = _summary(tmp_path / "a", other)
    text = "\n".join(t for t, _ in cells)
    assert "these results are not this grid's as the lab computes it now: 2 of its 2 points" in text
    after = pd.read_parquet(tmp_path / "a" / "out" / "results.parquet")
    assert after.equals(before)


def test_a_report_runs_a_sweep_only_where_it_has_no_results_and_tells_an_unfinished_one(tmp_path):
    """The review: given a results_path with no results yet, the notebook raised
    FileNotFoundError (it had run the sweep there before); and a sweep cut short was told as
    another grid's results."""
    (tmp_path / "a").mkdir()
    path = grid(tmp_path / "a", product={"volumes.md0.disks.count": [1, 2, 3, 4]})
    cells, _ = _summary(tmp_path / "a", path)
    text = "\n".join(t for t, _ in cells)
    assert f"results: {tmp_path / 'a' / 'out' / 'results.parquet'} (4 points, 4 run now)" in text
    # half of a grid's points run (a sweep cut short, as a smaller grid leaves them)
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    half = grid(tmp_path / "c", product={"volumes.md0.disks.count": [1, 2]})
    g, points = grid_module.load(half)
    run_module.run(g, points, tmp_path / "b" / "out", workers=1, progress=False)
    whole = grid(tmp_path / "b", product={"volumes.md0.disks.count": [1, 2, 3, 4]})
    cells, _ = _summary(tmp_path / "b", whole)
    text = "\n".join(t for t, _ in cells)
    assert "2 of the grid's 4 points have no result here yet (an interrupted sweep" in text
