"""A storage scenario's top-level bus segments are of kinds its host has (``model.storage.slots``):
a PCI Express segment in a slot of no older generation and no fewer lanes, a PCI segment on a bus
as wide and as fast; moving a scenario to another host by ``--set host=`` no longer keeps segments
the host cannot have."""

import json

import pytest

from model import catalog
from model.storage.slots import fits

NVME = "data/templates/nvme_server.yaml"


def bus(name):
    return catalog.load().get("buses", name, "test", "bus")


@pytest.mark.parametrize(
    "segment, slot, held",
    [
        ("pcie2_x8", "pcie3_x16", True),  # an older, narrower card trains in the slot
        ("pcie4_x16", "pcie3_x16", False),  # a newer generation than the host has
        ("pcie3_x16", "pcie3_x8", False),  # more lanes than the slot
        ("pci_32_33", "pci_64_66", True),  # a 32-bit 33 MHz card in a 64-bit 66 MHz slot
        ("pcix_64_133", "pci_64_66", False),  # faster than the bus
        ("hub_link_1_5", "pci_64_66", False),  # a hub link is no PCI slot
        ("pcie3_x4", "pci_64_66", False),
    ],
)
def test_a_segment_fits_a_slot_of_its_kind_no_older_and_no_narrower(segment, slot, held):
    assert fits(bus(segment), bus(slot)) is held


@pytest.mark.parametrize("host", ["dell_r720", "ibm_intellistation_m_pro_6850"])
def test_pcie_4_segments_on_an_older_host_are_refused_in_one_line(run_cli, host):
    """The audit's case: the all-flash template moved to a PCIe 3.0 server, or a PCI-only one,
    was predicted at its PCIe 4.0 segments' 54,400 MB/s."""
    status, _, err = run_cli("predict", NVME, "--point", "--set", f"host={host}")
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "buses.bays0.part" in err and host in err and "pcie4_x16" in err


def test_segments_the_host_has_predict_at_the_older_generation(run_cli):
    status, out, err = run_cli(
        "predict",
        NVME,
        "--point",
        "--set",
        "host=dell_r720",
        "--set",
        "buses.bays0.part=pcie3_x16",
        "--set",
        "buses.bays1.part=pcie3_x16",
    )
    assert status == 0, err
    # two PCIe 3.0 x16 segments (15,754 MB/s each, less TLP framing) bind eight 6.8 GB/s drives
    throughput = float(out.split("throughput")[1].split("MB/s")[0].replace(",", ""))
    assert 2 * 13_000 < throughput < 2 * 15_754


def test_the_report_s_older_cards_in_newer_slots_still_run(run_cli):
    """em_ingest's PCIe 2.0 x8 HBAs in the R720's PCIe 3.0 slots fit."""
    status, _, err = run_cli("predict", "em_ingest", "--point")
    assert status == 0, err


def test_a_host_whose_slot_list_was_only_partly_read_takes_a_scenario_s_segments(run_cli):
    """The Penn State director's buses list only the PCI-X segments its scenarios use (its E7520
    board has PCI Express slots too, not read): a PCIe segment is taken as declared, not refused."""
    status, _, err = run_cli(
        "predict", "data/templates/storage_server.yaml", "--point", "--set", "host=psu_director"
    )
    assert status == 0, err


def test_a_host_whose_buses_are_not_described_says_its_segments_are_taken_as_declared(run_cli):
    """The fuzz audit's case: the all-flash template on a 2003 MDSplus server, whose catalog entry
    lists no buses, predicts its PCIe 4.0 segments' 54,400 MB/s: it says what it took on trust."""
    status, out, err = run_cli("predict", NVME, "--point", "--set", "host=ga_mdsplus_server")
    assert status == 0, err
    assert "ga_mdsplus_server: its catalog entry lists no buses, so the bus segment(s) bays0" in out
    status, out, _ = run_cli("predict", NVME, "--point")
    assert "lists no buses" not in out


