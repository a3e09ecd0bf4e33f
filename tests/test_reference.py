"""The scenario reference (``python -m model schema``) and the starter templates (``new``)."""

import dataclasses
import json
import types
import typing

import pytest

from model import reference, registry, scenario, templates, yamlio
from model.parts import CATEGORIES
from model.paths import PROJECT_ROOT

DOC = PROJECT_ROOT / "docs" / "scenario-reference.md"
REGENERATE = "python -m model schema --markdown > docs/scenario-reference.md"
# a name's last part that is a unit, though all in lower case (the others carry a capital: _MBps)
LOWER_CASE_UNITS = {"s", "ms", "us", "ns", "h", "pct", "pages", "segments", "rpm", "iops"}


def _core(tp):
    """A type without Annotated and None (walked independently of model.reference)."""
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Union, types.UnionType):
            tp = next(a for a in typing.get_args(tp) if a is not type(None))
        else:
            return tp


def _spec_keys(cls, prefix=""):
    """Every leaf key of a body dataclass: dotted, NAME for a mapping's entries."""
    hints = typing.get_type_hints(cls, include_extras=True)
    for f in dataclasses.fields(cls):
        tp, key = _core(hints[f.name]), prefix + f.name
        if dataclasses.is_dataclass(tp):
            yield from _spec_keys(tp, key + ".")
        elif typing.get_origin(tp) is dict:
            item = _core(typing.get_args(tp)[1])
            if dataclasses.is_dataclass(item):
                yield from _spec_keys(item, f"{key}.NAME.")
            else:
                yield f"{key}.NAME"
        else:
            yield key


def _reference_keys(name):
    return {k.key: k for s in reference.model_reference(name).sections for k in s.keys}


def test_committed_reference_is_current():
    generated = reference.markdown(reference.references())
    assert DOC.read_text(encoding="utf-8") == generated, (
        f"docs/scenario-reference.md is stale; regenerate it with: {REGENERATE}"
    )
    assert REGENERATE in generated  # the file says how it is made


@pytest.mark.parametrize("name", list(registry.MODELS))
def test_every_key_of_every_spec_appears_with_a_meaning(name):
    keys = _reference_keys(name)
    expected = set(_spec_keys(registry.MODELS[name].body))
    assert expected and set(keys) == expected
    doc = DOC.read_text(encoding="utf-8")
    for key in expected:
        assert f"| `{key}` |" in doc, f"{name} {key} is missing from docs/scenario-reference.md"
        assert len(keys[key].meaning) > 10, f"{name} {key} has no meaning in its spec"
        assert keys[key].type and keys[key].default


@pytest.mark.parametrize("name", list(registry.MODELS))
def test_every_key_named_with_a_unit_carries_it(name):
    for key in _reference_keys(name).values():
        last = key.key.split(".")[-1].split("_")[-1]
        if last != key.key.split(".")[-1] and (
            any(c.isupper() for c in last) or last in LOWER_CASE_UNITS
        ):
            assert key.unit, f"{name} {key.key}: its name ends in a unit the table lacks"


@pytest.mark.parametrize(
    "key, unit",
    [
        ("rtt_ms", "ms"),
        ("takeover_s", "s"),
        ("mtbf_h", "hours"),
        ("total_MB", "MB (10^6 B)"),
        ("memory_MiB", "MiB (2^20 B)"),
        ("chunk_KiB", "KiB (2^10 B)"),
        ("product_kB", "kB (10^3 B)"),
        ("mtu_B", "bytes"),
        ("client_md5_MBps", "MB/s"),
        ("rate_Mbps", "Mbit/s"),
        ("lane_rate_Gbps", "Gbit/s"),
        ("rate_GBph", "GB/h"),
        ("microscope_TBph", "TB/h"),
        ("dirty_ratio_pct", "%"),
        ("clock_GHz", "GHz"),
        ("tcp_mem_pages", "pages"),
        ("initial_window_segments", "TCP segments"),
        ("decompress_cycles_per_byte", "CPU cycles per byte"),
        ("forward_cycles_per_packet", "CPU cycles per packet"),
        ("net_cycles_per_frame", "CPU cycles per Ethernet frame"),
        ("request_cycles", "CPU cycles"),  # the audit: the schema printed it without one
        ("streams", ""),
        ("loss_rate", ""),
        ("tcp_adv_win_scale", ""),
    ],
)
def test_unit_table(key, unit):
    assert reference.unit_of(key) == unit


def test_binary_and_decimal_units_are_told_apart():
    keys = _reference_keys("download_server")
    assert keys["workload.file_size_KiB"].unit.startswith("KiB")
    assert _reference_keys("relay_cluster")["feed.product_kB"].unit == "kB (10^3 B)"


