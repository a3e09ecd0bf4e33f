"""A host holds what its bays and slots hold (``model.storage.slots``): a storage scenario's drives
inside the host are at most its drive bays (hosts.yaml ``drive_bays``, ``nvme_bays``), and its
controller cards take PCI Express slots that its NIC cards then do not get (``card_slots``). The
quote audit: 24 U.2 drives in a host of fewer bays predicted without a word, and a 100 GbE card
was modelled at x16 in a host whose x16 slots the scenario's HBAs held."""

import pytest

NVME = "data/templates/nvme_server.yaml"

# a host of two PCIe 3.0 x16 and two x8 slots with one 100 GbE card (PCIe 3.0 x16), and an HBA
# whose own host interface is PCIe 3.0 x16
TWO_BY_TWO = """hosts:
  two_by_two:
    like: lenovo_sr665_v3
    name: A test host of two PCIe 3.0 x16 and two x8 slots, one 100 GbE card
    buses: [{bus: pcie3_x16, count: 2}, {bus: pcie3_x8, count: 2}]
    nics: [mellanox_cx5_100g]
    sources: {buses: "estimated: a test"}
controllers:
  x16_hba:
    like: broadcom_9500_8i
    name: A test HBA of a PCIe 3.0 x16 host interface
    host_bus: pcie3_x16
"""

# purchase_hdd_md's HBA, as an x16 card, and a second one, each in a PCIe 3.0 x16 segment
TWO_HBAS = (
    "--set",
    "host=two_by_two",
    "--set",
    "buses.slot1.part=pcie3_x16",
    "--set",
    "controllers.hba.part=x16_hba",
    "--set",
    "buses.slot2={part: pcie3_x16}",
    "--set",
    "controllers.hba2={part: x16_hba, bus: slot2}",
)


def _parts(tmp_path, text):
    parts = tmp_path / "parts.yaml"
    parts.write_text(text)
    return ("--catalog", str(parts))


def _card(name, bus, part="broadcom_9500_8i"):
    return (
        "--set",
        f"buses.{name}={{part: {bus}}}",
        "--set",
        f"controllers.{name}hba={{part: {part}, bus: {name}}}",
    )


def test_a_nic_whose_x16_slots_the_hbas_hold_trains_at_x8_and_says_so(run_cli, tmp_path):
    catalog = _parts(tmp_path, TWO_BY_TWO)
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", *catalog, *TWO_HBAS)
    assert status == 0, err
    assert (
        "mellanox_cx5_100g: its PCIe 3.0 x16 host interface, trained to PCIe 3.0 x8 in "
        "two_by_two's slot (7,202 MB/s of data) is slower than its 100 Gbit/s line" in out
    )
    assert (
        "mellanox_cx5_100g: the controller cards hold two_by_two's slots (buses.slot1 in a "
        "pcie3_x16, buses.slot2 in a pcie3_x16), so its card takes the fastest left: PCIe 3.0 x8"
        in out
    )
    # the review: an x8 HBA declared in an x16 segment trains to x8 there and takes an x8 slot,
    # which leaves the NIC an x16 one: nothing to say
    x8_cards = (
        *TWO_HBAS[:4],
        *TWO_HBAS[6:8],
        "--set",
        "controllers.hba2={part: broadcom_9500_8i, bus: slot2}",
    )
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", *catalog, *x8_cards)
    assert status == 0 and "trained to" not in out and "controller cards hold" not in out, err


def test_a_third_x16_card_past_the_slots_is_refused_in_one_line(run_cli, tmp_path):
    catalog = _parts(tmp_path, TWO_BY_TWO)
    third = _card("slot3", "pcie3_x16", "x16_hba")
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", *catalog, *TWO_HBAS, *third)
    assert status == 2 and not out and err.count("\n") == 1, err
    assert err.startswith("--set: buses.slot3.part: the controller cards' segments slot1, slot2,")
    assert "two_by_two has no free one that takes a PCIe 3.0 x16 card for slot3" in err


def test_cards_and_nic_cards_past_the_slots_are_refused_in_one_line(run_cli, tmp_path):
    """Two more HBAs in x8 segments fit the two x8 slots, and leave the NIC card none."""
    catalog = _parts(tmp_path, TWO_BY_TWO)
    more = (*_card("slot3", "pcie3_x8"), *_card("slot4", "pcie3_x8"))
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", *catalog, *TWO_HBAS, *more)
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "needs 1 card, and the host (A test host of two PCIe 3.0 x16" in err
    assert (
        "has 4 PCI Express slots, 4 of them held by the controller cards of segments slot1, " in err
    )
    assert "slot2, slot3, slot4: at most 0 NIC cards; list fewer" in err


