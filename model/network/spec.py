"""The network models' scenario bodies: a WAN transfer between two hosts (``wan_transfer``) and
MDSplus data servers with their clients (``db_clients``). Defaults live only in these fields."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Annotated, Any, Literal

from ..errors import UserError
from ..schema import Bound, Mtu, PositiveFloat, PositiveInt, count_up_to
from ..settings import (
    NET_CYCLES_PER_FRAME,
    SIMULATED_FLOWS,
    SysctlInt,
    TcpCaps,
    TcpSettings,
    TcpTuned,
    check_flows,
)
from ..spec import Reference, Scenario
from ..storage.spec import StorageBody, Volume
from ..unknowns import value_at
from ..unread import Rule, by_rules
from . import tcp

# each TCP stream, circuit, server and concurrent read is simulated on its own; past these a run
# would not end while its user waits
FLOWS = SIMULATED_FLOWS
# the largest Tsunami block one UDP datagram carries: an IPv4 datagram's 65,535 bytes less the IP
# and UDP headers and Tsunami's own block number and type (RFC 791, RFC 768)
TSUNAMI_MAX_BLOCK_B = 65_535 - tcp.IP_HEADER_B - tcp.UDP_HEADER_B - tcp.TSUNAMI_HEADER_B
# the share of Tsunami's blocks that must arrive whole for a transfer the model can follow: below
# it a block is sent more than a billion times before one arrives
TSUNAMI_LEAST_WHOLE = 1e-9
Flows = count_up_to(FLOWS, "each TCP stream is simulated")
Circuits = count_up_to(1_000, "one NIC each")
Hosts = count_up_to(1_000, "each host is simulated")
Reads = count_up_to(10_000, "each read is simulated")
# every client's every read is simulated, about 80 us each: past this many together (clients x
# reads_per_client) a run would not end while its user waits (1,000 clients of 100 reads: 8.4 s,
# 36 s with its interval)
SIMULATED_READS = 20_000
# the tools whose streams each read and write their own part of the file, each stream a process:
# bbftpd forks a child a stream, the i-th sending or storing the i-th of n equal parts
# (bbftpd_retr.c bbftpd_retrtransferfile and bbftpd_store.c bbftpd_storetransferfile: nbperchild =
# filesize / requestedstreamnumber, startpoint = (i - 1) * nbperchild). bbcp reads its source in
# order and deals its buffers (-B) out to its streams, and writes what they bring in one thread
# (bbcp_File.C, Read_All and Write_All: 'note that we are single threaded'); a Tsunami session
# has one disk thread a side; iperf moves memory
SPLIT_STREAMS = ("bbftp",)
# the test and client mode in which a client follows each node reference itself, one round trip
# each (model.network.dbclients): every one is simulated as a read is
FOLLOWED = ("indirection", "dist")


@dataclass(frozen=True)
class WanWorkload:
    """What crosses the path: ``total_MB`` split evenly over ``sessions`` transfers side by side.

    A TCP session (bbftp, bbcp, iperf) opens ``streams`` parallel TCP connections;
    ``socket_buffer_B`` is the buffer the tool asks for with setsockopt (bbftp/bbcp/iperf -w);
    unset, the kernel's tcp_rmem/tcp_wmem apply. A Tsunami session is one UDP flow sent at
    ``rate_Mbps`` in ``block_B`` blocks (Tsunami's defaults, client/config.c of the Indiana
    University release: 650 Mb/s, 32768 B), retransmitting what is lost. ``source``/``sink``
    ``disk`` read and write the scenario's sender and receiver storage, ``memory`` does not (iperf,
    /dev/zero, /dev/null). ``threads`` is how many threads the tool serves its streams from on each
    side; unset, one per stream (bbftp, bbcp, iperf2). iperf3 before 3.16 serves every stream from
    one thread (iperf3 3.16 release notes: 'Multiple test streams started with -P/--parallel will
    now be serviced by different threads').
    """

    # the tool: bbftp or bbcp (parallel TCP streams, disk to disk), iperf (TCP, memory to memory)
    # or tsunami (UDP at a fixed rate)
    protocol: Literal["bbftp", "bbcp", "tsunami", "iperf"]
    total_MB: PositiveFloat
    streams: Flows = 1
    sessions: Flows = 1
    # Linux doubles what setsockopt asks for, to hold its own bookkeeping ('the kernel doubles
    # this value', socket(7), SO_RCVBUF and SO_SNDBUF), after capping the request at
    # tcp.core_rmem_max_B / core_wmem_max_B; the window is then the share tcp_adv_win_scale leaves
    # of the doubled buffer (a 4 MiB request: an 8 MiB buffer, a 6 MiB window at scale 2)
    socket_buffer_B: SysctlInt | None = None
    rate_Mbps: PositiveFloat = 650.0
    block_B: PositiveInt = 32768
    source: Literal["disk", "memory"] = "disk"
    sink: Literal["disk", "memory"] = "disk"
    threads: PositiveInt | None = None

    def check(self, where: str, key: str) -> None:
        counts = {"sessions": self.sessions, "streams": self.streams}
        check_flows(where, f"{key}.streams", counts, "TCP streams")
        if self.protocol == "iperf" and (self.source, self.sink) != ("memory", "memory"):
            raise UserError(
                where,
                f"{key}.source",
                "iperf moves memory to memory; set source and sink to memory",
            )
        if self.threads is not None and self.threads > self.streams:
            raise UserError(
                where,
                f"{key}.threads",
                f"a thread serves one stream or more: at most streams ({self.streams}), "
                f"got {self.threads}",
            )
        if self.protocol == "tsunami" and self.streams != 1:
            raise UserError(
                where, f"{key}.streams", "a Tsunami session is one UDP flow; use sessions for more"
            )
        if self.protocol == "tsunami" and self.block_B > TSUNAMI_MAX_BLOCK_B:
            raise UserError(
                where,
                f"{key}.block_B",
                f"a Tsunami block travels in one UDP datagram: at most {TSUNAMI_MAX_BLOCK_B:,} "
                f"bytes, got {self.block_B:,}",
            )


@dataclass(frozen=True)
class WanBody:
    """Two hosts joined by ``circuits`` WAN circuits (each a ``link`` of the catalog), one NIC per
    circuit.

    With ``bonding: hash`` (802.3ad/LACP, balance-xor) each flow is hashed onto one member, so one
    flow never exceeds one circuit; ``round_robin`` (balance-rr) sprays every flow over all members.
    ``irq_affinity`` is where the NICs' interrupts run: ``cpu0`` (the 2.4 kernel's default, slide 33
    of the report), ``spread`` over all cores (a TCP flow's work still on one core at a time, its
    socket locked), or ``rss`` (a multi-queue NIC's receive-side scaling: each TCP flow's frames
    on one core, the flows spread over the cores).
    ``sender_storage``/``receiver_storage`` name storage scenarios (``data/scenarios/``) whose
    volume the transfer reads and writes.
    """

    # the keys that name a storage scenario, and its body: --set and a sweep reach its keys through
    # them (sender_storage.volumes.md0.disks.count; model.schema.named_body)
    NAMED_SCENARIOS = {"sender_storage": StorageBody, "receiver_storage": StorageBody}

    sender_host: str  # the sending host, a host of the catalog (data/hardware/hosts.yaml)
    receiver_host: str  # the receiving host, a host of the catalog
    nic: str  # each host's NIC on every circuit, a NIC of the catalog (nics.yaml)
    link: str
    circuits: Circuits
    rtt_ms: PositiveFloat  # the round-trip time between the hosts, as ping reports it
    # the share of packets the path loses (0 to below 1)
    loss_rate: Annotated[float, Bound(0.0, words="a share from 0 to below 1")]
    workload: WanWorkload
    mtu_B: Mtu = 1500  # the Ethernet MTU of the path (9000 is jumbo frames)
    bonding: Literal["hash", "round_robin"] = "hash"
    irq_affinity: Literal["cpu0", "spread", "rss"] = "cpu0"
    sender_storage: str | None = None
    receiver_storage: str | None = None
    tcp: TcpSettings = field(default_factory=TcpSettings)
    # the CPU cycles each host spends per Ethernet frame besides the copy (model.settings explains
    # the default)
    net_cycles_per_frame: PositiveFloat = NET_CYCLES_PER_FRAME

    def check(self, where: str, key: str) -> None:
        if self.loss_rate >= 1.0:
            raise UserError(
                where,
                "loss_rate",
                f"must be below 1 (a share of packets lost), got {self.loss_rate}",
            )
        w = self.workload
        if w.protocol == "tsunami":
            fragments = tcp.udp_fragments(w.block_B, self.mtu_B)
            if (1.0 - self.loss_rate) ** fragments < TSUNAMI_LEAST_WHOLE:
                most = 1.0 - TSUNAMI_LEAST_WHOLE ** (1.0 / fragments)
                raise UserError(
                    where,
                    "loss_rate",
                    f"a {w.block_B:,} B Tsunami block arrives whole only if all {fragments} of its "
                    f"IP fragments do: at loss {self.loss_rate:g} fewer than one in a billion, "
                    f"and the transfer does not end; at most {most:.3g} with these blocks "
                    "(smaller blocks, fewer fragments, allow more)",
                )
        for side, name in (("source", "sender_storage"), ("sink", "receiver_storage")):
            if getattr(self.workload, side) == "disk" and getattr(self, name) is None:
                raise UserError(
                    where,
                    name,
                    f"workload.{side} is disk: name the storage scenario it uses, "
                    f"or set workload.{side}: memory",
                )

    @property
    def disk_streams(self) -> int:
        """The processes that read the sender's file, or write the receiver's, at once: each
        stream of a bbftp session its own part, else one a session (``SPLIT_STREAMS``)."""
        w = self.workload
        return w.sessions * (w.streams if w.protocol in SPLIT_STREAMS else 1)

    def references(self) -> tuple[Reference, ...]:
        """Each storage scenario named, as the transfer reads or writes it: its file in order by
        the transfer's own readers or writers (``disk_streams``), none of the store's own clients.
        Checked even where the transfer is from or to memory, and so not read: a name that is
        wrong is a mistake either way."""
        return tuple(
            Reference(
                key,
                getattr(self, key),
                "storage",
                (
                    "clients=null",
                    f"workload.op={op}",
                    f"workload.streams={self.disk_streams}",
                    "workload.pattern=sequential",
                ),
                derived_from=(
                    "workload (the transfer alone reads or writes the store, its file in order, "
                    "by its protocol's processes: each bbftp stream, else one a session; not the "
                    "store's own clients or workload)"
                ),
            )
            for key, op in (("sender_storage", "read"), ("receiver_storage", "write"))
            if getattr(self, key) is not None
        )

    def not_read(self, key: str) -> str | None:
        """Why the dotted ``key`` is not read in this configuration (``model.unread``; a storage
        scenario named for a transfer from or to memory, a Tsunami setting on a TCP transfer), or
        None where it is."""
        return by_rules(WAN_UNREAD, self, key)

    def check_references(self, where: str, loaded: dict[str, Scenario]) -> None:
        for role in ("sender", "receiver"):
            key, host = f"{role}_storage", getattr(self, f"{role}_host")
            if key not in loaded:
                continue
            storage, name = loaded[key].body, getattr(self, key)
            if storage.host != host:
                raise UserError(
                    where,
                    key,
                    f"{name} describes host {storage.host}, but {role}_host is {host}: set "
                    f"{role}_host={storage.host}, or name a storage scenario of {host}",
                )


def _from_memory(side: str) -> Callable[[WanBody, str], str | None]:
    """Why a key of the storage scenario a transfer's ``side`` names is not read: the side is
    memory (iperf, /dev/zero, /dev/null), its volumes neither read nor written."""
    moves = "reads" if side == "source" else "writes"

    def why(body: WanBody, _: str) -> str | None:
        if getattr(body.workload, side) != "memory":
            return None
        return f"workload.{side} is memory: the transfer {moves} none of its volumes"

    return why


def _transfer_moves(body: WanBody, _: str) -> str:
    """Why a named store's own total_MB is not read: the transfer moves its own."""
    return (
        f"the transfer moves its own workload.total_MB ({body.workload.total_MB:,.6g} MB), each "
        "of its processes its part"
    )


