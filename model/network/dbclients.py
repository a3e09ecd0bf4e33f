"""Remote database clients: MDSplus thin against distributed clients, several at once, over data
servers.

Each client process (one per client machine) makes its reads one at a time; a read is a sequence of
phases, each a flow on a :class:`~model.sim.flows.FlowNetwork` so that concurrent phases share CPUs
and NICs max-min fairly (processor sharing):

thin (the server evaluates; every client connects to MDSplus server 0)
  request round trip -> server process: read the stored record (``mds_serve_cycles_per_byte`` per
  stored byte), decompress it, evaluate the expression -> send the evaluated data to the client.
dist (the client evaluates; reads spread over the ``tree_servers`` that hold the tree)
  request round trip -> server process reads the stored record -> send it, compressed -> the client
  decompresses and evaluates. With compression turned off on the client (the ``uncompressed``
  test), the server decompresses before sending and the full data crosses the network.
ptdata (the node calls ptdata2(): the data live on the PTDATA server, server 1)
  thin: the PTDATA server reads the data and sends them to the MDSplus server, which sends them on
  (the extra hop); dist: the PTDATA server sends them to the client directly.
indirection: each of ``indirection_levels`` node references is one more small record; the thin
  server reads it locally, the distributed client asks the server for it (one round trip each).

Sending and receiving cost each host per frame (``net_cycles_per_frame``, with ``tcp.tso`` and
``tcp.gro`` as ``tcp.tcp_frame_work_per_byte`` counts it, a receiver's share of it in the reading
process, ``tcp.reader_share``) and one copy, and the byte crosses each host's memory by that copy
and its NIC's DMA (``hosts.NET_CROSSINGS``, where the catalog gives the host's memory bandwidth;
the servers' reads of their records and the clients' evaluation are cycles a byte with no pass
over memory the model counts). Server
cores are shared with other users' work (``server_background_load``); the clients' are not. The
result is one client's: its bytes over the time until every client has finished (the per-client
rate of the report's tables). Calibrated on ``mdsplus_read``
(``004_892e9be6fdf9fcf4.txt``).
"""

from __future__ import annotations

import math

import simpy

from .. import memory
from ..catalog import Catalog
from ..errors import NotModelled
from ..nic_links import check_mtu, check_placed, nic_notes
from ..result import Result, busiest
from ..settings import TcpBuffers
from ..sim.flows import Flow, FlowNetwork, FlowResource, rated_usage
from ..spec import ModelRecord, Scenario
from . import tcp
from .hosts import NET_CROSSINGS, HostNet, charge, host_net
from .parameters import PARAMETERS
from .spec import DbBody

MDS_SERVER, PTDATA_SERVER = 0, 1
# below this busiest share, no resource binds: the reads' phases do, one after another, and where
# the rate falls this share or more short of its bound, clients in step (a note; a rate at its
# bound, a lone read's phases in turn, gets none: the review found it said of distributed math)
IN_STEP_BELOW = 0.9
IN_STEP_SHORT = 0.05


def _wire(
    usage: dict,
    src: HostNet,
    dst: HostNet,
    dst_core: FlowResource,
    mtu_B: int,
    settings: TcpBuffers,
) -> None:
    """The usage of one byte sent from ``src`` to ``dst`` over TCP on the LAN; the process on
    ``dst_core`` reads its one socket, and does the TCP work it finds in the socket's backlog
    (``tcp.reader_share``)."""
    wire = tcp.tcp_wire_per_byte(mtu_B)
    sent, received = tcp.tcp_frame_work_per_byte(mtu_B, settings)
    in_reader = tcp.reader_share(mtu_B, settings) * received * dst.frame_s
    charge(usage, src, None, sent * src.frame_s, on_irq=True)
    charge(usage, dst, None, received * dst.frame_s - in_reader, on_irq=True)
    charge(usage, dst, dst_core, in_reader)
    for side in (src, dst):
        side.charge_nic(usage, 0, wire)


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    """Every client's reads side by side; the result is one client's: its bytes over the time
    until every client has finished."""
    body: DbBody = scenario.body
    check_parts(body, catalog, scenario.path)
    run = _Clients(body, catalog, params, scenario.path)
    makespan = run.run()
    per_client_B = body.workload.reads_per_client * run.read_B
    bound = _bound_MBps(run.net, per_client_B, max(run.alone_s[False]))
    utilization = run.net.utilization(makespan)
    # the window beside the resources (named the bottleneck where a long round trip makes it the
    # limit, as a WAN transfer's)
    utilization["tcp window"] = _at_window_share(run.windowed, makespan, body.workload.clients)
    rate_MBps = per_client_B / makespan / 1e6
    return Result(
        scenario=scenario.name,
        bytes_moved=per_client_B,
        elapsed_s=makespan,
        utilization=utilization,
        bound_MBps=bound,
        ceiling_MBps=_bound_MBps(run.net, per_client_B, max(run.alone_s[True]), rated=True),
        notes=_notes(body, catalog, run, utilization, rate_MBps, bound),
        labels=run.net.labels(),
    )


