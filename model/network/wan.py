"""Bulk transfers over a WAN path, disk to disk: bbftp/bbcp/iperf over TCP streams, Tsunami over
UDP.

The path, as flow resources on one :class:`~model.sim.flows.FlowNetwork`:

  sender array -> sender cores -> sender NIC (member i) -> circuit i -> receiver NIC (member i)
  -> receiver cores -> receiver array

- The arrays are the storage model's (``model.storage.topology``) for the storage scenarios the WAN
  scenario names: every byte read or written crosses the drives, channels, controllers and buses
  of its host in the layout's shares, and costs the process doing the I/O the buffered I/O path.
- NICs and circuits carry wire bytes (payload plus TCP/IP or UDP/IP and Ethernet framing). With
  ``bonding: hash`` each flow is hashed onto one member (flows are numbered as consecutive source
  ports hash: alternately), so one flow never exceeds one circuit; ``round_robin`` sprays each flow
  over all members. Each end's NIC cards (a circuit a port, a card's ``ports`` ports a card)
  take the slots of its host that its storage scenario's controller cards leave, where it names
  one (``_end_slots``, ``model.storage.slots``), and train there; more cards than those slots are
  refused, before any run (``check_ends``).
- CPU: per frame on the interrupt core (TCP) or the sending process (UDP), one copy per side in the
  network process, the file I/O path in the process that reads or writes (see ``hosts``). With
  ``tcp.tso`` and ``tcp.gro`` a TCP end pays the offloaded costs published runs measured, per
  frame and per byte (``tcp.tcp_frame_work_per_byte``). A receiving thread does its share of the
  receive work, the TCP work of its sockets' backlogs, on its own core (``tcp.reader_share``):
  all of it for a thread per stream (iperf 2, bbcp), a k-th for a thread serving k streams
  (iperf3 before 3.16).
- Memory: each end's, where the catalog gives its bandwidth (``model.memory``), by the passes that
  move a byte there: the socket's copy and the NIC's DMA (``hosts.NET_CROSSINGS``), and on a disk
  end the cache's copy and the storage path's own (``topology.StoragePath.memory_per_byte``).
- A TCP stream is capped at window / RTT (socket buffers from the sysctls), of which 1 - loss is
  delivered (the segments sent again occupy the window too), and at the loss-limited rate of its
  congestion control (``tcp.congestion_control``: Reno's, Mathis et al., or CUBIC's, RFC 8312 and
  9438, each with its share of retransmission timeouts, Padhye et al. 1998, or none for BBR below
  15 % loss; ``tcp.loss_limit_Bps``); what
  is lost is sent again, so each delivered byte costs 1/(1 - loss) bytes of wire and send work. It
  opens with a handshake and the protocol's request round trips, then slow start to its window
  (BBR's STARTUP also doubles its rate each round trip). bbftp and bbcp run one process (or
  thread) per stream on each side; bbftp's streams each read and write their own part of the
  file (``spec.SPLIT_STREAMS``), so on the sender's hard disks they take turns as readers of
  their own files do (``model.storage.interleave``), where bbcp's one reader streams: bbcp reads
  the file, and writes it, in one thread a side (its disk I/O on a core of its own), and its
  streams' threads send and receive.
- A Tsunami session is one UDP flow at its fixed target rate; lost blocks are sent again, so each
  delivered byte costs 1/(1 - loss) bytes of wire and receive work. Its client has a network
  thread and a disk thread (client/ring.c), its server one process that reads and sends.

The bound (the bottleneck law) counts what no run can pass: the resources, each TCP stream's
window / RTT x (1 - loss) and Tsunami's set rate, not TCP's loss-limited rate, a response function
fitted to runs that a run may beat, so an interval may reach above it. The interval's cap
(``Result.ceiling_MBps``) is the same law over the rated resources alone (``FlowResource.rated``:
NICs, cards, circuits, drives, buses, memory), leaving out the cores' time, an estimate of cycles a
frame and a byte (the literature's ``net_cycles_per_frame``, the calibrated copy passes) that a
faster host or a leaner stack beats (a single 100 GbE stream held to its receiving core's estimate
where fasterdata's runs reach past it). It keeps the window a round trip and Tsunami's rate: a
sender keeps no more than the receiver's advertised window unacknowledged (RFC 9293, 3.8.6), a
window the declared socket buffers and ``tcp_adv_win_scale`` fix (``tcp.window_B``, the kernel's
arithmetic, not an estimate of work), and Tsunami's server paces its blocks to the rate the
session sets.

Bulk data moves as flows: the cost of a run grows with the number of flows and their changes, not
with the bytes, so a terabyte simulates as fast as a gigabyte. Calibrated on ``atlas_wan``
(``001_4cf980d67b39ffac.txt``) through the storage parameters alone: the per-frame CPU cost is the
literature's (``NET_CYCLES_PER_FRAME``), the TCP and Tsunami settings are the report's and the
tools'.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field

import simpy

from .. import memory
from ..catalog import Catalog
from ..errors import NotModelled
from ..nic_links import check_mtu, check_nic_cards, check_rss, counted, nic_notes
from ..parts import Link
from ..result import Result, busiest
from ..settings import (
    LAN_ADV_WIN_SCALE,
    LAN_TCP_RMEM_B,
    LAN_TCP_WMEM_B,
    NET_CYCLES_PER_FRAME,
    TcpBuffers,
    TcpSettings,
)
from ..sim.flows import Flow, FlowNetwork, FlowResource, max_min_rates
from ..spec import ModelRecord, Scenario
from ..storage import topology
from ..storage.spec import StorageBody
from ..storage.stream import cache_copy, target_io_s_per_byte
from . import tcp
from .hosts import (
    NET_CROSSINGS,
    HostNet,
    add,
    charge,
    charge_frames,
    host_net,
    partition_bound_Bps,
)
from .spec import SPLIT_STREAMS, WanBody

# Round trips before the first data byte: TCP handshake, then the tool's own requests.
SETUP_RTTS = {"bbftp": 3, "bbcp": 3, "iperf": 1, "tsunami": 2}
# the utilisation entries of the time before the flows run at their share (``simulate``): a TCP
# stream's set-up round trips and slow start, a Tsunami session's set-up
RAMP = "set-up and slow start"
SETUP = "set-up"
ROLES = ("sender", "receiver")


class _Prefixed:
    """A FlowNetwork seen through a name prefix, so that two hosts' storage paths can share one
    network."""

    def __init__(self, net: FlowNetwork, prefix: str):
        self._net, self._prefix = net, prefix

    def resource(
        self,
        name: str,
        capacity: float,
        unit: str = "B",
        rated_capacity: float | None = None,
        label: str | None = None,
    ) -> FlowResource:
        prefixed = None if label is None else f"{self._prefix}{label}"
        return self._net.resource(f"{self._prefix}{name}", capacity, unit, rated_capacity, prefixed)


@dataclass
class _Storage:
    """What an end host's storage costs a transfer a byte: the resources it crosses, its CPU."""

    usage: dict[FlowResource, float]  # per byte read or written
    io_s_per_byte: float  # the buffered I/O path, on the process doing the I/O
    driver_s_per_byte: float  # host CPU outside the process (flusher, driver)
    path: topology.StoragePath
    volume: str
    # pass -> times a byte crosses the host's memory: the volume's and its cache's copy
    memory: dict[str, float]

    def reader(self, reader: int) -> dict[FlowResource, float]:
        """What reader ``reader``'s bytes use besides: its own copy of each mirror it reads."""
        return self.path.own_copy(self.volume, reader)


