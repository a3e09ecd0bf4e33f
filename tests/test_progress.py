"""The long commands show their progress on a terminal as a bar, and elsewhere (a log, a pipe) as
plain lines at a modest rate (model.progress)."""

import io
import os
import re
import sys

import pytest
from grid_files import grid

from model import calibrate, cli, holdout, measured, progress, report

ERASE_LINE = "\x1b[K"  # ANSI's erase in line, from the cursor to the line's end


class Terminal(io.StringIO):
    def isatty(self):
        return True


class Clock:
    """``time`` for model.progress: ``monotonic`` moves ``step_s`` each time it is read."""

    def __init__(self, step_s):
        self.now, self.step_s = 0.0, step_s

    def monotonic(self):
        self.now += self.step_s
        return self.now


def _rows():
    tables = measured.load_all()
    return tables["psu_copy"] + tables["atlas_hosts"]


def _refits(monkeypatch, stream):
    monkeypatch.setattr(sys, "stderr", stream)
    rows = _rows()
    holdout.leave_one_table_out(rows, calibrate.fit(rows).values)
    return stream.getvalue()


def test_a_terminal_sees_the_refits_counted(monkeypatch):
    # calibrate ran about two minutes with nothing on the screen
    shown = _refits(monkeypatch, Terminal())
    assert "leave-one-table-out" in shown and "refit" in shown, shown


def test_a_log_or_a_pipe_gets_no_bar(monkeypatch):
    assert "\r" not in _refits(monkeypatch, io.StringIO())


def test_the_fit_on_every_row_is_counted_too(monkeypatch):
    """validate --holdout and calibrate fitted on every row for about 16 s with nothing on the
    screen before the refits' bars: its groups of parameters and the levels it tries are counted."""
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    report._held_out(_rows())
    shown = stream.getvalue()
    assert "fit on every row (least squares)" in shown and "group" in shown, shown
    assert "fit on every row (tuned_read_ahead_KiB)" in shown and "level" in shown, shown


