"""A NIC's host bus caps its link: a 10 GbE card in a 64-bit/66 MHz PCI slot moves at most what
the slot's DMA bursts sustain of its 533 MB/s peak (the storage path's ``bus_efficiency``)."""

import pytest
import yaml
from scenario_copies import copy_scenario

from model import catalog, nic_links, scenario, user_parts
from model.network import tcp
from model.nic_links import nic_rate_Bps
from model.params import calibrated
from model.servers import ingest
from model.storage import front

SLOW_SLOT_NIC = {
    "like": "nic_10gbe",
    "host_bus": "pci_64_66",
    "name": "A 10 GbE card in a 64-bit/66 MHz PCI slot",
}


EFFICIENCY = calibrated()["bus_efficiency"]


def wire_Bps(data_Bps: float, mtu_B: int = 1500) -> float:
    """A link's data rate as the wire bytes its full-sized frames are: each crosses the host bus
    as its 14 B header and packet, the line with 24 B more (preamble, FCS, gap)."""
    return data_Bps * (mtu_B + 38) / (mtu_B + 14)


def test_the_slower_of_line_rate_and_host_bus_is_the_nic_s_rate():
    parts = user_parts.with_parts(catalog.load(), {"nics": {"slow": SLOW_SLOT_NIC}}, "test")
    slot_Bps = parts.get("buses", "pci_64_66", "", "").peak_MBps * 1e6 * EFFICIENCY
    assert slot_Bps < 10e9 / 8
    framing = {"mtu_B": 1500, "bus_efficiency": EFFICIENCY}
    slow = parts.get("nics", "slow", "", "")
    assert nic_rate_Bps(parts, slow, **framing) == pytest.approx(wire_Bps(slot_Bps))
    ten = catalog.load().get("nics", "nic_10gbe", "", "")
    assert nic_rate_Bps(catalog.load(), ten, **framing) == pytest.approx(10e9 / 8)


def test_a_gigabit_card_on_a_32_bit_33_mhz_pci_bus_moves_what_the_bus_sustains():
    """133 MB/s of PCI peak, at the DMA share a parallel bus sustains, carries less than a
    gigabit line's 125 MB/s of frames: the bus, not the line, sets the card's rate, and the
    note says so; on 64-bit/66 MHz PCI the line does."""
    old_pci = {"like": "nic_gbe", "host_bus": "pci_32_33", "name": "A gigabit card on 32/33 PCI"}
    parts = user_parts.with_parts(catalog.load(), {"nics": {"old": old_pci}}, "test")
    framing = {"mtu_B": 1500, "bus_efficiency": EFFICIENCY}
    bus_Bps = 133.33e6 * EFFICIENCY
    rate = nic_rate_Bps(parts, parts.get("nics", "old", "", ""), **framing)
    assert rate == pytest.approx(wire_Bps(bus_Bps), rel=1e-3) and rate < 1e9 / 8
    (note,) = nic_links.nic_notes(parts, ("old", None), **framing)
    assert f"pci_32_33 ({bus_Bps / 1e6:,.0f} MB/s of data) is slower" in note
    gigabit = catalog.load().get("nics", "nic_gbe", "", "")
    assert nic_rate_Bps(catalog.load(), gigabit, **framing) == pytest.approx(1e9 / 8)
    assert nic_links.nic_notes(catalog.load(), ("nic_gbe", None), **framing) == ()


def test_a_card_s_ports_together_past_its_link_are_said_to_be_held_by_it():
    """The network audit: a real server's dual 40 GbE card in a PCIe 3.0 x8 slot moved 6,888 MB/s
    named as its 'link out', with no word of the card's link, which the note checked against one
    port's line alone (5,000 MB/s, below the link's 7,202)."""
    framing = {"mtu_B": 1500, "bus_efficiency": 0.9}
    parts = catalog.load()
    assert nic_links.nic_notes(parts, ("intel_xl710_qda2", None, 1), **framing) == ()
    (note,) = nic_links.nic_notes(parts, ("intel_xl710_qda2", None, 2), **framing)
    assert "slower than the 2 ports' lines on the card (2 x 40 Gbit/s, 10,000 MB/s)" in note


