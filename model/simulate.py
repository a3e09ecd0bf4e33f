"""The one path from a scenario to a prediction: the registered model simulates it."""

from __future__ import annotations

from . import catalog as catalog_module
from . import params as params_module
from . import registry
from .errors import UserError
from .result import Result
from .spec import Scenario


def simulate(scenario: Scenario, params: dict[str, float] | None = None) -> Result:
    """Simulate ``scenario`` with ``params`` (the calibrated free parameters when omitted).

    Raises :class:`NotModelled` for a configuration no model covers yet.
    """
    values = params_module.calibrated() if params is None else params
    record = registry.get(scenario.model, scenario.path)
    try:
        return record.simulate(scenario, scenario.catalog or catalog_module.load(), values)
    except UserError as exc:  # a value the model rejects: name the override or variant that set it
        raise scenario.relocated(exc) from None
