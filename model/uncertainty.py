"""The 90 % interval of a prediction: what the reports and datasheets leave unsaid, propagated.

Four sources of spread enter it:

(a) the scenario's declared unknowns (``model.unknowns``): options enumerated, a range at its ends,
    its documented default and ``RANGE_INTERIOR`` points of the one-dimensional Sobol sequence;
    jointly when the combinations are few (``MAX_JOINT``), else one at a time and then at the two
    corners (``corners``) that set every unknown where it alone moved the outcome furthest down,
    and every one where furthest up: the vertex method (Dong and Shah 1987, "Vertex method for
    computing functions of fuzzy variables", Fuzzy Sets and Systems 24(1), 65-78), exact where
    the outcome is monotone in each unknown, so that unknowns which each move it a little the same
    way are not taken as never acting together. Every allowed value is possible, so the interval
    spans the envelope of these outcomes;
(b) the calibrated free parameters the model reads, jointly normal with the fit's covariance
    (``params.covariance``): the outcome is simulated at the 5 % and 95 % points of each principal
    axis of their covariance (eigenvectors, so that the axes are independent); where a declared
    bound cuts an axis short, the outcome is simulated on the axis as far as the bound allows and
    its deviation scaled to the full step (clipping each parameter alone would leave the axis, off
    the ridge the measurements pin down), and a side that cannot move at all mirrors the other;
    the deviations add in quadrature (first-order propagation, 2 runs an axis). Two
    parameters the same rows inform trade off along one axis, so varying each alone would
    overstate what they move. A read parameter the fit did not estimate varies alone, its standard
    deviation its 95 % interval's half-width (on its side) / 1.96: its declared bounds where no
    fit estimated it, as for the parameters a held-out row's own fit cannot inform (``unfitted``).
    In ``drivers``, an axis of one parameter is that parameter's; the axes parameters share give
    their variance to them by how far each alone moves the outcome over its own 5 to 95 % step
    (one more run each, ``alone_step``), not by their loadings, which follow the units the
    parameters are declared in (the MDSplus server's share of a core beside its cycles a byte) and
    can credit a parameter the outcome does not depend on;
(d) simulation noise: the scenario run on ``SEEDS`` other seeds where a first one changes the
    result (none where the run drew no random stream, ``model.sim.rng``); its root-mean-square
    deviation taken as a normal standard deviation;
(c) the model's own error: ``data/calibrated/model_error.json`` (written by validation from the
    leave-one-out residuals of the tables a model predicts) holds per model the 90 % quantile q of
    how far (log) each held-out measurement lies outside its spread (``model.coverage``; a model
    with too few rows takes the largest of the others', or its own worst miss where that is
    larger); [low, high] widens to [low e^-q, high e^q]. That q comes from each row predicted
    without its configuration, the error of a change to hardware a table measured; a scenario
    whose hardware none of the reports' tables measured (``beyond_tables``: not one of their
    scenarios, or one given parts of the user's or a part swapped by an override) takes instead
    the q of each table predicted without that table (``new_hardware``), the error of predicting
    a report the fit never saw. Without the file the interval leaves it out and says so.

The path's capacity caps the widened interval: a rate cannot exceed the bottleneck law's bound
(``Result.bound_MBps``, the largest over the design points, so the parameters' and the unknowns'
reach on it is kept), nor a time fall below the bytes over that bound. A printed measurement is
judged against a capped end as far past the capacity as the reports' rounding lets a printed
figure go (``Interval.judged_ends``). Every visible measurement
lies inside its path's capacity (``tests/test_readings.py``), so the model's error, measured
mostly on predictions that run too fast or too slow below the bound, never widens past it.

A range's design always holds its ends and its default, so a wider range never gives a narrower
envelope where the outcome moves one way across the range (as rates, limits and depths do here);
its interior points catch a bump between the ends but do not nest from one range to a wider one.

Spreads combine in log space (on the metric itself where it is not positive): the envelope of the
unknowns, widened by the parameters' and the noise's 5 % and 95 % deviations. The point prediction
is the documented-default configuration at the calibrated values and always lies inside. ``drivers``
gives each unknown's, each parameter's and the noise's share of the spread: the variance of the
outcome when that factor alone varies, over the sum of them.

A ratio of two configurations of one scenario (a row measured relative to another) is sampled at the
same design points for both (:func:`ratio_interval`), so that what moves both cancels.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import params as params_module
from . import paths
from . import scenario as scenario_module
from .errors import NotModelled, UserError
from .measured import ROUNDING
from .result import OFFERED_LOAD, Result
from .sim import rng
from .spec import Scenario
from .unknowns import Unknown

Z = 1.6448536269514722  # the standard normal's 95 % point: a two-sided 90 % interval
Z95 = 1.959963984540054  # the calibrated intervals are 95 % intervals
RANGE_INTERIOR = 3  # Sobol points inside a range (1/2, 1/4, 3/4 of it), besides ends and default
MAX_JOINT = 12  # unknown configurations enumerated jointly; beyond, one unknown at a time
SEEDS = 2  # further seeds where the model is stochastic
MODEL_ERROR = paths.CALIBRATED / "model_error.json"
NOISE = "simulation noise"
_CACHE_LIMIT = 50_000


@dataclass(frozen=True)
class Interval:
    """A metric's 90 % interval: ``point`` (the documented defaults, calibrated values),
    ``low``/``high``, each factor's share of the spread (``drivers``), the model error it carries
    (``model_error``: its log widening and where it comes from; None when no file gives it)
    and how many simulations it took."""

    metric: str
    point: float
    low: float
    high: float
    drivers: dict[str, float] = field(default_factory=dict)
    model_error: dict | None = None
    simulations: int = 0
    # the path's capacity on the metric: the highest rate or shortest time its bound allows over the
    # design points (None for other metrics)
    path_limit: float | None = None
    # the ends a printed measurement is judged against: (low, high) but for a capped end, which
    # reaches past the capacity by the reports' rounding (``capped`` with ``past``)
    judged_ends: tuple[float, float] | None = None

    @property
    def leading(self) -> str | None:
        """The factor that moves the prediction most, if any moves it."""
        return max(self.drivers, key=self.drivers.get) if self.drivers else None

    def to_dict(self) -> dict:
        return {
            "metric": self.metric,
            "point": self.point,
            "interval_90": [self.low, self.high],
            "drivers": dict(self.drivers),
            "model_error": self.model_error,
            "simulations": self.simulations,
            "path_limit": self.path_limit,
        }


def parameter_label(name: str) -> str:
    """How a calibrated parameter is named among the drivers."""
    return f"parameter {name}"


# --- the design ---------------------------------------------------------------------------------


def levels(unknown: Unknown) -> tuple[Any, ...]:
    """The values of ``unknown`` the design visits, its default first: every option; a range's
    default, ends and interior Sobol points (integers rounded for an integer key)."""
    if unknown.options is not None:
        return (unknown.default,) + tuple(o for o in unknown.options if o != unknown.default)
    low, high = unknown.range
    values = [unknown.default, low, high] + [low + (high - low) * s for s in _sobol(RANGE_INTERIOR)]
    if isinstance(unknown.default, int):
        values = [round(v) for v in values]
    unique: list[Any] = []
    for v in values:
        if v not in unique:
            unique.append(v)
    return tuple(unique)


def _sobol(n: int) -> tuple[float, ...]:
    """The first ``n`` interior points of the one-dimensional Sobol sequence (van der Corput's in
    base 2: 1/2, 1/4, 3/4, 1/8, ...), written out rather than imported: scipy.stats takes seconds
    to import, more than a prediction may wait."""
    points = []
    for k in range(1, n + 1):
        x, denominator = 0.0, 1.0
        while k:
            denominator *= 2.0
            x += (k & 1) / denominator
            k >>= 1
        points.append(x)
    return tuple(points)


def design(unknowns: tuple[Unknown, ...]) -> list[dict[str, Any]]:
    """The configurations to simulate, the all-defaults one ({}) first: every combination when they
    are few, else each unknown varied alone."""
    per = [levels(u) for u in unknowns]
    if math.prod(len(v) for v in per) <= MAX_JOINT:
        combos = itertools.product(*per)
        configs = [
            {u.key: v for u, v in zip(unknowns, combo, strict=True) if v != u.default}
            for combo in combos
        ]
    else:
        configs = [{}] + [{u.key: v} for u, vs in zip(unknowns, per, strict=True) for v in vs[1:]]
    return configs


def corners(
    unknowns: tuple[Unknown, ...], configs: list[dict], outcomes: list[float]
) -> list[dict[str, Any]]:
    """Where the unknowns were varied one at a time, the two configurations that set each at the
    value that moved the outcome furthest down, and each furthest up (the vertex method: a
    function monotone in each factor takes its extremes over the box at those corners); none
    where fewer than two unknowns move it that way."""
    if any(len(c) > 1 for c in configs):
        return []  # every combination was simulated
    out = []
    for pick in (min, max):
        corner = {}
        for u in unknowns:
            alone = [(v, c) for c, v in zip(configs, outcomes, strict=True) if _alone(c, u.key)]
            _, config = pick(alone, key=lambda vc: vc[0])
            if config:
                corner[u.key] = config[u.key]
        if len(corner) > 1:
            out.append(corner)
    return out


def _alone(config: dict[str, Any], key: str) -> bool:
    """Whether ``config`` varies ``key`` alone (or nothing)."""
    return set(config) <= {key}


MIN_STEP = 0.05  # the least share of a step along an axis worth simulating; less: mirror
SHARED = 1e-6  # the least loading by which a parameter takes part in a direction of variation


@dataclass(frozen=True)
class ParameterStep:
    """One direction the parameters vary in: the values simulated toward its 5 % and 95 % points,
    the share of the full step each reaches inside the declared bounds (0: mirror the other side)
    and each parameter's loading on the direction (a unit vector's components; 1 for one alone)."""

    down: dict[str, float]
    up: dict[str, float]
    loadings: dict[str, float]
    reach: tuple[float, float] = (1.0, 1.0)

    @property
    def moving(self) -> set[str]:
        """The parameters that take part in the direction (a loading above ``SHARED``)."""
        return {n for n, v in self.loadings.items() if abs(v) > SHARED}


def parameter_steps(
    names: list[str], base: dict[str, float], unfitted: frozenset[str] = frozenset()
) -> dict[str, ParameterStep]:
    """The read parameters' directions of variation: the principal axes of the fitted covariance
    of those the fit estimated, and each other one alone; every point inside the declared bounds.
    ``unfitted`` names parameters to take as no fit estimated them (a fit without the rows that
    inform them): each varies alone over its declared bounds."""
    fitted, matrix = params_module.covariance()
    joint = [n for n in names if n in fitted and n not in unfitted]
    steps = {}
    if joint:
        at = [fitted.index(n) for n in joint]
        cov = np.asarray(matrix)[np.ix_(at, at)]
        variances, axes = np.linalg.eigh((cov + cov.T) / 2)
        for k in range(len(joint)):
            sd = math.sqrt(max(float(variances[k]), 0.0))
            if sd == 0.0:
                continue
            loadings = dict(zip(joint, map(float, axes[:, k]), strict=True))
            step = {n: Z * sd * v for n, v in loadings.items()}
            reach = (_reach(base, step, -1.0), _reach(base, step, 1.0))
            if max(reach) < MIN_STEP:
                continue  # the bounds hold the axis still both ways
            reach = tuple(r if r >= MIN_STEP else 0.0 for r in reach)
            down, up = (
                {n: base[n] + sign * r * d for n, d in step.items()}
                for sign, r in ((-1.0, reach[0]), (1.0, reach[1]))
            )
            steps[f"axis {k + 1} of " + ", ".join(joint)] = ParameterStep(
                down=down, up=up, loadings=loadings, reach=reach
            )
    spans = params_module.intervals()
    for name in names:
        if name in joint:
            continue
        declared = params_module.DECLARED[name]
        low95, high95 = (declared.low, declared.high) if name in unfitted else spans[name]
        value = base[name]
        steps[name] = ParameterStep(
            down=_bounded({name: value - Z * max(value - low95, 0.0) / Z95}),
            up=_bounded({name: value + Z * max(high95 - value, 0.0) / Z95}),
            loadings={name: 1.0},
        )
    return steps


def coupled(steps: dict[str, ParameterStep]) -> list[str]:
    """The parameters that share a direction with another (a loading above ``SHARED``): how far
    each alone moves the outcome splits that direction's spread between them."""
    names = set()
    for step in steps.values():
        if len(step.moving) > 1:
            names.update(step.moving)
    return sorted(names)