def _framing(body: DbBody, params: dict[str, float]) -> dict:
    """What each host's NIC carries over its link into the host (``nic_links.nic_rate_Bps``)."""
    return {"mtu_B": body.mtu_B, "bus_efficiency": params["bus_efficiency"]}


def _hosts(
    net: FlowNetwork,
    body: DbBody,
    catalog: Catalog,
    params: dict[str, float],
    where: str,
    role: str,
    count: int,
    available: float = 1.0,
) -> list[HostNet]:
    """``count`` hosts of ``role`` (``server``: the data servers, their cores ``available`` to
    the clients' reads beside other users' work; ``client``: the client machines, a client
    each)."""
    return [
        host_net(
            net,
            catalog,
            f"{role}{h}",
            getattr(body, f"{role}_host"),
            body.nic,
            1,
            "cpu0",
            body.net_cycles_per_frame,
            where,
            host_key=f"{role}_host",
            nic_key="nic",
            **_framing(body, params),
            available=available,
        )
        for h in range(count)
    ]


def _cycles_s(host: HostNet, cycles_per_byte: float) -> float:
    """CPU seconds a byte on ``host`` of ``cycles_per_byte`` cycles."""
    return cycles_per_byte / (host.host.clock_GHz * 1e9)


class _Clients:
    """The clients and servers on one flow network, and what a read's phases cost them: a read is
    a sequence of phases (``wait``, ``compute``, ``send``), one kind of read a method
    (``_ptdata_read``, ``_mds_read``: ``_references``, ``_thin_reply``, ``_dist_reply``).

    Beside the flows it keeps what the bound and the notes need: each client's reads with the whole
    system to itself (``alone_s``), over every resource and over the rated ones alone
    (``FlowResource.rated``: its CPU work an estimate, its round trips, NICs and windows not); the
    replies a TCP window caps, to tell how much of their time it bound them (``windowed``); when
    each client finished (``finished``)."""

    def __init__(self, body: DbBody, catalog: Catalog, params: dict[str, float], where: str):
        w = body.workload
        self.body, self.w = body, w
        self.thin = body.client_mode == "thin"
        self.env = simpy.Environment()
        self.net = FlowNetwork(self.env)
        self.free = 1.0 - params["server_background_load"]
        self.framing = _framing(body, params)
        self.servers = _hosts(
            self.net, body, catalog, params, where, "server", body.servers, self.free
        )
        self.clients = _hosts(self.net, body, catalog, params, where, "client", w.clients)
        self.read_B = w.read_MB * 1e6
        self.settings = body.tcp_tuned if w.test == "tcp_tuned" else body.tcp
        self.rtt_s = body.lan_rtt_ms / 1e3
        window = tcp.window_B(self.settings, body.socket_buffer_B, w.clients)
        self.cap_Bps = tcp.window_limit_Bps(window, self.rtt_s)
        # cycles a byte: the server's read of a stored byte, expanding a stored byte (a record
        # stored as it is, compression_ratio 1, has nothing to expand), evaluating the math test
        self.serve = params["mds_serve_cycles_per_byte"]
        self.decompress = body.decompress_cycles_per_byte if body.compression_ratio > 1 else 0.0
        self.evaluate = (
            params["tdi_math_cycles_per_value"] * w.values_per_read / self.read_B
            if w.test == "math"
            else 0.0
        )
        self.alone_s = {rated: [0.0] * w.clients for rated in (False, True)}
        self.windowed: list[Flow] = []
        self.finished: list[float] = []

    def run(self) -> float:
        """Every client's reads, the clients started together; when the last one finished."""
        for i in range(self.w.clients):
            self.env.process(self.client(i))
        self.env.run()
        if len(self.finished) != self.w.clients:
            raise NotModelled("a client that never finished")
        return max(self.finished)

    def client(self, i: int):
        """Client ``i``'s process: its reads one at a time."""
        me = self.clients[i]
        mine = me.process("client")
        read = self._ptdata_read if self.w.test == "ptdata" else self._mds_read
        for _ in range(self.w.reads_per_client):
            yield from read(i, me, mine)
        self.finished.append(self.env.now)

    # ------------------------------------------------------------------------- a read's phases

    def transfer(
        self,
        i: int,
        size_B: float,
        usage: dict[FlowResource, float],
        name: str,
        cap: float = float("inf"),
    ) -> simpy.Event:
        """A phase of client ``i``'s read as a flow of ``size_B`` bytes (at ``cap`` at most)."""
        self.alone_s[False][i] += _alone_s(size_B, usage, cap)
        self.alone_s[True][i] += _alone_s(size_B, rated_usage(usage), cap)
        flow = self.net.transfer(size_B, usage, name=name, max_rate_Bps=cap)
        if math.isfinite(cap):
            self.windowed.append(flow)
        return flow.done

    def wait(self, i: int, seconds: float) -> simpy.Event:
        """Client ``i`` waits ``seconds`` (round trips), with the system to itself or not."""
        for alone in self.alone_s.values():
            alone[i] += seconds
        return self.env.timeout(seconds)

    def compute(
        self, i: int, host: HostNet, core: FlowResource, size_B: float, s_per_byte: float, what: str
    ) -> simpy.Event:
        """``s_per_byte`` of CPU on ``core`` for each of ``size_B`` bytes, for client ``i`` (a flow
        named ``what`` and the client)."""
        if s_per_byte <= 0.0:
            return self.env.timeout(0.0)
        usage: dict[FlowResource, float] = {}
        charge(usage, host, core, s_per_byte)
        return self.transfer(i, size_B, usage, f"{what} {i}")

    def send(
        self,
        i: int,
        src: HostNet,
        src_core: FlowResource,
        dst: HostNet,
        dst_core: FlowResource,
        size_B: float,
        what: str,
    ) -> simpy.Event:
        """``size_B`` bytes from ``src`` to ``dst`` for client ``i`` (a flow named ``what`` and the
        client): a copy on each side, the TCP work and the wire between, each host's memory, at
        the TCP window a round trip."""
        usage: dict[FlowResource, float] = {}
        charge(usage, src, src_core, src.copy_s_per_byte)
        _wire(usage, src, dst, dst_core, self.body.mtu_B, self.settings)
        charge(usage, dst, dst_core, dst.copy_s_per_byte)
        for side in (src, dst):
            memory.charge(usage, side.memory, NET_CROSSINGS)
        return self.transfer(i, size_B, usage, f"{what} {i}", self.cap_Bps)

    # ------------------------------------------------------------------------- the reads, by kind

    def _ptdata_read(self, i: int, me: HostNet, mine: FlowResource):
        """The node calls ptdata2(): the PTDATA server reads the data and sends them to the
        MDSplus server, which sends them on (thin: one more round trip and hop), or to the
        distributed client directly."""
        source = self.servers[PTDATA_SERVER]
        source_core = source.process(f"c{i}", self.free)
        yield self.wait(i, self.rtt_s * (2 if self.thin else 1))
        serve_s = _cycles_s(source, self.serve)
        yield self.compute(i, source, source_core, self.read_B, serve_s, "ptdata read")
        if self.thin:
            relay = self.servers[MDS_SERVER]
            relay_core = relay.process(f"c{i}", self.free)
            yield self.send(i, source, source_core, relay, relay_core, self.read_B, "ptdata to mds")
            yield self.send(i, relay, relay_core, me, mine, self.read_B, "mds to client")
        else:
            yield self.send(i, source, source_core, me, mine, self.read_B, "ptdata to client")

    def _mds_read(self, i: int, me: HostNet, mine: FlowResource):
        """A read of a record on an MDSplus server (thin: server 0; dist: spread over the
        ``tree_servers``): the request's round trip, the references of the indirection test,
        then the thin or the distributed client's reply."""
        server = self.servers[MDS_SERVER if self.thin else i % self.body.tree_servers]
        core = server.process(f"c{i}", self.free)
        yield self.wait(i, self.rtt_s)
        if self.w.test == "indirection":
            yield from self._references(i, server, core)
        reply = self._thin_reply if self.thin else self._dist_reply
        yield from reply(i, server, core, me, mine)

    def _references(self, i: int, server: HostNet, core: FlowResource):
        """``indirection_levels`` node references, one small record each: the thin server reads
        them locally; the distributed client asks the server for each, one round trip a level."""
        w = self.w
        serve_s = _cycles_s(server, self.serve)
        if self.thin:
            refs_B = w.indirection_levels * w.reference_record_B
            yield self.compute(i, server, core, refs_B, serve_s, "references")
            return
        for _level in range(w.indirection_levels):
            yield self.wait(i, self.rtt_s)
            per_byte_s = serve_s + 2 * server.frame_s / w.reference_record_B
            yield self.compute(i, server, core, w.reference_record_B, per_byte_s, "reference")

    def _thin_reply(
        self, i: int, server: HostNet, core: FlowResource, me: HostNet, mine: FlowResource
    ):
        """The thin client's: the server reads the stored record, expands and evaluates it, and
        sends the evaluated data."""
        server_s = (
            _cycles_s(server, self.serve) / self.body.compression_ratio
            + _cycles_s(server, self.decompress)
            + _cycles_s(server, self.evaluate)
        )
        yield self.compute(i, server, core, self.read_B, server_s, "evaluate")
        yield self.send(i, server, core, me, mine, self.read_B, "result")

    def _dist_reply(
        self, i: int, server: HostNet, core: FlowResource, me: HostNet, mine: FlowResource
    ):
        """The distributed client's: the server reads the stored record and sends it compressed,
        the client expands and evaluates it; with compression off on the client (the
        ``uncompressed`` test) the server expands it and the full data cross the network."""
        uncompressed = self.w.test == "uncompressed"
        on_wire = self.read_B / self.body.compression_ratio
        server_s = _cycles_s(server, self.serve) / self.body.compression_ratio
        if uncompressed:
            server_s += _cycles_s(server, self.decompress)
            on_wire = self.read_B
        yield self.compute(i, server, core, self.read_B, server_s, "record")
        yield self.send(i, server, core, me, mine, on_wire, "record to client")
        client_s = _cycles_s(me, self.evaluate) + (
            0.0 if uncompressed else _cycles_s(me, self.decompress)
        )
        yield self.compute(i, me, mine, self.read_B, client_s, "evaluate")


