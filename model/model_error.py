"""The model's own error, as validation measured it: how far a model's predictions miss their
measurements beyond their spread, by which a prediction's 90 % interval widens
(``model.uncertainty``).

``data/calibrated/model_error.json`` (written by ``python -m model calibrate`` from the
leave-one-out residuals of
the tables a model predicts) holds per model the 90 % quantile q of how far (log) each held-out
measurement lies outside its spread (``model.coverage``; a model with too few rows takes the
largest of the others', or its own worst miss where that is larger); an interval [low, high]
widens to [low e^-q, high e^q]. That q comes from each row predicted without its configuration,
the error of a change to hardware a table measured; a scenario whose hardware none of the
reports' tables measured (``beyond_tables``: not one of their scenarios, or one given parts of the
user's or a part swapped by an override) takes instead the q of each table predicted without that
table (``new_hardware``), the error of predicting a report the fit never saw. Without the file
``model_error_of`` gives None: the interval leaves the error out and says so.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from . import paths
from .spec import Scenario

MODEL_ERROR = paths.CALIBRATED / "model_error.json"
NEW_HARDWARE = "hardware no table measured"


def model_error_of(model_name: str, new_hardware: bool = False) -> dict | None:
    """What validation measured of a model's own error (its 90 % log widening and the
    configurations its residuals come from), for hardware the tables measured or for
    ``new_hardware``; None where no file gives it."""
    entry = _model_errors("new_hardware" if new_hardware else "models").get(model_name)
    if entry is None:
        return None
    covers = entry.get("covers", "")
    if new_hardware and not covers.startswith(NEW_HARDWARE):  # a borrowed widening says so too
        covers = f"{NEW_HARDWARE}; {covers}" if covers else NEW_HARDWARE
    return {"log_widen_90": float(entry["log_widen_90"]), "covers": covers}


def _model_errors(section: str) -> dict:
    if not MODEL_ERROR.exists():
        return {}
    return json.loads(MODEL_ERROR.read_text()).get(section, {})


# the keys naming hardware in any model's scenario: a part of the catalog, or another scenario
# whose hardware it uses (a part or a storage swapped by an override)
PART_KEYS = frozenset(
    {"part", "host", "disk", "controller", "nic", "link"}
    | {"server_nic", "client_nic", "server_host", "client_host", "sender_host", "receiver_host"}
    | {"storage", "sender_storage", "receiver_storage"}
)


@functools.cache
def _tables_files() -> frozenset[Path]:
    """The scenario files the reports' tables measured (data/measured; the external rows test the
    lab and never tune it, so theirs are not among them)."""
    from . import measured

    return frozenset(
        (paths.SCENARIOS / f"{r.scenario}.yaml").resolve()
        for rows in measured.load_all().values()
        for r in rows
    )


def beyond_tables(scenario: Scenario) -> bool:
    """Whether no report's table measured ``scenario``'s hardware: it is not one of their scenario
    files (whatever its name), or it holds parts of the user's, or an override swapped one of its
    parts or the scenario whose hardware it uses."""
    file = (Path(scenario.folder) / Path(scenario.path).name).resolve()
    if not scenario.folder or file not in _tables_files():
        return True
    if scenario.catalog is not None and scenario.catalog.users_parts:
        return True
    return any(o.partition("=")[0].rsplit(".", 1)[-1] in PART_KEYS for o in scenario.overrides)
