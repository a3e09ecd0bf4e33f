"""The capacity-planning lab: predict, validate, calibrate, sweep, schema and new (contracts in
docs/design.md).

A user's mistake prints one line naming the file, the key and what is allowed, and exits 2.
A configuration no model covers yet prints one line and exits 3; a sweep that ends with failed
points exits 4. Ctrl-C ends any command with one line and status 130.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import math
import sys
from collections.abc import Iterator

from . import paths
from .errors import INTERRUPTED_STATUS, NotModelled, UserError, one_line

NOT_MODELLED_STATUS = 3
# a sweep that ran to its end with some of its points failed (each recorded with its reason): a
# script or a scheduler's job sees it, as it sees a failed command
POINTS_FAILED_STATUS = 4
# a sweep's processes at most: each holds a Python (and a kernel for a papermill point); more than
# this would exhaust a workstation long before it ran faster
MAX_WORKERS = 256


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, status 2, as for every other user mistake
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m model", description=" ".join(__doc__.split("\n\n")[0].split()))
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("predict", help="simulate one scenario and print its prediction")
    p.add_argument("scenario", help="a scenario name in data/scenarios/ or a path to a YAML file")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a scenario key (dotted), or choose a variant with variant=NAME; repeatable",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--point", action="store_true", help="the point prediction alone, without its interval"
    )
    p.add_argument(
        "--catalog",
        dest="catalogs",
        action="append",
        default=[],
        metavar="FILE",
        help="a parts file of your own (same format as data/hardware/, categories at the top); "
        "repeatable",
    )
    v = sub.add_parser("validate", help="every measured row beside its prediction, table by table")
    v.add_argument("--json", action="store_true", help="print one JSON object with rows and tables")
    v.add_argument(
        "--holdout",
        action="store_true",
        help="each row predicted from fits without its configuration, and without its table",
    )
    v.add_argument("--all", action="store_true", help="also list settings and derived figures")
    v.add_argument(
        "--report",
        action="store_true",
        help="also write reports/validation.csv and reports/validation.png",
    )
    sub.add_parser("calibrate", help="fit the free parameters and write data/calibrated/")
    w = sub.add_parser(
        "sweep", help="run a grid of design points (resumable); results in OUT/results.parquet"
    )
    w.add_argument("grid", help="a grid YAML file (see data/sweeps/)")
    w.add_argument(
        "--workers",
        type=int,
        default=None,
        help=f"local worker processes, 1 to {MAX_WORKERS} (default: one per core it may use)",
    )
    w.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="a Dask scheduler address (tcp://host:8786): run the points on that cluster",
    )
    w.add_argument(
        "--out",
        default=None,
        help="results folder (default: the project's sweeps/GRID_NAME folder, "
        f"{paths.PROJECT_ROOT / 'sweeps'}/GRID_NAME, wherever you run it)",
    )
    w.add_argument(
        "--retry-failed",
        action="store_true",
        help="run again the points stored as failed (infrastructure failures are retried anyway)",
    )
    w.add_argument(
        "--trust-notebook",
        action="store_true",
        help="run the notebook a grid names from its own folder: a notebook is code, so only one "
        "whose author you trust (a notebook of the project's notebooks/ runs without it)",
    )
    r = sub.add_parser(
        "schema", help="every scenario key: type, unit, default, allowed values, meaning"
    )
    r.add_argument(
        "target",
        nargs="?",
        metavar="MODEL[.SECTION] | CATEGORY",
        help="one model or section, or a parts file's category (ssds, nics, hosts, ...)",
    )
    r.add_argument(
        "--markdown", action="store_true", help="markdown, as docs/scenario-reference.md holds it"
    )
    n = sub.add_parser("new", help="write a commented starter scenario (no TEMPLATE: list them)")
    n.add_argument("template", nargs="?", help="a template of data/templates/")
    n.add_argument("--out", default=None, metavar="FILE", help="write it here (never overwrites)")
    return parser


# the unit of each figure ``predict --json`` prints whose name does not carry it (a name ending in
# _MBps, _s or _pct does), and of those that do, so that a reader finds every one in one place
JSON_UNITS = {
    "throughput_MBps": "MB/s (10^6 B/s)",
    "bound_MBps": "MB/s",
    "ceiling_MBps": "MB/s (the bound over rated parts, past estimated CPU work)",
    "interval_90": "MB/s",
    "throughput_MBps_interval": "MB/s",
    "path_limit": "MB/s",
    "by_option": "MB/s (the point at each option of the unknown holding 90 % of the spread)",
    "before_model_error": "MB/s (interval_90 before the model's error widened it)",
    "bytes_moved": "B",
    "elapsed_s": "s",
    "cpu_s": "s",
    "cpu_sys_s": "s",
    "cpu_user_s": "s",
    "cpu_util_pct": "% of one core",
    "io_wait_pct": "% of a lone stream's time",
    "requests_per_s": "requests/s",
    "utilization": "1 (share of each component's capacity used)",
    "drivers": "1 (each factor's share of the interval's spread)",
    "model_error": "log_widen_90: 1 (natural log of the factor the interval's ends are widened by)",
}


# the figures a model's ``per`` qualifies (ModelRecord.per: one client's)
PER_FIGURES = {
    "throughput_MBps",
    "bound_MBps",
    "ceiling_MBps",
    "interval_90",
    "throughput_MBps_interval",
    "by_option",
    "before_model_error",
    "path_limit",
    "bytes_moved",
}


def _predict(args) -> int:
    from . import params, registry, uncertainty, unread
    from . import scenario as scenario_module
    from .report import requests_per_s

    scenario = scenario_module.load(
        args.scenario, args.overrides, catalogs=tuple(args.catalogs), typed=True
    )
    scenario_module.check_variants(args.scenario, tuple(args.catalogs))
    values = params.calibrated()
    result, read = uncertainty.simulated(scenario, {}, values, scenario.seed)
    if args.point:  # the interval's design points are checked as the interval would meet them
        scenario_module.check_design(scenario)
    interval = (
        None
        if args.point
        else uncertainty.interval(scenario, progress=f"{scenario.name}: its 90 % interval")
    )
    if args.json:
        from . import provenance

        out = result.to_dict()
        iops = requests_per_s(scenario, result)
        if iops is not None:
            out["requests_per_s"] = iops
        if interval is not None:
            out["interval_90"] = [interval.low, interval.high]
            out["throughput_MBps_interval"] = out["interval_90"]  # the same, as read before
            out["drivers"] = interval.drivers
            out["model_error"] = interval.model_error
            out["path_limit"] = interval.path_limit  # the cap's capacity (null: none bounds it)
            out["by_option"] = interval.by_option  # the leading unknown's options, where it leads
            # the spread the drivers share out, before the model's error (null: none widened it)
            out["before_model_error"] = interval.to_dict()["before_model_error"]
        out["unknowns"] = [u.to_dict() for u in scenario.unknowns]
        # the overrides the configuration does not read, each with why (model.unread)
        out["not_read"] = [u.to_dict() for u in unread.not_read_at(scenario)]
        out["variant"] = scenario.variant
        out["overrides"] = list(scenario.overrides)
        out["seed"] = scenario.seed
        out["parameters"] = {name: values[name] for name in read}
        out["parameter_units"] = params.units(read)
        # one client's figures where the model's are (MDSplus: the docs audit read 0.0164 MB/s at
        # 1,000 clients as the whole)
        per = registry.MODELS[scenario.model].per
        out["units"] = {
            key: unit + (f" per {per}" if per and key in PER_FIGURES else "")
            for key, unit in JSON_UNITS.items()
            if key in out
        }
        out["versions"] = provenance.versions()
        out["commit"] = provenance.commit()
        print(json.dumps(out, sort_keys=True))
        return 0
    from .report import prediction_text

    print(prediction_text(scenario, result, interval, point_only=args.point))
    return 0


def _validate(args) -> int:
    from . import report

    print(
        report.validation(
            as_json=args.json, holdout=args.holdout, show_all=args.all, write_files=args.report
        )
    )
    return 0


def _calibrate(args) -> int:
    from . import report

    print(report.calibration())
    return 0


def _failures_in(results) -> list[tuple[str, str]]:
    """Each failed point's kind and error, as a sweep's ``results.parquet`` stores them, and the
    point's settings (its ``param:`` columns, ``key=value``)."""
    if not results.exists():
        return []
    import pyarrow.parquet as pq

    names = [n for n in pq.read_schema(results).names if n.startswith("param:")]
    table = pq.read_table(results, columns=["status", "failure", "error", *names]).to_pydict()
    return [
        (
            f"{table['failure'][i]}: {table['error'][i]}",
            ", ".join(
                f"{n.removeprefix('param:')}={value}"
                for n in names
                if (value := _setting(table[n][i])) is not None
            ),
        )
        for i, status in enumerate(table["status"])
        if status == "failed"
    ]


