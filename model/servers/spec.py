"""The server models' scenario bodies: the Einstein@home download server (``download_server``), the
microscope ingest (``ingest``) and the Penn State relay cluster behind an LVS director
(``relay_cluster``). Defaults live only in these fields.

The relay cluster of ``000_a6a829ac4238989d.txt`` ("System Configuration and Rationale", "High
Availability"): a director gathers the feed from upstream and passes it to the real servers, and
downstream sites, asking for data at the virtual address the director holds, are each handed to a
real server that sends them the feed. The report names the machines and the gigabit LAN but gives
no feed rate, site count or failure figures; those keys are planning figures for the user to set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from ..errors import UserError
from ..schema import (
    Bound,
    Mtu,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    count_up_to,
)
from ..settings import (
    LAN_TCP_RMEM_B,
    LAN_TCP_WMEM_B,
    NET_CYCLES_PER_FRAME,
    PageCache,
    SysctlInt,
    check_triples,
)
from ..spec import Reference, Scenario
from ..storage.raid import StripedLevel
from ..storage.spec import StorageBody
from ..storage.spindle import MirrorReads
from ..unread import Rule, by_rules
from .lvs import Mode, Scheduler

# each client, worker, site, product and machine is simulated on its own; past these a run would
# not end while its user waits
Clients = count_up_to(10_000, "each client is simulated")
# an ingest's clients each write a stream over its store's drives, each pair simulated (about 5 us
# a pair on this lab's machine, sixteen times over for an interval): past this many pairs a run
# would not end while its user waits (4,096 clients on 180 drives: 3.3 s, some 40 s with its
# interval; 10,000: 10 s and 130 s)
INGEST_CLIENT_DRIVES = 400_000
Sites = count_up_to(10_000, "each site is simulated")
Workers = count_up_to(10_000, "each worker process is simulated")
Products = count_up_to(10_000, "each product is followed through the cluster")
Machines = count_up_to(100, "each machine is simulated")
# a relay run follows each product through each real server: 400 x 2 by default, some 40 us a pair
# (100,000 pairs take about 4 s on one core of this lab's machine)
RELAY_WORK = 100_000


@dataclass(frozen=True)
class DownloadWorkload:
    """``clients`` clients fetch ``files`` random data files (``file_size_KiB`` KiB each) and their
    md5 files, one pair at a time, from a data set of ``dataset_files`` in directories of
    ``files_per_directory``. The report's "2050kB" is read as KiB: 2502 x 2050 KiB = 5009 MiB, its
    "5009 MB downloaded each time". Each client checks a data file against its md5 file before it
    asks for the next pair ("md5 file for comparison (done on the client)") at
    ``client_md5_MBps``."""

    clients: Clients
    files: PositiveInt
    file_size_KiB: PositiveFloat
    dataset_files: PositiveInt
    files_per_directory: PositiveInt = 2048
    # estimated: md5sum of a cached 2 GB file took 4.3 s user and 0.9 s system on a 2012 desktop
    # (B. Foltz, "How fast is MD5?", 2014,
    # https://brandonfoltz.com/2014/09/how-fast-is-md5): 400 MB/s
    client_md5_MBps: PositiveFloat = 400.0


@dataclass(frozen=True)
class DownloadServer:
    """The nginx server: its worker processes, memory and the I/O scheduler's settings."""

    workers: Workers  # nginx worker processes; one asleep on a disk read serves no one meanwhile
    # nginx's worker_connections: more clients than the workers hold in all are refused (nginx
    # closes the rest: 'worker_connections are not enough')
    connections_per_worker: PositiveInt
    # the server's memory: its page cache holds this share of the data set, so a pick finds its
    # pair there with probability memory / data set on a warm cache (model.servers.download_files)
    memory_MB: PositiveFloat
    # the deadline I/O scheduler as shipped, or tuned (the calibrated read-ahead window)
    scheduler: Literal["deadline_default", "deadline_optimized"]
    # the read-ahead window; unset: the kernel's (kernel.read_ahead_KiB) with the default
    # scheduler, the calibrated window tuned
    read_ahead_KiB: PositiveFloat | None = None
    # keep_alive: the clients reuse a connection (HTTP/1.1's default) whose buffer has grown to take
    # a whole file; per_file: each file on a new TCP connection, whose send buffer opens with its
    # congestion window
    connections: Literal["per_file", "keep_alive"] = "keep_alive"
    # what of the directories the page cache holds: cold (a run started on a dropped cache: the
    # index root is read at the directory's first lookup of the run and stays) or warm (the runs
    # before left every root in memory)
    page_cache: Literal["cold", "warm"] = "warm"
    # how the file system keeps access times (mount(8)): relatime, the kernel's default since
    # 2.6.30, updates a file's on its first read after it was written, so each pair dirties the
    # inode page it read; noatime never writes one
    atime: Literal["relatime", "noatime"] = "relatime"
    # nginx's accept_mutex: the workers take turns accepting new connections, a worker that misses
    # the mutex trying again after accept_mutex_delay (on by default before nginx 1.11.3, off
    # since; https://nginx.org/en/docs/ngx_core_module.html#accept_mutex); off, every worker hears
    # of a new connection and an idle one takes it. One worker uses no mutex.
    accept_mutex: bool = True
    accept_mutex_delay_ms: PositiveFloat = 500.0  # nginx's default
    # CPU cycles a worker spends on each request, the data file's and the md5 file's, besides its
    # bytes' sending work: reading and parsing it, opening the file, writing the header, the
    # sendfile call, the access log. Its connections wait meanwhile; workers computing at once
    # beyond the host's cores share them. From NGINX's own test of nginx as a web server (A. Ravdat,
    # "Testing the Performance of NGINX and NGINX Plus Web Servers", NGINX blog, 2017-08-24): one
    # worker served 74,091 requests a second for a 1 KB file over 50 kept-alive connections, 13.50
    # us a request, and 33,125 for a 100 KB file, 30.19 us; the 0.169 us a KB between them is the
    # bytes' sending work, so a request is 13.33 us. In that test the worker did that work itself,
    # in its sendfile calls; the model charges it on the cores that take the NIC's interrupts, so
    # one worker sending large files from memory on a fast link is predicted above what it sends
    # (some 5 GB/s at 3.6 GHz, by the test's slope). Its hosts were 2 x Xeon E5-2699 v3 ("almost
    # identical" to "NGINX Plus Sizing Guide: How We Tested", 2016): 48,000 cycles at the 3.6 GHz
    # its one busy core turbos to, 30,700 at its 2.3 GHz base clock
    request_cycles: NonNegativeFloat = 48_000.0


