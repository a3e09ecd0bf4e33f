"""Declared unknowns (model/unknowns.py): a scenario's or a catalog part's ``unknowns:`` block is
hostile input, refused with one line naming the file, the key and what is allowed; the shipped ones
load, cite a source and are listed by ``python -m model schema``."""

import pytest
import yaml

from model import paths, scenario, unknowns
from tests.grid_files import one_line
from tests.scenario_copies import copy_scenario

SOURCE = "a test's own documentation"


def _scenario(tmp_path, block, **extra):
    """atlas_intellistation (request_KiB 128, kernel defaults) with ``block`` as its unknowns."""
    raw = yaml.safe_load((paths.SCENARIOS / "atlas_intellistation.yaml").read_text())
    raw["unknowns"] = block
    raw.update(extra)
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


HOSTILE = [
    ([1, 2], "unknowns", "must be a mapping"),
    ({}, "unknowns", "must be a mapping"),
    ({"workload.nonsense": {"options": [1, 2], "source": SOURCE}}, "workload.nonsense", "not a"),
    ({"unknowns": {"options": [1, 2], "source": SOURCE}}, "unknowns.unknowns", "scenario key"),
    ({"workload.request_KiB": {"options": [128, 256]}}, "source", "missing"),
    ({"workload.request_KiB": {"options": [128, 256], "source": "a\nb"}}, "source", "one line"),
    (
        {"workload.request_KiB": {"options": [128], "range": [1, 2], "source": SOURCE}},
        "workload.request_KiB",
        "exactly one of",
    ),
    ({"workload.request_KiB": {"source": SOURCE}}, "workload.request_KiB", "exactly one of"),
    ({"workload.request_KiB": {"range": [256, 64], "source": SOURCE}}, "range", "low < high"),
    ({"workload.request_KiB": {"range": [64, ".inf"], "source": SOURCE}}, "range", "finite"),
    ({"workload.request_KiB": {"options": [128], "source": SOURCE}}, "options", "2 to 16"),
    ({"workload.request_KiB": {"options": [128, 128], "source": SOURCE}}, "options", "twice"),
    ({"workload.request_KiB": {"options": [128, "big"], "source": SOURCE}}, "options[1]", "must"),
    ({"workload.request_KiB": {"options": [64, 256], "source": SOURCE}}, "default", "one of 64"),
    ({"kernel.dirty_ratio_pct": {"range": [10, 30], "source": SOURCE}}, "default", "from 10 to"),
    ({"volumes.md0.level": {"range": [0, 1], "source": SOURCE}}, "range", "numeric key"),
    ({"workload.request_KiB": {"options": [128, 64], "source": SOURCE, "x": 1}}, "x", "allowed"),
    (
        {"workload.request_KiB": {"options": [128, 64], "source": SOURCE, "variants": ["no"]}},
        "variants",
        "no variant 'no'",
    ),
    ({"volumes.md9.chunk_KiB": {"options": [64, 128], "source": SOURCE}}, "md9", "entry"),
]

# one fact that sets several keys together: a name, each option the keys it sets
SHIPPED = {"workload.request_KiB": 128, "workload.total_MB": 4000}  # atlas_intellistation's own
LARGER = {"workload.request_KiB": 256, "workload.total_MB": 8000}


def _fact(options, **extra):
    return {"reading": {"options": options, "source": SOURCE, **extra}}


TWO = {"a": SHIPPED, "b": LARGER}
BIG = {**LARGER, "workload.request_KiB": "big"}
NONSENSE = {"a": {"workload.nonsense": 1}, "b": {"workload.nonsense": 2}}
OWN = "own values (workload.request_KiB=128.0, workload.total_MB=4000.0)"
FIRST = "the keys the first option sets: workload.request_KiB, workload.total_MB"
TWICE = {**_fact(TWO), "workload.request_KiB": {"options": [128, 64], "source": SOURCE}}
HOSTILE_JOINT = [
    ({"workload.x": {"options": TWO, "source": SOURCE}}, "workload.x", "words without dots"),
    (_fact({"a": SHIPPED}), "reading.options", "2 to 16 options"),
    (_fact({"a": SHIPPED, "b": 5}), "reading.options.b", "must be a mapping"),
    (_fact({"a": SHIPPED, "b": {"workload.request_KiB": 64}}), "reading.options.b", FIRST),
    (_fact({"a": SHIPPED, "b": dict(SHIPPED)}), "reading.options.b", "another option sets"),
    (_fact({"a": {"workload..x": 1}, "b": LARGER}), "reading.options.a.workload..x", "dotted"),
    (_fact(NONSENSE), "reading.options.a", "not a scenario key"),
    (_fact({"a": SHIPPED, "b": BIG}), "reading.options.b.workload.request_KiB", "must"),
    (_fact({"a": LARGER, "b": {**LARGER, "workload.total_MB": 2000}}), "reading", OWN),
    (_fact(TWO, variants=["no"]), "reading.variants", "no variant 'no'"),
    (TWICE, "unknowns.workload.request_KiB", "sets workload.request_KiB, as reading does"),
]