def alone_step(
    name: str, base: dict[str, float], sd: float
) -> tuple[dict[str, float], float] | None:
    """``base`` with the fitted parameter ``name`` alone moved up by Z times its fitted standard
    deviation ``sd`` (down where its bound leaves no room), and the share of that step taken
    (negative down); None where it cannot move."""
    full = Z * sd
    declared = params_module.DECLARED[name]
    value = base[name]
    for moved in (min(value + full, declared.high), max(value - full, declared.low)):
        if abs(moved - value) > MIN_STEP * full:
            return dict(base, **{name: moved}), (moved - value) / full
    return None


def _reach(base: dict[str, float], step: dict[str, float], sign: float) -> float:
    """How much of ``sign * step`` from ``base`` stays inside every declared bound (0 to 1)."""
    declared = params_module.DECLARED
    reach = 1.0
    for n, d in step.items():
        move = sign * d
        room = declared[n].high - base[n] if move > 0 else base[n] - declared[n].low
        if move != 0.0:
            reach = min(reach, max(room, 0.0) / abs(move))
    return reach


def _bounded(values: dict[str, float]) -> dict[str, float]:
    declared = params_module.DECLARED
    return {n: min(max(v, declared[n].low), declared[n].high) for n, v in values.items()}


# --- simulation, cached -------------------------------------------------------------------------

