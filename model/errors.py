"""Errors the user can fix, reported as one line (file, key, what is allowed) with exit status 2."""

import math
import re
import shlex
from decimal import Decimal
from typing import Any

# what a value, key or file name may hold that would break the one line or act on the terminal:
# every line break str.splitlines knows and every other control character (a NUL, a terminal's
# escape sequences: ESC[31m turned the rest of the line red), C0, DEL and C1, and the bidi
# controls that reorder what follows on screen (U+202E turned 'evil' into 'live'); shown escaped
_LINE_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# a run of text with no space in it longer than this is shown as its head and tail: a hostile name
# (a key, a part or a value 200,000 characters long) made a 200 KB "one line" that buried the file,
# the key and what is allowed. 400 is five rows of an 80-column terminal, longer than any key path
# or part id and than the file paths people keep (a path under a deep temporary folder had passed
# 160); a list of allowed values is many runs, each short
_LONGEST_RUN = 400
_RUN_KEPT = 150  # characters kept at each end of a run shortened
# a run of the line as shown, its line breaks and control characters escaped (\n, \x01): measured
# so, 399 control characters had made a line of 1,606 (the review)
_RUN = re.compile(r"\S+")
INTERRUPTED_STATUS = 130  # 128 + SIGINT, as a shell reports a command Ctrl-C ended


class UserError(Exception):
    """A mistake in the user's input: a scenario, a grid, a command-line value."""

    exit_status = 2

    def __init__(
        self,
        where: str,
        key: str | None,
        message: str,
        *,
        related: tuple[str, ...] = (),
        overridden: str = "",
    ):
        # related: other keys whose values make the same mistake with key's (a card and the
        # segment it sits in), so that one an override set can be named instead (Scenario.relocated)
        self.where, self.key, self.message, self.related = where, key, message, related
        # overridden: the overrides that made the configuration refused where none of them is the
        # key at fault (``--set controllers={}`` leaving a shelf's uplink no card), said beside
        # ``where`` (Scenario.relocated)
        self.overridden = overridden
        super().__init__(self.line())

    def __reduce__(self):
        """Pickled (across a process or a cluster) and copied as what it was made of: its one line
        is not the arguments its class takes."""
        return (_rebuilt, (type(self), dict(self.__dict__)))

    def line(self) -> str:
        """The error as one line, whatever line breaks or control characters the user's text held
        (escaped: ``\\n``, ``\\x1b``), and however long a name in it (its head and tail kept:
        ``aaa…(199,700 characters)…zzz``)."""
        where = f"{self.where} (with {self.overridden})" if self.overridden else self.where
        parts = [where] + ([self.key] if self.key else []) + [self.message]
        return _RUN.sub(_shortened, one_line(": ".join(parts)))


def _rebuilt(cls: type, state: dict) -> UserError:
    """A ``UserError`` (or a subclass) unpickled or copied from its attributes."""
    error = cls.__new__(cls)
    error.__dict__.update(state)
    Exception.__init__(error, error.line())
    return error


class NamesAKey(UserError):
    """A refusal whose words name a key of the scenario it was made in, each subclass's
    ``_told(where, through)`` with that key behind ``through``: ``relocated`` tells it again as
    set through the key that names that scenario (``storage.volumes...``), its words too
    (``spec.relocated_through``)."""

    def relocated(self, where: str, ref: str) -> UserError:
        """The refusal as the user set the key, through ``ref`` at ``where``."""
        return UserError(where, f"{ref}.{self.key}", self._told(where, f"{ref}."))


class NoEntry(NamesAKey):
    """A key under an entry a mapping does not hold (``volumes.nosuch.level``): refused with the
    entries it holds and how a new one is set whole (an override on the command line, a key and
    its value in a file)."""

    def __init__(self, where: str, key: str, mapping: str, entry: str, held: list, form: str):
        self.mapping, self.entry, self.held, self.form = mapping, entry, held, form
        super().__init__(where, key, self._told(where, ""))

    def _told(self, where: str, through: str) -> str:
        key = f"{through}{self.mapping}.{self.entry}"
        whole = (  # on the command line an override; in a file (a grid, a variant) a key's value
            f"--set {shlex.quote(f'{key}={self.form}')}"
            if where == "--set"
            else f"the key {key} given {self.form}"
        )
        return (
            f"no entry {self.entry!r} under {through}{self.mapping}; allowed: "
            f"{', '.join(self.held) or 'none'}; a new one is set whole: {whole}"
        )


class HoldsValue(NamesAKey):
    """A key below one that holds a value, not keys (``volumes.lv.level`` where an override made
    ``volumes`` 3)."""

    def __init__(self, where: str, key: str, value_at: str):
        self.value_at = value_at
        super().__init__(where, key, self._told(where, ""))

    def _told(self, where: str, through: str) -> str:
        return f"{through}{self.value_at} holds a value, not keys"


def one_line(text: str) -> str:
    """``text`` as one printable line: line breaks and control characters escaped."""
    return _LINE_BREAKS.sub(_escaped, text)


def readable(value: Any) -> str:
    """A value the user gave, as a message shows it: as YAML writes it (true, false, null), text
    quoted, and a number as a person reads it, every digit kept (1e+12, not 1000000000000.0;
    1,000,000,000,000 for an integer; 5 for 5.0, which YAML's 5.0 and 5e0 both are)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e6:
        value = int(value)
    if isinstance(value, int):
        return f"{value:,}"
    if math.isfinite(value) and value != 0 and not 1e-4 <= abs(value) < 1e6:
        return format(Decimal(repr(value)).normalize(), "e")
    return repr(value)


def _shortened(found: re.Match) -> str:
    """A run of text longer than ``_LONGEST_RUN`` as its head and tail and how much is left out
    between them; a shorter one as it is."""
    run = found.group()
    if len(run) <= _LONGEST_RUN:
        return run
    left_out = len(run) - 2 * _RUN_KEPT
    return f"{run[:_RUN_KEPT]}…({left_out:,} characters)…{run[-_RUN_KEPT:]}"


def _escaped(found: re.Match) -> str:
    return found.group().encode("unicode_escape").decode("ascii")


class NotModelled(Exception):
    """A configuration that no model of the lab covers yet; validation reports it as uncovered."""