def test_a_host_whose_slot_list_was_read_in_part_says_so(run_cli):
    """The quick audit's case: the all-flash template on the Penn State director (its buses listed
    only in part) predicted 54,400 MB/s without a word."""
    status, out, err = run_cli("predict", NVME, "--point", "--set", "host=psu_director")
    assert status == 0, err
    assert "psu_director: its catalog entry lists its buses only in part" in out
    assert "segment(s) bays0, bays1 are taken as declared" in out
    status, out, _ = run_cli("predict", "psu_copy", "--point")  # its segments are the listed ones
    assert "taken as declared" not in out


@pytest.mark.parametrize(
    "name, overrides, message",
    [
        # the audit's case: a PCIe 4.0 HBA in a 64-bit 66 MHz PCI segment (on a host whose slot
        # list was read only in part) predicted at the PCI rate
        (
            "purchase_hdd_md",
            ["host=psu_director", "buses.slot1.part=pci_64_66"],
            "--set: buses.slot1.part: broadcom_9500_8i's host interface is PCIe 4.0 x8 and its "
            "segment slot1 is PCI 64-bit, 66 MHz (pci_64_66): a PCI Express card does not fit a "
            "PCI, PCI-X or hub-link slot; allowed: a PCI Express segment",
        ),
        (
            "atlas_intellistation",
            ["controllers.promise1.part=broadcom_9400_8i"],
            "--set: controllers.promise1.part: broadcom_9400_8i's host interface is PCIe 3.0 x8",
        ),
        (
            "ext_arr_zfs_860_mirrors",
            ["controllers.hba0.part=threeware_7850"],
            "--set: controllers.hba0.part: threeware_7850's host interface is PCI 64-bit, 33 MHz "
            "and its segment slot0 is PCIe 3.0 x8 (pcie3_x8): a PCI, PCI-X or hub-link card does "
            "not fit a PCI Express slot",
        ),
        # the IOP332 bridges to PCI-X, not to the chipset's hub link
        (
            "psu_write",
            ["controllers.iop332.bus=hub"],
            "--set: controllers.iop332.bus: intel_iop332_raid's host interface is PCIe 1.0 x8",
        ),
        # the ICH5R's own SATA controller sits on its hub link, not on a PCI-X bus (it ran there,
        # the bus 100 % busy, the second storage fuzz)
        (
            "psu_copy",
            ["controllers.sata.bus=pcix"],
            "--set: controllers.sata.bus: intel_ich5r_sata's host interface is Intel hub interface"
            " 1.5 (MCH to ICH2 ... ICH5R) and its segment pcix is PCI-X 64-bit, 133 MHz "
            "(pcix_64_133): an I/O hub's own controller does not fit a PCI or PCI-X bus",
        ),
    ],
)
def test_a_card_whose_host_bus_does_not_fit_its_segment_is_refused(
    run_cli, name, overrides, message
):
    args = [a for o in overrides for a in ("--set", o)]
    status, out, err = run_cli("predict", name, "--point", *args)
    assert status == 2 and not out and err.count("\n") == 1, err
    assert err.startswith(message), err


@pytest.mark.parametrize(
    "name, override",
    [
        # a 64-bit 33 MHz PCI card in a 32-bit 33 MHz segment
        ("atlas_x330", "controllers.extra={part: threeware_7850, bus: southbridge}"),
        # a PCI card in a PCI-X segment, as measured, and in a PCI one
        ("atlas_cern_receive", "workload.op=write"),
        ("atlas_cern_receive", "buses.pcix_a.part=pci_64_66"),
        # the IOP332 on the PCI-X segment below its bridge (its host side PCI Express)
        ("psu_write", "workload.total_MB=1000"),
    ],
)
def test_cards_the_standards_let_into_a_segment_still_run(run_cli, name, override):
    status, out, err = run_cli("predict", name, "--point", "--set", override)
    assert status == 0 and "MB/s" in out, err


