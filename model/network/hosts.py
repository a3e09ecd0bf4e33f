"""A host's network side as flow resources: its cores, the core that takes the NICs' interrupts,
its NICs, and the cards whose ports share one host bus (``cards_of``: a dual-port card's two
ports, where together they could outrun it, cross one ``card`` resource).

CPU time per payload byte comes in three kinds, each charged where it runs:

- per frame (the scenario's ``net_cycles_per_frame`` at the host's clock): interrupt, driver, IP
  and TCP/UDP processing; for TCP receive and ACK-clocked sends this runs in softirq context on
  the core that takes the NIC's interrupts (CPU0 unless the affinity is spread, slide 33 of the
  ATLAS report); a UDP sender pays it in its own process, inside sendto(). With TCP segmentation
  and generic receive offload (``tcp.tso``, ``tcp.gro``) an end pays what Cai et al.'s single-flow
  runs (SIGCOMM 2021, as ``model.settings`` cites them) measured, a part per frame and a part per
  byte, as shares of that cost (``tcp.tcp_frame_work_per_byte``). With or without them, the
  reading process does the TCP work it finds in its socket's backlog on its own core
  (``tcp.reader_share``). With receive-side scaling (``rss``, multi-queue NICs) the NIC hashes
  each flow onto one queue and its interrupt core, so one TCP flow's frames all run on one core
  and flows are spread over the cores (Linux kernel documentation, 'Scaling in the Linux
  Networking Stack': RSS, 'packets for the same flow go to the same queue');
- one memory copy between user space and the socket buffer, at the host's copy rate, in the
  process;
- the buffered file I/O path for bytes read from or written to disk (the storage model's
  ``io_copy_passes``, and ``io_write_extra_passes`` more for a write), in the process that does
  the I/O.

Every core's work also counts against the host's total of ``cores`` core-seconds per second. A
byte sent or received crosses the host's memory (``model.memory``, a resource ``memory LABEL``
where the catalog gives the host's memory bandwidth) by the passes charged here that move it: the
socket's copy twice, the NIC's DMA once (``NET_CROSSINGS``; the frames' headers, a few percent,
and a segment sent again after a loss are not counted), and the storage path's passes where the
byte comes from or goes to disk (``model.storage.stream.memory_crossings``).

Calibrated: ``io_copy_passes`` and ``io_write_extra_passes`` (``model.storage.parameters``, fitted
on atlas_disk, atlas_hosts, atlas_wan, em_ingest, psu_copy and psu_write) and ``bus_efficiency``
(fitted on atlas_disk's IDE channels and PCI buses), which a NIC's link into the host carries;
the per-frame cost and the copy rate come from the literature and the catalog.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .. import memory
from ..catalog import Catalog
from ..nic_links import cards_Bps
from ..parts import Host, Nic
from ..sim.flows import FlowNetwork, FlowResource, rated_usage

# pass -> times a byte a host sends or receives crosses its memory: the copy between the program's
# buffer and its socket (``copy_s_per_byte``), the NIC's DMA of it
NET_CROSSINGS = {"socket's copy": memory.COPY, "NIC's DMA": memory.DMA}


@dataclass
class HostNet:
    """The flow resources of one host's CPUs and NICs, and its per-byte CPU costs."""

    label: str
    host: Host
    nic: Nic
    cpu: FlowResource  # all cores, core-seconds per second
    irq: FlowResource  # the core(s) that take the NICs' interrupts
    nics: list[FlowResource]  # wire bytes per second, one per bonded member
    # each member's card, where the host's cards are resources (``cards_of``), else None
    cards: list[FlowResource | None]
    copy_s_per_byte: float
    frame_s: float  # CPU seconds per frame sent or received
    processes: dict[str, FlowResource] = field(default_factory=dict)
    net: FlowNetwork | None = None
    irq_affinity: str = "cpu0"
    # the host's memory, bytes crossing it a second (``model.memory``); None where the catalog
    # gives no memory bandwidth
    memory: FlowResource | None = None

    def process(self, name: str, share: float = 1.0, label: str | None = None) -> FlowResource:
        """The core a process (or thread) runs on: one core's time, or ``share`` of it on a loaded
        host, read as ``label`` (``FlowResource.label``)."""
        if name not in self.processes:
            self.processes[name] = self.net.resource(
                f"core {self.label}.{name}", share, unit="core-s", label=label
            )
        return self.processes[name]

    def one_core(self, name: str) -> FlowResource:
        """A resource of one core's time named ``name`` (a flow's, or a hashed queue's), made the
        first time it is asked for."""
        if name not in self.processes:
            self.processes[name] = self.net.resource(name, 1.0, unit="core-s")
        return self.processes[name]

    def charge_nic(self, usage: dict[FlowResource, float], member: int, amount: float) -> None:
        """``amount`` wire bytes per byte across bond member ``member``, and its card where the
        host's cards are resources (``cards_of``)."""
        add(usage, self.nics[member], amount)
        card = self.cards[member]
        if card is not None:
            add(usage, card, amount)


