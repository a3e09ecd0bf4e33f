"""TCP and UDP on the wire: segment sizes, framing, socket buffers, window and loss limits, slow
start.

Pure functions of the scenario's settings, so that each law can be tested by itself:

- the window limit: a stream never has more than one window in flight, so its rate is at most
  window / RTT (the bandwidth-delay product read backwards);
- the loss limit, by the sender's congestion control (``TcpSettings.congestion_control``): Reno's
  (Mathis, Semke, Mahdavi and Ott, CCR 27(3), 1997), MSS / RTT * sqrt(3/2) / sqrt(p), or CUBIC's
  average window under random loss (RFC 8312 section 5, RFC 9438 section 5) and never less than
  Reno's; BBR's none below its 15 % design limit (``BBR_LOSS_LIMIT``);
- slow start: the congestion window starts at ``initial_window_segments`` and grows by a segment
  per ACK (RFC 5681) until it reaches the window the stream will keep: Linux acknowledges every
  segment at first (quickack mode), so the window doubles each RTT, then every second segment
  (delayed ACKs), so it grows by half each RTT; from Linux 3.13 it grows by the segments each ACK
  covers, doubling each RTT (``slow_start_growth``);
- Linux socket buffers: a buffer the kernel chooses starts at ``tcp_rmem[1]`` and may grow to
  ``tcp_rmem[2]``; one the application sets is capped at ``net.core.rmem_max`` and doubled; of a
  receive buffer, 1/2^tcp_adv_win_scale is kept for overhead and the rest advertised as window.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

from ..errors import NotModelled
from ..settings import (
    NET_CYCLES_PER_FRAME,
    STACK_RUN_CLOCK_GHZ,
    STACK_RUN_NO_OFFLOADS,
    STACK_RUN_TSO_GRO,
    STACK_RUN_TSO_GRO_JUMBO,
    StackRun,
    TcpBuffers,
    TcpCaps,
    TcpSettings,
)

ETHERNET_OVERHEAD_B = (
    38  # preamble and start delimiter 8, header 14, FCS 4, inter-frame gap 12 (IEEE 802.3)
)
ETHERNET_HEADER_B = 14  # destination and source addresses, EtherType (IEEE 802.3)
# the least a frame carries: a 64-byte frame's header and FCS leave 46 bytes, padded up to them
# (IEEE 802.3, minFrameSize 512 bits)
ETHERNET_MIN_PAYLOAD_B = 46
IP_HEADER_B = 20
TCP_HEADER_B = 32  # 20 bytes plus the 12-byte timestamp option Linux sends by default (RFC 1323)
UDP_HEADER_B = 8
TSUNAMI_HEADER_B = (
    6  # block number (4) and type (2) ahead of each block (Tsunami's server/protocol.c)
)
ACKS_PER_SEGMENT = 0.5  # delayed ACKs: one ACK for every second segment (RFC 1122)
QUICKACKS = 16  # segments Linux acknowledges one by one at a connection's start (TCP_MAX_QUICKACKS)
MATHIS_C = math.sqrt(1.5)
# CUBIC's constants: C, in segments per second cubed, 'C SHOULD be set to 0.4' (RFC 8312 section
# 5.1, RFC 9438 section 5.1), and the multiplicative decrease factor, 'beta_cubic SHOULD be set to
# 0.7' (RFC 8312 section 4.5, RFC 9438 section 4.6). Linux's tcp_cubic.c uses 410/1024 and
# 717/1024 (bic_scale 41, beta 717), the same within 0.2 %.
CUBIC_C = 0.4
CUBIC_BETA = 0.7
# The largest packet GRO builds and the largest super-segment TSO hands the NIC: the IP datagram's
# 64 KiB (GRO_MAX_SIZE and GSO_MAX_SIZE, 65536, in include/linux/netdevice.h)
OFFLOAD_MAX_B = 65536


def mss_B(mtu_B: int) -> int:
    """TCP payload per segment: the MTU less the IP and TCP headers (with timestamps)."""
    return mtu_B - IP_HEADER_B - TCP_HEADER_B


def tcp_wire_per_byte(mtu_B: int) -> float:
    """Bytes on the wire per payload byte of a full-sized TCP segment."""
    return (mtu_B + ETHERNET_OVERHEAD_B) / mss_B(mtu_B)


def tcp_packets_per_byte(mtu_B: int) -> float:
    """Frames a host handles per payload byte of a TCP stream: the data segment and half an ACK."""
    return (1.0 + ACKS_PER_SEGMENT) / mss_B(mtu_B)


def segments_per_offload(mtu_B: int) -> int:
    """Full-sized segments in one GRO packet or TSO super-segment: as many as fit, with their one
    IP and TCP header, in ``OFFLOAD_MAX_B``."""
    return max(1, (OFFLOAD_MAX_B - IP_HEADER_B - TCP_HEADER_B) // mss_B(mtu_B))


def _segments_per_s(run: StackRun) -> float:
    """Full-sized segments a second a published run (``settings.StackRun``) moved."""
    return run.payload_Gbps * 1e9 / 8 / mss_B(run.mtu_B)


def _cycles_per_segment(run: StackRun, side: str) -> float:
    """CPU cycles besides the data copy one end of a published run (``settings.StackRun``) spent
    per full-sized segment it moved."""
    cores, copy_pct = (
        (run.sender_cores, run.sender_copy_pct)
        if side == "sender"
        else (run.receiver_cores, run.receiver_copy_pct)
    )
    return cores * STACK_RUN_CLOCK_GHZ * 1e9 * (1 - copy_pct / 100) / _segments_per_s(run)


@functools.cache
def offloaded_costs(side: str) -> tuple[float, float]:
    """(per wire frame, per payload byte) CPU cycles besides the copy an end pays with TSO and GRO
    on: the line through the published runs at MTU 1500 and 9000 (``settings.STACK_RUN_TSO_GRO``
    and ``STACK_RUN_TSO_GRO_JUMBO``), each segment a frame and its bytes. Part of the cost does not
    shrink with fewer frames: allocating and freeing the buffers' pages, the socket buffers."""
    small, jumbo = STACK_RUN_TSO_GRO, STACK_RUN_TSO_GRO_JUMBO
    a, b = mss_B(small.mtu_B), mss_B(jumbo.mtu_B)
    per_byte = (_cycles_per_segment(jumbo, side) - _cycles_per_segment(small, side)) / (b - a)
    return _cycles_per_segment(small, side) - per_byte * a, per_byte


