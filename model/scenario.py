"""Scenarios: hardware plus workload, loaded from YAML into validated, frozen dataclasses.

A scenario file names its ``model`` (which registered model simulates it, ``model.registry``), the
parts it uses (ids from the hardware catalog) and its workload; the body's schema is the model's own
spec (``model/<package>/spec.py``). ``variants`` are named sets of overrides for the configurations
one experiment compares (RAID against SATA, thin against distributed client); ``variant=NAME``
selects one, ``seed=N`` sets the run's seed, ``name=``, ``description=`` and ``source=`` the
words printed with a prediction, and ``--set dotted.key=value`` changes any key. Every
scenario the body names (``references()``) is loaded here too, so that a mistake in it is found
now and located in the file that names it. Defaults live only in the dataclass fields.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import typing
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

from . import catalog as catalog_module
from . import paths, registry, unknowns, user_parts, yamlio
from .errors import HoldsValue, NoEntry, UserError, readable
from .schema import (
    NonNegativeInt,
    Written,
    build,
    build_dataclass,
    field_type,
    inside,
    locate,
    named_body,
    type_hints,
    writing,
)
from .spec import Reference, Scenario, Through, dotted, relocated_through

HEADER_KEYS = (
    "name",
    "model",
    "description",
    "source",
    "seed",
    "variants",
    "parts",
    "catalogs",
    "unknowns",
)
# variants a scenario may declare: every one is loaded and checked when the file is (a check that
# costs each variant a load, so many variants cost their square); shipped scenarios declare at most
# 7, and a sweep grid is the place for hundreds of configurations
MAX_VARIANTS = 100

# the header keys an override (--set, a grid's point) sets besides the model's own: the variant,
# the seed, and the words printed with the prediction
OVERRIDE_KEYS = ("variant", "seed", "name", "description", "source")
MAX_REFERENCE_DEPTH = 4  # a scenario naming one naming one ...: deeper is a loop


def parse_assignment(text: str, where: str) -> tuple[str, Any]:
    """``dotted.key=value`` with the value read as YAML (so 3 is an int, 1.5 a float, raid0 a
    string)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise UserError(where, text, "an override must read dotted.key=value")
    try:
        value = yamlio.safe_load(raw, where) if raw.strip() else ""
    except yamlio.YAMLError:
        value = raw.strip()
    except UserError as exc:  # a tag, a bomb: named as the key it would set
        raise UserError(where, key, exc.message) from None
    return key, value


def _assign(data: dict, body_cls: type, key: str, value: Any, where: str) -> None:
    """Set ``key`` (dotted) in the raw mapping, refusing a path the schema does not have."""
    parts = key.split(".")
    tp = locate_key(body_cls, key, where)
    node = data
    for depth, part in enumerate(parts[:-1]):
        if isinstance(node, list):
            node = node[_index(node, part, key, where)]
            continue
        if not isinstance(node, dict):
            raise HoldsValue(where, key, ".".join(parts[:depth]))
        if part not in node and typing.get_origin(field_type(body_cls, parts[:depth])) is dict:
            form = _entry_form(field_type(body_cls, parts[: depth + 1]))
            raise NoEntry(where, key, ".".join(parts[:depth]), part, list(node), form)
        if node.get(part) is None:
            if value is None:  # null under a section the file leaves out: nothing to take back
                return
            node[part] = {}
        node = node[part]
    if isinstance(node, list):
        node[_index(node, parts[-1], key, where)] = value
    elif isinstance(node, dict):
        if value is None and not _admits_none(tp):
            node.pop(parts[-1], None)  # null: the key as if the file left it out (its default)
        else:
            node[parts[-1]] = value
    else:
        raise HoldsValue(where, key, ".".join(parts[:-1]))


def _entry_form(tp: Any) -> str:
    """A new entry of type ``tp`` (a named section's, as a shelf is) as a YAML mapping of the keys
    it must have, to fill in: ``{part: ..., uplink: [...]}``."""
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    if not dataclasses.is_dataclass(tp):
        return "..."
    hints = type_hints(tp)
    required = [
        f.name
        for f in dataclasses.fields(tp)
        if f.init
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
        and not f.metadata.get("internal")
    ]
    shown = []
    for name in required:
        value = hints[name]
        while typing.get_origin(value) is Annotated:
            value = typing.get_args(value)[0]
        if typing.get_origin(value) in (tuple, list):
            shown.append(f"{name}: [...]")
        elif dataclasses.is_dataclass(value):
            shown.append(f"{name}: {{...}}")
        else:
            shown.append(f"{name}: ...")
    return "{" + ", ".join(shown) + "}"


