"""A buffered write to drives whose own write cache is off: a drive that holds one command waits a
revolution between two requests (``model.storage.writecache``); one that queues them streams."""

import dataclasses

import pytest

from model import catalog, scenario, uncertainty
from model.simulate import simulate
from model.storage import disk as disk_model
from model.storage import writecache


def _sata(*overrides):
    return simulate(scenario.load("psu_write", ["variant=sata", *overrides]))


def test_an_ata_drive_writing_through_waits_a_turn_for_each_of_its_drivers_requests():
    parts = catalog.load()
    disk = parts.get("disks", "wd740gd", "test", "disk")
    request_B = parts.get("controllers", "intel_ich5r_sata", "test", "ctrl").max_request_KiB * 1024
    cached = _sata()
    through = _sata("volumes.sata.drive_write_cache=disabled")
    media_Bps = cached.throughput_MBps * 1e6  # the drive streams into its cache at its media rate
    assert cached.bottleneck == "disk sata.0"
    expected_Bps = request_B / (request_B / media_Bps + disk_model.revolution_s(disk))
    assert through.throughput_MBps * 1e6 == pytest.approx(expected_Bps, rel=1e-3)
    assert through.bottleneck == "write-through sata"
    # the writer's CPU is the same bytes' work either way
    assert through.cpu_sys_s == pytest.approx(cached.cpu_sys_s, rel=1e-6)


def test_the_write_cache_as_shipped_is_on_for_an_ata_drive():
    assert _sata().throughput_MBps == pytest.approx(
        _sata("volumes.sata.drive_write_cache=enabled").throughput_MBps, rel=1e-9
    )


def test_a_drive_that_queues_commands_streams_with_its_cache_off():
    """The same drive told it queues (NCQ), and a SCSI drive as such, write through at their
    media rate."""
    parts = catalog.load()
    body = scenario.load("psu_write", ["variant=sata", "volumes.sata.drive_write_cache=disabled"])
    disk = parts.get("disks", "wd740gd", "test", "disk")
    share = writecache.write_through_share
    assert share(body.body, "sata", disk, 70e6, 100 * 1024) < 0.2
    assert share(body.body, "sata", dataclasses.replace(disk, queue_depth=32), 70e6, 1e5) == 1.0
    assert share(body.body, "sata", dataclasses.replace(disk, interface="scsi"), 70e6, 1e5) == 1.0


def test_reading_never_waits_a_turn():
    assert _sata("workload.op=read", "volumes.sata.drive_write_cache=disabled").throughput_MBps == (
        pytest.approx(_sata("workload.op=read").throughput_MBps, rel=1e-9)
    )


def test_the_penn_state_sata_write_declares_the_drive_cache_an_unknown_whose_range_holds_the_run():
    s = scenario.load("psu_write", ["variant=sata"])
    found = uncertainty.interval(s, "elapsed_s", model_error=False)
    low, high = found.low, found.high
    assert found.leading == "volumes.sata.drive_write_cache"
    # 4 GiB in 116 s (the report) lies between the cache-on and cache-off runs
    assert low < 116.0 < high
