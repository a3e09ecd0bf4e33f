"""A key of a scenario another names, set through the key that names it (``--set
storage.volumes.lv.cache_block_KiB=16`` on the microscope ingest): it changes the named scenario as
the naming file's own overrides for it would, last, in a what-if, a variant and a sweep's grid, and
a mistake in it is told at the key the user gave, in one line with exit status 2."""

import copy
import json
import pickle
import re

import pandas as pd
import pytest
from grid_files import grid as _grid
from grid_files import one_line
from scenario_copies import copy_scenario

from model import scenario as scenario_module
from model.errors import HoldsValue, NoEntry, UserError
from model.simulate import simulate
from model.sweep import grid as grid_module
from model.sweep import run as run_module

INGEST = "em_ingest_microscopes"  # its storage_overrides: [variant=striped]
CACHE = "storage.volumes.lv.cache_block_KiB"


def _rate(name, *overrides):
    return simulate(scenario_module.load(name, list(overrides))).throughput_MBps


def _ingest_with(tmp_path, variant: str) -> str:
    """The ingest's file copied with one more variant (``name: {key: value}``)."""
    return copy_scenario(
        tmp_path, INGEST, "ingest.yaml", ("  linear_4k:", f"  {variant}\n  linear_4k:")
    )


def _blocks(loaded) -> int:
    return loaded.refs["storage"].body.volumes["lv"].cache_block_KiB


def test_a_key_set_through_storage_is_the_named_file_s_own_override():
    """Through ``storage``: as the ingest's own storage_overrides giving it, and it moves the rate
    (the MD3260's 16 KiB cache blocks cost its controllers more a byte than 32 KiB ones)."""
    through = _rate(INGEST, f"{CACHE}=16")
    listed = _rate(INGEST, "storage_overrides=[variant=striped, volumes.lv.cache_block_KiB=16]")
    assert through == listed
    assert through < _rate(INGEST)


def test_a_key_set_through_wins_over_the_file_s_list_and_is_known_to_the_interval():
    """Set last, after the file's storage_overrides; the unknown it settles leaves the interval."""
    other_box = "storage_overrides=[variant=linear_large_block, volumes.lv.cache_block_KiB=8]"
    loaded = scenario_module.load(INGEST, [other_box, f"{CACHE}=16"])
    assert loaded.refs["storage"].body.volumes["lv"].cache_block_KiB == 16
    # the other box's block size, not stated: open in its variant, which the --set settles
    unsaid = scenario_module.load(INGEST, ["storage_overrides=[variant=linear_large_block]"])
    assert CACHE in {u.key for u in unsaid.unknowns}
    assert CACHE not in {u.key for u in loaded.unknowns}


def test_a_variant_sets_a_key_through_the_key_naming_its_scenario(tmp_path):
    path = _ingest_with(tmp_path, f"small_blocks: {{{CACHE}: 16}}")
    assert _blocks(scenario_module.load(path, ["variant=small_blocks"])) == 16


def test_a_transfer_s_storage_takes_keys_through_its_name():
    loaded = scenario_module.load("atlas_lightpath", ["receiver_storage.volumes.md0.chunk_KiB=256"])
    assert loaded.refs["receiver_storage"].body.volumes["md0"].chunk_KiB == 256
    assert (
        loaded.refs["sender_storage"]
        == scenario_module.load("atlas_lightpath").refs["sender_storage"]
    )


