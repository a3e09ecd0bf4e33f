"""The keys a user's overrides set that the configuration does not read: a what-if that changes
nothing, said beside the prediction instead of passing without a word (``--set
workload.rate_Mbps=800`` on a TCP transfer: the rate paces a Tsunami one only).

Each body says why a key of its own is not read in its configuration (``not_read(key)``: a reason,
or None where it is read or it cannot tell), most by a table of rules (``by_rules``) written beside
the code that reads the key; a key set through a scenario the body names
(``storage.kernel.page_B`` on an ingest) is asked of that scenario's body. A key is said unread
only where it is unread in every configuration the interval may meet: the point's, and each
combination of the levels of the unknowns open in it (an unknown over whether a connection is
kept alive makes a new connection's first window read where the point does not; two unknowns,
over the scheduler and the server's own window, together make the kernel's window read); where
those are too many to try, nothing is said. The bodies' claims are checked by changing each key
claimed and finding the prediction unchanged, in every shipped scenario and variant where one is
made, and for one made with unknowns open, the interval too (``tests/test_unread.py``).
"""

from __future__ import annotations

import collections
import itertools
import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .spec import Scenario, dotted
from .unknowns import Unknown

# a key's pattern (``tcp``: the key and every key below it; ``volumes.*.drive_write_cache``: that
# key of any entry) and why a body does not read it, given the entry ``*`` stood for ("" where
# none), or None where it does
Rule = tuple[str, Callable[[Any, str], "str | None"]]
# the combinations of a scenario's open unknowns tried (a quarter of a millisecond each, built):
# eah_download's seven unknowns make 384, some 170 ms; past this many, nothing is said unread
MOST_COMBINATIONS = 4096


@dataclass(frozen=True)
class Unread:
    """An override (``text``, as given, set ``at``: --set, a sweep's point) whose ``key`` (dotted)
    the configuration does not read, and ``why``."""

    text: str
    at: str
    why: str
    key: str

    def line(self) -> str:
        return f"{self.text} ({self.at}): {self.why}"

    def to_dict(self) -> dict[str, str]:
        return {"set": self.text, "at": self.at, "why": self.why}


def by_rules(rules: tuple[Rule, ...], body: Any, key: str) -> str | None:
    """The first reason a rule whose pattern holds ``key`` gives for ``body``, or None."""
    for pattern, why in rules:
        entry = _matched(pattern, key)
        if entry is not None and (reason := why(body, entry)) is not None:
            return reason
    return None


def _matched(pattern: str, key: str) -> str | None:
    """The entry ``*`` stands for where ``pattern`` holds the dotted ``key`` (the key named, or one
    below it): "" where the pattern has no ``*``; None where it does not hold it."""
    wanted, given = pattern.split("."), key.split(".")
    if len(given) < len(wanted):
        return None
    entry = ""
    for part, name in zip(wanted, given, strict=False):
        if part == "*":
            entry = name
        elif part != name:
            return None
    return entry


def why_not_read(scenario: Scenario, key: str) -> str | None:
    """Why ``scenario`` does not read the dotted ``key``, or None where it does or its body cannot
    tell: asked of its body (a WAN transfer from memory says so of its sender's store), then, for
    a key below one that names a scenario, of the scenario named there, its words told as that
    key's (``receiver_storage: volumes.md0.filesystem.type is ext2``)."""
    not_read = getattr(scenario.body, "not_read", None)
    why = None if not_read is None else not_read(key)
    ref, _, inner = key.partition(".")
    if why is None and inner and ref in scenario.refs:
        inside = why_not_read(scenario.refs[ref], inner)
        why = None if inside is None else f"{ref} ({scenario.refs[ref].name}): {inside}"
    return why


def overrides_not_read(scenario: Scenario) -> list[Unread]:
    """The overrides of ``scenario`` (not its variant's keys, which are its file's own) whose key
    it does not read, each once, at its last setting."""
    last: dict[str, tuple[str, str]] = {}
    for key, at, text in scenario.set_by:
        if text:  # an override; a variant's key has no text of its own
            last[dotted(key)] = (text, at)
    found = []
    for key, (text, at) in last.items():
        why = why_not_read(scenario, key)
        if why is not None:
            found.append(Unread(text, at, why, key))
    return found


def _levels(unknown: Unknown) -> tuple[Any, ...]:
    """What of ``unknown`` may decide whether a key is read: each option; a range's default and
    ends (the bodies' rules test a value against None, 1 or an option, which the ends cover on
    each side)."""
    if unknown.options is not None:
        return unknown.options
    return tuple(dict.fromkeys((unknown.default, *unknown.range)))


def not_read_at(scenario: Scenario, memo: dict | None = None) -> list[Unread]:
    """The overrides of ``scenario`` that no configuration its interval may meet reads: the
    point's, and every combination of its open unknowns' levels (``_levels``), which the interval
    enumerates or searches among; none where those are more than ``MOST_COMBINATIONS``. A
    combination the scenario refuses is not met.

    ``memo`` (a sweep's, kept for its run: its files do not change under it) spares a point the
    combinations another point tried for a key told at both, where the two differ only in that
    key's value (``_read_nowhere_for``)."""
    told = overrides_not_read(scenario)
    unknowns = scenario.unknowns
    if not told or math.prod(len(_levels(u)) for u in unknowns) > MOST_COMBINATIONS:
        return []
    if memo is None:
        return _read_nowhere(scenario, told, _combinations(unknowns))
    return [u for u in told if _read_nowhere_for(scenario, u, memo)]


