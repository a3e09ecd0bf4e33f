"""Hostile or mistaken grids are refused with one line and exit 2 before anything runs or is
written; a grid's seed reaches the scenario."""

import json
import shutil
import uuid
from pathlib import Path

import pandas as pd
import pytest
import yaml
from grid_files import grid as _grid
from grid_files import notebook
from grid_files import one_line as _one_line

from model import cli, paths
from model import scenario as scenario_module
from model.simulate import simulate
from model.sweep import grid as grid_module
from model.sweep import run as run_module


@pytest.mark.parametrize("name", ["..", "../../..", "/tmp/elsewhere", "a/b", ".hidden"])
def test_a_name_that_is_not_a_plain_name_is_refused(run_cli, tmp_path, name):
    """The name is the results folder under sweeps/: '..' wrote into the project root."""
    before = sorted(p.name for p in paths.PROJECT_ROOT.iterdir())
    path = _grid(tmp_path, name=name, product={"volumes.md0.disks.count": [1]})
    _one_line(run_cli("sweep", str(path)), "grid.yaml", "name", "plain name")
    assert sorted(p.name for p in paths.PROJECT_ROOT.iterdir()) == before


def test_an_unnamed_grid_takes_its_file_s_name_made_plain(tmp_path):
    """'my grid.yaml' with no name: was refused as the name 'my grid', --out given or not."""
    path = _grid(tmp_path, product={"volumes.md0.disks.count": [1]})
    text = path.read_text().replace("name: t\n", "")
    unnamed = tmp_path / "my grid.yaml"
    unnamed.write_text(text)
    assert grid_module.load(unnamed)[0].name == "my_grid"


def _notebook(tmp_path, parameters="a = 1\nresult_path = ''\n"):
    return notebook(tmp_path / "point.ipynb", parameters)


@pytest.mark.parametrize(
    "key",
    [
        "a\nopen('PWNED', 'w').close()\nb",  # ran as code in the notebook
        "b",  # not declared by the parameters cell
        "class",  # a keyword
    ],
)
def test_a_notebook_parameter_the_notebook_does_not_declare_is_refused(run_cli, tmp_path, key):
    notebook = _notebook(tmp_path)
    path = _grid(
        tmp_path, scenario=None, notebook=str(notebook), engine="papermill", product={key: [1]}
    )
    result = run_cli("sweep", str(path), "--out", str(tmp_path / "out"), "--trust-notebook")
    _one_line(result, "not a parameter", "a")
    assert not (tmp_path / "out").exists() and not list(tmp_path.rglob("PWNED"))


def test_result_path_is_refused_as_the_sweep_s_own_not_as_undeclared(run_cli, tmp_path):
    """The new-user audit's case: "'result_path': not a parameter of ...; its parameters cell
    declares: scenario, settings", of a notebook whose cell declares it."""
    notebook = _notebook(tmp_path)
    path = _grid(
        tmp_path,
        scenario=None,
        notebook=str(notebook),
        engine="papermill",
        product={"result_path": ["elsewhere.json"]},
    )
    result = run_cli("sweep", str(path), "--out", str(tmp_path / "out"), "--trust-notebook")
    _one_line(
        result,
        "grid.yaml: 'result_path' is set by the sweep itself (each point's result file); a grid "
        "may not set it",
    )
    assert not (tmp_path / "out").exists()


def test_a_notebook_that_declares_no_result_path_is_refused_before_any_point(run_cli, tmp_path):
    """Every point of a notebook with nowhere to write its figures failed, each with its own
    temporary folder in its reason ("FileNotFoundError: ... /tmp/tmpXXXX/result.json"), so the
    summary could not group them (the wires-naming helper, with em_ingest_microscopes)."""
    notebook = _notebook(tmp_path, "a = 1\n")
    path = _grid(
        tmp_path, scenario=None, notebook=str(notebook), engine="papermill", product={"a": [1]}
    )
    result = run_cli("sweep", str(path), "--out", str(tmp_path / "out"), "--trust-notebook")
    _one_line(result, "grid.yaml: notebook: ", "declares no result_path in its parameters cell")
    assert not (tmp_path / "out").exists()


