"""The IntelliStation's five-drive runs (slide 8) declare the Promise channels' Ultra DMA mode an
unknown: the slides do not say whether they came before slide 9's UDMA100 fix. Slide 9's runs
(one to three drives, "both working at UDMA100") keep the mode known."""

import pytest

from model import scenario, uncertainty
from model.simulate import simulate

FIVE = ["volumes.md0.disks.count=5"]


def _rate(*overrides: str) -> float:
    return simulate(scenario.load("atlas_intellistation", list(overrides))).throughput_MBps


def test_udma33_channels_bound_five_drives_at_their_burst_rate():
    """Four of the five drives sit one to a Promise channel (promise1.0, promise2.0, promise1.1,
    promise2.1), the fifth on the onboard UDMA100 channel. RAID0 stripes the stream evenly, a
    fifth of it (with ext2's 4-byte block pointer for each 4 KiB block) on each drive, so the
    UDMA33 channels bind it at five times what one carries: Ultra DMA mode 2's burst rate times
    bus_efficiency, over 1 + 4/4096 bytes a file byte; the run takes that after the drives'
    first access."""
    from model import catalog, params

    values = params.calibrated()
    parts = catalog.load().parts
    slow = [f"controllers.promise{i}.channel_mode=ide_udma33" for i in (1, 2)]
    s = scenario.load("atlas_intellistation", [*FIVE, *slow])
    attach = s.body.volumes["md0"].disks.attach
    assert attach == ("promise1.0", "promise2.0", "promise1.1", "promise2.1", "onboard.0")
    channel_MBps = parts["buses"]["ide_udma33"].burst_rate_MBps * values["bus_efficiency"]
    expected_MBps = 5 * channel_MBps / (1 + 4 / 4096)
    result = simulate(s, values)
    assert result.bottleneck.startswith("channel promise")
    promise = {k: u for k, u in result.utilization.items() if k.startswith("channel promise")}
    assert len(promise) == 4 and max(promise.values()) == min(promise.values())
    assert result.bound_MBps == pytest.approx(expected_MBps, rel=1e-9)
    disk = parts["disks"][s.body.volumes["md0"].disks.part]
    first_access_s = disk.avg_seek_read_ms / 1e3 + 0.5 * 60.0 / disk.rpm
    total_MB = s.body.workload.total_MB
    assert result.elapsed_s == pytest.approx(first_access_s + total_MB / expected_MBps, rel=1e-9)
    # and below what the same drives give on their UDMA100 channels
    assert result.throughput_MBps < 0.75 * _rate(*FIVE)


def test_slide_8s_interval_spans_the_modes_and_slide_9s_does_not():
    slide8 = scenario.load("atlas_intellistation", ["variant=slide8", *FIVE])
    slide9 = scenario.load("atlas_intellistation", FIVE)
    found8 = uncertainty.interval(slide8, "throughput_MBps", model_error=False)
    found9 = uncertainty.interval(slide9, "throughput_MBps", model_error=False)
    assert found8.leading == "promise channel mode"  # one fact: both cards alike
    assert found8.low < found9.low
    # 170 MB/s read on slide 8 lies between the UDMA33 and UDMA100 readings
    assert found8.low < 170.0 < found8.high
