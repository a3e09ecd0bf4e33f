"""Speed of the lightpath model: ``simulate()`` of the 1 TB disk-to-disk scenario at 1 GB and 1 TB.

Bulk data move as flows, so the cost of a run follows the flows and their changes, not the bytes:
the two sizes should take about the same time. Run with ``python -m model.network.bench``.
"""

from __future__ import annotations

from .. import scenario
from ..bench import best_of
from ..params import calibrated
from ..simulate import simulate


def lightpath_timing(repeats: int = 50) -> dict[str, float]:
    """Best-of-``repeats`` seconds of simulate() for atlas_lightpath at 1 GB and at 1 TB (and the ratio)."""
    params = calibrated()
    out = {}
    for label, total_MB in (("1 GB", 1e3), ("1 TB", 1e6)):
        s = scenario.load("atlas_lightpath", [f"workload.total_MB={total_MB}"])
        simulate(s, params)  # warm the caches (catalog, storage scenarios)
        out[label] = best_of(lambda: simulate(s, params), repeats)
    out["ratio"] = out["1 TB"] / out["1 GB"]
    return out


def main() -> None:
    t = lightpath_timing()
    print("atlas_lightpath simulate(), disk to disk over the lightpath (best of 50 runs):")
    print(f"  1 GB  {t['1 GB'] * 1e3:7.2f} ms")
    print(f"  1 TB  {t['1 TB'] * 1e3:7.2f} ms")
    print(f"  ratio {t['ratio']:7.2f} x (flows, not packets: the bytes do not cost events)")


if __name__ == "__main__":
    main()