_runs: dict[tuple, tuple[Any, tuple[str, ...]]] = {}
_seedless: set[tuple] = set()  # scenarios (_identity) whose run drew no random stream: no noise


def _identity(scenario: Scenario) -> tuple:
    """What a scenario's result depends on besides its seed and parameters: its body, the parts of
    the user's it may name, and the scenarios it names, each the same way (a parts file or a named
    scenario edited between two runs in one session is a new scenario)."""
    users_parts = scenario.catalog.users_parts if scenario.catalog is not None else ()
    named = tuple((key, _identity(ref)) for key, ref in sorted(scenario.refs.items()))
    return (scenario.model, repr(scenario.body), users_parts, named)


def clear_cache() -> None:
    _runs.clear()
    _seedless.clear()


def simulated(
    scenario: Scenario, config: dict, values: dict[str, float], seed: int
) -> tuple[Result, tuple[str, ...]]:
    """The result of ``scenario`` with ``config`` set, at parameter ``values`` and ``seed``, and the
    parameters the model read; cached on what determines it (a run cached under another name, the
    same body, is given this scenario's name)."""
    from .simulate import simulate

    key = (_identity(scenario), seed, repr(sorted(config.items())))
    first = _runs.get(key + (None,))
    if first is not None:
        hit = _runs.get(key + (tuple(values[n] for n in first[1]),))
        if hit is not None:
            if hit[0].scenario != scenario.name:
                return dataclasses.replace(hit[0], scenario=scenario.name), hit[1]
            return hit
    if len(_runs) > _CACHE_LIMIT:
        _runs.clear()
    changed = dataclasses.replace(scenario_module.with_values(scenario, config), seed=seed)
    recording = params_module.Recording(values)
    streams = rng.made
    out = (simulate(changed, recording), tuple(sorted(recording.read)))
    if rng.made == streams and not config:  # the scenario itself, at its own seed or another
        _seedless.add(key[0])
    _runs.setdefault(key + (None,), out)
    _runs[key + (tuple(values[n] for n in out[1]),)] = out
    return out


