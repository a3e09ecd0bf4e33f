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

One fact that sets several keys together (how many host adapters carry an array's wires sets the
link each wire hangs from) is one unknown: a name (words, no dots) whose ``options:`` is a mapping
from each option's name to the keys it sets and their values (``two cards: {buses.sas2.via:
pcie_b, buses.sas3.via: pcie_b}``), every option setting the same keys. Its options are
enumerated as one factor, so that what they do together is ranked as theirs (two keys declared
apart, each of which alone moves nothing, would never be named); the scenario's own values must be
one option's, its default. A value ``--set`` gives any of its keys makes the whole fact known.

A catalog part's keys are relative to the mapping that names the part (the Areca's
``drive_queue_depth`` is the key beside ``controller: areca_1261ml``); they apply to every scenario
whose model has that key there (a part's unknown takes one key). A part named in several places
(two Data60 shelves) declares one fact of its model: its copies' keys are one joint unknown,
varied together (:func:`one_fact`). A value set on the command line (``--set``) is known, not
unknown.

An unknown limited to ``variants`` is open in a configuration that is one of them: chosen by name,
or equal to it, its settings changing no value of the configuration (``psu_mmap`` with no variant
reads the RAID 1 mirror, as its variant ``raid`` does, so the mirror's read policy is unknown in
both). A variant that sets nothing is no configuration but a circumstance (the runs of one slide,
``atlas_intellistation``'s ``slide8``): its unknowns are open only where it is chosen.

A scenario that names another (the ingest's ``storage``, a WAN transfer's ``sender_storage``)
carries the named scenario's open unknowns as its own (:func:`through`), named by the key that
names it (``storage.volumes.lv.cache_block_KiB``), so that its interval spans them and its drivers
rank them; each value reaches the named scenario as its overrides do. A value the naming
scenario's overrides give it (``storage_overrides``) is known there, as ``--set`` makes one known.

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

from .errors import UserError, readable
from .schema import build, inside, locate, named_body, stepped

ENTRY_KEYS = ("options", "range", "source", "variants")
MAX_OPTIONS = 16  # each option is one more simulation of every prediction


@dataclass(frozen=True)
class Unknown:
    """One declared unknown: its scenario ``key``, the ``options`` or the ``range`` the
    documentation allows, its ``source``, the variants it concerns (all when empty), where it was
    declared and the scenario's own (default) value once resolved. A joint unknown's ``key`` is its
    name and its ``options`` its options' names, each setting its ``keys`` to the values of its
    entry in ``settings``. One a named scenario declares is reached ``via`` the keys that name it
    (``storage``), which prefix its key and its keys."""

    key: str
    source: str
    options: tuple[Any, ...] | None = None
    range: tuple[float, float] | None = None
    variants: tuple[str, ...] = ()
    declared_in: str = ""
    default: Any = None
    keys: tuple[str, ...] = ()
    settings: tuple[tuple[Any, ...], ...] = ()
    via: str = ""

    @property
    def declared_key(self) -> str:
        """Its key (a joint one's name) as the file that declares it gives it."""
        return self.key.removeprefix(self.via + ".") if self.via else self.key

    @property
    def scenario_keys(self) -> tuple[str, ...]:
        """The scenario keys it sets: its own key, or a joint unknown's keys."""
        return self.keys or (self.key,)

    def assignment(self, level: Any) -> dict[str, Any]:
        """The scenario keys one of its values (a joint unknown's: an option) sets, and to what."""
        if not self.keys:
            return {self.key: level}
        return dict(zip(self.keys, self.settings[self.options.index(level)], strict=True))

    def allowed(self) -> str:
        """The documented values, as a reader would write them."""
        if self.keys:
            return "one of " + "; ".join(
                f"{name} ({_setting(self.assignment(name))})" for name in self.options
            )
        if self.options is not None:
            return "one of " + ", ".join(shown(o) for o in self.options)
        low, high = self.range
        return f"from {shown(low)} to {shown(high)}"

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"key": self.key, "source": self.source, "default": self.default}
        if self.keys:
            out["keys"] = list(self.keys)
            out["options"] = {name: self.assignment(name) for name in self.options}
        elif self.options is not None:
            out["options"] = list(self.options)
        else:
            out["range"] = list(self.range)
        if self.variants:
            out["variants"] = list(self.variants)
        out["declared_in"] = self.declared_in
        if self.via:
            out["via"] = self.via
        return out


def shown(value: Any) -> str:
    """A value as a reader would write it in YAML (``true``, a list in brackets)."""
    if value is None:
        return "null (the model's own choice)"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(list(value) if isinstance(value, tuple) else value)


def _setting(values: dict[str, Any]) -> str:
    return ", ".join(f"{key}={shown(value)}" for key, value in values.items())


def _a_key(key: Any) -> bool:
    return isinstance(key, str) and all(key.split(".")) and not key.startswith("unknowns")


def parse(block: Any, where: str, at: str = "unknowns", joint: bool = True) -> tuple[Unknown, ...]:
    """The shape of an ``unknowns:`` mapping (keys are checked against a model by :func:`check`);
    ``joint``: whether an unknown may set several keys together (a catalog part's may not)."""
    if block is None:
        return ()
    if not isinstance(block, dict) or not block:
        raise UserError(
            where,
            at,
            "must be a mapping from a scenario key (dotted) to its options: [...] or "
            "range: [low, high] and its source",
        )
    for key in block:
        if not isinstance(key, str):
            raise UserError(
                where, at, f"a key is a scenario key (dotted text), got {readable(key)}"
            )
    found = tuple(_entry(key, spec, where, f"{at}.{key}", joint) for key, spec in block.items())
    owner: dict[str, str] = {}
    for u in found:
        for key in u.scenario_keys:
            if key in owner:
                raise UserError(
                    where, f"{at}.{u.key}", f"sets {key}, as {owner[key]} does; declare a key once"
                )
            owner[key] = u.key
    return found


def _entry(key: str, spec: Any, where: str, at: str, joint: bool) -> Unknown:
    if not isinstance(spec, dict):
        raise UserError(where, at, "must be a mapping with options or range, and source")
    if isinstance(spec.get("options"), dict) and joint:
        if not key.strip() or "." in key or "\n" in key:
            raise UserError(
                where, at, "a fact that sets several keys is named in words without dots"
            )
    elif not _a_key(key):
        raise UserError(where, at, "must be a scenario key, dotted as --set takes it")
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
    keys: tuple[str, ...] = ()
    settings: tuple[tuple[Any, ...], ...] = ()
    if isinstance(spec.get("options"), dict):
        if not joint:
            raise UserError(
                where,
                f"{at}.options",
                "a part's unknown takes one key: give options: [...] (keys a fact sets together "
                "are declared in the scenario's unknowns)",
            )
        options, keys, settings = _joint(spec["options"], where, f"{at}.options")
    elif "options" in spec:
        options = spec["options"]
        if not isinstance(options, list) or not 2 <= len(options) <= MAX_OPTIONS:
            raise UserError(
                where, f"{at}.options", f"must be a list of 2 to {MAX_OPTIONS} allowed values"
            )
        if any(options.count(o) > 1 for o in options):
            raise UserError(where, f"{at}.options", "lists a value twice; give each once")
        options = tuple(_frozen(o) for o in options)
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
        keys=keys,
        settings=settings,
    )


