"""dd-style sequential streams on a host's storage, simulated as flows over the storage path.

Each of ``workload.streams`` processes moves ``total_MB`` to (write) or from (read) the target
volume, or from the source volume to the target (copy), after the disks' first access (a seek and
half a turn). A process runs on one core at a time (processes beyond the host's cores time-share
them), so a stream is also limited by that core (the ATLAS slides' lesson: "Single 2.8 GHz is
likely to outperform Dual 2.0 GHz"): its core spends ``io_copy_passes`` memory copies' worth of
time on every byte it reads and ``io_write_extra_passes`` more on every byte it writes, at the
host's single-core copy rate (``io_s_per_byte``); a direct stream's bytes cost what a published
direct read cost (``direct.core_s_per_byte``). A write costs more than a read (it allocates
blocks, dirties pages and buffers and submits the write-back): TRIUMF's CPU-bound send host read
227 MB/s and wrote 174 MB/s on the same twelve drives. ``io: direct`` streams go one request at
a time (``model.storage.direct``), ``pattern: random`` streams as ``model.storage.requests`` says.
A write to drives whose own write cache is off and which hold one command at a time goes at most
as fast as they take the write-back's requests, a revolution lost between two
(``model.storage.writecache``). On an ext3 volume mounted ``data=journal`` each byte is written
twice and the writer waits for the second write (``filesystem.Journal``); on a kernel whose ext3
takes the big kernel lock for every page (Linux 2.4), the writer's core spends more on each byte
written (``settings.Kernel.ext3_write_ratio``).
Where the catalog gives the host's memory bandwidth, the streams' bytes share it
(``model.memory``, a resource ``memory host``) by every pass that moves them: the path's
(``topology.StoragePath.memory_per_byte``) and the cache's copy to or from the program's buffer.
Calibrated on ``atlas_disk``, ``atlas_hosts`` and ``em_ingest``.
"""

from __future__ import annotations

import math

import simpy

from .. import memory
from ..catalog import Catalog
from ..parts import Host, Ssd
from ..result import Result, busiest
from ..settings import page_cache_B
from ..sim.flows import FlowNetwork, FlowResource, rated_usage
from ..spec import Scenario
from . import direct, raid5d, requests, topology, writecache, zfs
from .attachment import raid_processor_note
from .spec import StorageBody, Volume


def io_s_per_byte(params: dict[str, float], copy_rate_MBps: float, op: str) -> float:
    """Core seconds one byte read (``op`` "read") or written ("write") through the kernel's
    buffered path costs."""
    passes = params["io_copy_passes"] + (params["io_write_extra_passes"] if op == "write" else 0.0)
    return passes / (copy_rate_MBps * 1e6)


def random_limit_Bps(
    body: StorageBody, path: topology.StoragePath, core_s: float, wait_s: float = 0.0
) -> float:
    """The most a stream of random requests moves per second (Little's law): the requests it keeps
    in flight (``zfs.in_flight``) over each one's response, the drives' time, the host's
    ``core_s`` and ``wait_s`` more (a LAN client's round trip, ``model.storage.front``)."""
    w = body.workload
    depth = zfs.in_flight(body.volumes[w.target], body)
    return depth * w.request_KiB * 1024 / (path.request_s[w.target] + core_s + wait_s)


def in_flight_words(body: StorageBody, who: str, count: int) -> str:
    """What each of ``count`` ``who`` (a stream, a LAN's client) keeps in flight, where that
    limits it, as a planner reads it: its random requests (``random_limit_Bps``) or its direct
    ones (``direct.request_limit_Bps``)."""
    w = body.workload
    depth = zfs.in_flight(body.volumes[w.target], body) if w.pattern == "random" else w.queue_depth
    requests = f"{depth:,.10g} request{'' if depth == 1 else 's'}"
    held = f"{requests} of {w.request_KiB:,.10g} KiB in flight"
    if count == 1:
        return f"the {who}'s requests, {held}"
    return f"the {who}s' requests, {held} each"


def target_io_s_per_byte(
    params: dict[str, float], body: StorageBody, copy_rate_MBps: float, op: str
) -> float:
    """``io_s_per_byte`` on ``body``'s target volume: a write onto ext3 costs the writer's core
    more by the kernel's ``ext3_write_ratio`` (``settings.Kernel``)."""
    ext3 = body.volumes[body.workload.target].filesystem.type == "ext3"
    ratio = body.kernel.ext3_write_ratio if op == "write" and ext3 else 1.0
    return io_s_per_byte(params, copy_rate_MBps, op) / ratio


