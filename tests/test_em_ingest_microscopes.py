"""notebooks/em_ingest_microscopes.ipynb run as papermill runs it with one SAS wire: its wire count
is the parameter ``wires``, as what_if_sas_lanes' and lesson 1's are (it was ``lanes``, counting
the same x4 wide ports; ``-p wires 1`` was overwritten by the notebook's own list of wire names and
the ingest ran on four), and it reaches the storage path the notebook simulates."""

import re

import nbformat
import papermill

from model import paths

NOTEBOOK = paths.NOTEBOOKS / "em_ingest_microscopes.ipynb"


def printed(notebook) -> str:
    return "".join(
        o.get("text", "")
        for c in notebook.cells
        for o in c.get("outputs", [])
        if o.output_type == "stream"
    )


def storage_path_MBps(text: str) -> float:
    """The storage path's capacity in the first table: its MB/s column."""
    row = re.search(r"^storage path +em_ingest .+? \(simulate\) +([\d.]+) ", text, re.MULTILINE)
    return float(row.group(1))


def test_one_wire_is_the_ingest_s_storage_path(tmp_path):
    run = papermill.execute_notebook(
        str(NOTEBOOK),
        str(tmp_path / "one_wire.ipynb"),
        parameters={"wires": 1},
        cwd=str(paths.NOTEBOOKS),
        progress_bar=False,
    )
    text = printed(run)
    assert "em_ingest striped on 1 SAS wire (simulate)" in text
    assert "LVM striped, 1 SAS wire, balanced hash" in text
    four = printed(nbformat.read(NOTEBOOK, as_version=4))  # as committed: four wires
    assert "on 4 SAS wires (simulate)" in four
    assert storage_path_MBps(text) < storage_path_MBps(four)  # one wire carries less than four
