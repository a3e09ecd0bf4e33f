"""The compiled pass of the memory-mapped test (``model.storage.mmap_loop``) against the Python
classes it replaced (``tests/mmap_reference.py``): the same results to the last bit."""

import pytest
from mmap_reference import simulate as reference_simulate

from model import catalog, scenario
from model.params import calibrated
from model.storage.mmap import simulate

# The full psu_mmap scenario (three 4 GB passes a variant) in the settings an earlier run of the
# Python classes was recorded for: each is now run on the reference itself, about 1.5 s a case.
FULL = [
    "variant=raid",
    "variant=raid_writeback",
    "variant=sata",
    "variant=raid kernel.read_ahead_KiB=64",
    "variant=sata kernel.read_ahead_KiB=64",
    "variant=raid host=psu_real_server",
    "variant=raid controllers.iop332.mirror_reads=nearest",
    "variant=raid_writeback controllers.iop332.mirror_reads=nearest",
    "variant=sata volumes.sata.drive_write_cache=disabled",
]


def _simulate(how, settings):
    return how(scenario.load("psu_mmap", list(settings)), catalog.load(), calibrated())


@pytest.mark.parametrize("settings", FULL)
def test_the_compiled_pass_gives_the_python_classes_results_bit_for_bit(settings):
    compiled, reference = (
        _simulate(how, settings.split()) for how in (simulate, reference_simulate)
    )
    assert compiled.elapsed_s == reference.elapsed_s
    assert compiled.bound_MBps == reference.bound_MBps
    assert compiled.utilization == reference.utilization
    assert compiled.notes == reference.notes  # the faults a run among them


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
