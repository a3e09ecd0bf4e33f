"""Clients in front of a storage host: each client's connection as one flow from its NIC, over the
LAN and the host's (bonded) NICs, through the host's interrupt cores and one server process, down
the storage path (``model.storage.topology``) and back.

What a byte costs on the way, per client (each client one stream, over ``clients.connections``
TCP connections, one by default):

- its NIC and one member of the host's bond: the payload, the protocol's framing per request and
  TCP/IP over Ethernet per frame (``model.network.tcp``), at the LAN's MTU; LACP hashes a
  connection onto one member (``bond_members``);
- the host's interrupt cores, per frame (``model.settings.NET_CYCLES_PER_FRAME`` at the host's
  clock; with its TSO and GRO, ``clients.tso`` and ``clients.gro``, what a modern kernel's
  segments cost, ``model.network.tcp.tcp_frame_work_per_byte``), and the server process (smbd,
  nfsd, nginx) a copy between socket and page cache, and its share of the receive work, the TCP
  work it finds in its socket's backlog (``model.network.tcp.reader_share``);
- the buffered I/O path in that process (the storage model's ``io_copy_passes`` and
  ``io_write_extra_passes``, a write dearer on an ext3 store by the kernel's ``ext3_write_ratio``)
  and the drives, channels, controllers and buses below;
- the host's memory (``model.memory``), by every pass above that moves the byte: the NIC's DMA
  and the socket's copy (``model.network.hosts.NET_CROSSINGS``), the page cache's copy, the
  checksums and parity and the drives' DMA (``stream.memory_crossings``);
- what a client keeps in flight over each answer's wait, its LAN round trip (``clients.rtt_ms``)
  included (Little's law, ``client_limit_Bps``): a client reading at random its requests in flight
  (``clients.queue_depth``, one unless set), an NFS
  client reading a file through its read-ahead one window (``clients.read_ahead_KiB``); and a
  connection at most its TCP window a round trip (``model.network.tcp.window_B`` of the hosts'
  ``clients.tcp_rmem_B`` and ``tcp_wmem_B``), a resource ``tcp window N`` where it could bind.

The protocol's framing per request, from the protocols' own specifications (``FRAMING_B``). Used by
the storage model when a scenario has ``clients`` and by the microscope ingest (``model.servers``),
whose clients write images over SMB2.

Calibrated: the buffered path's ``io_copy_passes`` and ``io_write_extra_passes`` and the links'
``bus_efficiency`` (``model.storage.parameters``; fitted on the tables their docstrings name); an
NFS call's own work, ``nfs_call_cycles``, is an unfitted estimate whose range the interval spans.
No table measures clients in front of a store: em_ingest measures the store alone.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace

import simpy

from .. import memory
from ..catalog import Catalog
from ..errors import NotModelled, UserError
from ..network import tcp
from ..network.hosts import (
    NET_CROSSINGS,
    HostNet,
    add,
    charge,
    charge_frames,
    host_net,
    partition_bound_Bps,
)
from ..nic_links import listed_ports_notes, nic_notes, nic_rate_Bps
from ..result import OFFERED_LOAD, Result, busiest
from ..settings import NET_CYCLES_PER_FRAME, TcpBuffers, lan_tcp
from ..sim.flows import FlowNetwork, FlowResource
from ..sim.rng import stream as rng_stream
from ..spec import Scenario
from . import slots, topology
from . import stream as storage_stream
from .spec import NFSD_THREADS, Clients, StorageBody

SMB2_HEADER_B = 64  # MS-SMB2 2.2.1: the SMB2 packet header
SMB2_WRITE_REQUEST_B = 48  # 2.2.21: a WRITE request's fixed part (StructureSize 49 counts a byte)
SMB2_READ_RESPONSE_B = 16  # 2.2.20: a READ response's fixed part
SMB_TRANSPORT_B = 4  # 2.1: Direct TCP transport, a 4-byte stream-length header per message
# nginx's response header for a static file, as ngx_http_header_filter_module writes it: the status
# line (17 bytes), Server: nginx/1.x.y (22), Date (37), Content-Type: application/octet-stream (40,
# default_type for a name mime.types does not list), Content-Length (25 at seven digits),
# Last-Modified (46), Connection: keep-alive (24), ETag (25), Accept-Ranges: bytes (22) and the
# blank line (2)
HTTP_RESPONSE_HEADER_B = 260

# Bytes of a protocol's own framing per request, besides TCP/IP and Ethernet:
# - smb: the SMB2 header, a WRITE request's fixed part or a READ response's, and the Direct TCP
#   transport header (above);
# - nfs: NFSv3 over TCP: the 4-byte record mark (RFC 5531 11), the RPC reply header with its null
#   verifier (24) and READ's post-op attributes, count, eof and data length (RFC 1813 3.3.6:
#   88 + 12) for a read; the RPC call header (24), AUTH_UNIX credentials of a uid and a gid and no
#   groups (RFC 5531 A: 40) and verifier (8), the file handle (36) and offset, count, stable and
#   data length (20) for a write;
# - http: nginx's response header (above) for a read, the same for a request carrying a body;
# - tcp: a plain stream, no framing.
FRAMING_B = {
    ("smb", "read"): SMB2_HEADER_B + SMB2_READ_RESPONSE_B + SMB_TRANSPORT_B,
    ("smb", "write"): SMB2_HEADER_B + SMB2_WRITE_REQUEST_B + SMB_TRANSPORT_B,
    ("nfs", "read"): 4 + 24 + 88 + 12,
    ("nfs", "write"): 4 + 24 + 40 + 8 + 36 + 20,
    ("http", "read"): HTTP_RESPONSE_HEADER_B,
    ("http", "write"): HTTP_RESPONSE_HEADER_B,
    ("tcp", "read"): 0,
    ("tcp", "write"): 0,
}


def payload_per_byte(protocol: str, op: str, request_B: float) -> float:
    """TCP payload bytes per byte of data: the data and the protocol's framing of each request."""
    return 1.0 + FRAMING_B[(protocol, op)] / request_B


