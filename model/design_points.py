"""The design points a prediction's 90 % interval is sampled at (``model.uncertainty``), and the
outcome at each (``sample``): configurations of the scenario's declared unknowns, steps of the
calibrated parameters it reads, and further seeds.

(a) the scenario's declared unknowns (``model.unknowns``): options enumerated, a range at its ends,
    its documented default and ``RANGE_INTERIOR`` points of the one-dimensional Sobol sequence (its
    ``levels``); jointly when the combinations are few (``MAX_JOINT``), else one at a time, and then
    each end of the envelope searched for (``searched``): from the corner that sets every unknown
    where it alone moved the outcome furthest down (for the low end; furthest up for the high), the
    vertex method's (Dong and Shah 1987, "Vertex method for computing functions of fuzzy variables",
    Fuzzy Sets and Systems 24(1), 65-78; exact where the outcome is monotone in each unknown), a
    cyclic coordinate search (Wright 2015, "Coordinate descent algorithms", Mathematical Programming
    151(1), 3-34: each step fixes every variable but one at the current iterate and optimises that
    one): each unknown in turn at each of its levels, the others where the search stands, until a
    pass moves nothing (``SEARCH_PASSES`` at most). It finds what two unknowns do only together,
    where each alone points elsewhere (the download server's RAID10: a 32 KiB stripe alone reads
    fastest, a 4 KiB one with reads sent to the nearer copy and noatime: 28.9 MB/s, against the
    vertex corner's 23.8), at a cost that grows with the unknowns' levels, not their product: each
    pass at most one run a level, a configuration run once however often the search meets it (the
    one-at-a-time runs among them), the order fixed and the seeds too, so the same scenario always
    gives the same search. A combination better only when two unknowns move at once from where the
    search ends it misses, so an envelope is not proven never to narrow when an option is added,
    only found so: the download server's four variants reach their full factorials' (960 and 1920
    runs) lowest and highest outcomes but RAID6 tuned's highest, 28.0 against 28.1 MB/s (noatime and
    an 8 KiB stripe; the search ends beside them, with the deepest drive queue and a connection a
    file, where no single move gains), and on RAID10 with the default scheduler no set of its stripe
    sizes beside the access times and mirror reads narrows the envelope of a set it holds (32 sets;
    ``tests/test_uncertainty.py`` holds one pair);
(b) the calibrated free parameters the model reads, jointly normal with the fit's covariance
    (``params.covariance``): the outcome is simulated at the 5 % and 95 % points of each principal
    axis of their covariance (eigenvectors, so that the axes are independent); where a declared
    bound cuts an axis short, the outcome is simulated on the axis as far as the bound allows
    (``ParameterStep.reach``: clipping each parameter alone would leave the axis, off the ridge the
    measurements pin down), and a side that cannot move at all is not simulated (2 runs an axis at
    most). Two parameters the same rows inform trade off along one axis, so varying each alone
    would overstate what they move. A read parameter the fit did not estimate varies alone, its
    standard deviation its 95 % interval's half-width (on its side) / 1.96: its declared bounds
    where no fit estimated it, as for the parameters a held-out row's own fit cannot inform
    (``unfitted``). Each parameter that shares an axis with another (``coupled``) is also
    simulated alone over its own 5 to 95 % step (one more run each, ``alone_step``). At each end of
    the envelope (the configuration whose outcome is the lowest, and the highest) that is not the
    point's own configuration, every parameter read there is stepped the same way with that
    configuration set (``EndSteps``: none at an end that is the point's own, so no run, and an
    end that reads none is not widened; of configurations that tie, the point's own unless another
    reads a parameter it does not);
(d) simulation noise: the scenario run on ``SEEDS`` other seeds (none where the run drew no
    random stream, ``model.sim.rng``), every one of them: a draw of few outcomes (which bond member
    each of eight clients hashes onto) can give the same result at two seeds and another at a
    third.

Every configuration of the design is simulated: one the model refuses (``refused``) or does not
cover yet (``uncovered``, exit status 3) is told at the declaration that asked for it, never left
out, since an envelope without it would not span what the declaration allows. Only the search's
further combinations, each of whose values the design has run alone, are passed over where the
model refuses them.

A range's design always holds its ends and its default, so a wider range never gives a narrower
envelope where the outcome moves one way across the range (as rates, limits and depths do here);
its interior points catch a bump between the ends but do not nest from one range to a wider one.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import params as params_module
from . import progress as progress_module
from .errors import NotModelled, UserError
from .unknowns import Unknown, assigned, shown

Z = 1.6448536269514722  # the standard normal's 95 % point: a two-sided 90 % interval
Z95 = 1.959963984540054  # the calibrated intervals are 95 % intervals
RANGE_INTERIOR = 3  # Sobol points inside a range (1/2, 1/4, 3/4 of it), besides ends and default
MAX_JOINT = 12  # unknown configurations enumerated jointly; beyond, one unknown at a time
# the most passes the search for one end of the envelope makes: one that moves, one that may move
# again, one that finds nothing more (every shipped design's search ends within 2)
SEARCH_PASSES = 3
SEEDS = 2  # further seeds where the model is stochastic
# the most simulations a 90 % interval may run, the search's passes counted in full: past it, a
# scenario of many unknowns and slow runs would simulate for hours. Every shipped scenario,
# variant, template and measured row needs at most 116 (eah_download's r10_opt: 16 configurations
# of its 8 unknowns, 3 parameter steps, 2 further seeds, and for each end its corner and 3 passes
# of at most 15 runs), and runs 71 (5 s); a range unknown adds up to 5 configurations and 30
# passes' runs, an option 1 and 6. Five range unknowns on the memory-mapped test may need 164 and
# run 72 (14 s besides compiling its loop once); its mirror's read policy, where open, 14 more
# (178). The envelope's ends' steps (``EndSteps``), known only once the design has run, come on
# top: at each end that is not the point's own configuration 2 runs a parameter read there (12
# more on r10_opt, 83 in all), checked against the same budget before they run (``_ends``)
MAX_SIMULATIONS = 200


# --- the unknowns' configurations -----------------------------------------------------------------


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


def refused(
    unknowns: tuple[Unknown, ...],
    config: dict[str, Any],
    exc: UserError,
    variant: str | None = None,
) -> UserError:
    """The model's refusal of a design point, told at the declaration that asked for it (and in
    which of the file's ``variant``s, where one is the configuration)."""
    where, key = declaration(unknowns, config)
    in_variant = f" in variant {variant}" if variant else ""
    return UserError(where, key, f"the model refuses {config}{in_variant}: {exc.message}")