def locate_key(body_cls: type, key: str, where: str) -> Any:
    """The declared type at dotted ``key`` of a ``body_cls`` scenario; a header key, or a key the
    model does not have, is refused in one line with what is allowed."""
    head = key.split(".")[0]
    if head in OVERRIDE_KEYS:  # reached from a variant: --set and a grid's points set these
        raise UserError(
            where,
            key,
            "a header key, which --set or a grid's point sets; a variant changes the model's keys",
        )
    if head in HEADER_KEYS and head != "parts":
        raise UserError(
            where,
            key,
            "a header key of the scenario file: edit it there; an override sets the model's keys "
            f"and {', '.join(OVERRIDE_KEYS)}",
        )
    return locate(body_cls, key, where, model=registry.name_of(body_cls), top=OVERRIDE_KEYS)


def _admits_none(tp: Any) -> bool:
    """Whether a key of type ``tp`` takes null as a value of its own (``X | None``)."""
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return type(None) in typing.get_args(tp)


def _index(items: list, part: str, key: str, where: str) -> int:
    """``part`` as a position in ``items``, which must exist."""
    if not (part.isascii() and part.isdigit()) or int(part) >= len(items):
        raise UserError(
            where,
            key,
            f"no position {part} in a list of {len(items)}; allowed: 0 to {len(items) - 1}",
        )
    return int(part)


def read_yaml(path: Path) -> dict:
    """A YAML mapping from ``path``; missing, empty, oversized, binary or malformed files are the
    user's mistake."""
    where = paths.shown(path)
    if not paths.exists(path):
        raise UserError(where, None, "no such file")
    stat = path.stat()
    yamlio.refuse_pipe(stat.st_mode, where)  # by name (/dev/stdin, <(...)) it resolves to no path
    return copy.deepcopy(_parse(str(path.resolve()), stat.st_mtime_ns, stat.st_size, where))


@functools.lru_cache(maxsize=64)
def _parse(path: str, mtime_ns: int, size: int, where: str) -> dict:
    """Parse a YAML file once per version of it (sweeps load one scenario thousands of times)."""
    text = yamlio.read_text(Path(path), where)
    if not text.strip():
        raise UserError(where, None, "the file is empty; expected a YAML mapping of keys to values")
    try:
        data = yamlio.safe_load(text, where)
    except yamlio.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark else ""
        problem = getattr(exc, "problem", None)
        if problem and "cannot start any token" in problem and mark is not None:
            if text.splitlines()[mark.line][mark.column : mark.column + 1] == "\t":
                problem = "a tab where YAML wants spaces: indent with spaces, never tabs"
        raise UserError(
            where, None, f"not valid YAML{at}" + (f": {problem}" if problem else "")
        ) from None
    if not isinstance(data, dict):
        raise UserError(where, None, "must be a YAML mapping of keys to values")
    return data


def resolve(name_or_path: str | Path) -> Path:
    """A scenario name (``atlas_intellistation``: always one of the project's, whatever the
    working folder holds) or a path to a YAML file."""
    if plain_name(str(name_or_path)):
        return paths.SCENARIOS / f"{name_or_path}.yaml"
    return Path(name_or_path)


def plain_name(name: str) -> bool:
    """Whether a scenario another file names is given by a plain name (one of the project's), not
    by a path."""
    return not any(sep in name for sep in "/\\") and Path(name).suffix not in (".yaml", ".yml")


def shipped_names() -> list[str]:
    """The project's scenarios, by name (data/scenarios/NAME.yaml)."""
    return sorted(p.stem for p in paths.SCENARIOS.glob("*.yaml"))


def named_scenario(name: str, folder: Path, where: str, key: str) -> Path:
    """The file of a scenario another file names (a scenario's reference, a grid's ``scenario``):
    a plain name is one of the project's (``data/scenarios/NAME.yaml``); a path is read only in the
    naming file's ``folder`` or below it."""
    if plain_name(name):
        file = paths.SCENARIOS / f"{name}.yaml"
        if not paths.is_file(file):
            shipped = ", ".join(shipped_names())
            raise UserError(
                where,
                key,
                f"no scenario named {name!r}: a name of data/scenarios/ ({shipped}) or a file in "
                f"{paths.shown(folder)} or below it",
            )
        return file
    file = paths.inside(folder, name)
    if file is None:
        must = f"must be a scenario name or a file in {paths.shown(folder)} or below it"
        raise UserError(where, key, paths.outside(folder, name, must))
    gone = paths.dangling(folder, name)
    if gone is not None:
        raise UserError(where, key, gone)
    return file


