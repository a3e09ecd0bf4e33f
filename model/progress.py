"""Progress of the long commands on standard error: ``calibrate`` (about two minutes) and
``validate --holdout`` refit the free parameters once per configuration and per table left out.

A bar is drawn only where standard error is a terminal (tqdm's ``disable=None``): a log, a pipe or
a test's captured stream gets the result alone, as before.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TypeVar

from tqdm import tqdm

T = TypeVar("T")


def steps(items: Iterable[T], what: str, unit: str) -> Iterable[T]:
    """``items``, with a bar named ``what`` counting them in ``unit`` while they are worked on."""
    return tqdm(
        items, desc=what, unit=unit, file=sys.stderr, disable=None, leave=False, dynamic_ncols=True
    )
