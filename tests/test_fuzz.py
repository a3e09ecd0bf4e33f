"""Hostile input, generated: any key of a scenario set to any value gives exit 0, 2 or 3, never a
traceback; one line on a mistake; valid JSON with finite numbers on success; never a throughput
above its own bound."""

import dataclasses
import json
import math

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model import scenario

# scenarios that simulate in well under a second (the request-level ones are fuzzed through their
# loader alone, by the same keys, in test_a_hostile_value_of_a_slow_model_is_caught_when_loaded)
FAST = (
    "atlas_intellistation",
    "atlas_x330",
    "atlas_lightpath",
    "em_ingest",
    "em_ingest_microscopes",
    "mdsplus",
    "psu_write",
    "psu_copy",
    "atlas_brownie",
)
SLOW = ("eah_download", "psu_mmap", "psu_relay")


def _leaves(value, prefix=""):
    """Every dotted key a loaded body has, down to its values."""
    if dataclasses.is_dataclass(value):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(value, tuple):
        yield prefix
        for i, v in enumerate(value):
            yield from _leaves(v, f"{prefix}.{i}")
    else:
        yield prefix


KEYS = {name: sorted(set(_leaves(scenario.load(name).body))) for name in FAST + SLOW}

hostile = st.one_of(
    st.integers(-1000, 1000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -0.0, 1e300, 1e-300, 2**63, "", "1e5", "raid0", "[a]", "{}", None, True]),
    st.text(max_size=12),
    st.lists(st.integers(-3, 3), max_size=4),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def _as_yaml(value) -> str:
    return (
        yaml.safe_dump(value, default_flow_style=True, width=10**6)
        .strip()
        .removesuffix("\n...")
        .strip()
    )


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def _check(status: int, out: str, err: str) -> None:
    assert status in (0, 2, 3), (status, err)
    if status:
        assert not out and err.count("\n") == 1, err
        return
    data = json.loads(out, parse_constant=_no_constant)
    assert math.isfinite(data["throughput_MBps"]) and data["throughput_MBps"] > 0
    assert data["throughput_MBps"] <= data["bound_MBps"] * (1 + 1e-9), data


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), value=hostile)
def test_any_key_set_to_any_value_predicts_or_says_why_in_one_line(run_cli, data, value):
    name = data.draw(st.sampled_from(FAST))
    key = data.draw(st.sampled_from(KEYS[name]))
    _check(*run_cli("predict", name, "--set", f"{key}={_as_yaml(value)}", "--json", "--point"))


def test_a_line_break_in_what_the_user_wrote_stays_on_the_one_line(run_cli):
    # hypothesis found it: a referenced scenario's name, shown in its missing file's path
    status, out, err = run_cli(
        "predict", "em_ingest_microscopes", "--set", f"storage={_as_yaml(chr(10))}", "--point"
    )
    assert (status, out) == (2, "")
    assert err == "--set: storage: '\\n': data/scenarios/\\n.yaml: no such file\n"
    # every break str.splitlines knows, in the file, the key or the message
    for brk in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029":
        line = scenario.UserError(f"a{brk}.yaml", f"k{brk}", f"m{brk}").line()
        assert len(line.splitlines()) == 1, repr(line)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), value=hostile)
def test_a_hostile_value_of_a_slow_model_is_caught_when_loaded(data, value):
    name = data.draw(st.sampled_from(SLOW))
    key = data.draw(st.sampled_from(KEYS[name]))
    try:
        scenario.load(name, [f"{key}={_as_yaml(value)}"])
    except scenario.UserError as exc:
        assert "\n" not in exc.line()


grid_keys = st.one_of(
    st.sampled_from(["workload.total_MB", "volumes.md0.disks.count", "variant", "seed"]),
    st.text(max_size=10),
)


@settings(max_examples=60, deadline=None)
@given(
    name=st.one_of(st.sampled_from(["ok", "..", "/tmp/x", "a/b"]), st.text(max_size=8)),
    target=st.sampled_from(["atlas_intellistation", "no_such", "../../etc/passwd", ""]),
    product=st.dictionaries(grid_keys, st.lists(hostile, max_size=3), max_size=3),
    engine=st.sampled_from(["inprocess", "papermill", "warp"]),
)
def test_a_hostile_grid_is_refused_in_one_line_or_loads(
    tmp_path_factory, name, target, product, engine
):
    from model.errors import UserError
    from model.sweep import grid as grid_module

    path = tmp_path_factory.mktemp("grid") / "grid.yaml"
    path.write_text(
        yaml.safe_dump({"name": name, "scenario": target, "engine": engine, "product": product})
    )
    try:
        grid, points = grid_module.load(str(path))
    except UserError as exc:
        assert "\n" not in exc.line()
        return
    assert grid.name.isidentifier() or grid.name.replace("-", "_").isidentifier()
    assert len(points) <= 27
