"""Which fact is worth asking the vendor about: a sweep's points ranked by what moves their
predictions.

A grid with ``intervals: true`` stores each point's 90 % interval, its ends before the model's
error widened them (the spread the drivers share out) and its ``drivers`` (``model.uncertainty``:
each declared unknown's, each free parameter's and the simulation noise's share of the spread).
Averaged over the points, the shares rank the unknowns beside the parameters, a parameter's
``kind`` telling one the calibration fitted (its spread the fit's uncertainty) from one no table
informs (``calibrate.uninformed``: its spread its declared range). A notebook's Sobol ranking of
the swept keys (``sweep_summary``, ``sobol_ranking``) says what the design choices do, this says
what the unknown facts do.

``sobol_ranking`` computes a grid's Sobol indices over its own Saltelli design (the ``sobol``
sample's rows, after any product and listed points) and refuses, with ``NotRanked``'s one line,
when a point of the design failed: Saltelli's estimator needs every point, and a failure counted as
0 MB/s ranks the keys by what fails rather than by what moves the throughput.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from .. import params
from .grid import Grid

CALIBRATED = "calibrated parameter"  # a driver's kind: a parameter a table informs, fitted
UNINFORMED = "free parameter, no table informs it: its declared range"  # left at its default


def driver_ranking(table: pd.DataFrame) -> pd.DataFrame:
    """Per driver, over the sweep's finished points with intervals: its mean share of the spread,
    the largest, at how many points it moves the prediction at all and its ``kind`` (a declared
    unknown, the simulation noise, a ``CALIBRATED`` parameter or an ``UNINFORMED`` one, as the
    stored calibration tells them); largest mean first."""
    if "drivers" not in table.columns:
        raise ValueError("the sweep stored no intervals: set intervals: true in its grid")
    ok = table[(table.status == "ok") & table.drivers.notna()]
    shares = pd.DataFrame([json.loads(d) for d in ok.drivers], index=ok.index).fillna(0.0)
    if shares.empty:
        return pd.DataFrame(columns=["mean_share", "max_share", "points_moved", "kind"])
    ranking = pd.DataFrame(
        {
            "mean_share": shares.mean(),
            "max_share": shares.max(),
            "points_moved": (shares > 0).sum(),
        }
    )
    from .. import calibrate  # scipy's optimiser and the validation: only where a sweep ranks

    unfitted = calibrate.uninformed(params.rows_depending())
    ranking["kind"] = [_kind(name, unfitted) for name in ranking.index]
    return ranking.sort_values("mean_share", ascending=False)


def _kind(driver: str, unfitted: frozenset[str]) -> str:
    """What ``driver`` is, ``unfitted`` the parameters no table informs."""
    if driver.startswith("parameter "):
        return UNINFORMED if driver.removeprefix("parameter ") in unfitted else CALIBRATED
    if driver == "simulation noise":
        return "simulation noise"
    return "declared unknown"


def write_ranking(results: Path, top: int = 5) -> list[str]:
    """Rank the drivers of a finished sweep's stored intervals (``results.parquet``), write the
    whole ranking beside it as ``drivers.csv`` and return a line for each of the ``top`` first
    (its mean share of the points' spread, in %, at how many points it moves them and its
    ``kind``); one line saying nothing moves them where no point's interval has a driver."""
    table = pd.read_parquet(results)
    if "drivers" not in table.columns:  # no point finished with an interval
        return []
    ranking = driver_ranking(table)
    ranking.rename_axis("driver").to_csv(results.parent / "drivers.csv")
    if ranking.empty:  # as predict says it of one point (an audit: the sweep had said nothing)
        return [
            "  nothing: no declared unknown, parameter or seed moves any point; each interval's "
            "width is the model's measured error"
        ]
    return [
        f"  {name}: {100 * row.mean_share:.1f} % of the spread on average "
        f"(at most {100 * row.max_share:.1f} %, moves {row.points_moved} point"
        f"{'' if row.points_moved == 1 else 's'}; {row.kind})"
        for name, row in ranking.head(top).iterrows()
    ]


class NotRanked(ValueError):
    """Why a sweep's Sobol indices are not computed, in one line (``str`` of it)."""


def sobol_design(grid: Grid) -> range:
    """The ``point_index`` of each point of a grid's Saltelli design (its ``sobol`` sample), in
    the design's order: the sample comes after the grid's product and listed points."""
    sample = grid.sample
    if sample is None or sample.method != "sobol":
        return range(0)
    size = sample.n * (len(sample.keys()) + 2)
    return range(grid.count() - size, grid.count())


def sobol_ranking(
    grid: Grid, table: pd.DataFrame, column: str = "throughput_MBps", seed: int = 1
) -> pd.DataFrame:
    """First-order (S1) and total (ST) Sobol indices of ``column`` for each key of the grid's
    ``sobol`` sample, with their 95 % confidence intervals (SALib's bootstrap, seeded by ``seed``),
    largest ST first; computed over the design's own points only.

    Raises ``NotRanked`` when the grid has no sobol sample, when the results miss a point of the
    design, when a point of it failed or gave no finite ``column`` (SALib's estimator has no
    missing values: a point filled in would be ranked as if it had that value), or when ``column``
    is the same at every point (no key moves it)."""
    from SALib.analyze import sobol

    rows = sobol_design(grid)
    if not rows:
        method = grid.sample.method if grid.sample is not None else None
        raise NotRanked(
            f"the grid's sample is {method}, not sobol (Saltelli's design)"
            if method
            else "the grid has no sobol sample (Saltelli's design)"
        )
    names = grid.sample.keys()
    over = ", ".join(names)
    design = table[table.point_index.isin(rows)].sort_values("point_index")
    if len(design) != len(rows) or list(design.point_index) != list(rows):
        raise NotRanked(
            f"the results hold {len(design)} of the {len(rows)} points of the Sobol design "
            f"over {over}; run the sweep to the end"
        )
    ok = design.status == "ok"
    if column not in design.columns:
        raise NotRanked(f"the results have no column {column!r}")
    y = pd.to_numeric(design[column].where(ok), errors="coerce").to_numpy(dtype=float)
    missing = ~np.isfinite(y)
    if missing.any():
        failed = int((~ok).sum())
        blank = int(missing.sum()) - failed
        what = [f"{failed} of {len(rows)} points failed"] if failed else []
        what += [f"{blank} of {len(rows)} gave no finite {column}"] if blank else []
        raise NotRanked(
            f"{' and '.join(what)} in the Sobol design over {over}; Saltelli's estimator needs "
            f"every point, and a missing one filled in (as 0) would rank what fails, not what "
            f"moves {column}"
        )
    if np.ptp(y) == 0:
        raise NotRanked(
            f"{column} is {y[0]:.6g} at every point of the Sobol design over {over}: no key "
            "moves it within its range"
        )
    problem = {"num_vars": len(names), "names": names, "bounds": [[0.0, 1.0]] * len(names)}
    indices = sobol.analyze(problem, y, calc_second_order=False, print_to_console=False, seed=seed)
    ranking = pd.DataFrame({k: indices[k] for k in ("S1", "S1_conf", "ST", "ST_conf")}, index=names)
    return ranking.sort_values("ST", ascending=False)