def offloaded_frames_per_byte(side: str, mtu_B: int) -> float:
    """Frames' worth of per-frame work an end with its offload on (``tso`` the sender, ``gro`` the
    receiver) pays per payload byte: what the published runs measured (``offloaded_costs``), in
    units of the default cost of a frame (``settings.NET_CYCLES_PER_FRAME``), so that a host at
    the default pays those cycles and a scenario's own ``net_cycles_per_frame`` scales them. An
    end with offloads runs a kernel of 2.6.29 or later, as the runs' 5.4 did; the reports' 2.4 and
    2.6.9 hosts, without them, pay the 2.4-era cost. At MTU 1500 the sender's segment costs 846
    cycles and the receiver's 1,821."""
    per_frame, per_byte = offloaded_costs(side)
    return (per_frame / mss_B(mtu_B) + per_byte) / NET_CYCLES_PER_FRAME


@functools.cache
def interrupt_cycles_per_frame() -> float:
    """CPU cycles the core that takes a receiver's interrupts spends per frame with GRO on, the
    rest of the receive work beside the copy running on the reading application's core.

    In Cai et al.'s runs without aRFS the receiver's data copy is the bottleneck (the paper's
    abstract: 'data copy from kernel to application buffers at the receiver becoming the core
    performance bottleneck'; with aRFS, which puts the interrupts on the application's core, the
    whole receive took 100.000 % of one core), so the reading core is taken as one whole core and
    the interrupt core as the rest of the receiver's cores: 0.751 of a core at MTU 1500 and 0.145
    at 9000, 1,113 and 1,082 cycles a frame, the same within 3 % (driver, GRO, buffer
    allocation: per frame whatever its size). Their mean."""
    runs = (STACK_RUN_TSO_GRO, STACK_RUN_TSO_GRO_JUMBO)
    per_frame = [
        (run.receiver_cores - 1.0) * STACK_RUN_CLOCK_GHZ * 1e9 / _segments_per_s(run)
        for run in runs
    ]
    return sum(per_frame) / len(per_frame)


