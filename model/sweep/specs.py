"""What each point of a grid runs with, and the id it is stored under.

A point's id holds everything its result depends on (``inputs_fingerprint``): the calibrated
parameters, the catalog, the model's code, the scenario's files or the notebook, and what the
point's own values name (``_named_by_values``), so that a sweep resumed after any of them changed
runs its points again instead of keeping stale results.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections import Counter
from pathlib import Path
from typing import Any

from .. import paths, provenance
from ..errors import UserError
from .grid import (
    Grid,
    grid_file,
    names_a_file,
    notebook_parameters,
    notebook_value,
    setting,
    texts,
)
from .point import SWEEP_POINT_NOTEBOOK, file_digest, lab_fingerprint
from .store import point_id, point_settings


def inputs_fingerprint(grid: Grid, scenario_print: str | None) -> str:
    """What a point's result depends on besides the point: calibrated parameters, catalog, scenario
    (``scenario_print``: its ``_scenario_fingerprint``, None for a notebook grid) or notebook, and
    the model's code.

    It enters each point's id, so that resuming after a recalibration, a catalog change or a change
    to the code (an update, or a local edit git has not seen) reruns the points instead of keeping
    stale results. What a point's own values name enters its id alone (``_named_by_values``)."""
    from .. import params

    digest = hashlib.sha1(json.dumps(params.calibrated(), sort_keys=True).encode())
    digest.update(provenance.code_fingerprint().encode())
    files = sorted(paths.HARDWARE.glob("*.yaml"))
    if paths.CALIBRATED_PARAMETERS.exists():  # the fit's intervals and covariance too
        files.append(paths.CALIBRATED_PARAMETERS)
    if grid.intervals:  # an interval also depends on the model's measured error
        from .. import model_error

        digest.update(b"intervals")
        files += [model_error.MODEL_ERROR] if model_error.MODEL_ERROR.exists() else []
    if scenario_print is not None:  # its file, the files of the scenarios it names, their parts
        digest.update(scenario_print.encode())
    notebook = grid.notebook or (SWEEP_POINT_NOTEBOOK if grid.engine == "papermill" else None)
    if notebook is not None:  # the notebook each point runs, the project's own included
        files.append(paths.PROJECT_ROOT / notebook)
    for f in files:
        digest.update(Path(f).read_bytes())
    return digest.hexdigest()[:12]


def _scenario_tree(name: str, overrides: list[str]) -> list:
    """The scenario ``name`` loaded with ``overrides``, then the scenarios it names (and those
    they name)."""
    from .. import scenario as scenario_module

    tree, pending = [], [scenario_module.load(name, overrides, typed=True)]
    while pending:
        loaded = pending.pop()
        tree.append(loaded)
        pending += loaded.refs.values()
    return tree


def _scenario_file(loaded) -> Path:
    return Path(loaded.folder) / Path(loaded.path).name


def _scenario_fingerprint(name: str, overrides: list[str]) -> str:
    """The contents of the scenario ``name`` loaded with ``overrides``: its file, the files of the
    scenarios it names (and those they name), and the user's parts each was loaded with."""
    digest = hashlib.sha1()
    for loaded in _scenario_tree(name, overrides):
        digest.update(_scenario_file(loaded).read_bytes())
        digest.update(repr(loaded.catalog.users_parts if loaded.catalog else ()).encode())
    return digest.hexdigest()[:12]


def _scenario_files(file: str) -> list[str]:
    """The files a point reads through the scenario ``file`` (``_tree_files``); ``file`` alone
    where it is not a scenario that loads by itself (a notebook's own file, a scenario a point's
    values complete)."""
    try:
        return _tree_files(_scenario_tree(file, []))
    except UserError:
        return [file]


def _tree_files(tree: list) -> list[str]:
    """The files of the scenarios ``tree`` (``_scenario_tree``'s) and the parts files each names
    (``catalogs:``)."""
    from .. import scenario as scenario_module

    found = []
    for loaded in tree:
        scenario_file = _scenario_file(loaded)
        found.append(str(scenario_file))
        for name in scenario_module.read_yaml(scenario_file).get("catalogs") or []:
            parts = paths.inside(scenario_file.parent, name)
            found += [str(parts)] if parts is not None else []
    return found


