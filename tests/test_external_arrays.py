"""The external table's storage rows (data/measured/external/arrays.csv): single drives, md arrays
and ZFS pools of current hardware, each citing a published measurement, predicted from the
catalog's data sheets and never fitted; and the array arithmetic they rest on, checked against
what a data sheet alone predicts."""

import math

import pytest

from model import calibrate, catalog, measured, params, scenario, simulate, validate
from model.storage import flash, framing

ARRAYS = measured.load_table(measured.EXTERNAL / "arrays.csv")
BASE = ("variant=seq_read", "workload.total_MB=64000")  # one 16 TB near-line disk, 1 MiB reads


def _rate(*overrides: str):
    return simulate.simulate(scenario.load("ext_arr_hw_16tb", [*BASE, *overrides]))


def test_every_array_row_is_in_the_external_table_and_never_fitted():
    external = {r.id for r in measured.load_external()[measured.EXTERNAL_TABLE]}
    assert ARRAYS and all(r.id in external for r in ARRAYS)
    assert all(r.scenario.startswith("ext_arr_") for r in ARRAYS)
    assert not any(calibrate.fitted(r) for r in measured.load_external()["external"])


@pytest.mark.parametrize("row", ARRAYS, ids=lambda r: r.id)
def test_every_array_row_is_predicted_and_cited(row):
    entry = measured.external_sources()[measured.report_of(row.source)]
    assert entry["url"].startswith("https://") and entry["url"] in measured.cite(row.source)
    # the page's words, and no search tool a user's clone does not have (the provenance audit)
    assert "'" in row.note and "search" not in row.note.lower()
    got = validate.predict_row(row, params.calibrated())
    assert got.predicted is not None and math.isfinite(got.predicted) and got.predicted > 0


def test_an_md_raid0_of_four_disks_streams_at_four_times_one_disk_within_the_bus():
    one = _rate()
    four = _rate(
        "volumes.disk.level=raid0",
        "volumes.disk.disks.count=4",
        "volumes.disk.disks.attach=[ahci.0, ahci.1, ahci.2, ahci.3]",
    )
    assert four.throughput_MBps == pytest.approx(4 * one.throughput_MBps, rel=0.01)
    assert four.bottleneck.startswith("disk")  # the chipset link (PCIe 3 x4) has room for four
    assert four.throughput_MBps < four.bound_MBps * 1.001


def test_a_raidz2_vdev_of_six_disks_streams_at_four_disks():
    one = _rate()
    pool = _rate(
        "volumes.disk.engine=zfs",
        "volumes.disk.level=null",
        "volumes.disk.vdevs={type: raidz2, count: 1}",
        "volumes.disk.record_KiB=1024",
        "volumes.disk.filesystem={type: zfs}",
        "volumes.disk.disks.count=6",
        "volumes.disk.disks.attach=[ahci.0, ahci.1, ahci.2, ahci.3, ahci.4, ahci.5]",
        "workload.io=buffered",
        "workload.queue_depth=1",
    )
    assert pool.throughput_MBps == pytest.approx((6 - 2) * one.throughput_MBps, rel=0.01)


def test_a_cached_write_is_acknowledged_at_the_sheets_qd1_latency_but_flows_at_the_rated_iops():
    evo = catalog.load().parts["ssds"]["samsung_970_evo_plus_1tb"]
    piece_B, stream_Bps = 4096.0, evo.seq_write_MBps * 1e6
    # depth 1: the sheet's 60,000 QD1 write IOPS, not the flash time of a rated-IOPS unit
    assert 1.0 / flash.request_s(evo, "write", piece_B, stream_Bps) == pytest.approx(
        60_000, rel=0.01
    )
    assert flash.latency_s(evo, "write") < flash.flash_s(evo, "write")
    # every unit busy: still the rated 550,000 write IOPS
    rate = flash.random_Bps(evo, "write", piece_B, stream_Bps) / piece_B
    assert rate == pytest.approx(evo.random_write_iops, rel=0.01)
    # the 980 PRO's sheet gives the same 60,000, also far above its flash time's rate
    pro = catalog.load().parts["ssds"]["samsung_980_pro_1tb"]
    assert 1.0 / flash.latency_s(pro, "write") == pytest.approx(60_000, rel=0.01)
    assert flash.latency_s(pro, "write") < flash.flash_s(pro, "write")


def test_a_one_lane_pcie2_slot_holds_an_x4_nvme_drive_and_an_hba_array_to_the_lane():
    lane = catalog.load().parts["buses"]["pcie2_x1"]
    lane_MBps = lane.peak_MBps * framing.payload_share(lane, 128)  # the CM4 scenarios' packets
    assert lane.peak_MBps == pytest.approx(500.0)  # 5 GT/s, 8b/10b
    for name in ("ext_arr_cm4_980", "ext_arr_cm4_md_raid0"):
        got = simulate.simulate(scenario.load(name, ["variant=fio_seq_read"]))
        assert got.throughput_MBps == pytest.approx(lane_MBps, rel=0.01)
        assert got.throughput_MBps < 500.0
