"""The model's own error an interval is widened by: a change to hardware a report's table measured
takes the residuals of configurations predicted without themselves, hardware no table measured
those of tables predicted without themselves (``model_error.beyond_tables``)."""

import json
import math

import pytest
from quote_parts import write

from model import model_error, paths, registry, scenario

ERRORS = json.loads((paths.CALIBRATED / "model_error.json").read_text())


@pytest.mark.parametrize(
    "name, overrides, beyond",
    [
        ("atlas_intellistation", (), False),
        ("atlas_intellistation", ("volumes.md0.disks.count=4",), False),  # a change, same parts
        ("atlas_intellistation", ("volumes.md0.disks.part=maxtor_4r160l0",), True),  # swapped
        ("em_ingest", ("host=dell_r720",), True),
        ("purchase_nvme", (), True),  # no table measured it
        ("ext_970_evo_plus", (), True),  # the external rows never tune the lab
    ],
)
def test_hardware_beyond_the_tables_is_told_apart(name, overrides, beyond):
    assert model_error.beyond_tables(scenario.load(name, list(overrides))) is beyond


def test_a_scenario_with_the_user_s_own_parts_is_beyond_the_tables(tmp_path):
    from quote_parts import PARTS

    parts = write(tmp_path / "parts.yaml", {"disks": PARTS["disks"]})
    loaded = scenario.load(
        "atlas_intellistation", ["volumes.md0.disks.count=1"], catalogs=(str(parts),)
    )
    assert model_error.beyond_tables(loaded)


def test_every_model_has_both_widenings():
    for model in registry.MODELS:
        assert math.isfinite(ERRORS["models"][model]["log_widen_90"]), model
        assert math.isfinite(ERRORS["new_hardware"][model]["log_widen_90"]), model
    # the storage model's tables each predicted without itself miss by more than its rows
    # predicted without their configuration: atlas_hosts 12.8 % and psu_write 11.6 % median
    storage = [ERRORS[k]["storage"]["log_widen_90"] for k in ("models", "new_hardware")]
    assert storage[1] > storage[0]


def test_predict_says_which_error_widened_it(run_cli):
    _, near, _ = run_cli("predict", "atlas_intellistation")
    _, new, _ = run_cli("predict", "purchase_nvme")
    assert "configurations like those of these tables" in near
    assert "hardware no table measured" in new
    factor = math.exp(ERRORS["new_hardware"]["storage"]["log_widen_90"])
    # its NICs cap the high end: the error widened it below only (the quote audit)
    assert f"widened {factor:.2f} times below" in new


def test_an_interval_capped_above_and_widened_by_the_error_alone_says_both(tmp_path, run_cli):
    """The quote audit, on the file server template (its two 10 GbE ports bind): 'model error
    widened 1.38 times each way' where the path's capacity capped the high end at the point, so
    only the low end moved; and 'moved by no declared unknown, parameter or seed moves it' beside
    an interval 27 % wide, all of it the model's error."""
    path = tmp_path / "s.yaml"
    assert run_cli("new", "storage_behind_network", "--out", str(path))[0] == 0
    status, out, err = run_cli("predict", str(path), "--json")
    assert status == 0, err
    data = json.loads(out)
    low, high = data["interval_90"]
    # capped at the path's capacity, its point (report._capped), and nothing but the error moving
    assert high >= data["path_limit"] * (1 - 1e-9) and low < high
    assert high == pytest.approx(data["throughput_MBps"], rel=1e-3)
    assert not data["drivers"]
    factor = math.exp(data["model_error"]["log_widen_90"])
    status, text, err = run_cli("predict", str(path))
    assert status == 0, err
    assert (
        "  moved by     its width is the model's measured error; no declared unknown, parameter "
        "or seed moves it\n"
    ) in text
    assert (
        f"  model error  widened {factor:.2f} times below; above, only to the path's capacity ("
    ) in text
    assert "each way" not in text


def test_a_renamed_report_scenario_is_still_the_report_s_hardware(tmp_path):
    """The file decides, not the name: a report scenario renamed with --set name= keeps its
    widening, and a template named like a report scenario does not borrow it."""
    assert not model_error.beyond_tables(scenario.load("em_ingest", ["name=my_em"]))
    template = tmp_path / "em_ingest.yaml"
    template.write_text(
        (paths.PROJECT_ROOT / "data" / "templates" / "storage_server.yaml")
        .read_text()
        .replace("name: my_storage_server", "name: em_ingest")
    )
    assert model_error.beyond_tables(scenario.load(str(template)))


def test_a_wan_transfer_with_another_sender_is_beyond_the_tables():
    moved = scenario.load(
        "atlas_lightpath",
        ["sender_host=dell_r720", "workload.source=memory", "sender_storage=null"],
    )
    assert model_error.beyond_tables(moved)


def test_a_borrowed_widening_for_new_hardware_says_it_is_for_new_hardware():
    """A model with too few held-out rows borrows another's widening; for hardware no table
    measured the line still says so, as for the models that have their own."""
    for model in registry.MODELS:
        covers = model_error.model_error_of(model, new_hardware=True)["covers"]
        assert covers.startswith("hardware no table measured"), model
    assert not model_error.model_error_of("wan_transfer")["covers"].startswith("hardware no")
