"""The current parts of issue #21 in the catalog: they load, every value has its source, the new
kinds refuse a malformed part in one line, and the datasheet figures agree with the buses and the
arithmetic they imply (PCIe peaks, drives within their links, Little's law for IOPS). The later
parts (24 TB Exos X24 disks, PCIe 4.0 U.2/U.3 drives, a 2U EPYC 9004 host) are also run through a
prediction: each streams at its sheet's rate, four U.2 drives on a PCIe 4.0 x16 segment are held
by the drives and the same four on PCIe 3.0 by the segment."""

import dataclasses
import json
import shutil

import pytest
import yaml

from model import catalog, paths
from model import scenario as loader
from model.errors import UserError
from model.parts import Cpu, Enclosure, Expander, Ssd
from model.schema import build_dataclass
from model.simulate import simulate
from model.storage import disk as disk_model
from model.storage import framing, requests

NEW_PARTS = {
    "ssds": [
        "samsung_970_evo_plus_1tb",
        "samsung_980_pro_1tb",
        "micron_9550_max_6400",
        "samsung_870_evo_1tb",
        "samsung_pm1643_30tb",
        "samsung_pm9a3_7680",
        "micron_7450_pro_15360",
    ],
    "expanders": ["adaptec_aec_82885t", "broadcom_sas3x48"],
    "enclosures": ["wd_ultrastar_data60", "wd_ultrastar_data102"],
    "cpus": ["amd_epyc_9354", "intel_xeon_gold_6430"],
    "disks": [
        "exos_x18_st18000nm004j",
        "exos_x18_st18000nm000j",
        "exos_x24_st24000nm007h",
        "exos_x24_st24000nm002h",
    ],
    "hosts": ["lenovo_sr665_v3"],
    "controllers": ["broadcom_9400_8i", "broadcom_9500_8i", "megaraid_9460_8i", "megaraid_9560_8i"],
    "nics": [
        "intel_x710_da2",
        "intel_xl710_qda2",
        "mellanox_cx4_lx_25g",
        "mellanox_cx5_100g",
        "mellanox_cx6_100g",
    ],
    "links": ["lan_25gbe", "lan_40gbe", "lan_100gbe"],
    "buses": [
        "pcie3_x4",
        "pcie4_x4",
        "pcie4_x8",
        "pcie4_x16",
        "pcie5_x4",
        "pcie5_x8",
        "pcie5_x16",
        "sata_6g",
        "sas_12g_x2",
        "sas_12g_x4",
    ],
}

CAT = catalog.load()
BUSES = CAT.parts["buses"]


def _new(category):
    return [(pid, CAT.parts[category][pid]) for pid in NEW_PARTS[category]]


def _all_new():
    return [(c, pid, part) for c in NEW_PARTS for pid, part in _new(c)]


def _numeric(part):
    return {
        k: v
        for k, v in vars(part).items()
        if isinstance(v, (int, float)) and not isinstance(v, bool)
    }


@pytest.mark.parametrize("category", sorted(NEW_PARTS))
def test_the_catalog_holds_the_current_parts(category):
    assert set(NEW_PARTS[category]) <= set(CAT.parts[category])


@pytest.mark.parametrize(
    ("category", "pid", "part"), _all_new(), ids=[f"{c}.{p}" for c, p, _ in _all_new()]
)
def test_every_new_value_names_a_public_source_or_says_why_it_is_estimated(category, pid, part):
    numeric = _numeric(part)
    assert numeric, f"{pid} has no numeric value"
    for key in numeric:
        text = part.sources.get(key, "")
        if key not in part.sources:
            # only a value left at its dataclass default may go without a source
            field = next(f for f in dataclasses.fields(part) if f.name == key)
            assert numeric[key] == field.default, f"{category}.{pid}.{key} has no source"
            continue
        estimated = text.startswith("estimated: ") and len(text) > 40
        cited = "http" in text or any(
            std in text for std in ("ANSI INCITS", "IEEE 802.3", "PCI Express Base", "Serial ATA")
        )
        assert estimated or cited, f"{category}.{pid}.{key}: {text!r}"