@pytest.mark.parametrize(
    "name, override, said",
    [
        (  # a value the store's controller refuses, found by the store's own check
            INGEST,
            f"{CACHE}=1024",
            f"--set: {CACHE}: Dell PowerVault MD3260 RAID controller pair",
        ),
        (INGEST, f"{CACHE}=big", f"--set: {CACHE}: must be"),
        (  # a key the storage model does not have, with what it allows there
            INGEST,
            "storage.volumes.lv.nosuch=1",
            "--set: storage.volumes.lv.nosuch: no such key in an ingest scenario; allowed at "
            "storage.volumes.lv: level, disks",
        ),
        (  # derived by the ingest from its clients: set last, it would undo them unseen
            INGEST,
            "storage.workload.streams=3",
            "--set: storage.workload.streams: this scenario sets workload.streams in the scenario "
            "storage names (workload.streams=8) from its clients, one writer per client: set that",
        ),
        (  # a header key of the named scenario: its own file's, not the naming one's
            INGEST,
            "storage.variant=linear_4k",
            "--set: storage.variant: no such key in an ingest scenario; the scenario storage "
            "names takes its variant in its own file or in storage_overrides, not through storage",
        ),
        (  # no key at all below the naming key: what is allowed there
            INGEST,
            "storage.=1",
            "--set: storage.: no such key in an ingest scenario; allowed at storage: host, buses",
        ),
        (  # the naming scenario's own check of what it names, told at the key that changed it
            INGEST,
            "storage.workload.op=read",
            "--set: storage.workload.op: must be a storage scenario that writes, got em_ingest",
        ),
        (  # a new entry of a mapping in the named scenario: set whole, through its name
            INGEST,
            "storage.volumes.nosuch.level=raid0",
            "--set: storage.volumes.nosuch.level: no entry 'nosuch' under storage.volumes; "
            "allowed: lv; a new one is set whole: --set 'storage.volumes.nosuch={disks: {...}}'",
        ),
        (
            "atlas_lightpath",
            "receiver_storage.volumes.md1.level=raid0",
            "--set: receiver_storage.volumes.md1.level: no entry 'md1' under "
            "receiver_storage.volumes; allowed: md0; a new one is set whole: --set "
            "'receiver_storage.volumes.md1={disks: {...}}'",
        ),
        (  # a key below one an override made a value, in the named scenario: named through it
            INGEST,
            "storage.volumes=3 --set storage.volumes.lv.level=raid0",
            "--set: storage.volumes.lv.level: storage.volumes holds a value, not keys",
        ),
        (  # a key below a value that names no scenario
            "atlas_lightpath",
            "nic.speed=1",
            "--set: nic.speed: no such key in a wan_transfer scenario; nic is a value, not a "
            "section",
        ),
    ],
)
def test_a_mistake_set_through_is_told_at_the_key_given(run_cli, name, override, said):
    one_line(run_cli("predict", name, "--point", "--set", *override.split(" ")), said)


def test_a_new_entry_s_hint_quotes_its_name_as_a_shell_reads_it(run_cli):
    """The review: an entry named with a quote broke the --set it suggested ('...it's={...}')."""
    status, _, err = run_cli(
        "predict", INGEST, "--point", "--set", "storage.volumes.it's.level=raid0"
    )
    assert status == 2
    assert err.strip().endswith(
        "a new one is set whole: --set 'storage.volumes.it'\"'\"'s={disks: {...}}'"
    ), err


@pytest.mark.parametrize("duplicate", [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy])
def test_a_refusal_survives_a_pickle_and_a_copy(duplicate):
    """UserError and NoEntry could not be unpickled or copied (their one line is not the
    arguments their classes take): one crossing a process would have broken its transport. So
    HoldsValue, made as NoEntry is, is checked too."""
    plain = UserError("w.yaml", "a.b", "m", related=("c",), overridden="--set a=1")
    entry = NoEntry("--set", "volumes.x.level", "volumes", "x", ["lv"], "{disks: {...}}")
    value = HoldsValue("--set", "volumes.x.level", "volumes")
    for error in (plain, entry, value):
        again = duplicate(error)
        assert type(again) is type(error) and again.line() == error.line() == str(error)
        assert again.__dict__ == error.__dict__
    assert duplicate(entry).relocated("--set", "storage").line() == (
        "--set: storage.volumes.x.level: no entry 'x' under storage.volumes; allowed: lv; a new "
        "one is set whole: --set 'storage.volumes.x={disks: {...}}'"
    )


def test_an_unknown_over_which_store_does_not_set_the_replaced_store_s_unknowns_in_another(
    run_cli, tmp_path
):
    """The review: at the design point naming another store, the default store's unknowns passed
    through (the MD3260's 'host adapters') were set in it, and the file was refused ('no entry
    'sas0' under buses'). The other store's point runs as it is."""
    copy_scenario(tmp_path, "em_ingest", "store.yaml")
    copy_scenario(tmp_path, "atlas_cern_receive", "other.yaml")
    ingest = copy_scenario(
        tmp_path,
        INGEST,
        "ingest.yaml",
        ("storage: em_ingest\n", "storage: store.yaml\n"),
        ("storage_overrides: [variant=striped]\n", ""),
        ("  linear_4k: {storage_overrides: [variant=linear_4k]}\n", ""),
        head="unknowns:\n  storage: {options: [store.yaml, other.yaml], source: which store}\n",
    )
    status, out, err = run_cli("predict", ingest)
    assert status == 0, err
    assert re.search(r"by option    store\.yaml [\d.,]+ MB/s, other\.yaml [\d.,]+ MB/s", out), out


def test_a_lone_key_set_through_is_not_blamed_for_the_named_file_s_own_mistake(run_cli, tmp_path):
    """The review: the one --set through storage was named as the fault of the store's own broken
    variant, which the file alone is refused for just the same."""
    copy_scenario(
        tmp_path,
        "em_ingest",
        "store.yaml",
        ("variants:\n", "variants:\n  badv: {volumes.x.level: raid0}\n"),
    )
    ingest = copy_scenario(
        tmp_path,
        INGEST,
        "ingest.yaml",
        ("storage: em_ingest\n", "storage: store.yaml\n"),
        ("storage_overrides: [variant=striped]", "storage_overrides: [variant=badv]"),
    )
    alone = run_cli("predict", ingest, "--point")
    status, _, err = run_cli("predict", ingest, "--point", "--set", f"{CACHE}=16")
    assert status == alone[0] == 2 and err == alone[2], err
    assert err.startswith(f"{ingest}: storage: 'store.yaml': ") and "variants.badv" in err, err


