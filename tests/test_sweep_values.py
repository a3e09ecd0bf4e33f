"""What a notebook grid's points and figures may hold: any YAML value is stored and gathered (a
list or a mapping as its JSON text, a column of mixed kinds as text), and figures that are not a
mapping, or that name the sweep's own columns, fail their point alone."""

import pandas as pd
from grid_files import grid, notebook

from model.sweep import grid as grid_module
from model.sweep import run as run_module


def _run(tmp_path, cell, points):
    nb = notebook(tmp_path / "nb.ipynb", "x = None\nresult_path = ''\n", cell)
    path = grid(tmp_path, scenario=None, notebook=str(nb), engine="papermill", points=points)
    loaded, expanded = grid_module.load(path, trust_notebook=True)
    run_module.run(loaded, expanded, tmp_path / "out", workers=1, progress=False)
    return pd.read_parquet(tmp_path / "out" / "results.parquet")


def test_any_yaml_value_of_a_parameter_is_stored_and_gathered(tmp_path):
    # an empty mapping could not be written as a point's file, and a number beside a word could not
    # be gathered into results.parquet: both stopped the sweep with a traceback
    cell = (
        "import json, pathlib\n"
        "pathlib.Path(result_path).write_text(json.dumps({'shown': str(x), 'back': x}))\n"
    )
    points = [{"x": {}}, {"x": [1, "a"]}, {"x": 1}, {"x": "s"}]
    table = _run(tmp_path, cell, points)
    assert table.status.tolist() == ["ok"] * 4, table.error.tolist()
    assert table["param:x"].tolist() == ["{}", '[1, "a"]', "1", "s"]
    assert table["back"].tolist() == ["{}", '[1, "a"]', "1", "s"]
    assert table["shown"].tolist() == ["{}", "[1, 'a']", "1", "s"]


def test_figures_that_are_not_a_mapping_or_take_a_sweep_column_fail_their_point(tmp_path):
    # a figure named point_index overwrote the point's own index
    cell = (
        "import json, pathlib\n"
        "figures = {'list': [1], 'clash': {'point_index': 99}, 'fine': {'y': 2}}[x]\n"
        "pathlib.Path(result_path).write_text(json.dumps(figures))\n"
    )
    table = _run(tmp_path, cell, [{"x": "list"}, {"x": "clash"}, {"x": "fine"}])
    assert table.point_index.tolist() == [0, 1, 2]
    assert table.status.tolist() == ["failed", "failed", "ok"]
    assert "must be a JSON object of named figures" in table.error[0]
    assert "columns the sweep keeps (point_index)" in table.error[1]
    assert table.y[2] == 2


def test_an_integer_too_large_for_a_column_is_stored_as_its_digits(tmp_path):
    # parquet's integers are 64-bit: a larger one stopped the sweep with an OverflowError traceback
    cell = "import json, pathlib\npathlib.Path(result_path).write_text(json.dumps({'back': x}))\n"
    table = _run(tmp_path, cell, [{"x": 10**30}, {"x": 2**63 - 1}, {"x": -(2**63) - 1}])
    assert table.status.tolist() == ["ok"] * 3, table.error.tolist()
    digits = [str(10**30), str(2**63 - 1), str(-(2**63) - 1)]
    assert table["param:x"].tolist() == digits
    assert table["back"].tolist() == digits
