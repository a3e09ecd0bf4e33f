"""Bulk data as flows: max-min fair sharing of resources among the active flows, on SimPy.

A *resource* has a capacity in its own unit per second (bytes/s for a bus or a link, cycles/s for
a CPU core, busy-seconds/s for a disk arm). A *flow* moves ``size_B`` bytes and uses each resource
it crosses at ``coefficient`` units per byte: a RAID0 stream over n disks uses each member at 1/n,
a mirrored write uses each member at 1, a CPU at its cycles per byte. Rates are the weighted
max-min fair allocation (progressive filling, as SimGrid's LMM solver does), so a terabyte costs
events in proportion to the flows' starts and ends, not to its bytes.

The work of a start or an end is in proportion to what it touches, as in SimGrid's lazy solver:
only the connected component of the changed flows (the flows that share a resource with them, and
so on) is shared out again, the fill levels at which resources saturate are kept in a heap, and a
flow's remaining bytes and a resource's carried units are brought up to date only when its rate
changes (their values in between are read off the clock). Flows started at one instant are shared
out once for all of them, after the events already due at that instant (or when a rate, load,
carried amount or remaining amount is read first): a thousand clients starting a read at once cost
one sharing of their thousand flows, not a thousand (no time passes between, so the rates are those
of sharing after each start).

Calibrated on nothing itself: it is the primitive the storage and network models build on.
"""

from __future__ import annotations

import heapq
import itertools
import math
import operator

import simpy

_EPS = 1e-12
_started = operator.attrgetter("_order")


# the units of resources of a processor's time (a core's, a process's, a RAID card's processor's,
# md's raid5d's: core-s) and of a server's threads (thread-s): the bound they set is the model's
# estimate of the work; a drive's own time (a mirror copy's, "s") is rated
WORK_UNITS = ("core-s", "thread-s")


class FlowResource:
    """A shared capacity (``capacity`` units/s) that flows use in proportion to their rate.

    ``load`` is the units/s in use under the current allocation, ``carried`` the units moved so
    far (the integral of load up to the network's last event); reading either shares out first the
    flows started at this instant (``FlowNetwork.settle``). ``label`` is what a planner reads for
    it, shared by the resources alike (each drive of a volume: "drives of volume data"); None
    where its name says it.
    """

    __slots__ = (
        "name",
        "label",
        "capacity",
        "unit",
        "rated_capacity",
        "_load",
        "flows",
        "_carried",
        "_since_s",
        "_net",
    )

    def __init__(
        self,
        name: str,
        capacity: float,
        unit: str,
        net: FlowNetwork,
        rated_capacity: float | None = None,
        label: str | None = None,
    ):
        if not capacity > 0:
            raise ValueError(f"resource {name}: capacity must be positive, got {capacity}")
        self.name, self.capacity, self.unit, self.label = name, capacity, unit, label
        # what its rated parts alone would allow (``rated``): its capacity, none for CPU work,
        # more where the capacity counts CPU work beside rated parts (a stream's requests in
        # flight, each a drive's time and the host's)
        if rated_capacity is None and unit not in WORK_UNITS:
            rated_capacity = capacity
        if rated_capacity is not None and not rated_capacity >= capacity:
            raise ValueError(
                f"resource {name}: rated capacity must be at least its capacity {capacity}, "
                f"got {rated_capacity}"
            )
        self.rated_capacity = rated_capacity
        self._load = 0.0
        self.flows: dict[Flow, float] = {}  # the active flows crossing it -> units per byte
        self._carried = 0.0
        self._since_s = net.env.now
        self._net = net

    @property
    def load(self) -> float:
        self._net.settle()
        return self._load

    @property
    def carried(self) -> float:
        self._net.settle()  # first: a share-out moves the units so far into _carried
        return self._carried + self._load * (self._net.updated_s - self._since_s)

    def _set_load(self, now_s: float, load: float) -> None:
        self._carried += self._load * (now_s - self._since_s)
        self._since_s = now_s
        self._load = load

    @property
    def rated(self) -> bool:
        """Whether it has a rated capacity (a link's, a bus's, a drive's, memory's;
        ``rated_capacity``), not only CPU time the model spends on estimated work (a core's, a
        thread's: ``WORK_UNITS``)."""
        return self.rated_capacity is not None

    def __repr__(self) -> str:
        return f"FlowResource({self.name!r}, {self.capacity} {self.unit}/s)"


