"""Flash drives: QD1 latency, QD32 IOPS, NVMe drives sharing a segment's lanes, the SLC cache."""

import pytest
import simpy
import yaml
from flash_parts import on_hba, on_riser, scenario
from quote_parts import write

from model import catalog, params, paths
from model import scenario as loader
from model.sim.flows import FlowNetwork
from model.simulate import simulate
from model.storage import flash, framing, topology

CAT = catalog.load()
EVO = CAT.get("ssds", "samsung_970_evo_plus_1tb", "", "")


def _run(tmp_path, data):
    return simulate(loader.load(write(tmp_path / "s.yaml", data)))


def _random_read(depth: int, streams: int = 1) -> dict:
    return {
        "op": "read",
        "io": "direct",
        "pattern": "random",
        "request_KiB": 4,
        "queue_depth": depth,
        "streams": streams,
        "total_MB": 40,
    }


def test_one_request_in_flight_runs_at_the_datasheet_latency(tmp_path):
    r = _run(tmp_path, scenario(on_riser("samsung_970_evo_plus_1tb", 1, "single"), _random_read(1)))
    iops = r.throughput_MBps * 1e6 / 4096
    qd1_iops = 1e6 / EVO.read_latency_us  # 19,000 IOPS
    assert 0.95 * qd1_iops < iops < qd1_iops  # the host's syscall and block layer come on top


def test_deep_queues_reach_the_datasheet_iops(tmp_path):
    r = _run(
        tmp_path,
        scenario(on_riser("samsung_970_evo_plus_1tb", 1, "single"), _random_read(32, streams=4)),
    )
    assert r.throughput_MBps * 1e6 / 4096 == pytest.approx(EVO.random_read_iops, rel=1e-3)
    assert r.bottleneck.startswith("disk v")
    # one stream with 32 in flight: 32 per latency-plus-host-time, just under the drive's figure
    r = _run(
        tmp_path, scenario(on_riser("samsung_970_evo_plus_1tb", 1, "single"), _random_read(32))
    )
    assert 0.95 * EVO.random_read_iops < r.throughput_MBps * 1e6 / 4096 < EVO.random_read_iops


def test_nvme_drives_on_one_segment_share_its_lanes(tmp_path):
    # four PCIe 4.0 drives (7 GB/s each) on a PCIe 3.0 x16 riser: the riser's lanes are the limit
    workload = {"op": "read", "io": "direct", "request_KiB": 1024, "streams": 16, "total_MB": 4000}
    r = _run(tmp_path, scenario(on_riser("samsung_980_pro_1tb", 4, "raid0"), workload))
    riser = CAT.get("buses", "pcie3_x16", "", "")
    cap_MBps = riser.peak_MBps * framing.payload_share(riser, 256)  # 256 B packets: 14,400 MB/s
    assert r.bound_MBps == pytest.approx(cap_MBps, rel=1e-9)
    assert r.bottleneck == "bus riser"
    assert 0.99 * cap_MBps < r.throughput_MBps <= r.bound_MBps < 4 * 7000
    # two of them fit under the riser, each on its own x4 link trained to the riser's PCIe 3.0
    # (parts.pcie_trained): 3,601 MB/s each, not the drives' 7,000
    r = _run(tmp_path, scenario(on_riser("samsung_980_pro_1tb", 2, "raid0"), workload))
    gen3_x4 = CAT.get("buses", "pcie3_x4", "", "")
    link_MBps = gen3_x4.peak_MBps * framing.payload_share(gen3_x4, 256)
    assert r.throughput_MBps == pytest.approx(2 * link_MBps, rel=0.01)
    assert r.bottleneck.startswith("link nvme.riser.")


def test_a_server_of_nvme_drives_alone_needs_no_controllers_key(tmp_path):
    workload = {"op": "read", "io": "direct", "request_KiB": 1024, "streams": 16, "total_MB": 4000}
    data = scenario(on_riser("samsung_980_pro_1tb", 2, "raid0"), workload, "pcie4_x16")
    del data["controllers"]
    assert _run(tmp_path, data).throughput_MBps == pytest.approx(2 * 7000, rel=0.01)