def _joint(options: dict, where: str, at: str):
    """A joint unknown's option names, its keys and each option's values of them."""
    if not 2 <= len(options) <= MAX_OPTIONS:
        raise UserError(where, at, f"must name 2 to {MAX_OPTIONS} options")
    keys: tuple[str, ...] = ()
    settings: list[tuple[Any, ...]] = []
    for name, setting in options.items():
        here = f"{at}.{name}"
        if not isinstance(setting, dict) or not setting:
            raise UserError(
                where, here, "must be a mapping from each key it sets (dotted) to its value"
            )
        bad = [k for k in setting if not _a_key(k)]
        if bad:
            raise UserError(
                where, f"{here}.{bad[0]}", "must be a scenario key, dotted as --set takes it"
            )
        keys = keys or tuple(setting)
        if set(setting) != set(keys):
            raise UserError(
                where, here, f"must set the keys the first option sets: {', '.join(keys)}"
            )
        values = tuple(_frozen(setting[k]) for k in keys)
        if values in settings:
            raise UserError(where, here, "sets the values another option sets; give each once")
        settings.append(values)
    return tuple(str(name) for name in options), keys, tuple(settings)


def _frozen(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _listed(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


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
    """The declared type at ``key``; a key the scenario does not have is refused, and one of a
    scenario it names (``storage.volumes.lv.cache_block_KiB``: that scenario's to declare)."""
    if named_body(body_cls, key.split(".")) is not None:
        ref = key.split(".")[0]
        raise UserError(
            where,
            where_key,
            f"{key} is a key of the scenario {ref} names: declare it in that scenario's own "
            "file, whose unknowns this one's interval spans too",
        )
    try:
        return locate(body_cls, key)
    except UserError as exc:
        raise UserError(where, where_key, f"not a scenario key: {exc.message}") from None


def check(
    unknown: Unknown,
    body_cls: type,
    body: Any,
    variants: list[str],
    where_key: str,
    part_value: Any = None,
) -> Unknown:
    """``unknown`` checked against a model's body: its key exists, its values are values of that
    key, its variants are the scenario's, and the scenario's own value (``body``) lies among them;
    returned with that default. A part's unknown whose key the scenario leaves null, to take the
    part's own figure (a controller's ``processor_MHz``), has that figure, ``part_value``, as its
    default (a part giving 1,500 MHz and declaring 1,200 to 2,000 had been refused: 'the
    scenario's own value null')."""
    where = unknown.declared_in
    for name in unknown.variants:
        if name not in variants:
            raise UserError(
                where,
                f"{where_key}.variants",
                f"no variant {name!r}; allowed: {', '.join(variants) or 'none'}",
            )
    if unknown.keys:
        return _check_joint(unknown, body_cls, body, where_key)
    tp = _exists(body_cls, unknown.key, where_key, where)
    if unknown.options is not None:
        built = tuple(
            build(tp, _listed(o), where, f"{where_key}.options[{i}]")
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
    if default is None:
        default = part_value
    inside = (
        default in unknown.options
        if unknown.options is not None
        else default is not None and unknown.range[0] <= default <= unknown.range[1]
    )
    if not inside:
        raise UserError(
            where,
            where_key,
            f"the scenario's own value {shown(default)} is the documented default and must be "
            f"{unknown.allowed()}",
        )
    return dataclasses.replace(unknown, default=default)


def _check_joint(unknown: Unknown, body_cls: type, body: Any, where_key: str) -> Unknown:
    """A joint unknown checked as :func:`check` checks one: each option's values are values of
    its keys, and the scenario's own values are one option's, its default."""
    where = unknown.declared_in
    settings = []
    for name, values in zip(unknown.options, unknown.settings, strict=True):
        at = f"{where_key}.options.{name}"
        built = []
        for key, value in zip(unknown.keys, values, strict=True):
            tp = _exists(body_cls, key, at, where)
            built.append(build(tp, _listed(value), where, f"{at}.{key}"))
        settings.append(tuple(built))
    unknown = dataclasses.replace(unknown, settings=tuple(settings))
    if body is None:
        return unknown
    try:
        own = tuple(value_at(body, key) for key in unknown.keys)
    except (AttributeError, KeyError, IndexError, ValueError):
        raise UserError(where, where_key, "names an entry the scenario does not have") from None
    if own not in unknown.settings:
        shown = _setting(dict(zip(unknown.keys, own, strict=True)))
        raise UserError(
            where,
            where_key,
            f"the scenario's own values ({shown}) are the documented default and must be "
            f"{unknown.allowed()}",
        )
    return dataclasses.replace(unknown, default=unknown.options[unknown.settings.index(own)])


def in_effect(unknown: Unknown, configured: set[str], set_keys: set[str]) -> bool:
    """Whether ``unknown`` is open in a configuration: one of its variants among those the
    configuration is (``configured``: the variant chosen, and those it equals), and no override
    setting (a key of) it."""
    if unknown.variants and not configured & set(unknown.variants):
        return False
    return not any(
        inside(key, k) or inside(k, key) for key in unknown.scenario_keys for k in set_keys
    )


def through(reference: str, unknown: Unknown) -> Unknown:
    """``unknown``, open in a scenario another names at the key ``reference``, as the naming
    scenario's: its key and the keys it sets prefixed with ``reference``."""
    return dataclasses.replace(
        unknown,
        key=f"{reference}.{unknown.key}",
        keys=tuple(f"{reference}.{key}" for key in unknown.keys),
        via=f"{reference}.{unknown.via}" if unknown.via else reference,
    )


def assigned(unknowns: tuple[Unknown, ...], config: dict[str, Any]) -> dict[str, Any]:
    """A design point (each unknown's key or name to one of its values) as the scenario keys it
    sets and their values."""
    by_key = {u.key: u for u in unknowns}
    values: dict[str, Any] = {}
    for key, level in config.items():
        values.update(by_key[key].assignment(level))
    return values


def one_fact(part_id: str, key: str, found: list[Unknown]) -> Unknown | None:
    """The unknown a part declares at its ``key``, found beside every place a scenario names the
    part (``found``: one per Data60 shelf), as the one fact it is: the part's firmware or setting
    is the same in every copy of it, so they are varied together, one joint unknown named by the
    key and the part (``rate_matching of every wd_ultrastar_data60``). None where they cannot be
    one: a range, fewer than two, or copies the scenario sets apart."""
    first = found[0]
    if len(found) < 2 or first.options is None or first.keys:
        return None
    if any(u.options != first.options or u.default != first.default for u in found):
        return None
    keys = tuple(u.key for u in found)
    names = tuple(shown(o) for o in first.options)
    return dataclasses.replace(
        first,
        key=f"{key} of every {part_id}",
        options=names,
        keys=keys,
        settings=tuple((o,) * len(keys) for o in first.options),
        default=names[first.options.index(first.default)],
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