# --- the new kinds refuse a malformed part, in one line ------------------------------------------

SSD = {
    "name": "test drive",
    "interface": "nvme",
    "host_bus": "pcie4_x4",
    "capacity_GB": 1000,
    "seq_read_MBps": 7000,
    "seq_write_MBps": 5000,
    "random_read_iops": 1e6,
    "random_write_iops": 1e6,
    "iops_queue_depth": 64,
    "read_latency_us": 45,
    "write_latency_us": 16.7,
    "write_cache_GB": 100,
    "post_cache_write_MBps": 1500,
}
SSD["sources"] = {k: "test sheet" for k, v in SSD.items() if isinstance(v, (int, float))}

CPU = {
    "name": "test cpu",
    "cores": 32,
    "base_clock_GHz": 2.0,
    "boost_clock_GHz": 3.0,
    "memory_channels": 8,
    "memory_type": "DDR5",
    "memory_MTps": 4800,
    "copy_rate_MBps": 10000,
}
CPU["sources"] = {k: "test sheet" for k, v in CPU.items() if isinstance(v, (int, float))}

EXPANDER = {
    "name": "test expander",
    "chip": "x",
    "phys": 36,
    "lane_bus": "sas_12g_lane",
    "uplink_ports": 2,
    "lanes_per_uplink": 4,
    "sources": {"phys": "s", "uplink_ports": "s", "lanes_per_uplink": "s"},
}

ENCLOSURE = {
    "name": "test jbod",
    "bays": 60,
    "io_modules": 2,
    "host_ports": 6,
    "lanes_per_host_port": 4,
    "host_lane_bus": "sas_12g_lane",
    "drive_lane_bus": "sas_12g_lane",
    "secondary_expanders": 2,
    "secondary_link_lanes": 10,
}
ENCLOSURE["sources"] = {k: "s" for k, v in ENCLOSURE.items() if isinstance(v, int)}


BASE = {Ssd: SSD, Cpu: CPU, Expander: EXPANDER, Enclosure: ENCLOSURE}


def _refused(cls, spec):
    with pytest.raises(UserError) as err:
        build_dataclass(cls, spec, "data/hardware/test.yaml", "part")
    line = str(err.value)
    assert "\n" not in line and line.startswith("data/hardware/test.yaml: part")
    return line


def test_the_well_formed_test_parts_are_accepted():
    assert build_dataclass(Ssd, SSD, "t", "p").sustained_write_MBps == 1500
    assert build_dataclass(Cpu, CPU, "t", "p").peak_memory_MBps == 8 * 4800 * 8
    assert build_dataclass(Expander, EXPANDER, "t", "p").drive_phys == 28
    assert build_dataclass(Enclosure, ENCLOSURE, "t", "p").internal_lanes == 20


@pytest.mark.parametrize(
    ("cls", "spec", "key"),
    [
        (Ssd, SSD, "read_latency_us"),
        (Ssd, SSD, "write_latency_us"),
        (Ssd, SSD, "write_cache_GB"),
        (Cpu, CPU, "copy_rate_MBps"),
        (Expander, EXPANDER, "phys"),
        (Enclosure, ENCLOSURE, "bays"),
    ],
)
def test_a_value_without_a_source_is_refused(cls, spec, key):
    sources = {k: v for k, v in spec["sources"].items() if k != key}
    line = _refused(cls, spec | {"sources": sources})
    assert f"no source for {key}" in line