def test_defaults_bounds_and_options_come_from_the_fields():
    storage = _reference_keys("storage")
    assert storage["volumes.NAME.disks.part"].default == "required"
    assert storage["volumes.NAME.level"].default == "unset"  # md and controller volumes name it
    assert "raid6" in storage["volumes.NAME.level"].allowed.split(", ")
    assert storage["volumes.NAME.lvm_stripes"].default == "unset"
    assert storage["volumes.NAME.chunk_KiB"].default == "64"
    assert storage["workload.total_MB"].allowed == "a positive number"
    # the audit: 'zero or a positive number', where 5 is refused as 'must be below 1'
    assert _reference_keys("wan_transfer")["loss_rate"].allowed == "a share from 0 to below 1"
    assert storage["kernel.page_B"].default == "4096"
    db = _reference_keys("db_clients")  # the tuned section's own defaults, not its base's
    assert db["tcp_tuned.tcp_rmem_B"].default == "[4096, 87380, 16777216]"
    assert db["tcp.tcp_rmem_B"].default == "[4096, 87380, 174760]"
    assert _reference_keys("wan_transfer")["tcp.core_rmem_max_B"].default == "131071"
    assert db["tcp.tcp_rmem_B"].type == "list of integers"


def test_zfs_compression_lists_the_values_its_check_takes(run_cli):
    """The docs audit: its allowed column was blank once the key took words besides true and
    false; it lists them in the words the check's refusal gives (one source, storage.spec)."""
    allowed = _reference_keys("storage")["volumes.NAME.compression"].allowed
    assert allowed.startswith("true or false, or a value of ZFS's compression property")
    assert ": off, on, lz4, lzjb, zle, gzip, gzip-N (N 1 to 9), zstd, zstd-N (N 1 to 19)" in allowed
    assert allowed.endswith("zstd-fast, zstd-fast-N (N 1 to 10, 20 to 100 by 10, 500, 1000)")
    set_it = ("--set", "volumes.data.compression=lz5")
    status, _, err = run_cli("predict", "purchase_hdd_zfs", "--point", *set_it)
    assert status == 2 and err.endswith(f"compression: must be {allowed}; got 'lz5'\n"), err


def test_schema_lists_every_model(run_cli):
    status, out, err = run_cli("schema")
    assert status == 0, err
    for name in registry.MODELS:
        assert f"== model {name}:" in out
    assert "volumes.NAME.disks.count" in out and "rtt_ms" in out


def test_schema_of_one_section(run_cli):
    status, out, _ = run_cli("schema", "storage.volumes")
    assert status == 0
    assert "volumes.NAME.disks.attach" in out and "volumes.NAME.chunk_KiB" in out
    assert "workload.op" not in out and "== model wan_transfer" not in out
    status, named, _ = run_cli("schema", "storage.volumes.md0.disks")
    assert status == 0 and "volumes.NAME.disks.count" in named and "chunk_KiB" not in named


@pytest.mark.parametrize(
    "target, allowed",
    [
        ("storage.nothing", "volumes.NAME"),
        ("nothing", "wan_transfer"),
        # a scenario's name, asked for as a model's (a physics audit): which model it is of
        ("atlas_triumf_send", "atlas_triumf_send is a scenario, of model storage: schema storage"),
    ],
)
def test_schema_of_what_does_not_exist_is_one_line(run_cli, target, allowed):
    status, out, err = run_cli("schema", target)
    assert status == 2 and not out
    assert len(err.strip().splitlines()) == 1 and allowed in err and target in err


@pytest.mark.parametrize("category", list(CATEGORIES))
def test_schema_of_a_parts_category_lists_every_key_a_part_may_set(run_cli, category):
    """`schema ssds` teaches a quote-writer a parts file's keys (it answered 'unknown model')."""
    status, out, err = run_cli("schema", category)
    assert status == 0, err
    assert out.startswith(f"== parts file, category {category}:")
    written = [f.name for f in dataclasses.fields(CATEGORIES[category]) if f.init]
    for key in ["like", *written]:
        shown = f"{key}.NAME" if key in ("sources", "unknowns") else key
        assert f"\n  {shown}  (" in out, f"{category}: {key}"
    # each key says what it is, in its unit, to someone writing a vendor's quote as a part
    ref = reference.parts_reference(category)
    assert ref.kind == "parts" and ref.summary, f"{category}: its class has no docstring"
    keys = {k.key: k for s in ref.sections for k in s.keys}
    assert set(keys) == {
        "like",
        *(f"{k}.NAME" if k in ("sources", "unknowns") else k for k in written),
    }
    for key in keys.values():
        assert len(key.meaning) > 10, f"{category} {key.key} has no meaning in model/parts.py"
        assert key.type


def test_schema_markdown_is_the_committed_file(run_cli):
    status, out, _ = run_cli("schema", "--markdown")
    assert status == 0 and out == DOC.read_text(encoding="utf-8")


def _flatten(data, prefix=""):
    for key, value in data.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}"


def _set_lines(text):
    """The lines of a template that set a key (not comments, not a block scalar's text)."""
    in_block = None
    for line in text.splitlines():
        stripped, indent = line.strip(), len(line) - len(line.lstrip())
        if not stripped or stripped.startswith("#"):
            continue
        if in_block is not None and indent > in_block:
            continue
        in_block = indent if stripped.split("#")[0].rstrip().endswith((">", "|")) else None
        yield line