def _run(
    scenario: Scenario, config: dict, values: dict[str, float], seed: int, metric: str
) -> tuple[float | None, tuple[str, ...]]:
    result, read = simulated(scenario, config, values, seed)
    return result.metric(metric), read


# --- the interval -------------------------------------------------------------------------------


@dataclass
class _Samples:
    """The outcome (a metric, or a ratio of two) at every design point."""

    unknowns: tuple[Unknown, ...]
    configs: list[dict]
    at_config: list[float]  # per config, calibrated values, the scenario's seed
    at_parameter: dict[str, tuple[float, float]]  # direction -> at its 5 % and 95 % points
    steps: dict[str, ParameterStep]  # direction -> its loadings and the share of it simulated
    alone: dict[str, tuple[float, float]]  # coupled parameter -> at its own step, and the step
    at_seed: list[float]  # further seeds, defaults
    simulations: int


def _sample(
    outcome: Callable[[dict, dict, int], float | None],
    unknowns,
    base,
    read,
    seed,
    seedless,
    unfitted: frozenset[str] = frozenset(),
):
    """The outcome at every design point; ``seedless``: the model drew no random number, so the
    simulation has no noise to measure; ``unfitted``: as ``parameter_steps``."""
    configs = design(unknowns)
    at_config = []
    kept = []
    for config in configs:
        try:
            value = outcome(config, base, seed)
        except NotModelled:
            if not config:
                raise
            continue  # a documented value no model covers yet: the others still bound it
        except UserError as exc:
            if not config:
                raise
            u = next(u for u in unknowns if u.key in config)  # the declaration that asked for it
            raise UserError(
                u.declared_in, f"unknowns.{u.key}", f"the model refuses {config}: {exc.message}"
            ) from None
        if value is None:
            return None
        at_config.append(value)
        kept.append(config)
    for config in corners(unknowns, kept, at_config):
        try:
            value = outcome(config, base, seed)
        except (NotModelled, UserError):
            continue  # a combination the model refuses: the values alone still bound it
        if value is not None:
            at_config.append(value)
            kept.append(config)
    steps = parameter_steps(sorted(read), base, unfitted)
    at_parameter = {
        key: (outcome({}, dict(base, **step.down), seed), outcome({}, dict(base, **step.up), seed))
        for key, step in steps.items()
    }
    alone = {}
    fitted, matrix = params_module.covariance()
    for name in coupled(steps):
        i = fitted.index(name)
        moved = alone_step(name, base, math.sqrt(max(float(matrix[i][i]), 0.0)))
        if moved is not None:
            value = outcome({}, moved[0], seed)
            if value is not None:
                alone[name] = (value, moved[1])
    if seedless:
        at_seed = []
    else:
        at_seed = [outcome({}, base, seed + 1)]
        if at_seed[0] != at_config[0]:
            at_seed += [outcome({}, base, seed + k) for k in range(2, SEEDS + 1)]
    runs = len(kept) + 2 * len(at_parameter) + len(alone) + len(at_seed)
    return _Samples(unknowns, kept, at_config, at_parameter, steps, alone, at_seed, runs)


