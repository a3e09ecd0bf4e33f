"""The hardware catalog: every part the reports name, with datasheet parameters and their sources.

One YAML file per category in ``data/hardware/``; each part is a mapping of parameters whose names
carry their units, plus ``sources`` (the public source of every numeric value). The same WD 7200
rpm drive is one entry used by every scenario that contains it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Literal

from . import paths, yamlio
from .errors import UserError
from .schema import PositiveFloat, PositiveInt, build_dataclass

Encoding = Literal["8b10b", "128b130b", "64b66b"]
ENCODING_EFFICIENCY = {"8b10b": 0.8, "128b130b": 128 / 130, "64b66b": 64 / 66}


@dataclass(frozen=True, kw_only=True)
class Part:
    name: str
    reports: tuple[str, ...] = ()
    sources: dict[str, str]
    note: str = ""

    def check(self, where: str, key: str) -> None:
        numeric = [
            f.name
            for f in fields(self)
            if isinstance(getattr(self, f.name), (int, float))
            and not isinstance(getattr(self, f.name), bool)
            and getattr(self, f.name) != f.default
        ]  # a value left at its default needs no source
        missing = [n for n in numeric if n not in self.sources]
        if missing:
            raise UserError(
                where,
                f"{key}.sources",
                f"no source for {', '.join(missing)}; every numeric value needs one",
            )


@dataclass(frozen=True, kw_only=True)
class Disk(Part):
    capacity_GB: PositiveFloat
    rpm: PositiveFloat
    avg_seek_read_ms: PositiveFloat
    avg_seek_write_ms: PositiveFloat | None = None
    track_to_track_ms: PositiveFloat
    full_stroke_ms: PositiveFloat
    cache_MB: PositiveFloat
    media_rate_outer_MBps: PositiveFloat | None = None
    media_rate_inner_MBps: PositiveFloat | None = None
    internal_rate_max_Mbps: PositiveFloat | None = None
    interface_rate_MBps: PositiveFloat
    interface: Literal["ide", "sata", "scsi", "sas"]
    queue_depth: PositiveInt = 1  # commands the drive can hold and reorder (NCQ, tagged queuing)

    def check(self, where: str, key: str) -> None:
        super().check(where, key)
        pair = (self.media_rate_outer_MBps is None) == (self.media_rate_inner_MBps is None)
        if not pair or (self.media_rate_outer_MBps is None and self.internal_rate_max_Mbps is None):
            raise UserError(
                where,
                key,
                "needs media_rate_outer_MBps with media_rate_inner_MBps, or internal_rate_max_Mbps",
            )


@dataclass(frozen=True, kw_only=True)
class Bus(Part):
    kind: Literal["parallel", "serial", "channel"]
    width_bits: PositiveInt | None = None
    clock_MHz: PositiveFloat | None = None
    transfers_per_clock: PositiveInt | None = None
    lanes: PositiveInt | None = None
    lane_rate_Gbps: PositiveFloat | None = None
    encoding: Encoding | None = None
    burst_rate_MBps: PositiveFloat | None = None
    devices_per_channel: PositiveInt | None = None

    _NEEDS = {
        "parallel": ("width_bits", "clock_MHz", "transfers_per_clock"),
        "serial": ("lanes", "lane_rate_Gbps", "encoding"),
        "channel": ("burst_rate_MBps",),
    }

    def check(self, where: str, key: str) -> None:
        super().check(where, key)
        missing = [n for n in self._NEEDS[self.kind] if getattr(self, n) is None]
        if missing:
            raise UserError(where, key, f"a {self.kind} bus needs {', '.join(missing)}")

    @property
    def peak_MBps(self) -> float:
        """The rate the bus's signalling allows, in MB/s (10^6 bytes per second)."""
        if self.kind == "parallel":
            return self.width_bits / 8 * self.clock_MHz * self.transfers_per_clock
        if self.kind == "serial":
            return self.lanes * self.lane_rate_Gbps * 1e3 / 8 * ENCODING_EFFICIENCY[self.encoding]
        return self.burst_rate_MBps


