"""A NIC takes the slot its form factor sits in (``parts.Nic.form_factor``, ``model.nic_links``): an
OCP NIC 3.0 module the host's OCP slot (``ocp_slots``), a NIC on the board none, a card one of its
PCI Express slots. Before, every NIC was a card: a quoted server whose eight slots held its
controller cards and whose 25 GbE ports were its OCP module was refused for want of a slot."""

import pytest
import yaml

from model import paths

# a host of two PCIe 3.0 x16 slots and one OCP slot, its two 25 GbE ports on an OCP module
HOST = """hosts:
  two_and_ocp:
    like: lenovo_sr665_v3
    name: A test host of two PCIe 3.0 x16 slots and one OCP NIC 3.0 slot
    buses: [{{bus: pcie3_x16, count: 2}}]
    ocp_slots: {ocp}
    nics: {nics}
    sources: {{buses: "estimated: a test", ocp_slots: "estimated: a test"}}
nics:
  board_25g:
    like: mellanox_cx4_lx_25g
    name: A test NIC on the host's board, 2 x 25 GbE
    form_factor: onboard
"""

OCP_PORTS = "[mellanox_cx4_lx_25g_ocp, mellanox_cx4_lx_25g_ocp]"

# purchase_hdd_md's HBA and a second one, each in a PCIe 3.0 x16 segment: the host's two slots
TWO_HBAS = (
    "--set",
    "host=two_and_ocp",
    "--set",
    "buses.slot1.part=pcie3_x16",
    "--set",
    "buses.slot2={part: pcie3_x16}",
    "--set",
    "controllers.hba2={part: broadcom_9500_8i, bus: slot2}",
)


def _catalog(tmp_path, nics=OCP_PORTS, ocp="[{bus: pcie4_x16}]"):
    parts = tmp_path / "parts.yaml"
    parts.write_text(HOST.format(nics=nics, ocp=ocp))
    return ("--catalog", str(parts))


def test_an_ocp_module_takes_no_pci_express_slot_and_a_card_does(run_cli, tmp_path):
    status, out, err = run_cli(
        "predict", "purchase_hdd_md", "--point", *_catalog(tmp_path), *TWO_HBAS
    )
    assert status == 0, err
    assert "controller cards hold" not in out and "trained to" not in out
    # the same ports as a PCI Express card: the HBAs hold both slots
    cards = _catalog(tmp_path, nics="[mellanox_cx4_lx_25g, mellanox_cx4_lx_25g]")
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", *cards, *TWO_HBAS)
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "has 2 PCI Express slots, 2 of them held by the controller cards" in err


def test_a_nic_on_the_board_takes_no_slot(run_cli, tmp_path):
    board = _catalog(tmp_path, nics="[board_25g, board_25g]", ocp="[]")
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", *board, *TWO_HBAS)
    assert status == 0, err
    assert "controller cards hold" not in out and "taken as on the board" not in out


def test_an_ocp_module_trains_to_the_host_s_ocp_slot_and_says_so(run_cli, tmp_path):
    """Two 25 GbE ports need 6,250 MB/s; a PCIe 3.0 x4 OCP slot carries some 3,600 of data."""
    narrow = _catalog(tmp_path, ocp="[{bus: pcie3_x4}]")
    one_hba = TWO_HBAS[:4]  # one HBA: the card's link, not md's raid5d, binds
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", *narrow, *one_hba)
    assert status == 0, err
    assert "its PCIe 3.0 x8 host interface, trained to PCIe 3.0 x4 in two_and_ocp's OCP slot" in out


def test_an_ocp_module_in_a_host_of_no_ocp_slot_is_refused_in_one_line(run_cli, tmp_path):
    status, out, err = run_cli(
        "predict", "purchase_hdd_md", "--point", *_catalog(tmp_path, ocp="[]"), *TWO_HBAS
    )
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "two_and_ocp.nics: mellanox_cx4_lx_25g_ocp is an OCP NIC 3.0 module" in err
    assert "lists no OCP slot for it: give the host's ocp_slots" in err