def _transform(samples: _Samples) -> Callable[[float], float]:
    values = samples.at_config + samples.at_seed
    values += [v for pair in samples.at_parameter.values() for v in pair]
    values += [v for v, _ in samples.alone.values()]
    return math.log if all(v is not None and v > 0 for v in values) else float


def _loosest(metric: str, limits: list[float | None]) -> float | None:
    """The path's capacity over every design point: the highest rate, the shortest time."""
    if not limits or any(x is None for x in limits):
        return None
    return max(limits) if metric == "throughput_MBps" else min(limits)


def allowed(limit: float, metric: str) -> float:
    """The furthest a *printed measurement* may lie past the path's capacity ``limit`` on a rate or
    a time: the reports' rounding (``measured.ROUNDING``), which a printed figure may add. A
    prediction never goes past ``limit`` itself (``capped``)."""
    return limit * (1 + ROUNDING) if metric == "throughput_MBps" else limit * (1 - ROUNDING)


def capped(
    low: float, high: float, point: float, metric: str, limit: float | None, past: bool = False
):
    """``low``/``high`` inside the path's capacity ``limit`` on ``metric`` (never past the point):
    a rate's high end at most the capacity, a time's low end at least it; with ``past``, as far
    past it as a printed measurement may round (``allowed``): the ends a measurement is judged
    against."""
    if limit is None:
        return low, high
    edge = allowed(limit, metric) if past else limit
    if metric == "throughput_MBps":
        return low, max(point, min(high, edge))
    if metric == "elapsed_s":
        return max(low, min(point, edge)), high
    return low, high


