"""Availability of repairable units, alone or as a failover pair, as a continuous-time Markov chain.

Each unit fails after an exponential time of mean ``mtbf_h`` and is repaired in an exponential time
of mean ``mttr_h`` by one of ``repair_crews``. A pair serves while either unit is up; each failure
of the active unit while the standby is up costs one takeover (heartbeat detection plus taking over
the virtual address, ``takeover_s``) of outage. The Penn State director of
``000_a6a829ac4238989d.txt`` is a single point of failure; the report plans a second one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

HOURS_PER_YEAR = 8766.0


@dataclass(frozen=True)
class Availability:
    availability: float  # share of time the service is up
    outages_per_year: float
    downtime_h_per_year: float

    @property
    def mean_outage_h(self) -> float:
        return self.downtime_h_per_year / self.outages_per_year if self.outages_per_year else 0.0


def steady_state(generator: np.ndarray) -> np.ndarray:
    """The stationary distribution pi of a CTMC generator Q (pi Q = 0, sum pi = 1)."""
    import numpy as np  # here, not at the top: loaded by the relay's notes alone

    n = generator.shape[0]
    a = np.vstack([generator.T, np.ones(n)])
    b = np.zeros(n + 1)
    b[-1] = 1.0
    return np.linalg.lstsq(a, b, rcond=None)[0]


def units(
    n: int, mtbf_h: float, mttr_h: float, repair_crews: int = 1, takeover_s: float = 0.0
) -> Availability:
    """``n`` identical repairable units of which one suffices (n = 1: a single point of failure).

    State k is the number of units up. Failures leave state k at rate k / mtbf_h; repairs at rate
    min(n - k, repair_crews) / mttr_h.
    """
    if n < 1 or repair_crews < 1 or mtbf_h <= 0 or mttr_h <= 0 or takeover_s < 0:
        raise ValueError(
            "units: n, repair_crews, mtbf_h and mttr_h must be positive, takeover_s not negative"
        )
    import numpy as np

    lam, mu = 1.0 / mtbf_h, 1.0 / mttr_h
    q = np.zeros((n + 1, n + 1))
    for k in range(n + 1):
        if k > 0:
            q[k, k - 1] = k * lam
        if k < n:
            q[k, k + 1] = min(n - k, repair_crews) * mu
        q[k, k] = -q[k].sum()
    pi = steady_state(q)
    down_share = pi[0]
    # entries into the all-down state, and takeovers: the active unit failing while another is up
    all_down_per_h = pi[1] * lam
    # with no takeover time (units that all serve at once) a failure among others up is no outage
    takeovers_per_h = sum(pi[k] * lam for k in range(2, n + 1)) if takeover_s > 0 else 0.0
    takeover_h = takeover_s / 3600.0
    availability = 1.0 - down_share - takeovers_per_h * takeover_h
    outages = (all_down_per_h + takeovers_per_h) * HOURS_PER_YEAR
    return Availability(availability, outages, (1.0 - availability) * HOURS_PER_YEAR)
