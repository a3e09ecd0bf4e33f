"""The purchase candidates of notebooks/plan_a_purchase.ipynb: eight servers writing 612 KiB images
over SMB to a hard-disk shelf under md or ZFS, or to NVMe drives. Each predicts, and each is held
where the bottleneck law says: the shelf's one 4-lane wide port (data and parity of 12-drive
double-parity groups, and RAIDZ2's padding), md's two raid5d threads ahead of it, or the server's
two bonded 25 GbE ports, never the NVMe drives or lanes."""

import json

import pytest

from model import catalog, scenario, templates
from model.network import tcp
from model.simulate import simulate
from model.storage import framing, front, raid5d

CANDIDATES = ("purchase_hdd_md", "purchase_hdd_zfs", "purchase_nvme")
SMB_WRITE = front.payload_per_byte("smb", "write", 612 * 1024)


@pytest.mark.parametrize("name", CANDIDATES)
def test_each_candidate_predicts_within_its_bound_and_interval(run_cli, name):
    status, out, err = run_cli("predict", name, "--json")
    assert status == 0 and not err, err
    r = json.loads(out)
    low, high = r["throughput_MBps_interval"]
    assert 0 < r["throughput_MBps"] <= r["bound_MBps"] * (1 + 1e-9)
    assert low <= r["throughput_MBps"] <= high
    assert scenario.load(name).source == "estimated: a planning example"


# bytes across the shelf's port per byte written: two groups of twelve with two parity drives
# each, 12 for 10 under md; a 1 MiB record on a 12-wide RAIDZ2 vdev of 4 KiB sectors is 256 data
# sectors and 2 x 26 parity, 308, padded to a multiple of 3: 309 for 256 (model.storage.zfs)
ON_THE_PORT = {"purchase_hdd_md": 12 / 10, "purchase_hdd_zfs": 309 / 256}


@pytest.mark.parametrize("name", ["purchase_hdd_md", "purchase_hdd_zfs"])
def test_the_shelf_s_wide_port_carries_data_and_parity(name):
    lane = catalog.load().get("buses", "sas_12g_lane", "", "")
    lane_MBps = lane.peak_MBps
    port_MBps = 4 * lane_MBps * framing.payload_share(lane, 256)
    r = simulate(scenario.load(name))
    assert r.utilization["uplink jbod"] * port_MBps == pytest.approx(
        r.throughput_MBps * ON_THE_PORT[name], rel=1e-6
    )
    if name == "purchase_hdd_zfs":  # the port binds
        assert r.bottleneck == "uplink jbod"
        assert r.bound_MBps == pytest.approx(port_MBps / ON_THE_PORT[name], rel=1e-9)
        assert 0.99 * r.bound_MBps < r.throughput_MBps <= r.bound_MBps
    else:  # the two arrays' raid5d threads bind first (test_md_s_raid5d_threads_hold_...)
        assert r.bottleneck.startswith("raid5d data.")
        assert 0.9 * port_MBps * 10 / 12 < r.throughput_MBps < port_MBps * 10 / 12


def test_md_s_raid5d_threads_hold_its_stream_writes_below_zfs_s_on_the_same_drives():
    """Full stripes of two md RAID6 groups of twelve, one raid5d each: a stripe_head per page of
    the 10 data members, a write to all 12 (batched a 512 KiB chunk's 128 pages to a pass) and
    1.5 copies of parity a byte, on the EPYC 9354's 3.25 GHz; ZFS, whose checksums and parity
    spread over the host's cores, is held by the JBOD's port."""
    md, zfs = (simulate(scenario.load(n)) for n in CANDIDATES[:2])
    per_stripe = 12 * (raid5d.MD_CYCLES_PER_MEMBER_REQUEST + raid5d.MD_CYCLES_PER_MEMBER_SLOT / 128)
    per_byte_s = per_stripe / (10 * 4096) / 3.25e9 + 1.5 / 11000e6
    assert md.throughput_MBps == pytest.approx(2 / per_byte_s / 1e6, rel=1e-3)
    assert md.throughput_MBps < zfs.throughput_MBps