def test_a_key_set_through_takes_its_place_among_the_changes_to_the_whole_list(tmp_path):
    """A later change wins, as --set wins over a variant and a later --set over an earlier: the
    variant's 16 KiB set through storage below --set storage_overrides (whole, or one entry, or
    after --set storage), and an earlier --set below a later list (the reviews)."""
    path = _ingest_with(tmp_path, f"small_blocks: {{{CACHE}: 16}}")
    listed = "storage_overrides=[variant=striped, volumes.lv.cache_block_KiB=32]"
    orders = {
        32: (["variant=small_blocks", listed], [f"{CACHE}=16", listed]),
        8: (
            ["variant=small_blocks", f"{CACHE}=8"],
            ["variant=small_blocks", "storage_overrides.0=volumes.lv.cache_block_KiB=8"],
            ["variant=small_blocks", "storage=em_ingest", listed.replace("32", "8")],
            [listed, f"{CACHE}=8"],
        ),
    }
    for blocks, overrides in orders.items():
        for given in overrides:
            assert _blocks(scenario_module.load(path, given)) == blocks, given


def test_a_variant_s_key_through_a_named_scenario_holding_equals_is_refused(tmp_path):
    """Written into the named scenario's override it would split at its '=' (the review: the
    store ran with 8 KiB blocks, or 3 writers past the ingest's refusal)."""
    path = _ingest_with(tmp_path, f"odd: {{'{CACHE}=8 #': 16}}")
    with pytest.raises(scenario_module.UserError) as told:
        scenario_module.load(path, ["variant=odd"])
    assert told.value.key == f"{CACHE}=8 #" and "holds no '='" in told.value.message


def test_the_ingest_s_seeded_hashing_draws_from_its_own_seed():
    """The interval's further seeds are the ingest's: drawn from the store's, they placed the
    clients alike at every seed."""
    rates = {_rate(INGEST, "hashing=seeded", f"seed={seed}") for seed in (1, 3, 7)}
    assert len(rates) == 3


def test_a_transfer_from_memory_names_no_sender_storage_to_set(tmp_path):
    path = copy_scenario(
        tmp_path,
        "atlas_lightpath",
        "lightpath.yaml",
        ("sender_storage: atlas_triumf_send\n", ""),
        ("  sessions: 1\n", "  sessions: 1\n  source: memory\n"),
    )
    with pytest.raises(scenario_module.UserError) as told:
        scenario_module.load(path, ["sender_storage.volumes.md0.chunk_KiB=64"])
    assert told.value.line() == (
        "--set: sender_storage.volumes.md0.chunk_KiB: sender_storage names no scenario here: "
        "name one to set its keys"
    )


def test_a_sweep_varies_a_key_through_the_named_scenario_and_checks_it_first(tmp_path, run_cli):
    """Each point as --set gives it; a value the store refuses is refused before any point runs,
    as the same key of the storage scenario's own grid is."""
    path = _grid(
        tmp_path,
        scenario=INGEST,
        product={CACHE: [8, 32], "clients": [2]},
    )
    grid, points = grid_module.load(path)
    run_module.run(grid, points, tmp_path / "out", progress=False)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet").sort_values("point_index")
    expected = [_rate(INGEST, f"{CACHE}={v}", "clients=2") for v in (8, 32)]
    assert list(table.throughput_MBps) == pytest.approx(expected, rel=1e-12)
    bad = _grid(tmp_path, scenario=INGEST, product={CACHE: [8, 64]})
    one_line(
        run_cli("sweep", str(bad), "--out", str(tmp_path / "bad")),
        f"grid.yaml: product.{CACHE}: ",
        "takes cache blocks of 4, 8, 16, 32 KiB",
    )
    assert not (tmp_path / "bad").exists()


def test_an_unknown_at_a_key_of_the_named_scenario_is_sent_to_its_file(tmp_path):
    """Declared in the naming file it had been refused as 'an entry the scenario does not have'."""
    path = copy_scenario(
        tmp_path,
        INGEST,
        "ingest.yaml",
        ("variants:", f"unknowns:\n  {CACHE}: {{options: [16, 32], source: guess}}\nvariants:"),
    )
    with pytest.raises(scenario_module.UserError) as told:
        scenario_module.load(path)
    assert told.value.key == f"unknowns.{CACHE}"
    assert (
        f"{CACHE} is a key of the scenario storage names: declare it in that scenario's own file"
        in (told.value.message)
    )