@pytest.mark.parametrize("block, key, words", HOSTILE)
def test_a_hostile_unknowns_block_is_refused_with_one_line(run_cli, tmp_path, block, key, words):
    path = _scenario(tmp_path, block)
    one_line(run_cli("predict", str(path), "--point"), "mine.yaml", key, words)


@pytest.mark.parametrize("block, key, words", HOSTILE_JOINT)
def test_a_hostile_fact_setting_several_keys_is_refused_with_one_line(
    run_cli, tmp_path, block, key, words
):
    path = _scenario(tmp_path, block)
    one_line(run_cli("predict", str(path), "--point"), "mine.yaml", key, words)


def test_a_fact_setting_several_keys_is_one_unknown_and_an_override_of_one_makes_it_known(
    tmp_path,
):
    path = _scenario(tmp_path, _fact({"a": SHIPPED, "larger": LARGER}))
    (found,) = scenario.load(path).unknowns
    assert (found.key, found.default, found.options) == ("reading", "a", ("a", "larger"))
    assert found.scenario_keys == ("workload.request_KiB", "workload.total_MB")
    assert found.assignment("larger") == LARGER
    shown = "one of a (workload.request_KiB=128.0, workload.total_MB=4000.0); larger ("
    assert found.allowed().startswith(shown)
    assert scenario.load(path, ["workload.total_MB=1000"]).unknowns == ()


def test_a_catalog_part_s_unknowns_are_checked_where_the_part_is_defined(run_cli, tmp_path):
    parts = {"controllers": {"my_promise": {"like": "promise_ultra100_tx2", "unknowns": [1]}}}
    path = _scenario(tmp_path, None, parts=parts)
    one_line(run_cli("predict", str(path), "--point"), "mine.yaml", "my_promise.unknowns")


def _with_my_promise(tmp_path, unknowns):
    """The scenario with promise2 a user's Promise card that declares ``unknowns``."""
    parts = {"controllers": {"my_promise": {"like": "promise_ultra100_tx2", "unknowns": unknowns}}}
    path = _scenario(tmp_path, None, parts=parts)
    raw = yaml.safe_load(path.read_text())
    raw["controllers"]["promise2"]["part"] = "my_promise"
    path.write_text(yaml.safe_dump(raw))
    return path


def test_a_catalog_part_s_unknown_must_be_a_key_beside_a_part_somewhere(run_cli, tmp_path):
    typo = {"write_bak": {"options": [False, True], "source": SOURCE}}
    path = _with_my_promise(tmp_path, typo)
    one_line(run_cli("predict", str(path), "--point"), "my_promise.unknowns.write_bak", "not a")


def test_a_catalog_part_s_unknown_applies_beside_the_key_that_names_it(tmp_path):
    policy = {"write_back": {"options": [False, True], "source": SOURCE}}
    path = _with_my_promise(tmp_path, policy)
    (found,) = scenario.load(path).unknowns
    assert (found.key, found.default, found.options) == (
        "controllers.promise2.write_back",
        False,
        (False, True),
    )


def test_a_catalog_part_s_unknown_sets_one_key(run_cli, tmp_path):
    options = {"a": {"write_back": False}, "b": {"write_back": True}}
    path = _with_my_promise(tmp_path, {"write_back": {"options": options, "source": SOURCE}})
    where = "my_promise.unknowns.write_back.options"
    one_line(run_cli("predict", str(path), "--point"), "mine.yaml", where, "takes one key")


