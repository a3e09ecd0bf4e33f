"""Exercise checks for the course notebooks (``notebooks/course/``)."""

from __future__ import annotations

import math


def check(answer, expected, rel: float = 0.01) -> None:
    """An exercise's check: ``answer`` must match what the lab computes, within ``rel``.

    With the notebook's ``solutions`` parameter off, answers are ``None`` until the student writes
    them, and the check says so.
    """
    assert answer is not None, "fill in your answer"
    if isinstance(expected, str) or rel == 0:
        assert answer == expected, f"{answer} is not {expected}"
    else:
        assert math.isclose(answer, expected, rel_tol=rel), f"{answer} is not {expected:.4g}"
    print(f"correct: {answer:.4g}" if isinstance(answer, float) else f"correct: {answer}")