def _setting(value) -> str | None:
    """A point's value as its settings are said: None where the point set none (a grid's listed
    points set keys of their own), a whole number without the ``.0`` a column with gaps gives it."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _unread_in(results) -> list[str]:
    """The summary's lines of the keys a sweep's points did not read (``unread.sweep_lines``)."""
    if not results.exists():
        return []
    import pyarrow.parquet as pq

    from . import unread

    if "not_read" not in pq.read_schema(results).names:
        return []
    return unread.sweep_lines(pq.read_table(results, columns=["not_read"])["not_read"].to_pylist())


def _failure_lines(failures: list[tuple[str, str]], shown: int = 3) -> list[str]:
    """The commonest reasons the points failed, at most ``shown``, each with how many points and
    the settings of the point it failed (its first where several did); ``failures``: each point's
    reason and settings (``_failures_in``)."""
    counts = collections.Counter(reason for reason, _ in failures)
    first = {}
    for reason, settings in failures:
        first.setdefault(reason, settings)
    lines = []
    for reason, n in counts.most_common(shown):
        at = _shortened(first[reason])
        at = f" ({'the first at ' if n > 1 else 'at '}{at})" if at else ""
        lines.append(f"  {n:,} point{'s' if n > 1 else ''}{at}: {reason}")
    if len(counts) > shown:
        rest = sum(n for _, n in counts.most_common()[shown:])
        lines.append(
            f"  {rest:,} more, for {len(counts) - shown:,} other "
            f"reason{'s' if len(counts) - shown > 1 else ''} (each point's in the results' "
            "error column)"
        )
    return lines


def _shortened(text: str, most: int = 160) -> str:
    """``text`` whole up to ``most`` characters, else its head and the count left out."""
    return text if len(text) <= most else f"{text[:most]}... ({len(text) - most:,} more)"


def _sweep(args) -> int:
    """Run a grid's points (``model.sweep.run``), then say what ran and where the results are
    (``_tell_sweep``); the options are checked before the grid is read
    (``_check_sweep_options``)."""
    from pathlib import Path

    from .sweep import grid as grid_module
    from .sweep import run as run_module

    _check_sweep_options(args)
    # a SIGTERM while the grid is read and checked ends it as Ctrl-C does (it had ended the
    # process with status 143 and no word), as it does once points run
    try:
        with run_module.sigterm_as_ctrl_c():
            grid, points = grid_module.load(
                args.grid, trust_notebook=args.trust_notebook, progress=True
            )
            # absolute: a cluster's workers, started in other folders, read and write it too
            out = (
                Path(args.out).absolute()
                if args.out is not None
                else paths.PROJECT_ROOT / "sweeps" / grid.name
            )
            for line in _unread_at_first(grid, points):
                print(one_line(line), file=sys.stderr)
            finished, failed, skipped = run_module.run(
                grid,
                points,
                out,
                workers=args.workers,
                scheduler=args.scheduler,
                retry_failed=args.retry_failed,
            )
    except KeyboardInterrupt:  # before any point ran (a Ctrl-C during the points is Stopped)
        print(one_line(f"{args.grid}: interrupted before any point ran"), file=sys.stderr)
        return INTERRUPTED_STATUS
    return _tell_sweep(grid, len(points), out, finished, failed, skipped)


def _unread_at_first(grid, points: list[dict]) -> list[str]:
    """The grid's keys its first point does not read (``unread.not_read_at``), each with why, said
    before the points run, so that a grid whose axis changes nothing can be stopped at once; none
    for a notebook grid, whose points record no such column, or a first point its scenario
    refuses (recorded as a failed point)."""
    from . import unread
    from .sweep.point import point_scenario

    if grid.engine != "inprocess" or not points:
        return []
    spec = {
        "scenario": grid.scenario,
        "base": grid.base_with_seed,
        "point": points[0],
        "folder": grid.folder,
    }
    try:
        told = unread.not_read_at(point_scenario(spec))
    except UserError:
        return []
    return [
        f"{grid.name}: its first point does not read {u.text}: {u.why} (the sweep goes on; its "
        "summary counts the points that do not)"
        for u in told
    ]


def _check_sweep_options(args) -> None:
    """Refuse in one line a ``sweep`` option out of its range, an empty ``--out`` or
    ``--scheduler`` (an unset variable in a script), ``--workers`` beside ``--scheduler``, and a
    scheduler address Dask cannot read."""
    from .sweep import run as run_module

    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise UserError(
            "--workers", None, f"must be an integer from 1 to {MAX_WORKERS}, got {args.workers}"
        )
    if args.out is not None and not args.out.strip():
        raise UserError("--out", None, "must name a folder, got an empty string")
    if args.scheduler is not None and not args.scheduler.strip():
        raise UserError(
            "--scheduler",
            None,
            "must be a Dask scheduler address (tcp://HOST:PORT), got an empty string; leave the "
            "option out to run the points on this machine",
        )
    if args.scheduler is not None and args.workers is not None:
        raise UserError(
            "--workers",
            None,
            "sets this machine's worker processes, and with --scheduler the cluster's workers "
            "run the points: give one of the two",
        )
    if args.scheduler is not None:  # a mistake in it said at once, before the grid is checked
        run_module.check_address(args.scheduler)


def _tell_sweep(grid, points: int, out, finished: int, failed: int, skipped: int) -> int:
    """Print a sweep's summary line, its failures by reason and, for a grid with intervals, what
    moves the predictions most; the command's exit status."""
    results = out / "results.parquet"
    failures = _failures_in(results)
    earlier = len(failures) - failed  # stored failures a resumed run did not run again
    print(  # one line whatever the folder's name holds (an --out with a line break had split it)
        one_line(
            f"{grid.name}: {points:,} point{'s' if points != 1 else ''}; {finished:,} "
            f"run now ({failed:,} failed), {skipped:,} already done"
            + (f" ({earlier:,} of them failed: --retry-failed runs them again)" if earlier else "")
            + f"; results in {paths.openable(results)}"
        )
    )
    if failures:
        print("failed, by reason:")
        print("\n".join(_failure_lines(failures)))
    unread_lines = _unread_in(results)
    if unread_lines:  # a key a point did not read changed nothing there (model.unread)
        print("not read, by key (each point's in the results' not_read column):")
        print("\n".join(one_line(line) for line in unread_lines))
    if grid.intervals and results.exists():
        from .sweep import sensitivity

        lines = sensitivity.write_ranking(results)
        if lines:
            print(
                "what moves the predictions most (each driver's share of the 90 % intervals' "
                f"spread; all in {one_line(paths.openable(out / 'drivers.csv'))}):"
            )
            print("\n".join(lines))
    return POINTS_FAILED_STATUS if failures else 0


