"""A file that a user's file names (a scenario's reference, a grid's scenario or notebook) is read
only in the naming file's folder or below it; the parts files given with ``--catalog`` reach the
scenarios a scenario names."""

import json
from pathlib import Path

import pytest
import yaml
from grid_files import grid, notebook, one_line

from model import paths, scenario
from model.errors import UserError
from model.sweep import grid as grid_module

MICROSCOPES = paths.SCENARIOS / "em_ingest_microscopes.yaml"
STORE = paths.SCENARIOS / "em_ingest.yaml"


def _ingest(folder, storage):
    """The microscope ingest scenario in ``folder``, its store named ``storage``."""
    raw = yaml.safe_load(MICROSCOPES.read_text())
    raw["storage"] = storage
    path = folder / "ingest.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def test_a_reference_outside_the_scenario_s_folder_is_refused(run_cli, tmp_path):
    # '/etc/passwd' was read (and refused only as not being a scenario)
    (tmp_path / "outside.yaml").write_text(STORE.read_text())
    inner = tmp_path / "inner"
    inner.mkdir()
    for named in ("../outside.yaml", "/etc/passwd"):
        path = _ingest(inner, named)
        one_line(run_cli("predict", str(path), "--point"), "storage: must be a scenario name or")


def test_a_reference_by_path_is_read_beside_the_scenario_not_in_the_working_directory(tmp_path):
    (tmp_path / "store.yaml").write_text(STORE.read_text())
    loaded = scenario.load(_ingest(tmp_path, "store.yaml"))
    assert Path(loaded.refs["storage"].path).resolve() == (tmp_path / "store.yaml").resolve()
    assert scenario.load(_ingest(tmp_path, "em_ingest")).refs["storage"].path == (
        "data/scenarios/em_ingest.yaml"
    )


def test_catalog_parts_reach_the_scenario_a_scenario_names(run_cli, tmp_path):
    # the store's drives are a part only the --catalog file holds; it once reached the ingest
    # scenario alone, and its store could not name the part
    parts = tmp_path / "parts.yaml"
    parts.write_text(
        yaml.safe_dump(
            {
                "disks": {
                    "my_nl_sas": {
                        "like": "st4000nm0023",
                        "rpm": 7200,
                        "sources": {"rpm": "estimated: a test's drive"},
                    }
                }
            }
        )
    )
    store = yaml.safe_load(STORE.read_text())
    store["volumes"]["lv"]["disks"]["part"] = "my_nl_sas"
    (tmp_path / "store.yaml").write_text(yaml.safe_dump(store))
    path = _ingest(tmp_path, "store.yaml")
    status, out, err = run_cli("predict", str(path), "--catalog", str(parts), "--point")
    assert status == 0 and "MB/s" in out, err
    one_line(run_cli("predict", str(path), "--point"), "my_nl_sas")


def test_a_grid_reads_its_scenario_and_notebook_only_in_its_folder(run_cli, tmp_path):
    inner = tmp_path / "inner"
    inner.mkdir()
    (tmp_path / "outside.yaml").write_text(STORE.read_text())
    for named in ("../outside.yaml", "/etc/passwd"):
        path = grid(inner, scenario=named, product={"workload.streams": [1]})
        one_line(run_cli("sweep", str(path)), "scenario: must be a scenario name or")
    outside_notebook = notebook(tmp_path / "outside.ipynb", "x = 1\nresult_path = ''\n")
    for named in (str(outside_notebook), "../outside.ipynb", "../../../etc/passwd"):
        path = grid(inner, scenario=None, notebook=named, engine="papermill", product={"x": [1]})
        one_line(run_cli("sweep", str(path)), "notebook: must be a notebook in notebooks/")