@dataclass(frozen=True)
class DownloadTcp:
    """The server's TCP send buffers, a new connection's first congestion window and its TCP
    segmentation offload: the TCP settings this model reads. A connection's rate is its share of
    the server's link and its client's, at most what its send buffer keeps in flight a LAN round
    trip (all of it with ``tso``, else half: ``model.network.tcp.send_window_B``),
    a new connection's first rounds lost to slow start from its first window, what its send buffer
    lets a worker write ahead of the link, and what the core(s) taking the NIC's interrupts keep up
    with of the sending work (``tso``
    prices it, as ``model.settings.TcpBuffers`` explains); nothing else of TCP enters it (nginx asks
    for no socket buffer, the LAN loses nothing), so the receive buffers, tcp_mem, the net.core
    caps, the clients' receive offload and the congestion control are not keys here."""

    # net.ipv4.tcp_wmem's min, default and max (Linux's defaults): a kept-alive connection's send
    # buffer has grown to the max (connections: keep_alive); a new connection's (per_file) starts
    # at the default and grows with its congestion window up to the max
    tcp_wmem_B: tuple[SysctlInt, ...] = (4096, 16384, 131072)
    # a new connection's first congestion window, read with connections: per_file only (RFC 3390:
    # 3 segments at MSS 1448, Linux before 2.6.39; 10 from 2.6.39)
    initial_window_segments: PositiveInt = 3
    # how slow start grows a new connection's window (model.network.tcp.slow_start_growth): a
    # segment per ACK (Linux before 3.13, the report's 2.6 kernel) or per segment each ACK covers
    # (3.13 on, commit 9f9843a751d0); read with connections: per_file only
    slow_start_growth: Literal["per_ack", "per_segment"] = "per_ack"
    # the server's TCP segmentation offload (ethtool -K tso): the sending stack handles 64 KiB
    # super-segments, its cost per byte what a Linux 5.4 sender measured; off: the 2.4-era cost of
    # a frame (model.settings.NET_CYCLES_PER_FRAME); the report does not say, and at its 1 GbE the
    # sending work binds either way nothing (a third of one core without it)
    tso: bool = False

    def check(self, where: str, key: str) -> None:
        check_triples(self, ("tcp_wmem_B",), where, key)


