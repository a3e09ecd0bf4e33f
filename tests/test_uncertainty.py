"""The 90 % interval (model/uncertainty.py): the point (documented defaults, calibrated values)
always lies inside it, it never narrows when an unknown's range widens, its drivers share the
spread, a ratio of two configurations is sampled at the same design points, and the model's
measured error widens it."""

import dataclasses
import json
import math
import re

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model import design_points, model_error, params, paths, scenario, uncertainty
from model.measured import ROUNDING
from model.simulate import simulate
from model.sweep import grid as grid_module
from model.sweep import run as run_module
from model.sweep import sensitivity
from model.unknowns import Unknown
from tests.grid_files import grid

SOURCE = "a test's own documentation"
WHERE = "a test's scenario.yaml"  # where a design past the most simulations is refused


def test_the_issue_s_case_lies_inside_its_interval(run_cli):
    # eah_download r10_opt at 20 clients gave 28.1 MB/s with an interval of 16.8 to 26.1 MB/s
    status, out, err = run_cli(
        "predict", "eah_download", "--set", "variant=r10_opt", "--set", "workload.clients=20",
        "--json",
    )  # fmt: skip
    assert status == 0, err
    data = json.loads(out)
    low, high = data["interval_90"]
    assert low <= data["throughput_MBps"] <= high and low < high
    assert data["throughput_MBps_interval"] == [low, high]
    assert sum(data["drivers"].values()) == pytest.approx(1.0)
    assert "drive_queue_depth" in [u["key"] for u in data["unknowns"]]
    # the README's path_limit: the rate the path allows at its loosest, never below its bound
    assert data["path_limit"] >= data["bound_MBps"] and high <= data["path_limit"]


def test_predict_says_between_and_most_likely_with_what_moves_it(run_cli):
    status, out, err = run_cli("predict", "psu_write")
    assert status == 0, err
    point = re.search(r"throughput +(\S+ MB/s)", out).group(1)
    assert "between " in out and f", most likely {point}" in out
    assert "moved most   by " in out and "% of the spread" in out


def _dirty(low, high):
    return Unknown("kernel.dirty_ratio_pct", SOURCE, range=(low, high), default=40.0)


def _interval(unknowns):
    base = scenario.load("psu_write", ["kernel.dirty_ratio_pct=40"])  # the range's default
    return uncertainty.interval(dataclasses.replace(base, unknowns=unknowns), model_error=False)


@settings(max_examples=25, deadline=None)
@given(
    low=st.floats(10, 40),
    high=st.floats(40, 100),
    wider_low=st.floats(0, 1),
    wider_high=st.floats(0, 1),
)
def test_the_point_lies_inside_and_a_wider_range_never_narrows_it(low, high, wider_low, wider_high):
    # the dirty limit decides what share of a 4.3 GB write the writer writes back itself
    narrow = _interval((_dirty(low, high),))
    wide = _interval((_dirty(low - (low - 10) * wider_low, high + (100 - high) * wider_high),))
    for interval in (narrow, wide):
        assert interval.low <= interval.point <= interval.high
    assert wide.low <= narrow.low and wide.high >= narrow.high
    assert narrow.point == wide.point


@pytest.mark.parametrize(
    "name, overrides",
    [
        ("psu_write", []),
        ("psu_copy", ["variant=raid_to_sata"]),
        ("em_ingest", ["variant=linear_large_block"]),
        ("eah_download", ["variant=r6_opt", "workload.clients=4"]),
    ],
)
def test_drivers_sum_to_one_and_the_point_is_the_default_configuration(name, overrides):
    from model.simulate import simulate

    loaded = scenario.load(name, overrides)
    interval = uncertainty.interval(loaded)
    assert interval.point == simulate(loaded).throughput_MBps
    assert interval.low <= interval.point <= interval.high
    assert sum(interval.drivers.values()) == pytest.approx(1.0)
    assert all(share > 0 for share in interval.drivers.values())
    assert {u.key for u in loaded.unknowns} <= set(interval.drivers) | {
        u.key for u in loaded.unknowns if _moves_nothing(loaded, u)
    }


def _moves_nothing(loaded, unknown):
    only = uncertainty.interval(dataclasses.replace(loaded, unknowns=(unknown,)), model_error=False)
    return unknown.key not in only.drivers


def test_an_unknown_that_moves_the_prediction_leads_its_drivers():
    # the other box's cache block (8, 16 or 32 KiB) against the calibrated parameters
    loaded = scenario.load("em_ingest", ["variant=linear_large_block"])
    interval = uncertainty.interval(loaded)
    assert "volumes.lv.cache_block_KiB" in interval.drivers
    outcomes = [
        uncertainty.simulated(loaded, {"volumes.lv.cache_block_KiB": kib}, _values(), 1)[0]
        for kib in (8, 16, 32)
    ]
    assert interval.low <= min(r.throughput_MBps for r in outcomes)
    assert interval.high >= max(r.throughput_MBps for r in outcomes)


def _values():
    from model import params

    return params.calibrated()


