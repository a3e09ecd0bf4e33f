"""How honest the 90 % intervals are: each measured row's interval, and per table its coverage,
median relative half-width and interval score.

A row's interval is its spread (what the declared unknowns, the parameters' uncertainty and the
seeds give, as factors of the point: ``spread``) widened by the model's own error as ``predict``
widens it (``uncertainty.widened``: the low end of a system that keeps up with its offered load
only past its headroom) and kept inside the path's capacity (``uncertainty.capped``; a printed
measurement may round past a capped end). The error is measured the
split-conformal way from held-out residuals (``model/holdout.py``): a row's score is how far its
measurement lies outside its held-out spread when the row is predicted from a fit that never saw
its configuration (the spread as that fit knows it: a parameter only the row itself informs is
back at its declared default and bounds there, ``holdout.held_out_spreads``); for a row of
hardware no table measured (``model_error.beyond_tables``: the external table's), from each row
predicted without its table, the ``new_hardware`` error ``predict`` takes for such hardware. To
judge a row the widening comes from the *other* rows' scores (jackknife), so no row vouches for
itself. Scores are
pooled by model and kind of figure (a rate or time against a CPU figure), falling back to the whole
model when a pool is too small. A model with too few scores of its own for a 90 % quantile (the
WAN model's five) takes the largest widening of the models that have enough (of those whose
parameters it reads where any has, ``lenders_of``, as ``predict``'s error does), or its own worst
score where that is larger: its error is not known to be smaller than theirs, nor than the largest
it has shown; a model no measured row tests (the microscope ingest path, the relay cluster) takes
that largest widening too, rather than none. (Pooling every model's scores instead let the largest
table, the download server's 54 rows, set it, so that each better understood miss there narrowed
the WAN intervals and took the external network rows out of them.)

Interval score: Gneiting and Raftery (2007), "Strictly proper scoring rules, prediction, and
estimation", JASA 102(477), eq. 43, alpha = 0.1, here divided by the measured value (so tables in
seconds and in MB/s add up), in %.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass

from . import uncertainty
from .model_error import beyond_tables
from .validate import Prediction, scenario_of

COVERAGE = 0.90  # the intervals' nominal coverage
ALPHA = 1.0 - COVERAGE
CPU_METRICS = {"cpu_s", "cpu_user_s", "cpu_sys_s", "cpu_util_pct", "io_wait_pct"}


def conformal_quantile(scores: list[float], coverage: float = COVERAGE) -> float:
    """The split-conformal quantile: the ceil((n + 1) coverage)-th smallest of n scores (infinite
    when there are too few scores for that coverage)."""
    rank = math.ceil((len(scores) + 1) * coverage)
    return math.inf if rank > len(scores) else sorted(scores)[rank - 1]


def kind(metric: str) -> str:
    """The pool a row's score joins: a CPU figure or a rate (throughput, elapsed time)."""
    return "cpu" if metric in CPU_METRICS else "rate"


@dataclass(frozen=True)
class Spread:
    """The interval before the model's error, as factors of the point (low <= 1 <= high): the ends
    a measurement is judged against (``uncertainty.Interval.judged_ends``), and the path's capacity
    on the figure as a factor too (``limit``: a rate's highest, a time's shortest,
    ``uncertainty.capped``); None where the path does not bound it."""

    low: float = 1.0
    high: float = 1.0
    limit: float | None = None


def _ratio(p: Prediction, value: float) -> float:
    """A row's figure as a positive ratio: itself, or 1 + % for a row relative to another."""
    return 1.0 + value / 100.0 if p.row.relative_to else value


def _figure(p: Prediction, ratio: float) -> float:
    return 100.0 * (ratio - 1.0) if p.row.relative_to else ratio


def score(p: Prediction, spread: Spread) -> float | None:
    """How far (log) the measurement lies outside the spread around ``p``'s prediction: zero
    inside it, or on the allowed side of a bound."""
    if p.error_pct is None or p.predicted is None:
        return None
    point, measured = _ratio(p, p.predicted), _ratio(p, p.row.value)
    if point <= 0 or measured <= 0:
        return None
    low, high = point * spread.low, point * spread.high
    below = math.log(low / measured)  # > 0 when the measurement lies below the interval
    above = math.log(measured / high)
    if p.row.bound == "lower":  # "more than measured": missed only when even high is below it
        below = 0.0
    if p.row.bound == "upper":
        above = 0.0
    return max(below, above, 0.0)


def _pools(p: Prediction) -> list[tuple]:
    """The pools a row's score joins, narrowest first: its model and kind, its model."""
    model = scenario_of(p.row).model
    return [(model, kind(p.row.metric)), (model,)]


def _scores(held_out: list[Prediction], spreads: dict[int, Spread]) -> list[tuple]:
    """(pools, score) of every held-out row but the external table's (they test the lab, they
    never tune it)."""
    out = []
    for h in held_out:
        s = score(h, spreads.get(id(h.row), Spread()))
        if s is not None and h.row.table != "external":
            out.append((_pools(h), s, h))
    return out


