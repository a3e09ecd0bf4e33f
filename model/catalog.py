"""The hardware catalog: every part the reports name, with datasheet parameters and their sources.

One YAML file per category in ``data/hardware/``; each part is a mapping of parameters whose names
carry their units, plus ``sources`` (the public source of every numeric value). The same WD 7200
rpm drive is one entry used by every scenario that contains it. Beside the reports' parts, the
catalog holds current parts for proposed hardware: solid-state drives (``ssds``), SAS expanders
(``expanders``), drive enclosures (``enclosures``) and server processors (``cpus``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
import tempfile
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml

from . import paths, unknowns, yamlio
from .errors import UserError
from .schema import Bound, NonNegativeFloat, PositiveFloat, PositiveInt, build_dataclass

Encoding = Literal["8b10b", "128b130b", "64b66b"]
ENCODING_EFFICIENCY = {"8b10b": 0.8, "128b130b": 128 / 130, "64b66b": 64 / 66}


@dataclass(frozen=True, kw_only=True)
class Part:
    name: str
    reports: tuple[str, ...] = ()
    sources: dict[str, str]
    note: str = ""
    # facts its documentation leaves open (``model.unknowns``): scenario keys relative to the
    # mapping that names the part, each with options or a range and a source
    unknowns: dict[str, Any] = field(default_factory=dict)
    declared_in: str = field(default="", init=False, compare=False)  # the file that holds it

    def check(self, where: str, key: str) -> None:
        object.__setattr__(self, "declared_in", where)
        if self.unknowns:
            unknowns.parse(self.unknowns, where, f"{key}.unknowns")
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


# A drive's capacity, bounded where a byte count still fits the model's integer arithmetic: a
# petabyte, ten times the largest drives sold (about 100 TB)
DriveCapacity = Annotated[
    float, Bound(0.0, 1e6, low_open=True, words="a capacity up to 1,000,000 GB")
]

# One 4 KiB random write at queue depth 1 as the host waits for it, in microseconds: required of
# every flash drive, since nothing else in its datasheet gives it (the flash time a rated-IOPS unit
# spends on a write is three to thirty times the acknowledgement from the cache: 57 against 16.7 us
# on the 970 EVO Plus, 360 against 15 on the PM9A3, 880 against 27.8 on the PM1643)
WriteLatency = Annotated[
    float,
    Bound(
        0.0,
        low_open=True,
        words="a positive number of microseconds, one 4 KiB random write at queue depth 1 as "
        "the host waits for it (the sheet's typical write latency, or 1e6 / its QD1 "
        "random-write IOPS; with an 'estimated: ...' source where no sheet gives it)",
    ),
]


@dataclass(frozen=True, kw_only=True)
class Disk(Part):
    capacity_GB: DriveCapacity
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
    command_overhead_ms: NonNegativeFloat = 0.0  # the drive's own time per random command

    def check(self, where: str, key: str) -> None:
        super().check(where, key)
        if self.interface in ("sas", "scsi") and self.queue_depth == 1:  # the default: not given
            raise UserError(
                where,
                f"{key}.queue_depth",
                f"a {self.interface.upper()} drive queues tagged commands: give the commands it "
                "holds (its product manual's queue depth, 2 or more), with its source",
            )
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
    protocol: Literal["pcie", "sas", "sata"] | None = None  # a serial link's frames (framing.py)
    # a multidrop bus (PCI, PCI-X): the cards on a segment share its wires, so the segment runs at
    # its slowest card's clock and each card moves its own width a data phase (topology.build)
    multidrop: bool = False
    # a drive-channel mode in which the CPU moves every word (ATA's PIO modes), not DMA
    programmed_io: bool = False

    _NEEDS = {
        "parallel": ("width_bits", "clock_MHz", "transfers_per_clock"),
        "serial": ("lanes", "lane_rate_Gbps", "encoding", "protocol"),
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
    # its processor, a part of data/hardware/cpus.yaml: the figures the host leaves out come from
    # it (``with_cpu``), each with the CPU entry's source
    cpu: str | None = None

    @property
    def cores(self) -> int:
        return self.cpus * self.cores_per_cpu


@dataclass(frozen=True, kw_only=True)
class Link(Part):
    capacity_Gbps: PositiveFloat
    distance_km: PositiveFloat | None = None
    mtu_B: PositiveInt | None = None


@dataclass(frozen=True, kw_only=True)
class Ssd(Part):
    """A solid-state drive as its datasheet (or a cited review) rates it.

    An NVMe drive sits on PCIe lanes directly (``host_bus`` a PCIe bus, no controller); a SATA or
    SAS drive's ``host_bus`` is its own link. IOPS are 4 KiB random at ``iops_queue_depth``
    commands outstanding; ``read_latency_us`` is one 4 KiB random read at queue depth 1, so one
    stream at depth 1 reaches only 1e6 / read_latency_us IOPS. Writes run at ``seq_write_MBps``
    until ``write_cache_GB`` (SLC or DRAM write cache) is full, then at ``post_cache_write_MBps``.
    ``write_latency_us`` (required) is one 4 KiB random write at queue depth 1 as the host sees it:
    acknowledged once it is in the drive's DRAM or SLC cache, before the flash is programmed (the
    sheet's typical write latency, or 1e6 / its QD1 random-write IOPS). No other figure gives it:
    the flash time of one unit (its parallelism over the rated write IOPS) is what a write keeps the
    flash busy, not what the host waits, so a part without it is refused rather than guessed.
    """

    interface: Literal["sata", "sas", "nvme"]
    host_bus: str
    capacity_GB: DriveCapacity
    seq_read_MBps: PositiveFloat
    seq_write_MBps: PositiveFloat
    random_read_iops: PositiveFloat
    random_write_iops: PositiveFloat
    iops_queue_depth: PositiveInt
    read_latency_us: PositiveFloat
    write_latency_us: WriteLatency  # QD1 4 KiB write, acknowledged from the cache
    write_cache_GB: NonNegativeFloat
    post_cache_write_MBps: PositiveFloat | None = None
    channels: PositiveInt | None = None  # flash channels of the controller, where published

    def check(self, where: str, key: str) -> None:
        super().check(where, key)
        if self.write_cache_GB > 0 and self.post_cache_write_MBps is None:
            raise UserError(
                where, key, "a drive with write_cache_GB > 0 needs post_cache_write_MBps"
            )
        if self.write_cache_GB == 0 and self.post_cache_write_MBps is not None:
            raise UserError(
                where,
                f"{key}.post_cache_write_MBps",
                "only a drive with write_cache_GB > 0 has a post-cache rate",
            )
        if self.post_cache_write_MBps is not None and (
            self.post_cache_write_MBps > self.seq_write_MBps
        ):
            raise UserError(
                where,
                f"{key}.post_cache_write_MBps",
                f"must not exceed seq_write_MBps ({self.seq_write_MBps:g} MB/s)",
            )

    @property
    def sustained_write_MBps(self) -> float:
        """The write rate once the write cache is full, in MB/s."""
        return self.post_cache_write_MBps or self.seq_write_MBps

    @property
    def qd1_read_iops(self) -> float:
        """4 KiB random reads per second one stream at queue depth 1 reaches."""
        return 1e6 / self.read_latency_us


@dataclass(frozen=True, kw_only=True)
class Expander(Part):
    """A SAS expander: ``phys`` lanes of ``lane_bus``, ``uplink_ports`` wide ports of
    ``lanes_per_uplink`` lanes toward the host; the other phys fan out to drives."""

    chip: str
    phys: PositiveInt
    lane_bus: str
    uplink_ports: PositiveInt
    lanes_per_uplink: PositiveInt

    def check(self, where: str, key: str) -> None:
        super().check(where, key)
        if self.uplink_lanes >= self.phys:
            raise UserError(
                where,
                f"{key}.uplink_ports",
                f"{self.uplink_ports} x {self.lanes_per_uplink} uplink lanes leave none of "
                f"the {self.phys} phys for drives",
            )

    @property
    def uplink_lanes(self) -> int:
        return self.uplink_ports * self.lanes_per_uplink

    @property
    def drive_phys(self) -> int:
        """Phys left for drives (or further expanders) once the uplinks are wired."""
        return self.phys - self.uplink_lanes


@dataclass(frozen=True, kw_only=True)
class Enclosure(Part):
    """A JBOD: ``bays`` drives behind ``io_modules`` expander modules. Each module has
    ``host_ports`` wide ports of ``lanes_per_host_port`` lanes (``host_lane_bus``): that lane group
    is the uplink every drive behind the module shares. A cascaded module joins its primary
    expander to each of ``secondary_expanders`` by ``secondary_link_lanes`` lanes."""

    bays: PositiveInt
    io_modules: PositiveInt
    host_ports: PositiveInt
    lanes_per_host_port: PositiveInt
    host_lane_bus: str
    drive_lane_bus: str
    primary_expander_phys: PositiveInt | None = None
    secondary_expanders: PositiveInt | None = None
    secondary_link_lanes: PositiveInt | None = None

    def check(self, where: str, key: str) -> None:
        super().check(where, key)
        if (self.secondary_expanders is None) != (self.secondary_link_lanes is None):
            raise UserError(where, key, "secondary_expanders and secondary_link_lanes go together")

    @property
    def host_lanes(self) -> int:
        """Host-side lanes of one module."""
        return self.host_ports * self.lanes_per_host_port

    @property
    def internal_lanes(self) -> int | None:
        """Lanes from a module's primary expander to all its secondaries (None: one stage)."""
        if self.secondary_expanders is None:
            return None
        return self.secondary_expanders * self.secondary_link_lanes


