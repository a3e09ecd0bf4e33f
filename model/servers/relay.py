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
- Each resource is a FCFS station (``model.sim.components.Station``) that serves a product's work
  at its capacity: the director's link in and out (the NIC or the LAN, whichever is slower), the
  director's packet core (cycles: ``forward_cycles_per_packet`` per forwarded packet, and
  ``NET_CYCLES_PER_FRAME`` per frame of its own TCP traffic), and each real server's link in and out
  and packet core. A product's stage (upstream to director, director to a real server, a real server
  to its sites) queues at every station it uses side by side and ends when the last has served it.

The feed arrives as a steady stream at ``feed.rate_GBph``, cut into products of random size; the
cluster carries it all when no station is saturated, else its queues grow and the run takes longer:
``throughput_MBps`` is what the sites receive over the run. ``bound_MBps`` is the bottleneck law
over every station for the same assignment of sites. The notes carry the availability of the virtual
server (``model.servers.availability``): one director against a failover pair, and the real servers.
No report gives a figure for the relay's capacity or availability, so nothing calibrates it; the
machines and the gigabit LAN are the report's, the per-packet costs the literature's (see the
scenario body, ``model.servers.spec``).
"""

from __future__ import annotations

from dataclasses import dataclass

import simpy

from ..catalog import Catalog, Host, Link, Nic, nic_rate_Bps
from ..errors import UserError
from ..network import tcp
from ..result import Result
from ..settings import NET_CYCLES_PER_FRAME
from ..sim.components import Station
from ..sim.rng import stream
from ..spec import ModelRecord, Scenario
from . import availability, lvs
from .spec import RelayBody

ACK_FRAME_B = tcp.IP_HEADER_B + tcp.TCP_HEADER_B + tcp.ETHERNET_OVERHEAD_B  # a bare ACK on the wire


@dataclass(frozen=True)
class Machines:
    """The catalog parts of a relay scenario, and the capacity of each of its stations."""

    director: Host
    real_server: Host
    link_Bps: float  # each machine's link, each way: its NIC or the LAN, whichever is slower
    director_link_Bps: float
    mtu_B: int

    def capacities(self, servers: int) -> dict[str, float]:
        """Each station's capacity per second: bytes for links, cycles for packet cores."""
        caps = {
            "director link in": self.director_link_Bps,
            "director link out": self.director_link_Bps,
            "director packets": self.director.clock_GHz * 1e9,
        }
        for i in range(servers):
            caps[f"real server {i} link out"] = self.link_Bps
            caps[f"real server {i} link in"] = self.link_Bps
            caps[f"real server {i} packets"] = self.real_server.clock_GHz * 1e9
        return caps


def machines(scenario: Scenario, catalog: Catalog) -> Machines:
    """The director's and real servers' hosts, NICs and LAN, each checked against the catalog."""
    body: RelayBody = scenario.body
    where = scenario.path

    def host_and_rate(key: str, host_id: str, nic_id: str) -> tuple[Host, float]:
        host = catalog.get("hosts", host_id, where, f"{key}.host")
        nic = catalog.get("nics", nic_id, where, f"{key}.nic")
        assert isinstance(host, Host) and isinstance(nic, Nic)
        if host.nics and nic_id not in host.nics:
            raise UserError(
                where,
                f"{key}.nic",
                f"{host_id} is fitted with {', '.join(host.nics)} (data/hardware/hosts.yaml), "
                f"got {nic_id!r}",
            )
        return host, nic_rate_Bps(catalog, nic) * 8 / 1e9

    director, director_Gbps = host_and_rate("director", body.director.host, body.director.nic)
    real, real_Gbps = host_and_rate("real_servers", body.real_servers.host, body.real_servers.nic)
    link = catalog.get("links", body.link, where, "link")
    assert isinstance(link, Link)
    lan_Bps = link.capacity_Gbps * 1e9 / 8
    return Machines(
        director=director,
        real_server=real,
        link_Bps=min(real_Gbps * 1e9 / 8, lan_Bps),
        director_link_Bps=min(director_Gbps * 1e9 / 8, lan_Bps),
        mtu_B=link.mtu_B or 1500,
    )


class Stages:
    """The work one product of ``B`` bytes puts on each station, stage by stage."""

    def __init__(self, body: RelayBody, mtu_B: int):
        self.mode = body.director.mode
        self.forward_cycles = body.director.forward_cycles_per_packet
        self.wire_per_B = tcp.tcp_wire_per_byte(mtu_B)
        self.frames_per_B = 1.0 / tcp.mss_B(mtu_B)

    def _stream(self, B: float) -> tuple[float, float, float, float]:
        """A TCP stream of ``B`` payload bytes: data wire bytes, data frames, ACK bytes, ACKs."""
        frames = B * self.frames_per_B
        acks = tcp.ACKS_PER_SEGMENT * frames
        return B * self.wire_per_B, frames, acks * ACK_FRAME_B, acks

    def upstream(self, B: float) -> dict[str, float]:
        """The product reaches the director from upstream."""
        wire, frames, ack_B, acks = self._stream(B)
        return {
            "director link in": wire,
            "director link out": ack_B,
            "director packets": (frames + acks) * NET_CYCLES_PER_FRAME,
        }

    def to_real_server(self, i: int, B: float) -> dict[str, float]:
        """The director sends the product to real server ``i``."""
        wire, frames, ack_B, acks = self._stream(B)
        cycles = (frames + acks) * NET_CYCLES_PER_FRAME
        return {
            "director link out": wire,
            "director link in": ack_B,
            "director packets": cycles,
            f"real server {i} link in": wire,
            f"real server {i} link out": ack_B,
            f"real server {i} packets": cycles,
        }

    def to_sites(self, i: int, sites: int, B: float) -> dict[str, float]:
        """Real server ``i`` sends the product to each of its ``sites``; their ACKs pass the
        director."""
        wire, frames, ack_B, acks = self._stream(sites * B)
        fwd = lvs.forwarded(self.mode, ack_B, acks, wire, frames)
        acks_out = lvs.forwarded(self.mode, ack_B, acks, 0.0, 0.0).out_B
        return {
            f"real server {i} link out": wire,
            f"real server {i} link in": acks_out,
            f"real server {i} packets": (frames + acks) * NET_CYCLES_PER_FRAME,
            "director link in": fwd.in_B,
            "director link out": fwd.out_B,
            "director packets": fwd.packets * self.forward_cycles,
        }

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