def _summarise(
    samples: _Samples,
    metric: str,
    model_name: str,
    model_error: bool,
    limits: list[float | None] | None = None,
    new_hardware: bool = False,
    spare: float = 1.0,
) -> Interval:
    """The interval from ``samples``; the model's own error widens it both ways, except that a
    system that keeps up with what it is offered with ``spare`` capacity (``headroom``) keeps
    carrying it as long as its capacity is not overstated by more than that error."""
    t = _transform(samples)
    point = samples.at_config[0]
    t0 = t(point)
    envelope = [t(v) - t0 for v in samples.at_config]
    variances: dict[str, float] = {}
    for u in samples.unknowns:
        alone = [
            envelope[i] for i, c in enumerate(samples.configs) if _alone(c, u.key)
        ]  # the default's outcome is among them
        variances[u.key] = statistics.pvariance(alone) if len(alone) > 1 else 0.0
    down_sq = up_sq = 0.0
    shared: list[tuple[set[str], float]] = []  # coupled parameters, their directions' variance
    for key, (at_down, at_up) in samples.at_parameter.items():
        step = samples.steps[key]
        deviations = _full_step(t(at_down) - t0, t(at_up) - t0, step.reach)
        down_sq += min(0.0, *deviations) ** 2
        up_sq += max(0.0, *deviations) ** 2
        moved = ((deviations[1] - deviations[0]) / (2 * Z)) ** 2
        moving = step.moving
        if len(moving) > 1 and moving <= samples.alone.keys():
            overlapping = [group for group in shared if group[0] & moving]
            shared = [group for group in shared if not group[0] & moving]
            names = moving.union(*(names for names, _ in overlapping))
            shared.append((names, moved + sum(variance for _, variance in overlapping)))
            continue
        for name, loading in step.loadings.items():
            label = parameter_label(name)
            variances[label] = variances.get(label, 0.0) + loading**2 * moved
    for names, variance in shared:
        alone = {n: samples.alone[n] for n in names}
        for name, share in _shares(alone, t, t0).items():
            label = parameter_label(name)
            variances[label] = variances.get(label, 0.0) + share * variance
    noise_sd = (
        math.sqrt(statistics.fmean((t(v) - t0) ** 2 for v in samples.at_seed))
        if samples.at_seed
        else 0.0
    )
    variances[NOISE] = noise_sd**2
    spread_down = math.sqrt(down_sq + (Z * noise_sd) ** 2)
    spread_up = math.sqrt(up_sq + (Z * noise_sd) ** 2)
    low_t, high_t = min(envelope) - spread_down, max(envelope) + spread_up
    back = math.exp if t is math.log else float
    low, high = back(t0 + low_t), back(t0 + high_t)
    error = model_error_of(model_name, new_hardware) if model_error else None
    if error is not None:
        q = error["log_widen_90"]
        if spare > 1.0:  # the error is the capacity's: below the offered load only past spare
            low = min(low, point * spare * math.exp(-q)) if low > 0 else low
        else:
            low = low * math.exp(-q) if low > 0 else low
        high = high * math.exp(q) if high > 0 else high
    limit = _loosest(metric, limits or [])
    judged_ends = capped(low, high, point, metric, limit, past=True)
    low, high = capped(low, high, point, metric, limit)
    total = sum(variances.values())
    drivers = (
        {k: v / total for k, v in sorted(variances.items(), key=lambda kv: -kv[1]) if v > 0}
        if total > 0
        else {}
    )
    return Interval(
        metric=metric,
        point=point,
        low=min(low, point),
        high=max(high, point),
        drivers=drivers,
        model_error=error,
        simulations=samples.simulations,
        path_limit=limit,
        judged_ends=(min(judged_ends[0], point), max(judged_ends[1], point)),
    )


def _shares(alone: dict[str, tuple[float, float]], t: Callable[[float], float], t0: float):
    """How the spread of the directions coupled parameters share splits between them: by how far
    each alone moves the outcome over its own 5 to 95 % step (``alone_step``), squared, so that a
    parameter the outcome does not depend on takes none and the shares do not depend on the units
    a parameter is declared in (as a direction's loadings do); equal where none moves it."""
    moved = {n: ((t(value) - t0) / taken) ** 2 for n, (value, taken) in alone.items()}
    total = sum(moved.values())
    if total == 0:
        return {n: 1.0 / len(moved) for n in moved}
    return {n: m / total for n, m in moved.items()}