def test_more_ocp_modules_than_ocp_slots_are_refused_in_one_line(run_cli, tmp_path):
    four = "[" + ", ".join(["mellanox_cx4_lx_25g_ocp"] * 4) + "]"
    status, out, err = run_cli(
        "predict", "purchase_hdd_md", "--point", *_catalog(tmp_path, nics=four), *TWO_HBAS
    )
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "4 port(s) of mellanox_cx4_lx_25g_ocp need 2 OCP modules" in err
    assert "has 1 OCP slot: list fewer" in err


@pytest.mark.parametrize("bus", ["pci_64_66", "sas_12g_x4"])
def test_an_ocp_slot_is_a_pci_express_link(run_cli, tmp_path, bus):
    catalog = _catalog(tmp_path, ocp=f"[{{bus: {bus}}}]")
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", *catalog, *TWO_HBAS)
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "two_and_ocp.ocp_slots[0].bus: must name a PCI Express link" in err


def test_the_catalog_s_current_host_takes_an_ocp_module_beside_eight_cards(run_cli, tmp_path):
    """lenovo_sr665_v3's eight slots, each holding an HBA, and its OCP slot the 25 GbE module."""
    parts = tmp_path / "parts.yaml"
    parts.write_text(
        "hosts:\n  sr665_ocp:\n    like: lenovo_sr665_v3\n"
        "    name: The SR665 V3 with its 25 GbE ports on an OCP module\n"
        "    nics: [mellanox_cx4_lx_25g_ocp, mellanox_cx4_lx_25g_ocp]\n"
    )
    hbas = []
    for n in range(2, 9):
        hbas += ["--set", f"buses.slot{n}={{part: pcie4_x8}}"]
        hbas += ["--set", f"controllers.hba{n}={{part: broadcom_9500_8i, bus: slot{n}}}"]
    args = ("predict", "purchase_hdd_md", "--point", "--catalog", str(parts), "--set")
    status, out, err = run_cli(*args, "host=sr665_ocp", *hbas)
    assert status == 0, err
    # the same eight HBAs leave the card of the catalog's own host no slot
    status, out, err = run_cli(*args, "host=lenovo_sr665_v3", *hbas)
    assert status == 2 and "at most 0 NIC cards" in err, err


def test_ocp_slots_are_read_where_the_buses_are_not_listed_in_full(run_cli, tmp_path):
    """The review: a host of no listed buses, or buses listed in part, with OCP slots had its
    modules taken at their own link, four on one slot, and its cards refused as 'on the board'."""
    parts = tmp_path / "parts.yaml"
    parts.write_text(
        "hosts:\n  partial_ocp:\n    like: dell_r720\n    name: A test host, slots in part\n"
        "    buses_complete: false\n    ocp_slots: [{bus: pcie3_x4}]\n"
        f"    nics: {OCP_PORTS}\n"
        "    sources: {ocp_slots: 'estimated: a test'}\n"
    )
    args = ("predict", "purchase_hdd_md", "--point", "--catalog", str(parts), "--set")
    on_partial = (*args, "host=partial_ocp", "--set", "buses.slot1.part=pcie3_x8")
    status, out, err = run_cli(*on_partial)
    assert status == 0, err
    assert "trained to PCIe 3.0 x4 in partial_ocp's OCP slot" in out
    four = "[" + ", ".join(["mellanox_cx4_lx_25g_ocp"] * 4) + "]"
    parts.write_text(parts.read_text().replace(OCP_PORTS, four))
    status, out, err = run_cli(*on_partial)
    assert status == 2 and "need 2 OCP modules" in err, err


def test_a_nic_on_the_board_must_be_one_of_the_host_s(run_cli, tmp_path):
    """The review: six 100 GbE ports 'on the board' of a PCI-X host that lists another NIC."""
    _catalog(tmp_path)
    wan = yaml.safe_load((paths.DATA / "templates/wan_transfer.yaml").read_text())
    wan.update(nic="board_25g", catalogs=["parts.yaml"], circuits=2)
    (tmp_path / "wan.yaml").write_text(yaml.safe_dump(wan))
    status, out, err = run_cli("predict", str(tmp_path / "wan.yaml"), "--point")
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "circuits: board_25g is a NIC on a host's board, and it is not one of those" in err


