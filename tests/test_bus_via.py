"""A bus segment that hangs from another (``buses.NAME.via``): an external array's SAS wire carries
its bytes on over the PCIe link of the HBA whose port it leaves (``group_paths``)."""

import pytest

from model import scenario
from model.errors import UserError
from model.simulate import simulate

EIGHT_WRITERS = ["variant=striped", "workload.streams=8"]
ONE_CARD = ["buses.sas2.via=pcie_a", "buses.sas3.via=pcie_a"]  # a four-port HBA on one x8 link


def _run(*overrides: str):
    return simulate(scenario.load("em_ingest", list(overrides)))


def test_two_hbas_leave_the_raid_processors_the_bottleneck_one_four_port_card_its_link():
    two = _run(*EIGHT_WRITERS)
    one = _run(*EIGHT_WRITERS, *ONE_CARD)
    assert two.bottleneck.startswith("raid md3260")
    assert one.bottleneck == "bus pcie_a"
    assert one.throughput_MBps < 0.95 * two.throughput_MBps
    # each wire's bytes cross its HBA's link: six of the ten LUNs' on the first card, four on the
    # second, at the rate the RAID processors set
    assert two.utilization["bus pcie_a"] == pytest.approx(
        1.5 * two.utilization["bus pcie_b"], rel=1e-6
    )


def test_a_via_must_name_a_segment_and_must_not_come_back_to_itself():
    with pytest.raises(UserError) as unknown:
        scenario.load("em_ingest", ["buses.sas0.via=pcie_z"])
    assert unknown.value.key == "buses.sas0.via"
    assert "pcie_a" in unknown.value.message
    with pytest.raises(UserError) as loop:
        scenario.load("em_ingest", ["buses.pcie_a.via=sas0"])
    assert "hang from itself" in loop.value.message


def test_an_external_array_s_stated_maximum_binds_beyond_its_wires(tmp_path):
    parts = tmp_path / "parts.yaml"
    parts.write_text(
        "controllers:\n"
        "  md3260_capped:\n"
        "    like: dell_md3260\n"
        "    name: an MD3260 whose sheet states 2,000 MB/s\n"
        "    max_throughput_MBps: 2000\n"
        '    sources: {max_throughput_MBps: "a sheet\'s stated figure (a test)"}\n'
    )
    capped = simulate(
        scenario.load(
            "em_ingest",
            [*EIGHT_WRITERS, "controllers.md3260.part=md3260_capped"],
            catalogs=(parts,),
        )
    )
    assert capped.bottleneck == "array md3260"
    assert capped.throughput_MBps == pytest.approx(2000, rel=0.01)