def _full_step(down: float, up: float, reach: tuple[float, float]) -> tuple[float, float]:
    """The deviations at a step's full 5 % and 95 % points from those simulated part of the way
    (first order); a side not simulated mirrors the other."""
    scaled = [d / r if r > 0 else None for d, r in zip((down, up), reach, strict=True)]
    if scaled[0] is None:
        scaled[0] = -scaled[1]
    if scaled[1] is None:
        scaled[1] = -scaled[0]
    return scaled[0], scaled[1]


def model_error_of(model_name: str, new_hardware: bool = False) -> dict | None:
    """What validation measured of a model's own error (its 90 % log widening and the
    configurations its residuals come from), for hardware the tables measured or for
    ``new_hardware``; None where no file gives it."""
    entry = _model_errors("new_hardware" if new_hardware else "models").get(model_name)
    if entry is None:
        return None
    covers = entry.get("covers", "")
    if new_hardware and not covers.startswith(NEW_HARDWARE):  # a borrowed widening says so too
        covers = f"{NEW_HARDWARE}; {covers}" if covers else NEW_HARDWARE
    return {"log_widen_90": float(entry["log_widen_90"]), "covers": covers}


NEW_HARDWARE = "hardware no table measured"


def _model_errors(section: str) -> dict:
    if not MODEL_ERROR.exists():
        return {}
    return json.loads(MODEL_ERROR.read_text()).get(section, {})


# the keys naming hardware in any model's scenario: a part of the catalog, or another scenario
# whose hardware it uses (a part or a storage swapped by an override)
PART_KEYS = frozenset(
    {"part", "host", "disk", "controller", "nic", "link"}
    | {"server_nic", "client_nic", "server_host", "client_host", "sender_host", "receiver_host"}
    | {"storage", "sender_storage", "receiver_storage"}
)


@functools.cache
def _tables_files() -> frozenset[Path]:
    """The scenario files the reports' tables measured (data/measured; the external rows test the
    lab and never tune it, so theirs are not among them)."""
    from . import measured

    return frozenset(
        (paths.SCENARIOS / f"{r.scenario}.yaml").resolve()
        for rows in measured.load_all().values()
        for r in rows
    )


def beyond_tables(scenario: Scenario) -> bool:
    """Whether no report's table measured ``scenario``'s hardware: it is not one of their scenario
    files (whatever its name), or it holds parts of the user's, or an override swapped one of its
    parts or the scenario whose hardware it uses."""
    file = (Path(scenario.folder) / Path(scenario.path).name).resolve()
    if not scenario.folder or file not in _tables_files():
        return True
    if scenario.catalog is not None and scenario.catalog.users_parts:
        return True
    return any(o.partition("=")[0].rsplit(".", 1)[-1] in PART_KEYS for o in scenario.overrides)


def _drew_none(scenario: Scenario) -> bool:
    """Whether the scenario's point run drew no random stream (its seed changes nothing)."""
    return _identity(scenario) in _seedless


def _base_and_read(scenario: Scenario, base: dict[str, float] | None, metric: str):
    base = dict(params_module.calibrated() if base is None else base)
    value, read = _run(scenario, {}, base, scenario.seed, metric)
    return base, read, value


def interval(
    scenario: Scenario,
    metric: str = "throughput_MBps",
    *,
    params: dict[str, float] | None = None,
    model_error: bool = True,
    unfitted: frozenset[str] = frozenset(),
) -> Interval | None:
    """The 90 % interval of ``metric`` for ``scenario`` (None where its model does not predict
    the metric); ``params`` are the free parameters' central values (the calibrated ones when
    omitted), ``model_error`` whether to widen by the model's own measured error, ``unfitted`` the
    parameters to vary over their declared bounds as if no fit had estimated them."""
    base, read, value = _base_and_read(scenario, params, metric)
    if value is None:
        return None
    limits: list[float | None] = []  # the path's capacity on the metric at each design point

    def outcome(config, values, seed):
        result, _ = simulated(scenario, config, values, seed)
        limits.append(result.limit(metric))
        return result.metric(metric)

    samples = _sample(
        outcome, scenario.unknowns, base, read, scenario.seed, _drew_none(scenario), unfitted
    )
    if samples is None:
        return None
    point_result, _ = simulated(scenario, {}, base, scenario.seed)  # cached: the first sample's
    return _summarise(
        samples,
        metric,
        scenario.model,
        model_error,
        limits,
        beyond_tables(scenario),
        headroom(point_result) if metric == "throughput_MBps" else 1.0,
    )