def cards_of(
    net: FlowNetwork, label: str, nic: Nic, cards_Bps: list[tuple[int, float]]
) -> list[FlowResource | None]:
    """Each NIC's card: consecutive NICs are one card's ports, sharing its link into the host
    (``cards_Bps``: each card's ports and link, ``nic_links.cards_Bps``). Once one card's ports
    together could outrun its link (two 40 GbE ports on PCIe 3.0 x8), every card is a resource, at
    its link or its ports' lines where less (a card of one port), so that the bottleneck law can
    partition the flows over them; else none is (None for every NIC)."""
    cards: list[FlowResource | None] = []
    # every card a resource once one can bind, a card of one port too: the bottleneck law's
    # partition of the flows over the cards then holds (model.network.hosts.partition_bound_Bps)
    line_Bps = nic.rate_Gbps * 1e9 / 8
    binds = any(n > 1 and link < n * line_Bps for n, link in cards_Bps)
    cards_words = (
        "network card (its ports share its link into it)"
        if len(cards_Bps) == 1
        else "network cards (a card's ports share its link into it)"
    )
    for number, (n, link) in enumerate(cards_Bps):
        # what the card moves: its link, or its ports' lines where less (a card of one port)
        card = (
            net.resource(
                f"card {label}.{number}",
                min(link, n * line_Bps),
                label=f"the {label} host's {cards_words}",
            )
            if binds
            else None
        )
        cards += [card] * n
    return cards


def host_net(
    net: FlowNetwork,
    catalog: Catalog,
    label: str,
    host_id: str,
    nic_id: str,
    members: int,
    irq_affinity: str,
    frame_cycles: float,
    where: str,
    *,
    host_key: str,
    nic_key: str,
    mtu_B: int,
    bus_efficiency: float,
    available: float = 1.0,
) -> HostNet:
    """Declare ``label``'s CPU, interrupt core and ``members`` NICs (``available``: share of each
    core free; ``mtu_B`` and ``bus_efficiency``: what a NIC's link into the host carries,
    ``nic_links.nic_rate_Bps``)."""
    host: Host = catalog.get("hosts", host_id, where, host_key)
    nic: Nic = catalog.get("nics", nic_id, where, nic_key)
    cpu = net.resource(
        f"cpu {label}",
        host.cores * available,
        unit="core-s",
        label=f"the {label} host's cores, all {host.cores}",
    )
    irq_cores = host.cores if irq_affinity == "spread" else 1
    irq = net.resource(f"irq {label}", irq_cores * available, unit="core-s")
    # each card in the host's fastest slot left (nic_links.cards_Bps), each of its ports moving its
    # line or the card's link where less (nic_links.nic_rate_Bps, for the first)
    on_cards = cards_Bps(catalog, nic, host_id, members, mtu_B=mtu_B, bus_efficiency=bus_efficiency)
    line_Bps = nic.rate_Gbps * 1e9 / 8.0
    rates_Bps = [min(line_Bps, link) for n, link in on_cards for _ in range(n)]
    ports = f"the {label} host's network port{'s' if len(rates_Bps) > 1 else ''}"
    nics = [net.resource(f"nic {label}.{i}", rate, label=ports) for i, rate in enumerate(rates_Bps)]
    return HostNet(
        label=label,
        host=host,
        nic=nic,
        cpu=cpu,
        irq=irq,
        nics=nics,
        cards=cards_of(net, label, nic, on_cards),
        copy_s_per_byte=1.0 / (host.copy_rate_MBps * 1e6),
        frame_s=frame_cycles / (host.clock_GHz * 1e9),
        net=net,
        irq_affinity=irq_affinity,
        memory=memory.resource(net, host, label),
    )