def uncovered(unknowns: tuple[Unknown, ...], config: dict[str, Any], exc: NotModelled):
    """A design point no model covers yet, told at the declaration that asked for it: the option
    is the user's word that the fact may be so, and an interval without it would not span it
    (the hostile-input audit: an option the model did not cover then, md_group_thread_cnt 5, was
    dropped and the output said no declared unknown moved the interval)."""
    where, key = declaration(unknowns, config)
    if len(config) == 1:
        which = f"option {shown(next(iter(config.values())))}"
    else:  # a combination of several unknowns' options, the design's when they are few
        which = "options " + ", ".join(f"{k}={shown(v)}" for k, v in config.items()) + " together"
    return NotModelled(
        f"{where}: {key}: {which} (the 90 % interval simulates every option; drop it, or predict "
        f"with --point): {exc}"
    )


def declaration(unknowns: tuple[Unknown, ...], config: dict[str, Any]) -> tuple[str, str]:
    """The file and key that declare the first unknown a design point ``config`` sets."""
    u = next(u for u in unknowns if u.key in config)
    return u.declared_in, f"unknowns.{u.declared_key}"


def one_at_a_time(unknowns: tuple[Unknown, ...], configs: list[dict]) -> bool:
    """Whether the design ``configs`` varies several unknowns one at a time (their combinations
    are more than ``MAX_JOINT``), so that the envelope's ends are searched for (``searched``)."""
    return len(unknowns) > 1 and all(len(c) <= 1 for c in configs)


