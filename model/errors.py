"""Errors the user can fix, reported as one line (file, key, what is allowed) with exit status 2."""


class UserError(Exception):
    """A mistake in the user's input: a scenario, a grid, a command-line value."""

    exit_status = 2

    def __init__(self, where: str, key: str | None, message: str):
        self.where, self.key, self.message = where, key, message
        super().__init__(self.line())

    def line(self) -> str:
        parts = [self.where] + ([self.key] if self.key else []) + [self.message]
        return ": ".join(parts)


class NotModelled(Exception):
    """A configuration that no model of the lab covers yet; validation reports it as uncovered."""
