"""Exercise checks for the course lessons (``notebooks/course/``).

An exercise cell sets ``answer_N = None``, then (in the instructors' lesson) overwrites it inside a
solution block, then calls :func:`check` against what the lab computes. The students' hand-out
(``model.handout``) removes the solution blocks, so there the answers stay ``None`` until written.
"""

from __future__ import annotations

import math

NOT_ANSWERED = "not answered yet"


def check(answer, expected, rel: float = 0.01) -> None:
    """An exercise's check: ``answer`` must match what the lab computes, within ``rel``.

    ``None`` (an answer not written yet) prints "not answered yet" and lets the lesson run on; a
    wrong answer stops the run with the value the lab expected.
    """
    if answer is None:
        print(NOT_ANSWERED)
        return
    if isinstance(expected, str) or rel == 0:
        assert answer == expected, f"{answer} is not {expected}"
    else:
        assert math.isclose(answer, expected, rel_tol=rel), f"{answer} is not {expected:.4g}"
    print(f"correct: {answer:.4g}" if isinstance(answer, float) else f"correct: {answer}")
