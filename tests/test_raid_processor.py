"""A RAID card's processor clock where the catalog gives none: a scenario gives it
(``controllers.NAME.processor_MHz``) or declares it an unknown, and the card's own RAID engine is
modelled; without one it is "not modelled", the message naming the key. What a card offers its
volume: the RAID levels its datasheet lists (a listed one the lab does not simulate is "not
modelled"), and the cache block sizes its manual lists (``cache_block_sizes_KiB``)."""

import json

import pytest
import yaml
from grid_files import one_line

from model import catalog, paths, scenario
from model.errors import NotModelled
from model.params import calibrated
from model.simulate import simulate

BROWNIE = "atlas_brownie"  # slide 7's unnamed 2002 IDE RAID box: no published processor


def _run(*overrides):
    return simulate(scenario.load(BROWNIE, list(overrides)), calibrated())


def test_without_a_clock_the_card_s_engine_is_not_modelled_and_the_key_is_named():
    with pytest.raises(NotModelled, match=r"controllers\.brownie\.processor_MHz"):
        _run()


def test_a_raid_processor_s_rate_is_its_clock_over_the_cycles_its_writes_cost():
    """Where the processor binds, its rate is proportional to its clock: each drive command a
    card's write sends costs it raid_cycles_per_write_command cycles (model.storage.topology)."""
    slow, slower = (
        _run("controllers.brownie.processor_MHz=2", "workload.op=write"),
        _run("controllers.brownie.processor_MHz=1", "workload.op=write"),
    )
    assert slow.bottleneck == slower.bottleneck == "raid brownie.0"
    assert slow.bound_MBps == pytest.approx(2 * slower.bound_MBps, rel=1e-9)


def test_a_scenario_s_clock_replaces_the_catalog_s():
    """The IOP332 has a catalog clock; a scenario's, set low enough that the engine binds, rules
    in its place: half the clock, half the engine's rate."""
    body = scenario.load("psu_write", ["variant=raid"]).body
    (name,) = [n for n, c in body.controllers.items() if c.part == "intel_iop332_raid"]
    clock = catalog.load().parts["controllers"]["intel_iop332_raid"].processor_MHz
    assert clock is not None
    runs = [
        simulate(
            scenario.load("psu_write", ["variant=raid", f"controllers.{name}.processor_MHz={mhz}"]),
            calibrated(),
        )
        for mhz in (clock / 1000, clock / 2000)
    ]
    assert runs[0].bottleneck == runs[1].bottleneck == f"raid {name}.0"
    assert runs[0].bound_MBps == pytest.approx(2 * runs[1].bound_MBps, rel=1e-9)


def test_an_unknown_clock_spreads_the_interval_and_is_named_as_its_driver(run_cli, tmp_path):
    """A clock the sources leave unsaid, declared over a range: the interval spans what the range
    costs, and the prediction names the unknown as what moved it most."""
    data = yaml.safe_load((paths.SCENARIOS / f"{BROWNIE}.yaml").read_text())
    data["controllers"]["brownie"]["processor_MHz"] = 2
    data["workload"]["op"] = "write"
    data["unknowns"] = {
        "controllers.brownie.processor_MHz": {"range": [1, 6], "source": "a test's range"}
    }
    path = tmp_path / "brownie.yaml"
    path.write_text(yaml.safe_dump(data))
    status, out, err = run_cli("predict", str(path), "--json")
    assert status == 0, err
    result = json.loads(out)
    low, high = result["throughput_MBps_interval"]
    at_1 = _run("controllers.brownie.processor_MHz=1", "workload.op=write").throughput_MBps
    assert low <= at_1 < result["throughput_MBps"] < high
    assert max(result["drivers"], key=result["drivers"].get) == "controllers.brownie.processor_MHz"