def _widening(
    pools: list[tuple],
    scored: list[tuple],
    leave_out=None,
    lenders: Mapping[str, frozenset[str]] | None = None,
) -> tuple[float, tuple, int]:
    """The conformal quantile of the narrowest of ``pools`` (the row's model and kind, its model)
    with enough scores (``leave_out``'s own excluded), that pool and how many scores it holds; with
    too few, the largest such quantile of another model (of the model's ``lenders``, where any of
    them is measured enough: ``lenders_of``, read only here, so that a lazy mapping finds them only
    for a model that borrows), or the model's own worst score where that is larger (the pool then
    named as the model's own)."""
    own = _own_widening(pools, scored, leave_out)
    if own is not None:
        return own
    (model, figure), _ = pools
    measured = sorted({ps[1][0] for ps, _, _ in scored} - {model})
    its = () if lenders is None else lenders.get(model, ())

    def enough(models):  # each of ``models`` measured enough: its widening
        found = [_own_widening([(m, figure), (m,)], scored, leave_out) for m in models]
        return [f for f in found if f is not None]

    # of the lenders measured enough, else of every model measured enough
    found = enough([m for m in measured if m in its]) or enough(measured)
    borrowed = max(found, key=lambda f: f[0]) if found else (math.inf, (), 0)
    mine = [s for ps, s, h in scored if ps[1][0] == model and h is not leave_out]
    if mine and max(mine) > borrowed[0]:
        return max(mine), (model,), len(mine)
    return borrowed


def _own_widening(pools: list[tuple], scored: list[tuple], leave_out) -> tuple | None:
    """The conformal quantile of the narrowest of ``pools`` with enough scores, that pool and
    how many scores it holds; None when none has enough."""
    for level, pool in enumerate(pools):
        others = [s for ps, s, h in scored if ps[level] == pool and h is not leave_out]
        widen = conformal_quantile(others)
        if math.isfinite(widen):
            return widen, pool, len(others)
    return None


# What a model's own widening covers, by the held-out predictions it comes from
COVERS = {
    "configuration": (
        "its residuals cover {model} configurations like those of these tables; a prediction far "
        "from them (other hardware, other loads) may miss by more"
    ),
    "table": (
        "hardware no table measured: its residuals when each of its tables is predicted from a "
        "fit on the others (leave-one-table-out)"
    ),
}


def lenders_of(reads: dict[str, frozenset[str]], owns: dict[str, frozenset[str]]):
    """Per model, the models whose own free parameters it reads (``reads``: the parameters each
    model's scenarios read; ``owns``: those each model declares): whose errors on what their
    tables never measured it can inherit. A model's miss there comes from the parameters that do
    not transfer, so one that reads none of another's (the MDSplus server's cost a byte, which only
    the database clients read) does not inherit its misses."""
    return {
        model: frozenset(m for m, own in owns.items() if m != model and own & read)
        for model, read in reads.items()
    }


def model_widening(
    held_out: list[Prediction],
    spreads: dict[int, Spread] | None = None,
    models: tuple[str, ...] = (),
    held_out_by: str = "configuration",
    lenders: Mapping[str, frozenset[str]] | None = None,
) -> dict:
    """Per model, the log widening of its throughput intervals (``log_widen_90``, what
    ``predict`` applies) and of each kind of figure, with the rows and tables behind each; each of
    ``models`` no held-out row measures takes the largest of the models measured enough (its error
    is not known to be smaller than theirs), of those whose parameters it reads where ``lenders``
    names any (``lenders_of``). ``held_out_by``: what ``held_out`` left out of each row's fit, its
    ``configuration`` or its ``table`` (``COVERS``)."""
    lenders = lenders or {}
    scored = _scores(held_out, spreads or {})
    out: dict[str, dict] = {}
    for ps, _, h in scored:
        model = ps[1][0]
        entry = out.setdefault(model, {"by_kind": {}, "tables": set()})
        entry["tables"].add(h.row.table)
        k = kind(h.row.metric)
        if k not in entry["by_kind"]:
            widen, pool, rows = _widening(ps, scored, lenders=lenders)
            entry["by_kind"][k] = {
                "log_widen_90": widen,
                "pooled_over": "/".join(pool),
                "rows": rows,
            }
    for model in sorted(set(models) - set(out)):
        widen, pool, rows = _widening([(model, "rate"), (model,)], scored, lenders=lenders)
        out[model] = {
            "by_kind": {
                "rate": {"log_widen_90": widen, "pooled_over": "/".join(pool), "rows": rows}
            },
            "tables": set(),
        }
    for model, entry in out.items():
        rate = entry["by_kind"].get("rate") or next(iter(entry["by_kind"].values()))
        entry["log_widen_90"] = rate["log_widen_90"]
        entry["tables"] = sorted(entry["tables"])
        borrowed = rate["pooled_over"].split("/")[0]
        among = (
            "the models measured enough whose parameters it reads"
            if borrowed in lenders.get(model, ())
            else "the models measured enough"
        )
        if not entry["tables"]:
            entry["covers"] = (
                f"no measured row tests {model}, so it takes the largest error of {among}, "
                f"{rate['pooled_over']}'s"
            )
        elif borrowed != model:
            entry["covers"] = (
                f"{model} has too few held-out rows to measure its own error, so it takes the "
                f"largest of {among}, {rate['pooled_over']}'s"
            )
        elif not math.isfinite(conformal_quantile([0.0] * rate["rows"])):
            entry["covers"] = (
                f"{model} has too few held-out rows ({rate['rows']}) to measure its own error, "
                "so it takes its own worst miss, larger than any model measured enough"
            )
        else:
            entry["covers"] = COVERS[held_out_by].format(model=model)
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class RowInterval:
    prediction: Prediction
    low: float  # in the row's unit
    high: float
    widen_log: float
    inside: bool
    interval_score_pct: float