def test_a_grid_s_files_beside_it_and_the_project_s_notebooks_load(tmp_path):
    (tmp_path / "store.yaml").write_text(STORE.read_text())
    loaded, _ = grid_module.load(
        grid(tmp_path, scenario="store.yaml", product={"workload.streams": [1]})
    )
    assert Path(loaded.scenario) == (tmp_path / "store.yaml").resolve()
    mine = notebook(tmp_path / "mine.ipynb", "x = 1\nresult_path = ''\n")
    for named, expected in (
        ("mine.ipynb", mine),
        ("notebooks/sweep_point.ipynb", paths.NOTEBOOKS / "sweep_point.ipynb"),
    ):
        spec = {"scenario": None, "notebook": named, "engine": "papermill", "product": {"x": [1]}}
        if "sweep_point" in named:
            cells = json.loads(expected.read_text())["cells"]
            declared = next(c for c in cells if "parameters" in c["metadata"].get("tags", []))
            assert "scenario" in "".join(declared["source"])
            spec["product"] = {"scenario": ["em_ingest"]}
        loaded, _ = grid_module.load(grid(tmp_path, **spec), trust_notebook=True)
        assert Path(loaded.notebook) == expected.resolve()


def test_one_part_id_from_two_parts_files_gives_each_its_own_answer(run_cli, tmp_path):
    # predictions were cached on the scenario's body alone: the second parts file's drive got the
    # first one's answer in the same session (a notebook comparing two quotes)
    rates = []
    for mbps in (300, 600):
        parts = tmp_path / f"parts_{mbps}.yaml"
        source = {"internal_rate_max_Mbps": "estimated: a test's drive"}
        drive = {"like": "wd1200jb", "internal_rate_max_Mbps": mbps, "sources": source}
        parts.write_text(yaml.safe_dump({"disks": {"my_drive": drive}}))
        status, out, err = run_cli(
            "predict",
            "atlas_intellistation",
            "--catalog",
            str(parts),
            "--set",
            "volumes.md0.disks.part=my_drive",
            "--json",
            "--point",
        )
        assert status == 0, err
        rates.append(json.loads(out)["throughput_MBps"])
    assert rates[1] > 1.5 * rates[0], rates


def test_catalog_parts_reach_each_scenario_an_unknown_names(tmp_path):
    # an unknown over the store named reloaded it without the --catalog files (the ingest's own
    # catalog still served the simulation; the store alone did not know the part)
    parts = tmp_path / "parts.yaml"
    drive = {"like": "st4000nm0023", "rpm": 7200, "sources": {"rpm": "estimated: a test"}}
    parts.write_text(yaml.safe_dump({"disks": {"my_nl_sas": drive}}))
    store = yaml.safe_load(STORE.read_text())
    store["volumes"]["lv"]["disks"]["part"] = "my_nl_sas"
    for name in ("store_a.yaml", "store_b.yaml"):
        (tmp_path / name).write_text(yaml.safe_dump(store))
    path = _ingest(tmp_path, "store_a.yaml")
    loaded = scenario.load(path, catalogs=(str(parts),))
    other = scenario.with_values(loaded, {"storage": "store_b.yaml"}).refs["storage"]
    assert Path(other.path).name == "store_b.yaml"
    assert "my_nl_sas" in other.catalog.parts["disks"]


def test_a_scenario_named_on_the_command_line_is_read_where_the_user_points(run_cli, tmp_path):
    # --set is the user's own typing: a path there is read as a shell reads it, from anywhere;
    # the same path in a file, a variant or a grid stays in that file's folder (the grid's, not
    # its scenario's)
    (tmp_path / "store.yaml").write_text(STORE.read_text())
    named = str(tmp_path / "store.yaml")
    status, out, err = run_cli("predict", "em_ingest_microscopes", "--set", f"storage={named}")
    assert status == 0 and "MB/s" in out, err
    loaded = scenario.load("em_ingest_microscopes", [f"storage={named}"], typed=True)
    assert Path(loaded.refs["storage"].path).resolve() == (tmp_path / "store.yaml").resolve()
    elsewhere = tmp_path / "grids"
    elsewhere.mkdir()
    one_line(
        run_cli(
            "sweep",
            str(grid(elsewhere, scenario="em_ingest_microscopes", product={"storage": [named]})),
        ),
        "storage: must be a scenario name or",
    )


