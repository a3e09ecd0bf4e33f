"""Sweep grids: which scenario or notebook, and which points, checked before anything runs.

A grid file (YAML) names a ``scenario`` (run in-process through ``simulate()`` or through the
parameterised notebook ``notebooks/sweep_point.ipynb``) or a ``notebook`` of its own, and its
points as any of: the ``product`` of lists, an explicit list of ``points``, a ``sample`` of ranges
and of options, a few values each as likely (``random``, Latin-hypercube ``lhs``, or Saltelli's
``sobol`` design for Sobol indices). Every point is a mapping of dotted scenario keys (or notebook
parameters) to values; ``base`` holds overrides every point shares; ``seed`` (or a point's own
``seed`` key) is the scenario's seed; ``intervals: true`` stores each point's 90 % interval, its
ends before the model's error widened them and what drives it (``model.uncertainty``: the
scenario's declared unknowns among them), for ``model.sweep.sensitivity``.

A grid is refused, with one line, when its ``name`` is not a plain name (it names the results
folder), when it would hold more than ``MAX_POINTS`` points (counted before any is built), when it
names a notebook of its own folder rather than of the project's ``notebooks/`` (a notebook is code:
``load``'s ``trust_notebook``, ``--trust-notebook``, runs it), when a value holds itself (a YAML
alias inside its own anchor) or nests deeper through aliases than a file may, when a notebook
grid's parameter is not a name its notebook's ``parameters`` cell declares (papermill writes the
names into the notebook as code), and when a sampled range's end, a listed point (whole) or a
product's value (beside the combinations of the product's other values it is tried with) is one
the scenario refuses.
"""

from __future__ import annotations

import ast
import functools
import itertools
import json
import keyword
import math
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal

from .. import catalog as catalog_module
from .. import paths, registry, yamlio
from .. import scenario as scenario_module
from ..catalog import Catalog
from ..errors import UserError, readable
from ..schema import (
    NonNegativeInt,
    PositiveInt,
    Words,
    build,
    build_dataclass,
    field_type,
    stepped,
)

MAX_POINTS = 100_000  # about 8 h of 0.3 s points on one core; split a larger design into grids
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
SCENARIO_KEYS = scenario_module.OVERRIDE_KEYS  # keys a scenario grid sets besides the model's
# a grid's key becomes a --set override (``setting``), which would split at an '=' in it
EQUALS_IN_KEY = "a scenario key holds no '='; give key: value"


@dataclass(frozen=True)
class Sample:
    method: Literal["random", "lhs", "sobol"]
    n: PositiveInt  # points; for sobol, base samples (the design has n x (keys + 2) points)
    # each key's [low, high]; integers at both ends sample integers, else any number between
    ranges: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    # each key's values, one of which a point takes, each as likely (a size the hardware offers
    # a few of, which a range would sample between: an MD3260's cache block, 4, 8, 16 or 32 KiB)
    options: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    seed: NonNegativeInt = 1  # numpy refuses a negative seed

    def keys(self) -> list[str]:
        """The keys it samples: those of its ranges, then those of its options."""
        return [*self.ranges, *self.options]

    def check(self, where: str, key: str) -> None:
        """At least one key, each a range of two finite numbers, low below high, or options of at
        least one value, and none both."""
        if not self.keys():
            raise UserError(
                where, f"{key}.ranges", "must give at least one key's [low, high] (or options)"
            )
        for k, span in self.ranges.items():
            numeric = all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for v in span
            )
            if len(span) != 2 or not numeric or not span[0] < span[1]:
                raise UserError(
                    where,
                    f"{key}.ranges.{k}",
                    f"must be [low, high], finite numbers with low < high, got {list(span)}",
                )
        for k, values in self.options.items():
            if k in self.ranges:
                raise UserError(
                    where, f"{key}.options.{k}", "is sampled over sample.ranges too: give one"
                )
            if not values:
                raise UserError(where, f"{key}.options.{k}", "must list at least one value")