def _storage(
    net: FlowNetwork,
    side: HostNet,
    storage: StorageBody,
    role: str,
    catalog: Catalog,
    params: dict[str, float],
    where: str,
    total_B: float,
) -> _Storage:
    """A side's storage path, read or written by its store's streams at once (the transfer's
    processes that do its disk I/O, ``WanBody.references``), each its part of the data: a sender's
    hard disks take their reads by turns (``model.storage.interleave``). A refusal names the
    store's file (``where``), told where its key was set as a run tells it."""
    op = "read" if role == "sender" else "write"
    total_B /= storage.workload.streams
    path = topology.build(_Prefixed(net, f"{role}: "), storage, catalog, params, where, total_B)
    volume = storage.workload.target
    driver = path.driver_s_per_byte[volume] if op == "write" else 0.0
    return _Storage(
        usage=dict(path.usage_per_byte[volume]),
        io_s_per_byte=target_io_s_per_byte(params, storage, side.host.copy_rate_MBps, op),
        driver_s_per_byte=driver,
        path=path,
        volume=volume,
        memory=memory.merged(
            path.memory_per_byte[volume], {cache_copy(storage.volumes[volume]): memory.COPY}
        ),
    )


@dataclass
class _FlowSpec:
    """One flow of the transfer before it starts: its name, its bytes and the resources it uses."""

    name: str
    size_B: float
    usage: dict[FlowResource, float]
    cap_Bps: float
    delay_s: float
    # what no run of the flow can pass, for the bound and the ceiling: its window / RTT x
    # (1 - loss), or Tsunami's set rate; not TCP's loss-limited rate, a response function fitted
    # to measurements (Mathis et al.'s constant, CUBIC's), which a run may beat (None: cap_Bps)
    ceiling_Bps: float | None = None
    # a TCP stream's rounds of slow start, after its set-up round trips (None: no slow start, a
    # Tsunami session), and whether it sends all its data within them, its window never reaching
    # its share (``tcp.slow_start_run``)
    slow_start_rounds: int | None = None
    within_slow_start: bool = False


def stream_sizes_B(
    protocol: str, usages: list[dict[FlowResource, float]], cap_Bps: float, even_B: float
) -> list[float]:
    """The bytes each TCP stream moves: a file tool's streams (bbftp, bbcp) their equal parts of
    the data, ``even_B`` each; iperf's run for a time (``-t``), each at the rate it takes beside the
    others (max-min over the path, ``cap_Bps`` each), so the whole is shared in those rates' ratio
    and the streams end together: the total a second is their rates' sum, as iperf reports it
    (the network audit's case: three streams hashed over two 10 GbE ports, two on one, gave 1.5
    ports' worth, the pace of the shared port's streams, where iperf's sum is both ports')."""
    if protocol != "iperf":
        return [even_B] * len(usages)
    rates = max_min_rates([Flow(str(k), 1.0, u, cap_Bps, None) for k, u in enumerate(usages)])
    if min(rates) == max(rates):  # equal rates, equal parts (and the same bytes to the last bit)
        return [even_B] * len(usages)
    return [even_B * len(usages) * r / sum(rates) for r in rates]


def _members_of(flow_index: int, members: int, bonding: str) -> list[tuple[int, float]]:
    if bonding == "round_robin":
        return [(m, 1.0 / members) for m in range(members)]
    return [(flow_index % members, 1.0)]


@dataclass
class Built:
    """A WAN scenario declared on a flow network: its flows, not started yet."""

    env: simpy.Environment
    net: FlowNetwork
    flows: list[_FlowSpec]
    rtt_s: float
    total_B: float
    notes: list[str]
    # what caps each flow's rate, named as the bottleneck when it does: the TCP window, TCP's
    # loss-limited rate (Reno's, Mathis et al., or CUBIC's), Tsunami's target rate
    flow_limit: str
    # what the flows do before they run at their share, named as the bottleneck when it takes
    # most of the run (``RAMP``, ``SETUP``)
    ramp: str = RAMP
    # each end and the times a byte crosses its memory, pass by pass
    memory: list[tuple[HostNet, dict[str, float]]] = field(default_factory=list)


def _figure(value: float, unit: str) -> str:
    """Three significant figures (all the digits of a figure of 1,000 or more)."""
    return f"{value:,.0f} {unit}" if value >= 99.95 else f"{value:#.3g} {unit}"


def _rate(Bps: float) -> str:
    """A rate of a note, in the unit that keeps it at 1 or more: B/s, kB/s or MB/s (a 32 kB/s
    loss limit printed as '0.0 MB/s')."""
    for scale, unit in ((1e6, "MB/s"), (1e3, "kB/s")):
        if Bps >= scale:
            return _figure(Bps / scale, unit)
    return _figure(Bps, "B/s")