def test_an_edit_to_a_scenario_a_grid_s_scenario_names_reruns_its_points(tmp_path):
    # a resumed grid kept the points run before the store the ingest names was edited
    from model.sweep import run as run_module

    (tmp_path / "store.yaml").write_text(STORE.read_text())
    _ingest(tmp_path, "store.yaml")
    path = grid(tmp_path, scenario="ingest.yaml", product={"clients": [1, 2]})
    loaded, points = grid_module.load(path)
    out = tmp_path / "out"
    assert run_module.run(loaded, points, out, workers=1, progress=False) == (2, 0, 0)
    assert run_module.run(loaded, points, out, workers=1, progress=False) == (0, 0, 2)
    store = yaml.safe_load((tmp_path / "store.yaml").read_text())
    store["volumes"]["lv"]["cache_block_KiB"] = 32
    (tmp_path / "store.yaml").write_text(yaml.safe_dump(store))
    assert run_module.run(loaded, points, out, workers=1, progress=False) == (2, 0, 0)


def test_an_edit_to_a_scenario_a_grid_s_point_names_reruns_that_point(tmp_path):
    # a point whose value names a store (storage: b.yaml) kept its stale result after b.yaml was
    # edited: the point's id held the name, not the file
    from model.sweep import run as run_module

    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text(STORE.read_text())
    _ingest(tmp_path, "a.yaml")
    path = grid(tmp_path, scenario="ingest.yaml", product={"storage": ["a.yaml", "b.yaml"]})
    loaded, points = grid_module.load(path)
    out = tmp_path / "out"
    assert run_module.run(loaded, points, out, workers=1, progress=False) == (2, 0, 0)
    store = yaml.safe_load((tmp_path / "b.yaml").read_text())
    store["volumes"]["lv"]["cache_block_KiB"] = 32
    (tmp_path / "b.yaml").write_text(yaml.safe_dump(store))
    assert run_module.run(loaded, points, out, workers=1, progress=False) == (1, 0, 1)


