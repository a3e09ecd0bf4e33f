"""Measured beside predicted: every row of ``data/measured/`` against the lab's prediction.

A ``result`` row is predicted by simulating its scenario with its overrides and reading the metric;
a row given relative to another configuration (``relative_to``) is predicted as the same percentage
difference between two simulations, and its error is the error of the ratio. A row the report gives
as a bound ("exceeding 1 Gbit/s", "less than 60 s") scores zero error when the prediction lies on
the bound's side, and its distance from the bound otherwise. Rows no model covers yet carry
``error_pct: None`` with the reason, and are counted.

Simulations are cached on the free parameters each configuration's model actually reads, so that
fitting one model's parameter does not re-simulate every other model's rows.
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass

from . import scenario as scenario_module
from . import uncertainty
from .errors import NotModelled
from .measured import CANONICAL, ROUNDING, Row, report_of
from .params import Recording
from .simulate import simulate


@functools.cache
def _scenario(name: str, overrides: tuple[str, ...]):
    return scenario_module.load(name, overrides, where_overrides=f"data/measured row of {name}")


def scenario_of(row: Row):
    """The scenario, with its overrides, that a measured row was taken on."""
    return _scenario(row.scenario, row.overrides)


_used: dict[tuple, tuple[str, ...]] = {}  # configuration -> the parameters its model reads
_results: dict[tuple, object] = {}  # (configuration, their values) -> Result


def clear_caches() -> None:
    _scenario.cache_clear()
    _used.clear()
    _results.clear()


def _result(name: str, overrides: tuple[str, ...], params: dict[str, float]):
    config = (name, overrides)
    if config in _used:
        key = (config, tuple(params[k] for k in _used[config]))
        if key in _results:
            return _results[key]
    recording = Recording(params)
    result = simulate(_scenario(name, overrides), recording)
    _used[config] = tuple(sorted(recording.read))
    _results[(config, tuple(params[k] for k in _used[config]))] = result
    return result


def reads(row: Row, params: dict[str, float]) -> frozenset[str]:
    """The free parameters the simulations behind ``row`` read (its configuration's and the one
    it is measured relative to), predicting it at ``params`` first where it has not been."""
    predict_row(row, params)
    configs = [(row.scenario, row.overrides)]
    if row.relative_to:
        configs.append((row.scenario, row.relative_to))
    return frozenset(name for c in configs for name in _used.get(c, ()))


def headroom(row: Row, params: dict[str, float]) -> float:
    """The headroom at ``params`` of the system a row measured, as ``predict``'s interval takes it
    (``uncertainty.headroom``): 1 for a row relative to another, whose ratio carries none."""
    if row.relative_to is not None:
        return 1.0
    return uncertainty.headroom(_result(row.scenario, row.overrides, params), row.metric)


def _metric(
    name: str, overrides: tuple[str, ...], metric: str, params: dict[str, float]
) -> float | None:
    return _result(name, overrides, params).metric(metric)


@dataclass
class Prediction:
    row: Row
    predicted: float | None  # in the row's unit
    error_pct: float | None
    reason: str = ""
    table_out: Prediction | None = None  # the leave-one-table-out prediction, where asked for
    report_out: Prediction | None = None  # the leave-one-report-out prediction, where asked for
    # a held-out prediction's free parameters that the calibration on every row moved and no row
    # of its own fit informs: read at their declared defaults (``model.holdout``)
    uninformed: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        r = self.row
        held_out = {}
        if self.table_out is not None:
            held_out = {
                "table_out_predicted": self.table_out.predicted,
                "table_out_error_pct": self.table_out.error_pct,
                "uninformed": list(self.uninformed),
                "table_out_uninformed": list(self.table_out.uninformed),
            }
        if self.report_out is not None:
            held_out |= {
                "report_out_predicted": self.report_out.predicted,
                "report_out_error_pct": self.report_out.error_pct,
                "report_out_uninformed": list(self.report_out.uninformed),
            }
        return held_out | {
            "table": r.table,
            "id": r.id,
            "role": r.role,
            "scenario": r.scenario,
            "overrides": ";".join(r.overrides),
            "relative_to": ";".join(r.relative_to or ()),
            "bound": r.bound,
            "metric": r.metric,
            "measured": r.value,
            "predicted": self.predicted,
            "unit": r.unit,
            "error_pct": self.error_pct,
            "reason": self.reason,
            "source": r.source,
        }


def predict_row(row: Row, params: dict[str, float]) -> Prediction:
    """The prediction for one row (None where no model covers it or it is not a result)."""
    if row.role != "result":
        return Prediction(row, None, None, f"{row.role}: an input or restatement, not predicted")
    if row.metric not in CANONICAL:
        return Prediction(row, None, None, f"no model predicts {row.metric} yet")
    try:
        this = _metric(row.scenario, row.overrides, row.metric, params)
        other = (
            _metric(row.scenario, row.relative_to, row.metric, params) if row.relative_to else 1.0
        )
        if this is None or other is None:
            return Prediction(
                row,
                None,
                None,
                f"not modelled: the {row.scenario} model does not predict {row.metric} yet",
            )
        if row.relative_to is not None:
            predicted = 100.0 * (this / other - 1.0)
            error = 100.0 * ((1.0 + predicted / 100.0) / (1.0 + row.value / 100.0) - 1.0)
            return Prediction(row, predicted, error)
    except NotModelled as exc:
        return Prediction(row, None, None, f"not modelled: {exc}")
    predicted = row.from_canonical(this)
    return Prediction(row, predicted, bounded_error_pct(predicted, row.value, row.bound))


def bound_excess(row: Row, params: dict[str, float], allowance: float = ROUNDING) -> float | None:
    """How far a measured rate or time lies beyond what its scenario's path can carry, as the log
    of the ratio past ``allowance`` (the reports' rounding; 0 inside it); None for rows that are
    not absolute rates or times, or that no model covers. A measurement is a lower bound on the
    path's capacity: a reading it exceeds is falsified (``tests/test_readings.py``), and the fit
    keeps the shared costs below what the measurements allow (``model.calibrate``)."""
    if row.role != "result" or row.relative_to is not None:
        return None
    if row.metric not in ("throughput_MBps", "elapsed_s"):
        return None
    try:
        result = _result(row.scenario, row.overrides, params)
    except NotModelled:
        return None
    limit = result.limit(row.metric)
    if result.metric(row.metric) is None or limit is None:
        return None
    value = row.to_canonical(row.value)
    if row.metric == "throughput_MBps":
        over = value / (limit * (1 + allowance))
    else:
        over = limit * (1 - allowance) / value
    return math.log(over) if over > 1.0 else 0.0


def bounded_error_pct(predicted: float, measured: float, bound: str) -> float:
    """Signed percent error; for a figure the report gives as a bound, zero on the bound's right
    side."""
    error = 100.0 * (predicted - measured) / measured
    if (bound == "lower" and error >= 0) or (bound == "upper" and error <= 0):
        return 0.0
    return error


def predict_rows(rows: list[Row], params: dict[str, float]) -> list[Prediction]:
    return [predict_row(r, params) for r in rows]


def summarise(predictions: list[Prediction]) -> dict[str, dict]:
    """Per table: how many rows, results, covered results, and the median and largest |error|."""
    tables: dict[str, dict] = {}
    for p in predictions:
        t = tables.setdefault(
            p.row.table,
            {
                "rows": 0,
                "results": 0,
                "covered": 0,
                "settings": 0,
                "derived": 0,
                "errors": [],
                "sources": set(),
            },
        )
        t["rows"] += 1
        t["sources"].add(report_of(p.row.source))
        role_key = {"result": "results", "setting": "settings", "derived": "derived"}[p.row.role]
        t[role_key] += 1
        if p.error_pct is not None:
            t["covered"] += 1
            t["errors"].append(abs(p.error_pct))
    for t in tables.values():
        errors = t.pop("errors")
        t["uncovered"] = t["results"] - t["covered"]
        t["median_abs_error_pct"] = statistics.median(errors) if errors else None
        t["max_abs_error_pct"] = max(errors) if errors else None
        t["sources"] = sorted(t["sources"])
    return tables
