"""What used to raise a traceback or pass silently is one line naming the file and key, and exit
2."""

import pytest


@pytest.mark.parametrize(
    "override, message",
    [
        ("workload.total_MB=.inf", "workload.total_MB: must be a finite number, got inf"),
        ("workload.total_MB=.nan", "workload.total_MB: must be a finite number, got nan"),
        (
            "volumes.md0.disks.attach.99=promise1.0",
            "no position 99 in a list of 5; allowed: 0 to 4",
        ),
        ("volumes.md0.disks.count.x=1", "volumes.md0.disks.count.x"),
        ("variant=[a]", "has no variant ['a']"),
        (
            "volumes.md0.disks.attach=[promise1.0,promise1.0,promise1.1,promise2.0,promise2.1]",
            "attach[1]: promise1.0 is already taken by volumes.md0.disks.attach[0]",
        ),
        (
            "workload.total_MB=1000000000000.0",
            "workload.total_MB: 1e+09 GB of data do not fit on volume md0",
        ),
    ],
)
def test_an_override_mistake_is_one_line_naming_its_key(run_cli, override, message):
    status, out, err = run_cli("predict", "atlas_intellistation", "--set", override)
    assert status == 2 and not out and err.count("\n") == 1
    assert err.startswith("--set: ") and message in err


def test_a_model_named_by_a_list_is_one_line(run_cli, tmp_path):
    # folders, devices, binary files and YAML bombs: tests/test_yaml_safety.py
    listed = tmp_path / "model_list.yaml"
    listed.write_text("model: [storage]\nname: x\ndescription: x\nsource: x\n")
    status, out, err = run_cli("predict", str(listed))
    assert status == 2 and not out and err.count("\n") == 1
    assert "model: must be one of storage" in err


def test_a_key_given_twice_and_a_number_in_scientific_notation(run_cli, tmp_path):
    twice = tmp_path / "twice.yaml"
    twice.write_text(scenario_text().replace("seed: 1\n", "seed: 1\nseed: 2\n", 1))
    status, _, err = run_cli("predict", str(twice))
    assert status == 2 and "seed: given twice (line" in err
    status, out, _ = run_cli(
        "predict", "atlas_intellistation", "--set", "workload.total_MB=1e3", "--json", "--point"
    )
    assert status == 0 and '"bytes_moved": 1000000000.0' in out


def scenario_text() -> str:
    from model import scenario

    return scenario.resolve("atlas_intellistation").read_text()