def reader_share(mtu_B: int, settings: TcpBuffers) -> float:
    """Share of a receiver's work per frame (``tcp_frame_work_per_byte``) that a reader which
    always holds its socket does on its own core.

    Linux's softirq hands a segment that arrives while the reading process owns the socket to the
    socket's backlog (``tcp_v4_rcv`` in net/ipv4/tcp_ipv4.c: ``if (!sock_owned_by_user(sk))``
    process it, else add it to the backlog; kernels before 4.14 also queued it for a reader asleep
    in recvmsg, ``tcp_prequeue``), and the reader does that TCP work itself when it lets go
    (``release_sock``). What Cai et al.'s runs show, the reading core one whole core (see
    ``interrupt_cycles_per_frame``): with GRO, all but the interrupt core's part per frame, 0.40
    of it at MTU 1500 and 0.77 at 9000; without offloads (their no-opts run, 1.858 cores, 7.39 %
    of them the copy) half of it, taken for every host without GRO, the reports' 2.4 and 2.6.9
    kernels too. A reader that serves ``k`` sockets holds each about ``1/k`` of the time, and does
    that share of it."""
    if not settings.gro:
        run = STACK_RUN_NO_OFFLOADS
        copy_cores = run.receiver_cores * run.receiver_copy_pct / 100
        return (1.0 - copy_cores) / (run.receiver_cores - copy_cores)
    total = offloaded_frames_per_byte("receiver", mtu_B) * NET_CYCLES_PER_FRAME * mss_B(mtu_B)
    return max(0.0, 1.0 - interrupt_cycles_per_frame() / total)


def tcp_frame_work_per_byte(mtu_B: int, settings: TcpBuffers) -> tuple[float, float]:
    """(sender, receiver) frames' worth of per-frame CPU work per payload byte of a TCP stream.

    Without offloads each host handles the data segment and half an ACK per segment
    (``tcp_packets_per_byte``). An end with its offload on (``tso`` the sender, ``gro`` the
    receiver) pays what the published runs measured (``offloaded_frames_per_byte``, their ACKs
    included). Linux acknowledges at once when more than one full-sized segment has arrived
    (``__tcp_ack_snd_check`` in net/ipv4/tcp_input.c, run once per packet the stack sees), so with
    ``gro`` the receiver sends one ACK per merged packet of ``segments_per_offload`` segments, and
    a sender without ``tso`` handles that many fewer. Pure ACKs are neither merged nor cut.
    """
    per_offload = 1.0 / segments_per_offload(mtu_B)
    acks = min(per_offload, ACKS_PER_SEGMENT) if settings.gro else ACKS_PER_SEGMENT
    if settings.tso:
        sent = offloaded_frames_per_byte("sender", mtu_B)
    else:
        sent = (1.0 + acks) / mss_B(mtu_B)
    if settings.gro:
        received = offloaded_frames_per_byte("receiver", mtu_B)
    else:
        received = tcp_packets_per_byte(mtu_B)
    return sent, received


def udp_fragments(block_B: int, mtu_B: int) -> int:
    """IP fragments one Tsunami block (header, block, UDP header) travels in."""
    datagram = block_B + TSUNAMI_HEADER_B + UDP_HEADER_B
    per_fragment = (mtu_B - IP_HEADER_B) // 8 * 8  # fragment offsets count 8-byte units
    return math.ceil(datagram / per_fragment)