def _schema(args) -> int:
    from . import reference

    refs = reference.select(args.target)
    render = reference.markdown if args.markdown else reference.text
    print(render(refs, header=not args.target), end="\n" if not args.markdown else "")
    return 0


def _new(args) -> int:
    from . import templates

    if args.template is None:
        print(templates.listing())
        return 0
    text = templates.text(args.template)
    if args.out is None:
        print(text, end="")
    else:
        print(templates.write(text, args.out), file=sys.stderr)
    return 0


@contextlib.contextmanager
def _ctrl_c_from_finalizers() -> Iterator[None]:
    """A Ctrl-C that lands in a finalizer (a weakref callback numba runs as it frees its types) is
    one Python ignores, printing its traceback, and the command went on to exit 0 (the README
    audit: once in 21 tries): held and raised once the command returns."""
    caught: list[BaseException] = []
    before = sys.unraisablehook

    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            caught.append(unraisable.exc_value)
        else:
            before(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = before
    if caught:
        raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        commands = {
            "predict": _predict,
            "validate": _validate,
            "calibrate": _calibrate,
            "sweep": _sweep,
            "schema": _schema,
            "new": _new,
        }
        with _ctrl_c_from_finalizers():
            return commands[args.command](args)
    except UserError as exc:
        print(exc.line(), file=sys.stderr)
        return exc.exit_status
    except NotModelled as exc:
        print(one_line(f"not modelled yet: {exc}"), file=sys.stderr)
        return NOT_MODELLED_STATUS
    except KeyboardInterrupt:  # Ctrl-C: the user knows why it stopped, a traceback says nothing
        print(f"{args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED_STATUS
