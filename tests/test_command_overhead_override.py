"""A scenario whose drive the catalog only stands in for (a source that names no model) gives the
drive's own time per random command itself, and may declare it an unknown
(``DiskSet.command_overhead_ms``)."""

import json

import pytest
import yaml
from flash_parts import on_hba, scenario

from model import paths

SSD = "samsung_870_evo_1tb"


def _rate(run_cli, *sets: str) -> float:
    args = ["predict", "ext_arr_hw_16tb", "--set", "variant=rand_read", "--point", "--json"]
    for key in sets:
        args += ["--set", key]
    status, out, err = run_cli(*args)
    assert status == 0, err
    return json.loads(out)["throughput_MBps"]


def test_the_scenario_s_time_per_command_replaces_the_catalog_s():
    data = yaml.safe_load((paths.SCENARIOS / "ext_arr_hw_16tb.yaml").read_text())
    assert data["volumes"]["disk"]["disks"]["command_overhead_ms"] == 1.5  # the stand-in's own


@pytest.mark.parametrize("faster, slower", [(0.72, 1.5), (1.5, 2.1), (0.0, 0.72)])
def test_a_longer_time_per_command_lowers_the_rate(run_cli, faster, slower):
    key = "volumes.disk.disks.command_overhead_ms"
    assert _rate(run_cli, f"{key}={faster}") > _rate(run_cli, f"{key}={slower}")


def test_the_post_s_random_rows_declare_it_and_it_moves_them_most(run_cli):
    status, out, err = run_cli(
        "predict", "ext_arr_hw_16tb", "--set", "variant=rand_write", "--json"
    )
    assert status == 0, err
    found = json.loads(out)
    assert (
        max(found["drivers"], key=found["drivers"].get) == "volumes.disk.disks.command_overhead_ms"
    )
    low, high = found["interval_90"]
    assert low < found["throughput_MBps"] < high


def test_a_flash_drive_has_no_time_per_command_to_set(run_cli, tmp_path):
    volume = on_hba(SSD, 1, "single")
    volume["disks"]["command_overhead_ms"] = 1.0
    data = scenario(volume, {"op": "read", "pattern": "random", "request_KiB": 4, "total_MB": 10})
    path = tmp_path / "flash.yaml"
    path.write_text(yaml.safe_dump(data))
    status, out, err = run_cli("predict", str(path))
    assert status == 2 and out == ""
    assert "command_overhead_ms" in err and "flash drive" in err
