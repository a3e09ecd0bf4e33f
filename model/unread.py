"""The keys a user's overrides set that the configuration does not read: a what-if that changes
nothing, said beside the prediction instead of passing without a word (``--set
workload.rate_Mbps=800`` on a TCP transfer: the rate paces a Tsunami one only).

Each body says why a key of its own is not read in its configuration (``not_read(key)``: a reason,
or None where it is read or it cannot tell), most by a table of rules (``by_rules``) written beside
the code that reads the key; a key set through a scenario the body names
(``storage.kernel.page_B`` on an ingest) is asked of that scenario's body. A key is said unread
only where it is unread in every configuration the interval meets: the point's, and each option
(or each end of the range) of each unknown open in it (an unknown over whether a connection is
kept alive makes a new connection's first window read where the point does not). The bodies'
claims are checked by changing each key claimed and finding the prediction unchanged, in every
shipped scenario and variant where a claim is made (``tests/test_unread.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .spec import Scenario, dotted

# a key's pattern (``tcp``: the key and every key below it; ``volumes.*.md_raid6_rmw``: that key of
# any entry) and why a body does not read it, given the entry ``*`` stood for ("" where none), or
# None where it does
Rule = tuple[str, Callable[[Any, str], "str | None"]]


@dataclass(frozen=True)
class Unread:
    """An override (``text``, as given, set ``at``: --set, a sweep's point) whose key the
    configuration does not read, and ``why``."""

    text: str
    at: str
    why: str

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
    tell; a key below one that names a scenario is asked of the scenario named there."""
    ref, _, inner = key.partition(".")
    if inner and ref in scenario.refs:
        return why_not_read(scenario.refs[ref], inner)
    not_read = getattr(scenario.body, "not_read", None)
    return None if not_read is None else not_read(key)


def overrides_not_read(
    scenario: Scenario, configurations: tuple[Scenario, ...] = ()
) -> list[Unread]:
    """The overrides of ``scenario`` (not its variant's keys, which are its file's own) whose key
    neither it nor any of ``configurations`` (the interval's, ``unknown_configurations``) reads,
    each once, at its last setting."""
    last: dict[str, tuple[str, str]] = {}
    for key, at, text in scenario.set_by:
        if text:  # an override; a variant's key has no text of its own
            last[dotted(key)] = (text, at)
    found = []
    for key, (text, at) in last.items():
        why = why_not_read(scenario, key)
        if why is not None and all(why_not_read(c, key) is not None for c in configurations):
            found.append(Unread(text, at, why))
    return found


def unknown_configurations(scenario: Scenario) -> tuple[Scenario, ...]:
    """``scenario`` at each option of each unknown open in it, or at each end of its range (a
    compression ratio of 1 to 2 reads the expander's cost at 2 only); none where it has none. An
    option the configuration refuses is not one the interval meets."""
    from .errors import UserError
    from .scenario import with_values

    out = []
    for unknown in scenario.unknowns:
        for level in unknown.options or unknown.range:
            try:
                out.append(with_values(scenario, unknown.assignment(level)))
            except UserError:
                continue
    return tuple(out)


def not_read_at(scenario: Scenario) -> list[Unread]:
    """The overrides of ``scenario`` no configuration the interval meets reads."""
    at_point = overrides_not_read(scenario)
    if not at_point:
        return []
    return overrides_not_read(scenario, unknown_configurations(scenario))