def test_nvme_drives_behind_a_pcie_switch_share_its_uplink(tmp_path):
    """Four PCIe 4.0 drives on a switch's x16 downstream lanes whose uplink is PCIe 3.0 x8 (the
    riser hangs from it, ``via``): the uplink's payload is the limit, where the riser alone
    carried the four drives' 28,000 MB/s."""
    workload = {"op": "read", "io": "direct", "request_KiB": 1024, "streams": 16, "total_MB": 4000}
    data = scenario(on_riser("samsung_980_pro_1tb", 4, "raid0"), workload, "pcie4_x16")
    alone = _run(tmp_path, data)
    data["buses"]["up"] = {"part": "pcie3_x8"}
    data["buses"]["riser"]["via"] = "up"
    switched = _run(tmp_path, data)
    uplink = CAT.get("buses", "pcie3_x8", "", "")
    cap_MBps = uplink.peak_MBps * framing.payload_share(uplink, 256)
    assert alone.throughput_MBps == pytest.approx(4 * 7000, rel=0.01)
    assert switched.bottleneck == "bus up"
    assert switched.bound_MBps == pytest.approx(cap_MBps, rel=1e-9)


def test_a_controller_in_a_slot_behind_a_chipset_link_shares_that_link(tmp_path):
    """Eight SATA SSDs on the quote's HBA (PCIe 3.0 x8) in a slot that hangs from a PCIe 3.0 x4
    link to the processor: the link, not the HBA's own x8, bounds the array."""
    workload = {"op": "read", "io": "direct", "request_KiB": 1024, "streams": 16, "total_MB": 4000}
    data = scenario(on_hba("samsung_870_evo_1tb", 8, "raid0"), workload)
    own = _run(tmp_path, data)
    data["buses"]["chipset"] = {"part": "pcie3_x4"}
    data["buses"]["slot"]["via"] = "chipset"
    shared = _run(tmp_path, data)
    link = CAT.get("buses", "pcie3_x4", "", "")
    assert own.bottleneck != "bus chipset" and own.throughput_MBps > 4000
    assert shared.bottleneck == "bus chipset"
    assert shared.bound_MBps == pytest.approx(
        link.peak_MBps * framing.payload_share(link, 256), rel=0.01
    )


@pytest.mark.parametrize("level", ["raid0", "raid5", "raid6"])
def test_a_parity_array_of_flash_reads_at_every_drive_s_rate(tmp_path, level):
    """Flash reads only the blocks asked for: an array's parity chunks cost it nothing on a read
    (it read at the N - p data drives' rate, as a platter turning past them does)."""
    workload = {"op": "read", "io": "direct", "request_KiB": 1024, "streams": 16, "total_MB": 4000}
    r = _run(tmp_path, scenario(on_riser("samsung_980_pro_1tb", 4, level), workload, "pcie4_x16"))
    assert r.throughput_MBps == pytest.approx(4 * 7000, rel=0.01)


@pytest.mark.parametrize("total_GB", [10, 84])
def test_a_write_longer_than_the_slc_cache_falls_toward_the_post_cache_rate(tmp_path, total_GB):
    workload = {
        "op": "write",
        "io": "direct",
        "request_KiB": 1024,
        "streams": 4,
        "total_MB": total_GB * 1000 / 4,
    }
    r = _run(tmp_path, scenario(on_riser("samsung_970_evo_plus_1tb", 1, "single"), workload))
    cache_GB = EVO.write_cache_GB
    beyond = max(total_GB - cache_GB, 0)
    seconds = min(total_GB, cache_GB) / EVO.seq_write_MBps + beyond / EVO.post_cache_write_MBps
    assert r.throughput_MBps == pytest.approx(total_GB / seconds, rel=0.01)
    assert (r.throughput_MBps < 0.7 * EVO.seq_write_MBps) == (total_GB > cache_GB)


def test_a_sata_ssd_behind_an_hba_is_held_by_its_own_link(tmp_path):
    workload = {"op": "read", "io": "direct", "request_KiB": 1024, "streams": 2, "total_MB": 2000}
    r = _run(tmp_path, scenario(on_hba("samsung_870_evo_1tb", 1, "single"), workload))
    assert r.throughput_MBps == pytest.approx(560, rel=0.01)  # its 560 MB/s under a 6 Gb/s link


