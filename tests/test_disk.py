"""The disk model against its datasheet: seek curve, zones, and one request's service time."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from model import catalog
from model.storage import disk as disk_model

DISKS = catalog.load().parts["disks"]


@pytest.mark.parametrize("part_id", sorted(DISKS))
def test_seek_curve_meets_the_datasheet(part_id):
    d = DISKS[part_id]
    assert disk_model.seek_ms(d, 1.0) == pytest.approx(d.full_stroke_ms)
    assert disk_model.seek_ms(d, 1e-9) == pytest.approx(d.track_to_track_ms, abs=0.01)
    # the mean over random seek distances (density 2(1 - d)) is the datasheet average
    grid = np.linspace(0.0, 1.0, 200_001)[1:]
    weights = 2.0 * (1.0 - grid)
    mean = np.sum([disk_model.seek_ms(d, x) for x in grid[::100]] * weights[::100]) / np.sum(
        weights[::100]
    )
    assert mean == pytest.approx(d.avg_seek_read_ms, rel=0.02)


@pytest.mark.parametrize("part_id", sorted(DISKS))
@given(a=st.floats(0.0, 1.0), b=st.floats(0.0, 1.0))
def test_seek_rises_with_distance(part_id, a, b):
    d = DISKS[part_id]
    low, high = sorted((a, b))
    assert disk_model.seek_ms(d, low) <= disk_model.seek_ms(d, high) + 1e-12


def test_service_time_is_seek_plus_rotation_plus_transfer():
    d = DISKS["wd1200jb"]
    eff = 0.6
    request = 64 * 1024
    rate = d.internal_rate_max_Mbps / 8 * eff * 1e6
    expected = disk_model.seek_ms(d, 1 / 3) / 1e3 + 0.5 * 60 / d.rpm + request / rate
    assert disk_model.service_s(d, eff, request, 1 / 3, 0.5) == pytest.approx(expected)


def test_a_drive_s_own_time_per_command_adds_to_each_request():
    d = DISKS["exos_x18_st18000nm000j"]
    bare = dataclasses.replace(d, command_overhead_ms=0.0)
    with_own = disk_model.service_s(d, 0.6, 4096, 0.1, 0.5)
    assert with_own - disk_model.service_s(bare, 0.6, 4096, 0.1, 0.5) == pytest.approx(
        d.command_overhead_ms / 1e3
    )


def test_inner_zones_are_slower_and_the_mean_rate_lies_between():
    d = DISKS["st4000nm0023"]
    outer = disk_model.mean_rate_MBps(d, 1.0, 0.0, 0.0)
    inner = disk_model.mean_rate_MBps(d, 1.0, 1.0, 0.0)
    whole = disk_model.mean_rate_MBps(d, 1.0, 0.0, 1.0)
    assert outer == pytest.approx(d.media_rate_outer_MBps)
    assert inner == pytest.approx(d.media_rate_inner_MBps)
    assert inner < whole < outer
