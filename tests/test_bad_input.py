"""A user's mistake: exit status 2 and one line naming the file, the key and what is allowed."""

import json
import subprocess
import sys

import pytest
import yaml

from model import paths, scenario

BASE = paths.SCENARIOS / "atlas_intellistation.yaml"


def _variant(tmp_path, change):
    data = yaml.safe_load(BASE.read_text())
    change(data)
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def _one_line_error(result, *needles):
    status, out, err = result
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)


def test_missing_file(run_cli):
    _one_line_error(
        run_cli("predict", "no/such/scenario.yaml"), "no/such/scenario.yaml", "no such file"
    )


def test_empty_file(run_cli, tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("  \n")
    _one_line_error(run_cli("predict", str(path)), "empty.yaml", "empty")


def test_not_yaml(run_cli, tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("model: storage\nhost: [unclosed\n")
    _one_line_error(run_cli("predict", str(path)), "broken.yaml", "not valid YAML")


def test_unknown_key(run_cli, tmp_path):
    path = _variant(tmp_path, lambda d: d["volumes"]["md0"].update(colour="red"))
    _one_line_error(
        run_cli("predict", path), "volumes.md0.colour", "unknown key", "allowed here: level"
    )


@pytest.mark.parametrize("section", ["volumes", "controllers"])
def test_a_name_with_a_dot_is_refused(run_cli, tmp_path, section):
    """A dotted key could not reach a volume or controller named with a dot (``--set
    volumes.md.0.level`` is read as volume ``md``'s key ``0``): refused where it is named."""

    def rename(data):
        entries = data[section]
        entries["md.0"] = entries.pop(next(iter(entries)))

    _one_line_error(
        run_cli("predict", _variant(tmp_path, rename)),
        f"{section}: the name 'md.0' holds a dot",
        "use _ or - instead",
    )


def test_wrong_type(run_cli, tmp_path):
    path = _variant(tmp_path, lambda d: d["volumes"]["md0"]["disks"].update(count="three"))
    _one_line_error(
        run_cli("predict", path), "volumes.md0.disks.count", "positive integer", "'three'"
    )


@pytest.mark.parametrize("key,value", [("total_MB", -4000), ("request_KiB", 0), ("streams", 0)])
def test_negative_or_zero_size_rate_or_count(run_cli, tmp_path, key, value):
    path = _variant(tmp_path, lambda d: d["workload"].update({key: value}))
    _one_line_error(run_cli("predict", path), f"workload.{key}", "positive")


def test_unknown_raid_level(run_cli, tmp_path):
    path = _variant(tmp_path, lambda d: d["volumes"]["md0"].update(level="raid7"))
    _one_line_error(run_cli("predict", path), "volumes.md0.level", "one of", "'raid0'")


def test_unknown_part(run_cli, tmp_path):
    path = _variant(tmp_path, lambda d: d["volumes"]["md0"]["disks"].update(part="no_such_drive"))
    _one_line_error(
        run_cli("predict", path), "volumes.md0.disks.part", "unknown disk", "model schema disks"
    )


def test_set_path_that_does_not_exist(run_cli):
    _one_line_error(
        run_cli("predict", "atlas_intellistation", "--set", "volumes.md0.disks.colour=red"),
        "--set",
        "volumes.md0.disks.colour",
        "allowed at volumes.md0.disks: part, count, attach",
    )


@pytest.mark.parametrize(
    ("key", "allowed"),
    [
        # a section the scenario leaves out listed no keys
        ("clients.cont", "allowed at clients: count, connections, protocol"),
        # nor did a misspelt section
        ("clientz.count", "allowed at top level: host, buses, volumes"),
    ],
)
def test_set_path_whose_section_is_absent_or_misspelt_lists_the_keys(run_cli, key, allowed):
    _one_line_error(
        run_cli("predict", "atlas_intellistation", "--set", f"{key}=1"),
        f"--set: {key}: no such key in a storage scenario; {allowed}",
    )


def test_set_on_a_scenario_s_own_parts_says_where_they_are_changed(run_cli):
    _one_line_error(
        run_cli(
            "predict", "purchase_nvme", "--set", "parts.hosts.epyc_storage_server.cores_per_cpu=1"
        ),
        "parts.hosts.epyc_storage_server.cores_per_cpu",
        "edit its parts: section, or give a parts file with --catalog",
    )


def test_set_entry_that_does_not_exist(run_cli):
    _one_line_error(
        run_cli("predict", "atlas_intellistation", "--set", "volumes.md9.level=raid0"),
        "volumes.md9.level",
        "allowed: md0",
    )


def test_set_value_of_wrong_type(run_cli):
    _one_line_error(
        run_cli("predict", "atlas_intellistation", "--set", "volumes.md0.disks.count=-2"),
        "--set: volumes.md0.disks.count",
        "positive integer",
    )


def test_set_value_outside_a_choice_names_the_override_and_the_choices(run_cli):
    status, out, err = run_cli("predict", "eah_download", "--set", "server.connections=pipelined")
    assert (
        err.strip()
        == "--set: server.connections: must be one of 'per_file', 'keep_alive', got 'pipelined'"
    )
    assert status == 2


def test_unknown_variant(run_cli):
    _one_line_error(
        run_cli("predict", "atlas_x330", "--set", "variant=nope"), "variant", "allowed:"
    )


def test_channel_mode_faster_than_the_controller_names_the_override(run_cli):
    result = run_cli(
        "predict", "atlas_x330", "--set", "controllers.onboard.channel_mode=ide_udma100"
    )
    _one_line_error(result, "controllers.onboard.channel_mode", "allowed: ide_mwdma2")
    assert result[2].startswith("--set: ")  # the value came from the command line, not the file


def test_a_value_the_model_rejects_in_a_variant_names_the_variant(tmp_path, run_cli):
    def bad_variant(data):
        data["variants"]["fast_bus"] = {"controllers.promise1.channel_mode": "pci_64_66"}

    path = _variant(tmp_path, bad_variant)
    result = run_cli("predict", path, "--set", "variant=fast_bus")
    _one_line_error(result, "variants.fast_bus", "controllers.promise1.channel_mode", "allowed:")


def test_a_variant_not_chosen_is_checked_too(tmp_path, run_cli):
    """The file's other variants are loaded and checked as choosing them would: its first
    variant's mistake is told before the default configuration is predicted."""

    def bad_variant(data):
        data["variants"]["fast_bus"] = {"controllers.promise1.channel_mode": "pci_64_66"}

    result = run_cli("predict", _variant(tmp_path, bad_variant), "--point")
    _one_line_error(result, "variants.fast_bus", "controllers.promise1.channel_mode", "allowed:")


def test_a_variant_not_chosen_that_its_catalog_refuses_is_named(tmp_path, run_cli):
    """A variant whose parts the model's catalog checks refuse (jumbo frames on Fast Ethernet) is
    named at the variant's key, not at the file's."""
    data = yaml.safe_load((paths.SCENARIOS / "mdsplus.yaml").read_text())
    data["variants"]["jumbo"] = {"mtu_B": 9000, "nic": "nic_100mb"}
    path = tmp_path / "mds.yaml"
    path.write_text(yaml.safe_dump(data))
    result = run_cli("predict", str(path), "--point")
    _one_line_error(result, "variants.jumbo", "no jumbo frames")


def test_a_controller_s_raid10_on_an_odd_count_is_refused_and_md_s_named(run_cli):
    """A card's RAID10 spans mirrored pairs; md's near-2 layout takes an odd count."""
    result = run_cli(
        "predict",
        "purchase_hdd_md",
        "--point",
        "--set",
        "volumes.data.level=raid10",
        "--set",
        "volumes.data.engine=controller",
        "--set",
        "volumes.data.disks.count=6",  # two groups of three
    )
    _one_line_error(result, "an even number of drives", "engine: md")


def test_rss_on_a_single_queue_nic_is_refused(run_cli):
    """Receive-side scaling spreads flows over a NIC's receive queues; the SysKonnect SK-9843 of
    the ATLAS lightpath has one (skge.h: one rx_ring a port)."""
    result = run_cli("predict", "atlas_lightpath", "--point", "--set", "irq_affinity=rss")
    _one_line_error(result, "irq_affinity", "syskonnect_sk9843 has one", "cpu0 or spread")


def test_bad_option_is_one_line_too(run_cli):
    with pytest.raises(SystemExit) as exit_info:
        run_cli("predict")
    assert exit_info.value.code == 2


def test_real_process_exit_status_and_single_line():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "model",
            "predict",
            "atlas_intellistation",
            "--set",
            "volumes.md0.level=raid7",
        ],
        capture_output=True,
        text=True,
        cwd=paths.PROJECT_ROOT,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "volumes.md0.level" in proc.stderr


def test_set_null_takes_a_key_back_to_its_default(run_cli):
    """null on a key that does not take null leaves it as if the file left it out: ZFS's record
    size back to its default, or the ZFS-only keys gone when the pool becomes md; a required key
    left out is refused as missing, in one line."""

    def point(*sets):
        args = [a for s in sets for a in ("--set", s)]
        status, out, err = run_cli("predict", "purchase_hdd_zfs", *args, "--point", "--json")
        assert status == 0, err
        return json.loads(out)["throughput_MBps"]

    # random 4 KiB reads, each of which reads a whole record: the record size matters
    small = ("workload.op=read", "workload.pattern=random", "workload.request_KiB=4")
    default = point(*small, "volumes.data.record_KiB=null")
    assert default == point(*small, "volumes.data.record_KiB=128") != point(*small)
    md = ("volumes.data.engine=md", "volumes.data.vdevs=null", "volumes.data.record_KiB=null")
    # the file's ashift: 12, ZFS's default, written: gone too (a key of another engine, written)
    as_md = (
        *md,
        "volumes.data.ashift=null",
        "volumes.data.filesystem.type=xfs",
        "volumes.data.level=raid6",
    )
    assert point(*as_md, "volumes.data.groups=2", "volumes.data.lvm=linear") > 0
    _one_line_error(
        run_cli("predict", "purchase_hdd_zfs", "--set", "workload.target=null"),
        "workload.target: missing",
    )


@pytest.mark.parametrize(
    "scenario,key,value,allowed",
    [
        ("purchase_hdd_md", "volumes.data.chunk_KiB", "0.001", "a power of two from 4 to"),
        ("purchase_hdd_md", "volumes.data.chunk_KiB", "3", "a power of two from 4 to"),
        ("purchase_hdd_md", "volumes.data.chunk_KiB", "2", "a power of two from 4 to"),
        ("purchase_hdd_md", "volumes.data.chunk_KiB", "96", "a power of two from 4 to"),
        ("purchase_hdd_md", "volumes.data.filesystem.block_KiB", "3", "a power of two from 0.5"),
        ("purchase_hdd_md", "volumes.data.filesystem.block_KiB", "128", "xfs: 0.5 to 64"),
        ("purchase_hdd_zfs", "volumes.data.record_KiB", "100", "512 B to 16 MiB"),
        ("purchase_hdd_zfs", "volumes.data.record_KiB", "32768", "512 B to 16 MiB"),
        ("eah_download", "chunk_KiB", "48", "a power of two from 4 to"),
    ],
)
def test_a_layout_size_no_system_makes_is_refused(run_cli, scenario, key, value, allowed):
    """A chunk of 0.001 or 3 KiB and a 3 KiB file system block ran, answering for a layout md,
    LVM, a RAID card or mkfs cannot make."""
    _one_line_error(
        run_cli("predict", scenario, "--set", f"{key}={value}"), f"--set: {key}", allowed
    )


def test_ext2_blocks_start_at_1_kib_and_xfs_at_half_a_kib(run_cli):
    md = "purchase_hdd_md"
    _one_line_error(
        run_cli(
            "predict",
            md,
            "--set",
            "volumes.data.filesystem.type=ext2",
            "--set",
            "volumes.data.filesystem.block_KiB=0.5",
        ),
        "volumes.data.filesystem.block_KiB",
        "ext2 blocks are powers of two from 1 to 64 KiB",
    )
    for sets in (
        ["volumes.data.filesystem.block_KiB=0.5", "volumes.data.chunk_KiB=4"],
        ["volumes.data.filesystem.type=ext2", "volumes.data.filesystem.block_KiB=64"],
    ):
        args = [a for s in sets for a in ("--set", s)]
        status, _, err = run_cli("predict", md, "--point", *args)
        assert status == 0, err
    status, _, err = run_cli(
        "predict", "purchase_hdd_zfs", "--point", "--set", "volumes.data.record_KiB=16384"
    )
    assert status == 0, err


@pytest.mark.parametrize(
    "name, key, ends",
    [
        ("purchase_hdd_md", "chunk_KiB", [64, 1024]),
        # keys that may also be unset: a ZFS pool's record (its default follows what the pool
        # holds), and its prefetch distance, whose range had been taken
        ("purchase_hdd_zfs", "record_KiB", [128, 1024]),
        ("purchase_hdd_zfs", "zfetch_max_distance_MiB", [8, 64]),
    ],
)
def test_an_unknown_s_range_over_powers_of_two_is_refused(run_cli, tmp_path, name, key, ends):
    """A range would put the uncertainty's draws between the sizes a chunk may take."""
    data = yaml.safe_load((paths.SCENARIOS / f"{name}.yaml").read_text())
    data["unknowns"] = {f"volumes.data.{key}": {"range": ends, "source": "a guess"}}
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(data))
    _one_line_error(
        run_cli("predict", str(path)), f"unknowns.volumes.data.{key}.range", "options: [...]"
    )