@pytest.mark.parametrize(
    ("cls", "change", "words"),
    [
        (Ssd, {"post_cache_write_MBps": None}, "needs post_cache_write_MBps"),
        (Ssd, {"post_cache_write_MBps": 6000}, "must not exceed seq_write_MBps"),
        (Ssd, {"write_cache_GB": 0}, "only a drive with write_cache_GB > 0"),
        (Ssd, {"interface": "pcie"}, "must be one of 'sata', 'sas', 'nvme'"),
        (Ssd, {"write_cache_GB": -1}, "zero or a positive number"),
        (Ssd, {"write_latency_us": None}, "write_latency_us: missing; it must be a positive"),
        (Ssd, {"write_latency_us": 0}, "microseconds, one 4 KiB random write at queue depth 1"),
        (Cpu, {"boost_clock_GHz": 1.5}, "must not be below base_clock_GHz"),
        (Cpu, {"copy_rate_MBps": 200000}, "cannot exceed half of the peak memory bandwidth"),
        (Cpu, {"memory_type": "DDR6"}, "must be one of"),
        (Expander, {"uplink_ports": 9}, "leave none of the 36 phys"),
        (Enclosure, {"secondary_link_lanes": None}, "go together"),
    ],
)
def test_an_inconsistent_part_is_refused(cls, change, words):
    spec = {k: v for k, v in (BASE[cls] | change).items() if v is not None}
    assert words in _refused(cls, spec)


@pytest.fixture
def hardware_copy(tmp_path, monkeypatch):
    """A copy of data/hardware the test may break; the cached catalog is restored afterwards, and
    the catalogs its loads keep go to a folder of the test's own."""
    (tmp_path / "hardware").mkdir()
    for f in paths.HARDWARE.glob("*.yaml"):
        shutil.copy(f, tmp_path / "hardware" / f.name)
    monkeypatch.setattr(paths, "HARDWARE", tmp_path / "hardware")
    monkeypatch.setattr(catalog, "_KEPT_IN", tmp_path / "kept")
    catalog.load.cache_clear()
    yield tmp_path / "hardware"
    catalog.load.cache_clear()


def test_a_kept_catalog_is_the_one_its_files_build(hardware_copy):
    """A process takes back the catalog an earlier one checked (a sweep point's kernel reads it
    instead of the files) while the files are the same, and no longer once one changes."""
    first = catalog.load()
    kept = list((hardware_copy.parent / "kept").glob("catalog-*.pickle"))
    assert len(kept) == 1
    catalog.load.cache_clear()  # as a new process
    again = catalog.load()
    assert again is not first and again == first
    assert [p.declared_in for p in again.parts["disks"].values()] == [
        p.declared_in for p in first.parts["disks"].values()
    ]
    ssds = hardware_copy / "ssds.yaml"
    ssds.write_text(ssds.read_text().replace("  host_bus: pcie3_x4\n", "  host_bus: sata_6g\n", 1))
    catalog.load.cache_clear()
    with pytest.raises(UserError, match="must name PCI Express 3.0 or later"):
        catalog.load()  # the changed file is read and checked, not the kept catalog returned


def test_an_nvme_drive_on_a_sata_link_is_refused(hardware_copy):
    ssds = hardware_copy / "ssds.yaml"
    text = ssds.read_text()
    ssds.write_text(text.replace("  host_bus: pcie3_x4\n", "  host_bus: sata_6g\n", 1))
    with pytest.raises(UserError) as err:
        catalog.load()
    assert "samsung_970_evo_plus_1tb.host_bus: must name PCI Express 3.0 or later" in str(err.value)


def test_an_enclosure_on_an_unknown_bus_is_refused(hardware_copy):
    jbods = hardware_copy / "enclosures.yaml"
    jbods.write_text(
        jbods.read_text().replace("host_lane_bus: sas_12g_lane", "host_lane_bus: sas5")
    )
    with pytest.raises(UserError) as err:
        catalog.load()
    assert "wd_ultrastar_data60.host_lane_bus: unknown bus 'sas5'" in str(err.value)


# --- analytic checks the figures must pass ---------------------------------------------------