@pytest.mark.parametrize("rate_MBps", [580, 700])
def test_a_scenario_s_sequential_rates_replace_the_sheet_s_up_to_the_link(rate_MBps):
    """A flash drive's sequential rate a scenario gives replaces its sheet's (the 870 EVO's "up to
    560 MB/s" on a desktop's AHCI port), and the drive's SATA link still holds it: its frames'
    594 MB/s."""
    given = f"volumes.drive.disks.seq_read_MBps={rate_MBps}"
    r = simulate(loader.load("ext_870_evo", ["variant=atto_read", given]))
    link_MBps = framing.sustained_Bps(CAT.get("buses", "sata_6g", "", ""), 256, 1.0) / 1e6
    assert r.throughput_MBps == pytest.approx(min(rate_MBps, link_MBps), rel=0.001)


def test_a_rate_the_file_gives_closes_the_part_s_span(tmp_path):
    """The 870 EVO's catalog entry leaves its sequential read open from its sheet's 560 MB/s to
    its link's 594; a user who measured theirs at 550 and says so in the file states a fact: the
    point is 550 and the span no longer moves it (the file's value had been refused as 'the
    scenario's own value ... the documented default', naming the catalog's file)."""
    raw = yaml.safe_load((paths.SCENARIOS / "ext_870_evo.yaml").read_text(encoding="utf-8"))
    raw["volumes"]["drive"]["disks"]["seq_read_MBps"] = 550
    path = tmp_path / "measured_870.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    s = loader.load(str(path), ["variant=atto_read"])
    assert simulate(s).throughput_MBps == pytest.approx(550, rel=0.001)
    assert not any("seq_read_MBps" in u.key for u in s.unknowns)
    write_open = loader.load(str(path), ["variant=atto_write"])
    assert any(u.key.endswith("seq_write_MBps") for u in write_open.unknowns)
    # null is the schema's "unset": the part's figure, its span left open
    raw["volumes"]["drive"]["disks"]["seq_read_MBps"] = None
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    unset = loader.load(str(path), ["variant=atto_read"])
    assert any(u.key.endswith("seq_read_MBps") for u in unset.unknowns)


