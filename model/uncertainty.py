"""The 90 % interval of a prediction: what the reports and datasheets leave unsaid, propagated.

Four sources of spread enter it, the first three sampled at the design points of
``model.design_points``: (a) the scenario's declared unknowns, every allowed value possible, so
the interval spans the envelope of their outcomes: every combination where they are few, else
each unknown alone and then, for each end, a coordinate search from the vertex method's corner
(``design_points.searched``: each unknown in turn at each of its levels, the others where the
search stands, until a pass moves nothing), which finds what unknowns do together at a cost that
grows with their levels, not their product; (b) the calibrated free parameters the model
reads, each direction's deviations at its 5 % and 95 % points (one simulated part of the way,
where a declared bound cut the axis short, scaled to the full step; one that could not move at all
mirroring the other) added in quadrature (first-order propagation), each measured where it widens:
an end of the envelope that is the point's own configuration by the steps measured there, an end
at another configuration by every parameter the model reads there stepped with that configuration
set (by none where it reads none), the low end by their down deviations and the high end by their
up (``design_points.EndSteps``: md_workers_past_measured, read only past 4 workers, widens the
end where md_group_thread_cnt the unknown sets more; of configurations that tie for an end, the
point's own unless another reads a parameter it does not); a parameter read only at an unknown's
value that gives neither end is not varied; (c) simulation noise, the other seeds' root-mean-square
deviation taken as a normal standard deviation; and (d) the model's own error as validation
measured it (``model.model_error``; for hardware no table measured, the error of predicting a
table the fit never saw): [low, high] widens to [low e^-q, high e^q], the low end of a system that
keeps up with its offered load only past its headroom (``widened``, by which ``validate`` widens
its rows' intervals too), or, without its file, the interval leaves it out and says so.

In ``drivers``, an axis of one parameter is that parameter's; the axes parameters share give their
variance to them by how far each alone moves the outcome over its own 5 to 95 % step
(``design_points.alone_step``), not by their loadings, which follow the units the parameters are
declared in (the MDSplus server's share of a core beside its cycles a byte) and can credit a
parameter the outcome does not depend on.

The path's capacity caps the widened interval: a rate cannot exceed the bottleneck law's bound
(``Result.ceiling``: over the path's rated parts, ``Result.ceiling_MBps``, where the model tells
them from the CPU time it spends on work it estimates, a bound such an estimate sets being no
ceiling; else ``Result.bound_MBps``; the largest over the design points, so the parameters' and
the unknowns' reach on it is kept), nor a time fall below the bytes over that bound. A printed
measurement is judged against a capped end as far past the capacity as the reports' rounding lets
a printed figure go (``Interval.judged_ends``). Every visible measurement lies inside its path's
capacity (``tests/test_readings.py``), so the model's error, measured mostly on predictions that
run too fast or too slow below the bound, never widens past it.

Spreads combine in log space (on the metric itself where it is not positive): the envelope of the
unknowns, widened by the parameters' and the noise's 5 % and 95 % deviations. The point prediction
is the documented-default configuration at the calibrated values and always lies inside. ``drivers``
gives each unknown's, each parameter's and the noise's share of the spread: the variance of the
outcome when that factor alone varies, over the sum of them (an unknown's from the configurations
that vary it alone, never the search's, which move several at once; a parameter's where it moves
the outcome most, at the point's own configuration where that is an end or at an end elsewhere, so
that one which widens neither end is none).

A ratio of two configurations of one scenario (a row measured relative to another) is sampled at the
same design points for both (:func:`ratio_interval`), so that what moves both cancels.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import params as params_module
from . import scenario as scenario_module
from .design_points import ParameterStep, Samples, Z, sample, varies_alone
from .errors import NotModelled
from .measured import ROUNDING
from .model_error import beyond_tables, model_error_of
from .result import OFFERED_LOAD, Result
from .sim import rng
from .spec import Scenario
from .unknowns import Unknown, shown

NOISE = "simulation noise"
DOMINANT = 0.9  # the share of the spread past which an unknown's options are each shown
# a driver that moves the outcome by less than this share of it moves it by the arithmetic's
# rounding alone, not by what it stands for: an MTU unknown had been said to hold "100 % of the
# spread: 3,571 MB/s to 3,571 MB/s", its two options 6e-5 MB/s apart (a composite audit)
NEGLIGIBLE = 1e-6
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
    # how far a system that keeps up with its offered load could carry more (``headroom``): the
    # model's error lowers the low end only as far as it exceeds this; 1 where capacity binds
    headroom: float = 1.0
    # the further seeds the simulation's noise was measured on (0: the run drew no random number)
    seeds: int = 0
    # where one unknown of a few options holds most of the spread (``DOMINANT``), the metric at each
    # of its options with the others at their defaults: an envelope of equally allowed options is
    # worst-case, and the user reads which setting gives what (the interval audit)
    by_option: dict[str, float] = field(default_factory=dict)
    # (low, high) before the model's error widened them: the spread ``drivers`` share out, which
    # a "moved most by the simulation noise" beside an interval the error made wide was read as
    # the whole width (None where no error widened it)
    before_error: tuple[float, float] | None = None

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
            "by_option": dict(self.by_option),
            "before_model_error": None if self.before_error is None else list(self.before_error),
        }


def parameter_label(name: str) -> str:
    """How a calibrated parameter is named among the drivers."""
    return f"parameter {name}"


# --- simulation, cached -------------------------------------------------------------------------

_runs: dict[tuple, tuple[Any, tuple[str, ...]]] = {}
_seedless: set[tuple] = set()  # scenarios (_identity) whose run drew no random stream: no noise


def _identity(scenario: Scenario) -> tuple:
    """What a scenario's result depends on besides its seed and parameters: its body, the parts of
    the user's it may name, and the scenarios it names, each the same way and with its seed (a
    parts file or a named scenario edited between two runs in one session is a new scenario)."""
    users_parts = scenario.catalog.users_parts if scenario.catalog is not None else ()
    named = tuple((key, _identity(ref), ref.seed) for key, ref in sorted(scenario.refs.items()))
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


def _transform(samples: Samples) -> Callable[[float], float]:
    values = samples.at_config + samples.at_seed
    values += [v for pair in samples.at_parameter.values() for v in pair]
    values += [v for v, _ in samples.alone.values()]
    for end in samples.ends:
        if end is not None:
            values += [end.outcome] + [v for pair in end.at_parameter.values() for v in pair]
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
    samples: Samples,
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
            envelope[i] for i, c in enumerate(samples.configs) if varies_alone(c, u.key)
        ]  # the default's outcome is among them
        variances[u.key] = statistics.pvariance(alone) if len(alone) > 1 else 0.0
    down_sq, up_sq, stepped = _parameter_spread(
        samples.at_parameter, samples.steps, samples.alone, t, t0
    )
    # the point's own steps widen an end that is the point's own configuration (None), and count
    # among the drivers only where one is; an end at another configuration is widened (the low
    # one down, the high one up) by the parameters' deviations measured there (by none where it
    # reads none), each parameter's variance where it moves the outcome most
    if any(end is None for end in samples.ends):
        variances.update(stepped)
    end_sq = [down_sq, up_sq]
    for side, end in enumerate(samples.ends):
        if end is not None:
            down, up, there = _parameter_spread(end.at_parameter, end.steps, {}, t, t(end.outcome))
            end_sq[side] = up if side else down
            for label, variance in there.items():
                variances[label] = max(variances.get(label, 0.0), variance)
    noise_sd = (
        math.sqrt(statistics.fmean((t(v) - t0) ** 2 for v in samples.at_seed))
        if samples.at_seed
        else 0.0
    )
    variances[NOISE] = noise_sd**2
    spread_down = math.sqrt(end_sq[0] + (Z * noise_sd) ** 2)
    spread_up = math.sqrt(end_sq[1] + (Z * noise_sd) ** 2)
    low_t, high_t = min(envelope) - spread_down, max(envelope) + spread_up
    back = math.exp if t is math.log else float
    low, high = back(t0 + low_t), back(t0 + high_t)
    error = model_error_of(model_name, new_hardware) if model_error else None
    limit = _loosest(metric, limits or [])
    before = None
    if error is not None:
        before = capped(low, high, point, metric, limit)
        low, high = widened(low, high, point, error["log_widen_90"], spare)
    judged_ends = capped(low, high, point, metric, limit, past=True)
    low, high = capped(low, high, point, metric, limit)
    floor = (NEGLIGIBLE * (1.0 if t is math.log else abs(t0))) ** 2
    moving = {k: v for k, v in variances.items() if v > floor}
    total = sum(moving.values())
    drivers = {k: v / total for k, v in sorted(moving.items(), key=lambda kv: -kv[1])}
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
        headroom=spare,
        seeds=len(samples.at_seed),
        by_option=_by_option(samples, drivers),
        before_error=_unless_same(before, (min(low, point), max(high, point)), point),
    )


def _unless_same(
    before: tuple[float, float] | None, ends: tuple[float, float], point: float
) -> tuple[float, float] | None:
    """The interval's ends before the model's error (``before``, the point inside them), or None
    where the error moved neither end (a system that keeps up, its high end at its capacity)."""
    if before is None:
        return None
    before = (min(before[0], point), max(before[1], point))
    return None if before == ends else before


def _parameter_spread(
    at_parameter: dict[str, tuple[float, float]],
    steps: dict[str, ParameterStep],
    alone: dict[str, tuple[float, float]],
    t: Callable[[float], float],
    t0: float,
) -> tuple[float, float, dict[str, float]]:
    """How far the parameter ``steps`` move the outcome from ``t0`` (``t``-transformed), simulated
    at ``at_parameter``: the sums of the squares of their down and of their up deviations at their
    full 5 % and 95 % points, and each parameter's variance: a direction's split by its parameters'
    loadings, or, where each of them was also simulated ``alone``, by how far each alone moves the
    outcome (``_shares``)."""
    down_sq = up_sq = 0.0
    variances: dict[str, float] = {}
    shared: list[tuple[set[str], float]] = []  # coupled parameters, their directions' variance
    for key, (at_down, at_up) in at_parameter.items():
        step = steps[key]
        deviations = _full_step(t(at_down) - t0, t(at_up) - t0, step.reach)
        down_sq += min(0.0, *deviations) ** 2
        up_sq += max(0.0, *deviations) ** 2
        moved = ((deviations[1] - deviations[0]) / (2 * Z)) ** 2
        moving = step.moving
        if len(moving) > 1 and moving <= alone.keys():
            overlapping = [group for group in shared if group[0] & moving]
            shared = [group for group in shared if not group[0] & moving]
            names = moving.union(*(names for names, _ in overlapping))
            shared.append((names, moved + sum(variance for _, variance in overlapping)))
            continue
        for name, loading in step.loadings.items():
            label = parameter_label(name)
            variances[label] = variances.get(label, 0.0) + loading**2 * moved
    for names, variance in shared:
        for name, share in _shares({n: alone[n] for n in names}, t, t0).items():
            label = parameter_label(name)
            variances[label] = variances.get(label, 0.0) + share * variance
    return down_sq, up_sq, variances


def _by_option(samples: Samples, drivers: dict[str, float]) -> dict[str, float]:
    """The outcome at each option of the unknown that holds ``DOMINANT`` of the spread or more,
    the others at their defaults (the runs that vary it alone); none for a range or a lesser one."""
    leading = max(drivers, key=drivers.get) if drivers else None
    unknown = next((u for u in samples.unknowns if u.key == leading), None)
    if unknown is None or unknown.options is None or drivers[leading] < DOMINANT:
        return {}
    outcomes = {}
    for config, value in zip(samples.configs, samples.at_config, strict=False):
        if varies_alone(config, unknown.key):
            option = config.get(unknown.key, unknown.default)
            outcomes[shown(option)] = value
    return outcomes


def widened(low: float, high: float, point: float, q: float, spare: float = 1.0):
    """``low``/``high`` widened by the model's own error ``q`` (log; ``model_error``), as
    ``predict`` and ``validate`` both widen: [low e^-q, high e^q] (an end not positive kept),
    except that a system that keeps up with what it is offered with ``spare`` capacity
    (``headroom``) keeps carrying it as long as its capacity is not overstated by more than that
    error, so its low end falls below ``point`` only by what e^q exceeds ``spare``."""
    if spare > 1.0:  # the error is the capacity's: below the offered load only past spare
        low = min(low, point * spare * math.exp(-q)) if low > 0 else low
    else:
        low = low * math.exp(-q) if low > 0 else low
    return low, high * math.exp(q) if high > 0 else high


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
    progress: str | None = None,
) -> Interval | None:
    """The 90 % interval of ``metric`` for ``scenario`` (None where its model does not predict
    the metric); ``params`` are the free parameters' central values (the calibrated ones when
    omitted), ``model_error`` whether to widen by the model's own measured error, ``unfitted`` the
    parameters to vary over their declared bounds as if no fit had estimated them; ``progress``,
    the name its simulations are counted under on standard error (``model.progress``: a bar on a
    terminal, else a line a tenth at most every 30 s; a what-if of 10,000 streams took 25 to 110 s
    unsaid), None for none."""
    base, read, value = _base_and_read(scenario, params, metric)
    if value is None:
        return None
    limits: list[float | None] = []  # the path's capacity on the metric at each design point

    def outcome(config, values, seed):
        result, _ = simulated(scenario, config, values, seed)
        limits.append(result.ceiling(metric))
        return result.metric(metric)

    seedless = _drew_none(scenario)
    samples = sample(
        outcome,
        scenario.unknowns,
        base,
        read,
        scenario.seed,
        seedless,
        unfitted,
        progress,
        where=scenario.path,
        read_at=lambda config: simulated(scenario, config, base, scenario.seed)[1],  # cached
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
        headroom(point_result, metric),
    )


def headroom(result: Result, metric: str = "throughput_MBps") -> float:
    """How far a system that keeps up with what it is offered (its bottleneck the ``offered
    load``) could carry more: its capacity over what it carries, the inverse of its busiest
    resource's share; 1 for a system its capacity binds, and for a ``metric`` other than its
    rate (the model's error on a time or a CPU figure is not its capacity's)."""
    if result.bottleneck != OFFERED_LOAD or metric != "throughput_MBps":
        return 1.0
    busiest = max(result.resources.values(), default=0.0)
    return 1.0 / busiest if busiest > 0 else math.inf


def _union(a: tuple[Unknown, ...], b: tuple[Unknown, ...]) -> tuple[Unknown, ...]:
    keys = {u.key for u in a}
    return a + tuple(u for u in b if u.key not in keys)


def _open(config: dict, scenario: Scenario) -> dict:
    """The part of a design point (scenario keys to values) that is open in ``scenario``."""
    keys = {key for u in scenario.unknowns for key in u.scenario_keys}
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

    def read_at(config):  # both configurations' reads (cached: the design point's runs)
        return tuple(
            name
            for case in (scenario, reference)
            for name in simulated(case, _open(config, case), base, scenario.seed)[1]
        )

    unknowns = _union(scenario.unknowns, reference.unknowns)
    seedless = _drew_none(scenario) and _drew_none(reference)
    read = set(read_a) | set(read_b)
    samples = sample(
        outcome,
        unknowns,
        base,
        read,
        scenario.seed,
        seedless,
        unfitted,
        where=scenario.path,
        read_at=read_at,
    )
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
        before_error=None
        if found.before_error is None
        else tuple(convert(end) for end in found.before_error),
    )
