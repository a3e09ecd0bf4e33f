"""Kernel and protocol settings: one dataclass each, shared by every model that uses them.

A scenario sets them under its own keys (``kernel.*``, ``tcp.*``), so ``--set`` reaches them the
same way in every model: the page cache's page size and write-back thresholds, the TCP sysctls, and
the CPU cost of each Ethernet frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from .errors import UserError
from .schema import Bound, PositiveFloat, PositiveInt

# a TCP buffer sysctl the kernel reads as a C int (net.ipv4.tcp_rmem and tcp_wmem, net.core.rmem_*
# and wmem_*: proc_dointvec in net/ipv4/sysctl_net_ipv4.c and net/core/sysctl_net_core.c), and a
# buffer an application asks for (setsockopt's int): at most INT_MAX
SYSCTL_INT_MAX = 2**31 - 1
SYSCTL_INT = Bound(1.0, SYSCTL_INT_MAX, words=f"a positive integer of at most {SYSCTL_INT_MAX}")
SysctlInt = Annotated[int, SYSCTL_INT]

# a page: 4 KiB on x86 and x86-64, 16 or 64 KiB on some arm64 and ppc64 kernels; a power of two
PageSize = Annotated[
    int,
    Bound(4096.0, 65536.0, words="a power of two from 4,096 to 65,536 bytes", power_of_two=True),
]


# CPU cycles a host spends per Ethernet frame it sends or receives, besides the copy to or from user
# space: interrupt, driver, IP and TCP/UDP, socket buffers. From the "1 GHz per 1 Gb/s" rule of
# thumb for the Linux 2.4 TCP stack (Foong, Huff, Hum, Patwardhan and Regnier, "TCP performance
# re-visited", IEEE ISPASS 2003): 8 cycles per payload byte; less one copy (about 1.5 cycles a byte
# on a 2 GHz Xeon) and spread over the 1.5 frames of each 1448-byte segment (it and half an ACK).
NET_CYCLES_PER_FRAME = 6300.0


@dataclass(frozen=True)
class StackRun:
    """One published single-flow TCP run: its MTU, its payload rate and, at each end, the cores busy
    and the share of their cycles the data copy took."""

    mtu_B: int
    payload_Gbps: float
    sender_cores: float
    receiver_cores: float
    sender_copy_pct: float
    receiver_copy_pct: float


# What a frame and a byte cost an end with TSO and GRO, from the single-flow runs of Cai, Chaudhary,
# Vuppalapati, Hwang and Agarwal ("Understanding host network stack overheads", ACM SIGCOMM 2021,
# figure 3), as their artifact prints them (github.com/Terabit-Ethernet/
# Understanding-network-stack-overheads-SIGCOMM-2021, README at commit 86ee15d, 'single-flow
# summary': 'throughput and CPU utilisation' and the sender's and receiver's 'CPU utilisation
# breakdown', rows tsogro and tsogro+jumbo): one iperf2 flow between two Xeon Gold 6128 hosts at
# 3.4 GHz, Linux 5.4.43, ConnectX-5 Ex 100 GbE, with TSO and GRO, at MTU 1500 and at 9000
# (``model.network.tcp.offloaded_costs``). Their run without offloads (no-opts: 9.009 Gb/s at
# 101.523 % and 185.764 % of a core, 5.900 % and 7.390 % of it the copy) spent 4,176 and 7,521
# cycles a segment besides the copy, sender and receiver, against the 9,450 (a frame and half an
# ACK) ``NET_CYCLES_PER_FRAME`` charges each: the 2.4-era figure is kept for hosts without
# offloads, the reports' own; that run gives only how a receiver without offloads splits its work
# between its interrupt core and its reading core (``model.network.tcp.reader_share``).
STACK_RUN_CLOCK_GHZ = 3.4
STACK_RUN_TSO_GRO = StackRun(1500, 26.590, 0.80036, 1.75146, 28.630, 29.810)
STACK_RUN_TSO_GRO_JUMBO = StackRun(9000, 32.540, 0.67420, 1.14462, 36.760, 44.510)
STACK_RUN_NO_OFFLOADS = StackRun(1500, 9.009, 1.01523, 1.85764, 5.900, 7.390)

# Memory the kernel and the system's processes keep on a 2 GB Red Hat EL 4 server (kernel image,
# mem_map at 56 B per 4 KiB page, slab, daemons): an estimate, set before the model was first run.
# The page cache has the rest: Linux 2.6.9 takes its dirty limits as shares of the pages free at
# boot (``total_pages = nr_free_pagecache_pages()`` in mm/page-writeback.c), not of all memory.
RESERVED_MB = 256.0


def page_cache_B(memory_MB: float) -> float:
    """Bytes of a host's memory the page cache can use: what the kernel and its daemons leave."""
    return max(0.0, memory_MB - RESERVED_MB) * 1e6