def _tsunami_only(what: str) -> Callable[[WanBody, str], str | None]:
    """Why a Tsunami session's setting (``what`` it sets) is not read: the transfer is TCP."""

    def why(body: WanBody, _: str) -> str | None:
        protocol = body.workload.protocol
        return None if protocol == "tsunami" else f"workload.protocol is {protocol}: {what}"

    return why


def _tcp_only(body: WanBody, _: str) -> str | None:
    """Why a TCP setting is not read: the transfer is one Tsunami UDP flow."""
    if body.workload.protocol == "tsunami":
        return "workload.protocol is tsunami, one UDP flow: no TCP socket takes it"
    return None


def _kernel_sized(key: str) -> Callable[[WanBody | DbBody, str], str | None]:
    """Why net.core's caps are not read where no application asks for its buffers (``key``, the
    body's setting of what it asks, unset)."""

    def why(body: WanBody | DbBody, _: str) -> str | None:
        if value_at(body, key) is None:
            return (
                f"{key} is unset: the kernel sizes the buffers (tcp_rmem_B, tcp_wmem_B); the "
                "cap limits only a buffer an application asks for"
            )
        return None

    return why


def _never(body: Any, _: str) -> str:
    """Why net.core's defaults are never read (``model.settings.TcpSettings``)."""
    return "no socket of this model takes net.core's defaults (a TCP socket starts at tcp_rmem's)"