def test_a_read_costs_the_card_s_processor_a_request_and_a_write_its_commands():
    """The storage audit: a card given a clock held reads to its write cost (60 drives behind a
    1.2 GHz MegaRAID at 382 MB/s, where md on the same drives gave 4,625). A read costs it 5,000
    cycles a request (HP's P421: 200,000 4 KB reads a second at 1000 MHz), so a sequential read
    at 50 MHz runs as at 600, at the drives' and the links' limit (the brief's Figure 6), and
    4 KiB reads at random hold a 1 MHz card to 200 a second."""
    reads = [_run(f"controllers.brownie.processor_MHz={mhz}") for mhz in (50, 600)]
    assert reads[0].throughput_MBps == pytest.approx(reads[1].throughput_MBps, rel=1e-9)
    assert not reads[0].bottleneck.startswith("raid ")
    write = _run("controllers.brownie.processor_MHz=2", "workload.op=write")
    assert write.bottleneck == "raid brownie.0"
    assert write.throughput_MBps < reads[0].throughput_MBps / 2
    at_random = (
        "workload.pattern=random",
        "workload.io=direct",
        "workload.request_KiB=4",
        "workload.queue_depth=32",
    )
    slow = _run("controllers.brownie.processor_MHz=1", *at_random)
    assert slow.bottleneck == "raid brownie.0"
    assert slow.throughput_MBps * 1e6 / 4096 == pytest.approx(200, rel=0.01)


def test_a_card_without_cache_blocks_pays_its_writes_drive_commands(run_cli, tmp_path):
    """The purchase audit: the MD3260's cost a 4 KiB cache block held any card to its clock over
    12,870 cycles, a 1.5 GHz MegaRAID's RAID0 of eight SATA SSDs to 477 MB/s, an eighth of what its
    drives write. A card that keeps no cache blocks pays raid_cycles_per_write_command, 5,000
    cycles by default, a drive command its writes send (HP's P421): there the drives bind; and
    4 KiB random RAID5 writes, read-modify-writes of two reads and two writes, hold a 1 MHz card
    to 1e6 / (5,000 x 4) = 50 a second."""
    quote = tmp_path / "quote.yaml"
    assert run_cli("new", "storage_server", "--out", str(quote))[0] == 0
    card = [
        "controllers.hba.part=megaraid_9560_8i",
        "controllers.hba.processor_MHz=1500",
        "volumes.data.engine=controller",
        "volumes.data.disks.part=samsung_870_evo_1tb",
        "workload.total_MB=10000",
    ]
    direct = ["workload.io=direct", "workload.queue_depth=32"]
    raid0 = simulate(
        scenario.load(str(quote), [*card, *direct, "volumes.data.level=raid0"]), calibrated()
    )
    assert raid0.bottleneck.startswith("disk ") and raid0.throughput_MBps > 4000
    small = [
        *card,
        "controllers.hba.processor_MHz=1",
        "volumes.data.level=raid5",
        *direct,
        "workload.pattern=random",
        "workload.request_KiB=4",
    ]
    r = simulate(scenario.load(str(quote), small), calibrated())
    assert r.bottleneck == "raid hba.0"
    assert r.throughput_MBps * 1e6 / 4096 == pytest.approx(1e6 / (5000 * 4), rel=0.01)
    assert any("5,000 cycles for each drive command its writes send" in n for n in r.notes)
    # its range (1,250 to 5,000: HP's I/Os counted as a RAID5 write's host requests or as drive
    # commands) is in the interval: four times the IOPS at its low end
    cheap = simulate(
        scenario.load(str(quote), small), {**calibrated(), "raid_cycles_per_write_command": 1250}
    )
    assert cheap.throughput_MBps == pytest.approx(4 * r.throughput_MBps, rel=0.01)
    # the MD3260, which keeps cache blocks, is charged its fitted cost a block as before; a card
    # without refuses the array's setting, which moved nothing on it (the review)
    assert catalog.load().parts["controllers"]["dell_md3260"].cache_blocks
    # with the card's clock, and without it, whose absence (the catalog gives the 9560 none) would
    # be status 3: the key is refused before the clock is looked up
    unclocked = [o for o in card if "processor_MHz" not in o]
    for overrides in (card, unclocked):
        status, _, err = run_cli(
            "predict",
            str(quote),
            "--point",
            *[a for o in overrides for a in ("--set", o)],
            "--set",
            "volumes.data.cache_block_KiB=32",
        )
        assert status == 2, err
        assert "volumes.data.cache_block_KiB" in err and "keeps no cache blocks" in err, err