@pytest.mark.parametrize("point", [[], ["--point"]])
def test_an_unknown_s_value_the_model_refuses_is_told_with_or_without_the_interval(
    run_cli, tmp_path, point
):
    """A range end the model refuses (a stream smaller than its 1 MiB requests) is told at the
    unknown, with --point too, where no design point is simulated."""
    data = yaml.safe_load((paths.SCENARIOS / "em_ingest.yaml").read_text())
    data["unknowns"]["workload.total_MB"] = {"range": [0.5, 200000], "source": "a guess"}
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(data))
    _one_line_error(
        run_cli("predict", str(path), *point),
        "unknowns.workload.total_MB",
        "the model refuses",
        "a request is at most what a stream moves",
    )


def test_a_missing_parts_file_names_the_scenario_and_its_key(run_cli, tmp_path):
    """It printed only '/path/sub/my_parts.yaml: no such file'."""
    data = yaml.safe_load(BASE.read_text())
    data["catalogs"] = ["my_parts.yaml"]
    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "scenario.yaml"
    path.write_text(yaml.safe_dump(data))
    _one_line_error(
        run_cli("predict", str(path)),
        f"{path}: catalogs[0]: no such parts file",
        str(tmp_path / "sub" / "my_parts.yaml"),
        "scenario's folder",
    )
    _one_line_error(
        run_cli("predict", "atlas_intellistation", "--catalog", str(tmp_path / "none.yaml")),
        "--catalog",
        "no such parts file",
    )