@pytest.mark.parametrize("name", list(templates.available()))
def test_a_template_predicts_and_every_key_it_sets_is_in_the_reference(run_cli, tmp_path, name):
    out = tmp_path / "mine.yaml"
    status, _, err = run_cli("new", name, "--out", str(out))
    assert status == 0, err
    assert [p.name for p in tmp_path.iterdir()] == ["mine.yaml"]  # nothing else written
    status, printed, err = run_cli("predict", str(out), "--json", "--point")
    assert status == 0, err
    result = json.loads(printed)
    assert 0 < result["throughput_MBps"] <= result["bound_MBps"] * (1 + 1e-9)
    text = out.read_text(encoding="utf-8")
    raw = yamlio.safe_load(text)
    for key in _flatten(raw):
        if key.split(".")[0] not in scenario.HEADER_KEYS:
            assert reference.find(raw["model"], key), f"{name}: {key} is not in the reference"
    for line in _set_lines(text):
        assert " # " in line, f"{name}: no comment on {line.strip()!r}"


def test_new_lists_the_templates_and_prints_one(run_cli):
    status, out, _ = run_cli("new")
    assert status == 0
    assert all(name in out for name in templates.available())
    assert len(templates.available()) == 7
    status, out, _ = run_cli("new", "relay_cluster")
    assert status == 0 and out == templates.text("relay_cluster")


def test_new_refuses_an_unknown_template_and_an_existing_file(run_cli, tmp_path):
    status, out, err = run_cli("new", "tape_library")
    assert status == 2 and not out and len(err.strip().splitlines()) == 1
    assert "storage_server" in err
    taken = tmp_path / "taken.yaml"
    taken.write_text("mine\n")
    status, _, err = run_cli("new", "storage_server", "--out", str(taken))
    assert status == 2 and len(err.strip().splitlines()) == 1 and "already exists" in err
    assert taken.read_text() == "mine\n"


@dataclasses.dataclass(frozen=True)
class PipeBody:
    """A pipe that moves ``total_MB`` at ``rate_MBps``."""

    rate_MBps: float
    total_MB: float = 1000.0
    label: str = "pipe"  # what the pipe is called in its results


def test_a_newly_registered_model_is_in_the_reference(run_cli):
    from model.spec import ModelRecord

    registry.register(ModelRecord("pipe_reference", PipeBody, lambda *args: None))
    try:
        keys = _reference_keys("pipe_reference")
        status, out, _ = run_cli("schema", "pipe_reference")
    finally:
        registry.unregister("pipe_reference")
    assert keys["rate_MBps"].unit == "MB/s" and keys["rate_MBps"].default == "required"
    assert keys["total_MB"].meaning == "A pipe that moves ``total_MB`` at ``rate_MBps``."
    assert keys["label"].meaning == "What the pipe is called in its results."
    assert status == 0 and "rate_MBps  (number, MB/s, required)" in out


def test_the_background_dirty_ratio_is_said_to_be_checked_only():
    """``kernel.dirty_background_ratio_pct`` is checked against ``dirty_ratio_pct``; what a writer
    pays is its own write-back past ``dirty_ratio_pct`` (``storage.stream.writer_share``), so the
    flushers' threshold changes no steady rate, and its meaning says so."""
    from model.simulate import simulate

    meaning = reference.find("storage", "kernel.dirty_background_ratio_pct").meaning
    assert "checked to lie at or below dirty_ratio_pct" in meaning
    assert "changes no stream's steady rate" in meaning
    assert "writer_share" in reference.find("storage", "kernel.dirty_ratio_pct").meaning
    rates = {
        simulate(
            scenario.load("psu_write", [f"kernel.dirty_background_ratio_pct={pct}"])
        ).throughput_MBps
        for pct in (1, 10, 40)
    }
    assert len(rates) == 1
    with pytest.raises(Exception, match="dirty_ratio_pct"):
        scenario.load("psu_write", ["kernel.dirty_background_ratio_pct=50"])


@pytest.mark.parametrize(
    "model_name, prefix, keys",
    [
        ("storage", "volumes.lv.", ["groups", "lvm", "lvm_stripes", "chunk_KiB"]),
        ("relay_cluster", "reliability.", ["mtbf_h", "mttr_h", "takeover_s", "repair_crews"]),
    ],
)
def test_keys_one_docstring_sentence_names_each_say_what_they_are(model_name, prefix, keys):
    """Keys one long docstring sentence names (groups and LVM; a machine's failures and repairs)
    each have a comment of their own, which leaves that sentence to their section: no two share
    a meaning, and none is its section's paragraph."""
    meanings = [reference.find(model_name, prefix + key).meaning for key in keys]
    assert len(set(meanings)) == len(keys)
    sections = reference.model_reference(model_name).sections
    assert not {s.meaning for s in sections} & set(meanings)


def test_a_stripe_chunk_says_what_a_chunk_is():
    meaning = reference.find("storage", "volumes.md0.chunk_KiB").meaning
    assert "each member drive" in meaning and "--chunk" in meaning
    assert "lvcreate -I" in meaning  # LVM striped deals requests out in chunk_KiB stripes too
    assert "``groups`` splits" not in meaning