# an override as --set takes it, which purchase_nvme and purchase_hdd_md load
_EXAMPLE = "volumes.data.level=raid10"
# one of a grid's base overrides: a mapping written there ({volumes.data.level: raid10}, a YAML
# slip) had been told "must be a string"
Override = Annotated[str, Words(f"a KEY=VALUE string as --set takes it, e.g. {_EXAMPLE}")]


def _as_overrides(value: object) -> str:
    """How to write a grid's base, the overrides every point shares as --set takes them: a mapping
    written there had been told "must be a list of string" (the parts audit)."""
    shown = "a mapping" if isinstance(value, dict) else readable(value)
    return f"must be a list of KEY=VALUE strings, e.g. - {_EXAMPLE}, got {shown}"


@dataclass(frozen=True)
class Grid:
    name: str
    scenario: str | None = None
    notebook: str | None = None
    engine: Literal["inprocess", "papermill"] = "inprocess"
    seed: NonNegativeInt | None = None  # the scenario's own seed when not given
    base: tuple[Override, ...] = field(default=(), metadata={"hint": _as_overrides})
    product: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    points: tuple[dict[str, Any], ...] = ()
    sample: Sample | None = None
    # store each point's 90 % interval, its ends before the model's error and its drivers
    # (model.uncertainty), a few more runs a point
    intervals: bool = False
    # a papermill point's time limit for each of its notebook's cells, whole seconds (papermill's
    # execution_timeout, which takes an integer): a cell that runs longer fails its point
    # (CellTimeoutError) and the rest go on; unset, none. An in-process point's cost the lab
    # bounds itself (its models' limits)
    timeout_s: PositiveInt | None = None
    path: str = field(default="", metadata={"internal": True})  # the grid file, as shown
    # the grid file's folder, in full: a value that names a file is read in it or below it
    folder: str = field(default="", metadata={"internal": True})

    @property
    def base_with_seed(self) -> tuple[str, ...]:
        """The overrides every point starts from: ``base``, and the grid's ``seed`` where given."""
        return self.base + ((f"seed={self.seed}",) if self.seed is not None else ())

    def check(self, where: str, key: str) -> None:
        if not NAME.fullmatch(self.name):
            raise UserError(
                where,
                "name",
                f"must be a plain name (letters, digits, _ and -, at most 64), got {self.name!r}",
            )
        if self.sample is not None and self.sample.method == "sobol":
            n = self.sample.n
            if n & (n - 1):  # SALib only warns, on stderr, and samples anyway
                raise UserError(
                    where,
                    "sample.n",
                    f"must be a power of two for sobol (the Sobol' sequence converges for 2^m base "
                    f"samples), got {n}",
                )
        if (self.scenario is None) == (self.notebook is None):
            raise UserError(where, "scenario", "a grid names exactly one of scenario or notebook")
        if self.notebook is not None and self.engine != "papermill":
            raise UserError(where, "engine", "a notebook grid runs with engine: papermill")
        if self.intervals and self.engine != "inprocess":
            raise UserError(where, "intervals", "only an inprocess grid stores intervals")
        if self.timeout_s is not None and self.engine != "papermill":
            raise UserError(
                where,
                "timeout_s",
                "only a papermill grid's points have a time limit (an in-process point's models "
                "bound their own cost); remove it",
            )
        for k, values in self.product.items():
            if not values:
                raise UserError(where, f"product.{k}", "must list at least one value")
        if not (self.product or self.points or self.sample):
            raise UserError(where, "product", "a grid needs product, points or sample")
        if self.count() > MAX_POINTS:
            raise UserError(
                where,
                None,
                f"{self.count():,} points; a grid holds at most {MAX_POINTS:,} (split it)",
            )

    def count(self) -> int:
        """The number of points, without building them."""
        sampled = 0
        if self.sample is not None:
            per_base = len(self.sample.keys()) + 2 if self.sample.method == "sobol" else 1
            sampled = self.sample.n * per_base
        product = math.prod(len(v) for v in self.product.values()) if self.product else 0
        return product + len(self.points) + sampled

    def origins(self) -> dict[str, str]:
        """Each key the points set, with where the grid file sets it first, as a refusal names it
        (``product.clients.count``, ``points[2].seed``, ``sample.ranges.workload.total_MB``)."""
        found = {k: f"product.{k}" for k in self.product}
        for i, point in enumerate(self.points):
            for k in point:
                found.setdefault(k, f"points[{i}].{k}")
        if self.sample is not None:
            for k in self.sample.ranges:
                found.setdefault(k, f"sample.ranges.{k}")
            for k in self.sample.options:
                found.setdefault(k, f"sample.options.{k}")
        return found

    def keys(self) -> list[str]:
        """The keys the points set, in the order the file first sets them."""
        return list(self.origins())

    def values_given(self) -> list[tuple[str, str, Any]]:
        """Each value the file lists under ``product``, ``points`` and a sample's ``options``:
        where it sets it (``product.clients.count``, ``points[2].seed``), its key and the
        value."""
        given = [(f"product.{k}", k, v) for k, values in self.product.items() for v in values]
        given += [
            (f"points[{i}].{k}", k, v) for i, p in enumerate(self.points) for k, v in p.items()
        ]
        if self.sample is not None:
            given += [
                (f"sample.options.{k}", k, v)
                for k, values in self.sample.options.items()
                for v in values
            ]
        return given


