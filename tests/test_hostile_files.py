"""Files and options a user gets wrong, found by an audit of the command line: each is refused with
one line and exit 2 before anything runs, or read as the documentation says, never with a
traceback, a hang or a silently different answer."""

import math
import os
import pickle
import re

import pytest
from grid_files import grid
from grid_files import one_line as _one_line

from model import paths, scenario, yamlio
from model.errors import UserError
from model.simulate import simulate
from model.sweep.store import Store

MINI = """name: mini
model: storage
description: test
source: estimated, test
host: ibm_intellistation_m_pro_6850
buses:
  pci_64: {part: pci_64_66}
controllers:
  promise1: {part: promise_ultra100_tx2, bus: pci_64}
volumes:
  md0:
    level: raid0
    chunk_KiB: 64
    disks: {part: wd1200jb, count: 2, attach: [promise1.0, promise1.1]}
    filesystem: {type: ext2, block_KiB: 4}
workload: {op: read, target: md0, total_MB: 4000, request_KiB: 128}
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_not_waited_on(run_cli, tmp_path):
    """Opening a FIFO for reading waits for a writer: predict hung until killed."""
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    _one_line(run_cli("predict", str(fifo), "--point"), "pipe.yaml", "a pipe or a socket")
    _one_line(run_cli("predict", "atlas_intellistation", "--catalog", str(fifo)), "pipe.yaml")


def test_an_unnamed_pipe_given_by_name_is_said_to_be_one():
    """`cat s.yaml | predict /dev/stdin` and `predict <(cat s.yaml)` were told 'no such file' (the
    input audit): the name resolves to the pipe, which is no path."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "model", "predict", "/dev/stdin", "--point"],
        input=MINI,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and not proc.stdout
    assert proc.stderr == "/dev/stdin: is a pipe or a socket, not a file; expected a YAML file\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_parts_file_that_is_a_named_pipe_is_said_to_be_one_and_never_opened(run_cli, tmp_path):
    """A FIFO a scenario's catalogs: named was 'no such parts file', which is false (the
    hostile-input audit); --catalog's said 'a pipe or a device'."""
    fifo = tmp_path / "parts.yaml"
    os.mkfifo(fifo)
    path = tmp_path / "s.yaml"
    path.write_text(MINI + "catalogs: [parts.yaml]\n")
    said = "is not a regular file (a FIFO); a parts file is a YAML file"
    _one_line(run_cli("predict", str(path), "--point"), f"s.yaml: catalogs[0]: {fifo} {said}")
    at_command_line = run_cli("predict", str(path), "--point", "--catalog", str(fifo))
    _one_line(at_command_line, f"--catalog: {fifo}: {said}")


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null here")
def test_a_device_given_as_a_parts_file_is_said_to_be_one(run_cli):
    said = "--catalog: /dev/null: is not a regular file (a character device)"
    _one_line(run_cli("predict", "atlas_intellistation", "--catalog", "/dev/null"), said)


@pytest.mark.parametrize(
    ("text", "key"),
    [("1: a\n0x1: b\n", "0x1"), ("yes: 1\ntrue: 2\n", "true"), ("1: a\n1.0: b\n", "1.0")],
)
def test_keys_that_read_as_one_value_are_given_twice(text, key):
    """YAML kept the last of two spellings of one key silently (1 and 0x1 built one volume)."""
    with pytest.raises(yamlio.UserError, match=f"{key}: given twice"):
        yamlio.safe_load(text)


@pytest.mark.parametrize(
    "text",
    [
        "&k a: 1\n*k : 2\n",  # the anchor's key given again through its alias
        "x: &k a\na: 1\n*k : 2\n",  # a value's anchor used as a key beside the same key
        "&k a: 1\n&k b: 2\n*k : 3\nb: 4\n",  # an anchor given again names its new node
    ],
)
def test_a_key_given_twice_through_an_alias_is_refused(text):
    """A key written as an alias was never compared, and its value won (the hostile-input audit:
    ``{v: {&k workload.streams: 2, *k : 3}}`` ran 3 streams)."""
    with pytest.raises(yamlio.UserError, match="given twice .*through the alias \\*k"):
        yamlio.safe_load(text)


