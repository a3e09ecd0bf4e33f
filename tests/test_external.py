"""The external table: published measurements of current hardware, each citing a source with a
URL, predicted from datasheets, never fitted, and shown by validate as its own table."""

import json

import pytest

from model import calibrate, measured, model_error, report, scenario, uncertainty

EXTERNAL = measured.load_external()
ROWS = EXTERNAL[measured.EXTERNAL_TABLE]


def test_the_external_table_loads_and_every_row_names_a_scenario_that_loads():
    assert len(ROWS) >= 6
    assert len({r.id for r in ROWS}) == len(ROWS)
    for r in ROWS:
        assert r.table == measured.EXTERNAL_TABLE and measured.is_external(r)
        assert r.scenario.startswith("ext_")
        scenario.load(r.scenario, r.overrides)


def test_every_row_cites_a_listed_source_with_a_url_and_quotes_its_words():
    """Each row's page is named by its URL and its note quotes the page; no note speaks of a
    search tool a user's clone does not have (the provenance audit)."""
    for r in ROWS:
        entry = measured.external_sources()[measured.report_of(r.source)]
        assert entry["url"].startswith("https://")
        assert entry["url"] in measured.cite(r.source)
        assert "'" in r.note and "search" not in r.note.lower()


def test_the_fit_uses_none_of_the_external_rows():
    assert not any(calibrate.fitted(r) for r in ROWS)
    # and calibrate's own input, the reports' tables, holds none of them
    reports = [r for rows in measured.load_all().values() for r in rows]
    assert measured.EXTERNAL_TABLE not in measured.load_all()
    assert not any(measured.is_external(r) for r in reports)


def test_validate_prints_the_external_table_with_its_median_and_max_error():
    text = report.validation()
    head = next(line for line in text.splitlines() if line.startswith("external:"))
    assert "median |error|" in head and "max" in head
    shown = json.loads(report.validation(as_json=True))
    assert shown["tables"]["external"]["covered"] == len(ROWS)
    assert sum(row["table"] == "external" for row in shown["rows"]) == len(ROWS)


def test_every_external_row_missed_by_more_than_a_quarter_says_why():
    from model import params, report
    from model.validate import predict_rows

    rows = [r for rs in measured.load_external().values() for r in rs]
    for p in predict_rows(rows, params.calibrated()):
        if p.error_pct is not None and abs(p.error_pct) > report.MISS_SHOWN_PCT:
            assert report.why_missed(p), p.row.id


def test_validate_judges_each_external_row_by_the_interval_predict_prints():
    """The external rows are hardware no table measured: ``predict`` widens them by the error of
    predicting a table the fit never saw (``new_hardware``), and ``validate`` now grades that
    interval, not one widened by the error of a configuration of a measured table (the 16 TB
    array's sequential read: [196, 270] MB/s printed, where validate graded [249, 270])."""
    shown = json.loads(report.validation(as_json=True))
    graded = {r["id"]: r["interval_90"] for r in shown["rows"] if r["table"] == "external"}
    for r in ROWS:
        printed = uncertainty.for_row(r)
        if printed is None:
            continue
        assert printed.model_error["covers"].startswith(model_error.NEW_HARDWARE), r.id
        assert graded[r.id] == pytest.approx([printed.low, printed.high], rel=1e-6), r.id