def _seed(value: Any, where: str) -> int:
    return build(NonNegativeInt, value, where, "seed")


def load(
    name_or_path: str | Path,
    overrides: tuple[str, ...] | list[str] = (),
    *,
    where_overrides: str = "--set",
    catalogs: tuple[str | Path, ...] = (),
    typed: bool = False,
    _depth: int = 0,
) -> Scenario:
    """Load and validate a scenario, apply ``variant=NAME``, ``seed=N`` and ``dotted.key=value``
    overrides, and load every scenario its body names. Its parts come from the project's catalog,
    the user's parts files ``catalogs`` (``--catalog``, for it and every scenario it names), the
    files its own ``catalogs:`` names (inside its folder) and its inline ``parts:``. A scenario
    named by a path is read in its naming file's folder or below it, unless ``typed``: overrides
    the user typed (``predict --set``) name files as a shell does, from the working directory."""
    path = resolve(name_or_path)
    where = paths.shown(path)
    if plain_name(str(name_or_path)) and not paths.exists(path):  # a name, not a path: say which
        raise UserError(
            where,
            None,
            f"no such scenario {str(name_or_path)!r}; the project's: {', '.join(shipped_names())}"
            " (or give your own as a file, mine.yaml)",
        )
    raw = read_yaml(path)
    model = raw.get("model")
    if not isinstance(model, str) or model not in registry.MODELS:
        got = "none (the file gives no model: key)" if "model" not in raw else readable(model)
        raise UserError(where, "model", f"must be one of {', '.join(registry.MODELS)}, got {got}")
    body_cls = registry.MODELS[model].body
    variants = raw.get("variants") or {}
    if not isinstance(variants, dict):
        raise UserError(where, "variants", "must be a mapping from variant name to overrides")
    if len(variants) > MAX_VARIANTS:
        raise UserError(
            where,
            "variants",
            f"at most {MAX_VARIANTS} (the configurations one experiment compares; for more, a "
            f"sweep grid: python -m model sweep), got {len(variants):,}",
        )
    for name, changes in variants.items():
        if not isinstance(name, str) or not name:
            raise UserError(
                where, f"variants.{name}", "a variant's name must be a word (quote it in YAML)"
            )
        if not isinstance(changes, dict):
            raise UserError(where, f"variants.{name}", "must be a mapping of dotted.key: value")
    body = {k: copy.deepcopy(v) for k, v in raw.items() if k not in HEADER_KEYS}
    declared = unknowns.parse(raw.get("unknowns"), where)
    assignments = [parse_assignment(o, where_overrides) for o in overrides]
    chosen, seed = None, _seed(raw.get("seed", 1), where)
    renamed: dict[str, str] = {}  # name, description or source an override gives
    for key, value in assignments:
        if key == "variant":
            if not isinstance(value, str) or value not in variants:
                raise UserError(
                    where_overrides,
                    "variant",
                    f"{where} has no variant {readable(value)}; allowed: "
                    f"{', '.join(variants) or 'none'}",
                )
            chosen = value
        elif key == "seed":
            seed = _seed(value, where_overrides)
        elif key in ("name", "description", "source"):
            renamed[key] = _header_text(value, where_overrides, key)
    set_by: list[tuple[str, str, str]] = []
    through: list[Through] = []  # keys of the scenarios the body names, set there
    in_variant = "" if chosen is None else f"{where} variants.{chosen}"
    given = [(str(k), v, in_variant, "") for k, v in variants.get(chosen, {}).items()]
    given += [
        (key, value, where_overrides, text.strip())
        for (key, value), text in zip(assignments, overrides, strict=True)
        if key not in OVERRIDE_KEYS
    ]
    for key, value, at, text in given:
        if named_body(body_cls, key.split(".")) is not None:
            if "=" in key:  # it would split there in the named scenario's override
                raise UserError(at, key, "a scenario key holds no '='")
            locate_key(body_cls, key, at)  # a key the named scenario's model has, told here
            ref, _, inner = key.partition(".")
            through.append(Through(ref, inner, yamlio.flow_text(value), at, len(set_by)))
        else:
            _assign(body, body_cls, key, copy.deepcopy(value), at)
        set_by.append((key, at, text))
    header = {k: raw[k] for k in ("name", "description", "source") if k in raw}
    for k in ("name", "description", "source"):
        if k not in header:
            raise UserError(where, k, "missing; every scenario needs a non-empty string here")
        _header_text(header[k], where, k)
    header.update(renamed)
    parts = _catalog(raw, path, where, catalogs)
    unbuilt = Scenario(
        name=header["name"],
        model=model,
        description=header["description"],
        source=header["source"],
        seed=seed,
        body=None,
        variant=chosen,
        overrides=tuple(overrides),
        path=where,
        folder=str(path.resolve().parent),
        catalogs=tuple(str(Path(c).resolve()) for c in catalogs),
        set_by=tuple(set_by),
        through=tuple(through),
        catalog=parts,
    )
    written = _known(list(body.items()), null_gives=False)  # the keys the user's text gives
    try:
        with catalog_module.building(parts):  # a shelf's bays checked before a layout's sums
            with writing(Written(frozenset(written), unbuilt.set_at, unbuilt.where, in_variant)):
                built = build_dataclass(body_cls, body, where)
            configured = _configured(body, built, body_cls, variants, chosen, declared, where)
        typed_keys = (k for k, w, _ in set_by if w == where_overrides)
        as_typed = frozenset(typed_keys) if typed else frozenset()
        refs = _references(
            built,
            where,
            Path(unbuilt.folder),
            catalogs,
            _depth,
            as_typed,
            unbuilt.through,
            unbuilt.set_by,
        )
    except UserError as exc:  # a value an override or a variant set is reported where it was set
        told = unbuilt.relocated(exc)
        # blamed on overrides beside it, or on the one key set through the scenario it names
        through = told.key != exc.key and inside(dotted(told.key or ""), exc.key or "")
        blamed = told.overridden or (through and told.where == where_overrides)
        if blamed and _fails_alike(name_or_path, chosen, catalogs, typed, _depth, exc):
            told = exc  # the file's own mistake, which the overrides only stood beside
        raise told from None
    return replace(
        unbuilt,
        body=built,
        refs=refs,
        unknowns=_open_unknowns(
            declared,
            built,
            parts,
            configured,
            list(variants),
            _known(assignments),
            written,
        )
        + _through(refs),
    )