def _sampled(sample: Sample) -> list[dict[str, Any]]:
    # here, not at the top: a papermill point's notebook imports this module for ``setting``, and
    # scipy.stats took some 2 s of each point's start (make bench: 2.7x an empty notebook)
    import numpy as np
    from scipy.stats import qmc

    keys = sample.keys()
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
        for k, u in zip(keys, row, strict=True):
            if k in sample.options:  # each of its values over an equal share of [0, 1)
                values = sample.options[k]
                point[k] = values[min(int(u * len(values)), len(values) - 1)]
                continue
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
        [
            dict(zip(grid.product, combo, strict=True))
            for combo in itertools.product(*grid.product.values())
        ]
        if grid.product
        else []
    )
    points += [dict(p) for p in grid.points]
    if grid.sample is not None:
        points += _sampled(grid.sample)
    return points


def notebook_path(grid: Grid) -> Path:
    """A notebook grid's notebook, as ``load`` resolved it."""
    return Path(str(grid.notebook))


def _base_files(grid: Grid) -> Grid:
    """``grid`` with each ``base`` override that names a file by a path (``storage=store.yaml``)
    naming it in full, read in the grid's folder or below it (refused outside)."""
    base, first = [], {}
    for i, override in enumerate(grid.base):
        key, value = scenario_module.parse_assignment(override, f"{grid.path}: base[{i}]")
        _check_base_key(grid, i, key, first)
        _check_file(grid, key, value, f"base[{i}].{key}")
        base.append(setting(key, value, grid.folder) if names_a_file(key, value) else override)
    return replace(grid, base=tuple(base))


def _check_base_key(grid: Grid, index: int, key: str, first: dict[str, int]) -> None:
    """Refuse a ``base`` override no point would use: a key base sets twice (the last one won),
    or the seed the grid's own ``seed`` sets (which won). A key every point sets itself stays: it
    may be what makes the base configuration, which is checked alone, a valid one."""
    at = f"base[{index}]"
    if key in first:
        raise UserError(
            grid.path, at, f"sets {key} again (base[{first[key]}] sets it): give it once"
        )
    first[key] = index
    if key == "seed" and grid.seed is not None:
        raise UserError(
            grid.path, at, f"sets the seed the grid's seed: {grid.seed} sets: give it once"
        )


def _check_file(grid: Grid, key: str, value: Any, at: str) -> None:
    """A grid's value that names a file by a path names one in the grid's folder or below it,
    and one that is there (told as the user typed it, not as resolved)."""
    if not names_a_file(key, value):
        return
    folder = paths.shown(Path(grid.folder))
    file = grid_file(key, value, grid.folder)
    if file is None:
        must = f"must be a scenario name or a file in {folder} or below it (the grid's folder)"
        raise UserError(grid.path, at, paths.outside(Path(grid.folder), value, must))
    if not paths.is_file(file):
        raise UserError(grid.path, at, f"no such file {value!r} in {folder} (the grid's folder)")