def headroom(result: Result) -> float:
    """How far a system that keeps up with what it is offered (its bottleneck the ``offered
    load``) could carry more: its capacity over what it carries, the inverse of its busiest
    resource's share; 1 for a system its capacity binds."""
    if result.bottleneck != OFFERED_LOAD:
        return 1.0
    busiest = max(result.resources.values(), default=0.0)
    return 1.0 / busiest if busiest > 0 else math.inf


def _union(a: tuple[Unknown, ...], b: tuple[Unknown, ...]) -> tuple[Unknown, ...]:
    keys = {u.key for u in a}
    return a + tuple(u for u in b if u.key not in keys)


def _open(config: dict, scenario: Scenario) -> dict:
    """The part of a design point that is open in ``scenario``."""
    keys = {u.key for u in scenario.unknowns}
    return {k: v for k, v in config.items() if k in keys}


def ratio_interval(
    scenario: Scenario,
    reference: Scenario,
    metric: str = "throughput_MBps",
    *,
    params: dict[str, float] | None = None,
    model_error: bool = True,
    unfitted: frozenset[str] = frozenset(),
) -> Interval | None:
    """The 90 % interval of ``metric(scenario) / metric(reference)``, both sampled at the same
    design points (unknowns, parameter points, seeds), so that what moves both cancels;
    ``unfitted`` as ``interval``'s."""
    base, read_a, a = _base_and_read(scenario, params, metric)
    _, read_b, b = _base_and_read(reference, base, metric)
    if a is None or b is None or b == 0:
        return None

    def outcome(config, values, seed):
        this = _run(scenario, _open(config, scenario), values, seed, metric)[0]
        other = _run(reference, _open(config, reference), values, seed, metric)[0]
        return None if this is None or not other else this / other

    unknowns = _union(scenario.unknowns, reference.unknowns)
    seedless = _drew_none(scenario) and _drew_none(reference)
    read = set(read_a) | set(read_b)
    samples = _sample(outcome, unknowns, base, read, scenario.seed, seedless, unfitted)
    if samples is None:
        return None
    samples.simulations *= 2
    return _summarise(
        samples, metric, scenario.model, model_error, new_hardware=beyond_tables(scenario)
    )


def for_row(
    row,
    params: dict[str, float] | None = None,
    *,
    model_error: bool = True,
    unfitted: frozenset[str] = frozenset(),
):
    """The 90 % interval of a measured row's prediction, in the row's unit; for a row measured
    relative to another configuration (``relative_to``), of the ratio this / that. None where no
    model predicts it; ``unfitted`` as ``interval``'s. Simulations are shared between rows
    (cached), so validation pays each configuration's design once."""
    from .measured import CANONICAL

    if row.role != "result" or row.metric not in CANONICAL:
        return None
    load = functools.partial(scenario_module.load, where_overrides=f"data/measured row of {row.id}")
    try:
        this = load(row.scenario, row.overrides)
        if row.relative_to is not None:
            return ratio_interval(
                this, load(row.scenario, row.relative_to), row.metric, params=params,
                model_error=model_error, unfitted=unfitted,
            )  # fmt: skip
        found = interval(
            this, row.metric, params=params, model_error=model_error, unfitted=unfitted
        )
    except NotModelled:
        return None
    if found is None:
        return None
    convert = row.from_canonical
    limit = None if found.path_limit is None else convert(found.path_limit)
    return dataclasses.replace(
        found,
        point=convert(found.point),
        low=convert(found.low),
        high=convert(found.high),
        path_limit=limit,
        judged_ends=tuple(convert(end) for end in found.judged_ends),
    )