@dataclass(frozen=True, kw_only=True)
class Cpu(Part):
    """A server processor (one socket). Peak memory bandwidth follows from the channels:
    channels x MT/s x 8 bytes. ``copy_rate_MBps`` is one core's sustained memory-to-memory copy
    (bytes copied per second); the host's per-byte cost of a copy is its inverse."""

    cores: PositiveInt
    threads_per_core: PositiveInt = 1
    base_clock_GHz: PositiveFloat
    boost_clock_GHz: PositiveFloat
    memory_channels: PositiveInt
    memory_type: Literal["DDR4", "DDR5"]
    memory_MTps: PositiveFloat
    pcie_lanes: PositiveInt | None = None
    copy_rate_MBps: PositiveFloat

    def check(self, where: str, key: str) -> None:
        super().check(where, key)
        if self.boost_clock_GHz < self.base_clock_GHz:
            raise UserError(where, f"{key}.boost_clock_GHz", "must not be below base_clock_GHz")
        if 2 * self.copy_rate_MBps > self.peak_memory_MBps:
            raise UserError(
                where,
                f"{key}.copy_rate_MBps",
                "a copy reads and writes each byte, so it cannot exceed half of "
                f"the peak memory bandwidth ({self.peak_memory_MBps:g} MB/s)",
            )

    @property
    def peak_memory_MBps(self) -> float:
        """channels x MT/s x 8 bytes (a 64-bit channel), in MB/s."""
        return self.memory_channels * self.memory_MTps * 8

    @property
    def copy_ns_per_B(self) -> float:
        """Nanoseconds one core spends per byte it copies."""
        return 1e3 / self.copy_rate_MBps

    @property
    def memory_ns_per_B(self) -> float:
        """Nanoseconds per byte moved when the whole socket saturates its memory channels."""
        return 1e3 / self.peak_memory_MBps


