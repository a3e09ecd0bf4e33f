"""Calibration: few parameters, recovered from synthetic data, stored with their intervals."""

import dataclasses
import json
import math

import numpy as np
import pytest

from model import calibrate, measured, params, paths
from model.storage import parameters as storage_parameters
from model.validate import predict_row

ROWS = [r for rs in measured.load_all().values() for r in rs]


def test_no_more_than_one_free_parameter_per_three_fitted_rows():
    """Counted over the parameters some row informs: one no row informs (the CPU an NFS call or a
    small request costs, which no report's requests reach) is a prior with a range the intervals
    span, not fitted, and keeps its declared default."""
    fit = json.loads(paths.CALIBRATED_PARAMETERS.read_text())
    fitted = {k for k, v in fit["parameters"].items() if v["rows_depending_on_it"]}
    assert len(fitted) * 3 <= fit["fit"]["rows"]
    assert set(fit["parameters"]) == set(params.DECLARED)
    for name in set(fit["parameters"]) - fitted:
        assert fit["parameters"][name]["value"] == params.DECLARED[name].default, name


def test_stored_values_lie_inside_bounds_and_intervals():
    for name, entry in json.loads(paths.CALIBRATED_PARAMETERS.read_text())["parameters"].items():
        p = params.DECLARED[name]
        assert p.low <= entry["ci95_low"] <= entry["value"] <= entry["ci95_high"] <= p.high


def test_fit_recovers_known_parameters_from_synthetic_measurements():
    truth = {
        "disk_format_efficiency": 0.70,
        "bus_efficiency": 0.85,
        "io_copy_passes": 8.0,
        "io_write_extra_passes": 2.0,
        "raid_cycles_per_cache_block": 25000.0,
        "iop332_driver_write_ns_per_byte": 50.0,
    }
    # every storage parameter but the CPU per request, an NFS call's and a disk's cached command,
    # which no table's requests reach, and md's workers past the measured ones, which no table's
    # arrays have (they keep their defaults; see tests/test_random_io.py, tests/test_front.py,
    # tests/test_direct.py and tests/test_raid5d.py)
    unreached = {
        "io_cycles_per_request",
        "nfs_call_cycles",
        "disk_cache_command_us",
        "raid_cycles_per_write_command",
        "md_workers_past_measured",
    }
    assert set(truth) == {p.name for p in storage_parameters.PARAMETERS} - unreached
    synthetic = []
    for r in ROWS:
        if (
            r.table not in ("atlas_disk", "atlas_hosts", "em_ingest", "psu_write", "psu_copy")
            or r.role != "result"
        ):
            continue
        p = predict_row(r, dict(params.defaults(), **truth))
        if p.predicted is not None:
            synthetic.append(dataclasses.replace(r, value=p.predicted))
    assert len(synthetic) >= 3 * len(truth)
    fit = calibrate.fit(synthetic)
    for name, value in truth.items():
        assert fit.values[name] == pytest.approx(value, rel=0.02), name
    assert fit.rms_error_pct < 0.5


def test_uncovered_and_unfitted_rows_do_not_enter_the_least_squares_fit():
    # the download server and the memory-mapped test are request-level: calibrate.not_fitted
    unfitted = [r for r in ROWS if r.table in ("eah_download", "psu_mmap")]
    uncovered = [
        r for r in ROWS if r.table == "atlas_disk" and r.id in ("x330_rh73", "brownie_max")
    ]
    assert not any(calibrate.fitted(r) for r in unfitted) and all(
        calibrate.fitted(r) for r in uncovered
    )
    fit = calibrate.fit(unfitted + uncovered, levels=False)
    assert fit.rows == 0
    assert fit.values == params.defaults()


EAH_OPT = [r for r in ROWS if r.table == "eah_download" and r.id.startswith("r6_opt_8_")]


def test_a_stepped_parameter_is_chosen_over_its_levels_on_the_rows_it_moves():
    start = params.calibrated()
    defaults_ra = params.DECLARED["tuned_read_ahead_KiB"]
    fit = calibrate.fit(EAH_OPT, start=start)
    level = fit.values["tuned_read_ahead_KiB"]
    low, high = fit.intervals["tuned_read_ahead_KiB"]
    assert level in defaults_ra.levels and low <= level <= high
    assert fit.rows_per_parameter["tuned_read_ahead_KiB"] == len(
        [r for r in EAH_OPT if r.role == "result"]
    )

    def cost(value):
        errors = [
            predict_row(r, dict(fit.values, tuned_read_ahead_KiB=value)).error_pct / 100
            for r in EAH_OPT
            if r.role == "result"
        ]
        return sum(calibrate.F_SCALE**2 * math.log1p((e / calibrate.F_SCALE) ** 2) for e in errors)

    assert all(cost(level) <= cost(other) + 1e-12 for other in defaults_ra.levels)
    # these rows do not enter least squares: every other parameter keeps its default
    assert {k: v for k, v in fit.values.items() if k != "tuned_read_ahead_KiB"} == {
        k: v for k, v in params.defaults().items() if k != "tuned_read_ahead_KiB"
    }


