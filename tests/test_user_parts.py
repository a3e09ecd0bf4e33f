"""The user's own parts: parts files (``catalogs:``, ``--catalog``), inline ``parts:``, ``like:``,
checked as the project's catalog is."""

import dataclasses
import json
import os

import pytest
import yaml
from quote_parts import PARTS
from quote_parts import write as _write

from model import catalog, paths, scenario, user_parts
from model.parts import CATEGORIES
from model.simulate import simulate
from model.storage import disk as disk_model


def _scenario(drives: int, **header) -> dict:
    return {
        "name": "quote_array",
        "model": "storage",
        "description": "md RAID0 of the quote's drives behind its HBA",
        "source": "a vendor's quote",
        "host": "quote_server",
        "buses": {"slot": {"part": "pcie3_x8"}},
        "controllers": {"hba": {"part": "quote_hba", "bus": "slot"}},
        "volumes": {
            "md0": {
                "level": "raid0",
                "disks": {
                    "part": "quote_hdd",
                    "count": drives,
                    "attach": [f"hba.{i}" for i in range(drives)],
                },
            }
        },
        "workload": {"op": "read", "target": "md0", "total_MB": 4000, "request_KiB": 1024},
        **header,
    }


def test_an_array_of_parts_the_catalog_does_not_hold_predicts_from_a_parts_file(tmp_path):
    _write(tmp_path / "quote_parts.yaml", PARTS)
    s = scenario.load(_write(tmp_path / "quote.yaml", _scenario(4, catalogs=["quote_parts.yaml"])))
    for kind, pid in (("disks", "quote_hdd"), ("hosts", "quote_server")):
        assert pid not in catalog.load().parts[kind]
    r = simulate(s)
    # four drives near their outer zone, nothing else in the way: about 4 x 200 MB/s, never more
    assert r.throughput_MBps <= r.bound_MBps * (1 + 1e-9)
    assert 3 * 190 < r.throughput_MBps <= 4 * 200
    assert r.bottleneck.startswith("disk md0")


def test_inline_parts_and_the_cli_catalog_flag_give_the_same_answer(tmp_path, run_cli):
    inline = simulate(scenario.load(_write(tmp_path / "a.yaml", _scenario(2, parts=PARTS))))
    parts_file = _write(tmp_path / "p.yaml", PARTS)
    status, out, err = run_cli(
        "predict",
        _write(tmp_path / "b.yaml", _scenario(2)),
        "--catalog",
        parts_file,
        "--json",
        "--point",
    )
    assert status == 0, err
    assert json.loads(out)["throughput_MBps"] == pytest.approx(inline.throughput_MBps, rel=1e-12)


def test_like_extends_a_catalog_part_and_each_changed_number_needs_its_source(tmp_path, run_cli):
    faster = {
        "disks": {
            "fast_wd": {
                "like": "wd1200jb",
                "rpm": 10000,
                "sources": {"rpm": "measured by us on 2026-11-24"},
            }
        }
    }
    s = scenario.load(_write(tmp_path / "s.yaml", _scenario(1, parts={**PARTS, **faster})))
    part = s.catalog.get("disks", "fast_wd", "", "")
    base = catalog.load().get("disks", "wd1200jb", "", "")
    assert part.rpm == 10000 and part.cache_MB == base.cache_MB and part.reports == ()
    unsourced = {"disks": {"fast_wd": {"like": "wd1200jb", "rpm": 10000}}}
    status, _, err = run_cli("predict", _write(tmp_path / "u.yaml", _scenario(1, parts=unsourced)))
    assert status == 2 and err.count("\n") == 1
    assert "parts.disks.fast_wd.sources: no source for rpm, changed from wd1200jb" in err


