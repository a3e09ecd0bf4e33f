"""Typed, validated construction of frozen dataclasses from YAML mappings.

Defaults live in one place, the dataclass field; a key that no field declares is an error, never a
silent fallback. Constraints ride on the type with ``typing.Annotated``::

    count: Annotated[int, POSITIVE]

Every error is a :class:`model.errors.UserError` naming the file, the dotted key and what is
allowed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import types
import typing
import unicodedata
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Annotated, Any, Literal

from . import units
from .errors import UserError, readable


@dataclasses.dataclass(frozen=True)
class Bound:
    """A numeric constraint carried by ``Annotated``: a range, and for a size that must be a
    power of two (a page, a stripe chunk, a file system's block), ``power_of_two``."""

    low: float
    high: float = float("inf")
    low_open: bool = False
    words: str = ""
    power_of_two: bool = False

    def admits(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        # a power of two, whole (4096) or a fraction (0.5 KiB): its mantissa is exactly one half
        return above and value <= self.high and not (self.power_of_two and _mantissa(value) != 0.5)


def _mantissa(value: float) -> float:
    return math.frexp(value)[0]


@dataclasses.dataclass(frozen=True)
class Words:
    """What a key admits where its type cannot say it, carried by ``Annotated``: the values a
    spec's ``check`` decides (ZFS's compression property), in the words its refusal gives, which
    the schema's reference shows too."""

    words: str


def words_of(extra: tuple) -> str | None:
    """The words an ``Annotated`` type's metadata ``extra`` gives what it admits (a ``Bound``'s,
    a ``Words``'), if any."""
    return next((e.words for e in extra if isinstance(e, (Bound, Words))), None)


POSITIVE = Bound(0.0, low_open=True, words="a positive number")
NON_NEGATIVE = Bound(0.0, words="zero or a positive number")

# the largest number a scenario may give: 2^53, the last integer every double holds exactly (the
# model's arithmetic is in doubles; numpy and numba refuse integers past 2^63, and a number near the
# doubles' limit, 1.8e308, overflows to infinity once a unit is converted); and the smallest
# non-zero one, 2^-53 (a rate of 1e-300 MB/s underflowed to a division by zero)
LARGEST = 2**53
SMALLEST = 2.0**-53

POSITIVE_INT = Bound(1.0, words="a positive integer")

PositiveInt = Annotated[int, POSITIVE_INT]


def count_up_to(high: int, why: str) -> Any:
    """A count from 1 to ``high``: things the model follows one by one, so that a run ends while
    its user waits (``why`` says what each one is, in the refusal's words)."""
    words = f"a positive integer up to {high:,} ({why})"
    return Annotated[int, Bound(1.0, float(high), words=words)]


NonNegativeInt = Annotated[int, Bound(0.0, words="zero or a positive integer")]
# an Ethernet MTU: IPv4's least datagram every host takes (RFC 791, 576 bytes) to IP's largest
# (65,535); below 576 a TCP segment would carry nothing past its headers
Mtu = Annotated[
    int, Bound(576, 65535, words="an MTU from 576 to 65,535 bytes (1,500 standard, 9,000 jumbo)")
]
Share = Annotated[float, Bound(0.0, 1.0, words="a share from 0 to 1")]
PositiveFloat = Annotated[float, POSITIVE]
NonNegativeFloat = Annotated[float, NON_NEGATIVE]


def stepped(tp: Any) -> bool:
    """Whether a key's declared type admits only powers of two (a page, a chunk or a block size),
    which a range of values would fall between; one that may also be unset (``| None``) too."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return any(stepped(option) for option in typing.get_args(tp))
    while typing.get_origin(tp) is Annotated:
        tp, *meta = typing.get_args(tp)
        if any(isinstance(m, Bound) and m.power_of_two for m in meta):
            return True
    return False


def _describe(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin is Annotated:
        base, *extra = typing.get_args(tp)
        words = words_of(extra)
        return words if words is not None else _describe(base)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if origin in (tuple, list):
        item = typing.get_args(tp)[0]
        if item is Any:  # never a Python type's name in a user's message
            return "a list of values"
        return "a list of " + _describe(item).removeprefix("a ").removeprefix("an ")
    if origin is dict:
        return "a mapping"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(tp) if a is not type(None))
    if dataclasses.is_dataclass(tp):
        return "a mapping with keys " + ", ".join(f.name for f in dataclasses.fields(tp))
    return {
        int: "an integer",
        float: "a number",
        str: "a string",
        bool: "true or false",
        Any: "a value",
    }.get(tp, str(tp))


def _fail(where: str, key: str, tp: Any, value: Any) -> UserError:
    described = _without_unit(tp, key, value) or _describe(tp)
    if isinstance(value, (dict, list)):
        shown = "a mapping" if isinstance(value, dict) else "a list"
    elif (
        isinstance(value, float)
        and value.is_integer()
        and abs(value) < 1e6
        and "integer" in described
    ):  # a whole number written with a point: "got 2" read as if 2 were refused (the sweep
        # audit); a larger one shows its exponent (1e+12) already
        shown = f"{value!r}, a decimal number"
    else:
        shown = readable(value)
    return UserError(where, key or "(top level)", f"must be {described}, got {shown}")


def _without_unit(tp: Any, key: str, value: Any) -> str | None:
    """What a number written as text with its unit ("14000 MB/s", a parts file's or an override's)
    must be instead: a number in the unit of the key's name, and the one to write where the text's
    unit converts to it (3.5 GB/s: write 3500), never taken for it; for a key with no unit (a
    count), no number, whatever the text's. The key's range alone had told the user nothing of
    what was wrong (the parts audit). None for any other value or type."""
    written = units.with_unit(value) if isinstance(value, str) else None
    if written is None or not _takes_number(tp):
        return None
    name = key.rpartition(".")[2].partition("[")[0]
    unit = units.unit_of(name)
    if not unit:
        return f"{_describe(tp)}, without a unit"
    what = f"a number of {unit}, without the unit"
    number = units.in_unit_of(name, *written)
    if number is not None and _admits(tp, number):
        return f"{what}: write {number:.12g}"
    either = units.readings(name, written[1])
    if either:
        return f"{what}: {written[1]} may mean {either}"
    return f"{what}: {_describe(tp)}"


def _takes_number(tp: Any) -> bool:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp in (int, float)


def _admits(tp: Any, number: float) -> bool:
    try:
        build(tp, int(number) if number.is_integer() else number, "")
    except UserError:
        return False
    return True


def _refuse_non_finite(value: Any, where: str, key: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise UserError(where, key or "(top level)", f"must be a finite number, got {value!r}")


def _refuse_out_of_range(value: Any, where: str, key: str) -> None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > LARGEST:
        raise UserError(
            where, key or "(top level)", f"must be at most 2^53 in size, got {readable(value)}"
        )
    if isinstance(value, float) and 0.0 < abs(value) < SMALLEST:
        raise UserError(
            where,
            key or "(top level)",
            f"must be at least 2^-53 (1.1e-16) in size, got {readable(value)}",
        )


def build(tp: Any, value: Any, where: str, key: str = "") -> Any:
    """Check ``value`` against the type ``tp`` and return it built (dataclasses constructed)."""
    origin = typing.get_origin(tp)
    if origin is Annotated:
        base, *extra = typing.get_args(tp)
        _refuse_non_finite(value, where, key)
        _refuse_out_of_range(value, where, key)
        try:
            built = build(base, value, where, key)
        except UserError:
            raise _fail(where, key, tp, value) from None
        for bound in (e for e in extra if isinstance(e, Bound)):
            if not bound.admits(built):
                raise _fail(where, key, tp, value)
        return built
    if origin is Literal:
        if value not in typing.get_args(tp):
            raise _fail(where, key, tp, value)
        return value
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if value is None and type(None) in options:
            return None
        others = [o for o in options if o is not type(None)]
        if len(others) == 1:  # an optional value: its own type tells what is wrong
            return build(others[0], value, where, key)
        for option in others:
            try:
                return build(option, value, where, key)
            except UserError:
                continue
        raise _fail(where, key, tp, value)
    if origin in (tuple, list):
        if not isinstance(value, list):
            raise _fail(where, key, tp, value)
        item = typing.get_args(tp)[0]
        return tuple(build(item, v, where, f"{key}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise _fail(where, key, tp, value)
        _, item = typing.get_args(tp)
        for k in value:
            if k is None or isinstance(k, bool):  # YAML's null, ~, true, false unquoted
                raise UserError(
                    where,
                    key or None,
                    f"a key here must be a name, got {readable(k)} (YAML reads null, ~, true, "
                    "false, yes, no, on and off unquoted as values): quote it if it is a name",
                )
            # an entry with keys of its own (a volume), which a dotted key (--set, a grid's axis)
            # could not reach past a dot in its name
            if dataclasses.is_dataclass(item) and "." in str(k):
                raise UserError(
                    where,
                    key or None,
                    f"the name {readable(k)} holds a dot: --set and a sweep's grid reach what a "
                    f"name here holds by a dotted key ({key or 'NAME'}.NAME.KEY), which a dot in "
                    "it would split; use _ or - instead",
                )
        return {
            str(k): build(item, v, where, f"{key}.{k}" if key else str(k)) for k, v in value.items()
        }
    if dataclasses.is_dataclass(tp):
        return build_dataclass(tp, value, where, key)
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(where, key, tp, value)
        _refuse_non_finite(value, where, key)
        _refuse_out_of_range(value, where, key)
        return float(value)
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(where, key, tp, value)
        _refuse_out_of_range(value, where, key)
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise _fail(where, key, tp, value)
        return value
    if tp is str:
        if not isinstance(value, str):
            raise _fail(where, key, tp, value)
        if not value:  # a key set to nothing (--set nic=): it was told 'must be a string, got ''
            raise UserError(where, key or "(top level)", "must be a non-empty string, got ''")
        return value
    if tp is Any:
        return value
    raise TypeError(f"schema cannot check type {tp!r}")


@functools.cache
def type_hints(cls: type) -> dict[str, Any]:
    """``cls``'s field types with their ``Annotated`` constraints, worked out once a class: the
    annotations are strings (``from __future__ import annotations``), and evaluating them again for
    every part was most of the time a catalog took to load. Read it, never change it."""
    return typing.get_type_hints(cls, include_extras=True)


def _look_alike(key: str) -> str:
    """Where ``key`` holds a character outside ASCII, which every key of the lab is written in,
    the first of them named: a Cyrillic 'о' in 'wоrkload' reads as the 'workload' the refusal
    lists (the input audit)."""
    odd = next((c for c in key if not c.isascii()), None)
    if odd is None:
        return ""
    name = unicodedata.name(odd, "unnamed")
    return f" (it holds {odd!r}, U+{ord(odd):04X} {name}, outside ASCII, which keys are written in)"


@dataclasses.dataclass(frozen=True)
class Written:
    """The dotted keys the text of a scenario gives a value (its file's, its variant's and its
    overrides'; null, the schema's unset, gives none), and ``at``: the place that last set a key,
    or a mapping holding it, in the order the places applied their changes (-1 the file itself,
    then its variant, then its overrides, which are place 0 where no variant is chosen or the one
    chosen sets nothing: ``Scenario.set_at``); ``place``: that place as a refusal names it
    (``Scenario.where``), and ``variant``, the chosen variant's place ("" where none)."""

    keys: frozenset[str]
    at: Callable[[str], int]
    place: Callable[[str], str]
    variant: str = ""

    def since(self, key: str, *choices: str) -> bool:
        """Whether ``key`` is written where the last of ``choices`` (the keys whose values it
        conflicts with) was set, or after it. One the file gives for its own configuration, which
        a variant or an override then changes, is inherited, not written: an md volume's
        chunk_KiB: 64 had refused a file whose variant made the volume a pool (the review)."""
        return key in self.keys and self.at(key) >= max(map(self.at, choices), default=-1)

    def made_after(self, key: str, *choices: str) -> str | None:
        """The place that set the last of ``choices`` where that came after ``key``'s: the place
        that made a value ``key`` inherits conflict with them; None where ``key`` was set there,
        or later."""
        last = max(choices, key=self.at)
        return self.place(last) if self.at(key) < self.at(last) else None


# what the text of the scenario whose body is being built writes (``writing``), or a design
# point's values (``model.scenario.with_values``), for the checks of a key that means nothing in
# its configuration; None where a body is built otherwise (a what-if's: ``changed``)
_WRITTEN: ContextVar[Written | None] = ContextVar("written", default=None)


@contextlib.contextmanager
def writing(written: Written) -> Iterator[None]:
    """Build a scenario's body with what its text writes in view of its checks
    (``being_written``)."""
    token = _WRITTEN.set(written)
    try:
        yield
    finally:
        _WRITTEN.reset(token)


def being_written() -> Written | None:
    """What the text of the body being built writes, or None (``writing``)."""
    return _WRITTEN.get()


def build_dataclass(cls: type, value: Any, where: str, key: str = "") -> Any:
    """Construct ``cls`` from a mapping, refusing unknown keys and reporting missing ones."""
    if not isinstance(value, dict):
        raise _fail(where, key, cls, value)
    hints = type_hints(cls)
    # a field marked internal is the program's to set (where the object was read), not a file's
    fields = {
        f.name: f for f in dataclasses.fields(cls) if f.init and not f.metadata.get("internal")
    }
    unknown = sorted(set(value) - set(fields))
    if unknown:
        allowed = ", ".join(fields)
        name = f"{key}.{unknown[0]}" if key else str(unknown[0])
        raise UserError(
            where, name, f"unknown key{_look_alike(str(unknown[0]))}; allowed here: {allowed}"
        )
    kwargs = {}
    for name, f in fields.items():
        dotted = f"{key}.{name}" if key else name
        if name in value:
            try:
                kwargs[name] = build(hints[name], value[name], where, dotted)
            except UserError as exc:
                # a field's ``hint`` (metadata): how to write what a value it refuses meant, a
                # value another key takes (a ZFS vdev's type given as a volume's RAID level)
                hint = f.metadata.get("hint", lambda _: None)(value[name])
                if hint is None or exc.key != dotted:
                    raise
                raise UserError(where, dotted, hint) from None
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise UserError(where, dotted, f"missing; it must be {_describe(hints[name])}")
    obj = cls(**kwargs)
    check = getattr(obj, "check", None)
    if check is not None:
        check(where, key)
    return obj


def field_type(cls: type, path: list[str]) -> Any:
    """The declared type at a dotted path inside ``cls``, or None when the path does not exist; a
    path through a key that names another scenario (``storage.volumes.lv.disks.count``:
    ``named_body``) is that scenario's."""
    inner = named_body(cls, path)
    if inner is not None:
        return field_type(inner, path[1:])
    tp: Any = cls
    for part in path:
        while typing.get_origin(tp) is Annotated:
            tp = typing.get_args(tp)[0]
        origin = typing.get_origin(tp)
        if origin in (typing.Union, types.UnionType):
            tp = next(a for a in typing.get_args(tp) if a is not type(None))
            origin = typing.get_origin(tp)
        if dataclasses.is_dataclass(tp):
            hints = type_hints(tp)
            if part not in hints:
                return None
            tp = hints[part]
        elif origin in (tuple, list) and part.isascii() and part.isdigit():
            tp = typing.get_args(tp)[0]
        elif origin is dict:
            tp = typing.get_args(tp)[1]
        else:
            return None
    return tp


def named_scenarios(cls: Any) -> dict[str, type]:
    """The keys of a ``cls`` body that name another scenario, each with the body class of the model
    it names: the body's ``NAMED_SCENARIOS`` (the ingest's ``storage``, a transfer's
    ``sender_storage``), none for any other class."""
    return getattr(cls, "NAMED_SCENARIOS", {}) if isinstance(cls, type) else {}


def named_body(cls: Any, path: list[str]) -> type | None:
    """The body class of the scenario a ``cls`` body's key ``path[0]`` names, where ``path`` goes on
    inside it (``named_scenarios``), so ``--set`` and a sweep reach a named scenario's keys as
    ``storage.volumes.lv.disks.count``. None elsewhere."""
    return named_scenarios(cls).get(path[0]) if len(path) > 1 else None


def inside(key: str, outer: str) -> bool:
    """Whether dotted ``key`` is ``outer`` or a key within it (``volumes.lv.level`` within
    ``volumes.lv``; ``volumes.lvm`` is not)."""
    return key == outer or key.startswith(outer + ".")


def allowed_keys(cls: type, path: list[str]) -> list[str]:
    """The keys a mapping at ``path`` inside ``cls`` admits (for error messages); at a key that
    names another scenario, that scenario's top level."""
    named = named_scenarios(cls)
    if len(path) == 1 and path[0] in named:  # the named scenario's top level
        return allowed_keys(named[path[0]], [])
    tp = field_type(cls, path)
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    if typing.get_origin(tp) in (typing.Union, types.UnionType):  # a section that may be left out
        tp = next((a for a in typing.get_args(tp) if a is not type(None)), None)
    if dataclasses.is_dataclass(tp):
        return [f.name for f in dataclasses.fields(tp)]
    return []


def locate(
    body_cls: type, key: str, where: str = "", model: str = "", top: tuple[str, ...] = ()
) -> Any:
    """The declared type at dotted ``key`` of a ``body_cls`` scenario (of model ``model``); a path
    the schema does not have is refused, with the keys allowed beside it (at the top level, the
    header keys ``top`` an override may set besides the body's)."""
    parts = key.split(".")
    if parts[0] == "parts":
        raise UserError(
            where,
            key,
            "a scenario's own parts are not keys --set changes: edit its parts: section, or give "
            "a parts file with --catalog",
        )
    tp = field_type(body_cls, parts)
    if tp is None:
        parent = parts[:-1]
        while parent and field_type(body_cls, parent) is None:  # the first part that is wrong
            parent = parent[:-1]
        allowed = allowed_keys(body_cls, parent) + ([] if parent else list(top))
        hint = (
            f"; allowed at {'.'.join(parent) or 'top level'}: {', '.join(allowed)}"
            if allowed
            else ""
        )
        kind = (
            f"{'an' if model[:1] in 'aeiou' else 'a'} {model} scenario" if model else "the scenario"
        )
        if parent and not allowed:  # a key below a value, or a list's position not a number
            parent_tp = field_type(body_cls, parent)
            while typing.get_origin(parent_tp) is Annotated:
                parent_tp = typing.get_args(parent_tp)[0]
            hint = (
                f"; {'.'.join(parent)} is a list: give a position 0, 1, 2 ..., got "
                f"{parts[len(parent)]!r}"
                if typing.get_origin(parent_tp) in (tuple, list)
                else f"; {'.'.join(parent)} is a value, not a section"
            )
        if len(parent) == 1 and named_body(body_cls, parts) is not None and parts[1] in top:
            listed = f"{parent[0]}_overrides"  # the ingest's storage_overrides
            hint = (  # a header key of the scenario another names: its own file's
                f"; the scenario {parent[0]} names takes its {parts[1]} in its own file"
                + (f" or in {listed}" if field_type(body_cls, [listed]) is not None else "")
                + f", not through {parent[0]}"
            )
        raise UserError(where, key, f"no such key in {kind}{_look_alike(key)}{hint}")
    return tp
