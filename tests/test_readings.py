"""Every visible measurement fits inside the path its scenario models.

A scenario reads the hardware a report describes (which bus a card sits in, how many lanes a wire
carries); the model's bottleneck law then bounds what that path can move (``Result.bound_MBps``).
A measured throughput above the bound, or a measured time below the bytes over the bound,
falsifies the reading, not the measurement: the fix is a reading taken from the hardware's
documentation, never a parameter tuned to the row.

Every covered ``result`` row of ``data/measured/`` whose metric is a throughput or an elapsed time
is checked at the calibrated parameters, in MB/s and seconds (the row's unit converted by its own
canonical helpers). Rows given relative to another configuration (percentages) are not rates and
are skipped. The tolerance, ``ROUNDING``, is for the reports' rounding only: they print most
figures to two significant figures ("45", "170", "3.3", "nearly 800"), and half a unit in the
second figure is at most 5 % of the value. The fit honours the same floors
(``validate.bound_excess`` in ``model.calibrate``), so a shared cost cannot be pulled past what one
host's measurement allows by rows its model does not yet explain.
"""

from __future__ import annotations

import dataclasses

import pytest

from model import measured, params, validate
from model.errors import NotModelled
from model.simulate import simulate

ROUNDING = measured.ROUNDING


def _rate_rows() -> list[measured.Row]:
    return [
        r
        for rows in measured.load_all().values()
        for r in rows
        if r.role == "result"
        and r.metric in ("throughput_MBps", "elapsed_s")
        and r.relative_to is None
    ]


ROWS = _rate_rows()


@pytest.fixture(scope="module")
def calibrated():
    return params.calibrated()


def _case(row: measured.Row):
    return pytest.param(row, id=f"{row.table}/{row.id}")


def test_the_audit_covers_rows_of_every_report():
    sources = {r.source.split()[0] for r in ROWS}
    assert len(sources) == 5 and len(ROWS) > 80


@pytest.mark.parametrize("row", [_case(r) for r in ROWS])
def test_no_measurement_exceeds_its_paths_capacity(row, calibrated):
    try:
        result = simulate(validate.scenario_of(row), calibrated)
    except NotModelled:
        pytest.skip("no model covers this configuration yet")
    if result.metric(row.metric) is None:
        pytest.skip(f"the model does not predict {row.metric}")
    value = row.to_canonical(row.value)
    where = f"{row.table}/{row.id} ({row.scenario} {';'.join(row.overrides)})"
    if row.metric == "throughput_MBps":
        assert value <= result.bound_MBps * (1 + ROUNDING), (
            f"{where}: measured {value:.1f} MB/s above the path's {result.bound_MBps:.1f} MB/s"
        )
    else:
        fastest_s = result.bytes_moved / (result.bound_MBps * 1e6)
        assert value >= fastest_s * (1 - ROUNDING), (
            f"{where}: measured {value:.1f} s below the path's fastest {fastest_s:.1f} s"
        )


def test_the_bound_check_fails_on_a_falsified_reading(calibrated):
    """The test can fail: the old reading of the microscope store's wires (one 6 Gb/s lane each)
    puts the other box's ~800 MB/s above its path."""
    (row,) = [r for r in ROWS if r.table == "em_ingest" and r.id == "other_box"]
    lanes = tuple(f"buses.sas{i}.part=sas_6g_lane" for i in range(4))
    scenario = validate._scenario(row.scenario, row.overrides + lanes)
    assert row.to_canonical(row.value) > simulate(scenario, calibrated).bound_MBps * (1 + ROUNDING)
    # the fit sees the same excess, as a log ratio past the rounding allowance
    falsified = dataclasses.replace(row, overrides=row.overrides + lanes)
    assert validate.bound_excess(falsified, calibrated) > 0.1
    assert validate.bound_excess(row, calibrated) == 0.0


def test_hosts_on_the_same_front_side_bus_copy_at_the_same_rate():
    """A bus-bound host's copy rate follows its bus (data/hardware/hosts.yaml): each copied byte
    crosses the front side bus twice, at 0.8125 of its peak, so hosts with the same CPU and bus
    share one figure, whatever the table that uses them."""
    from model import catalog

    on_a_bus = [h for h in catalog.load().parts["hosts"].values() if h.fsb_MHz is not None]
    assert len(on_a_bus) >= 8
    for host in on_a_bus:
        rule_MBps = 0.8125 * host.fsb_MHz * 8 / 2
        assert host.copy_rate_MBps == pytest.approx(rule_MBps, rel=0.01), host.name