@pytest.mark.parametrize(
    "parts, message",
    [
        (
            {"disks": {"wd1200jb": {"like": "wd1200jb"}}},
            "the catalog already has a disk 'wd1200jb'",
        ),
        ({"disks": {"x": {"like": "no_such_drive"}}}, "parts.disks.x.like: names no disk"),
        (  # the vendor-quote audit: a short list had been given whole with no closest id
            {"ssds": {"x": {"like": "samsung_pm9a3_7860"}}},
            "samsung_pm9a3_7680; the closest: samsung_pm9a3_7680, ",
        ),
        (  # the input audit: a misspelt key's source had been taken without a word
            {"disks": {"x": {"like": "wd1200jb", "sources": {"rpmz": "measured"}}}},
            "parts.disks.x.sources.rpmz: a source for a key the part does not have; its keys: ",
        ),
        (  # the quotes audit: an SSD's id under disks: had been told only "names no disk"
            {"disks": {"x": {"like": "micron_9550_max_6400"}}},
            "parts.disks.x.like: names no disk: micron_9550_max_6400 is one of the ssds "
            "(data/hardware/ or your parts); like: extends a part of its own category, so a part "
            "like it goes under ssds:",
        ),
        (  # the review: an SSD of the same file, given after the disk that names it
            {"disks": {"x": {"like": "my_ssd"}}, "ssds": {"my_ssd": {"like": "samsung_980_1tb"}}},
            "parts.disks.x.like: names no disk: my_ssd is one of the ssds",
        ),
        ({"gadgets": {}}, "parts.gadgets: unknown category; allowed: disks"),
        (
            {"controllers": {"c": {**PARTS["controllers"]["quote_hba"], "sources": {}}}},
            "parts.controllers.c.sources: no source for channels",
        ),
        (  # the provenance audit: a host's slot counts, which refuse NIC cards, had no source
            {
                **PARTS,
                "hosts": {
                    "quote_server": {
                        "like": "dell_r720",
                        "buses": [{"bus": "pcie3_x16", "count": 4}],
                        "sources": {},
                    }
                },
            },
            "parts.hosts.quote_server.sources: no source for buses, changed from dell_r720",
        ),
        (
            {
                **PARTS,
                "hosts": {
                    "quote_server": {
                        **PARTS["hosts"]["quote_server"],
                        "sources": {
                            k: v
                            for k, v in PARTS["hosts"]["quote_server"]["sources"].items()
                            if k != "buses"
                        },
                    }
                },
            },
            "parts.hosts.quote_server.sources: no source for buses; every slot count needs one",
        ),
        (
            {"controllers": {"c": {**PARTS["controllers"]["quote_hba"], "host_bus": "warp9"}}},
            "c.host_bus: unknown bus 'warp9'",
        ),
        (  # a byte count past the model's integers once raised an OverflowError
            {
                "disks": {
                    "huge": {
                        "like": "wd1200jb",
                        "capacity_GB": 2.0**53,
                        "sources": {"capacity_GB": "estimated: a test"},
                    }
                }
            },
            "parts.disks.huge.capacity_GB: must be a capacity up to 1,000,000 GB",
        ),
        # the storage audit's wrong units, each accepted with status 0 and a figure moved
        (
            {
                "disks": {
                    "seconds": {
                        **PARTS["disks"]["quote_hdd"],
                        "avg_seek_read_ms": 0.007,
                        "track_to_track_ms": 0.00025,
                        "full_stroke_ms": 0.015,
                    }
                }
            },
            "parts.disks.seconds.avg_seek_read_ms: an average seek is at least 1 ms on any hard "
            "disk (in ms, not seconds), got 0.007",
        ),
        (
            {"disks": {"inward": {**PARTS["disks"]["quote_hdd"], "media_rate_inner_MBps": 400}}},
            "parts.disks.inward.media_rate_inner_MBps: at most media_rate_outer_MBps",
        ),
        (
            {
                "disks": {
                    "ncq": {
                        "like": "exos_x18_st18000nm000j",
                        "queue_depth": 128,
                        "sources": {"queue_depth": "estimated: a test"},
                    }
                }
            },
            "parts.disks.ncq.queue_depth: a SATA drive's Native Command Queuing holds at most 32",
        ),
        (
            {
                "ssds": {
                    "gbps": {
                        "like": "micron_9550_max_6400",
                        "seq_read_MBps": 14,
                        "sources": {"seq_read_MBps": "estimated: a test"},
                    }
                }
            },
            "parts.ssds.gbps.seq_read_MBps: at least half the 13,517 MB/s random_read_iops move "
            "in 4 KiB reads",
        ),
        (  # the parts audit: a write rate typed in GB/s predicted writes at 3.5 MB/s
            {
                "ssds": {
                    "gbps": {
                        "like": "micron_9550_max_6400",
                        "seq_write_MBps": 3.5,
                        "sources": {"seq_write_MBps": "estimated: a test"},
                    }
                }
            },
            "parts.ssds.gbps.seq_write_MBps: at least half the 2,621 MB/s random_write_iops move "
            "in 4 KiB writes",
        ),
        (  # beside a post-cache rate, the figure typed wrong is named, not the post-cache one
            {
                "ssds": {
                    "gbps": {
                        "like": "samsung_970_evo_plus_1tb",
                        "seq_write_MBps": 3.3,
                        "sources": {"seq_write_MBps": "estimated: a test"},
                    }
                }
            },
            "parts.ssds.gbps.seq_write_MBps: at least half the 2,253 MB/s random_write_iops move "
            "in 4 KiB writes",
        ),
        (  # the input audit: 50 MB/s beside a 270 MB/s outer zone predicted 269.7 MB/s
            {
                "disks": {
                    "slow": {
                        "like": "exos_x18_st18000nm004j",
                        "interface_rate_MBps": 50,
                        "sources": {"interface_rate_MBps": "estimated: a test"},
                    }
                }
            },
            "parts.disks.slow.interface_rate_MBps: at least media_rate_outer_MBps: a drive's link "
            "carries what its platters read (270 MB/s at the outer zone), got 50",
        ),
    ],
)
def test_a_mistake_in_a_part_is_one_line_and_status_2(tmp_path, run_cli, parts, message):
    status, out, err = run_cli("predict", _write(tmp_path / "s.yaml", _scenario(1, parts=parts)))
    assert status == 2 and not out and err.count("\n") == 1
    assert message in err