def udp_wire_per_byte(block_B: int, mtu_B: int) -> float:
    """Bytes on the wire per payload byte of a Tsunami block: each fragment's IP packet, padded to
    Ethernet's least payload (``ETHERNET_MIN_PAYLOAD_B``), in its frame."""
    n = udp_fragments(block_B, mtu_B)
    datagram = block_B + TSUNAMI_HEADER_B + UDP_HEADER_B
    per_fragment = (mtu_B - IP_HEADER_B) // 8 * 8
    last_B = datagram - (n - 1) * per_fragment + IP_HEADER_B  # the last fragment's IP packet
    padding_B = max(0, ETHERNET_MIN_PAYLOAD_B - last_B)
    return (datagram + padding_B + n * (IP_HEADER_B + ETHERNET_OVERHEAD_B)) / block_B


def udp_packets_per_byte(block_B: int, mtu_B: int) -> float:
    return udp_fragments(block_B, mtu_B) / block_B


# the least buffers setsockopt leaves a socket, whatever it asks for (include/net/sock.h of Linux
# 2.4, SOCK_MIN_RCVBUF and SOCK_MIN_SNDBUF; sock_setsockopt takes the larger of these and twice
# the request)
SOCK_MIN_RCVBUF_B = 256
SOCK_MIN_SNDBUF_B = 2048


def socket_buffers_B(
    tcp: TcpBuffers, requested_B: int | None, streams_on_host: int = 1
) -> tuple[int, int]:
    """(receive, send) buffer of one socket, as Linux 2.4 sizes them.

    Buffers the kernel chooses grow to ``tcp_rmem[2]``/``tcp_wmem[2]``; a size the application
    requests is capped at ``net.core.*mem_max`` and doubled (so it needs the ``TcpCaps`` that
    hold those caps), and is never below the kernel's least (``SOCK_MIN_RCVBUF``,
    ``SOCK_MIN_SNDBUF``: a request of 1 byte gave a window of 1.5). All TCP sockets of a host
    together never hold more than ``tcp_mem[2]`` pages, so the buffers of many streams share that.
    """
    if requested_B is None:
        rcv, snd = tcp.tcp_rmem_B[2], tcp.tcp_wmem_B[2]
    else:
        if not isinstance(tcp, TcpCaps):
            raise TypeError("a requested buffer is capped at net.core.*mem_max: pass TcpCaps")
        rcv = max(2 * min(requested_B, tcp.core_rmem_max_B), SOCK_MIN_RCVBUF_B)
        snd = max(2 * min(requested_B, tcp.core_wmem_max_B), SOCK_MIN_SNDBUF_B)
    pool = tcp.tcp_mem_pages[2] * tcp.page_B // max(streams_on_host, 1)
    return min(rcv, pool), min(snd, pool)


# the share of a host's memory current Linux gives all TCP sockets together at boot, tcp_mem's
# high: a sixteenth of the pages it can buffer in, three quarters of that doubled, '9.37 %'
# (net/ipv4/tcp.c, tcp_init_mem); kernels before it took an eighth, 18.75 %
LINUX_TCP_MEM_HIGH_SHARE = 0.0937


def linux_tcp_mem_high_pages(memory_MB: float, page_B: int) -> int:
    """tcp_mem's high that current Linux sets at boot on a host of ``memory_MB``
    (``LINUX_TCP_MEM_HIGH_SHARE`` of its pages, all taken as ones it can buffer in)."""
    return int(LINUX_TCP_MEM_HIGH_SHARE * memory_MB * 1e6 / page_B)


# the largest receive window TCP can advertise: 16 bits shifted by at most 14 (RFC 7323 section
# 2.3, 'the maximum scale exponent is limited to 14 for a maximum permissible receive window size of
# 1 GiB'; Linux's TCP_MAX_WSCALE, include/net/tcp.h, and tcp_select_initial_window's cap of the
# window at U16_MAX << TCP_MAX_WSCALE in net/ipv4/tcp_output.c)
MAX_WINDOW_B = 65535 << 14