def intervals(
    predictions: list[Prediction],
    held_out: list[Prediction],
    spreads: dict[int, Spread] | None = None,
    held_out_spreads: dict[int, Spread] | None = None,
    spares: dict[int, float] | None = None,
    lenders: Mapping[str, frozenset[str]] | None = None,
) -> list[RowInterval]:
    """The 90 % interval of every covered row of ``predictions`` (in-sample: ``spreads``), widened
    as ``predict`` widens it (``uncertainty.widened``: below the offered load of a system that
    keeps up with it, by ``spares``, only past its headroom) by the conformal quantile of the
    other rows' held-out scores: rows predicted from fits without their configurations
    (``held_out``, with the spreads those fits give, ``held_out_spreads``, ``spreads`` where not
    given); for a row of hardware no table measured (``model_error.beyond_tables``), from fits
    without their tables (``held_out``'s ``table_out``, with ``spreads``), as ``predict`` takes
    the ``new_hardware`` error. ``held_out`` holds every row's of ``predictions`` and may hold
    more: the rows whose misses are pooled (every table's, where ``predictions`` are one
    table's). A model with too few scores borrows from its ``lenders`` (``model_widening``).
    External rows are judged but never widen others."""
    spreads = spreads or {}
    scored = _scores(held_out, spreads if held_out_spreads is None else held_out_spreads)
    by_table = _scores([h.table_out for h in held_out if h.table_out is not None], spreads)
    held = {id(h.row): h for h in held_out}
    out = []
    for p in predictions:
        if p.error_pct is None or p.predicted is None or _ratio(p, p.predicted) <= 0:
            continue
        h = held[id(p.row)]
        loaded = scenario_of(p.row)
        pool, leave_out = (by_table, h.table_out) if beyond_tables(loaded) else (scored, h)
        widen, _, _ = _widening(_pools(p), pool, leave_out=leave_out, lenders=lenders)
        spread = spreads.get(id(p.row), Spread())
        point = _ratio(p, p.predicted)
        limit = None if spread.limit is None else point * spread.limit
        spare = (spares or {}).get(id(p.row), 1.0)
        ends = uncertainty.widened(point * spread.low, point * spread.high, point, widen, spare)
        low, high = uncertainty.capped(*ends, point, p.row.metric, limit)
        reach = uncertainty.capped(*ends, point, p.row.metric, limit, past=True)
        out.append(_judged(p, _figure(p, low), _figure(p, high), widen, reach))
    return out


def _judged(
    p: Prediction, low: float, high: float, widen: float, reach: tuple[float, float]
) -> RowInterval:
    """A row's interval (``low``, ``high``) judged against its measurement, which may lie as far
    as ``reach`` (ratios: a capped end as far past the capacity as a printed figure may round,
    ``uncertainty.capped`` with ``past``)."""
    x = p.row.value
    lo, hi, m = reach[0], reach[1], _ratio(p, x)
    inside = (
        hi >= m if p.row.bound == "lower" else lo <= m if p.row.bound == "upper" else lo <= m <= hi
    )
    # the score on the ratio scale (1 + % for a relative row), as a share of the measured ratio
    below = 0.0 if p.row.bound == "lower" else max(lo - m, 0.0)
    above = 0.0 if p.row.bound == "upper" else max(m - hi, 0.0)
    interval_score = (_ratio(p, high) - _ratio(p, low)) + (2 / ALPHA) * (below + above)
    return RowInterval(p, low, high, widen, inside, 100.0 * interval_score / m)


def table_figures(rows: list[RowInterval]) -> dict[str, float | int | None]:
    """Coverage (% of rows inside), median relative half-width (% of the point) and mean interval
    score (% of the measured value) of one table's rows."""
    if not rows:
        return {"interval_rows": 0, "coverage_pct": None, "median_half_width_pct": None}
    half = [
        100.0
        * (_ratio(r.prediction, r.high) - _ratio(r.prediction, r.low))
        / 2.0
        / _ratio(r.prediction, r.prediction.predicted)
        for r in rows
    ]
    return {
        "interval_rows": len(rows),
        "coverage_pct": 100.0 * sum(r.inside for r in rows) / len(rows),
        "median_half_width_pct": statistics.median(half),
        "mean_interval_score_pct": statistics.fmean(r.interval_score_pct for r in rows),
    }