def test_an_acquisition_server_s_slot_caps_what_it_writes(tmp_path):
    data = yaml.safe_load(scenario.resolve("em_ingest_microscopes").read_text())
    data.update(clients=1, client_nic="slow", parts={"nics": {"slow": SLOW_SLOT_NIC}})
    path = tmp_path / "slow_slot.yaml"
    path.write_text(yaml.safe_dump(data))
    s = scenario.load(path)
    cheap = dict(calibrated(), io_copy_passes=1.0)  # the network, not smbd, limits
    r = ingest.predict(s, s.catalog, cheap)
    slot_Bps = s.catalog.get("buses", "pci_64_66", "", "").peak_MBps * 1e6 * EFFICIENCY
    per_image_byte = tcp.tcp_wire_per_byte(1500) * ingest.smb_payload_per_byte(s.body)
    assert r.aggregate_MBps == pytest.approx(wire_Bps(slot_Bps) / per_image_byte / 1e6, rel=1e-9)
    assert r.bottleneck_stage == "acquisition NICs"


def test_a_transfer_through_a_nic_its_slot_caps_says_so(tmp_path):
    """The resource keeps the NIC's name ('nic sender.0'), so the result's notes say that the slot,
    not the line, sets its rate; a NIC whose slot keeps up says nothing."""
    data = yaml.safe_load(scenario.resolve("atlas_lightpath").read_text())
    data.update(nic="slow", parts={"nics": {"slow": SLOW_SLOT_NIC}})
    path = tmp_path / "slow_slot_wan.yaml"
    path.write_text(yaml.safe_dump(data))
    from model.simulate import simulate

    slow = simulate(scenario.load(path))
    (note,) = [n for n in slow.notes if n.startswith("slow: its host bus pci_64_66")]
    assert f"{533.33 * EFFICIENCY:,.0f} MB/s" in note and "10 Gbit/s line (1,250 MB/s)" in note
    assert not any("host bus" in n for n in simulate(scenario.load("atlas_lightpath")).notes)


@pytest.mark.parametrize(
    "name, key",
    [("eah_download", "server_nic"), ("mdsplus", "nic"), ("em_ingest_microscopes", "client_nic")],
)
def test_every_model_with_a_nic_says_when_its_slot_caps_it(tmp_path, name, key):
    from model.simulate import simulate

    data = yaml.safe_load(scenario.resolve(name).read_text())
    data[key] = "slow"
    data["parts"] = {"nics": {"slow": SLOW_SLOT_NIC}}
    path = tmp_path / f"{name}_slow.yaml"
    path.write_text(yaml.safe_dump(data))
    notes = simulate(scenario.load(path)).notes
    said = f"host bus pci_64_66 ({533.33 * EFFICIENCY:,.0f} MB/s of data) is slower"
    assert any(said in n for n in notes), notes


# hosts of the catalog with a dual-port card listed once a port (``ports``: 2) or once
def _listed(like: str, ports: int) -> dict:
    return {"like": like, "name": f"{like} with its card listed {ports}", "nics": ["x710"] * ports}


LISTED_PARTS = {
    "nics": {"x710": {"like": "intel_x710_da2"}},
    "hosts": {
        f"{like}_{ports}": _listed(like, ports)
        for like in ("dell_r720", "psu_director")
        for ports in (1, 2)
    },
}