CATEGORIES: dict[str, type[Part]] = {
    "disks": Disk,
    "buses": Bus,
    "controllers": Controller,
    "nics": Nic,
    "hosts": Host,
    "links": Link,
    "ssds": Ssd,
    "expanders": Expander,
    "enclosures": Enclosure,
    "cpus": Cpu,
}

# The bus each new part's links must run on: an NVMe drive on PCIe 3.0 or later (128b/130b), a SATA
# or SAS drive and an expander's or enclosure's lanes on an 8b/10b serial link.
_SINGULAR = {"buses": "bus"}  # the category name without its plural s
_SERIAL_ENCODING = {"nvme": "128b130b", "sata": "8b10b", "sas": "8b10b"}


@dataclass(frozen=True)
class Catalog:
    parts: dict[str, dict[str, Part]]

    @functools.cached_property
    def users_parts(self) -> tuple[tuple[str, str, str], ...]:
        """The parts the user added to the project's catalog, as (category, id, repr): what sets
        two catalogs apart (empty for the project's own)."""
        base = load().parts
        return tuple(
            (category, pid, repr(part))
            for category, table in sorted(self.parts.items())
            for pid, part in sorted(table.items())
            if base.get(category, {}).get(pid) is not part
        )

    def with_parts_of(self, other: Catalog | None, where: str) -> Catalog:
        """This catalog with the parts ``other`` adds to the project's (those of a scenario this
        one names, ``where``); an id both give different parts is refused, so that each file's
        ids keep their meaning."""
        if other is None or not other.users_parts:
            return self
        parts = {c: dict(table) for c, table in self.parts.items()}
        for category, pid, _ in other.users_parts:
            part = other.parts[category][pid]
            if parts[category].get(pid, part) != part:
                raise UserError(
                    where,
                    f"{category}.{pid}",
                    "is defined here and, differently, by the scenario that names this one; "
                    "give one of them another id",
                )
            parts[category][pid] = part
        return Catalog(parts)

    def get(self, category: str, part_id: str, where: str, key: str) -> Part:
        """The part ``part_id`` of ``category``; a missing one is the user's mistake at ``key``."""
        return self.get_one_of((category,), part_id, where, key)

    def get_one_of(self, categories: tuple[str, ...], part_id: str, where: str, key: str) -> Part:
        """The part ``part_id`` of the first of ``categories`` that has it (a drive is a disk or an
        ssd); a part none has is the user's mistake at ``key``."""
        for category in categories:
            if part_id in self.parts[category]:
                return self.parts[category][part_id]
        kinds = " or ".join(_SINGULAR.get(c, c[:-1]) for c in categories)
        files = ", ".join(f"data/hardware/{c}.yaml" for c in categories)
        known = [p for c in categories for p in sorted(self.parts[c])]
        raise UserError(
            where,
            key,
            f"unknown {kinds} {part_id!r}; the catalog ({files}) has: {', '.join(known)}",
        )