def corners(
    unknowns: tuple[Unknown, ...], configs: list[dict], outcomes: list[float]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Of the unknowns varied one at a time (``configs``, their ``outcomes``), the configuration
    that sets each at the value that moved the outcome furthest down, and the one that sets each
    furthest up: the vertex method's corners (a function monotone in each factor takes its
    extremes over the box there), where the search for each end starts (``searched``)."""
    out = []
    for pick in (min, max):
        corner = {}
        for u in unknowns:
            alone = [
                (v, c) for c, v in zip(configs, outcomes, strict=True) if varies_alone(c, u.key)
            ]
            _, config = pick(alone, key=lambda vc: vc[0])
            if config:
                corner[u.key] = config[u.key]
        out.append(corner)
    return out[0], out[1]


def searched(
    unknowns: tuple[Unknown, ...],
    start: dict[str, Any],
    value_of: Callable[[dict[str, Any]], float | None],
    further: Callable[[float, float], bool],
) -> dict[str, Any]:
    """A coordinate search for one end of the envelope, where the unknowns' combinations are too
    many to enumerate: from ``start`` (a corner), each unknown in turn set to each of its
    ``levels``, the others held where the search stands, moving to any level that takes the
    outcome ``further`` (``operator.lt`` for the low end, ``gt`` for the high); passes repeat
    until one moves nothing, ``SEARCH_PASSES`` at most. Returns where it ends. ``value_of`` gives
    the outcome of a configuration (None where the model refuses it), each run once however often
    the search asks: a pass costs at most one simulation a level besides each unknown's own, and
    the last pass, which moves nothing, finds those after the last move already run."""
    at = dict(start)
    best = value_of(at)
    for _ in range(SEARCH_PASSES):
        moved = False
        for u in unknowns:
            for level in levels(u):
                trial = {k: v for k, v in at.items() if k != u.key}
                if level != u.default:
                    trial[u.key] = level
                value = value_of(trial)
                if value is not None and (best is None or further(value, best)):
                    at, best, moved = trial, value, True
        if not moved:
            break
    return at


def varies_alone(config: dict[str, Any], key: str) -> bool:
    """Whether ``config`` varies ``key`` alone (or nothing)."""
    return set(config) <= {key}


# --- the parameters' steps ------------------------------------------------------------------------


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


# --- the outcome at every design point ------------------------------------------------------------


@dataclass(frozen=True)
class EndSteps:
    """The steps of the parameters the model reads at the configuration of one end of the envelope,
    another than the point's own (among them any read only at an unknown's other values, as md's
    workers past the measured four are): the outcome there at the central values, and at each
    step's 5 % and 95 % points with that configuration set; no step where it reads none, so that
    nothing widens that end. None is simulated alone (``alone_step``): an axis two of them share
    splits its spread by their loadings."""

    outcome: float
    at_parameter: dict[str, tuple[float, float]]
    steps: dict[str, ParameterStep]


@dataclass
class Samples:
    """The outcome (a metric, or a ratio of two) at every design point."""

    unknowns: tuple[Unknown, ...]
    configs: list[dict]
    at_config: list[float]  # per config, calibrated values, the scenario's seed
    at_parameter: dict[str, tuple[float, float]]  # direction -> at its 5 % and 95 % points
    steps: dict[str, ParameterStep]  # direction -> its loadings and the share of it simulated
    alone: dict[str, tuple[float, float]]  # coupled parameter -> at its own step, and the step
    at_seed: list[float]  # further seeds, defaults
    simulations: int
    # the envelope's low and high ends' steps of the parameters read there (``EndSteps``, with
    # none at an end that reads none); None where the end is the point's own configuration, which
    # the point's own steps widen
    ends: tuple[EndSteps | None, EndSteps | None] = (None, None)


def sample(
    outcome: Callable[[dict, dict, int], float | None],
    unknowns,
    base,
    read,
    seed,
    seedless,
    unfitted: frozenset[str] = frozenset(),
    progress: str | None = None,
    *,
    where: str,
    read_at: Callable[[dict], tuple[str, ...]] | None = None,
):
    """The outcome at every design point; ``read``: the parameters the model reads at the point's
    own configuration, ``read_at`` those it reads at a scenario configuration (None: the same at
    every one), so that an end of the envelope at another configuration is stepped in those read
    there (``EndSteps``);
    ``seedless``: the model drew no random number, so the simulation has no noise to measure;
    ``unfitted``: as ``parameter_steps``; ``progress``, the name the simulations are counted under
    on standard error (``model.progress``: a bar once they have taken a second, a line a tenth at
    most every 30 s into a log), None for none. The count is out of the simulations planned: each
    design point, both ends of each parameter step, each coupled parameter alone and the further
    seeds (not the search's nor the envelope's ends' steps, which depend on what the points gave,
    and which the count is held below). A design that may need more than ``MAX_SIMULATIONS``, the
    search's passes counted in full, is refused before any of it runs, at the ``unknowns`` of the
    scenario file ``where``."""
    configs = design(unknowns)
    steps = parameter_steps(sorted(read), base, unfitted)

    def read_there(config):  # every parameter the model reads at config, each once
        return set(read_at(config) if read_at is not None else read)

    def steps_at(config):  # the steps of every parameter the model reads at config
        names = read_there(config)
        return parameter_steps(sorted(names), base, unfitted) if names else {}

    def new_at(config):  # how many parameters the model reads at config but not at the point's
        return len(read_there(config) - set(read))

    planned = len(configs) + 2 * len(steps) + len(coupled(steps)) + (0 if seedless else SEEDS)
    check_simulations(unknowns, configs, planned, where)
    count = progress_module.counter(planned, progress, "simulation", bar_after_s=1.0)
    done = 0

    def counted(config, values, at_seed):
        nonlocal done
        value = outcome(config, values, at_seed)
        done += 1
        if done < planned:
            count.update(1)
        return value

    try:
        return _sampled(
            counted, unknowns, configs, steps, (steps_at, new_at), base, seed, seedless, where
        )
    finally:
        count.close()


def check_simulations(
    unknowns: tuple[Unknown, ...], configs: list[dict], planned: int, where: str
) -> None:
    """Refuse, at the ``unknowns`` of the scenario file ``where``, an interval whose ``planned``
    simulations and the search its one-at-a-time ``configs`` may add exceed ``MAX_SIMULATIONS``.
    They grow linearly with the unknowns' levels, never with their combinations: each range adds
    up to 5 configurations, each option 1, and the search for each end its corner and, each of
    its ``SEARCH_PASSES`` passes, at most one run for each of those configurations."""
    searching = 0
    if one_at_a_time(unknowns, configs):  # each end: its corner, and its passes
        searching = 2 * (1 + SEARCH_PASSES * (len(configs) - 1))
    needed = planned + searching
    if needed > MAX_SIMULATIONS:
        raise UserError(
            where,
            "unknowns",
            f"the 90 % interval needs up to {needed} simulations, {len(configs) - 1 + searching} "
            f"of them for its {len(unknowns)} unknowns; at most {MAX_SIMULATIONS} are run: declare "
            "fewer, or predict with --point for the prediction without its interval",
        )


def _named(config: dict[str, Any]) -> str:
    """A configuration as a key: its unknowns' values in the order of their names."""
    return repr(sorted(config.items()))