def _fails_alike(
    name_or_path: str | Path,
    chosen: str | None,
    catalogs: tuple,
    typed: bool,
    depth: int,
    exc: UserError,
) -> bool:
    """Whether the file with its chosen variant and no override is refused as ``exc`` was: then the
    mistake is the file's own, and naming the overrides beside it, or blaming the one key set
    through the scenario it names, sends the user to look for it there (the second review: any
    --set was named beside two drives the file put in one bay; session 53's: a lone --set
    storage.volumes.lv.level was blamed for the store's own broken variant)."""
    variant = [] if chosen is None else [f"variant={chosen}"]
    try:
        load(name_or_path, variant, catalogs=catalogs, typed=typed, _depth=depth)
    except UserError as alone:
        return (alone.key, alone.message) == (exc.key, exc.message)
    return False


def _configured(
    body: dict, built: Any, body_cls: type, variants: dict, chosen: str | None, declared, where
) -> set[str]:
    """The variants the configuration is: the one chosen, and each other an unknown is limited to
    whose settings, applied to the configuration (``body``, built: ``built``), change none of its
    values (``psu_mmap`` with no variant reads the mirror, as its ``raid`` does). A variant that
    sets nothing is no configuration but a circumstance (the runs of one slide): only choosing it
    makes a configuration its."""
    configured = {chosen} - {None}
    named = {name for u in declared for name in u.variants if variants.get(name)} - configured
    for name in sorted(named):
        raw = copy.deepcopy(body)
        try:
            for key, value in variants[name].items():
                _assign(raw, body_cls, str(key), copy.deepcopy(value), where)
            if build_dataclass(body_cls, raw, where) == built:
                configured.add(name)
        except UserError:
            continue  # a key it sets is not this configuration's (a volume it lacks)
    return configured


def _through(refs: dict[str, Scenario]) -> tuple:
    """The open unknowns of the scenarios a body names (``refs``: the key naming each, and it),
    as the naming scenario's (``unknowns.through``)."""
    return tuple(unknowns.through(key, u) for key, ref in refs.items() for u in ref.unknowns)