@pytest.mark.parametrize(
    "text",
    [
        "a: &a {s: 2}\nb: &b {s: 4}\nv: {<<: [*a, *b]}\n",  # 4 had been dropped unseen
        "a: &a {s: 2}\nv: {<<: *a, s: 3}\n",  # the merged 2 replaced unseen
    ],
)
def test_a_merge_key_is_refused(text):
    """YAML 1.1's merge key, which PyYAML applies, takes a key from each merged mapping without the
    check a key given twice gets (the review: ``{<<: [*a, *b]}`` ran 2 streams of two given)."""
    with pytest.raises(yamlio.UserError, match="<<: a merge key .* write the keys themselves"):
        yamlio.safe_load(text)


def test_an_alias_as_a_key_or_a_value_of_another_key_is_read_as_yaml_reads_it():
    assert yamlio.safe_load("&k a: 1\nb: *k\nc: {*k : 2}\n") == {"a": 1, "b": "a", "c": {"a": 2}}


def test_a_variant_s_key_given_twice_through_an_alias_is_one_line(run_cli, tmp_path):
    path = tmp_path / "alias.yaml"
    path.write_text(MINI + "variants: {v: {&k workload.streams: 2, *k : 3}}\n")
    _one_line(
        run_cli("predict", str(path), "--point", "--set", "variant=v"),
        "alias.yaml: variants.v.workload.streams: given twice (line",
    )


@pytest.mark.parametrize(
    "text, key",
    [
        ("ssds:\n  acme:\n    capacity_GB: 7680\n    capacity_GB: 7680\n", "ssds.acme.capacity_GB"),
        ("a:\n  - {x: 1}\n  - {x: 1, x: 2}\n", "a[1].x"),
        ("- a\n- {b: 1, b: 2}\n", "[1].b"),
        ("x: 1\nx: 2\n", "x"),
    ],
)
def test_a_key_given_twice_is_named_by_where_it_sits(text, key):
    """The vendor-quote audit: a parts file's capacity_GB given twice was named 'capacity_GB', not
    the part's key as every other message names it."""
    with pytest.raises(yamlio.UserError, match=f"^f.yaml: {re.escape(key)}: given twice"):
        yamlio.safe_load(text, "f.yaml")


def test_numbers_are_read_as_yaml_1_2_reads_them():
    """YAML 1.1 read 0100 as octal 64 and 1:30 in base 60 as 90, with no word."""
    data = yamlio.safe_load("a: 0100\nb: '1:30'\nc: 1:30\nd: 1e12\ne: 0x10\nf: 1_000\n")
    assert data == {"a": 100, "b": "1:30", "c": "1:30", "d": 1e12, "e": 16, "f": "1_000"}


def test_a_number_written_in_base_60_is_refused_where_a_number_is_due(run_cli):
    _one_line(
        run_cli("predict", "atlas_intellistation", "--point", "--set", "workload.total_MB=1:30"),
        "workload.total_MB",
    )


def test_a_variant_name_must_be_a_word(run_cli, tmp_path):
    path = tmp_path / "v.yaml"
    path.write_text(MINI + "variants:\n  1: {}\n")
    _one_line(run_cli("predict", str(path), "--point"), "variants.1", "a word")


def test_a_shelf_with_no_uplink_is_refused(run_cli):
    _one_line(
        run_cli("predict", "purchase_hdd_md", "--point", "--set", "shelves.jbod.uplink=[]"),
        "shelves.jbod.uplink",
        "at least one",
    )


def test_a_misspelt_part_is_refused_though_the_workload_leaves_it_idle(run_cli, tmp_path):
    path = tmp_path / "spare.yaml"
    path.write_text(MINI.replace("buses:\n", "buses:\n  spare: {part: no_such_bus}\n"))
    _one_line(run_cli("predict", str(path), "--point"), "buses.spare.part", "unknown bus")
    _one_line(
        run_cli("predict", "atlas_intellistation", "--point", "--set", "buses.pci_32.part=nope"),
        "buses.pci_32.part",
    )


def test_a_file_in_the_working_folder_does_not_stand_for_a_project_scenario(tmp_path):
    """A file named atlas_intellistation in the working folder replaced the project's scenario."""
    (tmp_path / "atlas_intellistation").write_text(MINI)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert scenario.resolve("atlas_intellistation") == (
            paths.SCENARIOS / "atlas_intellistation.yaml"
        )
        assert scenario.load("atlas_intellistation").name == "atlas_intellistation"
    finally:
        os.chdir(here)