def window_B(tcp: TcpBuffers, requested_B: int | None = None, streams_on_host: int = 1) -> float:
    """The most a stream can have in flight: the advertised receive window or the send buffer's
    share, and never more than TCP's largest window (``MAX_WINDOW_B``)."""
    rcv, snd = socket_buffers_B(tcp, requested_B, streams_on_host)
    usable = 1.0 - 2.0**-tcp.tcp_adv_win_scale
    return min(rcv * usable, send_window_B(snd, tcp.tso, tcp.tcp_adv_win_scale), MAX_WINDOW_B)


def send_window_B(send_buffer_B: float, tso: bool, adv_win_scale: int) -> float:
    """The payload a send buffer of ``send_buffer_B`` keeps in flight: all of it with TSO (64 KiB
    super-segments, whose bookkeeping is a few percent of their payload), else the share a receive
    buffer of ``adv_win_scale`` keeps for data, each 1500-byte segment's overhead counting against
    it as it does there (``model.settings.TcpBuffers``)."""
    return send_buffer_B if tso else send_buffer_B * (1.0 - 2.0**-adv_win_scale)


def window_limit_Bps(window: float, rtt_s: float) -> float:
    """A window-limited stream: one window per round trip."""
    return window / rtt_s


def mathis_Bps(mtu_B: int, rtt_s: float, loss_rate: float) -> float:
    """The loss-limited rate of one stream in congestion avoidance (Mathis et al. 1997)."""
    if loss_rate <= 0.0:
        return math.inf
    return mss_B(mtu_B) / rtt_s * MATHIS_C / math.sqrt(loss_rate)


def aimd_window_segments(loss_rate: float, alpha: float, beta: float) -> float:
    """The average window, in segments, of AIMD(alpha, beta) under random loss ``loss_rate``:
    sqrt(alpha (1 + beta) / (2 (1 - beta) p)) (Floyd, Handley and Padhye 2000, as RFC 8312 section
    4.2 Eq. 3 and RFC 9438 section 4.3 give it). Reno's AIMD(1, 0.5) gives sqrt(3/2) / sqrt(p),
    Mathis et al.'s window."""
    return math.sqrt(alpha * (1.0 + beta) / (2.0 * (1.0 - beta) * loss_rate))


# the loss rate below which Linux's BBR keeps a path full: 'If the packet loss rate is below 15%
# then BBR is able to fully utilize the path (reaching link_bandwidth*(1 - loss_rate)). This 15%
# threshold is a design parameter' ('[PATCH v4 net-next 00/16] tcp: BBR congestion control
# algorithm', N. Cardwell, 2016)
BBR_LOSS_LIMIT = 0.15


def cubic_window_segments(rtt_s: float, loss_rate: float) -> float:
    """CUBIC's average window, in segments, under random loss ``loss_rate`` at round trip
    ``rtt_s`` in seconds, never less than its TCP-friendly estimate.

    RFC 8312 section 5 (Eq. 5), unchanged in RFC 9438 section 5 (whose appendix proves it): with
    one loss every 1/p packets CUBIC stays on the concave side of its cubic, and its average window
    is (C (3 + beta_cubic) / (4 (1 - beta_cubic)))^(1/4) * RTT^(3/4) / p^(3/4); with C 0.4 and
    beta_cubic 0.7, 1.054 RTT^0.75 / p^0.75 (RFC 8312 Eq. 7). In the TCP-friendly region (RFC 8312
    section 4.2; the Reno-friendly region of RFC 9438 section 4.3) CUBIC follows W_est, the window
    of AIMD(3 (1 - beta_cubic) / (1 + beta_cubic), beta_cubic), whose average is Reno's (RFC 8312
    Eq. 3 and 4): it 'computes both W_cubic(t) and W_est ... and chooses the larger of the two
    values' (RFC 9438 section 4.2), and the tables of RFC 8312 section 5.1 (RFC 9438 section 5.1)
    take the larger of the two averages: at RTT 0.1 s and p 1e-5 CUBIC averages 1054 segments
    against Reno's 379 (the RFC's table, at 1.2 / sqrt(p); sqrt(3 / (2 p)) here, 387), at 0.01 s
    it is Reno's. RFC 9438 lets W_est grow at Reno's one segment per
    round trip once it passes the window of the last loss (section 4.3); with one loss each time
    the window comes back to it, as here, that never happens, and the average is the same.
    """
    cubic = (CUBIC_C * (3.0 + CUBIC_BETA) / (4.0 * (1.0 - CUBIC_BETA))) ** 0.25 * (
        rtt_s / loss_rate
    ) ** 0.75
    alpha = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA)
    return max(cubic, aimd_window_segments(loss_rate, alpha, CUBIC_BETA))


