"""The storage path of a host as flow resources: each volume's drives, the links, controllers and
buses their bytes cross, and the RAID processors and host threads that keep their layout.

Each byte a stream moves to or from a volume lands on its member drives in the shares the layout
gives: LVM linear keeps a stream in the first group (random requests in the groups their span
covers) and LVM striping spreads it over its stripes;
inside a group RAID0 spreads it evenly, mirrors write every copy and a stream reading in order
stays on one copy of each (several streams spread over the copies; a RAID card set to read the
primary copy, ``mirror_reads: primary``, reads it alone), RAID5 and RAID6 write parity
(each drive's surface carries 1/(d - p) of the group's bytes, data and parity rotating; a read
leaves the parity on the platter, which turns past it, so only 1/d crosses the wire, and a flash
drive, which reads only what it is asked for, spends only that 1/d). Every
drive's transfer crosses its device channel and controller (``model.storage.attachment``); an md
volume's drive traffic then crosses the controller's bus segment (``model.storage.buses``), a
hardware RAID volume's user traffic crosses the path of its group (a SAS wire of an external array)
and a read costs the group's RAID processor its time a request, a write its time a cache block
or a drive command (``_add_raid_card``). An md RAID5/6 array's
writes cost its raid5d thread (and the worker threads md_group_thread_cnt gives it), and the
host's CPU, the parity's copies and its stripe_heads' requests (``model.storage.raid5d``); a read
of a whole array passes them by.
Each drive is a resource at its rate for the stream (``model.storage.drive_work``). A flash drive
(``model.storage.flash``) streams at its own rate behind its own link (its catalog ``host_bus``);
an NVMe drive attached as ``nvme.SEGMENT.N`` sits on the lanes of bus segment SEGMENT with no
controller, so every NVMe drive on one segment shares it. A ZFS pool (``model.storage.zfs``) keeps
its layout on the host as md does, a RAIDZ vdev storing each record in whole sectors with its
parity and padding (``zfs.vdev_shares``), compressed where its ``compression`` keeps it so
(``zfs.stored_B``), and costs the host's CPU its checksums, parity and compression. Random
requests (``model.storage.requests``) make each drive a resource at its random rate and land their
write penalty and record reads on it, and a ZFS read's indirect blocks the ARC does not hold
(``zfs.indirect_blocks``). An ext2 or ext3 file's block map rides with its data, and
ext3's journal writes it twice, the data too when it is mounted ``data=journal``
(``model.storage.filesystem``).
Each volume also counts the times its bytes cross the host's memory by the passes charged here
(``StoragePath.memory_per_byte``, ``model.memory``): the drives' DMA of what they transfer (a RAID
card's of the user bytes alone), ZFS's checksum, and the parity's read of the data and its writes.
Calibrated on ``atlas_disk``, ``atlas_hosts`` (``001_4cf980d67b39ffac.txt``) and ``em_ingest``
(``003_0a9a7721e3b096d5.txt``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .. import memory
from ..catalog import Catalog
from ..errors import UserError
from ..nic_links import link_words, trained_words
from ..parts import Bus, Disk, Host, Ssd
from ..sim.flows import FlowNetwork, FlowResource
from . import disk as disk_model
from . import flash, raid5d, slots, zfs
from .attachment import RAID_READ_CYCLES_PER_REQUEST, Attachment
from .buses import Buses
from .drive_work import DriveWork, Placement, drive_work, volume_drive
from .filesystem import journal, metadata_share
from .raid import LEVELS
from .spec import NVME, StorageBody, Volume

# the passes by which a volume's bytes cross the host's memory (``StoragePath.memory_per_byte``)
DRIVE_DMA = "drives' DMA"  # each drive's bytes, to or from the host (md, ZFS)
CARD_DMA = "RAID card's DMA"  # the volume's user bytes, the card keeping its parity and copies


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
    ]  # volume -> host CPU seconds md's parity (ZFS's checksums, compression too) costs a byte
    request_s: dict[str, float]  # volume -> device seconds of one random request alone
    checkpoint_s_per_byte: dict[str, float]  # volume -> a writer's wait for its journal checkpoint
    # volume -> pass -> times each byte it serves crosses the host's memory (``model.memory``): the
    # drives' DMA (a RAID card's, of its user bytes), and the checksum and parity passes
    # parity_s_per_byte charges; the page cache's copy is the stream's (``stream.memory_crossings``)
    memory_per_byte: dict[str, dict[str, float]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()  # what the user should know of how the drives serve the streams
    # volume -> a stream's drive seconds per byte at the copy of each mirror it reads alone (a
    # sequential read stays on one copy: each stream's own limit, not the drives' shared one);
    # 0 where none is a mirror
    own_copy_s_per_byte: dict[str, float] = field(default_factory=dict)
    # volume -> for flash drives, the slowest link one request's piece crosses on its way to the
    # host and the drive's own, B/s (``_flash_links``; a direct stream's requests cross them)
    flash_links: dict[str, tuple[float, float]] = field(default_factory=dict)
    _own_copies: dict[tuple[str, int], FlowResource] = field(default_factory=dict)

    def own_copy(self, vname: str, stream: int) -> dict[FlowResource, float]:
        """Stream ``stream``'s limit at its own copy of each of ``vname``'s mirrors (a resource of
        one second a second, and the stream's seconds per byte on it); none where ``vname`` keeps
        no mirror a stream reads in order (``own_copy_s_per_byte``)."""
        seconds = self.own_copy_s_per_byte.get(vname, 0.0)
        if not seconds:
            return {}
        key = (vname, stream)
        if key not in self._own_copies:
            self._own_copies[key] = self.network.resource(
                f"mirror copy {vname}.{stream}", 1.0, unit="s"
            )
        return {self._own_copies[key]: seconds}

    def first_access_s(self) -> float:
        """The time before every stream's first byte, the slowest drive's first access: a disk's
        average seek and half a turn (``disk.first_access_s``), a flash drive's read latency
        (``flash.latency_s``)."""
        return max(
            flash.latency_s(part, "read")
            if isinstance(part, Ssd)
            else disk_model.first_access_s(part)
            for members in self.disks.values()
            for _, part in members
        )


def group_shares(
    volume: Volume, part: Disk | Ssd, random_span_GB: float | None = None
) -> list[float]:
    """The share of a stream's bytes each group (LUN) of the volume carries: LVM linear puts a
    stream in order in the first group, and requests at random anywhere in the span they fall in
    (``random_span_GB``; ``inf``, the whole volume), each group the share of it it holds."""
    groups = volume.layout()[1]
    if volume.lvm == "linear" and random_span_GB is not None and groups > 1:
        group_GB = volume.group_GB(part)
        span_GB = min(random_span_GB, groups * group_GB)
        return [min(group_GB, max(0.0, span_GB - g * group_GB)) / span_GB for g in range(groups)]
    if volume.lvm == "linear" or groups == 1:
        return [1.0] + [0.0] * (groups - 1)
    stripes = volume.stripe_groups
    return [1.0 / stripes] * stripes + [0.0] * (groups - stripes)


def drive_share(level: str, drives: int, op: str) -> float:
    """Bytes on each drive's surface per byte written to or read from a group of ``drives``."""
    return LEVELS[level].drive_share(drives, op)


@dataclass
class _Usage:
    """A volume's resources and host CPU per byte, summed as its groups are added."""

    use: dict[FlowResource, float] = field(default_factory=dict)
    disks: list[tuple[str, Disk | Ssd]] = field(default_factory=list)
    driver_s: float = 0.0
    parity_s: float = 0.0
    # a stream's time per byte at its own copy of each mirror, the most of any drive
    own_copy_s: float = 0.0
    # pass -> times each byte crosses the host's memory (``StoragePath.memory_per_byte``)
    memory: dict[str, float] = field(default_factory=dict)

    def add(self, res: FlowResource, share: float) -> None:
        """Add ``share`` of ``res`` per byte; a copy no read goes to is not on the path."""
        if share:
            self.use[res] = self.use.get(res, 0.0) + share

    def cross(self, name: str, times: float) -> None:
        """Add ``times`` crossings of the host's memory a byte by pass ``name``."""
        if times:
            self.memory[name] = self.memory.get(name, 0.0) + times


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
    attachment = Attachment(Buses(net, body, catalog, params, where), params)
    w = body.workload
    path = StoragePath(net, host, {}, {}, {}, {}, {}, {})
    notes: list[str] = []
    for vname in [w.target] + ([w.source] if w.op == "copy" else []):
        zfs.check_modelled(vname, body.volumes[vname])
        # a copy moves bytes both ways: a link that carries each way at once is a resource a way
        attachment.buses.direction = _placement(attachment, vname).op if w.op == "copy" else None
        note = _add_volume(path, attachment, vname, bytes_per_stream)
        volume = body.volumes[vname]
        notes += trained_down_notes(attachment, _placement(attachment, vname))
        notes += [
            n
            for n in (
                note,
                zfs.wide_mirror_note(vname, volume),
                zfs.record_read_note(vname, volume, w),
                zfs.indirect_note(vname, volume, w, volume_drive(attachment, vname), path.host),
                zfs.compression_note(vname, volume),
            )
            if n
        ]
    notes += [attachment.buses.switch_notes[name] for name in sorted(attachment.buses.switch_notes)]
    notes += [attachment.rate_matched[name] for name in sorted(attachment.rate_matched)]
    trusted = slots.trusted_segments_note(body, catalog, where)
    if trusted is not None:
        notes.append(trusted)
    path.notes = tuple(notes)
    return path


def _add_volume(
    path: StoragePath, attachment: Attachment, vname: str, bytes_per_stream: float
) -> str | None:
    """Enter volume ``vname``'s drives, usage and host CPU per byte in ``path``; its note."""
    spot = _placement(attachment, vname)
    volume = spot.volume
    # a ZFS pool's indirect blocks: a random read's where the ARC misses them (zfs.random_layout);
    # a stream's, 128 B a record (0.1 % of 128 KiB records, 1.6 % of 8 KiB ones), left out
    block_map = 0.0 if volume.engine == "zfs" else metadata_share(volume.filesystem)
    key = f"volumes.{vname}.filesystem.journal"
    journalled = journal(
        volume.filesystem, spot.op, attachment.body.workload.io, attachment.where, key
    )
    links = _flash_links(attachment, spot)
    if links is not None:
        path.flash_links[vname] = links
    work = drive_work(attachment, path.host, spot, block_map, bytes_per_stream, links)
    if work.request_s is not None:
        path.request_s[vname] = work.request_s
    usage = _Usage()
    for g, g_share in enumerate(spot.groups):
        if g_share == 0.0:
            continue
        _add_members(usage, attachment, spot, work, g, g_share)
        _add_group_costs(usage, attachment, path.host, spot, work, g, g_share)
    # the writer's wait for its checkpoint: its bytes' one write at the volume's own pace
    path.checkpoint_s_per_byte[vname] = (
        max(share / res.capacity for res, share in usage.use.items()) if journalled.waits else 0.0
    )
    written = journalled.written_share(block_map)
    path.disks[vname] = usage.disks
    path.usage_per_byte[vname] = {res: share * written for res, share in usage.use.items()}
    path.driver_s_per_byte[vname] = usage.driver_s * written
    path.parity_s_per_byte[vname] = usage.parity_s * written
    path.own_copy_s_per_byte[vname] = usage.own_copy_s * written
    path.memory_per_byte[vname] = {name: times * written for name, times in usage.memory.items()}
    moved = "written to" if spot.op == "write" else "read from"
    attachment.buses.label_crossings(path.usage_per_byte[vname], f"each byte {moved} {vname}")
    return work.note


def trained_down_notes(attachment: Attachment, spot: Placement) -> list[str]:
    """A note for each link the volume's NVMe drives train down to, below their own host
    interface, on their segments (``Attachment.trained_down``): a PCIe 5.0 x4 drive on a PCIe 4.0
    segment moves at most what PCIe 4.0 x4 carries, whatever its sheet's rate."""
    disks = spot.volume.disks
    by_link: dict[str, list[tuple[Bus, Bus, str]]] = {}  # each link's words -> its drives'
    for point in disks.attach[: disks.count]:
        if point in attachment.trained_down:
            own, link, segment = attachment.trained_down[point]
            by_link.setdefault(link_words(link), []).append((own, link, segment))
    return [_trained_down_note(attachment, spot, drives) for drives in by_link.values()]


def _trained_down_note(
    attachment: Attachment, spot: Placement, drives: list[tuple[Bus, Bus, str]]
) -> str:
    """``trained_down_notes``' note for the volume's ``drives`` whose links train to one link,
    each (its own link, the link, its segment): both rates, and what the flash drive's sheet
    gives for the stream's op."""
    count = spot.volume.disks.count
    own, link, _ = drives[0]
    link_MBps, own_MBps = (attachment.buses.sustained_Bps(b) / 1e6 for b in (link, own))
    segments = list(dict.fromkeys(segment for _, _, segment in drives))
    on = f"on segment{'s' if len(segments) > 1 else ''} {', '.join(segments)}"
    whose = (
        "the drive"
        if count == 1
        else f"each of the {count} drives"
        if len(drives) == count
        else f"each of {len(drives)} of the {count} drives"
    )
    sheet_MBps = spot.part.seq_read_MBps if spot.op == "read" else spot.part.seq_write_MBps
    held = (
        f"so it {spot.op}s at most {link_MBps:,.0f} MB/s, not its sheet's {sheet_MBps:,.0f} MB/s"
        if sheet_MBps > link_MBps
        else f"still more than its sheet's {sheet_MBps:,.0f} MB/s {spot.op}"
    )
    return (
        f"{whose} of volume {spot.name} ({spot.volume.disks.part}): "
        f"{trained_words(own, link, on)}, carries {link_MBps:,.0f} MB/s of data, not its own "
        f"{own_MBps:,.0f} MB/s, {held}"
    )


def _placement(attachment: Attachment, vname: str) -> Placement:
    """Volume ``vname``'s drive, its groups and the share of the stream's bytes each carries."""
    w = attachment.body.workload
    volume = attachment.body.volumes[vname]
    part = volume_drive(attachment, vname)
    level, n_groups = volume.layout()
    random_span_GB = (w.span_GB or math.inf) if w.pattern == "random" else None
    groups = group_shares(volume, part, random_span_GB)
    # a copy writes its target and reads its source
    op = ("write" if vname == w.target else "read") if w.op == "copy" else w.op
    return Placement(vname, volume, part, op, level, volume.disks.count // n_groups, groups)


def _add_members(
    usage: _Usage,
    attachment: Attachment,
    spot: Placement,
    work: DriveWork,
    g: int,
    g_share: float,
) -> None:
    """Add group ``g``'s drives and the links, controllers and buses each one's bytes cross."""
    volume, part = spot.volume, spot.part
    members = range(g * spot.per_group, (g + 1) * spot.per_group)
    for i in members:
        # under primary, a mirror's other copies read nothing
        weight = 0.0 if work.primary and (i - members[0]) % work.copies else 1.0
        on_lanes, controllers, links = _drive_route(attachment, spot, i)
        dres = attachment.buses.resource(
            f"disk {spot.name}.{i}",
            lambda: work.rate_Bps,
            label=drives_words(spot.name, spot.volume.disks.count),
        )
        usage.disks.append((dres.name, part))
        usage.add(dres, g_share * work.surface * weight)
        if work.own_copy > 1:  # its reads all on one copy of the mirror: its own limit
            own = g_share * work.surface * weight * work.own_copy / work.rate_Bps
            usage.own_copy_s = max(usage.own_copy_s, own)
        moved = g_share * work.transferred * weight
        for link, held in links:
            usage.add(link, moved * held)
        if volume.engine != "controller":  # what the drive moves, DMA'd to or from the host
            usage.cross(DRIVE_DMA, moved * memory.DMA)
        if not on_lanes and volume.engine != "controller":
            for cname, carried in controllers:  # a shelf's wide ports to several share its bytes
                usage.add(attachment.host_interface(cname), moved * carried)
                for res, cost in attachment.buses.slot_costs(cname).items():
                    usage.add(res, moved * carried * cost)


def _drive_route(
    attachment: Attachment, spot: Placement, i: int
) -> tuple[bool, list[tuple[str, float]], list[tuple[FlowResource, float]]]:
    """The way drive ``i`` of the volume reaches the host: whether it sits on a segment's lanes
    (NVMe), the controllers its bytes reach with each one's share, and the links it crosses on
    the way there, each with its time a byte."""
    point, at = spot.volume.disks.attach[i], f"volumes.{spot.name}.disks.attach[{i}]"
    if point.partition(".")[0] == NVME:
        return True, [], [(link, 1.0) for link in attachment.nvme_links(spot.part, point, at)]
    controllers, links = attachment.drive_links(point, at, spot.part)
    own = [(link, 1.0) for link in attachment.own_link(spot.part, point, at)]
    return False, controllers, own + links


def _flash_links(attachment: Attachment, spot: Placement) -> tuple[float, float] | None:
    """For a volume of flash drives, what one request's piece crosses alone on its way to the
    host: the slowest link of any of its drives' ways there (its own link trained in its slot,
    its channel, its controller's host interface and the segments above it, each at its rate a
    byte), and the drive's own link, the one its sheet's latency was measured over (B/s); None
    for hard disks, whose pieces wait for their platters. A request split over drives that share
    a link crosses it piece by piece here: first order, at the queue depth of one that it binds."""
    part = spot.part
    if not isinstance(part, Ssd):
        return None
    buses = attachment.buses
    slowest = math.inf
    for i in range(spot.volume.disks.count):
        on_lanes, controllers, links = _drive_route(attachment, spot, i)
        crossed = list(links)
        if not on_lanes:
            for cname, _ in controllers:
                crossed.append((attachment.host_interface(cname), 1.0))
                crossed += list(buses.slot_costs(cname).items())
        slowest = min([slowest, *(res.capacity / held for res, held in crossed if held > 0)])
    own = attachment.catalog.get("buses", part.host_bus, attachment.where, spot.name)
    # an NVMe piece's packets stripe over all its link's lanes; a SAS or SATA piece crosses one
    # lane of its port (a connection runs on one phy: a dual-port SAS drive's x2 is two of them)
    lanes = 1 if part.interface == NVME else (own.lanes or 1)
    return slowest, buses.sustained_Bps(own) / lanes


def drives_words(volume: str, count: int) -> str:
    """The ``count`` drives of ``volume`` as a planner reads them, the label each drive's resource
    shares (the flows' and the memory-mapped test's): "drives of volume data", "the drive of
    volume scratch"."""
    if count == 1:
        return f"the drive of volume {volume}"
    return f"drives of volume {volume}"


def _add_group_costs(
    usage: _Usage,
    attachment: Attachment,
    host: Host,
    spot: Placement,
    work: DriveWork,
    g: int,
    g_share: float,
) -> None:
    """Add what group ``g``'s user bytes cost the driver and whoever keeps the group's layout."""
    volume = spot.volume
    if volume.engine == "zfs":
        w = attachment.body.workload
        usage.parity_s += g_share * zfs.host_s_per_byte(volume, w, host, spot.op)
        checksummed = zfs.checksummed_per_byte(volume, w)
        for name, times in zfs.memory_per_byte(volume, spot.op, spot.per_group).items():
            usage.cross(name, g_share * times * checksummed)
        return
    # the group's user bytes between the host and whoever keeps its layout
    first = volume.disks.attach[g * spot.per_group]
    if first.partition(".")[0] != NVME:  # no card between NVMe drives and a segment (Volume.check)
        controllers = attachment.drive_links(first, "")[0]
        if spot.op == "write":  # the driver path a writer pays (stream_usage)
            for cname, carried in controllers:
                usage.driver_s += g_share * carried * attachment.driver_cost(cname)
        if volume.engine == "controller":
            if len(controllers) > 1:
                raise UserError(
                    attachment.where,
                    f"volumes.{spot.name}.engine",
                    "a RAID card keeps a volume on its own channels; this volume's shelf is "
                    "cabled to " + ", ".join(c for c, _ in controllers) + " (engine: md or zfs)",
                )
            _add_raid_card(usage, attachment, spot, work, controllers[0][0], g, g_share)
    if volume.engine == "md" and LEVELS[spot.level].parity_chunks and spot.op == "write":
        _add_raid5d(usage, attachment, host, spot, work, g, g_share)


def _add_raid5d(
    usage: _Usage,
    attachment: Attachment,
    host: Host,
    spot: Placement,
    work: DriveWork,
    g: int,
    g_share: float,
) -> None:
    """Add the group's stripe threads, raid5d and its workers at the rate they share
    (``raid5d.stripe_threads_rate``): the parity's copies and the stripe_heads' requests."""
    w = attachment.body.workload
    small = w.pattern == "random" and work.layout.phases == 2
    raid5d_s = raid5d.raid5d_s_per_byte(
        host,
        spot.level,
        spot.per_group,
        spot.volume.chunk_KiB * 1024,
        w.request_KiB * 1024 if small else None,
        work.layout.commands if small else 0,
    )
    rate = raid5d.stripe_threads_rate(
        host, spot.volume.md_group_thread_cnt, raid5d.writers(attachment.body), attachment.params
    )
    arrays = "each array of " if len(spot.groups) > 1 else ""
    thread = attachment.buses.resource(
        f"raid5d {spot.name}.{g}",
        lambda: rate,
        unit="core-s",
        label=f"md's raid5d of {arrays}volume {spot.name}",
    )
    usage.add(thread, g_share * raid5d_s)
    usage.parity_s += g_share * raid5d_s
    for name, times in raid5d.memory_per_byte(spot.level, spot.per_group, small).items():
        usage.cross(name, g_share * times)


def _add_raid_card(
    usage: _Usage,
    attachment: Attachment,
    spot: Placement,
    work: DriveWork,
    cname: str,
    g: int,
    g_share: float,
) -> None:
    """Add the RAID card's path for group ``g``'s user bytes and its processor's time: a read's
    requests at ``attachment.RAID_READ_CYCLES_PER_REQUEST`` each (HP's P421, whose processor
    does not hold its sequential reads), and a write's cache blocks at the cost the MD3260's
    writes fitted on a controller that keeps them (``cache_blocks``), else its drive commands at
    ``raid_cycles_per_write_command`` each (``_write_commands_per_byte``): the MD3260's cost a
    block had held any card, a RAID0 of eight SSDs on a 1.5 GHz MegaRAID included, to 477 MB/s."""
    buses, volume = attachment.buses, spot.volume
    ctrl = attachment.controller(cname)
    if volume.group_paths:  # the group's wire, and the links it hangs from
        wire = volume.group_paths[g % len(volume.group_paths)]
        costs = {buses.segment(name): 1.0 for name in buses.chain(wire)}
        if ctrl.max_throughput_MBps:  # the array's stated maximum, wires aside
            limit_Bps = ctrl.max_throughput_MBps * 1e6
            costs[buses.resource(f"array {cname}", lambda: limit_Bps)] = 1.0
    else:
        costs = {**buses.slot_costs(cname), attachment.host_interface(cname): 1.0}
    for res, cost in costs.items():
        usage.add(res, g_share * cost)
    usage.cross(CARD_DMA, g_share * memory.DMA)
    processor, clock_Hz = attachment.raid_processor(ctrl, cname, g)
    if spot.op == "write" and ctrl.cache_blocks:
        cycles_per_byte = attachment.params["raid_cycles_per_cache_block"] / (
            volume.cache_block_used_KiB * 1024
        )
    elif spot.op == "write":
        cycles_per_byte = attachment.params["raid_cycles_per_write_command"] * (
            _write_commands_per_byte(attachment, spot, work)
        )
    else:
        cycles_per_byte = RAID_READ_CYCLES_PER_REQUEST / _read_request_B(attachment.body)
    usage.add(processor, g_share * cycles_per_byte / clock_Hz)


def _write_commands_per_byte(attachment: Attachment, spot: Placement, work: DriveWork) -> float:
    """The drive commands a card sends a byte written to one of its groups: a random request's
    (each copy and parity piece, a small parity write's reads and writes, ``RandomLayout.at_once``)
    over its bytes; a stream's, whose write-back cache gathers whole chunks, one a chunk on each
    drive the level writes it to (a mirror's copies, a stripe row's parity)."""
    if work.layout is not None:
        return sum(work.layout.at_once) / (attachment.body.workload.request_KiB * 1024)
    drives_written = LEVELS[spot.level].transfer_share(spot.per_group, "write") * spot.per_group
    return drives_written / (spot.volume.chunk_KiB * 1024)


def _read_request_B(body: StorageBody) -> float:
    """The requests a read sends the card: the workload's own at random or with direct I/O, else
    at least the read-ahead window the kernel asks for (Kernel.read_ahead_KiB)."""
    w = body.workload
    request_B = w.request_KiB * 1024
    if w.pattern == "random" or w.io == "direct":
        return request_B
    return max(request_B, body.kernel.read_ahead_KiB * 1024)