def test_a_declared_notebook_parameter_is_accepted(tmp_path):
    notebook = _notebook(tmp_path, "a: int = 1\nb, c = 2, 3\nresult_path = ''\n")
    path = _grid(
        tmp_path,
        scenario=None,
        notebook=str(notebook),
        engine="papermill",
        product={"a": [1, 2], "c": [5]},
    )
    grid, points = grid_module.load(path, trust_notebook=True)
    assert points == [{"a": 1, "c": 5}, {"a": 2, "c": 5}]


def test_a_notebook_without_a_parameters_cell_is_refused(run_cli, tmp_path):
    notebook = _notebook(tmp_path)
    data = json.loads(notebook.read_text())
    data["cells"][0]["metadata"] = {}
    notebook.write_text(json.dumps(data))
    path = _grid(
        tmp_path, scenario=None, notebook=str(notebook), engine="papermill", product={"a": [1]}
    )
    _one_line(run_cli("sweep", str(path), "--trust-notebook"), "notebook", "parameters")


def test_a_grid_above_the_point_limit_is_refused_before_it_is_built(run_cli, tmp_path, monkeypatch):
    """Eight keys of nine values: 43 million points died with a MemoryError after 12 s. The grid is
    refused from its count, 9 ** 8, before a point is expanded (expanding them fails at once)."""
    values = list(range(1, 10))
    product = {f"volumes.md0.disks.k{i}": values for i in range(8)}
    path = _grid(tmp_path, product=product)
    expanded = []

    def expand(grid):
        expanded.append(grid.name)
        raise AssertionError("the points of a grid above the limit were expanded")

    monkeypatch.setattr(grid_module, "expand", expand)
    _one_line(
        run_cli("sweep", str(path)), f"{9**8:,} points", f"at most {grid_module.MAX_POINTS:,}"
    )
    assert expanded == []


def test_a_sample_above_the_point_limit_is_refused(run_cli, tmp_path):
    sample = {"method": "sobol", "n": 65_536, "ranges": {"workload.total_MB": [1.0, 2.0]}}
    _one_line(run_cli("sweep", str(_grid(tmp_path, sample=sample))), "196,608 points")


def test_a_sampled_range_the_scenario_refuses_is_refused_before_running(run_cli, tmp_path):
    """[-5, 0] ran every point, and every point failed."""
    sample = {"method": "lhs", "n": 20, "ranges": {"workload.total_MB": [-5, 0]}}
    path = _grid(tmp_path, sample=sample)
    _one_line(
        run_cli("sweep", str(path), "--out", str(tmp_path / "out")),
        "sample.ranges",
        "workload.total_MB",
        "-5",
    )
    assert not (tmp_path / "out").exists()


def _throughput(seed, clients=2):
    scenario = scenario_module.load(
        "eah_download", [f"workload.clients={clients}", "workload.files=20", f"seed={seed}"]
    )
    assert scenario.seed == seed
    return simulate(scenario).throughput_MBps


def test_a_grid_s_seed_reaches_the_scenario(tmp_path):
    """A point said seed 2 and gave the seed-1 answer."""
    answers = {}
    for seed in (2, 3):
        path = _grid(
            tmp_path,
            scenario="eah_download",
            seed=seed,
            base=["workload.files=20"],
            product={"workload.clients": [2]},
        )
        grid, points = grid_module.load(path)
        run_module.run(grid, points, tmp_path / f"s{seed}", workers=1, progress=False)
        table = pd.read_parquet(tmp_path / f"s{seed}" / "results.parquet")
        assert table.seed.tolist() == [seed] and table.status.tolist() == ["ok"]
        answers[seed] = table.throughput_MBps.iloc[0]
        assert answers[seed] == pytest.approx(_throughput(seed), rel=1e-12)
    assert answers[2] != answers[3]  # the scenario's answer depends on its seed


def test_a_point_s_own_seed_reaches_the_scenario(tmp_path):
    path = _grid(
        tmp_path,
        scenario="eah_download",
        base=["workload.files=20"],
        product={"workload.clients": [2], "seed": [1, 4]},
    )
    grid, points = grid_module.load(path)
    run_module.run(grid, points, tmp_path / "out", workers=1, progress=False)
    table = pd.read_parquet(tmp_path / "out" / "results.parquet").sort_values("seed")
    assert table.seed.tolist() == [1, 4]
    assert table.throughput_MBps.tolist() == pytest.approx([_throughput(1), _throughput(4)])