@pytest.mark.parametrize(
    "name, like, overrides",
    [
        ("storage_behind_network", "dell_r720", ["host={host}"]),
        (
            "em_ingest_microscopes",
            "dell_r720",
            ["storage_overrides=[variant=striped, host={host}]"],
        ),
        ("psu_relay", "psu_director", ["director.host={host}", "director.nic=x710"]),
    ],
)
def test_a_dual_port_card_listed_once_says_one_port_carries_the_traffic(
    tmp_path, run_cli, name, like, overrides
):
    """The quote audit: a host's nics listing a dual-port card once, as an admin describes one
    card, predicted one port's 2,942 MB/s, not two ports' 5,883, its only sign 'on bond member(s)
    [0] of 1'. A scenario may cable one port on purpose, so it is not refused; every model that
    reads a host's NICs (the storage path's clients, the ingest's store, the relay's machines)
    says so in one note, and none where both ports are listed."""
    parts = tmp_path / "parts.yaml"
    parts.write_text(yaml.safe_dump(LISTED_PARTS))
    if name == "storage_behind_network":  # a template: where a quote starts
        assert run_cli("new", name, "--out", str(tmp_path / "s.yaml"))[0] == 0
        name = str(tmp_path / "s.yaml")
    for ports in (1, 2):
        host = f"{like}_{ports}"
        sets = [a for o in overrides for a in ("--set", o.format(host=host))]
        status, out, err = run_cli("predict", name, "--catalog", str(parts), *sets, "--point")
        assert status == 0, err
        said = (
            f"x710 has 2 ports; {host} lists 1, so 1 carries traffic (list the card once a port "
            "to use both)"
        )
        assert out.count(said) == (ports == 1) and out.count("x710 has") == (ports == 1), out


# a host listing both 40 GbE ports of one XL710-QDA2 ("once a port", README) and the card's one
# PCIe 3.0 x8 link they share: 7,202 MB/s of payload at 256 B packets. The storage front named one
# port to the note (nic_links.nic_bus_note), which weighed the link against one port's line alone
# and said nothing, where the WAN's and the relay's name every port
DUAL_40G = (
    "nics: [mellanox_cx4_lx_25g, mellanox_cx4_lx_25g]",
    "nics: [intel_xl710_qda2, intel_xl710_qda2]",
)
CARD_LINK_MBps = catalog.load().get("buses", "pcie3_x8", "", "").peak_MBps * 256 / 280
BOTH_PORTS_HELD = (
    f"({CARD_LINK_MBps:,.0f} MB/s of data) is slower than the 2 ports' lines on the card "
    "(2 x 40 Gbit/s, 10,000 MB/s): the card moves at most the bus's rate"
)


def test_a_storage_host_s_two_ports_of_one_card_are_held_by_its_link_and_say_so(tmp_path):
    """The NVMe purchase with its two 25 GbE ports swapped for both 40 GbE ports of one
    XL710-QDA2: its eight drives outrun the card's one PCIe 3.0 x8 link, which the ports share,
    so the link sets the prediction (its payload at the LAN's 1,500 B MTU, less TCP/IP and SMB's
    framing), and a note says why two 40 GbE ports carry less than 80 Gb/s."""
    from model.simulate import simulate

    path = copy_scenario(tmp_path, "purchase_nvme", "dual_40g.yaml", DUAL_40G)
    r = simulate(scenario.load(path))
    smb_write = front.payload_per_byte("smb", "write", 612 * 1024)
    link_MBps = wire_Bps(CARD_LINK_MBps) / tcp.tcp_wire_per_byte(1500) / smb_write
    assert r.bottleneck == "card storage.0"
    assert r.bound_MBps == pytest.approx(link_MBps, rel=1e-9)
    assert 0.999 * r.bound_MBps < r.throughput_MBps <= r.bound_MBps
    assert f"intel_xl710_qda2: its host bus pcie3_x8 {BOTH_PORTS_HELD}" in r.notes, r.notes


def test_the_ingest_s_store_says_its_two_ports_share_one_card_s_link(tmp_path):
    """The microscope ingest's store on an R720 fitted with both ports of one XL710-QDA2: the
    ingest (its store's NICs built by the storage front) gives the same note."""
    from model.simulate import simulate

    parts = tmp_path / "parts.yaml"
    dual = {
        "like": "dell_r720",
        "name": "R720, one dual 40 GbE card",
        "nics": ["intel_xl710_qda2"] * 2,
    }
    parts.write_text(yaml.safe_dump({"hosts": {"r720_dual_40g": dual}}))
    overrides = ["storage_overrides=[variant=striped, host=r720_dual_40g]"]
    notes = simulate(
        scenario.load("em_ingest_microscopes", overrides, catalogs=(str(parts),))
    ).notes
    # the R720's PCIe 3.0 x16 slot trains the card's x8 link to its own x8: the card's bus, not
    # "its PCIe 3.0 x8 host interface, trained to PCIe 3.0 x8" as the note had said
    link = "its host bus pcie3_x8"
    assert f"intel_xl710_qda2: {link} {BOTH_PORTS_HELD}" in notes, notes