class Flow:
    """``size_B`` bytes crossing ``usage`` (resource -> units per byte), at ``max_rate_Bps`` at
    most; ``rate_Bps`` is its rate under the current allocation (read after the flows started at
    this instant are shared out, ``FlowNetwork.settle``)."""

    __slots__ = (
        "name",
        "size_B",
        "usage",
        "max_rate_Bps",
        "done",
        "_rate",
        "started_s",
        "finished_s",
        "_remaining_B",
        "_since_s",
        "_net",
        "_order",
        "_version",
    )

    def __init__(
        self,
        name: str,
        size_B: float,
        usage: dict[FlowResource, float],
        max_rate_Bps: float,
        done: simpy.Event,
        net: FlowNetwork | None = None,
        order: int = 0,
    ):
        self.name, self.size_B, self.usage = name, size_B, usage
        self.max_rate_Bps, self.done = max_rate_Bps, done
        self._rate = 0.0
        self.started_s = self._since_s = 0.0 if net is None else net.env.now
        self.finished_s: float | None = None
        self._remaining_B = size_B
        self._net, self._order, self._version = net, order, 0

    @property
    def rate_Bps(self) -> float:
        if self._net is not None:
            self._net.settle()
        return self._rate

    @property
    def remaining_B(self) -> float:
        """Bytes still to move, as of the network's last event."""
        if self._net is None or self.finished_s is not None:
            return self._remaining_B
        self._net.settle()  # first: a share-out moves the bytes so far into _remaining_B
        return self._remaining_B - self._rate * (self._net.updated_s - self._since_s)

    def __repr__(self) -> str:
        return f"Flow({self.name!r}, {self.size_B} B)"


def rated_usage(usage: dict[FlowResource, float]) -> dict[FlowResource, float]:
    """A flow's usage of the rated resources alone (``FlowResource.rated``), each scaled so that
    its capacity over it is its rated capacity over the usage: what bounds it past the CPU work a
    model estimates, the bound ``Result.ceiling_MBps`` gives."""
    return {
        res: per_byte
        if res.rated_capacity == res.capacity
        else per_byte * res.capacity / res.rated_capacity
        for res, per_byte in usage.items()
        if res.rated
    }