def bond_members(
    clients: int,
    members: int,
    hashing: str,
    seed: int,
    assignment: tuple[int, ...] | None = None,
) -> tuple[int, ...]:
    """The bond member each client's connection is hashed onto: ``balanced`` (client i on member
    i mod members), ``collide`` (all on the first), ``seeded`` (drawn from the named random stream
    ``lacp hash`` of ``seed``), or ``assignment`` outright (checked by the caller)."""
    if assignment is not None:
        return tuple(int(m) for m in assignment)
    if hashing == "collide":
        return (0,) * clients
    if hashing == "seeded":
        return tuple(int(m) for m in rng_stream(seed, "lacp hash").integers(members, size=clients))
    return tuple(i % members for i in range(clients))


def _bond_words(members: tuple[int, ...], ports: int, connections: int, hashing: str) -> str:
    """How the connections split across the host's bonded ports, in words (" on the host's 2
    bonded ports (clients.hashing seeded): 3 on member 0, 5 on member 1"): where a hashing put
    more on one port than another, or none on one (collide), it says why one port binds (seeded
    hashing had named only the members used, the all-flash quotes audit). Nothing where the host
    has one port."""
    if ports == 1:
        return " on the host's one port"
    unit = " connections" if connections > 1 else ""
    on = Counter(members)
    split = ", ".join(f"{on[m]}{unit} on member {m}" for m in range(ports))  # idle ones too
    return f" on the host's {ports} bonded ports (clients.hashing {hashing}): {split}"