def request_core_s(
    params: dict[str, float],
    body: StorageBody,
    host: Host,
    direct_io: bool = False,
    paid_only: bool = False,
) -> tuple[float, float]:
    """Core seconds a byte of ``body``'s read requests, and a byte of its write requests, cost the
    process that makes them (``requests.core_s_per_byte``): the byte's own cost, through the
    kernel's buffered path on the target volume (``target_io_s_per_byte``) or, with ``direct_io``,
    a published direct read's (``direct.core_s_per_byte``), or a request's fixed cost spread over
    its bytes where that is more. With ``paid_only``, an op the workload never does (a copy does
    both) costs 0.0, its parameters not read."""
    request_B = body.workload.request_KiB * 1024
    read_s, write_s = (
        requests.core_s_per_byte(
            params,
            host,
            request_B,
            direct.core_s_per_byte(host)
            if direct_io
            else target_io_s_per_byte(params, body, host.copy_rate_MBps, op),
        )
        if not paid_only or body.workload.op in (op, "copy")
        else 0.0
        for op in ("read", "write")
    )
    return read_s, write_s


def cache_copy(volume: Volume) -> str:
    """The pass by which a buffered stream's byte crosses the host's memory between the volume's
    cache and the program's buffer (``model.memory``): the ARC's copy (a ZFS pool's), or the page
    cache's."""
    return "ARC's copy" if volume.engine == "zfs" else "page cache's copy"


def memory_crossings(path: topology.StoragePath, body: StorageBody) -> dict[str, float]:
    """Pass -> times a byte of ``body``'s streams crosses the host's memory: each volume's
    (``StoragePath.memory_per_byte``) and, for a buffered stream, the cache's copy for each
    volume it touches (``cache_copy``: the copy ``io_s_per_byte`` charges the core, a copy
    reading the source and writing the target); a direct stream's drives move its buffer's bytes
    themselves."""
    w = body.workload
    volumes = [w.target] + ([w.source] if w.op == "copy" else [])
    passes = [path.memory_per_byte[v] for v in volumes]
    if w.io != "direct":
        passes += [{cache_copy(body.volumes[v]): memory.COPY} for v in volumes]
    return memory.merged(*passes)


def stream_usage(
    path: topology.StoragePath,
    body: StorageBody,
    core: FlowResource,
    host_cpu: FlowResource,
    host_memory: FlowResource | None,
    read_s_per_byte: float,
    write_s_per_byte: float,
    writer_pays: float,
    stream: int = 0,
) -> dict[FlowResource, float]:
    """Resources a stream's byte uses: its volumes' paths, its own copy of a mirror it reads in
    order (``StoragePath.own_copy``; ``stream``: its number), its own core, the host's CPU and its
    memory (``host_memory``, ``memory_crossings``; None where the host has no memory resource).

    The core takes each byte through the page cache once per volume it touches (a copy reads the
    source and writes the target), and pays the write driver path for the share ``writer_pays`` of
    the bytes it writes back itself; the flusher threads pay the rest on other cores.
    """
    w = body.workload
    volumes = [w.target] + ([w.source] if w.op == "copy" else [])
    usage: dict[FlowResource, float] = {}
    for vname in volumes:
        for res, share in path.usage_per_byte[vname].items():
            usage[res] = usage.get(res, 0.0) + share
        usage.update(path.own_copy(vname, stream))
    writes = w.op in ("write", "copy")
    core_s = (write_s_per_byte if writes else read_s_per_byte) + (
        read_s_per_byte if w.op == "copy" else 0.0
    )
    driver = path.driver_s_per_byte[w.target] if writes else 0.0
    # md's raid5d threads (a write's) and ZFS's checksums, not the stream's own core
    parity = sum(path.parity_s_per_byte[vname] for vname in volumes)
    usage[core] = core_s + writer_pays * driver
    usage[host_cpu] = core_s + driver + parity
    memory.charge(usage, host_memory, memory_crossings(path, body))
    return usage