@pytest.mark.parametrize("text", ["buses:\n\tpci: 1\n", "buses:\n  pci: {part: x}\n  \tb: 1\n"])
def test_a_tab_in_the_indentation_is_named(run_cli, tmp_path, text):
    """It printed PyYAML's 'found character that cannot start any token'."""
    path = tmp_path / "tabs.yaml"
    path.write_text("name: x\nmodel: storage\n" + text)
    line = 2 + text.count("\n")
    _one_line_error(run_cli("predict", str(path)), "tabs.yaml", f"(line {line})", "never tabs")


def test_set_name_description_or_source_changes_the_header(run_cli):
    """--set name=foo said 'no such key in a StorageBody scenario' for a key the reference lists
    under every scenario."""
    status, out, err = run_cli(
        "predict",
        "atlas_intellistation",
        "--point",
        "--json",
        "--set",
        "name=mine",
        "--set",
        "description=my what-if",
    )
    assert status == 0, err
    assert json.loads(out)["scenario"] == "mine"
    status, out, err = run_cli("predict", "atlas_intellistation", "--point", "--set", "name=mine")
    assert status == 0 and out.startswith("mine"), err
    _one_line_error(
        run_cli("predict", "atlas_intellistation", "--set", "name="),
        "--set: name",
        "a non-empty string",
    )