def _grid_files(grid: Grid) -> set[str]:
    """The files a grid names for all its points, in full: the notebook they run, the grid's
    scenario given as a file, and the files its ``base`` names."""
    from .. import scenario as scenario_module

    notebook = grid.notebook or (SWEEP_POINT_NOTEBOOK if grid.engine == "papermill" else None)
    named = {str(paths.PROJECT_ROOT / notebook)} if notebook is not None else set()
    if grid.scenario is not None and not scenario_module.plain_name(grid.scenario):
        named.add(grid.scenario)
    if grid.scenario is not None:
        base = [scenario_module.parse_assignment(b, "base") for b in grid.base]
        named |= {str(grid_file(k, v, grid.folder)) for k, v in base if names_a_file(k, v)}
    return {file for file in named if paths.is_file(Path(file))}


def _point_files(grid: Grid, point: dict[str, Any]) -> set[str]:
    """The files a point's own values name, in full (in the grid's folder or below it)."""
    if grid.scenario is None:  # a notebook grid: a text naming a file, in a mapping or list too
        named = [t for value in point.values() for t in texts(notebook_value(value, grid.folder))]
        named = [text for text in named if Path(text).is_absolute()]
    else:
        named = [str(grid_file(k, v, grid.folder)) for k, v in point.items() if names_a_file(k, v)]
    return {file for file in named if paths.is_file(Path(file))}


def _file_choices(point: dict[str, Any]) -> list[tuple[str, str]]:
    """The values of ``point`` that may choose which files it reads: its variant, and each value
    that names a file."""
    return [
        (k, v)
        for k, v in sorted(point.items())
        if isinstance(v, str) and (k == "variant" or names_a_file(k, v))
    ]


def _files_as_loaded(grid: Grid, point: dict[str, Any]) -> list[str] | None:
    """The files the grid's scenario reads as ``point`` loads it (``_tree_files``, with the
    grid's base and the point's values), but the lab's own data (``lab_fingerprint``'s): a
    variant may name another scenario, with parts files of its own, that the scenario's file
    alone does not (the review: a worker with another version of such a file computed
    silently). None where the scenario refuses the point: another point of the same files may
    load."""
    settings = [setting(k, v, grid.folder) for k, v in point.items()]
    try:
        tree = _scenario_tree(grid.scenario, list(grid.base) + settings)
    except UserError:  # the point is refused: it fails, recorded, when it runs
        return None
    return [file for file in _tree_files(tree) if paths.DATA not in Path(file).parents]


def _files_read(grid: Grid, points: list[dict[str, Any]]) -> list[dict[str, str]]:
    """For each point, the files it reads that its grid names (``_grid_files`` and
    ``_point_files``, with the scenarios and parts files each names) or that its scenario reads
    as the point loads it (``_files_as_loaded``, once for each ``_file_choices``), and each one's
    ``file_digest`` as the sweep reads it now: a worker compares them with its own before it runs
    the point (``check_inputs``). The lab's own data and code it compares whole
    (``lab_fingerprint``)."""
    shared = _grid_files(grid)
    closures: dict[str, list[str]] = {}
    as_loaded: dict[str, list[str]] = {}
    digests: dict[str, str] = {}
    out = []
    for point in points:
        files = set()
        for named in shared | _point_files(grid, point):
            if named not in closures:
                closures[named] = _scenario_files(named)
            files.update(closures[named])
        if grid.scenario is not None:
            choice = repr(_file_choices(point))
            loaded = as_loaded[choice] if choice in as_loaded else _files_as_loaded(grid, point)
            if loaded is not None:  # a refusal is not kept for the points of the same choice
                as_loaded[choice] = loaded
            files.update(loaded or ())
        read = {}
        for file in sorted(files):
            if file not in digests:
                digests[file] = file_digest(file)
            read[file] = digests[file]
        out.append(read)
    return out


def _named_by_values(grid: Grid, points: list[dict[str, Any]], alone: str | None) -> list[str]:
    """For each point, the contents of what its values name that the grid's scenario alone
    (``alone``: its ``_scenario_fingerprint``, None for a notebook grid) does not: a value that
    names another scenario (``storage: b.yaml``), or a variant that does. Each distinct one is
    loaded once, with the point it is first met in (a variant may need the point's other values);
    any other value (a number, a part's or a level's name, a list) names no file and is skipped."""
    if alone is None:
        return _named_by_notebook_values(grid, points)
    base = list(grid.base)
    named: dict[tuple[str, str], str] = {}
    out = []
    for point in points:
        parts = []
        for k, v in _file_choices(point):
            key = (k, v)
            if key not in named:
                settings = [setting(k2, v2, grid.folder) for k2, v2 in point.items()]
                try:
                    found = _scenario_fingerprint(grid.scenario, base + settings)
                except UserError:  # the point is refused: it fails, recorded, when it runs
                    found = f"refused with {setting(k, v, grid.folder)}"
                named[key] = "" if found == alone else f"{k}:{found}"
            if named[key]:
                parts.append(named[key])
        out.append(",".join(parts))
    return out


