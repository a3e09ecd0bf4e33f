"""Every model of the lab, registered once: the one list the loader, ``simulate``, calibration,
validation and the parameter table read.

A model module exports one :class:`model.spec.ModelRecord` as ``MODEL``; adding a model is adding
it to ``_BUILT_IN`` below (README, "Adding a model"): its name, that module, and its free
parameters, from its package's ``parameters`` module, which imports no model. A model's module is
imported the first time its record is read (``MODELS[name]``, ``get``): a papermill point loads the
model its scenario uses and no other (make bench: a point's start against an empty notebook's),
while the parameter table (``declared_parameters``) lists every model's without importing one.
Reading every record (``MODELS.values()``: the key reference, validation) imports them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from .errors import UserError
from .freeparameter import FreeParameter
from .network import parameters as network_parameters
from .servers import parameters as servers_parameters
from .spec import ModelRecord
from .storage import parameters as storage_parameters


@dataclass(frozen=True)
class BuiltIn:
    """A model of the lab before its module is imported: its ``model:`` name, the dotted path of
    the module whose ``MODEL`` is its record, and the free parameters that record lists."""

    name: str
    module: str
    parameters: tuple[FreeParameter, ...] = ()

    def record(self) -> ModelRecord:
        return importlib.import_module(self.module).MODEL


class Registered(Mapping[str, ModelRecord]):
    """The registered models' records by name, a built-in's imported when first read."""

    def __init__(self) -> None:
        self._entries: dict[str, BuiltIn | ModelRecord] = {}

    def __getitem__(self, name: str) -> ModelRecord:
        entry = self._entries[name]
        if isinstance(entry, BuiltIn):
            entry = self._entries[name] = entry.record()
        return entry

    def __contains__(self, name: object) -> bool:  # Mapping's own reads the record
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def entries(self) -> Iterator[BuiltIn | ModelRecord]:
        """Each model's entry: its record once read, a built-in's declaration before."""
        return iter(self._entries.values())

    def add(self, entry: BuiltIn | ModelRecord) -> None:
        self._entries[entry.name] = entry

    def remove(self, name: str) -> None:
        del self._entries[name]


MODELS = Registered()


def register(entry: BuiltIn | ModelRecord) -> None:
    """Add a model; its name and its free parameters' names must be new."""
    if entry.name in MODELS:
        raise ValueError(f"model {entry.name} registered twice")
    taken = declared_parameters()
    twice = [p.name for p in entry.parameters if p.name in taken]
    if twice:
        raise ValueError(f"free parameter {twice[0]} declared twice")
    MODELS.add(entry)


def unregister(name: str) -> None:
    MODELS.remove(name)


def get(name: str, where: str = "scenario") -> ModelRecord:
    if name not in MODELS:
        raise UserError(where, "model", f"must be one of {', '.join(MODELS)}, got {name!r}")
    return MODELS[name]


def name_of(body_cls: type) -> str:
    """The name of the model whose scenarios' body is ``body_cls`` ("" if none) among the records
    read so far, importing no other: a body is built from its model's record, read to build it."""
    read = (e for e in MODELS.entries() if isinstance(e, ModelRecord))
    return next((record.name for record in read if record.body is body_cls), "")


def declared_parameters() -> dict[str, FreeParameter]:
    """Every registered model's free parameters, by name; no model's module is imported."""
    return {p.name: p for entry in MODELS.entries() for p in entry.parameters}


_BUILT_IN = (
    BuiltIn("storage", "model.storage.simulation", storage_parameters.PARAMETERS),
    BuiltIn("wan_transfer", "model.network.wan"),
    BuiltIn("db_clients", "model.network.dbclients", network_parameters.PARAMETERS),
    BuiltIn("download_server", "model.servers.download", servers_parameters.PARAMETERS),
    BuiltIn("ingest", "model.servers.ingest"),
    BuiltIn("relay_cluster", "model.servers.relay"),
)
for _built_in in _BUILT_IN:
    register(_built_in)