@dataclass(frozen=True)
class DownloadBody:
    """A download server: one RAID volume of ``disks`` drives behind a RAID controller, an nginx
    server on it, and its clients fetching data files and their md5 files."""

    # the server, a host of the catalog (data/hardware/hosts.yaml): its memory bounds
    # server.memory_MB, and its cores and clock do the sending work of TCP on the core(s) that take
    # the NIC's interrupts (irq_affinity), and the workers' requests (server.request_cycles): a
    # worker asleep on a disk read uses none, and one serving with sendfile hands the file's pages
    # to the socket without copying them through user space (model.servers.download)
    host: str
    controller: str  # the RAID controller, a controller of the catalog (controllers.yaml)
    disk: str  # each drive, a drive of the catalog (disks.yaml)
    disks: PositiveInt
    level: StripedLevel  # the controller's RAID level for the one volume
    # the volume's stripe chunk on each drive: the RAID controller's stripe size, a power of two
    # as controllers offer them
    chunk_KiB: Annotated[
        int,
        Bound(
            4.0,
            2.0**20,
            words="a power of two from 4 to 1,048,576 KiB (4, 8, 16, ...: a stripe chunk)",
            power_of_two=True,
        ),
    ]
    server_nic: str  # the server's NIC (nics.yaml), the link every download crosses
    # each client machine's NIC (nics.yaml): a client's connection takes at most its rate
    client_nic: str
    server: DownloadServer
    workload: DownloadWorkload
    # commands the controller keeps at each drive, which serves the nearest first (1: in arrival
    # order)
    drive_queue_depth: PositiveInt = 1
    # whether the drives read ahead into their caches: the controller's "HDD Read Ahead Cache"
    # (Areca firmware: Enabled by default, or Disabled)
    drive_read_ahead: bool = True
    # how a RAID10 pair picks the copy a read goes to (``model.storage.spindle.MIRROR_READS``):
    # fewer commands pending, the first of equals (balanced); Linux 2.6 md's raid1 read_balance,
    # the drive the last read went to if this one continues it, else the other if idle, else the
    # nearer head (nearest); or
    # always the first (primary)
    mirror_reads: MirrorReads = "balanced"
    # the server's page cache: its page size is the cache's unit, and its read-ahead the window
    # the default scheduler reads (server.read_ahead_KiB, when set, or the tuned scheduler's
    # calibrated window takes its place); the server only reads, so the write-back thresholds and
    # ext3's cost are not keys here (an access time's write-back is server.atime's)
    kernel: PageCache = field(default_factory=PageCache)
    tcp: DownloadTcp = field(default_factory=DownloadTcp)  # the server's send buffers (tcp_wmem)
    mtu_B: Mtu = 1500  # the server link's Ethernet MTU
    # the LAN's round trip between a client and the server, ms: each file's request crosses to the
    # server and its reply's first byte back before the link carries it (one round trip a file on
    # a kept-alive connection; with connections: per_file, one more for the new connection's
    # handshake, and the rounds of its slow start), and a connection sends at most its window a
    # round trip; estimated for a switched LAN, the report gives none (0.2 ms on a 1 GbE host,
    # some 0.05 on today's 10 GbE and faster: the MDSplus and ingest scenarios' own estimates)
    lan_rtt_ms: PositiveFloat = 0.1
    # where the server NIC's interrupts, and with them the ACK-clocked sending of TCP, run: cpu0,
    # one core (a single-queue NIC: irqbalance moves its one interrupt, never splits it); spread,
    # over all the host's cores, a connection's work on one at a time; rss, a multi-queue NIC's
    # receive-side scaling, each connection on one core and the connections spread over the cores
    # (as model.network.hosts explains)
    irq_affinity: Literal["cpu0", "spread", "rss"] = "cpu0"
    # the CPU cycles the server spends per Ethernet frame besides the copy (model.settings explains
    # the default; with tcp.tso its measured cost is scaled as this scales the default)
    net_cycles_per_frame: PositiveFloat = NET_CYCLES_PER_FRAME

    def not_read(self, key: str) -> str | None:
        """Why the dotted ``key`` is not read in this configuration (``model.unread``), or None
        where it is."""
        return by_rules(DOWNLOAD_UNREAD, self, key)