def _named_by_notebook_values(grid: Grid, points: list[dict[str, Any]]) -> list[str]:
    """For each point of a notebook grid, the contents of the files its values name in the grid's
    folder (``notebook_value``'s, in its mappings and lists too): a scenario's with the files it
    names in turn (``_scenario_fingerprint``), any other file's bytes; a folder's contents are not
    followed. Its points had kept their results after such a file changed (the input audit: a
    scenario edited to move 1,180 MB/s stayed at 875.7)."""
    prints: dict[str, str] = {}
    out = []
    for point in points:
        named = sorted(
            {
                text
                for value in point.values()
                for text in texts(notebook_value(value, grid.folder))
                if Path(text).is_absolute() and paths.is_file(Path(text))
            }
        )
        for file in named:
            if file not in prints:
                try:  # a scenario, with the scenarios and parts it names
                    prints[file] = _scenario_fingerprint(file, [])
                except UserError:  # any other file the notebook reads
                    with open(file, "rb") as f:
                        prints[file] = hashlib.file_digest(f, "sha1").hexdigest()[:12]
        out.append(",".join(f"{file}:{prints[file]}" for file in named))
    return out


def grid_seed(grid: Grid) -> int | None:
    """The seed a grid's points run with unless a point sets its own: the grid's, else the
    scenario's; a notebook grid's, when it gives one."""
    if grid.seed is not None or grid.scenario is None:
        return grid.seed
    from .. import scenario as scenario_module

    return scenario_module.load(grid.scenario, list(grid.base), typed=True).seed


def notebook_defaults(grid: Grid) -> dict[str, str]:
    """A notebook grid's parameters with the text of their defaults, but those the sweep sets for
    every point (``result_path``, the grid's ``seed``); each point's record keeps those it leaves
    at their default (``default:NAME``): a grid of ``scenario`` alone runs the notebook's
    ``settings`` too. None for a grid of a scenario, whose runner sets every parameter of the
    sweep's own notebook."""
    if grid.notebook is None:
        return {}
    given = {"result_path", *(["seed"] if grid.seed is not None else [])}
    declared = notebook_parameters(Path(grid.notebook), grid.path)
    return {k: v for k, v in declared.items() if k not in given}


def specs(grid: Grid, points: list[dict[str, Any]], out: Path) -> list[dict[str, Any]]:
    """What each point of ``points`` runs with (``run_point``'s spec), under its id; each carries
    the run's own token (``sweep``, one a call): a stopped sweep's kernels are ended by it
    (``end_kernels``), not a later sweep's on the same folder, and its points' notebooks are
    named by it until kept (``unkept_notebook``)."""
    alone = None if grid.scenario is None else _scenario_fingerprint(grid.scenario, list(grid.base))
    target = f"{grid.notebook or grid.scenario}@{inputs_fingerprint(grid, alone)}"
    notebook = grid.notebook or (SWEEP_POINT_NOTEBOOK if grid.engine == "papermill" else None)
    versions = json.dumps(provenance.versions(), sort_keys=True)
    commit = provenance.commit()
    lab = lab_fingerprint()
    sweep = secrets.token_hex(8)
    seed = grid_seed(grid)
    base = grid.base_with_seed
    named = _named_by_values(grid, points, alone)
    inputs = _files_read(grid, points)
    defaults = notebook_defaults(grid)
    seen: Counter[str] = Counter()  # how many times each point came before (a design's repeats)
    repeats = []
    for p in points:
        text = json.dumps(point_settings(p))
        repeats.append(seen[text])
        seen[text] += 1
    return [
        {
            "point_id": point_id(
                f"{target}{named[i]}",
                grid.engine,
                1 if seed is None else seed,
                grid.base,
                repeats[i],
                p,
            ),
            "index": i,
            "point": p,
            "scenario": grid.scenario,
            "notebook": notebook,
            "engine": grid.engine,
            "base": base,
            "seed": p.get("seed", seed),
            "intervals": grid.intervals,
            "timeout_s": grid.timeout_s,
            "versions": versions,
            "commit": commit,
            "lab": lab,
            "inputs": inputs[i],
            "defaults": {k: v for k, v in defaults.items() if k not in p},
            "folder": grid.folder,
            "out": str(out),
            "sweep": sweep,
        }
        for i, p in enumerate(points)
    ]
