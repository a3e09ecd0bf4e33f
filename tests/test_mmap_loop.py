"""The compiled pass of the memory-mapped test (``model.storage.mmap_loop``) against the Python
classes it replaced (``tests/mmap_reference.py``): the same results to the last bit."""

import pytest
from mmap_reference import simulate as reference_simulate

from model import catalog, scenario
from model.params import calibrated
from model.storage.mmap import simulate

# What the Python classes gave for the full psu_mmap scenario (three 4 GB passes a variant) before
# the pass was compiled, as float.hex: (settings, elapsed_s, bound_MBps, utilisation of each drive,
# faults a run). Running the reference on the full file takes over a second a case.
BEFORE = [
    (
        "variant=raid",
        "0x1.e1df78cedf361p+8",
        "0x1.1f1e90b00a08bp+3",
        (
            "0x1.fcb78996d4de2p-1",
            "0x1.a67fde1355063p-3",
        ),
        "69,143 faults",
    ),
    (
        "variant=raid_writeback",
        "0x1.c2a5c94150434p+8",
        "0x1.333b3066e69e1p+3",
        (
            "0x1.fc62dea432210p-1",
            "0x1.5626086564953p-3",
        ),
        "69,143 faults",
    ),
    (
        "variant=sata",
        "0x1.7b1bbb59b1568p+8",
        "0x1.6db1dbc98e2abp+3",
        ("0x1.fbb8a1769e60fp-1",),
        "69,143 faults",
    ),
    (
        "variant=raid kernel.read_ahead_KiB=64",
        "0x1.39c027727423cp+9",
        "0x1.b8557e040f39ep+2",
        (
            "0x1.fd8b39e0a827ep-1",
            "0x1.3935f1b9ac11fp-3",
        ),
        "131,670 faults",
    ),
    (
        "variant=sata kernel.read_ahead_KiB=64",
        "0x1.f48d355f966b0p+8",
        "0x1.146469f39f566p+3",
        ("0x1.fce24e441e269p-1",),
        "131,670 faults",
    ),
    (
        "variant=raid host=psu_real_server",
        "0x1.41432058918a3p+8",
        "0x1.b03eb8a41669ep+3",
        (
            "0x1.fbaed756d2a25p-1",
            "0x1.9d3892c03ee37p-3",
        ),
        "55,699 faults",
    ),
    # ``nearest`` as Linux 2.6 md's read_balance (a non-sequential read to the other copy when it
    # is idle), from the reference since it took that rule
    (
        "variant=raid controllers.iop332.mirror_reads=nearest",
        "0x1.e43dd196e77d8p+7",
        "0x1.9828e464e71a7p+4",
        (
            "0x1.6e0fdd9872f6ep-1",
            "0x1.5e07a91bbe4f9p-1",
        ),
        "69,143 faults",
    ),
    (
        "variant=raid_writeback controllers.iop332.mirror_reads=nearest",
        "0x1.716f2b9864368p+7",
        "0x1.1116b9b4ae7aap+5",
        (
            "0x1.6a7dd76f02c97p-1",
            "0x1.5398d7e618a72p-1",
        ),
        "69,143 faults",
    ),
    (
        "variant=sata volumes.sata.drive_write_cache=disabled",
        "0x1.8ca6fccfb2f5dp+8",
        "0x1.5d4f16d4b6c53p+3",
        ("0x1.fc016b6732e1dp-1",),
        "69,143 faults",
    ),
]


def _simulate(how, settings):
    return how(scenario.load("psu_mmap", list(settings)), catalog.load(), calibrated())


@pytest.mark.parametrize("settings, elapsed_s, bound_MBps, utilization, faults", BEFORE)
def test_the_compiled_pass_gives_the_python_classes_results_bit_for_bit(
    settings, elapsed_s, bound_MBps, utilization, faults
):
    result = _simulate(simulate, settings.split())
    assert result.elapsed_s.hex() == elapsed_s
    assert result.bound_MBps.hex() == bound_MBps
    assert tuple(u.hex() for u in result.utilization.values()) == utilization
    assert result.notes[0].startswith(faults + " a run")


@pytest.mark.parametrize(
    "settings",
    [
        ["variant=raid"],
        ["variant=raid_writeback"],
        ["variant=sata"],
        ["variant=raid", "controllers.iop332.mirror_reads=balanced"],
        ["variant=raid_writeback", "controllers.iop332.mirror_reads=balanced"],
        ["variant=raid", "controllers.iop332.mirror_reads=nearest"],
        ["variant=sata", "volumes.sata.drive_write_cache=disabled"],
        ["variant=sata", "kernel.read_ahead_KiB=512", "workload.request_KiB=64"],
        ["variant=raid_writeback", "kernel.read_ahead_KiB=64"],
    ],
)
def test_a_smaller_file_on_a_smaller_host_matches_the_reference_bit_for_bit(settings):
    # 1.2 GB through 872 MB of memory: the page cache fills, evicts and writes back, in a third of
    # the full test's time
    settings = settings + ["host=compaq_ml330_psu", "workload.total_MB=1200", "workload.runs=2"]
    compiled, reference = (_simulate(how, settings) for how in (simulate, reference_simulate))
    assert compiled.elapsed_s == reference.elapsed_s
    assert compiled.bound_MBps == reference.bound_MBps
    assert compiled.utilization == reference.utilization
    assert compiled.notes == reference.notes