def _window_set(body: DownloadBody, _: str) -> str | None:
    """Why the kernel's window is not read: the server's own or the tuned one is the window."""
    if body.server.read_ahead_KiB:
        return f"server.read_ahead_KiB ({body.server.read_ahead_KiB:g} KiB) is the window instead"
    if body.server.scheduler == "deadline_optimized":
        return (
            "server.scheduler is deadline_optimized: the tuned settings' window is the "
            "calibrated tuned_read_ahead_KiB instead"
        )
    return None


def _kept_alive(body: DownloadBody, _: str) -> str | None:
    """Why a new connection's window is not read: no connection is new after the first."""
    if body.server.connections == "keep_alive":
        return (
            "server.connections is keep_alive: a kept-alive connection's window has grown; the "
            "first window and slow start count for a new connection a file (per_file) only"
        )
    return None


def _one_worker(body: DownloadBody, _: str) -> str | None:
    """Why the accept mutex is not read: one worker has none to take turns with."""
    if body.server.workers == 1:
        return "server.workers is 1: its one worker accepts every connection"
    return None


def _no_mutex(body: DownloadBody, _: str) -> str | None:
    """Why the mutex's delay is not read: no mutex is taken."""
    return None if body.server.accept_mutex else "server.accept_mutex is false"


def _no_mirrors(body: DownloadBody, _: str) -> str | None:
    """Why mirror reads are not read: the level keeps no copies to choose between."""
    if body.level != "raid10":
        return f"level is {body.level}: mirror reads choose between a RAID10 pair's copies"
    return None


# the keys the download server reads in some configurations only (download._server's window,
# download_loop's new connections, nginx_workers' accept mutex, download_volume's mirrors)
DOWNLOAD_UNREAD: tuple[Rule, ...] = (
    ("kernel.read_ahead_KiB", _window_set),
    ("tcp.initial_window_segments", _kept_alive),
    ("tcp.slow_start_growth", _kept_alive),
    ("server.accept_mutex", _one_worker),
    ("server.accept_mutex_delay_ms", _one_worker),
    ("server.accept_mutex_delay_ms", _no_mutex),
    ("mirror_reads", _no_mirrors),
)