def _known(assignments: list[tuple[str, Any]], null_gives: bool = True) -> set[str]:
    """The keys the overrides give values (--set, a measured row's, a referring scenario's), a
    mapping set whole each of its own: a shelf added whole leaves its part's unknowns open where it
    does not give their keys (the review: an added Data60's rate_matching had been taken as
    known). Without ``null_gives`` a key given null, the schema's "unset", gives nothing (a file
    writing a drive's seq_read_MBps: null had closed the part's span it leaves open)."""
    known: set[str] = set()

    def walk(key: str, value: Any) -> None:
        if isinstance(value, dict):  # an empty mapping gives no key
            for inner, below in value.items():
                walk(f"{key}.{inner}", below)
        elif value is not None or null_gives:
            known.add(key)

    for key, value in assignments:
        if key not in OVERRIDE_KEYS:
            walk(key, value)
    return known


def _open_unknowns(
    declared: tuple,
    body: Any,
    parts: catalog_module.Catalog,
    configured,
    variants,
    overridden,
    given,
) -> tuple:
    """The scenario's and its parts' declared unknowns, each checked against the model, that are
    open in this configuration (one of their variants among those it is, ``configured``; no key of
    theirs among those an override gives, ``overridden``: ``_known``), with their defaults. A
    part's unknown is open only where the scenario leaves its key to the part: a key the file, a
    variant or an override gives (``given``) is a fact the user states (an 870 EVO measured at 550
    MB/s had been refused, its sheet's range taken as the file's own)."""
    body_cls = type(body)
    found: dict[str, unknowns.Unknown] = {}
    for u in declared:
        live = unknowns.in_effect(u, configured, overridden)
        checked = unknowns.check(u, body_cls, body if live else None, variants, f"unknowns.{u.key}")
        if live:
            found[u.key] = checked
    copies: dict[tuple[str, str], list[unknowns.Unknown]] = {}  # a part's key -> found, each copy
    for prefix, pid, part in unknowns.part_keys(body, parts):
        for u in unknowns.parse(part.unknowns, part.declared_in, f"{pid}.unknowns"):
            key = prefix + u.key
            where_key = f"{pid}.unknowns.{u.key}"
            if field_type(body_cls, key.split(".")) is None and not _a_key_somewhere(u.key):
                raise UserError(
                    part.declared_in,
                    where_key,
                    "not a scenario key beside a part in any model (keys are relative to the "
                    "mapping that names the part)",
                )
            declared = any(key in known.scenario_keys for known in found.values())
            if declared or field_type(body_cls, key.split(".")) is None:
                continue  # the scenario's own declaration wins; a key of another model
            own = getattr(part, u.key, None) if not u.keys else None  # the part's figure, if any
            part_key = u.key
            u = replace(u, key=key, variants=())
            if unknowns.in_effect(u, configured, given):
                found[key] = unknowns.check(u, body_cls, body, variants, where_key, own)
                copies.setdefault((pid, part_key), []).append(found[key])
    for (pid, part_key), each in copies.items():
        joint = unknowns.one_fact(pid, part_key, each)
        if joint is not None:
            for u in each:
                del found[u.key]
            found[joint.key] = joint
    return tuple(found.values())


@functools.cache
def _a_key_somewhere(key: str) -> bool:
    """Whether ``key`` is a key of some mapping inside some registered model's body."""
    seen: set[type] = set()
    todo = [record.body for record in registry.MODELS.values()]
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        if field_type(cls, key.split(".")) is not None:
            return True
        for tp in type_hints(cls).values():
            todo += [t for t in _dataclasses_in(tp) if t not in seen]
    return False


def _dataclasses_in(tp: Any) -> list[type]:
    if dataclasses.is_dataclass(tp):
        return [tp]
    return [d for arg in typing.get_args(tp) for d in _dataclasses_in(arg)]


def with_values(scenario: Scenario, values: dict[str, Any]) -> Scenario:
    """``scenario`` with dotted keys set to Python values (a design point of its unknowns), built
    and checked as a file's would be, the keys it sets written, last (``Written``: an unknown
    whose option writes a key its volume's engine does not read is refused at its declaration,
    as the file writing it is; lvm_stripes: 1 on a pool had passed, meaning nothing, the review);
    its references and unknowns are kept. A key through a scenario it names
    (``storage.volumes.lv.cache_block_KiB``: an unknown of the ingest's store,
    ``unknowns.through``) is set in that scenario, which its body's checks of the scenarios it
    names then check again; where the point names another scenario there (an unknown over which
    store), the values of the replaced one's unknowns are not set in it (its own unknowns are not
    varied: the design was made from the scenario's)."""
    where = f"{scenario.path} (unknowns)"
    own: dict[str, Any] = {}
    named: dict[str, dict[str, Any]] = {}  # the key naming a scenario -> the values set there
    for key, value in values.items():
        ref = next((r for r in scenario.refs if key.startswith(r + ".")), None)
        if ref is None:
            own[key] = value
        else:
            named.setdefault(ref, {})[key.removeprefix(ref + ".")] = value
    changed = scenario
    if own:
        raw = _plain(scenario.body)
        for key, value in own.items():
            _assign(raw, type(scenario.body), key, _plain(value), where)
        written = _known(list(own.items()), null_gives=False)
        with writing(Written(frozenset(written), lambda key: -1, lambda key: where)):
            changed = _rebuilt(scenario, raw, where)
    if named:
        refs = dict(changed.refs)
        for ref, set_there in named.items():
            if refs[ref].path != scenario.refs[ref].path:
                continue  # another scenario named there: what passed through was the one replaced's
            refs[ref] = with_values(refs[ref], set_there)
        _checked(changed.body, where, refs)
        changed = replace(changed, refs=refs)
    return changed


