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


def _row(rid: str) -> measured.Row:
    return next(r for r in ROWS if r.id == rid)


@pytest.mark.parametrize("rid", ["evo870_atto_read", "evo870_atto_write"])
def test_the_870_evo_s_atto_figures_lie_inside_their_intervals(rid):
    """KitGuru's ATTO 561 and 531 MB/s on a sheet of 'up to' 560 and 530: the drive's rates are a
    span from the sheet's figure to its SATA link's payload (data/hardware/ssds.yaml), so each
    printed figure lies inside its interval with no allowance for rounding, where the sheet's
    figure taken as the path's capacity had put both just past it."""
    row = _row(rid)
    printed = uncertainty.for_row(row)
    assert printed.low <= row.value <= printed.high, (rid, printed.low, printed.high)
    assert printed.high > row.value * 1.01  # inside the span, not at a capped end


def test_kitguru_s_qd1_writes_come_from_four_workers():
    """KitGuru's 'QD1' 163,140 random writes a second (668 MB/s): one writer at the drive's rated
    QD1 write, 16.7 us (60,000 IOPS), could not have written them, 6.1 us each with the host's
    path; the reading is KitGuru's four workers, each at the queue depth shown, and the row lies
    inside its interval."""
    row = _row("evo_plus_randwrite_qd1")
    loaded = scenario.load(row.scenario, row.overrides)
    workload = loaded.body.workload
    drive = loaded.catalog.parts["ssds"][loaded.body.volumes["drive"].disks.part]
    in_flight = workload.streams * workload.queue_depth
    assert in_flight * 1e6 / drive.write_latency_us >= row.value * 1e6 / 4096
    printed = uncertainty.for_row(row)
    assert printed.low <= row.value <= printed.high, (printed.low, printed.high)