@dataclass(frozen=True)
class PageCache:
    """The kernel's page cache as a reader meets it: its page size and a block device's
    read-ahead."""

    page_B: PageSize = 4096  # the page size of x86 and x86-64
    # a block device's read-ahead window (blockdev --setra, read_ahead_kb): Linux's default
    # VM_MAX_READAHEAD, 128 KiB; a memory-mapped fault reads around half of it
    read_ahead_KiB: PositiveFloat = 128.0


@dataclass(frozen=True)
class Kernel(PageCache):
    """The kernel's page cache: its page size, a block device's read-ahead and the write-back
    thresholds, as shares of memory (Linux 2.6.9 defaults, RHEL4); and what its ext3 code costs a
    writer.

    ``ext3_write_ratio`` is a writer's rate through ``write()`` on ext3 over its rate on ext2 when
    its core binds, both in the page cache: 1 treats ext3 as ext2 (the kernels whose ext3 no longer
    takes the big kernel lock; no figure is published for them). ext3 opens a journal handle for
    every page written, and in Linux 2.4 and early 2.5 each handle takes the big kernel lock
    (lockmeter on 2.4.16 and 2.4.18 blamed ext3_prepare_write, ext3_commit_write,
    ext3_get_block_handle and ext3_dirty_inode: mgross of Intel, "ext3 performance bottleneck as the
    number of spindles gets large", linux-kernel, 19 June 2002). For that code IBM's Linux
    Technology Center measured an ``ext3_write_ratio`` of 0.40 (1 MiB files) to 0.455 (16 MiB) on
    2.5.41 (iozone -a with 4 KiB records on a 4-way 500 MHz SMP with 2.5 GB: "IOzone benchmark",
    Linux Kernel Performance project, linuxperf.sourceforge.net, results of 25 October 2002).
    """

    # a writer past this much dirty memory writes back itself: the share of the bytes a stream
    # writes beyond it is what its own process writes back (model.storage.stream.writer_share)
    dirty_ratio_pct: PositiveFloat = 40.0
    # where the flusher threads start writing back in the background: checked to lie at or below
    # dirty_ratio_pct, it changes no stream's steady rate in these models (a stream's rate is set by
    # what lies beyond dirty_ratio_pct, which its writer writes back itself, and by the drives,
    # which take the flushers' writes and the writer's alike)
    dirty_background_ratio_pct: PositiveFloat = 10.0
    ext3_write_ratio: Annotated[
        float, Bound(0.0, 1.0, low_open=True, words="a share above 0 and at most 1")
    ] = 1.0

    def check(self, where: str, key: str) -> None:
        if not self.dirty_background_ratio_pct <= self.dirty_ratio_pct <= 100.0:
            raise UserError(
                where,
                f"{key}.dirty_ratio_pct",
                "must lie between dirty_background_ratio_pct and 100",
            )


# each TCP stream or connection of a scenario is a flow of its simulation: past this many together a
# run would not end while its user waits (10,000 clients of 16 connections each took 34 to 48 s)
SIMULATED_FLOWS = 10_000


def check_flows(
    where: str,
    key: str,
    counts: dict[str, int],
    unit: str,
    related: tuple[str, ...] = (),
) -> None:
    """Refuse ``counts`` (two keys and their counts: a WAN's sessions and streams, clients' count
    and connections) whose product is more than ``SIMULATED_FLOWS`` flows of ``unit`` (TCP
    streams, TCP connections), named at ``key``."""
    (a, m), (b, n) = counts.items()
    if m * n > SIMULATED_FLOWS:
        raise UserError(
            where,
            key,
            f"{a} x {b} must be at most {SIMULATED_FLOWS:,} {unit} (each is simulated), "
            f"got {m} x {n}",
            related=related,
        )


