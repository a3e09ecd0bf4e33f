"""The IntelliStation's five-drive runs (slide 8) declare the Promise channels' Ultra DMA mode an
unknown: the slides do not say whether they came before slide 9's UDMA100 fix. Slide 9's runs
(one to three drives, "both working at UDMA100") keep the mode known."""

from model import scenario, uncertainty
from model.simulate import simulate

FIVE = ["volumes.md0.disks.count=5"]


def _rate(*overrides: str) -> float:
    return simulate(scenario.load("atlas_intellistation", list(overrides))).throughput_MBps


def test_udma33_channels_bound_five_drives_at_their_burst_rate():
    slow = [f"controllers.promise{i}.channel_mode=ide_udma33" for i in (1, 2)]
    fast = _rate(*FIVE)
    udma33 = _rate(*FIVE, *slow)
    # four drives on 33.3 MB/s channels and one onboard: the five stripe in step at the slowest
    assert udma33 < 0.75 * fast
    assert udma33 < 5 * 33.3


def test_slide_8s_interval_spans_the_modes_and_slide_9s_does_not():
    slide8 = scenario.load("atlas_intellistation", ["variant=slide8", *FIVE])
    slide9 = scenario.load("atlas_intellistation", FIVE)
    found8 = uncertainty.interval(slide8, "throughput_MBps", model_error=False)
    found9 = uncertainty.interval(slide9, "throughput_MBps", model_error=False)
    assert found8.leading == "promise channel mode"  # one fact: both cards alike
    assert found8.low < found9.low
    # 170 MB/s read on slide 8 lies between the UDMA33 and UDMA100 readings
    assert found8.low < 170.0 < found8.high
