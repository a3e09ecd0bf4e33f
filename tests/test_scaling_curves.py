"""The scaling curves ``make bench`` draws (``model.scaling``): each curve's scenario loads at every
size it is drawn at, and passes its model's own checks, so the bench cannot stop at a refusal
(1,000 clients on one nginx worker of 512 connections stopped it once)."""

import pytest

from model import catalog, scaling
from model.servers import download


@pytest.mark.parametrize("index", range(5))
def test_every_curve_s_scenario_loads_at_every_size(tmp_path, index):
    curve = scaling.curves(tmp_path)[index]
    for size in curve.sizes:
        assert curve.build(size).name


def test_the_download_curve_passes_the_server_s_checks_at_its_largest_size(tmp_path):
    (curve,) = [c for c in scaling.curves(tmp_path) if "download server" in c.label]
    largest = curve.build(max(curve.sizes))
    download.check(largest, largest.catalog or catalog.load())
