"""What the CLI prints and writes: predictions, measured-beside-predicted tables, calibration fits.

Every printed figure carries its unit.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re

from . import measured, paths, registry
from . import params as params_module
from .errors import one_line
from .result import AT_LIMIT, OFFERED_LOAD, REQUESTS, TIED_WITH_BOTTLENECK, Result
from .spec import Scenario
from .uncertainty import Interval
from .unread import not_read_at
from .validate import Prediction, predict_rows, summarise


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    magnitude = abs(value)
    if 0 < magnitude < 0.001:  # three significant digits, where fixed point would print 0.0000
        return f"{value:.3g} {unit}"
    digits = 0 if magnitude >= 1000 else 1 if magnitude >= 10 else 2 if magnitude >= 0.1 else 4
    return f"{value:,.{digits}f} {unit}"


def _busiest(utilization: dict[str, float], shown: int = 8) -> str:
    ranked = sorted(utilization.items(), key=lambda kv: -kv[1])
    text = ", ".join(f"{k} {100 * v:.0f} %" for k, v in ranked[:shown])
    if len(ranked) > shown:
        text += f", and {len(ranked) - shown} more at {100 * ranked[shown][1]:.0f} % or less"
    return text


def _tied(result: Result, shown: int = 3) -> str:
    """The other resources at their limit as busy as the bottleneck (three uplinks of one
    volume's bays, each with its own label), which more of the bottleneck's alone would not
    lift: "; tied: bus up1, bus up2"; "" where none is. Not said: those of the bottleneck's label,
    counted in its words ("drives of volume data: 24, each at its limit"), a stream's requests in
    flight, the offered load (no resource), and a host's cores beside its CPU, which holds them
    (a one-core host's "cpu host" and "core 0"), or its CPU beside a core."""
    load, labels = result.resources, result.labels
    if result.bottleneck not in load:  # the offered load: it keeps up, and no resource binds
        return ""
    busiest = load[result.bottleneck]
    label = labels.get(result.bottleneck)
    kind = _cpu_kind(result.bottleneck)
    tied = [
        name
        for name, u in load.items()
        if name != result.bottleneck
        and not name.startswith(REQUESTS)
        and u >= AT_LIMIT
        and u >= busiest * (1 - TIED_WITH_BOTTLENECK)
        and (label is None or labels.get(name) != label)
        and (kind is None or _cpu_kind(name) in (None, kind))
    ]
    if not tied:
        return ""
    more = f" and {len(tied) - shown:,} more" if len(tied) > shown else ""
    return f"; tied: {', '.join(tied[:shown])}{more}"


def _cpu_kind(name: str) -> str | None:
    """``cpu`` or ``core`` where resource ``name`` is a host's processors or one of its cores
    (``cpu host``, ``core 0``), else None."""
    first = name.partition(" ")[0]
    return first if first in ("cpu", "core") else None


def prediction_text(
    scenario: Scenario,
    result: Result,
    interval: Interval | None,
    point_only: bool = False,
) -> str:
    """``interval``: the throughput's 90 % interval (``model.uncertainty``); None when it was not
    asked for (``point_only``)."""
    # one client's figures where the model's are (MDSplus): said beside each, not in a note alone
    per = registry.MODELS[scenario.model].per
    each, a = (f" per {per}", f" a {per}") if per else ("", "")
    lines_before = [] if point_only or interval is None else _interval_lines(interval, each)
    spread = "(the point prediction alone: --point)" if point_only else ""
    busiest = 100 * result.utilization[result.bottleneck]
    busy, words = f"{_fmt(busiest, '%')} busy", result.bottleneck_words
    # what it is where its name does not say, then the resource it names
    limit = (
        f"{words} ({result.bottleneck}, {busy}{_tied(result)})"
        if words != result.bottleneck
        else f"{result.bottleneck} ({busy}{_tied(result)})"
    )
    if result.bottleneck == OFFERED_LOAD:  # it keeps up: the busiest resource is no bottleneck
        others = result.resources
        if others:
            name = max(others, key=others.get)
            limit = (
                f"offered load (it keeps up; the busiest resource, {name}, "
                f"{_fmt(100 * others[name], '%')} busy)"
            )
    # an override the configuration does not read: said first, as it changed nothing below
    unread = [
        f"  {'not read' if i == 0 else '':12} {u.line()}"
        for i, u in enumerate(not_read_at(scenario))
    ]
    lines = [
        f"{scenario.name}"
        + (f" (variant {scenario.variant})" if scenario.variant else "")
        + (
            f" with {'; '.join(o for o in scenario.overrides if not o.startswith('variant='))}"
            if any(not o.startswith("variant=") for o in scenario.overrides)
            else ""
        ),
        *unread,
        f"  throughput   {_fmt(result.throughput_MBps, 'MB/s')}{each}  {spread}".rstrip(),
        *_as_requests_or_bits(scenario, result),
        *lines_before,
        f"  bound        {_fmt(result.bound_MBps, 'MB/s')}{each}  {_bound_words(result)}",
        f"  elapsed      {_fmt(result.elapsed_s, 's')} for "
        f"{_fmt(result.bytes_moved / 1e6, 'MB')}{a}",
        f"  bottleneck   {limit}",
    ]
    if result.cpu_s is not None:  # models without a CPU figure leave the line out
        cpu = f"{_fmt(result.cpu_s, 's')} ({_fmt(result.cpu_util_pct, '%')} of one core)"
        lines.append(f"  CPU          {cpu}{_whose_cpu(scenario)}")
    lines.append("  utilisation  " + _busiest(result.utilization))
    lines += [f"  {'notes' if i == 0 else '':12} {note}" for i, note in enumerate(result.notes)]
    # names and notes hold the user's text: no line break or terminal control of theirs acts
    return "\n".join(one_line(line) for line in lines)


def _bound_words(result: Result) -> str:
    """What the bound counts: the bottleneck law over the resources and every hard limit of a flow
    (a TCP window, a set rate); not TCP's loss response, an estimate fitted to measurements that a
    run may beat, which a loss-limited run names as its bottleneck below a bound it leaves out."""
    if result.bottleneck == "tcp loss":
        return "(bottleneck law, without TCP's loss response: an estimate a run may beat)"
    return "(bottleneck law)"


def _whose_cpu(scenario: Scenario) -> str:
    """Whose time the CPU figure counts, where it is not the whole host's: a local storage stream's
    is its processes' own, as time(1) reports them (the reports' tables), while the kernel's
    flusher, RAID and driver threads work on other cores (``cpu host`` among the resources)."""
    if scenario.model == "storage" and scenario.body.clients is None:
        return ", the streams' own processes as time(1) counts them (all threads: cpu host)"
    return ""


def requests_per_s(scenario: Scenario, result: Result) -> float | None:
    """The requests a second a storage workload of random or direct requests moves (IOPS, at its
    ``request_KiB``); None for other workloads and models, whose requests a user does not count."""
    if scenario.model != "storage" or result.throughput_MBps is None:
        return None
    workload = scenario.body.workload
    if workload.pattern != "random" and workload.io != "direct":
        return None
    return result.throughput_MBps * 1e6 / (workload.request_KiB * 1024)


def _as_requests_or_bits(scenario: Scenario, result: Result) -> list[str]:
    """The rate as requests a second (random or direct storage requests) or as bits a second (a
    network transfer), the figures those users read."""
    iops = requests_per_s(scenario, result)
    if iops is not None:
        size = f"{scenario.body.workload.request_KiB:,.10g} KiB"  # 1,048,576, not 1.04858e+06
        return [f"  requests     {_fmt(iops, 'a second')} of {size} (IOPS)"]
    if scenario.model == "wan_transfer" and result.throughput_MBps is not None:
        return [f"  in bits      {_fmt(result.throughput_MBps * 8 / 1e3, 'Gbit/s')}"]
    return []


def _interval_lines(interval: Interval, each: str = "") -> list[str]:
    """The 90 % interval, the factor that moves it most and whether the model's error is in it;
    ``each`` says whose figures they are where not the whole system's (" per client")."""
    low, high = _fmt(interval.low, "MB/s"), _fmt(interval.high, "MB/s")
    lines = [
        f"  90 %         between {low} and {high}, most likely {_fmt(interval.point, 'MB/s')}{each}"
    ]
    leading = interval.leading
    error = interval.model_error
    # nothing else moving it, an interval's width is the model's error alone: said first, as a
    # 27 %-wide one beside "no declared unknown, parameter or seed moves it" read as a
    # contradiction (the quote audit)
    spread = error is not None and interval.low < interval.high
    width = "its width is the model's measured error; " if spread else ""
    if leading is None and interval.seeds:  # a draw of few outcomes can land alike at each seed
        lines.append(
            f"  moved by     {width}no declared unknown or parameter moves it, and its "
            f"{interval.seeds + 1} seeds gave one result (a draw of few outcomes, as an LACP "
            "hash's, may still give another at other seeds: --set seed=N)"
        )
    elif leading is None:
        lines.append(f"  moved by     {width}no declared unknown, parameter or seed moves it")
    else:
        unknown = not leading.startswith(("parameter ", "simulation"))
        share = 100 * interval.drivers[leading]
        lines.append(
            f"  moved most   by {'the unknown ' if unknown else ''}{leading} "
            f"({share:.0f} % of the spread{_before_error(interval, each)})"
        )
        if interval.by_option:  # each allowed setting's outcome, the others at their defaults
            each_option = ", ".join(
                f"{option} {_fmt(value, 'MB/s')}" for option, value in interval.by_option.items()
            )
            lines.append(f"  by option    {each_option}{each}")
    if error is None:
        lines.append("  not in it    the model's own error (no data/calibrated/model_error.json)")
    else:
        covers = f"; {error['covers']}" if error["covers"] else ""
        factor = math.exp(error["log_widen_90"])
        lines.append(f"  model error  {_widening(interval, factor)} (validation{covers})")
    if _capped(interval):
        lines.append(
            f"  capped       at the path's capacity: {_fmt(interval.path_limit, 'MB/s')}{each}, "
            "the bottleneck law's bound over its rated parts (not the CPU work it estimates), at "
            "its loosest over the parameters and unknowns"
        )
    return lines


def _before_error(interval: Interval, each: str) -> str:
    """The spread's own ends where the model's error widened them: "moved most by the simulation
    noise (94 % of the spread)" beside an interval the error made eight times as wide was read as
    the noise's width (a template's download server)."""
    before = interval.before_error
    ends = (interval.low, interval.high)
    if before is None or all(
        math.isclose(b, e, rel_tol=5e-3) for b, e in zip(before, ends, strict=True)
    ):
        return ""  # an error that widens by under 0.5 % (printed "widened 1.00 times")
    low, high = _fmt(before[0], "MB/s"), _fmt(before[1], "MB/s")
    return f": {low} to {high}{each} before the model's error"


def _capped(interval: Interval) -> bool:
    """Whether the interval's high end is the path's capacity."""
    limit = interval.path_limit
    return limit is not None and interval.high >= limit * (1 - 1e-9)


def _widening(interval: Interval, factor: float) -> str:
    """How the model's error (``factor`` times each way) widened the interval: both ways, unless
    the system keeps up with its offered load, whose headroom the error must exceed before it
    carries less (``uncertainty.headroom``), or the path's capacity caps the high end, which then
    moved only to it (it said "each way" when only the low end had moved: the quote audit)."""
    headroom, capped = interval.headroom, _capped(interval)
    if headroom <= 1.0 and not capped:
        return f"widened {factor:.2f} times each way"
    above = "above, only to the path's capacity" if capped else f"widened {factor:.2f} times above"
    if headroom <= 1.0:
        return f"widened {factor:.2f} times below; {above}"
    spare = f"{headroom:.2f} times headroom" if math.isfinite(headroom) else "headroom to spare"
    if headroom >= factor:
        below = (
            f"not widened below: it keeps up with its offered load with {spare}, more than the "
            f"model's error of {factor:.2f} times"
        )
    else:
        below = (
            f"widened at most {factor / headroom:.2f} times below: the model's error of "
            f"{factor:.2f} times less the {spare} of a system that keeps up with its offered load"
        )
    return f"{below}; {above}"


def _measured(row: measured.Row) -> str:
    """The measured figure as the report gives it: a bound reads "> 1.00 Gbit/s" or "< 60.0 s"."""
    return {"lower": "> ", "upper": "< "}.get(row.bound, "") + _fmt(row.value, row.unit)


def _error(p: Prediction) -> str:
    """A row's error; for a figure the report gives as a bound, whether the prediction meets it."""
    if p.error_pct is None:
        return p.row.role
    if p.row.bound:
        return "bound met" if p.error_pct == 0.0 else f"bound missed ({p.error_pct:+.1f} %)"
    return f"{p.error_pct:+.1f} %"


def _shown(p: Prediction, interval=None) -> dict:
    """A prediction as the outputs show it: its source cites the report by title, not file name;
    ``interval`` (``coverage.RowInterval``) adds ``interval_90`` in the row's unit."""
    out = dict(p.to_dict(), source=measured.cite(p.row.source))
    if interval is not None:
        out["interval_90"] = [interval.low, interval.high]
    return out


def _cited(summary: dict) -> dict:
    """``summarise``'s tables with each report cited by its title, authors and date."""
    return {
        name: dict(t, sources=[measured.title(key) for key in t["sources"]])
        for name, t in summary.items()
    }


def _held_out(rows: list[measured.Row]) -> list[Prediction]:
    """Each row predicted from a fit without its configuration, its leave-one-table-out and
    leave-one-report-out predictions kept beside it (``Prediction.table_out``, ``report_out``)."""
    from . import calibrate as calibrate_module  # scipy: only the commands that fit load it
    from . import holdout

    start = calibrate_module.fit(rows, shown="fit on every row").values
    return [
        dataclasses.replace(p, table_out=q, report_out=o)
        for p, q, o in zip(*holdout.held_out_predictions(rows, start), strict=True)
    ]


def _stored_holdout_line() -> str:
    """The held-out figures ``calibrate`` stored, as the summary line leads with them."""
    from . import holdout

    if not holdout.HOLDOUT.exists():
        return "Held-out accuracy: not computed yet (python -m model calibrate computes it)."
    stored = json.loads(holdout.HOLDOUT.read_text())

    def part(key: str, label: str) -> str:
        s = stored[key]
        return (
            f"{label} {s['median_abs_error_pct']:.1f} % (worst table {s['worst_table']}, "
            f"{s['worst_table_median_abs_error_pct']:.1f} %)"
        )

    return (
        "Held out (each row predicted from a fit that never saw it), median |error|: "
        + "; ".join(
            part(f"leave_one_{what}_out", f"leave-one-{what}-out")
            for what in ("configuration", "table", "report")
        )
        + "."
    )


def _stored_held_out(rows: list[measured.Row]) -> tuple[list[Prediction], dict, dict]:
    """The leave-one-configuration-out prediction of each row (its leave-one-table-out one beside
    it, ``Prediction.table_out``), its spread and its held-out spread (both by ``id(row)``), as
    ``calibrate`` stored them (no prediction for rows it did not store;
    a row stored with no held-out spread of its own, its held-out fit informing every parameter it
    reads or the file older than held-out spreads, has its spread for both)."""
    from . import coverage, holdout

    stored = json.loads(holdout.HOLDOUT.read_text())["rows"] if holdout.HOLDOUT.exists() else {}
    held, spreads, held_spreads = [], {}, {}
    for row in rows:
        entry = stored.get(f"{row.table}/{row.id}", {})
        table_out = Prediction(
            row, entry.get("table_out_predicted"), entry.get("table_out_error_pct")
        )
        held.append(
            Prediction(
                row,
                entry.get("configuration_out_predicted"),
                entry.get("configuration_out_error_pct"),
                table_out=table_out,
            )
        )
        for into, prefixes in (
            (spreads, ("spread_",)),
            (held_spreads, ("configuration_out_spread_", "spread_")),
        ):
            prefix = next((k for k in prefixes if f"{k}low" in entry), None)
            if prefix is not None:
                into[id(row)] = coverage.Spread(
                    entry[f"{prefix}low"], entry[f"{prefix}high"], entry.get(f"{prefix}limit")
                )
    return held, spreads, held_spreads


def _with_intervals(predictions: list[Prediction], summary: dict, rows: list[measured.Row]):
    """Each covered row's 90 % interval (``coverage.intervals``: its stored spread widened by the
    model's error as ``predict`` widens it, its headroom at the calibrated values), and per table
    its coverage, median half-width and interval score added to ``summary``; returns the
    intervals by row. The model's error is measured on the stored held-out misses of ``rows``
    (every measured row), of which ``predictions`` may be some tables' only: nothing else is
    simulated for it, and the models' lenders only where one borrows (``holdout.Lenders``)."""
    from . import coverage, holdout, validate

    values = params_module.calibrated()
    held_out, spreads, held_spreads = _stored_held_out(rows)
    spares = {
        id(p.row): validate.headroom(p.row, values) for p in predictions if p.predicted is not None
    }
    judged = coverage.intervals(
        predictions, held_out, spreads, held_spreads, spares, holdout.Lenders(values)
    )
    by_table: dict[str, list] = {}
    for r in judged:
        by_table.setdefault(r.prediction.row.table, []).append(r)
    for name, t in summary.items():
        t.update(coverage.table_figures(by_table.get(name, [])))
    return {id(r.prediction.row): r for r in judged}


def _held_out_text(what: str, t: dict | None) -> str:
    """A table's leave-one-``what``-out median and largest |error| (``summarise``'s ``t``), or
    nothing where none was computed or none of its rows is predicted."""
    if not t or t["median_abs_error_pct"] is None:
        return ""
    return (
        f"; leave-one-{what}-out median {t['median_abs_error_pct']:.1f} %, max "
        f"{t['max_abs_error_pct']:.1f} %"
    )


def _interval_text(t: dict) -> str:
    if not t.get("coverage_pct") and t.get("coverage_pct") != 0.0:
        return ""
    return (
        f"; 90 % intervals hold {t['coverage_pct']:.0f} % of the measurements (median half-width "
        f"{t['median_half_width_pct']:.0f} %, interval score {t['mean_interval_score_pct']:.0f} %)"
    )


MISS_SHOWN_PCT = 25.0  # a row missed by more than this shows why, where its note says
_WHY = re.compile(
    r"(?:Badly predicted|Predicted (?:high|low)|The model predicts)(.*?)(?= Found with |$)"
)


def why_missed(p: Prediction) -> str | None:
    """The sentence of a row's note that says why the model misses it (external rows carry one,
    starting "Badly predicted", "Predicted high/low" or "The model predicts"), or None."""
    if p.error_pct is None or abs(p.error_pct) <= MISS_SHOWN_PCT:
        return None
    found = _WHY.search(p.row.note or "")
    return found.group(0).strip() if found else None


def _defaults_text(names) -> str:
    """Each free parameter of ``names`` with its declared default beside its calibrated value."""
    declared, calibrated = params_module.DECLARED, params_module.calibrated()

    def shown(name: str, value: float) -> str:
        unit = declared[name].unit
        number = f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"
        return number if unit == "1" else f"{number} {unit}"

    return ", ".join(
        f"{n} {shown(n, declared[n].default)} (calibrated {shown(n, calibrated[n])})" for n in names
    )


def _table_text(
    name: str, summary: dict, predictions: list[Prediction], show_all: bool
) -> list[str]:
    median = summary["median_abs_error_pct"]
    others = summary["rows"] - summary["results"]
    held_out = predictions[0].table_out is not None
    by_table = summarise([p.table_out for p in predictions])[name] if held_out else None
    by_report_out = predictions[0].report_out is not None
    by_report = summarise([p.report_out for p in predictions])[name] if by_report_out else None
    head = (
        f"{name}: {summary['rows']} rows, {summary['results']} of them results to predict"
        + (
            f" (the other {others} are settings and derived figures)"
            if others > 1
            else " (the other is a setting or a derived figure)"
            if others
            else ""
        )
        + f"; {summary['covered']} predicted"
        + (
            f", {'leave-one-configuration-out ' if held_out else ''}median |error| "
            f"{median:.1f} %, max {summary['max_abs_error_pct']:.1f} %"
            if median is not None
            else ""
        )
        + _held_out_text("table", by_table)
        + _held_out_text("report", by_report)
        + _interval_text(summary)
    )
    lines = [head] + [f"  from {source}" for source in summary["sources"]]
    own = sorted({n for p in predictions for n in p.table_out.uninformed}) if held_out else []
    if own:
        lines.append(
            "  left out, no other table informs (read at their defaults): " + _defaults_text(own)
        )
    reports_own = (
        sorted({n for p in predictions for n in p.report_out.uninformed}) if by_report_out else []
    )
    if reports_own and reports_own != own:  # a report of several tables: what its others informed
        lines.append(
            "  left out with its report, no other report informs (read at their defaults): "
            + _defaults_text(reports_own)
        )
    shown = [
        p for p in predictions if p.error_pct is not None or (show_all and p.row.role != "result")
    ]
    if shown:
        lines.append(
            f"  {'id':34} {'metric':16} {'measured':>15} {'predicted':>14} {'error':>12}"
            + (f" {'table out':>14} {'error':>12}" if held_out else "")
        )
    for p in shown:
        r = p.row
        versus = (
            f"  (a change relative to {';'.join(r.relative_to)}; the error is the ratio's)"
            if r.relative_to
            else ""
        )
        lines.append(
            f"  {r.id[:34]:34} {r.metric[:16]:16} {_measured(r):>15} "
            f"{_fmt(p.predicted, r.unit):>14} {_error(p):>12}"
            + (
                f" {_fmt(p.table_out.predicted, r.unit):>14} {_error(p.table_out):>12}"
                if held_out and p.error_pct is not None
                else ""
            )
            + versus
        )
        if why := why_missed(p):
            lines.append(f"      why: {why}")
        if held_out and p.uninformed:
            lines.append(
                "      configuration out, no other row informs (read at their defaults): "
                + _defaults_text(p.uninformed)
            )
    waiting: dict[str, list[str]] = {}
    for p in predictions:
        if p.row.role == "result" and p.error_pct is None:
            waiting.setdefault(p.reason, []).append(p.row.id)
    for reason, ids in waiting.items():
        listed = ", ".join(ids[:6]) + (f" and {len(ids) - 6} more" if len(ids) > 6 else "")
        lines.append(
            f"  {len(ids)} not predicted yet ({reason.removeprefix('not modelled: ')}): {listed}"
        )
    return lines


def _shown_rows(
    predictions: list[Prediction], summary: dict, rows: list[measured.Row]
) -> list[dict]:
    """The in-sample rows as the outputs show them, each covered row with its 90 % interval (and
    ``summary``'s tables with their coverage figures); ``rows``: every measured row, whose
    held-out misses the intervals pool."""
    judged = _with_intervals(predictions, summary, rows)
    return [_shown(p, judged.get(id(p.row))) for p in predictions]


def _every_row() -> list[measured.Row]:
    """Every measured row: the five reports' tables, then the external benchmarks'."""
    tables = {**measured.load_all(), **measured.load_external()}
    return [r for rs in tables.values() for r in rs]


def validation_frame(tables: tuple[str, ...] = ()):
    """Every measured row beside its prediction and 90 % interval as a DataFrame (columns as
    ``validate --json``'s rows, the interval as ``interval_90_low``/``_high``), for notebooks; the
    rows of ``tables`` only, when given, and only they are predicted (the intervals still pool
    every table's misses, as stored: a notebook of one table simulates no other model). A name
    no table has is refused, naming them: a misspelt one had given an empty frame of two columns,
    whose ``frame.table`` raised AttributeError (the review)."""
    every = _every_row()
    known = list(dict.fromkeys(r.table for r in every))
    unknown = [t for t in tables if t not in known]
    if unknown:
        raise ValueError(f"no measured table {unknown[0]!r}; the tables: {', '.join(known)}")
    rows = [r for r in every if r.table in tables] if tables else every
    predictions = predict_rows(rows, params_module.calibrated())
    return _frame(_shown_rows(predictions, _cited(summarise(predictions)), every))


def _frame(shown: list[dict]):
    import pandas as pd

    frame = pd.DataFrame(shown)
    bands = frame.pop("interval_90") if "interval_90" in frame else [None] * len(frame)
    frame["interval_90_low"] = [b[0] if isinstance(b, list) else None for b in bands]
    frame["interval_90_high"] = [b[1] if isinstance(b, list) else None for b in bands]
    return frame


def validation(
    as_json: bool = False, holdout: bool = False, show_all: bool = False, write_files: bool = False
) -> str:
    rows = _every_row()
    predictions = _held_out(rows) if holdout else predict_rows(rows, params_module.calibrated())
    summary = _cited(summarise(predictions))
    shown = [_shown(p) for p in predictions] if holdout else _shown_rows(predictions, summary, rows)
    if write_files:
        _write_reports(shown)
    if as_json:
        return json.dumps(
            {
                "rows": shown,
                "tables": summary,
                "holdout": holdout,
                "parameters": params_module.calibrated(),
                "parameter_units": params_module.units(),
                "unmeasured_models": _unmeasured(),
            },
            sort_keys=True,
        )
    by_table: dict[str, list[Prediction]] = {}
    for p in predictions:
        by_table.setdefault(p.row.table, []).append(p)
    results = sum(t["results"] for t in summary.values())
    lines = [
        (
            "Held out: each row predicted from a fit without its configuration (error), and "
            "from a fit without its table (table out); each table's figures from a fit without "
            "its report too"
            if holdout
            else _stored_holdout_line() + " In-sample, measured beside predicted"
        )
        + f": {len(rows)} measured rows in {len(by_table)} tables: {results} results a model "
        f"should predict, and {len(rows) - results} settings and figures a report derives from "
        "others"
    ]
    for name, preds in by_table.items():
        lines += [""] + _table_text(name, summary[name], preds, show_all)
    covered = sum(t["covered"] for t in summary.values())
    lines += [
        "",
        f"{covered} of {results} results predicted; each line above says why the rest are not."
        + ("" if show_all else " Settings and derived figures: --all."),
    ]
    if not holdout:
        judged = sum(t.get("interval_rows", 0) for t in summary.values())
        inside = sum(
            round(t["coverage_pct"] * t["interval_rows"] / 100)
            for t in summary.values()
            if t.get("interval_rows")
        )
        lines.append(
            f"90 % intervals: {inside} of {judged} measurements inside "
            f"({100 * inside / max(judged, 1):.0f} %); each widened by the model's error on the "
            "other rows' held-out predictions (split-conformal, jackknife)."
        )
    lines += [f"model {name}: no measured rows; {why}" for name, why in _unmeasured().items()]
    if write_files:
        lines.append(
            f"wrote {paths.openable(paths.REPORTS / 'validation.csv')} and "
            f"{paths.openable(paths.REPORTS / 'validation.png')}"
        )
    return "\n".join(lines)


def _unmeasured() -> dict[str, str]:
    """Registered models no report measures, and why (validation has no row for them)."""
    return {name: r.unmeasured for name, r in registry.MODELS.items() if r.unmeasured}


def _write_reports(shown: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths.REPORTS.mkdir(exist_ok=True)
    frame = _frame(shown)
    frame.to_csv(paths.REPORTS / "validation.csv", index=False)
    fig = ratio_figure(frame[frame.error_pct.notna()])
    fig.savefig(paths.REPORTS / "validation.png", dpi=110)
    plt.close(fig)


def _ratio_of(row, value: float) -> float:
    """A figure of ``row`` as a positive ratio (1 + % for a row relative to another)."""
    return 1 + value / 100 if row.relative_to else value


ROW_STEP = 0.08  # the distance between two rows' points in the ratio figure, in columns


# the ring drawn round a point whose measurement lies outside its 90 % interval
MISSED_RING = {"s": 110, "facecolors": "none", "edgecolors": "black", "lw": 1.2, "zorder": 4}


def ratio_figure(shown):
    """Predicted over measured for every predicted row, one column and one colour per table: rows
    in seconds, %, MB/s and Gbit/s side by side as one dimensionless ratio. A relative row's ratio
    is that of (1 + predicted %) to (1 + measured %); a row the report gives as a bound is drawn as
    a triangle pointing the way the bound allows; a row's 90 % interval (``interval_90_low`` and
    ``_high`` columns, where present) is a vertical bar over the same ratio: measured inside its
    interval where the bar crosses 1, ringed where it does not. ``shown``: validate's rows as a
    DataFrame."""
    import matplotlib.pyplot as plt

    tables = list(dict.fromkeys(shown.table))
    groups = [shown[shown.table == table] for table in tables]
    # a table's points side by side, ``ROW_STEP`` apart, in a column as wide as they need (one unit
    # at least): a table of 54 rows is not piled into the width of one of 5
    spans = [ROW_STEP * (len(group) - 1) for group in groups]
    widths = [max(1.0, span + 0.4) for span in spans]
    centres = [sum(widths[:i]) + w / 2 for i, w in enumerate(widths)]
    fig, ax = plt.subplots(figsize=(max(9.0, 0.6 * sum(widths) + 3), 6))
    colours = plt.get_cmap("tab10")
    for i, group in enumerate(groups):
        offsets = (
            [centres[i]]
            if len(group) == 1
            else [centres[i] + spans[i] * (k / (len(group) - 1) - 0.5) for k in range(len(group))]
        )
        for x, (_, row) in zip(offsets, group.iterrows(), strict=True):
            if row.relative_to:
                ratio = (1 + row.predicted / 100) / (1 + row.measured / 100)
            else:
                ratio = row.predicted / row.measured
            marker = {"lower": "^", "upper": "v"}.get(row.bound, "o")
            ax.scatter(x, ratio, color=colours(i % 10), marker=marker, s=28, zorder=3)
            low, high = row.get("interval_90_low"), row.get("interval_90_high")
            if low is not None and high is not None and low == low:  # NaN where no interval
                scale = ratio / _ratio_of(row, row.predicted)
                band = [scale * _ratio_of(row, v) for v in (low, high)]
                ax.vlines(x, *band, color=colours(i % 10), lw=1.2, alpha=0.45, zorder=2)
                if row.bound not in ("lower", "upper") and not low <= row.measured <= high:
                    ax.scatter(x, ratio, **MISSED_RING)
    ax.axhline(1.0, color="black", lw=1)
    ax.axhspan(0.9, 1.1, color="grey", alpha=0.2, label="within 10 %")
    ax.set_yscale("log")
    ticks = [0.1, 0.2, 0.3, 0.4, 0.5, 0.67, 0.8, 1.0, 1.25, 1.5, 2.0, 2.5, 3, 4, 5, 7, 10]
    low, high = ax.get_ylim()
    ax.set_yticks(
        [t for t in ticks if low <= t <= high], [f"{t:g}" for t in ticks if low <= t <= high]
    )
    ax.minorticks_off()
    # each table's name under its own column of points (a rotated name ends at its tick)
    ax.set_xticks(centres, tables, rotation=30, ha="right", rotation_mode="anchor")
    ax.set_xlim(0, sum(widths))
    ax.set_xlabel("measured table (data/measured/)")
    ax.set_ylabel("predicted / measured (ratio, log scale)")
    ax.set_title(f"Predicted over measured: the {len(shown)} predicted rows, by table")
    ax.scatter([], [], color="grey", marker="o", label="a measured figure")
    ax.vlines([], 1, 1, color="grey", lw=1.2, alpha=0.45, label="its 90 % interval")
    ax.scatter([], [], color="grey", marker="^", label="a lower bound (met above 1)")
    ax.scatter([], [], color="grey", marker="v", label="an upper bound (met below 1)")
    ax.scatter([], [], **MISSED_RING, label="measured outside its 90 % interval")
    # below the axes, where no point can lie under it
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.27), ncol=3)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def calibration() -> str:
    from . import calibrate as calibrate_module

    tables = measured.load_all()
    rows = [r for rs in tables.values() for r in rs]
    result = calibrate_module.fit(rows, shown="fit on every row")
    calibrate_module.write(result)
    from . import holdout

    held = holdout.write([*rows, *_external_rows()], result.values)
    lines = [
        f"Calibrated on {result.rows} measured results by least squares (rms error "
        f"{result.rms_error_pct:.1f} %):"
    ]
    for name, value in result.values.items():
        p = params_module.DECLARED[name]
        low, high = result.intervals[name]
        lines.append(
            f"  {name:32} {value:10.3f} {p.unit:8} 95% interval {low:.3f} to {high:.3f} "
            f"({result.rows_per_parameter[name]} rows depend on it)"
        )
    # the rows the calibration uses only: the others (calibrate.not_fitted, unless a stepped
    # parameter is chosen on them) are predicted by validate, not here
    used = [r for r in rows if calibrate_module.used(r, result.values)]
    lines += fit_lines(used, result.values)
    lines.append(_stored_holdout_line())
    lines.append(
        f"wrote {paths.openable(paths.CALIBRATED_PARAMETERS)}, {paths.openable(holdout.HOLDOUT)} "
        f"({len(held['rows'])} rows) and {paths.openable(holdout.MODEL_ERROR)}"
    )
    return "\n".join(lines)


def fit_lines(used: list[measured.Row], values: dict[str, float]) -> list[str]:
    """Each table's fit on the rows calibration uses (``used``), saying how many of them only a
    stepped parameter's level is chosen on, which the header's least-squares count leaves out (the
    docs audit: 37 results above, 73 rows below)."""
    from . import calibrate as calibrate_module

    choosing: dict[str, int] = {}
    for r in used:
        if not calibrate_module.fitted(r):
            choosing[r.table] = choosing.get(r.table, 0) + 1
    lines = []
    for name, t in summarise(predict_rows(used, values)).items():
        if t["covered"]:
            n = choosing.get(name, 0)
            only = f" ({n} used only to choose a stepped parameter's level)" if n else ""
            lines.append(
                f"  fit on {name}: {t['covered']} rows{only}, median |error| "
                f"{t['median_abs_error_pct']:.1f} %, max {t['max_abs_error_pct']:.1f} %"
            )
    return lines


def _external_rows() -> list[measured.Row]:
    return [r for rs in measured.load_external().values() for r in rs]
