"""The engine against queueing theory: M/M/1, M/M/c and M/D/1 built from the project's Station.

Each case runs independent replications (named random streams, one seed each) and checks that the
theoretical mean response time lies inside the replications' 99% confidence interval.
"""

import math

import numpy as np
import pytest
from scipy import stats

from model.sim.components import open_station

REPLICATIONS, CUSTOMERS = 10, 20_000


def erlang_c(servers: int, offered: float) -> float:
    """Probability that an arrival waits in M/M/c (offered load a = lambda / mu)."""
    rho = offered / servers
    top = offered**servers / math.factorial(servers) / (1 - rho)
    return top / (sum(offered**k / math.factorial(k) for k in range(servers)) + top)


def mean_response_theory(model: str, lam: float, mu: float, servers: int) -> float:
    if model == "M/M/c":
        return erlang_c(servers, lam / mu) / (servers * mu - lam) + 1 / mu
    rho = lam / mu  # M/D/1, Pollaczek-Khinchine
    return 1 / mu + rho / (2 * mu * (1 - rho))


def replications(model, lam, mu, servers):
    service = "deterministic" if model == "M/D/1" else "exponential"
    runs = [
        open_station(seed, lam, mu, servers, CUSTOMERS, service) for seed in range(REPLICATIONS)
    ]
    return np.array([s.mean_response_s for s in runs]), np.array(
        [s.utilization(s.elapsed_s) for s in runs]
    )


@pytest.mark.parametrize("model,servers", [("M/M/c", 1), ("M/M/c", 3), ("M/D/1", 1)])
@pytest.mark.parametrize("rho", [0.3, 0.6, 0.9])
def test_mean_response_inside_99pct_interval(model, servers, rho):
    mu = 2.0
    lam = rho * servers * mu
    means, utils = replications(model, lam, mu, servers)
    half = stats.t.ppf(0.995, REPLICATIONS - 1) * means.std(ddof=1) / math.sqrt(REPLICATIONS)
    theory = mean_response_theory(model, lam, mu, servers)
    assert abs(means.mean() - theory) <= half, (means.mean(), theory, half)
    # the utilisation law: U = lambda / (c mu), within 2 %
    assert utils.mean() == pytest.approx(rho, rel=0.02)


def test_same_seed_same_numbers():
    a = open_station(7, 1.0, 2.0, 1, 5000)
    b = open_station(7, 1.0, 2.0, 1, 5000)
    c = open_station(8, 1.0, 2.0, 1, 5000)
    assert a.mean_response_s == b.mean_response_s
    assert a.mean_response_s != c.mean_response_s