def test_a_log_gets_a_line_a_tenth_at_most_every_30_s(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setattr(progress, "time", Clock(5.0))  # a point every 5 s
    count = progress.counter(100, "sweep t", "point")
    for _ in range(100):
        count.update(1)
    count.close()
    lines = sys.stderr.getvalue().splitlines()
    assert "\r" not in sys.stderr.getvalue()
    assert lines[0] == "sweep t: 10 of 100 points (10 %) after 50 s", lines
    assert lines[-1] == "sweep t: 100 of 100 points (100 %) after 8 min 20 s", lines
    assert len(lines) == 10


def test_a_log_hears_from_a_sweep_whose_points_run_long(monkeypatch):
    """The sweep audit: a point that hung held a sweep 86 s without a word; with a heartbeat a
    line comes at least that often while nothing finishes, and none once the count is closed."""
    import time

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    count = progress.counter(3, "sweep t", "point", heartbeat_s=0.2)
    time.sleep(0.7)
    count.close()
    shown = sys.stderr.getvalue().splitlines()
    assert shown and all(line.startswith("sweep t: still running, 0 of 3 points") for line in shown)
    time.sleep(0.4)
    assert len(sys.stderr.getvalue().splitlines()) == len(shown)


def test_a_short_run_writes_no_line_to_a_log(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setattr(progress, "time", Clock(0.1))
    assert list(progress.steps(range(200), "intervals", "row")) == list(range(200))  # 20 s
    assert sys.stderr.getvalue() == ""


@pytest.mark.parametrize(
    ("seconds", "shown"), [(45, "45 s"), (185, "3 min 05 s"), (7620, "2 h 07 min")]
)
def test_a_wait_reads_in_its_units(seconds, shown):
    assert progress._duration(seconds) == shown


def test_a_sweep_into_a_log_writes_plain_lines(run_cli, tmp_path, monkeypatch):
    """python -m model sweep ... 2> log wrote its bar, carriage returns and all, into the log."""
    monkeypatch.setattr(progress, "time", Clock(31.0))
    path = grid(tmp_path, points=[{"workload.total_MB": 100}, {"workload.total_MB": 200}])
    status, _, err = run_cli("sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "1")
    assert status == 0 and "\r" not in err, err
    assert "sweep t: 1 of 2 points (50 %) after" in err, err
    assert "sweep t: 2 of 2 points (100 %) after" in err, err


def test_a_sweep_counts_its_checks_before_its_points(run_cli, tmp_path, monkeypatch):
    """10,000 listed points took 74 s to check, each loaded whole, with nothing on standard error
    before the first point ran."""
    monkeypatch.setattr(progress, "time", Clock(31.0))
    path = grid(tmp_path, points=[{"workload.total_MB": 100}, {"workload.total_MB": 200}])
    status, _, err = run_cli("sweep", str(path), "--out", str(tmp_path / "out"), "--workers", "1")
    assert status == 0, err
    assert "checking grid t: 2 of 2 checks (100 %) after" in err, err
    assert err.index("checking grid t:") < err.index("sweep t:"), err


def test_ctrl_c_clears_the_bar_before_its_line(monkeypatch):
    """The line Ctrl-C ends a command with starts where the bar was, not after it."""
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)

    def refits(**_):
        for n in progress.steps(range(3), "leave-one-table-out", "refit"):
            if n == 1:
                raise KeyboardInterrupt

    monkeypatch.setattr(report, "validation", refits)
    try:
        assert cli.main(["validate", "--holdout"]) == 130
    except KeyboardInterrupt:  # not pytest's own: it would end the session
        pytest.fail("Ctrl-C escaped cli.main, to end in a traceback")
    shown = stream.getvalue()
    assert "leave-one-table-out" in shown, shown
    assert shown.endswith(f"\r{ERASE_LINE}validate: interrupted\n"), shown


class SizedTerminal(Terminal):
    """A terminal whose size ``os.get_terminal_size`` tells (tqdm asks it for its file's)."""

    def fileno(self):
        return 2


def _screen(text, width):
    """The lines a terminal ``width`` columns wide shows once ``text`` is written to it: a
    character past the line's last column goes to the next line's first, a carriage return to
    the line's first column, and ERASE_LINE erases from the cursor to the line's end."""
    rows, row, col = [""], 0, 0
    for token in re.findall(re.escape(ERASE_LINE) + r"|[\s\S]", text):
        if token == "\n":
            row, col = row + 1, 0
        elif token == "\r":
            col = 0
        elif token != ERASE_LINE and col == width:  # wraps once a character follows
            row, col = row + 1, 0
        rows += [""] * (row + 1 - len(rows))
        if token == ERASE_LINE:
            rows[row] = rows[row][:col]
        elif token not in "\r\n":
            line = rows[row].ljust(col)
            rows[row] = line[:col] + token + line[col + 1 :]
            col += 1
    return [line.rstrip() for line in rows if line.strip()]


def test_a_ctrl_c_echoed_after_the_bar_leaves_no_bar_above_the_interrupted_line(monkeypatch):
    """The new-user audit's case: a terminal echoes Ctrl-C as ^C where the cursor is, after a bar
    as wide as the line; the echo wrapped to the next line, where the bar's clearing went, and the
    bar stayed drawn above the sweep's interrupted line."""
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=None: os.terminal_size((60, 20)))
    stream = SizedTerminal()
    monkeypatch.setattr(sys, "stderr", stream)
    bar = progress.counter(40, "sweep g40", "point")
    bar.update(3)
    stream.write("^C")  # the terminal's echo
    bar.close()
    stream.write("out: interrupted; 3 points finished now are kept (37 left)\n")
    shown = stream.getvalue()
    assert "sweep g40" in shown, shown
    assert _screen(shown, 60) == ["out: interrupted; 3 points finished now are kept (37 left)"]


def test_a_long_interval_counts_its_simulations_in_a_log(run_cli, monkeypatch):
    """The speed audit's case: predict of 10,000 streams ran its interval 25 to 110 s with
    nothing on standard error; its simulations are counted as the other long commands' work."""
    monkeypatch.setattr(progress, "time", Clock(31.0))
    status, _, err = run_cli("predict", "atlas_intellistation")
    assert status == 0 and "\r" not in err, err
    assert "atlas_intellistation: its 90 % interval: " in err and " simulations (" in err, err
    status, _, err = run_cli("predict", "atlas_intellistation", "--point")
    assert err == ""