def test_a_relay_run_too_long_to_wait_for_is_refused(run_cli):
    """Each at its own limit, sites, products and real servers ran for minutes."""
    _one_line(
        run_cli(
            "predict",
            "psu_relay",
            "--point",
            "--set",
            "feed.products=10000",
            "--set",
            "real_servers.count=100",
        ),
        "feed.products",
        "at most 100,000",
    )
    assert simulate(scenario.load("psu_relay", ["feed.products=10000"])).throughput_MBps > 0


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        (
            {
                "sample": {
                    "method": "random",
                    "n": 2,
                    "seed": -1,
                    "ranges": {"workload.total_MB": [1, 9]},
                }
            },
            "sample.seed",
        ),
        ({"points": [{"seed": 10**23}, {"seed": 2}]}, "seed"),
        ({"sample": {"method": "lhs", "n": 3, "ranges": {}}}, "sample.ranges"),
        (
            {"sample": {"method": "lhs", "n": 3, "ranges": {"workload.total_MB": [1, math.inf]}}},
            "sample.ranges.workload.total_MB: must be [low, high], finite numbers",
        ),
        (
            {"sample": {"method": "sobol", "n": 6, "ranges": {"workload.total_MB": [1, 9]}}},
            "sample.n",
        ),
        (
            {"sample": {"method": "random", "n": 2, "ranges": {"kernel.page_B": [4096, 65536]}}},
            "sample.ranges.kernel.page_B",
        ),
    ],
)
def test_a_grid_that_cannot_run_is_refused_before_any_point(run_cli, tmp_path, spec, key):
    """A negative sample seed and a seed past 2^53 gave tracebacks; a range over powers of two ran
    every point to its failure."""
    path = grid(tmp_path, **spec)
    _one_line(run_cli("sweep", str(path), "--out", str(tmp_path / "out")), key)


def test_an_out_name_longer_than_the_system_takes_is_one_line(run_cli, tmp_path):
    """The input audit: a 300-character --out was a traceback (OSError: File name too long, from
    the check for a symbolic link)."""
    path = grid(tmp_path, points=[{"workload.total_MB": 100}])
    _one_line(
        run_cli("sweep", str(path), "--out", str(tmp_path / ("x" * 300))),
        "cannot create it (File name too long)",
    )


def test_a_request_of_less_than_a_byte_is_refused(run_cli):
    """The input audit: buffered requests of 1e-10 KiB ran, 1.9 trillion seconds for the stream."""
    _one_line(
        run_cli("predict", "atlas_intellistation", "--set", "workload.request_KiB=1e-10"),
        "workload.request_KiB: a read() or write() moves one byte at least",
    )
    status, _, err = run_cli(
        "predict", "atlas_intellistation", "--point", "--set", "workload.request_KiB=0.0009765625"
    )
    assert status == 0, err


def test_a_key_with_a_look_alike_letter_names_the_letter(run_cli):
    """The input audit: a Cyrillic 'о' in 'wоrkload' was refused with a list of allowed keys
    holding a 'workload' that looks the same."""
    _one_line(
        run_cli("predict", "atlas_intellistation", "--set", "w\u043erkload.streams=2"),
        "no such key in a storage scenario (it holds 'о', U+043E CYRILLIC SMALL LETTER O",
    )
    status, _, err = run_cli("predict", "atlas_intellistation", "--set", "workload.streems=2")
    assert status == 2 and "U+" not in err, err


def test_a_sweep_s_summary_is_one_line_whatever_its_folder_holds(run_cli, tmp_path):
    """The input audit: an --out holding a line break split the summary line in two."""
    path = grid(tmp_path, points=[{"workload.total_MB": 100}])
    status, out, err = run_cli(
        "sweep", str(path), "--out", str(tmp_path / "a\nb"), "--workers", "1"
    )
    assert status == 0, err
    assert len(out.strip().splitlines()) == 1 and "a\\nb" in out, out


def test_an_empty_out_folder_is_refused(run_cli, tmp_path):
    """--out '' wrote into the project's sweeps/ folder."""
    path = grid(tmp_path, points=[{"workload.total_MB": 100}])
    _one_line(run_cli("sweep", str(path), "--out", ""), "--out", "must name a folder")


