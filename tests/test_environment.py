"""environment.yml (conda) and pyproject.toml (pip) pin the same packages at the same versions."""

import tomllib

import yaml

from model import paths


def _pyproject() -> dict[str, str]:
    deps = tomllib.loads((paths.PROJECT_ROOT / "pyproject.toml").read_text())["project"][
        "dependencies"
    ]
    return {name.lower(): version for name, version in (d.split("==") for d in deps)}


def _conda() -> dict[str, str]:
    deps = yaml.safe_load((paths.PROJECT_ROOT / "environment.yml").read_text())["dependencies"]
    pins = dict(d.split("=", 1) for d in deps if isinstance(d, str) and "=" in d)
    return {name.lower(): version for name, version in pins.items() if name != "python"}


def test_every_dependency_is_pinned_exactly():
    deps = tomllib.loads((paths.PROJECT_ROOT / "pyproject.toml").read_text())["project"][
        "dependencies"
    ]
    assert all("==" in d for d in deps)


def test_conda_and_pip_list_the_same_pins():
    assert _conda() == _pyproject()


def test_conda_python_matches_requires_python():
    deps = yaml.safe_load((paths.PROJECT_ROOT / "environment.yml").read_text())["dependencies"]
    assert "python=3.11" in deps
    assert (
        "3.11"
        in tomllib.loads((paths.PROJECT_ROOT / "pyproject.toml").read_text())["project"][
            "requires-python"
        ]
    )