def _load_category(
    category: str, cls: type[Part], cpus: dict[str, Part] | None = None
) -> dict[str, Part]:
    path = paths.HARDWARE / f"{category}.yaml"
    where = paths.shown(path)
    if not path.exists():
        return {}
    data = yamlio.safe_load(yamlio.read_text(path, where), where) or {}
    if not isinstance(data, dict):
        raise UserError(where, None, "must be a mapping from part id to its parameters")
    if category == "hosts":
        data = {pid: with_cpu(spec, cpus or {}, where, str(pid)) for pid, spec in data.items()}
    return {str(pid): build_dataclass(cls, spec, where, str(pid)) for pid, spec in data.items()}


# the host figures its processor (``Host.cpu``) gives
CPU_KEYS = (
    "cores_per_cpu",
    "threads_per_core",
    "clock_GHz",
    "copy_rate_MBps",
    "memory_type",
    "memory_bandwidth_MBps",
)


def with_cpu(spec: object, cpus: dict[str, Part], where: str, at: str) -> object:
    """A host's parameters with what its ``cpu`` (a part of data/hardware/cpus.yaml) gives and the
    host leaves out: cores a CPU, threads a core, clock (the base clock), one core's copy rate,
    memory type, and the memory bandwidth of its sockets; each with the CPU entry's source."""
    if not isinstance(spec, dict) or spec.get("cpu") is None:
        return spec
    name = spec["cpu"]
    if not isinstance(name, str) or name not in cpus:
        raise UserError(
            where, f"{at}.cpu", f"names no cpu; allowed: {', '.join(sorted(cpus)) or 'none'}"
        )
    cpu: Cpu = cpus[name]
    entry = f"data/hardware/cpus.yaml {name}"

    def source(key: str) -> str:  # the CPU entry's own, then where it comes from
        return f"{cpu.sources.get(key, '')} ({entry})"

    given = {
        "cores_per_cpu": (cpu.cores, source("cores")),
        "threads_per_core": (cpu.threads_per_core, source("threads_per_core")),
        "clock_GHz": (cpu.base_clock_GHz, source("base_clock_GHz")),
        "copy_rate_MBps": (cpu.copy_rate_MBps, source("copy_rate_MBps")),
        "memory_type": (f"{cpu.memory_type}-{cpu.memory_MTps:g}", ""),
    }
    if isinstance(spec.get("cpus"), int):
        given["memory_bandwidth_MBps"] = (
            spec["cpus"] * cpu.peak_memory_MBps,
            f"{spec['cpus']} socket(s) x {cpu.memory_channels} channels x "
            f"{cpu.memory_MTps:g} MT/s x 8 B; " + source("memory_channels"),
        )
    out = dict(spec)
    sources = dict(out.get("sources") or {})
    for key, (value, source) in given.items():
        if key not in out:
            out[key] = value
            if source:
                sources.setdefault(key, source)
    out["sources"] = sources
    return out