@pytest.mark.parametrize(
    "key,needles",
    [
        ("nme=foo", ["no such key in a storage scenario", "allowed at top level: host", "name"]),
        ("model=wan_transfer", ["--set: model: a header key", "edit it there"]),
        ("unknowns.x=1", ["--set: unknowns.x: a header key"]),
    ],
)
def test_set_of_a_key_it_cannot_change_says_what_it_can(run_cli, key, needles):
    result = run_cli("predict", "atlas_intellistation", "--set", key)
    _one_line_error(result, *needles)
    assert "Body" not in result[2]


def test_a_renamed_scenario_keeps_its_name_after_the_same_run_was_cached(run_cli):
    """The simulation cache keys a run by its body, not its name: a what-if renamed with --set
    name= after the same configuration ran printed the first run's name."""
    assert run_cli("predict", "atlas_intellistation", "--point", "--json")[0] == 0
    status, out, _ = run_cli(
        "predict", "atlas_intellistation", "--point", "--json", "--set", "name=renamed"
    )
    assert status == 0 and json.loads(out)["scenario"] == "renamed"


def test_a_programmed_io_channel_mode_is_not_modelled_as_transfer_pio_is_not(run_cli):
    """ATA PIO modes move every word by the CPU: a channel_mode of one was simulated at the mode's
    rate with no CPU cost, where a controller's transfer: pio is refused as not modelled."""
    for override in ("controllers.onboard.channel_mode=ide_pio4", "variant=rh73_dma_broken"):
        status, out, err = run_cli("predict", "atlas_x330", "--set", override)
        assert status == 3 and not out and "programmed I/O" in err, (override, err)


@pytest.mark.parametrize(
    "override, key, volume, other",
    [
        ("workload.target=raid1", "workload.target", "raid1", "sata"),
        ("workload.source=sata", "workload.source", "sata", "raid1"),
    ],
)
def test_a_copy_of_a_volume_onto_itself_is_refused(run_cli, override, key, volume, other):
    """A copy whose source was its target was taken: psu_copy onto its own RAID1 predicted 26.3
    MB/s, reading and writing the one mirror."""
    _one_line_error(
        run_cli("predict", "psu_copy", "--point", "--set", override),
        f"--set: {key}: a copy reads one volume and writes another",
        f"both name {volume!r}; allowed: another volume ({other})",
    )


