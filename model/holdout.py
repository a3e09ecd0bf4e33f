"""Predictions of rows the fit never saw: the lab's accuracy bar.

Three held-out predictions of every measured result row:

- **leave-one-configuration-out**: the row is predicted from a fit on every row but those of its
  own configuration (its scenario with its overrides: the elapsed time and the CPU seconds of one
  run go out together). This is the planner who measured today's system and asks about a change.
- **leave-one-table-out**: the row is predicted from a fit on every other table. This is the
  planner whose hardware no table measured, though another table of the same report may have
  measured a host or an array it shares.
- **leave-one-report-out**: the row is predicted from a fit on every other report's tables (a
  row's report: ``measured.report_of`` its source). This is the planner whose hardware no report
  measured. A report of one table leaves out what leave-one-table-out does, so its rows take
  their leave-one-table-out prediction; only the Penn State and ATLAS reports, of several tables
  each, are fitted again.

A row the calibration never uses (the external table's, or a request-level model's that no stepped
parameter is chosen on: ``calibrate.fitted``, ``calibrate.stepped``) is held out already, so its
held-out predictions are its in-sample one.

Each held-out prediction names the free parameters it read that the calibration on every row
moved and no row of its own fit informs (``Prediction.uninformed``): the refit leaves them at their
declared defaults, so they are what does not transfer to it from the other rows, tables or reports.

``python -m model calibrate`` stores all three per row in ``data/calibrated/holdout.json``, with the
row's prediction at the calibrated values (``predicted``: what the code computed them with, which
``tests/test_holdout.py`` holds the current code to), the row's spread (``spread_*``: its interval
before the model's error, as the fit on every row gives it) and, where the fit without its
configuration knows less, its held-out spread (``configuration_out_spread_*``,
``held_out_spreads``); and from how far each leave-one-configuration-out prediction's held-out
spread misses its measurement, the model error each model's intervals are widened by
(``data/calibrated/model_error.json``: split-conformal, ``model/model_error.py`` reads it); and
from the leave-one-table-out predictions the same, the error for hardware no table measured
(``new_hardware`` in that file). The leave-one-report-out predictions widen nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import statistics
from collections.abc import Callable, Iterator, Mapping

from . import calibrate, coverage, paths, progress, registry
from . import params as params_module
from .measured import Row, report_of
from .validate import Prediction, predict_rows, reads

HOLDOUT = paths.CALIBRATED / "holdout.json"
MODEL_ERROR = paths.CALIBRATED / "model_error.json"


def configuration(row: Row) -> tuple[str, tuple[str, ...]]:
    """The run a row was measured on: its scenario and overrides."""
    return row.scenario, row.overrides


def _refit(
    rows: list[Row],
    leave_out: Callable[[Row], object],
    start: dict[str, float],
    what: str,
    given: dict[int, Prediction] | None = None,
) -> list[Prediction]:
    """Each group of rows the calibration uses (by ``leave_out``) predicted from a calibration on
    all the other rows; rows it never uses, with ``start`` (the calibration on every row). A row
    in ``given`` (by ``id(row)``) keeps the held-out prediction there, so a group of such rows is
    not refitted.

    A group the least-squares fit uses is refitted; a stepped parameter (``calibrate.profile``)
    is chosen again only where the group holds rows it is chosen on, and then at the refit's
    values. A group of stepped rows alone (a request-level model's) leaves the least-squares fit as
    ``start`` has it, so only its levels are chosen again."""
    given = given or {}
    groups: dict[object, list[Row]] = {}
    for r in rows:
        if id(r) not in given:
            groups.setdefault(leave_out(r) if calibrate.used(r, start) else None, []).append(r)
    predicted = dict(given)
    for key, members in progress.steps(groups.items(), what, "refit"):
        uninformed: frozenset[str] = frozenset()
        if key is None:
            values = start
        else:
            rest = [r for r in rows if leave_out(r) != key]
            stepped = any(calibrate.stepped(r, start) for r in members)
            if any(calibrate.fitted(r) for r in members):
                refit = calibrate.fit(rest, start=start, levels=stepped, left_out=members)
                values = refit.values
                uninformed = calibrate.uninformed(refit.rows_per_parameter)
            else:
                levels = calibrate.stepped_levels(rest, start)
                values = dict(start, **{name: chosen[0] for name, chosen in levels.items()})
                uninformed = calibrate.uninformed({n: moved for n, (_, _, moved) in levels.items()})
        # what the calibration on every row moved and the refit cannot: does not transfer
        moved_back = {n for n in uninformed if values[n] != start[n]}
        for r, p in zip(members, predict_rows(members, values), strict=True):
            read = moved_back & reads(r, values) if p.error_pct is not None else set()
            predicted[id(r)] = dataclasses.replace(p, uninformed=tuple(sorted(read)))
    return [predicted[id(r)] for r in rows]


def leave_one_configuration_out(rows: list[Row], start: dict[str, float]) -> list[Prediction]:
    return _refit(rows, configuration, start, "leave-one-configuration-out")


def leave_one_table_out(rows: list[Row], start: dict[str, float]) -> list[Prediction]:
    return _refit(rows, lambda r: r.table, start, "leave-one-table-out")


def leave_one_report_out(
    rows: list[Row], start: dict[str, float], table_out: list[Prediction] | None = None
) -> list[Prediction]:
    """Each report's rows predicted from a calibration on the other reports' rows. A report with
    one table among ``rows`` is left out as its table is: its rows take their prediction in
    ``table_out`` (``leave_one_table_out``'s, computed where not given) rather than a second refit
    that would give the same."""
    if table_out is None:
        table_out = leave_one_table_out(rows, start)
    tables: dict[str, set[str]] = {}
    for r in rows:
        tables.setdefault(report_of(r.source), set()).add(r.table)
    alone = {id(p.row): p for p in table_out if len(tables[report_of(p.row.source)]) == 1}
    return _refit(rows, lambda r: report_of(r.source), start, "leave-one-report-out", alone)


def held_out_predictions(
    rows: list[Row], start: dict[str, float]
) -> tuple[list[Prediction], list[Prediction], list[Prediction]]:
    """The three held-out predictions of ``rows``, each a list in their order: without their
    configuration, their table and their report (the last reusing the table-out refits of the
    reports of one table)."""
    by_configuration = leave_one_configuration_out(rows, start)
    by_table = leave_one_table_out(rows, start)
    return by_configuration, by_table, leave_one_report_out(rows, start, by_table)


def summary(predictions: list[Prediction]) -> dict[str, float | None]:
    """Median |error| % over every covered row, and the worst table's median (by table for each of
    the three held-out predictions, so that their worst figures compare; a report of several
    tables shows its worst table's)."""
    errors = [abs(p.error_pct) for p in predictions if p.error_pct is not None]
    by_table: dict[str, list[float]] = {}
    for p in predictions:
        if p.error_pct is not None:
            by_table.setdefault(p.row.table, []).append(abs(p.error_pct))
    medians = {t: statistics.median(e) for t, e in by_table.items()}
    worst = max(medians, key=medians.get) if medians else None
    return {
        "median_abs_error_pct": statistics.median(errors) if errors else None,
        "worst_table": worst,
        "worst_table_median_abs_error_pct": medians[worst] if worst else None,
    }


def _spread(
    row: Row, values: dict[str, float], unfitted: frozenset[str] = frozenset()
) -> coverage.Spread | None:
    from . import uncertainty

    found = uncertainty.for_row(row, values, model_error=False, unfitted=unfitted)
    if found is None or found.point <= 0:
        return None
    limit = None if found.path_limit is None else found.path_limit / found.point
    low, high = found.judged_ends
    return coverage.Spread(low / found.point, high / found.point, limit)


def spreads(rows: list[Row], values: dict[str, float]) -> dict[int, coverage.Spread]:
    """Each covered row's spread before the model's error (``uncertainty.for_row``: the declared
    unknowns, the parameters' uncertainty, the seeds) as factors of its point, by ``id(row)``."""
    found = {id(r): _spread(r, values) for r in progress.steps(rows, "intervals", "row")}
    return {k: v for k, v in found.items() if v is not None}


def held_out_spreads(
    held_out: list[Prediction], values: dict[str, float]
) -> dict[int, coverage.Spread]:
    """The spread of each held-out prediction whose own fit knows less than the fit on every row,
    by ``id(row)``: the parameters no row of that fit informs (``Prediction.uninformed``) at their
    declared defaults and varied over their declared bounds, as for a parameter no fit estimated;
    the others as the fit on every row (``values``) has them. Taking the fit on every row's
    interval for a parameter only the held-out row informs would let that row narrow its own
    held-out spread. A held-out prediction whose fit informs every parameter it reads has its
    in-sample spread (``spreads``), so it is not here."""
    declared = params_module.defaults()
    out = {}
    for h in held_out:
        if not h.uninformed:
            continue
        unfitted = frozenset(h.uninformed)
        at = dict(values, **{n: declared[n] for n in unfitted})
        found = _spread(h.row, at, unfitted)
        if found is not None:
            out[id(h.row)] = found
    return out


def parameters_read(values: dict[str, float]) -> dict[str, frozenset[str]]:
    """Per model, the free parameters its shipped scenarios and their variants read at
    ``values``."""
    from . import scenario as scenario_module
    from . import uncertainty
    from .errors import NotModelled

    read: dict[str, set[str]] = {}
    for _, loaded in scenario_module.shipped():
        try:
            names = uncertainty.simulated(loaded, {}, values, loaded.seed)[1]
        except NotModelled:
            continue
        read.setdefault(loaded.model, set()).update(names)
    return {model: frozenset(names) for model, names in read.items()}


def lenders(values: dict[str, float]) -> dict[str, frozenset[str]]:
    """Per model, the models whose errors it may borrow (``coverage.lenders_of``), by the free
    parameters its shipped scenarios read at ``values``."""
    return coverage.lenders_of(parameters_read(values), _parameters_owned())


class Lenders(Mapping):
    """``lenders(values)``, found when first read: finding them simulates every shipped scenario
    (the download server's and the memory-mapped test's loops among them, some 25 s of compiling
    in a fresh clone), which the intervals of a table whose model has enough held-out rows of its
    own never read (``coverage._widening``)."""

    def __init__(self, values: dict[str, float]):
        self._values = values

    @functools.cached_property
    def _found(self) -> dict[str, frozenset[str]]:
        return lenders(self._values)

    def __getitem__(self, model: str) -> frozenset[str]:
        return self._found[model]

    def __iter__(self) -> Iterator[str]:
        return iter(self._found)

    def __len__(self) -> int:
        return len(self._found)


def _parameters_owned() -> dict[str, frozenset[str]]:
    return {
        name: frozenset(p.name for p in record.parameters)
        for name, record in registry.MODELS.items()
    }


def _fields(prefix: str, spread: coverage.Spread) -> dict[str, float | None]:
    return {f"{prefix}{k}": v for k, v in dataclasses.asdict(spread).items()}


def write(rows: list[Row], start: dict[str, float]) -> dict:
    """The three held-out predictions and the spread of every row to ``holdout.json``, and the
    models' conformal widening (scores: how far each leave-one-configuration-out and
    leave-one-table-out prediction's spread misses its measurement) to ``model_error.json``;
    returns the stored holdout figures."""
    loco, loto, loro = held_out_predictions(rows, start)
    # each row's prediction at the values as parameters.json keeps them: what the current code must
    # still give, or the held-out figures stored beside it are another code's
    in_sample = predict_rows(rows, params_module.defaults() | calibrate.rounded(start))
    covered = [a for a in loco if a.error_pct is not None]
    spread = spreads([a.row for a in covered], start)
    held_spread = held_out_spreads(covered, start)
    stored = {
        "rows": {
            f"{r.table}/{r.id}": {
                "predicted": fitted.predicted,
                "configuration_out_predicted": a.predicted,
                "configuration_out_error_pct": a.error_pct,
                "table_out_predicted": b.predicted,
                "table_out_error_pct": b.error_pct,
                "report_out_predicted": c.predicted,
                "report_out_error_pct": c.error_pct,
            }
            | _fields("spread_", spread.get(id(r), coverage.Spread()))
            | (
                _fields("configuration_out_spread_", held_spread[id(r)])
                if id(r) in held_spread
                else {}
            )
            for r, fitted, a, b, c in zip(rows, in_sample, loco, loto, loro, strict=True)
            if a.error_pct is not None
        },
        "leave_one_configuration_out": summary(loco),
        "leave_one_table_out": summary(loto),
        "leave_one_report_out": summary(loro),
        "made_by": "python -m model calibrate",
    }
    paths.CALIBRATED.mkdir(parents=True, exist_ok=True)
    HOLDOUT.write_text(json.dumps(calibrate.rounded(stored), indent=2, sort_keys=True) + "\n")
    # the same from each table predicted without it, the error for hardware no table measured:
    # judged against the spread the fit on every row gives, which is what a prediction for such
    # hardware has (its parameters are the calibrated ones; the spread the fit without the table
    # gives, with the parameters only that table informs back at their declared bounds, held the
    # table's misses and so widened nothing)
    lenders_by_model = lenders(start)
    errors = {
        "models": coverage.model_widening(
            loco, spread | held_spread, tuple(registry.MODELS), lenders=lenders_by_model
        ),
        "new_hardware": coverage.model_widening(
            loto, spread, tuple(registry.MODELS), held_out_by="table", lenders=lenders_by_model
        ),
        "coverage": coverage.COVERAGE,
        "made_by": stored["made_by"],
    }
    MODEL_ERROR.write_text(json.dumps(calibrate.rounded(errors), indent=2, sort_keys=True) + "\n")
    return stored