def test_a_card_s_volume_at_a_level_its_datasheet_does_not_list_is_refused(run_cli, tmp_path):
    """The provenance audit: the catalog's raid_levels were "for the reader", so a card offering
    RAID1 alone was modelled at RAID6. A level outside a card's listed levels is one line and
    status 2; one drive alone is its JBOD; a card whose levels no source gives is not checked."""
    quote = tmp_path / "quote.yaml"
    assert run_cli("new", "storage_server", "--out", str(quote))[0] == 0
    parts = tmp_path / "parts.yaml"
    parts.write_text(
        "controllers:\n  mirror_card:\n    like: megaraid_9560_8i\n"
        "    name: a card that mirrors only\n    raid_levels: [raid1, jbod]\n"
    )
    card = ["controllers.hba.part=mirror_card", "controllers.hba.processor_MHz=1500"]
    card += ["volumes.data.engine=controller", "--point"]
    at = [a for o in card for a in (("--set", o) if "=" in o else (o,))]
    status, out, err = run_cli("predict", str(quote), "--catalog", str(parts), *at)
    assert status == 2 and out == ""
    assert err.strip().endswith(
        "volumes.data.level: mirror_card offers raid1, jbod (the catalog's raid_levels), not "
        "raid6: choose one of those, or engine: md over the card's drives"
    )
    assert len(err.strip().splitlines()) == 1
    for level, count in (("raid1", 2), ("single", 1)):
        status, _, err = run_cli(
            "predict",
            str(quote),
            "--catalog",
            str(parts),
            *at,
            "--set",
            f"volumes.data.level={level}",
            "--set",
            f"volumes.data.disks.count={count}",
        )
        assert status == 0, err
    # the Brownie's box, whose slide names no level, takes any
    assert not catalog.load().parts["controllers"]["brownie_raid"].raid_levels
    assert _run("controllers.brownie.processor_MHz=100", "volumes.array.level=raid6").bottleneck


def test_a_volume_whose_groups_two_cards_head_takes_each_card_s_settings(run_cli, tmp_path):
    """The review: the cards that head a volume were read off its first drive, so a RAID6 of two
    groups, one on each of two MegaRAIDs, refused the second card's clock as 'no volume here is
    rc2's' and, without it, was not modelled until that very key gave one."""
    attach = [f"rc1.{i}" for i in range(8)] + [f"rc2.{i}" for i in range(8)]
    card = {"part": "megaraid_9460_8i", "processor_MHz": 1200, "write_back": True}
    data = {
        "name": "two cards",
        "model": "storage",
        "description": "two MegaRAIDs, each heading one RAID6 group of one LVM-striped volume",
        "source": "estimated: a test",
        "host": "dell_r720",
        "buses": {"slot1": {"part": "pcie3_x8"}, "slot2": {"part": "pcie3_x8"}},
        "controllers": {"rc1": {**card, "bus": "slot1"}, "rc2": {**card, "bus": "slot2"}},
        "volumes": {
            "data": {
                "level": "raid6",
                "engine": "controller",
                "groups": 2,
                "lvm": "striped",
                "lvm_stripes": 2,
                "disks": {"part": "exos_x18_st18000nm004j", "count": 16, "attach": attach},
                "filesystem": {"type": "xfs", "block_KiB": 4},
            }
        },
        "workload": {"op": "write", "target": "data", "total_MB": 100000, "request_KiB": 1024},
    }
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump(data))
    status, out, err = run_cli("predict", str(path), "--point")
    assert status == 0, err
    assert "MB/s" in out
    # the model reads the volume's write cache off its first group's card: the second's own,
    # set apart, had been accepted and ignored (the last review: 7.64 MB/s either way)
    data["controllers"]["rc2"]["write_back"] = False
    path.write_text(yaml.safe_dump(data))
    status, _, err = run_cli("predict", str(path), "--point")
    assert status == 2 and err.strip().endswith(
        "controllers.rc2.write_back: volume data takes its cards' write_back from rc1, its first "
        "group's (true): set it alike on rc1, rc2"
    ), err


