"""One registry of models: every registered model is complete, and models stay pure functions of
their loaded scenario (no model module reads the loader, ``simulate`` or the registry)."""

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from model import measured, paths, registry, scenario, yamlio
from model.errors import NotModelled
from model.freeparameter import FreeParameter
from model.params import Recording, calibrated
from model.simulate import simulate

MODEL_PACKAGES = ("storage", "network", "servers", "sim")
ABOVE_THE_MODELS = {"scenario", "simulate", "registry", "params", "calibrate", "validate", "cli"}


def _scenarios_by_model() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(paths.SCENARIOS.glob("*.yaml")):
        found.setdefault(yamlio.safe_load(path.read_text())["model"], []).append(path.stem)
    return found


@pytest.mark.parametrize("name", sorted(registry.MODELS))
def test_a_registered_model_has_a_spec_parameters_a_scenario_and_measured_rows(name):
    record = registry.MODELS[name]
    assert dataclasses.is_dataclass(record.body) and record.body.__dataclass_params__.frozen
    assert callable(record.simulate)
    assert all(isinstance(p, FreeParameter) for p in record.parameters)
    scenarios = _scenarios_by_model().get(name)
    assert scenarios, f"no scenario of model {name} in data/scenarios/"
    rows = [r for table in measured.load_all().values() for r in table]
    results = any(r.scenario in scenarios and r.role == "result" for r in rows)
    assert results or record.unmeasured, (
        f"no measured result row of model {name}, and its record does not say why (unmeasured)"
    )
    assert not (results and record.unmeasured), f"{name} is measured: its unmeasured is stale"
    for s in scenarios:
        reason = record.not_fitted(scenario.load(s).body)
        assert reason is None or (isinstance(reason, str) and reason)


def test_every_parameter_a_model_reads_is_declared_by_a_registered_model():
    declared = registry.declared_parameters()
    for names in _scenarios_by_model().values():
        for name in names:
            recording = Recording(calibrated())
            try:
                simulate(scenario.load(name), recording)
            except NotModelled:
                continue
            assert recording.read <= set(declared), name


def test_a_model_is_registered_once_and_a_parameter_declared_once():
    record = registry.MODELS["storage"]
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(record)
    twin = dataclasses.replace(record, name="storage_twin")
    with pytest.raises(ValueError, match="declared twice"):
        registry.register(twin)
    assert "storage_twin" not in registry.MODELS


@pytest.mark.parametrize("built_in", registry._BUILT_IN, ids=lambda b: b.name)
def test_a_built_in_model_s_record_is_the_one_its_registry_line_declares(built_in):
    """The registry lists a model's free parameters before importing its module (the parameter
    table reads them without a model): the record the module exports must list the same."""
    record = built_in.record()
    assert (record.name, record.parameters) == (built_in.name, built_in.parameters)


def _imports(path: Path) -> list[str]:
    """The project modules ``path`` imports, as dotted names below ``model``."""
    package = ".".join(path.relative_to(paths.PROJECT_ROOT).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            if base.startswith("model"):
                found += [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("model")]
    return found


def test_no_model_module_imports_the_loader_or_simulate():
    for package in MODEL_PACKAGES:
        for path in sorted((paths.PROJECT_ROOT / "model" / package).glob("*.py")):
            above = {
                m.split(".")[1] for m in _imports(path) if m.count(".") >= 1
            } & ABOVE_THE_MODELS
            assert not above, f"{path.name} imports model.{above.pop()}"


def test_the_package_has_no_import_cycle():
    modules = {
        ".".join(p.relative_to(paths.PROJECT_ROOT).with_suffix("").parts).removesuffix(
            ".__init__"
        ): p
        for p in (paths.PROJECT_ROOT / "model").rglob("*.py")
    }
    # a module's own packages run before it whatever it imports: those edges are no cycle
    graph = {
        m: {i for i in _imports(p) if i in modules and i != m and not m.startswith(i + ".")}
        for m, p in modules.items()
    }
    state: dict[str, int] = {}

    def visit(m: str, trail: list[str]) -> None:
        state[m] = 1
        for n in graph[m]:
            if state.get(n) == 1:
                pytest.fail("import cycle: " + " -> ".join(trail[trail.index(n) :] + [n]))
            if n not in state:
                visit(n, trail + [n])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [m])


def _readme_example() -> tuple[str, str]:
    text = (paths.PROJECT_ROOT / "README.md").read_text()
    section = text[text.index("## Adding a model") :]
    python = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    yaml_text = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return python, yaml_text


def test_the_readme_s_smallest_model_registers_loads_and_predicts(tmp_path, run_cli):
    python, yaml_text = _readme_example()
    namespace: dict = {"__name__": "pipe_example"}
    exec(compile(python, "README.md", "exec"), namespace)
    (tmp_path / "pipe_example.yaml").write_text(yaml_text)
    registry.register(namespace["MODEL"])
    try:
        result = simulate(scenario.load(tmp_path / "pipe_example.yaml"))
        assert result.throughput_MBps == pytest.approx(100.0)
        status, _, err = run_cli(
            "predict", str(tmp_path / "pipe_example.yaml"), "--set", "rate_MBps=-1"
        )
        assert status == 2 and "rate_MBps" in err and "positive" in err
    finally:
        registry.unregister("pipe")


def test_validate_names_every_model_no_report_measures(run_cli):
    status, out, _ = run_cli("validate")
    assert status == 0
    for name, record in registry.MODELS.items():
        if record.unmeasured:
            assert f"model {name}: no measured rows; {record.unmeasured}" in out
