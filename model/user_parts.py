"""The user's own parts: a parts file (``--catalog FILE``, a scenario's ``catalogs:``) or a
scenario's ``parts:`` joins the project's catalog, each part new or extending one of the catalog's
with ``like: ID``, checked as the catalog's files are.
"""

from __future__ import annotations

import graphlib
import types
import typing
from dataclasses import MISSING, fields, is_dataclass

from .catalog import (
    CPU_KEYS,
    Catalog,
    build_part,
    check_references,
    ids_offered,
    load,
    with_cpu,
)
from .errors import UserError, readable
from .parts import CATEGORIES, Part
from .schema import type_hints


def with_parts(base: Catalog, data: object, where: str, key: str = "parts") -> Catalog:
    """``base`` and the user's own parts: ``data`` maps a category to part ids to their parameters,
    as the catalog's files do. A part may extend one of the catalog's with ``like: ID`` and change
    a few values, each changed number with a source of its own; a new part needs a source for every
    number ("measured by us on DATE" or "estimated: why" are sources). A part id the catalog (or
    another user part) already has is refused."""
    if not isinstance(data, dict):
        raise UserError(where, key, "must be a mapping from category to part ids to parameters")
    parts = {category: dict(table) for category, table in base.parts.items()}
    added: dict[str, dict[str, Part]] = {}
    entries: dict[tuple[str, str], tuple[str, dict]] = {}  # (category, id): (where in file, spec)
    for category, table in data.items():
        section = f"{key}.{category}" if key else str(category)
        if category not in CATEGORIES:
            raise UserError(where, section, f"unknown category; allowed: {', '.join(CATEGORIES)}")
        if not isinstance(table, dict):
            raise UserError(where, section, "must be a mapping from part id to parameters")
        for pid, spec in table.items():
            at = f"{section}.{pid if isinstance(pid, str) else readable(pid)}"
            if not isinstance(pid, str) or not pid:
                raise UserError(where, at, "a part's id must be a word (quote it in YAML)")
            if not isinstance(spec, dict):
                raise UserError(where, at, "must be a mapping of the part's parameters")
            if str(pid) in parts[category]:
                raise UserError(
                    where,
                    at,
                    f"{_defined(category, pid, parts[category][pid])}; give your part a new id, "
                    "or extend it with like:",
                )
            entries[(category, pid)] = (at, spec)
    for category, pid in _in_order_of_use(entries, where):
        at, spec = entries[(category, pid)]
        raw = dict(spec)
        like = raw.pop("like", None)
        if like is not None:
            raw = _extended(parts, category, like, raw, where, at, entries)
        if category == "hosts" and spec.get("cpu") is not None:
            # the processor named here gives what this part does not (not the like: base's)
            mine = {k for k in spec if k != "sources"} | set(spec.get("sources") or {})
            raw = {k: v for k, v in raw.items() if k in mine or k not in CPU_KEYS}
            raw["sources"] = {
                k: v for k, v in (raw.get("sources") or {}).items() if k not in CPU_KEYS
            } | dict(spec.get("sources") or {})
            raw = with_cpu(raw, parts["cpus"], where, at, users=True)
        built = build_part(category, raw, where, at)
        parts[category][str(pid)] = added.setdefault(category, {})[str(pid)] = built
    catalog = Catalog(parts, with_users_parts=True)
    for category, table in added.items():
        check_references(catalog, table, where, f"{key}.{category}." if key else f"{category}.")
    return catalog


def _defined(category: str, pid: str, part: Part) -> str:
    """Who defined ``part`` already: the project's catalog, or the user's file that gave it first
    (a parts file's part given again by another was told as the catalog's, the review)."""
    if load().parts[category].get(pid) is part:
        return f"the catalog already has a {category[:-1]} {pid!r}"
    return f"a {category[:-1]} {pid!r} is already defined by {part.declared_in}"