def test_a_parameter_the_default_column_never_reads_is_not_chosen_on_it():
    default = [r for r in ROWS if r.table == "eah_download" and r.id.startswith("r6_def_1_")]
    assert default and not any(calibrate.stepped(r, params.calibrated()) for r in default)


def test_choose_level_takes_the_least_cost_lowest_among_equals_with_a_profile_interval():
    levels = (1.0, 2.0, 4.0, 8.0)
    rng = np.random.default_rng(1)
    noise = 0.05 * rng.standard_normal(30)
    errors = np.array([noise + 0.30, noise + 0.01, noise + 0.01, noise + 0.08])
    level, (low, high) = calibrate.choose_level(levels, errors)
    assert level == 2.0  # equal to 4.0: the lower
    assert (low, high) == (2.0, 4.0)  # 0.08 off on 30 rows is far outside; 0.30 too
    # four rows scattered by 0.3 cannot tell 8.0 from the best
    scattered = 0.3 * rng.standard_normal(4)
    wide = calibrate.choose_level(levels, np.array([scattered + e[0] - noise[0] for e in errors]))
    assert wide[1][1] == 8.0


def test_choose_level_takes_the_level_nearest_the_default_among_near_equal_costs():
    """Costs within LEVEL_TIE of the least are a tie, which the declared default breaks: the
    Einstein@home read-ahead's 2048 and 8192 KiB lay 0.5 % apart, and a change in the sixth digit of
    another parameter swapped them."""
    levels = (1024.0, 2048.0, 4096.0, 8192.0)
    rng = np.random.default_rng(2)
    base = 0.05 * rng.standard_normal(30)
    errors = np.array([base + 0.2, base, base + 0.3, base * 0.995])
    assert calibrate.choose_level(levels, errors, default=1024.0)[0] == 2048.0
    assert calibrate.choose_level(levels, errors, default=16384.0)[0] == 8192.0
    assert calibrate.choose_level(levels, errors)[0] == 2048.0  # no default: the lowest of them
    clear = np.array([base + 0.2, base, base + 0.3, base * 0.8])  # far more than 2 % better
    assert calibrate.choose_level(levels, clear, default=1024.0)[0] == 8192.0


def test_the_result_cache_follows_the_parameters_a_model_reads():
    from model import validate

    row = next(r for r in ROWS if r.table == "atlas_disk" and r.id == "x330_rh72")  # channel-bound
    base = params.calibrated()
    first = predict_row(row, base).predicted
    # a parameter the storage model does not read leaves the cached simulation in place ...
    other = next(n for n in params.DECLARED if n.startswith(("mds_", "tdi_")))
    assert predict_row(row, dict(base, **{other: params.DECLARED[other].high})).predicted == first
    # ... one it reads is never answered from the cache
    assert predict_row(row, dict(base, bus_efficiency=0.6)).predicted < first
    validate.clear_caches()
    assert predict_row(row, base).predicted == pytest.approx(first)


def test_fits_that_differ_only_in_their_last_digits_write_the_same_file(tmp_path, monkeypatch):
    """Another machine's BLAS or order of sums moves a fit in its 14th digit: the stored file must
    not change with it (the download server's ties, and so its figures, follow the stored
    values)."""
    monkeypatch.setattr(paths, "CALIBRATED", tmp_path)
    declared = params.DECLARED
    written = []
    for nudge in (0.0, 3e-14):
        values = {n: p.default * (1 + nudge) + 1e-3 for n, p in declared.items()}
        fit = calibrate.Fit(
            values,
            {n: (p.low, p.high) for n, p in declared.items()},
            {n: 3 for n in declared},
            36,
            15.887114945269735 * (1 + nudge),
        )
        monkeypatch.setattr(paths, "CALIBRATED_PARAMETERS", tmp_path / f"p{len(written)}.json")
        calibrate.write(fit)
        written.append(paths.CALIBRATED_PARAMETERS.read_text())
    assert written[0] == written[1]
    stored = json.loads(written[0])
    assert stored["fit"]["rms_error_pct"] == pytest.approx(15.887114945269735, rel=1e-9)