# two sheets that rate 4 KiB random writes a little above their sequential writes (MB/s)
OPTANE_P4800X_375 = {
    "capacity_GB": 375,
    "host_bus": "pcie3_x4",
    "seq_read_MBps": 2400,
    "seq_write_MBps": 2000,  # 500K IOPS x 4 KiB: 2,048 MB/s
    "random_read_iops": 550000,
    "random_write_iops": 500000,
    "iops_queue_depth": 16,
    "read_latency_us": 10,
    "write_latency_us": 10,
}
SAMSUNG_980_250 = {
    "capacity_GB": 250,
    "seq_read_MBps": 2900,
    "seq_write_MBps": 1300,  # 320K IOPS x 4 KiB: 1,311 MB/s
    "random_read_iops": 230000,
    "random_write_iops": 320000,
}


@pytest.mark.parametrize(
    "like, sheet",
    [("micron_9550_max_6400", OPTANE_P4800X_375), ("samsung_980_1tb", SAMSUNG_980_250)],
)
def test_a_sheet_rating_random_writes_a_little_above_sequential_ones_is_taken(like, sheet):
    """The parts review: the write check refused the Intel Optane P4800X's and the Samsung 980
    250 GB's sheets, whose random writes move a few percent more than their sequential rate; a
    sequential rate typed in GB/s, 1,000 times off, is still refused."""
    from model.errors import UserError
    from model.user_parts import with_parts

    def parts(**changed):
        figures = sheet | changed
        sources = dict.fromkeys(figures, "the maker's datasheet")
        return {"ssds": {"mine": {"like": like, **figures, "sources": sources}}}

    mine = with_parts(catalog.load(), parts(), "t").parts["ssds"]["mine"]
    assert mine.random_write_iops * 4096 / 1e6 > mine.seq_write_MBps == sheet["seq_write_MBps"]
    with pytest.raises(UserError, match=r"^t: parts.ssds.mine.seq_write_MBps: at least half the"):
        with_parts(catalog.load(), parts(seq_write_MBps=sheet["seq_write_MBps"] / 1000), "t")


def test_a_parts_file_is_read_only_inside_the_scenario_s_folder(tmp_path, run_cli):
    (tmp_path / "outside.yaml").write_text(yaml.safe_dump(PARTS))
    inner = tmp_path / "inner"
    inner.mkdir()
    for name in ("../outside.yaml", str(tmp_path / "outside.yaml")):
        status, _, err = run_cli("predict", _write(inner / "s.yaml", _scenario(1, catalogs=[name])))
        assert status == 2 and "catalogs[0]: must be a file in" in err