def _sampled(outcome, unknowns, configs, steps, at_ends, base, seed, seedless, where):
    """``sample``'s simulations of the design points ``configs``, the search for the envelope's
    ends where they vary the unknowns one at a time (``searched``), the parameter ``steps``, and
    at each end of the envelope at another configuration than the point's own every parameter read
    there (``at_ends``, as ``_ends`` takes them; refused at the ``unknowns`` of ``where`` where
    they would take the simulations past the budget)."""
    at_config = []
    kept = []
    seen: dict[str, float | None] = {}  # each configuration run (None: refused), by ``_named``

    def run(config):
        seen[_named(config)] = value = outcome(assigned(unknowns, config), base, seed)
        if value is not None:
            at_config.append(value)
            kept.append(config)
        return value

    for config in configs:
        try:
            value = run(config)
        except NotModelled as exc:
            if not config:
                raise
            raise uncovered(unknowns, config, exc) from None
        except UserError as exc:
            if not config:
                raise
            raise refused(unknowns, config, exc) from None
        if value is None:
            return None

    def value_of(config):  # a combination the model refuses: the values alone still bound it
        if _named(config) not in seen:
            try:
                run(config)
            except (NotModelled, UserError):
                seen[_named(config)] = None
        return seen[_named(config)]

    if one_at_a_time(unknowns, configs):
        low, high = corners(unknowns, kept, at_config)
        searched(unknowns, low, value_of, operator.lt)
        searched(unknowns, high, value_of, operator.gt)
    at_parameter = _stepped(outcome, {}, steps, base, seed)
    alone = {}
    fitted, matrix = params_module.covariance()
    for name in coupled(steps):
        i = fitted.index(name)
        moved = alone_step(name, base, math.sqrt(max(float(matrix[i][i]), 0.0)))
        if moved is not None:
            value = outcome({}, moved[0], seed)
            if value is not None:
                alone[name] = (value, moved[1])
    at_seed = [] if seedless else [outcome({}, base, seed + k) for k in range(1, SEEDS + 1)]
    spent = len(seen) + 2 * len(at_parameter) + len(alone) + len(at_seed)
    ends, end_runs = _ends(outcome, unknowns, kept, at_config, at_ends, base, seed, spent, where)
    runs = len(kept) + 2 * len(at_parameter) + len(alone) + len(at_seed) + end_runs
    return Samples(unknowns, kept, at_config, at_parameter, steps, alone, at_seed, runs, ends)