def checkpoint_wait(
    path: topology.StoragePath, body: StorageBody, usage: dict[FlowResource, float], process
) -> None:
    """Make a writer on an ext3 ``data=journal`` volume wait for its checkpoints: a resource of its
    own time, its core's work and the wait in series (``filesystem.Journal``; a volume read has no
    wait)."""
    wait = path.checkpoint_s_per_byte[body.workload.target]
    if wait:
        own_time = path.network.resource(f"{process.name} with its checkpoints", 1.0, unit="core-s")
        usage[own_time] = usage[process] + wait


def bottleneck_notes(
    bottleneck: str, params: dict[str, float], body: StorageBody, catalog: Catalog
) -> tuple[str, ...]:
    """The notes only the result's bottleneck (``bottleneck``) calls for, a stream's and a client's
    alike: md's raid5d thread and its workers (``raid5d VOLUME.N``: the volume's
    md_group_thread_cnt), a RAID card's processor (``raid CONTROLLER.N``: whether the catalog's
    controller keeps cache blocks)."""
    cname = bottleneck.removeprefix("raid ").rpartition(".")[0]
    slot = body.controllers.get(cname) if bottleneck.startswith("raid ") else None
    cache_blocks = slot is not None and catalog.parts["controllers"][slot.part].cache_blocks
    host = catalog.get("hosts", body.host, "", "host")
    return raid5d.thread_note(bottleneck, body, host, params) + raid_processor_note(
        bottleneck, params, cache_blocks
    )


def stream_cores(streams: int, cores: int) -> list[str]:
    """The names of the streams' processors: each its own ``core i`` while the host has a core a
    stream, else ``process i``, time-sharing the cores."""
    thread = "core {}" if streams <= cores else "process {}"
    return [thread.format(i) for i in range(streams)]


def stream_cores_words(streams: int, cores: int) -> str:
    """The streams' processors (``stream_cores``) as a planner reads them, the label each
    shares: "the stream's process, on one core", "the streams' processes, one core each"."""
    if streams == 1:
        return "the stream's process, on one core"
    if streams <= cores:
        return "the streams' processes, one core each"
    return f"the streams' processes, sharing the host's {cores} cores"


def writer_share(body: StorageBody, memory_MB: float, bytes_total: float) -> float:
    """Share of the written bytes the writers write back themselves: what lies beyond the dirty
    limit, a share of the page cache's memory (``settings.page_cache_B``)."""
    limit_B = body.kernel.dirty_ratio_pct / 100.0 * page_cache_B(memory_MB)
    return max(0.0, bytes_total - limit_B) / bytes_total


def write_through_limit_Bps(
    body: StorageBody, catalog: Catalog, path: topology.StoragePath, where: str
) -> float | None:
    """The most a buffered stream writes to the target when its drives wait a revolution between
    requests (``writecache.write_through_share``); None when they stream."""
    vname = body.workload.target
    part = path.disks[vname][0][1]
    if isinstance(part, Ssd):
        return None
    held = writecache.holding_controller(body, catalog, vname, where)
    request_B = writecache.max_request_B(held[1] if held else None)
    limits = []
    for name, _ in path.disks[vname]:
        drive = path.network.resources[name]
        share = writecache.write_through_share(body, vname, part, drive.capacity, request_B)
        if share < 1.0:
            limits.append(drive.capacity * share / path.usage_per_byte[vname][drive])
    return min(limits, default=None)


def bottleneck_bound_MBps(usages: list[dict[FlowResource, float]], rated: bool = False) -> float:
    """The bottleneck law for identical streams sharing the aggregate equally: X <= min_j C_j / D_j
    (over the rated resources alone with ``rated``: ``Result.ceiling_MBps``; inf where none), D_j
    resource j's demand per byte of the aggregate (``demand_per_byte``)."""
    demand = demand_per_byte(usages, rated)
    return min((res.capacity / d for res, d in demand.items() if d > 0), default=math.inf) / 1e6