@dataclass(frozen=True, kw_only=True)
class Controller(Part):
    type: Literal["hba", "raid"]
    host_bus: str
    channels: PositiveInt
    channel_bus: str
    processor: str = ""
    processor_MHz: PositiveFloat | None = None
    processors: PositiveInt = (
        1  # RAID processors (controllers of a pair); groups alternate between them
    )
    cache_MB: PositiveFloat | None = None
    max_throughput_MBps: PositiveFloat | None = None
    max_request_KiB: PositiveFloat | None = None  # the largest request its driver takes
    raid_levels: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Nic(Part):
    rate_Gbps: PositiveFloat
    host_bus: str
    offload: tuple[str, ...] = ()


@dataclass(frozen=True)
class Slot:
    bus: str
    count: PositiveInt = 1


@dataclass(frozen=True, kw_only=True)
class Host(Part):
    cpus: PositiveInt
    cores_per_cpu: PositiveInt
    threads_per_core: PositiveInt = 1
    clock_GHz: PositiveFloat
    copy_rate_MBps: PositiveFloat  # one core's sustained memory-to-memory copy rate
    memory_MB: PositiveFloat
    fsb_MHz: PositiveFloat | None = None
    arch_bits: Literal[32, 64]
    memory_type: str = ""
    memory_bandwidth_MBps: PositiveFloat | None = None
    buses: tuple[Slot, ...] = ()
    controllers: tuple[str, ...] = ()
    nics: tuple[str, ...] = ()

    @property
    def cores(self) -> int:
        return self.cpus * self.cores_per_cpu


@dataclass(frozen=True, kw_only=True)
class Link(Part):
    capacity_Gbps: PositiveFloat
    distance_km: PositiveFloat | None = None
    mtu_B: PositiveInt | None = None


CATEGORIES: dict[str, type[Part]] = {
    "disks": Disk,
    "buses": Bus,
    "controllers": Controller,
    "nics": Nic,
    "hosts": Host,
    "links": Link,
}


@dataclass(frozen=True)
class Catalog:
    parts: dict[str, dict[str, Part]]

    def get(self, category: str, part_id: str, where: str, key: str) -> Part:
        """The part ``part_id`` of ``category``; a missing one is the user's mistake at ``key``."""
        table = self.parts[category]
        if part_id not in table:
            raise UserError(
                where,
                key,
                f"unknown {category[:-1]} {part_id!r}; the catalog "
                f"(data/hardware/{category}.yaml) has: {', '.join(sorted(table))}",
            )
        return table[part_id]


def _load_category(category: str, cls: type[Part]) -> dict[str, Part]:
    path = paths.HARDWARE / f"{category}.yaml"
    where = paths.shown(path)
    if not path.exists():
        return {}
    data = yamlio.safe_load(yamlio.read_text(path, where), where) or {}
    if not isinstance(data, dict):
        raise UserError(where, None, "must be a mapping from part id to its parameters")
    return {str(pid): build_dataclass(cls, spec, where, str(pid)) for pid, spec in data.items()}


@functools.cache
def load() -> Catalog:
    """The whole catalog, loaded once per process; cross references checked."""
    parts = {category: _load_category(category, cls) for category, cls in CATEGORIES.items()}
    catalog = Catalog(parts)
    for category, table in parts.items():
        where = paths.shown(paths.HARDWARE / f"{category}.yaml")
        for pid, part in table.items():
            for key in ("host_bus", "channel_bus"):
                if hasattr(part, key):
                    catalog.get("buses", getattr(part, key), where, f"{pid}.{key}")
            if isinstance(part, Host):
                for i, slot in enumerate(part.buses):
                    catalog.get("buses", slot.bus, where, f"{pid}.buses[{i}].bus")
                for i, c in enumerate(part.controllers):
                    catalog.get("controllers", c, where, f"{pid}.controllers[{i}]")
                for i, n in enumerate(part.nics):
                    catalog.get("nics", n, where, f"{pid}.nics[{i}]")
    return catalog
