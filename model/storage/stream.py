"""dd-style sequential streams on a host's storage, simulated as flows over the storage path.

Each of ``workload.streams`` processes moves ``total_MB`` to (write) or from (read) the target
volume, or from the source volume to the target (copy), after the disks' first access (a seek and
half a turn). The process runs on one core, so a stream is also limited by the core's clock over
``io_cycles_per_byte`` (the ATLAS slides' lesson: "Single 2.8 GHz is likely to outperform Dual 2.0
GHz"). Calibrated on ``atlas_disk`` and ``atlas_hosts``.
"""
from __future__ import annotations

import simpy

from ..catalog import Catalog
from ..errors import NotModelled
from ..result import Result
from ..scenario import Scenario, StorageBody
from ..sim.flows import FlowNetwork, FlowResource
from . import disk as disk_model
from . import topology


def _stream_usage(path: topology.StoragePath, body: StorageBody, core: FlowResource,
                  host_cpu: FlowResource, cycles_per_byte: float) -> dict[FlowResource, float]:
    w = body.workload
    volumes = [w.target] + ([w.source] if w.op == "copy" else [])
    usage: dict[FlowResource, float] = {}
    for vname in volumes:
        for res, share in path.usage_per_byte[vname].items():
            usage[res] = usage.get(res, 0.0) + share
    usage[core] = cycles_per_byte * len(volumes)
    usage[host_cpu] = usage[core]
    return usage


def bottleneck_bound_MBps(usages: list[dict[FlowResource, float]]) -> float:
    """The bottleneck law for identical streams sharing the aggregate equally: X <= min_j C_j / D_j.

    D_j, resource j's demand per byte of the aggregate, is the streams' usage summed over streams
    and divided by their number (a core used by one of k streams bounds the aggregate at k times
    its own rate).
    """
    demand: dict[FlowResource, float] = {}
    for usage in usages:
        for res, per_byte in usage.items():
            demand[res] = demand.get(res, 0.0) + per_byte / len(usages)
    return min(res.capacity / d for res, d in demand.items()) / 1e6


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    body: StorageBody = scenario.body
    w = body.workload
    if w.io != "buffered":
        raise NotModelled(f"{w.io} I/O arrives with the storage issue")
    bytes_per_stream = w.total_MB * 1e6
    env = simpy.Environment()
    net = FlowNetwork(env)
    path = topology.build(net, body, catalog, params, scenario.path, bytes_per_stream)
    clock_Hz = path.host.clock_GHz * 1e9
    host_cpu = net.resource("cpu host", path.host.cores * clock_Hz, unit="cycle")
    if w.streams > path.host.cores:
        raise NotModelled(f"{w.streams} streams on {path.host.cores} cores: time-sharing a core "
                          "arrives with the storage issue")
    cores = [net.resource(f"core {i}", clock_Hz, unit="cycle") for i in range(w.streams)]
    usages = [_stream_usage(path, body, core, host_cpu, params["io_cycles_per_byte"]) for core in cores]
    latency_s = max(disk_model.first_access_s(part) for members in path.disks.values() for _, part in members)

    def stream(usage):
        yield env.timeout(latency_s)
        flow = net.transfer(bytes_per_stream, usage, name="stream")
        yield flow.done

    for usage in usages:
        env.process(stream(usage))
    env.run()
    elapsed = env.now
    cpu_sys_s = host_cpu.carried / clock_Hz
    return Result(scenario=scenario.name, bytes_moved=bytes_per_stream * w.streams, elapsed_s=elapsed,
                  utilization=net.utilization(elapsed), bound_MBps=bottleneck_bound_MBps(usages),
                  cpu_sys_s=cpu_sys_s)