# the keys a WAN transfer reads in some configurations only (wan.py: a Tsunami session's rate and
# blocks in _tsunami_flows, TCP's settings in the TCP branch; tcp.socket_buffers_B the caps)
WAN_UNREAD: tuple[Rule, ...] = (
    # of a storage scenario an end from or to memory names, what its volumes hold and how its
    # kernel and workload move them; not its drives, buses, cards or host: the store describes
    # the end host whatever the transfer moves, its cards taking the host's slots (wan._end_slots)
    *(
        (f"{ref}.{key}", _from_memory(side))
        for ref, side in (("sender_storage", "source"), ("receiver_storage", "sink"))
        for key in (
            "workload",
            "kernel",
            *(f"volumes.*.{f.name}" for f in fields(Volume) if f.name != "disks"),
        )
    ),
    # what a store's own test moves: the transfer moves its own total_MB (wan._storage)
    *(
        (f"{ref}.workload.total_MB", _transfer_moves)
        for ref in ("sender_storage", "receiver_storage")
    ),
    ("workload.rate_Mbps", _tsunami_only("the rate paces a Tsunami session only")),
    ("workload.block_B", _tsunami_only("the block is a Tsunami session's")),
    ("tcp", _tcp_only),
    ("workload.socket_buffer_B", _tcp_only),
    ("workload.threads", _tcp_only),
    ("tcp.core_rmem_max_B", _kernel_sized("workload.socket_buffer_B")),
    ("tcp.core_wmem_max_B", _kernel_sized("workload.socket_buffer_B")),
    ("tcp.core_rmem_default_B", _never),
    ("tcp.core_wmem_default_B", _never),
)