@dataclass
class Front:
    """The clients' flows declared on one network: each connection's usage per byte of data (a
    client opens ``connections`` of them, which share its port)."""

    net: FlowNetwork
    side: HostNet
    path: topology.StoragePath
    usages: list[dict[FlowResource, float]]
    client_nics: list[FlowResource]  # each connection's client port
    windows: list[FlowResource]  # each connection's window a round trip, where it could bind
    servers: list[FlowResource]  # each connection's server process
    members: tuple[int, ...]  # each connection's bond member
    bytes_per_flow: float  # what each connection moves
    mtu_B: int  # the clients' LAN's MTU
    # the server's thread pool (nfsd's): its threads' time, then, for reads at random, their drive
    # waits, each a resource of as many thread-s a second as it has threads; empty without one
    pool: tuple[FlowResource, ...]
    # what the host's NICs leave unused (nic_links.listed_ports_notes) and what the host's and the
    # clients' slots hold them to (nic_links.nic_notes, every port the host lists)
    notes: tuple[str, ...]


def build(
    net: FlowNetwork,
    body: StorageBody,
    catalog: Catalog,
    params: dict[str, float],
    where: str,
    *,
    clients: int,
    connections: int,
    client_nic: str,
    link: str,
    irq_affinity: str,
    members_of: tuple[int, ...] | None,
    hashing: str,
    seed: int,
    payload: float,
    process: str,
    front_where: str,
    nic_key: str,
    link_key: str,
    tcp_buffers: TcpBuffers,
    rtt_s: float,
    read_ahead_B: float | None,
    server_threads: int | None,
) -> Front:
    """Declare the host's network side, its storage path and the usage per byte of each of the
    ``connections`` each client opens (client ``i``'s are flows ``i * connections`` on: each its
    own server process and bond member, all on the client's one port and its limit on what it
    keeps in flight). With ``server_threads`` (the kernel NFS server's) every connection's calls
    share that many threads, one call a thread, so a connection with several calls in flight
    (``calls_in_flight``) runs on as many at once, and a random read holds its thread through its
    wait for the drives too; without (``None``: smbd, nginx) each connection
    has its one server process. ``where`` is the storage scenario's file, ``front_where`` the file
    that configured the clients (their NIC at ``nic_key``, their LAN at ``link_key``)."""
    host = catalog.get("hosts", body.host, where, "host")
    if not host.nics or len(set(host.nics)) > 1:
        raise NotModelled(f"{host.name}: its NICs are not in the catalog, or not all alike")
    nic = catalog.get("nics", client_nic, front_where, nic_key)
    lan = catalog.get("links", link, front_where, link_key)
    mtu_B = lan.frame_mtu_B
    # the host's NICs take the slots its controller cards leave (slots.nic_catalog), placed once
    taken = slots.card_slots(body, catalog, where)
    nics_catalog = slots.nic_catalog(body, catalog, where, taken)
    side = host_net(
        net,
        nics_catalog,
        "storage",
        body.host,
        host.nics[0],
        len(host.nics),
        irq_affinity,
        NET_CYCLES_PER_FRAME,
        where,
        host_key="host",
        nic_key="host.nics",
        mtu_B=mtu_B,
        bus_efficiency=params["bus_efficiency"],
    )
    bytes_per_client = body.workload.total_MB * 1e6
    bytes_per_flow = bytes_per_client / connections
    # the drives see each client's one stream (workload.streams: the clients), whatever carries it
    path = topology.build(net, body, catalog, params, where, bytes_per_client)
    if members_of is not None and not all(0 <= m < len(side.nics) for m in members_of):
        bad = next(m for m in members_of if not 0 <= m < len(side.nics))
        raise UserError(
            front_where, "assignment", f"members are 0 to {len(side.nics) - 1}, got {bad}"
        )
    if members_of is not None:  # a client's connections all on its member
        members_of = tuple(m for m in members_of for _ in range(connections))
    members = bond_members(clients * connections, len(side.nics), hashing, seed, members_of)
    wire = tcp.tcp_wire_per_byte(mtu_B) * payload
    # the host sends what the clients read and receives what they write (``tcp_buffers``: its TSO
    # and GRO, ``tcp.tcp_frame_work_per_byte``)
    op = body.workload.op
    sent, received = tcp.tcp_frame_work_per_byte(mtu_B, tcp_buffers)
    frames_s = (sent if op == "read" else received) * payload * side.frame_s
    # what it receives, the server process reading the client's one connection does the TCP work
    # it finds in the socket's backlog itself (tcp.reader_share)
    in_server_s = 0.0 if op == "read" else tcp.reader_share(mtu_B, tcp_buffers) * frames_s
    # a request's bytes, or its fixed cost (system call, file system, block layer) where that is
    # more: small requests cost the server process per request (``stream.request_core_s``, its
    # buffered path)
    request_B = body.workload.request_KiB * 1024
    read_s, write_s = storage_stream.request_core_s(params, body, host)
    pays = storage_stream.writer_share(body, host.memory_MB, bytes_per_client * clients)
    # each client's port runs at its NIC's rate or its LAN link's, the slower (a 25 GbE card on a
    # 1 GbE LAN moves 1 Gb/s)
    client_Bps = nic_rate_Bps(catalog, nic, mtu_B=mtu_B, bus_efficiency=params["bus_efficiency"])
    nic_Bps = min(client_Bps, lan.rate_Bps)
    # a connection keeps at most its window in flight, one a round trip (``tcp_buffers``' sizes
    # over every connection on the host), its data what the protocol's framing leaves of it
    window_Bps = (
        tcp.window_limit_Bps(tcp.window_B(tcp_buffers, None, clients * connections), rtt_s)
        / payload
        if rtt_s > 0.0
        else math.inf
    )
    if process == "nfsd":  # a call's own work in its thread, spread over the call's bytes
        call_s = params["nfs_call_cycles"] / (host.clock_GHz * 1e9) / nfs_call_B(body, read_ahead_B)
        read_s, write_s = read_s + call_s, write_s + call_s
    calls = calls_in_flight(body, read_ahead_B, connections)
    threads = None
    # a connection's server process: its one core, or as many pool threads as it has calls
    share = 1.0
    # what holds a pool thread a byte besides its CPU: a random read's wait for the drives (the
    # thread reads the file and sleeps until the read is done, nfsd_read into vfs_read)
    thread_wait_s = 0.0
    waits = None  # the pool's threads as its calls' drive waits alone hold them: rated
    if server_threads is not None:  # the pool every connection's calls share
        threads = net.resource(f"{process} threads", float(server_threads), unit="thread-s")
        share = float(min(server_threads, calls))
        if op == "read" and body.workload.pattern == "random":
            thread_wait_s = path.request_s[body.workload.target] / request_B
            waits = net.resource(
                f"{process} threads (drive waits)",
                float(server_threads),
                unit="thread-s",
                rated_capacity=float(server_threads),
            )

    def limit_Bps(server_read_s: float, server_write_s: float) -> float:
        return client_limit_Bps(
            body,
            path,
            request_B,
            server_read_s,
            server_write_s,
            rtt_s,
            # a request's bytes cross the client's port and a member of the host's bond, the slower
            wire / min(nic_Bps, side.nics[0].capacity),
            read_ahead_B,
            # the server processes a window's calls run on side by side
            connections if server_threads is None else share,
        )

    # the server process's whole time a byte (the request's path and the socket's copy), and none
    # (the round trips, the ports and the drives alone: its rated capacity)
    server_Bps = limit_Bps(
        read_s + side.copy_s_per_byte, write_s + side.copy_s_per_byte + in_server_s
    )
    rated_Bps = limit_Bps(0.0, 0.0)
    ports = [net.resource(f"nic client.{i}", nic_Bps) for i in range(clients)]
    in_flight = [
        net.resource(
            f"requests client.{i}",
            server_Bps,
            rated_capacity=rated_Bps,
            label=in_flight_words(body, read_ahead_B, clients),
        )
        if math.isfinite(server_Bps)
        else None
        for i in range(clients)
    ]
    usages, client_nics, servers, windows = [], [], [], []
    for i, member in enumerate(members):
        client = ports[i // connections]
        server = side.process(f"{process}{i}", share)
        usage = storage_stream.stream_usage(
            path,
            body,
            server,
            side.cpu,
            side.memory,
            read_s_per_byte=read_s if op == "read" else 0.0,
            write_s_per_byte=write_s,
            writer_pays=pays,
            stream=i // connections,  # a client's connections read its one stream
        )
        charge(usage, side, server, side.copy_s_per_byte + in_server_s)  # socket to process
        memory.charge(usage, side.memory, NET_CROSSINGS)
        charge_frames(usage, side, i, frames_s - in_server_s)
        if in_flight[i // connections] is not None:
            usage[in_flight[i // connections]] = 1.0
        if window_Bps * wire < nic_Bps:  # a window a round trip could bind it
            windows.append(net.resource(f"tcp window {i}", window_Bps))
            usage[windows[-1]] = 1.0
        storage_stream.checkpoint_wait(path, body, usage, server)
        if threads is not None:  # its server work, and its waits, hold the pool's threads
            usage[threads] = usage[server] + thread_wait_s
        if waits is not None:  # what its drives' time alone holds them, past the CPU's estimate
            usage[waits] = thread_wait_s
        add(usage, client, wire)
        side.charge_nic(usage, member, wire)
        usages.append(usage)
        client_nics.append(client)
        servers.append(server)
    # the host's NICs with every port it lists (a dual-port card's two cross its one link, which
    # the note weighs against both ports' lines, as the WAN's and the relay's do) and the clients'
    notes = listed_ports_notes(catalog, (body.host, host.nics[0], len(host.nics))) + nic_notes(
        nics_catalog,
        (host.nics[0], body.host, len(host.nics)),
        (client_nic, None),
        mtu_B=mtu_B,
        bus_efficiency=params["bus_efficiency"],
    )
    held = slots.held_slots_note(body, catalog, nics_catalog, where, taken)
    notes += (held,) if held else ()
    return Front(
        net,
        side,
        path,
        usages,
        client_nics,
        windows,
        servers,
        members,
        bytes_per_flow,
        mtu_B,
        tuple(r for r in (threads, waits) if r is not None),
        notes,
    )


def client_limit_Bps(
    body: StorageBody,
    path: topology.StoragePath,
    request_B: float,
    read_s: float,
    write_s: float,
    rtt_s: float,
    port_s_per_byte: float,
    read_ahead_B: float | None,
    window_servers: float,
) -> float:
    """The most one client moves per second (Little's law, as a local random stream,
    ``model.storage.stream``): the bytes it keeps in flight over the time each waits for its
    answer, the LAN's round trip ``rtt_s``, its bytes on the slower of the client's port and the
    host's bond member (``port_s_per_byte``) and the server process's time for them (``read_s``,
    ``write_s`` a byte, the socket's copy included) included.

    - A client reading at random keeps its ``queue_depth`` requests in flight (one, a reader
      through its page cache), each of which also waits for the drives (``path.request_s``). A
      writer's requests the client's write-behind sends on without waiting, so only the host's
      flusher queue and the drives limit them (an SMB client's credits and an SMB server's
      per-call work, which would hold a lone small writer lower, are not modelled).
    - A client reading a file in order keeps its read-ahead window in flight (``read_ahead_B``, an
      NFS client's; None where the client's read-ahead keeps the connection full): the kernel asks
      for the next window as the reader enters the current one (mm/readahead.c, the async
      read-ahead mark), so one window is on its way while the last is read. The window goes as
      READ calls of up to ``NFS_READ_B``: the first passes the host and the port one after the
      other, the rest follow at the slower of the two, ``window_servers`` server threads side by
      side (sunrpc takes the next call off a connection while the last is served).
    - Anything else is not limited here."""
    w = body.workload
    if w.pattern == "random":
        if w.op == "read":
            wait_s = rtt_s + port_s_per_byte * request_B
            return storage_stream.random_limit_Bps(body, path, read_s * request_B, wait_s)
        return storage_stream.random_limit_Bps(body, path, write_s * request_B)
    if w.op == "read" and read_ahead_B is not None:
        first_B = min(read_ahead_B, NFS_READ_B)
        response_s = (
            rtt_s
            + (port_s_per_byte + read_s) * first_B
            + max(port_s_per_byte, read_s / window_servers) * (read_ahead_B - first_B)
        )
        return read_ahead_B / response_s
    return math.inf


def in_flight_words(body: StorageBody, read_ahead_B: float | None, clients: int) -> str:
    """What each of ``clients`` keeps in flight, where it limits the client
    (``client_limit_Bps``), as a planner reads it: an NFS reader in order its read-ahead window
    a round trip, a reader at random its requests (``storage_stream.in_flight_words``)."""
    w = body.workload
    if w.pattern == "random" or read_ahead_B is None:
        return storage_stream.in_flight_words(body, "client", clients)
    window = f"{read_ahead_B / 1024:,.10g} KiB a round trip"
    if clients == 1:
        return f"the NFS client's read-ahead, {window}"
    return f"the NFS clients' read-ahead, each {window}"


def calls_in_flight(body: StorageBody, read_ahead_B: float | None, connections: int) -> float:
    """Calls one connection keeps at the server: a reader at random its client's requests in
    flight (``Clients.queue_depth``, one unless set) spread over its connections, an
    NFS reader its read-ahead window in READ calls of up to ``NFS_READ_B`` spread over the
    client's connections; a writer's write-behind, or a client that keeps its connection full,
    as many as the server takes (infinite)."""
    w = body.workload
    if w.op == "read" and w.pattern == "random":  # its requests in flight over its connections
        return float(math.ceil(body.client_depth / connections))
    if w.op == "read" and read_ahead_B is not None:
        return max(1.0, math.ceil(read_ahead_B / NFS_READ_B / connections))
    return math.inf


def nfs_call_B(body: StorageBody, read_ahead_B: float | None) -> float:
    """The bytes one NFS call carries: a request at random, or one that bypasses the client's
    page cache, its own (up to ``NFS_READ_B``); a reader in order its read-ahead window's calls;
    a writer's write-back calls of ``NFS_READ_B`` (a Linux client's wsize takes the server's
    largest, as its rsize does)."""
    w = body.workload
    request_B = w.request_KiB * 1024
    if w.pattern == "random" or w.io == "direct":
        return min(request_B, NFS_READ_B)
    if w.op == "read" and read_ahead_B is not None:
        return min(read_ahead_B, NFS_READ_B)
    return NFS_READ_B


# The largest READ a Linux NFS server answers, which a Linux client's rsize takes by default: 1 MiB
# (fs/nfsd/nfsd.h: NFSSVC_MAXBLKSIZE is RPCSVC_MAXPAYLOAD, 1 MiB in include/linux/sunrpc/svc.h;
# newer kernels name the 1 MiB default NFSSVC_DEFBLKSIZE)
NFS_READ_B = 1 << 20

# the server process that serves each client's connection
SERVER_PROCESS = {"tcp": "server", "http": "nginx", "nfs": "nfsd", "smb": "smbd"}


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    """A storage scenario with ``clients``: every client's stream as one flow from the drives to
    its NIC (a read) or back (a write), all starting after the drives' first access."""
    body: StorageBody = scenario.body
    c = body.clients
    flows = c.count * c.connections  # each connection a flow of its own
    body = replace(body, workload=replace(body.workload, streams=c.count))
    w = body.workload
    env = simpy.Environment()
    net = FlowNetwork(env)
    front = build(
        net,
        body,
        catalog,
        params,
        scenario.path,
        clients=c.count,
        connections=c.connections,
        client_nic=c.nic,
        link=c.link,
        irq_affinity=c.irq_affinity,
        members_of=None,
        hashing=c.hashing,
        seed=scenario.seed,
        payload=payload_per_byte(c.protocol, w.op, w.request_KiB * 1024),
        process=SERVER_PROCESS[c.protocol],
        front_where=scenario.path,
        nic_key="clients.nic",
        link_key="clients.link",
        tcp_buffers=lan_tcp(c),
        rtt_s=c.rtt_ms / 1e3,
        read_ahead_B=c.read_ahead_KiB * 1024 if c.protocol == "nfs" else None,
        server_threads=(c.nfsd_threads or NFSD_THREADS) if c.protocol == "nfs" else None,
    )
    # what each client asks for, spread over its connections
    cap_Bps = math.inf if c.offered_MBps is None else c.offered_MBps * 1e6 / c.connections
    latency_s = front.path.first_access_s()

    def clients():  # every client starts after the same first access: one share-out for all
        yield env.timeout(latency_s)
        net.transfers([(front.bytes_per_flow, u, "client", cap_Bps) for u in front.usages])

    env.process(clients())
    env.run()
    bound = partition_bound_Bps(front.usages, [cap_Bps] * flows) / 1e6
    ceiling = partition_bound_Bps(front.usages, [cap_Bps] * flows, rated=True) / 1e6
    each = f", {c.connections} connections each" if c.connections > 1 else ""
    notes = (
        f"{c.count} {c.protocol} client(s){each}"
        + _bond_words(front.members, len(front.side.nics), c.connections, c.hashing)
        + "; "
        + (
            f"{FRAMING_B[(c.protocol, w.op)]} B of {c.protocol} headers a {w.request_KiB:g} KiB "
            "request"
            if FRAMING_B[(c.protocol, w.op)]
            else "no protocol headers"
        )
        + " (TCP/IP and Ethernet framing besides, per frame)",
        *front.notes,
        *front.path.notes,
    )
    utilization = net.utilization(env.now)
    if math.isfinite(cap_Bps):  # the clients' own limit beside the resources, as its share used
        utilization[OFFERED_LOAD] = min(
            1.0, front.bytes_per_flow / ((env.now - latency_s) * cap_Bps)
        )
    bottleneck = busiest(utilization)
    notes += _offload_note(c, front.side, bottleneck)
    if c.protocol == "nfs":
        host = catalog.get("hosts", body.host, scenario.path, "host")
        call_KiB = nfs_call_B(body, c.read_ahead_KiB * 1024) / 1024
        notes += (
            f"an NFS call's own work in its nfsd thread (sunrpc's hand-off and wake-up, XDR, the "
            f"file handle's check): {params['nfs_call_cycles']:,.0f} cycles, "
            f"{params['nfs_call_cycles'] / (host.clock_GHz * 1e3):.1f} us on the host's "
            f"{host.clock_GHz:g} GHz cores, a call of {call_KiB:,.4g} KiB (nfs_call_cycles: an "
            "estimate, its range in the interval)",
        )
        notes += nfsd_threads_note(front, c, call_KiB * 1024, cap_Bps * flows)
    notes += storage_stream.bottleneck_notes(bottleneck, params, body, catalog)
    notes += memory.note(
        bottleneck,
        front.side.label,
        front.side.host,
        memory.merged(storage_stream.memory_crossings(front.path, body), NET_CROSSINGS),
    )
    return Result(
        scenario=scenario.name,
        bytes_moved=front.bytes_per_flow * flows,
        elapsed_s=env.now,
        utilization=utilization,
        bound_MBps=bound,
        ceiling_MBps=ceiling,
        # the host's CPU: its server processes, its interrupts' per-frame work and its kernel
        # threads (write-back, md parity), every second the host's cores carried
        cpu_sys_s=front.side.cpu.carried,
        notes=notes,
        labels=net.labels(),
    )


# how near the nfsd threads' bound may come to the next limit's for a note on them: within 5 %
NEAR_BINDING = 1.05


def nfsd_threads_note(
    front: Front, c: Clients, call_B: float, offered_Bps: float
) -> tuple[str, ...]:
    """A note where the kernel NFS server's threads (``front.pool``) bind, or come within
    ``NEAR_BINDING`` of it, by the bottleneck law over the clients' flows
    (``stream.demand_per_byte``): a server setting, not hardware. It gives their count and
    whether the scenario set it, what one thread moves and how long a call of ``call_B`` holds it,
    and how many would let the next limit bind (``next_limit``)."""
    threads = front.pool[0]
    demand = storage_stream.demand_per_byte(front.usages)
    thread_Bps = 1.0 / demand[threads]  # what one thread moves, busy all the time
    together_Bps = threads.capacity * thread_Bps
    next_words, next_Bps = next_limit(front, demand, offered_Bps)
    if together_Bps > NEAR_BINDING * next_Bps:
        return ()
    source = f"the default: rpc.nfsd starts {NFSD_THREADS}" if c.nfsd_threads is None else "set"
    said = (
        f"nfsd threads: {threads.capacity:,.0f} (clients.nfsd_threads, {source}), a server "
        f"setting, not hardware: each moves {thread_Bps / 1e6:,.0f} MB/s ({call_B / 1024:,.4g} "
        f"KiB a call in {call_B * demand[threads] * 1e6:,.1f} us), "
        f"{together_Bps / 1e6:,.0f} MB/s together"
    )
    if together_Bps <= next_Bps:
        needed = math.ceil(next_Bps / thread_Bps)
        return (
            f"{said}; {needed:,} would let the next limit bind, at {next_Bps / 1e6:,.0f} MB/s: "
            f"{next_words}",
        )
    return (
        f"{said}, within {100 * (together_Bps / next_Bps - 1):.1f} % of the limit that binds, at "
        f"{next_Bps / 1e6:,.0f} MB/s: {next_words}",
    )


def next_limit(
    front: Front, demand: dict[FlowResource, float], offered_Bps: float
) -> tuple[str, float]:
    """The limit the clients' flows meet first past the server's thread pool, as a planner reads
    it (a resource's label, else its name), and what it allows them in all (bytes a second): the
    bottleneck law's least bound over the other resources (``demand``, per byte of the
    aggregate; alike resources, one label, as one), or what the clients ask for
    (``offered_Bps``), as they are."""
    limits = {"what the clients ask for (clients.offered_MBps)": offered_Bps}
    for res, d in demand.items():
        if d > 0 and res not in front.pool:
            words = res.label or res.name
            limits[words] = min(limits.get(words, math.inf), res.capacity / d)
    words = min(limits, key=limits.__getitem__)
    return words, limits[words]


def _offload_note(c: Clients, side: HostNet, bottleneck: str) -> tuple[str, ...]:
    """A note where the host's cores bind (``bottleneck``, the result's) with its TCP
    offloads off (the default, the reports' 2.4 and 2.6.9 hosts): each frame's TCP work is then the
    host's, which TSO and GRO, on by default on a current Linux with NICs that support them, would
    take in 64 KiB pieces."""
    if c.tso and c.gro or not bottleneck:
        return ()
    kind, _, where = bottleneck.partition(" ")
    if kind not in ("cpu", "irq", "flow", "rss") or where.split(".")[0] != side.label:
        return ()
    off = " and ".join(f"clients.{k}" for k in ("tso", "gro") if not getattr(c, k))
    return (
        f"{bottleneck} binds with {off} off, as on the reports' 2.4 and 2.6.9 hosts: the host does "
        "each frame's TCP work; a current Linux has TSO and GRO on with NICs that support them "
        "(set clients.tso: true and clients.gro: true for such a host)",
    )
