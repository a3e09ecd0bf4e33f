"""Named random streams spawned from one seed, so that a run is the same serial or parallel."""

from __future__ import annotations

import zlib

import numpy as np


def stream(seed: int, name: str) -> np.random.Generator:
    """The generator named ``name`` of the run seeded ``seed``; independent of other names."""
    return np.random.Generator(
        np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(zlib.crc32(name.encode()),)))
    )