def cubic_Bps(mtu_B: int, rtt_s: float, loss_rate: float) -> float:
    """The loss-limited rate of one CUBIC stream: its average window (``cubic_window_segments``)
    of full-sized segments per round trip."""
    if loss_rate <= 0.0:
        return math.inf
    return mss_B(mtu_B) / rtt_s * cubic_window_segments(rtt_s, loss_rate)


# Linux's least retransmission timeout, TCP_RTO_MIN (HZ / 5, include/net/tcp.h): its timeout is the
# smoothed round trip plus a variance term of at least this (tcp_set_rto, tcp_rtt_estimator)
TCP_RTO_MIN_S = 0.2


def timeouts_s_per_segment(rtt_s: float, loss_rate: float, sack: bool = True) -> float:
    """The time retransmission timeouts add to each segment a stream sends under random loss
    ``loss_rate`` (Padhye, Firoiu, Towsley and Kurose, 'Modeling TCP Throughput: A Simple Model and
    its Empirical Validation', SIGCOMM 1998, eq. 30's second term): a loss is found by a timeout,
    not by duplicate ACKs, with probability Q, and a run of timeouts, each doubling the last,
    lasts T0 (1 + 32 p^2) on average; T0 is the timeout, the round trip plus ``TCP_RTO_MIN_S``.

    Q is how the sender repairs a loss. Without selective acknowledgements (``sack`` false) it is
    Padhye et al.'s Reno's, min(1, 3 sqrt(3 b p / 8)) with b 1 (Linux grows its window by the
    segments each ACK covers, as the Mathis constant here assumes): a loss among a window's last
    three segments draws too few duplicate ACKs, and Reno repairs one loss a window. With them
    (Linux's default) the sender repairs each loss of a window by fast retransmit, the sender
    Mathis et al. model ('It assumes that TCP avoids retransmission timeouts ... The model
    predicts the Congestion Avoidance performance of nearly all TCP implementations under
    restricted conditions and of TCP with Selective Acknowledgements over a much wider range',
    'The Macroscopic Behavior of the TCP Congestion Avoidance Algorithm', CCR 1997); a loss
    still waits for the timeout where its retransmission is lost too, probability p, which Q is
    taken as (kernels with RACK and tail loss probes, RFC 8985, repair some of those too: at
    most what they wait). Against the window's rate alone, at a 0.1 s round trip Reno's
    timeouts take 0.7 % of a stream's rate at 0.1 % loss, 6.3 % at 1 % and 47 % at 10 %, SACK's
    0.01 %, 0.4 % and 13 %; on a 0.05 ms LAN at 1 % loss they leave Reno 3.9 MB/s of Mathis et
    al.'s 354, SACK 60."""
    timeout_s = rtt_s + TCP_RTO_MIN_S
    found_by_timeout = loss_rate if sack else min(1.0, 3.0 * math.sqrt(3.0 * loss_rate / 8.0))
    return timeout_s * found_by_timeout * loss_rate * (1.0 + 32.0 * loss_rate**2)