@dataclass(frozen=True)
class DbWorkload:
    """``clients`` client processes (one per client machine), started together, each making
    ``reads_per_client`` reads one after another (the report's one-at-a-time reads); every read is
    simulated, so clients x reads_per_client is at most 20,000.

    A read returns ``read_MB`` of evaluated data (``values_per_read`` values). The tests of the
    MDSplus report: ``baseline`` (a numeric node), ``math`` (sin+cos+tan of the data in the node's
    expression), ``indirection`` (``indirection_levels`` node references before the data),
    ``uncompressed`` (the client turns compression off), ``ptdata`` (the node calls ptdata2(), data
    from the PTDATA server), ``tcp_tuned`` (larger TCP buffers on every host: ``DbBody.tcp_tuned``);
    ``test`` names the one run.
    """

    test: Literal["baseline", "math", "indirection", "uncompressed", "ptdata", "tcp_tuned"]
    clients: Hosts
    read_MB: PositiveFloat
    values_per_read: PositiveInt = 2000000
    reads_per_client: Reads = 1
    # node references the indirection test follows to the data (a distributed client follows each
    # itself, one round trip each, simulated: DbBody.check bounds them with the reads)
    indirection_levels: count_up_to(10_000, "each reference is simulated") = 9
    reference_record_B: PositiveInt = 64  # the size of one node reference an indirection reads


