"""Availability of repairable units, alone or as a failover pair, as a continuous-time Markov chain.

Each unit fails after an exponential time of mean ``mttf_h`` (its mean time to failure, the mean
up time from a repair to the next failure) and is repaired in an exponential time of mean
``mttr_h`` by one of ``repair_crews``. A scenario gives the up time as ``reliability.mtbf_h``, the
figure data sheets call MTBF: strictly MTBF = MTTF + MTTR, a difference of one repair's hours
against a data sheet's tens of thousands. A pair serves while either unit is up; each failure
of the active unit while the standby is up costs one takeover (heartbeat detection plus taking over
the virtual address, ``takeover_s``) of outage, or less where the failed unit is repaired first
and serves again (the mean of the lesser of the two, never longer than a repair). Units that serve
together, of which some number must be up (the real servers that must carry a load), are up in the
states that many are (:func:`serving`, k out of n). The Penn State director of
``000_a6a829ac4238989d.txt`` is a single point of failure; the report plans a second one.

Sources: the chain is the standard birth-death model of repairable units with exponential failure
and repair times. Its rates are not from a measured table or a data sheet: ``mtbf_h``, ``mttr_h``,
``takeover_s`` and ``repair_crews`` are the scenario's ``reliability`` block
(``model.servers.spec.Reliability``), which in ``data/scenarios/psu_relay.yaml`` are planning
figures, marked as such there (50,000 h between failures, an 8 h repair, a 10 s takeover). No
measured table calibrates it: ``data/measured`` has no availability or outage row, the report
giving no such figure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

HOURS_PER_YEAR = 8766.0


@dataclass(frozen=True)
class Availability:
    """A service's availability over a year: its share up, its outages and their hours."""

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


def _chain(n: int, mttf_h: float, mttr_h: float, repair_crews: int) -> tuple[np.ndarray, float]:
    """The stationary distribution over k = 0..n units up, and each unit's failure rate (1/h).

    Failures leave state k at rate k / mttf_h; repairs at rate min(n - k, repair_crews) / mttr_h.
    """
    import numpy as np  # here, not at the top: loaded by the relay's notes alone

    lam, mu = 1.0 / mttf_h, 1.0 / mttr_h
    q = np.zeros((n + 1, n + 1))
    for k in range(n + 1):
        if k > 0:
            q[k, k - 1] = k * lam
        if k < n:
            q[k, k + 1] = min(n - k, repair_crews) * mu
        q[k, k] = -q[k].sum()
    return steady_state(q), lam


def _check(n: int, mttf_h: float, mttr_h: float, repair_crews: int, takeover_s: float) -> None:
    if n < 1 or repair_crews < 1 or mttf_h <= 0 or mttr_h <= 0 or takeover_s < 0:
        raise ValueError(
            "units: n, repair_crews, mttf_h and mttr_h must be positive, takeover_s not negative"
        )


def units(
    n: int, mttf_h: float, mttr_h: float, repair_crews: int = 1, takeover_s: float = 0.0
) -> Availability:
    """``n`` identical repairable units of which one suffices (n = 1: a single point of failure).

    State k is the number of units up (:func:`_chain`).
    """
    _check(n, mttf_h, mttr_h, repair_crews, takeover_s)
    pi, lam = _chain(n, mttf_h, mttr_h, repair_crews)
    down_share = pi[0]
    # entries into the all-down state, and takeovers: the active unit failing while another is up
    all_down_per_h = pi[1] * lam
    # with no takeover time (units that all serve at once) a failure among others up is no outage
    takeovers_per_h = sum(pi[k] * lam for k in range(2, n + 1)) if takeover_s > 0 else 0.0
    # a takeover's outage ends when the standby has the address, or when the failed unit, repaired
    # first (an exponential time of mean mttr_h), serves again: the mean of the lesser of the two,
    # mttr_h (1 - exp(-takeover / mttr_h)), the takeover itself where it is short against a repair
    takeover_h = -mttr_h * math.expm1(-takeover_s / 3600.0 / mttr_h)
    availability = 1.0 - down_share - takeovers_per_h * takeover_h
    outages = (all_down_per_h + takeovers_per_h) * HOURS_PER_YEAR
    return Availability(availability, outages, (1.0 - availability) * HOURS_PER_YEAR)


def serving(
    n: int, up: Sequence[bool], mttf_h: float, mttr_h: float, repair_crews: int = 1
) -> Availability:
    """``n`` identical repairable units that all serve at once, the service up in the states
    ``up[k]`` marks (k = 0..n units up): with ``up[k]`` true from k = m on, m of n needed (a
    k-out-of-n system), e.g. the units alive must carry the offered load.

    The same chain as :func:`units` (with ``up`` true from 1 on and no takeover, the same figures);
    an outage is a step of the chain from a state that serves into one that does not.
    """
    _check(n, mttf_h, mttr_h, repair_crews, 0.0)
    if len(up) != n + 1:
        raise ValueError(f"serving: up must mark each of the {n + 1} states 0..{n} units up")
    pi, lam = _chain(n, mttf_h, mttr_h, repair_crews)
    pi = pi.clip(0.0, 1.0)  # the solver's rounding leaves a share of about -1e-17 in rare states
    mu = 1.0 / mttr_h
    availability = min(1.0, float(sum(p for p, ok in zip(pi, up, strict=True) if ok)))
    outages_per_h = 0.0
    for k in range(n + 1):
        if not up[k]:
            continue
        if k > 0 and not up[k - 1]:  # a failure ends the service
            outages_per_h += pi[k] * k * lam
        if k < n and not up[k + 1]:  # a repair ends it (more units than the service bears)
            outages_per_h += pi[k] * min(n - k, repair_crews) * mu
    return Availability(
        availability, outages_per_h * HOURS_PER_YEAR, (1.0 - availability) * HOURS_PER_YEAR
    )
