"""The kinds of part the hardware catalog holds: what an entry of each ``data/hardware/*.yaml``
file describes (a disk, a bus, a host, an SSD, a CPU...), its parameters with their units in their
names, the checks one entry passes on its own, and the figures it gives (a bus's peak rate, a CPU's
memory bandwidth). ``CATEGORIES`` names the kind each file holds; ``model.catalog`` loads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Annotated, Any, Literal

from . import unknowns
from .errors import UserError
from .schema import Bound, NonNegativeFloat, NonNegativeInt, PositiveFloat, PositiveInt

Encoding = Literal["8b10b", "128b130b", "64b66b", "128b150b"]
# 128b150b: SAS-4's packet mode, four dwords in a 150-bit SPL packet of a 2-bit header, 128 bits
# of payload and 20 of forward error correction (Synopsys, 'Decoding SAS 24G: New Encoding and
# Features', 2016, https://blogs.synopsys.com/vip-central/2016/07/25/decoding-sas-24g-new-encoding-and-features/)
ENCODING_EFFICIENCY = {
    "8b10b": 0.8,
    "128b130b": 128 / 130,
    "64b66b": 64 / 66,
    "128b150b": 128 / 150,
}


def _plausible(low: float, high: float, words: str, low_open: bool = False) -> Any:
    """A part's figure between what shipped hardware spans, ``words`` saying so in a refusal: a
    figure outside it is a unit typed wrong (MB/s for kB/s, Mbit/s for Gbit/s), not a part."""
    return Annotated[float, Bound(low, high, low_open=low_open, words=words)]


# hard disks have shipped spinning from 3,600 rpm (early and low-power drives) to 15,000 (Seagate
# Cheetah 15K, 2000; none faster since)
Rpm = _plausible(
    3600, 15000, "a spindle speed from 3,600 to 15,000 rpm (as hard disks have shipped)"
)
# the fastest hard disk's sustained rate, Seagate's dual-actuator Exos 2X18 at 554 MB/s, under half
DiskMBps = _plausible(
    0.0, 1200.0, "a hard disk's rate, above 0 and at most 1,200 MB/s (the fastest: 554)", True
)
# a drive's interface: SAS-4, the fastest, carries 22.5 Gbit/s, some 2,400 MB/s
InterfaceMBps = _plausible(
    0.0, 2400.0, "an interface rate above 0 and at most 2,400 MB/s (SAS-4's)", True
)
# Ethernet's line rates: 10 Mbit/s (IEEE 802.3i) to 1.6 Tbit/s (IEEE 802.3dj)
LineGbps = _plausible(0.01, 1600.0, "an Ethernet rate from 0.01 to 1,600 Gbit/s")
# a processor's clock: no shipped one has a base clock of 6 GHz, nor a server one below 0.1
ClockGHz = _plausible(0.1, 10.0, "a clock from 0.1 to 10 GHz")
# one core's memory-to-memory copy: the fastest cores copy some tens of GB/s
CopyMBps = _plausible(0.0, 200_000.0, "a copy rate above 0 and at most 200,000 MB/s", True)
# a flash drive's sequential rate: a PCIe 6.0 x4 link carries some 30,000 MB/s
FlashMBps = _plausible(
    0.0, 60_000.0, "a drive's rate above 0 and at most 60,000 MB/s (PCIe 6.0 x4: 30,000)", True
)
# rated random IOPS: the fastest PCIe 5.0 drives are rated some 3 million
FlashIops = _plausible(0.0, 30e6, "IOPS above 0 and at most 30 million", True)
# one 4 KiB request at queue depth 1: the fastest drives (Intel Optane P5800X) answer in 5 us
FlashLatencyUs = _plausible(1.0, 1e6, "a latency from 1 to 1,000,000 us")


@dataclass(frozen=True, kw_only=True)
class Part:
    """One entry of a parts file, under its id: a catalog file (data/hardware/CATEGORY.yaml), a
    user's parts file (--catalog FILE) or a scenario's parts: block. Besides the figures of its kind
    (the subclasses' fields), every part carries its product name, where the five reports name it,
    a source for each of its numbers, an optional note and the facts its documentation leaves open;
    the loader checks that every number not left at its default has a source."""

    # the part's full product name: maker, model number and the figures that tell it apart
    # ("Seagate Exos X24 ST24000NM002H, 24 TB, 7200 rpm, 512 MB cache, SATA 6 Gb/s"), or the class
    # of part it stands for where a report names none. The models' notes and messages name the part
    # by it
    name: str
    # where the project's five reports name the part: one string each, the report's file name
    # (data/measured/sources.yaml gives its title) then its slide or section and the words it uses;
    # empty for a part no report names (a vendor's quote; a part made with like: keeps none of its
    # base's). No model reads it
    reports: tuple[str, ...] = ()
    # where each value comes from, by key: a datasheet, manual, standard or review (title, maker or
    # publisher, year, and the address of the copy read), "report: FILE PLACE", or "estimated:
    # REASONING" (a quote's or a measurement's own words, "measured by us on DATE", are sources
    # too). The loader refuses a number without one; a value left at its default needs none
    sources: dict[str, str]
    # free text for what the figures do not say: which part stands in for one a report leaves
    # unnamed and why, which choices rest on recall rather than a document read, how the part is
    # configured. No model reads it
    note: str = ""
    # facts its documentation leaves open, as a scenario's unknowns: block gives them
    # (``model.unknowns``): each a scenario key relative to the mapping that names the part (a
    # download server's drive_queue_depth is the key beside its controller: ID) with options: [...]
    # or range: [low, high] and a source:. Every scenario whose model has that key there predicts
    # over them (``model.uncertainty``); a value --set gives is known, and a scenario's own
    # declaration of the key wins
    unknowns: dict[str, Any] = field(default_factory=dict)
    declared_in: str = field(default="", init=False, compare=False)  # the file that holds it

    def check(self, where: str, key: str) -> None:
        object.__setattr__(self, "declared_in", where)
        if self.unknowns:
            unknowns.parse(self.unknowns, where, f"{key}.unknowns", joint=False)
        numeric = [
            f.name
            for f in fields(self)
            if _numeric(getattr(self, f.name)) and getattr(self, f.name) != f.default
        ]  # a value left at its default needs no source
        missing = [n for n in numeric if n not in self.sources]
        if missing:
            raise UserError(
                where,
                f"{key}.sources",
                f"no source for {', '.join(missing)}; every numeric value needs one",
            )
        known = {f.name for f in fields(self) if f.init}
        stray = [n for n in self.sources if n not in known]
        if stray:  # a misspelt key's source leaves the key it meant unsourced, or sourced by none
            raise UserError(
                where,
                f"{key}.sources.{stray[0]}",
                f"a source for a key the part does not have; its keys: {', '.join(sorted(known))}",
            )


def _numeric(value: Any) -> bool:
    """A number (not a flag), or a list of numbers (a card's cache block sizes): a value that
    needs a source."""
    if isinstance(value, tuple):
        return bool(value) and all(_numeric(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


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


# the commands a SATA drive's Native Command Queuing holds at most (Serial ATA revision 3.0)
SATA_NCQ_DEPTH = 32
# a floor under any hard disk's average seek, ms: a third of a 15,000 rpm drive's (Hitachi's
# Ultrastar 15K450 specification, 4.5.1.1: reads 3.1 to 3.3 ms typical,
# https://manualsdump.com/en/manuals/hitachi-hus154545vlf400-hus154530vlf400/112307/27), far
# above what a figure typed in seconds gives (the storage audit's 0.007 read 2.75 times the
# random IOPS)
FASTEST_AVERAGE_SEEK_MS = 1.0


@dataclass(frozen=True, kw_only=True)
class Disk(Part):
    """A hard disk drive as its datasheet or product manual rates it: capacity, spindle speed, seek
    times, buffer, media and interface rates, and the commands it queues. The storage models make of
    it each request's service time (a seek along a curve through the three seek figures, the
    rotation to the sector, the drive's own overhead, the transfer at the zone's rate:
    ``model.storage.disk``) and a stream's rate across the zones it spans, and replay a drive
    request by request with its look-ahead cache (``model.storage.spindle``). A scenario's
    volumes.NAME.disks.part (or a download server's disk) names it."""

    # user capacity, GB (10^9 B), as the datasheet gives it: a volume's size (a workload's data and
    # its random span must fit), and where on the platters each byte lies, which sets the rate of
    # the zone it is read at
    capacity_GB: DriveCapacity
    # spindle speed, revolutions per minute: a revolution (60 / rpm s) is the rotational wait of a
    # random request (half a turn on average), and the turn lost between two writes by a drive
    # that neither caches nor queues them
    rpm: Rpm
    # the datasheet's average seek for reads, ms (rotation not counted): random seeks along the
    # seek curve average it, and a first access waits it and half a turn; writes seek by it too
    # where avg_seek_write_ms is unset. At least 1 ms (FASTEST_AVERAGE_SEEK_MS)
    avg_seek_read_ms: PositiveFloat
    # the datasheet's average seek for writes, ms (a write settles longer), where it gives one: the
    # writes' seek curve, through the same end points, averages it; unset, writes seek as reads
    avg_seek_write_ms: PositiveFloat | None = None
    # a seek to the adjacent track, ms: where the seek curve starts
    track_to_track_ms: PositiveFloat
    # a seek across the whole stroke, outer to inner track, ms: where the seek curve ends (with the
    # track-to-track and average seeks it sets t1 + k sqrt(d) + m d over the distance d)
    full_stroke_ms: PositiveFloat
    # the drive's buffer (cache), MB (10^6 B, as every _MB key; a datasheet's figure entered as
    # it is): its read look-ahead holds this much of a stream read ahead
    # (``model.storage.spindle``); with its write cache on, a memory-mapped writer's blocks reach
    # the platters through as much (``model.storage.mmap``), and the random writes it destages
    # fill as much (``model.storage.requests.cached_writes``)
    cache_MB: PositiveFloat
    # sustained user-data rate at the outer zone (where the drive starts, its fastest), MB/s, the
    # datasheet's sustained transfer rate: given with media_rate_inner_MBps, and then used rather
    # than internal_rate_max_Mbps. The rate falls with the track's radius from this to the inner one
    media_rate_outer_MBps: DiskMBps | None = None
    # sustained user-data rate at the inner zone (where the drive ends, its slowest), MB/s: given
    # with media_rate_outer_MBps; their ratio sets how the rate falls across the platters (without
    # the pair the inner zone runs at 0.55 of the outer, a 3.5-inch drive's recorded band); at
    # most media_rate_outer_MBps
    media_rate_inner_MBps: DiskMBps | None = None
    # the datasheet's maximum internal ("buffer to disk", media) rate, Mbit/s, raw bits with their
    # servo and error-correction overhead: without the media-rate pair the outer zone runs at it / 8
    # times the calibrated disk_format_efficiency; unused where the pair is given
    internal_rate_max_Mbps: PositiveFloat | None = None
    # the interface's burst rate, MB/s (100 for Ultra ATA/100, 600 for SATA 6 Gb/s): a read served
    # from the drive's look-ahead cache, and a write its cache takes, cross the interface at it
    interface_rate_MBps: InterfaceMBps
    # the drive's interface: ide (parallel ATA), sata, scsi (parallel SCSI) or sas. As shipped,
    # Linux leaves an ide or sata drive's write cache on and a scsi or sas drive's off; scsi and sas
    # drives queue tagged commands, so they must give queue_depth
    interface: Literal["ide", "sata", "scsi", "sas"]
    # commands the drive holds and reorders at once (NCQ, tagged queuing), from its product manual:
    # at most this many of a volume's requests are at the drive together, and a download server's
    # drive_queue_depth may not exceed it; above 1, the drive orders its writes and loses no turn
    # between two. Default 1, a drive that takes one command at a time; required (2 or more) of a
    # scsi or sas drive; at most 32 of a sata one (Native Command Queuing)
    queue_depth: PositiveInt = 1
    # the drive's own time per random command beyond seek, rotation and transfer, ms (command
    # processing, settling, head switches), read from a datasheet's queued random IOPS as what they
    # leave over the mechanics. A scenario's volumes.NAME.disks.command_overhead_ms
    # replaces it where the part only stands in for an unnamed drive
    command_overhead_ms: NonNegativeFloat = 0.0

    def check(self, where: str, key: str) -> None:
        super().check(where, key)
        if self.interface in ("sas", "scsi") and self.queue_depth == 1:  # the default: not given
            raise UserError(
                where,
                f"{key}.queue_depth",
                f"a {self.interface.upper()} drive queues tagged commands: give the commands it "
                "holds (its product manual's queue depth, 2 or more), with its source",
            )
        if self.interface == "sata" and self.queue_depth > SATA_NCQ_DEPTH:
            raise UserError(
                where,
                f"{key}.queue_depth",
                f"a SATA drive's Native Command Queuing holds at most {SATA_NCQ_DEPTH} commands "
                f"(Serial ATA revision 3.0), got {self.queue_depth}",
            )
        pair = (self.media_rate_outer_MBps is None) == (self.media_rate_inner_MBps is None)
        if not pair or (self.media_rate_outer_MBps is None and self.internal_rate_max_Mbps is None):
            raise UserError(
                where,
                key,
                "needs media_rate_outer_MBps with media_rate_inner_MBps, or internal_rate_max_Mbps",
            )
        if pair and self.media_rate_inner_MBps is not None:
            if self.media_rate_inner_MBps > self.media_rate_outer_MBps:
                raise UserError(
                    where,
                    f"{key}.media_rate_inner_MBps",
                    "at most media_rate_outer_MBps: the rate falls from the outer zone inwards, "
                    f"with the tracks' length ({self.media_rate_outer_MBps:g} MB/s at the outer), "
                    f"got {self.media_rate_inner_MBps:g}",
                    related=(f"{key}.media_rate_outer_MBps",),
                )
        if pair and self.media_rate_outer_MBps is not None:
            if self.interface_rate_MBps < self.media_rate_outer_MBps:  # 50 typed for 500
                raise UserError(
                    where,
                    f"{key}.interface_rate_MBps",
                    "at least media_rate_outer_MBps: a drive's link carries what its platters "
                    f"read ({self.media_rate_outer_MBps:g} MB/s at the outer zone), got "
                    f"{self.interface_rate_MBps:g}",
                    related=(f"{key}.media_rate_outer_MBps",),
                )
        # a seek's curve runs from the next track to the whole stroke through its average; the two
        # ends swapped had been told as a range running backwards ("between ... (8 to 0.8 ms)")
        if self.full_stroke_ms < self.track_to_track_ms:
            raise UserError(
                where,
                f"{key}.full_stroke_ms",
                "at least track_to_track_ms: a full stroke crosses every track, a track-to-track "
                f"seek one ({self.track_to_track_ms:g} ms), got {self.full_stroke_ms:g}; are the "
                "two swapped?",
                related=(f"{key}.track_to_track_ms",),
            )
        averages = [("avg_seek_read_ms", self.avg_seek_read_ms)]
        if self.avg_seek_write_ms is not None:
            averages.append(("avg_seek_write_ms", self.avg_seek_write_ms))
        for name, average in averages:
            if average < FASTEST_AVERAGE_SEEK_MS:
                raise UserError(
                    where,
                    f"{key}.{name}",
                    f"an average seek is at least {FASTEST_AVERAGE_SEEK_MS:g} ms on any hard disk "
                    f"(in ms, not seconds), got {average:g}",
                )
            if not self.track_to_track_ms <= average <= self.full_stroke_ms:
                raise UserError(
                    where,
                    f"{key}.{name}",
                    f"an average seek lies between the track-to-track and the full-stroke seek "
                    f"({self.track_to_track_ms:g} to {self.full_stroke_ms:g} ms), got {average:g}",
                    related=(f"{key}.track_to_track_ms", f"{key}.full_stroke_ms"),
                )


@dataclass(frozen=True, kw_only=True)
class Bus(Part):
    """A bus, a drive channel or a serial link as its standard defines it: a host's bus or slot
    (PCI, PCI-X, a chipset's hub link, a PCI Express link of so many lanes), a controller's drive
    channel in one transfer mode (an ATA mode, a parallel SCSI bus), or a serial lane or wide port
    (SATA, SAS). Its peak rate follows from the figures of its kind (parallel: width x clock x
    transfers a clock; serial: lanes x lane rate x the encoding's share; channel: its burst rate);
    the storage models carry, of a parallel bus or a channel, that peak times the calibrated
    bus_efficiency, and of a serial link the payload its frames leave of it
    (``model.storage.buses``, ``model.storage.framing``). Other parts name buses by id (a
    controller's host interface and channels, a NIC's host interface, a flash drive's own link, a
    shelf's lanes, a host's slots), and so does a storage scenario's buses.NAME.part."""

    # how the peak rate is reckoned: parallel (from width_bits, clock_MHz and transfers_per_clock:
    # PCI, PCI-X, a hub link), serial (from lanes, lane_rate_Gbps and encoding, with protocol: PCI
    # Express, SATA, SAS) or channel (burst_rate_MBps, with protocol ide or scsi: an ATA or
    # parallel SCSI transfer mode, which a controller's drive channels run in)
    kind: Literal["parallel", "serial", "channel"]
    # a parallel bus's data width, bits (32 or 64 for PCI): width_bits / 8 bytes a transfer;
    # required of kind parallel. A card narrower than a multidrop segment moves its own width a data
    # phase, and a host's slot takes segments no wider than itself
    width_bits: PositiveInt | None = None
    # a parallel bus's clock, MHz, the standard's nominal figure (PCI's "33 MHz" is 33.33); required
    # of kind parallel. A multidrop segment runs at the clock of its slowest card
    clock_MHz: PositiveFloat | None = None
    # data transfers a clock cycle of a parallel bus (1; 2 double-pumped; 4 quad-pumped, as Intel's
    # hub link at 66 MHz); required of kind parallel
    transfers_per_clock: PositiveInt | None = None
    # a serial link's lanes (a PCI Express x1 to x16 link, a SAS wide port's 4); required of kind
    # serial. A PCI Express card or drive trains to the fewer lanes of its own link and its slot's
    lanes: PositiveInt | None = None
    # one lane's signalling rate, Gbit/s before encoding (PCIe 3.0's 8 GT/s is 8, SAS-3's 12);
    # required of kind serial. A PCI Express link trains to the older generation of its two ends
    lane_rate_Gbps: PositiveFloat | None = None
    # a serial link's line code: 8b10b (SATA, SAS to 12 Gb/s, PCIe 1.x and 2.0: 0.8 of the rate is
    # data), 128b130b (PCIe 3.0 to 5.0), 128b150b (24G SAS, SAS-4's 22.5 Gbaud) or 64b66b; required
    # of kind serial. An NVMe drive's link must be 128b130b, a SATA drive's 8b10b, a SAS drive's
    # and a shelf's lanes 8b10b or 128b150b
    encoding: Encoding | None = None
    # a drive channel's burst rate, MB/s, its transfer mode's nominal one (100 for UDMA100, 160 for
    # Ultra160 SCSI): its peak; required of kind channel
    burst_rate_MBps: PositiveFloat | None = None
    # devices one channel holds (2 for IDE master and slave, 15 for wide SCSI), as its standard
    # says: for the reader, no model reads it
    devices_per_channel: PositiveInt | None = None
    # the frames a serial link carries: pcie, sas or sata; required of kind serial. What a frame
    # carries behind its header sets the link's payload rate (``model.storage.framing``: a PCIe TLP
    # of the scenario's pcie_max_payload_B behind 24 B, a SAS frame of 1,024 B behind 36 B, a SATA
    # FIS of 8,192 B behind 16 B); only a pcie segment takes NVMe drives and trains as PCI Express.
    # A drive channel's: ide (parallel ATA) or scsi (parallel SCSI), required of kind channel. A
    # controller's channel or a shelf's bay takes the drives its bus's protocol does
    # (``model.storage.attachment.DRIVES_TAKEN``: a sas bay SAS and SATA ones)
    protocol: Literal["pcie", "sas", "sata", "ide", "scsi"] | None = None
    # whether a parallel bus is multidrop (PCI, PCI-X): the cards on a segment share its wires,
    # so the segment runs at its slowest card's clock and each card moves its own width a data phase
    # (``model.storage.buses``); a host's multidrop slot takes multidrop segments only
    multidrop: bool = False
    # whether a drive-channel mode has the CPU move every word (ATA's PIO modes) rather than DMA: a
    # controller whose channel_mode is such a mode is not modelled (its CPU cost a word is in no
    # report)
    programmed_io: bool = False

    _NEEDS = {
        "parallel": ("width_bits", "clock_MHz", "transfers_per_clock"),
        "serial": ("lanes", "lane_rate_Gbps", "encoding", "protocol"),
        "channel": ("burst_rate_MBps", "protocol"),
    }
    _PROTOCOLS = {"parallel": (), "serial": ("pcie", "sas", "sata"), "channel": ("ide", "scsi")}

    def check(self, where: str, key: str) -> None:
        super().check(where, key)
        allowed = self._PROTOCOLS[self.kind]
        missing = [
            f"{n} ({' or '.join(allowed)})" if n == "protocol" else n
            for n in self._NEEDS[self.kind]
            if getattr(self, n) is None
        ]
        if missing:
            raise UserError(where, key, f"a {self.kind} bus needs {', '.join(missing)}")
        if self.protocol is not None and self.protocol not in allowed:
            other = next(kind for kind, taken in self._PROTOCOLS.items() if self.protocol in taken)
            raise UserError(
                where,
                f"{key}.protocol",
                f"a {self.kind} bus's protocol is "
                + (" or ".join(allowed) if allowed else "none (leave it out)")
                + f", got {self.protocol} (a {other} bus's)",
            )

    @property
    def peak_MBps(self) -> float:
        """The rate the bus's signalling allows, in MB/s (10^6 bytes per second)."""
        if self.kind == "parallel":
            return self.width_bits / 8 * self.clock_MHz * self.transfers_per_clock
        if self.kind == "serial":
            return self.lanes * self.lane_rate_Gbps * 1e3 / 8 * ENCODING_EFFICIENCY[self.encoding]
        return self.burst_rate_MBps


def pcie_trained(device: Bus, slot: Bus) -> Bus:
    """The link a PCI Express device and its slot train to: the highest generation both support
    and the fewer lanes (PCI Express Base Specification, 4.2, Link Initialization and Training:
    the link comes up at the lanes both ends have and the fastest rate both advertise; the
    catalog's Samsung 980 PRO, a PCIe 4.0 x4 drive, reads about 3.3 GB/s in a PCIe 3.0 slot).
    Anything but two PCI Express ends keeps ``device``."""
    if device.protocol != "pcie" or slot.protocol != "pcie":
        return device
    slower = slot if slot.lane_rate_Gbps <= device.lane_rate_Gbps else device
    return replace(slower, lanes=min(device.lanes, slot.lanes))


@dataclass(frozen=True, kw_only=True)
class Controller(Part):
    """A drive controller as its datasheet and its driver describe it: a host bus adapter or a RAID
    card (onboard or in a slot, or a RAID array's controller pair), with its own host interface, its
    drive channels or ports and, for a RAID card, its processor and cache. The storage models carry
    its drives' bytes through its channels, in the mode the driver set, and through its host
    interface in its slot (trained to what both share, at most a stated maximum); a volume the card
    keeps (engine: controller) costs its processor ``RAID_READ_CYCLES_PER_REQUEST`` a request it
    reads and, a write, the calibrated raid_cycles_per_cache_block a cache block on an array that
    keeps them (``cache_block_sizes_KiB``), else raid_cycles_per_write_command a drive command
    (``model.storage.attachment``). A storage scenario's controllers.NAME.part (or a download
    server's controller) names it."""

    # what the card is: hba (a host bus adapter: the host sees each drive, and md or ZFS keeps any
    # RAID) or raid (a card that keeps RAID groups itself, the only kind a volume with engine:
    # controller may use)
    type: Literal["hba", "raid"]
    # the bus of the card's own host interface, an id of buses: the widest and fastest it supports.
    # A PCI Express card's link trains to what it and its slot share, and the card moves at most
    # that link's rate (each controller of a pair its own); a slower slot limits it further
    host_bus: str
    # the segment an I/O processor bridges its PCI Express host interface to, an id of buses of a
    # PCI or PCI-X bus: its own drive chip's bus below the bridge (Intel's IOP332, PCI Express x8
    # to 64-bit 133 MHz PCI-X). A scenario may seat such a controller on a segment of that kind,
    # which then stands for the bridged one; unset, a PCI Express card sits in a PCI Express
    # segment only, and a PCI or PCI-X card in a PCI or PCI-X one (``model.storage.slots``)
    bridged_bus: str | None = None
    # the card's independent drive channels or ports (an IDE channel, a SCSI bus, a SAS phy):
    # drives and shelf uplinks attach as CONTROLLER.CHANNEL, CHANNEL from 0 to channels - 1, and a
    # download server's disks are at most this many
    channels: PositiveInt
    # the bus of each drive channel at its fastest mode, an id of buses (an ATA mode, a SCSI bus, a
    # SAS lane): what one channel carries, unless the scenario's channel_mode sets a slower one
    channel_bus: str
    # where the card's drive ports are, as its datasheet names them (an "-8i" card's internal
    # ports, an "-8e" card's external ones): internal, cabled to the host's own bays, whose drives
    # count against the host's drive_bays; external, cabled to an enclosure of their own, which a
    # scenario declares as a shelf or leaves undescribed (``model.storage.slots.check_bays``)
    drive_ports: Literal["internal", "external"] = "internal"
    # the RAID processor, as the datasheet names it (Intel IOP332, XScale core): for the reader,
    # no model reads it
    processor: str = ""
    # the RAID processor's clock, MHz: each request it reads costs it 5,000 cycles, and each write
    # as ``cache_block_sizes_KiB`` says. Unset (no published clock), a scenario that uses the
    # card's own RAID engine reports "not modelled"; engine: md over its drives predicts
    processor_MHz: PositiveFloat | None = None
    # the cache block sizes the array's controllers can be set to, KiB, from its manual: a card
    # that lists any keeps its writes in cache blocks of the volume's cache_block_KiB, one of these
    # (an MD-series or E-Series array's setting: Dell's MD3200-family manuals, write-back cache
    # 'mirrored to the cache of the second controller before completion status is issued'), each
    # costing the calibrated raid_cycles_per_cache_block fitted on the MD3260; a card without
    # (none, the default) pays raid_cycles_per_write_command a drive command its writes send
    cache_block_sizes_KiB: tuple[PositiveFloat, ...] = ()
    # RAID processors: 2 for the controllers of a redundant pair, each with its own host interface;
    # a volume's RAID groups alternate between them
    processors: PositiveInt = 1
    # the RAID card's cache, MB (10^6 B): with write_back on, a memory-mapped writer's blocks reach
    # the drives of the card's volume through this much (``model.storage.mmap``), and unset that
    # model reports "not modelled"; no other model reads it
    cache_MB: PositiveFloat | None = None
    # the most the card (or the array it heads) moves, MB/s, only where its datasheet states one:
    # its host interface carries at most this, and so does the path of an array's group_paths;
    # unset, its buses alone limit it
    max_throughput_MBps: PositiveFloat | None = None
    # the largest request the card's driver takes, KiB (its max_sectors): the block layer merges a
    # buffered writer's and a memory map's write-back into requests of at most this (a drive that
    # waits a turn between two writes loses one a request); unset, 127.5 KiB, Linux 2.6's
    # 255-sector default
    max_request_KiB: PositiveFloat | None = None
    # the RAID levels the card offers (raid0, raid1, raid5, raid6, raid10, jbod...), from its
    # datasheet: a volume the card heads (engine: controller) must use one of them, one drive
    # alone its jbod or raid0; empty where no source gives them, and then not checked
    raid_levels: tuple[str, ...] = ()

    @property
    def cache_blocks(self) -> bool:
        """Whether the card keeps its writes in cache blocks: it lists cache block sizes."""
        return bool(self.cache_block_sizes_KiB)


@dataclass(frozen=True, kw_only=True)
class Nic(Part):
    """A network interface card: one port's line rate and the bus of its own host interface. Each
    NIC of a host (a bond member, a circuit's end) moves each way the lesser of its line rate and
    what its link into the host carries (``model.nic_links.nic_rate_Bps``: a 100 GbE card on PCIe
    3.0 x8 moves the 7,202 MB/s of frames its 256 B packets leave of the link's 7,877, 7,316 MB/s of
    the wire's bytes at a 1,500-byte MTU, a PCI card its bus's peak times the fitted
    ``bus_efficiency``; the result's notes say so). A host's nics and the scenarios' nic keys (nic,
    client_nic) name it."""

    # one port's line rate, Gbit/s (0.1, 1, 10, 25, 40, 100): the wire bytes, Ethernet framing
    # included, each NIC of a host moves each way where its host bus is not slower
    rate_Gbps: LineGbps
    # the bus of the card's own host interface, an id of buses (pci_64_66, pcie3_x8): each NIC the
    # host lists moves at most what that bus carries (its peak less its framing or arbitration)
    host_bus: str
    # offloads the card has beyond the usual checksum and segmentation ones (vxlan, rdma), from its
    # datasheet: for the reader, no model reads it (TSO and GRO are scenario keys)
    offload: tuple[str, ...] = ()
    # ports on one card (2 on a dual-port card), from its datasheet: a host's NICs of this id are
    # its cards' ports, consecutive members ports at a time, and a card's ports share its host bus
    # (``model.network.hosts``: two 40 GbE ports on one PCIe 3.0 x8 link move the 7,202 MB/s of
    # data it carries between them, not each)
    ports: PositiveInt = 1
    # the largest IP MTU the card's driver takes, bytes: its largest receive buffer less the
    # Ethernet header, FCS and VLAN tags it leaves room for (from the driver's source); unset where
    # no source was read: then only Ethernet's own limit holds (no jumbo frame under 1 Gb/s)
    max_mtu_B: PositiveInt | None = None
    # the receive queues its driver fills, each with its own interrupt (from the driver's source):
    # 1 where the card has a single receive ring, which receive-side scaling (irq_affinity: rss)
    # cannot spread over cores; unset where no source was read
    rx_queues: PositiveInt | None = None
    # what it is built as, from its product name: card, a PCI Express (or PCI) add-in card in one of
    # the host's buses slots; ocp, an OCP NIC 3.0 module in the host's OCP slot (a host's
    # ocp_slots), which takes none of its PCI Express slots; onboard, the host's own LAN on its
    # board, which takes no slot and crosses into the host at its own host_bus
    # (``model.nic_links``)
    form_factor: Literal["card", "ocp", "onboard"] = "card"


@dataclass(frozen=True)
class Slot:
    """One kind of bus slot or segment a host has, and how many: an entry of a host's buses list,
    written {bus: ID, count: N}."""

    bus: str  # the slot's or segment's bus, an id of buses (pcie5_x16, pci_64_66)
    # how many of them the host has: its PCI Express NIC cards and a storage scenario's controller
    # cards must fit them (``model.storage.slots.card_slots``)
    count: PositiveInt = 1


@dataclass(frozen=True, kw_only=True)
class Host(Part):
    """A computer as the models see it: its processors (sockets, cores, clock and one core's copy
    rate), its memory, its word size, the bus slots it has and the controllers and NICs it carries.
    The models give a host's CPU its cores, turn the cycles they count into seconds at its clock and
    each byte copied into seconds at its copy rate, bound its bytes' crossings of its memory by its
    memory bandwidth (``model.memory``), and size the kernel's page cache from its memory; a
    current host may take its processor's figures from a cpus entry (its cpu). A scenario's host
    (a WAN's sender_host and receiver_host, a relay's director and real servers) names it."""

    # processor sockets fitted: the host has cpus x cores_per_cpu cores, the cores its CPU resource
    # has (a byte copied, a frame, a request each cost one of them for a while); with cpu, the
    # memory bandwidth is that of this many sockets
    cpus: PositiveInt
    # cores in each socket (1 for the reports' NetBurst and Pentium III processors); with cpu, its
    # cores where the host leaves this out
    cores_per_cpu: PositiveInt
    # hardware threads a core runs (2 with Hyper-Threading or SMT): recorded, not counted (the
    # models give the host one core per core, not per thread); with cpu, its figure where the host
    # leaves this out
    threads_per_core: PositiveInt = 1
    # one core's clock, GHz (with cpu, its base clock where the host leaves this out): the models'
    # cycles (a frame's, a packet's, a request's, a byte's) take cycles / clock seconds of a core
    clock_GHz: ClockGHz
    # one core's sustained memory-to-memory copy rate, MB/s of bytes copied: a byte through the
    # kernel's buffered path costs the calibrated io_copy_passes copies at it (more for a write),
    # and a byte a network end sends or receives one copy. No report measures it, so it is an
    # estimate (the front-side-bus rule of hosts.yaml, a published single-thread memcpy, or its
    # cpu's figure where the host leaves this out)
    copy_rate_MBps: CopyMBps
    # installed memory, MB (10^6 B): memory is sold in binary units, so a report's "1 GB" is
    # 1073.741824. The page cache the kernel keeps of it bounds the dirty data a writer leaves
    # (dirty_ratio_pct), what a memory map keeps cached and the ZFS ARC (half of it unless arc_GB);
    # a download server's server.memory_MB must fit in it
    memory_MB: Annotated[float, Bound(1.0, words="at least 1 MB")]
    # the front side bus's rate, MHz as Intel gives it (400 for the quad-pumped 100 MHz NetBurst
    # bus), where the host has one: that it has one sets the share of memory_bandwidth_MBps its
    # memory sustains (``model.memory.sustained_share``: a front side bus platform's, not an
    # on-die controller's); the copy_rate_MBps estimate of a host whose bus bounds its copy
    # follows from it (0.8125 x fsb_MHz x 8 B / 2, a test checks)
    fsb_MHz: PositiveFloat | None = None
    # the CPU's word size, 32 or 64 bits: OpenZFS's default prefetch distance where a volume sets
    # no zfetch_max_distance_MiB (64 MiB on a 64-bit host, 8 on a 32-bit one)
    arch_bits: Literal[32, 64]
    # the memory as its maker describes it ("DDR (PC2100 modules) registered ECC"); with cpu, its
    # type and speed (DDR5-4800) where the host leaves this out. For the reader, no model reads it
    memory_type: str = ""
    # peak memory bandwidth of all sockets, MB/s; with cpu, its channels x MT/s x 8 B times cpus
    # where the host leaves this out. The storage and network models' memory resource (``memory
    # host``, ``memory LABEL``) sustains a STREAM run's share of it for the host's class of
    # platform (``model.memory``), and every byte a path moves takes it as many times as it
    # crosses the host's DRAM (a DMA once, a copy twice, a checksum once); unset, the host has no
    # memory resource
    memory_bandwidth_MBps: PositiveFloat | None = None
    # the host's bus slots and segments, each {bus: an id of buses, count: how many}: a storage
    # scenario's top-level bus segments must each be of a kind one of them holds (a PCI Express
    # slot of no older generation and no fewer lanes, a PCI bus as wide and as fast:
    # ``model.storage.slots``); how many is checked for PCI Express cards: its NIC cards (the
    # host's own and a transfer's circuits, ``model.nic_links.check_nic_cards``) and a storage
    # scenario's controller cards, each card segment taking the narrowest free slot that fits it
    # and the NICs the fastest left (``model.storage.slots.card_slots``; NVMe bays' lanes take
    # none). Empty: the buses are not described, and a scenario's segments are taken as declared
    buses: tuple[Slot, ...] = ()
    # whether buses lists every kind of slot and segment the host has (true), or only those the
    # reports' scenarios use, its board's slot list not read (false): then a scenario's other
    # top-level segments are taken as declared, not refused
    buses_complete: bool = True
    # the drives the host's own bays hold (the chassis's front, mid and rear bays as configured),
    # where its documentation gives them: a storage scenario's drives inside the host, those on its
    # controllers' channels (a card or chip in the host, not an external array's controller) and
    # its NVMe drives on its own PCI Express lanes (nvme.SEGMENT.N), are at most this many; a
    # shelf's drives are its own bays' (``model.storage.slots.check_bays``). Unset: the bays are
    # not described, and the drives are not counted
    drive_bays: PositiveInt | None = None
    # of drive_bays, those cabled for NVMe (a backplane's NVMe or AnyBay bays, at most drive_bays):
    # a storage scenario's NVMe drives on the host's own lanes are at most this many. Unset with
    # drive_bays set: every bay takes an NVMe drive
    nvme_bays: NonNegativeInt | None = None
    # its OCP NIC 3.0 slots, each {bus: the PCI Express link its connector carries, count: N}: the
    # host's NICs of form_factor ocp take them, fastest first, and none of its buses slots (the
    # PCI Express ones a storage scenario's controller cards then keep). Empty: it has none, or
    # they are not described; an OCP module among its nics, a transfer's circuits or the NIC a
    # relay, download server or MDSplus scenario names on it is then refused where buses are
    # listed in full (``model.nic_links.check_placed``)
    ocp_slots: tuple[Slot, ...] = ()
    # the controllers onboard or fitted, ids of controllers, as the report describes the machine
    # (an id may repeat): checked to exist; the scenarios name the controllers they use
    controllers: tuple[str, ...] = ()
    # the NICs fitted, ids of nics (an id repeats for each port of a multi-port card): a storage
    # scenario's clients reach the host through all of them, bonded, and they must be alike; a
    # relay's stations must use one of them
    nics: tuple[str, ...] = ()
    # its processor, an id of cpus (data/hardware/cpus.yaml): cores_per_cpu, threads_per_core,
    # clock_GHz (its base clock), copy_rate_MBps, memory_type and, with cpus, memory_bandwidth_MBps
    # come from it where the host leaves them out (``model.catalog.with_cpu``), each with the CPU
    # entry's source
    cpu: str | None = None

    def check(self, where: str, key: str) -> None:
        super().check(where, key)
        if self.buses and "buses" not in self.sources:  # the slot counts refuse NIC cards
            raise UserError(
                where,
                f"{key}.sources",
                "no source for buses; every slot count needs one (a board's manual, or "
                "'estimated: ...' with buses_complete: false where only the slots used are listed)",
            )
        if self.ocp_slots and "ocp_slots" not in self.sources:  # they refuse OCP modules
            raise UserError(
                where,
                f"{key}.sources",
                "no source for ocp_slots; every slot count needs one (a board's manual, or "
                "'estimated: ...')",
            )
        if self.nvme_bays is not None and self.drive_bays is None:
            raise UserError(
                where,
                f"{key}.nvme_bays",
                "counts the NVMe-cabled bays among drive_bays, which is unset: give drive_bays "
                "(every bay of the chassis) too",
            )
        if self.nvme_bays is not None and self.nvme_bays > self.drive_bays:
            raise UserError(
                where,
                f"{key}.nvme_bays",
                f"counts the NVMe-cabled bays among drive_bays ({self.drive_bays}): at most "
                f"drive_bays, got {self.nvme_bays}",
            )

    @property
    def cores(self) -> int:
        return self.cpus * self.cores_per_cpu


@dataclass(frozen=True, kw_only=True)
class Link(Part):
    """A network link: a WAN circuit or a LAN, with its line rate, its path length and the IP MTU
    its frames carry. A WAN transfer's circuits (its link), a relay's LAN and a storage scenario's
    clients' LAN name it; a path's round-trip time is the scenario's own rtt_ms (measured, in
    data/measured/atlas_wan.csv), not the link's."""

    # one circuit's line rate, Gbit/s: each of a WAN transfer's circuits carries this many wire bits
    # a second (Ethernet framing included); a relay station's and a storage client's port run at the
    # lesser of their NIC's rate and this
    capacity_Gbps: PositiveFloat
    # the path's one-way fibre length, km: a WAN transfer's rtt_ms (measured, not reckoned from
    # it) shorter than the round trip light takes over it is said in a note
    # (``model.network.wan.shorter_than_light_note``)
    distance_km: PositiveFloat | None = None
    # the IP MTU of the link's frames, bytes (1500; 9000 with jumbo frames): a relay's and a storage
    # scenario's clients' TCP segments carry it less the IP and TCP headers; unset, 1500. A WAN
    # transfer takes its scenario's own mtu_B instead
    mtu_B: PositiveInt | None = None

    @property
    def frame_mtu_B(self) -> int:
        """The IP MTU its frames carry: ``mtu_B``, or Ethernet's standard 1,500 where unset."""
        return self.mtu_B or 1500

    @property
    def rate_Bps(self) -> float:
        """One circuit's line rate, bytes a second on the wire (``capacity_Gbps``, its framing
        included)."""
        return self.capacity_Gbps * 1e9 / 8


# How far a flash drive's 4 KiB random rate (IOPS x 4 KiB) may exceed its sequential one, read or
# write, before the sequential figure is refused as a GB/s figure typed as MB/s (1,000 times off).
# Real sheets rate random a little above sequential: Intel Optane P4800X 375 GB writes 500K IOPS
# (2,048 MB/s) against 2,000 MB/s in order, Samsung 980 250 GB 320K (1,311 MB/s) against 1,300.
IN_ORDER_MARGIN = 2


@dataclass(frozen=True, kw_only=True)
class Ssd(Part):
    """A solid-state drive (SATA, SAS or NVMe) as its datasheet, or a cited review, rates it:
    sequential rates, 4 KiB random IOPS at a stated queue depth, queue-depth-1 latencies and its
    write cache. The flash model (``model.storage.flash``) has no seek or rotation: the rated random
    read IOPS at their QD1 latency give, by Little's law, the requests the drive serves at once; a
    request costs the larger of its latency and its bytes at the sequential rate; a long write runs
    at the cached rate until the cache is full, then at the slower one. An NVMe drive sits on a
    storage scenario's PCI Express segment with no controller (nvme.SEGMENT.N); a SATA or SAS drive
    on a controller's channel or a shelf's bay, behind its own link. A scenario's
    volumes.NAME.disks.part names it, as it names a hard disk."""

    # the drive's form factor, as its datasheet names it: 2.5-inch (a SATA, SAS, U.2 or U.3 drive),
    # edsff (E1.S, E3.S), each in a drive bay, counted against a host's drive_bays; m.2, a module
    # on the board or a riser, and add-in card, a card in a PCI Express slot of the host's
    # (``model.storage.slots``), in no bay. Unset: taken to sit in a bay
    form_factor: Literal["2.5-inch", "edsff", "m.2", "add-in card"] | None = None
    # the drive's interface: sata, sas or nvme. An nvme drive attaches as nvme.SEGMENT.N on a PCI
    # Express segment's lanes, its host_bus PCIe 3.0 or later (128b130b); a sata or sas drive to a
    # controller's channel or a shelf's bay, its host_bus an 8b10b link
    interface: Literal["sata", "sas", "nvme"]
    # the drive's own link, an id of buses: PCIe x4 for NVMe (pcie4_x4), sata_6g, sas_12g_lane, or
    # sas_12g_x2 for a dual-port SAS drive rated above one port. Its bytes cross it at the payload
    # its frames leave; an NVMe drive's link trains to what it and its segment share
    host_bus: str
    # user capacity, GB (10^9 B): a volume's size (a workload's data and its random span must fit)
    capacity_GB: DriveCapacity
    # the datasheet's sequential read rate, MB/s: a stream reads at it, and a large request's bytes
    # beyond the first 4 KiB take their time at it; at least half what random_read_iops move in
    # 4 KiB reads (IN_ORDER_MARGIN)
    seq_read_MBps: FlashMBps
    # the datasheet's sequential write rate, MB/s (into the write cache, where there is one): a
    # stream writes at it until write_cache_GB is written, then at post_cache_write_MBps; at least
    # half what random_write_iops move in 4 KiB writes (IN_ORDER_MARGIN)
    seq_write_MBps: FlashMBps
    # rated 4 KiB random reads a second at iops_queue_depth: times read_latency_us, the requests the
    # drive serves at once (its parallelism, at most iops_queue_depth), which deep queues of small
    # reads keep busy
    random_read_iops: FlashIops
    # rated 4 KiB random writes a second at iops_queue_depth: a small write keeps one of the drive's
    # parallel units busy parallelism / random_write_iops seconds, so deep queues of small writes
    # reach this rate
    random_write_iops: FlashIops
    # commands outstanding at which the IOPS are rated (QD32, QD256...); where a sheet gives none,
    # estimated by Little's law (IOPS x QD1 latency commands in flight, rounded up to a power of
    # two). It bounds the drive's parallelism
    iops_queue_depth: PositiveInt
    # one 4 KiB random read at queue depth 1, us (the sheet's typical read latency, or 1e6 / its QD1
    # random-read IOPS): what a small read waits and keeps a unit busy, so one stream at depth 1
    # reads only 1e6 / read_latency_us times a second
    read_latency_us: FlashLatencyUs
    # one 4 KiB random write at queue depth 1 as the host waits for it, us: acknowledged once it is
    # in the drive's DRAM or SLC cache, before the flash is programmed (the sheet's typical write
    # latency, or 1e6 / its QD1 random-write IOPS). Required: no other figure gives it. The flash
    # time of a unit (parallelism / random_write_iops, three to thirty times longer) is what a write
    # keeps the flash busy, not what the host waits, so a part without it is refused, not guessed
    write_latency_us: WriteLatency
    # the write cache, GB (10^9 B): SLC cache or DRAM that takes writes at seq_write_MBps; 0 for a
    # drive that writes at one rate throughout. A stream writing more than this to a drive runs at
    # the mean of the two rates over its bytes
    write_cache_GB: NonNegativeFloat
    # the sequential write rate once the write cache is full, MB/s: required when write_cache_GB is
    # above 0, refused when it is 0, never above seq_write_MBps
    post_cache_write_MBps: PositiveFloat | None = None
    # flash channels of the drive's controller, where published: for the reader, no model reads it
    # (the drive's parallelism comes from its IOPS and latency)
    channels: PositiveInt | None = None

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
        self.check_rates(where, key)

    def check_rates(self, where: str, key: str, given: tuple[str, ...] = ()) -> None:
        """Its sequential rates against its other figures, refused at ``key``.NAME: a drive reads
        and writes in order about as fast as at random or faster, and writes into its cache no
        slower than past it. ``given``: the rates a scenario gives in place of the sheet's
        (``volumes.NAME.disks``), which a conflict names before the sheet's figure."""
        for op in ("read", "write"):
            self._check_in_order(where, key, op)
        post_MBps = self.post_cache_write_MBps
        if post_MBps is None or post_MBps <= self.seq_write_MBps:
            return
        if "seq_write_MBps" in given:
            raise UserError(
                where,
                f"{key}.seq_write_MBps",
                f"at least the drive's post_cache_write_MBps ({post_MBps:g} MB/s), its rate once "
                f"the write cache is full, got {self.seq_write_MBps:g}",
            )
        raise UserError(
            where,
            f"{key}.post_cache_write_MBps",
            f"must not exceed seq_write_MBps ({self.seq_write_MBps:g} MB/s)",
        )

    def _check_in_order(self, where: str, key: str, op: str) -> None:
        """seq_``op``_MBps at least half what random_``op``_iops move in 4 KiB requests: a sheet's
        sequential figure far below its random one is a GB/s figure typed as MB/s (3.5 for 3,500,
        1,000 times off)."""
        sequential = getattr(self, f"seq_{op}_MBps")
        random_MBps = getattr(self, f"random_{op}_iops") * 4096 / 1e6
        if random_MBps > IN_ORDER_MARGIN * sequential:
            raise UserError(
                where,
                f"{key}.seq_{op}_MBps",
                f"at least half the {random_MBps:,.0f} MB/s random_{op}_iops move in 4 KiB "
                f"{op}s: a drive {op}s in order about as fast as at random or faster (a GB/s "
                f"figure typed as MB/s?), got {sequential:g}",
                related=(f"{key}.random_{op}_iops",),
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
    """A SAS expander, a chip or a card: its SAS lanes (phys), some of them grouped into wide ports
    cabled toward the host's controller, the rest fanned out to drives (or further expanders).
    Every drive behind it shares its uplink lanes (4 lanes of 12 Gb/s carry at most 4,800 MB/s for
    all of them together), each lane the lesser of its own rate and the controller channel it is
    cabled to. A storage scenario's shelves.NAME.part names it, as it names a JBOD; its drives
    attach as SHELF.BAY."""

    # the expander chip, as the datasheet names it (PMC-Sierra SXP 82885T, LSI SAS3x48): for the
    # reader, no model reads it
    chip: str
    # the chip's SAS lanes (phys) in all, each of lane_bus: those the uplink ports leave are the
    # bays drives attach to, 0 to phys - uplink_ports x lanes_per_uplink - 1
    phys: PositiveInt
    # the bus of each phy, an id of buses (sas_12g_lane), an 8b10b link: what a drive's bay and each
    # uplink lane carry
    lane_bus: str
    # wide ports toward the host's controller: a shelf's uplink cables at most uplink_ports x
    # lanes_per_uplink lanes, which must leave phys for drives
    uplink_ports: PositiveInt
    # lanes in each uplink wide port (4 for a mini-SAS x4 connector)
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

    @property
    def bay_count(self) -> int:
        """Bays a shelf of it holds drives in, SHELF.0 to SHELF.(bay_count - 1): its drive phys."""
        return self.drive_phys

    @property
    def host_lane_bus_id(self) -> str:
        """The bus of each uplink lane toward the host, an id of buses: every phy's, lane_bus."""
        return self.lane_bus

    @property
    def drive_lane_bus_id(self) -> str:
        """The bus of each drive's bay, an id of buses: every phy's, lane_bus."""
        return self.lane_bus

    @property
    def uplink_lane_count(self) -> int:
        """The most lanes a shelf of it cables toward the host: its uplink ports' lanes."""
        return self.uplink_lanes


@dataclass(frozen=True, kw_only=True)
class Enclosure(Part):
    """A JBOD, a drive enclosure: drive bays behind one or more I/O modules, each an expander tree
    whose host ports are the uplink every drive behind the module shares; a cascaded module's
    primary expander feeds secondary expanders inside the box, which hold the bays. The storage
    models take one module's path: each drive's bay link, the module's uplink lanes (each the lesser
    of its host lane and the controller channel it is cabled to) and, in a cascaded module, the
    lanes from the primary expander to its secondaries. A storage scenario's shelves.NAME.part
    names it; its drives attach as SHELF.BAY."""

    # drive bays: drives attach as SHELF.BAY, BAY from 0 to bays - 1
    bays: PositiveInt
    # I/O modules (expander trees), 2 in a redundant enclosure, each reaching every dual-ported SAS
    # drive: for the reader, no model reads it (a scenario cables one module's uplink)
    io_modules: PositiveInt
    # one module's host (uplink) wide ports: with lanes_per_host_port, the lanes a shelf's uplink
    # may cable, which every drive behind the module shares
    host_ports: PositiveInt
    # lanes in each host port (4 for a mini-SAS HD x4 connector)
    lanes_per_host_port: PositiveInt
    # the bus of each host lane, an id of buses (sas_12g_lane), an 8b10b link: each uplink lane
    # carries the lesser of it and the controller channel it is cabled to
    host_lane_bus: str
    # the bus of each bay's lane and of the lanes between a cascaded module's expanders, an id of
    # buses (sas_12g_lane), an 8b10b link
    drive_lane_bus: str
    # a cascaded module's primary expander's phys: for the reader, no model reads it (a test checks
    # that the module's host lanes and internal lanes fit in them)
    primary_expander_phys: PositiveInt | None = None
    # a cascaded module's secondary expanders, which hold the bays: given with secondary_link_lanes;
    # unset, one stage (every bay on the module's one expander)
    secondary_expanders: PositiveInt | None = None
    # lanes from the primary expander to each secondary: every drive behind the module also shares
    # secondary_expanders x secondary_link_lanes lanes of drive_lane_bus inside the box
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
    def bay_count(self) -> int:
        """Bays a shelf of it holds drives in, SHELF.0 to SHELF.(bay_count - 1): its bays."""
        return self.bays

    @property
    def host_lane_bus_id(self) -> str:
        """The bus of each uplink lane toward the host, an id of buses: host_lane_bus."""
        return self.host_lane_bus

    @property
    def drive_lane_bus_id(self) -> str:
        """The bus of each drive's bay, an id of buses: drive_lane_bus."""
        return self.drive_lane_bus

    @property
    def uplink_lane_count(self) -> int:
        """The most lanes a shelf of it cables toward the host: one module's host lanes."""
        return self.host_lanes

    @property
    def internal_lanes(self) -> int | None:
        """Lanes from a module's primary expander to all its secondaries (None: one stage)."""
        if self.secondary_expanders is None:
            return None
        return self.secondary_expanders * self.secondary_link_lanes


def check_bay(part: Enclosure | Expander, point: str, where: str, at: str) -> None:
    """A drive's ``SHELF.BAY`` ``point`` (at key ``at``) names one of ``part``'s bays: the one
    line both the scenario's body and the simulation refuse a bay past the shelf's with."""
    if int(point.partition(".")[2]) >= part.bay_count:
        why = ""
        if isinstance(part, Expander):  # its phys toward the host are held, cabled or not
            why = (
                f" (its {part.phys} phys less its {part.uplink_ports} x{part.lanes_per_uplink} "
                "ports toward the host, its uplink_ports, held whether cabled or not: an expander "
                "of a parts file like it with fewer, sourced, leaves drives more)"
            )
        raise UserError(
            where, at, f"{part.name}: bays 0 to {part.bay_count - 1}{why}, got {point!r}"
        )


@dataclass(frozen=True, kw_only=True)
class Cpu(Part):
    """A server processor, one socket, as its maker's specification gives it: cores, clocks, memory
    channels and their speed, PCI Express lanes, and one core's copy rate. No model reads a CPU
    directly: a host that names it (its cpu) takes from it what the host leaves out (cores a socket,
    threads a core, the base clock, the copy rate, the memory type and, for the host's sockets, the
    peak memory bandwidth of channels x MT/s x 8 B each), each figure with this entry's source."""

    # cores in the socket: a host's cores_per_cpu
    cores: PositiveInt
    # hardware threads a core runs (2 with SMT or Hyper-Threading): a host's threads_per_core,
    # which the models record but do not count
    threads_per_core: PositiveInt = 1
    # the base clock, GHz: a host's clock_GHz, at which the models' cycles become seconds
    base_clock_GHz: ClockGHz
    # the highest boost clock, GHz, no lower than base_clock_GHz: for the reader, no model reads it
    # (the models reckon at the base clock)
    boost_clock_GHz: ClockGHz
    # the socket's memory channels, 64 bits each: with memory_MTps its peak memory bandwidth,
    # channels x MT/s x 8 B (times a host's sockets, the host's memory_bandwidth_MBps)
    memory_channels: PositiveInt
    # DDR4 or DDR5: with memory_MTps, a host's memory_type (DDR5-4800)
    memory_type: Literal["DDR4", "DDR5"]
    # the memory's transfer rate, MT/s (mega-transfers a second: 4800 for DDR5-4800), the fastest
    # the socket runs at one DIMM a channel: the rate of its peak memory bandwidth
    memory_MTps: PositiveFloat
    # PCI Express lanes the socket provides, where published: a host's segments and NIC cards
    # take no more than its sockets' lanes (model.storage.slots.check_lanes)
    pcie_lanes: PositiveInt | None = None
    # of those, the fewest each socket of a multi-socket board gives to the links between the
    # sockets (0 where the sockets have links of their own, as Intel's UPI): a board of n sockets
    # has n x (pcie_lanes - socket_link_lanes) lanes for devices at most
    socket_link_lanes: NonNegativeInt = 0
    # one core's sustained memory-to-memory copy, MB/s of bytes copied (a copy costs one core 1e3 /
    # copy_rate_MBps ns a byte): a host's copy_rate_MBps. An estimate (the rule of cpus.yaml's
    # header), refused above half the peak memory bandwidth, since a copy reads and writes each byte
    copy_rate_MBps: CopyMBps

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
