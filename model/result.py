"""What every simulation returns: throughput, time, utilisation per component, bottleneck, bound."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from .errors import NotModelled

# what a model that is offered a load (a feed, clients asking at a set rate) lists beside its
# resources, as the share of it carried: the bottleneck exactly when the system keeps up
OFFERED_LOAD = "offered load"
# what a stream's (or a client's) requests in flight are named among the resources, and how near
# two utilisations are to tie: the rounding of one capacity worked out two ways
REQUESTS = "requests "
TIE = 1e-9
# how busy a resource is over a run, at least, for the text to say it is at its limit: busy all
# the time but for the run's first access and last bytes (the shipped scenarios' labelled
# bottlenecks are 99.2 % busy and more); a run too short for its start to vanish is not
AT_LIMIT = 0.99
# how near the bottleneck's utilisation another resource's is for the two to be tied (the
# bottleneck line's ties, report._tied; the course's exercise 7.3)
TIED_WITH_BOTTLENECK = 1e-3


@dataclass(frozen=True)
class Result:
    """One run's outcome; rates in MB/s (10^6 bytes per second), times in seconds."""

    scenario: str
    bytes_moved: float
    elapsed_s: float
    utilization: dict[str, float]
    bound_MBps: float
    cpu_user_s: float | None = None  # None: the model does not predict it
    cpu_sys_s: float | None = None
    io_wait_pct: float | None = None  # share of a lone stream's time spent waiting for I/O
    notes: tuple[str, ...] = field(default=())
    # (metric, why the model does not predict it) for figures a report measures and it cannot
    unpredicted: tuple[tuple[str, str], ...] = field(default=())
    # the bottleneck law's bound over the resources whose capacity is rated (links, buses, drives,
    # memory: ``FlowResource.rated``; a TCP window a round trip, a rate the scenario sets), leaving
    # out the CPU time the model spends on work it estimates in cycles; None where a model does
    # not tell them apart or its bound counts no such work (``bound_MBps`` then: the
    # memory-mapped test's, its drives' time alone)
    ceiling_MBps: float | None = None
    # each labelled resource's name -> what a planner reads for it (``FlowResource.label``),
    # shared by the resources alike: the text's bottleneck (``bottleneck_words``); kept out of
    # ``to_dict``, whose ``bottleneck`` stays the resource's name, which sweeps and notebooks key on
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def throughput_MBps(self) -> float:
        return self.bytes_moved / self.elapsed_s / 1e6

    @property
    def cpu_s(self) -> float | None:
        """User plus system CPU seconds; the system part alone where user time is not modelled."""
        if self.cpu_sys_s is None:
            return None
        return (self.cpu_user_s or 0.0) + self.cpu_sys_s

    @property
    def cpu_util_pct(self) -> float | None:
        """CPU time over wall time, as ``time`` reports it (100% is one core busy)."""
        return None if self.cpu_s is None else 100.0 * self.cpu_s / self.elapsed_s

    def limit(self, metric: str) -> float | None:
        """What the bottleneck bound allows ``metric``: the highest rate (MB/s) or the shortest
        time (s); None for other metrics or a run with no finite bound. A measurement past it
        falsifies a reading or a cost (``validate.bound_excess``)."""
        return self._allowed(metric, self.bound_MBps)

    @property
    def rated_bound_MBps(self) -> float:
        """The bound over the path's rated parts: ``ceiling_MBps``, else ``bound_MBps``."""
        return self.bound_MBps if self.ceiling_MBps is None else self.ceiling_MBps

    def ceiling(self, metric: str) -> float | None:
        """What the path's rated parts allow ``metric`` (``rated_bound_MBps``): the interval's
        cap, since a bound the model's estimate of CPU work sets is no ceiling (the interval
        audit: a purchase's md RAID6 had no upside past its raid5d's estimated cycles)."""
        return self._allowed(metric, self.rated_bound_MBps)

    def _allowed(self, metric: str, bound: float) -> float | None:
        if not bound or not math.isfinite(bound):
            return None
        if metric == "throughput_MBps":
            return bound
        if metric == "elapsed_s":
            return self.bytes_moved / (bound * 1e6)
        return None

    @property
    def bottleneck(self) -> str:
        """The component with the highest utilisation."""
        return busiest(self.utilization)

    @property
    def bottleneck_words(self) -> str:
        """The bottleneck as a planner reads it (``readable``): its label and how many of the
        resources labelled alike are as busy; its name where it has no label."""
        return readable(self.bottleneck, self.labels, self.utilization)

    @property
    def resources(self) -> dict[str, float]:
        """The utilisation of the resources alone, without the offered load a model that sets one
        lists beside them (``OFFERED_LOAD``, the share of it carried)."""
        return {k: v for k, v in self.utilization.items() if k != OFFERED_LOAD}

    def metric(self, name: str) -> float | None:
        """A figure by the name measured tables use for it (``throughput_MBps``, ``cpu_sys_s``,
        ...); None where the model does not predict it, ``NotModelled`` with the reason where it
        says why."""
        if name not in METRICS:
            raise KeyError(name)
        value = getattr(self, name)
        if value is None and name in dict(self.unpredicted):
            raise NotModelled(dict(self.unpredicted)[name])
        return None if value is None else float(value)

    def to_dict(self) -> dict:
        out = asdict(self)
        del out["unpredicted"], out["labels"]
        out["notes"] = list(self.notes)
        out.update({name: getattr(self, name) for name in METRICS})
        out["bottleneck"] = self.bottleneck
        return out


METRICS = (
    "throughput_MBps",
    "elapsed_s",
    "cpu_user_s",
    "cpu_sys_s",
    "cpu_s",
    "cpu_util_pct",
    "io_wait_pct",
)


def busiest(utilization: dict[str, float]) -> str:
    """The component of ``utilization`` with the highest, '' where there is none: a result's
    bottleneck, which a model's notes may name before the result is made. A stream's requests in
    flight (``requests ...``) that tie, to rounding, with a component of the path give way to it:
    their limit is then what the drives they reach carry, which no deeper queue moves (the storage
    audit: one direct reader on 24 drives named 'requests 0' at 16, 32 or 64 in flight alike)."""
    if not utilization:
        return ""
    name = max(utilization, key=utilization.__getitem__)
    if name.startswith(REQUESTS):
        tied = {
            k: u
            for k, u in utilization.items()
            if not k.startswith(REQUESTS) and u >= utilization[name] * (1 - TIE)
        }
        if tied:
            return max(tied, key=tied.__getitem__)
    return name


def readable(name: str, labels: dict[str, str], load: dict[str, float]) -> str:
    """Resource ``name`` as a planner reads it: its label (``labels``, name -> label), and where
    several resources share it, how many of them are at their limit (``at_limit_words``; ``load``,
    each one's utilisation): "drives of volume data: 24, each at its limit"; its name where it has
    no label."""
    label = labels.get(name)
    if label is None:
        return name
    alike = [other for other, words in labels.items() if words == label]
    if len(alike) == 1:
        return label
    return f"{label}: {at_limit_words(alike, load)}"


def at_limit_words(alike: list[str], load: dict[str, float]) -> str:
    """How many of the resources ``alike`` are busy ``AT_LIMIT`` or more (``load``, each one's
    utilisation): "3, each at its limit", "2 of 3 at their limit", "3, none at its limit"."""
    at = sum(load.get(name, 0.0) >= AT_LIMIT for name in alike)
    if at == len(alike):
        return f"{at}, each at its limit"
    if at == 0:
        return f"{len(alike)}, none at its limit"
    return f"{at} of {len(alike)} at their limit"