@pytest.mark.parametrize("seed", [-1, "two", 1.5])
def test_a_bad_seed_is_refused(run_cli, tmp_path, seed):
    _one_line(run_cli("predict", "eah_download", "--set", f"seed={seed}"), "--set", "seed")
    path = _grid(tmp_path, seed=seed, product={"volumes.md0.disks.count": [1]})
    _one_line(run_cli("sweep", str(path)), "seed")


@pytest.mark.parametrize(
    "path", sorted((paths.DATA / "sweeps").glob("*.yaml")), ids=lambda p: p.stem
)
def test_every_example_grid_loads_and_builds_its_points(path):
    """The grids a user copies from: each is checked against its scenario or notebook, as a
    sweep checks it before anything runs."""
    grid, points = grid_module.load(path)
    assert grid.name == path.stem and points


def test_the_default_results_folder_is_named_so_it_opens_from_anywhere(
    run_cli, tmp_path, monkeypatch
):
    """Without --out the results go to the project's sweeps/NAME, but the line said
    'results in sweeps/NAME/results.parquet', which does not exist from another folder."""
    name = f"t_default_out_{uuid.uuid4().hex[:8]}"
    path = _grid(
        tmp_path,
        name=name,
        scenario="eah_download",
        base=["workload.files=20"],
        product={"workload.clients": [2]},
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = paths.PROJECT_ROOT / "sweeps" / name
    try:
        status, printed, err = run_cli("sweep", str(path), "--workers", "1")
        assert status == 0, err
        shown = printed.strip().rsplit("results in ", 1)[1]
        assert Path(shown).is_absolute() and Path(shown) == out / "results.parquet"
        assert Path(shown).exists()
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_the_help_names_the_default_results_folder_in_full(capsys):
    """--help said 'default: sweeps/GRID_NAME', which reads as a folder where the user stands."""
    with pytest.raises(SystemExit):
        cli.main(["sweep", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"{paths.PROJECT_ROOT / 'sweeps'}/GRID_NAME" in text
    assert "--trust-notebook run the notebook a grid names from its own folder" in text


def test_a_grid_value_that_makes_the_scenario_wrong_names_the_grid_key(run_cli, tmp_path):
    """A grid over clients.protocol on a file that sets nfsd_threads said only
    'fs.yaml: clients.nfsd_threads: ...', naming neither the grid nor its key."""
    text = (paths.DATA / "templates" / "storage_behind_network.yaml").read_text()
    text = text.replace("  read_ahead_KiB:", "  nfsd_threads: 8\n  read_ahead_KiB:")
    (tmp_path / "fs.yaml").write_text(text)
    path = _grid(tmp_path, scenario="fs.yaml", product={"clients.protocol": ["nfs", "smb"]})
    _one_line(
        run_cli("sweep", str(path), "--out", str(tmp_path / "out")),
        f"{path}: product.clients.protocol: with clients.protocol='smb', ",
        "fs.yaml: clients.nfsd_threads: only protocol nfs has nfsd threads, got protocol smb",
    )
    assert not (tmp_path / "out").exists()
    path = _grid(tmp_path, scenario="fs.yaml", points=[{"clients.protocol": "ftp"}])
    _one_line(
        run_cli("sweep", str(path), "--out", str(tmp_path / "out")),
        f"{path}: points[0].clients.protocol: must be one of",
    )


def test_a_grid_key_typo_lists_the_keys_allowed_beside_it(run_cli, tmp_path):
    """It said 'no such key in scenario ...' without the list predict --set gives."""
    path = _grid(tmp_path, product={"volumes.md0.disks.cout": [1]})
    _one_line(
        run_cli("sweep", str(path), "--out", str(tmp_path / "out")),
        "volumes.md0.disks.cout: no such key in a storage scenario",
        "allowed at volumes.md0.disks: part, count, attach",
    )


@pytest.mark.parametrize("key", ["workload.streams=4", "storage=outside.yaml"])
def test_a_grid_key_holding_an_equals_sign_is_told_so(run_cli, tmp_path, key):
    """It was told 'no such key' with the keys allowed at the top level, as if misspelt, where a
    variant's is told that a key holds no '='."""
    path = _grid(tmp_path, product={key: [1]})
    _one_line(
        run_cli("sweep", str(path), "--out", str(tmp_path / "out")),
        f"{path}: product.{key}: a scenario key holds no '='; give key: value",
    )
    assert not (tmp_path / "out").exists()


def test_an_entry_named_with_an_equals_sign_is_set_by_a_variant_and_refused_in_a_grid(
    run_cli, tmp_path
):
    """The review of the grid's '=' refusal: made for every key, it refused a variant's key of a
    volume named "l=v", which the file sets as key: value and which had predicted. A grid's key
    holding '=' is still refused: as an override it would split there."""
    text = (paths.DATA / "scenarios" / "em_ingest.yaml").read_text()
    text = text.replace("\n  lv:\n", '\n  "l=v":\n').replace("target: lv", 'target: "l=v"')
    store = tmp_path / "store.yaml"
    store.write_text(text.replace("volumes.lv.", "volumes.l=v."))
    status, out, err = run_cli("predict", str(store), "--set", "variant=linear_4k", "--point")
    assert status == 0 and "disk l=v.0" in out, err
    path = _grid(tmp_path, scenario="store.yaml", product={"volumes.l=v.cache_block_KiB": [8]})
    _one_line(
        run_cli("sweep", str(path), "--out", str(tmp_path / "out")),
        f"{path}: product.volumes.l=v.cache_block_KiB: a scenario key holds no '='",
    )


def test_a_new_entry_in_a_grid_is_told_as_a_key_and_its_value(run_cli, tmp_path):
    """A grid's key under an entry the scenario lacks was told to be set whole as an override,
    'volumes.nosuch={disks: {...}}', where a grid file gives it as a key and its value."""
    path = _grid(tmp_path, product={"volumes.nosuch.level": ["raid0"]})
    _one_line(
        run_cli("sweep", str(path), "--out", str(tmp_path / "out")),
        f"{path}: product.volumes.nosuch.level: no entry 'nosuch' under volumes; allowed: md0; "
        "a new one is set whole: the key volumes.nosuch given {disks: {...}}",
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        (
            {"base": ["workload.streams=2", "workload.streams=3"]},
            "base[1]: sets workload.streams again (base[0] sets it): give it once",
        ),
        (
            {"seed": 5, "base": ["seed=9"]},
            "base[0]: sets the seed the grid's seed: 5 sets: give it once",
        ),
    ],
    ids=["twice", "seed"],
)
def test_a_base_value_no_point_would_use_is_refused(run_cli, tmp_path, spec, said):
    """The input audit: a key base gave twice took the last value, and a base seed beside the
    grid's seed was dropped for it, both without a word."""
    path = _grid(tmp_path, scenario="em_ingest", product={"workload.total_MB": [1000]}, **spec)
    _one_line(run_cli("sweep", str(path), "--out", str(tmp_path / "out")), f"{path}: {said}")
    assert not (tmp_path / "out").exists()


def test_a_product_value_that_is_not_a_list_says_so_in_words(run_cli, tmp_path):
    """It said 'must be a list of typing.Any, got 4'."""
    path = _grid(tmp_path, product={"workload.streams": 4})
    result = run_cli("sweep", str(path), "--out", str(tmp_path / "out"))
    _one_line(result, "product.workload.streams: must be a list of values, got 4")
    assert "typing" not in result[2]


@pytest.mark.parametrize(
    ("spec", "at"),
    [
        ({"product": {"clients.cont": [1, 2]}}, "product.clients.cont"),
        ({"points": [{"seed": 2}, {"seed": 3, "clients.cont": 1}]}, "points[1].clients.cont"),
        (
            {"sample": {"method": "random", "n": 2, "ranges": {"clients.cont": [1, 4]}}},
            "sample.ranges.clients.cont",
        ),
    ],
)
def test_a_grid_key_typo_is_named_where_the_grid_sets_it(run_cli, tmp_path, spec, at):
    """'gbad.yaml: clients.cont: no such key', with neither product. nor the keys allowed, where
    --set lists them (clients, a section the scenario leaves out, listed none)."""
    path = _grid(tmp_path, **spec)
    status, out, err = run_cli("sweep", str(path), "--out", str(tmp_path / "out"))
    _one_line(
        (status, out, err),
        f"{path}: {at}: no such key in a storage scenario; allowed at clients: count, connections,",
    )
    _, _, by_set = run_cli("predict", "atlas_intellistation", "--set", "clients.cont=1")
    assert by_set.split(": ", 2)[2] == err.split(": ", 2)[2]  # the same words as --set's


@pytest.mark.parametrize("value", ["4 # eight", "null"])
def test_a_quoted_value_stays_text_and_is_refused_where_a_number_is_due(run_cli, tmp_path, value):
    """The sweep audit's case: a quoted "4 # eight" ran as 4 and "null" as the scenario's default,
    their rows labelled with the text. Quoted, a value is text, as in a scenario file."""
    path = _grid(tmp_path, product={"workload.streams": [value, 2]})
    _one_line(run_cli("sweep", str(path)), "product.workload.streams", "positive integer")


def test_a_misspelt_part_is_refused_before_anything_runs(run_cli, tmp_path):
    """A part id the catalog lacks, in the place of a part the scenario names, failed every point
    it was in, the grid exiting 0."""
    path = _grid(tmp_path, product={"host": ["ibm_intellistation_m_pro_6850", "bogus_host"]})
    _one_line(run_cli("sweep", str(path)), "product.host", "unknown host 'bogus_host'")


def test_a_file_a_value_names_is_read_in_the_grid_s_folder(run_cli, tmp_path):
    """A store file beside the grid, named by a grid on one of the project's scenarios, was looked
    for in data/scenarios/ (the sweep audit): a path a grid gives is read in the grid's folder or
    below it, as every file a file names is, and one outside it is refused."""
    store = yaml.safe_load((paths.SCENARIOS / "em_ingest.yaml").read_text())
    store["name"] = "mine"
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(store))
    path = _grid(
        tmp_path,
        scenario="em_ingest_microscopes",
        product={"storage": ["mine.yaml", "em_ingest"]},
    )
    grid, points = grid_module.load(path)
    out = tmp_path / "out"
    run_module.run(grid, points, out, workers=1, progress=False)
    table = pd.read_parquet(out / "results.parquet")
    assert table.status.tolist() == ["ok", "ok"]
    assert table["param:storage"].tolist() == ["mine.yaml", "em_ingest"]
    outside = _grid(tmp_path, scenario="em_ingest_microscopes", product={"storage": ["../x.yaml"]})
    _one_line(run_cli("sweep", str(outside)), "product.storage", "the grid's folder")


def test_a_drive_may_be_swapped_for_one_of_the_other_kind(tmp_path):
    """The review's case: a grid putting a hard disk where the scenario names an SSD was refused as
    an unknown SSD; a drive is either, as --set takes it."""
    path = _grid(
        tmp_path,
        scenario="ext_arr_zfs_860_mirrors",
        product={"volumes.pool.disks.part": ["samsung_870_evo_1tb", "exos_x18_st18000nm000j"]},
    )
    assert len(grid_module.load(path)[1]) == 2


def test_a_value_its_model_s_catalog_check_refuses_is_refused_before_anything_runs(
    run_cli, tmp_path
):
    """The review's case: twenty 100 GbE circuits from a host of two slots failed their point at
    run time, the grid exiting 0; a model's checks against its catalog now run on each value."""
    path = _grid(tmp_path, scenario="ext_net_fasterdata_100g", product={"circuits": [1, 20]})
    _one_line(run_cli("sweep", str(path)), "product.circuits", "need 20 cards, and the host")


def test_a_drive_its_bay_cannot_hold_is_refused_before_anything_runs(run_cli, tmp_path):
    """The docs audit's case: a hard disk where the NVMe purchase's drives sit on PCIe lanes
    passed the grid's check (a drive may be a disk or an SSD) and failed its point, where predict
    refuses it: a store's drives are attached on a network that runs nothing first."""
    path = _grid(
        tmp_path,
        scenario="purchase_nvme",
        product={"volumes.data.disks.part": ["exos_x24_st24000nm007h"]},
    )
    _one_line(run_cli("sweep", str(path)), "product.volumes.data.disks.part", "only an NVMe drive")


def test_a_value_refused_alone_runs_beside_the_values_that_admit_it(run_cli, tmp_path):
    """The sweep audit's case: RAID6 beside drive counts of 4 and 5 was refused, each value checked
    alone against the scenario's 3 drives; a listed point of RAID6 and 4 drives too. Checked beside
    the product's other values, and a point whole, they run; RAID6 beside 2 and 3 drives only, and
    a point of RAID6 and 3 drives, are still refused before anything runs."""
    product = {"volumes.md0.level": ["raid6"], "volumes.md0.disks.count": [4, 5]}
    status, _, err = run_cli(
        "sweep", str(_grid(tmp_path, product=product)), "--out", str(tmp_path / "a")
    )
    assert status == 0, err
    points = [{"volumes.md0.level": "raid6", "volumes.md0.disks.count": 4}]
    status, _, err = run_cli(
        "sweep", str(_grid(tmp_path, points=points)), "--out", str(tmp_path / "b")
    )
    assert status == 0, err
    product["volumes.md0.disks.count"] = [2, 3]
    _one_line(
        run_cli("sweep", str(_grid(tmp_path, product=product)), "--out", str(tmp_path / "c")),
        "product.volumes.md0.level: raid6 needs at least 4 drives",
    )
    points.append({"volumes.md0.level": "raid6", "volumes.md0.disks.count": 3})
    _one_line(
        run_cli("sweep", str(_grid(tmp_path, points=points)), "--out", str(tmp_path / "d")),
        "points[1].volumes.md0.level: raid6 needs at least 4 drives",
    )
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists()


def test_text_in_a_number_s_place_is_refused_as_text_not_looked_for_as_a_file(run_cli, tmp_path):
    """The sweep audit's case: a string with a slash under workload.total_MB was told as a missing
    file in the grid's folder; it is not a number, and nothing runs it."""
    code = "__import__('os').system('touch /tmp/x')"
    path = _grid(tmp_path, product={"workload.total_MB": [code]})
    _one_line(
        run_cli("sweep", str(path), "--out", str(tmp_path / "out")),
        "product.workload.total_MB: must be a positive number, got",
        "__import__",
    )


def test_a_grid_s_own_notebook_is_refused_as_code_unless_trusted(run_cli, tmp_path):
    """The security audit's case: a grid sent with a notebook of its own (``notebook: evil.ipynb``)
    had the sweep run that notebook's code. It is refused, naming the opt-in, before anything runs
    or is written; ``--trust-notebook`` runs it, and the project's notebooks run without it."""
    notebook(
        tmp_path / "evil.ipynb",
        "a = 1\nresult_path = ''\n",
        "open('PWNED', 'w').close()",
    )
    spec = {"scenario": None, "notebook": "evil.ipynb", "engine": "papermill"}
    path = _grid(tmp_path, **spec, product={"a": [1]})
    out = tmp_path / "out"
    _one_line(
        run_cli("sweep", str(path), "--out", str(out)),
        "grid.yaml: notebook: ",
        "evil.ipynb is the grid's own notebook, and a notebook is code",
        "--trust-notebook",
    )
    assert not out.exists() and not list(tmp_path.rglob("PWNED"))
    with pytest.raises(grid_module.UserError, match="--trust-notebook"):
        grid_module.load(path)
    assert grid_module.load(path, trust_notebook=True)[1] == [{"a": 1}]
    ours = _grid(tmp_path, **dict(spec, notebook="notebooks/sweep_point.ipynb"), points=[{}])
    assert grid_module.load(ours)[0].notebook == str(paths.NOTEBOOKS / "sweep_point.ipynb")


@pytest.mark.parametrize(
    ("kind", "text", "at"),
    [
        ("notebook", "product: {x: [&a [*a]]}", "product.x[0][0]"),
        ("notebook", "product: {x: [&a {k: *a}]}", "product.x[0].k"),
        ("notebook", "points: [&p {x: *p}]", "points[0].x"),
        ("scenario", "product: {description: [&a [*a]]}", "product.description[0][0]"),
    ],
)
def test_a_value_that_holds_itself_is_refused_in_one_line(run_cli, tmp_path, kind, text, at):
    """A YAML alias inside its own anchor (``&a [*a]``) in a notebook grid's value gave a
    RecursionError traceback (the values were walked for file names); a scenario grid refused it
    only as a value of the wrong kind. Both refuse it as what it is, named where it is."""
    notebook(tmp_path / "point.ipynb", "x = 1\nresult_path = ''\n")
    target = (
        "notebook: point.ipynb\nengine: papermill\n"
        if kind == "notebook"
        else "scenario: atlas_intellistation\n"
    )
    path = tmp_path / "grid.yaml"
    path.write_text(f"name: t\n{target}{text}\n")
    _one_line(
        run_cli("sweep", str(path), "--trust-notebook"),
        f"grid.yaml: {at}: holds itself (a YAML alias inside its own anchor)",
    )


def test_a_value_nested_deeper_through_aliases_than_a_file_may_is_refused(run_cli, tmp_path):
    """A file nests at most 32 levels, but an alias inside an anchor nests the anchor's value
    again: 25 anchors of 28 levels each, within the aliases' 10,000 nodes, made a value 700 levels
    deep, whose walk was a RecursionError traceback."""
    notebook(tmp_path / "point.ipynb", "x = 1\nresult_path = ''\n")
    anchors = [f"  - &a{k} {'[' * 28}{f'*a{k - 1}' if k else 1}{']' * 28}\n" for k in range(25)]
    path = tmp_path / "grid.yaml"
    path.write_text(
        "name: t\nnotebook: point.ipynb\nengine: papermill\npoints:\n- x:\n" + "".join(anchors)
    )
    _one_line(
        run_cli("sweep", str(path), "--trust-notebook"),
        "points[0].x[1]",
        "nested deeper than 32 levels through YAML aliases",
    )


def test_a_value_an_alias_repeats_without_holding_itself_loads(tmp_path):
    notebook(tmp_path / "point.ipynb", "x = 1\nresult_path = ''\n")
    path = tmp_path / "grid.yaml"
    text = "points: [{x: &v [1, {k: 2}]}, {x: *v}, {x: [*v, *v]}]"
    path.write_text(f"name: t\nnotebook: point.ipynb\nengine: papermill\n{text}\n")
    points = grid_module.load(path, trust_notebook=True)[1]
    shared = [1, {"k": 2}]
    assert points == [{"x": shared}, {"x": shared}, {"x": [shared, shared]}]


def _counting_loads(monkeypatch):
    """The settings of every scenario load the grid's check makes, in a list that grows."""
    loads = []
    real = grid_module._load

    def counted(grid, base, settings, body_cls):
        loads.append(settings)
        return real(grid, base, settings, body_cls)

    monkeypatch.setattr(grid_module, "_load", counted)
    return loads


def test_a_word_among_thousands_of_numbers_is_refused_before_they_are_loaded(
    run_cli, tmp_path, monkeypatch
):
    """The audit's case: a 10,000-value product ending in a word was refused only after every
    value before it had been loaded (9.8 s, about 1 ms a value). A value its key's type refuses is
    checked first, in the scenario's words."""
    loads = _counting_loads(monkeypatch)
    values = list(range(1, 3001)) + ["abc"]
    _one_line(
        run_cli("sweep", str(_grid(tmp_path, product={"workload.total_MB": values}))),
        "product.workload.total_MB: must be a positive number, got 'abc'",
    )
    assert len(loads) <= 2, len(loads)  # the scenario alone, then with 'abc'


def test_a_value_refused_alone_is_tried_beside_each_distinct_combination_once(
    tmp_path, monkeypatch
):
    """The audit's case: 39 sizes that fit only on 5 drives, listed beside 255 repeats of 1 drive
    and then 5, were each loaded beside all 256 (repeats included) before 5 admitted them: 10 s.
    The repeats are one value, and the combination that admitted the last size is tried first."""
    loads = _counting_loads(monkeypatch)
    sizes = list(range(400_000, 400_020))  # 400 GB do not fit on 3 drives of 120 GB, do on 5
    product = {"volumes.md0.disks.count": [1] * 255 + [5], "workload.total_MB": sizes}
    points = grid_module.load(_grid(tmp_path, product=product))[1]
    assert len(points) == 256 * 20
    assert len(loads) <= 2 + 3 + 2 * 19, len(loads)  # each count; 400000 alone, beside 1, 5; ...
    assert {"volumes.md0.disks.count": 5, "workload.total_MB": 400_019} in loads


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("scenario: {long}.yaml\nproduct:\n  workload.total_MB: [1000]\n", "no such file"),
        ("notebook: {long}.ipynb\nengine: papermill\nproduct:\n  x: [1]\n", "no such notebook"),
        ("scenario: em_ingest_microscopes\nproduct:\n  storage: [{long}.yaml]\n", "no such file"),
    ],
)
def test_a_file_name_too_long_to_look_up_is_no_such_file(run_cli, tmp_path, text, said):
    """The input audit's case: a 300-byte name raised OSError (File name too long)."""
    path = tmp_path / "grid.yaml"
    path.write_text("name: t\n" + text.format(long="a" * 300))
    _one_line(run_cli("sweep", str(path), "--out", str(tmp_path / "out")), said)


