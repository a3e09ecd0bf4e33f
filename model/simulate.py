"""The one path from a scenario to a prediction: pick the model, build it, run it."""

from __future__ import annotations

import importlib

from . import catalog as catalog_module
from . import params as params_module
from .errors import NotModelled, UserError
from .result import Result
from .scenario import Scenario

# The module that simulates each scenario ``model``; each has ``simulate(scenario, catalog, params)``.
MODELS = {
    "storage": "model.storage.stream",
    "wan_transfer": "model.network.wan",
    "db_clients": "model.network.dbclients",
    "download_server": "model.servers.download",
    "ingest": "model.servers.ingest",
    "relay_cluster": "model.servers.relay",
}


def simulate(scenario: Scenario, params: dict[str, float] | None = None) -> Result:
    """Simulate ``scenario`` with ``params`` (the calibrated free parameters when omitted).

    Raises :class:`NotModelled` for a configuration no model covers yet.
    """
    values = params_module.calibrated() if params is None else params
    name = MODELS[scenario.model]
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if not (exc.name and (name + ".").startswith(exc.name + ".")):
            raise  # a missing dependency inside an existing model, not a missing model
        raise NotModelled(f"the {scenario.model} model arrives with a later issue") from None
    try:
        return module.simulate(scenario, catalog_module.load(), values)
    except UserError as exc:  # a value the model rejects: name the override or variant that set it
        raise scenario.relocated(exc) from None