def _bytes(size_B: float) -> str:
    """A window or a bandwidth-delay product of a note, in MiB, KiB or B (a 192 B window printed
    as '0.00 MiB')."""
    for scale, unit in ((2**20, "MiB"), (2**10, "KiB")):
        if size_B >= scale:
            return _figure(size_B / scale, unit)
    return _figure(size_B, "B")


# the speed of light in vacuum, km/s, and the least group index of a silica fibre at 1550 nm: pure
# silica's, about 1.462 (the standard single-mode fibre of ITU-T G.652, germanium-doped, is some
# 1.467, about 204,000 km/s); taken at 1.46, so that no round trip a path can have is refused
LIGHT_KM_PER_S = 299_792.458
FIBRE_GROUP_INDEX = 1.46


def shorter_than_light_note(body: WanBody, link: Link) -> str | None:
    """A note where the transfer's ``rtt_ms`` is shorter than light takes there and back over
    ``link``'s fibre (its ``distance_km``, in silica): a what-if of another, shorter path at the
    link's rate, which the user should know it is (50 ms on the 12,000 km lightpath had passed
    without a word); None where it is not, or the catalog gives no length."""
    if link.distance_km is None:
        return None
    least_ms = 2.0 * link.distance_km * FIBRE_GROUP_INDEX / LIGHT_KM_PER_S * 1e3
    if body.rtt_ms >= least_ms:
        return None
    return (
        f"rtt_ms {body.rtt_ms:g} is shorter than the {least_ms:,.1f} ms light takes there and back "
        f"over {body.link}'s {link.distance_km:,.6g} km of fibre (its distance_km, at a group "
        f"index of {FIBRE_GROUP_INDEX}): this predicts a shorter path at its rate"
    )


def check_parts(
    body: WanBody,
    catalog: Catalog,
    where: str,
    held: dict[str, tuple[str, ...]] | None = None,
    ends: dict[str, Catalog] | None = None,
) -> None:
    """What a transfer's parts allow of it: its MTU on its NIC and link (``nic_links.check_mtu``),
    receive-side scaling on its NIC (``nic_links.check_rss``), its circuits in its hosts' slots
    (``check_circuits``: those its storage scenarios' cards leave, ``held``, where given). An end
    whose storage scenario is named finds its host among that scenario's parts too (``ends``, by
    role, ``_end_parts``); without them (the body alone) its circuits wait for ``check_ends``."""
    check_mtu(body.mtu_B, catalog, where, {"nic": body.nic}, {"link": body.link})
    check_rss(body.irq_affinity, catalog, where, {"nic": body.nic})
    if ends is None:
        ends = {r: catalog for r in ROLES if getattr(body, f"{r}_storage") is None}
    check_circuits(body, ends, where, held)


def check_ends(scenario: Scenario, catalog: Catalog) -> None:
    """The check that needs the storage scenarios the transfer names (``ModelRecord.check_refs``):
    its circuits in the slots their controller cards leave (``_end_slots``), told before any run,
    as every variant and design point is checked."""
    ends = _end_parts(scenario, catalog)
    held = {role: tuple(taken) for role, (_, _, taken) in _end_cards(scenario, ends).items()}
    check_circuits(scenario.body, ends, scenario.path, held)


def check_circuits(
    body: WanBody,
    ends: dict[str, Catalog],
    where: str,
    held: dict[str, tuple[str, ...]] | None = None,
) -> None:
    """The circuits of each end of ``ends`` (its role: the catalog its host is found in), a NIC's
    port each and a card's ports a slot, fit its host's slots (``nic_links.check_nic_cards``),
    less those its storage scenario's controller cards hold (``held``: by end, their segments'
    names, ``_end_slots``)."""
    held = held or {}
    for role, catalog in ends.items():
        host = catalog.get("hosts", getattr(body, f"{role}_host"), where, f"{role}_host")
        check_nic_cards(
            catalog,
            host,
            {body.nic: body.circuits},
            where,
            "circuits",
            related=(
                "nic",
                f"{role}_host",
                *((f"{role}_storage",) if held.get(role) else ()),
            ),
            held=held.get(role, ()),
        )


def _end_parts(scenario: Scenario, catalog: Catalog) -> dict[str, Catalog]:
    """Each end's catalog, by role: ``catalog`` with the parts of the storage scenario the
    transfer names for that end (a host that scenario's own file defines, purchase_nvme's
    epyc_storage_server), or ``catalog`` where it names none."""
    ends = {}
    for role in ROLES:
        ref = scenario.refs.get(f"{role}_storage")
        ends[role] = catalog if ref is None else catalog.with_parts_of(ref.catalog, ref.path)
    return ends


def _check_stores(scenario: Scenario, ends: dict[str, Catalog], params: dict[str, float]) -> None:
    """Each storage scenario the transfer names, checked against its parts as the storage model
    checks it before a run (``model.storage.simulation.check_parts``: its drives plug into what
    their bays take, one card a PCI Express segment, ...), whether or not the transfer reads or
    writes its disks: an IDE drive set into a SAS shelf through ``receiver_storage`` had been
    simulated (322 MB/s), where the store alone refuses it. How its drives attach (a bay past a
    shelf's or a riser's) only building its path checks: a transfer to or from its disks builds
    it (``_path``), one to or from memory here, on a network that runs nothing, for one request's
    bytes (its data are not written: their room is not asked for). A refusal names the store's
    file and key; the run tells it where the key was set (``Scenario.relocated``)."""
    from ..storage.simulation import check_parts as check_store  # it imports this package's hosts

    w = scenario.body.workload
    for role, parts in ends.items():
        ref = scenario.refs.get(f"{role}_storage")
        if ref is None:
            continue
        check_store(ref.body, parts, ref.path)
        if getattr(w, "source" if role == "sender" else "sink") == "memory":
            request_B = ref.body.workload.request_KiB * 1024
            net = FlowNetwork(simpy.Environment())
            with contextlib.suppress(NotModelled):  # a volume no model covers, not moved here
                topology.build(net, ref.body, parts, params, ref.path, request_B)