def max_min_rates(
    flows: list[Flow], live: list[bool] | None = None, resources: list[FlowResource] | None = None
) -> list[float]:
    """Weighted max-min fair rates (bytes/s) of ``flows`` by progressive filling.

    All unfrozen flows rise at one common level; a resource that fills freezes every flow crossing
    it, and a flow that reaches its own ``max_rate_Bps`` freezes alone. Flows not ``live`` (those
    with nothing left to move) get 0. ``resources``, when given, lists every resource the flows
    cross. The levels at which resources would fill are
    kept in a heap; a level only rises as flows freeze, so a stale entry is pushed again, at its
    new level, when it comes to the top.
    """
    n = len(flows)
    if resources is not None and len(resources) == 1:  # one level fills the one resource...
        (r,) = resources
        w = 0.0
        for i, f in enumerate(flows):
            if f.max_rate_Bps != math.inf:
                break  # ...unless a flow has a cap of its own
            if live is None or live[i]:
                w += f.usage[r]
        else:
            level = r.capacity / w if w else 0.0
            return [level if live is None or live[i] else 0.0 for i in range(n)]
    rates = [0.0] * n
    frozen = [True] * n
    fixed: dict[FlowResource, float] = {}  # units/s taken by frozen flows
    weight: dict[FlowResource, float] = {}  # units per byte of the unfrozen flows
    crossing: dict[FlowResource, list[int]] = {}
    heap: list = []
    tie = itertools.count()
    for i, f in enumerate(flows):
        if live is not None and not live[i]:
            continue
        frozen[i] = False
        for r, a in f.usage.items():
            weight[r] = weight.get(r, 0.0) + a
            crossing.setdefault(r, []).append(i)
        if f.max_rate_Bps < math.inf:
            heap.append((f.max_rate_Bps, next(tie), None, i))
    if len(weight) == 1 and not heap:  # one shared resource and no caps: one level fills it
        ((r, w),) = weight.items()
        level = r.capacity / w
        return [0.0 if frozen[i] else level for i in range(n)]
    unfrozen = n - frozen.count(True)
    count = {r: len(c) for r, c in crossing.items()}  # how many unfrozen flows cross it
    for r, w in weight.items():
        fixed[r] = 0.0
        heap.append((r.capacity / w, next(tie), r, -1))
    heapq.heapify(heap)
    level = 0.0

    def freeze(i: int) -> None:
        frozen[i] = True
        rates[i] = level
        if not unfrozen:  # the last ones: no level left to compute
            return
        for r, a in flows[i].usage.items():
            fixed[r] += a * level
            count[r] -= 1
            weight[r] = weight[r] - a if count[r] else 0.0

    while unfrozen and heap:
        key, _, r, i = heapq.heappop(heap)
        if r is None:  # a flow's own cap
            if frozen[i]:
                continue
            if flows[i].max_rate_Bps - level > _EPS * max(level, 1.0):
                level = key
            unfrozen -= 1
            freeze(i)
            continue
        if not count[r]:
            continue
        spare = r.capacity - fixed[r]
        if spare - weight[r] * level > _EPS * r.capacity:  # not full at the current level
            fill = spare / weight[r]
            if fill > key:  # flows froze since this entry was pushed: its level rose
                heapq.heappush(heap, (fill, next(tie), r, -1))
                continue
            level = max(level, fill)
        batch = [j for j in crossing[r] if not frozen[j]]
        unfrozen -= len(batch)
        for j in batch:
            freeze(j)
    if unfrozen:
        name = next(f.name for j, f in enumerate(flows) if not frozen[j])
        raise ValueError(f"flow {name} crosses no limited resource and has no rate cap")
    return rates