@pytest.mark.parametrize(
    ("base", "said"),
    [
        (["workload.op=delete"], ": base: workload.op: must be one of 'read', 'write', 'copy'"),
        (["novalue"], ": base[0]: novalue: an override must read dotted.key=value"),
        (  # the parts audit: a mapping was told "must be a list of string"
            {"volumes.md0.level": "raid1"},
            ": base: must be a list of KEY=VALUE strings, e.g. - volumes.data.level=raid10, got "
            "a mapping",
        ),
        (  # the parts review: a list of mappings, the likeliest slip, was told "must be a string"
            [{"volumes.md0.level": "raid1"}],
            ": base[0]: must be a KEY=VALUE string as --set takes it, e.g. "
            "volumes.data.level=raid10, got a mapping",
        ),
    ],
)
def test_a_mistake_in_base_is_named_file_colon_base_colon_key(tmp_path, run_cli, base, said):
    """The sweep audit: 'FILE base: workload.op: ...' where every other line reads 'FILE: key'."""
    path = _grid(tmp_path, base=base, product={"volumes.md0.disks.count": [1]})
    _one_line(run_cli("sweep", str(path), "--out", str(tmp_path / "out")), f"{path}{said}")


def test_the_example_a_mistake_in_base_is_given_loads(tmp_path, run_cli):
    """The parts review: the example base's refusal gave, volumes.data.level=10, was itself
    refused (a level is 'raid10'); the one it gives loads on purchase_nvme."""
    path = _grid(tmp_path, base={"volumes.md0.level": "raid1"}, product={"seed": [1]})
    _, _, err = run_cli("sweep", str(path), "--out", str(tmp_path / "out"))
    example = err.partition("e.g. - ")[2].partition(",")[0]
    path = _grid(tmp_path, scenario="purchase_nvme", base=[example], product={"seed": [1]})
    grid, points = grid_module.load(path)
    assert grid.base == (example,) and len(points) == 1