@pytest.mark.parametrize(
    "part_id, key, value, message",
    [
        (  # above the 870 EVO's 4 KiB random writes (360 MB/s), below its post-cache 520
            "samsung_870_evo_1tb",
            "seq_write_MBps",
            400,
            "volumes.v.disks.seq_write_MBps: at least the drive's post_cache_write_MBps",
        ),
        (  # below half what the 970 EVO Plus's 550,000 4 KiB random writes move: the scenario's key
            "samsung_970_evo_plus_1tb",
            "seq_write_MBps",
            1000,
            "volumes.v.disks.seq_write_MBps: at least half the 2,253 MB/s random_write_iops move",
        ),
        (
            "samsung_970_evo_plus_1tb",
            "command_overhead_ms",
            1000,
            "is a flash drive, whose figures a scenario may give here are seq_read_MBps and "
            "seq_write_MBps",
        ),
        (
            "quote_hdd",
            "seq_read_MBps",
            1000,
            "quote_hdd is a hard disk, whose figures a scenario may give here are "
            "command_overhead_ms",
        ),
    ],
)
def test_a_drive_s_own_figure_it_cannot_take_is_one_line_and_status_2(
    tmp_path, run_cli, part_id, key, value, message
):
    on = on_riser if part_id == "samsung_970_evo_plus_1tb" else on_hba
    volume = on(part_id, 1, "single")
    volume["disks"][key] = value
    path = write(tmp_path / "s.yaml", scenario(volume, _random_read(1)))
    status, out, err = run_cli("predict", path)
    assert status == 2 and not out and err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d["volumes"]["v"]["disks"].update(attach=["nvme.nowhere.0"]),
            "attach[0]: must be nvme.SEGMENT.N with one of slot, riser",
        ),
        (  # the point as the file gives it, nvme. and all
            lambda d: d["volumes"]["v"]["disks"].update(attach=["nvme.nowhere.0"]),
            "got 'nvme.nowhere.0'",
        ),
        (
            lambda d: d["volumes"]["v"]["disks"].update(attach=["nvme.riser.4"]),
            "slots 0 to 3; got 'nvme.riser.4'",
        ),
        (  # no controllers to attach to: said so, not an empty list
            lambda d: (d.pop("controllers"), d["volumes"]["v"]["disks"].update(attach=["b0.0"])),
            "or nvme.SEGMENT.N (this scenario declares none), got 'b0.0'",
        ),
        (  # a user's host part is named where the file names it
            lambda d: (
                d.setdefault("parts", {}).update(
                    hosts={"mine": {"like": "lenovo_sr665_v3", "nics": ["no_such_nic"]}}
                )
                or d.update(host="mine")
            ),
            "parts.hosts.mine.nics[0]: unknown nic 'no_such_nic'",
        ),
        (
            lambda d: d["volumes"]["v"]["disks"].update(attach=["hba.0"]),
            "an NVMe drive attaches as nvme.SEGMENT.N",
        ),
        (
            lambda d: d["volumes"]["v"]["disks"].update(part="quote_hdd"),
            "only an NVMe drive sits on a bus segment",
        ),
        (
            lambda d: d["volumes"]["v"]["disks"].update(part="no_such_ssd"),
            "unknown disk or ssd 'no_such_ssd'",
        ),
        (  # a SAS lane is no PCIe segment: it was accepted (1,159 MB/s, bound by the lane)
            lambda d: d["buses"].update(riser={"part": "sas_12g_lane"}),
            "an NVMe drive sits on a PCI Express segment's lanes; buses.riser is SAS 12 Gb/s",
        ),
        (
            lambda d: d["buses"].update(riser={"part": "ide_udma33"}),
            "an NVMe drive sits on a PCI Express segment's lanes; buses.riser is ATA Ultra DMA",
        ),
    ],
)
def test_a_flash_mistake_is_one_line_and_status_2(tmp_path, run_cli, change, message):
    data = scenario(on_riser("samsung_970_evo_plus_1tb", 1, "single"), _random_read(1))
    change(data)
    status, out, err = run_cli("predict", write(tmp_path / "s.yaml", data))
    assert status == 2 and not out and err.count("\n") == 1 and message in err, err


def test_an_nvme_drive_set_on_a_controller_s_channel_is_named_at_the_set(run_cli):
    """The storage audit's case: --set of an NVMe part on the template's HBA drives was blamed on
    the template's attach list; it is told at the --set, with what to do instead."""
    status, out, err = run_cli(
        "predict", "data/templates/storage_server.yaml", "--point",
        "--set", "volumes.data.disks.part=micron_7450_pro_15360",
    )  # fmt: skip
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("--set: volumes.data.disks.part: an NVMe drive attaches as"), err
    assert "put them on a PCIe segment" in err


@pytest.mark.parametrize("level, reads, writes", [("raid5", 2, 2), ("raid6", 3, 3)])
def test_a_parity_write_s_reads_cost_flash_a_read_s_time(level, reads, writes):
    """The second purchase audit's RAID5 of 12 PM1643 (400,000 read, 50,000 write IOPS) behind a
    RAID card: each 4 KiB write's two reads had been charged as writes, 150,000 writes a second
    where 12 / (2 / 400,000 + 2 / 50,000) = 266,667 hold (RAID6: 177,778, not 100,000)."""
    from model.storage import requests
    from model.storage.spec import DiskSet, Volume

    pm1643 = CAT.get("ssds", "samsung_pm1643_30tb", "", "")
    volume = Volume(level=level, engine="controller", chunk_KiB=256, disks=DiskSet("x", 12, ()))
    lay = requests.layout(volume, "write", 4096, 12)
    assert lay.at_once == (reads, writes)
    commands_per_s = requests.flash_write_Bps(pm1643, lay, 1e12) / lay.piece_B
    writes_per_s = 12 * commands_per_s / (reads + writes)
    assert writes_per_s == pytest.approx(12 / (reads / 400_000 + writes / 50_000), rel=1e-9)


