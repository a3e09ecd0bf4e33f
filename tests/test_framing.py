"""Serial links carry the payload their frames leave: PCIe packets behind 24 B of header, SAS
frames of 1,024 B, SATA FISes of 8,192 B with ALIGNs; parallel buses keep the fitted share."""

import pytest

from model import catalog, scenario, user_parts
from model.errors import UserError
from model.simulate import simulate
from model.storage import framing

CAT = catalog.load()


def _bus(part: str):
    return CAT.get("buses", part, "", "")


def test_each_protocol_s_frame_leaves_its_payload_share():
    assert framing.payload_share(_bus("pcie2_x1"), 128) == pytest.approx(128 / 152)
    assert framing.payload_share(_bus("pcie4_x4"), 512) == pytest.approx(512 / 536)
    assert _bus("sas_12g_lane").peak_MBps * framing.payload_share(
        _bus("sas_12g_lane"), 128
    ) == pytest.approx(1159.2, abs=0.1)
    assert _bus("sata_6g").peak_MBps * framing.payload_share(_bus("sata_6g"), 128) == pytest.approx(
        594.2, abs=0.1
    )
    assert framing.payload_share(_bus("pci_32_33"), 128) == 1.0  # bus_efficiency's room


def test_a_sata_link_carries_more_than_a_measured_sata_ssd():
    # PCWorld and ATTO measured the Samsung 870 EVO at 561-562 MB/s through SATA 6 Gb/s
    assert _bus("sata_6g").peak_MBps * framing.payload_share(_bus("sata_6g"), 128) > 562


def test_the_cm4_s_one_lane_holds_a_sequential_read_at_its_packets_payload():
    at_128 = simulate(scenario.load("ext_arr_cm4_980", ["variant=fio_seq_read"]))
    at_256 = simulate(
        scenario.load("ext_arr_cm4_980", ["variant=fio_seq_read", "pcie_max_payload_B=256"])
    )
    assert at_128.bottleneck == at_256.bottleneck == "bus pcie"
    assert at_128.throughput_MBps == pytest.approx(500 * 128 / 152, rel=0.01)
    assert at_256.throughput_MBps == pytest.approx(500 * 256 / 280, rel=0.01)


def test_a_max_payload_size_the_standard_does_not_allow_is_refused():
    with pytest.raises(UserError, match="pcie_max_payload_B"):
        scenario.load("ext_arr_cm4_980", ["pcie_max_payload_B=300"])


def test_a_users_serial_bus_without_its_protocol_is_refused_in_one_line():
    parts = {
        "buses": {
            "my_link": {
                "name": "a link",
                "kind": "serial",
                "lanes": 1,
                "lane_rate_Gbps": 6.0,
                "encoding": "8b10b",
                "sources": {"lanes": "test", "lane_rate_Gbps": "test"},
            }
        }
    }
    with pytest.raises(UserError, match="a serial bus needs protocol"):
        user_parts.with_parts(CAT, parts, "parts.yaml")
