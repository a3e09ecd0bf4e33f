"""A small component base on SimPy: the queueing station the course's queues and the LVS tests
simulate, and the FIFO server of the relay's real servers.

Processes are plain generator functions taking ``env``; a stateful part is a small class holding
``env`` and its resources (the SimPy style). A :class:`Station` is a FCFS queue with ``servers``
identical servers; it keeps the busy time and the count of completions so that utilisation,
throughput and mean response time follow from the operational laws. Checked against M/M/1 and
M/M/c theory in ``tests/test_queueing.py``. A :class:`FifoServer` is one such server whose visits'
service times are known when they arrive: their ends follow from Lindley's recurrence, without a
process per visit (the relay's stations).
"""

from __future__ import annotations

import simpy


class Component:
    """A named part of a model living in one SimPy environment."""

    def __init__(self, env: simpy.Environment, name: str):
        self.env = env
        self.name = name

    def utilization(self, elapsed_s: float) -> float:  # pragma: no cover - every subclass overrides
        raise NotImplementedError


class Station(Component):
    """``servers`` identical servers in front of one FCFS queue."""

    def __init__(self, env: simpy.Environment, name: str, servers: int = 1):
        super().__init__(env, name)
        if servers < 1:
            raise ValueError(f"station {name}: servers must be a positive integer, got {servers}")
        self.servers = servers
        self._resource = simpy.Resource(env, capacity=servers)
        self.busy_s = 0.0
        self.completions = 0
        self.response_s_total = 0.0
        self.elapsed_s = 0.0

    def serve(self, service_s: float):
        """Process: wait for a server, hold it ``service_s`` seconds, record the visit."""
        arrived = self.env.now
        with self._resource.request() as request:
            yield request
            yield self.env.timeout(service_s)
        self.busy_s += service_s
        self.completions += 1
        self.response_s_total += self.env.now - arrived

    def utilization(self, elapsed_s: float) -> float:
        return self.busy_s / (self.servers * elapsed_s) if elapsed_s > 0 else 0.0

    @property
    def mean_response_s(self) -> float:
        return self.response_s_total / self.completions if self.completions else float("nan")


class FifoServer:
    """One server, first come first served, whose service times are known when a visit arrives:
    each visit's end is Lindley's recurrence (it starts when it arrives or when the visit before
    it ends, whichever is later), so a model need not run a process, a request and a timeout per
    visit. The same times as a :class:`Station` of one server fed in the same order
    (``tests/test_relay.py`` checks it), at a fraction of the events."""

    def __init__(self, name: str):
        self.name = name
        self.free_s = 0.0  # when the last visit so far ends
        self.busy_s = 0.0

    def visit(self, now_s: float, service_s: float) -> float:
        """Queue a visit arriving at ``now_s``; returns when it ends."""
        start = now_s if now_s > self.free_s else self.free_s
        self.free_s = start + service_s
        self.busy_s += service_s
        return self.free_s


def poisson_source(env: simpy.Environment, station: Station, inter_arrival_s, service_s):
    """Process: one customer per entry of ``inter_arrival_s``, served once at ``station``."""
    for gap, service in zip(inter_arrival_s, service_s, strict=True):
        yield env.timeout(gap)
        env.process(station.serve(service))


def open_station(
    seed: int,
    arrival_rate_per_s: float,
    service_rate_per_s: float,
    servers: int,
    customers: int,
    service: str = "exponential",
) -> Station:
    """Run ``customers`` Poisson arrivals through one station (M/M/c, or M/D/c when
    ``service="deterministic"``) and return the station with its statistics."""
    from .rng import stream

    env = simpy.Environment()
    station = Station(env, "station", servers)
    gaps = stream(seed, "arrivals").exponential(1.0 / arrival_rate_per_s, customers)
    if service == "exponential":
        times = stream(seed, "service").exponential(1.0 / service_rate_per_s, customers)
    elif service == "deterministic":
        times = [1.0 / service_rate_per_s] * customers
    else:
        raise ValueError(f"service must be exponential or deterministic, got {service!r}")
    env.process(poisson_source(env, station, gaps.tolist(), list(times)))
    env.run()
    station.elapsed_s = env.now
    return station
