"""What every model receives: a loaded scenario (header, validated body, the scenarios it refers
to).

A model is a pure function of this record: the loader (``model.scenario``) has read the YAML,
applied the variant and overrides, built the body's frozen dataclasses and loaded every scenario the
body names (a WAN transfer's end hosts' storage, the ingest's store), so a model never reads a file.
A body names another scenario through ``references()``, a tuple of :class:`Reference`, and may
check what it found with ``check_references(where, loaded)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .catalog import Catalog
from .errors import UserError
from .freeparameter import FreeParameter
from .unknowns import Unknown


@dataclass(frozen=True)
class Reference:
    """Another scenario a body names at ``key``: loaded with ``overrides``; it must be a
    ``model``."""

    key: str
    name: str
    model: str
    overrides: tuple[str, ...] = ()


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
    # (dotted key, where its value came from) for each key not from the file
    set_by: tuple[tuple[str, str], ...] = ()
    refs: dict[str, Scenario] = field(default_factory=dict)  # key -> the scenario named there
    catalog: Catalog | None = None  # the parts it may name: the project's and the user's own
    # the declared unknowns open in this configuration (its variant, no override setting them),
    # each with the scenario's own value as its documented default (``model.unknowns``)
    unknowns: tuple[Unknown, ...] = ()

    def where(self, key: str) -> str:
        """Where the value at ``key`` (or the mapping that holds it) was set: an override, a
        variant or the file."""
        return self._last_set(key)[1]

    def _last_set(self, key: str) -> tuple[int, str]:
        """The place in ``set_by`` of the last change to ``key`` (-1: none) and where it was."""
        found = -1, self.path
        for i, (set_key, where) in enumerate(self.set_by):  # later ones win, as they were applied
            if key == set_key or key.startswith((set_key + ".", set_key + "[")):
                found = i, where
        return found

    def relocated(self, exc: UserError) -> UserError:
        """``exc``, blamed on the file, re-told where its key was set (an override or a variant);
        where it names related keys (``UserError.related``: a card's part and its segment's), at
        the one of them changed last: a card's segment changed by --set is named as the --set."""
        if exc.where != self.path or not exc.key:
            return exc
        changes = [(*self._last_set(k), k) for k in (exc.key, *exc.related)]
        last, where, key = max(changes, key=lambda change: change[0])  # the first of equals
        if last < 0:
            return exc
        return UserError(where, key, exc.message)


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
    # whose figures a result's throughput, bound and bytes are where not the whole system's: one
    # client's (db_clients, the report's rate per client), said beside each
    per: str = ""