def test_the_nvme_candidate_is_held_by_the_bond_not_its_drives():
    r = simulate(scenario.load("purchase_nvme"))
    bond_MBps = 2 * 25e9 / 8 / tcp.tcp_wire_per_byte(1500) / SMB_WRITE / 1e6
    assert r.bottleneck.startswith("nic storage.")
    assert r.bound_MBps == pytest.approx(bond_MBps, rel=1e-9)
    drives = {k: u for k, u in r.utilization.items() if k.startswith(("disk", "bus"))}
    assert drives and max(drives.values()) < 0.5  # the drives and their lanes are far from full
    # half the drives change nothing: the network, not the flash, sets the pace
    fewer = simulate(
        scenario.load(
            "purchase_nvme",
            [
                "volumes.data.disks.count=4",
                "volumes.data.disks.attach=[nvme.riser0.0,nvme.riser0.1,nvme.riser1.0,nvme.riser1.1]",
            ],
        )
    )
    assert fewer.throughput_MBps == pytest.approx(r.throughput_MBps, rel=1e-6)


def test_a_raid_card_whose_processor_is_unpublished_says_what_is_modelled(run_cli, tmp_path):
    # a quote's MegaRAID doing the RAID itself was refused without saying md RAID over it predicts
    quote = tmp_path / "quote.yaml"
    assert run_cli("new", "storage_server", "--out", str(quote))[0] == 0
    card = ["--set", "controllers.hba.part=megaraid_9560_8i"]
    status, _, err = run_cli(
        "predict", str(quote), *card, "--set", "volumes.data.engine=controller"
    )
    assert status == 3 and err.count("\n") == 1
    assert (
        "processor's clock is not in the catalog" in err
        and "until controllers.hba.processor_MHz gives one" in err
        and "engine: md, the host's RAID over its drives, is" in err
    ), err
    status, out, _ = run_cli("predict", str(quote), *card, "--point")
    assert status == 0 and "MB/s" in out
    # what the line says to do works: a parts file's card gives a clock and declares the clocks
    # its documentation allows (refused before: 'the scenario's own value null', the purchase
    # audit, for the scenario leaves processor_MHz null to take the part's)
    parts = tmp_path / "parts.yaml"
    parts.write_text(
        "controllers:\n  megaraid_x:\n    like: megaraid_9560_8i\n    name: my card\n"
        "    processor_MHz: 1500\n    sources: {processor_MHz: 'estimated: a quote'}\n"
        "    unknowns:\n      processor_MHz: {range: [1200, 2000], source: 'estimated: x'}\n"
    )
    mine = ["--catalog", str(parts), "--set", "controllers.hba.part=megaraid_x"]
    engine = ["--set", "volumes.data.engine=controller", "--json"]
    status, out, err = run_cli("predict", str(quote), *mine, *engine)
    assert status == 0, err
    assert "controllers.hba.processor_MHz" in json.dumps(json.loads(out)["unknowns"]), out


def test_the_template_listing_aligns_each_name_beside_its_first_sentence(run_cli):
    status, out, err = run_cli("new")
    assert status == 0, err
    lines = out.splitlines()[1:]
    assert len(lines) == len(templates.available())
    starts = {line.index(line.split()[1], len(line.split()[0]) + 2) for line in lines}
    assert len(starts) == 1  # one column, the longest name's width and two spaces
    assert all(line.rstrip().endswith(".") for line in lines)  # whole sentences


@pytest.mark.parametrize("op", ["read", "write"])
def test_nvme_drives_on_a_segment_refuse_a_card_s_engine_in_one_line(run_cli, op):
    """The purchase audit: the NVMe candidate's RAID10 read under engine: controller was a
    traceback (KeyError: 'nvme', a mirror's reads looking up a card that is not there); its write
    was refused in one line. Both are refused as the scenario loads."""
    status, out, err = run_cli(
        "predict",
        "purchase_nvme",
        "--set",
        "volumes.data.engine=controller",
        "--set",
        f"workload.op={op}",
    )
    assert status == 2 and out == "" and "Traceback" not in err, err
    assert err.strip() == (
        "--set: volumes.data.engine: NVMe drives on a bus segment need md (no card holds them)"
    )


def test_one_worker_thread_an_array_lets_the_md_build_reach_its_jbod_s_port():
    """The notebook's reading: md's build is held by its two raid5d threads at group_thread_cnt 0;
    with one worker an array (two threads each, 1.70 times one) the JBOD's wide port binds
    instead, at 3,864 MB/s, as ZFS's build is held by it."""
    alone = simulate(scenario.load("purchase_hdd_md"))
    shared = simulate(scenario.load("purchase_hdd_md", ["volumes.data.md_group_thread_cnt=1"]))
    assert alone.bottleneck.startswith("raid5d data.")
    assert shared.bottleneck == "uplink jbod"
    assert shared.throughput_MBps == pytest.approx(3_864, abs=1)
    assert max(u for k, u in shared.utilization.items() if k.startswith("raid5d")) < 1.0
