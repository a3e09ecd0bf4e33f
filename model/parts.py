"""The kinds of part the hardware catalog holds: what an entry of each ``data/hardware/*.yaml``
file describes (a disk, a bus, a host, an SSD, a CPU...), its parameters with their units in their
names, the checks one entry passes on its own, and the figures it gives (a bus's peak rate, a CPU's
memory bandwidth). ``CATEGORIES`` names the kind each file holds; ``model.catalog`` loads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Annotated, Any, Literal

from . import unknowns
from .errors import UserError
from .schema import Bound, NonNegativeFloat, PositiveFloat, PositiveInt

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
    # its slowest card's clock and each card moves its own width a data phase (storage.buses)
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
    # it (``model.catalog.with_cpu``), each with the CPU entry's source
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


# the kind of part each file of data/hardware/ holds, by the file's name (CATEGORY.yaml)
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