def test_the_ports_of_one_card_share_its_host_bus(tmp_path):
    """Two 40 GbE ports of an XL710-QDA2 behind one PCIe 3.0 x8 link (7,877 MB/s) move that
    between them, as Tom's Hardware saw ('between 50 and 55 Gb/s' through one card); two cards of
    one port each move their lines' 2 x 5,000 MB/s."""
    from model.simulate import simulate

    one_card = simulate(
        scenario.load("ext_net_fasterdata_100g", ["nic=intel_xl710_qda2", "circuits=2"])
    )
    pcie3_x8_Bps = catalog.load().get("buses", "pcie3_x8", "", "").peak_MBps * 1e6
    assert one_card.bottleneck == "card sender.0"
    # the card's 7,877 MB/s, of which its 256 B packets leave 7,202 MB/s of Ethernet frames, less
    # Ethernet's framing at the path's jumbo MTU: 57 Gb/s, the measured 50-55 within reach
    link_MBps = pcie3_x8_Bps * 256 / 280 / 1e6
    assert one_card.throughput_MBps < link_MBps < 1.02 * one_card.throughput_MBps
    assert 50e3 / 8 < one_card.throughput_MBps < 60e3 / 8
    data = yaml.safe_load(scenario.resolve("ext_net_fasterdata_100g").read_text())
    data.update(nic="one_port", circuits=2)
    data.setdefault("parts", {}).setdefault("nics", {})["one_port"] = {
        "like": "intel_xl710_qda2",
        "ports": 1,
        "sources": {"ports": "a test's single-port card"},
    }
    path = tmp_path / "two_cards.yaml"
    path.write_text(yaml.safe_dump(data))
    two_cards = simulate(scenario.load(path))
    assert not any(name.startswith("card ") for name in two_cards.utilization)
    assert two_cards.throughput_MBps > 1.2 * one_card.throughput_MBps


def test_a_nic_trains_to_the_host_s_slot(tmp_path):
    """The fuzz audit's case: a ConnectX-6 (PCIe 4.0 x16) in the Einstein@home server, here one
    whose one slot is PCIe 1.0 x8 (2,000 MB/s), served 10,774 MB/s from memory: its link trains
    to it. (The catalog's server lists its one slot as an estimate, buses_complete: false, so a
    card is not held to it there: the provenance audit.)"""
    from model.simulate import simulate

    parts = tmp_path / "parts.yaml"
    parts.write_text(
        "hosts:\n  one_slot_server:\n    like: eah_download_server\n"
        "    buses_complete: true\n    sources: {buses: a test's board of one slot}\n"
    )
    overrides = [
        "host=one_slot_server",
        "server_nic=mellanox_cx6_100g",
        "tcp.tso=true",
        "irq_affinity=spread",
        "workload.dataset_files=100",
        "workload.clients=64",
        "server.workers=8",
    ]
    result = simulate(scenario.load("eah_download", overrides, catalogs=(str(parts),)))
    assert result.throughput_MBps < 2000
    assert any("trained to PCIe 1.0 x8 in one_slot_server's slot" in n for n in result.notes)


def test_a_nic_of_a_kind_the_host_has_no_slot_for_is_said_to_be_taken_as_on_the_board(tmp_path):
    """A host of PCI-X segments fitted with a PCI Express NIC (a user's board, hosts.yaml nics):
    the NIC is on its board, and the result says so; a host not fitted with it refuses it
    (test_a_pci_express_card_in_a_host_of_no_pci_express_slot_is_one_line)."""
    from model.simulate import simulate

    data = yaml.safe_load(scenario.resolve("ext_net_82599_10g").read_text())
    board = {"like": "supermicro_p4dl6_triumf", "nics": ["nic_10gbe"]}
    data.update(nic="nic_10gbe", parts={"hosts": {"pcix_board": board}})
    data.update(sender_host="pcix_board", receiver_host="pcix_board")
    path = tmp_path / "board_nic.yaml"
    path.write_text(yaml.safe_dump(data))
    notes = simulate(scenario.load(path)).notes
    assert any("has no slot of its PCIe 2.0 x8 kind" in n for n in notes), notes


