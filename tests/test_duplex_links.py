"""Links that carry each way at once: a copy's reads and writes through one PCI Express uplink each
have the link's rate, where a PCI-X segment carries them one at a time."""

import pytest

from model import catalog, scenario
from model.simulate import simulate
from model.storage.buses import full_duplex

COPY_BEHIND_ONE_UPLINK = """\
name: copy_behind_one_uplink
model: storage
description: a copy between two four-drive NVMe RAID0 volumes whose bays hang from one uplink
source: "estimated: a test's configuration"
seed: 1
host: lenovo_sr665_v3
buses:
  up: {part: pcie3_x4}
  bays0: {part: pcie4_x16, via: up}
  bays1: {part: pcie4_x16, via: up}
volumes:
  src:
    level: raid0
    chunk_KiB: 512
    disks: {part: micron_7450_pro_15360, count: 4,
            attach: [nvme.bays0.0, nvme.bays0.1, nvme.bays0.2, nvme.bays0.3]}
    filesystem: {type: xfs, block_KiB: 4}
  dst:
    level: raid0
    chunk_KiB: 512
    disks: {part: micron_7450_pro_15360, count: 4,
            attach: [nvme.bays1.0, nvme.bays1.1, nvme.bays1.2, nvme.bays1.3]}
    filesystem: {type: xfs, block_KiB: 4}
workload:
  op: copy
  source: src
  target: dst
  io: direct
  total_MB: 2000
  request_KiB: 4096
  queue_depth: 8
  streams: 8
"""


@pytest.fixture
def copy_file(tmp_path):
    path = tmp_path / "copy_behind_one_uplink.yaml"
    path.write_text(COPY_BEHIND_ONE_UPLINK)
    return str(path)


def test_a_copy_through_one_pcie_uplink_has_its_rate_each_way(copy_file):
    """PCIe 3.0 x4, 3.9 GB/s each way: the copy moves what a read alone moves through it (the
    sources' reads go up it while the targets' writes come down), not half."""
    copy = simulate(scenario.load(copy_file))
    read = simulate(
        scenario.load(
            copy_file, ["workload.op=read", "workload.target=src", "workload.source=null"]
        )
    )
    assert read.bottleneck == "bus up"
    assert copy.throughput_MBps == pytest.approx(read.throughput_MBps, rel=0.01)
    assert {"bus up (reads)", "bus up (writes)"} <= set(copy.utilization)
    assert "bus up" not in copy.utilization


def test_a_wide_uplink_leaves_a_copy_to_the_drives(copy_file):
    """PCIe 4.0 x16 (28.8 GB/s each way): four Micron 7450 writing 5,600 MB/s each bind first."""
    copy = simulate(scenario.load(copy_file, ["buses.up.part=pcie4_x16"]))
    assert copy.bottleneck.startswith("disk dst.")
    assert copy.throughput_MBps == pytest.approx(4 * 5600, rel=0.01)


def test_a_copy_across_a_pci_x_segment_shares_it_both_ways():
    """The Penn State director's copy from its RAID to its SATA drive: the PCI-X segment is one
    resource, its reads and writes one after the other on its wires."""
    copy = simulate(scenario.load("psu_copy", ["variant=raid_to_sata"]))
    assert "bus pcix" in copy.utilization
    assert not any(name.endswith(("(reads)", "(writes)")) for name in copy.utilization)


@pytest.mark.parametrize(
    "bus, both_ways", [("pcie3_x4", True), ("pcix_64_133", False), ("pci_32_33", False)]
)
def test_pcie_and_sas_carry_each_way_at_once(bus, both_ways):
    assert full_duplex(catalog.load().get("buses", bus, "test", "bus")) is both_ways


def test_sas_lanes_carry_each_way_and_sata_one():
    buses = catalog.load().parts["buses"]
    assert {full_duplex(b) for b in buses.values() if b.protocol == "sas"} == {True}
    assert {full_duplex(b) for b in buses.values() if b.protocol == "sata"} == {False}
