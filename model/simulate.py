"""The one path from a scenario to a prediction: pick the model, build it, run it."""
from __future__ import annotations

from . import catalog as catalog_module
from . import params as params_module
from .errors import NotModelled
from .result import Result
from .scenario import Scenario


def simulate(scenario: Scenario, params: dict[str, float] | None = None) -> Result:
    """Simulate ``scenario`` with ``params`` (the calibrated free parameters when omitted).

    Raises :class:`NotModelled` for a configuration no model covers yet.
    """
    values = params_module.calibrated() if params is None else params
    catalog = catalog_module.load()
    if scenario.model == "storage":
        from .storage import stream
        return stream.simulate(scenario, catalog, values)
    raise NotModelled(f"the {scenario.model} model arrives with a later issue")