def check_triples(obj: object, names: tuple[str, ...], where: str, key: str) -> None:
    """Refuse a sysctl of three numbers (min, default, max; low, pressure, high) given otherwise."""
    for name in names:
        low_default_high = getattr(obj, name)
        dotted = f"{key}.{name}" if key else name
        if (
            len(low_default_high) != 3
            or not low_default_high[0] <= low_default_high[1] <= low_default_high[2]
        ):
            raise UserError(
                where,
                dotted,
                f"must be three integers min <= default <= max, "
                f"as sysctl prints them, got {list(low_default_high)}",
            )


@dataclass(frozen=True)
class TcpBuffers:
    """The Linux TCP sysctls that size a stream's socket buffers when the kernel chooses them, and
    the host's TCP offloads, as ``sysctl -w`` and ethtool set them.

    ``tcp_rmem_B``/``tcp_wmem_B`` are the three numbers min, default, max of ``net.ipv4.tcp_rmem``
    and ``tcp_wmem``; ``tcp_mem_pages`` those of ``net.ipv4.tcp_mem`` (low, pressure, high, in pages
    of ``page_B``). A buffer the kernel chooses (``tcp_rmem_B``, ``tcp_wmem_B``) starts at the
    default and may grow to the max; all TCP sockets of a host together never hold more than
    ``tcp_mem_pages``' high, so the buffers of many streams share that. ``tcp_adv_win_scale`` (2,
    the reports' kernels' default; 1 from Linux 3.6) keeps 1/2^scale of a receive buffer for
    overhead, the rest is window. ``tso``: the sender builds segments of up to 64 KiB (TCP
    segmentation offload, on by default on today's NICs), whose bookkeeping is a few percent of
    their payload, so the whole send buffer can be in flight; without it (the 2.4 kernels) each
    1500-byte segment's overhead counts against the send buffer as the receive buffer's does
    (``tcp_adv_win_scale``). With ``tso`` the sending stack also handles one 64 KiB super-segment
    where it handled one frame (the NIC cuts it into frames, Linux kernel documentation,
    networking/segmentation-offloads.rst), and its CPU cost is what a Linux 5.4 sender measured (Cai
    et al.: 846 cycles a 1,448-byte segment besides the copy, part per frame and part per byte) in
    place of ``NET_CYCLES_PER_FRAME`` a frame, scaled as a host's ``net_cycles_per_frame`` scales
    that (``model.network.tcp.offloaded_frames_per_byte``). ``gro``: generic receive offload, the
    receiving kernel merges a flow's frames into one packet of up to 64 KiB (``gro_max_size``, 65536
    by default) before IP and TCP see it (segmentation-offloads.rst, 'Generic Receive Offload'), so
    the receiver pays what a Linux 5.4 receiver measured (1,821 cycles a segment, some 1,100 of them
    on the interrupt core and the rest in the reading process, ``model.network.tcp.reader_share``),
    and, as it acknowledges each packet it sees of more than one segment at once, sends one ACK per
    merged packet instead of one per two segments. GRO exists from Linux 2.6.29 and is on by default
    with drivers that support it; off (the default) for the 2.4 and 2.6.9 kernels of the reports.
    """

    # net.ipv4.tcp_rmem: a TCP receive buffer's min, default and max, bytes
    tcp_rmem_B: tuple[SysctlInt, ...] = (4096, 87380, 174760)
    # net.ipv4.tcp_wmem: a TCP send buffer's min, default and max, bytes
    tcp_wmem_B: tuple[SysctlInt, ...] = (4096, 16384, 131072)
    # net.ipv4.tcp_mem: low, pressure and high of what all the host's TCP sockets hold together,
    # in pages of page_B
    tcp_mem_pages: tuple[PositiveInt, ...] = (195584, 196096, 196608)
    # Linux's ip-sysctl.txt: 'Possible values are [-31, 31], inclusive' (the model takes the
    # positive ones, a share 1/2^scale kept for overhead)
    tcp_adv_win_scale: Annotated[int, Bound(1.0, 31.0, words="an integer from 1 to 31")] = 2
    page_B: PageSize = 4096  # the page size tcp_mem_pages counts in
    tso: bool = False
    gro: bool = False

    def check(self, where: str, key: str) -> None:
        check_triples(self, ("tcp_rmem_B", "tcp_wmem_B", "tcp_mem_pages"), where, key)