def _resolved(grid: Grid, folder: Path, trust_notebook: bool) -> Grid:
    """``grid`` with the files it names resolved: a scenario named by a path, and a notebook, are
    read only in the grid's ``folder`` or below it, or for a notebook in the project's
    ``notebooks/`` (named from the project's root, as ``notebooks/sweep_point.ipynb``). A notebook
    is code, which the sweep runs: one of the grid's own (not of ``notebooks/``) is refused unless
    ``trust_notebook`` (``--trust-notebook``, the word of the person running the sweep)."""
    where = grid.path
    if grid.scenario is not None:
        file = scenario_module.named_scenario(grid.scenario, folder, where, "scenario")
        if not scenario_module.plain_name(grid.scenario):
            grid = replace(grid, scenario=str(file))
    if grid.notebook is not None:
        file = paths.inside(folder, grid.notebook)
        project = paths.inside(paths.NOTEBOOKS, paths.PROJECT_ROOT / grid.notebook)
        if file is None or not paths.exists(file):
            file = project if project is not None and paths.exists(project) else file
        if file is None:
            must = f"must be a notebook in notebooks/ or in {paths.shown(folder)} or below it"
            raise UserError(where, "notebook", paths.outside(folder, grid.notebook, must))
        if paths.exists(file) and not paths.is_project_notebook(file) and not trust_notebook:
            raise UserError(
                where,
                "notebook",
                f"{paths.shown(file)} is the grid's own notebook, and a notebook is code the "
                "sweep would run: name one of notebooks/, or pass --trust-notebook if you trust "
                "whoever wrote it",
            )
        grid = replace(grid, notebook=str(file))
    return grid


def notebook_parameters(notebook: Path, where: str) -> dict[str, str]:
    """Each name the notebook's cell tagged ``parameters`` assigns, with the text of the value it
    gives there (its default, which a point the grid does not set it for runs with)."""
    try:
        # a pipe would block the read below, a folder cannot be read
        if not paths.is_file(notebook):
            raise OSError("not a regular file")
        cells = json.loads(notebook.read_text())["cells"]
        source = next(
            "".join(c["source"])
            for c in cells
            if "parameters" in c.get("metadata", {}).get("tags", [])
        )
        tree = ast.parse(source)
    except (OSError, ValueError, KeyError, TypeError, StopIteration, SyntaxError):
        raise UserError(
            where, "notebook", f"{paths.shown(notebook)} has no readable cell tagged parameters"
        ) from None
    found = {}
    for node in tree.body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue  # a bare annotation (d: int) gives no value a point could run with
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(target, ast.Name):  # a = 1: its value, as written
                found[target.id] = ast.get_source_segment(source, node.value)
            elif isinstance(target, (ast.Tuple, ast.List)):  # a, b = 1, 2: the statement
                for name in target.elts:
                    if isinstance(name, ast.Name):
                        found[name.id] = ast.get_source_segment(source, node)
            # cfg["k"] = 9 and obj.x = 9 change a value; they name no parameter
    return found


def _check_parameters(grid: Grid) -> None:
    """A notebook grid's keys are Python names its notebook declares, other than ``result_path``,
    the sweep's own; anything else is refused."""
    where = grid.path
    notebook = notebook_path(grid)
    if not paths.is_file(notebook):
        raise UserError(where, "notebook", f"no such notebook {grid.notebook!r}")
    declared = set(notebook_parameters(notebook, where))
    if "result_path" not in declared:  # a point would end with no figures to record
        raise UserError(
            where,
            "notebook",
            f"{paths.shown(notebook)} declares no result_path in its parameters cell; a sweep's "
            "notebook writes its figures there as a JSON object (notebooks/sweep_point.ipynb)",
        )
    declared -= {"result_path"}
    keys = grid.keys() + (["seed"] if grid.seed is not None else [])
    for key in keys:
        if key == "result_path":  # declared, yet called undeclared (the new-user audit)
            raise UserError(
                where,
                None,
                "'result_path' is set by the sweep itself (each point's result file); a grid may "
                "not set it",
            )
        if not key.isidentifier() or keyword.iskeyword(key) or key not in declared:
            raise UserError(
                where,
                repr(key),
                f"not a parameter of {paths.shown(notebook)}; its parameters cell declares: "
                f"{', '.join(sorted(declared)) or 'none'}",
            )


