"""Calibration: few parameters, recovered from synthetic data, stored with their intervals."""

import dataclasses
import json

import pytest

from model import calibrate, measured, params, paths
from model.storage import parameters as storage_parameters
from model.validate import predict_row

ROWS = [r for rs in measured.load_all().values() for r in rs]


def test_no_more_than_one_free_parameter_per_three_fitted_rows():
    fit = json.loads(paths.CALIBRATED_PARAMETERS.read_text())
    assert len(fit["parameters"]) * 3 <= fit["fit"]["rows"]
    assert set(fit["parameters"]) == set(params.DECLARED)


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
    # every storage parameter but the CPU per request, which no table's requests are small enough
    # to reach (it keeps its default; see tests/test_random_io.py)
    assert set(truth) == {p.name for p in storage_parameters.PARAMETERS} - {"io_cycles_per_request"}
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


def test_uncovered_and_unfitted_rows_do_not_enter_the_fit():
    # the download server and the memory-mapped test are request-level: calibrate.not_fitted
    unfitted = [r for r in ROWS if r.table in ("eah_download", "psu_mmap")]
    uncovered = [
        r for r in ROWS if r.table == "atlas_disk" and r.id in ("x330_rh73", "brownie_max")
    ]
    assert not any(calibrate.fitted(r) for r in unfitted) and all(
        calibrate.fitted(r) for r in uncovered
    )
    fit = calibrate.fit(unfitted + uncovered)
    assert fit.rows == 0
    assert fit.values == params.defaults()


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