def test_a_source_for_a_workload_that_is_not_a_copy_is_refused(run_cli):
    """psu_copy's raid1 source kept under op read was taken and ignored (the second storage
    fuzz); a copy with no source names the volumes it may read."""
    status, out, err = run_cli("predict", "psu_copy", "--point", "--set", "workload.op=read")
    assert status == 2 and not out and err.count("\n") == 1
    assert err.startswith("--set: workload.op: only a copy reads a source volume")
    status, out, err = run_cli("predict", "psu_copy", "--point", "--set", "workload.source=null")
    assert status == 2 and err.startswith("--set: workload.source: a copy needs the volume")
    assert "allowed: raid1" in err
    # one volume only: the list of others was empty, 'allowed: ' and nothing (the purchase audit)
    status, out, err = run_cli("predict", "purchase_nvme", "--point", "--set", "workload.op=copy")
    assert status == 2 and not out and err.count("\n") == 1
    assert err.rstrip().endswith(
        "the scenario has none but its target 'data': add one under volumes"
    )


def test_a_drive_count_the_groups_do_not_divide_names_the_count_that_was_set(run_cli):
    """25 drives in purchase_hdd_md's two RAID6 groups: the --set of disks.count is the mistake,
    not the file's groups (it was blamed on the file, the second storage fuzz)."""
    attach = "[" + ",".join(f"jbod.{i}" for i in range(25)) + "]"
    status, out, err = run_cli(
        "predict",
        "purchase_hdd_md",
        "--point",
        "--set",
        "volumes.data.disks.count=25",
        "--set",
        f"volumes.data.disks.attach={attach}",
    )
    assert status == 2 and not out and err.count("\n") == 1
    assert err.startswith("--set: volumes.data.disks")
    assert "2 groups must divide disks.count (25 drives)" in err


@pytest.mark.parametrize(
    "name, key", [("atlas_intellistation", "workload.streams"), ("em_ingest", "workload.streams")]
)
def test_a_stream_count_past_what_is_simulated_is_refused(run_cli, name, key):
    """Ten million streams ran out of memory after 47 s and ended in a traceback (the input
    audit): each stream is a flow of the simulation, 10,000 at most."""
    _one_line_error(
        run_cli("predict", name, "--set", f"{key}=10000000", "--point"),
        f"{key}: must be a positive integer up to 10,000 (each stream is simulated)",
    )


@pytest.mark.parametrize(
    "track, stroke, message",
    [
        (
            2,
            5,
            "disks.odd.avg_seek_read_ms: an average seek lies between the track-to-track and the "
            "full-stroke seek (2 to 5 ms), got 8.9",
        ),
        (  # swapped: told as a range running backwards, "(8 to 0.8 ms)"
            8,
            0.8,
            "disks.odd.full_stroke_ms: at least track_to_track_ms: a full stroke crosses every "
            "track, a track-to-track seek one (8 ms), got 0.8; are the two swapped?",
        ),
    ],
    ids=["curve_misses_the_average", "ends_swapped"],
)
def test_an_average_seek_outside_its_curve_is_refused(run_cli, tmp_path, track, stroke, message):
    """A parts file's drive whose track-to-track seek (50 ms) passed its full stroke (1 ms) was
    taken, its mean seek 33.7 ms against the stated 10 (the input audit). A curve that misses the
    datasheet's average (8.9 ms) is told as its range; one whose ends are swapped, as swapped."""
    sources = {k: "estimated: a test" for k in ("track_to_track_ms", "full_stroke_ms")}
    drive = {"like": "wd1200jb", "track_to_track_ms": track, "full_stroke_ms": stroke}
    (tmp_path / "parts.yaml").write_text(
        yaml.safe_dump({"disks": {"odd": {**drive, "sources": sources}}})
    )
    _one_line_error(
        run_cli(
            "predict",
            "atlas_intellistation",
            "--catalog",
            str(tmp_path / "parts.yaml"),
            "--set",
            "volumes.md0.disks.part=odd",
            "--point",
        ),
        f"{tmp_path / 'parts.yaml'}: {message}",
    )


def test_a_name_s_control_characters_are_printed_escaped(run_cli):
    """A name holding ESC[2J (clear the screen), a line break or U+202E (right to left) acted on
    the terminal in predict's text (the input audit): printed escaped, as error lines are."""
    status, out, _ = run_cli(
        "predict", "atlas_intellistation", "--set", "name=a\u202eb\x1b[2Jc\nd", "--point"
    )
    assert status == 0
    assert "\x1b" not in out and "\u202e" not in out
    assert out.splitlines()[0].startswith("a\\u202eb\\x1b[2Jc\\nd")


