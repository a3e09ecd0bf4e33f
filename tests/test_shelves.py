"""JBOD shelves and SAS expanders: a controller's ports fan out to many drives, and the uplink is
one lane group every drive behind it shares."""

import json

import pytest
import yaml
from quote_parts import PARTS, write

from model import catalog, paths, scenario
from model.simulate import simulate
from model.storage import framing

LANE = catalog.load().get("buses", "sas_12g_lane", "", "")
LANE_MBps = LANE.peak_MBps  # 12 Gb/s, 8b/10b


def _shelf(drives: int, uplink: list[str], part: str = "wd_ultrastar_data60") -> dict:
    return {
        "name": "sixty_bay_shelf",
        "model": "storage",
        "description": "md RAID0 of near-line drives in a JBOD behind one HBA",
        "source": "a planner's proposal",
        "parts": {"hosts": PARTS["hosts"], "controllers": PARTS["controllers"]},
        "host": "quote_server",
        "buses": {"slot": {"part": "pcie3_x8"}},
        "controllers": {"hba": {"part": "broadcom_9400_8i", "bus": "slot"}},
        "shelves": {"jbod": {"part": part, "uplink": uplink}},
        "volumes": {
            "md0": {
                "level": "raid0",
                "disks": {
                    "part": "exos_x18_st18000nm004j",
                    "count": drives,
                    "attach": [f"jbod.{i}" for i in range(drives)],
                },
                "filesystem": {"type": "xfs"},  # extents: no block map crosses the uplink
            }
        },
        # one direct reader with 64 requests of 1 MiB in flight: no page cache copy holds it (one
        # dd alone is held by its core's copies near 1.4 GB/s), and no other reader takes turns at
        # the drives with it (model.storage.interleave)
        "workload": {
            "op": "read",
            "target": "md0",
            "total_MB": 16000,
            "request_KiB": 1024,
            "io": "direct",
            "queue_depth": 64,
        },
    }


@pytest.mark.parametrize("lanes", [1, 2, 4])
def test_the_uplink_caps_every_drive_behind_it(tmp_path, lanes):
    # 24 drives of 270 MB/s behind an 8-port HBA: the shelf's wide port is the limit
    uplink = [f"hba.{i}" for i in range(lanes)]
    r = simulate(scenario.load(write(tmp_path / "s.yaml", _shelf(24, uplink))))
    cap_MBps = lanes * LANE_MBps * framing.payload_share(LANE, 256)  # SSP frames
    assert r.bound_MBps == pytest.approx(cap_MBps, rel=1e-9)
    assert r.bottleneck == "uplink jbod"
    assert cap_MBps * 0.99 < r.throughput_MBps <= r.bound_MBps


def test_a_few_drives_behind_a_wide_uplink_run_at_the_drives_rate(tmp_path):
    r = simulate(
        scenario.load(write(tmp_path / "s.yaml", _shelf(4, [f"hba.{i}" for i in range(4)])))
    )
    assert r.bottleneck.startswith("disk md0")
    assert r.throughput_MBps < 4 * 270 < 4 * LANE_MBps


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"part": "one_port_expander", "uplink": [f"hba.{i}" for i in range(5)]},
            "takes at most 4 uplink lanes",
        ),
        (
            {"part": "no_such_shelf"},
            "shelves.jbod.part: unknown enclosure or expander 'no_such_shelf'",
        ),
        ({"uplink": ["hba.9"]}, ": channels 0 to 7, got 'hba.9'"),
    ],
)
def test_a_shelf_mistake_is_one_line_and_status_2(tmp_path, run_cli, change, message):
    data = _shelf(2, ["hba.0"])
    data["parts"]["expanders"] = {
        "one_port_expander": {
            "like": "adaptec_aec_82885t",
            "uplink_ports": 1,
            "sources": {"uplink_ports": "estimated: a cabling with one wide port"},
        }
    }
    data["shelves"]["jbod"].update(change)
    status, out, err = run_cli("predict", write(tmp_path / "s.yaml", data))
    assert status == 2 and not out and err.count("\n") == 1 and message in err


