"""A disk-to-disk transfer's NIC cards take the slots its storage scenario's controller cards leave
(``model.network.wan._end_slots``): the arrays' HBAs sit in the same host as its circuits' NICs.
Before, the circuits were counted against every slot and trained in the fastest, as if the host
held no HBA (session 50's note: the WAN model's circuit check ignored the sender's storage)."""

from pathlib import Path

import yaml

from model import paths

# a host of two PCIe 3.0 x16 and two x8 slots; a 100 GbE card is PCIe 3.0 x16
PARTS = """hosts:
  two_by_two:
    like: lenovo_sr665_v3
    name: A test host of two PCIe 3.0 x16 and two x8 slots
    buses: [{bus: pcie3_x16, count: 2}, {bus: pcie3_x8, count: 2}]
    nics: [mellanox_cx5_100g]
    sources: {buses: "estimated: a test"}
controllers:
  x16_hba:
    like: broadcom_9400_8i
    name: A test HBA of a PCIe 3.0 x16 host interface
    host_bus: pcie3_x16
"""


def _files(tmp_path: Path, circuits: int) -> str:
    """The transfer (returned) from the template, memory to memory's iperf on 100 GbE, naming a
    sender storage scenario whose two HBAs hold the host's two x16 slots."""
    (tmp_path / "parts.yaml").write_text(PARTS)
    store = yaml.safe_load((paths.DATA / "templates/storage_server.yaml").read_text())
    store.update(host="two_by_two", catalogs=["parts.yaml"])
    store["buses"] = {"slot1": {"part": "pcie3_x16"}, "slot2": {"part": "pcie3_x16"}}
    store["controllers"] = {
        "hba": {"part": "x16_hba", "bus": "slot1"},
        "hba2": {"part": "x16_hba", "bus": "slot2"},
    }
    store["workload"]["op"] = "read"
    (tmp_path / "store.yaml").write_text(yaml.safe_dump(store))
    wan = yaml.safe_load((paths.DATA / "templates/wan_transfer.yaml").read_text())
    wan.update(
        sender_host="two_by_two",
        receiver_host="two_by_two",
        nic="mellanox_cx5_100g",
        link="lan_100gbe",
        circuits=circuits,
        rtt_ms=0.1,
        sender_storage="store.yaml",
        catalogs=["parts.yaml"],
    )
    wan.pop("receiver_storage")
    wan["workload"].update(protocol="iperf", source="memory", sink="memory", total_MB=10000)
    (tmp_path / "wan.yaml").write_text(yaml.safe_dump(wan))
    return str(tmp_path / "wan.yaml")


def test_the_sender_s_nic_trains_in_a_slot_its_hbas_leave(run_cli, tmp_path):
    status, out, err = run_cli("predict", _files(tmp_path, 1), "--point")
    assert status == 0, err
    # the sender's card in an x8 slot (its storage's HBAs hold the x16s), the receiver's in an x16
    assert "trained to PCIe 3.0 x8 in two_by_two's slot" in out
    assert (
        "mellanox_cx5_100g: the sender's storage's controller cards (store.yaml) hold "
        "two_by_two's slots (buses.slot1 in a pcie3_x16, buses.slot2 in a pcie3_x16), so its "
        "card takes the fastest left: PCIe 3.0 x8" in out
    )
    assert out.count("mellanox_cx5_100g:") == 2 and "receiver's storage" not in out


def test_circuits_past_the_slots_the_hbas_leave_are_refused_in_one_line(run_cli, tmp_path):
    """Three 100 GbE cards fit the host's four slots, but not the two its HBAs leave."""
    status, out, err = run_cli("predict", _files(tmp_path, 3), "--point")
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "circuits: 3 port(s) of mellanox_cx5_100g need 3 cards" in err
    assert (
        "4 PCI Express slots, 2 of them held by the controller cards of segments slot1, slot2"
        in err
    )
    status, out, err = run_cli("predict", _files(tmp_path, 2), "--point")
    assert status == 0, err


def test_a_variant_past_the_slots_the_hbas_leave_is_refused_before_any_run(run_cli, tmp_path):
    """The review: the refusal had come only when the variant ran (``check_ends``, the model's
    check of the scenarios it names, runs with every variant's and design point's checks)."""
    wan = Path(_files(tmp_path, 1))
    data = yaml.safe_load(wan.read_text())
    data["variants"] = {"three": {"circuits": 3}}
    wan.write_text(yaml.safe_dump(data))
    status, out, err = run_cli("predict", str(wan), "--point")
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "variants.three: circuits: 3 port(s) of mellanox_cx5_100g need 3 cards" in err