def _check_lane_encoding(part: Part, key: str, bus: Bus, where: str, pid: str) -> None:
    """An NVMe drive's bus is PCIe 3.0+; SATA/SAS drives and SAS lanes are 8b/10b serial links."""
    if isinstance(part, Ssd):
        wanted = _SERIAL_ENCODING[part.interface]
    elif isinstance(part, (Expander, Enclosure)):
        wanted = "8b10b"
    else:
        return
    if bus.kind != "serial" or bus.encoding != wanted:
        what = "PCI Express 3.0 or later" if wanted == "128b130b" else "an 8b/10b serial link"
        raise UserError(where, f"{pid}.{key}", f"must name {what}, got {bus.name!r}")


def nic_rate_Bps(catalog: Catalog, nic: Nic) -> float:
    """What a NIC moves each way, bytes per second: its line rate, or the peak of the host bus it
    sits on (``host_bus``) where that is less (a 100 GbE card in a PCIe 3.0 x8 slot)."""
    bus = catalog.get("buses", nic.host_bus, "data/hardware/nics.yaml", f"{nic.name}: host_bus")
    return min(nic.rate_Gbps * 1e9 / 8.0, bus.peak_MBps * 1e6)


def _check_references(
    catalog: Catalog, table: dict[str, Part], category: str, where: str, prefix: str = ""
) -> None:
    """Every bus, controller and NIC a part names is in ``catalog``; a key is named as the file
    names it (``prefix``: a scenario's ``parts.CATEGORY.``)."""
    for pid, part in table.items():
        pid = f"{prefix}{pid}"
        for key in ("host_bus", "channel_bus", "lane_bus", "host_lane_bus", "drive_lane_bus"):
            if hasattr(part, key):
                bus = catalog.get("buses", getattr(part, key), where, f"{pid}.{key}")
                _check_lane_encoding(part, key, bus, where, pid)
        if isinstance(part, Host):
            for i, slot in enumerate(part.buses):
                catalog.get("buses", slot.bus, where, f"{pid}.buses[{i}].bus")
            for i, c in enumerate(part.controllers):
                catalog.get("controllers", c, where, f"{pid}.controllers[{i}]")
            for i, n in enumerate(part.nics):
                catalog.get("nics", n, where, f"{pid}.nics[{i}]")