@pytest.mark.parametrize(
    ("bus", "peak_MBps"),
    [("pcie3_x4", 3938), ("pcie4_x8", 15754), ("pcie4_x16", 31508), ("pcie5_x16", 63015)],
)
def test_pcie_peaks_follow_from_lanes_rate_and_128b130b(bus, peak_MBps):
    assert BUSES[bus].peak_MBps == pytest.approx(peak_MBps, abs=1)


def test_a_pcie4_x16_slot_peaks_at_about_31_5_GBps_and_pcie5_doubles_it():
    assert BUSES["pcie4_x16"].peak_MBps / 1e3 == pytest.approx(31.5, abs=0.05)
    assert BUSES["pcie5_x16"].peak_MBps == pytest.approx(2 * BUSES["pcie4_x16"].peak_MBps)


@pytest.mark.parametrize(("pid", "ssd"), _new("ssds"))
def test_a_drive_does_not_outrun_its_own_link(pid, ssd):
    link = BUSES[ssd.host_bus].peak_MBps
    assert ssd.seq_read_MBps <= link
    assert ssd.seq_write_MBps <= link
    assert ssd.random_read_iops * 4096 / 1e6 <= link  # 4 KiB reads in MB/s


def test_a_sata_drive_s_sheet_rates_are_a_span_up_to_its_link_s_payload():
    """A SATA drive's "up to" sequential figures are its maker's own measurements, which reviews
    of the drive exceed (561 MB/s read by ATTO on a sheet of 560): each is declared open from the
    sheet's figure to what its link's frames carry (594 MB/s on SATA 6 Gb/s), so that no
    measurement lies past the path's capacity for a figure rounded on a sheet."""
    sata = {pid: ssd for pid, ssd in CAT.parts["ssds"].items() if ssd.interface == "sata"}
    assert sata
    for pid, ssd in sata.items():
        link_MBps = framing.sustained_Bps(BUSES[ssd.host_bus], 256, 1.0) / 1e6
        for key in ("seq_read_MBps", "seq_write_MBps"):
            low, high = ssd.unknowns[key]["range"]
            assert low == getattr(ssd, key), (pid, key)
            assert high == int(link_MBps), (pid, key)


def test_nvme_drives_sit_on_pcie_and_each_generation_roughly_doubles_the_read():
    nvme = {pid: s for pid, s in _new("ssds") if s.interface == "nvme"}
    assert all(BUSES[s.host_bus].encoding == "128b130b" for s in nvme.values())
    gen3, gen4, gen5 = (
        nvme["samsung_970_evo_plus_1tb"],
        nvme["samsung_980_pro_1tb"],
        nvme["micron_9550_max_6400"],
    )
    assert 1.7 < gen4.seq_read_MBps / gen3.seq_read_MBps < 2.3
    assert 1.7 < gen5.seq_read_MBps / gen4.seq_read_MBps < 2.3


@pytest.mark.parametrize(("pid", "ssd"), _new("ssds"))
def test_one_stream_at_depth_one_is_far_below_the_datasheet_iops(pid, ssd):
    assert ssd.qd1_read_iops < 0.2 * ssd.random_read_iops
    # Little's law: the rated IOPS need at least IOPS x latency commands in flight
    assert ssd.random_read_iops <= ssd.iops_queue_depth * ssd.qd1_read_iops


@pytest.mark.parametrize(("pid", "ssd"), _new("ssds"))
def test_sustained_writes_never_beat_the_cached_rate(pid, ssd):
    assert ssd.sustained_write_MBps <= ssd.seq_write_MBps
    if ssd.write_cache_GB > 0:
        assert ssd.sustained_write_MBps < ssd.seq_write_MBps


@pytest.mark.parametrize(("pid", "disk"), _new("disks"))
def test_a_near_line_disk_is_16_TB_or_more_and_within_its_interface(pid, disk):
    assert disk.capacity_GB >= 16000
    assert disk.media_rate_inner_MBps < disk.media_rate_outer_MBps <= disk.interface_rate_MBps
    assert disk.track_to_track_ms < disk.avg_seek_read_ms < disk.full_stroke_ms