def test_a_bay_the_shelf_does_not_have_and_a_lane_used_twice_are_refused(tmp_path, run_cli):
    data = _shelf(2, ["hba.0"])
    data["volumes"]["md0"]["disks"]["attach"] = ["jbod.0", "jbod.60"]
    status, _, err = run_cli("predict", write(tmp_path / "a.yaml", data))
    assert status == 2 and "two I/O modules: bays 0 to 59, got 'jbod.60'" in err, err
    data = _shelf(2, ["hba.0", "hba.0"])
    status, _, err = run_cli("predict", write(tmp_path / "b.yaml", data))
    assert status == 2 and "shelves.jbod.uplink[1]: hba.0 is already taken" in err
    # a bay or a lane written twice with a leading zero (the code review: eight drives in four bays)
    data = _shelf(2, ["hba.0"])
    data["volumes"]["md0"]["disks"]["attach"] = ["jbod.0", "jbod.00"]
    status, _, err = run_cli("predict", write(tmp_path / "c.yaml", data))
    assert status == 2 and "attach[1]: must be" in err and "got 'jbod.00'" in err, err
    data = _shelf(2, ["hba.0", "hba.00"])
    status, _, err = run_cli("predict", write(tmp_path / "d.yaml", data))
    assert status == 2 and "uplink[1]: must be CONTROLLER.CHANNEL" in err and "'hba.00'" in err


@pytest.mark.parametrize("level", ["raid5", "raid6"])
def test_a_parity_read_leaves_its_parity_behind_the_uplink(tmp_path, level):
    """A read of a parity array moves only the data chunks over the wire (the platters turn past
    the parity); a write carries the parity too. Parity was charged to the uplink on reads, so 48
    drives behind one wide port read at the write's (N - p)/N of the wire. (The write itself is
    held first by the array's one raid5d, a stripe_head per page of 48 members.)"""
    spec = _shelf(48, [f"hba.{i}" for i in range(4)])
    spec["volumes"]["md0"]["level"] = level
    cap_MBps = 4 * LANE_MBps * framing.payload_share(LANE, 256)
    read = simulate(scenario.load(write(tmp_path / "r.yaml", spec)))
    spec["workload"]["op"] = "write"
    written = simulate(scenario.load(write(tmp_path / "w.yaml", spec)))
    data = 48 - {"raid5": 1, "raid6": 2}[level]
    assert read.bottleneck == "uplink jbod"
    assert read.bound_MBps == pytest.approx(cap_MBps, rel=1e-9)
    assert written.bottleneck == "raid5d md0.0"
    assert written.utilization["uplink jbod"] * cap_MBps == pytest.approx(
        written.throughput_MBps * 48 / data, rel=1e-6
    )


def test_a_shelf_is_added_by_set_as_the_refusal_says(run_cli):
    """--set shelves.jbod.part=... on a scenario without shelves said "no entry 'jbod' under
    shelves; allowed: none", and not how to add one."""
    status, out, err = run_cli(
        "predict", "ext_arr_cm4_md_raid0", "--set", "shelves.jbod.part=wd_ultrastar_data60"
    )
    assert status == 2 and not out and err.count("\n") == 1
    assert err == (
        "--set: shelves.jbod.part: no entry 'jbod' under shelves; allowed: none; a new one is set "
        "whole: --set 'shelves.jbod={part: ..., uplink: [...]}'\n"
    )
    shelf = "shelves.jbod={part: wd_ultrastar_data60, uplink: [hba.4, hba.5, hba.6, hba.7]}"
    attach = "volumes.md0.disks.attach=[jbod.0, jbod.1, jbod.2, jbod.3]"
    status, out, err = run_cli(
        "predict", "ext_arr_cm4_md_raid0", "--set", shelf, "--set", attach, "--point", "--json"
    )
    assert status == 0, err
    assert "uplink jbod" in json.loads(out)["utilization"], out  # the drives sit in the shelf


@pytest.mark.parametrize("lanes", [1, 4])
def test_a_sata_drive_holds_a_faster_uplink_lane_at_its_own_rate(tmp_path, lanes):
    """24 SATA 6 Gb/s drives behind 12 Gb/s SAS lanes: the SAS standard's rate matching runs each
    connection at the drive's 6 Gb/s, ALIGNs filling the lane, so the uplink carries half its
    rate (the planner's twelve SATA SSDs on an 8-lane expander: 6,720 -> 4,637 MB/s); an expander
    that buffers carries the whole."""
    shelf = _shelf(24, [f"hba.{i}" for i in range(lanes)])
    shelf["volumes"]["md0"]["disks"]["part"] = "exos_x18_st18000nm000j"  # the SATA model
    aligned = simulate(scenario.load(write(tmp_path / "a.yaml", shelf)))
    shelf["shelves"]["jbod"]["rate_matching"] = "buffered"
    buffered = simulate(scenario.load(write(tmp_path / "b.yaml", shelf)))
    assert aligned.bottleneck == buffered.bottleneck == "uplink jbod"
    assert aligned.bound_MBps == pytest.approx(buffered.bound_MBps / 2, rel=1e-9)
    # a SAS 12 Gb/s drive runs at the lanes' rate either way
    sas = simulate(
        scenario.load(write(tmp_path / "s.yaml", _shelf(24, shelf["shelves"]["jbod"]["uplink"])))
    )
    assert sas.bound_MBps == pytest.approx(buffered.bound_MBps, rel=1e-9)