def test_a_request_larger_than_what_a_stream_moves_is_refused(run_cli):
    """1 TB requests in a 4 GB run were taken, the prediction the same as at 128 KiB (the input
    audit): a request is at most what its stream moves."""
    _one_line_error(
        run_cli("predict", "psu_write", "--set", "workload.request_KiB=1e9", "--point"),
        "workload.request_KiB: a request is at most what a stream moves",
        "4,194,304 KiB), got 1e+9 KiB",
    )


def test_a_header_given_but_not_text_is_not_called_missing(run_cli, tmp_path):
    """'description: 5' was refused as 'missing' (the input audit): it is there, and not text."""
    path = _variant(tmp_path, lambda data: data.update(description=5))
    _one_line_error(run_cli("predict", path), "description: must be a non-empty string, got 5")
    _one_line_error(
        run_cli("predict", "atlas_intellistation", "--set", "name=  ", "--point"),
        "--set: name: must be a non-empty string, got ''",
    )


def test_a_key_set_to_nothing_is_called_empty_not_a_non_string(run_cli):
    """The network audit's case: '--set nic=' was told 'must be a string, got ''' (it is one)."""
    _one_line_error(
        run_cli("predict", "atlas_lightpath", "--set", "nic=", "--point"),
        "--set: nic: must be a non-empty string, got ''",
    )


LONG = "a" * 300  # longer than a file name may be (255 bytes): looking it up raises ENAMETOOLONG


@pytest.mark.parametrize(
    "args",
    [
        ("predict", LONG, "--point"),
        ("predict", f"/tmp/{LONG}.yaml", "--point"),
        ("predict", "atlas_intellistation", "--point", "--catalog", f"/tmp/{LONG}.yaml"),
        ("predict", "em_ingest_microscopes", "--point", "--set", f"storage={LONG}.yaml"),
    ],
)
def test_a_file_name_too_long_to_look_up_is_no_such_file(run_cli, args):
    """The input audit's case: a 300-byte name raised OSError (File name too long)."""
    _one_line_error(run_cli(*args), "no such")


def test_a_parts_file_named_that_is_a_folder_is_not_called_missing(run_cli, tmp_path):
    _one_line_error(
        run_cli("predict", "atlas_intellistation", "--point", "--catalog", str(tmp_path)),
        "is a folder, not a parts file",
    )


@pytest.mark.parametrize(
    "setting",
    ["volumes.md0.disks.attach.\u00b2=promise1.1", "volumes.md0.disks.attach.0=promise1.\u00b2"],
)
def test_a_position_written_with_a_digit_python_cannot_read_is_refused(run_cli, setting):
    """'²' is a digit to str.isdigit and not to int(): it raised ValueError (the input audit)."""
    _one_line_error(run_cli("predict", "atlas_intellistation", "--point", "--set", setting))


@pytest.mark.parametrize(
    ("first", "second"), [("1", "'1'"), ("true", "'True'"), ("null", "'None'")]
)
def test_keys_the_schema_names_alike_are_given_twice(run_cli, tmp_path, first, second):
    """1 and '1' were two keys to the duplicate check and one to the schema, the later silently
    winning: a 3-drive volume became a 1-drive one (the input audit)."""
    path = tmp_path / "keys.yaml"
    path.write_text(BASE.read_text() + f"parts:\n  disks:\n    {first}: {{}}\n    {second}: {{}}\n")
    _one_line_error(run_cli("predict", str(path), "--point"), "given twice (line")


def test_a_scenario_declares_at_most_so_many_variants(run_cli, tmp_path):
    """25,000 variants took about 15 min to check, each loading the whole file (the input audit)."""
    from model import scenario

    count = scenario.MAX_VARIANTS + 1
    path = _variant(
        tmp_path, lambda data: data.update(variants={f"v{i}": {"seed": i} for i in range(count)})
    )
    _one_line_error(
        run_cli("predict", path, "--point"), f"variants: at most {scenario.MAX_VARIANTS}", "got 101"
    )


def test_a_like_part_with_an_unknown_key_is_told_so_not_asked_for_a_source(run_cli, tmp_path):
    path = tmp_path / "parts.yaml"
    path.write_text("disks:\n  mine:\n    like: wd1200jb\n    like2: 1\n")
    _one_line_error(
        run_cli("predict", "atlas_intellistation", "--point", "--catalog", str(path)),
        "disks.mine.like2: unknown key",
    )
    path.write_text("disks:\n  mine:\n    like: wd1200jb\n    name: 5\n")
    _one_line_error(
        run_cli("predict", "atlas_intellistation", "--point", "--catalog", str(path)),
        "disks.mine.name: must be a string, got 5",
    )