def test_a_pcie3_hba_is_held_by_its_slot_and_a_pcie4_one_by_its_phys():
    ctrls = CAT.parts["controllers"]
    for pid, host_limited in [("broadcom_9400_8i", True), ("broadcom_9500_8i", False)]:
        c = ctrls[pid]
        phys_MBps = c.channels * BUSES[c.channel_bus].peak_MBps
        assert (BUSES[c.host_bus].peak_MBps < phys_MBps) is host_limited


@pytest.mark.parametrize(("pid", "nic"), _new("nics"))
def test_a_nic_port_fits_its_pcie_link(pid, nic):
    assert nic.rate_Gbps * 1e3 / 8 < BUSES[nic.host_bus].peak_MBps


def test_the_data60_drives_share_fewer_internal_lanes_than_its_host_ports():
    jbod = CAT.parts["enclosures"]["wd_ultrastar_data60"]
    lane = BUSES[jbod.host_lane_bus].peak_MBps
    assert jbod.host_lanes * lane == pytest.approx(28800)
    assert jbod.internal_lanes * lane == pytest.approx(24000)
    primary = CAT.parts["expanders"]["broadcom_sas3x48"]
    # six x4 host ports, x3 to the other module, x10 to each secondary: within the 48 phys
    assert jbod.host_lanes + 3 + jbod.internal_lanes <= primary.phys == jbod.primary_expander_phys


def test_cpu_peak_memory_bandwidth_and_per_byte_copy_cost():
    epyc, xeon = (CAT.parts["cpus"][p] for p in NEW_PARTS["cpus"])
    assert epyc.peak_memory_MBps == pytest.approx(460800)  # 12 x 4800 x 8
    assert xeon.peak_memory_MBps == pytest.approx(281600)  # 8 x 4400 x 8
    for cpu in (epyc, xeon):
        assert cpu.copy_ns_per_B == pytest.approx(1e3 / cpu.copy_rate_MBps)
        # one core copies far less than the socket's channels carry
        assert cpu.copy_rate_MBps < 0.1 * cpu.peak_memory_MBps
        assert cpu.memory_ns_per_B < cpu.copy_ns_per_B


# --- the later parts in a prediction: 24 TB disks, PCIe 4.0 U.2/U.3 drives, a 2U EPYC host -------

HOST = "lenovo_sr665_v3"
XFS = {"type": "xfs"}  # extents: no block map rides with the data
STREAM = {"op": "read", "io": "direct", "request_KiB": 1024, "streams": 16, "total_MB": 4000}


def _storage(volume: dict, workload: dict, buses: dict, controllers: dict | None = None) -> dict:
    """A storage scenario on the catalog's SR665 V3: one volume ``v``, the given bus segments."""
    return {
        "name": "current_parts",
        "model": "storage",
        "description": "a current part on the catalog's 2U EPYC 9004 host",
        "source": "a planner's proposal",
        "host": HOST,
        "buses": buses,
        "controllers": controllers or {},
        "volumes": {"v": volume},
        "workload": {"target": "v", **workload},
    }


def _on_riser(part: str, count: int, segment: str) -> dict:
    """``count`` NVMe drives in RAID0 on one segment's lanes (a riser or a backplane's x16)."""
    volume = {
        "level": "raid0" if count > 1 else "single",
        "disks": {
            "part": part,
            "count": count,
            "attach": [f"nvme.riser.{i}" for i in range(count)],
        },
        "filesystem": XFS,
    }
    return _storage(volume, STREAM, {"riser": {"part": segment}})


def _run(tmp_path, data: dict):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return simulate(loader.load(str(path)))