def _at_window_share(windowed: list[Flow], makespan_s: float, clients: int) -> float:
    """The share of the clients' time their replies ran at the TCP window a round trip."""
    at_window_s = sum(
        f.finished_s - f.started_s
        for f in windowed
        if f.size_B / (f.finished_s - f.started_s) >= f.max_rate_Bps * (1 - 1e-9)
    )
    return min(1.0, at_window_s / (makespan_s * clients))


def _notes(
    body: DbBody,
    catalog: Catalog,
    run: _Clients,
    utilization: dict[str, float],
    rate_MBps: float,
    bound_MBps: float,
) -> tuple[str, ...]:
    """The run's set-up, its NICs' links into the hosts, clients kept in step, each host's
    memory where it binds."""
    bottleneck = busiest(utilization)
    return (
        f"per client: {body.workload.clients} client(s), {body.client_mode}, "
        f"test {body.workload.test}",
        *nic_notes(
            catalog, (body.nic, body.server_host), (body.nic, body.client_host), **run.framing
        ),
        *_in_step_note(utilization, rate_MBps, bound_MBps),
        *(
            line
            for side in (*run.servers, *run.clients)
            for line in memory.note(bottleneck, side.label, side.host, NET_CROSSINGS)
        ),
    )


def _in_step_note(
    utilization: dict[str, float], rate_MBps: float, bound_MBps: float
) -> tuple[str, ...]:
    """A note where no resource binds and the rate falls short of its bound: the reads' phases
    run one after another, and clients started together keep in step."""
    busiest_share = max(utilization.values(), default=0.0)
    if busiest_share < IN_STEP_BELOW and rate_MBps < (1.0 - IN_STEP_SHORT) * bound_MBps:
        return (
            f"no resource is busy all the time (the busiest {100 * busiest_share:.0f} %): each "
            "read's phases run one after another (the request, the server's work, the reply, the "
            "client's own), and clients started together keep in step, so the bound's figure, "
            "which has them overlap, is not reached",
        )
    return ()