def test_every_stream_starts_after_the_slowest_drive_s_first_access(tmp_path):
    """``StoragePath.first_access_s``: flash alone waits its read latency; a copy from flash to
    disks waits a disk's average seek and half a turn as well (8.5 ms and 4.17 ms at 7,200 rpm)."""
    import simpy

    from model import params
    from model.sim.flows import FlowNetwork
    from model.storage import flash, topology

    def path(data):
        s = loader.load(write(tmp_path / "s.yaml", data))
        net = FlowNetwork(simpy.Environment())
        return topology.build(net, s.body, s.catalog, params.calibrated(), s.path, 1e9)

    workload = {"request_KiB": 1024, "total_MB": 40}
    alone = scenario(on_riser("samsung_970_evo_plus_1tb", 1, "single"), {"op": "read", **workload})
    assert path(alone).first_access_s() == flash.latency_s(EVO, "read")
    copy = scenario(on_hba("quote_hdd", 2, "raid0"), {"op": "copy", "source": "f", **workload})
    copy["volumes"]["f"] = on_riser("samsung_970_evo_plus_1tb", 1, "single")
    assert path(copy).first_access_s() == pytest.approx(8.5e-3 + 0.5 * 60 / 7200, rel=1e-12)


# a request alone on a queue depth of one: each a flash drive behind a link slower than its own
SLOW_LINKS = [
    (
        "ext_arr_cm4_980",  # a 980's four PCIe 3.0 lanes trained to the CM4's one PCIe 2.0 lane
        ["workload.queue_depth=1", "workload.streams=1", "workload.request_KiB=32"],
    ),
    (
        "ext_970_evo_plus",  # its M.2 slot set to one PCIe 2.0 lane
        [
            "buses.m2.part=pcie2_x1",
            "workload.op=read",
            "workload.pattern=sequential",
            "workload.queue_depth=1",
            "workload.streams=1",
            "workload.total_MB=400",
            "workload.request_KiB=16",
        ],
    ),
    (
        "ext_870_evo",  # a SATA drive behind a chipset on one PCIe 2.0 lane
        ["buses.chipset.part=pcie2_x1", "workload.queue_depth=1", "workload.request_KiB=128"],
    ),
]


@pytest.mark.parametrize("name, overrides", SLOW_LINKS, ids=[s[0] for s in SLOW_LINKS])
def test_a_request_alone_crosses_a_slow_link_after_its_drive_answers(name, overrides):
    """A physics audit: at a queue depth of one a request waits for its drive's latency and then
    crosses the way to the host, where a link slower than the drive's own carries the whole of
    it. The CM4's 980 had read 32 KiB at 421 MB/s (12,849 a second), the lane's rate, with one
    request in flight; a 970 EVO Plus in a one-lane slot and an 870 EVO behind one as fast as in
    their own. No request now takes less than its latency, less its first 4 KiB over the drive's
    own link, and its bytes over the slowest link (``topology._flash_links``)."""
    loaded = loader.load(name, overrides)
    body = loaded.body
    volume = body.volumes[body.workload.target]
    part = (loaded.catalog or catalog.load()).get_one_of(("ssds",), volume.disks.part, "", "")
    slowest_Bps, own_Bps = _links(loaded)
    assert slowest_Bps < own_Bps  # the slow link the case is about
    request_B = body.workload.request_KiB * 1024
    least_s = (
        flash.latency_s(part, body.workload.op)
        - flash.LATENCY_PIECE_B / own_Bps
        + request_B / slowest_Bps
    )
    result = simulate(loaded)
    requests_per_s = result.throughput_MBps * 1e6 / request_B
    assert requests_per_s * least_s <= 1 + 1e-9, (requests_per_s, least_s)


def _links(loaded):
    """The slowest link and the drive's own of the scenario's target volume, B/s."""
    net = FlowNetwork(simpy.Environment())
    body = loaded.body
    parts = loaded.catalog or catalog.load()
    path = topology.build(net, body, parts, params.calibrated(), loaded.path, 1e6)
    return path.flash_links[body.workload.target]