def test_the_sr665_v3_carries_its_cpu_entry_s_figures():
    host = CAT.parts["hosts"][HOST]
    cpu = CAT.parts["cpus"]["amd_epyc_9354"]
    assert host.cores == 2 * cpu.cores == 64
    assert (host.clock_GHz, host.threads_per_core) == (cpu.base_clock_GHz, cpu.threads_per_core)
    assert host.copy_rate_MBps == cpu.copy_rate_MBps
    assert host.memory_bandwidth_MBps == pytest.approx(host.cpus * cpu.peak_memory_MBps)
    assert host.memory_MB == pytest.approx(24 * 32 * 2**30 / 1e6)  # 24 x 32 GiB RDIMMs
    # eight slots, all PCIe 5.0; one x16 slot carries four PCIe 4.0 x4 drives' links
    slots = {slot.bus: slot.count for slot in host.buses}
    assert slots == {"pcie5_x16": 4, "pcie5_x8": 4}
    assert BUSES["pcie5_x16"].peak_MBps > 4 * BUSES["pcie4_x4"].peak_MBps


@pytest.mark.parametrize("pid", ["exos_x24_st24000nm007h", "exos_x24_st24000nm002h"])
def test_one_24_tb_disk_streams_at_its_outer_zone_rate(tmp_path, pid):
    disk = CAT.parts["disks"][pid]
    volume = {
        "level": "single",
        "disks": {"part": pid, "count": 1, "attach": ["hba.0"]},
        "filesystem": XFS,
    }
    workload = {"op": "read", "io": "direct", "request_KiB": 1024, "total_MB": 4000}
    r = _run(
        tmp_path,
        _storage(
            volume,
            workload,
            {"slot": {"part": "pcie5_x8"}},
            {"hba": {"part": "broadcom_9500_8i", "bus": "slot"}},
        ),
    )
    # 4 GB at the start of a 24 TB drive is read at the outer zone: the sheet's 285 MB/s, within
    # the 12 Gb/s SAS or 6 Gb/s SATA link and far within the HBA
    assert r.bottleneck.startswith("disk v")
    assert 0.99 * disk.media_rate_outer_MBps < r.throughput_MBps <= r.bound_MBps
    assert r.bound_MBps <= disk.media_rate_outer_MBps < disk.interface_rate_MBps


def test_the_x24_sata_reproduces_its_own_queue_depth_16_random_reads():
    # DS2080: 4K random read at QD16 over the whole drive, 168 IOPS; the catalog's 1.5 ms is the
    # rest of 1/168 s after the entry's seek curve, rotation and reordering among 16
    disk = CAT.parts["disks"]["exos_x24_st24000nm002h"]
    rate_Bps = disk_model.mean_rate_MBps(disk, 1.0, 0.0, 1.0) * 1e6
    iops = requests.drive_Bps(disk, "read", 4096, rate_Bps, 1.0, 16) / 4096
    assert iops == pytest.approx(168, rel=0.02)
    # a whole-drive random read is mechanical: the 512 MB cache holds 0.002 % of it
    assert disk.cache_MB * 1e6 / (disk.capacity_GB * 1e9) < 1e-4


@pytest.mark.parametrize("pid", ["samsung_pm9a3_7680", "micron_7450_pro_15360"])
def test_four_u2_drives_on_a_pcie4_x16_segment_are_drive_bound(tmp_path, pid):
    ssd = CAT.parts["ssds"][pid]
    r = _run(tmp_path, _on_riser(pid, 4, "pcie4_x16"))
    segment = BUSES["pcie4_x16"]
    cap_MBps = segment.peak_MBps * framing.payload_share(segment, 256)  # 256 B packets
    assert 4 * ssd.seq_read_MBps < cap_MBps
    assert r.bottleneck.startswith("disk v")
    assert r.throughput_MBps == pytest.approx(4 * ssd.seq_read_MBps, rel=0.01)
    assert r.throughput_MBps <= r.bound_MBps <= 4 * ssd.seq_read_MBps * (1 + 1e-9)