@pytest.mark.parametrize("kib", ["0.5", "3", "1e9"])
def test_an_md_series_cache_block_is_one_of_the_sizes_its_manual_lists(run_cli, kib):
    """The input audit: any positive cache block was taken and the MD3260's rate scaled with it
    (0.5 KiB 31.8 MB/s, 3 KiB 190.9, 1e9 KiB 875.7). The array takes 4, 8, 16 or 32 KiB (the
    catalog's cache_block_sizes_KiB, Dell's and NetApp's manuals): anything else is one line."""
    one_line(
        run_cli("predict", "em_ingest", "--point", "--set", f"volumes.lv.cache_block_KiB={kib}"),
        "--set: volumes.lv.cache_block_KiB:",
        "4, 8, 16, 32 KiB",
        "cache_block_sizes_KiB",
    )
    block = catalog.load().parts["controllers"]["dell_md3260"].cache_block_sizes_KiB
    assert block == (4.0, 8.0, 16.0, 32.0)
    rates = [
        simulate(scenario.load("em_ingest", [f"volumes.lv.cache_block_KiB={size:g}"]), calibrated())
        for size in block
    ]
    assert rates[0].throughput_MBps < rates[1].throughput_MBps  # a dearer block each 4 KiB


def test_a_cache_block_set_on_a_card_without_them_is_refused_whatever_its_value(run_cli):
    """The input audit: the check fired where the value differed from the default, so 4 KiB on
    the 3ware card was taken and ignored while 8 was refused; and md took 4 KiB alike. Set is
    refused; unset is the array's own (4 KiB as shipped) where the card keeps them."""
    for kib in (4, 8):
        one_line(
            run_cli(
                "predict",
                "psu_write",
                "--point",
                "--set",
                f"volumes.threeware_raid.cache_block_KiB={kib}",
            ),
            "volumes.threeware_raid.cache_block_KiB",
            "keeps no cache blocks",
        )
    one_line(
        run_cli("predict", "purchase_hdd_md", "--point", "--set", "volumes.data.cache_block_KiB=4"),
        "volumes.data.cache_block_KiB: only for engine: controller",
    )
    unset = simulate(scenario.load("em_ingest", ["volumes.lv.cache_block_KiB=null"]), calibrated())
    at_4 = simulate(scenario.load("em_ingest", ["volumes.lv.cache_block_KiB=4"]), calibrated())
    assert unset.throughput_MBps == at_4.throughput_MBps


def test_a_card_s_cache_block_sizes_need_a_source_and_bind_an_unset_block(run_cli, tmp_path):
    """A list of numbers is a figure as a number is: the catalog refuses one without a source.
    With one, a volume that leaves its block unset on an array that does not take 4 KiB, the
    MD-series' as shipped, is told to set one of its sizes."""
    card = (
        "controllers:\n  my_array:\n    name: an array of other sizes\n    type: raid\n"
        "    host_bus: sas_6g_x4\n    channels: 180\n    channel_bus: sas_6g_lane\n"
        "    cache_block_sizes_KiB: [8, 64]\n"
    )
    parts = tmp_path / "parts.yaml"
    parts.write_text(card + "    sources: {channels: 'estimated: a test'}\n")
    one_line(
        run_cli("predict", "em_ingest", "--point", "--catalog", str(parts)),
        "my_array.sources",
        "cache_block_sizes_KiB",
    )
    sourced = "{channels: 'estimated: a test', cache_block_sizes_KiB: 'estimated: a test'}"
    parts.write_text(card + f"    sources: {sourced}\n")
    settings = ("controllers.md3260.part=my_array", "volumes.lv.cache_block_KiB=null")
    one_line(
        run_cli(
            "predict",
            "em_ingest",
            "--point",
            "--catalog",
            str(parts),
            *[a for s in settings for a in ("--set", s)],
        ),
        "volumes.lv.cache_block_KiB: an array of other sizes takes cache blocks of 8, 64 KiB",
        "got none, so 4 KiB, an MD-series array's as shipped: set one",
    )


