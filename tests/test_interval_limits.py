"""An interval whose design would run more than ``design_points.MAX_SIMULATIONS`` simulations is
refused before any design point runs: one line naming the scenario file and ``unknowns``, the
count it needs and the most, and --point for the prediction alone."""

import pytest

from model import design_points, scenario
from model.errors import UserError
from model.unknowns import Unknown

SOURCE = "a test's own documentation"
# the memory-mapped test with 5 range unknowns besides its mirror's read policy (3 options, open
# where no variant is chosen: that configuration is its variant raid's): its configurations (a
# range's interior point that falls on its default or an integer rounded onto another is run
# once), and the search's corner and 3 passes of at most one run a level for each end
FIVE_RANGES = """
  kernel.read_ahead_KiB: {range: [64, 512], source: a test}
  kernel.dirty_ratio_pct: {range: [20, 60], source: a test}
  workload.total_MB: {range: [1000, 8000], source: a test}
  workload.request_KiB: {range: [16, 64], source: a test}
  workload.runs: {range: [1, 5], source: a test}
"""


def _never(*args):
    raise AssertionError("a design point was simulated")


def _ranges(n: int) -> tuple[Unknown, ...]:
    return tuple(Unknown(f"k{i}", SOURCE, range=(0.0, 100.0), default=40.0) for i in range(n))


def test_the_count_grows_linearly_with_the_unknowns_and_is_refused_past_the_most():
    # a range is its default, both ends and 3 interior points (5 more simulations each), and the
    # search for each end of the envelope its corner and, each of its 3 passes, at most one run
    # for each of those: 5 ranges may need 3 + 35 * 5 = 178, 6 need 213
    five = design_points.sample(lambda *a: 1.0, _ranges(5), {}, set(), 1, True, where="s.yaml")
    assert five.simulations == 1 + 5 * 5  # an outcome no unknown moves: the search runs nothing
    with pytest.raises(UserError) as refused:
        design_points.sample(_never, _ranges(6), {}, set(), 1, True, where="s.yaml")
    assert refused.value.line() == (
        "s.yaml: unknowns: the 90 % interval needs up to 213 simulations, 212 of them for its 6 "
        "unknowns; at most 200 are run: declare fewer, or predict with --point for the prediction "
        "without its interval"
    )


def test_a_scenario_of_too_many_unknowns_is_one_line_before_its_design_runs(
    run_cli, tmp_path, monkeypatch
):
    five = tmp_path / "five.yaml"
    five.write_text(scenario.resolve("psu_mmap").read_text() + FIVE_RANGES)
    monkeypatch.setattr(design_points, "MAX_SIMULATIONS", 177)
    monkeypatch.setattr(design_points, "_sampled", _never)
    status, out, err = run_cli("predict", str(five))
    assert status == 2 and not out and err.count("\n") == 1
    assert err.startswith(f"{five}: unknowns: the 90 % interval needs up to 178 simulations, "), err
    assert "177 of them for its 6 unknowns; at most 177 are run" in err
    assert "predict with --point for the prediction without its interval" in err
    status, out, _ = run_cli("predict", str(five), "--point")  # the point alone still predicts
    assert status == 0 and "MB/s" in out
