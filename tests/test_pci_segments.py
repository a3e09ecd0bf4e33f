"""A multidrop bus segment (PCI, PCI-X) shared by cards of different clocks and widths.

The cards of a segment share its signals: the segment runs at its slowest card's clock (PCI's
M66EN; a conventional card puts a PCI-X segment in conventional mode), and a 32-bit card moves four
bytes a data phase on a 64-bit segment, so each of its bytes takes twice the segment time of a
64-bit card's (``model.storage.buses``, ``Buses.segment_Bps`` and ``Buses.segment_cost``).
"""

import pytest

from model import scenario
from model.params import calibrated
from model.simulate import simulate

FIVE_DRIVES = ["volumes.md0.disks.count=5"]
# a 3ware 7850 (64-bit, 33 MHz PCI) in the IntelliStation's 64-bit/66 MHz segment, no drives on it
SLOW_CARD = ["controllers.extra={part: threeware_7850, bus: pci_64}"]


def _run(name: str, overrides: list[str]):
    return simulate(scenario.load(name, overrides))


def test_a_33_mhz_card_holds_the_segment_at_33_mhz_and_a_32_bit_card_moves_half_a_phase():
    alone = _run("atlas_intellistation", FIVE_DRIVES)
    shared = _run("atlas_intellistation", FIVE_DRIVES + SLOW_CARD)
    assert alone.bottleneck != "bus pci_64"
    assert shared.bottleneck == "bus pci_64"
    # 64 bits at 33.33 MHz, its sustained share; the Promise cards' 32-bit bytes take two units
    # each, and their four drives pace the stripe of five
    segment_Bps = 8 * 33.33e6 * calibrated()["bus_efficiency"]
    assert shared.throughput_MBps == pytest.approx(5 / 4 * segment_Bps / 2 / 1e6, rel=0.01)


def test_32_bit_cards_on_the_3ware_s_segment_bind_it_where_their_own_segment_did_not():
    read = ["workload.op=read"]
    own = _run("atlas_triumf_send", read)
    moved = _run(
        "atlas_triumf_send",
        read + [f"controllers.promise{i}.bus=pcix_a" for i in (1, 2)],
    )
    assert own.bottleneck != "bus pcix_a"
    assert moved.bottleneck == "bus pcix_a"
    assert moved.throughput_MBps < 0.85 * own.throughput_MBps


def test_a_66_mhz_segment_held_at_33_mhz_carries_what_a_33_mhz_segment_of_its_width_does():
    """``Buses.segment_Bps``: the segment at its slowest card's clock, sustained as every parallel
    bus is (``framing.sustained_Bps``): the catalog's own 64-bit, 33 MHz PCI to the bit."""
    import simpy

    from model.sim.flows import FlowNetwork
    from model.storage import framing
    from model.storage.buses import Buses

    s = scenario.load("atlas_intellistation", FIVE_DRIVES + SLOW_CARD)
    buses = Buses(FlowNetwork(simpy.Environment()), s.body, s.catalog, calibrated(), s.path)
    at_33 = s.catalog.get("buses", "pci_64_33", "", "")
    expected = framing.sustained_Bps(
        at_33, s.body.pcie_max_payload_B, calibrated()["bus_efficiency"]
    )
    assert buses.segment_Bps("pci_64") == expected