def flow_cores(irq_affinity: str, host: Host, flows: int) -> int:
    """The cores that run the TCP work of ``flows`` connections, counted rather than declared (a
    download server's sending work, a relay's packet cores): one (``cpu0``), or one a connection,
    at least one and at most every core: with ``rss`` its hashed queue's, with ``spread`` whichever
    takes its interrupt, a connection's TCP work on one core at a time, its socket locked
    (``charge_frames``)."""
    return 1 if irq_affinity == "cpu0" else min(max(flows, 1), host.cores)


def add(usage: dict[FlowResource, float], resource: FlowResource, amount: float) -> None:
    """Add ``amount`` units per byte of ``resource`` to a flow's usage."""
    if amount > 0.0:
        usage[resource] = usage.get(resource, 0.0) + amount


def charge(
    usage: dict[FlowResource, float],
    side: HostNet,
    core: FlowResource | None,
    seconds: float,
    *,
    on_irq: bool = False,
) -> None:
    """Charge ``seconds`` of CPU per byte to ``core`` (or the interrupt core) and to the host's
    total."""
    add(usage, side.irq if on_irq else core, seconds)
    add(usage, side.cpu, seconds)


def charge_frames(
    usage: dict[FlowResource, float], side: HostNet, flow: int, seconds: float
) -> None:
    """Charge a TCP flow's per-frame work: to the interrupt core(s), or with ``rss`` to the one
    core its hash picks (flows numbered as consecutive ports hash: round the cores). With
    ``spread`` the interrupts go to every core, but one flow's TCP work runs on one core at a
    time, its socket locked while a core works on it: at most one core's worth a flow (a single
    TCP stream on today's 100 GbE is held to one core's rate, as iperf's single-stream runs
    show), which a resource of one core a flow keeps."""
    if side.irq_affinity != "rss":
        charge(usage, side, None, seconds, on_irq=True)
        if side.irq_affinity == "spread":
            add(usage, side.one_core(f"flow {side.label}.{flow}"), seconds)
        return
    charge(usage, side, side.one_core(f"rss {side.label}.{flow % side.host.cores}"), seconds)


def partition_bound_Bps(
    usages: list[dict[FlowResource, float]], caps: list[float], rated: bool = False
) -> float:
    """An upper bound on the total rate of flows with these usages and rate caps (over the rated
    resources alone with ``rated``, ``FlowResource.rated``: ``Result.ceiling_MBps``).

    Max-min fair sharing never beats the best total any allocation can reach, and that best total is
    no more than: the sum of the flows' own limits, each flow's cap or, if less, the least of its
    resources' capacity over its usage (what it could carry alone); for any group of resources
    (named alike, ``nic sender.0``, ``nic sender.1``) that every flow crosses exactly once, the sum
    over the group of each resource's capacity over the smallest usage of a flow crossing it, or
    the own limits of those flows, if less (so a bond member that carries one client counts that
    client's limit, not the member's rate). A resource every flow crosses is such a group of one,
    whatever its name (each drive of an array every stream reads, ``disk data.0``, named like its
    siblings).
    """
    if rated:
        usages = [rated_usage(usage) for usage in usages]
    alone = [
        min([cap, *(res.capacity / a for res, a in usage.items() if a > 0.0)])
        for usage, cap in zip(usages, caps, strict=True)
    ]
    best = sum(alone)
    flows_of: dict[FlowResource, list[int]] = {}  # each resource: the flows crossing it, in order
    for i, usage in enumerate(usages):
        for res in usage:
            flows_of.setdefault(res, []).append(i)
    groups: dict[str, list[FlowResource]] = {}
    for res in flows_of:  # named alike: nic sender.0 and nic sender.1 are group nic sender
        name = res.name
        key = name.rsplit(".", 1)[0] if "." in name.split(" ", 1)[-1] else name
        groups.setdefault(key, []).append(res)
    n = len(usages)
    bounding = [  # the groups that partition the flows, and each resource every flow crosses
        members
        for members in groups.values()
        if sum(len(flows_of[res]) for res in members) == n
        and len(set().union(*(flows_of[res] for res in members))) == n
    ] + [[res] for res, flows in flows_of.items() if len(flows) == n]
    carried: dict[FlowResource, float] = {}  # what a resource carries at most, once a resource
    for members in bounding:
        for res in members:
            if res not in carried:  # its capacity over its flows' least usage, or their limits
                flows = flows_of[res]
                least = min(usages[i][res] for i in flows)  # 0: a flow it does not hold back
                carried[res] = min(
                    res.capacity / least if least > 0.0 else math.inf,
                    sum(alone[i] for i in flows),
                )
        best = min(best, sum(carried[res] for res in members))
    return best