def _forty(shelf: dict) -> dict:
    """40 drives: more than eight 12 Gb/s lanes carry (10,800 against 9,274 MB/s)."""
    shelf["volumes"]["md0"]["disks"]["count"] = 40
    shelf["volumes"]["md0"]["disks"]["attach"] = [f"jbod.{i}" for i in range(40)]
    return shelf


def _two_hbas() -> dict:
    """The shelf cabled by a wide port to each of two HBAs, each in its own PCIe 3.0 x8 slot."""
    shelf = _forty(_shelf(40, [f"hba.{i}" for i in range(4)] + [f"hba2.{i}" for i in range(4)]))
    shelf["buses"]["slot2"] = {"part": "pcie3_x8"}
    shelf["controllers"]["hba2"] = {"part": "broadcom_9400_8i", "bus": "slot2"}
    return shelf


def test_a_shelf_cabled_to_two_hbas_carries_both_wide_ports(tmp_path):
    """A JBOD's two x4 host ports to two HBAs (the planner's quote, refused as 'a wide port's
    lanes are on one controller'): each HBA's slot takes half the bytes, so the eight lanes bind
    at 9,274 MB/s, where one HBA with all eight is held by its PCIe 3.0 x8 slot (7,202 MB/s)."""
    two = simulate(scenario.load(write(tmp_path / "two.yaml", _two_hbas())))
    one_hba = _forty(_shelf(40, [f"hba.{i}" for i in range(8)]))
    one = simulate(scenario.load(write(tmp_path / "one.yaml", one_hba)))
    assert one.bottleneck == "bus slot"
    assert two.bottleneck == "uplink jbod"
    assert two.bound_MBps == pytest.approx(8 * LANE_MBps * framing.payload_share(LANE, 256))
    assert two.utilization["bus slot"] == pytest.approx(two.utilization["bus slot2"], rel=1e-9)
    assert two.utilization["bus slot"] == pytest.approx(
        two.throughput_MBps / 2 / one.bound_MBps, rel=0.01
    )


def test_a_raid_card_volume_on_a_shelf_cabled_to_two_controllers_is_one_line(tmp_path, run_cli):
    shelf = _two_hbas()
    shelf["volumes"]["md0"]["engine"] = "controller"
    status, out, err = run_cli("predict", str(write(tmp_path / "s.yaml", shelf)), "--point")
    assert status == 2 and not out and err.count("\n") == 1
    assert "volumes.md0.engine: a RAID card keeps a volume on its own channels" in err


def test_a_sata_drive_fills_no_lane_that_already_runs_at_its_rate(tmp_path):
    """Behind a 6 Gb/s HBA the shelf's lanes train at 6 Gb/s, a SATA 6 Gb/s drive's rate: no
    ALIGNs, align as buffered (it was halved to 579.6 MB/s of 1,159, the review); with a wide port
    to a 12 Gb/s HBA and one to a 6 Gb/s one, only the faster lanes are held at half their rate,
    and each HBA takes half the bytes (the lanes carry 600 MB/s each)."""
    shelf = _forty(_shelf(40, [f"hba.{i}" for i in range(4)]))
    shelf["controllers"]["hba"]["part"] = "dell_sas_hba_6g"
    shelf["volumes"]["md0"]["disks"]["part"] = "exos_x18_st18000nm000j"  # SATA
    aligned = simulate(scenario.load(write(tmp_path / "a.yaml", shelf)))
    shelf["shelves"]["jbod"]["rate_matching"] = "buffered"
    buffered = simulate(scenario.load(write(tmp_path / "b.yaml", shelf)))
    assert aligned.bound_MBps == pytest.approx(buffered.bound_MBps, rel=1e-9)
    mixed = _two_hbas()
    mixed["controllers"]["hba2"]["part"] = "dell_sas_hba_6g"
    mixed["volumes"]["md0"]["disks"]["part"] = "exos_x18_st18000nm000j"
    r = simulate(scenario.load(write(tmp_path / "m.yaml", mixed)))
    six_MBps = catalog.load().get("buses", "sas_6g_lane", "", "").peak_MBps
    assert r.bottleneck == "uplink jbod"
    assert r.bound_MBps == pytest.approx(8 * six_MBps * framing.payload_share(LANE, 256), rel=0.02)
    assert r.utilization["bus slot"] == pytest.approx(r.utilization["bus slot2"], rel=0.05)


