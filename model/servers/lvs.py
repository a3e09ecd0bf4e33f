"""An LVS director in front of its real servers: forwarding modes, capacity, and scheduling.

Forwarding (Linux Virtual Server): in ``nat`` mode requests and replies both pass the director, so
its link carries every byte twice over (in from one side, out to the other) and it handles every
packet; in ``dr`` (direct routing) and ``tun`` (IP-in-IP) modes only the requests pass it, tunnelled
ones with a 20-byte outer header, and the real servers answer clients directly. The director is
bounded by its link (bytes/s each way) and the packets it can forward per second (each received,
rewritten and sent again): :func:`forwarded` gives what a service's traffic costs it.

Scheduling: ``rr`` hands connections to real servers in turn, ``wrr`` in proportion to their
weights, ``lc`` to the server with the fewest active connections, ``wlc`` to the one with the fewest
per unit weight; :class:`Dispatcher` keeps the count of each real server's active connections. The
Penn State relay of ``000_a6a829ac4238989d.txt`` runs one director and two real servers
(``model.servers.relay``).

Sources: the forwarding modes and schedulers are those of Linux Virtual Server (IPVS, as
ipvsadm(8) names them); the 20-byte outer header of a tunnelled request is an IPv4 header without
options (IP-in-IP encapsulation, RFC 2003). This module holds no capacity or rate of its own: the
director's link and NIC are the catalog's (``data/hardware/hosts.yaml``, ``nics.yaml``,
``links.yaml``, each value with its source), and its cost per forwarded packet is the scenario's
``director.forward_cycles_per_packet``, an estimate from linux-vs.org's "How virtual server works"
(about 60 us to rewrite a packet on a Pentium; ``model.servers.spec``). No measured table
calibrates it: ``data/measured`` has no LVS capacity or throughput row (the report gives none; its
LVS appears there only as the three machines the configuration needs, a setting of
``psu_write.csv``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Mode = Literal["nat", "dr", "tun"]
Scheduler = Literal["rr", "wrr", "lc", "wlc"]
IPIP_HEADER_B = 20


@dataclass(frozen=True)
class Forwarded:
    """What forwarding costs a director: bytes into and out of its link, packets it forwards."""

    in_B: float
    out_B: float
    packets: float


def forwarded(
    mode: Mode, request_B: float, request_packets: float, reply_B: float, reply_packets: float
) -> Forwarded:
    """The director's share of traffic between clients and real servers.

    ``request_*`` is what clients send to the virtual address (it always passes the director, in
    and out again); ``reply_*`` what real servers send back (it passes the director only in NAT
    mode). A tunnelled request leaves the director with a 20-byte outer IP header.
    """
    out_B = request_B + (IPIP_HEADER_B * request_packets if mode == "tun" else 0.0)
    if mode == "nat":
        return Forwarded(request_B + reply_B, out_B + reply_B, request_packets + reply_packets)
    return Forwarded(request_B, out_B, request_packets)


class Dispatcher:
    """The director's scheduler choosing a real server for each connection. ``servers`` stand for
    the real servers, in order: their ``model.sim.components.Station`` where a simulation serves
    the connections (tests/lvs_cluster.py), or anything else where only the choice is wanted (the
    relay deals its sites by index)."""

    def __init__(
        self, servers: Sequence[object], scheduler: Scheduler, weights: list[float] | None = None
    ):
        if not servers:
            raise ValueError("a director needs at least one real server")
        self.servers = servers
        self.scheduler = scheduler
        self.weights = weights or [1.0] * len(servers)
        if len(self.weights) != len(servers) or min(self.weights) <= 0:
            raise ValueError("weights: one positive weight per real server")
        self.active = [0] * len(servers)
        self.assigned = [0] * len(servers)
        self._turn = 0
        self._credit = [0.0] * len(servers)

    def choose(self) -> int:
        if self.scheduler == "rr":
            pick = self._turn % len(self.servers)
            self._turn += 1
        elif self.scheduler == "wrr":  # smooth weighted round robin
            total = sum(self.weights)
            self._credit = [c + w for c, w in zip(self._credit, self.weights, strict=True)]
            pick = max(range(len(self.servers)), key=lambda i: self._credit[i])
            self._credit[pick] -= total
        elif self.scheduler == "lc":
            pick = min(range(len(self.servers)), key=lambda i: self.active[i])
        else:  # wlc
            pick = min(range(len(self.servers)), key=lambda i: self.active[i] / self.weights[i])
        return pick

    def assign(self) -> int:
        """A new connection: the real server the scheduler picks, counted active until released."""
        i = self.choose()
        self.active[i] += 1
        self.assigned[i] += 1
        return i

    def release(self, i: int) -> None:
        """The connection on real server ``i`` has closed."""
        self.active[i] -= 1
