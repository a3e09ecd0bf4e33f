"""Fit the declared free parameters to the measured results with scipy's ``least_squares``.

Residuals are relative errors (predicted / measured - 1) of every covered ``result`` row. A plain
least-squares fit gives the start of a fit with a Cauchy loss, so that one row the models do not
yet explain cannot drag every parameter. A
parameter that no fitted row depends on keeps its default and its declared bounds as interval.
The 95% interval of each fitted parameter comes from the Jacobian at the optimum
(covariance s^2 (J^T J)^-1, Student t quantile); the covariance itself is stored too, so that
predictions vary the parameters jointly (``model.uncertainty``): two parameters the same rows
inform trade off against each other, and varying each alone would overstate what they move.

A measurement is also a floor under its path's capacity: every fitted rate or time that lies
beyond what its scenario's path can carry at the trial values (``validate.bound_excess``, past the
reports' rounding; the fit aims at half that allowance, so that its soft penalty settles inside
the whole) adds a residual ``BOUND_WEIGHT`` times that excess, so that rows a model does not
yet explain cannot pull a shared cost (the copies a written byte costs) above what another host's
measurement allows.

Rows of the external table (``measured.is_external``: published measurements of current hardware)
never enter the fit, whatever they are handed with.

Rows of request-level simulations (``not_fitted``) stay out of the fit: they are too slow for a
fit's hundreds of evaluations, and are predicted with what the other tables fit (their own
parameters keep their declared defaults).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from . import params as params_module
from . import paths, registry
from .measured import ROUNDING, Row, is_external
from .spec import Scenario
from .validate import bound_excess, predict_row, scenario_of

LOSS, F_SCALE = "cauchy", 0.10
BOUND_WEIGHT = 100.0  # a measurement past its path's capacity outweighs any row's relative error
FLOOR_ALLOWANCE = ROUNDING / 2  # the reports' rounding the fit allows a measurement past its path
COVARIANCE_DIGITS = 6  # of an ill-conditioned inverse: fewer digits than a value keeps
_STEP = 1e-4


@dataclass
class Fit:
    values: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    rows_per_parameter: dict[str, int]
    rows: int
    rms_error_pct: float
    # the fitted parameters' covariance (natural units), in the order of ``covariance_of``
    covariance_of: tuple[str, ...] = ()
    covariance: tuple[tuple[float, ...], ...] = ()

    def to_json(self) -> dict:
        declared = params_module.DECLARED
        return {
            "parameters": {
                name: {
                    "value": v,
                    "ci95_low": self.intervals[name][0],
                    "ci95_high": self.intervals[name][1],
                    "unit": declared[name].unit,
                    "rows_depending_on_it": self.rows_per_parameter[name],
                    "meaning": declared[name].meaning,
                }
                for name, v in self.values.items()
            },
            "covariance": {
                "parameters": list(self.covariance_of),
                "matrix": [[_digits(c, COVARIANCE_DIGITS) for c in r] for r in self.covariance],
            },
            "fit": {
                "rows": self.rows,
                "rms_error_pct": self.rms_error_pct,
                "loss": LOSS,
                "f_scale": F_SCALE,
                "made_by": "python -m model calibrate",
            },
        }


def not_fitted(scenario: Scenario) -> str | None:
    """Why the fit leaves a scenario's rows out (its model's reason), or None when it uses them."""
    return registry.get(scenario.model, scenario.path).not_fitted(scenario.body)


def fitted(row: Row) -> bool:
    """Whether the fit uses ``row`` (see ``not_fitted``). The external table's published
    measurements never enter it: they test predictions made from datasheets alone."""
    return not is_external(row) and not_fitted(scenario_of(row)) is None


def _covered(rows: list[Row], values: dict[str, float]) -> list[Row]:
    return [r for r in rows if fitted(r) and predict_row(r, values).error_pct is not None]


def fit(rows: list[Row], start: dict[str, float] | None = None) -> Fit:
    """Fit every parameter the covered result rows of ``rows`` depend on, from ``start`` (the
    declared defaults unless given: a refit without a few rows starts from the fit on all)."""
    declared = params_module.DECLARED
    defaults = params_module.defaults()
    start = dict(defaults, **(start or {}))
    fitted_rows = _covered(rows, defaults)
    bounded_rows = [r for r in fitted_rows if bound_excess(r, defaults) is not None]

    def residuals(values: dict[str, float]) -> np.ndarray:
        errors = [predict_row(r, values).error_pct / 100.0 for r in fitted_rows]
        floors = [BOUND_WEIGHT * bound_excess(r, values, FLOOR_ALLOWANCE) for r in bounded_rows]
        return np.array(errors + floors)

    base = residuals(defaults) if fitted_rows else np.zeros(0)
    depends: dict[str, int] = {}
    for name, p in declared.items():
        probe = dict(defaults, **{name: p.default * (1 + 10 * _STEP)})
        moved = np.abs(residuals(probe) - base)[: len(fitted_rows)] > 1e-9
        depends[name] = int(moved.sum())
    free = [n for n in declared if depends[n] > 0]
    values = dict(defaults)
    intervals = {n: (declared[n].low, declared[n].high) for n in declared}
    if not free:
        return Fit(values, intervals, depends, len(fitted_rows), _rms(base[: len(fitted_rows)]))

    def vector_residuals(x: np.ndarray) -> np.ndarray:
        return residuals(dict(defaults, **dict(zip(free, x, strict=True))))

    bounds = ([declared[n].low for n in free], [declared[n].high for n in free])
    # plain least squares first, so that the robust loss starts near the optimum and cannot
    # write off a row as an outlier merely because the defaults were far from it
    start_x = optimize.least_squares(
        vector_residuals, [start[n] for n in free], bounds=bounds, diff_step=_STEP, x_scale="jac"
    ).x
    solution = optimize.least_squares(
        vector_residuals,
        start_x,
        bounds=bounds,
        loss=LOSS,
        f_scale=F_SCALE,
        diff_step=_STEP,
        x_scale="jac",
    )
    values.update(zip(free, map(float, solution.x), strict=True))
    dof = len(fitted_rows) - len(free)
    covariance: tuple[tuple[float, ...], ...] = ()
    if dof > 0:
        s2 = float(np.sum(solution.fun**2)) / dof
        cov = s2 * np.linalg.pinv(solution.jac.T @ solution.jac)
        covariance = tuple(tuple(map(float, r)) for r in cov)
        half = stats.t.ppf(0.975, dof) * np.sqrt(np.clip(np.diag(cov), 0.0, None))
        for n, x, h in zip(free, solution.x, half, strict=True):
            intervals[n] = (max(declared[n].low, float(x - h)), min(declared[n].high, float(x + h)))
    return Fit(
        values,
        intervals,
        depends,
        len(fitted_rows),
        _rms(solution.fun[: len(fitted_rows)]),
        tuple(free) if covariance else (),
        covariance,
    )


def _rms(residuals: np.ndarray) -> float:
    return float(100.0 * np.sqrt(np.mean(residuals**2))) if len(residuals) else 0.0


SIGNIFICANT_DIGITS = 10


def _digits(value: float, digits: int) -> float:
    return float(f"{value:.{digits}g}")


def rounded(value):
    """``value`` with every float to ``SIGNIFICANT_DIGITS``: the same fit on another machine
    (another BLAS, another order of sums) differs in the last few of a float's 17 digits, and the
    file should not."""
    if isinstance(value, float):
        return _digits(value, SIGNIFICANT_DIGITS)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v) for v in value]
    return value


def write(result: Fit) -> None:
    paths.CALIBRATED.mkdir(parents=True, exist_ok=True)
    paths.CALIBRATED_PARAMETERS.write_text(
        json.dumps(rounded(result.to_json()), indent=2, sort_keys=True) + "\n"
    )