def _check_notebook_files(grid: Grid) -> None:
    """A notebook grid's value that names a file by a path (a scenario ``my_store.yaml``, in a
    mapping or a list too) names one in the grid's folder or below it, as a scenario grid's: the
    notebook reads it (``notebook_value``)."""
    for at, _key, value in grid.values_given():
        _each_text(value, functools.partial(_in_folder, grid, at))


def _in_folder(grid: Grid, at: str, text: str) -> str:
    """``text``, a notebook grid's value at ``at``, unless it names a file by a path outside the
    grid's folder, which is refused."""
    folder = Path(grid.folder)
    if not scenario_module.plain_name(text) and paths.inside(folder, text) is None:
        must = (
            f"must be a scenario name or a file in {paths.shown(folder)} or below it "
            "(the grid's folder)"
        )
        raise UserError(grid.path, at, paths.outside(folder, text, must))
    return text


def notebook_value(value: Any, folder: str) -> Any:
    """A notebook grid's value as its notebook gets it: a file or folder named by a path (checked
    in the grid's ``folder`` or below it, ``_check_notebook_files``) given in full, in a mapping or
    a list too; anything else as it is: a text that names nothing there ('MB/s', '2024/05/01') is
    not made a path (the sweep audit: it reached the notebook as the grid's folder/MB/s, where
    the results recorded 'MB/s')."""

    def named_in_full(text: str) -> str:
        # a word (no separator, no suffix: a scenario's name, 'striped') names no file here; a
        # name with a suffix may ('beside.txt', which a kernel in its own folder no longer finds
        # as written: the review)
        word = not any(sep in text for sep in "/\\") and not Path(text).suffix
        file = None if word else paths.inside(Path(folder), text)
        return str(file) if file is not None and paths.exists(file) else text

    return _each_text(value, named_in_full)


def texts(value: Any) -> list[str]:
    """Every string in ``value``, in its mappings and lists too (``_each_text``'s)."""
    found: list[str] = []
    _each_text(value, lambda text: found.append(text) or text)
    return found