@functools.cache
def load() -> Catalog:
    """The whole catalog, loaded once per process; cross references checked.

    A process whose catalog files, and the code that reads and checks them, are those an earlier
    process loaded takes that one's result back from a file (``_cache_file``) instead of parsing and
    checking the same bytes again: a papermill sweep starts a kernel for each point, and the files
    took 30 ms of each. Any change to a file or to that code names another file, built afresh."""
    cache = _cache_file()
    try:
        with open(cache, "rb") as f:
            found = pickle.load(f)
        if isinstance(found, Catalog):
            return found
    except Exception:  # none yet, cut short, or unreadable: built and checked again
        pass
    catalog = _load_and_check()
    _keep(cache, catalog)
    return catalog


# The modules that read and check the catalog's files: a change to one invalidates a kept catalog.
_LOADED_BY = ("catalog.py", "schema.py", "unknowns.py", "yamlio.py", "errors.py", "paths.py")
_KEPT_IN = Path(__file__).parent / "__pycache__"  # beside the package's bytecode


def _cache_file() -> Path:
    """Where a catalog loaded from the current files by the current code is kept: in ``_KEPT_IN``,
    named by a hash of Python's and PyYAML's versions, the project's and the
    catalog's folders (messages name the files relative to the project), each category's file and
    the modules of ``_LOADED_BY``."""
    package = Path(__file__).parent
    folders = f"{paths.PROJECT_ROOT}\0{paths.HARDWARE.resolve()}"
    digest = hashlib.sha256(f"{sys.version}\0{yaml.__version__}\0{folders}".encode())
    for category in CATEGORIES:
        file = paths.HARDWARE / f"{category}.yaml"
        digest.update(f"\0{category}\0".encode() + (file.read_bytes() if file.exists() else b""))
    for name in _LOADED_BY:
        digest.update(f"\0{name}\0".encode() + (package / name).read_bytes())
    return _KEPT_IN / f"catalog-{digest.hexdigest()[:16]}.pickle"


def _keep(file: Path, catalog: Catalog) -> None:
    """Write ``catalog`` to ``file`` whole or not at all (written beside, then renamed), removing
    the catalogs other files or code left; where the folder cannot be written nothing is kept."""
    partial = None
    try:
        file.parent.mkdir(exist_ok=True)
        for old in file.parent.glob("catalog-*.pickle"):
            old.unlink(missing_ok=True)
        with tempfile.NamedTemporaryFile(dir=file.parent, prefix=".catalog-", delete=False) as f:
            partial = Path(f.name)
            pickle.dump(catalog, f, pickle.HIGHEST_PROTOCOL)
        partial.chmod(0o644)  # as a .pyc beside it: another user of the checkout reads it too
        os.replace(partial, file)
    except OSError:
        if partial is not None:
            partial.unlink(missing_ok=True)


def _load_and_check() -> Catalog:
    cpus = _load_category("cpus", Cpu)  # a host may name its processor
    parts = {
        category: cpus if category == "cpus" else _load_category(category, cls, cpus)
        for category, cls in CATEGORIES.items()
    }
    catalog = Catalog(parts)
    for category, table in parts.items():
        _check_references(
            catalog, table, category, paths.shown(paths.HARDWARE / f"{category}.yaml")
        )
    return catalog


def _raw(part: Part) -> dict:
    """A part's fields as a parts file gives them (for ``like:``): those left at their defaults
    are left out, as the file left them (an empty ``processor`` is no string a file may give)."""
    return {
        f.name: _plain(getattr(part, f.name))
        for f in fields(part)
        if f.init and not _at_default(f, getattr(part, f.name))
    }