def test_a_host_whose_buses_are_listed_in_part_takes_any_cards(run_cli, tmp_path):
    listed = "    nics: [mellanox_cx5_100g]\n"
    text = TWO_BY_TWO.replace(listed, listed + "    buses_complete: false\n")
    catalog = _parts(tmp_path, text)
    third = _card("slot3", "pcie3_x16")
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", *catalog, *TWO_HBAS, *third)
    assert status == 0 and "controller cards hold" not in out, err


@pytest.mark.parametrize(
    "bays, key",
    [
        ("drive_bays: 4", "drive_bays"),  # every bay NVMe-cabled, four of them
        ("drive_bays: 24\n    nvme_bays: 4", "nvme_bays"),  # 24 bays, four cabled for NVMe
    ],
)
def test_more_drives_than_the_host_s_bays_are_refused_in_one_line(run_cli, tmp_path, bays, key):
    catalog = _parts(
        tmp_path,
        "hosts:\n  few_bays:\n    like: lenovo_sr665_v3\n    name: A test host of few bays\n"
        f"    {bays}\n"
        '    sources: {drive_bays: "estimated: a test", nvme_bays: "estimated: a test"}\n',
    )
    status, out, err = run_cli("predict", NVME, "--point", *catalog, "--set", "host=few_bays")
    assert status == 2 and not out and err.count("\n") == 1, err
    assert err.startswith("--set: host: the scenario puts 8 ")
    assert (
        f"8 {'NVMe ' if key == 'nvme_bays' else ''}drives in the bays of the host few_bays, " in err
    )
    assert f"which has 4 such bays (its {key}, an estimate): at most 4" in err
    # the eight drives fit the catalog's SR665 V3, its 24 front bays
    status, out, err = run_cli("predict", NVME, "--point")
    assert status == 0, err


def test_a_host_without_bays_and_an_external_array_s_drives_are_not_counted(run_cli, tmp_path):
    """A host whose bays the catalog does not describe takes the drives as declared; em_ingest's
    180 drives sit in its MD3260 (an array on SAS wires), not in the R720, whatever its bays."""
    catalog = _parts(
        tmp_path,
        "hosts:\n"
        "  no_bays:\n    like: lenovo_sr665_v3\n    name: A test host, bays not described\n"
        "    drive_bays: null\n"
        "  two_bays:\n    like: dell_r720\n    name: A test host of two bays\n"
        '    drive_bays: 2\n    sources: {drive_bays: "estimated: a test"}\n',
    )
    status, _, err = run_cli("predict", NVME, "--point", *catalog, "--set", "host=no_bays")
    assert status == 0, err
    status, _, err = run_cli("predict", "em_ingest", "--point", *catalog, "--set", "host=two_bays")
    assert status == 0, err


def test_more_nvme_bays_than_bays_is_refused(run_cli, tmp_path):
    catalog = _parts(
        tmp_path,
        "hosts:\n  odd:\n    like: lenovo_sr665_v3\n    name: A test host\n    nvme_bays: 30\n"
        '    sources: {nvme_bays: "estimated: a test"}\n',
    )
    status, out, err = run_cli("predict", NVME, "--point", *catalog, "--set", "host=odd")
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "hosts.odd.nvme_bays: counts the NVMe-cabled bays among drive_bays (24)" in err


FOUR_BAYS = """hosts:
  four_bays:
    like: dell_r720
    name: A test host of four bays
    drive_bays: 4
    sources: {drive_bays: "estimated: a test"}
  four_bays_flash:
    like: lenovo_sr665_v3
    name: A test flash host of four bays
    drive_bays: 4
    sources: {drive_bays: "estimated: a test"}
"""

STORAGE = "data/templates/storage_server.yaml"  # eight drives on an internal HBA's channels


def test_an_internal_hba_s_drives_count_and_an_external_one_s_do_not(run_cli, tmp_path):
    """The review: drives on a card's channels sit in the host's bays, unless its drive ports are
    external (an "-8e" card, cabled to an enclosure of its own); a JBOD's drives are its own."""
    catalog = _parts(tmp_path, FOUR_BAYS)
    status, out, err = run_cli("predict", STORAGE, "--point", *catalog, "--set", "host=four_bays")
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "puts 8 drives in the bays of the host four_bays, which has 4 such bays" in err
    external = ("--set", "controllers.hba.part=dell_sas_hba_6g")
    status, _, err = run_cli(
        "predict", STORAGE, "--point", *catalog, "--set", "host=four_bays", *external
    )
    assert status == 0, err
    # purchase_hdd_md's 24 drives sit in its JBOD shelf, behind the HBA in the host
    jbod = ("--set", "host=four_bays_flash")
    status, _, err = run_cli("predict", "purchase_hdd_md", "--point", *catalog, *jbod)
    assert status == 0, err


