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
from ..nic_links import check_mtu, nic_notes
from ..result import Result, busiest
from ..settings import TcpBuffers
from ..sim.flows import FlowNetwork, FlowResource, rated_usage
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
    body: DbBody = scenario.body
    w = body.workload
    where = scenario.path
    check_parts(body, catalog, where)
    thin = body.client_mode == "thin"
    env = simpy.Environment()
    net = FlowNetwork(env)
    free = 1.0 - params["server_background_load"]
    # what each host's NIC carries over its link into the host (nic_links.nic_rate_Bps)
    framing = {"mtu_B": body.mtu_B, "bus_efficiency": params["bus_efficiency"]}
    servers = [
        host_net(
            net,
            catalog,
            f"server{h}",
            body.server_host,
            body.nic,
            1,
            "cpu0",
            body.net_cycles_per_frame,
            where,
            host_key="server_host",
            nic_key="nic",
            **framing,
            available=free,
        )
        for h in range(body.servers)
    ]
    clients = [
        host_net(
            net,
            catalog,
            f"client{i}",
            body.client_host,
            body.nic,
            1,
            "cpu0",
            body.net_cycles_per_frame,
            where,
            host_key="client_host",
            nic_key="nic",
            **framing,
        )
        for i in range(w.clients)
    ]
    read_B = w.read_MB * 1e6
    stored_B = read_B / body.compression_ratio
    settings = body.tcp_tuned if w.test == "tcp_tuned" else body.tcp
    rtt_s = body.lan_rtt_ms / 1e3
    cap_Bps = tcp.window_limit_Bps(tcp.window_B(settings, body.socket_buffer_B, w.clients), rtt_s)

    def cycles(host: HostNet, per_byte: float) -> float:
        return per_byte / (host.host.clock_GHz * 1e9)

    serve = params["mds_serve_cycles_per_byte"]
    # a record stored as it is (compression_ratio 1) has nothing to expand
    decompress = body.decompress_cycles_per_byte if body.compression_ratio > 1 else 0.0
    evaluate = (
        params["tdi_math_cycles_per_value"] * w.values_per_read / read_B
        if w.test == "math"
        else 0.0
    )

    # each client's reads with the whole system to itself, over every resource and over the rated
    # ones alone (``FlowResource.rated``: its CPU work an estimate, its round trips, NICs and
    # windows not)
    alone_s = {rated: [0.0] * w.clients for rated in (False, True)}

    windowed = []  # the replies a TCP window caps, to tell how much of their time it bound them

    def transfer(
        i: int,
        size_B: float,
        usage: dict[FlowResource, float],
        name: str,
        cap: float = float("inf"),
    ):
        alone_s[False][i] += _alone_s(size_B, usage, cap)
        alone_s[True][i] += _alone_s(size_B, rated_usage(usage), cap)
        flow = net.transfer(size_B, usage, name=name, max_rate_Bps=cap)
        if math.isfinite(cap):
            windowed.append(flow)
        return flow.done

    def wait(i: int, seconds: float):
        for alone in alone_s.values():
            alone[i] += seconds
        return env.timeout(seconds)

    def compute(
        i: int, host: HostNet, core: FlowResource, size_B: float, s_per_byte: float, what: str
    ):
        """``s_per_byte`` of CPU on ``core`` for each of ``size_B`` bytes, for client ``i`` (a flow
        named ``what`` and the client)."""
        if s_per_byte <= 0.0:
            return env.timeout(0.0)
        usage: dict[FlowResource, float] = {}
        charge(usage, host, core, s_per_byte)
        return transfer(i, size_B, usage, f"{what} {i}")

    def send(
        i: int,
        src: HostNet,
        src_core: FlowResource,
        dst: HostNet,
        dst_core: FlowResource,
        size_B: float,
        what: str,
    ):
        """``size_B`` bytes from ``src`` to ``dst`` for client ``i`` (a flow named ``what`` and the
        client)."""
        usage: dict[FlowResource, float] = {}
        charge(usage, src, src_core, src.copy_s_per_byte)
        _wire(usage, src, dst, dst_core, body.mtu_B, settings)
        charge(usage, dst, dst_core, dst.copy_s_per_byte)
        for side in (src, dst):
            memory.charge(usage, side.memory, NET_CROSSINGS)
        return transfer(i, size_B, usage, f"{what} {i}", cap_Bps)

    finished: list[float] = []

    def client(i: int):
        me = clients[i]
        mine = me.process("client")
        for _ in range(w.reads_per_client):
            if w.test == "ptdata":
                source = servers[PTDATA_SERVER]
                source_core = source.process(f"c{i}", free)
                yield wait(i, rtt_s * (2 if thin else 1))
                yield compute(i, source, source_core, read_B, cycles(source, serve), "ptdata read")
                if thin:
                    relay = servers[MDS_SERVER]
                    relay_core = relay.process(f"c{i}", free)
                    yield send(i, source, source_core, relay, relay_core, read_B, "ptdata to mds")
                    yield send(i, relay, relay_core, me, mine, read_B, "mds to client")
                else:
                    yield send(i, source, source_core, me, mine, read_B, "ptdata to client")
                continue
            server = servers[MDS_SERVER if thin else i % body.tree_servers]
            core = server.process(f"c{i}", free)
            yield wait(i, rtt_s)
            if w.test == "indirection":
                refs_B = w.indirection_levels * w.reference_record_B
                if not thin:  # the client follows each reference itself: one round trip per level
                    for _level in range(w.indirection_levels):
                        yield wait(i, rtt_s)
                        yield compute(
                            i,
                            server,
                            core,
                            w.reference_record_B,
                            cycles(server, serve) + 2 * server.frame_s / w.reference_record_B,
                            "reference",
                        )
                else:
                    yield compute(i, server, core, refs_B, cycles(server, serve), "references")
            if thin:
                yield compute(
                    i,
                    server,
                    core,
                    read_B,
                    cycles(server, serve) / body.compression_ratio
                    + cycles(server, decompress)
                    + cycles(server, evaluate),
                    "evaluate",
                )
                yield send(i, server, core, me, mine, read_B, "result")
            else:
                on_wire = stored_B
                server_work = cycles(server, serve) / body.compression_ratio
                if w.test == "uncompressed":  # the server expands the record before sending it
                    server_work += cycles(server, decompress)
                    on_wire = read_B
                yield compute(i, server, core, read_B, server_work, "record")
                yield send(i, server, core, me, mine, on_wire, "record to client")
                client_work = cycles(me, evaluate) + (
                    0.0 if w.test == "uncompressed" else cycles(me, decompress)
                )
                yield compute(i, me, mine, read_B, client_work, "evaluate")
        finished.append(env.now)

    for i in range(w.clients):
        env.process(client(i))
    env.run()
    if len(finished) != w.clients:
        raise NotModelled("a client that never finished")
    makespan = max(finished)
    per_client_B = w.reads_per_client * read_B
    bound = _bound_MBps(net, per_client_B, max(alone_s[False]))
    utilization = net.utilization(makespan)
    # the window beside the resources: the share of the clients' time their replies ran at it
    # (named the bottleneck where a long round trip makes it the limit, as a WAN transfer's)
    at_window_s = sum(
        f.finished_s - f.started_s
        for f in windowed
        if f.size_B / (f.finished_s - f.started_s) >= f.max_rate_Bps * (1 - 1e-9)
    )
    utilization["tcp window"] = min(1.0, at_window_s / (makespan * w.clients))
    busiest_share = max(utilization.values(), default=0.0)
    short = per_client_B / makespan / 1e6 < (1.0 - IN_STEP_SHORT) * bound  # below its bound
    in_step = (
        (
            f"no resource is busy all the time (the busiest {100 * busiest_share:.0f} %): each "
            "read's phases run one after another (the request, the server's work, the reply, the "
            "client's own), and clients started together keep in step, so the bound's figure, "
            "which has them overlap, is not reached",
        )
        if busiest_share < IN_STEP_BELOW and short
        else ()
    )
    bottleneck = busiest(utilization)
    return Result(
        scenario=scenario.name,
        bytes_moved=per_client_B,
        elapsed_s=makespan,
        utilization=utilization,
        bound_MBps=bound,
        ceiling_MBps=_bound_MBps(net, per_client_B, max(alone_s[True]), rated=True),
        notes=(
            f"per client: {w.clients} client(s), {body.client_mode}, test {w.test}",
            *nic_notes(
                catalog, (body.nic, body.server_host), (body.nic, body.client_host), **framing
            ),
            *in_step,
            *(
                line
                for side in (*servers, *clients)
                for line in memory.note(bottleneck, side.label, side.host, NET_CROSSINGS)
            ),
        ),
    )


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


MODEL = ModelRecord(
    "db_clients",
    DbBody,
    simulate,
    PARAMETERS,
    check_parts=lambda body, catalog, params, where: check_parts(body, catalog, where),
    per="client",
)
