"""Declared unknowns: the facts a report or a datasheet leaves unsaid, with the values the
documentation allows.

A scenario's top-level ``unknowns:`` mapping, or a catalog part's, names keys of the scenario
(dotted paths as ``--set`` takes them) with either ``options: [...]`` (a set: a controller's
read-ahead modes from its manual, a mirror's read policies, a write cache on or off) or
``range: [low, high]`` (a kernel's dirty ratio between its documented bounds), and a one-line
``source:`` citing where the values come from. ``variants: [...]`` limits one to the
configurations it concerns. The scenario's own value is the documented default and must lie among
the options or inside the range: the point prediction is that configuration (``model.uncertainty``
propagates the rest).

A catalog part's keys are relative to the mapping that names the part (the Areca's
``drive_queue_depth`` is the key beside ``controller: areca_1261ml``); they apply to every scenario
whose model has that key there. A value set on the command line (``--set``) is known, not unknown.

Everything here is hostile input: a mistake is one line naming the file, the key and what is
allowed (``UserError``, exit status 2).
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any

from .errors import UserError
from .schema import build, locate, stepped

ENTRY_KEYS = ("options", "range", "source", "variants")
MAX_OPTIONS = 16  # each option is one more simulation of every prediction


@dataclass(frozen=True)
class Unknown:
    """One declared unknown: its scenario ``key``, the ``options`` or the ``range`` the
    documentation allows, its ``source``, the variants it concerns (all when empty), where it was
    declared and the scenario's own (default) value once resolved."""

    key: str
    source: str
    options: tuple[Any, ...] | None = None
    range: tuple[float, float] | None = None
    variants: tuple[str, ...] = ()
    declared_in: str = ""
    default: Any = None

    def allowed(self) -> str:
        """The documented values, as a reader would write them."""
        if self.options is not None:
            return "one of " + ", ".join(_shown(o) for o in self.options)
        low, high = self.range
        return f"from {_shown(low)} to {_shown(high)}"

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"key": self.key, "source": self.source, "default": self.default}
        if self.options is not None:
            out["options"] = list(self.options)
        else:
            out["range"] = list(self.range)
        if self.variants:
            out["variants"] = list(self.variants)
        out["declared_in"] = self.declared_in
        return out


def _shown(value: Any) -> str:
    if value is None:
        return "null (the model's own choice)"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(list(value) if isinstance(value, tuple) else value)


def parse(block: Any, where: str, at: str = "unknowns") -> tuple[Unknown, ...]:
    """The shape of an ``unknowns:`` mapping (keys are checked against a model by
    :func:`resolve`)."""
    if block is None:
        return ()
    if not isinstance(block, dict) or not block:
        raise UserError(
            where,
            at,
            "must be a mapping from a scenario key (dotted) to its options: [...] or "
            "range: [low, high] and its source",
        )
    return tuple(_entry(str(key), spec, where, f"{at}.{key}") for key, spec in block.items())


def _entry(key: str, spec: Any, where: str, at: str) -> Unknown:
    if not key or any(not part for part in key.split(".")) or key.startswith("unknowns"):
        raise UserError(where, at, "must be a scenario key, dotted as --set takes it")
    if not isinstance(spec, dict):
        raise UserError(where, at, "must be a mapping with options or range, and source")
    extra = sorted(set(spec) - set(ENTRY_KEYS))
    if extra:
        raise UserError(where, f"{at}.{extra[0]}", f"unknown key; allowed: {', '.join(ENTRY_KEYS)}")
    source = spec.get("source")
    if not isinstance(source, str) or not source.strip() or "\n" in source.strip():
        raise UserError(
            where, f"{at}.source", "missing; one line citing where the allowed values come from"
        )
    if ("options" in spec) == ("range" in spec):
        raise UserError(where, at, "needs exactly one of options: [...] or range: [low, high]")
    variants = spec.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) and v for v in variants):
        raise UserError(where, f"{at}.variants", "must be a list of the scenario's variant names")
    options, span = None, None
    if "options" in spec:
        options = spec["options"]
        if not isinstance(options, list) or not 2 <= len(options) <= MAX_OPTIONS:
            raise UserError(
                where, f"{at}.options", f"must be a list of 2 to {MAX_OPTIONS} allowed values"
            )
        if any(options.count(o) > 1 for o in options):
            raise UserError(where, f"{at}.options", "lists a value twice; give each once")
        options = tuple(tuple(o) if isinstance(o, list) else o for o in options)
    else:
        span = spec["range"]
        numbers = isinstance(span, list) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            for v in span
        )
        if not numbers or len(span) != 2 or not span[0] < span[1]:
            raise UserError(
                where, f"{at}.range", "must be [low, high], two finite numbers with low < high"
            )
        span = (span[0], span[1])
    return Unknown(
        key=key,
        source=source.strip(),
        options=options,
        range=span,
        variants=tuple(variants),
        declared_in=where,
    )