def _no_parts_file(file: Path) -> str:
    """Why ``file`` (``--catalog``'s, or one ``catalogs:`` names), no regular file, is no parts
    file: what is there (``paths.kind``, which never opens it)."""
    found = paths.kind(file)
    if found is None:
        return "no such parts file"
    if found == "a folder":
        return "is a folder, not a parts file"
    return f"is not a regular file ({found}); a parts file is a YAML file"


def _catalog(raw: dict, path: Path, where: str, catalogs: tuple) -> catalog_module.Catalog:
    """The project's catalog with the user's parts: files given on the command line, files the
    scenario names (inside its own folder only) and its inline ``parts:``. A file given twice
    (``--catalog my_parts.yaml`` on a scenario whose ``catalogs:`` names it, the README's form: it
    was refused as defining its parts again, the quote audit) is read once, told by the file it is
    (``paths.identity``: a hard link's name, or a symbolic link's, and the file's own are one);
    another file defining a part again is refused (``user_parts.with_parts``)."""
    files = []
    for text in catalogs:
        if not str(text).strip():  # an unset variable in a script: no file, not the folder "."
            raise UserError("--catalog", None, "must name a parts file, got an empty string")
        file = Path(text)
        if not paths.is_file(file):
            raise UserError("--catalog", str(file), _no_parts_file(file))
        files.append(file)
    named = raw.get("catalogs") or []
    if not isinstance(named, list) or not all(isinstance(n, str) and n for n in named):
        raise UserError(where, "catalogs", "must be a list of parts files beside the scenario")
    folder = path.resolve().parent
    for i, name in enumerate(named):
        file = paths.inside(folder, name)
        if file is None:
            must = f"must be a file in {paths.shown(folder)} or below it"
            raise UserError(where, f"catalogs[{i}]", paths.outside(folder, name, must))
        if not paths.is_file(file):  # named from the scenario's folder, not the working one
            why = _no_parts_file(file)
            raise UserError(
                where,
                f"catalogs[{i}]",
                f"{paths.shown(file)} {why}"
                if paths.exists(file)
                else paths.dangling(folder, name)
                or f"{why} {paths.shown(file)} ({name!r} is read in the scenario's folder or "
                "below it)",
            )
        files.append(file)
    parts = catalog_module.load()
    first = {}  # each file as first given, by the file it is
    for file in files:
        first.setdefault(paths.identity(file), file)
    for file in first.values():
        parts = user_parts.with_parts(parts, read_yaml(file), paths.shown(file), "")
    if "parts" in raw:
        parts = user_parts.with_parts(parts, raw["parts"], where)
    return parts


