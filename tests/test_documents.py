"""The project's documents stand alone: nothing a user reads points outside the project, and the
design cites the five reports by title."""

import re
import subprocess

from model import catalog, measured, paths


def _tracked() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files"], cwd=paths.PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    return out.stdout.split()


def test_no_file_a_user_reads_points_outside_the_project():
    files = [f for f in _tracked() if not f.startswith("tests/")]
    assert "docs/design.md" in files and "data/measured/sources.yaml" in files
    outside = [
        f
        for f in files
        if re.search(
            r"\.\./shared|/work/shared", (paths.PROJECT_ROOT / f).read_text(errors="ignore")
        )
    ]
    assert outside == []


def test_the_design_cites_every_report_by_title():
    design = (paths.PROJECT_ROOT / "docs" / "design.md").read_text()
    assert all(f'"{entry["title"]}"' in design for entry in measured.sources().values())


def test_the_notebooks_cite_reports_by_title_not_by_file_name():
    import json

    named = []
    for path in sorted(paths.NOTEBOOKS.rglob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        text = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        named += [f"{path.name}: {m}" for m in re.findall(r"00[0-4]_[0-9a-f]{16}\.txt", text)]
    assert named == []


def test_the_catalog_s_readme_lists_every_part_with_its_estimated_values():
    """data/hardware/README.md's table of parts: every part of every catalog file has its row, and
    the row's last column names exactly the values whose source is an estimate (a docs audit found
    three parts missing and two rows' estimates wrong)."""
    import yaml

    readme = (paths.DATA / "hardware" / "README.md").read_text(encoding="utf-8")
    rows = {}
    for line in readme.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`") and cells[1].startswith("`"):
            rows[(cells[0].strip("`"), cells[1].strip("`"))] = cells[4]
    loaded = catalog.load().parts  # a host's cpu: entry fills its values with their sources
    for file in sorted((paths.DATA / "hardware").glob("*.yaml")):
        for pid in yaml.safe_load(file.read_text(encoding="utf-8")) or {}:
            key = (file.stem, pid)
            assert key in rows, f"data/hardware/README.md has no row for {file.stem} {pid}"
            estimated = {
                name
                for name, source in loaded[file.stem][pid].sources.items()
                if str(source).lower().startswith("estimated")
            }
            listed = set() if rows[key] == "-" else {v.strip() for v in rows[key].split(",")}
            assert listed == estimated, (key, sorted(listed), sorted(estimated))
