"""What every model receives: a loaded scenario (header, validated body, the scenarios it refers
to).

A model is a pure function of this record: the loader (``model.scenario``) has read the YAML,
applied the variant and overrides, built the body's frozen dataclasses and loaded every scenario the
body names (a WAN transfer's end hosts' storage, the ingest's store), so a model never reads a file.
A body names another scenario through ``references()``, a tuple of :class:`Reference`, and may
check what it found with ``check_references(where, loaded)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .catalog import Catalog
from .errors import NamesAKey, UserError
from .freeparameter import FreeParameter
from .schema import inside
from .unknowns import Unknown


@dataclass(frozen=True)
class Reference:
    """Another scenario a body names at ``key``: loaded with ``overrides``; it must be a
    ``model``."""

    key: str
    name: str
    model: str
    overrides: tuple[str, ...] = ()
    # the body's key whose list gives the first of ``overrides`` (the ingest's storage_overrides;
    # the rest are the body's own, derived), so that a mistake in one is told at its place there
    overrides_key: str = ""
    # the body's keys the derived ones come from, as a refusal of a key set through it names them
    derived_from: str = ""


@dataclass(frozen=True)
class Through:
    """A key of a scenario another names, set in the naming one: ``--set
    storage.volumes.lv.disks.count=8`` on an ingest is ``volumes.lv.disks.count=8`` in the storage
    scenario its ``storage`` names (``ref``), the value as YAML text, told ``at`` where it was set
    (``--set``, a sweep's point, a variant), ``order`` its place among the changes the naming
    scenario's variant and overrides made (``Scenario.set_by``), which the naming body's own list
    of overrides for it (``storage_overrides``) is ordered against."""

    ref: str
    key: str
    text: str
    at: str
    order: int

    @property
    def given(self) -> str:
        """The key as the naming scenario's user gave it."""
        return f"{self.ref}.{self.key}"

    def override(self) -> str:
        """The override the named scenario is loaded with."""
        return f"{self.key}={self.text}"


@dataclass(frozen=True)
class Scenario:
    """A loaded, validated scenario: header, the model's body, and how it was configured."""

    name: str
    model: str
    description: str
    source: str
    seed: int
    body: Any
    variant: str | None = None
    overrides: tuple[str, ...] = ()
    path: str = ""
    # the folder of its file: the scenarios and parts files it names are read there or below it
    folder: str = ""
    # the parts files given with it (--catalog), which reach the scenarios it names too
    catalogs: tuple[str, ...] = ()
    # (dotted key, where its value came from, the override as given: "" for a variant's) for each
    # key not from the file
    set_by: tuple[tuple[str, str, str], ...] = ()
    refs: dict[str, Scenario] = field(default_factory=dict)  # key -> the scenario named there
    # the keys of the scenarios it names that its overrides or variant set there (``refs`` hold
    # them; kept so that a body built again loads them with the same)
    through: tuple[Through, ...] = ()
    catalog: Catalog | None = None  # the parts it may name: the project's and the user's own
    # the declared unknowns open in this configuration (its variant, no override setting them),
    # each with the scenario's own value as its documented default (``model.unknowns``)
    unknowns: tuple[Unknown, ...] = ()

    def where(self, key: str) -> str:
        """Where the value at ``key`` (or the mapping that holds it) was set: an override, a
        variant or the file."""
        return self._last_set(key)[1]

    def set_at(self, key: str) -> int:
        """Where the value at ``key`` (or the mapping that holds it) was last set, as a place in
        the order the places applied their changes: -1 the file, then each place in ``set_by`` in
        turn (its variant, then its overrides), whatever the order of one place's own changes."""
        last, where = self._last_set(key)
        places = list(dict.fromkeys(at for _, at, _ in self.set_by))
        return places.index(where) if last >= 0 else -1

    def _last_set(self, key: str) -> tuple[int, str]:
        """The place in ``set_by`` of the last change to ``key`` (-1: none) and where it was; a
        position in a list is one key however written (``attach[0]``, as checks name it, and
        ``attach.0``, as --set gives it)."""
        found = -1, self.path
        key = dotted(key)
        for i, (set_key, where, _) in enumerate(self.set_by):  # later ones win, as applied
            if inside(key, set_key):
                found = i, where
        return found

    def overridden(self) -> str:
        """The overrides that changed the file's configuration, as given and where (``--set
        a=1, b=2``); "" where none did (a variant is the file's own)."""
        given: dict[str, list[str]] = {}
        for _, where, text in self.set_by:
            if text:
                given.setdefault(where, []).append(text)
        return "; ".join(f"{where} {', '.join(texts)}" for where, texts in given.items())

    def relocated(self, exc: UserError) -> UserError:
        """``exc``, blamed on the file, re-told where its key was set (an override or a variant);
        where it names related keys (``UserError.related``: a card's part and its segment's), at
        the one of them changed last: a card's segment changed by --set is named as the --set.
        Where none of them was set but overrides changed the configuration, the file is named
        with them (``overridden``): a drive bay --set takes, which the file's next drive holds,
        is refused at that drive, and the hostile-input audit read it as the file's mistake."""
        if exc.where != self.path:  # raised in a scenario it names: at a key set through it?
            for named, ref in self.refs.items():
                told = self.told_through(named, exc) if ref.path == exc.where else None
                if told is not None:
                    return told
            return exc
        below = [t for t in self.through if t.ref == exc.key]
        if len(below) == 1 and len(self.set_by) == 1:  # the one change: the naming key's, below it
            return UserError(below[0].at, below[0].given, exc.message)
        changes = [(*self._last_set(k), k) for k in (exc.key, *exc.related) if k]
        if changes:
            last, where, key = max(changes, key=lambda change: change[0])  # the first of equals
            if last >= 0:
                return UserError(where, key, exc.message)
        overrides = self.overridden()
        if not overrides:
            return exc
        return UserError(exc.where, exc.key, exc.message, related=exc.related, overridden=overrides)

    def told_through(self, named: str, exc: UserError) -> UserError | None:
        """``exc``, raised in the scenario this one names at ``named``, told where a key this one
        set through it was set (``--set: storage.volumes.lv.cache_block_KiB: ...``); None where
        no such key is the one it names."""
        through = [t for t in self.through if t.ref == named]
        return relocated_through(through, self.refs[named].relocated(exc), f"{self.path} {named}")


def relocated_through(through: list[Through], exc: UserError, given_at: str) -> UserError | None:
    """``exc``, raised where a named scenario's overrides were applied (``given_at``), told where
    the last of ``through`` that sets its key or a mapping holding it was set, as the key the user
    gave; None for another mistake."""
    if exc.where != given_at or not exc.key:
        return None
    key = dotted(exc.key)
    found = None
    for t in through:
        if inside(key, t.key):
            found = t
    if found is None:
        return None
    if isinstance(exc, NamesAKey):  # its words name a key, through ref too
        return exc.relocated(found.at, found.ref)
    return UserError(found.at, f"{found.ref}.{exc.key}", exc.message)


def dotted(key: str) -> str:
    """A scenario key with each position in a list written as --set writes it: ``attach[1]`` as
    ``attach.1``."""
    return re.sub(r"\[(\d+)\]", r".\1", key)


@dataclass(frozen=True)
class ModelRecord:
    """What a model registers once (``model.registry``): the ``model:`` name scenarios give, the
    dataclass of their body, the function that simulates one, the free parameters it declares,
    why calibration leaves a scenario of it out (``not_fitted(body)``: a reason, or None), for a
    model no report measures end to end, why (``unmeasured``; validation lists it), and the checks
    of a body against its catalog that its simulation makes first (``check_parts(body, catalog,
    params, where)``: its parts exist, fit its host and attach), which a grid makes on each value
    before any point runs."""

    name: str
    body: type
    simulate: Callable[[Scenario, Any, dict[str, float]], Any]
    parameters: tuple[FreeParameter, ...] = ()
    not_fitted: Callable[[Any], str | None] = field(default=lambda body: None)
    unmeasured: str = ""
    check_parts: Callable[[Any, Any, dict[str, float], str], None] = field(
        default=lambda body, catalog, params, where: None
    )
    # the checks that need the scenarios this one names (``check_refs(scenario, catalog)``: a
    # transfer's circuits in the slots its storage scenarios' controller cards leave), made with
    # check_parts
    check_refs: Callable[[Scenario, Any], None] = field(default=lambda scenario, catalog: None)
    # whose figures a result's throughput, bound and bytes are where not the whole system's: one
    # client's (db_clients, the report's rate per client), said beside each
    per: str = ""
