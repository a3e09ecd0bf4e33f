"""A data relay behind an LVS director: the feed it can carry to its sites, how often it is down.

The Penn State IDD relay of ``000_a6a829ac4238989d.txt`` ("System Configuration and Rationale",
"High Availability"), product by product (SimPy):

- The director gathers the feed from upstream and sends each product on to every real server over
  TCP (its own traffic: its link each way, and the per-frame TCP cost on its packet core).
- Downstream sites connect to the virtual address; the director's scheduler
  (``lvs.Dispatcher``) hands each connection to a real server, which sends its sites every product.
  What a site sends back (its TCP ACKs, one per second segment) always passes the director, which
  forwards it to the real server (tunnelled in ``tun`` mode). In ``nat`` mode the data to the sites
  passes the director too, in and out of its one link, and it forwards every data packet.
- Each resource is a FCFS station (``model.sim.components.FifoServer``: its visits' ends are known
  when they arrive, so a stage is one timeout, not a process per station) that serves a product's
  work at its capacity: the director's link in and out (its ``ports`` bonded, or as many LAN
  ports, whichever is slower), the director's packet core (cycles: ``forward_cycles_per_packet``
  per forwarded packet, and ``NET_CYCLES_PER_FRAME`` per frame of its own TCP traffic, or with
  ``tso`` and ``gro`` what a Linux 5.4 host measured, ``tcp.tcp_frame_work_per_byte``), and each
  real server's link in and out and packet core. A packet "core" is one core (``irq_affinity``
  ``cpu0``, the report's hosts) or, with ``spread`` or ``rss`` (a multi-queue NIC hashes the flows
  over its queues and cores), as many of a machine's cores as it has flows, each flow's work on
  one; a link each way carries its data flows and the acknowledgements of those the other way.
  A product's stage (upstream to director, director to a real server, a real server to its sites)
  queues at every station it uses side by side and ends when the last has served it.

The feed arrives as a steady stream at ``feed.rate_GBph``, cut into products of random size; the
cluster carries it all when no station is saturated, else its queues grow and the run takes longer:
``throughput_MBps`` is what the sites receive over the run. ``bound_MBps`` is the bottleneck law
over every station for the same assignment of sites, and the feed itself (the sites get at most what
they are sent, so an interval never reaches past it; the interval's cap, ``ceiling_MBps``, is the
same over the links alone and the feed, a packet core's cycles being the model's estimate of the
work: ``rated``): below it the cluster keeps up, its bottleneck the offered load (``"offered
load"`` in the utilisation, the share of the feed the sites got over the run, the busiest then a
station short of full); above it the cluster falls behind at its bottleneck station's rate, its
queues growing without bound, which the model gives as that steady state (the bottleneck law)
rather than product by product. The notes say which, and carry the
availability of the virtual server (``model.servers.availability``): one director against a failover
pair, and the real servers, counted up only while those alive carry the offered load (k of n, by the
bottleneck law with the sites reconnected to them).
What lies beyond the cluster is not modelled: each site's own connection (its round trip, TCP window
and loss) is taken to keep up with the feed. A site far away may not: at 80 ms, the report's
2.6.9 hosts' default send buffer (131,072 B, 98,304 of it in flight) holds one connection to 1.23
MB/s; the ``wan_transfer`` model gives one such site's rate.
No report gives a figure for the relay's capacity or availability, so nothing calibrates it; the
machines and the gigabit LAN are the report's, the per-packet costs the literature's (see the
scenario body, ``model.servers.spec``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import simpy

from ..catalog import Catalog
from ..errors import UserError
from ..network import tcp
from ..network.hosts import flow_cores
from ..nic_links import cards_Bps, check_placed, check_rss, listed_ports_notes, nic_notes
from ..parts import Host, Link, Nic
from ..result import OFFERED_LOAD, Result
from ..settings import NET_CYCLES_PER_FRAME, TcpBuffers
from ..sim.components import FifoServer
from ..sim.rng import stream
from ..spec import ModelRecord, Scenario
from . import availability, lvs
from .spec import RelayBody

ACK_FRAME_B = tcp.IP_HEADER_B + tcp.TCP_HEADER_B + tcp.ETHERNET_OVERHEAD_B  # a bare ACK on the wire


@dataclass(frozen=True)
class Machines:
    """The catalog parts of a relay scenario, and the capacity of each of its stations.

    A link's flows are hashed over a machine's bonded ports (802.3ad) and a packet core's over
    its cores (receive-side scaling): a direction with k flows moves at most k ports' worth and
    works at most k cores, as the download server counts its connections' cores
    (``model.network.hosts.flow_cores``); each class of data flows (the feed, the streams to the
    real servers, a real server's to its sites) also has a station of as many ports and cores as
    it has flows, so one upstream feed is one port and one core, whatever the bond, while the
    acknowledgements the other way take the other ports."""

    director: Host
    real_server: Host
    # each way, what 1, 2, ... of a machine's bonded ports carry: the ports (their cards' links)
    # or as many LAN ports, whichever is slower
    director_Bps_by_ports: tuple[float, ...]
    real_server_Bps_by_ports: tuple[float, ...]
    mtu_B: int
    irq_affinity: str  # where packet work runs: cpu0, or spread over a machine's cores by flow

    @property
    def spread(self) -> bool:
        """Whether packet work is spread over a machine's cores by flow (else all on cpu0)."""
        return self.irq_affinity != "cpu0"

    def _link(self, by_ports: tuple[float, ...], flows: int) -> float:
        return by_ports[min(len(by_ports), max(flows, 1)) - 1]

    def _packets(self, host: Host, flows: int) -> float:
        return host.clock_GHz * 1e9 * flow_cores(self.irq_affinity, host, flows)

    def capacities(self, sites_per_server: list[int]) -> dict[str, float]:
        """Each station's capacity per second (bytes for links, cycles for packet cores) with the
        sites connected as ``sites_per_server`` says: the director takes the feed as one flow and
        sends one to each real server, and forwards every site's (in NAT their data too); a real
        server takes one from the director and sends one to each of its sites."""
        servers, sites = len(sites_per_server), sum(sites_per_server)
        director, real = self.director_Bps_by_ports, self.real_server_Bps_by_ports
        # each way a link carries its data flows and the acknowledgements of those the other way
        # (the director: the feed, a stream to each real server and every site's, forwarded)
        caps = {
            "director link in": self._link(director, 1 + servers + sites),
            "director link out": self._link(director, 1 + servers + sites),
            packet_station("director"): self._packets(self.director, 1 + servers + sites),
        }
        if len(director) > 1:  # a class of data flows on as many ports as it has flows
            caps["director link in (feed)"] = self._link(director, 1)
            caps["director link out (real servers)"] = self._link(director, servers)
        if self.spread:  # each class of flows on as many cores as it has flows
            for flows, count in (("feed", 1), ("real servers", servers), ("sites", sites)):
                caps[packet_station("director", flows)] = self._packets(self.director, count)
        for i, held in enumerate(sites_per_server):
            caps[f"real server {i} link out"] = self._link(real, 1 + held)
            caps[f"real server {i} link in"] = self._link(real, 1 + held)
            if len(real) > 1:
                caps[f"real server {i} link out (sites)"] = self._link(real, held)
                caps[f"real server {i} link in (director)"] = self._link(real, 1)
            caps[packet_station(f"real server {i}")] = self._packets(self.real_server, 1 + held)
            if self.spread:
                for flows, count in (("director", 1), ("sites", held)):
                    caps[packet_station(f"real server {i}", flows)] = self._packets(
                        self.real_server, count
                    )
        return caps


def bonded_Bps(
    catalog: Catalog, nic: Nic, host_id: str, ports: int, *, mtu_B: int, bus_efficiency: float
) -> float:
    """What ``ports`` ports of ``nic`` bonded move each way, wire bytes a second: their cards, each
    the lesser of its ports' lines and its link into the host, the cards in the host's fastest
    slots first (``nic_links.cards_Bps``); one port is ``nic_links.nic_rate_Bps``."""
    line_Bps = nic.rate_Gbps * 1e9 / 8.0
    on_cards = cards_Bps(catalog, nic, host_id, ports, mtu_B=mtu_B, bus_efficiency=bus_efficiency)
    return sum(min(n * line_Bps, link) for n, link in on_cards)


def machines(scenario: Scenario, catalog: Catalog, bus_efficiency: float) -> Machines:
    """The director's and real servers' hosts, NICs and LAN, each checked against the catalog
    (``bus_efficiency``: what a NIC's link into its host carries, ``nic_links.nic_rate_Bps``)."""
    body: RelayBody = scenario.body
    where = scenario.path
    link = catalog.get("links", body.link, where, "link")
    assert isinstance(link, Link)
    mtu_B = link.frame_mtu_B

    lan_Bps = link.rate_Bps

    def host_and_rates(
        key: str, host_id: str, nic_id: str, ports: int
    ) -> tuple[Host, tuple[float, ...]]:
        """The machine's host and what 1 to ``ports`` of its bonded ports carry each way (or as
        many LAN ports, whichever is slower); a host whose NICs the catalog does not list takes
        one card of ``nic_id``."""
        host = catalog.get("hosts", host_id, where, f"{key}.host")
        nic = catalog.get("nics", nic_id, where, f"{key}.nic")
        assert isinstance(host, Host) and isinstance(nic, Nic)
        if host.nics and nic_id not in host.nics:
            raise UserError(
                where,
                f"{key}.nic",
                f"{host_id} is fitted with {', '.join(host.nics)} (data/hardware/hosts.yaml), "
                f"got {nic_id!r}",
                related=(f"{key}.host",),
            )
        fitted = host.nics.count(nic_id) if host.nics else nic.ports
        if ports > fitted:
            held = (
                f"is fitted with {fitted} port(s) of {nic_id}"
                if host.nics
                else f"lists no NICs, so it takes one {nic_id} card of {fitted} port(s)"
            )
            raise UserError(
                where,
                f"{key}.ports",
                f"{host_id} {held} (data/hardware/hosts.yaml); allowed: 1 to {fitted}, got {ports}",
                related=(f"{key}.host", f"{key}.nic"),
            )
        return host, tuple(
            min(
                bonded_Bps(catalog, nic, host_id, k, mtu_B=mtu_B, bus_efficiency=bus_efficiency),
                k * lan_Bps,
            )
            for k in range(1, ports + 1)
        )

    director, director_Bps = host_and_rates(
        "director", body.director.host, body.director.nic, body.director.ports
    )
    real, real_Bps = host_and_rates(
        "real_servers", body.real_servers.host, body.real_servers.nic, body.real_servers.ports
    )
    return Machines(
        director=director,
        real_server=real,
        director_Bps_by_ports=director_Bps,
        real_server_Bps_by_ports=real_Bps,
        mtu_B=mtu_B,
        irq_affinity=body.irq_affinity,
    )


class Stages:
    """The work one product of ``B`` bytes puts on each station, stage by stage."""

    def __init__(self, body: RelayBody, mtu_B: int):
        self.mode = body.director.mode
        self.forward_cycles = body.director.forward_cycles_per_packet
        self.wire_per_B = tcp.tcp_wire_per_byte(mtu_B)
        self.frames_per_B = 1.0 / tcp.mss_B(mtu_B)
        # a machine's per-frame work per byte it sends and receives (tcp.tcp_frame_work_per_byte:
        # with tso and gro, what a Linux 5.4 host measured); a site's receive offload is not
        # known, so what a real server sends its sites is taken back at one ACK per two segments
        ours = TcpBuffers(tso=body.tso, gro=body.gro)
        self.sent_cycles_per_B, self.received_cycles_per_B = (
            work * NET_CYCLES_PER_FRAME for work in tcp.tcp_frame_work_per_byte(mtu_B, ours)
        )
        to_sites = tcp.tcp_frame_work_per_byte(mtu_B, TcpBuffers(tso=body.tso))[0]
        self.to_sites_cycles_per_B = to_sites * NET_CYCLES_PER_FRAME
        # with the flows spread over the cores, each flow's packet work stays on one core: the
        # work of a class of flows (the feed, the streams to the real servers, the sites') also
        # visits a station of as many cores as it has flows (``Machines.capacities``)
        self.by_flow = body.irq_affinity != "cpu0"
        # with bonded ports, a class of data flows also visits a station of as many ports as it
        # has flows (``Machines.capacities``)
        self.director_bonded = body.director.ports > 1
        self.real_bonded = body.real_servers.ports > 1
        # of a flow's receive work, the share its reading process does on a core of its own
        # (tcp.reader_share): the flow's core, its interrupt's, does the rest
        self.in_reader = tcp.reader_share(mtu_B, ours)

    def _packets(
        self, machine: str, flows: str, cycles: float, received: bool = False
    ) -> dict[str, float]:
        """``cycles`` of packet work on ``machine``'s cores, and on its class of ``flows``' (of
        work ``received``, the share its interrupt's core does, not the reading process's)."""
        work = {packet_station(machine): cycles}
        if self.by_flow:
            work[packet_station(machine, flows)] = cycles * (
                1.0 - self.in_reader if received else 1.0
            )
        return work

    def _stream(self, B: float) -> tuple[float, float, float, float]:
        """A TCP stream of ``B`` payload bytes: data wire bytes, data frames, ACK bytes, ACKs."""
        frames = B * self.frames_per_B
        acks = tcp.ACKS_PER_SEGMENT * frames
        return B * self.wire_per_B, frames, acks * ACK_FRAME_B, acks

    def upstream(self, B: float) -> dict[str, float]:
        """The product reaches the director from upstream."""
        wire, _frames, ack_B, _acks = self._stream(B)
        work = {
            "director link in": wire,
            "director link out": ack_B,
            **self._packets("director", "feed", B * self.received_cycles_per_B, received=True),
        }
        if self.director_bonded:
            work["director link in (feed)"] = wire
        return work

    def to_real_server(self, i: int, B: float) -> dict[str, float]:
        """The director sends the product to real server ``i``."""
        wire, _frames, ack_B, _acks = self._stream(B)
        work = {
            "director link out": wire,
            "director link in": ack_B,
            **self._packets("director", "real servers", B * self.sent_cycles_per_B),
            f"real server {i} link in": wire,
            f"real server {i} link out": ack_B,
            **self._packets(
                f"real server {i}", "director", B * self.received_cycles_per_B, received=True
            ),
        }
        if self.director_bonded:
            work["director link out (real servers)"] = wire
        if self.real_bonded:
            work[f"real server {i} link in (director)"] = wire
        return work

    def to_sites(self, i: int, sites: int, B: float) -> dict[str, float]:
        """Real server ``i`` sends the product to each of its ``sites``; their ACKs pass the
        director."""
        wire, frames, ack_B, acks = self._stream(sites * B)
        fwd = lvs.forwarded(self.mode, ack_B, acks, wire, frames)
        acks_out = lvs.forwarded(self.mode, ack_B, acks, 0.0, 0.0).out_B
        work = {
            f"real server {i} link out": wire,
            f"real server {i} link in": acks_out,
            **self._packets(f"real server {i}", "sites", sites * B * self.to_sites_cycles_per_B),
            "director link in": fwd.in_B,
            "director link out": fwd.out_B,
            **self._packets("director", "sites", fwd.packets * self.forward_cycles),
        }
        if self.real_bonded:
            work[f"real server {i} link out (sites)"] = wire
        return work

    def per_product(self, sites_per_server: list[int], B: float) -> dict[str, float]:
        """Every station's work for one product through the whole cluster."""
        total: dict[str, float] = {}
        stages = [self.upstream(B)]
        for i, n in enumerate(sites_per_server):
            stages.append(self.to_real_server(i, B))
            if n:
                stages.append(self.to_sites(i, n, B))
        for stage in stages:
            for name, work in stage.items():
                total[name] = total.get(name, 0.0) + work
        return total


def capacity(
    stages: Stages, caps: dict[str, float], sites_per_server: list[int]
) -> tuple[float, str]:
    """The bottleneck law: MB/s the sites can receive at most, over every station, and the station
    that sets it (the first of equals, in the order of ``caps``)."""
    work = stages.per_product(sites_per_server, 1.0)  # per byte of the feed
    sites = sum(sites_per_server)
    name = min((n for n in caps if work.get(n, 0.0) > 0), key=lambda n: caps[n] / work[n])
    return caps[name] / work[name] * sites / 1e6, name


def bound_MBps(stages: Stages, caps: dict[str, float], sites_per_server: list[int]) -> float:
    """The bottleneck law: MB/s the sites can receive at most, over every station."""
    return capacity(stages, caps, sites_per_server)[0]


PACKETS = " packets"


def packet_station(machine: str, flows: str | None = None) -> str:
    """The station of ``machine``'s packet cores (of its class of ``flows``' where given): the one
    name that ``Machines.capacities`` and ``Stages`` give it and that ``rated`` leaves out."""
    return f"{machine}{PACKETS}" + ("" if flows is None else f" ({flows})")


def rated(caps: dict[str, float]) -> dict[str, float]:
    """The stations of ``caps`` whose capacity is rated, the links: a packet core's
    (``packet_station``) is cycles of work the model estimates (``forward_cycles_per_packet``,
    the frames' ``NET_CYCLES_PER_FRAME``), which the interval's cap leaves out
    (``Result.ceiling_MBps``)."""
    return {name: cap for name, cap in caps.items() if PACKETS not in name}


def assign_sites(scheduler: lvs.Scheduler, weights: tuple[float, ...], servers: int, sites: int):
    """Connect ``sites`` sites one after another through the director's scheduler."""
    dispatcher = lvs.Dispatcher(range(servers), scheduler, list(weights) or None)
    for _ in range(sites):
        dispatcher.assign()
    return dispatcher


@functools.lru_cache(maxsize=1024)  # a prediction's runs ask the same, once a survivor count
def sites_per_server(
    scheduler: lvs.Scheduler, weights: tuple[float, ...], servers: int, sites: int
) -> tuple[int, ...]:
    """The sites each real server holds once ``sites`` have connected (:func:`assign_sites`); with
    equal weights every scheduler deals them in turn, so the first ``sites mod servers`` hold one
    more, without dealing them one by one."""
    if not weights:
        return tuple(sites // servers + (i < sites % servers) for i in range(servers))
    return tuple(assign_sites(scheduler, weights, servers, sites).active)


def worst_survivors(weights: tuple[float, ...], alive: int) -> tuple[int, ...]:
    """Which ``alive`` real servers left carry the least (their numbers, in order, as the director
    lists them and deals the sites; with all up, the simulation's own order and so its deal): the
    heaviest (the most sites on one server) with the lightest others (the fewest sites taken off
    it); equal weights (empty) leave any ``alive`` alike, the first."""
    if not weights:
        return tuple(range(alive))
    heaviest = max(range(len(weights)), key=lambda i: weights[i])
    others = sorted((i for i in range(len(weights)) if i != heaviest), key=lambda i: weights[i])
    return tuple(sorted((heaviest, *others[: alive - 1])))


def carried_with(body: RelayBody, stages: Stages, kit: Machines, alive: int) -> tuple[float, str]:
    """What the cluster can carry (the bottleneck law, MB/s, and the station that sets it, by the
    real server's own number) with ``alive`` of its real servers up and every site reconnected to
    them; with weights, the worst ``alive`` left (:func:`worst_survivors`)."""
    left = worst_survivors(body.real_servers.weights, alive)
    weights = tuple(body.real_servers.weights[i] for i in left) if body.real_servers.weights else ()
    sites = sites_per_server(body.director.scheduler, weights, alive, body.feed.sites)
    carried, name = capacity(stages, kit.capacities(list(sites)), list(sites))
    if name.startswith("real server "):  # the k-th survivor is real server left[k]
        k, rest = name.removeprefix("real server ").split(" ", 1)
        name = f"real server {left[int(k)]} {rest}"
    return carried, name


def check_parts(body: RelayBody, catalog: Catalog, where: str) -> None:
    """Every machine's NIC has the receive queues its ``irq_affinity`` spreads
    (``nic_links.check_rss``)."""
    nics = {"director.nic": body.director.nic, "real_servers.nic": body.real_servers.nic}
    check_rss(body.irq_affinity, catalog, where, nics)
    check_placed(
        catalog,
        (
            ("director.nic", body.director.nic, body.director.host, body.director.ports),
            (
                "real_servers.nic",
                body.real_servers.nic,
                body.real_servers.host,
                body.real_servers.ports,
            ),
        ),
        where,
    )


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    body: RelayBody = scenario.body
    check_parts(body, catalog, scenario.path)
    kit = machines(scenario, catalog, params["bus_efficiency"])
    servers = body.real_servers.count
    sites_per_server = list(  # the sites are connected before the run
        assign_sites(
            body.director.scheduler, body.real_servers.weights, servers, body.feed.sites
        ).active
    )
    caps = kit.capacities(sites_per_server)
    stages = Stages(body, kit.mtu_B)
    env = simpy.Environment()
    stations = {name: FifoServer(name) for name in caps}

    def stage(work: dict[str, float]):
        now = env.now
        done = max(stations[name].visit(now, w / caps[name]) for name, w in work.items())
        yield env.timeout(done - now)

    def to_real_server(i: int, B: float):
        yield from stage(stages.to_real_server(i, B))
        if sites_per_server[i]:
            yield from stage(stages.to_sites(i, sites_per_server[i], B))

    def product(B: float):
        yield from stage(stages.upstream(B))
        yield env.all_of([env.process(to_real_server(i, B)) for i in range(servers)])

    feed = body.feed
    sizes_B = stream(scenario.seed, "products").exponential(feed.product_kB * 1e3, feed.products)
    rate_Bps = feed.rate_GBph * 1e9 / 3600
    offered_MBps = feed.sites * rate_Bps / 1e6
    bound, binds = capacity(stages, caps, sites_per_server)
    if keeps_up(offered_MBps, bound):
        arrivals_s = sizes_B.cumsum() / rate_Bps  # a steady feed: in once its last byte is

        def source():
            for at, B in zip(arrivals_s, sizes_B, strict=True):
                yield env.timeout(at - env.now)
                env.process(product(float(B)))

        env.process(source())
        env.run()
        elapsed = env.now
        busy = {name: s.busy_s / elapsed for name, s in stations.items()}
    else:
        # a cluster that cannot carry its feed runs at its bottleneck's rate, the rest of the
        # feed queued for ever (the steady state, by the bottleneck law): followed product by
        # product, the stations' queues would hold a product's acknowledgements behind the whole
        # backlog of the feed, where on a link the flows' packets interleave
        carried_Bps = bound * 1e6 / feed.sites  # of the feed, each site's
        elapsed = float(sizes_B.sum()) / carried_Bps
        work = stages.per_product(sites_per_server, 1.0)
        busy = {name: work.get(name, 0.0) * carried_Bps / cap for name, cap in caps.items()}
    # the offered load beside the stations, as the share of it the sites got over the run: a
    # station's share is this one's times offered / bound (its work is the feed's, per byte, over
    # its capacity), so the offered load is the busiest, the bottleneck, exactly when it is below
    # what the cluster can carry (first in the table: it wins a tie)
    utilization = {OFFERED_LOAD: float(sizes_B.sum()) / rate_Bps / elapsed, **busy}
    verdict = _verdict(offered_MBps, bound, binds, busy)
    return Result(
        scenario=scenario.name,
        bytes_moved=float(sizes_B.sum()) * feed.sites,
        elapsed_s=elapsed,
        utilization=utilization,
        # the sites get at most what they are sent: the feed is an input, not a capacity to doubt
        bound_MBps=min(bound, offered_MBps),
        ceiling_MBps=min(bound_MBps(stages, rated(caps), sites_per_server), offered_MBps),
        notes=_capacity_notes(body, stages, kit, sites_per_server, offered_MBps, verdict)
        + (
            f"simulated: a stretch of the feed, {feed.products:,} products to each of the "
            f"{feed.sites} sites ({float(sizes_B.sum()) * feed.sites / 1e6:,.1f} MB in "
            f"{elapsed:.3g} s); the feed does not end, so its rates are the figures, not that time",
        )
        + nic_notes(
            catalog,
            (body.director.nic, body.director.host, body.director.ports),
            (body.real_servers.nic, body.real_servers.host, body.real_servers.ports),
            mtu_B=kit.mtu_B,
            bus_efficiency=params["bus_efficiency"],
        )
        + listed_ports_notes(
            catalog,
            (body.director.host, body.director.nic, body.director.ports),
            (body.real_servers.host, body.real_servers.nic, body.real_servers.ports),
        )
        + _availability_notes(body, stages, kit, offered_MBps),
    )


def keeps_up(offered_MBps: float, bound_MBps: float) -> bool:
    """Whether the cluster carries the offered feed in the steady state: its queues stay bounded
    while what it is offered is within what its bottleneck station can carry."""
    return offered_MBps <= bound_MBps * (1 + 1e-9)


def _verdict(offered_MBps: float, bound: float, binds: str, busy: dict[str, float]) -> str:
    """Whether the cluster keeps up with its feed, and what limits it."""
    if keeps_up(offered_MBps, bound):
        busiest = max(busy, key=busy.get)
        return (
            f"keeps up: the {offered_MBps:,.1f} MB/s offered is within the {bound:,.1f} MB/s the "
            f"cluster can carry (bottleneck law, {binds} first full), so the bottleneck is the "
            f"offered load; the busiest resource, {busiest}, is {100 * busy[busiest]:.0f} % busy"
        )
    return (
        f"falls behind: {offered_MBps:,.1f} MB/s offered, above the {bound:,.1f} MB/s the cluster "
        f"can carry; the sites get the feed at the rate of its bottleneck, {binds}, and its queues "
        f"grow without bound (each product waits longer than the one before)"
    )


def _count(n: float) -> str:
    """A count as a reader takes it: whole from 10 up, two figures below (0.58, not 0)."""
    return f"{n:,.0f}" if n >= 10 else f"{n:.2g}"


def _capacity_notes(
    body: RelayBody,
    stages: Stages,
    kit: Machines,
    sites_per_server: list[int],
    offered_MBps: float,
    verdict: str,
) -> tuple[str, ...]:
    servers = body.real_servers.count
    feed_MBps = body.feed.rate_GBph * 1e3 / 3600
    notes = [
        f"offered: {body.feed.sites} site{'s' if body.feed.sites > 1 else ''} x "
        f"{feed_MBps:,.2f} MB/s of feed = "
        f"{offered_MBps:,.1f} MB/s; "
        f"LVS {body.director.mode}, {body.director.scheduler}: sites per real server "
        + ", ".join(str(n) for n in sites_per_server),
        verdict,
        f"one real server's link carries "
        f"{_count(kit.real_server_Bps_by_ports[-1] / (feed_MBps * 1e6 * stages.wire_per_B))} "
        "sites at this feed",
    ]
    if servers > 1:
        survivors = assign_sites(
            body.director.scheduler, body.real_servers.weights[1:], servers - 1, body.feed.sites
        )
        left = bound_MBps(stages, kit.capacities(list(survivors.active)), list(survivors.active))
        notes.append(
            f"real server 0 down, its sites reconnect to the others: at most {left:,.1f} MB/s, "
            f"{100 * min(left / offered_MBps, 1.0):.0f} % of the offered load"
        )
    # the fan-out the report's configuration costs: each real server more is one feed more on the
    # director's link (a planner adding servers for more sites meets it)
    notes.append(
        f"the director sends the whole feed to each of the {servers} real server"
        f"{'s' if servers > 1 else ''}: {servers * feed_MBps * stages.wire_per_B:,.1f} MB/s on "
        f"the wire, of its link out's {kit.director_Bps_by_ports[-1] / 1e6:,.1f} MB/s"
    )
    return tuple(notes)


def _availability_notes(
    body: RelayBody, stages: Stages, kit: Machines, offered_MBps: float
) -> tuple[str, ...]:
    r = body.reliability

    def directors(n: int) -> availability.Availability:
        return availability.units(n, r.mtbf_h, r.mttr_h, r.repair_crews, r.takeover_s)

    def line(label: str, a: availability.Availability) -> str:
        return (
            f"{label}: availability {100 * a.availability:.5f} %, "
            f"downtime {a.downtime_h_per_year:.3f} h/year in {a.outages_per_year:.2f} outages/year"
        )

    count, servers = body.director.count, body.real_servers.count
    # the service is up with k real servers alive only when they carry the offered load
    carried = [(0.0, "")] + [carried_with(body, stages, kit, k) for k in range(1, servers + 1)]
    up = [k > 0 and keeps_up(offered_MBps, carried[k][0]) for k in range(servers + 1)]
    real = availability.serving(servers, up, r.mtbf_h, r.mttr_h, r.repair_crews)
    service = directors(count).availability * real.availability
    virtual = (
        f"the virtual server ({count} director{'s' if count > 1 else ''} and the real servers): "
        f"availability {100 * service:.5f} %, "
        f"downtime {(1 - service) * availability.HOURS_PER_YEAR:.3f} h/year, up while a director "
        + (
            "is and the real servers up carry the offered load"
            if any(up)
            else "is, but it never carries the offered load (it falls behind with every machine up)"
        )
    )
    return (
        line("one director", directors(1)),
        line("a failover pair of directors", directors(2)),
        line(f"real servers ({_needed(up, carried, offered_MBps)})", real),
        virtual,
    )


def _needed(up: list[bool], carried: list[tuple[float, str]], offered_MBps: float) -> str:
    """How many real servers must be up to carry the offered load, and why (no colon: the note's
    label ends at its first)."""
    servers = len(up) - 1
    offered = f"the {offered_MBps:,.1f} MB/s offered"
    enough = [k for k in range(1, servers + 1) if up[k]]
    if not enough:
        best = max(range(1, servers + 1), key=lambda k: carried[k][0])
        most, binds = carried[best]
        return (
            f"no number of them carries {offered}, the most being {most:,.1f} MB/s with "
            f"{'all ' if best == servers else ''}{best} up and {binds} full"
        )
    least, most = enough[0], enough[-1]
    if len(enough) != most - least + 1:  # some count between carries it, some does not
        head = f"only {', '.join(str(k) for k in enough)} of {servers} up carry {offered}"
    elif most < servers:
        head = f"{least} to {most} of {servers} carry {offered}"
    else:
        head = f"{least} of {servers} needed to carry {offered}"
    why = f"{'one carries' if least == 1 else f'{least} carry'} up to {carried[least][0]:,.1f} MB/s"
    if least > 1:
        fewer = "one carries" if least == 2 else f"{least - 1} carry"
        why = f"{fewer} at most {carried[least - 1][0]:,.1f} MB/s and {why}"
    text = f"{head}, since {why}"
    if most < servers and carried[most + 1][1].startswith("director"):
        text += f"; more than {most} up overload {carried[most + 1][1]} (it sends each the feed)"
    return text


MODEL = ModelRecord(
    "relay_cluster",
    RelayBody,
    simulate,
    check_parts=lambda body, catalog, params, where: check_parts(body, catalog, where),
    unmeasured="the report (000) gives the relay cluster's machines and LAN but no feed rate, "
    "site count, capacity or failure figure to compare with",
)