def test_a_bridged_bus_must_be_a_pci_or_pci_x_bus(run_cli, tmp_path):
    parts = tmp_path / "parts.yaml"
    parts.write_text(
        "controllers:\n  my_iop:\n    like: intel_iop332_raid\n    bridged_bus: pcie3_x8\n"
        '    sources: {bridged_bus: "estimated: a test"}\n'
    )
    status, out, err = run_cli("predict", "psu_write", "--point", "--catalog", str(parts))
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "controllers.my_iop.bridged_bus: must name a PCI or PCI-X bus" in err


def test_more_pci_express_lanes_than_the_processors_provide_are_refused_in_one_line(run_cli):
    """purchase_nvme's one EPYC 9354 has 128 lanes: its NIC card's 8 and seven x16 segments of NVMe
    bays (120) predict; an eighth (136) is one line naming every segment and card and the lanes
    (the planner's forty x4 drives and a x16 NIC, 176 lanes on two sockets of 160, were taken)."""
    risers = [a for n in range(2, 7) for a in ("--set", f"buses.riser{n}={{part: pcie5_x16}}")]
    status, out, err = run_cli("predict", "purchase_nvme", "--point", *risers)
    assert status == 0, err
    status, out, err = run_cli(
        "predict", "purchase_nvme", "--point", *risers, "--set", "buses.riser7={part: pcie5_x16}"
    )
    assert status == 2 and not out and err.count("\n") == 1
    # named where the last of the segments counted (or the host) was changed: the eighth's --set
    assert err.startswith("--set: buses.riser7: the PCI Express segments and NIC cards take 136 ")
    assert "lanes (buses.riser0 16, buses.riser1 16, buses.riser2 16," in err
    assert "1 x mellanox_cx4_lx_25g 8), more than the 128 the host epyc_storage_server's" in err
    status, out, err = run_cli(
        "predict",
        "purchase_nvme",
        "--point",
        *risers,
        "--set",
        "buses.riser7={part: pcie5_x16}",
        "--set",
        "host=epyc_storage_server",
    )
    assert status == 2 and err.startswith("--set: host: the PCI Express segments"), err


HBA_READ = (
    "--set", "clients=null", "--set", "workload.io=direct", "--set", "workload.queue_depth=32",
    "--set", "workload.request_KiB=1024", "--set", "workload.streams=8",
    "--set", "workload.op=read", "--set", "volumes.data.groups=1", "--set", "volumes.data.lvm=none",
    "--set", "volumes.data.lvm_stripes=null", "--set", "volumes.data.level=raid0",
    "--set", "volumes.data.disks.part=samsung_pm1643_30tb", "--set", "shelves.jbod=null",
    "--set", "volumes.data.disks.count=16",
    "--set", "volumes.data.disks.attach=["
    + ", ".join(f"{card}.{port}" for card in ("hba", "hba2") for port in range(8)) + "]",
)  # fmt: skip


def test_two_cards_in_one_pci_express_segment_are_refused(run_cli):
    """A planner's audit: a second HBA declared in the first's x8 segment shared its link (14,403
    MB/s, the segment the bottleneck) where a PCI Express link holds one card; in a segment of
    its own it predicts its sixteen SAS-3 lanes."""
    second = ("--set", "controllers.hba2={part: broadcom_9500_8i, bus: slot1}")
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", *HBA_READ, *second)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert "controllers.hba2.bus: controllers.hba and controllers.hba2 are both cards in " in err
    assert "buses.slot1, a PCI Express segment (pcie4_x8): a PCI Express link holds one" in err
    own = ("--set", "buses.slot2={part: pcie4_x8}")
    own += ("--set", "controllers.hba2={part: broadcom_9500_8i, bus: slot2}")
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", "--json", *HBA_READ, *own)
    assert status == 0, err
    assert json.loads(out)["throughput_MBps"] > 2 * 7202 * 1.2
