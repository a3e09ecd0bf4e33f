"""``make bench``: speed figures (never pass/fail).

1. M/M/1 with 200,000 customers built from the project's Station beside the same model in raw
   SimPy, in the same run (customers per second and the ratio; target at least 0.7x SimPy).
2. ``simulate()`` time of every scenario and variant (best of several runs).
3. ``validate`` in all: every measured row predicted from a cold cache.
"""
from __future__ import annotations

import time

import simpy

from . import measured, paths, scenario, validate
from .errors import NotModelled
from .params import calibrated
from .sim.components import open_station
from .sim.rng import stream
from .simulate import simulate

CUSTOMERS = 200_000


def raw_simpy_mm1(seed: int, lam: float, mu: float, customers: int) -> float:
    """The same M/M/1 written directly against SimPy: returns the mean response time."""
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=1)
    gaps = stream(seed, "arrivals").exponential(1.0 / lam, customers).tolist()
    services = stream(seed, "service").exponential(1.0 / mu, customers).tolist()
    total = [0.0]

    def customer(service):
        arrived = env.now
        with server.request() as req:
            yield req
            yield env.timeout(service)
        total[0] += env.now - arrived

    def source():
        for gap, service in zip(gaps, services):
            yield env.timeout(gap)
            env.process(customer(service))

    env.process(source())
    env.run()
    return total[0] / customers


def _best_of(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ours = _best_of(lambda: open_station(1, 1.6, 2.0, 1, CUSTOMERS), 3)
    raw = _best_of(lambda: raw_simpy_mm1(1, 1.6, 2.0, CUSTOMERS), 3)
    print(f"M/M/1, {CUSTOMERS:,} customers at utilisation 0.8:")
    print(f"  project Station  {CUSTOMERS / ours:10,.0f} customers/s ({ours:.2f} s)")
    print(f"  raw SimPy        {CUSTOMERS / raw:10,.0f} customers/s ({raw:.2f} s)")
    print(f"  ratio            {raw / ours:10.2f} x SimPy's speed (target at least 0.70 x)")

    print("\nsimulate() per scenario (best of 20 runs):")
    params = calibrated()
    for path in sorted(paths.SCENARIOS.glob("*.yaml")):
        for variant in [None] + scenario.variants_of(path):
            s = scenario.load(path, [f"variant={variant}"] if variant else [])
            label = f"{path.stem}" + (f" [{variant}]" if variant else "")
            try:
                seconds = _best_of(lambda: simulate(s, params), 20)
            except NotModelled:
                print(f"  {label:44} not modelled yet")
                continue
            print(f"  {label:44} {seconds * 1e3:8.2f} ms")

    rows = [r for rs in measured.load_all().values() for r in rs]

    def validate_all():
        validate._scenario.cache_clear()
        validate._result.cache_clear()
        validate.predict_rows(rows, params)

    seconds = _best_of(validate_all, 3)
    print(f"\nvalidate in all: {len(rows)} measured rows in {seconds:.3f} s (cold caches, best of 3)")


if __name__ == "__main__":
    main()