@dataclass(frozen=True)
class DbBody:
    """MDSplus data servers and their clients on one LAN.

    ``thin``: every client connects to one MDSplus server, whose server process evaluates,
    decompresses and returns the result. ``dist``: the client fetches the compressed records from
    the ``tree_servers`` that hold the tree (reads spread over them), then decompresses and
    evaluates itself. PTDATA lives on its own server (one of ``servers``). ``compression_ratio`` is
    the stored size's divisor; ``lan_rtt_ms`` the round trip between any two hosts.
    """

    # thin: the server evaluates and returns the result; dist: the client fetches the compressed
    # records and evaluates them itself
    client_mode: Literal["thin", "dist"]
    server_host: str  # each data server, a host of the catalog (data/hardware/hosts.yaml)
    client_host: str  # each client machine, a host of the catalog
    servers: Hosts
    client_machines: PositiveInt  # the client machines there are (one client process each at most)
    nic: str  # every host's NIC, a NIC of the catalog (nics.yaml)
    workload: DbWorkload
    compression_ratio: PositiveFloat = (
        1.3  # estimated: delta and bit packing of digitised signals stored as floats
    )
    # the CPU cycles a host spends decompressing each byte it expands (none where
    # compression_ratio is 1: a record stored as it is);
    # estimated: MDSplus's expander (MdsXpand, mdsshr/MdsCmprs.c) unpacks runs of 1,024 values
    # from their delta bit fields, about 40 cycles a value; a reconstruction of it built for a
    # Pentium 4 ran 31 to 33 instructions a value (valgrind, two million floats), 26 to 74 cycles
    # at a NetBurst core's 0.8 to 1.4 instructions a cycle and its mispredicted branches: 6.5 to
    # 18.5 cycles a byte
    decompress_cycles_per_byte: PositiveFloat = 10.0
    # the CPU cycles each host spends per Ethernet frame besides the copy (see model.settings)
    net_cycles_per_frame: PositiveFloat = NET_CYCLES_PER_FRAME
    lan_rtt_ms: PositiveFloat = 0.2
    mtu_B: Mtu = 1500  # the LAN's Ethernet MTU
    tree_servers: PositiveInt = 1
    # the socket buffer every mdsip connection asks for, bytes: MDSplus's SetSocketOptions sets
    # SO_RCVBUF and SO_SNDBUF to SEND_BUF_SIZE = RECV_BUF_SIZE = 32768 (MDSplus/mdsplus
    # mdstcpip/mdsip_socket_io.c and mdstcpip/mdsip.h), or to the bytes of the environment
    # variable TCP_WINDOW_SIZE; the kernel caps the request at tcp.core_rmem_max_B and doubles it,
    # and tcp_rmem_B no longer sizes that socket. null: the kernel sizes the buffers, as today's
    # MDSplus leaves them unless TCP_WINDOW_SIZE is set (set_socket_options,
    # mdstcpip/io_routines/ioroutinestcp.h)
    socket_buffer_B: SysctlInt | None = 32768
    # every host's TCP settings, only those this model reads: a reply is taken at its window from
    # its first byte on a LAN that loses nothing (no slow start, no congestion control)
    tcp: TcpCaps = field(default_factory=TcpCaps)
    # every host's TCP settings in the tcp_tuned test (workload.test), the same keys as tcp's
    tcp_tuned: TcpTuned = field(default_factory=TcpTuned)

    def not_read(self, key: str) -> str | None:
        """Why the dotted ``key`` is not read in this configuration (``model.unread``: another
        test's settings), or None where it is."""
        return by_rules(DB_UNREAD, self, key)

    def check(self, where: str, key: str) -> None:
        w = self.workload
        if w.clients * w.reads_per_client > SIMULATED_READS:
            raise UserError(
                where,
                "workload.reads_per_client",
                f"clients x reads_per_client must be at most {SIMULATED_READS:,} reads (each is "
                f"simulated), got {w.clients} x {w.reads_per_client}",
                related=("workload.clients",),
            )
        steps = w.indirection_levels + 1 if (w.test, self.client_mode) == FOLLOWED else 1
        if steps > 1 and w.clients * w.reads_per_client * steps > SIMULATED_READS:
            raise UserError(
                where,
                "workload.indirection_levels",
                f"clients x reads_per_client x (indirection_levels + 1) must be at most "
                f"{SIMULATED_READS:,} (a distributed client follows each reference itself, each "
                f"simulated), got {w.clients} x {w.reads_per_client} x "
                f"({w.indirection_levels} + 1)",
                related=("workload.clients", "workload.reads_per_client"),
            )
        if self.workload.clients > self.client_machines:
            raise UserError(
                where,
                "workload.clients",
                f"must be at most client_machines ({self.client_machines}): "
                f"one client process per machine, got {self.workload.clients}",
            )
        if self.tree_servers > self.servers:
            raise UserError(
                where,
                "tree_servers",
                f"must be at most servers ({self.servers}), got {self.tree_servers}",
            )
        if self.tree_servers > 1 and self.client_mode == "thin":
            raise UserError(
                where,
                "tree_servers",
                "only for client_mode dist: a thin client reads through MDSplus server 0, which "
                f"the model does not spread over the others; got {self.tree_servers}",
            )
        if self.workload.test == "ptdata" and self.servers < 2:
            raise UserError(
                where,
                "servers",
                "the ptdata test needs a PTDATA server beside the MDSplus server: at least 2",
            )
        if self.compression_ratio < 1.0:
            raise UserError(
                where,
                "compression_ratio",
                f"must be at least 1 (stored size divides by it), got {self.compression_ratio}",
            )


