"""The catalog's drives carry the figures one command alone needs: every flash drive its QD1 write
acknowledgement (a parts file's drive without one is refused in one line, as nothing else in a
sheet gives it). So a data-center SSD's QD1 write runs at its acknowledgement, not at the time one
flash unit spends programming it."""

import pytest
from flash_parts import on_hba, on_riser, scenario
from quote_parts import write

from model import catalog
from model import scenario as loader
from model.simulate import simulate
from model.storage import flash

CAT = catalog.load()
SSDS = CAT.parts["ssds"]


def _run(tmp_path, data):
    return simulate(loader.load(write(tmp_path / "s.yaml", data)))


def _random(op: str, depth: int, streams: int = 1) -> dict:
    return {
        "op": op,
        "io": "direct",
        "pattern": "random",
        "request_KiB": 4,
        "queue_depth": depth,
        "streams": streams,
        "total_MB": 8,
    }


# --- flash: the QD1 write ---------------------------------------------------------------------


@pytest.mark.parametrize("pid", sorted(SSDS))
def test_every_flash_drive_gives_its_qd1_write_with_a_source(pid):
    ssd = SSDS[pid]
    assert ssd.write_latency_us > 0 and "write_latency_us" in ssd.sources
    # the host waits for the acknowledgement, which is shorter than the unit's programming time
    assert flash.latency_s(ssd, "write") == ssd.write_latency_us / 1e6
    assert flash.latency_s(ssd, "write") < flash.flash_s(ssd, "write")


@pytest.mark.parametrize(
    ("pid", "volume"),
    [
        ("samsung_pm9a3_7680", on_riser("samsung_pm9a3_7680", 1, "single")),
        ("micron_7450_pro_15360", on_riser("micron_7450_pro_15360", 1, "single")),
        ("samsung_pm1643_30tb", on_hba("samsung_pm1643_30tb", 1, "single")),
    ],
)
def test_a_data_center_ssd_writes_4_kib_at_depth_1_at_its_acknowledgement(tmp_path, pid, volume):
    ssd = SSDS[pid]
    r = _run(tmp_path, scenario(volume, _random("write", 1), "pcie4_x16"))
    iops = r.throughput_MBps * 1e6 / 4096
    qd1 = 1e6 / ssd.write_latency_us
    assert 0.85 * qd1 < iops < qd1  # the host's system call and block layer come on top
    # a write acknowledged from power-protected DRAM: 15 to 28 us in the sources, so above 30,000
    # a second; a flash unit's programming time gave the PM9A3 2,770 and the PM1643 1,130
    assert iops > 30_000
    assert iops > 10 / flash.flash_s(ssd, "write")


def test_the_pm9a3_and_the_7450_write_alike_at_depth_1(tmp_path):
    rates = [
        _run(tmp_path, scenario(on_riser(pid, 1, "single"), _random("write", 1), "pcie4_x16"))
        for pid in ("samsung_pm9a3_7680", "micron_7450_pro_15360")
    ]
    assert rates[0].throughput_MBps == pytest.approx(rates[1].throughput_MBps, rel=0.05)


def test_a_parts_file_flash_drive_without_its_qd1_write_is_refused(tmp_path, run_cli):
    ssd = {
        "name": "A quote's U.2 drive",
        "interface": "nvme",
        "host_bus": "pcie4_x4",
        "capacity_GB": 3840,
        "seq_read_MBps": 6800,
        "seq_write_MBps": 4000,
        "random_read_iops": 1_000_000,
        "random_write_iops": 180_000,
        "iops_queue_depth": 128,
        "read_latency_us": 80,
        "write_cache_GB": 0,
    }
    ssd["sources"] = {k: "the vendor's quote" for k, v in ssd.items() if not isinstance(v, str)}
    parts_file = write(tmp_path / "quote_ssds.yaml", {"ssds": {"quote_ssd": ssd}})
    data = scenario(on_riser("quote_ssd", 1, "single"), _random("write", 1))
    data["catalogs"] = ["quote_ssds.yaml"]
    status, out, err = run_cli("predict", write(tmp_path / "s.yaml", data))
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"{parts_file}: ssds.quote_ssd.write_latency_us: missing;"), err
    assert "microseconds" in err and "QD1" in err
    # with the figure the same drive predicts
    ssd["write_latency_us"] = 15
    ssd["sources"]["write_latency_us"] = "the vendor's quote"
    write(tmp_path / "quote_ssds.yaml", {"ssds": {"quote_ssd": ssd}})
    status, out, err = run_cli("predict", str(tmp_path / "s.yaml"), "--json", "--point")
    assert status == 0, err