@pytest.mark.parametrize("retry", [[], ["--retry-failed"]])
def test_a_damaged_point_file_is_named(run_cli, tmp_path, retry):
    """An ArrowInvalid traceback, when the results were gathered and, with --retry-failed, when
    the failed points were looked for."""
    path = grid(tmp_path, points=[{"workload.total_MB": 100}, {"workload.total_MB": 200}])
    out = tmp_path / "out"
    assert run_cli("sweep", str(path), "--out", str(out), "--workers", "1")[0] == 0
    damaged = sorted(Store(out).points.glob("*.parquet"))[0]
    damaged.write_text("garbage")
    status, out, err = run_cli("sweep", str(path), "--out", str(out), "--workers", "1", *retry)
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("sweep t:")]  # the progress bar
    assert status == 2 and out == "" and "Traceback" not in err, err
    assert len(lines) == 1 and damaged.name in lines[0] and "not a point's parquet file" in err


@pytest.mark.parametrize("out", ["folder/", "mine", "mine.txt"])
def test_a_template_is_written_only_to_a_yaml_file(run_cli, tmp_path, out):
    """--out DIR/ wrote a file named DIR, and a name without .yaml is read back as a project
    scenario's name, not as the file."""
    _one_line(run_cli("new", "storage_server", "--out", str(tmp_path / out)), "ending in .yaml")
    assert not list(tmp_path.iterdir())


def test_workers_beyond_what_a_machine_holds_are_refused(run_cli, tmp_path):
    path = grid(tmp_path, points=[{"workload.total_MB": 100}])
    _one_line(run_cli("sweep", str(path), "--workers", "100000"), "--workers", "from 1 to 256")


def test_a_variant_that_is_not_a_mapping_is_refused_though_not_picked(run_cli, tmp_path):
    path = tmp_path / "v.yaml"
    path.write_text(MINI + "variants:\n  fine: {}\n  broken: [1, 2]\n")
    _one_line(run_cli("predict", str(path), "--point"), "variants.broken", "mapping")


def test_a_part_id_must_be_a_word(run_cli, tmp_path):
    """A null id (~:) became the part 'None'; it is named as YAML writes it."""
    parts = tmp_path / "parts.yaml"
    parts.write_text("disks:\n  ~: {like: wd1200jb, sources: {}}\n")
    _one_line(
        run_cli("predict", "atlas_intellistation", "--point", "--catalog", str(parts)),
        "disks.null",
        "a word",
    )


def test_the_ingest_keeps_its_writers_one_per_client(run_cli):
    """storage_overrides' workload.streams was replaced by the client count without a word."""
    _one_line(
        run_cli(
            "predict",
            "em_ingest_microscopes",
            "--point",
            "--set",
            "storage_overrides=[workload.streams=3]",
        ),
        "storage_overrides[0]",
        "set clients",
    )


def test_a_grid_may_not_set_where_it_was_read_from(run_cli, tmp_path):
    """A grid's 'path' is the program's record of the grid file: a file's own was listed among the
    keys it may give, then silently replaced."""
    path = grid(tmp_path, path="elsewhere.yaml", points=[{"workload.total_MB": 100}])
    result = run_cli("sweep", str(path), "--out", str(tmp_path / "out"))
    _one_line(result, "path: unknown key; allowed here: name, scenario")
    assert "intervals, path" not in result[2]


@pytest.mark.parametrize(
    ("value", "tag"),
    [
        ("!!binary IiArIHN0cigxKSArICI=", "!!binary"),  # bytes: escaped papermill's quoting
        ("!!set {a, b}", "!!set"),
        ("!!timestamp 2026-11-28", "!!timestamp"),
        ("!!omap [{a: 1}]", "!!omap"),
    ],
)
def test_a_grid_value_of_a_kind_no_key_takes_is_refused_before_it_runs(
    run_cli, tmp_path, value, tag
):
    """A papermill grid's values reach the notebook's parameters cell: a bytes value (!!binary)
    was written there unquoted, so its text ran as code. Only JSON's kinds are read."""
    path = tmp_path / "grid.yaml"
    path.write_text(
        "name: t\nscenario: em_ingest\nengine: papermill\n"
        f"product:\n  workload.streams: [2]\n  description: [{value}]\n"
    )
    result = run_cli("sweep", str(path), "--out", str(tmp_path / "out"))
    _one_line(result, f"a YAML tag (line 6), {tag}, is not allowed: write plain values")
    assert not (tmp_path / "out").exists()


