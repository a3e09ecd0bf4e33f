"""What used to raise a traceback or pass silently is one line naming the file and key, and exit 2."""

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


def test_a_folder_a_device_and_a_binary_file_are_not_scenarios(run_cli, tmp_path):
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00name: x\n")
    listed = tmp_path / "model_list.yaml"
    listed.write_text("model: [storage]\nname: x\ndescription: x\nsource: x\n")
    for path, message in (
        (tmp_path, "must be a YAML file, not a folder or a device"),
        ("/dev/zero", "must be a YAML file, not a folder or a device"),
        (binary, "is not UTF-8 text"),
        (listed, "model: must be one of storage"),
    ):
        status, out, err = run_cli("predict", str(path))
        assert status == 2 and not out and err.count("\n") == 1 and message in err
