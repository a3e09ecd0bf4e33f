"""Bulk data as flows: max-min fair sharing of resources among the active flows, on SimPy.

A *resource* has a capacity in its own unit per second (bytes/s for a bus or a link, cycles/s for
a CPU core, busy-seconds/s for a disk arm). A *flow* moves ``size_B`` bytes and uses each resource
it crosses at ``coefficient`` units per byte: a RAID0 stream over n disks uses each member at 1/n,
a mirrored write uses each member at 1, a CPU at its cycles per byte. Rates are the weighted
max-min fair allocation (progressive filling, as SimGrid's LMM solver does), recomputed whenever a
flow starts or ends, so a terabyte costs events in proportion to those changes, not to its bytes.

Calibrated on nothing itself: it is the primitive the storage and network models build on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import simpy

_EPS = 1e-12


@dataclass(eq=False)
class FlowResource:
    """A shared capacity (``capacity`` units/s) that flows use in proportion to their rate."""

    name: str
    capacity: float
    unit: str = "B"
    load: float = 0.0  # units/s in use under the current allocation
    carried: float = 0.0  # units moved so far (the integral of load)

    def __post_init__(self) -> None:
        if not self.capacity > 0:
            raise ValueError(
                f"resource {self.name}: capacity must be positive, got {self.capacity}"
            )


@dataclass(eq=False)
class Flow:
    """``size_B`` bytes crossing ``usage`` (resource -> units per byte), at most ``max_rate_Bps``."""

    name: str
    size_B: float
    usage: dict[FlowResource, float]
    max_rate_Bps: float
    done: simpy.Event
    remaining_B: float = field(init=False)
    rate_Bps: float = 0.0
    started_s: float = 0.0
    finished_s: float | None = None

    def __post_init__(self) -> None:
        self.remaining_B = self.size_B


def max_min_rates(flows: list[Flow]) -> dict[Flow, float]:
    """Weighted max-min fair rates (bytes/s) of ``flows`` by progressive filling.

    All unfrozen flows rise at one common rate; a resource that fills freezes every flow crossing
    it, and a flow that reaches its own ``max_rate_Bps`` freezes alone.
    """
    rates = {f: 0.0 for f in flows}
    spare = {}
    for f in flows:
        for r in f.usage:
            spare[r] = r.capacity
    unfrozen = [f for f in flows if f.remaining_B > 0]
    if len(spare) == 1 and all(math.isinf(f.max_rate_Bps) for f in unfrozen):
        # one shared resource and no caps: every flow rises to the level that fills it
        (resource,) = spare
        level = resource.capacity / sum(f.usage[resource] for f in unfrozen) if unfrozen else 0.0
        for f in unfrozen:
            rates[f] = level
        return rates
    level = 0.0
    while unfrozen:
        weight: dict[FlowResource, float] = {}
        for f in unfrozen:
            for r, a in f.usage.items():
                weight[r] = weight.get(r, 0.0) + a
        step = math.inf
        for r, w in weight.items():
            if w > 0:
                step = min(step, spare[r] / w)
        for f in unfrozen:
            step = min(step, f.max_rate_Bps - level)
        if math.isinf(step):
            raise ValueError(
                f"flow {unfrozen[0].name} crosses no limited resource and has no rate cap"
            )
        step = max(step, 0.0)
        level += step
        full = set()
        for r, w in weight.items():
            spare[r] -= step * w
            if spare[r] <= _EPS * r.capacity:
                full.add(r)
        still = []
        for f in unfrozen:
            if f.max_rate_Bps - level <= _EPS * max(level, 1.0) or any(r in full for r in f.usage):
                rates[f] = level
            else:
                still.append(f)
        unfrozen = still
    return rates


class FlowNetwork:
    """The set of resources and active flows of one simulation, driven by a SimPy environment."""

    def __init__(self, env: simpy.Environment):
        self.env = env
        self.resources: dict[str, FlowResource] = {}
        self.active: list[Flow] = []
        self._updated_s = env.now
        self._generation = 0

    def resource(self, name: str, capacity: float, unit: str = "B") -> FlowResource:
        """Declare a resource; names are unique within the network."""
        if name in self.resources:
            raise ValueError(f"resource {name} declared twice")
        res = FlowResource(name, float(capacity), unit)
        self.resources[name] = res
        return res

    def transfer(
        self,
        size_B: float,
        usage: dict[FlowResource, float],
        *,
        name: str = "flow",
        max_rate_Bps: float = math.inf,
    ) -> Flow:
        """Start a flow now; ``flow.done`` succeeds (with the flow) when its last byte has moved."""
        return self.transfers([(size_B, usage, name, max_rate_Bps)])[0]

    def transfers(
        self, specs: list[tuple[float, dict[FlowResource, float], str, float]]
    ) -> list[Flow]:
        """Start several flows now, each (size_B, usage, name, max_rate_Bps), sharing out the
        resources once for all of them rather than once per flow."""
        self._advance()
        started = []
        for size_B, usage, name, max_rate_Bps in specs:
            if not size_B > 0:
                raise ValueError(f"flow {name}: size must be positive, got {size_B}")
            flow = Flow(
                name,
                float(size_B),
                {r: float(a) for r, a in usage.items() if a > 0},
                float(max_rate_Bps),
                self.env.event(),
            )
            flow.started_s = self.env.now
            self.active.append(flow)
            started.append(flow)
        self._reallocate()
        return started

    def _advance(self) -> None:
        """Move every active flow forward to the current time at its current rate."""
        dt = self.env.now - self._updated_s
        if dt > 0:
            for f in self.active:
                f.remaining_B -= f.rate_Bps * dt
            for r in self.resources.values():
                r.carried += r.load * dt
        self._updated_s = self.env.now

    def _reallocate(self) -> None:
        rates = max_min_rates(self.active)
        for r in self.resources.values():
            r.load = 0.0
        for f in self.active:
            f.rate_Bps = rates[f]
            for r, a in f.usage.items():
                r.load += a * f.rate_Bps
        self._generation += 1
        horizon = min(
            (f.remaining_B / f.rate_Bps for f in self.active if f.rate_Bps > 0), default=None
        )
        if horizon is not None:
            generation = self._generation
            wake = self.env.timeout(max(horizon, 0.0))
            wake.callbacks.append(lambda _event: self._on_wake(generation))

    def _on_wake(self, generation: int) -> None:
        if generation != self._generation:
            return  # a newer allocation superseded this wake-up
        self._advance()
        finished = [f for f in self.active if f.remaining_B <= _EPS * f.size_B + f.rate_Bps * 1e-12]
        for f in finished:
            f.remaining_B = 0.0
            f.finished_s = self.env.now
            self.active.remove(f)
        self._reallocate()
        for f in finished:
            f.done.succeed(f)

    def utilization(self, elapsed_s: float) -> dict[str, float]:
        """Time-averaged share of each resource's capacity used over ``elapsed_s`` seconds."""
        self._advance()
        if elapsed_s <= 0:
            return {name: 0.0 for name in self.resources}
        return {
            name: min(1.0, r.carried / (r.capacity * elapsed_s))
            for name, r in self.resources.items()
        }