def value_at(body: Any, key: str) -> Any:
    """The built value at dotted ``key`` of a scenario body."""
    node = body
    for part in key.split("."):
        if dataclasses.is_dataclass(node):
            node = getattr(node, part)
        elif isinstance(node, dict):
            node = node[part]
        else:
            node = node[int(part)]
    return node


def _numeric(tp: Any) -> bool:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return all(_numeric(a) for a in typing.get_args(tp) if a is not type(None))
    return tp in (int, float)


def _exists(body_cls: type, key: str, where_key: str, where: str) -> Any:
    """The declared type at ``key``; a key the scenario does not have is refused."""
    try:
        return locate(body_cls, key)
    except UserError as exc:
        raise UserError(where, where_key, f"not a scenario key: {exc.message}") from None


def check(
    unknown: Unknown, body_cls: type, body: Any, variants: list[str], where_key: str
) -> Unknown:
    """``unknown`` checked against a model's body: its key exists, its values are values of that
    key, its variants are the scenario's, and the scenario's own value (``body``) lies among them;
    returned with that default."""
    where = unknown.declared_in
    tp = _exists(body_cls, unknown.key, where_key, where)
    for name in unknown.variants:
        if name not in variants:
            raise UserError(
                where,
                f"{where_key}.variants",
                f"no variant {name!r}; allowed: {', '.join(variants) or 'none'}",
            )
    if unknown.options is not None:
        built = tuple(
            build(tp, list(o) if isinstance(o, tuple) else o, where, f"{where_key}.options[{i}]")
            for i, o in enumerate(unknown.options)
        )
        unknown = dataclasses.replace(unknown, options=built)
    else:
        if not _numeric(tp):
            raise UserError(
                where,
                f"{where_key}.range",
                "a range needs a numeric key; give this one options: [...]",
            )
        if stepped(tp):
            raise UserError(
                where,
                f"{where_key}.range",
                "takes only powers of two, which a range would fall between; give them as "
                "options: [...]",
            )
        for i, end in enumerate(unknown.range):
            build(tp, end, where, f"{where_key}.range[{i}]")
    if body is None:
        return unknown
    try:
        default = value_at(body, unknown.key)
    except (AttributeError, KeyError, IndexError, ValueError):
        raise UserError(where, where_key, "names an entry the scenario does not have") from None
    inside = (
        default in unknown.options
        if unknown.options is not None
        else default is not None and unknown.range[0] <= default <= unknown.range[1]
    )
    if not inside:
        raise UserError(
            where,
            where_key,
            f"the scenario's own value {_shown(default)} is the documented default and must be "
            f"{unknown.allowed()}",
        )
    return dataclasses.replace(unknown, default=default)


def in_effect(unknown: Unknown, variant: str | None, set_keys: set[str]) -> bool:
    """Whether ``unknown`` is open in a configuration: its variant, and not set by an override."""
    if unknown.variants and variant not in unknown.variants:
        return False
    return not any(
        unknown.key == k or unknown.key.startswith(k + ".") or k.startswith(unknown.key + ".")
        for k in set_keys
    )


def part_keys(body: Any, catalog: Any) -> list[tuple[str, str, Any]]:
    """(dotted key prefix, part id, part) for every catalog part a body names that declares
    unknowns: the prefix is the mapping holding the key that names it."""
    found: list[tuple[str, str, Any]] = []
    ids = {pid: part for table in catalog.parts.values() for pid, part in table.items()}

    def walk(node: Any, prefix: str) -> None:
        if dataclasses.is_dataclass(node):
            items = [(f.name, getattr(node, f.name)) for f in dataclasses.fields(node)]
        elif isinstance(node, dict):
            items = list(node.items())
        elif isinstance(node, tuple):
            items = [(str(i), v) for i, v in enumerate(node)]
        else:
            return
        for name, value in items:
            if isinstance(value, str):
                part = ids.get(value)
                if part is not None and getattr(part, "unknowns", None):
                    found.append((prefix, value, part))
            else:
                walk(value, f"{prefix}{name}.")

    walk(body, "")
    return found
