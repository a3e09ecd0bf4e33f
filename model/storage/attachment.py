"""How a host's drives reach it, as flow resources: controllers (HBAs and RAID cards) in their
slots, their drive channels, shelves (enclosures and expanders) and their uplinks, a flash drive's
own link, and NVMe drives on a bus segment's lanes.

A drive plugs in only where its interface fits: a controller's channels and a shelf's bays take
the drives their bus's protocol does (``DRIVES_TAKEN``, from the ATA, SCSI and SAS standards), an
NVMe drive a PCI Express segment. A controller's host interface carries what its link to the slot
trains to (``parts.pcie_trained``) and at most its datasheet's stated maximum; a drive channel
runs in the mode its driver set; a shelf's uplink carries the lesser of each controller channel
and the shelf's host lane, and a cascaded JBOD's expanders their internal lanes; a RAID card's
processor spends ``RAID_READ_CYCLES_PER_REQUEST`` a request it reads and, a write,
``raid_cycles_per_cache_block`` a cache block on an array that keeps them
(``Controller.cache_block_sizes_KiB``), else ``raid_cycles_per_write_command`` a drive command
(``model.storage.topology``). The rates are the catalog's datasheets through
``buses.Buses.sustained_Bps``; ``bus_efficiency`` and
``raid_cycles_per_cache_block`` are fitted on the storage tables (``model.storage.parameters``:
``atlas_disk``, ``atlas_hosts`` and, for the MD3260's controllers, ``em_ingest``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import NotModelled, UserError
from ..parts import Bus, Controller, Disk, Enclosure, Expander, Ssd, check_bay, pcie_trained
from ..sim.flows import FlowResource
from .buses import Buses, full_duplex
from .spec import NVME

# A RAID card's processor cycles a read request: HP's 'Smart Array Controllers and basic RAID
# performance factors' (2012) gives its P421's 1000 MHz RAID-on-Chip 'up to 200,000 4 KB random
# Input/Output Operations Per Second', 5,000 cycles an I/O, and says 'Neither the Smart Array
# processor nor the cache size affects the read performance greatly': its Figure 6's 256 KiB
# sequential reads of RAID 0, 10, 5 and 6 scale with the drives up to the 4 x 6 Gb/s SAS link
# (some 2,000 MiB/s at 16 drives), which 5,000 cycles a 256 KiB read allow many times over. The
# cost a cache block the MD3260's writes fitted (raid_cycles_per_cache_block) would hold that
# card's reads to some 320 MB/s. Taken for every card with a clock (a write's drive commands on a
# card without cache blocks: raid_cycles_per_write_command, model.storage.parameters)
RAID_READ_CYCLES_PER_REQUEST = 1e9 / 200_000

# The drive interfaces (``Disk.interface``, ``Ssd.interface``) a controller's drive channel or a
# shelf's bay takes, by the protocol of its bus (``Bus.protocol``), each as its standard has it:
DRIVES_TAKEN = {
    # a parallel ATA channel, IDE drives only: ATA/ATAPI-6 (ANSI INCITS 361-2002) defines its
    # 40-pin connector and 80-conductor cable, which only a parallel ATA drive plugs into
    "ide": ("ide",),
    # a parallel SCSI bus, SCSI drives only: SPI-3 (ANSI INCITS 336-2000) and SPI-4 (ANSI INCITS
    # 362-2002) define its wide bus and its 68-pin and 80-pin (SCA-2) connectors
    "scsi": ("scsi",),
    # a SAS port or bay, SAS drives and SATA ones: SAS-1 (ANSI INCITS 376-2003) lets a SAS
    # initiator attach SATA devices, directly on its port or through expanders (its SATA
    # Tunneled Protocol, STP), on a connector a SATA drive plugs into (SFF-8482)
    "sas": ("sas", "sata"),
    # a SATA host port, SATA drives only: a SAS drive does not work on it (SAS-1, ANSI INCITS
    # 376-2003: a SAS drive's connector is keyed not to mate with a SATA host's, which speaks no
    # SAS protocol)
    "sata": ("sata",),
}
# a drive interface as a message names it, with its article (an NVMe drive is told by own_link)
INTERFACE_WORDS = {
    "ide": "an IDE (parallel ATA)",
    "scsi": "a SCSI (parallel SCSI)",
    "sata": "a SATA",
    "sas": "a SAS",
}


def unplugged(part_id: str, drive: Disk | Ssd, holder: str, bus: Bus) -> str | None:
    """Why drive ``part_id`` cannot plug into ``holder`` ("promise1's channels", "the ... 's
    ports"), whose bus is ``bus`` (``DRIVES_TAKEN``); None where it can."""
    taken = DRIVES_TAKEN.get(bus.protocol or "", ())
    if drive.interface in taken:
        return None
    words = [INTERFACE_WORDS[i].split(" ", 1)[1] for i in taken]
    takes = f"{' and '.join(words)} drives only" if words else "no drive"
    return (
        f"{part_id} is {INTERFACE_WORDS[drive.interface]} drive; {holder} ({bus.name}) take {takes}"
    )


def _channel_bus(body, catalog, where: str, cname: str) -> tuple[str, Bus]:
    """Controller ``cname``'s part key and the bus its drive channels run."""
    key = f"controllers.{cname}.part"
    card = catalog.get("controllers", body.controllers[cname].part, where, key)
    return key, catalog.get("buses", card.channel_bus, where, key)


def check_interfaces(body, catalog, where: str) -> None:
    """Every volume's drives, the idle ones too, plug into what their controller's channels or
    shelf's bays take (``unplugged``), and every shelf's uplink is cabled to SAS ports: told in
    one line where the drive's part, the holder's part or the attach point was set last. An NVMe
    drive is told by ``Attachment.own_link``; a holder the scenario lacks by the attach checks."""
    for vname, volume in body.volumes.items():
        drive = catalog.get_one_of(
            ("disks", "ssds"), volume.disks.part, where, f"volumes.{vname}.disks.part"
        )
        if drive.interface == NVME:
            continue
        for i, point in enumerate(volume.disks.attach[: volume.disks.count]):
            holder = point.partition(".")[0]
            if holder in body.controllers:
                key, bus = _channel_bus(body, catalog, where, holder)
                what = f"{holder}'s channels"
            elif holder in body.shelves:
                key, what = f"shelves.{holder}.part", f"{holder}'s bays"
                shelf = catalog.get_one_of(
                    ("enclosures", "expanders"), body.shelves[holder].part, where, key
                )
                bus = catalog.get("buses", shelf.drive_lane_bus_id, where, key)
            else:
                continue
            why = unplugged(volume.disks.part, drive, what, bus)
            if why is not None:
                raise UserError(
                    where,
                    f"volumes.{vname}.disks.attach[{i}]",
                    why,
                    related=(f"volumes.{vname}.disks.part", key),
                )
    for sname, shelf in body.shelves.items():
        for i, point in enumerate(shelf.uplink):
            holder = point.partition(".")[0]
            if holder not in body.controllers:
                continue
            key, bus = _channel_bus(body, catalog, where, holder)
            if bus.protocol != "sas":
                raise UserError(
                    where,
                    f"shelves.{sname}.uplink[{i}]",
                    f"a shelf's uplink is cabled to SAS ports; {holder}'s channels are {bus.name}",
                    related=(key, f"shelves.{sname}.part"),
                )


@dataclass(frozen=True)
class Lane:
    """One uplink lane of a shelf: the controller it is cabled to, what it carries (bytes a
    second, the lesser of the controller's channel and the shelf's host lane) and the rate both
    ends signal at (MB/s after encoding), which a slower drive's connection is held to."""

    controller: str
    Bps: float
    peak_MBps: float


class Attachment:
    """The controllers, channels, shelves and links between the scenario's drives and its buses."""

    def __init__(self, buses: Buses, params: dict[str, float]) -> None:
        self.buses, self.params = buses, params
        self.body, self.catalog, self.where = buses.body, buses.catalog, buses.where
        # NVMe attach point -> the drive's own link, the slower one it trains to on its segment
        # and the segment (``nvme_links``; ``topology.trained_down_notes`` tell the user)
        self.trained_down: dict[str, tuple[Bus, Bus, str]] = {}
        # shelf -> what to tell the user where its drives are slower than its lanes and hold them
        # at their own rate (``Shelf.rate_matching`` align, ``drive_links``)
        self.rate_matched: dict[str, str] = {}

    def controller(self, name: str) -> Controller:
        """The catalog part of the scenario's controller ``name``, which must move data by DMA."""
        slot = self.body.controllers[name]
        ctrl: Controller = self.catalog.get(
            "controllers", slot.part, self.where, f"controllers.{name}.part"
        )
        if slot.transfer == "pio":
            raise NotModelled(
                f"controller {name}: programmed I/O (DMA off) is not modelled; its CPU cost "
                "per interrupt is in no report"
            )
        return ctrl

    def host_interface(self, name: str) -> FlowResource:
        """The controller's own host interface in its slot (each controller of a pair has its
        own), and a datasheet's stated maximum. A PCI Express card's link trains to what it and
        its slot share (``pcie_trained``); where the slot alone sets it, no faster and no wider
        than the card, the limit is the slot segment's, which the path crosses as ``bus SLOT``."""
        buses = self.buses
        ctrl = self.controller(name)
        own, slot_bus = buses.card_bus(name), buses.segment_bus(self.body.controllers[name].bus)
        limit = ctrl.max_throughput_MBps * 1e6 if ctrl.max_throughput_MBps else float("inf")
        link = pcie_trained(own, slot_bus)
        if not (own.protocol == slot_bus.protocol == "pcie"):
            card_Bps = min(
                buses.sustained_Bps(own) * ctrl.processors, buses.sustained_Bps(slot_bus)
            )
        elif link == slot_bus:
            card_Bps = float("inf")
        else:
            card_Bps = buses.sustained_Bps(link) * ctrl.processors
        # a datasheet's maximum is the card's, both ways together
        duplex = full_duplex(own) and full_duplex(slot_bus) and math.isinf(limit)
        return buses.resource(f"controller {name}", lambda: min(card_Bps, limit), duplex)

    def channel_rate_Bps(self, ctrl: Controller, cname: str) -> float:
        """What one of the controller's drive channels carries, in the mode its driver set."""
        return self.buses.sustained_Bps(self.channel_bus(ctrl, cname))

    def channel_bus(self, ctrl: Controller, cname: str) -> Bus:
        """The bus one of the controller's drive channels runs as: its own, or the slower mode its
        driver set."""
        catalog, where = self.catalog, self.where
        ch_bus = catalog.get("buses", ctrl.channel_bus, where, f"controllers.{cname}.part")
        mode = self.body.controllers[cname].channel_mode
        if mode is not None:  # the driver programmed a slower mode than the controller's best
            key = f"controllers.{cname}.channel_mode"
            set_bus = catalog.get("buses", mode, where, key)

            def a_mode(bus: Bus) -> bool:  # a mode of the controller's own kind of channel
                return (
                    bus.kind == "channel"
                    and bus.protocol == ch_bus.protocol
                    and bus.peak_MBps <= ch_bus.peak_MBps
                )

            if not a_mode(set_bus):
                slower = sorted(b for b, bus in catalog.parts["buses"].items() if a_mode(bus))
                raise UserError(
                    where,
                    key,
                    f"must be a drive-channel mode of the same protocol ({ch_bus.protocol}) no "
                    f"faster than the {ctrl.name}'s {ctrl.channel_bus}; allowed: "
                    f"{', '.join(slower)}",
                    related=(f"controllers.{cname}.part",),  # a card of another kind set last
                )
            if set_bus.programmed_io:  # as a controller's transfer: pio (``controller``)
                raise NotModelled(
                    f"controllers.{cname}.channel_mode {mode}: programmed I/O is not modelled; "
                    "its CPU cost per word moved is in no report"
                )
            ch_bus = set_bus
        return ch_bus

    def controller_channel(self, point: str, at: str) -> tuple[str, float]:
        """The controller a ``CONTROLLER.CHANNEL`` point is on, and what the channel carries."""
        cname, _, number = point.partition(".")
        ctrl = self.controller(cname)
        if int(number) >= ctrl.channels:
            raise UserError(
                self.where, at, f"{ctrl.name}: channels 0 to {ctrl.channels - 1}, got {point!r}"
            )
        return cname, self.channel_rate_Bps(ctrl, cname)

    def shelf_part(self, name: str) -> Enclosure | Expander:
        """The catalog part of the scenario's shelf ``name``: an enclosure or an expander."""
        return self.catalog.get_one_of(
            ("enclosures", "expanders"),
            self.body.shelves[name].part,
            self.where,
            f"shelves.{name}.part",
        )

    def uplink(self, name: str) -> tuple[list[Lane], FlowResource, FlowResource | None]:
        """The shelf's uplink lanes (each on its controller, carrying the lesser of the controller's
        channel and the shelf's host lane, at the slower of their signalling rates), the lane group
        every drive behind the shelf shares, and, in a cascaded JBOD, its expanders' internal
        lanes (None in one without)."""
        buses, catalog, where = self.buses, self.catalog, self.where
        shelf, part = self.body.shelves[name], self.shelf_part(name)
        if len(shelf.uplink) > part.uplink_lane_count:
            raise UserError(
                where,
                f"shelves.{name}.uplink",
                f"{part.name} takes at most {part.uplink_lane_count} uplink lanes "
                f"(one module's host ports), got {len(shelf.uplink)}",
            )
        host_lane = catalog.get("buses", part.host_lane_bus_id, where, f"shelves.{name}.part")
        lanes = []
        for k, point in enumerate(shelf.uplink):
            cname, rate_Bps = self.controller_channel(point, f"shelves.{name}.uplink[{k}]")
            channel = self.channel_bus(self.controller(cname), cname)
            lanes.append(
                Lane(
                    cname,
                    min(rate_Bps, buses.sustained_Bps(host_lane)),
                    min(channel.peak_MBps, host_lane.peak_MBps),
                )
            )
        capacity = sum(lane.Bps for lane in lanes)
        group = buses.resource(f"uplink {name}", lambda: capacity, full_duplex(host_lane))
        inner = None
        if isinstance(part, Enclosure) and part.internal_lanes:
            bus = catalog.get("buses", part.drive_lane_bus, where, f"shelves.{name}.part")
            inner = buses.resource(
                f"expanders {name}",
                lambda: part.internal_lanes * buses.sustained_Bps(bus),
                full_duplex(bus),
            )
        return lanes, group, inner

    def nvme_links(self, part: Disk | Ssd, point: str, at: str) -> list[FlowResource]:
        """An NVMe drive on a bus segment's lanes: its own link, then the segment it shares."""
        buses, catalog, where = self.buses, self.catalog, self.where
        if not isinstance(part, Ssd) or part.interface != "nvme":
            raise UserError(where, at, f"only an NVMe drive sits on a bus segment, got {part.name}")
        seg_name, _, number = point[len(NVME) + 1 :].partition(".")
        seg = catalog.get("buses", self.body.buses[seg_name].part, where, f"buses.{seg_name}.part")
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
        path = [buses.segment(seg_name), *buses.upstream(seg_name)]
        link = pcie_trained(own, seg)
        if buses.sustained_Bps(link) < buses.sustained_Bps(own):
            self.trained_down[point] = (own, link, seg_name)
        if link == seg:  # the segment's own lanes and generation: its limit is the drive's
            return path
        # and at the segment's generation where that is older than the drive's
        return [buses.resource(f"link {point}", lambda: buses.sustained_Bps(link)), *path]

    def own_link(self, part: Disk | Ssd, point: str, at: str) -> list[FlowResource]:
        """A SATA or SAS flash drive's own link behind its channel (a disk's is the channel)."""
        if not isinstance(part, Ssd):
            return []
        if part.interface == "nvme":  # told where the part or the attach point was set last
            raise UserError(
                self.where,
                at,
                f"an NVMe drive attaches as nvme.SEGMENT.N, got {point!r} (NVMe drives behind a "
                "tri-mode controller's channels are not modelled: put them on a PCIe segment)",
                related=(f"{at.split('.attach[')[0]}.part",),
            )
        own = self.catalog.get("buses", part.host_bus, self.where, at)
        return [self.buses.resource(f"link {point}", lambda: self.buses.sustained_Bps(own))]

    def drive_links(
        self, point: str, at: str, drive: Disk | Ssd | None = None
    ) -> tuple[list[tuple[str, float]], list[tuple[FlowResource, float]]]:
        """The controllers a drive's bytes reach, each with its share of them (one, or a shelf's
        wide ports to several), and the links they cross on the way there, each with its time
        per byte: its controller channel, or its shelf's bay, then its expanders and uplink,
        where a ``drive`` slower than their lanes holds them longer (``Shelf.rate_matching``)."""
        buses = self.buses
        holder = point.partition(".")[0]
        if holder not in self.body.shelves:
            cname, rate_Bps = self.controller_channel(point, at)
            return [(cname, 1.0)], [(buses.resource(f"channel {point}", lambda: rate_Bps), 1.0)]
        part = self.shelf_part(holder)
        check_bay(part, point, self.where, at)
        bay_bus = self.catalog.get(
            "buses", part.drive_lane_bus_id, self.where, f"shelves.{holder}.part"
        )
        lanes, group, inner = self.uplink(holder)
        bay = buses.resource(f"bay {point}", lambda: buses.sustained_Bps(bay_bus))
        align = drive is not None and self.body.shelves[holder].rate_matching == "align"
        drive_MBps = self.link_MBps(drive) if align else math.inf
        # what each lane carries of this drive's bytes: at most the drive's own link rate, the
        # lane filled with ALIGNs past it (``Shelf.rate_matching``)
        carried = [lane.Bps * min(1.0, drive_MBps / lane.peak_MBps) for lane in lanes]
        slowed = [lane for lane in lanes if drive_MBps < lane.peak_MBps]
        if slowed and drive is not None:  # a SATA 6 Gb/s drive behind 12 Gb/s SAS lanes
            self.rate_matched[holder] = (
                f"{drive.name} behind shelf {holder}: its own link ({drive_MBps:,.0f} MB/s) is "
                f"slower than the shelf's uplink lanes ({slowed[0].peak_MBps:,.0f} MB/s), and "
                "with rate_matching: align (the SAS standard's) its bytes hold a lane at its own "
                f"rate, {drive_MBps / slowed[0].peak_MBps:.0%} of what the lane carries; an "
                "expander that buffers them (shelves."
                f"{holder}.rate_matching: buffered) carries them at the lanes' rate"
            )
        shares: dict[str, float] = {}
        for lane, Bps in zip(lanes, carried, strict=True):
            shares[lane.controller] = shares.get(lane.controller, 0.0) + Bps / sum(carried)
        links = [(bay, 1.0), (group, sum(lane.Bps for lane in lanes) / sum(carried))]
        if inner is not None:  # the expanders' lanes run at the bays' rate
            links.append((inner, max(1.0, bay_bus.peak_MBps / drive_MBps)))
        return list(shares.items()), links

    def link_MBps(self, drive: Disk | Ssd) -> float:
        """The signalling rate of a drive's own link (a hard disk's interface, a flash drive's
        host bus), in MB/s of payload after its encoding: 600 for SATA 6 Gb/s."""
        if isinstance(drive, Disk):
            return drive.interface_rate_MBps
        return self.catalog.get("buses", drive.host_bus, self.where, drive.name).peak_MBps

    def raid_processor(
        self, ctrl: Controller, cname: str, group: int
    ) -> tuple[FlowResource, float]:
        """The RAID processor that keeps ``group``, and its clock (Hz)."""
        if ctrl.type != "raid":
            raise UserError(
                self.where,
                f"controllers.{cname}.part",
                f"{ctrl.name} is a plain controller; engine: controller needs a RAID controller",
            )
        clock_MHz = self.body.controllers[cname].processor_MHz or ctrl.processor_MHz
        if clock_MHz is None:
            raise NotModelled(
                f"{ctrl.name}: its RAID processor's clock is not in the catalog, so its own RAID "
                f"engine is not modelled until controllers.{cname}.processor_MHz gives one (and, "
                "unsure of it, the scenario's or a parts file's unknowns declare the clocks its "
                "documentation allows); engine: md, the host's RAID over its drives, is"
            )
        processor = self.buses.resource(
            f"raid {cname}.{group % ctrl.processors}", lambda: 1.0, unit="core-s"
        )
        self._label_processors(cname, ctrl.processors)
        return processor, clock_MHz * 1e6

    def _label_processors(self, cname: str, processors: int) -> None:
        """Label controller ``cname``'s RAID processors in use, as a planner reads them:
        "controller md3260's RAID processors", "controller md3260's RAID processor in use, 1 of
        its 2" where its volumes' groups leave some idle."""
        declared = self.buses.declared
        used = [declared[n] for k in range(processors) if (n := f"raid {cname}.{k}") in declared]
        words = f"controller {cname}'s RAID processor{'s' if len(used) > 1 else ''}"
        if len(used) < processors:
            words += f" in use, {len(used)} of its {processors}"
        for processor in used:
            processor.label = words

    def driver_cost(self, cname: str) -> float:
        """Host CPU seconds per byte written the controller's driver costs (its ``driver_cost``)."""
        name = self.body.controllers[cname].driver_cost  # one of ns/B (simulation.check_parts)
        return 0.0 if name is None else self.params[name] * 1e-9

    def mirror_reads(self, vname: str) -> str | None:
        """How the RAID card keeping volume ``vname`` picks a mirror's copy for a read (its
        ``mirror_reads``); None under md and ZFS, which keep their own policies."""
        volume = self.body.volumes[vname]
        if volume.engine != "controller":
            return None
        cname = self.drive_links(volume.disks.attach[0], "")[0][0][0]
        return self.body.controllers[cname].mirror_reads


def raid_processor_note(
    bottleneck: str, params: dict[str, float], cache_blocks: bool
) -> tuple[str, ...]:
    """A note where a RAID card's processor binds (``bottleneck``, the result's): what it is
    charged a write (a cache block on a controller that keeps them, ``cache_blocks``, else a drive
    command) and a read."""
    if not bottleneck.startswith("raid "):
        return ()
    writes = (
        f"raid_cycles_per_cache_block, {params['raid_cycles_per_cache_block']:,.0f} cycles for "
        "each cache block it writes (the volume's cache_block_KiB, 4 KiB unless set), fitted on "
        "the MD3260's writes (caching, mirroring to its partner, destaging, parity set-up) and "
        "taken for every RAID level alike"
        if cache_blocks
        else f"raid_cycles_per_write_command, {params['raid_cycles_per_write_command']:,.0f} "
        "cycles for each drive command its writes send (a mirror's copies, a stripe row's parity, "
        "a small parity write's reads and writes; an estimate from one card's published I/Os, its "
        "range in the interval)"
    )
    return (
        f"{bottleneck} binds: a RAID card's processor is charged {writes}; a read "
        f"{RAID_READ_CYCLES_PER_REQUEST:,.0f} cycles a request (HP's P421: 200,000 4 KB I/Os a "
        "second at 1000 MHz)",
    )