def _references(
    body: Any,
    where: str,
    folder: Path,
    catalogs: tuple,
    depth: int,
    as_typed: frozenset[str] = frozenset(),
    through: tuple[Through, ...] = (),
    set_by: tuple[tuple[str, str, str], ...] = (),
) -> dict[str, Scenario]:
    """Load the scenarios ``body`` names (a path only in ``folder``, its file's, or below it, but
    at the keys ``as_typed`` as a shell reads it), each with the keys ``through`` sets in it after
    its own overrides, but before the body's list of them where a later change of ``set_by``
    (``Scenario.set_by``) set that list or an entry of it (a variant's key, then --set
    storage_overrides); a mistake in one is told as the key that names it, or as the key set
    through it where that one was set."""
    named = getattr(body, "references", lambda: ())()
    if named and depth >= MAX_REFERENCE_DEPTH:
        raise UserError(where, named[0].key, "scenarios name each other in a loop")
    for t in through:
        if t.ref not in {ref.key for ref in named}:
            raise UserError(
                t.at, t.given, f"{t.ref} names no scenario here: name one to set its keys"
            )
    loaded: dict[str, Scenario] = {}
    for ref in named:
        mine = [t for t in through if t.ref == ref.key]
        _refuse_derived(body, ref, mine)
        listed = ref.overrides_key  # the body's own list of overrides for it ("": none)
        listed_at = max(
            (i for i, (key, _, _) in enumerate(set_by) if listed and inside(dotted(key), listed)),
            default=-1,
        )
        before = [t.override() for t in mine if t.order < listed_at]
        after = [t.override() for t in mine if t.order > listed_at]
        ref = replace(ref, overrides=(*before, *ref.overrides, *after))
        file = (
            resolve(ref.name)
            if ref.key in as_typed
            else named_scenario(ref.name, folder, where, ref.key)
        )
        try:
            model = read_yaml(Path(file)).get("model")
            if model != ref.model:  # told before its overrides, which a scenario of another
                raise UserError(  # model would refuse in its own words
                    where,
                    ref.key,
                    f"must name a {ref.model} scenario, got {ref.name!r} ({model})",
                )
            scenario = load(
                file,
                ref.overrides,
                where_overrides=f"{where} {ref.key}",
                catalogs=catalogs,
                _depth=depth + 1,
            )
        except UserError as exc:
            if exc.where == where:  # the reference's own mistake, told as it is
                raise
            told = relocated_through(mine, exc, f"{where} {ref.key}")
            if told is not None:  # a key set through the reference: told where it was set
                raise told from None
            if mine and exc.key and exc.where == paths.shown(resolve(file)):
                # the named file's own place, refused with keys set through it: told as this
                # scenario's key, which its load names with what was set (its overrides)
                raise UserError(where, f"{ref.key}.{exc.key}", exc.message) from None
            at = _override_at(body, ref, exc, f"{where} {ref.key}")
            if at is not None:  # one of the overrides the body gives: told at it
                raise UserError(where, at, f"{exc.key}: {exc.message}") from None
            raise UserError(where, ref.key, f"{ref.name!r}: {exc.line()}") from None
        loaded[ref.key] = scenario
    _checked(body, where, loaded)
    return loaded


def _refuse_derived(body: Any, ref: Reference, through: list[Through]) -> None:
    """Refuse a key set through ``ref`` that the naming body derives there from its own keys (the
    ingest's ``workload.streams``, one writer per client): set last, it would silently undo them."""
    listed = getattr(body, ref.overrides_key) if ref.overrides_key else ()
    for derived in ref.overrides[len(listed) :]:
        key = derived.partition("=")[0].strip()
        for t in through:
            if inside(t.key, key) or inside(key, t.key):
                raise UserError(
                    t.at,
                    t.given,
                    f"this scenario sets {key} in the scenario {ref.key} names ({derived}) from "
                    + (f"its {ref.derived_from}: set that" if ref.derived_from else "its own keys"),
                )


def _override_at(body: Any, ref: Reference, exc: UserError, given_at: str) -> str | None:
    """Where in the body's list of overrides (``Reference.overrides_key``, ``storage_overrides``)
    the one lies that a mistake ``exc`` in the scenario ``ref`` names is told at (``given_at``,
    where its overrides were applied): the last that sets its key or a mapping holding it, as
    ``storage_overrides[0]``; None where the mistake is not at one the body lists (the hostile-input
    audit: a key no storage scenario has was told at the scenario named, the file named twice)."""
    if exc.where != given_at or not exc.key or not ref.overrides_key:
        return None
    listed = getattr(body, ref.overrides_key)
    key = dotted(exc.key)
    found = None
    for i, text in enumerate(listed):
        set_key = text.partition("=")[0].strip()
        if text == exc.key or inside(key, set_key):
            found = f"{ref.overrides_key}[{i}]"
    return found


def _checked(body: Any, where: str, loaded: dict[str, Scenario]) -> None:
    """The body's checks of the scenarios it names (``check_references``), if it has any."""
    check = getattr(body, "check_references", None)
    if check is not None:
        check(where, loaded)


