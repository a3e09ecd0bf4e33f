"""The storage path of a host as flow resources: disks, device channels, controllers, bus segments, CPU.

Each byte a stream moves to or from a volume lands on the volume's member disks in the shares its
layout gives (RAID0 and LVM striping spread it evenly; a single disk takes all of it), crosses the
device channel and the controller each disk hangs off, the bus segment the controller sits on, and
costs the streaming process's core ``io_cycles_per_byte`` cycles. Channels and buses run at their
datasheet peak times ``bus_efficiency``. Calibrated on ``atlas_disk`` and ``atlas_hosts``
(``001_4cf980d67b39ffac.txt`` slides 8, 9, 26).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..catalog import Catalog, Controller, Disk, Host
from ..errors import NotModelled, UserError
from ..scenario import StorageBody, Volume
from ..sim.flows import FlowNetwork, FlowResource
from . import disk as disk_model

STRIPED = ("single", "raid0", "lvm_striped")


@dataclass
class StoragePath:
    """The resources of one host's storage and the usage of a byte streamed to a volume."""

    network: FlowNetwork
    host: Host
    disks: dict[str, list[tuple[str, Disk]]]  # volume -> [(resource name, part)]
    usage_per_byte: dict[str, dict[FlowResource, float]]  # volume -> resource -> units per byte


def _shares(volume: Volume, vname: str) -> list[float]:
    n = volume.disks.count
    if volume.engine == "controller":
        raise NotModelled(f"volume {vname}: hardware RAID controllers arrive with the storage issue")
    if volume.filesystem.type == "ext3":
        raise NotModelled(f"volume {vname}: the ext3 journal arrives with the storage issue")
    if volume.level not in STRIPED:
        raise NotModelled(f"volume {vname}: {volume.level} arrives with the storage issue; "
                          f"this model streams over a single disk, md RAID0 or striped LVM")
    if volume.level == "single" and n != 1:
        raise NotModelled(f"volume {vname}: level single with {n} disks")
    return [1.0 / n] * n


def build(net: FlowNetwork, body: StorageBody, catalog: Catalog, params: dict[str, float],
          where: str, bytes_per_stream: float) -> StoragePath:
    """Declare the resources the workload's volumes use and each volume's usage per byte."""
    host: Host = catalog.get("hosts", body.host, where, "host")
    efficiency = params["bus_efficiency"]
    declared: dict[str, FlowResource] = {}

    def segment(name: str) -> FlowResource:
        if f"bus {name}" not in declared:
            bus = catalog.get("buses", body.buses[name].part, where, f"buses.{name}.part")
            declared[f"bus {name}"] = net.resource(f"bus {name}", bus.peak_MBps * 1e6 * efficiency)
        return declared[f"bus {name}"]

    def controller(name: str) -> tuple[Controller, FlowResource]:
        slot = body.controllers[name]
        ctrl: Controller = catalog.get("controllers", slot.part, where, f"controllers.{name}.part")
        if slot.transfer == "pio":
            raise NotModelled(f"controller {name}: programmed I/O (DMA off) arrives with the storage issue")
        if f"controller {name}" not in declared:
            own = catalog.get("buses", ctrl.host_bus, where, f"controllers.{name}.part")
            slot_bus = catalog.get("buses", body.buses[slot.bus].part, where, f"buses.{slot.bus}.part")
            rate = min(own.peak_MBps, slot_bus.peak_MBps) * 1e6 * efficiency
            if ctrl.max_throughput_MBps is not None:
                rate = min(rate, ctrl.max_throughput_MBps * 1e6)
            declared[f"controller {name}"] = net.resource(f"controller {name}", rate)
        return ctrl, declared[f"controller {name}"]

    def channel(point: str, ctrl: Controller, cname: str) -> FlowResource:
        if f"channel {point}" not in declared:
            ch_bus = catalog.get("buses", ctrl.channel_bus, where, f"controllers.{cname}.part")
            declared[f"channel {point}"] = net.resource(f"channel {point}", ch_bus.peak_MBps * 1e6 * efficiency)
        return declared[f"channel {point}"]

    disks: dict[str, list[tuple[str, Disk]]] = {}
    usage: dict[str, dict[FlowResource, float]] = {}
    used = [body.workload.target] + ([body.workload.source] if body.workload.op == "copy" else [])
    for vname in used:
        volume = body.volumes[vname]
        part: Disk = catalog.get("disks", volume.disks.part, where, f"volumes.{vname}.disks.part")
        shares = _shares(volume, vname)
        span = body.workload.streams * bytes_per_stream * shares[0] / (part.capacity_GB * 1e9)
        rate_Bps = disk_model.mean_rate_MBps(part, params["disk_format_efficiency"], 0.0, span) * 1e6
        use: dict[FlowResource, float] = {}
        disks[vname] = []
        for i, share in enumerate(shares):
            point = volume.disks.attach[i]
            cname, _, number = point.partition(".")
            ctrl, ctrl_res = controller(cname)
            if int(number) >= ctrl.channels:
                raise UserError(where, f"volumes.{vname}.disks.attach[{i}]",
                                f"{ctrl.name} has channels 0 to {ctrl.channels - 1}, got {point!r}")
            dres = net.resource(f"disk {vname}.{i}", rate_Bps)
            disks[vname].append((dres.name, part))
            for res in (dres, channel(point, ctrl, cname), ctrl_res, segment(body.controllers[cname].bus)):
                use[res] = use.get(res, 0.0) + share
        usage[vname] = use
    return StoragePath(net, host, disks, usage)
