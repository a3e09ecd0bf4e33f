"""Fit the declared free parameters to the measured results with scipy's ``least_squares``.

Residuals are relative errors (predicted / measured - 1) of every covered ``result`` row. A plain
least-squares fit gives the start of a fit with a Cauchy loss, so that one row the models do not
yet explain cannot drag every parameter. A
parameter that no fitted row depends on keeps its default and its declared bounds as interval.
Parameters no row ties together (the storage costs, the MDSplus server's, a drive's format
efficiency) are fitted apart (``_groups``): the cost is a sum over the groups, so each group's own
fit reaches the joint optimum, where one fit of all of them stopped when the total cost stopped
moving, leaving a small group short of its optimum and a held-out refit near the fit that had
seen the row. A refit keeps, as they are, the groups its left-out rows do not move.
The 95% interval of each fitted parameter comes from the Jacobian at the optimum, weighted as the
robust loss weighs each row there (``robust_covariance``: s_w^2 (J^T W J)^-1, Student t quantile);
the covariance itself is stored too, so that
predictions vary the parameters jointly (``model.design_points``): two parameters the same rows
inform trade off against each other, and varying each alone would overstate what they move.

A measurement is also a floor under its path's capacity: every fitted rate or time that lies
beyond what its scenario's path can carry at the trial values (``validate.bound_excess``, past the
reports' rounding; the fit aims at half that allowance, so that its soft penalty settles inside
the whole) adds a residual ``BOUND_WEIGHT`` times that excess, so that rows a model does not
yet explain cannot pull a shared cost (the copies a written byte costs) above what another host's
measurement allows.

Rows of the external table (``measured.is_external``: published measurements of current hardware)
never enter the fit, whatever they are handed with.

Rows of request-level simulations (``not_fitted``) stay out of the least-squares fit: they are too
slow for its hundreds of evaluations, and are predicted with what the other tables fit.

A parameter the models read in whole steps (``FreeParameter.levels``: a read-ahead window) has no
derivative to follow, so least squares would leave it where it starts and report no row depending
on it. It is chosen by profile instead (``profile``), after the smooth parameters: every row of
the tables (request-level ones included: a handful of runs each) whose prediction moves with it is
predicted at each of its levels, the others held at their fit, and the level of least robust cost
(the fit's Cauchy loss) is kept, the lowest among equals. Its 95 % interval is every level whose
sum of squared relative errors lies within the chi-square(1) 95 % point of the best, in units of
the best's residual variance (a profile-likelihood interval, Venzon and Moolgavkar 1988).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from . import params as params_module
from . import paths, progress, registry
from .measured import ROUNDING, Row, is_external
from .spec import Scenario
from .validate import bound_excess, predict_row, reads, scenario_of

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


def fit(
    rows: list[Row],
    start: dict[str, float] | None = None,
    levels: bool = True,
    left_out: list[Row] | None = None,
    shown: str | None = None,
) -> Fit:
    """Fit every parameter the covered result rows of ``rows`` depend on, from ``start`` (the
    declared defaults unless given: a refit without a few rows starts from the fit on all), and
    choose each stepped parameter's level by ``profile`` (unless ``levels`` is False: then it keeps
    its value in ``start``). A refit names the rows it leaves out of the fit ``start`` came from
    (``left_out``): a group of parameters none of them moves keeps its values in ``start``, the
    optimum of the same rows. With ``shown``, the fit's steps (its groups of parameters, then the
    levels it tries) are counted on standard error under that name (``model.progress``)."""
    smooth = _smooth_fit(rows, start, left_out or [], shown)
    return profile(rows, smooth, shown) if levels else smooth


def _smooth_fit(
    rows: list[Row], start: dict[str, float] | None, left_out: list[Row], shown: str | None = None
) -> Fit:
    """Least squares over the parameters without levels (those with levels stay at ``start``),
    one ``_fit_group`` for each group of parameters that rows tie together (counted under
    ``shown``, if given)."""
    declared = params_module.DECLARED
    defaults = dict(
        params_module.defaults(), **{n: v for n, v in (start or {}).items() if declared[n].levels}
    )
    start = dict(defaults, **(start or {}))
    residuals = _Residuals.of(rows, defaults)
    fitted_rows = residuals.fitted_rows
    base = residuals(defaults)
    at_defaults = _moved_at(residuals, defaults, base)
    depends = {name: int(moved[: len(fitted_rows)].sum()) for name, moved in at_defaults.items()}
    free = [n for n in declared if depends[n] > 0 and not declared[n].levels]
    values = dict(defaults)
    intervals = {n: (declared[n].low, declared[n].high) for n in declared}
    if not free:
        return Fit(values, intervals, depends, len(fitted_rows), _rms(base[: len(fitted_rows)]))
    moved_by = _moved_by(residuals, defaults, start, at_defaults)
    moved_left = _moved_by(_Residuals.of(left_out, defaults), defaults, start) if left_out else {}
    groups = _groups(free, moved_by, residuals.row_ids)
    for names, moved in progress.steps(groups, shown and f"{shown} (least squares)", "group"):
        if left_out and not any(moved_left[n].any() for n in names):
            values.update({n: start[n] for n in names})  # the fit ``start`` came from: same rows
        else:
            values.update(_fit_group(residuals.subset(moved), names, values, start))

    def vector_residuals(x: np.ndarray) -> np.ndarray:
        return residuals(dict(values, **dict(zip(free, x, strict=True))))

    x = np.array([values[n] for n in free])
    fun = vector_residuals(x)
    covariance: tuple[tuple[float, ...], ...] = ()
    robust = robust_covariance(
        vector_residuals, x, fun[: len(fitted_rows)], [declared[n].high for n in free]
    )
    if robust is not None:
        cov, dof = robust
        covariance = tuple(tuple(map(float, r)) for r in cov)
        half = stats.t.ppf(0.975, dof) * np.sqrt(np.clip(np.diag(cov), 0.0, None))
        for n, xn, h in zip(free, x, half, strict=True):
            low, high = max(declared[n].low, float(xn - h)), min(declared[n].high, float(xn + h))
            intervals[n] = (low, high)
    return Fit(
        values,
        intervals,
        depends,
        len(fitted_rows),
        _rms(fun[: len(fitted_rows)]),
        tuple(free) if covariance else (),
        covariance,
    )


def _moved_by(
    residuals: _Residuals,
    defaults: dict[str, float],
    start: dict[str, float],
    at_defaults: dict[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """The residuals each declared parameter moves at the defaults (``at_defaults`` where already
    probed) or where the fit starts (a refit starts from the fit on every row, where a bottleneck
    may have moved; a fit from the defaults probes them once)."""
    if at_defaults is None:
        at_defaults = _moved_at(residuals, defaults, residuals(defaults))
    if start == defaults:
        return at_defaults
    at_start = _moved_at(residuals, start, residuals(start))
    return {name: at_defaults[name] | at_start[name] for name in at_defaults}


def _moved_at(
    residuals: _Residuals, values: dict[str, float], base: np.ndarray
) -> dict[str, np.ndarray]:
    """Which residuals each declared parameter moves from ``values`` (where they are ``base``)."""
    return {name: _moved(residuals, values, name, base) for name in params_module.DECLARED}


def _moved(residuals: _Residuals, values: dict[str, float], name: str, base: np.ndarray):
    """Which residuals move when ``name`` steps up from ``values`` (where they are ``base``): by
    a relative step, or from zero (a fit at a lower bound of 0) by the same share of its range."""
    p, value = params_module.DECLARED[name], values[name]
    probe = dict(values, **{name: value + 10 * _STEP * (abs(value) or p.high - p.low)})
    return np.abs(residuals(probe) - base) > 1e-9


class _Residuals:
    """The fit's residuals: each fitted row's relative error, then ``BOUND_WEIGHT`` times each
    bounded row's excess over its path's capacity (``row_ids`` names the row behind each)."""

    def __init__(self, fitted_rows: list[Row], bounded_rows: list[Row]) -> None:
        self.fitted_rows, self.bounded_rows = fitted_rows, bounded_rows
        self.row_ids = [id(r) for r in fitted_rows + bounded_rows]

    @classmethod
    def of(cls, rows: list[Row], defaults: dict[str, float]) -> _Residuals:
        """The residuals of the rows of ``rows`` the models cover at ``defaults``, with the floors
        of those that have a path capacity there."""
        fitted_rows = _covered(rows, defaults)
        return cls(fitted_rows, [r for r in fitted_rows if bound_excess(r, defaults) is not None])

    def __call__(self, values: dict[str, float]) -> np.ndarray:
        errors = [predict_row(r, values).error_pct / 100.0 for r in self.fitted_rows]
        floors = [
            BOUND_WEIGHT * bound_excess(r, values, FLOOR_ALLOWANCE) for r in self.bounded_rows
        ]
        return np.array(errors + floors)

    def subset(self, moved: np.ndarray) -> _Residuals:
        """The residuals at the positions ``moved`` marks."""
        n = len(self.fitted_rows)
        return _Residuals(
            [r for r, m in zip(self.fitted_rows, moved[:n], strict=True) if m],
            [r for r, m in zip(self.bounded_rows, moved[n:], strict=True) if m],
        )


def _groups(
    free: list[str], moved_by: dict[str, np.ndarray], row_ids: list[int]
) -> list[tuple[list[str], np.ndarray]]:
    """The free parameters split into groups no row ties together (two parameters are tied when
    one row's residual moves with both), each with the residuals its parameters move. The sum of
    squares is a sum over the groups, so fitting each on its own rows finds the joint optimum
    while a group's start or rows cannot nudge another's: one table's new prior leaves every
    unrelated parameter where it was, and a refit without a few rows moves only their group."""
    group = {n: n for n in free}

    def root(n: str) -> str:
        while group[n] != n:
            n = group[n]
        return n

    first_on_row: dict[int, str] = {}
    for n in free:
        for i in np.flatnonzero(moved_by[n]):
            other = first_on_row.setdefault(row_ids[i], n)
            group[root(n)] = root(other)
    members: dict[str, list[str]] = {}
    for n in free:
        members.setdefault(root(n), []).append(n)
    out = []
    for names in members.values():
        rows = {row_ids[i] for n in names for i in np.flatnonzero(moved_by[n])}
        out.append((names, np.array([rid in rows for rid in row_ids])))
    return out


def _fit_group(
    residuals: _Residuals, names: list[str], values: dict[str, float], start: dict[str, float]
) -> dict[str, float]:
    """The group ``names`` fitted on its ``residuals``, every other parameter at ``values``."""
    declared = params_module.DECLARED

    def vector_residuals(x: np.ndarray) -> np.ndarray:
        return residuals(dict(values, **dict(zip(names, x, strict=True))))

    bounds = ([declared[n].low for n in names], [declared[n].high for n in names])
    # plain least squares first, so that the robust loss starts near the optimum and cannot
    # write off a row as an outlier merely because the defaults were far from it
    start_x = optimize.least_squares(
        vector_residuals, [start[n] for n in names], bounds=bounds, diff_step=_STEP, x_scale="jac"
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
    return dict(zip(names, map(float, solution.x), strict=True))


def robust_covariance(
    fun, x: np.ndarray, residual: np.ndarray, upper: list[float]
) -> tuple[np.ndarray, float] | None:
    """The covariance of the Cauchy-loss fit at its optimum ``x``, and its degrees of freedom.

    The robust fit is the weighted least squares whose weights its loss gives each row at the
    optimum, w = 1 / (1 + (r / F_SCALE)^2) (the fixed point of iteratively reweighted least
    squares: Holland and Welsch 1977, "Robust regression using iteratively reweighted
    least-squares", Commun. Statist. A6(9)), so its covariance is s_w^2 (J^T W J)^-1 with
    s_w^2 = sum w r^2 / (sum w - p): a row the loss writes off barely informs the parameters and
    adds at most F_SCALE^2 to their spread, however far off it is. J is the plain Jacobian of the
    relative errors (scipy's is scaled for the loss and drops such a row from J^T J while its
    error would still swell a plain s^2). ``residual`` is ``fun(x)``'s measured rows, the first
    ones: the floors under the paths' capacities that follow them are one-sided limits, not
    measurements. None when no degree of freedom is left.
    """
    measured_rows = len(residual)
    jacobian = np.empty((measured_rows, len(x)))
    for j, xj in enumerate(x):
        step = _STEP * max(1.0, abs(xj))
        step = -step if xj + step > upper[j] else step  # at the upper bound, step inward
        moved = x.copy()
        moved[j] = xj + step
        jacobian[:, j] = (fun(moved)[:measured_rows] - residual) / step
    weight = 1.0 / (1.0 + (residual / F_SCALE) ** 2)
    dof = float(weight.sum()) - len(x)
    if dof <= 0:
        return None
    s2 = float(np.sum(weight * residual**2)) / dof
    return s2 * np.linalg.pinv(jacobian.T @ (weight[:, None] * jacobian)), dof


def profile(rows: list[Row], smooth: Fit, shown: str | None = None) -> Fit:
    """``smooth`` with each stepped parameter (``FreeParameter.levels``) chosen by
    ``stepped_levels`` (its levels counted under ``shown``, if given)."""
    values, intervals = dict(smooth.values), dict(smooth.intervals)
    depends = dict(smooth.rows_per_parameter)
    for name, (level, interval, moved) in stepped_levels(rows, smooth.values, shown).items():
        values[name], intervals[name], depends[name] = level, interval, moved
    return dataclasses.replace(
        smooth, values=values, intervals=intervals, rows_per_parameter=depends
    )


LEVEL_ROWS = 2  # rows that must move a stepped parameter for ``stepped_levels`` to choose its level


def uninformed(rows_per_parameter: dict[str, int]) -> frozenset[str]:
    """The parameters of ``rows_per_parameter`` (a fit's count of the rows each moves) that no row
    informs, which the fit leaves at their declared defaults: a smooth one no row moves, a stepped
    one fewer than ``LEVEL_ROWS`` move."""
    declared = params_module.DECLARED
    return frozenset(
        name
        for name, rows in rows_per_parameter.items()
        if rows < (LEVEL_ROWS if declared[name].levels else 1)
    )


def stepped(row: Row, values: dict[str, float]) -> bool:
    """Whether a stepped parameter is chosen on ``row``: a measured row (not an external one) whose
    simulations read one."""
    declared = params_module.DECLARED
    return not is_external(row) and any(declared[n].levels for n in reads(row, values))


def used(row: Row, values: dict[str, float]) -> bool:
    """Whether calibration uses ``row``: in least squares (``fitted``) or to choose a stepped
    parameter's level (``stepped``)."""
    return fitted(row) or stepped(row, values)


def stepped_levels(
    rows: list[Row], values: dict[str, float], shown: str | None = None
) -> dict[str, tuple[float, tuple[float, float], int]]:
    """Each stepped parameter's level, 95 % interval and how many rows of ``rows`` it moves, chosen
    over its levels (``choose_level``) on those rows with the other parameters at ``values``; one
    that fewer than ``LEVEL_ROWS`` rows move keeps its default and its declared bounds. With
    ``shown``, the levels are counted on standard error as they are tried."""
    out = {}
    for name, p in params_module.DECLARED.items():
        if not p.levels:
            continue
        at = dict(values, **{name: p.default})
        # ``stepped`` predicts the row first, so the error below comes from the cache
        candidates = [
            r for r in rows if stepped(r, at) and predict_row(r, at).error_pct is not None
        ]
        errors = np.array(
            [
                [predict_row(r, dict(at, **{name: level})).error_pct / 100.0 for r in candidates]
                for level in progress.steps(p.levels, shown and f"{shown} ({name})", "level")
            ]
        ).reshape(len(p.levels), len(candidates))
        moved = np.ptp(errors, axis=0) > 1e-9
        if moved.sum() < LEVEL_ROWS:
            out[name] = (p.default, (p.low, p.high), int(moved.sum()))
        else:
            out[name] = (*choose_level(p.levels, errors[:, moved], p.default), int(moved.sum()))
    return out


# Robust costs of two levels closer than this share are a tie: a change in another parameter's
# sixth digit moves the Einstein@home table's cost at a read-ahead level by up to 1.1 % (its
# simulated events reorder), which flipped the tuned read-ahead between 2048 and 8192 KiB, whose
# costs lie 0.5 % apart
LEVEL_TIE = 0.02


def choose_level(
    levels: tuple[float, ...], errors: np.ndarray, default: float | None = None
) -> tuple[float, tuple[float, float]]:
    """The level (row of ``errors``: the relative errors of the same rows at each level) of least
    robust cost, of those within ``LEVEL_TIE`` of it the one nearest ``default`` (by ratio), the
    lowest among equals (the lowest of them all without a default); and its 95 % profile interval:
    the lowest and highest level whose sum of squares exceeds the best's by at most chi-square(1)'s
    95 % point times the best's residual variance (its sum of squares over its rows less one)."""
    cost = np.sum(F_SCALE**2 * np.log1p((errors / F_SCALE) ** 2), axis=1)
    tied = np.flatnonzero(cost <= cost.min() * (1.0 + LEVEL_TIE) + 1e-12)
    if default is None:
        best = int(tied[0])
    else:
        best = int(min(tied, key=lambda i: (abs(np.log(levels[i] / default)), i)))
    squares = np.sum(errors**2, axis=1)
    variance = squares[best] / max(errors.shape[1] - 1, 1)
    inside = np.flatnonzero(squares - squares[best] <= stats.chi2.ppf(0.95, 1) * variance)
    return levels[best], (levels[int(inside.min())], levels[int(inside.max())])


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