class FlowNetwork:
    """The set of resources and active flows of one simulation, driven by a SimPy environment."""

    def __init__(self, env: simpy.Environment):
        self.env = env
        self.resources: dict[str, FlowResource] = {}
        self.active: dict[Flow, None] = {}  # in the order the flows started
        self.updated_s = env.now  # the time of the network's last event
        self._generation = 0
        self._order = itertools.count()
        # (end time, start order, version, flow); an entry whose version is not the flow's is stale
        self._finishing: list = []
        self._starting: list[Flow] = []  # flows started this instant, not yet shared out
        self._settling = False  # an event at this instant will share them out

    def resource(
        self,
        name: str,
        capacity: float,
        unit: str = "B",
        rated_capacity: float | None = None,
        label: str | None = None,
    ) -> FlowResource:
        """Declare a resource (``FlowResource``); names are unique within the network."""
        if name in self.resources:
            raise ValueError(f"resource {name} declared twice")
        res = FlowResource(name, float(capacity), unit, self, rated_capacity, label)
        self.resources[name] = res
        return res

    def labels(self) -> dict[str, str]:
        """Each labelled resource's name -> its label (``FlowResource.label``), as a result
        keeps them (``Result.labels``)."""
        return {name: r.label for name, r in self.resources.items() if r.label is not None}

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
        """Start several flows now, each (size_B, usage, name, max_rate_Bps). The resources are
        shared out once for every flow started at this instant, after the instant's events that
        were already due, or when a rate or load is read before (no time passes between)."""
        self.updated_s = self.env.now
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
                self,
                next(self._order),
            )
            self.active[flow] = None
            for r, a in flow.usage.items():
                r.flows[flow] = a
            started.append(flow)
        self._starting.extend(started)
        if not self._settling:
            self._settling = True
            share = self.env.event()
            share.callbacks.append(self._settle_at_end_of_instant)
            share.succeed()
        return started

    def settle(self) -> None:
        """Share out the component of the flows started at this instant, if any are waiting."""
        if self._starting:
            started, self._starting = self._starting, []
            self._reallocate(started, [])

    def _settle_at_end_of_instant(self, _event: simpy.Event) -> None:
        self._settling = False
        self.settle()

    def _component(
        self, flows: list[Flow], resources: list[FlowResource]
    ) -> tuple[list[Flow], list[FlowResource]]:
        """The active flows and resources connected to ``flows`` and ``resources`` through shared
        resources, the flows in the order they started."""
        seen_flows: set[Flow] = set()
        seen_res: dict[FlowResource, None] = {}
        stack = list(resources)
        for f in flows:
            if f in self.active and f not in seen_flows:
                seen_flows.add(f)
                stack.extend(f.usage)
        while stack:
            r = stack.pop()
            if r in seen_res:
                continue
            seen_res[r] = None
            new = r.flows.keys() - seen_flows
            seen_flows |= new
            for f in new:
                if len(f.usage) > 1:
                    stack.extend(f.usage)
        return sorted(seen_flows, key=_started), list(seen_res)

    def _reallocate(self, flows: list[Flow], resources: list[FlowResource]) -> None:
        """Share out again the component of ``flows`` and ``resources``; wake at the next end."""
        now = self.env.now
        members, touched = self._component(flows, resources)
        remaining = [f._remaining_B - f._rate * (now - f._since_s) for f in members]
        rates = max_min_rates(members, [rem > 0 for rem in remaining], touched)
        ends = []
        for f, rem, rate in zip(members, remaining, rates, strict=True):
            if rate != f._rate or not f._version:
                f._remaining_B, f._since_s, f._rate = rem, now, rate
                f._version = version = f._version + 1
                if rate > 0:
                    ends.append((now + rem / rate, f._order, version, f))
                elif rem <= 0:  # its end is due now: it ends at this wake-up
                    ends.append((now, f._order, version, f))
        for r in touched:
            load = 0.0
            for f, a in r.flows.items():
                load += a * f._rate
            r._set_load(now, load)
        self._generation += 1
        finishing = self._finishing
        if len(ends) * 4 > len(finishing):
            finishing.extend(ends)
            heapq.heapify(finishing)
        else:
            for entry in ends:
                heapq.heappush(finishing, entry)
        if len(finishing) > 2 * len(self.active) + 64:  # mostly stale: keep the live entries
            finishing[:] = [e for e in finishing if e[2] == e[3]._version]
            heapq.heapify(finishing)
        while finishing and finishing[0][2] != finishing[0][3]._version:
            heapq.heappop(finishing)
        if finishing:
            generation = self._generation
            wake = self.env.timeout(max(finishing[0][0] - now, 0.0))
            wake.callbacks.append(lambda _event: self._on_wake(generation))

    def _on_wake(self, generation: int) -> None:
        if generation != self._generation:
            return  # a newer allocation superseded this wake-up
        now = self.updated_s = self.env.now
        finished = []
        while self._finishing:
            end_s, _, version, f = self._finishing[0]
            if version != f._version:  # superseded by a newer rate
                heapq.heappop(self._finishing)
                continue
            left_B = f._remaining_B - f._rate * (now - f._since_s)
            if end_s > now and left_B > _EPS * f.size_B + f._rate * 1e-12:
                break
            heapq.heappop(self._finishing)
            finished.append(f)
        finished.sort(key=_started)
        freed: dict[FlowResource, None] = {}
        for f in finished:
            f._remaining_B = 0.0
            f.finished_s = now
            f._version += 1
            del self.active[f]
            for r in f.usage:
                del r.flows[f]
                freed[r] = None
        self._reallocate([], list(freed))
        for f in finished:
            f.done.succeed(f)

    def utilization(self, elapsed_s: float) -> dict[str, float]:
        """Time-averaged share of each resource's capacity used over ``elapsed_s`` seconds."""
        self.updated_s = self.env.now
        if elapsed_s <= 0:
            return {name: 0.0 for name in self.resources}
        return {
            name: min(1.0, r.carried / (r.capacity * elapsed_s))
            for name, r in self.resources.items()
        }