def test_the_same_part_id_twice_across_parts_files_is_refused(tmp_path, run_cli):
    """Told as the file's that defined it first: 'the catalog already has' named the project's
    catalog, which has no such part (the review)."""
    first = _write(tmp_path / "one.yaml", PARTS)
    second = _write(tmp_path / "two.yaml", {"disks": PARTS["disks"]})
    status, _, err = run_cli(
        "predict",
        _write(tmp_path / "s.yaml", _scenario(1)),
        "--catalog",
        first,
        "--catalog",
        second,
    )
    told = f"two.yaml: disks.quote_hdd: a disk 'quote_hdd' is already defined by {first}; give"
    assert status == 2 and err.count("\n") == 1 and told in err, err


def test_a_parts_file_the_scenario_names_and_catalog_gives_too_is_read_once(tmp_path, run_cli):
    """The quote audit: the README's form, `predict quote.yaml --catalog my_parts.yaml`, on a
    scenario whose catalogs: names my_parts.yaml too, was refused as defining its parts twice.
    The same file (by the file it is, here also through a link beside it) is read once; a
    different file defining the same part stays a mistake."""
    parts = _write(tmp_path / "my_parts.yaml", PARTS)
    (tmp_path / "same.yaml").symlink_to(parts)
    quote = _write(tmp_path / "quote.yaml", _scenario(2, catalogs=["my_parts.yaml", "same.yaml"]))
    alone = simulate(scenario.load(_write(tmp_path / "a.yaml", _scenario(2, parts=PARTS))))
    status, out, err = run_cli("predict", quote, "--catalog", parts, "--json", "--point")
    assert status == 0, err
    assert json.loads(out)["throughput_MBps"] == pytest.approx(alone.throughput_MBps, rel=1e-12)
    other = _write(tmp_path / "other.yaml", {"disks": PARTS["disks"]})
    status, _, err = run_cli("predict", quote, "--catalog", other, "--point")
    assert status == 2 and err.count("\n") == 1
    assert (
        f"my_parts.yaml: disks.quote_hdd: a disk 'quote_hdd' is already defined by {other}" in err
    )


def test_a_parts_file_given_by_a_hard_link_and_by_its_other_name_is_read_once(tmp_path, run_cli):
    """The review: --catalog hard.yaml, a hard link of the sub/parts.yaml the scenario's catalogs:
    names, was read as another file (they resolve to two paths): 'sub/parts.yaml:
    disks.quote_hdd: the catalog already has a disk 'quote_hdd''. It is one file, read once."""
    (tmp_path / "sub").mkdir()
    parts = _write(tmp_path / "sub" / "parts.yaml", PARTS)
    hard = tmp_path / "hard.yaml"
    os.link(parts, hard)
    quote = _write(tmp_path / "quote.yaml", _scenario(2, catalogs=["sub/parts.yaml"]))
    rates = []
    for given in ([], ["--catalog", str(hard)]):
        status, out, err = run_cli("predict", quote, *given, "--json", "--point")
        assert status == 0, err
        rates.append(json.loads(out)["throughput_MBps"])
    assert rates[0] == rates[1]


def test_where_the_data_lie_on_the_platters_sets_the_zone_s_rate(tmp_path, run_cli):
    rates = {}
    for start in (0.0, 0.9):
        data = _scenario(1, parts=PARTS)
        data["workload"]["start_fraction"] = start
        rates[start] = simulate(scenario.load(_write(tmp_path / "s.yaml", data))).throughput_MBps
    disk = scenario.load(_write(tmp_path / "s.yaml", _scenario(1, parts=PARTS))).catalog
    drive = disk.get("disks", "quote_hdd", "", "")
    span = 4000e6 / (drive.capacity_GB * 1e9)
    expected = {s: disk_model.mean_rate_MBps(drive, 1.0, s, span) for s in rates}
    assert rates[0.9] / rates[0.0] == pytest.approx(expected[0.9] / expected[0.0], rel=1e-3)
    assert 100 < rates[0.9] < rates[0.0] < 200  # inner zone 100 MB/s, outer 200 MB/s
    status, _, err = run_cli(
        "predict",
        _write(tmp_path / "s.yaml", _scenario(1, parts=PARTS)),
        "--set",
        "workload.start_fraction=0.9999999",
    )
    assert status == 2 and err.startswith("--set: workload.start_fraction: 4 GB of data do not fit")