def test_a_sample_s_options_give_only_their_values_each_as_likely(tmp_path):
    """The input audit: the shipped Latin-hypercube and Sobol grids sampled the MD3260's cache
    block over [4, 32] KiB, points at 17 or 23 KiB the array does not have. A sample's options
    give each point one of their values, each as often in a Latin hypercube; a Sobol design
    counts them among its keys."""
    lhs = {
        "method": "lhs",
        "n": 8,
        "ranges": {"workload.total_MB": [100.0, 200.0]},
        "options": {"workload.request_KiB": [64, 128, 256, 1024]},
    }
    grid, points = grid_module.load(_grid(tmp_path, sample=lhs))
    assert grid.keys() == ["workload.total_MB", "workload.request_KiB"]
    drawn = sorted(p["workload.request_KiB"] for p in points)
    assert drawn == [64, 64, 128, 128, 256, 256, 1024, 1024]
    sobol = {**lhs, "method": "sobol"}
    grid, points = grid_module.load(_grid(tmp_path, sample=sobol))
    assert len(points) == grid.count() == 8 * (2 + 2)
    assert {p["workload.request_KiB"] for p in points} <= {64, 128, 256, 1024}
    for name in ("sas_lanes_lhs", "sas_lanes_sobol"):
        _, shipped = grid_module.load(paths.DATA / "sweeps" / f"{name}.yaml")
        assert {p["volumes.lv.cache_block_KiB"] for p in shipped} == {4, 8, 16, 32}


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"workload.request_KiB": [64, -1]}, "sample.options.workload.request_KiB"),
        ({"workload.request_KiB": []}, "must list at least one value"),
        ({"workload.total_MB": [100, 200]}, "is sampled over sample.ranges too"),
    ],
)
def test_a_sample_option_the_grid_cannot_take_is_refused_before_running(
    run_cli, tmp_path, options, said
):
    sample = {
        "method": "lhs",
        "n": 4,
        "ranges": {"workload.total_MB": [100.0, 200.0]},
        "options": options,
    }
    path = _grid(tmp_path, sample=sample)
    _one_line(run_cli("sweep", str(path), "--out", str(tmp_path / "out")), said)
    assert not (tmp_path / "out").exists()