def _end_cards(
    scenario: Scenario, ends: dict[str, Catalog]
) -> dict[str, tuple[Scenario, Catalog, dict[str, str]]]:
    """Each end whose transfer names its storage scenario (its role): that scenario, the catalog
    with its parts (of ``ends``, ``_end_parts``), and the host's slots its controller cards take
    (``model.storage.slots``)."""
    from ..storage import slots  # the storage package's slots import the NIC links this uses

    cards = {}
    for role, parts in ends.items():
        ref = scenario.refs.get(f"{role}_storage")
        if ref is not None:
            cards[role] = ref, parts, slots.card_slots(ref.body, parts, ref.path)
    return cards


def _end_slots(
    scenario: Scenario, catalog: Catalog, ends: dict[str, Catalog]
) -> tuple[dict[str, Catalog], dict[str, tuple[str, ...]], list[str]]:
    """Each end's catalog as its circuits' NIC cards find its host's slots, the segments of the
    controller cards that hold them, and the notes of the ends where those move a card: the slots
    its storage scenario's cards leave, where the transfer names one (``model.storage.slots``: the
    HBAs of a disk-to-disk transfer's arrays sit in the same host as its NICs, and a 100 GbE card
    whose x16 slots they hold trains at x8), else the catalog's. The storage scenario describes
    the host whether or not this transfer reads or writes its disks."""
    from ..storage import slots  # the storage package's slots import the NIC links this uses

    body: WanBody = scenario.body
    placed = {role: catalog for role in ROLES}
    held: dict[str, tuple[str, ...]] = {}
    notes = []
    for role, (ref, parts, taken) in _end_cards(scenario, ends).items():
        held[role] = tuple(taken)
        placed[role] = slots.nic_catalog(ref.body, parts, ref.path, taken)
        whose = f"the {role}'s storage's controller cards ({getattr(body, f'{role}_storage')})"
        note = slots.held_slots_note(
            ref.body, parts, placed[role], ref.path, taken, (body.nic, body.circuits), whose
        )
        if note is not None:
            notes.append(note)
    return placed, held, notes


@dataclass
class _Path:
    """The path a WAN scenario declares on its flow network, and what a delivered byte of a flow
    costs on it (``wire``, ``disk_read``, ``disk_write``, ``memory_passes``)."""

    body: WanBody
    link: Link
    sender: HostNet
    receiver: HostNet
    circuits: list[FlowResource]
    source: _Storage | None  # the sender's storage; None for a transfer from memory
    sink: _Storage | None  # the receiver's storage; None for a transfer to memory
    # each end and the times a byte crosses its memory, pass by pass: the socket's copy and the
    # NIC's DMA, and its storage's passes
    crossings: list[tuple[HostNet, dict[str, float]]]

    def members_of(self, index: int) -> list[tuple[int, float]]:
        """The bond members flow ``index`` crosses, and its share of each."""
        return _members_of(index, self.body.circuits, self.body.bonding)

    def wire(self, usage: dict, index: int, per_byte: float) -> None:
        """``per_byte`` sent a delivered byte, over the sender's NIC and the circuit; the
        receiver's NIC takes what arrives, 1 - loss of it (the path loses the rest)."""
        for m, share in self.members_of(index):
            self.sender.charge_nic(usage, m, per_byte * share)
            add(usage, self.circuits[m], per_byte * share)
            self.receiver.charge_nic(usage, m, per_byte * share * (1.0 - self.body.loss_rate))

    def disk_read(self, usage: dict, core: FlowResource, reader: int) -> None:
        """The sender's storage read by reader ``reader``, its I/O path on ``core``."""
        if self.source is not None:
            for res, a in {**self.source.usage, **self.source.reader(reader)}.items():
                add(usage, res, a)
            charge(usage, self.sender, core, self.source.io_s_per_byte)

    def disk_write(self, usage: dict, core: FlowResource) -> None:
        """The receiver's storage written, its I/O path on ``core``, its driver on the host."""
        if self.sink is not None:
            for res, a in self.sink.usage.items():
                add(usage, res, a)
            charge(usage, self.receiver, core, self.sink.io_s_per_byte)
            add(usage, self.receiver.cpu, self.sink.driver_s_per_byte)

    def memory_passes(self, usage: dict) -> None:
        """Each end's memory, by the passes that move a byte there."""
        for side, passes in self.crossings:
            memory.charge(usage, side.memory, passes)