# Linux's TCP buffers from 4.20 on (Documentation/networking/ip-sysctl.rst: tcp_rmem 4096 131072
# 6291456, tcp_wmem 4096 16384 4194304): what a LAN's clients and servers size their sockets by
# unless a scenario says
LAN_TCP_RMEM_B = (4096, 131072, 6291456)
LAN_TCP_WMEM_B = (4096, 16384, 4194304)
# the share of a buffer current Linux keeps for overhead, 1/2^1 (tcp_adv_win_scale 1, Linux 3.6 on:
# 'tcp: change tcp_adv_win_scale and tcp_rmem[2]', commit b49960a05e32)
LAN_ADV_WIN_SCALE = 1


def lan_tcp(hosts: Any) -> TcpBuffers:
    """The TCP of current Linux hosts on a LAN, as a scenario section gives them (a storage
    scenario's ``clients``, an ingest): its ``tcp_rmem_B`` and ``tcp_wmem_B``, a receive buffer's
    half kept for overhead (``LAN_ADV_WIN_SCALE``) and its ``tso`` and ``gro``."""
    return TcpBuffers(
        tcp_rmem_B=hosts.tcp_rmem_B,
        tcp_wmem_B=hosts.tcp_wmem_B,
        tcp_adv_win_scale=LAN_ADV_WIN_SCALE,
        tso=hosts.tso,
        gro=hosts.gro,
    )


@dataclass(frozen=True)
class TcpCaps(TcpBuffers):
    """``TcpBuffers`` with the ``net.core`` caps on a buffer the application asks for itself
    (setsockopt ``SO_RCVBUF``, ``SO_SNDBUF``): Linux caps the request at ``core_rmem_max_B`` or
    ``core_wmem_max_B`` and doubles it, and then ``tcp_rmem_B`` and ``tcp_wmem_B`` no longer size
    that socket (``model.network.tcp.socket_buffers_B``). Their defaults are what Linux sets at
    boot on a host of 512 MiB or more, from 2.4 on (net/core/sock.c, ``sk_init``: 'else if
    (num_physpages >= 131072) { sysctl_wmem_max = 131071; sysctl_rmem_max = 131071; }', over
    skbuff.h's 65535)."""

    # net.core.rmem_max: the most of a receive buffer an application's request is taken for
    core_rmem_max_B: SysctlInt = 131071
    # net.core.wmem_max: the most of a send buffer an application's request is taken for
    core_wmem_max_B: SysctlInt = 131071


