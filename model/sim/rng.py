"""Named random streams spawned from one seed, so that a run is the same serial or parallel."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# streams made in this process: a run that made none did not depend on its seed (model.uncertainty
# then needs no other seed to measure the simulation's noise)
made = 0


def stream(seed: int, name: str) -> np.random.Generator:
    """The generator named ``name`` of the run seeded ``seed``; independent of other names."""
    import numpy as np  # here, not at the top: a run that draws nothing never loads numpy

    global made
    made += 1
    return np.random.Generator(
        np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(zlib.crc32(name.encode()),)))
    )
