"""Progress of the long commands on standard error: ``calibrate`` (about two minutes) and
``validate --holdout`` (about two and a half) fit the free parameters once on every row, then
refit them once per configuration, per table and per report of several tables left out;
``sweep`` runs its points; ``predict`` runs its interval's simulations (seconds, or minutes for a
what-if of thousands of streams).

Where standard error is a terminal, a bar redrawn in place (tqdm) that goes when the work is done.
Anywhere else (a log, a pipe, a batch job's output file, a test's captured stream) the carriage
returns of a bar would pile up, so the progress comes as plain lines, at a modest rate: one when
another tenth of the work is done, at most one every ``LINE_EVERY_S``. A run shorter than that
writes none: the result alone, as before.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Collection, Iterable, Iterator
from typing import TypeVar

from tqdm import tqdm

T = TypeVar("T")
LINE_EVERY_S = 30.0  # the least time between two plain lines of progress


def _duration(seconds: float) -> str:
    """``seconds`` as a person reads a wait: 45 s, 3 min 05 s, 2 h 07 min."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


class _Lines:
    """Progress as plain lines (see the module's docstring): ``update`` counts work done. With
    ``heartbeat_s``, a line also comes when that long has passed since the last one and no tenth
    was done (a sweep whose points run long, or one that hangs, says it is still running: the
    sweep audit saw 86 s without a word)."""

    def __init__(self, total: int, what: str, unit: str, heartbeat_s: float | None = None) -> None:
        self.total, self.what, self.unit = total, what, unit
        self.done = 0
        self.started = self.last_line = time.monotonic()
        self.tenths_shown = 0
        self.said = ""  # what ``note`` last said, after the count
        self.lock = threading.Lock()
        self.closed = threading.Event()
        if heartbeat_s is not None:
            threading.Thread(target=self._beat, args=(heartbeat_s,), daemon=True).start()

    def update(self, n: int = 1) -> None:
        with self.lock:
            self.done += n
            now = time.monotonic()
            tenths = 10 * self.done // self.total if self.total else 0
            if tenths > self.tenths_shown and now - self.last_line >= LINE_EVERY_S:
                self.tenths_shown = tenths
                self._line(now)

    def note(self, text: str) -> None:
        """``text`` after the count on each line from now on (a cluster's workers: "2 workers")."""
        with self.lock:
            self.said = text

    def _beat(self, every_s: float) -> None:
        while not self.closed.wait(every_s / 4):
            with self.lock:
                now = time.monotonic()
                if now - self.last_line >= every_s and not self.closed.is_set():
                    self._line(now, still=True)

    def _line(self, now: float, still: bool = False) -> None:
        self.last_line = now
        units = self.unit if self.total == 1 else f"{self.unit}s"
        print(
            f"{self.what}: {'still running, ' if still else ''}{self.done:,} of {self.total:,} "
            f"{units} ({100 * self.done / self.total:.0f} %) after {_duration(now - self.started)}"
            + (f", {self.said}" if self.said else ""),
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        """Nothing left to show: the command's own lines follow."""
        self.closed.set()


CTRL_C_ECHO = "^C"  # what a terminal shows where the cursor is at a Ctrl-C
ERASE_LINE = "\x1b[K"  # ANSI's erase in line, from the cursor (at the line's start once cleared)


class _Bar(tqdm):
    """tqdm's bar, with room after it for the ``^C`` a terminal echoes at a Ctrl-C, and cleared with
    it: after a bar as wide as the line the echo wrapped to the next, where the bar's clearing
    went, and the bar stayed drawn above the command's interrupted line (the new-user audit)."""

    def note(self, text: str) -> None:
        """``text`` after the count (a cluster's workers: "2 workers")."""
        self.set_postfix_str(text)

    @property
    def format_dict(self):
        shown = super().format_dict
        if shown["ncols"]:
            shown["ncols"] -= len(CTRL_C_ECHO)
        return shown

    def close(self) -> None:
        if not self.disable:  # once (tqdm closes a bar again as it is collected)
            super().close()
            self.fp.write(ERASE_LINE)  # what the terminal echoed after the bar, on its line


class _Silent:
    """No progress shown (a caller that asked for none: a test, a notebook, the benchmark)."""

    def update(self, n: int = 1) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


def counter(
    total: int,
    what: str | None,
    unit: str,
    bar_after_s: float = 0.0,
    heartbeat_s: float | None = None,
):
    """A count of ``total`` ``unit``s of the work ``what`` on standard error: ``update(n)`` as they
    are done, ``note(text)`` to say ``text`` after the count from then on, ``close()`` at the end;
    a bar on a terminal (drawn once the work has taken ``bar_after_s``: a quick one draws none),
    plain lines elsewhere (with ``heartbeat_s``, one at least that often while work runs), nothing
    when ``what`` is None."""
    if what is None:
        return _Silent()
    if sys.stderr.isatty():
        return _Bar(
            total=total,
            desc=what,
            unit=unit,
            file=sys.stderr,
            leave=False,
            dynamic_ncols=True,
            delay=bar_after_s,
        )
    return _Lines(total, what, unit, heartbeat_s)


def steps(items: Collection[T], what: str | None, unit: str) -> Iterable[T]:
    """``items``, counted in ``unit`` as the work named ``what`` goes through them (``counter``);
    ``items`` alone when ``what`` is None."""
    if what is None:
        return items
    return _counted(items, counter(len(items), what, unit))


def _counted(items: Collection[T], count) -> Iterator[T]:
    try:
        for item in items:
            yield item
            count.update(1)
    finally:
        count.close()