@pytest.mark.parametrize("host", ["lenovo_sr665_v3", "dell_r720"])
def test_like_extends_a_catalog_host_with_its_bus_slots(host):
    """A host that differs from the catalog's by its NIC (the faster-NIC what-if): ``like:`` keeps
    the host's bus slots, which the extension used to hand back as records, not mappings."""
    base = catalog.load()
    extended = user_parts.with_parts(
        base,
        {
            "hosts": {
                "faster_nic": {
                    "like": host,
                    "nics": ["mellanox_cx6_100g"],
                    "sources": {"nics": "estimated: a 100 GbE card in place of its own"},
                }
            }
        },
        "test.yaml",
    )
    mine = extended.get("hosts", "faster_nic", "test.yaml", "host")
    theirs = base.get("hosts", host, "test.yaml", "host")
    assert mine.buses == theirs.buses and mine.buses
    assert mine.nics == ("mellanox_cx6_100g",) and mine.clock_GHz == theirs.clock_GHz


def test_a_sas_drive_without_its_queue_depth_is_refused(tmp_path, run_cli):
    """Every SAS drive queues tagged commands; left at the default of one, it would read at random
    half as fast as its SATA twin. One line, status 2, naming the file and the key."""
    parts = json.loads(json.dumps(PARTS))
    del parts["disks"]["quote_hdd"]["queue_depth"]
    del parts["disks"]["quote_hdd"]["sources"]["queue_depth"]
    parts_file = _write(tmp_path / "quote_parts.yaml", parts)
    s = _write(tmp_path / "quote.yaml", _scenario(4, catalogs=["quote_parts.yaml"]))
    status, out, err = run_cli("predict", s, "--point")
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"{parts_file}: disks.quote_hdd.queue_depth: a SAS drive queues"), err


def test_a_host_names_its_processor_and_takes_its_figures():
    """A host part's cpu: (data/hardware/cpus.yaml) gives what the host leaves out: cores, threads,
    base clock, one core's copy rate, memory type and its sockets' memory bandwidth, each with the
    CPU entry's source; a part extending another with like: takes its own cpu's figures."""
    from model.catalog import load
    from model.errors import UserError
    from model.user_parts import with_parts

    base = load()
    xeon = base.parts["cpus"]["intel_xeon_gold_6430"]
    mine = with_parts(
        base, {"hosts": {"mine": {"like": "lenovo_sr665_v3", "cpu": "intel_xeon_gold_6430"}}}, "t"
    ).parts["hosts"]["mine"]
    assert (mine.cores_per_cpu, mine.clock_GHz) == (xeon.cores, xeon.base_clock_GHz)
    assert mine.copy_rate_MBps == xeon.copy_rate_MBps
    assert mine.memory_bandwidth_MBps == pytest.approx(2 * xeon.peak_memory_MBps)
    assert mine.sources["clock_GHz"].endswith("(data/hardware/cpus.yaml intel_xeon_gold_6430)")
    with pytest.raises(
        UserError, match=r"parts.hosts.odd.cpu: names no cpu; the catalog .* amd_epyc"
    ):
        with_parts(base, {"hosts": {"odd": {"like": "lenovo_sr665_v3", "cpu": "z80"}}}, "t")


def test_a_part_may_be_built_from_one_further_down_its_file():
    """The purchase audit: 'c: {like: d}' with d below it was refused ('names no controller',
    listing the catalog's alone), where the schema says like: names the catalog's part or
    another of the file's; a host's cpu: of the same file likewise. A loop is one line."""
    from model.errors import UserError

    base = catalog.load()
    cpu = dict(user_parts._raw(base.parts["cpus"]["intel_xeon_gold_6430"]), name="my cpu")
    cpu.pop("reports", None)
    mine = user_parts.with_parts(
        base,
        {
            "controllers": {
                "c": {"like": "d", "name": "c card"},
                "d": {"like": "promise_ultra100_tx2", "name": "d card"},
            },
            "hosts": {"h": {"like": "lenovo_sr665_v3", "cpu": "my_cpu"}},
            "cpus": {"my_cpu": cpu},
        },
        "t",
    )
    assert mine.parts["controllers"]["c"].name == "c card"
    assert mine.parts["hosts"]["h"].clock_GHz == cpu["base_clock_GHz"]
    loop = {"c": {"like": "d", "name": "c"}, "d": {"like": "c", "name": "d"}}
    with pytest.raises(UserError, match=r"leads back to itself through controllers.c -> "):
        user_parts.with_parts(base, {"controllers": loop}, "t")