def test_a_ratio_is_sampled_at_the_same_design_points(monkeypatch):
    """Each of the ratio's samples runs both configurations at one design point (the unknowns open
    in each, the same parameter values, the same seed), so that what moves both cancels."""
    a = scenario.load("psu_copy", ["variant=raid_to_sata"])
    b = scenario.load("psu_copy", ["variant=sata_to_raid"])
    runs, real = [], uncertainty._run

    def spy(s, config, values, seed, metric):
        found = real(s, config, values, seed, metric)
        runs.append((s, config, tuple(sorted(values.items())), seed, found[0]))
        return found

    monkeypatch.setattr(uncertainty, "_run", spy)
    ratio = uncertainty.ratio_interval(a, b)
    samples = runs[2:]  # after each side's point at the calibrated values
    assert [r[0] for r in samples] == [a, b] * (len(samples) // 2)
    shared = {u.key for u in a.unknowns} & {u.key for u in b.unknowns}
    for this, other in zip(samples[::2], samples[1::2], strict=True):
        assert this[2:4] == other[2:4]  # the same parameter values and seed
        assert {k: this[1].get(k) for k in shared} == {k: other[1].get(k) for k in shared}
    assert ratio.point == pytest.approx(runs[0][4] / runs[1][4])
    assert ratio.low <= ratio.point <= ratio.high
    assert sum(ratio.drivers.values()) == pytest.approx(1.0)
    # the reference's own unknowns move the ratio: writing onto the mirror, the dirty limit decides
    # how much the copier writes back itself
    assert "kernel.dirty_ratio_pct" in ratio.drivers


def test_the_model_s_measured_error_widens_the_interval(tmp_path, monkeypatch):
    loaded = scenario.load("psu_write")
    bare = uncertainty.interval(loaded)
    assert bare.model_error is None or model_error.MODEL_ERROR.exists()
    path = tmp_path / "model_error.json"
    path.write_text(
        json.dumps(
            {"models": {"storage": {"log_widen_90": 0.2, "rows": 30, "tables": [], "covers": "x"}}}
        )
    )
    monkeypatch.setattr(model_error, "MODEL_ERROR", path)
    # a CPU time: no path's capacity caps it (a rate's cap: the test after this one)
    widened = uncertainty.interval(loaded, "cpu_sys_s", model_error=True)
    plain = uncertainty.interval(loaded, "cpu_sys_s", model_error=False)
    assert widened.low == pytest.approx(plain.low * math.exp(-0.2))
    assert widened.high == pytest.approx(plain.high * math.exp(0.2))
    assert widened.model_error == {"log_widen_90": 0.2, "covers": "x"}
    # the spread the drivers share out is kept beside it: the unwidened ends
    assert widened.before_error == pytest.approx((plain.low, plain.high))
    assert plain.before_error is None


def test_the_leading_factor_s_line_gives_the_spread_s_ends_the_error_widened(run_cli):
    """A download server of the template: the noise moves most of a spread of a few per cent, and
    the model's error makes the interval several times as wide; "moved most by simulation noise
    (94 % of the spread)" beside it read as the noise's width."""
    status, out, err = run_cli("predict", "atlas_intellistation", "--json")
    assert status == 0, err
    data = json.loads(out)
    before, (low, high) = data["before_model_error"], data["interval_90"]
    assert low < before[0] <= data["throughput_MBps"] <= before[1] <= high
    assert data["units"]["before_model_error"].startswith("MB/s")
    status, out, err = run_cli("predict", "atlas_intellistation")
    assert status == 0, err
    shown = re.search(r"of the spread: (\S+) MB/s to (\S+) MB/s before the model's error", out)
    assert shown and [float(x) for x in shown.groups()] == pytest.approx(before, rel=5e-3)
    # a relay that keeps up with its feed, its high end at its capacity: the error moved nothing
    status, out, err = run_cli("predict", "psu_relay", "--json")
    assert status == 0 and json.loads(out)["before_model_error"] is None, err


def test_a_range_design_holds_its_ends_default_and_sobol_points():
    u = Unknown("kernel.dirty_ratio_pct", SOURCE, range=(10, 40), default=40.0)
    assert design_points.levels(u) == (40.0, 10, 25.0, 17.5, 32.5)
    count = Unknown("drive_queue_depth", SOURCE, range=(1, 32), default=1)
    assert design_points.levels(count) == (1, 32, 16, 9, 24)


def _interval_grid(tmp_path):
    """Two points of the microscope store whose cache block the blog leaves unsaid, intervals on."""
    return grid(
        tmp_path,
        scenario="em_ingest",
        base=["variant=linear_large_block"],
        product={"workload.streams": [1, 2]},
        intervals=True,
    )


def test_a_sweep_stores_intervals_and_ranks_the_unknowns(tmp_path):
    path = _interval_grid(tmp_path)
    loaded, points = grid_module.load(path)
    run_module.run(loaded, points, tmp_path / "out", workers=1, progress=False)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert (table.interval_90_low_MBps <= table.throughput_MBps).all()
    assert (table.throughput_MBps <= table.interval_90_high_MBps).all()
    ranking = sensitivity.driver_ranking(table)
    assert ranking.loc["volumes.lv.cache_block_KiB", "kind"] == "declared unknown"
    assert ranking.loc["volumes.lv.cache_block_KiB", "points_moved"] == 2


def test_the_sweep_command_names_what_moves_an_interval_grid_most(tmp_path, run_cli):
    path = _interval_grid(tmp_path)
    status, out, _ = run_cli("sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "1")
    assert status == 0
    first = out.splitlines()[2]  # after the sweep's line and the ranking's heading
    assert first.startswith("  volumes.lv.cache_block_KiB: ")
    assert "% of the spread on average" in first and "moves 2 points; declared unknown" in first
    written = pd.read_csv(tmp_path / "out" / "drivers.csv", index_col="driver")
    assert written.index[0] == "volumes.lv.cache_block_KiB"
    assert written.mean_share.is_monotonic_decreasing


def test_the_shipped_wires_sweep_ranks_how_many_cards_carry_them(tmp_path):
    """``data/sweeps/sas_lanes_unknowns.yaml``: at 16 writers the wires' PCIe links bind on one
    card (four wires) or on two cards (two wires, both from the first), so how many cards carry
    them is ranked among what moves the sweep, at those two points."""
    loaded, points = grid_module.load(paths.DATA / "sweeps" / "sas_lanes_unknowns.yaml")
    run_module.run(loaded, points, tmp_path / "out", workers=1, progress=False)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    ranking = sensitivity.driver_ranking(table)
    assert ranking.loc["host adapters", "kind"] == "declared unknown"
    moved = table[[json.loads(d).get("host adapters", 0) > 0 for d in table.drivers]]
    assert set(moved["param:workload.streams"]) == {16} and len(moved) == 2


def test_a_sweep_stores_each_interval_before_the_model_s_error(tmp_path):
    """Beside each point's interval a sweep stores its ends before the model's own error widened
    them (``Interval.before_error``, in MB/s as ``predict`` gives ``before_model_error``): the
    spread the drivers share out, NaN where the error moved neither end."""
    path = _interval_grid(tmp_path)
    loaded, points = grid_module.load(path)
    out = tmp_path / "out"
    run_module.run(loaded, points, out, workers=1, progress=False)
    table = pd.read_parquet(out / "results.parquet")
    low, high = "before_model_error_low_MBps", "before_model_error_high_MBps"
    assert (table.interval_90_low_MBps < table[low]).all()
    assert (table[low] <= table.throughput_MBps).all()
    assert (table.throughput_MBps <= table[high]).all()
    assert (table[high] <= table.interval_90_high_MBps).all()
    one = scenario.load("em_ingest", ["variant=linear_large_block", "workload.streams=1"])
    first = table.set_index("param:workload.streams").loc[1]
    assert (first[low], first[high]) == pytest.approx(uncertainty.interval(one).before_error)
    # a relay that keeps up with its feed, its high end at its capacity: the error moved neither
    relay = grid(tmp_path, scenario="psu_relay", product={"seed": [1]}, intervals=True)
    loaded, points = grid_module.load(relay)
    run_module.run(loaded, points, tmp_path / "relay", workers=1, progress=False)
    kept = pd.read_parquet(tmp_path / "relay" / "results.parquet")
    assert kept[low].isna().all() and kept[high].isna().all()
    assert kept[low].dtype == kept[high].dtype == float


def test_an_older_sweep_s_points_without_the_ends_before_the_error_load_and_rank(tmp_path):
    """A point an older sweep stored without the ends before the model's error joins the results
    with them missing, and its drivers are ranked as before; a results file without them ranks."""
    path = _interval_grid(tmp_path)
    loaded, points = grid_module.load(path)
    out = tmp_path / "out"
    run_module.run(loaded, points, out, workers=1, progress=False)
    new = ["before_model_error_low_MBps", "before_model_error_high_MBps"]
    older = sorted((out / "points").glob("*.parquet"))[0]
    pd.read_parquet(older).drop(columns=new).to_parquet(older)
    run_module.run(loaded, points, out, workers=1, progress=False)  # all done: gathered again
    table = pd.read_parquet(out / "results.parquet")
    assert len(table) == 2 and table[new].isna().all(axis=1).sum() == 1
    assert sensitivity.driver_ranking(table).loc["volumes.lv.cache_block_KiB", "points_moved"] == 2
    table.drop(columns=new).to_parquet(out / "results.parquet")
    assert sensitivity.write_ranking(out / "results.parquet")[0].startswith(
        "  volumes.lv.cache_block_KiB: "
    )


def test_a_parameter_no_table_informs_is_ranked_as_its_declared_range(tmp_path, monkeypatch):
    """A sweep's ranking tells a calibrated parameter from one no table informs (the stored fit's
    ``rows_depending_on_it`` 0: nfs_call_cycles), whose spread is its declared range, not a fit's;
    in ``drivers.csv``'s ``kind`` and in the lines the sweep prints. With no calibration stored, no
    parameter is a calibrated one."""
    stored = json.loads(paths.CALIBRATED_PARAMETERS.read_text())["parameters"]
    assert stored["nfs_call_cycles"]["rows_depending_on_it"] == 0
    assert stored["io_copy_passes"]["rows_depending_on_it"] > 0
    shares = {"parameter nfs_call_cycles": 0.6, "parameter io_copy_passes": 0.3, "x.y": 0.1}
    results = tmp_path / "results.parquet"
    pd.DataFrame({"status": ["ok"], "drivers": [json.dumps(shares)]}).to_parquet(results)
    unfitted = "free parameter, no table informs it: its declared range"
    lines = sensitivity.write_ranking(results)
    assert lines[0].endswith(f"moves 1 point; {unfitted})")
    assert lines[1].endswith("moves 1 point; calibrated parameter)")
    kinds = pd.read_csv(tmp_path / "drivers.csv", index_col="driver").kind
    assert kinds.to_dict() == {
        "parameter nfs_call_cycles": unfitted,
        "parameter io_copy_passes": "calibrated parameter",
        "x.y": "declared unknown",
    }
    monkeypatch.setattr(paths, "CALIBRATED_PARAMETERS", tmp_path / "none.json")
    table = pd.read_parquet(results)
    assert set(sensitivity.driver_ranking(table).kind) == {unfitted, "declared unknown"}


def test_a_sweep_whose_intervals_nothing_moves_says_so(tmp_path):
    """An audit: a grid with intervals whose every point's interval is the model's error alone
    printed no ranking and wrote a drivers.csv of a header: it now says nothing moves them, as
    predict says it of one point."""
    results = tmp_path / "results.parquet"
    pd.DataFrame({"status": ["ok", "ok"], "drivers": ["{}", "{}"]}).to_parquet(results)
    assert sensitivity.write_ranking(results) == [
        "  nothing: no declared unknown, parameter or seed moves any point; each interval's "
        "width is the model's measured error"
    ]


def test_a_grid_without_intervals_prints_no_ranking(tmp_path, run_cli):
    path = grid(tmp_path, scenario="em_ingest", product={"workload.streams": [1]})
    status, out, _ = run_cli("sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "1")
    assert status == 0 and "what moves" not in out
    assert not (tmp_path / "out" / "drivers.csv").exists()


def test_noise_is_measured_on_other_seeds_only_where_the_run_draws_random_numbers():
    uncertainty.clear_cache()
    relay = uncertainty.interval(scenario.load("psu_relay"), model_error=False)
    assert relay.drivers.get(uncertainty.NOISE, 0.0) > 0  # its clients' arrivals are drawn
    write = scenario.load("psu_write")
    plain = uncertainty.interval(write, model_error=False)
    (unknown,) = write.unknowns
    at = {  # each level of the dirty ratio: the outcome, and the parameters read there
        level: uncertainty._run(write, {unknown.key: level}, _values(), write.seed, plain.metric)
        for level in design_points.levels(unknown)
    }
    read = at[unknown.default][1]
    coupled = design_points.coupled(design_points.parameter_steps(sorted(read), _values()))
    ends = {pick(at, key=lambda level: at[level][0]) for pick in (min, max)}
    # each end at another level than the default steps every parameter read there
    at_ends = sum(2 * len(at[level][1]) for level in ends - {unknown.default})
    assert at_ends > 0  # an end lies at another dirty ratio than the default
    # no other seed: the stream model draws none
    assert plain.simulations == len(at) + 2 * len(read) + len(coupled) + at_ends
    assert uncertainty.NOISE not in plain.drivers


def test_every_further_seed_runs_where_a_draw_has_few_outcomes():
    """Eight clients hashed onto a two-port bond at random: seeds 1 and 2 put them alike
    (purchase_nvme with clients.hashing=seeded: 4,707 MB/s at both) and seed 3 evenly (5,883).
    The noise was measured only where the first further seed moved the result, so the interval
    at the scenario's seed 1 carried none."""
    by_seed = {1: 4707.0, 2: 4707.0, 3: 5883.0}
    samples = design_points.sample(
        lambda config, values, seed: by_seed[seed], (), {}, [], 1, seedless=False, where=WHERE
    )
    assert samples.at_seed == [4707.0, 5883.0]
    summary = uncertainty._summarise(samples, "throughput_MBps", "storage", model_error=False)
    assert summary.drivers == {uncertainty.NOISE: 1.0} and summary.high > 5000.0


def _two_parameters(monkeypatch, cov, low=0.0, high=10.0, b_scale=1.0):
    """Two fitted parameters a and b with covariance ``cov`` and bounds [low, high] (b's times
    ``b_scale``: b declared in other units)."""
    from model import params
    from model.freeparameter import FreeParameter

    declared = {
        n: FreeParameter(n, "1", 5.0 * k, low * k, high * k, "test")
        for n, k in (("a", 1.0), ("b", b_scale))
    }
    monkeypatch.setattr(params, "DECLARED", declared)
    monkeypatch.setattr(params, "covariance", lambda: (["a", "b"], cov))
    monkeypatch.setattr(
        params, "intervals", lambda: {n: (d.low, d.high) for n, d in declared.items()}
    )


def _drivers(outcome, base):
    samples = design_points.sample(
        lambda config, values, seed: outcome(values),
        (),
        base,
        sorted(base),
        1,
        seedless=True,
        where=WHERE,
    )
    return uncertainty._summarise(samples, "throughput_MBps", "storage", model_error=False).drivers


def test_a_parameter_the_outcome_does_not_depend_on_takes_none_of_its_spread(monkeypatch):
    """Two fitted parameters that vary together (a storage read reads the per-byte cost of its
    reads; a write's extra cost, fitted with it, never enters it): the spread is the one that
    moves it, whatever their loadings on the covariance's axes."""
    _two_parameters(monkeypatch, [[1.0, 0.6], [0.6, 2.0]])
    drivers = _drivers(lambda v: math.exp(0.1 * v["a"]), {"a": 5.0, "b": 5.0})
    assert drivers == {"parameter a": pytest.approx(1.0)}


def test_each_group_of_coupled_parameters_splits_only_its_own_directions(monkeypatch):
    """a with b, and c with d, vary together (two blocks of the covariance, as the storage and the
    MDSplus parameters). The outcome moves with a, b and c alike, each alone as far; a and b, which
    vary the same way, move it together further than c can alone, and that is theirs, not c's."""
    from model import params
    from model.freeparameter import FreeParameter

    names = ("a", "b", "c", "d")
    declared = {n: FreeParameter(n, "1", 5.0, 0.0, 10.0, "test") for n in names}
    cov = [[1.0, 0.9, 0, 0], [0.9, 1.0, 0, 0], [0, 0, 1.0, -0.5], [0, 0, -0.5, 1.0]]
    monkeypatch.setattr(params, "DECLARED", declared)
    monkeypatch.setattr(params, "covariance", lambda: (list(names), cov))
    monkeypatch.setattr(params, "intervals", lambda: {n: (0.0, 10.0) for n in names})
    drivers = _drivers(
        lambda v: math.exp(0.1 * (v["a"] + v["b"] + v["c"])), dict.fromkeys(names, 5.0)
    )
    assert set(drivers) == {"parameter a", "parameter b", "parameter c"}
    # a and b's block: 0.01 (1 + 1 + 2 x 0.9) = 0.038; c's: 0.01
    assert drivers["parameter c"] == pytest.approx(0.01 / 0.048, rel=1e-3)
    assert drivers["parameter a"] == pytest.approx(drivers["parameter b"])


def test_the_shares_do_not_depend_on_the_units_a_parameter_is_declared_in(monkeypatch):
    """b in units a hundred times smaller (its values and covariance scaled to match) takes the
    same share of the spread: a principal axis's loadings follow the units, its shares must not."""
    cov = [[1.0, 0.3], [0.3, 0.5]]
    _two_parameters(monkeypatch, cov)
    same = _drivers(lambda v: math.exp(0.1 * v["a"] + 0.2 * v["b"]), {"a": 5.0, "b": 5.0})
    k = 100.0
    _two_parameters(monkeypatch, [[1.0, 0.3 * k], [0.3 * k, 0.5 * k * k]], b_scale=k)
    scaled = _drivers(lambda v: math.exp(0.1 * v["a"] + 0.2 * v["b"] / k), {"a": 5.0, "b": 5.0 * k})
    assert scaled == pytest.approx(same)
    assert 0.0 < same["parameter a"] < 1.0


def test_parameters_vary_along_the_principal_axes_of_their_covariance(monkeypatch):
    # a and b anti-correlated: one axis along (1, -1) with variance 2 - 1.8, one along (1, 1)
    _two_parameters(monkeypatch, [[1.0, -0.9], [-0.9, 1.0]])
    steps = design_points.parameter_steps(["a", "b"], {"a": 5.0, "b": 5.0})
    moves = sorted(
        (abs(s.up["a"] - 5.0), abs(s.up["b"] - 5.0), s.loadings["a"] ** 2) for s in steps.values()
    )
    z = design_points.Z
    assert moves[0] == pytest.approx((z * math.sqrt(0.1 / 2), z * math.sqrt(0.1 / 2), 0.5))
    assert moves[1] == pytest.approx((z * math.sqrt(1.9 / 2), z * math.sqrt(1.9 / 2), 0.5))
    for s in steps.values():  # each axis moves a and b together, once each way
        assert s.reach == (1.0, 1.0)
        assert s.up["a"] - 5.0 == pytest.approx(5.0 - s.down["a"])


def test_a_bound_shortens_a_step_along_its_axis_and_a_stuck_side_mirrors(monkeypatch):
    _two_parameters(monkeypatch, [[4.0, 0.0], [0.0, 1e-12]], low=0.0, high=6.0)
    (step,) = [
        s
        for s in design_points.parameter_steps(["a", "b"], {"a": 5.0, "b": 5.0}).values()
        if s.loadings["a"] ** 2 > 0.5
    ]
    full = design_points.Z * 2.0
    assert step.reach[1] == pytest.approx(1.0 / full)  # up to the bound at 6, on the axis
    assert step.up["a"] == pytest.approx(6.0)
    assert step.reach[0] == 1.0 and step.down["a"] == pytest.approx(5.0 - full)
    # the outcome's deviation at the shortened side is scaled to the full step
    assert uncertainty._full_step(-0.3, 0.1, (1.0, 0.25)) == pytest.approx((-0.3, 0.4))
    assert uncertainty._full_step(-0.3, 0.0, (1.0, 0.0)) == pytest.approx((-0.3, 0.3))


def test_the_path_s_capacity_caps_the_widened_interval(tmp_path, monkeypatch):
    """However wide the model's error, a rate's interval never runs past the bottleneck law's
    bound over the design points, nor a time below the bytes over it; the other end keeps its
    whole widening. A printed measurement is judged against the capped end as far past it as the
    reports' rounding goes."""
    loaded = scenario.load("atlas_intellistation")  # RAID0 reads: drive-bound, at their bound
    path = tmp_path / "model_error.json"
    path.write_text(
        json.dumps(
            {"models": {"storage": {"log_widen_90": 1.0, "rows": 30, "tables": [], "covers": "x"}}}
        )
    )
    monkeypatch.setattr(model_error, "MODEL_ERROR", path)
    plain = uncertainty.interval(loaded, model_error=False)
    rate = uncertainty.interval(loaded)
    assert rate.path_limit is not None
    assert rate.point <= rate.high < plain.high * math.e
    assert rate.high == pytest.approx(rate.path_limit)
    assert rate.judged_ends[1] == pytest.approx(rate.path_limit * (1 + ROUNDING))
    assert rate.low == pytest.approx(plain.low / math.e) == rate.judged_ends[0]
    time = uncertainty.interval(loaded, "elapsed_s")
    assert time.path_limit == pytest.approx(time.low) and time.low <= time.point < time.high
    assert time.judged_ends[0] == pytest.approx(time.path_limit * (1 - ROUNDING))


def test_a_bound_the_cpu_s_estimated_work_sets_caps_nothing_but_the_rated_parts_do(monkeypatch):
    """The interval audit: the path's capacity cut the model error's upper half where the bound was
    an estimate of CPU work (a purchase's md RAID6 at its raid5d's cycles, [2,593, 3,571] MB/s, its
    point its top). A core or a thread (``FlowResource.rated``) caps nothing; the rated parts
    past it do: the RAID1 write of psu_write, held by its writer's core at 16.3 MB/s, reaches up
    to its drives' 56 MB/s, not past them."""
    loaded = scenario.load("psu_write")
    result = simulate(loaded, params.calibrated())
    assert result.bottleneck == "core 0" and result.bound_MBps == pytest.approx(16.3, abs=0.05)
    assert result.ceiling_MBps > 3 * result.bound_MBps
    assert result.ceiling("throughput_MBps") == result.ceiling_MBps
    # a measurement past the bound still falsifies the writer's cost (validate.bound_excess)
    assert result.limit("throughput_MBps") == result.bound_MBps
    wide = uncertainty.interval(loaded)
    assert wide.path_limit >= result.ceiling_MBps and wide.high > result.bound_MBps * 1.05
    md = simulate(scenario.load("purchase_hdd_md"), params.calibrated())
    assert md.bottleneck.startswith("raid5d ") and md.ceiling_MBps > md.bound_MBps


def test_a_drive_s_own_time_and_repeated_runs_from_memory_keep_their_ceiling(run_cli, tmp_path):
    """The review: a mirror copy's time (a stream on its own copy, the drive's rated rate) was read
    as estimated work, psu_copy's interval reaching 61.45 MB/s past its 56.71 MB/s copy; and runs
    from the page cache kept the first pass's drive ceiling, 270 MB/s under a 793 MB/s point."""
    copy = simulate(scenario.load("psu_copy"), params.calibrated())
    assert copy.bottleneck.startswith("mirror copy ")
    assert copy.ceiling_MBps == pytest.approx(copy.bound_MBps, rel=1e-12)
    quote = tmp_path / "one.yaml"
    assert run_cli("new", "storage_server", "--out", str(quote))[0] == 0
    again = [
        "host=lenovo_sr665_v3",  # a memory figure: the later runs' copies are rated
        "volumes.data.level=single",
        "volumes.data.disks.count=1",
        "volumes.data.disks.attach=[hba.0]",
        "workload.op=read",
        "workload.total_MB=2000",
        "workload.runs=10",
    ]
    runs = simulate(scenario.load(str(quote), again), params.calibrated())
    assert runs.ceiling_MBps >= runs.bound_MBps >= runs.throughput_MBps * (1 - 1e-9)
    wide = uncertainty.interval(scenario.load(str(quote), again))
    assert wide.high > 1.05 * wide.point


def test_capping_never_moves_an_end_past_the_point():
    assert uncertainty.capped(50.0, 400.0, 100.0, "throughput_MBps", 80.0) == (50.0, 100.0)
    assert uncertainty.capped(50.0, 400.0, 100.0, "throughput_MBps", 200.0) == (50.0, 200.0)
    assert uncertainty.capped(50.0, 400.0, 100.0, "throughput_MBps", 200.0, past=True) == (
        50.0,
        pytest.approx(210.0),
    )
    assert uncertainty.capped(50.0, 400.0, 100.0, "elapsed_s", 200.0) == (100.0, 400.0)
    assert uncertainty.capped(50.0, 400.0, 100.0, "cpu_sys_s", 80.0) == (50.0, 400.0)
    assert uncertainty.capped(50.0, 400.0, 100.0, "throughput_MBps", None) == (50.0, 400.0)


def test_no_interval_runs_past_the_line_rate_of_a_100_gbe_link(run_cli):
    """Sixteen iperf2 streams over a 100 GbE switch: the link's payload bounds the path at about
    12,375 MB/s, and the interval's top is that, not the 5 % more a printed figure may round to."""
    status, out, err = run_cli("predict", "ext_net_esnet_100g_switch", "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["path_limit"] == pytest.approx(12375, rel=0.01)
    assert data["interval_90"][1] <= data["path_limit"]


def _cx6dx(unknowns=None, *overrides):
    loaded = scenario.load("ext_net_cx6dx_100g", ["variant=iperf2", *overrides])
    if unknowns is not None:
        loaded = dataclasses.replace(loaded, unknowns=unknowns)
    return uncertainty.interval(loaded, model_error=False)


def _streams(high):
    return Unknown("workload.streams", SOURCE, range=(2, high), default=8)


def test_an_unknown_that_raises_the_capacity_raises_the_cap_with_it():
    """The ConnectX-6 Dx run's MTU and stream count are unstated: at the point (1500 B, 8 streams)
    the receive cost per frame bounds the path near 7,092 MB/s, jumbo frames or more streams lift
    the bound to the link's. The rate's high end is capped at the highest bound over the enumerated
    configurations, never at the point's, and the point stays the scenario's own."""
    opened = _cx6dx()
    closed = _cx6dx(())
    jumbo = _cx6dx((), "mtu_B=9000")
    assert {u.key for u in scenario.load("ext_net_cx6dx_100g").unknowns} == {
        "mtu_B",
        "workload.streams",
    }
    assert opened.point == closed.point
    assert closed.path_limit < jumbo.path_limit <= opened.path_limit
    assert opened.high > closed.path_limit * (1 + ROUNDING)  # past the point's own capacity
    assert opened.low <= opened.point <= opened.high <= opened.path_limit


@pytest.mark.parametrize("narrow_high, wide_high", [(8, 16), (16, 128), (9, 64)])
def test_a_wider_stream_range_never_narrows_a_capped_interval(narrow_high, wide_high):
    narrow = _cx6dx((_streams(narrow_high),))
    wide = _cx6dx((_streams(wide_high),))
    assert narrow.point == wide.point
    assert wide.low <= narrow.low and wide.high >= narrow.high
    assert wide.path_limit >= narrow.path_limit


def _together(config, values, seed):
    """Two unknowns that add their effects, but for one combination: a = 0 alone lowers the
    outcome, yet with b = 30 gives the most (as the RAID10 download server's 4 KiB stripe with
    reads sent to the nearer copy)."""
    a, b = config.get("a", 1), config.get("b", 10)
    return 150.0 if (a, b) == (0, 30) else 100.0 + a + b / 10


def _a_and_b(a_options=(0, 1, 2, 3)):
    return (
        Unknown("a", SOURCE, options=a_options, default=1),
        Unknown("b", SOURCE, options=(0, 10, 20, 30), default=10),
    )


def test_unknowns_varied_one_at_a_time_are_searched_for_what_they_do_together():
    """Two unknowns of four options each (16 combinations, over MAX_JOINT) are varied alone; from
    the corner where each alone moved the outcome furthest up (a = 3, b = 30: 106), the search
    tries each unknown's levels with the other held, and finds a = 0 with b = 30 (150), which
    neither alone points to. The drivers still come from the runs that vary one unknown alone."""
    unknowns = _a_and_b()
    assert 4 * 4 > design_points.MAX_JOINT
    samples = design_points.sample(_together, unknowns, {}, set(), 1, True, where=WHERE)
    assert {"a": 3, "b": 30} in samples.configs and {"a": 0, "b": 30} in samples.configs
    assert min(samples.at_config) == 100.0 and max(samples.at_config) == 150.0
    found = uncertainty._summarise(samples, "throughput_MBps", "storage", False)
    assert found.low == pytest.approx(100.0) and found.high == pytest.approx(150.0)
    alone = [i for i, c in enumerate(samples.configs) if len(c) <= 1]
    one_at_a_time = dataclasses.replace(
        samples,
        configs=[samples.configs[i] for i in alone],
        at_config=[samples.at_config[i] for i in alone],
    )
    plain = uncertainty._summarise(one_at_a_time, "throughput_MBps", "storage", False)
    assert found.drivers == plain.drivers and set(found.drivers) == {"a", "b"}


def test_the_search_costs_runs_by_the_unknowns_levels_not_their_combinations():
    """Six unknowns of three options (729 combinations): each end's search runs its corner and at
    most one run a level a pass, each configuration once; an outcome that adds the unknowns'
    effects needs no more than a pass that moves and one that confirms."""
    unknowns = tuple(Unknown(f"k{i}", SOURCE, options=(0, 1, 2), default=1) for i in range(6))

    def outcome(config, values, seed):
        return 100.0 + sum(config.get(u.key, 1) * (i + 1) for i, u in enumerate(unknowns))

    runs = []
    samples = design_points.sample(
        lambda *a: runs.append(a[0]) or outcome(*a), unknowns, {}, set(), 1, True, where=WHERE
    )
    assert (min(samples.at_config), max(samples.at_config)) == (100.0, 100.0 + 2 * 21)
    assert len(runs) == len({repr(sorted(r.items())) for r in runs})  # none run twice
    assert samples.simulations == len(runs) < 1 + 6 * 2 + 2 * (1 + 2 * 6 * 2) < 3**6


def _high_with_a(options):
    samples = design_points.sample(_together, _a_and_b(options), {}, set(), 1, True, where=WHERE)
    return max(samples.at_config)


def test_another_option_never_lowers_the_envelope_where_the_design_turns_to_the_search():
    """a of three options and b of four make 12 combinations, every one simulated; a fourth option
    of a makes 16, varied one at a time and searched: the high end stays at the combination the
    full enumeration found (the vertex method's corner alone gave 106 against 150)."""
    assert 3 * 4 <= design_points.MAX_JOINT < 4 * 4
    assert _high_with_a((0, 1, 3)) == _high_with_a((0, 1, 2, 3)) == 150.0


def _chunks(options):
    """The RAID10 download server's interval over its file system's access times, its mirror
    reads and the stripe sizes ``options`` alone."""
    loaded = scenario.load("eah_download", ["variant=r10_def"])
    by_key = {u.key: u for u in loaded.unknowns}
    chunk = dataclasses.replace(by_key["chunk_KiB"], options=options)
    unknowns = (by_key["server.atime"], by_key["mirror_reads"], chunk)
    return uncertainty.interval(dataclasses.replace(loaded, unknowns=unknowns))


def test_a_wider_choice_of_stripes_never_narrows_the_raid10_download_server_s_interval():
    """The audit's case: a 32 KiB stripe reads fastest alone, a 4 KiB one with reads sent to the
    nearer copy (and noatime); with 64, 4 and 32 KiB allowed the 12 combinations are enumerated,
    with 8 KiB too the 16 are varied one at a time, whose vertex corner (32 KiB) gave 25.1 MB/s
    against 30.3: the search finds the 4 KiB combination again."""
    narrow, wide = _chunks((64, 4, 32)), _chunks((64, 4, 8, 32))
    assert narrow.point == wide.point
    assert wide.low <= narrow.low and wide.high >= narrow.high
    assert wide.high == pytest.approx(narrow.high)


def test_keys_one_fact_sets_together_are_ranked_as_that_fact():
    """Two keys that move the outcome only together (two wires that bind their link only when
    both hang from it) rank nothing declared apart: neither moves it alone. Declared as one fact
    whose options set both, the fact takes the spread."""

    def outcome(config, values, seed):
        return 80.0 if config.get("x") == config.get("y") == "a" else 100.0

    apart = (
        Unknown("x", SOURCE, options=("b", "a"), default="b"),
        Unknown("y", SOURCE, options=("b", "a"), default="b"),
    )
    samples = design_points.sample(outcome, apart, {}, set(), 1, True, where=WHERE)
    assert min(samples.at_config) == 80.0  # the combination was simulated...
    assert uncertainty._summarise(samples, "throughput_MBps", "storage", False).drivers == {}
    cabling = Unknown(
        "cabling", SOURCE, options=("two", "one"), default="two", keys=("x", "y"),
        settings=(("b", "b"), ("a", "a")),
    )  # fmt: skip
    samples = design_points.sample(outcome, (cabling,), {}, set(), 1, True, where=WHERE)
    assert samples.configs == [{}, {"cabling": "one"}] and samples.at_config == [100.0, 80.0]
    found = uncertainty._summarise(samples, "throughput_MBps", "storage", False)
    assert found.drivers == {"cabling": 1.0} and found.low == pytest.approx(80.0)


def test_the_microscope_store_s_one_card_reading_is_ranked_and_inside_its_interval():
    """The striped store at 16 writers: 4,073 MB/s on two HBAs (the RAID processors bind); all
    four wires on one four-port card make its PCIe 2.0 x8 link the bottleneck (lessons 1 and 7's
    reading). How many cards carry the wires is one declared fact; it is among the drivers and
    its one-card value inside the interval."""
    from model.simulate import simulate

    sixteen = ["variant=striped", "workload.streams=16"]
    loaded = scenario.load("em_ingest", sixteen)
    (cabling,) = [u for u in loaded.unknowns if u.key == "host adapters"]
    assert cabling.default == "two cards"
    one_card = [f"{k}={v}" for k, v in cabling.assignment("one card").items()]
    one = simulate(scenario.load("em_ingest", [*sixteen, *one_card]))
    interval = uncertainty.interval(loaded)
    assert one.bottleneck == "bus pcie_a"
    assert one.throughput_MBps < 0.95 * interval.point
    assert interval.low <= one.throughput_MBps
    assert interval.drivers["host adapters"] > 0.1


@given(
    low=st.floats(10, 40),
    high=st.floats(40, 100),
    wider_low=st.floats(0, 1),
    wider_high=st.floats(0, 1),
    slope=st.floats(-3, 3),
)
def test_with_corners_a_wider_range_still_never_narrows_the_interval(
    low, high, wider_low, wider_high, slope
):
    """Two unknowns too many to combine (six levels of a range by four options) are varied alone
    and met at their corners; an outcome monotone in each keeps the interval nested as the range
    widens."""
    b = Unknown("b", SOURCE, options=(0, 10, 20, 30), default=10)

    def interval(lo, hi):
        a = Unknown("a", SOURCE, range=(lo, hi), default=40.0)

        def outcome(config, values, seed):
            return 500.0 + slope * config.get("a", 40.0) + config.get("b", 10)

        samples = design_points.sample(outcome, (a, b), {}, set(), 1, True, where=WHERE)
        return uncertainty._summarise(samples, "throughput_MBps", "storage", False)

    narrow = interval(low, high)
    wide = interval(low - (low - 10) * wider_low, high + (100 - high) * wider_high)
    for found in (narrow, wide):
        assert found.low <= found.point <= found.high
    assert wide.low <= narrow.low + 1e-9 and wide.high >= narrow.high - 1e-9


def test_seeds_that_land_alike_are_said_so_not_that_no_seed_moves_it(run_cli):
    """The review: at seed 12, eight clients hashed at random land alike at all three seeds the
    interval tries, and the text said no seed moves it, where other seeds give 5,883 MB/s."""
    args = ("predict", "purchase_nvme", "--set", "clients.hashing=seeded")
    status, out, _ = run_cli(*args, "--set", "seed=12")
    assert status == 0 and "its 3 seeds gave one result" in out
    status, out, _ = run_cli(*args, "--set", "clients.hashing=balanced")
    assert status == 0 and "no declared unknown, parameter or seed moves it" in out


def test_the_journal_s_checkpoint_wait_is_the_writer_s_work_and_caps_nothing():
    """The last review: the writer's core and its checkpoint waits (data=journal) had been taken
    for a rated part, capping the interval at the estimated CPU work (78.1 MB/s)."""
    r = simulate(
        scenario.load(
            "atlas_cern_receive", ["variant=ext3", "volumes.md0.filesystem.journal=journal"]
        ),
        params.calibrated(),
    )
    assert r.bottleneck.endswith("with its checkpoints")
    assert r.ceiling_MBps > 2 * r.bound_MBps


def test_an_unknown_that_holds_the_spread_shows_each_option_s_outcome(run_cli):
    """The interval audit: psu_write's SATA interval is 5.6 times wide, all of it the drive's
    write cache, whose allowed settings an envelope takes as equally likely; the result now gives
    each setting's figure, the others at their defaults, and says nothing where no one unknown of
    options leads (a range, or a lesser share)."""
    status, out, err = run_cli("predict", "psu_write", "--set", "variant=sata")
    assert status == 0, err
    (line,) = [x for x in out.splitlines() if x.startswith("  by option")]
    assert re.fullmatch(r"  by option    as_shipped 71\.\d MB/s, disabled 13\.\d MB/s", line), line
    status, out, err = run_cli("predict", "psu_write", "--set", "variant=sata", "--json")
    shown = json.loads(out)
    assert set(shown["by_option"]) == {"as_shipped", "disabled"}
    assert shown["by_option"]["as_shipped"] == pytest.approx(shown["throughput_MBps"])
    # a lesser share (ext3's journal mode, 63 %) and a range (the 100 GbE pair's streams, 98 %)
    # show none
    for lesser in (["atlas_cern_receive", "--set", "variant=ext3"], ["ext_net_cx6dx_100g"]):
        status, out, err = run_cli("predict", *lesser)
        assert status == 0 and "moved most   by the unknown" in out and "by option" not in out


PAST = "md_workers_past_measured"  # a parameter no table informs, 0 to 1 at 0.5


def _end_interval(outcomes, reads, options):
    """The interval of a stand-in model: unknown ``x`` takes ``options`` (its default 0), the
    outcome at x is ``outcomes[x](values)`` and it reads ``reads[x]``; no noise, no model error."""
    unknown = Unknown(key="x", source="t", options=tuple(options), default=0, declared_in="t.yaml")
    base = params.calibrated()
    samples = design_points.sample(
        lambda config, values, seed: outcomes[config.get("x", 0)](values),
        (unknown,),
        base,
        set(reads[0]),
        1,
        True,
        where="t.yaml",
        read_at=lambda config: reads[config.get("x", 0)],
    )
    return uncertainty._summarise(samples, "throughput_MBps", "none", False)


def _flat(value):
    return lambda values: value


def _past(value, slope=0.6):  # moves with the parameter: 1 -/+ slope/2 times value over its range
    return lambda values: value * (1 + slope * (values[PAST] - 0.5))


def test_an_end_tied_between_configurations_is_stepped_where_a_parameter_moves_it():
    """x=1 and x=2 both give the highest outcome; only x=2 reads the parameter: it is stepped
    whichever comes first among the options (the review found the order decided it)."""
    outcomes = {0: _flat(50.0), 1: _flat(100.0), 2: _past(100.0)}
    reads = {0: (), 1: (), 2: (PAST,)}
    first, second = (_end_interval(outcomes, reads, order) for order in ((0, 1, 2), (0, 2, 1)))
    assert first.high > 110.0 and f"parameter {PAST}" in first.drivers
    assert (first.low, first.high, first.drivers) == (second.low, second.high, second.drivers)


def test_the_low_end_is_widened_down_by_a_parameter_read_only_there():
    outcomes = {0: _flat(50.0), 1: _past(20.0), 2: _flat(100.0)}
    found = _end_interval(outcomes, {0: (), 1: (PAST,), 2: ()}, (0, 1, 2))
    assert found.low < 0.9 * 20.0 and found.high == pytest.approx(100.0, rel=1e-12)
    assert f"parameter {PAST}" in found.drivers


def test_an_end_elsewhere_is_widened_by_the_steps_measured_there_and_the_point_s_by_its_own():
    """The parameter is read at the point's own configuration (x=0, the low end) and at x=1 (the
    high end), where it moves the outcome five times as much: the high end is widened by its step
    measured at x=1, not by the point's; the low end, the point's own, by the point's step, with
    no run of its own."""
    outcomes = {0: _past(50.0, slope=0.12), 1: _past(100.0)}
    reads = {0: (PAST,), 1: (PAST,)}
    found = _end_interval(outcomes, reads, (0, 1))
    (step,) = design_points.parameter_steps([PAST], params.calibrated()).values()
    down, up = (dict(params.calibrated(), **at) for at in (step.down, step.up))
    assert found.high == pytest.approx(outcomes[1](up), rel=1e-12)
    assert found.high > 100.0 * outcomes[0](up) / 50.0  # what the point's step would give
    assert found.low == pytest.approx(outcomes[0](down), rel=1e-12)
    # the two configurations, the parameter stepped at the point, and at the high end alone
    assert found.simulations == len(outcomes) + 2 * len(reads[0]) + 2 * len(reads[1])


def test_steps_at_the_ends_past_the_simulation_budget_are_refused_before_they_run():
    """150 configurations run; the parameters read at the ends (none at the point's own) would
    take 2 runs each at each end past the 200 allowed: refused at the unknowns, as the design's
    own count is."""
    declared = sorted(params.calibrated())
    outcomes = {x: _flat(10.0 if x == 1 else 50.0 + x) for x in range(150)}  # ends: 1 and 149
    reads = {x: tuple(declared) if x in (1, 149) else () for x in range(150)}
    with pytest.raises(scenario.UserError) as told:
        _end_interval(outcomes, reads, range(150))
    assert told.value.where == "t.yaml" and told.value.key == "unknowns"
    at_ends = 2 * 2 * len(declared)
    assert f"needs {150 + at_ends} simulations, {at_ends} of them" in told.value.message
    assert "to step the parameters at its ends' values" in told.value.message


def _stepped_at(outcome):
    """``outcome`` at the parameter's 5 % and 95 % points, the others calibrated."""
    (step,) = design_points.parameter_steps([PAST], params.calibrated()).values()
    return tuple(outcome(dict(params.calibrated(), **at)) for at in (step.down, step.up))


def test_an_end_elsewhere_that_reads_no_parameter_is_not_widened_by_the_point_s_steps():
    """The point (x=0, the low end) reads the parameter; the high end, x=1, gives a flat 100 and
    reads none: nothing widens it (the review found it widened by the point's step, to 125.18,
    since an end that reads none was taken for the point's own)."""
    outcomes = {0: _past(50.0), 1: _flat(100.0)}
    found = _end_interval(outcomes, {0: (PAST,), 1: ()}, (0, 1))
    assert found.high == pytest.approx(100.0, rel=1e-12)
    assert found.low == pytest.approx(_stepped_at(outcomes[0])[0], rel=1e-12)
    assert found.simulations == len(outcomes) + 2  # the point's step; none at x=1


def test_an_end_the_point_ties_is_stepped_where_a_tied_configuration_reads_more():
    """x=0 (the point's own) and x=1 both give 100; only x=1 reads the parameter: both ends are
    stepped at x=1 and the parameter is a driver (the review found the point winning the tie: the
    interval [100, 100], the parameter dropped). Where every tied configuration reads only what
    the point reads, the point's own steps widen the end and nothing runs there."""
    outcomes = {0: _flat(100.0), 1: _past(100.0)}
    found = _end_interval(outcomes, {0: (), 1: (PAST,)}, (0, 1))
    low, high = _stepped_at(outcomes[1])
    assert [found.low, found.high] == pytest.approx([low, high], rel=1e-12)
    assert f"parameter {PAST}" in found.drivers
    assert found.simulations == len(outcomes) + 2  # the parameter stepped once, at x=1
    same = {0: _past(100.0), 1: _past(100.0, slope=1.2)}  # both 100 at the calibrated value
    found = _end_interval(same, {0: (PAST,), 1: (PAST,)}, (0, 1))
    low, high = _stepped_at(same[0])
    assert [found.low, found.high] == pytest.approx([low, high], rel=1e-12)
    assert found.simulations == len(same) + 2  # the point's step alone


def test_a_parameter_read_twice_at_an_end_is_stepped_once():
    """A ratio's reads at a configuration are both cases' (``ratio_interval``), a parameter
    named twice where both read it: stepped once, as where it is named once (the review found a
    fitted one's axis taken at a loading of 0.707 each, its share of the spread halved)."""
    fitted = params.covariance()[0][0]  # the fit estimated it: its step is its covariance's axis
    base = params.calibrated()[fitted]
    outcomes = {0: _flat(50.0), 1: lambda values: 100.0 * values[fitted] / base}
    once, twice = (
        _end_interval(outcomes, {0: (), 1: names}, (0, 1)) for names in ((fitted,), (fitted,) * 2)
    )
    assert (twice.low, twice.high, twice.simulations) == (once.low, once.high, once.simulations)
    assert twice.drivers == pytest.approx(once.drivers)
    assert once.drivers[f"parameter {fitted}"] > 0 and once.simulations == len(outcomes) + 2


def test_a_ratio_steps_each_parameter_once_at_its_ends(monkeypatch):
    """psu_write over its SATA variant, the dirty ratio open: the ratio's ends lie at other
    ratios, where both cases read the same parameters; each is stepped once there."""
    named = []
    steps = design_points.parameter_steps

    def recorded(names, *args, **kwargs):
        named.append(list(names))
        return steps(names, *args, **kwargs)

    monkeypatch.setattr(design_points, "parameter_steps", recorded)
    uncertainty.clear_cache()
    write, sata = scenario.load("psu_write"), scenario.load("psu_write", ["variant=sata"])
    found = uncertainty.ratio_interval(write, sata, model_error=False)
    assert found is not None and len(named) > 1  # the point's steps, and an end's
    assert all(len(names) == len(set(names)) for names in named), named


def test_a_parameter_that_widens_neither_end_is_no_driver():
    """The point (x=0) reads the parameter, but both ends lie elsewhere (x=1 the low, x=2 the
    high) and read none: it widens neither, so it is not among the drivers (the review found the
    point's variances kept there)."""
    outcomes = {0: _past(50.0), 1: _flat(10.0), 2: _flat(100.0)}
    found = _end_interval(outcomes, {0: (PAST,), 1: (), 2: ()}, (0, 1, 2))
    assert f"parameter {PAST}" not in found.drivers and set(found.drivers) == {"x"}
    assert [found.low, found.high] == pytest.approx([10.0, 100.0], rel=1e-12)
