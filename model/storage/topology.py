"""The storage path of a host as flow resources: disks, device channels, controllers, buses, RAID
processors.

Each byte a stream moves to or from a volume lands on its member drives in the shares the layout
gives: LVM linear keeps a stream in the first group (random requests in the groups their span
covers) and LVM striping spreads it over its stripes;
inside a group RAID0 spreads it evenly, mirrors write every copy and a stream reading in order
stays on one copy of each (several streams spread over the copies; a RAID card set to read the
primary copy, ``mirror_reads: primary``, reads it alone), RAID5 and RAID6 write parity
(each drive's surface carries 1/(d - p) of the group's bytes, data and parity rotating; a read
leaves the parity on the platter, which turns past it, so only 1/d crosses the wire, and a flash
drive, which reads only what it is asked for, spends only that 1/d). Every
drive's transfer crosses its device channel and controller; an md volume's drive traffic then
crosses the controller's bus segment, a hardware RAID volume's user traffic crosses the path of
its group (a SAS wire of an external array) and costs the group's RAID processor its time per
cache block. Parallel buses and drive channels run at their datasheet peak times ``bus_efficiency``
(arbitration and turnaround); serial links (SATA, SAS, PCIe) at the payload their frames leave
of the encoded rate (``model.storage.framing``: another physics, fixed by each standard's frame
format, and a SATA SSD's measured 561 MB/s of its 600 is above what the parallel buses' fitted
share allows). An md RAID5/6
array's writes cost its one raid5d thread, and the host's CPU, ``MD_PARITY_COPIES`` memory copies
per byte written for the parity and, for every stripe_head it handles (``MD_STRIPE_B`` of each
member), its dispatch and completion of the member requests (``md_raid5d_cycles_per_byte``); a
read of a whole array passes it by.
A flash drive (``model.storage.flash``) is a drive resource at its streaming rate behind its own
link (its catalog ``host_bus``); an NVMe drive attached as ``nvme.SEGMENT.N`` sits on the lanes of
bus segment SEGMENT with no controller, so every NVMe drive on one segment shares it. A ZFS pool
(``model.storage.zfs``) keeps its layout on the host as md does and costs the host's CPU its
checksums and parity. Random requests (``model.storage.requests``) make each drive a resource at
its random rate and land their write penalty and record reads on it. An ext3 volume's journal
(``Journal``) writes the block map twice, and the data too when it is mounted ``data=journal``.
Calibrated on ``atlas_disk``, ``atlas_hosts`` (``001_4cf980d67b39ffac.txt``) and ``em_ingest``
(``003_0a9a7721e3b096d5.txt``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..catalog import Catalog
from ..errors import NotModelled, UserError
from ..parts import Bus, Controller, Disk, Enclosure, Expander, Host, Ssd
from ..sim.flows import FlowNetwork, FlowResource
from . import disk as disk_model
from . import flash, framing, interleave, requests, writecache, zfs
from .raid import LEVELS
from .spec import NVME, FileSystem, StorageBody, Volume

# Linux md computes a RAID5/6 array's parity in the array's own kernel thread (raid5d, one per
# array): streaming xor over the data costs about one memory copy per data byte; RAID6's P and Q
# together about 1.5, the ratio of the kernel's boot-time benchmarks (for instance "raid5: using
# function: generic_sse (5212.400 MB/sec)" beside "raid6: using algorithm sse2x4 (3492 MB/s)" on
# one 2005 host; 7620 against 4378 MB/s on another).
MD_PARITY_COPIES = {"raid5": 1.0, "raid6": 1.5}

# raid5d does more than the parity: it runs every stripe_head through handle_stripe and dispatches
# (and, for its next pass, takes back) every member request. A stripe_head is one page of each
# member (STRIPE_SIZE: PAGE_SIZE, and 4096 by default since Linux 5.10, commit e236858243d7 'md/
# raid5: set default stripe_size as 4096'); a request is split page by page into stripe_heads, and
# each issues its own page-sized member bios (the block layer merges them on the way to a drive):
#   - a small write (read-modify-write) is one stripe_head per page written, with the level's
#     write penalty in member requests (RAID5 2 reads and 2 writes, RAID6 3 and 3; a RAID6 whose
#     read-modify-write reads no fewer than a reconstruct-write takes the reconstruct-write, with
#     as many requests on 6 members: the 3 other data pages, then 3 writes);
#   - a full-stripe write is one stripe_head per page of each data member, writing every member;
#     since Linux 4.1 (commit 59fc630b8b5f 'RAID5: batch adjacent full stripe write') the
#     stripe_heads of one chunk row go through handle_stripe once, as a batch ('A batch list can
#     only include full stripe write and can't cross chunk boundary'), while each still dispatches
#     its own bios.
# Their cost: MD_CYCLES_PER_MEMBER_REQUEST per member request raid5d dispatches and completes, and
# MD_CYCLES_PER_MEMBER_SLOT per member of each stripe_head (or batch) it takes through
# handle_stripe (analyse_stripe and the dirtying and I/O passes walk every member's r5dev). Both
# come from a published run of stock md RAID6 at group_thread_cnt 0 (the default: every stripe_head
# in the one raid5d thread) on brd RAM disks, whose members cost nothing, so raid5d binds ('stock
# raid6's RMW path is serialized at gtc=0'): fio 4 KiB random direct writes, 4 jobs x QD32, on
# Intel Xeon Platinum 8481C cores (Google Cloud c3, sustained all-core turbo 3.0 GHz), Linux 6.12
# (RHEL 10.2); scopedog/md-kmec, README.md, 'Benchmark -- raidkm vs stock raid6', stock column
# (2026): 6 members (k=4, m=2) on a c3-standard-8, 72,767 and 83,852 IOPS on two dates (mean
# 78,310); 16 members (k=14, m=2) on a c3-standard-22, 54,266 IOPS. At 3.0 GHz a write costs
# 38,310 cycles on 6 members and 55,283 on 16: 1,697 more per member, and the rest, 28,125, over
# its 6 member requests, 4,688 each. The figure carries brd's page copies and the bios'
# completions (brd completes a bio inside its submitter, raid5d; an NVMe drive's completion runs in
# its interrupt, though raid5d still takes the stripe back) and the parity of a 4 KiB write, which
# MD_PARITY_COPIES charges again (about 4 % of it): it errs high, as a planner wants it.
# Checks, neither with a figure of its own to derive from: on an AMD Ryzen 7 5800X (boost 4.7
# GHz), 6 members, the same run gave 124,327 and 129,367 IOPS, 38,310 cycles at 4.8 to 5.0 GHz
# (the README's 'Worker-thread tuning detail' and 'SIMD spectrum' tables); on that machine's
# VM, 6 loop devices (k=4, 64 KiB chunks), stock RAID6 wrote 256 KiB full stripes at 2,549 MB/s
# (scopedog/mdraid, notes/bench_2026-04-27.md, 'rhel10 VM (no-GFNI Zen 3...)', bottleneck not
# stated), at most 30,200 cycles a stripe_head at 4.7 GHz, parity and copies in it, against
# 28,760 here before the parity; Shaohua Li on linux-raid (2012, mail.spinics.net/lists/raid/
# msg39330.html): 'in my test raid5 thread must handle > 450k requests per second. Just doing
# dispatch and completion will make raid5 thread incapable': a 4-member RAID5's small write here
# is 6,385 cycles a member request, 390,000 to 470,000 a second at 2.5 to 3 GHz (his processor is
# not named, nor is the Atom of his commit 765d704db1f5, whose 9-disk RAID5 wrote ~600 MB/s).
MD_STRIPE_B = 4096
MD_REFERENCE_CLOCK_GHZ = 3.0  # Google Cloud c3 (Xeon Platinum 8481C), sustained all-core turbo
MD_REFERENCE_RMW_IOPS = {6: (72_767 + 83_852) / 2, 16: 54_266.0}  # members -> 4 KiB RAID6 writes/s


def _md_reference_costs() -> tuple[float, float]:
    """Cycles raid5d spends per member request and per member slot of a stripe_head, from the
    published RAID6 small-write rates on two widths (``MD_REFERENCE_RMW_IOPS``)."""
    (narrow, narrow_iops), (wide, wide_iops) = sorted(MD_REFERENCE_RMW_IOPS.items())
    narrow_cycles, wide_cycles = (
        MD_REFERENCE_CLOCK_GHZ * 1e9 / iops for iops in (narrow_iops, wide_iops)
    )
    slot = (wide_cycles - narrow_cycles) / (wide - narrow)
    return (narrow_cycles - narrow * slot) / LEVELS["raid6"].write_penalty, slot


MD_CYCLES_PER_MEMBER_REQUEST, MD_CYCLES_PER_MEMBER_SLOT = _md_reference_costs()


def md_raid5d_cycles_per_byte(
    level: str, drives: int, chunk_B: float, small_write_B: float | None, commands: int
) -> float:
    """Cycles an md RAID5/6 group of ``drives`` spends in its raid5d per byte written, beyond the
    parity: writes of ``small_write_B``, smaller than a stripe (a stripe_head per page, each its
    ``commands`` member requests, ``requests.small_write_commands``, and a pass over every
    member), or full stripes (None: a stripe_head per page of each data member, each a write to
    every member, and a pass over every member per batch, a chunk's pages)."""
    lvl = LEVELS[level]
    if small_write_B is None:
        batch = max(chunk_B / MD_STRIPE_B, 1.0)
        per_stripe = drives * (MD_CYCLES_PER_MEMBER_REQUEST + MD_CYCLES_PER_MEMBER_SLOT / batch)
        return per_stripe / (lvl.data_members(drives) * MD_STRIPE_B)
    # a stripe_head is a page of every member: a write over several chunks fills several of its
    # data pages, so it takes a stripe_head per page of one chunk's share
    touched = min(math.ceil(small_write_B / chunk_B), lvl.data_members(drives))
    stripes = math.ceil(small_write_B / touched / MD_STRIPE_B)
    per_stripe = commands * MD_CYCLES_PER_MEMBER_REQUEST + drives * MD_CYCLES_PER_MEMBER_SLOT
    return stripes * per_stripe / small_write_B


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


@dataclass
class StoragePath:
    """The resources of one host's storage and the usage of a byte streamed to each volume."""

    network: FlowNetwork
    host: Host
    disks: dict[str, list[tuple[str, Disk | Ssd]]]  # volume -> [(resource name, part)]
    usage_per_byte: dict[str, dict[FlowResource, float]]  # volume -> resource -> units per byte
    driver_s_per_byte: dict[
        str, float
    ]  # volume -> host CPU seconds its drivers cost per byte written
    parity_s_per_byte: dict[
        str, float
    ]  # volume -> host CPU seconds md's parity (ZFS's checksums too) costs per byte it serves
    request_s: dict[str, float]  # volume -> device seconds of one random request alone
    checkpoint_s_per_byte: dict[str, float]  # volume -> a writer's wait for its journal checkpoint
    notes: tuple[str, ...] = ()  # what the user should know of how the drives serve the streams


def group_shares(
    volume: Volume, part: Disk | Ssd, random_span_GB: float | None = None
) -> list[float]:
    """The share of a stream's bytes each group (LUN) of the volume carries: LVM linear puts a
    stream in order in the first group, and requests at random anywhere in the span they fall in
    (``random_span_GB``; ``inf``, the whole volume), each group the share of it it holds."""
    level, groups = volume.layout()
    if volume.lvm == "linear" and random_span_GB is not None and groups > 1:
        group_GB = LEVELS[level].data_members(volume.disks.count // groups) * part.capacity_GB
        span_GB = min(random_span_GB, groups * group_GB)
        return [min(group_GB, max(0.0, span_GB - g * group_GB)) / span_GB for g in range(groups)]
    if volume.lvm == "linear" or groups == 1:
        return [1.0] + [0.0] * (groups - 1)
    stripes = volume.lvm_stripes or groups
    return [1.0 / stripes] * stripes + [0.0] * (groups - stripes)


# A block pointer of ext2 and ext3: 4 bytes in an indirect block for each data block (Card, Ts'o and
# Tweedie, "Design and Implementation of the Second Extended Filesystem", 1994: 12 direct blocks,
# then indirect blocks of 4-byte block numbers); double-indirect blocks add a pointer per
# block_B / 4 of those, under a thousandth more, left out.
BLOCK_POINTER_B = 4


def metadata_share(filesystem: FileSystem) -> float:
    """Bytes of block map read or written per byte of file data."""
    if filesystem.type in ("ext2", "ext3"):
        return BLOCK_POINTER_B / (filesystem.block_KiB * 1024)
    return 0.0


@dataclass(frozen=True)
class Journal:
    """What ext3's journal adds to a byte written (``FileSystem.journal``, the ``data=`` mode).

    The journal is a region of the volume itself (mke2fs's internal journal). Every mode journals
    the block map before it goes to its place, so the map is written twice; ``data=journal``
    journals the data too: each byte crosses the path twice (``copies``), and since a streaming
    writer fills the journal in a fraction of a second, the writer itself checkpoints it
    (JBD's ``__log_wait_for_space`` calls ``log_do_checkpoint`` in the writing process, which writes
    the journalled blocks to their places and waits for them): it waits for its own bytes' second
    write (``waits``). Reads are not touched.
    """

    copies: float = 1.0  # times each data byte is written
    map_copies: float = 1.0  # times each byte of block map is written
    waits: bool = False  # the writer waits for the checkpoint writes of its bytes


def journal(filesystem: FileSystem, op: str, where: str, key: str) -> Journal:
    """The journal's work on a byte ``op`` moves on ``filesystem``; a journal mode on a file
    system without one is the user's mistake."""
    if filesystem.type != "ext3":
        if filesystem.journal != "ordered":
            raise UserError(
                where,
                key,
                f"is ext3's data= mode; this volume's file system is {filesystem.type}, which "
                "has none (leave journal out)",
            )
        return Journal()
    if op != "write":
        return Journal()
    if filesystem.journal == "journal":
        return Journal(copies=2.0, map_copies=2.0, waits=True)
    return Journal(map_copies=2.0)


def drive_share(level: str, drives: int, op: str) -> float:
    """Bytes on each drive's surface per byte written to or read from a group of ``drives``."""
    return LEVELS[level].drive_share(drives, op)


def build(
    net: FlowNetwork,
    body: StorageBody,
    catalog: Catalog,
    params: dict[str, float],
    where: str,
    bytes_per_stream: float,
) -> StoragePath:
    """Declare the resources the workload's volumes use and each volume's usage per byte."""
    host: Host = catalog.get("hosts", body.host, where, "host")
    efficiency = params["bus_efficiency"]
    declared: dict[str, FlowResource] = {}

    def sustained_Bps(bus: Bus) -> float:
        """What the bus carries: a parallel bus or drive channel its peak times
        ``bus_efficiency`` (arbitration and turnaround), a serial link the payload its frames
        leave of its encoded rate."""
        if bus.kind == "serial":
            return bus.peak_MBps * 1e6 * framing.payload_share(bus, body.pcie_max_payload_B)
        return bus.peak_MBps * 1e6 * efficiency

    def resource(name: str, capacity) -> FlowResource:
        if name not in declared:
            declared[name] = net.resource(name, capacity())
        return declared[name]

    def card_bus(cname: str) -> Bus:
        """The bus of a controller's own host interface."""
        key = f"controllers.{cname}.part"
        ctrl: Controller = catalog.get("controllers", body.controllers[cname].part, where, key)
        return catalog.get("buses", ctrl.host_bus, where, key)

    def segment_bus(name: str) -> Bus:
        """The catalog bus of the scenario's segment ``name``."""
        return catalog.get("buses", body.buses[name].part, where, f"buses.{name}.part")

    def segment(name: str) -> FlowResource:
        """A bus segment, its rate reckoned once, when it is first declared."""
        return resource(f"bus {name}", lambda: segment_Bps(name))

    def segment_Bps(name: str) -> float:
        """What a segment carries; a multidrop one (PCI, PCI-X) runs at the clock of its slowest
        card: a 33 MHz card holds a 66 MHz PCI segment at 33 MHz, and a conventional PCI card puts a
        PCI-X segment in conventional mode at that card's clock (PCI Local Bus Specification 2.2,
        the M66EN pin; PCI-X Addendum 1.0)."""
        bus = segment_bus(name)
        if not bus.multidrop:
            return sustained_Bps(bus)
        clock_MHz = min(
            [bus.clock_MHz]
            + [
                own.clock_MHz
                for cname, slot in body.controllers.items()
                if slot.bus == name and (own := card_bus(cname)).kind == "parallel"
            ]
        )
        return bus.width_bits / 8 * clock_MHz * bus.transfers_per_clock * 1e6 * efficiency

    def chain(name: str) -> list[str]:
        """A segment and those it hangs from (``BusSegment.via``), nearest first."""
        out = [name]
        while body.buses[out[-1]].via is not None:
            out.append(body.buses[out[-1]].via)
        return out

    def upstream(name: str) -> list[FlowResource]:
        """The segments ``name`` hangs from, each with the link it trains to where that is slower
        than the segment itself (``switch_link``)."""
        out = []
        for parent in chain(name)[1:]:
            out.append(segment(parent))
            link = switch_link(parent)
            if link is not None:
                out.append(link)
        return out

    def switch_link(parent: str) -> FlowResource | None:
        """A segment others hang from is a PCIe switch's uplink (or a chipset's link): it trains to
        what the switch and the slot share (``pcie_trained``), the switch as fast and as wide as
        its fastest downstream segment. A PCIe 4.0 switch in a 5.0 x8 slot runs at 4.0 x8, half
        the slot's rate. None where that is no slower than the segment."""
        bus = segment_bus(parent)
        below = [segment_bus(n) for n, seg in body.buses.items() if seg.via == parent]
        if bus.protocol != "pcie" or any(b.protocol != "pcie" for b in below):
            return None
        fastest = max(below, key=lambda b: b.lane_rate_Gbps)
        switch = replace(fastest, lanes=max(b.lanes for b in below))
        link = pcie_trained(switch, bus)
        if sustained_Bps(link) >= sustained_Bps(bus):
            return None
        return resource(f"link {parent}", lambda: sustained_Bps(link))

    def slot_costs(cname: str) -> dict[FlowResource, float]:
        """Segment time a byte the controller moves takes on its slot's segment
        (``segment_cost``) and on each segment that one hangs from (a PCIe switch's uplink, a
        chipset's link to the processor: one byte each)."""
        slot = body.controllers[cname].bus
        return {segment(slot): segment_cost(cname), **dict.fromkeys(upstream(slot), 1.0)}

    def segment_cost(cname: str) -> float:
        """Segment time a byte the controller moves takes, in the segment's own bytes: a 32-bit
        card on a 64-bit multidrop segment moves four bytes a data phase, not eight."""
        bus = segment_bus(body.controllers[cname].bus)
        own = card_bus(cname)
        if bus.multidrop and own.kind == "parallel" and own.width_bits < bus.width_bits:
            return bus.width_bits / own.width_bits
        return 1.0

    def controller(name: str) -> Controller:
        slot = body.controllers[name]
        ctrl: Controller = catalog.get("controllers", slot.part, where, f"controllers.{name}.part")
        if slot.transfer == "pio":
            raise NotModelled(
                f"controller {name}: programmed I/O (DMA off) is not modelled; its CPU cost "
                "per interrupt is in no report"
            )
        return ctrl

    def host_interface(name: str) -> FlowResource:
        """The controller's own host interface in its slot (each controller of a pair has its
        own), and a datasheet's stated maximum. A PCI Express card's link trains to what it and
        its slot share (``pcie_trained``); where the slot alone sets it, no faster and no wider
        than the card, the limit is the slot segment's, which the path crosses as ``bus SLOT``."""
        ctrl = controller(name)
        own, slot_bus = card_bus(name), segment_bus(body.controllers[name].bus)
        limit = ctrl.max_throughput_MBps * 1e6 if ctrl.max_throughput_MBps else float("inf")
        link = pcie_trained(own, slot_bus)
        if not (own.protocol == slot_bus.protocol == "pcie"):
            card_Bps = min(sustained_Bps(own) * ctrl.processors, sustained_Bps(slot_bus))
        elif link == slot_bus:
            card_Bps = float("inf")
        else:
            card_Bps = sustained_Bps(link) * ctrl.processors
        return resource(f"controller {name}", lambda: min(card_Bps, limit))

    def channel_rate_Bps(ctrl: Controller, cname: str) -> float:
        """What one of the controller's drive channels carries, in the mode its driver set."""
        ch_bus = catalog.get("buses", ctrl.channel_bus, where, f"controllers.{cname}.part")
        mode = body.controllers[cname].channel_mode
        if mode is not None:  # the driver programmed a slower mode than the controller's best
            key = f"controllers.{cname}.channel_mode"
            set_bus = catalog.get("buses", mode, where, key)
            if set_bus.kind != "channel" or set_bus.peak_MBps > ch_bus.peak_MBps:
                slower = sorted(
                    b
                    for b, bus in catalog.parts["buses"].items()
                    if bus.kind == "channel" and bus.peak_MBps <= ch_bus.peak_MBps
                )
                raise UserError(
                    where,
                    key,
                    f"must be a drive-channel mode no faster than the {ctrl.name}'s "
                    f"{ctrl.channel_bus}; allowed: {', '.join(slower)}",
                )
            if set_bus.programmed_io:  # as a controller's transfer: pio (``controller``)
                raise NotModelled(
                    f"controllers.{cname}.channel_mode {mode}: programmed I/O is not modelled; "
                    "its CPU cost per word moved is in no report"
                )
            ch_bus = set_bus
        return sustained_Bps(ch_bus)

    def controller_channel(point: str, at: str) -> tuple[str, float]:
        """The controller a ``CONTROLLER.CHANNEL`` point is on, and what the channel carries."""
        cname, _, number = point.partition(".")
        ctrl = controller(cname)
        if int(number) >= ctrl.channels:
            raise UserError(
                where, at, f"{ctrl.name} has channels 0 to {ctrl.channels - 1}, got {point!r}"
            )
        return cname, channel_rate_Bps(ctrl, cname)

    def shelf_part(name: str) -> Enclosure | Expander:
        return catalog.get_one_of(
            ("enclosures", "expanders"), body.shelves[name].part, where, f"shelves.{name}.part"
        )

    def uplink(name: str) -> tuple[str, list[FlowResource]]:
        """The shelf's lane group toward its controller (every lane the lesser of the
        controller's channel and the shelf's host lane) and, in a cascaded JBOD, its expanders'
        internal lanes."""
        shelf, part = body.shelves[name], shelf_part(name)
        lanes = part.host_lanes if isinstance(part, Enclosure) else part.uplink_lanes
        host_bus_id = part.host_lane_bus if isinstance(part, Enclosure) else part.lane_bus
        if len(shelf.uplink) > lanes:
            raise UserError(
                where,
                f"shelves.{name}.uplink",
                f"{part.name} takes at most {lanes} uplink lanes "
                f"(one module's host ports), got {len(shelf.uplink)}",
            )
        host_lane = catalog.get("buses", host_bus_id, where, f"shelves.{name}.part")
        channels = [
            controller_channel(p, f"shelves.{name}.uplink[{k}]") for k, p in enumerate(shelf.uplink)
        ]
        capacity = sum(min(rate, sustained_Bps(host_lane)) for _, rate in channels)
        links = [resource(f"uplink {name}", lambda: capacity)]
        if isinstance(part, Enclosure) and part.internal_lanes:
            inner = catalog.get("buses", part.drive_lane_bus, where, f"shelves.{name}.part")
            links.append(
                resource(
                    f"expanders {name}",
                    lambda: part.internal_lanes * sustained_Bps(inner),
                )
            )
        return channels[0][0], links

    def nvme_links(part: Disk | Ssd, point: str, at: str) -> list[FlowResource]:
        """An NVMe drive on a bus segment's lanes: its own link, then the segment it shares."""
        if not isinstance(part, Ssd) or part.interface != "nvme":
            raise UserError(where, at, f"only an NVMe drive sits on a bus segment, got {part.name}")
        seg_name, _, number = point[len(NVME) + 1 :].partition(".")
        seg = catalog.get("buses", body.buses[seg_name].part, where, f"buses.{seg_name}.part")
        if seg.protocol != "pcie":
            raise UserError(
                where,
                at,
                f"an NVMe drive sits on a PCI Express segment's lanes; buses.{seg_name} is "
                f"{seg.name}",
            )
        own = catalog.get("buses", part.host_bus, where, at)
        # a drive in a narrower slot trains its link down to the slot's lanes: one drive, whose
        # bytes the segment then limits (an x4 NVMe drive on a one-lane PCIe 2.0 link)
        narrower = seg.lanes is not None and seg.lanes < (own.lanes or 1)
        slots = 1 if narrower else (seg.lanes or 0) // (own.lanes or 1)
        if seg.lanes is None or int(number) >= slots:
            raise UserError(
                where,
                at,
                f"{seg.name} holds {slots} {own.name} drive(s), slots 0 to {slots - 1}; "
                f"got {point!r}",
            )
        path = [segment(seg_name), *upstream(seg_name)]
        link = pcie_trained(own, seg)
        if link == seg:  # the segment's own lanes and generation: its limit is the drive's
            return path
        # and at the segment's generation where that is older than the drive's
        return [resource(f"link {point}", lambda: sustained_Bps(link)), *path]

    def own_link(part: Disk | Ssd, point: str, at: str) -> list[FlowResource]:
        """A SATA or SAS flash drive's own link behind its channel (a disk's is the channel)."""
        if not isinstance(part, Ssd):
            return []
        if part.interface == "nvme":
            raise UserError(where, at, f"an NVMe drive attaches as nvme.SEGMENT.N, got {point!r}")
        own = catalog.get("buses", part.host_bus, where, at)
        return [resource(f"link {point}", lambda: sustained_Bps(own))]

    def drive_links(point: str, at: str) -> tuple[str, list[FlowResource]]:
        """The controller a drive's bytes reach and the links they cross on the way there: its
        controller channel, or its shelf's bay, expanders and uplink."""
        holder, _, number = point.partition(".")
        if holder not in body.shelves:
            cname, rate_Bps = controller_channel(point, at)
            return cname, [resource(f"channel {point}", lambda: rate_Bps)]
        part = shelf_part(holder)
        bays = part.bays if isinstance(part, Enclosure) else part.drive_phys
        if int(number) >= bays:
            raise UserError(where, at, f"{part.name} has bays 0 to {bays - 1}, got {point!r}")
        bay_bus = catalog.get(
            "buses",
            part.drive_lane_bus if isinstance(part, Enclosure) else part.lane_bus,
            where,
            f"shelves.{holder}.part",
        )
        cname, links = uplink(holder)
        bay = resource(f"bay {point}", lambda: sustained_Bps(bay_bus))
        return cname, [bay, *links]

    def raid_processor(ctrl: Controller, cname: str, group: int) -> tuple[FlowResource, float]:
        """The RAID processor that keeps ``group``, and its busy seconds per cache block."""
        if ctrl.type != "raid":
            raise UserError(
                where,
                f"controllers.{cname}.part",
                f"{ctrl.name} is a plain controller; engine: controller needs a RAID controller",
            )
        if ctrl.processor_MHz is None:
            raise NotModelled(
                f"{ctrl.name}: its RAID processor's speed is not in the catalog, so its own RAID "
                f"engine is not modelled; engine: md, the host's RAID over its drives, is"
            )
        block_s = params["raid_cycles_per_cache_block"] / (ctrl.processor_MHz * 1e6)
        return resource(f"raid {cname}.{group % ctrl.processors}", lambda: 1.0), block_s

    op = body.workload.op

    def driver_cost(cname: str) -> float:
        name = body.controllers[cname].driver_cost
        if name is None:
            return 0.0
        if name not in params:
            raise UserError(
                where,
                f"controllers.{cname}.driver_cost",
                f"must name a declared free parameter; allowed: {', '.join(sorted(params))}",
            )
        return params[name] * 1e-9

    def mirror_reads(vname: str) -> str | None:
        """How the RAID card keeping volume ``vname`` picks a mirror's copy for a read (its
        ``mirror_reads``); None under md and ZFS, which keep their own policies."""
        volume = body.volumes[vname]
        if volume.engine != "controller":
            return None
        return body.controllers[drive_links(volume.disks.attach[0], "")[0]].mirror_reads

    def device(vname: str) -> Disk | Ssd:
        """The volume's drive: a hard disk or a flash drive of the catalog, with the scenario's
        own time per command where it gives one (``DiskSet.command_overhead_ms``)."""
        disk_set = body.volumes[vname].disks
        part_id, key = disk_set.part, f"volumes.{vname}.disks.part"
        if part_id in catalog.parts["ssds"]:
            if disk_set.command_overhead_ms is not None:
                raise UserError(
                    where,
                    f"volumes.{vname}.disks.command_overhead_ms",
                    f"{part_id} is a flash drive; only a hard disk has a time per command here",
                )
            return catalog.parts["ssds"][part_id]
        part = catalog.get_one_of(("disks", "ssds"), part_id, where, key)
        if disk_set.command_overhead_ms is None:
            return part
        return replace(part, command_overhead_ms=disk_set.command_overhead_ms)

    w = body.workload
    request_B = w.request_KiB * 1024
    disks: dict[str, list[tuple[str, Disk | Ssd]]] = {}
    usage: dict[str, dict[FlowResource, float]] = {}
    driver: dict[str, float] = {}
    parity: dict[str, float] = {}
    response: dict[str, float] = {}
    checkpoint: dict[str, float] = {}
    notes: list[str] = []
    volumes = [body.workload.target] + ([body.workload.source] if op == "copy" else [])
    for vname in volumes:
        volume = body.volumes[vname]
        part = device(vname)
        level, n_groups = volume.layout()
        per_group = volume.disks.count // n_groups
        random_span_GB = (w.span_GB or math.inf) if w.pattern == "random" else None
        groups = group_shares(volume, part, random_span_GB)
        volume_op = "write" if op == "copy" and vname == body.workload.target else op
        # bytes on each drive's surface per byte the stream moves: its share and the block map's
        block_map = 0.0 if volume.engine == "zfs" else metadata_share(volume.filesystem)
        journalled = journal(
            volume.filesystem, volume_op, where, f"volumes.{vname}.filesystem.journal"
        )
        # bytes each drive transfers, and the bytes of its time: a platter turns past a read's
        # parity chunks, flash reads only what it is asked for
        transferred = LEVELS[level].transfer_share(per_group, volume_op) * (1.0 + block_map)
        surface = (
            transferred
            if isinstance(part, Ssd)
            else drive_share(level, per_group, volume_op) * (1.0 + block_map)
        )
        journal_share = (journalled.copies + journalled.map_copies * block_map) / (1.0 + block_map)
        # what the workload's data takes on each drive of its busiest group: it must fit
        footprint_B = (
            w.streams * bytes_per_stream * max(groups) * drive_share(level, per_group, "write")
        )
        start = 0.0 if w.pattern == "random" else w.start_fraction
        if footprint_B > (1.0 - start) * part.capacity_GB * 1e9:
            need_GB = w.streams * bytes_per_stream / 1e9
            fits_from_the_edge = footprint_B <= part.capacity_GB * 1e9
            raise UserError(
                where,
                "workload.start_fraction" if fits_from_the_edge else "workload.total_MB",
                f"{need_GB:,.6g} GB of data"
                + (f" ({w.streams:,} streams of {w.total_MB:,.6g} MB)" if w.streams > 1 else "")
                + f" do not fit on volume {vname}: it would take "
                f"{footprint_B / 1e9:,.6g} GB of each {part.capacity_GB:g} GB drive"
                + (f" from {start:.6g} of the way in" if start else ""),
            )
        drive_B = w.streams * bytes_per_stream * max(groups) * surface
        # the share of each drive random requests fall in (the volume's first span_GB)
        random_span = requests.span_share(volume, vname, part, w.span_GB, groups, where)
        if isinstance(part, Ssd):
            rate_Bps = flash.sequential_Bps(part, volume_op, drive_B)
        else:
            span = random_span if w.pattern == "random" else drive_B / (part.capacity_GB * 1e9)
            rate_Bps = (
                disk_model.mean_rate_MBps(part, params["disk_format_efficiency"], start, span) * 1e6
            )
            if (
                w.pattern == "sequential"
                and volume_op == "read"
                and w.streams > 1
                and w.io != "mmap"
                and volume.engine != "controller"
            ):  # the streams take turns at the drives (``interleave``)
                media_Bps = rate_Bps
                own = body.clients is None or body.clients.protocol == "smb"
                if volume.engine == "zfs" and volume.zfetch_max_distance_MiB is None:
                    # OpenZFS 2.2's default for the host (openzfs/zfs #15072)
                    distance = 64.0 if host.arch_bits == 64 else 8.0
                    volume = replace(volume, zfetch_max_distance_MiB=distance)
                rate_Bps = interleave.drive_Bps(
                    part, volume, body.kernel, w, per_group, media_Bps, span, own_processes=own
                )
                if rate_Bps < media_Bps:  # (a mirror's streams may each have a copy)
                    notes.append(
                        interleave.note(vname, volume, body.kernel, w, per_group, own)
                        + f"; a drive reads {rate_Bps / 1e6:,.1f} of its {media_Bps / 1e6:,.1f} "
                        "MB/s"
                    )
        copies = LEVELS[level].copies_in(per_group)
        # a RAID card told to read from the first copy (its mirror_reads) sends every read there
        primary = volume_op == "read" and copies > 1 and mirror_reads(vname) == "primary"
        if w.pattern == "random":
            lay = (zfs.random_layout if volume.engine == "zfs" else requests.layout)(
                volume, volume_op, request_B, per_group
            )
            if primary:
                lay = replace(lay, share=lay.share * copies)
            response[vname] = requests.response_s(part, volume_op, lay, rate_Bps, random_span)
            surface = transferred = lay.share
            # the requests in flight spread over the groups: the busiest's share reach its drives
            in_flight = w.streams * zfs.in_flight(volume, w) * max(groups)
            commands = requests.queued(part, lay, request_B, in_flight)
            if (
                volume_op == "write"
                and lay.phases == 1
                and writecache.destages_random_writes(body, vname, part)
            ):  # the drive's cache takes the writes and destages them among all it holds
                commands = max(commands, requests.cached_writes(part, lay.piece_B))
                response[vname] = requests.acknowledged_s(part, lay.piece_B)
            rate_Bps = requests.drive_Bps(
                part, volume_op, lay.piece_B, rate_Bps, random_span, commands
            )
        elif primary:
            surface, transferred = surface * copies, transferred * copies
        elif volume_op == "read" and copies > 1 and isinstance(part, Disk):
            # a stream reading in order stays on one copy of each mirror, whose head follows it
            # (md's read_balance keeps a sequential read on its disk, ZFS's vdev_mirror the child
            # whose head is near, a card's balanced policy the first of equally idle copies): one
            # stream reads at one copy's rate, as md(4) says of the near layout against the far one
            # ('sequential read performance equal to that of a RAID0 array'), and more streams
            # spread over the copies; each copy passes over what the others read meanwhile
            surface *= copies / min(w.streams, copies)
        use: dict[FlowResource, float] = {}
        disks[vname] = []
        driver[vname] = parity[vname] = 0.0

        def add(res: FlowResource, share: float, use: dict[FlowResource, float] = use) -> None:
            if share:  # (a copy no read goes to is not on the path)
                use[res] = use.get(res, 0.0) + share

        for g, g_share in enumerate(groups):
            if g_share == 0.0:
                continue
            members = range(g * per_group, (g + 1) * per_group)
            for i in members:
                # under primary, a mirror's other copies read nothing
                weight = 0.0 if primary and (i - members[0]) % copies else 1.0
                point, at = volume.disks.attach[i], f"volumes.{vname}.disks.attach[{i}]"
                on_lanes = point.partition(".")[0] == NVME
                if on_lanes:
                    links = nvme_links(part, point, at)
                else:
                    cname, links = drive_links(point, at)
                    links = own_link(part, point, at) + links
                dres = resource(f"disk {vname}.{i}", lambda rate_Bps=rate_Bps: rate_Bps)
                disks[vname].append((dres.name, part))
                add(dres, g_share * surface * weight)
                for link in links:
                    add(link, g_share * transferred * weight)
                if not on_lanes and volume.engine != "controller":
                    add(host_interface(cname), g_share * transferred * weight)
                    for res, cost in slot_costs(cname).items():
                        add(res, g_share * transferred * weight * cost)
            if volume.engine == "zfs":
                parity[vname] += g_share * zfs.host_s_per_byte(volume, volume_op)
                continue
            # the group's user bytes between the host and whoever keeps its layout
            first = volume.disks.attach[members[0]]
            if first.partition(".")[0] == NVME:
                if volume.engine == "controller":
                    raise UserError(
                        where, f"volumes.{vname}.engine", "NVMe drives on a bus segment need md"
                    )
            else:
                cname = drive_links(first, "")[0]
                ctrl = controller(cname)
                if volume_op == "write":  # the driver path a writer pays (stream_usage)
                    driver[vname] += g_share * driver_cost(cname)
            if volume.engine == "md" and LEVELS[level].parity_chunks and volume_op == "write":
                # the parity's copies and the stripe_heads' requests, in the array's raid5d
                small = w.pattern == "random" and lay.phases == 2
                stripe_cycles = md_raid5d_cycles_per_byte(
                    level,
                    per_group,
                    volume.chunk_KiB * 1024,
                    request_B if small else None,
                    lay.commands if small else 0,
                )
                raid5d_s = MD_PARITY_COPIES[level] / (host.copy_rate_MBps * 1e6) + stripe_cycles / (
                    host.clock_GHz * 1e9
                )
                add(resource(f"raid5d {vname}.{g}", lambda: 1.0), g_share * raid5d_s)
                parity[vname] += g_share * raid5d_s
            if volume.engine == "controller":
                if volume.group_paths:  # the group's wire, and the links it hangs from
                    path = volume.group_paths[g % len(volume.group_paths)]
                    costs = {segment(name): 1.0 for name in chain(path)}
                    if ctrl.max_throughput_MBps:  # the array's stated maximum, wires aside
                        limit_Bps = ctrl.max_throughput_MBps * 1e6
                        array = resource(f"array {cname}", lambda limit=limit_Bps: limit)
                        costs[array] = 1.0
                else:
                    costs = {**slot_costs(cname), host_interface(cname): 1.0}
                for res, cost in costs.items():
                    add(res, g_share * cost)
                processor, block_s = raid_processor(ctrl, cname, g)
                add(processor, g_share * block_s / (volume.cache_block_KiB * 1024))
        # the writer's wait for its checkpoint: its bytes' one write at the volume's own pace
        checkpoint[vname] = (
            max(share / res.capacity for res, share in use.items()) if journalled.waits else 0.0
        )
        usage[vname] = {res: share * journal_share for res, share in use.items()}
        driver[vname] *= journal_share
        parity[vname] *= journal_share
    return StoragePath(net, host, disks, usage, driver, parity, response, checkpoint, tuple(notes))