def _test_only(test: str, what: str) -> Callable[[DbBody, str], str | None]:
    """Why a setting of MDSplus's ``test`` (``what`` it does) is not read in another test."""

    def why(body: DbBody, _: str) -> str | None:
        chosen = body.workload.test
        return (
            None if chosen == test else f"workload.test is {chosen}: {what} in the {test} test only"
        )

    return why


def _tuned_instead(body: DbBody, _: str) -> str | None:
    """Why the hosts' usual TCP settings are not read: the tcp_tuned test takes its own."""
    if body.workload.test == "tcp_tuned":
        return "workload.test is tcp_tuned: every host takes tcp_tuned's settings instead"
    return None


def _asked_by_mdsip(body: DbBody, _: str) -> str | None:
    """Why tcp_rmem and tcp_wmem are not read: mdsip sizes its sockets' buffers itself."""
    if body.socket_buffer_B is not None:
        return (
            f"socket_buffer_B is {body.socket_buffer_B:,} B: mdsip asks its sockets' buffers "
            "itself, which tcp_rmem_B and tcp_wmem_B then do not size"
        )
    return None


def _from_ptdata(body: DbBody, _: str) -> str | None:
    """Why a tree's compression is not read: the PTDATA test's data are not in a tree."""
    if body.workload.test == "ptdata":
        return "workload.test is ptdata: the data come from the PTDATA server, not a tree's records"
    return None


def _stored_as_is(body: DbBody, _: str) -> str | None:
    """Why the expander's cost is not read: a record stored as it is is not expanded."""
    if body.compression_ratio <= 1:
        return "compression_ratio is 1: a record stored as it is has nothing to expand"
    return None


# the keys the MDSplus model reads in some tests only (dbclients._Clients: the settings the test's
# hosts take, the indirection's references, the math test's values, a tree's compressed records)
DB_UNREAD: tuple[Rule, ...] = (
    *(
        (f"workload.{key}", _test_only("indirection", "node references are followed"))
        for key in ("indirection_levels", "reference_record_B")
    ),
    ("workload.values_per_read", _test_only("math", "the values are evaluated one by one")),
    ("tcp", _tuned_instead),
    ("tcp_tuned", _test_only("tcp_tuned", "the hosts take tcp_tuned's settings")),
    *(
        (f"{settings}.{key}", why)
        for settings in ("tcp", "tcp_tuned")
        for key, why in (
            ("tcp_rmem_B", _asked_by_mdsip),
            ("tcp_wmem_B", _asked_by_mdsip),
            ("core_rmem_max_B", _kernel_sized("socket_buffer_B")),
            ("core_wmem_max_B", _kernel_sized("socket_buffer_B")),
        )
    ),
    ("compression_ratio", _from_ptdata),
    ("decompress_cycles_per_byte", _from_ptdata),
    ("decompress_cycles_per_byte", _stored_as_is),
)