def test_drives_behind_a_bare_expander_are_in_the_host_s_bays(run_cli, tmp_path):
    """A bare expander (the AEC-82885T, a card powered from its PCIe edge) serves the host's own
    backplane: twelve drives behind it in a host of four bays were predicted (the review)."""
    attach = [f"exp.{i}" for i in range(12)]
    shelf = "{part: adaptec_aec_82885t, uplink: [hba.0, hba.1, hba.2, hba.3]}"
    catalog = _parts(tmp_path, FOUR_BAYS)
    behind = (
        "--set",
        "host=four_bays",
        "--set",
        f"shelves={{exp: {shelf}}}",
        "--set",
        "volumes.data.disks.count=12",
        "--set",
        f"volumes.data.disks.attach=[{', '.join(attach)}]",
        "--set",
        "volumes.data.level=raid0",
    )
    status, out, err = run_cli("predict", STORAGE, "--point", *catalog, *behind)
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "puts 12 drives in the bays of the host four_bays" in err


def test_m2_drives_take_no_bay(run_cli, tmp_path):
    """The review: an M.2 drive (form_factor m.2) sits on the board, not in a bay; the eight
    U.2 drives of the same segments are refused on a host of four bays."""
    catalog = _parts(tmp_path, FOUR_BAYS)
    status, _, err = run_cli("predict", NVME, "--point", *catalog, "--set", "host=four_bays_flash")
    assert status == 2, err
    m2 = ("--set", "volumes.data.disks.part=samsung_980_pro_1tb")
    status, _, err = run_cli(
        "predict", NVME, "--point", *catalog, "--set", "host=four_bays_flash", *m2
    )
    assert status == 0, err


def test_a_switch_on_the_backplane_takes_no_slot_and_an_add_in_card_ssd_takes_one(
    run_cli, tmp_path
):
    """The review: bays behind a PCIe switch (the template's own advice, an uplink segment with the
    bays' segment hung from it) had been counted a card, so a host of two slots and a NIC card was
    refused; an add-in-card SSD is a card in a slot, and four of them leave the NIC none."""
    text = TWO_BY_TWO + (
        "ssds:\n  aic_ssd:\n    like: samsung_pm9a3_7680\n    name: A test add-in-card SSD\n"
        "    form_factor: add-in card\n"
    )
    catalog = _parts(tmp_path, text)
    switched = (
        "--set",
        "host=two_by_two",
        "--set",
        "buses.up0={part: pcie3_x16}",
        "--set",
        "buses.bays0={part: pcie3_x16, via: up0}",
        "--set",
        "buses.up1={part: pcie3_x16}",
        "--set",
        "buses.bays1={part: pcie3_x16, via: up1}",
    )
    status, out, err = run_cli("predict", NVME, "--point", *catalog, *switched)
    assert status == 0 and "controller cards hold" not in out, err
    cards = [f"nvme.c{i}.0" for i in range(4)]
    aic = ["--set", "host=two_by_two", "--set", "volumes.data.disks.part=aic_ssd"]
    aic += ["--set", "volumes.data.disks.count=4"]
    aic += ["--set", f"volumes.data.disks.attach=[{', '.join(cards)}]"]
    aic += ["--set", "buses={" + ", ".join(f"c{i}: {{part: pcie3_x4}}" for i in range(4)) + "}"]
    status, out, err = run_cli("predict", NVME, "--point", *catalog, *aic)
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "4 of them held by the controller cards of segments c0, c1, c2, c3" in err


def test_two_add_in_card_ssds_in_one_segment_are_refused(run_cli, tmp_path):
    """An add-in-card SSD is a card: two in one PCI Express segment, one slot's link, are refused
    as two controllers there are (slots.check_one_card_a_segment)."""
    text = TWO_BY_TWO + (
        "ssds:\n  aic_ssd:\n    like: samsung_pm9a3_7680\n    name: A test add-in-card SSD\n"
        "    form_factor: add-in card\n"
    )
    catalog = _parts(tmp_path, text)
    aic = ["--set", "host=two_by_two", "--set", "volumes.data.disks.part=aic_ssd"]
    aic += ["--set", "volumes.data.disks.count=2", "--set", "buses={c0: {part: pcie3_x4}}"]
    status, out, err = run_cli(
        "predict", NVME, "--point", *catalog, *aic,
        "--set", "volumes.data.disks.attach=[nvme.c0.0, nvme.c0.1]",
    )  # fmt: skip
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "volumes.data.disks[0] and volumes.data.disks[1] are both cards in buses.c0" in err
