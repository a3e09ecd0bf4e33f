"""A PCI Express link trains to the highest generation both ends support and to the fewer lanes
(``parts.pcie_trained``): a newer card or drive in an older or narrower slot runs at what the
two share, and a link the slot alone sets is named as the slot's."""

import pytest

from model import catalog, scenario
from model.parts import pcie_trained
from model.simulate import simulate
from model.storage import framing

TEMPLATE = "data/templates/storage_server.yaml"
NVME_READ = [
    "workload.queue_depth=32",
    "workload.pattern=sequential",
    "workload.request_KiB=1024",
    "workload.op=read",
]


def bus(name):
    return catalog.load().get("buses", name, "test", "bus")


def link(b):
    return b.lanes, b.lane_rate_Gbps, b.encoding


def test_a_link_takes_the_older_generation_and_the_fewer_lanes():
    assert link(pcie_trained(bus("pcie4_x8"), bus("pcie3_x16"))) == link(bus("pcie3_x8"))
    assert link(pcie_trained(bus("pcie4_x4"), bus("pcie5_x16"))) == link(bus("pcie4_x4"))
    assert link(pcie_trained(bus("pcie3_x8"), bus("pcie5_x4"))) == link(bus("pcie3_x4"))
    # the slot's own link where it is no faster and no wider: the same part
    assert pcie_trained(bus("pcie5_x16"), bus("pcie3_x4")) == bus("pcie3_x4")
    # what is not two PCI Express ends keeps the device's own bus
    assert pcie_trained(bus("pci_64_66"), bus("pci_32_33")) == bus("pci_64_66")


def nvme_read(drive, slot):
    loaded = scenario.load(
        "ext_970_evo_plus",
        # on a server whose PCIe 5.0 slots hold every segment tried (the review's desktop has
        # one PCIe 3.0 x4 M.2 slot: model.storage.slots)
        [
            *NVME_READ,
            "host=lenovo_sr665_v3",
            f"volumes.drive.disks.part={drive}",
            f"buses.m2.part={slot}",
        ],
    )
    return simulate(loaded)


def test_a_pcie_4_nvme_drive_in_a_pcie_3_slot_reads_at_pcie_3_x4():
    """The catalog's 980 PRO note: 'In a PCIe 3.0 slot the link limits it to about 3.3 GB/s'
    (Puget Systems); PCIe 3.0 x4 carries 3,938 MB/s raw, 3,601 of payload in 256 B packets."""
    old = nvme_read("samsung_980_pro_1tb", "pcie3_x8")
    new = nvme_read("samsung_980_pro_1tb", "pcie4_x4")
    assert old.bottleneck == "link nvme.m2.0"
    assert old.throughput_MBps == pytest.approx(3601, rel=0.01)
    assert new.throughput_MBps > 1.9 * old.throughput_MBps


def test_a_drive_alone_in_a_narrower_slot_is_limited_by_the_slot():
    result = nvme_read("samsung_980_pro_1tb", "pcie2_x1")
    assert result.bottleneck == "bus m2"
    assert "link nvme.m2.0" not in result.utilization


@pytest.mark.parametrize(
    ("card", "slot", "rate_MBps", "named"),
    [
        ("broadcom_9500_8i", "pcie3_x16", 7202, "controller hba"),  # PCIe 4.0 x8 at 3.0 x8
        ("broadcom_9500_8i", "pcie5_x4", 7202, "controller hba"),  # at 4.0 x4
        ("broadcom_9500_8i", "pcie3_x4", 3601, "bus slot1"),  # the slot alone sets it
    ],
)
def test_an_hba_s_link_trains_to_its_slot(card, slot, rate_MBps, named):
    loaded = scenario.load(
        TEMPLATE,
        [
            f"controllers.hba.part={card}",
            f"buses.slot1.part={slot}",
            "host=lenovo_sr665_v3",
            "workload.streams=8",
            "workload.op=read",
            "volumes.data.disks.part=samsung_pm1643_30tb",
            "volumes.data.level=raid0",
        ],
    )
    result = simulate(loaded)
    assert result.throughput_MBps == pytest.approx(rate_MBps, rel=0.01)
    assert result.bottleneck == named


def test_the_nvme_template_s_bays_behind_a_switch_share_its_uplink():
    """The template's eight PCIe 4.0 drives read 8 x 6,800 MB/s on their own lanes; hung from one
    switch's x16 uplink (the template's comment), the uplink's payload binds them."""
    template = "data/templates/nvme_server.yaml"
    direct = simulate(scenario.load(template))
    switched = simulate(
        scenario.load(
            template,
            ["buses.up0={part: pcie4_x16}", "buses.bays0.via=up0", "buses.bays1.via=up0"],
        )
    )
    assert direct.throughput_MBps == pytest.approx(8 * 6800, rel=0.01)
    uplink = bus("pcie4_x16")
    assert switched.bottleneck == "bus up0"
    payload_MBps = uplink.peak_MBps * framing.payload_share(uplink, 256)  # 28,807 MB/s
    assert switched.throughput_MBps == pytest.approx(payload_MBps, rel=0.01)


@pytest.mark.parametrize(
    ("slot", "rate_MBps", "named"),
    [
        ("pcie5_x8", 14403, "link up0"),  # a 4.0 switch in a 5.0 x8 slot: 4.0 x8
        ("pcie5_x16", 28807, "link up0"),  # in a 5.0 x16 slot: 4.0 x16
        ("pcie4_x8", 14403, "bus up0"),  # the slot alone sets it
    ],
)
def test_a_switch_s_uplink_trains_to_what_the_switch_and_its_slot_share(slot, rate_MBps, named):
    """The template's bays hang from one switch (PCIe 4.0, as its downstream segments): in a
    newer slot its uplink runs at the switch's generation and the fewer lanes (a review found it
    taking the slot's 5.0 rate)."""
    switched = simulate(
        scenario.load(
            "data/templates/nvme_server.yaml",
            [f"buses.up0={{part: {slot}}}", "buses.bays0.via=up0", "buses.bays1.via=up0"],
        )
    )
    assert switched.throughput_MBps == pytest.approx(rate_MBps, rel=0.01)
    assert switched.bottleneck == named
    # a link that trains below its slot says why, and how to give a faster switch
    said = [n for n in switched.notes if n.startswith("link up0:")]
    assert len(said) == (named == "link up0")
    assert all("fastest segment below it (PCIe 4.0 x16)" in n for n in said)


def test_a_switch_of_a_later_generation_than_its_drives_is_given_by_the_segments_below_it():
    """The what-if audit's case: a PCIe 5.0 switch over PCIe 4.0 drives. Its ports, the segments
    below it, are 5.0; its uplink in a 5.0 x16 slot then carries 5.0 x16, and each drive's own
    link trains to the drive's 4.0 x4, so the eight drives' 54,400 MB/s pass."""
    switched = simulate(
        scenario.load(
            "data/templates/nvme_server.yaml",
            [
                "buses.up0={part: pcie5_x16}",
                "buses.bays0={part: pcie5_x16, via: up0}",
                "buses.bays1={part: pcie5_x16, via: up0}",
            ],
        )
    )
    assert switched.throughput_MBps == pytest.approx(8 * 6800, rel=0.01)
    assert not any(n.startswith("link up0:") for n in switched.notes)
