"""Which fact is worth asking the vendor about: a sweep's points ranked by what moves their
predictions.

A grid with ``intervals: true`` stores each point's 90 % interval and its ``drivers``
(``model.uncertainty``: each declared unknown's, each calibrated parameter's and the simulation
noise's share of the spread). Averaged over the points, the shares rank the unknowns beside the
parameters; a notebook's Sobol ranking of the swept keys (``sweep_summary``) says what the design
choices do, this says what the unknown facts do.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd


def driver_ranking(table: pd.DataFrame) -> pd.DataFrame:
    """Per driver, over the sweep's finished points with intervals: its mean share of the spread,
    the largest, and at how many points it moves the prediction at all; largest mean first."""
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
    ranking["kind"] = [_kind(name) for name in ranking.index]
    return ranking.sort_values("mean_share", ascending=False)


def _kind(driver: str) -> str:
    if driver.startswith("parameter "):
        return "calibrated parameter"
    if driver == "simulation noise":
        return "simulation noise"
    return "declared unknown"


def write_ranking(results: Path, top: int = 5) -> list[str]:
    """Rank the drivers of a finished sweep's stored intervals (``results.parquet``), write the
    whole ranking beside it as ``drivers.csv`` and return a line for each of the ``top`` first
    (its mean share of the points' spread, in %, and at how many points it moves them)."""
    table = pd.read_parquet(results)
    if "drivers" not in table.columns:  # no point finished with an interval
        return []
    ranking = driver_ranking(table)
    ranking.rename_axis("driver").to_csv(results.parent / "drivers.csv")
    return [
        f"  {name}: {100 * row.mean_share:.1f} % of the spread on average "
        f"(at most {100 * row.max_share:.1f} %, moves {row.points_moved} point"
        f"{'' if row.points_moved == 1 else 's'}; {row.kind})"
        for name, row in ranking.head(top).iterrows()
    ]