def _in_order_of_use(
    entries: dict[tuple[str, str], tuple[str, dict]], where: str
) -> list[tuple[str, str]]:
    """The file's parts, each after the parts of the same file it is built from (the part its
    ``like:`` names, a host's ``cpu``), otherwise in the file's order: a part extending one defined
    further down had been refused as naming no part (the purchase audit)."""
    graph: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for (category, pid), (_, spec) in entries.items():
        uses = [(category, spec.get("like"))]
        if category == "hosts":
            uses.append(("cpus", spec.get("cpu")))
        graph[(category, pid)] = {
            u for u in uses if isinstance(u[1], str) and u in entries and u != (category, pid)
        }
    try:
        return list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        loop = exc.args[1]
        raise UserError(
            where,
            entries[loop[0]][0],
            "its like: (or cpu:) leads back to itself through "
            + " -> ".join(f"{c}.{p}" for c, p in loop),
        ) from None


def _extended(
    parts: dict, category: str, like: object, raw: dict, where: str, at: str, entries: dict
) -> dict:
    """The parameters of the part ``like`` names, changed by ``raw``; every number ``raw`` changes
    needs its own source. ``entries`` are the user's parts, (category, id), built or not yet."""
    if not isinstance(like, str) or like not in parts[category]:
        raise UserError(where, f"{at}.like", _names_no(parts, entries, category, like))
    sources = raw.get("sources") or {}
    if not isinstance(sources, dict):
        raise UserError(where, f"{at}.sources", "must be a mapping from key to its source")
    numeric = _numeric_keys(CATEGORIES[category])  # the others' types the schema checks later
    changed = [
        k
        for k, v in raw.items()
        if k not in sources
        and (
            (k in numeric and isinstance(v, (int, float)) and not isinstance(v, bool))
            or k in ("buses", "ocp_slots")  # a host's slot counts (parts.Host.check)
        )
    ]
    if changed:
        raise UserError(
            where,
            f"{at}.sources",
            f"no source for {', '.join(changed)}, changed from "
            f"{like}; every number you change needs one",
        )
    merged = _raw(parts[category][like])
    merged.update({k: v for k, v in raw.items() if k != "sources"})
    merged["sources"] = {**merged["sources"], **sources}
    merged["reports"] = raw.get("reports", [])  # the reports name the catalog's part, not yours
    return merged


def _names_no(parts: dict, entries: dict, category: str, like: object) -> str:
    """Why ``like`` names no part of ``category``: the other categories that have it, the
    catalog's or the user's (built yet or not: an SSD's id under ``disks:`` had been told only
    "names no disk", the quotes audit), where one does; else the ids on offer."""
    held = [
        c
        for c in CATEGORIES
        if c != category and isinstance(like, str) and (like in parts[c] or (c, like) in entries)
    ]
    if held:
        kinds = " and ".join(held)
        return (
            f"names no {category[:-1]}: {like} is one of the {kinds} (data/hardware/ or your "
            f"parts); like: extends a part of its own category, so a part like it goes under "
            f"{held[0]}:"
        )
    offered = ids_offered(like, sorted(parts[category]), (category,), users=True)
    return f"names no {category[:-1]}; {offered}"


def _numeric_keys(cls: type) -> set[str]:
    """The keys of a part class whose values are numbers (optional or bounded ones included)."""

    def number(tp) -> bool:
        if typing.get_origin(tp) in (typing.Union, types.UnionType):
            return any(number(a) for a in typing.get_args(tp) if a is not type(None))
        if typing.get_origin(tp) is typing.Annotated:
            return number(typing.get_args(tp)[0])
        return tp in (int, float)

    return {key for key, tp in type_hints(cls).items() if number(tp)}


def _raw(part: Part) -> dict:
    """A part's fields as a parts file gives them (for ``like:``): those left at their defaults
    are left out, as the file left them (an empty ``processor`` is no string a file may give)."""
    return {
        f.name: _plain(getattr(part, f.name))
        for f in fields(part)
        if f.init and not _at_default(f, getattr(part, f.name))
    }


def _plain(value: object) -> object:
    """``value`` as a parts file writes it: a list for a tuple, a mapping for a nested record (a
    host's bus slots)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    return value


def _at_default(f, value: object) -> bool:
    if f.default is not MISSING:
        return value == f.default
    return f.default_factory is not MISSING and value == f.default_factory()