def _plain(value: object) -> object:
    """``value`` as a parts file writes it: a list for a tuple, a mapping for a nested record (a
    host's bus slots)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    return value


def _at_default(f, value: object) -> bool:
    if f.default is not MISSING:
        return value == f.default
    return f.default_factory is not MISSING and value == f.default_factory()


def with_parts(base: Catalog, data: object, where: str, key: str = "parts") -> Catalog:
    """``base`` and the user's own parts: ``data`` maps a category to part ids to their parameters,
    as the catalog's files do. A part may extend one of the catalog's with ``like: ID`` and change
    a few values, each changed number with a source of its own; a new part needs a source for every
    number ("measured by us on DATE" or "estimated: why" are sources). A part id the catalog (or
    another user part) already has is refused."""
    if not isinstance(data, dict):
        raise UserError(where, key, "must be a mapping from category to part ids to parameters")
    parts = {category: dict(table) for category, table in base.parts.items()}
    added: dict[str, dict[str, Part]] = {}
    for category, table in data.items():
        section = f"{key}.{category}" if key else str(category)
        if category not in CATEGORIES:
            raise UserError(where, section, f"unknown category; allowed: {', '.join(CATEGORIES)}")
        if not isinstance(table, dict):
            raise UserError(where, section, "must be a mapping from part id to parameters")
        for pid, spec in table.items():
            at = f"{section}.{pid}"
            if not isinstance(pid, str) or not pid:
                raise UserError(where, at, "a part's id must be a word (quote it in YAML)")
            if not isinstance(spec, dict):
                raise UserError(where, at, "must be a mapping of the part's parameters")
            if str(pid) in parts[category]:
                raise UserError(
                    where,
                    at,
                    f"the catalog already has a {category[:-1]} {pid!r}; "
                    "give your part a new id, or extend it with like:",
                )
            raw = dict(spec)
            like = raw.pop("like", None)
            if like is not None:
                raw = _extended(parts, category, like, raw, where, at)
            if category == "hosts" and spec.get("cpu") is not None:
                # the processor named here gives what this part does not (not the like: base's)
                mine = {k for k in spec if k != "sources"} | set(spec.get("sources") or {})
                raw = {k: v for k, v in raw.items() if k in mine or k not in CPU_KEYS}
                raw["sources"] = {
                    k: v for k, v in (raw.get("sources") or {}).items() if k not in CPU_KEYS
                } | dict(spec.get("sources") or {})
                raw = with_cpu(raw, parts["cpus"], where, at)
            built = build_dataclass(CATEGORIES[category], raw, where, at)
            parts[category][str(pid)] = added.setdefault(category, {})[str(pid)] = built
    catalog = Catalog(parts)
    for category, table in added.items():
        _check_references(
            catalog, table, category, where, f"{key}.{category}." if key else f"{category}."
        )
    return catalog


def _extended(parts: dict, category: str, like: object, raw: dict, where: str, at: str) -> dict:
    """The parameters of the part ``like`` names, changed by ``raw``; every number ``raw`` changes
    needs its own source."""
    if not isinstance(like, str) or like not in parts[category]:
        raise UserError(
            where,
            f"{at}.like",
            f"names no {category[:-1]}; allowed: {', '.join(sorted(parts[category]))}",
        )
    sources = raw.get("sources") or {}
    if not isinstance(sources, dict):
        raise UserError(where, f"{at}.sources", "must be a mapping from key to its source")
    changed = [
        k
        for k, v in raw.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in sources
    ]
    if changed:
        raise UserError(
            where,
            f"{at}.sources",
            f"no source for {', '.join(changed)}, changed from "
            f"{like}; every number you change needs one",
        )
    merged = _raw(parts[category][like])
    merged.update({k: v for k, v in raw.items() if k != "sources"})
    merged["sources"] = {**merged["sources"], **sources}
    merged["reports"] = raw.get("reports", [])  # the reports name the catalog's part, not yours
    return merged
