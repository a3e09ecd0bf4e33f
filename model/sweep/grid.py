"""Sweep grids: which scenario or notebook, and which points, checked before anything runs.

A grid file (YAML) names a ``scenario`` (run in-process through ``simulate()`` or through the
parameterised notebook ``notebooks/sweep_point.ipynb``) or a ``notebook`` of its own, and its
points as any of: the ``product`` of lists, an explicit list of ``points``, a ``sample`` of ranges
(``random``, Latin-hypercube ``lhs``, or Saltelli's ``sobol`` design for Sobol indices). Every point is a mapping of dotted scenario keys (or
notebook parameters) to values; ``base`` holds overrides every point shares.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from scipy.stats import qmc

from .. import paths, registry
from .. import scenario as scenario_module
from ..errors import UserError
from ..schema import PositiveInt, build_dataclass, field_type


@dataclass(frozen=True)
class Sample:
    method: Literal["random", "lhs", "sobol"]
    n: PositiveInt  # points; for sobol, base samples (the design has n x (keys + 2) points)
    ranges: dict[str, tuple[Any, ...]]  # [low, high]; integers at both ends sample integers
    seed: int = 1


@dataclass(frozen=True)
class Grid:
    name: str
    scenario: str | None = None
    notebook: str | None = None
    engine: Literal["inprocess", "papermill"] = "inprocess"
    seed: int = 1
    base: tuple[str, ...] = ()
    product: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    points: tuple[dict[str, Any], ...] = ()
    sample: Sample | None = None
    path: str = ""

    def check(self, where: str, key: str) -> None:
        if (self.scenario is None) == (self.notebook is None):
            raise UserError(where, "scenario", "a grid names exactly one of scenario or notebook")
        if self.notebook is not None and self.engine != "papermill":
            raise UserError(where, "engine", "a notebook grid runs with engine: papermill")
        for k, values in self.product.items():
            if not values:
                raise UserError(where, f"product.{k}", "must list at least one value")
        if self.sample is not None:
            for k, span in self.sample.ranges.items():
                numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in span)
                if len(span) != 2 or not numeric or not span[0] < span[1]:
                    raise UserError(
                        where,
                        f"sample.ranges.{k}",
                        f"must be [low, high] with low < high, got {list(span)}",
                    )
        if not (self.product or self.points or self.sample):
            raise UserError(where, "product", "a grid needs product, points or sample")

    def keys(self) -> list[str]:
        found = list(self.product)
        for point in self.points:
            found += [k for k in point if k not in found]
        if self.sample is not None:
            found += [k for k in self.sample.ranges if k not in found]
        return found


def _sampled(sample: Sample) -> list[dict[str, Any]]:
    keys = list(sample.ranges)
    rng = np.random.default_rng(sample.seed)
    if sample.method == "lhs":
        unit = qmc.LatinHypercube(d=len(keys), seed=rng).random(sample.n)
    elif sample.method == "sobol":  # Saltelli's design, for SALib's Sobol indices
        from SALib.sample import sobol

        problem = {"num_vars": len(keys), "names": keys, "bounds": [[0.0, 1.0]] * len(keys)}
        unit = sobol.sample(problem, sample.n, calc_second_order=False, seed=sample.seed)
    else:
        unit = rng.random((sample.n, len(keys)))
    points = []
    for row in unit:
        point = {}
        for k, u in zip(keys, row):
            low, high = sample.ranges[k]
            if isinstance(low, int) and isinstance(high, int):
                point[k] = int(min(np.floor(low + u * (high - low + 1)), high))
            else:
                point[k] = float(low + u * (high - low))
        points.append(point)
    return points


def expand(grid: Grid) -> list[dict[str, Any]]:
    """Every point of the grid, in a stable order: the product, then the list, then the sample."""
    points = (
        [dict(zip(grid.product, combo)) for combo in itertools.product(*grid.product.values())]
        if grid.product
        else []
    )
    points += [dict(p) for p in grid.points]
    if grid.sample is not None:
        points += _sampled(grid.sample)
    return points


def _check_keys(grid: Grid, points: list[dict[str, Any]]) -> None:
    """Refuse a key the scenario does not have, and a value it does not admit, before running."""
    if grid.scenario is None:
        return
    where = grid.path
    base = list(grid.base)
    loaded = scenario_module.load(grid.scenario, base, where_overrides=f"{where} base")
    body_cls = registry.MODELS[loaded.model].body
    for key in grid.keys():
        if key != "variant" and field_type(body_cls, key.split(".")) is None:
            raise UserError(where, key, f"no such key in scenario {grid.scenario}")
    seen: set[tuple[str, str]] = set()
    for point in points:  # each distinct value once: the grid's cost stays in the points
        for k, v in point.items():
            if (k, repr(v)) not in seen and not (grid.sample and k in grid.sample.ranges):
                seen.add((k, repr(v)))
                scenario_module.load(
                    grid.scenario, base + [f"{k}={v}"], where_overrides=f"{where} {k}"
                )


def load(path: str | Path) -> tuple[Grid, list[dict[str, Any]]]:
    """The validated grid at ``path`` and its points; a mistake exits 2 before anything runs."""
    path = Path(path)
    where = paths.shown(path)
    raw = scenario_module.read_yaml(path)
    raw.setdefault("name", path.stem)
    grid = build_dataclass(Grid, {**raw, "path": where}, where)
    if (
        grid.notebook is not None
        and not (paths.PROJECT_ROOT / grid.notebook).exists()
        and not Path(grid.notebook).exists()
    ):
        raise UserError(where, "notebook", f"no such notebook {grid.notebook!r}")
    points = expand(grid)
    _check_keys(grid, points)
    return grid, points
