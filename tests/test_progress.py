"""The long commands show their progress on a terminal and nothing elsewhere (model.progress)."""

import io
import sys

from model import calibrate, holdout, measured


class Terminal(io.StringIO):
    def isatty(self):
        return True


def _refits(monkeypatch, stream):
    monkeypatch.setattr(sys, "stderr", stream)
    tables = measured.load_all()
    rows = tables["psu_copy"] + tables["atlas_hosts"]
    holdout.leave_one_table_out(rows, calibrate.fit(rows).values)
    return stream.getvalue()


def test_a_terminal_sees_the_refits_counted(monkeypatch):
    # calibrate ran about two minutes with nothing on the screen
    shown = _refits(monkeypatch, Terminal())
    assert "leave-one-table-out" in shown and "refit" in shown, shown


def test_a_log_or_a_pipe_gets_no_bar(monkeypatch):
    assert _refits(monkeypatch, io.StringIO()) == ""
