"""The catalog's drives carry the figures one command alone and sixteen queued need: every flash
drive its QD1 write acknowledgement (a parts file's drive without one is refused in one line, as
nothing else in a sheet gives it), every SAS and SCSI disk its tagged-queue depth, every queueing
7200 rpm disk its own time per command. So a data-center SSD's QD1 write runs at its
acknowledgement, not at the time one flash unit spends programming it, and a SAS near-line disk
with sixteen reads queued reorders them as its SATA twin does."""

import math

import pytest
import simpy
from flash_parts import on_hba, on_riser, scenario
from quote_parts import write

from model import catalog, params
from model import scenario as loader
from model.sim.flows import FlowNetwork
from model.simulate import simulate
from model.storage import flash, requests, topology, writecache
from model.storage.spec import DiskSet, Volume

CAT = catalog.load()
SSDS = CAT.parts["ssds"]
DISKS = CAT.parts["disks"]

# Seagate Exos X24 data sheet DS2080: 4 KiB random reads at queue depth 16 over the whole drive,
# write cache off, 168 IOPS (the Exos M sheet: 170); the X18 and X24 share the 7200 rpm mechanics
SHEET_QD16_IOPS = 168.0


def _run(tmp_path, data):
    return simulate(loader.load(write(tmp_path / "s.yaml", data)))


def _flash_links(loaded):
    """The slowest link of the target volume's flash drives' way to the host and their own, B/s
    (``topology._flash_links``)."""
    body = loaded.body
    net = FlowNetwork(simpy.Environment())
    path = topology.build(net, body, loaded.catalog or CAT, params.calibrated(), loaded.path, 1e6)
    return path.flash_links[body.workload.target]


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
    loaded = loader.load(
        write(tmp_path / "s.yaml", scenario(volume, _random("write", 1), "pcie4_x16"))
    )
    r = simulate(loaded)
    iops = r.throughput_MBps * 1e6 / 4096
    # its acknowledgement, its 4 KiB over the way to the host where that is slower than its own
    # link: the PM1643's 12 Gb/s SAS behind the quote's 6 Gb/s lanes, 7.1 us against 3.4
    links = _flash_links(loaded)
    qd1 = 1 / flash.request_s(ssd, "write", 4096, math.inf, links)
    assert qd1 <= 1e6 / ssd.write_latency_us
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


# --- disks: tagged queuing --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sas", "sata"),
    [
        ("exos_x18_st18000nm004j", "exos_x18_st18000nm000j"),
        ("exos_x24_st24000nm007h", "exos_x24_st24000nm002h"),
    ],
)
@pytest.mark.parametrize(("depth", "streams"), [(16, 1), (1, 16)])
def test_sas_and_sata_twins_read_alike_with_16_queued(tmp_path, sas, sata, depth, streams):
    got = {
        pid: _run(tmp_path, scenario(on_hba(pid, 1, "single"), _random("read", depth, streams)))
        for pid in (sas, sata)
    }
    iops = {pid: r.throughput_MBps * 1e6 / 4096 for pid, r in got.items()}
    assert iops[sas] == pytest.approx(iops[sata], rel=0.03)
    for pid in (sas, sata):
        assert iops[pid] == pytest.approx(SHEET_QD16_IOPS, rel=0.03)
        assert got[pid].bottleneck.startswith("disk v")


def test_a_sas_disk_reorders_past_what_sata_ncq_holds(tmp_path):
    deep = [
        _run(tmp_path, scenario(on_hba(pid, 1, "single"), _random("read", 64)))
        for pid in ("exos_x18_st18000nm004j", "exos_x18_st18000nm000j")
    ]
    assert deep[0].throughput_MBps > deep[1].throughput_MBps  # 64 tagged against NCQ's 32


@pytest.mark.parametrize(
    "pid", sorted(p for p, d in DISKS.items() if d.interface in ("sas", "scsi"))
)
def test_every_sas_and_scsi_disk_declares_its_tagged_queue_depth(pid):
    disk = DISKS[pid]
    assert disk.queue_depth >= 16 and "queue_depth" in disk.sources


@pytest.mark.parametrize("pid", sorted(DISKS))
def test_a_disk_the_write_back_path_takes_as_queueing_reorders_random_commands(pid):
    # the two places that ask whether a drive queues commands give the same answer
    disk = DISKS[pid]
    lay = requests.layout(Volume(level="single", disks=DiskSet(pid, 1, ("a.0",))), "read", 4096, 1)
    assert writecache.queues_commands(disk) == (requests.queued(disk, lay, 4096, 16) > 1)


@pytest.mark.parametrize(
    "pid", sorted(p for p, d in DISKS.items() if d.queue_depth > 1 and d.rpm == 7200)
)
def test_every_queueing_7200_rpm_disk_gives_its_own_time_per_command(pid):
    # without it, reordering alone puts 16 queued reads a third above the sheets' 168-170
    disk = DISKS[pid]
    assert disk.command_overhead_ms > 0 and "command_overhead_ms" in disk.sources