def test_a_date_is_read_as_text():
    assert yamlio.safe_load("when: 2026-11-28") == {"when": "2026-11-28"}


def test_control_characters_in_a_user_s_text_are_shown_escaped(run_cli, tmp_path):
    """A key holding a terminal's escape sequence turned the rest of the error red, a NUL in a
    name printed as a raw NUL: both are shown escaped, and the line stays one line."""
    path = tmp_path / "s.yaml"
    path.write_text(MINI.replace("workload: {", '"colour\\e[31m": 1\nworkload: {'))
    result = run_cli("predict", str(path))
    _one_line(result, "colour\\x1b[31m")
    assert "\x1b" not in result[2]


HUGE = "a" * 199_997 + "end"  # a name the input audit tried: 200,000 characters


@pytest.mark.parametrize(
    "where, override, told",
    [
        ("s.yaml", None, "end: unknown key; allowed here: host, buses, volumes, workload,"),
        ("--set", f"volumes.{HUGE}.level=raid0", "end' under volumes; allowed: md0; a new one"),
        ("--set", f"{HUGE}=1", "end: no such key in a storage scenario; allowed at top level:"),
        ("--set", f"volumes.md0.disks.part={HUGE}", "end'; the catalog (data/hardware/disks"),
    ],
    ids=["key_in_a_file", "volume_set", "key_set", "part_set"],
)
def test_a_huge_name_is_told_by_its_head_and_tail(run_cli, tmp_path, where, override, told):
    """A key, a volume or a part 200,000 characters long made a 200 KB (600 KB for a volume, named
    three times) "one line" that buried the file and what is allowed: a run of text past 400
    characters is shown as its head and tail, with the count of characters left out."""
    path = tmp_path / "s.yaml"
    path.write_text(MINI.replace("workload: {", f"? {HUGE}\n: 1\nworkload: {{"))
    args = ["--set", override] if override else []
    result = run_cli("predict", str(path) if where == "s.yaml" else "atlas_intellistation", *args)
    _one_line(result, where, "aaa…(199,7", " characters)…aaa", told)
    assert len(result[2]) < 2_000


def test_only_a_run_of_text_past_the_limit_is_shortened():
    """A list of allowed values is many short runs and a path under 400 characters one: both are
    left whole; a refusal shortened survives a pickle and is the same told again inside another."""
    allowed = ", ".join(f"value_{n}" for n in range(100))
    folder = "/" + "/".join(["folder"] * 56)  # 392 characters, 393 with the colon after it
    assert UserError("s.yaml", "key", f"allowed: {allowed}").line().endswith(allowed)
    assert UserError(folder, None, "m").line() == f"{folder}: m"
    path = f"{folder}/data/s.yaml"  # 404, and its colon: 105 characters left out of 405
    long = UserError(path, "key", HUGE)
    assert long.line() == (
        f"{path[:150]}…(105 characters)…{path[-149:]}: key: "
        f"{HUGE[:150]}…(199,700 characters)…{HUGE[-150:]}"
    )
    assert pickle.loads(pickle.dumps(long)).line() == long.line() == str(long)
    told_inside = UserError("--set", "storage", f"'ref': {long.line()}").line()
    assert told_inside == f"--set: storage: 'ref': {long.line()}"
    # measured as shown: 399 control characters, each shown as four (\x01), had made 1,606
    controls = UserError("s.yaml", "\x01" * 399, "m").line()
    assert len(controls) < 2 * 400 and controls.endswith(": m") and "\\x01" in controls


def test_a_tag_given_with_set_is_named_as_its_key(run_cli):
    result = run_cli("predict", "atlas_intellistation", "--set", "name=!!binary aGk=")
    _one_line(result, "--set: name: a YAML tag (line 1), !!binary, is not allowed")


def test_a_not_modelled_line_shows_control_characters_escaped(run_cli, tmp_path):
    """The 'not modelled yet' line carried a controller's name raw, escape sequence and all."""
    path = tmp_path / "s.yaml"
    path.write_text(
        MINI.replace("promise1:", '"p\\e[31m1":')
        .replace("attach: [promise1.0, promise1.1]", 'attach: ["p\\e[31m1.0", "p\\e[31m1.1"]')
        .replace("bus: pci_64}", "bus: pci_64, transfer: pio}")
    )
    status, out, err = run_cli("predict", str(path))
    assert status == 3 and "not modelled yet" in err and "\x1b" not in err, err
    assert "p\\x1b[31m1" in err