PCI_OCP = (
    "nics:\n  pci_ocp:\n    like: syskonnect_sk9843\n    name: A test PCI OCP module\n"
    "    form_factor: ocp\n"
)
UNSOURCED = (
    "hosts:\n  unsourced:\n    like: dell_r720\n    name: A test host\n"
    "    ocp_slots: [{bus: pcie3_x4}]\n"
)


@pytest.mark.parametrize(
    ("parts", "scenario", "setting", "said"),
    [
        (  # an OCP module's edge carries PCI Express lanes
            PCI_OCP,
            "atlas_lightpath",
            "nic=pci_ocp",
            "pci_ocp.form_factor: ocp is an OCP NIC 3.0 module, whose host interface is PCI",
        ),
        (UNSOURCED, "purchase_hdd_md", "host=unsourced", "no source for ocp_slots"),
    ],
    ids=["pci-ocp-module", "unsourced-ocp-slots"],
)
def test_a_parts_file_s_ocp_mistake_is_refused_in_one_line(
    run_cli, tmp_path, parts, scenario, setting, said
):
    (tmp_path / "parts.yaml").write_text(parts)
    catalog = ("--catalog", str(tmp_path / "parts.yaml"))
    status, out, err = run_cli("predict", scenario, "--point", *catalog, "--set", setting)
    assert status == 2 and not out and err.count("\n") == 1, err
    assert said in err


def test_ocp_slots_alone_leave_a_host_s_cards_uncounted(run_cli, tmp_path):
    """The review: a host of no listed buses given OCP slots had its PCI Express cards refused as
    'not one of the NICs on its board'; its buses are still not described."""
    (tmp_path / "parts.yaml").write_text(
        "hosts:\n  no_buses_ocp:\n    like: ga_mdsplus_server\n    name: A test host\n"
        "    ocp_slots: [{bus: pcie3_x16}]\n    sources: {ocp_slots: 'estimated: a test'}\n"
    )
    wan = yaml.safe_load((paths.DATA / "templates/wan_transfer.yaml").read_text())
    wan.update(sender_host="no_buses_ocp", receiver_host="no_buses_ocp", nic="mellanox_cx5_100g")
    wan.update(catalogs=["parts.yaml"])
    wan.pop("sender_storage")
    wan.pop("receiver_storage")
    wan["workload"].update(protocol="iperf", source="memory", sink="memory")
    (tmp_path / "wan.yaml").write_text(yaml.safe_dump(wan))
    status, out, err = run_cli("predict", str(tmp_path / "wan.yaml"), "--point")
    assert status == 0, err


@pytest.mark.parametrize(
    ("scenario", "key", "sets"),
    [
        ("psu_relay", "director.nic", ("director.host=dell_r720", "link=lan_25gbe")),
        ("eah_download", "server_nic", ("host=dell_r720",)),
        ("mdsplus", "nic", ("client_host=dell_r720",)),
    ],
)
def test_a_model_s_own_nic_of_ocp_form_needs_the_host_s_ocp_slot(run_cli, scenario, key, sets):
    """The review: a relay's, a download server's or MDSplus's NIC named as an OCP module on a
    host that lists no OCP slot was taken at its own link with a note; as a host's own NICs and a
    transfer's circuits, it is refused."""
    args = [f"{key}=mellanox_cx4_lx_25g_ocp", *sets]
    status, out, err = run_cli(
        "predict", scenario, "--point", *(a for s in args for a in ("--set", s))
    )
    assert status == 2 and not out and err.count("\n") == 1, err
    assert f"{key}: mellanox_cx4_lx_25g_ocp is an OCP NIC 3.0 module" in err
    assert "lists no OCP slot for it" in err