def test_an_empty_parts_file_is_not_called_a_scenario(run_cli, tmp_path):
    path = tmp_path / "parts.yaml"
    path.write_text("")
    status, _, err = run_cli("predict", "atlas_intellistation", "--point", "--catalog", str(path))
    _one_line_error((status, "", err), "the file is empty; expected a YAML mapping")
    assert "scenario" not in err.split(":", 2)[-1]


@pytest.mark.parametrize(
    ("value", "shown"), [("true", "got true"), ("[1]", "got a list"), ("5.0", "got 5")]
)
def test_a_refused_value_is_shown_as_yaml_writes_it(run_cli, value, shown):
    """Python's words leaked: 'got True', 'got list', 'got 5.0' (the input audit)."""
    _one_line_error(
        run_cli("predict", "atlas_intellistation", "--point", "--set", f"workload.op={value}"),
        shown,
    )


@pytest.mark.parametrize(("key", "shown"), [(None, "got null"), (True, "got true"), (5, "got 5")])
def test_an_unknown_named_by_no_text_is_refused_as_yaml_writes_it(run_cli, tmp_path, key, shown):
    """'unknowns.None: not a scenario key' named a key by Python's word (the input audit)."""

    def change(data):
        data["unknowns"][key] = {"options": [1, 2], "source": "a guess"}

    _one_line_error(
        run_cli("predict", _variant(tmp_path, change), "--point"),
        "unknowns: a key is a scenario key (dotted text)",
        shown,
    )


def test_a_whole_number_written_with_a_point_is_said_so_where_an_integer_is_due(run_cli):
    """The sweep audit: workload.streams=2.0 was refused as 'must be a positive integer ...,
    got 2', which reads as if 2 were refused."""
    status, out, err = run_cli(
        "predict", "atlas_intellistation", "--set", "workload.streams=2.0", "--point"
    )
    assert status == 2 and not out
    assert err.rstrip().endswith("got 2.0, a decimal number"), err


def test_a_scenario_name_that_is_none_of_the_project_s_lists_them(run_cli):
    """The docs audit: 'predict nosuch' said only 'data/scenarios/nosuch.yaml: no such file', with
    no word of the names there are and no list of them anywhere but the folder."""
    status, out, err = run_cli("predict", "nosuch")
    assert status == 2 and not out and err.count("\n") == 1, err
    names = ", ".join(scenario.shipped_names())
    assert f"no such scenario 'nosuch'; the project's: {names} (or give your own as a file" in err


def test_a_flash_drive_behind_the_download_server_is_not_modelled_not_unknown(run_cli):
    """The network audit: an SSD of the catalog named as the download server's disk was refused as
    'unknown disk', listing hard disks only; its model follows hard disks' seeks, so it is a
    configuration not modelled (status 3), with where flash behind a LAN is."""
    status, out, err = run_cli(
        "predict", "eah_download", "--point", "--set", "disk=samsung_pm9a3_7680"
    )
    assert status == 3 and not out and err.count("\n") == 1, err
    assert "flash drives are not modelled here" in err and "storage_behind_network" in err


@pytest.mark.parametrize(
    ("name", "setting", "told"),
    [  # a check of what an override changed, at a key it did not set: the file, with the override
        (
            "purchase_hdd_zfs",
            "volumes.data.disks.attach.0=jbod.1",
            "data/scenarios/purchase_hdd_zfs.yaml (with --set volumes.data.disks.attach.0=jbod.1)"
            ": volumes.data.disks.attach[1]: jbod.1 is already taken",
        ),
        (
            "purchase_hdd_zfs",
            "controllers={}",
            "data/scenarios/purchase_hdd_zfs.yaml (with --set controllers={}): "
            "shelves.jbod.uplink[0]: must be CONTROLLER.CHANNEL",
        ),
        (
            "em_ingest_microscopes",
            "storage_overrides=[workload.op=read]",
            "data/scenarios/em_ingest_microscopes.yaml (with --set storage_overrides="
            "[workload.op=read]): storage: must be a storage scenario that writes",
        ),
        (  # the key it set, written as a check names a position in a list
            "purchase_hdd_zfs",
            "volumes.data.disks.attach.0=nosuch.1",
            "--set: volumes.data.disks.attach[0]: must be CONTROLLER.CHANNEL",
        ),
        (  # one of the overrides the ingest gives its store: at its place in the list
            "em_ingest_microscopes",
            "storage_overrides=[variant=striped, nosuchkey=1]",
            "--set: storage_overrides[1]: nosuchkey: no such key in a storage scenario",
        ),
    ],
)
def test_a_mistake_an_override_made_is_told_with_the_override(run_cli, name, setting, told):
    """Each was blamed on the scenario file alone, the last with the file named twice (the
    hostile-input audit)."""
    status, out, err = run_cli("predict", name, "--point", "--set", setting)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(told), err