def test_an_unknown_part_s_list_says_when_it_holds_the_scenario_s_own_parts(run_cli):
    """The purchase audit: the list after 'unknown nic' named the project's catalog file alone
    while it held the parts the scenario adds too."""
    # "has: ID, ID, ..." up to ten parts, "has 11 (...)" past them
    status, _, err = run_cli("predict", "purchase_nvme", "--set", "clients.nic=nosuchnic")
    assert status == 2 and "nics.yaml, with the parts this scenario adds) has" in err
    status, _, err = run_cli("predict", "eah_download", "--set", "server_nic=nosuchnic")
    assert status == 2 and "(data/hardware/nics.yaml) has" in err


def _shipped(category: str, pid: str) -> dict:
    """A catalog part as its file writes it, to list in a parts file of the test's."""
    return yaml.safe_load((paths.HARDWARE / f"{category}.yaml").read_text())[pid]


def _refusal(tmp_path, run_cli, parts: dict) -> str:
    parts_file = _write(tmp_path / "mine.yaml", parts)
    status, out, err = run_cli(
        "predict", _write(tmp_path / "s.yaml", _scenario(1)), "--catalog", parts_file
    )
    assert status == 2 and not out and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    "listed_under, category, pid",
    [
        ("disks", "ssds", "micron_9550_max_6400"),
        ("controllers", "nics", "mellanox_cx6_100g"),
        ("ssds", "disks", "exos_x24_st24000nm002h"),
    ],
)
def test_a_part_listed_under_another_category_is_told_its_category(
    tmp_path, run_cli, listed_under, category, pid
):
    """The parts audit: an NVMe drive listed under disks: was refused as 'host_bus: unknown key',
    which sent its writer looking for a key they had right."""
    part = _shipped(category, pid)
    err = _refusal(tmp_path, run_cli, {listed_under: {"mine": part}})
    theirs = {f.name for f in dataclasses.fields(CATEGORIES[listed_under])}
    assert f"mine.yaml: {listed_under}.mine: {', '.join(sorted(set(part) - theirs))} " in err
    assert f"of {category} parts, not of {listed_under}: list it under {category}:" in err


@pytest.mark.parametrize(
    "listed_under, part, key",
    [
        # one key of another category's beside a category's few required keys: a key typed wrong
        ("links", {"name": "x", "rate_Gbps": 100, "sources": {"rate_Gbps": "t"}}, "rate_Gbps"),
        ("links", {"name": "x", "lanes": 4, "sources": {}}, "lanes"),
        ("links", {"name": "x", "kind": "pcie", "sources": {}}, "kind"),
        ("buses", {"name": "x", "host_bus": "pcie4_x16", "sources": {}}, "host_bus"),
        # a hard disk with a stray host_bus, a key of flash drives, is no flash drive
        (
            "disks",
            _shipped("disks", "exos_x24_st24000nm002h") | {"host_bus": "sata_6g"},
            "host_bus",
        ),
    ],
)
def test_another_category_s_key_in_a_part_of_its_own_category_stays_an_unknown_key(
    tmp_path, run_cli, listed_under, part, key
):
    """The parts review: a link with rate_Gbps for capacity_Gbps was told to list itself under
    nics:, where "unknown key; allowed here: ..., capacity_Gbps" was right: one key of another
    category is what is wrong, not the category."""
    err = _refusal(tmp_path, run_cli, {listed_under: {"mine": part}})
    assert f"{listed_under}.mine.{key}: unknown key; allowed here:" in err


@pytest.mark.parametrize(
    "key, written, told",
    [
        ("seq_read_MBps", "14000 MB/s", "must be a number of MB/s, without the unit: write 14000"),
        ("seq_read_MBps", "3.5 GB/s", "must be a number of MB/s, without the unit: write 3500"),
        ("read_latency_us", "0.06 ms", "must be a number of µs, without the unit: write 60"),
        (  # a unit of another measure converts to nothing: the key's unit and range are said
            "seq_read_MBps",
            "3.5 GB",
            "must be a number of MB/s, without the unit: a drive's rate above 0",
        ),
    ],
)
def test_a_number_written_with_its_unit_is_told_the_number_to_write(
    tmp_path, run_cli, key, written, told
):
    """The parts audit: '14000 MB/s' was refused with the key's range alone, which a figure of
    14,000 is inside; a unit that converts (3.5 GB/s) gives the number in the key's unit."""
    ssd = {"like": "micron_9550_max_6400", key: written, "sources": {key: "a test"}}
    err = _refusal(tmp_path, run_cli, {"ssds": {"mine": ssd}})
    assert f"ssds.mine.{key}: {told}" in err and f"got {written!r}" in err