def _stepped(outcome, config, steps, base, seed) -> dict[str, tuple[float, float]]:
    """The outcome with ``config`` set at each of the parameter ``steps``' 5 % and 95 % points."""
    return {
        key: (
            outcome(config, dict(base, **step.down), seed),
            outcome(config, dict(base, **step.up), seed),
        )
        for key, step in steps.items()
    }


def _ends(outcome, unknowns, kept, at_config, at_ends, base, seed, spent, where):
    """The envelope's low and high ends' ``EndSteps``: at the configuration among ``kept`` whose
    outcome is the lowest, and at the one whose is the highest, the steps of every parameter the
    model reads there (``at_ends``: ``steps_at``, and ``new_at``, how many of them the point's own
    configuration does not read); none at an end that reads none, which nothing widens. Of
    configurations that tie, the point's own (None: its own steps widen the end, and nothing runs)
    where none of them reads a parameter the point's does not; else the first of those reading the
    most such parameters (then the most in all), stepped in every one it reads, so that no
    parameter read at an end is left out for the order of the options. Also the simulations they
    took. Where they would take the ``spent`` simulations past ``MAX_SIMULATIONS``, refused before
    they run, at the ``unknowns`` of ``where``."""
    steps_at, new_at = at_ends
    chosen = []  # per end: its configuration's place in kept, and its steps (None: the point's)
    for pick in (min, max):
        extreme = pick(at_config)
        tied = [i for i, value in enumerate(at_config) if value == extreme]
        new = {i: new_at(assigned(unknowns, kept[i])) for i in tied}
        if tied[0] == 0 and not any(new.values()):  # the point's own: its own steps widen it
            chosen.append((0, None))
            continue
        stepped = [(new[i], steps_at(assigned(unknowns, kept[i])), i) for i in tied]
        _, steps, i = max(stepped, key=lambda found: (found[0], len(found[1])))  # the first
        chosen.append((i, steps))
    places = {i: steps for i, steps in chosen}  # one configuration at both ends is stepped once
    runs = sum(2 * len(steps) for steps in places.values() if steps)
    if spent + runs > MAX_SIMULATIONS:
        raise UserError(
            where,
            "unknowns",
            f"the 90 % interval needs {spent + runs} simulations, {runs} of them to step the "
            f"parameters at its ends' values; at most {MAX_SIMULATIONS} are run: "
            "declare fewer unknowns, or predict with --point for the prediction without its "
            "interval",
        )
    measured = {}
    for i, steps in places.items():
        if steps is None:
            measured[i] = None
            continue
        at_parameter = _stepped(outcome, assigned(unknowns, kept[i]), steps, base, seed)
        measured[i] = EndSteps(at_config[i], at_parameter, steps)
    return tuple(measured[i] for i, _ in chosen), runs