def _read_nowhere_for(scenario: Scenario, told: Unread, memo: dict) -> bool:
    """Whether no combination of ``scenario``'s unknowns reads the key ``told``, by ``memo``: for
    each key and the settings of every other key (their values too: one told key's claim may
    rest on another's, the ratio of a compression the math test does not read), the combination
    that read it, or those refused where none did. Whether a combination reads a key does not
    depend on that key's own value (no rule reads its own key: tests/test_unread.py holds each
    claim at both of a key's values), but whether it is refused may: the one that read the key is
    built again at this point, and the whole search made again where this point refuses it; the
    ones refused are built again at this point, where they may be met."""
    key = told.key
    context = (scenario.path, key, tuple(s for s in scenario.set_by if dotted(s[0]) != key))
    if context in memo:
        reader, refused = memo[context]
        if reader is None:
            return _first_reader(scenario, key, refused)[0] is None
        if _first_reader(scenario, key, [reader])[0] is not None:
            return False
    memo[context] = _first_reader(scenario, key, _combinations(scenario.unknowns))
    return memo[context][0] is None


def _combinations(unknowns: tuple[Unknown, ...]) -> Iterator[dict[str, Any]]:
    """Each combination of ``unknowns``' levels but the point's own (all at their defaults), as
    the values it changes."""
    per = [_levels(u) for u in unknowns]
    for combination in itertools.product(*per):
        config = {u.key: v for u, v in zip(unknowns, combination, strict=True) if v != u.default}
        if config:
            yield config


def _met(scenario: Scenario, combinations: Iterable[dict[str, Any]]) -> Iterator[Scenario | None]:
    """``scenario`` at each of ``combinations`` of its unknowns' values, or None where it refuses
    that one (it is not met)."""
    from .errors import UserError
    from .scenario import with_values
    from .unknowns import assigned

    for config in combinations:
        try:
            yield with_values(scenario, assigned(scenario.unknowns, config))
        except UserError:
            yield None


def _read_nowhere(
    scenario: Scenario, told: list[Unread], combinations: Iterable[dict[str, Any]]
) -> list[Unread]:
    """Those of ``told`` that no one of ``combinations`` of ``scenario``'s unknowns reads."""
    for changed in _met(scenario, combinations):
        if not told:
            break
        if changed is not None:
            told = [u for u in told if why_not_read(changed, u.key) is not None]
    return told


def _first_reader(
    scenario: Scenario, key: str, combinations: Iterable[dict[str, Any]]
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The first of ``combinations`` of ``scenario``'s unknowns that reads ``key`` (None where
    none does), and those before it that the scenario refused."""
    combinations = list(combinations)
    refused = []
    for config, changed in zip(combinations, _met(scenario, combinations), strict=True):
        if changed is None:
            refused.append(config)
        elif why_not_read(changed, key) is None:
            return config, refused
    return None, refused


def column(scenario: Scenario, memo: dict | None = None) -> str:
    """A sweep point's ``not_read``: each key of its grid (its base's or its own) the configuration
    does not read, as JSON text (as ``utilization`` is): a list of its ``key``, the setting as
    given (``set``) and ``why``; ``[]`` where it reads them all. ``memo``: ``not_read_at``'s."""
    told = not_read_at(scenario, memo)
    return json.dumps([{"key": u.key, "set": u.text, "why": u.why} for u in told])


def sweep_lines(columns: list[Any]) -> list[str]:
    """What a sweep's summary says of its points' ``not_read`` (``column``): each key some point
    did not read, at how many of the points that recorded it (``recorded``), and why, each reason
    with its count where they differ (bbftp's points and iperf's), the commonest first."""
    told: dict[str, collections.Counter] = {}
    for entries in _recorded(columns):
        for entry in entries:
            told.setdefault(entry["key"], collections.Counter())[entry["why"]] += 1
    total = recorded(columns)
    lines = []
    for key, whys in sorted(told.items(), key=lambda item: -item[1].total()):
        said = (
            next(iter(whys))
            if len(whys) == 1
            else "; ".join(f"{n:,}: {why}" for why, n in whys.most_common())
        )
        lines.append(f"  {key}: at {whys.total():,} of {total:,} points ({said})")
    return lines


def recorded(columns: list[Any]) -> int:
    """How many of a sweep's points recorded their ``not_read`` (``column``): not a failed one, nor
    one whose notebook, a user's, wrote a figure of that name that is not ``column``'s."""
    return sum(1 for _ in _recorded(columns))


def _recorded(columns: list[Any]) -> Iterator[list[dict[str, str]]]:
    """Each recorded column's entries."""
    for text in columns:
        entries = _entries(text)
        if entries is not None:
            yield entries


def _entries(text: Any) -> list[dict[str, str]] | None:
    """``column``'s entries from its text, or None where ``text`` is not such a column."""
    try:
        entries = json.loads(text)
    except (TypeError, ValueError):
        return None
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and isinstance(e.get("key"), str) and isinstance(e.get("why"), str)
        for e in entries
    ):
        return None
    return entries
