"""Errors the user can fix, reported as one line (file, key, what is allowed) with exit status 2."""

import re

# what str.splitlines breaks a line at: a value, key or file name holding one is shown escaped
_LINE_BREAKS = re.compile("[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


class UserError(Exception):
    """A mistake in the user's input: a scenario, a grid, a command-line value."""

    exit_status = 2

    def __init__(self, where: str, key: str | None, message: str):
        self.where, self.key, self.message = where, key, message
        super().__init__(self.line())

    def line(self) -> str:
        """The error as one line, whatever line breaks the user's text held (escaped: ``\\n``)."""
        parts = [self.where] + ([self.key] if self.key else []) + [self.message]
        return _LINE_BREAKS.sub(_escaped, ": ".join(parts))


def _escaped(found: re.Match) -> str:
    return found.group().encode("unicode_escape").decode("ascii")


class NotModelled(Exception):
    """A configuration that no model of the lab covers yet; validation reports it as uncovered."""