def test_a_card_of_one_port_beside_a_full_one_bounds_with_its_line():
    """Three 40 GbE ports on two XL710-QDA2 cards: one card's link (7,149 MB/s of payload at the
    path's MTU) and the other card's one port (4,950): the bound is their sum, 12,099, not two
    full cards' 14,298 (the quick audit's case)."""
    from model.simulate import simulate

    three = simulate(
        scenario.load("ext_net_fasterdata_100g", ["nic=intel_xl710_qda2", "circuits=3"])
    )
    two = simulate(scenario.load("ext_net_fasterdata_100g", ["nic=intel_xl710_qda2", "circuits=2"]))
    one = simulate(scenario.load("ext_net_fasterdata_100g", ["nic=intel_xl710_qda2", "circuits=1"]))
    assert three.bound_MBps == pytest.approx(two.bound_MBps + one.bound_MBps, rel=1e-6)
    assert three.throughput_MBps <= three.bound_MBps * (1 + 1e-9)


def test_a_pci_express_card_in_a_host_of_no_pci_express_slot_is_one_line(run_cli):
    """The TRIUMF server's buses are two PCI-X segments: a 100 GbE PCIe card has no slot there (it
    ran as if on its board, at 1,431 MB/s, the network fuzz); the SysKonnect card on its board
    still runs."""
    hosts = ("--set", "sender_host=supermicro_p4dl6_triumf")
    hosts += ("--set", "receiver_host=supermicro_p4dl6_triumf")
    status, out, err = run_cli(
        "predict",
        "ext_net_82599_10g",
        "--point",
        *hosts,
        "--set",
        "nic=mellanox_cx6_100g",
        "--set",
        "link=lan_100gbe",
    )
    assert status == 2 and not out and err.count("\n") == 1
    assert err.startswith("--set: nic: ") and "has no PCI Express slot (2 x pcix_64_133)" in err
    status, out, err = run_cli(
        "predict",
        "ext_net_82599_10g",
        "--point",
        *hosts,
        "--set",
        "nic=syskonnect_sk9843",
        "--set",
        "link=lan_gbe",
        "--set",
        "irq_affinity=cpu0",  # its one receive ring takes no rss
    )
    assert status == 0, err


def test_cards_take_the_host_s_fastest_slots_first(tmp_path):
    """The network audit's case: three 100 GbE cards in a host of one PCIe 3.0 x16 slot and two x8
    ones each ran at x16 (297 Gbit/s). The first takes the x16 slot, the other two the x8 ones,
    whose links (7,149 MB/s of payload at the path's MTU) then bind them, and the result says so;
    round-robin bonding sends each circuit an equal share, so the slowest circuits set the pace."""
    from model.simulate import simulate

    data = yaml.safe_load(scenario.resolve("ext_net_fasterdata_100g").read_text())
    host = data["parts"]["hosts"]["esnet_100g_host"]
    host["buses"] = [{"bus": "pcie3_x16", "count": 1}, {"bus": "pcie3_x8", "count": 2}]
    path = tmp_path / "three_cards.yaml"
    path.write_text(yaml.safe_dump(data))
    parts = user_parts.with_parts(catalog.load(), data["parts"], str(path))
    framing = {"mtu_B": data["mtu_B"], "bus_efficiency": EFFICIENCY}
    x16, x8, x8_too = nic_links.card_links_Bps(parts, "pcie3_x16", "esnet_100g_host", 3, **framing)
    assert x16 > 100e9 / 8 > x8 == x8_too
    streams = ["workload.streams=24", "bonding=round_robin"]
    one = simulate(scenario.load(path, ["circuits=1", *streams]))
    three = simulate(scenario.load(path, ["circuits=3", *streams]))
    assert one.throughput_MBps > 0.9 * 100e3 / 8
    payload_per_wire = three.throughput_MBps / (3 * x8 / 1e6)
    assert 0.9 < payload_per_wire < 1.0  # each circuit at its x8 link, less framing
    assert any(
        "its 3 cards take esnet_100g_host's fastest slots first: 2 at PCIe 3.0 x8" in n
        for n in three.notes
    ), three.notes
