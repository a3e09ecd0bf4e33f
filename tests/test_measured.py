"""The measured data: every row cites a report and place, names a scenario that loads, uses known
units; every report is cited by its title (data/measured/sources.yaml)."""

import re
from collections import Counter

import pytest

from model import measured, paths, scenario
from model.yamlio import safe_load

TABLES = measured.load_all()
ROWS = [r for rows in TABLES.values() for r in rows]
REPORTS = sorted(measured.sources())
UNITS = {
    "MB/s",
    "MiB/s",
    "GB/s",
    "TB/h",
    "Mbit/s",
    "Gbit/s",
    "s",
    "ms",
    "%",
    "B",
    "kB",
    "KiB",
    "MB",
    "GB",
    "TB",
    "TiB",
    "PB",
    "count",
    "per_day",
    "TB/day",
    "GHz",
    "MHz",
    "rpm",
    "km",
    "min",
}


def test_at_least_80_rows_citing_all_five_reports():
    assert len(ROWS) >= 80
    cited = {r.source.split()[0] for r in ROWS}
    assert len(cited) == 5
    assert cited == set(REPORTS)


def _catalog_reports():
    """Every ``reports:`` entry of data/hardware/*.yaml."""
    for path in sorted(paths.HARDWARE.glob("*.yaml")):
        for part in (safe_load(path.read_text()) or {}).values():
            if isinstance(part, dict):
                yield from part.get("reports", ())


def test_every_report_a_table_or_the_catalog_names_is_in_sources_yaml():
    named = {measured.report_of(r.source) for r in ROWS} | {
        measured.report_of(entry) for entry in _catalog_reports()
    }
    assert len(named) == 5 and named <= set(measured.sources())


@pytest.mark.parametrize("key", REPORTS)
def test_sources_yaml_gives_each_report_s_title_authors_date_and_where(key):
    entry = measured.sources()[key]
    assert entry["title"] and entry["authors"] and entry["where"]
    assert entry["date"] or entry["date_note"]  # a date the report does not state is said so
    cited = measured.cite(f"{key} slide 9")
    assert cited.startswith(f'"{entry["title"]}" (') and cited.endswith(") slide 9")
    assert not re.search(r"\d{3}_[0-9a-f]{16}\.txt", cited)


def test_required_tables_exist():
    assert set(TABLES) >= {
        "psu_write",
        "psu_copy",
        "psu_mmap",
        "atlas_disk",
        "atlas_hosts",
        "atlas_wan",
        "eah_download",
        "em_ingest",
        "mdsplus_read",
    }


@pytest.mark.parametrize("table", sorted(TABLES))
def test_ids_unique_and_units_known(table):
    ids = Counter(r.id for r in TABLES[table])
    assert not [i for i, n in ids.items() if n > 1]
    assert all(r.unit in UNITS for r in TABLES[table])
    assert all(
        r.source.split()[0].endswith(".txt") and len(r.source.split()) > 1 for r in TABLES[table]
    )


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_row_names_a_scenario_that_loads_with_its_overrides(table):
    for r in TABLES[table]:
        scenario.load(r.scenario, r.overrides)
        if r.relative_to:
            scenario.load(r.scenario, r.relative_to)


def test_no_held_out_column_is_transcribed():
    held_out = {("r6_opt", "2"), ("r10_opt", "4"), ("r10_opt", "8")}
    for r in TABLES["eah_download"]:
        settings = dict(o.split("=", 1) for o in r.overrides)
        assert (settings.get("variant"), settings.get("server.workers")) not in held_out


def test_eah_download_has_every_visible_cell():
    cells = [r for r in TABLES["eah_download"] if r.role == "result" and r.metric == "elapsed_s"]
    assert len(cells) == 54  # 9 client counts x 6 visible columns


def test_bounds_are_marked_and_scored_one_sided():
    from model.validate import bounded_error_pct

    bounds = {(r.table, r.id): r.bound for r in ROWS if r.role == "result" and r.bound}
    assert bounds == {
        ("atlas_wan", "tsunami_over_1gbit"): "lower",
        ("atlas_wan", "dvd_under_60s"): "upper",
    }
    assert bounded_error_pct(1.3, 1.0, "lower") == 0.0 and bounded_error_pct(
        0.9, 1.0, "lower"
    ) == pytest.approx(-10.0)
    assert bounded_error_pct(50.0, 60.0, "upper") == 0.0 and bounded_error_pct(
        66.0, 60.0, "upper"
    ) == pytest.approx(10.0)
    assert bounded_error_pct(1.1, 1.0, "") == pytest.approx(10.0)