def test_a_row_the_robust_loss_writes_off_adds_a_bounded_share_to_the_parameters_spread():
    # a straight line through 30 rows with 1 % noise and one row far off: the Cauchy fit's
    # covariance weighs that row by 1 / (1 + (r / F_SCALE)^2), so however far off it is it adds
    # at most F_SCALE^2 to the weighted squares, where the plain s^2 (J^T J)^-1 grows with its
    # square (and scipy's Jacobian under the loss has already dropped the row from J^T J)
    from scipy import optimize

    t = np.linspace(0.0, 1.0, 30)
    line = 1.0 + 0.5 * t + 0.01 * np.random.default_rng(1).standard_normal(30)

    def spreads(miss):
        measured_ = line.copy()
        measured_[5] *= 1.0 + miss

        def relative_errors(x):
            return (x[0] + x[1] * t) / measured_ - 1.0

        fit = optimize.least_squares(
            relative_errors, [1.0, 0.5], loss=calibrate.LOSS, f_scale=calibrate.F_SCALE
        )
        cov, dof = calibrate.robust_covariance(relative_errors, fit.x, fit.fun, [10.0, 10.0])
        plain = optimize.least_squares(relative_errors, fit.x, max_nfev=1)  # J^T J unweighted
        plain_cov = np.sum(fit.fun**2) / 28 * np.linalg.inv(plain.jac.T @ plain.jac)
        return np.sqrt(np.diag(cov)), dof, np.sqrt(np.diag(plain_cov))

    near, near_dof, near_plain = spreads(-0.5)
    far, far_dof, far_plain = spreads(-0.95)
    assert near_dof == pytest.approx(29 - 2, abs=0.5) and far_dof == pytest.approx(29 - 2, abs=0.5)
    assert far == pytest.approx(near, rel=0.25)  # bounded: the row's weight falls as it moves off
    assert np.all(far_plain > 3 * near_plain)  # the plain estimate grows with the miss
    assert np.all(far_plain > 5 * far)


def test_parameters_no_row_ties_together_are_fitted_apart():
    # residuals 0-2 are rows 10, 11, 12; residual 3 is row 10's floor under its path's capacity
    row_ids = [10, 11, 12, 10]
    moved_by = {
        "a": np.array([True, False, False, False]),
        "b": np.array([False, True, False, True]),  # ties to a through row 10's floor
        "c": np.array([False, False, True, False]),
    }
    groups = {
        tuple(names): tuple(moved)
        for names, moved in calibrate._groups(["a", "b", "c"], moved_by, row_ids)
    }
    assert groups == {
        ("a", "b"): (True, True, False, True),
        ("c",): (False, False, True, False),
    }


def test_where_one_group_starts_leaves_every_other_group_where_it_was():
    rows = [r for r in ROWS if r.table in ("atlas_disk", "mdsplus_read")]
    fits = [
        calibrate.fit(rows, start={"mds_serve_cycles_per_byte": serve}, levels=False)
        for serve in (150.0, 600.0)
    ]
    storage = {p.name for p in storage_parameters.PARAMETERS}
    assert {n: fits[0].values[n] for n in storage} == {n: fits[1].values[n] for n in storage}
    assert fits[0].values["disk_format_efficiency"] != params.defaults()["disk_format_efficiency"]


def test_a_refit_keeps_the_groups_its_left_out_rows_do_not_move():
    rows = [r for r in ROWS if r.table in ("atlas_disk", "mdsplus_read")]
    full = calibrate.fit(rows, levels=False)
    out = next(r for r in rows if r.id == "baseline_6client_dist")
    refit = calibrate.fit(
        [r for r in rows if r is not out], start=full.values, levels=False, left_out=[out]
    )
    storage = {p.name for p in storage_parameters.PARAMETERS}
    assert {n: refit.values[n] for n in storage} == {n: full.values[n] for n in storage}
    assert refit.values["mds_serve_cycles_per_byte"] != full.values["mds_serve_cycles_per_byte"]


def test_a_parameter_fitted_to_zero_is_still_seen_to_move_its_rows():
    values = dict(params.defaults(), server_background_load=0.0)

    def residuals(v):
        return np.array([v["server_background_load"], 1.0])

    moved = calibrate._moved(residuals, values, "server_background_load", residuals(values))
    assert moved.tolist() == [True, False]


def test_a_table_s_rows_that_only_choose_a_level_are_said_to():
    """The docs audit: calibrate opened 'Calibrated on 37 measured results' and its tables' lines
    below added up to 73 (eah_download 36): the rows only the read-ahead level is chosen on are
    said beside their table's count."""
    from model import report

    rows = measured.load_all()["eah_download"]
    values = params.calibrated()
    used = [r for r in rows if calibrate.used(r, values)]
    (line,) = report.fit_lines(used, values)
    only = sum(not calibrate.fitted(r) for r in used)
    assert only > 0
    assert f"{len(used)} rows ({only} used only to choose a stepped parameter's level)" in line