def test_a_store_override_the_file_gives_is_told_at_its_place(run_cli, tmp_path):
    text = (paths.SCENARIOS / "em_ingest_microscopes.yaml").read_text()
    path = tmp_path / "ingest.yaml"
    path.write_text(text.replace("[variant=striped]", "[variant=striped, nosuchkey=1]"))
    status, out, err = run_cli("predict", str(path), "--point")
    assert status == 2 and err.startswith(f"{path}: storage_overrides[1]: nosuchkey: no such key")


def test_the_file_s_own_mistake_is_told_without_the_overrides_beside_it(run_cli, tmp_path):
    """Two of the file's drives in one bay is the file's mistake whatever --set says: it was told
    '(with --set workload.total_MB=100)', which sent the user to the --set (the second review)."""
    raw = yaml.safe_load((paths.SCENARIOS / "purchase_hdd_zfs.yaml").read_text())
    attach = raw["volumes"]["data"]["disks"]["attach"]
    attach[1] = attach[0]
    path = tmp_path / "two_in_one_bay.yaml"
    path.write_text(yaml.safe_dump(raw))
    status, out, err = run_cli("predict", str(path), "--point", "--set", "workload.total_MB=100")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"{path}: volumes.data.disks.attach[1]: "), err
    assert "--set" not in err


@pytest.mark.parametrize(
    "setting, told",
    [
        (
            "volumes.data.disks.seq_read_MBps=3.5 GB/s",
            [
                "volumes.data.disks.seq_read_MBps: must be a number of MB/s, without the unit: "
                "write 3500, got '3.5 GB/s'"
            ],
        ),
        (
            "workload.request_KiB=612KiB",
            ["workload.request_KiB: must be a number of KiB (2^10 B), without the unit: write 612"],
        ),
        (  # a binary unit reads one way
            "workload.total_MB=1 GiB",
            [
                "workload.total_MB: must be a number of MB (10^6 B), without the unit: "
                "write 1073.741824"
            ],
        ),
    ],
)
def test_an_override_written_with_its_unit_is_told_the_number_to_write(run_cli, setting, told):
    """The parts audit: a number given with its unit was told only the key's range, in a parts
    file and in --set alike; both now say to write the number alone, in the key's unit."""
    _one_line_error(run_cli("predict", "purchase_nvme", "--set", setting), "--set: ", *told)


CLIENTS = "clients.count: must be a positive integer up to 10,000 (each client is simulated)"


@pytest.mark.parametrize(
    "setting, told",
    [
        # no unit written: the key's own words, not "without the unit"
        ("clients.count=2x4", f"{CLIENTS}, got '2x4'"),
        ("clients.count=8 servers", f"{CLIENTS}, got '8 servers'"),
        (
            "volumes.data.disks.seq_read_MBps=2x25",
            "volumes.data.disks.seq_read_MBps: must be a drive's rate above 0",
        ),
        ("kernel.page_B=4M", "kernel.page_B: must be a power of two from 4,096 to 65,536 bytes"),
        # a count takes no unit: no number is told, whatever the unit
        ("clients.count=8 IOPS", f"{CLIENTS}, without a unit, got '8 IOPS'"),
        # KB, MB, GB and TB are 10^3 B to some tools and 2^10 B to others: both are said
        (
            "workload.request_KiB=612 KB",
            "workload.request_KiB: must be a number of KiB (2^10 B), without the unit: KB may "
            "mean kB (10^3 B) or KiB (2^10 B), got '612 KB'",
        ),
        (
            "workload.total_MB=4 GB",
            "workload.total_MB: must be a number of MB (10^6 B), without the unit: GB may mean "
            "GB (10^9 B) or GiB (2^30 B), got '4 GB'",
        ),
        (
            "kernel.page_B=4 KB",
            "kernel.page_B: must be a number of bytes, without the unit: KB may mean kB (10^3 B) "
            "or KiB (2^10 B), got '4 KB'",
        ),
    ],
)
def test_an_override_is_told_no_number_it_may_not_mean(run_cli, setting, told):
    """The parts review: '2x4' for a count was told "without a unit: write 2", '612 KB' for a
    KiB key "write 597.65625" (KB read as 10^3 B, where many tools mean 2^10), and '2x25' for a
    rate "without the unit" where none was written."""
    result = run_cli("predict", "purchase_nvme", "--set", setting)
    _one_line_error(result, f"--set: {told}")
    assert "write" not in result[2]