def loss_limit_Bps(mtu_B: int, rtt_s: float, loss_rate: float, settings: TcpSettings) -> float:
    """The loss-limited rate of one stream under the sender's ``congestion_control``: Reno's
    (``mathis_Bps``) or CUBIC's (``cubic_Bps``) window a round trip, each segment also taking its
    share of the retransmission timeouts (``timeouts_s_per_segment``, as ``settings.sack`` repairs
    losses: without it and with Reno's window, Padhye et al.'s full model), or none for BBR,
    which keeps its rate below ``BBR_LOSS_LIMIT`` (what is lost is sent again: the caller charges
    the wire for it)."""
    if settings.congestion_control == "bbr":
        if loss_rate >= BBR_LOSS_LIMIT:
            raise NotModelled(
                f"tcp.congestion_control bbr at loss_rate {loss_rate:g}: BBR keeps a path full "
                f"only below {100 * BBR_LOSS_LIMIT:g} % loss, its design limit"
            )
        return math.inf
    if loss_rate <= 0.0:
        return math.inf
    if settings.congestion_control == "cubic":
        window_Bps = cubic_Bps(mtu_B, rtt_s, loss_rate)
    else:
        window_Bps = mathis_Bps(mtu_B, rtt_s, loss_rate)
    mss = mss_B(mtu_B)
    return mss / (mss / window_Bps + timeouts_s_per_segment(rtt_s, loss_rate, settings.sack))


def slow_start_growth(per_segment: bool) -> tuple[int, float]:
    """(segments that each grow the window by one at a connection's start, growth per segment
    after them) in slow start.

    Linux before 3.13 grows the window by one segment per ACK (RFC 5681): the first ``QUICKACKS``
    segments are acknowledged one by one, the rest one ACK per two (``ACKS_PER_SEGMENT``), so the
    window doubles each round trip at first and then grows by half. From 3.13 on (``per_segment``)
    it grows by the segments each ACK covers, 'a stretch ACK of degree N as if N ACKs of degree 1'
    (commit 9f9843a751d0, 'tcp: properly handle stretch acks in slow start', 2013), so it doubles
    each round trip however the receiver spaces its ACKs.
    """
    return (0, 1.0) if per_segment else (QUICKACKS, ACKS_PER_SEGMENT)


class SlowStart(NamedTuple):
    """How a stream's slow start went (``slow_start_run``)."""

    seconds: float  # its rounds, a round trip each
    sent_B: float  # what it sent in them
    # whether the window reached its target; False where the data ran out first: what is left
    # fits in the window the stream has, and it sends it in one more round, within slow start
    reached: bool


def slow_start_run(
    target_window_B: float,
    mss: int,
    initial_segments: int,
    rtt_s: float,
    size_B: float,
    per_segment: bool = False,
) -> SlowStart:
    """Slow start before a stream reaches ``target_window_B``, and whether it does.

    From ``initial_segments`` segments the window grows as ``slow_start_growth`` says. Slow start
    ends when the window reaches the target or when what the stream has left fits in its window;
    then it has sent all its data within slow start, never reaching the target (``reached``
    False).
    """
    quick, growth = slow_start_growth(per_segment)
    cwnd = float(initial_segments * mss)
    sent, rounds, quick = 0.0, 0, float(quick)
    while cwnd < target_window_B and sent + cwnd < size_B:
        sent += cwnd
        segments = cwnd / mss
        at_once = min(segments, quick)
        quick -= at_once
        cwnd += (at_once + (segments - at_once) * growth) * mss
        rounds += 1
    return SlowStart(rounds * rtt_s, sent, cwnd >= target_window_B)


def send_buffer_payload_B(
    acked_B: float, mss: int, initial_segments: int, default_B: int, per_segment: bool = False
) -> float:
    """Payload a new connection's send buffer may hold once ``acked_B`` bytes are acknowledged.

    Linux keeps a send buffer it sizes itself at twice the congestion window (``tcp_sndbuf_expand``;
    the per-segment overhead it counts is left out here), never below ``tcp_wmem[1]``
    (``default_B``). In slow start the window grows from ``initial_segments`` as
    ``slow_start_growth`` says.
    """
    quick, growth = slow_start_growth(per_segment)
    segments = acked_B / mss
    cwnd = initial_segments + min(segments, quick) + max(segments - quick, 0.0) * growth
    return max(float(default_B), 2.0 * cwnd * mss)


def bandwidth_delay_product_B(rate_Bps: float, rtt_s: float) -> float:
    """Bytes in flight needed to keep a path of ``rate_Bps`` busy over ``rtt_s``."""
    return rate_Bps * rtt_s
