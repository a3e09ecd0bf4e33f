"""Every model of the lab, registered once: the one list the loader, ``simulate``, calibration,
validation and the parameter table read.

A model module exports one :class:`model.spec.ModelRecord` as ``MODEL``; adding a model is adding
it to ``_BUILT_IN`` below (README, "Adding a model").
"""

from __future__ import annotations

from .errors import UserError
from .freeparameter import FreeParameter
from .network import dbclients, wan
from .servers import download, ingest, relay
from .spec import ModelRecord
from .storage import MODEL as STORAGE

MODELS: dict[str, ModelRecord] = {}


def register(record: ModelRecord) -> None:
    """Add a model; its name and its free parameters' names must be new."""
    if record.name in MODELS:
        raise ValueError(f"model {record.name} registered twice")
    taken = declared_parameters()
    twice = [p.name for p in record.parameters if p.name in taken]
    if twice:
        raise ValueError(f"free parameter {twice[0]} declared twice")
    MODELS[record.name] = record


def unregister(name: str) -> None:
    del MODELS[name]


def get(name: str, where: str = "scenario") -> ModelRecord:
    if name not in MODELS:
        raise UserError(where, "model", f"must be one of {', '.join(MODELS)}, got {name!r}")
    return MODELS[name]


def declared_parameters() -> dict[str, FreeParameter]:
    """Every registered model's free parameters, by name."""
    return {p.name: p for record in MODELS.values() for p in record.parameters}


_BUILT_IN = (STORAGE, wan.MODEL, dbclients.MODEL, download.MODEL, ingest.MODEL, relay.MODEL)
for _record in _BUILT_IN:
    register(_record)