def test_schema_reaches_the_keys_of_a_named_scenario_as_set_does(run_cli):
    """``schema ingest.storage.volumes`` is the storage model's volumes section, which --set
    storage.volumes... reaches; a section neither has is one line, told as asked."""
    through = run_cli("schema", "ingest.storage.volumes")
    assert through[0] == 0 and through == run_cli("schema", "storage.volumes")
    one_line(
        run_cli("schema", "ingest.storage.nosuch"),
        "schema: ingest.storage.nosuch: unknown section of storage; allowed: buses.NAME",
    )
    one_line(
        run_cli("schema", "ingest.nosuch"),
        "schema: ingest.nosuch: unknown section of ingest; its keys are all top level",
    )


def test_a_refusal_a_key_set_through_may_not_have_caused_is_told_with_every_change(run_cli):
    """With other changes beside it, a refusal of what the naming key names is not pinned on the
    key set through it (the review: the receiver's host changed by --set, blamed on its chunk),
    and the named file's own refusal is told as this scenario's key with what was set."""
    one_line(
        run_cli(
            "predict",
            "atlas_lightpath",
            "--point",
            "--set",
            "receiver_host=supermicro_p4dl6_triumf",
            "--set",
            "receiver_storage.volumes.md0.chunk_KiB=256",
        ),
        "data/scenarios/atlas_lightpath.yaml (with --set receiver_host=supermicro_p4dl6_triumf, "
        "receiver_storage.volumes.md0.chunk_KiB=256): receiver_storage: atlas_cern_receive "
        "describes host supermicro_p4dl6_cern",
    )
    one_line(
        run_cli(
            "predict",
            INGEST,
            "--point",
            "--set",
            "storage.volumes.lv.disks.attach.0=md3260.5",
        ),
        "(with --set storage.volumes.lv.disks.attach.0=md3260.5): "
        "storage.volumes.lv.disks.attach[5]: md3260.5 is already taken",
    )


def test_a_transfer_s_end_host_is_found_in_the_storage_scenario_it_names(run_cli):
    """A planner's audit: purchase_nvme's host is defined in its own file, and a transfer into it
    refused receiver_host=epyc_storage_server as an unknown host (with its default host, told to
    set the one it could not find); an end's host is now found among its storage's parts too."""
    into = ["--set", "workload.protocol=bbftp", "--set", "workload.source=memory"]
    into += ["--set", "workload.sink=disk", "--set", "receiver_storage=purchase_nvme"]
    one_line(
        run_cli("predict", "ext_net_fasterdata_100g", "--point", *into),
        "describes host epyc_storage_server, but receiver_host is esnet_100g_host: set "
        "receiver_host=epyc_storage_server",
    )
    there = ["--set", "receiver_host=epyc_storage_server"]
    status, out, err = run_cli("predict", "ext_net_fasterdata_100g", "--json", *into, *there)
    assert status == 0, err
    # a 100 GbE circuit into 24 NVMe drives, each of bbftp's 12 streams writing its part
    assert json.loads(out)["throughput_MBps"] > 10_000
    status, _, err = run_cli("predict", "ext_net_fasterdata_100g", "--point", *there)
    assert status == 2 and "unknown host 'epyc_storage_server'" in err, err  # no store names it


def test_a_transfer_s_store_is_held_to_its_own_parts_checks(run_cli):
    """A named store's parts are checked as its own run checks them, whether or not the transfer
    reads or writes its disks: an IDE drive set into purchase_hdd_md's SAS shelf through
    receiver_storage had predicted 322 MB/s, and a second HBA in the first's PCI Express segment
    had passed, where the store alone refuses both. Each is told at the key the user set."""
    into = ["--set", "receiver_storage=purchase_hdd_md"]
    into += ["--set", "receiver_host=epyc_storage_server"]
    to_disk = ["--set", "workload.protocol=bbcp", "--set", "workload.sink=disk"]
    for how in (to_disk, []):  # to its disks, and to memory (the file's iperf)
        one_line(
            run_cli(
                "predict",
                "ext_net_fasterdata_100g",
                "--point",
                *into,
                *how,
                "--set",
                "receiver_storage.volumes.data.disks.part=wd1200jb",
            ),
            "--set: receiver_storage.volumes.data.disks.part: wd1200jb is an IDE (parallel ATA) "
            "drive; jbod's bays (SAS 12 Gb/s lane (one phy)) take SAS and SATA drives only",
        )
    one_line(
        run_cli(
            "predict",
            "ext_net_fasterdata_100g",
            *into,
            "--set",
            "receiver_storage.controllers.hba2={part: broadcom_9500_8i, bus: slot1}",
        ),
        "--set: receiver_storage.controllers.hba2.bus: controllers.hba and controllers.hba2 are "
        "both cards in buses.slot1",
    )