def test_a_value_set_on_the_command_line_is_known_and_a_variant_selects_its_unknowns():
    assert [u.key for u in scenario.load("psu_write").unknowns] == ["kernel.dirty_ratio_pct"]
    assert scenario.load("psu_write", ["kernel.dirty_ratio_pct=20"]).unknowns == ()
    sata = scenario.load("psu_mmap", ["variant=sata"]).unknowns
    raid = scenario.load("psu_mmap", ["variant=raid"]).unknowns
    assert [u.key for u in sata] == ["volumes.sata.drive_write_cache"]
    assert [u.key for u in raid] == ["controllers.iop332.mirror_reads"]
    assert raid[0].default == "primary"  # the scenario's own reading is the most likely value


@pytest.mark.parametrize("path", sorted(paths.SCENARIOS.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_unknown_cites_a_source_and_holds_its_default(path):
    raw = scenario.read_yaml(path)
    declared = unknowns.parse(raw.get("unknowns"), str(path))
    for u in declared:
        assert len(u.source) > 40 and "\n" not in u.source
    for variant in [None, *(raw.get("variants") or {})]:
        loaded = scenario.load(path, [f"variant={variant}"] if variant else [])
        for u in loaded.unknowns:  # loading checked that the scenario's own value is allowed
            own = {key: _own(loaded, u, key) for key in u.scenario_keys}
            assert u.assignment(u.default) == own


def _own(loaded, u, key):
    """The scenario's own value at ``key``; where it leaves a catalog part's key null, the part's
    figure, which is then the unknown's default (a SATA drive's seq_read_MBps)."""
    value = _value(loaded, key)
    if value is not None or not u.declared_in.startswith(paths.shown(paths.HARDWARE)):
        return value
    mapping, _, name = key.rpartition(".")
    part_id = _value(loaded, f"{mapping}.part")
    return getattr(next(t[part_id] for t in loaded.catalog.parts.values() if part_id in t), name)


def _value(loaded, key):
    """The value at ``key`` of a loaded scenario, or of a scenario it names (``storage.``...)."""
    for ref, named in loaded.refs.items():
        if key.startswith(ref + "."):
            return _value(named, key.removeprefix(ref + "."))
    return unknowns.value_at(loaded.body, key)


def test_the_issue_s_unknowns_are_declared():
    keys = {
        (path.stem, u.key)
        for path in paths.SCENARIOS.glob("*.yaml")
        for u in unknowns.parse(scenario.read_yaml(path).get("unknowns"), str(path))
    }
    assert {
        ("eah_download", "drive_queue_depth"),
        ("psu_mmap", "controllers.iop332.mirror_reads"),
        ("psu_mmap", "volumes.sata.drive_write_cache"),
        ("psu_write", "kernel.dirty_ratio_pct"),
        ("psu_copy", "kernel.dirty_ratio_pct"),
        ("em_ingest", "volumes.lv.cache_block_KiB"),
        ("em_ingest", "host adapters"),
    } <= keys


def test_schema_lists_the_declared_unknowns(run_cli):
    status, out, err = run_cli("schema")
    assert status == 0, err
    listing = out[out.index("declared unknowns") :]
    assert "eah_download: drive_queue_depth, from 1 to 32" in listing
    assert "psu_mmap: controllers.iop332.mirror_reads (variants raid, raid_writeback)" in listing
    assert "source: Areca" in listing
    assert "em_ingest: host adapters, one of two cards (buses.sas0.via=pcie_a, " in listing
    status, markdown, _ = run_cli("schema", "--markdown")
    assert "## Declared unknowns" in markdown and "`kernel.dirty_ratio_pct`" in markdown


def test_the_drive_write_cache_key_keeps_the_shipped_behaviour_by_default():
    from model.simulate import simulate

    as_shipped = simulate(scenario.load("psu_mmap", ["variant=sata"])).throughput_MBps
    enabled = scenario.load("psu_mmap", ["variant=sata", "volumes.sata.drive_write_cache=enabled"])
    disabled = scenario.load(
        "psu_mmap", ["variant=sata", "volumes.sata.drive_write_cache=disabled"]
    )
    assert simulate(enabled).throughput_MBps == as_shipped  # a SATA drive ships with it on
    assert simulate(disabled).throughput_MBps < as_shipped


def test_an_option_the_model_refuses_is_told_as_the_declaration_s_mistake(run_cli, tmp_path):
    # the background flusher's threshold (10 %) must stay below the dirty limit
    block = {"kernel.dirty_ratio_pct": {"options": [40.0, 5.0], "source": SOURCE}}
    path = _scenario(tmp_path, block)
    one_line(run_cli("predict", str(path)), "mine.yaml", "unknowns.kernel.dirty_ratio_pct", "5.0")


def _keys(loaded):
    return [u.key for u in loaded.unknowns]


LARGE_BLOCK = "storage_overrides=[variant=linear_large_block]"
CACHE_BLOCK = "storage.volumes.lv.cache_block_KiB"


def test_a_named_store_s_unknowns_are_the_ingest_s_and_each_value_reaches_the_store():
    from model import uncertainty
    from model.simulate import simulate

    ingest = scenario.load("em_ingest_microscopes", [LARGE_BLOCK])
    assert _keys(ingest) == ["storage.host adapters", CACHE_BLOCK]
    assert ingest.unknowns[1].declared_key == "volumes.lv.cache_block_KiB"
    at_8 = scenario.with_values(ingest, {CACHE_BLOCK: 8})
    assert at_8.refs["storage"].body.volumes["lv"].cache_block_KiB == 8
    slowest = simulate(at_8).throughput_MBps  # 509 MB/s, where 32 KiB gives 1,743
    assert slowest < 0.5 * simulate(ingest).throughput_MBps
    found = uncertainty.interval(ingest)
    assert found.low < slowest and found.leading == CACHE_BLOCK


def test_a_value_the_naming_scenario_gives_its_store_is_known():
    told = "storage_overrides=[variant=linear_large_block, volumes.lv.cache_block_KiB=16]"
    assert _keys(scenario.load("em_ingest_microscopes", [told])) == ["storage.host adapters"]


def test_a_what_if_naming_another_configuration_of_the_store_carries_its_unknowns():
    base = scenario.load("em_ingest_microscopes")
    assert CACHE_BLOCK not in _keys(base)  # the striped store's cache block is the blog's
    large = scenario.changed(base, storage_overrides=["variant=linear_large_block"])
    assert CACHE_BLOCK in _keys(large)


def test_a_transfer_s_interval_spans_its_receiving_store_s_unknowns(tmp_path):
    from model import uncertainty
    from model.simulate import simulate

    # the CERN array as ext3 in its body, its two ext3 unknowns for every configuration
    ext3 = ("filesystem: {type: ext2}", "filesystem: {type: ext3}")
    copy_scenario(tmp_path, "atlas_cern_receive", "cern.yaml", ext3, ("    variants: [ext3]\n", ""))
    named = ("receiver_storage: atlas_cern_receive", "receiver_storage: cern.yaml")
    wan = scenario.load(copy_scenario(tmp_path, "atlas_lightpath", "wan.yaml", named))
    ratio = "receiver_storage.kernel.ext3_write_ratio"
    assert _keys(wan) == ["receiver_storage.volumes.md0.filesystem.journal", ratio]
    slowest = simulate(scenario.with_values(wan, {ratio: 0.40})).throughput_MBps
    found = uncertainty.interval(wan)
    assert found.leading == ratio and found.low < slowest < found.point


@pytest.mark.parametrize(
    ("key", "options", "words"),
    [  # refused by the store's check of its parts (--point makes it), by the ingest's of its store
        ("volumes.lv.disks.part", "[st4000nm0023, no_such_disk]", "unknown disk or ssd"),
        ("workload.op", "[write, read]", "must be a storage scenario that writes"),
    ],
)
def test_a_value_a_named_store_refuses_is_told_at_the_store_s_declaration(
    run_cli, tmp_path, key, options, words
):
    declared = f'unknowns:\n  {key}: {{options: {options}, source: "a test"}}\n'
    copy_scenario(tmp_path, "em_ingest", "store.yaml", ("unknowns:\n", declared))
    named = ("storage: em_ingest", "storage: store.yaml")
    ingest = copy_scenario(tmp_path, "em_ingest_microscopes", "ingest.yaml", named)
    where = f"store.yaml: unknowns.{key}: the model refuses"
    one_line(run_cli("predict", ingest, "--point"), where, words)


def test_a_configuration_equal_to_a_variant_has_that_variant_s_unknowns():
    from model import uncertainty

    # psu_mmap with no variant reads the mirror, as its raid; psu_copy's copies RAID to SATA
    for name, variant, key in (
        ("psu_mmap", "raid", "controllers.iop332.mirror_reads"),
        ("psu_copy", "raid_to_sata", "volumes.sata.drive_write_cache"),
    ):
        base, chosen = scenario.load(name), scenario.load(name, [f"variant={variant}"])
        assert key in _keys(base) and base.unknowns == chosen.unknowns
    base, chosen = uncertainty.interval(base), uncertainty.interval(chosen)
    assert (base.low, base.high) == (chosen.low, chosen.high)  # 12.71 to 56.71 MB/s
    # decided by the configuration, not its name: the SATA drive set by hand is the variant sata
    by_hand = scenario.load("psu_mmap", ["workload.target=sata"])
    assert _keys(by_hand) == ["volumes.sata.drive_write_cache"]
    # without the mirror, the variants reading it cannot apply: a configuration of neither
    alone = scenario.load("psu_mmap", ["workload.target=sata", "volumes.raid1=null"])
    assert _keys(alone) == ["volumes.sata.drive_write_cache"]


def test_a_variant_that_sets_nothing_is_no_configuration_another_equals():
    # slide 8's runs: the slides leave their Promise channels' mode open, slide 9's base states it
    assert scenario.load("atlas_intellistation").unknowns == ()
    chosen = scenario.load("atlas_intellistation", ["variant=slide8"])
    assert _keys(chosen) == ["promise channel mode"]


def test_an_empty_mapping_set_whole_makes_no_key_known():
    """The last review: --set kernel={} closed the dirty ratio's unknown, as if it gave it."""
    keys = [u.key for u in scenario.load("psu_write", ["variant=sata", "kernel={}"]).unknowns]
    assert "kernel.dirty_ratio_pct" in keys


THREADS = "volumes.data.md_group_thread_cnt"  # md's raid5d workers: none on RAID0
JOURNAL = "volumes.data.filesystem.journal"  # ext4's data=journal: not modelled under O_DIRECT


def _md(tmp_path, tail):
    """purchase_hdd_md (md RAID6 at group_thread_cnt 0) in the test's folder, ``tail`` after it."""
    path = tmp_path / "md.yaml"
    path.write_text((paths.SCENARIOS / "purchase_hdd_md.yaml").read_text() + tail)
    return str(path)


def _direct_ext4(tmp_path, tail):
    """The template storage server writing O_DIRECT on ext4, ``tail`` after it."""
    text = (paths.DATA / "templates/storage_server.yaml").read_text()
    text = text.replace("{type: xfs,", "{type: ext4,").replace(
        "  op: write", "  io: direct\n  op: write"
    )
    path = tmp_path / "store.yaml"
    path.write_text(text + tail)
    return str(path)


@pytest.mark.parametrize(
    ("block", "said"),
    [
        (
            f"{JOURNAL}: {{options: [ordered, journal], source: a test}}",
            f"store.yaml: unknowns.{JOURNAL}: option journal ",
        ),
        (  # one fact setting the key: its option's name
            f"mount:\n    options: {{stock: {{{JOURNAL}: ordered}}, "
            f"full: {{{JOURNAL}: journal}}}}\n    source: a test",
            "store.yaml: unknowns.mount: option full ",
        ),
    ],
)
@pytest.mark.parametrize("as_json", [[], ["--json"]])
def test_an_option_no_model_covers_is_refused_not_left_out_of_the_interval(
    run_cli, tmp_path, block, said, as_json
):
    """An option the model refuses (not modelled) was dropped from the design: the interval said
    no declared unknown moved it, --json gave no drivers (the hostile-input audit, on md's
    group_thread_cnt past the measured workers, which is now predicted with its range)."""
    path = _direct_ext4(tmp_path, f"unknowns:\n  {block}\n")
    status, out, err = run_cli("predict", path, *as_json)
    assert status == 3 and out == "" and err.count("\n") == 1, err
    assert err.startswith("not modelled yet: ") and said in err
    assert "ext4 mounted data=journal under workload.io direct" in err  # the model's own reason


@pytest.mark.parametrize("point", [[], ["--point"]])
def test_an_unknown_open_in_every_variant_is_checked_in_each(run_cli, tmp_path, point):
    """An unknown not limited to variants, whose option one variant refuses, passed until that
    variant was chosen (the hostile-input audit: RAID0 has no raid5d workers)."""
    tail = (
        f"unknowns:\n  {THREADS}: {{options: [0, 4], source: a test}}\n"
        "variants:\n  r0: {volumes.data.level: raid0}\n"
    )
    one_line(
        run_cli("predict", _md(tmp_path, tail), *point),
        f"md.yaml: unknowns.{THREADS}: the model refuses {{'{THREADS}': 4}} in variant r0: ",
        "this volume's level is raid0",
    )