def test_a_level_the_card_lists_that_the_lab_does_not_simulate_is_not_modelled(run_cli, tmp_path):
    """The input audit: the MD3260's ddp, which its catalog entry lists, and a MegaRAID's raid50
    were refused as mistakes ('must be one of ...'). A level a card lists that the lab does not
    simulate is status 3, one line; a level the card does not list, or md does not build, or
    nobody has, stays status 2."""
    status, out, err = run_cli("predict", "em_ingest", "--point", "--set", "volumes.lv.level=ddp")
    assert status == 3 and out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("not modelled yet: a ddp volume on dell_md3260 (volumes.lv.level")
    one_line(
        run_cli("predict", "em_ingest", "--point", "--set", "volumes.lv.level=raid50"),
        "dell_md3260 offers raid0, raid1, raid5, raid6, raid10, ddp",
    )
    one_line(
        run_cli("predict", "em_ingest", "--point", "--set", "volumes.lv.level=raid7"),
        "volumes.lv.level: must be one of",
    )
    one_line(
        run_cli("predict", "purchase_hdd_md", "--point", "--set", "volumes.data.level=raid50"),
        "volumes.data.level: raid50 is a RAID card's level, which md does not build",
    )
    quote = tmp_path / "quote.yaml"
    assert run_cli("new", "storage_server", "--out", str(quote))[0] == 0
    card = ["controllers.hba.part=megaraid_9560_8i", "controllers.hba.processor_MHz=1500"]
    card += ["volumes.data.engine=controller", "volumes.data.level=raid60"]
    status, out, err = run_cli(
        "predict", str(quote), "--point", *[a for o in card for a in ("--set", o)]
    )
    assert status == 3 and out == "", err
    assert "a raid60 volume on megaraid_9560_8i" in err and "its catalog entry lists" in err
    # a volume the workload leaves idle costs nothing to simulate, whatever its level
    spare = (
        "volumes.spare={level: raid60, engine: controller, disks: {part: exos_x18_st18000nm004j, "
        "count: 4, attach: [hba.4, hba.5, hba.6, hba.7]}}"
    )
    card[-1] = "volumes.data.level=raid6"
    card += ["volumes.data.disks.count=4", "volumes.data.disks.attach=[hba.0,hba.1,hba.2,hba.3]"]
    status, out, err = run_cli(
        "predict", str(quote), "--point", *[a for o in (*card, spare) for a in ("--set", o)]
    )
    assert status == 0 and "MB/s" in out, err


def test_every_level_a_card_lists_is_simulated_or_known_not_modelled():
    """What ties the spec's levels to the catalog: a level a card's raid_levels lists is one the
    lab simulates, one it knows it does not (raid.UNMODELLED_LEVELS), or the jbod a one-drive
    volume is (level single)."""
    from model.storage.raid import MODELLED_LEVELS, UNMODELLED_LEVELS

    known = {*MODELLED_LEVELS, *UNMODELLED_LEVELS, "jbod"}
    listed = {
        level for card in catalog.load().parts["controllers"].values() for level in card.raid_levels
    }
    assert listed <= known, listed - known
    assert {"ddp", "raid50", "raid60", "raid3"} <= listed