@pytest.mark.parametrize("pid", ["samsung_pm9a3_7680", "micron_7450_pro_15360"])
def test_the_same_four_behind_a_pcie3_x16_segment_are_held_by_its_lanes(tmp_path, pid):
    ssd = CAT.parts["ssds"][pid]
    r = _run(tmp_path, _on_riser(pid, 4, "pcie3_x16"))
    segment = BUSES["pcie3_x16"]
    cap_MBps = segment.peak_MBps * framing.payload_share(segment, 256)
    assert r.bottleneck == "bus riser"
    assert r.bound_MBps == pytest.approx(cap_MBps, rel=1e-9)
    assert 0.99 * cap_MBps < r.throughput_MBps < 4 * ssd.seq_read_MBps


def test_one_7450_at_queue_depth_1_reads_at_its_typical_latency(tmp_path):
    pid = "micron_7450_pro_15360"
    ssd = CAT.parts["ssds"][pid]
    workload = {
        "op": "read",
        "io": "direct",
        "pattern": "random",
        "request_KiB": 4,
        "queue_depth": 1,
        "total_MB": 40,
    }
    volume = {
        "level": "single",
        "disks": {"part": pid, "count": 1, "attach": ["nvme.riser.0"]},
        "filesystem": XFS,
    }
    r = _run(tmp_path, _storage(volume, workload, {"riser": {"part": "pcie4_x16"}}))
    iops = r.throughput_MBps * 1e6 / 4096
    # 1e6 / 80 us = 12,500 a second; the host's syscall and block layer come on top
    assert 0.95 * ssd.qd1_read_iops < iops < ssd.qd1_read_iops


def test_the_cli_predicts_a_scenario_of_the_new_parts(tmp_path, run_cli):
    path = tmp_path / "u2.yaml"
    path.write_text(
        yaml.safe_dump(_on_riser("samsung_pm9a3_7680", 4, "pcie4_x16"), sort_keys=False)
    )
    status, out, err = run_cli("predict", str(path), "--json", "--point")
    assert status == 0, err
    result = json.loads(out)
    assert result["throughput_MBps"] == pytest.approx(4 * 6500, rel=0.01)
    assert result["bottleneck"].startswith("disk v")


def test_a_24g_sas_drive_and_shelf_are_described_and_a_sata_drive_on_its_lane_is_refused():
    """The storage audit's case: a 24G SAS SSD (128b/150b, SAS-4's packet mode) was refused as
    'must name an 8b/10b serial link'. Its lane carries 22.5 Gbaud x 128/150 = 2,400 MB/s, 2,318
    after SSP's 1,024-byte frames; a SATA drive still needs 8b/10b."""
    from model import user_parts
    from model.storage.framing import sustained_Bps

    lane = catalog.load().get("buses", "sas_24g_lane", "", "")
    assert lane.peak_MBps == pytest.approx(2400)
    assert sustained_Bps(lane, 256, 1.0) / 1e6 == pytest.approx(2400 * 1024 / 1060)
    sources = {"sources": {"host_bus": "a test"}}
    sas = {"like": "samsung_pm1643_30tb", "host_bus": "sas_24g_lane", **sources}
    shelf = {"like": "wd_ultrastar_data60", "host_lane_bus": "sas_24g_lane"}
    parts = user_parts.with_parts(
        catalog.load(), {"ssds": {"sas24": sas}, "enclosures": {"shelf24": shelf}}, "quote.yaml"
    )
    assert parts.get("ssds", "sas24", "", "").host_bus == "sas_24g_lane"
    sata = {"like": "samsung_870_evo_1tb", "host_bus": "sas_24g_lane", **sources}
    with pytest.raises(UserError, match=r"sata24.host_bus: must name an 8b/10b serial link"):
        user_parts.with_parts(catalog.load(), {"ssds": {"sata24": sata}}, "quote.yaml")
