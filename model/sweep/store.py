"""A sweep's results on disk: one parquet file per finished point, written atomically.

A point's file appears whole or not at all (written beside, then renamed), so an interrupted run
leaves only finished points; running the grid again skips them. ``results.parquet`` gathers the
grid's current points into one tidy table: points run for superseded inputs (another calibration,
catalog or scenario, which change every point's id) stay on disk but out of it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd


def point_id(
    grid_target: str,
    engine: str,
    seed: int,
    base: tuple[str, ...],
    index: int,
    point: dict[str, Any],
) -> str:
    """A stable name for a point: the same grid point always gets the same id. The index keeps
    apart equal points of a sampled design (Saltelli's design repeats some on purpose)."""
    text = json.dumps(
        {
            "target": grid_target,
            "engine": engine,
            "seed": seed,
            "base": list(base),
            "index": index,
            "point": sorted((k, repr(v)) for k, v in point.items()),
        },
        sort_keys=True,
    )
    return hashlib.sha1(text.encode()).hexdigest()[:16]


class Store:
    def __init__(self, out: Path):
        self.out = Path(out)
        self.points = self.out / "points"
        self.notebooks = self.out / "notebooks"
        self.points.mkdir(parents=True, exist_ok=True)

    def done(self) -> set[str]:
        """Ids of the points already finished (successfully or not)."""
        return {p.stem for p in self.points.glob("*.parquet")}

    def write(self, record: dict[str, Any]) -> None:
        final = self.points / f"{record['point_id']}.parquet"
        partial = self.points / f".{record['point_id']}.{os.getpid()}.partial"
        pd.DataFrame([record]).to_parquet(partial, index=False)
        os.replace(partial, final)

    def table(self, ids: set[str] | None = None) -> pd.DataFrame:
        """The finished points (those of ``ids`` only, when given), one row each."""
        files = sorted(f for f in self.points.glob("*.parquet") if ids is None or f.stem in ids)
        if not files:
            return pd.DataFrame()
        return pd.DataFrame.from_records(
            [row for f in files for row in pd.read_parquet(f).to_dict("records")]
        )

    def gather(self, ids: set[str]) -> Path:
        """Write the finished points of ``ids`` into ``results.parquet`` (atomically); its path."""
        path = self.out / "results.parquet"
        partial = self.out / f".results.{os.getpid()}.partial"
        self.table(ids).to_parquet(partial, index=False)
        os.replace(partial, path)
        return path