def bound_MBps(stages: Stages, caps: dict[str, float], sites_per_server: list[int]) -> float:
    """The bottleneck law: MB/s the sites can receive at most, over every station."""
    work = stages.per_product(sites_per_server, 1.0)  # per byte of the feed
    sites = sum(sites_per_server)
    return min(caps[name] / w for name, w in work.items() if w > 0) * sites / 1e6


def assign_sites(scheduler: lvs.Scheduler, weights: tuple[float, ...], servers: int, sites: int):
    """Connect ``sites`` sites one after another through the director's scheduler."""
    env = simpy.Environment()
    dispatcher = lvs.Dispatcher(
        [Station(env, f"real server {i}") for i in range(servers)], scheduler, list(weights) or None
    )
    for _ in range(sites):
        dispatcher.assign()
    return dispatcher


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    body: RelayBody = scenario.body
    kit = machines(scenario, catalog)
    servers = body.real_servers.count
    caps = kit.capacities(servers)
    stages = Stages(body, kit.mtu_B)
    env = simpy.Environment()
    stations = {name: Station(env, name) for name in caps}
    sites_per_server = list(  # the sites are connected before the run
        assign_sites(
            body.director.scheduler, body.real_servers.weights, servers, body.feed.sites
        ).active
    )

    def stage(work: dict[str, float]):
        yield env.all_of(
            [env.process(stations[name].serve(w / caps[name])) for name, w in work.items()]
        )

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
    arrivals_s = sizes_B.cumsum() / rate_Bps  # a steady feed: in once its last byte is

    def source():
        for at, B in zip(arrivals_s, sizes_B, strict=True):
            yield env.timeout(at - env.now)
            env.process(product(float(B)))

    env.process(source())
    env.run()
    elapsed = env.now
    offered_MBps = feed.sites * rate_Bps / 1e6
    return Result(
        scenario=scenario.name,
        bytes_moved=float(sizes_B.sum()) * feed.sites,
        elapsed_s=elapsed,
        utilization={name: s.busy_s / elapsed for name, s in stations.items()},
        bound_MBps=bound_MBps(stages, caps, sites_per_server),
        notes=_capacity_notes(body, stages, kit, sites_per_server, offered_MBps)
        + _availability_notes(body),
    )


def _capacity_notes(
    body: RelayBody, stages: Stages, kit: Machines, sites_per_server: list[int], offered_MBps: float
) -> tuple[str, ...]:
    servers = body.real_servers.count
    feed_MBps = body.feed.rate_GBph * 1e3 / 3600
    notes = [
        f"offered: {body.feed.sites} sites x {feed_MBps:.2f} MB/s of feed = "
        f"{offered_MBps:,.1f} MB/s; "
        f"LVS {body.director.mode}, {body.director.scheduler}: sites per real server "
        + ", ".join(str(n) for n in sites_per_server),
        f"one real server's link carries "
        f"{kit.link_Bps / (feed_MBps * 1e6 * stages.wire_per_B):.0f} sites at this feed",
    ]
    if servers > 1:
        survivors = assign_sites(
            body.director.scheduler, body.real_servers.weights[1:], servers - 1, body.feed.sites
        )
        left = bound_MBps(stages, kit.capacities(servers - 1), list(survivors.active))
        notes.append(
            f"real server 0 down, its sites reconnect to the others: at most {left:.1f} MB/s, "
            f"{100 * min(left / offered_MBps, 1.0):.0f} % of the offered load"
        )
    return tuple(notes)


def _availability_notes(body: RelayBody) -> tuple[str, ...]:
    r = body.reliability

    def directors(n: int) -> availability.Availability:
        return availability.units(n, r.mtbf_h, r.mttr_h, r.repair_crews, r.takeover_s)

    def line(label: str, a: availability.Availability) -> str:
        return (
            f"{label}: availability {100 * a.availability:.5f} %, "
            f"downtime {a.downtime_h_per_year:.3f} h/year in {a.outages_per_year:.2f} outages/year"
        )

    count = body.director.count
    real = availability.units(body.real_servers.count, r.mtbf_h, r.mttr_h, r.repair_crews)
    service = directors(count).availability * real.availability
    return (
        line("one director", directors(1)),
        line("a failover pair of directors", directors(2)),
        line(f"real servers (one of {body.real_servers.count} suffices)", real),
        f"the virtual server ({count} director{'s' if count > 1 else ''} and the real servers): "
        f"availability "
        f"{100 * service:.5f} %, downtime {(1 - service) * availability.HOURS_PER_YEAR:.3f} h/year",
    )


MODEL = ModelRecord(
    "relay_cluster",
    RelayBody,
    simulate,
    unmeasured="the report (000) gives the relay cluster's machines and LAN but no feed rate, "
    "site count, capacity or failure figure to compare with",
)