def _raid_card_shelf(op: str, io: str) -> dict:
    """Two drives mirrored by a RAID card (write-back on) in a JBOD cabled to its ports."""
    s = _shelf(2, [f"raid.{i}" for i in range(4)])
    s["controllers"] = {
        "raid": {
            "part": "megaraid_9460_8i",
            "bus": "slot",
            "processor_MHz": 1200,
            "write_back": True,
        }
    }
    s["volumes"]["md0"].update({"level": "raid1", "engine": "controller"})
    s["workload"] = {"op": op, "target": "md0", "total_MB": 100, "request_KiB": 32, "io": io}
    return s


@pytest.mark.parametrize("io", ["buffered", "mmap"])
def test_a_raid_card_s_volume_in_a_shelf_is_held_by_the_card_its_uplink_reaches(tmp_path, io):
    """A RAID card's mirror in a JBOD: its write-back cache and its policies are those of the card
    the shelf's uplink is cabled to (a write of it and a memory map over it had been a KeyError
    traceback, the shelf taken for a controller); 100 MB fits the card's 2,048 MB cache."""
    r = simulate(scenario.load(write(tmp_path / "s.yaml", _raid_card_shelf("write", io))))
    assert 0 < r.throughput_MBps <= r.bound_MBps * (1 + 1e-9)
    if io == "buffered":
        assert any("fits in raid's 2,048 MB write-back cache" in n for n in r.notes)


@pytest.mark.parametrize("name", ["purchase_hdd_zfs", "purchase_hdd_md"])
def test_the_catalog_s_60_bay_shelf_leaves_its_rate_matching_open(run_cli, name):
    """The purchase audit: SATA drives in the Data60 predicted half the SAS drives' rate, its
    interval 'moved by no declared unknown', though its guide says neither how its expanders rate
    match nor that they buffer: the catalog's Data60 and Data102 declare both, so the interval
    reaches the buffered figure; 12 Gb/s SAS drives, which neither moves, keep theirs."""
    sata = ["--set", "volumes.data.disks.part=exos_x24_st24000nm002h"]
    status, out, err = run_cli("predict", name, *sata, "--json")
    assert status == 0, err
    shown = json.loads(out)
    status, out, err = run_cli(
        "predict", name, *sata, "--set", "shelves.jbod.rate_matching=buffered", "--point", "--json"
    )
    buffered = json.loads(out)["throughput_MBps"]
    assert buffered > 1.5 * shown["throughput_MBps"]
    assert shown["throughput_MBps_interval"][1] >= 0.999 * buffered
    assert "shelves.jbod.rate_matching" in json.dumps(shown["drivers"])
    status, out, err = run_cli("predict", name, "--json")
    assert "rate_matching" not in json.dumps(json.loads(out)["drivers"])


def test_two_shelves_of_one_model_share_one_rate_matching_unknown(run_cli, tmp_path):
    """The fact is the shelf model's, one for every copy of it: two Data60s of SATA drives, an LVM
    stripe over both, had an unknown each; each alone moved nothing (the other shelf still bound),
    so the interval reached the buffered figure while 'moved by no declared unknown'. They are now
    one unknown, varied together, and it takes the whole spread; a shelf the user sets is known,
    and the other's unknown is its own again."""
    data = yaml.safe_load((paths.SCENARIOS / "purchase_hdd_md.yaml").read_text())
    data["shelves"]["jbod2"] = {
        "part": "wd_ultrastar_data60",
        "uplink": [f"hba.{i}" for i in (4, 5, 6, 7)],
    }
    volume = data["volumes"]["data"]
    volume.update(groups=4, lvm_stripes=4)
    volume["disks"].update(
        part="exos_x24_st24000nm002h",
        count=48,
        attach=[f"jbod.{i}" for i in range(24)] + [f"jbod2.{i}" for i in range(24)],
    )
    path = write(tmp_path / "two.yaml", data)
    status, out, err = run_cli("predict", path, "--json")
    assert status == 0, err
    shown = json.loads(out)
    joint = "rate_matching of every wd_ultrastar_data60"
    (declared,) = [u for u in shown["unknowns"] if "rate_matching" in json.dumps(u)]
    assert declared["key"] == joint
    assert declared["keys"] == ["shelves.jbod.rate_matching", "shelves.jbod2.rate_matching"]
    assert shown["drivers"][joint] > 0.99
    status, out, err = run_cli(
        "predict", path, "--set", "shelves.jbod.rate_matching=buffered", "--json"
    )
    left = [u["key"] for u in json.loads(out)["unknowns"] if "rate_matching" in json.dumps(u)]
    assert left == ["shelves.jbod2.rate_matching"]