def _each_text(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` made to each string in it, in its mappings and lists too (a list
    for a tuple)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {k: _each_text(v, change) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_each_text(v, change) for v in value]
    return value


def _check_nesting(value: Any, where: str, at: str = "", within: tuple[int, ...] = ()) -> None:
    """Refuse a mapping or list in ``value``, read from the grid file ``where`` (at its dotted key
    ``at``), that holds itself (a YAML alias inside its own anchor: ``&a [*a]``) or lies deeper than
    ``yamlio.MAX_DEPTH`` levels, which aliases reach where the file's text may not: no point could
    be written out as either (walking one was a RecursionError). Named by its key, ``x[0][0]``."""
    if not isinstance(value, dict | list):
        return
    if id(value) in within:
        raise UserError(
            where, at, "holds itself (a YAML alias inside its own anchor); write the value out"
        )
    if len(within) > yamlio.MAX_DEPTH:
        raise UserError(
            where,
            at,
            f"nested deeper than {yamlio.MAX_DEPTH} levels through YAML aliases; write the value "
            "out",
        )
    if isinstance(value, dict):
        inner = [(f"{at}.{k}" if at else str(k), v) for k, v in value.items()]
    else:
        inner = [(f"{at}[{i}]", v) for i, v in enumerate(value)]
    for key, v in inner:
        _check_nesting(v, where, key, (*within, id(value)))


def _check_keys(grid: Grid, progress: bool = False) -> None:
    """Refuse a key the scenario does not have, and a value it does not admit, before running;
    with ``progress``, counted on standard error (``model.progress``: 10,000 listed points take
    over a minute to check, which had passed without a word)."""
    where = grid.path
    base = list(grid.base_with_seed)
    loaded = load_point(grid, base, f"{where}: base")
    scenario_module.check_catalog(loaded)
    body_cls = registry.MODELS[loaded.model].body
    for key, at in grid.origins().items():
        if key in SCENARIO_KEYS:
            continue
        if "=" in key:  # its override would split there (``setting``), told before "no such key"
            raise UserError(where, at, EQUALS_IN_KEY)
        try:  # refused with the keys allowed beside it, as --set is, named where the grid sets it
            scenario_module.locate_key(body_cls, key, where)
        except UserError as exc:
            raise UserError(where, at, exc.message) from None
    beside = _Beside({k: _distinct(vs) for k, vs in grid.product.items()})
    if grid.sample is not None:  # a range's ends: a value between them is admitted as they are
        for key, span in grid.sample.ranges.items():
            if stepped(field_type(body_cls, key.split("."))):
                raise UserError(
                    where,
                    f"sample.ranges.{key}",
                    "takes only powers of two, which a range would sample between; list the "
                    "values under product: instead",
                )
            for end in span:
                _check_value(grid, base, f"sample.ranges.{key}", key, end, body_cls, beside)
        for key, values in grid.sample.options.items():
            for value in _distinct(values):
                _check_value(grid, base, f"sample.options.{key}", key, value, body_cls, beside)
    parts = loaded.catalog or catalog_module.load()
    for at, k, v in grid.values_given():
        if takes_text(body_cls, k):  # a number's key refuses text in the scenario's words
            _check_file(grid, k, v, at)
        _check_part(parts, loaded.body, where, at, k, v)
    # each distinct value of the product once (the grid's cost stays in the points), those its
    # key's type refuses first (a mistake among thousands of values is found before they are all
    # loaded), beside the other keys' values where it is refused alone; each listed point whole
    values = [(k, v) for k, vs in beside.product.items() for v in vs]
    # here, not at the top: a papermill point's notebook imports this module for ``setting``, and
    # tqdm, which model.progress draws its bars with, is no part of a point (make bench)
    from ..progress import counter

    checks = counter(
        len(values) + len(grid.points),
        f"checking grid {grid.name}" if progress else None,
        "check",
        bar_after_s=1.0,
    )
    try:
        for key, v in sorted(values, key=lambda kv: not _type_refuses(body_cls, *kv)):
            _check_value(grid, base, f"product.{key}", key, v, body_cls, beside)
            checks.update(1)
        for i, point in enumerate(grid.points):
            _check_point(grid, base, i, point, body_cls)
            checks.update(1)
    finally:
        checks.close()


def _check_part(parts: Catalog, body: Any, where: str, at: str, key: str, value: Any) -> None:
    """A value in the place of a part id (where the grid's scenario names a catalog part at
    ``key``) names a part of the same kind: a misspelt one is refused before anything runs, where
    it failed every point it was in."""
    current = body
    for name in key.split("."):
        current = current.get(name) if isinstance(current, dict) else getattr(current, name, None)
    if not isinstance(value, str) or not isinstance(current, str):
        return
    kinds = tuple(kind for kind, known in parts.parts.items() if current in known)
    # a drive may be a disk or an SSD, a shelf an enclosure or an expander, whichever the other is
    for either in (("disks", "ssds"), ("enclosures", "expanders")):
        if set(kinds) & set(either):
            kinds = tuple(dict.fromkeys(kinds + either))
    if kinds:
        parts.get_one_of(kinds, value, where, at)


def setting(key: str, value: Any, folder: str = "") -> str:
    """A grid's ``key`` at ``value`` as a ``--set`` override, the value written as YAML that reads
    back as the grid gave it (a quoted "4 # eight" stays text, refused where a number is due, as a
    scenario file's would be; it was read as 4), but for text written as a flow collection, read as
    the list or mapping it writes ("[sas0,sas1]"). A value that names a file by a path
    (``storage: my_store.yaml``) is that file in the grid's ``folder`` or below it, given in full
    (a scenario loaded with ``typed``, as ``load_point`` does, reads it as it is). A key holding
    '=' is refused: the override would split there, the rest read as the value (the input audit's
    ``storage=/outside/file.yaml\\n#`` key of a notebook grid's settings)."""
    if "=" in key:
        raise UserError("settings", key, EQUALS_IN_KEY)
    value = in_full(key, value, folder)
    if isinstance(value, str) and value.lstrip().startswith(("[", "{")):
        return f"{key}={value}"  # a list or mapping written as a flow collection ("[sas0,sas1]")
    return f"{key}={yamlio.flow_text(value)}"


def in_full(key: str, value: Any, folder: str = "") -> Any:
    """``key``'s ``value``, or, where it names a file by a path (``names_a_file``), that file in
    the grid's ``folder`` or below it, in full."""
    if folder and (file := grid_file(key, value, folder)) is not None:
        return str(file)
    return value


def names_a_file(key: str, value: Any) -> bool:
    """Whether a grid's value names a file by a path: a scenario another names (an ingest's
    ``storage``), not a plain name (one of the project's) and not a header's words."""
    return (
        isinstance(value, str)
        and key not in scenario_module.OVERRIDE_KEYS
        and not scenario_module.plain_name(value)
    )


def grid_file(key: str, value: Any, folder: str) -> Path | None:
    """The file a path value names, in the grid's ``folder`` or below it; None for a value that
    names no file, or one outside the folder (which ``_check_file`` refuses)."""
    return paths.inside(Path(folder), value) if names_a_file(key, value) else None


def load_point(grid: Grid, overrides: list[str], where_overrides: str = "--set"):
    """The grid's scenario with ``overrides`` built by ``setting``: a file a value names was
    resolved in the grid's folder, so it is read as given."""
    return scenario_module.load(
        grid.scenario, overrides, where_overrides=where_overrides, typed=True
    )


# the combinations of a product's other keys a value refused alone is tried beside, at most
COMBINATIONS_TRIED = 256


def _distinct(values: tuple[Any, ...]) -> list[Any]:
    """``values`` in order without repeats (told apart by their repr, as a grid's points are)."""
    return list({repr(v): v for v in values}.values())


def _type_refuses(body_cls: type, key: str, value: Any) -> bool:
    """Whether ``key``'s declared type refuses ``value`` on its own (text where a number is due, a
    number out of its range): microseconds, where loading the scenario takes a millisecond. It only
    orders the checks: a value it passes is loaded all the same."""
    tp = field_type(body_cls, key.split("."))
    if tp is None:  # a header key (variant, seed): the scenario's to check
        return False
    try:
        build(tp, value, "", key)
    except UserError:
        return True
    return False


@dataclass
class _Beside:
    """The product's distinct values of each key, which a value refused alone is tried beside, and
    for each key the combination of the others' values that last admitted one of its values."""

    product: dict[str, list[Any]]
    admitted: dict[str, dict[str, Any]] = field(default_factory=dict)

    def combinations(self, key: str) -> list[dict[str, Any]]:
        """The first ``COMBINATIONS_TRIED`` combinations of the other keys' values, the one that
        last admitted a value of ``key`` first (a key's values are often admitted beside the same
        ones: drives enough for a RAID level)."""
        others = {k: vs for k, vs in self.product.items() if k != key}
        combos = itertools.islice(itertools.product(*others.values()), COMBINATIONS_TRIED)
        tried = [dict(zip(others, combo, strict=True)) for combo in combos] if others else []
        return sorted(tried, key=lambda combo: combo != self.admitted.get(key))


def _check_value(
    grid: Grid, base: list[str], at: str, key: str, value: Any, body_cls: type, beside: _Beside
) -> None:
    """Load the scenario with ``key`` at ``value``; refused alone, with each of ``beside``'s
    combinations of the product's other keys' values in turn: a value admitted beside one of them
    is the grid's to run (a RAID6 level beside drive counts of 4 and 5, refused beside the
    scenario's 3; the points it is refused in fail and are recorded). A value admitted beside none
    is refused, named at ``at`` (``product.clients.protocol``) in the words of its first refusal
    (``_refusal``)."""
    try:
        _load(grid, base, {key: value}, body_cls)
    except UserError as exc:
        for combo in beside.combinations(key):
            try:
                _load(grid, base, {**combo, key: value}, body_cls)
            except UserError:
                continue
            beside.admitted[key] = combo
            return
        raise _refusal(grid, exc, at, {key: value}) from None


def _check_point(
    grid: Grid, base: list[str], index: int, point: dict[str, Any], body_cls: type
) -> None:
    """Load the scenario with a listed point's settings together: refused, named at the point's
    key the scenario refuses (``points[2].volumes.md0.level``), or at the point."""
    try:
        _load(grid, base, point, body_cls)
    except UserError as exc:
        said = exc.key or ""
        refused = next((k for k in point if said == k or said.startswith(f"{k}.")), None)
        at = f"points[{index}].{refused}" if refused else f"points[{index}]"
        raise _refusal(grid, exc, at, point) from None


def _load(grid: Grid, base: list[str], settings: dict[str, Any], body_cls: type) -> None:
    """The grid's scenario with ``base`` and ``settings``, checked against its catalog (a path in
    the place of a number is given as the grid wrote it, refused as text)."""
    overrides = [
        setting(k, v, grid.folder if takes_text(body_cls, k) else "") for k, v in settings.items()
    ]
    scenario_module.check_catalog(load_point(grid, base + overrides, grid.path))


def takes_text(body_cls: type, key: str) -> bool:
    """Whether a scenario's ``key`` may hold text (a name, a file another scenario names): not a
    number's, a flag's or a list's (a key of the header, or one the type does not say, may)."""
    tp = field_type(body_cls, key.split("."))
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    if tp is None:
        return True
    union = typing.get_origin(tp) in (typing.Union, types.UnionType)
    kinds = typing.get_args(tp) if union else (tp,)
    return any(k is str or k is Any or typing.get_origin(k) is Literal for k in kinds)


def _refusal(grid: Grid, exc: UserError, at: str, settings: dict[str, Any]) -> UserError:
    """A scenario's refusal of ``settings`` as the grid's, at ``at``: a key of the grid (or one
    below it) refused in its own words, one of the scenario file's (an NFS-only key once the
    protocol is smb) in the file's."""
    if exc.where == grid.path:
        inner = exc.key if exc.key and exc.key not in settings else None
        return UserError(grid.path, at, f"{inner}: {exc.message}" if inner else exc.message)
    said = ", ".join(f"{k}={v!r}" for k, v in settings.items())
    told = UserError(exc.where, exc.key, exc.message).line()  # the settings said here, not twice
    return UserError(grid.path, at, f"with {said}, {told}")


def load(
    path: str | Path, *, trust_notebook: bool = False, progress: bool = False
) -> tuple[Grid, list[dict[str, Any]]]:
    """The validated grid at ``path`` and its points; a mistake exits 2 before anything runs. A
    notebook of the grid's own folder is refused as code unless ``trust_notebook``; with
    ``progress``, the checks are counted on standard error."""
    path = Path(path)
    where = paths.shown(path)
    raw = scenario_module.read_yaml(path)
    _check_nesting(raw, where)
    # unnamed, the file's name made plain ("my grid.yaml": my_grid; ".x.yaml": x), as a results
    # folder's name may be
    plain = re.sub(r"[^A-Za-z0-9_-]", "_", path.stem).lstrip("_-")[:64]
    raw.setdefault("name", plain or "grid")
    folder = path.resolve().parent
    grid = replace(build_dataclass(Grid, raw, where), path=where, folder=str(folder))
    grid = _resolved(_base_files(grid), folder, trust_notebook)
    if grid.notebook is not None:
        _check_parameters(grid)
        _check_notebook_files(grid)
    points = expand(grid)
    if grid.scenario is not None:
        _check_keys(grid, progress)
    return grid, points