@dataclass(frozen=True)
class IngestBody:
    """Acquisition servers writing images over CIFS into the store of a storage scenario (003).

    ``storage`` names that scenario and ``storage_overrides`` configure it (``variant=NAME``,
    ``dotted.key=value``; ``--set storage.KEY=VALUE`` sets one after them); each client writes
    one stream, simulated on each of the store's drives, so clients x the store's drives is at
    most 400,000. ``hashing`` spreads the clients over the
    storage host's bond: ``balanced`` (client i on member i mod members), ``collide`` (all on one)
    or ``seeded`` (drawn from the scenario's seed); ``assignment`` gives each client's member
    outright. The defaults are the report's where it gives them."""

    # the key that names a storage scenario, and its body: --set and a sweep reach its keys through
    # it (storage.volumes.lv.disks.count; model.schema.named_body)
    NAMED_SCENARIOS = {"storage": StorageBody}

    storage: str
    storage_overrides: tuple[str, ...] = ()
    # acquisition servers writing at once ("eight distinct and separate ... servers")
    clients: Clients = 8
    hashing: Literal["balanced", "collide", "seeded"] = "balanced"
    assignment: tuple[NonNegativeInt, ...] | None = None  # each client's bond member
    # not in the report ("we need only a dedicated 10G"): one 10 GbE each
    client_nic: str = "nic_10gbe"
    link: str = "lan_10gbe"  # the LAN's links (their MTU)
    # where the storage host's NIC interrupts run: on cpu0, or spread over the cores (as a 2014
    # kernel does with a multiqueue NIC), a client's TCP work on one core at a time
    irq_affinity: Literal["cpu0", "spread"] = "spread"
    # the storage host's TCP segmentation offload, as a storage scenario's clients.tso: the ingest
    # only writes into the storage host, which sends back only acknowledgements, so its frames' work
    # is not cut by it; but as every end takes the storage host's settings here, it sizes the
    # senders' window too (with TSO a send buffer is all window: tcp.send_window_B), which binds on
    # a long round trip; not in the report, off as before
    tso: bool = False
    # the storage host's generic receive offload (what it receives from the acquisition servers),
    # as a storage scenario's clients.gro; not in the report, off as before
    gro: bool = False
    file_KiB: PositiveFloat = 612.0  # one image ("each image is about 612K")
    # the most one SMB2 WRITE carries: 64 KiB in SMB 2.0.2 (MS-SMB2); SMB 2.1 and later take the
    # server's MaxWriteSize, which Linux's ksmbd limits to 8 MiB (SMB3_MAX_IOSIZE, commit
    # 4bc59477, 2021: 'limit read/write/trans buffer size not to exceed 8MB'); not in 003
    smb_write_KiB: Annotated[
        float,
        Bound(
            0.0,
            8192.0,
            low_open=True,
            words="a positive number up to 8,192 KiB (64 in SMB 2.0.2, at most 8 MiB in SMB 2.1 "
            "and later)",
        ),
    ] = 64.0
    client_cap_MBps: PositiveFloat | None = (
        None  # each client's offered rate; None: as fast as it can
    )
    microscope_TBph: PositiveFloat = 3.0  # one microscope's rate ("about 3TB an hour")
    # the LAN's round trip between an acquisition server and the host: each file costs its client
    # an SMB2 CREATE and a CLOSE, each answered before the client goes on (MS-SMB2 3.2.4.3, 3.2.4.5:
    # the open's file id comes in the CREATE response; the close ends the handle); estimated as a
    # storage scenario's clients.rtt_ms, 0.05 ms (a 10 GbE ping-pong of 36 us, F-Stack issue #540);
    # and a client's connection keeps at most its window in flight a round trip
    lan_rtt_ms: PositiveFloat = 0.05
    # the TCP buffers of the acquisition servers and the host, as a storage scenario's
    # clients.tcp_rmem_B and tcp_wmem_B (Linux's from 4.20 unless set; not in 003)
    tcp_rmem_B: tuple[SysctlInt, ...] = LAN_TCP_RMEM_B
    # net.ipv4.tcp_wmem of the acquisition servers and the host, as clients.tcp_wmem_B
    tcp_wmem_B: tuple[SysctlInt, ...] = LAN_TCP_WMEM_B

    def check(self, where: str, key: str) -> None:
        check_triples(self, ("tcp_rmem_B", "tcp_wmem_B"), where, key)
        for i, override in enumerate(self.storage_overrides):
            if override.partition("=")[0].strip() == "workload.streams":
                raise UserError(
                    where,
                    f"storage_overrides[{i}]",
                    "workload.streams is the ingest's: one writer per client (set clients)",
                )
        if self.assignment is not None and len(self.assignment) != self.clients:
            raise UserError(
                where,
                "assignment",
                f"needs one bond member per client ({self.clients}), got {len(self.assignment)}",
            )

    def not_read(self, key: str) -> str | None:
        """Why the dotted ``key`` is not read in this configuration (``model.unread``), or None
        where it is."""
        return by_rules(INGEST_UNREAD, self, key)

    def references(self) -> tuple[Reference, ...]:
        streams = f"workload.streams={self.clients}"  # one dd-like writer per client
        # the ingest's clients write the store, not those its own file may give (purchase_nvme's
        # SMB clients had set the ingest's bound and cap, not its figure: 3,571 MB/s against a
        # bound of 941 with the store's clients on 1 GbE)
        return (
            Reference(
                "storage",
                self.storage,
                "storage",
                (*self.storage_overrides, "clients=null", streams),
                overrides_key="storage_overrides",
                derived_from="clients, one writer per client",
            ),
        )

    def check_references(self, where: str, loaded: dict[str, Scenario]) -> None:
        store = loaded["storage"].body
        if store.workload.op != "write":
            raise UserError(
                where, "storage", f"must be a storage scenario that writes, got {self.storage}"
            )
        drives = sum(volume.disks.count for volume in store.volumes.values())
        if self.clients * drives > INGEST_CLIENT_DRIVES:
            raise UserError(
                where,
                "clients",
                f"clients x the store's drives must be at most {INGEST_CLIENT_DRIVES:,} (each "
                f"client's stream is simulated on each drive it writes to), got {self.clients} x "
                f"{drives}",
                related=("storage",),
            )


def _assigned(body: IngestBody, _: str) -> str | None:
    """Why the hash is not read: each client's bond member is given (``front.py``)."""
    if body.assignment is not None:
        return "assignment gives each client's bond member instead"
    return None