def test_a_shelf_added_whole_by_set_leaves_its_part_s_unknowns_open(run_cli):
    """The review: a mapping set whole made every key below it known, so a Data60 added with
    --set 'shelves.jbod2={part: ..., uplink: [...]}' had its rate_matching taken as known; only
    the keys the mapping gives are."""
    attach = [f"jbod.{i}" for i in range(24)] + [f"jbod2.{i}" for i in range(24)]
    second = [
        "shelves.jbod2={part: wd_ultrastar_data60, uplink: [hba.4, hba.5, hba.6, hba.7]}",
        "volumes.data.disks.part=exos_x24_st24000nm002h",
        "volumes.data.disks.count=48",
        "volumes.data.groups=4",
        "volumes.data.lvm_stripes=4",
        f"volumes.data.disks.attach=[{', '.join(attach)}]",
    ]
    status, out, err = run_cli(
        "predict", "purchase_hdd_md", *[a for o in second for a in ("--set", o)], "--json"
    )
    assert status == 0, err
    keys = [u["key"] for u in json.loads(out)["unknowns"] if "rate_matching" in json.dumps(u)]
    assert keys == ["rate_matching of every wd_ultrastar_data60"]
    given = [*second, "shelves.jbod2.rate_matching=buffered"]
    status, out, err = run_cli(
        "predict", "purchase_hdd_md", *[a for o in given for a in ("--set", o)], "--json"
    )
    keys = [u["key"] for u in json.loads(out)["unknowns"] if "rate_matching" in json.dumps(u)]
    assert keys == ["shelves.jbod.rate_matching"]


def test_a_bare_expander_s_bays_say_why_and_fewer_host_ports_leave_more(tmp_path, run_cli):
    """A planner's audit: a bare SAS3x48 behind two cabled lanes refused bay 24 without saying why
    (its 24 host-side phys are held, cabled or not); the refusal says so, and an expander of the
    parts file with two host ports, as it advises, takes the drive."""
    data = _shelf(25, ["hba.0", "hba.1"], part="broadcom_sas3x48")
    status, out, err = run_cli("predict", write(tmp_path / "a.yaml", data))
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "bays 0 to 23 (its 48 phys less its 6 x4 ports toward the host, its uplink_ports" in err
    data["parts"]["expanders"] = {
        "two_port_expander": {
            "like": "broadcom_sas3x48",
            "uplink_ports": 2,
            "sources": {"uplink_ports": "estimated: a switch board with two ports to the host"},
        }
    }
    data["shelves"]["jbod"]["part"] = "two_port_expander"
    status, _, err = run_cli("predict", write(tmp_path / "b.yaml", data))
    assert status == 0, err


def test_drives_slower_than_a_shelf_s_lanes_say_what_align_costs_them():
    """A physics audit: SATA drives in purchase_hdd_md's 12 Gb/s shelf halved its rate (1,932
    against 3,571 MB/s, the uplink binding) with no word of why; the note says each holds a lane at
    its own 6 Gb/s under align, and that a buffering expander would not. SAS drives at the lanes'
    rate, or a shelf that buffers, say nothing."""
    sata = ["volumes.data.disks.part=exos_x24_st24000nm002h"]

    def said(overrides):
        notes = simulate(scenario.load("purchase_hdd_md", overrides)).notes
        return [n for n in notes if "rate_matching: align (the SAS standard's)" in n]

    (note,) = said(sata)
    assert "its own link (600 MB/s) is slower than the shelf's uplink lanes (1,200 MB/s)" in note
    assert "50% of what the lane carries" in note
    assert said([]) == []
    assert said([*sata, "shelves.jbod.rate_matching=buffered"]) == []
