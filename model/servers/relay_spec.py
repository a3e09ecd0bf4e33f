"""The relay-cluster scenario body: an LVS director in front of real servers relaying a data feed.

The Penn State IDD relay of ``000_a6a829ac4238989d.txt`` ("System Configuration and Rationale",
"High Availability"): a director gathers the feed from upstream and passes it to the real servers,
and downstream sites, asking for data at the virtual address the director holds, are each handed to
a real server that sends them the feed. The report names the machines and the gigabit LAN but gives
no feed rate, site count or failure figures; those keys are planning figures for the user to set.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UserError
from ..schema import NonNegativeFloat, PositiveFloat, PositiveInt
from .lvs import Mode, Scheduler


@dataclass(frozen=True)
class DirectorSpec:
    """The LVS director: ``host`` and ``nic`` are catalog parts (hosts.yaml, nics.yaml).

    ``mode`` is how it forwards (``nat``, ``dr`` direct routing, ``tun`` IP-in-IP; see
    ``model.servers.lvs``), ``scheduler`` how it picks a real server for each new site connection
    (``rr``, ``wrr``, ``lc``, ``wlc``). ``count`` is 1 for the report's single director, 2 for the
    failover pair it plans (one active, one standby: the pair changes availability, not capacity).
    ``forward_cycles_per_packet`` is the CPU cycles the director's packet core spends forwarding one
    packet (receive, IPVS lookup and rewrite, send).
    """

    host: str
    nic: str
    mode: Mode = "dr"
    scheduler: Scheduler = "wlc"
    count: PositiveInt = 1
    # estimated: linux-vs.org "How virtual server works" puts rewriting a packet at about 60 us on a
    # Pentium; at the 166 MHz of a Pentium of that time, 10,000 cycles
    forward_cycles_per_packet: PositiveFloat = 10000.0


@dataclass(frozen=True)
class RealServers:
    """``count`` identical real servers (``host``, ``nic`` from the catalog).

    ``weights`` (one positive number per real server, for the ``wrr`` and ``wlc`` schedulers) are
    the shares of new connections the director aims at each; empty means equal weights.
    """

    host: str
    nic: str
    count: PositiveInt = 2
    weights: tuple[PositiveFloat, ...] = ()

    def check(self, where: str, key: str) -> None:
        if self.weights and len(self.weights) != self.count:
            raise UserError(
                where,
                f"{key}.weights",
                f"must list one weight per real server ({self.count}), got {len(self.weights)}",
            )


@dataclass(frozen=True)
class Feed:
    """The data feed: ``rate_GBph`` (GB/h, 10^9 bytes) the director gathers from upstream; every
    one of the ``sites`` downstream sites asks for the whole of it. It comes in products of
    ``product_kB`` (kB, 10^3 bytes) on average, exponentially distributed; ``products`` is how
    many the simulation follows through the cluster."""

    rate_GBph: PositiveFloat
    sites: PositiveInt
    product_kB: PositiveFloat = 40.0
    products: PositiveInt = 400


@dataclass(frozen=True)
class Reliability:
    """Each machine (the three chassis are identical) fails after ``mtbf_h`` hours on average and
    is repaired in ``mttr_h`` hours by one of ``repair_crews``; a standby director takes over the
    virtual address in ``takeover_s`` seconds (heartbeat detection plus address takeover)."""

    mtbf_h: PositiveFloat
    mttr_h: PositiveFloat
    takeover_s: NonNegativeFloat = 10.0
    repair_crews: PositiveInt = 1


@dataclass(frozen=True)
class RelayBody:
    """A relay cluster: the director, its real servers, the LAN ``link`` (links.yaml) every machine
    is on, the feed they relay, and how reliable the machines are."""

    director: DirectorSpec
    real_servers: RealServers
    link: str
    feed: Feed
    reliability: Reliability

    def check(self, where: str, key: str) -> None:
        if self.real_servers.weights and self.director.scheduler not in ("wrr", "wlc"):
            raise UserError(
                where,
                "real_servers.weights",
                f"only the wrr and wlc schedulers use weights; director.scheduler is "
                f"{self.director.scheduler}",
            )
