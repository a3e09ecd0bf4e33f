"""notebooks/what_if_sas_lanes.ipynb, the lab's headline what-if, run as papermill runs it with two
wires: its answer says what ``python -m model predict`` says for the same configuration (the
new-user audit read a bare 3.66 GB/s where predict gave its 90 % interval and what moves it
most), and its prose states no figure or bottleneck a cell computes (after
``-p lanes 2`` the markdown still said 4.07 GB/s and the RAID processors while the cells printed
3.66 GB/s and bus pcie_a)."""

import json
import os
import re
import shlex
from pathlib import Path

import nbformat
import papermill
import pytest

from model import paths
from model.sweep import point as point_module

NOTEBOOK = paths.NOTEBOOKS / "what_if_sas_lanes.ipynb"
# a computed rate as the cells print it: a decimal point or a thousands comma, and its unit (the
# blog's need, "3 TB/h", is a parameter the prose may state)
FIGURE = re.compile(r"\d+(?:,\d{3})*\.\d+ ?(?:GB/s|MB/s|TB/h)|\d{1,3}(?:,\d{3})+ ?MB/s")
# a last cell: the files of the lab's modules the kernel imported
PROBE = """import json, sys
print(json.dumps(sorted(
    m.__file__ for n, m in list(sys.modules.items())
    if n.split(".")[0] == "model" and getattr(m, "__file__", None)
)))"""


@pytest.fixture(scope="module")
def two_wires(tmp_path_factory):
    folder = tmp_path_factory.mktemp("what_if")
    probed = nbformat.read(NOTEBOOK, as_version=4)
    probed.cells.append(nbformat.v4.new_code_cell(PROBE))
    nbformat.write(probed, folder / "probed.ipynb")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))  # as it was, after
        # the kernel imports this checkout's model, as a sweep's kernels do, not the one an
        # editable install in the environment names
        point_module._this_checkout_first()
        return papermill.execute_notebook(
            str(folder / "probed.ipynb"),
            str(folder / "two_wires.ipynb"),
            parameters={"wires": 2},
            cwd=str(paths.NOTEBOOKS),
            progress_bar=False,
        )


def test_the_kernel_imports_the_checkout_under_test(two_wires):
    """The kernel imports ``model`` from this checkout, not from the one the environment's
    editable install names (the review found the notebook run with that one's code)."""
    files = json.loads(printed(two_wires.cells[-1]))
    assert any(Path(f).name == "uncertainty.py" for f in files), files
    assert all(Path(f).is_relative_to(paths.PROJECT_ROOT) for f in files), files


def printed(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def answer(notebook) -> str:
    """What the answer cell printed: the first code cell under the "## The answer" heading."""
    cells = notebook.cells
    heading = next(
        i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source == "## The answer"
    )
    return printed(next(c for c in cells[heading:] if c.cell_type == "code"))


def test_the_answer_prints_what_predict_prints_for_its_configuration(two_wires, run_cli):
    text = answer(two_wires)
    assert text.startswith("2 wires (x4 wide ports), LVM striped")
    assert not re.search(r"\b\d+ lanes\b", text)  # the parameter counts wires, and says so
    command = re.search(r"`python -m model (predict [^`]*)` prints it:", text).group(1)
    args = shlex.split(command)
    assert "volumes.lv.group_paths=[sas0,sas1]" in args
    status, out, _ = run_cli(*args)
    assert status == 0
    # the point, the 90 % interval, what moves it most and the bottleneck, in predict's own words
    assert out.strip() in text
    assert "90 %         between" in text and "moved most   by " in text


def test_the_prose_states_no_figure_or_bottleneck_a_cell_computes(two_wires):
    committed = nbformat.read(NOTEBOOK, as_version=4)
    prose = "\n".join(c.source for c in committed.cells if c.cell_type == "markdown")
    outputs = "\n".join(printed(c) for nb in (committed, two_wires) for c in nb.cells)
    figures = set(FIGURE.findall(outputs))
    # each bottleneck line's words, and the resource they name where they are a label's
    named = re.findall(r"^  bottleneck +(.+?) \((?:(.+?), )?[\d.]+ % busy\)", outputs, re.MULTILINE)
    bottlenecks = {words for line in named for words in line if words}
    assert figures and {"raid md3260.0", "bus pcie_a"} <= bottlenecks
    assert not [f for f in figures if f in prose]
    assert not [b for b in bottlenecks if b in prose]