def test_a_nic_s_line_rate_with_its_unit_is_told_in_gbit_s(tmp_path, run_cli):
    nic = {"like": "mellanox_cx6_100g", "rate_Gbps": "100 Gb/s", "sources": {"rate_Gbps": "t"}}
    err = _refusal(tmp_path, run_cli, {"nics": {"mine": nic}})
    assert "nics.mine.rate_Gbps: must be a number of Gbit/s, without the unit: write 100" in err


@pytest.mark.parametrize(
    "bus, closest",
    [("pcie6_x4", "pcie5_x4"), ("pcie4.0_x4", "pcie4_x4"), ("pcie4_16x", "pcie4_x16")],
)
def test_an_unknown_bus_is_told_the_closest_ids_and_where_all_are_listed(
    tmp_path, run_cli, bus, closest
):
    """The parts audit: an unknown host_bus was refused with a line of some 700 characters
    listing every bus id; the line now gives the closest and where the whole list is, which
    `schema buses` prints."""
    ssd = {"like": "micron_9550_max_6400", "host_bus": bus}
    err = _refusal(tmp_path, run_cli, {"ssds": {"mine": ssd}})
    buses = catalog.load().parts["buses"]
    assert f"ssds.mine.host_bus: unknown bus {bus!r}; the catalog (data/hardware/buses.yaml" in err
    schema = "python -m model schema buses lists those of data/hardware/buses.yaml"
    assert f"has {len(buses)} ({schema}), the closest: " in err
    assert closest in err.rpartition("the closest: ")[2].split(", ")
    assert sum(pid in err.split() for pid in buses) < len(buses) / 2
    status, listing, _ = run_cli("schema", "buses")
    assert status == 0 and all(pid in listing for pid in buses)


def test_an_unknown_id_is_told_the_ids_holding_it_and_what_schema_lists(run_cli):
    """The parts review: --set host=sr665 was told "none close to it" beside lenovo_sr665_v3, and
    "has 14 (python -m model schema hosts lists them)" where schema lists the catalog's 13, not
    the host purchase_nvme adds."""
    status, _, err = run_cli("predict", "purchase_nvme", "--set", "host=sr665")
    hosts = catalog.load().parts["hosts"]
    assert status == 2 and err.rstrip().endswith("the closest: lenovo_sr665_v3"), err
    schema = "python -m model schema hosts lists those of data/hardware/hosts.yaml"
    assert f"has {len(hosts) + 1} ({schema})" in err
    status, listing, _ = run_cli("schema", "hosts")
    assert status == 0 and all(pid in listing for pid in hosts)
    assert "epyc_storage_server" not in listing


def test_an_id_close_to_none_asks_for_the_parts_file_it_may_be_in(run_cli):
    """The vendor-quote audit: a scenario whose parts file was not given named its quoted host
    and was told only 'none close to it'."""
    status, _, err = run_cli("predict", "purchase_nvme", "--point", "--set", "host=quote_2u")
    assert status == 2 and err.count("\n") == 1, err
    assert err.rstrip().endswith(
        "none close to it (a part of your own? give its parts file: --catalog FILE, or "
        "catalogs: [FILE] in the scenario)"
    ), err


def test_a_short_list_with_nothing_close_asks_for_the_parts_file_too(run_cli):
    """The review: an enclosure of a quote among the catalog's four, close to none, was given the
    list alone."""
    status, _, err = run_cli(
        "predict", "purchase_hdd_zfs", "--point", "--set", "shelves.jbod.part=quote_jbod"
    )
    assert status == 2 and err.count("\n") == 1, err
    assert err.rstrip().endswith(
        "broadcom_sas3x48; a part of your own? give its parts file: --catalog FILE, or "
        "catalogs: [FILE] in the scenario"
    ), err