def test_a_papermill_point_imports_nothing_from_its_grid_s_folder(run_cli, tmp_path):
    """The review: with the grid's folder as the kernel's working folder, a model/ package beside
    the grid came first on the kernel's import path and ran as the lab's code, without
    --trust-notebook. A point of the project's notebook runs in its own empty folder."""
    marker = tmp_path / "ran"
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "__init__.py").write_text(
        f"open({str(marker)!r}, 'w').write('x')\nraise SystemExit('the grid folder ran')\n"
    )
    path = grid(tmp_path, engine="papermill", points=[{"workload.total_MB": 100}])
    status, out, err = run_cli("sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "1")
    assert status == 0 and "1 run now (0 failed)" in out, out + err
    assert not marker.exists()


def test_papermill_points_side_by_side_in_one_process_keep_their_own_folders(tmp_path):
    """The review: papermill's cwd= changes the whole process's working folder, so points run side
    by side on a Dask worker's threads, each in its own temporary folder, failed in one another's
    deleted folders (3 of 6, FileNotFoundError). The folder is the kernel's alone."""
    from concurrent.futures import ThreadPoolExecutor

    from model.sweep.point import run_point
    from model.sweep.specs import specs

    path = grid(
        tmp_path, engine="papermill", points=[{"workload.total_MB": 100 + i} for i in range(4)]
    )
    loaded, points = grid_module.load(path)
    todo = specs(loaded, points, tmp_path / "out")
    with ThreadPoolExecutor(2) as pool:
        records = list(pool.map(run_point, todo))
    assert [r["status"] for r in records] == ["ok"] * 4, [r.get("error") for r in records]


def test_a_grid_s_own_notebook_below_notebooks_is_its_own(tmp_path, monkeypatch):
    """The review: a grid's own notebook in notebooks/study/ was taken for one of the project's,
    for where it lay: run without --trust-notebook, and in an empty folder away from the files
    beside it. Only notebooks/ and notebooks/course/ hold the project's."""
    from model.sweep.point import _kernel_folder

    monkeypatch.setattr(paths, "NOTEBOOKS", tmp_path / "notebooks")
    study = tmp_path / "notebooks" / "study"
    study.mkdir(parents=True)
    notebook(study / "own.ipynb", "x = 1\nresult_path = ''", "print(open('beside.txt').read())")
    path = grid(study, scenario=None, notebook="own.ipynb", engine="papermill", points=[{"x": 2}])
    with pytest.raises(UserError, match="is the grid's own notebook"):
        grid_module.load(path)
    assert grid_module.load(path, trust_notebook=True)[0].notebook == str(study / "own.ipynb")
    assert _kernel_folder(study / "own.ipynb", "/tmp/point") == str(study)
    assert (
        _kernel_folder(tmp_path / "notebooks" / "sweep_point.ipynb", "/tmp/point") == "/tmp/point"
    )


def test_an_edit_to_a_file_a_notebook_grid_s_point_names_reruns_that_point(run_cli, tmp_path):
    """The input audit: a notebook grid's point naming a scenario file kept its stored result (0
    run now, 1 already done) after the file was edited to move four times the data."""
    (tmp_path / "store.yaml").write_text(STORE.read_text())
    path = grid(
        tmp_path,
        scenario=None,
        notebook="notebooks/sweep_point.ipynb",
        engine="papermill",
        product={"scenario": ["store.yaml"], "settings": [{"variant": "striped"}]},
    )
    sweep = ("sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "1")
    status, out, err = run_cli(*sweep)
    assert status == 0 and "1 run now (0 failed), 0 already done" in out, out + err
    status, out, err = run_cli(*sweep)
    assert status == 0 and "0 run now (0 failed), 1 already done" in out, out + err
    raw = yaml.safe_load(STORE.read_text())
    raw["workload"]["streams"] = 4
    (tmp_path / "store.yaml").write_text(yaml.safe_dump(raw))
    status, out, err = run_cli(*sweep)
    assert status == 0 and "1 run now (0 failed), 0 already done" in out, out + err


def test_a_notebook_grid_reads_a_scenario_file_only_in_its_folder(run_cli, tmp_path):
    """The project's sweep_point notebook loads its scenario parameter: a grid could name any file
    for it (an absolute path, ../../..), which the notebook then read (the input audit). A path
    outside the grid's folder is refused before any point runs; one inside reaches the notebook
    in full, in a mapping too."""
    inner = tmp_path / "inner"
    inner.mkdir()
    (tmp_path / "outside.yaml").write_text(STORE.read_text())
    for named in (str(tmp_path / "outside.yaml"), "../outside.yaml"):
        path = grid(
            inner,
            scenario=None,
            notebook="notebooks/sweep_point.ipynb",
            engine="papermill",
            points=[{"scenario": named}],
        )
        one_line(
            run_cli("sweep", str(path)),
            "points[0].scenario: must be a scenario name or a file in",
            f"got {named!r}",
        )
    (inner / "store.yaml").write_text(STORE.read_text())
    assert grid_module.notebook_value("store.yaml", str(inner)) == str(inner / "store.yaml")
    assert grid_module.notebook_value({"storage": ["store.yaml", 2]}, str(inner)) == {
        "storage": [str(inner / "store.yaml"), 2]
    }
    assert grid_module.notebook_value("em_ingest", str(inner)) == "em_ingest"
    # a text that names no file in the folder reaches the notebook as written (the sweep audit)
    for text in ("MB/s", "2024/05/01", "R/W test", "notes.yaml"):
        assert grid_module.notebook_value({"label": [text]}, str(inner)) == {"label": [text]}
    # a bare name with a suffix too: the project's notebook runs in its own empty folder, where
    # 'beside.txt' as written finds nothing (the later review)
    (inner / "beside.txt").write_text("42")
    assert grid_module.notebook_value("beside.txt", str(inner)) == str(inner / "beside.txt")
    (inner / "runs" / "day1").mkdir(parents=True)  # a folder beside the grid, in full (the review)
    assert grid_module.notebook_value("runs/day1", str(inner)) == str(inner / "runs" / "day1")


def test_a_notebook_grid_s_settings_cannot_reach_a_file_outside_its_folder(run_cli, tmp_path):
    """The input audit: the sweep_point notebook joined its settings as key=value and read that as
    YAML a second time, so a grid's text "\\x2Ftmp\\x2F..." became an absolute path, and a key
    'storage=/outside.yaml\\n#' smuggled one in; both points read a file outside the grid's
    folder. Each value is now written as YAML that reads back as it was given, a key holding '='
    is refused, and a path named nowhere in the folder is looked for there, not in notebooks/."""
    outside = tmp_path / "outside.yaml"
    outside.write_text("model: storage\nname: x\nREAD_FROM_OUTSIDE: 1\n")
    escaped = '"' + str(outside).replace("/", "\\x2F") + '"'
    key, value = scenario.parse_assignment(grid_module.setting("storage", escaped), "--set")
    assert (key, value) == ("storage", escaped)
    inner = tmp_path / "inner"
    inner.mkdir()
    path = grid(
        inner,
        scenario=None,
        notebook="notebooks/sweep_point.ipynb",
        engine="papermill",
        product={
            "scenario": ["em_ingest_microscopes"],
            "settings": [{"storage": escaped}, {f"storage={outside}\n#": "x"}],
        },
    )
    status, out, err = run_cli("sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "1")
    assert status == 4, err
    assert "READ_FROM_OUTSIDE" not in out + err and "no variant" not in out + err, out
    assert "no such file" in out and "a scenario key holds no '='" in out, out


def test_a_link_beside_the_naming_file_to_a_file_outside_says_it_is_a_link(run_cli, tmp_path):
    """The quote audit: link.yaml, a symbolic link in the scenario's folder to a file outside it,
    was refused as 'must be ... a file in FOLDER or below it, got 'link.yaml'', although it is in
    that folder. It stays refused (a link out is not followed), and the refusal says why: for a
    scenario's catalogs: entry, a scenario it names, a grid's scenario and a grid's values."""
    outside, inner = tmp_path / "outside", tmp_path / "inner"
    outside.mkdir()
    inner.mkdir()
    (outside / "store.yaml").write_text(STORE.read_text())
    (outside / "parts.yaml").write_text(yaml.safe_dump({"disks": {}}))
    (inner / "link.yaml").symlink_to(outside / "store.yaml")
    (inner / "parts_link.yaml").symlink_to(outside / "parts.yaml")
    (inner / "far").symlink_to(outside)  # a folder on the way
    store = STORE.read_text()
    cases = [
        ("catalogs[0]", "parts_link.yaml", "parts.yaml", "must be a file in"),
        ("storage", "link.yaml", "store.yaml", "must be a scenario name or a file in"),
        ("storage", "far/store.yaml", "store.yaml", "must be a scenario name or a file in"),
    ]
    for key, name, target, must in cases:
        if key == "storage":
            path = _ingest(inner, name)
        else:
            path = inner / "with_parts.yaml"
            path.write_text(f"catalogs: [{name}]\n" + store)
        link = "is a symbolic link" if "/" not in name else "leads through a symbolic link"
        one_line(
            run_cli("predict", str(path), "--point"),
            f"{key}: '{name}' {link} to {outside / target}, outside {inner}, and a link out of "
            f"it is not followed: {must} {inner} or below it",
        )
    for spec, key in (
        ({"scenario": "link.yaml", "product": {"workload.streams": [1]}}, "scenario"),
        (
            {"scenario": "em_ingest_microscopes", "product": {"storage": ["link.yaml"]}},
            "product.storage",
        ),
        (
            {
                "scenario": None,
                "notebook": "notebooks/sweep_point.ipynb",
                "engine": "papermill",
                "points": [{"scenario": "link.yaml"}],
            },
            "points[0].scenario",
        ),
    ):
        one_line(
            run_cli("sweep", str(grid(inner, **spec))),
            f"{key}: 'link.yaml' is a symbolic link to {outside / 'store.yaml'}, outside {inner}",
            "must be a scenario name or a file in",
        )


def test_a_link_in_the_folder_to_a_missing_file_says_it_is_one(run_cli, tmp_path):
    """The review: catalogs: [dangling.yaml], a link beside the scenario to a file that is not
    there, said 'no such parts file FOLDER/missing.yaml ('dangling.yaml' is read in the
    scenario's folder or below it)', naming a file the user never typed; a scenario it names,
    'storage: 'dangling.yaml': FOLDER/missing.yaml: no such file'."""
    tmp_path = tmp_path.resolve()
    (tmp_path / "dangling.yaml").symlink_to(tmp_path / "missing.yaml")
    said = f"'dangling.yaml' is a symbolic link to a missing file {tmp_path / 'missing.yaml'}\n"
    path = tmp_path / "with_parts.yaml"
    path.write_text("catalogs: [dangling.yaml]\n" + STORE.read_text())
    one_line(run_cli("predict", str(path), "--point"), f"with_parts.yaml: catalogs[0]: {said}")
    ingest = _ingest(tmp_path, "dangling.yaml")
    one_line(run_cli("predict", str(ingest), "--point"), f"ingest.yaml: storage: {said}")


def test_a_link_out_and_back_up_is_walked_as_the_system_walks_it(run_cli, tmp_path):
    """dirlink/../sub/parts.yaml, dirlink a link to a folder outside: the system reads the
    sub/parts.yaml beside that folder, outside. The refusal read the name as written (lexically,
    sub/parts.yaml inside) and said only 'must be a file in FOLDER or below it'; it says the link
    leads out, as for a link that is the name itself."""
    tmp_path = tmp_path.resolve()
    outside, inner = tmp_path / "outside", tmp_path / "inner"
    for folder in (outside, inner / "sub", tmp_path / "sub"):
        folder.mkdir(parents=True)
        (folder / "parts.yaml").write_text(yaml.safe_dump({"disks": {}}))
    (inner / "dirlink").symlink_to(outside)
    name = "dirlink/../sub/parts.yaml"
    path = inner / "with_parts.yaml"
    path.write_text(f"catalogs: [{name}]\n" + STORE.read_text())
    one_line(
        run_cli("predict", str(path), "--point"),
        f"catalogs[0]: '{name}' leads through a symbolic link to {tmp_path / 'sub' / 'parts.yaml'}"
        f", outside {inner}, and a link out of it is not followed: must be a file in {inner} or "
        "below it",
    )


def test_a_loop_of_links_is_no_such_file(run_cli, tmp_path):
    """Python 3.11's resolve raises RuntimeError on a loop of links: a traceback and status 1
    wherever a file was named (the input audit)."""
    (tmp_path / "l1.yaml").symlink_to(tmp_path / "l2.yaml")
    (tmp_path / "l2.yaml").symlink_to(tmp_path / "l1.yaml")
    one_line(run_cli("predict", str(tmp_path / "l1.yaml")), "no such file")
    scenario_file = tmp_path / "with_parts.yaml"
    scenario_file.write_text("catalogs: [l1.yaml]\n" + STORE.read_text())
    one_line(run_cli("predict", str(scenario_file)), "catalogs[0]")


def test_a_scenario_named_that_does_not_exist_is_told_as_the_naming_key(run_cli, tmp_path):
    """A grid's 'scenario: nope' said 'data/scenarios/nope.yaml: no such file', naming neither the
    grid nor its key (the input audit); an ingest's storage likewise."""
    path = grid(tmp_path, scenario="nope", product={"workload.streams": [1]})
    one_line(run_cli("sweep", str(path)), "scenario: no scenario named 'nope'", "em_ingest")
    one_line(
        run_cli("predict", str(_ingest(tmp_path, "nope")), "--point"),
        "storage: no scenario named 'nope'",
    )


def test_a_reference_to_another_model_s_scenario_says_so_before_its_overrides(run_cli, tmp_path):
    """An ingest whose storage names an ingest scenario said "has no variant 'striped'" (its
    override, refused by the wrong scenario): it must name a storage scenario."""
    one_line(
        run_cli("predict", str(_ingest(tmp_path, "em_ingest_microscopes")), "--point"),
        "storage: must name a storage scenario, got 'em_ingest_microscopes' (ingest)",
    )


def test_a_folder_named_as_parts_is_told_as_a_folder(run_cli, tmp_path):
    (tmp_path / "parts").mkdir()
    scenario_file = tmp_path / "with_parts.yaml"
    scenario_file.write_text("catalogs: [parts]\n" + STORE.read_text())
    one_line(run_cli("predict", str(scenario_file)), "catalogs[0]", "is a folder, not a parts file")