def _plain(value: Any) -> Any:
    """``value`` as YAML would give it: tuples as lists, dataclasses as mappings."""
    if dataclasses.is_dataclass(value):
        value = dataclasses.asdict(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def changed(scenario: Scenario, **changes: Any) -> Scenario:
    """``scenario`` with top-level body keys set to Python values (a notebook's or a test's
    what-if), checked as a file's would be and its references loaded again."""
    where = f"{scenario.path} (changed)"
    raw = _plain(scenario.body)
    raw.update(_plain(changes))
    return _rebuilt(scenario, raw, where)


def _rebuilt(scenario: Scenario, raw: dict[str, Any], where: str) -> Scenario:
    """``scenario`` with its body built again from ``raw`` (checked as a file's would be), the
    scenarios it names loaded again only if they changed."""
    with catalog_module.building(scenario.catalog or catalog_module.load()):
        body = build_dataclass(type(scenario.body), raw, where)
    named = getattr(body, "references", lambda: ())()
    if named == getattr(scenario.body, "references", lambda: ())():
        return replace(scenario, body=body)  # the same scenarios named: those already loaded
    refs = _references(
        body,
        where,
        Path(scenario.folder),
        scenario.catalogs,
        0,
        through=scenario.through,
        set_by=scenario.set_by,
    )
    own = tuple(u for u in scenario.unknowns if not u.via)  # the named ones', from those named now
    return replace(scenario, body=body, refs=refs, unknowns=own + _through(refs))


def _header_text(value: Any, where: str, key: str) -> str:
    """A header's ``name``, ``description`` or ``source``, in the file or set: text, not blank."""
    if not isinstance(value, str) or not value.strip():
        raise UserError(where, key, f"must be a non-empty string, got {readable(value)}")
    return value


def variants_of(name_or_path: str | Path) -> list[str]:
    """The variant names a scenario file declares."""
    return list(read_yaml(resolve(name_or_path)).get("variants") or {})


def shipped() -> Iterator[tuple[str, Scenario]]:
    """Every scenario the project ships (``data/scenarios/``) and each variant its file declares,
    loaded, with its label: the file's name, and the variant's in brackets."""
    for path in sorted(paths.SCENARIOS.glob("*.yaml")):
        for variant in [None, *variants_of(path)]:
            label = path.stem + (f" [{variant}]" if variant else "")
            yield label, load(path, [f"variant={variant}"] if variant else [])


def check_catalog(loaded: Scenario) -> None:
    """The checks of a scenario against its catalog its model makes before it simulates
    (``ModelRecord.check_parts``: a transfer's circuits in its hosts' slots, a store's parts;
    ``check_refs``: with the scenarios it names), and each scenario it names, a refusal told where
    its key was set (a variant, an override, one set through the key naming it)."""
    from . import params

    record = registry.MODELS[loaded.model]
    parts = loaded.catalog or catalog_module.load()
    try:
        record.check_parts(loaded.body, parts, params.calibrated(), loaded.path)
        record.check_refs(loaded, parts)
    except UserError as exc:
        raise loaded.relocated(exc) from None
    for key, named in loaded.refs.items():  # each scenario it names, as its own run checks it
        try:
            check_catalog(named)
        except UserError as exc:  # at a key set through it (--set storage.KEY) where one was
            raise loaded.told_through(key, exc) or exc from None


def check_design(loaded: Scenario) -> None:
    """The checks the 90 % interval's design points meet, without simulating them (``predict
    --point``, and every variant a file declares): each configuration of the scenario's open
    unknowns (``design_points.design``: every combination where they are few, else each value
    alone, so the checks grow with the values, not their product) built and checked against its
    catalog, a value the model refuses told at the unknown that asked for it, as the interval
    tells it (after the scenario itself has run: its own refusal is told as it is), and each
    scenario it names (an unknown of its store changes that). A refusal only a simulation finds is
    not caught here."""
    from .design_points import design, refused

    for config in design(loaded.unknowns)[1:]:  # the first, all defaults, is the scenario
        try:
            check_catalog(with_values(loaded, unknowns.assigned(loaded.unknowns, config)))
        except UserError as exc:
            raise refused(loaded.unknowns, config, exc, loaded.variant) from None


def check_variants(name_or_path: str | Path, catalogs: tuple[str | Path, ...] = ()) -> None:
    """Every variant the file declares, loaded and checked against its catalog as choosing it
    would, with the values of the unknowns open in it (``check_design``: an unknown the file does
    not limit to variants, whose value one variant refuses, had passed until that variant was
    chosen): a mistake in a variant the user did not choose is told now, named at the variant's
    key or the unknown's, not when a sweep or a colleague first chooses it."""
    for name in variants_of(name_or_path):
        loaded = load(name_or_path, [f"variant={name}"], catalogs=catalogs)
        check_catalog(loaded)
        check_design(loaded)