def build(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Built:
    """Declare the path's resources and each flow's usage, cap and start delay."""
    body: WanBody = scenario.body
    w = body.workload
    link: Link = catalog.get("links", body.link, scenario.path, "link")
    rtt_s = body.rtt_ms / 1e3
    total_B = w.total_MB * 1e6
    ends = _end_parts(scenario, catalog)
    _check_stores(scenario, ends, params)
    placed, held, slot_notes = _end_slots(scenario, catalog, ends)
    check_parts(body, catalog, scenario.path, held, ends)
    env = simpy.Environment()
    net = FlowNetwork(env)
    path = _path(net, scenario, ends, params, link, total_B, placed)
    notes = dict.fromkeys(  # once each, as nic_notes gives them: both ends' NICs alike
        note
        for role in ROLES
        for note in nic_notes(
            placed[role],
            (body.nic, getattr(body, f"{role}_host"), body.circuits),
            mtu_B=body.mtu_B,
            bus_efficiency=params["bus_efficiency"],
        )
    )
    per_session_B = total_B / w.sessions
    if w.protocol == "tsunami":
        flows, flow_notes = _tsunami_flows(path, rtt_s, per_session_B)
        flow_limit, ramp = "tsunami target rate", SETUP
    else:
        limits = _tcp_limits(body, rtt_s)
        usages, wire_per_byte = _stream_usages(path, limits.streams)
        flows = _stream_flows(path, limits, usages, wire_per_byte, rtt_s, per_session_B)
        flow_notes = _tcp_notes(path, limits, usages, rtt_s)
        flow_limit, ramp = limits.flow_limit, RAMP
    return Built(
        env,
        net,
        flows,
        rtt_s,
        total_B,
        [*slot_notes, *notes, *flow_notes, *filter(None, [shorter_than_light_note(body, link)])],
        flow_limit,
        ramp,
        path.crossings,
    )


def _path(
    net: FlowNetwork,
    scenario: Scenario,
    ends: dict[str, Catalog],
    params: dict[str, float],
    link: Link,
    total_B: float,
    placed: dict[str, Catalog],
) -> _Path:
    """The path's resources on ``net``: each end's host, its NICs in the slots its storage's
    cards leave (``placed``, ``_end_slots``), the circuits between, each end's storage (its
    storage scenario with its own parts, ``ends``: those of the file that names it, or the
    catalog's) where the transfer reads or writes disk."""
    body: WanBody = scenario.body
    w = body.workload
    sender, receiver = (
        _end_host(net, body, placed[role], params, scenario.path, role) for role in ROLES
    )
    refs = {key.removesuffix("_storage"): ref for key, ref in scenario.refs.items()}
    circuits = [net.resource(f"circuit.{i}", link.rate_Bps) for i in range(body.circuits)]

    def storage(side: HostNet, role: str) -> _Storage:
        ref = refs[role]
        return _storage(net, side, ref.body, role, ends[role], params, ref.path, total_B)

    source = storage(sender, "sender") if w.source == "disk" else None
    sink = storage(receiver, "receiver") if w.sink == "disk" else None
    crossings = [
        (side, memory.merged(NET_CROSSINGS, store.memory if store is not None else {}))
        for side, store in ((sender, source), (receiver, sink))
    ]
    return _Path(body, link, sender, receiver, circuits, source, sink, crossings)


def _end_host(
    net: FlowNetwork,
    body: WanBody,
    catalog: Catalog,
    params: dict[str, float],
    where: str,
    role: str,
) -> HostNet:
    """The ``role`` end's host (``sender`` or ``receiver``): its cores, a NIC a circuit."""
    return host_net(
        net,
        catalog,
        role,
        getattr(body, f"{role}_host"),
        body.nic,
        body.circuits,
        body.irq_affinity,
        body.net_cycles_per_frame,
        where,
        host_key=f"{role}_host",
        nic_key="nic",
        mtu_B=body.mtu_B,
        bus_efficiency=params["bus_efficiency"],
    )


def _tsunami_flows(
    path: _Path, rtt_s: float, per_session_B: float
) -> tuple[list[_FlowSpec], list[str]]:
    """Each Tsunami session, one UDP flow at its target rate, and a note of the sessions."""
    body, w = path.body, path.body.workload
    sender, receiver = path.sender, path.receiver
    fragments = tcp.udp_fragments(w.block_B, body.mtu_B)
    # A block arrives only if every IP fragment of it does: the receiver cannot reassemble the
    # datagram without the lost one, and IP does not resend it (Kent and Mogul, 'Fragmentation
    # Considered Harmful', SIGCOMM 1987; RFC 8900, section 3.2). Tsunami asks for the lost
    # blocks again, so each block delivered is sent 1 / (1 - p)^fragments times.
    delivered = (1.0 - body.loss_rate) ** fragments
    frames = tcp.udp_packets_per_byte(w.block_B, body.mtu_B)
    rate_Bps = w.rate_Mbps * 1e6 / 8.0 * delivered
    flows = []
    for j in range(w.sessions):
        usage: dict[FlowResource, float] = {}
        server = sender.process(f"tsunami{j}")
        path.disk_read(usage, server, j)
        sent_s = (sender.copy_s_per_byte + frames * sender.frame_s) / delivered
        charge(usage, sender, server, sent_s)
        path.wire(usage, j, tcp.udp_wire_per_byte(w.block_B, body.mtu_B) / delivered)
        # the receiver's interrupts take every fragment that arrives; only whole blocks reach
        # Tsunami's socket, and are copied once
        arrived = frames * (1.0 - body.loss_rate) / delivered
        charge(usage, receiver, None, arrived * receiver.frame_s, on_irq=True)
        charge(usage, receiver, receiver.process(f"tsunami{j}.net"), receiver.copy_s_per_byte)
        path.disk_write(usage, receiver.process(f"tsunami{j}.disk"))
        path.memory_passes(usage)
        setup_s = SETUP_RTTS["tsunami"] * rtt_s
        flows.append(_FlowSpec(f"tsunami {j}", per_session_B, usage, rate_Bps, setup_s))
    note = (
        f"Tsunami: {w.sessions} session(s) at {w.rate_Mbps:g} Mb/s, {w.block_B} B blocks in "
        f"{fragments} IP fragments"
        + (f", {100 * delivered:.3g} % of blocks whole" if body.loss_rate else "")
    )
    return flows, [note]


@dataclass(frozen=True)
class _TcpLimits:
    """What caps each TCP stream of a transfer."""

    streams: int  # every session's streams
    window_B: float  # each stream's window
    # its window a round trip, of which 1 - loss is delivered: the segments sent again occupy the
    # window as the first sends did, whatever the congestion control (BBR too, which has no loss
    # limit below 15 %)
    window_Bps: float
    loss_Bps: float  # its congestion control's loss-limited rate (inf: none)

    @property
    def cap_Bps(self) -> float:
        return min(self.window_Bps, self.loss_Bps)

    @property
    def flow_limit(self) -> str:
        """The one that caps the streams, named as the bottleneck when it does."""
        return "tcp loss" if self.loss_Bps < self.window_Bps else "tcp window"


def _tcp_limits(body: WanBody, rtt_s: float) -> _TcpLimits:
    """Each stream's window and what it delivers a round trip, and its loss-limited rate."""
    w = body.workload
    n = w.sessions * w.streams
    window = tcp.window_B(body.tcp, w.socket_buffer_B, n)
    window_Bps = tcp.window_limit_Bps(window, rtt_s) * (1.0 - body.loss_rate)
    loss_Bps = tcp.loss_limit_Bps(body.mtu_B, rtt_s, body.loss_rate, body.tcp)
    return _TcpLimits(n, window, window_Bps, loss_Bps)


def _stream_usages(path: _Path, n: int) -> tuple[list[dict[FlowResource, float]], float]:
    """What each of the ``n`` TCP streams uses a delivered byte, and the wire bytes a delivered
    byte costs (a lost segment is sent again)."""
    body, w = path.body, path.body.workload
    sender, receiver = path.sender, path.receiver
    sent_frames, received_frames = tcp.tcp_frame_work_per_byte(body.mtu_B, body.tcp)
    in_reader = tcp.reader_share(body.mtu_B, body.tcp) * received_frames * receiver.frame_s
    # a lost segment is sent again: each delivered byte crosses the wire 1/(1 - loss) times
    resent = 1.0 / (1.0 - body.loss_rate)
    sent_frames *= resent
    wire_per_byte = tcp.tcp_wire_per_byte(body.mtu_B) * resent
    usages = []
    threads = n if w.threads is None else w.threads
    words = f"{w.protocol} thread{', on one core' if threads == 1 else 's, one core each'}"
    for k in range(n):
        usage = {}
        # a tool with fewer threads than streams serves several streams from one core
        thread = k if w.threads is None else k % w.threads
        served = 1 if w.threads is None else len(range(thread, n, w.threads))
        s_core, r_core = (
            side.process(f"s{thread}", label=f"the {side.label} host's {words}")
            for side in (sender, receiver)
        )
        # each stream its part of the file in its own process (SPLIT_STREAMS), else each
        # session's one disk thread a side (bbcp), on a core of its own, where it moves disk
        split = w.protocol in SPLIT_STREAMS
        session = k // w.streams
        reader, writer = (
            core
            if split or store is None
            else side.process(
                f"disk{session}", label=f"the {side.label} host's {w.protocol} disk thread"
            )
            for side, core, store in ((sender, s_core, path.source), (receiver, r_core, path.sink))
        )
        path.disk_read(usage, reader, k if split else session)
        charge(usage, sender, s_core, sender.copy_s_per_byte)
        charge_frames(usage, sender, k, sent_frames * sender.frame_s)
        path.wire(usage, k, wire_per_byte)
        # the receiving thread holds this stream's socket 1/served of the time, and does
        # that share of the TCP work it finds in the socket's backlog (tcp.reader_share)
        charge_frames(usage, receiver, k, received_frames * receiver.frame_s - in_reader / served)
        charge(usage, receiver, r_core, receiver.copy_s_per_byte + in_reader / served)
        path.disk_write(usage, writer)
        path.memory_passes(usage)
        usages.append(usage)
    return usages, wire_per_byte


def _stream_flows(
    path: _Path,
    limits: _TcpLimits,
    usages: list[dict[FlowResource, float]],
    wire_per_byte: float,
    rtt_s: float,
    per_session_B: float,
) -> list[_FlowSpec]:
    """Each TCP stream after its set-up round trips and its slow start, which ends at the
    stream's window or its share of its circuit or of the path, whichever is least."""
    body, w = path.body, path.body.workload
    n, cap = limits.streams, limits.cap_Bps
    mss = tcp.mss_B(body.mtu_B)
    per_member = [0] * body.circuits
    for k in range(n):
        for m, _ in path.members_of(k):
            per_member[m] += 1
    # no stream outgrows its share of what the whole path (CPUs, disks, circuits) can carry
    path_share_Bps = partition_bound_Bps(usages, [cap] * n) / n
    sizes_B = stream_sizes_B(w.protocol, usages, cap, per_session_B / w.streams)
    flows = []
    for k, usage in enumerate(usages):
        busiest_member = max(per_member[m] for m, _ in path.members_of(k))
        share_Bps = min(path.link.rate_Bps / wire_per_byte / busiest_member, cap, path_share_Bps)
        size = sizes_B[k]
        ramp = tcp.slow_start_run(
            share_Bps * rtt_s,
            mss,
            body.tcp.initial_window_segments,
            rtt_s,
            size,
            body.tcp.slow_start_growth == "per_segment",
        )
        if ramp.sent_B >= size:
            raise NotModelled("a transfer that ends inside slow start")
        flows.append(
            _FlowSpec(
                f"stream {k}",
                size - ramp.sent_B,
                usage,
                cap,
                SETUP_RTTS[w.protocol] * rtt_s + ramp.seconds,
                ceiling_Bps=limits.window_Bps,
                slow_start_rounds=round(ramp.seconds / rtt_s),
                within_slow_start=not ramp.reached,
            )
        )
    return flows


def _tcp_notes(
    path: _Path, limits: _TcpLimits, usages: list[dict[FlowResource, float]], rtt_s: float
) -> list[str]:
    """The streams' window and what it carries a round trip beside one circuit's bandwidth-delay
    product, their loss limit, and what sized a window that binds (``_window_notes``)."""
    body = path.body
    n, window, window_Bps = limits.streams, limits.window_B, limits.window_Bps
    # a circuit runs at its link's rate, or its hosts' NIC ports' where slower
    circuit_Bps = min(
        path.link.rate_Bps, path.sender.nics[0].capacity, path.receiver.nics[0].capacity
    )
    circuit_bdp_B = tcp.bandwidth_delay_product_B(circuit_Bps, rtt_s)
    notes = [
        f"TCP: {n} stream(s), window {_bytes(window)}, window/RTT "
        f"{_rate(tcp.window_limit_Bps(window, rtt_s))} per stream"
        + (f" ({_rate(window_Bps)} of it delivered)" if body.loss_rate else "")
        + f"; bandwidth-delay product of one circuit {_bytes(circuit_bdp_B)}"
    ]
    if math.isfinite(limits.loss_Bps):
        notes.append(
            f"TCP loss limit ({body.tcp.congestion_control}, loss {body.loss_rate:g}): "
            f"{_rate(limits.loss_Bps)} per stream"
        )
    # a window below what the path would carry each stream without it binds the transfer
    if limits.flow_limit == "tcp window" and n * window_Bps < partition_bound_Bps(
        usages, [math.inf] * n
    ):
        memory_MB = min(path.sender.host.memory_MB, path.receiver.host.memory_MB)
        notes.extend(_window_notes(body.tcp, body.workload.socket_buffer_B, n, memory_MB))
    return notes


def _window_notes(
    settings: TcpSettings, requested_B: int | None, streams: int, memory_MB: float
) -> list[str]:
    """What sized a window that binds, where it is not what the scenario asked for or what a
    current host has: the buffers of Linux 2.4 (``TcpBuffers``' defaults, the reports' kernels),
    a buffer the tool asks for above net.core's caps (setsockopt takes at most twice the cap), or
    a ``tcp_mem`` the streams share that current Linux would have sized from the host's memory."""
    notes = []
    defaults = (TcpBuffers.tcp_rmem_B, TcpBuffers.tcp_wmem_B, TcpBuffers.tcp_adv_win_scale)
    given = (settings.tcp_rmem_B, settings.tcp_wmem_B, settings.tcp_adv_win_scale)
    if requested_B is None and given == defaults:
        notes.append(
            f"this window is what Linux 2.4, the reports' kernel, gives: tcp.tcp_rmem_B and "
            f"tcp_wmem_B left at their defaults (at most {defaults[0][2]:,} and "
            f"{defaults[1][2]:,} B, a quarter kept for overhead, tcp_adv_win_scale 2); a Linux "
            f"since 4.20 has {LAN_TCP_RMEM_B[2]:,} and {LAN_TCP_WMEM_B[2]:,} B and keeps half "
            f"(tcp_adv_win_scale {LAN_ADV_WIN_SCALE}): set them for a current host"
        )
    caps = {
        "tcp.core_rmem_max_B": settings.core_rmem_max_B,
        "tcp.core_wmem_max_B": settings.core_wmem_max_B,
    }
    capped = [f"{key} {cap:,} B" for key, cap in caps.items() if requested_B and requested_B > cap]
    if capped:
        notes.append(
            f"the {requested_B:,} B socket buffer the tool asks for (workload.socket_buffer_B) is "
            f"cut to twice net.core's cap, {' and '.join(capped)} (Linux 5.15's default is "
            "212,992 B, Documentation/networking/ip-sysctl.rst): raise the caps for it to take"
        )
    if requested_B is not None:
        auto = tcp.window_B(settings, None, streams)
        if tcp.window_B(settings, requested_B, streams) < auto:
            notes.append(
                f"the {requested_B:,} B socket buffer the tool asks for "
                "(workload.socket_buffer_B) turns the kernel's buffer autotuning off for its "
                f"sockets: left to the kernel, they would grow to a {_bytes(auto)} window "
                "(tcp.tcp_rmem_B and tcp_wmem_B's max)"
            )
    rcv, snd = tcp.socket_buffers_B(settings, requested_B, streams)
    receive_B = rcv * (1.0 - 2.0**-settings.tcp_adv_win_scale)
    send_B = tcp.send_window_B(snd, settings.tso, settings.tcp_adv_win_scale)
    if send_B < receive_B and given != defaults:
        notes.append(
            f"the send buffer sets the window: {_bytes(snd)} keeps {_bytes(send_B)} in flight "
            f"where the receive window would be {_bytes(receive_B)} (raise tcp.tcp_wmem_B's max"
            + (", or core_wmem_max_B for the buffer the tool asks for)" if requested_B else ")")
        )
    alone = tcp.socket_buffers_B(settings, requested_B, 1)
    shared = tcp.socket_buffers_B(settings, requested_B, streams)
    if shared != alone:
        pool_B = settings.tcp_mem_pages[2] * settings.page_B
        booted = tcp.linux_tcp_mem_high_pages(memory_MB, settings.page_B)
        notes.append(
            f"the {streams} streams share tcp.tcp_mem_pages' high, {_bytes(pool_B)} for all of "
            f"a host's sockets, which cuts each one's buffers to {_bytes(min(shared))}; current "
            f"Linux sets it at boot to {100 * tcp.LINUX_TCP_MEM_HIGH_SHARE:.2f} % of the memory "
            f"(net/ipv4/tcp.c, tcp_init_mem), {booted:,} pages "
            f"({_bytes(booted * settings.page_B)}) on the smaller host's {memory_MB:,.0f} MB: set "
            "tcp.tcp_mem_pages as the hosts have it"
        )
    return notes


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    built = build(scenario, catalog, params)
    env, net, flows, rtt_s, total_B = built.env, built.net, built.flows, built.rtt_s, built.total_B
    ran: list[tuple[_FlowSpec, Flow]] = []

    def run(delay_s: float, specs: list[_FlowSpec]):
        """The flows that leave slow start together start together (one share-out for all)."""
        yield env.timeout(delay_s)
        started = net.transfers([(f.size_B, f.usage, f.name, f.cap_Bps) for f in specs])
        ran.extend(zip(specs, started, strict=True))

    by_delay: dict[float, list[_FlowSpec]] = {}
    for spec in flows:
        by_delay.setdefault(spec.delay_s, []).append(spec)
    for delay_s, specs in by_delay.items():
        env.process(run(delay_s, specs))
    env.run()
    elapsed = env.now + rtt_s / 2.0  # the last byte still has to cross the path
    ceilings = [f.cap_Bps if f.ceiling_Bps is None else f.ceiling_Bps for f in flows]
    usages = [f.usage for f in flows]
    bound = partition_bound_Bps(usages, ceilings) / 1e6
    utilization = net.utilization(elapsed)
    # the flows' own limit (TCP window or loss, Tsunami's target rate) beside the resources: the
    # share of it they used over the run, as the resources' own are, so that a window-limited
    # transfer names its window as bottleneck and one its set-up and slow start take most of
    # names them (counted over the flows' running time alone, a 1 kB transfer whose 0.7 s were
    # 3 set-up round trips and its last byte's trip named its window, 86 % 'busy')
    capped = [f for _, f in ran if math.isfinite(f.max_rate_Bps) and f.finished_s > f.started_s]
    if capped:
        utilization[built.flow_limit] = min(
            1.0, sum(f.size_B / (elapsed * f.max_rate_Bps) for f in capped) / len(capped)
        )
    # ...and the time before the last flow runs at its share or ends, which no resource is
    # charged with: the round trips of set-up and slow start (as the download server names its
    # clients' pace where nothing else is full)
    if ran:
        utilization[built.ramp] = min(1.0, max(_ramp_ends_s(ran, rtt_s)) / elapsed)
    return Result(
        scenario=scenario.name,
        bytes_moved=total_B,
        elapsed_s=elapsed,
        utilization=utilization,
        bound_MBps=bound,
        ceiling_MBps=partition_bound_Bps(usages, ceilings, rated=True) / 1e6,
        labels=net.labels(),
        notes=(
            *built.notes,
            *_ramp_note(ran, rtt_s, elapsed),
            *_offload_note(scenario.body, utilization),
            *(
                line
                for side, passes in built.memory
                for line in memory.note(busiest(utilization), side.label, side.host, passes)
            ),
        ),
    )


def _offload_note(body: WanBody, utilization: dict[str, float]) -> tuple[str, ...]:
    """A note where a host's cores bind a TCP transfer with its offloads off: each frame is then
    charged ``net_cycles_per_frame``, by default the 2.4-era cost, the reports' hosts', which a
    current kernel with the offloads off does not spend either."""
    bottleneck = busiest(utilization)
    kind = bottleneck.partition(" ")[0]
    if body.workload.protocol == "tsunami" or body.tcp.tso and body.tcp.gro:
        return ()
    if body.net_cycles_per_frame != NET_CYCLES_PER_FRAME:  # the frame's cost the user set
        return ()
    if kind not in ("cpu", "irq", "core", "rss", "flow"):
        return ()
    off = " and ".join(f"tcp.{k}" for k in ("tso", "gro") if not getattr(body.tcp, k))
    return (
        f"{bottleneck} binds with {off} off: each frame costs net_cycles_per_frame "
        f"({body.net_cycles_per_frame:,.0f} cycles), the 2.4-era host's; a current Linux has TSO "
        "and GRO on with NICs that support them (set them true), and one with them off spent "
        "some 4,200 cycles a segment sending and 7,500 receiving besides the copy (Linux 5.4, "
        "Cai et al. 2021; model.settings.STACK_RUN_NO_OFFLOADS)",
    )


RAMP_NOTED = 0.05  # the share of a run its streams' set-up and slow start take before a note


def _ramp_ends_s(ran: list[tuple[_FlowSpec, Flow]], rtt_s: float) -> list[float]:
    """When each flow is done with its set-up and slow start: when it starts at its share (its
    ``delay_s``), or, a stream that sends all its data within slow start, when its last byte
    arrives."""
    return [
        f.finished_s + rtt_s / 2.0 if spec.within_slow_start else spec.delay_s for spec, f in ran
    ]


def _ramp_note(
    ran: list[tuple[_FlowSpec, Flow]], rtt_s: float, elapsed_s: float
) -> tuple[str, ...]:
    """A note where the flows' set-up (and a TCP stream's slow start) take a notable share of the
    run: the time no resource is full while the windows open, which the utilisations do not name.

    Each claim holds of the streams it is made of: a stream whose window reaches its share
    (``tcp.slow_start_run``) 'reaches its share'; one whose data ran out first sends it within
    slow start; a Tsunami session, one UDP flow at a set rate with no window, only sets up."""
    ends_s = _ramp_ends_s(ran, rtt_s)
    ramp_s = max(ends_s, default=0.0)
    if ramp_s < RAMP_NOTED * elapsed_s:
        return ()
    ms = f"{rtt_s * 1e3:,.3g} ms"
    run = f"{elapsed_s:,.3g} s run, {100 * ramp_s / elapsed_s:.0f} % of it"
    specs = [spec for spec, _ in ran]
    if all(spec.slow_start_rounds is None for spec in specs):  # Tsunami: no window to open
        who = "the session" if len(specs) == 1 else f"the last of the {len(specs)} sessions"
        return (
            f"set-up: {who} starts sending {ramp_s:,.3g} s ({ramp_s / rtt_s:,.0f} round trips of "
            f"{ms}) into the {run}",
        )
    reached = [spec for spec in specs if not spec.within_slow_start]
    within = [
        (end, spec) for end, (spec, _) in zip(ends_s, ran, strict=True) if spec.within_slow_start
    ]
    if not within:
        return (
            f"set-up and slow start: the last stream reaches its share {ramp_s:,.3g} s "
            f"({ramp_s / rtt_s:,.0f} round trips of {ms}) into the {run}, while its window opens",
        )
    end_s, last = max(within, key=lambda pair: pair[0])
    rounds = last.slow_start_rounds
    setup = round(last.delay_s / rtt_s) - rounds
    ran_out = f"{counted(setup, 'set-up round trip')} of {ms} and " + (
        f"{counted(rounds, 'round')} of slow start, then what is left in one window"
        if rounds
        else "all its data in its first window"
    )
    if not reached:
        who = "the stream" if len(specs) == 1 else f"each of the {len(specs)} streams"
        return (
            f"set-up and slow start: {who} sends its data within slow start, its window short of "
            f"its share ({ran_out}): the last byte arrives {end_s:,.3g} s into the {run}",
        )
    reach_s = max(spec.delay_s for spec in reached)
    one = len(reached) == 1, len(within) == 1
    return (
        f"set-up and slow start: {len(reached)} of the {len(specs)} streams "
        + ("reaches its share" if one[0] else "reach their share")
        + f" {reach_s:,.3g} s ({reach_s / rtt_s:,.0f} round trips of {ms}) in, while "
        + ("its window opens" if one[0] else "their windows open")
        + f"; the other {len(within)} "
        + ("sends its data" if one[1] else "send their data")
        + " within slow start, short of "
        + ("its" if one[1] else "their")
        + f" share ({ran_out}), the last byte arriving {end_s:,.3g} s in; all by {ramp_s:,.3g} s "
        f"into the {run}",
    )


MODEL = ModelRecord(
    "wan_transfer",
    WanBody,
    simulate,
    check_parts=lambda body, catalog, params, where: check_parts(body, catalog, where),
    check_refs=check_ends,
)