@pytest.mark.parametrize(
    ("category", "like", "key", "value", "said"),
    [
        # the sweep audit's units mistakes, each once taken and predicted from
        ("nics", "nic_10gbe", "rate_Gbps", 10000, "an Ethernet rate from 0.01 to 1,600 Gbit/s"),
        ("nics", "nic_10gbe", "rate_Gbps", 1e-12, "an Ethernet rate from 0.01"),
        ("disks", "wd1200jb", "rpm", 1e-6, "a spindle speed from 3,600 to 15,000 rpm"),
        ("disks", "wd1200jb", "rpm", 1e9, "a spindle speed from 3,600 to 15,000 rpm"),
        ("disks", "wd1200jb", "interface_rate_MBps", 1e6, "at most 2,400 MB/s"),
        ("ssds", "samsung_980_pro_1tb", "seq_read_MBps", 1e6, "at most 60,000 MB/s"),
        ("ssds", "samsung_980_pro_1tb", "random_read_iops", 1e12, "at most 30 million"),
        ("ssds", "samsung_980_pro_1tb", "read_latency_us", 1e-9, "a latency from 1 to"),
        ("hosts", "dell_r720", "clock_GHz", 1e6, "a clock from 0.1 to 10 GHz"),
        ("hosts", "dell_r720", "copy_rate_MBps", 1e12, "at most 200,000 MB/s"),
        ("hosts", "dell_r720", "memory_MB", 1e-9, "at least 1 MB"),
    ],
)
def test_a_part_figure_no_shipped_hardware_has_is_one_line(
    run_cli, tmp_path, category, like, key, value, said
):
    """A figure outside what shipped hardware spans is a unit typed wrong (Mbit/s for Gbit/s):
    refused, where it once predicted (a NIC of 10,000 Gbit/s took a store's bottleneck)."""
    parts = tmp_path / "parts.yaml"
    parts.write_text(
        yamlio.yaml.safe_dump(
            {category: {"mine": {"like": like, key: value, "sources": {key: "a test"}}}}
        )
    )
    _one_line(
        run_cli("predict", "atlas_intellistation", "--point", "--catalog", str(parts)),
        f"{category}.mine.{key}",
        said,
    )


def test_a_host_takes_no_more_nic_cards_than_it_has_slots(run_cli, tmp_path):
    """The sweep audit's case: a server of seven PCI Express slots listed twelve 10 GbE cards, each
    taken in its fastest slot (the store's bottleneck moved from its NICs to its drives)."""
    parts = tmp_path / "parts.yaml"
    parts.write_text(
        yamlio.yaml.safe_dump(
            {"hosts": {"big": {"like": "dell_r720", "nics": ["nic_10gbe"] * 12, "sources": {}}}}
        )
    )
    _one_line(
        run_cli("predict", "atlas_intellistation", "--point", "--catalog", str(parts)),
        "hosts.big.nics",
        "12 port(s) of nic_10gbe need 12 cards, and",
    )
    # the review's case: seven single-port cards and seven dual-port ones, fourteen cards in all
    mixed = ["nic_10gbe"] * 7 + ["intel_x710_da2"] * 14
    parts.write_text(
        yamlio.yaml.safe_dump(
            {"hosts": {"big": {"like": "dell_r720", "nics": mixed, "sources": {}}}}
        )
    )
    _one_line(
        run_cli("predict", "atlas_intellistation", "--point", "--catalog", str(parts)),
        "hosts.big.nics",
        "need 14 cards, and",
    )


def test_a_transfer_s_circuits_need_a_card_slot_each(run_cli):
    """The network fuzz's case, on PCI Express: twenty 100 GbE circuits from a host of two slots."""
    _one_line(
        run_cli("predict", "ext_net_fasterdata_100g", "--set", "circuits=20", "--point"),
        "circuits",
        "20 port(s) of mellanox_cx5_100g need 20 cards, and",
    )
    status, out, _ = run_cli("predict", "ext_net_fasterdata_100g", "--set", "circuits=2", "--point")
    assert status == 0 and "MB/s" in out