def demand_per_byte(
    usages: list[dict[FlowResource, float]], rated: bool = False
) -> dict[FlowResource, float]:
    """Each resource's demand per byte of the aggregate of identical streams sharing it equally:
    the streams' usage summed over streams and divided by their number (a core used by one of k
    streams bounds the aggregate at k times its own rate); over the rated resources alone with
    ``rated`` (``rated_usage``)."""
    demand: dict[FlowResource, float] = {}
    for usage in usages:
        for res, per_byte in (rated_usage(usage) if rated else usage).items():
            demand[res] = demand.get(res, 0.0) + per_byte / len(usages)
    return demand


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    body: StorageBody = scenario.body
    w = body.workload
    bytes_per_stream = w.total_MB * 1e6
    env = simpy.Environment()
    net = FlowNetwork(env)
    path = topology.build(net, body, catalog, params, scenario.path, bytes_per_stream)
    host_cpu = net.resource("cpu host", float(path.host.cores), unit="core-s")
    host_memory = memory.resource(net, path.host, "host")
    # each process runs on one core at a time; with more processes than cores they time-share the
    # host's cores, an equal share each and what one leaves to the others (max-min, as the
    # scheduler)
    on_cores = stream_cores_words(w.streams, path.host.cores)
    cores = [
        net.resource(name, 1.0, unit="core-s", label=on_cores)
        for name in stream_cores(w.streams, path.host.cores)
    ]
    direct_io = w.io == "direct"
    request_B = w.request_KiB * 1024
    read_s, write_s = request_core_s(params, body, path.host, direct_io, paid_only=True)
    # a direct stream writes back every byte itself
    pays = (
        1.0 if direct_io else writer_share(body, path.host.memory_MB, bytes_per_stream * w.streams)
    )
    usages = [
        stream_usage(path, body, core, host_cpu, host_memory, read_s, write_s, pays, stream=i)
        for i, core in enumerate(cores)
    ]
    for core, usage in zip(cores, usages, strict=True):
        checkpoint_wait(path, body, usage, core)
    # a request's host time: a copy reads and writes it, else it is read or written
    core_s = {"read": read_s, "write": write_s, "copy": read_s + write_s}[w.op] * request_B
    # the requests in flight's limit, and the same without the host's time, its drives' alone
    if w.pattern == "random":
        limit_Bps, rated_Bps = (random_limit_Bps(body, path, s) for s in (core_s, 0.0))
    elif direct_io:  # queue_depth requests in flight, each its host time and its drives' time
        cache_command_s = params["disk_cache_command_us"] / 1e6
        limit_Bps, rated_Bps = (
            direct.request_limit_Bps(body, path, s, cache_command_s) for s in (core_s, 0.0)
        )
    if w.pattern == "random" or direct_io:
        words = in_flight_words(body, "stream", w.streams)
        for i, usage in enumerate(usages):
            requests = net.resource(
                f"requests {i}", limit_Bps, rated_capacity=rated_Bps, label=words
            )
            usage[requests] = 1.0
    elif w.op != "read":  # the write-back's requests, one at a time, each waiting a turn
        turns_Bps = write_through_limit_Bps(body, catalog, path, scenario.path)
        if turns_Bps is not None:
            turns = net.resource(f"write-through {w.target}", turns_Bps)
            for usage in usages:
                usage[turns] = 1.0
    latency_s = path.first_access_s()

    def streams():  # every stream starts after the same first access: one share-out for all
        yield env.timeout(latency_s)
        net.transfers([(bytes_per_stream, usage, "stream", math.inf) for usage in usages])

    env.process(streams())
    env.run()
    elapsed = env.now
    cpu_sys_s = sum(core.carried for core in cores)  # the writers' own time, as `time` reports it
    # a lone synchronous stream is either on its core or waiting for the disks
    io_wait_pct = 100.0 * (1.0 - cpu_sys_s / elapsed) if w.streams == 1 else None
    utilization = net.utilization(elapsed)
    bottleneck = busiest(utilization)
    return Result(
        scenario=scenario.name,
        bytes_moved=bytes_per_stream * w.streams,
        elapsed_s=elapsed,
        utilization=utilization,
        bound_MBps=bottleneck_bound_MBps(usages),
        ceiling_MBps=bottleneck_bound_MBps(usages, rated=True),
        cpu_sys_s=cpu_sys_s,
        io_wait_pct=io_wait_pct,
        labels=net.labels(),
        notes=path.notes
        + bottleneck_notes(bottleneck, params, body, catalog)
        + memory.note(bottleneck, "host", path.host, memory_crossings(path, body))
        + writecache.burst_note(body, catalog, scenario.path, bytes_per_stream * w.streams),
        unpredicted=(
            (
                "cpu_user_s",
                f"a stream's user time is its program's own loop around its "
                f"{bytes_per_stream / request_B:,.0f} calls of {w.request_KiB:g} KiB, whose "
                "cost a call no source gives",
            ),
        ),
    )