@dataclass(frozen=True)
class TcpSettings(TcpCaps):
    """The Linux TCP sysctls of both hosts, as ``sysctl -w`` sets them (slide 34 of the ATLAS
    report): the buffers' and the offloads, the ``net.core`` caps on a buffer the application asks
    for, the first congestion window and the congestion control.

    ``core_*`` are the ``net.core`` defaults and caps. A buffer the application asks for
    (``workload.socket_buffer_B``) is capped at ``core_*mem_max_B`` and doubled, as Linux does.
    ``core_rmem_default_B``/``core_wmem_default_B`` (``net.core.rmem_default``, ``wmem_default``)
    size the buffers of sockets other than TCP's, and no socket of these models takes them: a TCP
    socket starts at tcp_rmem's and tcp_wmem's default, and Tsunami's client sets its
    UDP socket's receive buffer itself (setsockopt SO_RCVBUF to its udp_buffer, create_udp_socket
    in client/network.c), which the model, sending a Tsunami session's blocks at its target rate,
    does not size; they record a host's settings and change nothing. ``initial_window_segments`` is
    the first congestion window (RFC 3390: 3 segments at MSS 1448; Linux before 2.6.39, 10 from
    2.6.39). ``slow_start_growth`` is how slow start grows it: ``per_ack``, a segment per ACK (RFC
    5681; Linux before 3.13, with delayed ACKs half a segment per segment once its first 16 are
    acknowledged one by one), or ``per_segment``, the segments each ACK covers (Linux 3.13 on,
    commit 9f9843a751d0), doubling the window each round trip.

    ``congestion_control`` is the sending host's algorithm (``net.ipv4.tcp_congestion_control``),
    which sets a stream's rate on a path that loses packets (``model.network.tcp.loss_limit_Bps``;
    nothing changes at ``loss_rate`` 0): ``reno`` Reno's response (Mathis, Semke, Mahdavi and Ott,
    1997), ``cubic`` CUBIC's average window under random loss (RFC 8312 section 5, the same in RFC
    9438 section 5) and never less than Reno's, CUBIC's TCP-friendly region, each segment of either
    also waiting its share of retransmission timeouts (Padhye, Firoiu, Towsley and Kurose, 1998),
    as ``sack`` repairs losses: with selective acknowledgements (Linux's default) only a lost
    retransmission waits for one (0.4 % of the rate at 1 % loss on a 0.1 s round trip, 13 % at 10
    %), without them a Reno sender's (6 % and 47 %); ``bbr`` Linux's BBR
    (``tcp_bbr``, 4.9 and later), which paces at the delivery rate it measures and 'does not react
    directly to packet losses' (net/ipv4/tcp_bbr.c): below 15 % loss a stream keeps its share of
    the path, of which 1 - loss arrives ('If the packet loss rate is below 15% then BBR is able to
    fully utilize the path (reaching link_bandwidth*(1 - loss_rate)). This 15% threshold is a
    design parameter', the cover letter of '[PATCH v4 net-next 00/16] tcp: BBR congestion control
    algorithm', N. Cardwell, 2016); at 15 % or more it is not modelled. Linux's default
    ``congestion_control``: Reno (with NewReno and SACK) in 2.4; BIC in 2.6.8 to 2.6.18
    (``sysctl_tcp_bic`` 1 in net/ipv4/tcp_input.c until the pluggable congestion control of
    2.6.13, the kernel's built-in default after it); CUBIC from 2.6.19 on (``DEFAULT_TCP_CONG``
    ``cubic`` in net/ipv4/Kconfig). The model has no BIC (it grows as Reno below a window of 14
    segments, ``sysctl_tcp_bic_low_window``, and faster above it), so its default
    ``congestion_control``, ``reno``, stands for the reports' 2.6.9 hosts as well as their 2.4
    ones: the response the reports were calibrated with; a host of Linux 2.6.19 or later sets
    ``congestion_control`` ``cubic``. Only ``wan_transfer`` streams cross a lossy path: elsewhere
    the key changes nothing.
    """

    core_rmem_default_B: SysctlInt = 65535
    core_wmem_default_B: SysctlInt = 65535
    initial_window_segments: PositiveInt = 3
    # how slow start grows the window (model.network.tcp.slow_start_growth): a segment per ACK
    # (Linux before 3.13, the reports' kernels) or per segment each ACK covers (3.13 on)
    slow_start_growth: Literal["per_ack", "per_segment"] = "per_ack"
    # the response function of a stream's loss limit (model.network.tcp.loss_limit_Bps)
    congestion_control: Literal["reno", "cubic", "bbr"] = "reno"
    # selective acknowledgements (net.ipv4.tcp_sack, on by default: 'int sysctl_tcp_sack
    # __read_mostly = 1' in net/ipv4/tcp_input.c): with them a loss waits for the retransmission
    # timeout only where its retransmission is lost too; without them, as Reno's do
    # (model.network.tcp.timeouts_s_per_segment)
    sack: bool = True


@dataclass(frozen=True)
class TcpTuned(TcpCaps):
    """``TcpCaps`` with larger buffers on every host: the MDSplus report's TCP test (section
    3.7, 'We increased the maximum TCP send and receive buffers and the memory reserved for TCP
    buffers also', 'commonly recommended settings for database-serving systems'), which gives no
    values. Its defaults are the ones then commonly recommended (estimated): buffers of up to
    16 MiB, whether the kernel sizes them or the application asks, a send buffer that starts at
    64 KiB, and tcp_mem's thresholds at 3, 4 and 6 GiB of 4 KiB pages. A key set here changes only
    that key: the others keep these defaults."""

    # estimated: net.core.rmem_max and wmem_max as commonly tuned then, 16 MiB
    core_rmem_max_B: SysctlInt = 16777216
    core_wmem_max_B: SysctlInt = 16777216

    # estimated: net.ipv4.tcp_rmem as commonly tuned then, a maximum of 16 MiB
    tcp_rmem_B: tuple[SysctlInt, ...] = (4096, 87380, 16777216)
    # estimated: net.ipv4.tcp_wmem as commonly tuned then, 64 KiB at first, at most 16 MiB
    tcp_wmem_B: tuple[SysctlInt, ...] = (4096, 65536, 16777216)
    # estimated: net.ipv4.tcp_mem as commonly tuned then (3, 4 and 6 GiB of 4 KiB pages)
    tcp_mem_pages: tuple[PositiveInt, ...] = (786432, 1048576, 1572864)
