"""The microscope ingest path end to end: acquisition servers writing images over CIFS to one
storage host.

``003_0a9a7721e3b096d5.txt``: eight Windows acquisition servers write the electron microscope's
images (about 612 KiB each, about 3 TB/h in all) to a CIFS share on a Dell R720, whose two 10 GbE
cards form one LACP bond, onto the MD3260 store of ``em_ingest``. Each acquisition server is one
SMB2 client with one TCP connection (SMB multichannel came later). The path, as flow resources on
one :class:`~model.sim.flows.FlowNetwork`:

  client NIC -> switch -> one member of the host's bond -> the interrupt cores (per frame)
  -> that client's smbd process (one per connection: the copy out of the socket, then the buffered
  write path) -> the host's CPU -> the storage path of the storage scenario (SAS wires, RAID
  processors, drives; ``model.storage.topology``)

- The switch is taken as non-blocking: the port facing a bond member carries what that member
  carries, the port facing a client what the client's NIC does; it adds no limit of its own.
- LACP (802.3ad): the switch hashes the frames it sends to the host onto one member by addresses
  (and ports), so all of a connection's frames take one member: one client never exceeds one link,
  and how clients share the members depends on the hash. ``balanced`` puts client i on member
  i mod members (the lucky spread), ``collide`` puts every client on member 0 (the unlucky one),
  ``seeded`` draws each client's member from the named random stream ``lacp hash`` of the ingest
  scenario's seed (so the interval's further seeds draw other placements); ``assignment`` gives
  the members outright.
- Wire bytes per image byte: TCP/IP over Ethernet framing (``model.network.tcp``) at the LAN's MTU,
  plus the SMB2 header, WRITE request and transport header of every write an image takes.
- CPU: per frame on the interrupt cores, one copy out of the socket in smbd, and the buffered write
  path (the storage model's ``io_copy_passes`` and ``io_write_extra_passes``) in smbd, each at the
  host's catalog clock and ``copy_rate_MBps`` (``model.network.hosts``, ``model.storage.stream``).
- Memory: each byte crosses the host's memory by the NIC's DMA, the socket's copy, the page cache's
  copy and the drives' DMA (``model.storage.front``), a stage of its own, ``host memory``, where
  the catalog gives the host's memory bandwidth (``model.memory``).
- The storage path alone is the storage model's prediction for the same scenario and overrides
  with one writer per client (the loader loads it so); the end-to-end flows cross the same
  storage resources (``model.storage.topology``), with smbd as the writer.

- Each client writes its files one after another, and each file waits for an SMB2 CREATE and a
  CLOSE answered across the LAN (``lan_rtt_ms`` each) while its WRITEs go behind: a client writes
  at most a file per two round trips (``file_round_trips_Bps``), which binds small files (1 KiB
  files: about 10 MB/s a client at 0.05 ms), not the report's 612 KiB images (6.3 GB/s a client).
- A client's TCP window carries at most a window a round trip (``model.storage.front``, where a
  round trip could bind it): its own stage, ``TCP windows``, not its NIC's.

The bound is the bottleneck law over every stage, each client's own limits (what it is asked to
write, its files' round trips) and the storage path's own bound; the interval's cap
(``Result.ceiling_MBps``) is the same over the rated stages alone (``FlowResource.rated``: the
NICs, the TCP windows, the bond, the host's memory, the storage path's rated parts), leaving out
the interrupts', smbd's and the host's cores' time, estimates of cycles a frame and a byte.

Not modelled (the report does not describe them): the acquisition servers' CPUs, the switch,
smbd's per-request work, XFS metadata. The aggregate is
the steady state with every client writing at once: the weighted max-min fair rates of the
clients' flows.

Calibrated on ``em_ingest`` (``003_0a9a7721e3b096d5.txt``) through the storage model's free
parameters alone; it adds none of its own. The per-frame CPU cost is the literature's
(``model.settings.NET_CYCLES_PER_FRAME``), the framing the protocols'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import simpy

from .. import catalog as catalog_module
from ..errors import UserError
from ..network.hosts import partition_bound_Bps
from ..result import OFFERED_LOAD, Result
from ..settings import lan_tcp
from ..sim.flows import FlowNetwork, FlowResource
from ..spec import ModelRecord, Scenario
from ..storage import front
from ..storage.simulation import simulate as simulate_storage
from .spec import IngestBody

STAGES = (
    "acquisition NICs",
    "TCP windows",  # a client's window a round trip: its connection's, not its NIC's
    "bond (as hashed)",
    "interrupts",
    "smbd processes",
    "host CPU",
    "host memory",  # where the catalog gives the host's memory bandwidth (``model.memory``)
    "storage path",
)
NICS, WINDOWS, BOND, INTERRUPTS, SMBD, HOST_CPU, MEMORY, STORAGE = STAGES


@dataclass(frozen=True)
class IngestResult:
    """The path's steady state with every client writing; rates in MB/s (10^6 B/s) and TB/h
    (10^12 B/h)."""

    clients: int
    bond_member_of_client: tuple[int, ...]
    per_client_MBps: tuple[float, ...]
    aggregate_MBps: float
    aggregate_TBph: float
    files_per_s: float
    microscopes: int  # whole microscopes of ``microscope_TBph`` the aggregate carries
    bottleneck: str  # the resource that limits the aggregate
    bottleneck_stage: str
    # what each stage alone lets these clients write (TCP windows only where a round trip could
    # bind them); the storage path's is simulate()'s bound_MBps, its steady rate with one writer
    # per client (its throughput_MBps also counts the drives' first access)
    stage_capacity_MBps: dict[str, float]
    stage_utilization: dict[str, float]  # each stage's busiest resource, 0..1
    bound_MBps: float  # the bottleneck law's upper bound on the aggregate
    # the same over the rated resources alone (``FlowResource.rated``: NICs, windows, the bond,
    # memory) and the storage path's own ceiling, leaving out the CPU work the model estimates
    # (interrupts, smbd, the host's cores): ``Result.ceiling_MBps``, the interval's cap
    ceiling_MBps: float
    # the most one client writes, its files one after another, each with its CREATE and CLOSE
    # round trips (``file_round_trips_Bps``)
    file_round_trips_MBps: float
    storage: (
        Result  # the storage path's own prediction (simulate(), one writer per client, no network)
    )
    # what the store's host's NICs leave unused, what their slots and the clients' hold them to
    # (front.Front.notes)
    notes: tuple[str, ...]


def smb_payload_per_byte(config: IngestBody) -> float:
    """TCP payload bytes per image byte: the image plus the SMB2 framing of each write it takes."""
    file_B = config.file_KiB * 1024
    writes = math.ceil(file_B / (config.smb_write_KiB * 1024))
    return 1.0 + writes * front.FRAMING_B[("smb", "write")] / file_B


FILE_ROUND_TRIPS = "file round trips"


def file_round_trips_Bps(config: IngestBody) -> float:
    """The most one client writes when each of its files waits for a CREATE and a CLOSE round trip
    (``lan_rtt_ms`` each), its files one after another; its WRITEs go behind (the write-behind of
    the client's cache) while the next file opens, so the transfer is not added to them."""
    return config.file_KiB * 1024 / (2 * config.lan_rtt_ms / 1e3)


def predict(
    scenario: Scenario, catalog: catalog_module.Catalog, params: dict[str, float]
) -> IngestResult:
    """The ingest path's steady state for an ``ingest`` scenario, writing into the storage scenario
    it names (loaded with one writer per client).

    Raises :class:`NotModelled` where the storage model does (more writers than cores).
    """
    config: IngestBody = scenario.body
    store, where = scenario.refs["storage"], scenario.path
    catalog = catalog.with_parts_of(store.catalog, store.path)  # the store's own parts too
    values = params
    # the storage path alone: one dd-like writer per client
    try:
        storage = simulate_storage(store, catalog, values)
    except UserError as exc:  # told as the ingest's key that names the store (one writer a client)
        told = scenario.told_through("storage", exc)  # or at a key --set gave it there
        if told is not None:
            raise told from None
        raise UserError(
            where, "storage", f"{config.storage!r} with {config.clients:,} writers: {exc.line()}"
        ) from None
    body = store.body
    net = FlowNetwork(simpy.Environment())
    clients = front.build(
        net,
        body,
        catalog,
        values,
        store.path,
        clients=config.clients,
        connections=1,  # SMB2 (no multichannel): one connection a client
        client_nic=config.client_nic,
        link=config.link,
        irq_affinity=config.irq_affinity,
        members_of=config.assignment,
        hashing=config.hashing,
        seed=scenario.seed,
        payload=smb_payload_per_byte(config),
        process="smbd",
        front_where=where,
        nic_key="client_nic",
        link_key="link",
        tcp_buffers=lan_tcp(config),
        # writers only: the clients' write-behind sends on without waiting for answers, but no
        # connection has more than its window on the way
        rtt_s=config.lan_rtt_ms / 1e3,
        read_ahead_B=None,
        server_threads=None,  # smbd: one process a connection
    )
    side, usages, members = clients.side, clients.usages, clients.members
    bytes_per_stream = clients.bytes_per_flow
    stage_of: dict[FlowResource, str] = {
        res: STORAGE for res in clients.path.usage_per_byte[body.workload.target]
    }
    stage_of.update({side.irq: INTERRUPTS, side.cpu: HOST_CPU})
    if side.memory is not None:
        stage_of[side.memory] = MEMORY
    stage_of.update({nic: BOND for nic in side.nics})
    stage_of.update({card: BOND for card in side.cards if card is not None})
    # the one core a flow's TCP work takes at a time (spread interrupts): the interrupt stage
    stage_of.update(
        {core: INTERRUPTS for name, core in side.processes.items() if name.startswith("flow ")}
    )
    # a client's connection: its NIC, and its window a round trip where that could bind
    stage_of.update({nic: NICS for nic in clients.client_nics})
    stage_of.update({window: WINDOWS for window in clients.windows})
    stage_of.update({smbd: SMBD for smbd in clients.servers})
    cap_Bps = math.inf if config.client_cap_MBps is None else config.client_cap_MBps * 1e6
    files_Bps = file_round_trips_Bps(config)
    # every client writing at once: one share-out for all of them
    flows = net.transfers(
        [
            (bytes_per_stream, usage, f"client {i}", min(cap_Bps, files_Bps))
            for i, usage in enumerate(usages)
        ]
    )
    rates = tuple(f.rate_Bps for f in flows)  # the max-min allocation with every client writing
    aggregate_Bps = sum(rates)
    serves: dict = {}  # the clients whose writes cross each resource
    for u in usages:
        for r in u:
            serves[r] = serves.get(r, 0) + 1
    used = [r for r in net.resources.values() if r in serves]  # in the order declared
    capacity = {
        s: partition_bound_Bps(
            [{r: a for r, a in u.items() if stage_of[r] == s} for u in usages],
            [math.inf] * len(usages),
        )
        / 1e6
        for s in STAGES
        # the windows where a round trip could bind them (``front``), the host's memory where the
        # catalog gives it: a stage of none is left out
        if s != STORAGE
        and (s != WINDOWS or clients.windows)
        and (s != MEMORY or side.memory is not None)
    }
    capacity[STORAGE] = (
        storage.bound_MBps
    )  # the storage path's steady rate with one writer per client
    load = {r: min(1.0, r.load / r.capacity) for r in used}
    order = {s: k for k, s in enumerate(STAGES)}
    busiest = max(used, key=lambda r: (round(load[r], 9), serves[r], -order[stage_of[r]]))
    offered = all(rate >= cap_Bps * (1 - 1e-9) for rate in rates)
    turns = not offered and all(rate >= files_Bps * (1 - 1e-9) for rate in rates)
    tbph = aggregate_Bps * 3600 / 1e12
    # each client's own limits: what it is asked to write, its files' round trips
    caps = [min(cap_Bps, files_Bps)] * len(usages)
    bound = min(partition_bound_Bps(usages, caps) / 1e6, storage.bound_MBps)
    ceiling = min(partition_bound_Bps(usages, caps, rated=True) / 1e6, storage.rated_bound_MBps)
    limit = OFFERED_LOAD if offered else FILE_ROUND_TRIPS if turns else None
    return IngestResult(
        clients=config.clients,
        bond_member_of_client=members,
        per_client_MBps=tuple(r / 1e6 for r in rates),
        aggregate_MBps=aggregate_Bps / 1e6,
        aggregate_TBph=tbph,
        files_per_s=aggregate_Bps / (config.file_KiB * 1024),
        microscopes=math.floor(
            tbph / config.microscope_TBph * (1 + 1e-12)
        ),  # 2.9999999999999996 is 3
        bottleneck=limit or busiest.name,
        bottleneck_stage=limit or stage_of[busiest],
        stage_capacity_MBps=capacity,
        stage_utilization={
            s: max((v for r, v in load.items() if stage_of[r] == s), default=0.0)
            for s in STAGES
            if s in capacity
        },
        bound_MBps=bound,
        ceiling_MBps=ceiling,
        file_round_trips_MBps=files_Bps / 1e6,
        storage=storage,
        notes=clients.notes,
    )


def simulate(
    scenario: Scenario, catalog: catalog_module.Catalog, params: dict[str, float]
) -> Result:
    """The ``ingest`` scenario model: :func:`predict` for the scenario's body, as a :class:`Result`
    whose utilisation is per stage and whose time is the storage scenario's bytes per client."""
    body = scenario.body
    out = predict(scenario, catalog, params)
    bytes_moved = out.storage.bytes_moved
    notes = (
        f"{out.aggregate_TBph:.2f} TB/h: {out.microscopes} microscope(s) of "
        f"{body.microscope_TBph:g} TB/h",
        f"limited by {out.bottleneck} ({out.bottleneck_stage}); bond members per client "
        f"{list(out.bond_member_of_client)}",
        *out.notes,
    )
    utilization = dict(out.stage_utilization)
    if body.client_cap_MBps is not None:  # what the servers ask for, as its share carried
        utilization[OFFERED_LOAD] = min(
            1.0, out.aggregate_MBps / (body.clients * body.client_cap_MBps)
        )
    # the clients' files one after another, as the share of that pace they kept
    utilization[FILE_ROUND_TRIPS] = min(
        1.0, out.aggregate_MBps / (body.clients * out.file_round_trips_MBps)
    )
    return Result(
        scenario=scenario.name,
        bytes_moved=bytes_moved,
        elapsed_s=bytes_moved / (out.aggregate_MBps * 1e6),
        utilization=utilization,
        bound_MBps=out.bound_MBps,
        ceiling_MBps=out.ceiling_MBps,
        notes=notes,
    )


MODEL = ModelRecord(
    "ingest",
    IngestBody,
    simulate,
    unmeasured="the blog (003) measures the store alone (em_ingest), never the path from the "
    "acquisition servers end to end",
)