# the keys the ingest reads in some configurations only
INGEST_UNREAD: tuple[Rule, ...] = (("hashing", _assigned),)


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
    count: Machines = 1
    # estimated: linux-vs.org "How virtual server works" puts rewriting a packet at about 60 us on a
    # Pentium; at the 166 MHz of a Pentium of that time, 10,000 cycles
    forward_cycles_per_packet: PositiveFloat = 10000.0
    # the ports of its nic it uses, bonded (802.3ad: each flow hashed onto one of them, so k flows
    # a way use at most k ports; many sites spread evenly): at most the ports of that NIC its host
    # is fitted with (hosts.yaml nics), one card's where the host lists none
    ports: PositiveInt = 1


# a real server's weight as ipvsadm takes it: an integer up to 65,535 (ipvsadm(8), -w; its 0, a
# server given no new connections, is not modelled)
IpvsWeight = Annotated[
    int, Bound(1.0, 65535.0, words="a whole number from 1 to 65,535 (ipvsadm's weights)")
]


@dataclass(frozen=True)
class RealServers:
    """``count`` identical real servers (``host``, ``nic`` from the catalog).

    ``weights`` (one per real server, for the ``wrr`` and ``wlc`` schedulers: whole numbers from 1
    to 65,535, as ipvsadm takes them) are the shares of new connections the director aims at each;
    empty means equal weights.
    """

    host: str
    nic: str
    count: Machines = 2
    weights: tuple[IpvsWeight, ...] = ()
    # the ports of its nic each uses, bonded as the director's (director.ports)
    ports: PositiveInt = 1

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
    many the simulation follows through the cluster (through each real server: ``products`` times
    ``real_servers.count`` is at most 100,000, so that a run ends while its user waits)."""

    rate_GBph: PositiveFloat
    # each site's own connection is taken to keep up with the feed: its round trip, TCP window and
    # loss are not modelled (the wan_transfer model gives a remote site's rate)
    sites: Sites
    product_kB: PositiveFloat = 40.0
    products: Products = 400


@dataclass(frozen=True)
class Reliability:
    """Every machine, director or real server, fails alike: after ``mtbf_h`` hours on average,
    and is repaired in ``mttr_h`` hours by one of ``repair_crews`` (the directors' repairs and the
    real servers' are counted apart, each with that many crews); a standby director takes over the
    virtual address in ``takeover_s`` seconds (heartbeat detection plus address takeover)."""

    # hours a machine, director or real server, runs from a repair to its next failure on average
    # (its mean time to failure; a data sheet's MTBF, strictly that plus one repair's hours)
    mtbf_h: PositiveFloat
    mttr_h: PositiveFloat  # hours one crew takes to repair a failed machine, on average
    # seconds a standby director takes to take over the virtual address (heartbeat detection plus
    # address takeover)
    takeover_s: NonNegativeFloat = 10.0
    # crews that repair failed machines at once: the directors' and the real servers' counted
    # apart, each with that many
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
    # where every machine's packet work runs, as a download server's (its irq_affinity): on cpu0,
    # as the report's 2.6.9 hosts take a NIC's interrupts, or a flow's on one core at a time and
    # the flows over the cores (spread, or rss: a multi-queue NIC's receive-side scaling hashes
    # them over queues and cores), so a machine's k flows work at most k cores
    irq_affinity: Literal["cpu0", "spread", "rss"] = "cpu0"
    # TCP segmentation offload on the machines' sends (model.settings.TcpBuffers: their cost per
    # byte what a Linux 5.4 sender measured, in place of a 2.4-era frame's); off, as the report's
    # 2.6.9 hosts
    tso: bool = False
    # generic receive offload on what the machines receive (a Linux 5.4 receiver's cost per byte);
    # off, as the report's hosts. What the director forwards is priced per packet either way
    # (forward_cycles_per_packet): the sites' pure ACKs are not merged
    gro: bool = False

    def check(self, where: str, key: str) -> None:
        work = self.feed.products * self.real_servers.count
        if work > RELAY_WORK:
            raise UserError(
                where,
                "feed.products",
                f"feed.products x real_servers.count must be at most {RELAY_WORK:,}, so that a "
                f"run ends while its user waits (its time grows with both), got "
                f"{self.feed.products:,} x {self.real_servers.count:,}",
            )
        if self.real_servers.weights and self.director.scheduler not in ("wrr", "wlc"):
            raise UserError(
                where,
                "real_servers.weights",
                f"only the wrr and wlc schedulers use weights; director.scheduler is "
                f"{self.director.scheduler}",
            )