def _alone_s(size_B: float, usage: dict[FlowResource, float], cap_Bps: float) -> float:
    """A phase's time with the system to itself: its bytes at its slowest resource's pace, or at
    its cap (a TCP window a round trip) where that is slower."""
    slowest_s = max((a / r.capacity for r, a in usage.items()), default=0.0)
    return size_B * max(slowest_s, 1.0 / cap_Bps)


def _bound_MBps(
    net: FlowNetwork, per_client_B: float, alone_s: float, rated: bool = False
) -> float:
    """Two lower bounds on the time until every client is done, as a rate per client: the busiest
    resource's total demand over its capacity (the bottleneck law), and the longest client's reads
    with the system to itself (phases one after another, each at its fastest); with ``rated``, of
    the rated resources alone and ``alone_s`` counted over them (``Result.ceiling_MBps``)."""
    busiest_s = max(
        (
            r.carried / (r.rated_capacity if rated else r.capacity)
            for r in net.resources.values()
            if r.rated or not rated
        ),
        default=0.0,
    )
    return per_client_B / max(busiest_s, alone_s, 1e-12) / 1e6


def check_parts(body: DbBody, catalog: Catalog, where: str) -> None:
    """Fast Ethernet carries no jumbo frame, nor a NIC more than its driver takes
    (``nic_links.check_mtu``)."""
    check_mtu(body.mtu_B, catalog, where, {"nic": body.nic})
    check_placed(
        catalog,
        (("nic", body.nic, body.server_host, 1), ("nic", body.nic, body.client_host, 1)),
        where,
    )


MODEL = ModelRecord(
    "db_clients",
    DbBody,
    simulate,
    PARAMETERS,
    check_parts=lambda body, catalog, params, where: check_parts(body, catalog, where),
    per="client",
)
