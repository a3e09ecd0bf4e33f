"""Errors the user can fix, reported as one line (file, key, what is allowed) with exit status 2."""

import re

# what a value, key or file name may hold that would break the one line or act on the terminal:
# every line break str.splitlines knows and every other control character (a NUL, a terminal's
# escape sequences: ESC[31m turned the rest of the line red), C0, DEL and C1; shown escaped
_LINE_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class UserError(Exception):
    """A mistake in the user's input: a scenario, a grid, a command-line value."""

    exit_status = 2

    def __init__(self, where: str, key: str | None, message: str):
        self.where, self.key, self.message = where, key, message
        super().__init__(self.line())

    def line(self) -> str:
        """The error as one line, whatever line breaks or control characters the user's text held
        (escaped: ``\\n``, ``\\x1b``)."""
        parts = [self.where] + ([self.key] if self.key else []) + [self.message]
        return one_line(": ".join(parts))


def one_line(text: str) -> str:
    """``text`` as one printable line: line breaks and control characters escaped."""
    return _LINE_BREAKS.sub(_escaped, text)


def _escaped(found: re.Match) -> str:
    return found.group().encode("unicode_escape").decode("ascii")


class NotModelled(Exception):
    """A configuration that no model of the lab covers yet; validation reports it as uncovered."""
