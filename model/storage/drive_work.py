"""What each drive of a volume does per byte a stream moves: its rate for the stream, the bytes of
its time and the bytes across its links.

A flash drive streams at its own rate (``model.storage.flash``); a hard disk at its media rate
over the zones the data spans (``model.storage.disk``), less where several streams reading in order
take turns at it (``model.storage.interleave``), or at its rate for random requests, their write
penalty and record reads on it (``model.storage.requests``, ``model.storage.zfs``). A platter turns
past a read's parity chunks, which flash does not read; a RAIDZ vdev writes each record's whole
sectors, its parity and padding (``zfs.vdev_shares``); a mirror's copies share a read by the
card's or the host's policy. The workload's data must fit on the drives. The one fitted share,
``disk_format_efficiency``, is calibrated on the ATLAS single-drive and RAID0 tests
(``atlas_disk``, ``001_4cf980d67b39ffac.txt``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import UserError
from ..parts import Disk, Host, Ssd
from . import disk as disk_model
from . import flash, interleave, requests, writecache, zfs
from .attachment import Attachment
from .raid import LEVELS
from .requests import RandomLayout
from .spec import Volume


@dataclass(frozen=True)
class Placement:
    """A volume of the workload: its drive, its groups and what the stream does to it."""

    name: str
    volume: Volume
    part: Disk | Ssd
    op: str  # read or write: a copy writes its target and reads its source
    level: str
    per_group: int  # drives in each group
    groups: list[
        float
    ]  # the share of the stream's bytes each group carries (``topology.group_shares``)


@dataclass(frozen=True)
class DriveWork:
    """What each of a volume's drives does per byte the stream moves."""

    rate_Bps: float  # the drive's rate for this stream
    surface: float  # bytes of the drive's time
    transferred: float  # bytes across its links
    copies: int  # copies a mirror keeps of each byte
    primary: bool  # a mirror's reads all go to its first copy
    layout: RandomLayout | None  # a random request's commands (None: the streams are in order)
    request_s: float | None  # device seconds of one random request alone
    note: str | None  # how the streams' turns at the drives cost them, where they do
    # a stream reading in order stays on one copy of each mirror: its load on that copy's drive is
    # ``own_copy`` times its share of the drives' (1: no mirror, or the reads spread)
    own_copy: int = 1


# the keys of a volume's disks that replace a catalog figure, by the kind of drive that has it: a
# hard disk's time per command, a flash drive's sequential rates (model.storage.spec.DiskSet)
OWN_FIGURES = {Disk: ("command_overhead_ms",), Ssd: ("seq_read_MBps", "seq_write_MBps")}


def volume_drive(attachment: Attachment, vname: str) -> Disk | Ssd:
    """The volume's drive: a catalog disk or flash drive, with the figures the scenario gives in
    place of its catalog's (``OWN_FIGURES``: a hard disk's time per command, a flash drive's
    sequential rates)."""
    body, catalog, where = attachment.body, attachment.catalog, attachment.where
    disk_set = body.volumes[vname].disks
    at = f"volumes.{vname}.disks"
    part = catalog.get_one_of(("disks", "ssds"), disk_set.part, where, f"{at}.part")
    own = OWN_FIGURES[type(part)]
    given = {
        name: value
        for names in OWN_FIGURES.values()
        for name in names
        if (value := getattr(disk_set, name)) is not None
    }
    for name in given.keys() - set(own):
        kind = "a flash drive" if isinstance(part, Ssd) else "a hard disk"
        raise UserError(
            where,
            f"{at}.{name}",
            f"{disk_set.part} is {kind}, whose figures a scenario may give here are "
            f"{' and '.join(own)}",
        )
    if not given:
        return part
    drive = replace(part, **given)
    if isinstance(drive, Ssd):
        drive.check_rates(where, at, tuple(given))
    return drive


def drive_work(
    attachment: Attachment,
    host: Host,
    spot: Placement,
    block_map: float,
    bytes_per_stream: float,
    links: tuple[float, float] | None = None,
) -> DriveWork:
    """What each drive does per byte the stream moves: its rate, its time, its links' bytes; a
    flash drive's random request alone over its way to the host (``links``,
    ``flash.request_s``)."""
    w = attachment.body.workload
    level, per_group, part = spot.level, spot.per_group, spot.part
    # bytes each drive transfers, and the bytes of its time: a platter turns past a read's
    # parity chunks, flash reads only what it is asked for
    on_surface, on_link = _shares(spot, spot.op)
    transferred = on_link * (1.0 + block_map)
    surface = transferred if isinstance(part, Ssd) else on_surface * (1.0 + block_map)
    start = 0.0 if w.pattern == "random" else w.start_fraction
    # the bytes each drive of the busiest group holds of the workload's data: they must fit, and
    # its media rate is averaged over their span (a mirror's copy holds the whole file though a
    # read takes half of it from each copy)
    footprint_B = w.streams * bytes_per_stream * max(spot.groups) * _shares(spot, "write")[0]
    _check_fits(attachment, spot, footprint_B, bytes_per_stream, start)
    drive_B = w.streams * bytes_per_stream * max(spot.groups) * surface
    held_B = footprint_B * (1.0 + block_map)
    # the share of each drive random requests fall in (the volume's first span_GB)
    random_span = requests.span_share(
        spot.volume, spot.name, part, w.span_GB, spot.groups, attachment.where
    )
    copies = LEVELS[level].copies_in(per_group)
    rate_Bps, note = _streaming_Bps(
        attachment, host, spot, drive_B, held_B, start, random_span, copies
    )
    # a RAID card told to read from the first copy (its mirror_reads) sends every read there
    primary = spot.op == "read" and copies > 1 and attachment.mirror_reads(spot.name) == "primary"
    if w.pattern == "random":
        lay, request_s, rate_Bps = _random_requests(
            attachment, host, spot, rate_Bps, random_span, copies, primary, links
        )
        share = lay.drive_share()
        return DriveWork(rate_Bps, share, share, copies, primary, lay, request_s, note)
    if primary:
        surface, transferred = surface * copies, transferred * copies
    own_copy = 1
    if spot.op == "read" and copies > 1 and isinstance(part, Disk) and not primary:
        # a stream reading in order stays on one copy of each mirror, whose head follows it
        # (md's read_balance keeps a sequential read on its disk, ZFS's vdev_mirror the child
        # whose head is near, a card's balanced policy the first of equally idle copies): one
        # stream reads at one copy's rate, as md(4) says of the near layout against the far one
        # ('sequential read performance equal to that of a RAID0 array'), and more streams
        # spread over the copies, each copy's drive busy with its own (the drives' share of
        # the load, and each stream's cap at its own copy: ``StoragePath.own_copy_s_per_byte``)
        own_copy = copies
    return DriveWork(rate_Bps, surface, transferred, copies, primary, None, None, note, own_copy)


def _shares(spot: Placement, op: str) -> tuple[float, float]:
    """Bytes on each drive's surface and across its link per byte read or written (``op``): the
    level's shares, or a ZFS vdev's whole sectors (a RAIDZ vdev's parity and padding too,
    ``zfs.vdev_shares``)."""
    level = LEVELS[spot.level]
    if spot.volume.engine == "zfs":
        return zfs.vdev_shares(spot.volume, spot.per_group, op)
    return level.drive_share(spot.per_group, op), level.transfer_share(spot.per_group, op)


def _check_fits(
    attachment: Attachment,
    spot: Placement,
    footprint_B: float,
    bytes_per_stream: float,
    start: float,
) -> None:
    """The workload's data, ``footprint_B`` on each drive of the volume's busiest group, must fit
    on it from ``start``."""
    w, part = attachment.body.workload, spot.part
    if footprint_B > (1.0 - start) * part.capacity_GB * 1e9:
        need_GB = w.streams * bytes_per_stream / 1e9
        fits_from_the_edge = footprint_B <= part.capacity_GB * 1e9
        raise UserError(
            attachment.where,
            "workload.start_fraction" if fits_from_the_edge else "workload.total_MB",
            f"{need_GB:,.6g} GB of data"
            + (
                f" ({w.streams:,} streams of {bytes_per_stream / 1e6:,.6g} MB)"
                if w.streams > 1
                else ""
            )
            + f" do not fit on volume {spot.name}: it would take "
            f"{_gb(footprint_B / 1e9)} GB of each {_gb(part.capacity_GB)} GB drive"
            + (f" from {start:.6g} of the way in" if start else "")
            + f" ({spot.volume.disks.part}'s capacity_GB"
            # no drive the lab's reports or catalog name holds under 10 GB (the smallest, 36)
            + ("; a TB figure typed as GB?)" if part.capacity_GB < 10 else ")"),
        )


def _gb(figure: float) -> str:
    """A size in GB as a refusal gives it: whole from 100 GB (with commas), else 3 figures."""
    return f"{figure:,.0f}" if figure >= 100 else f"{figure:.3g}"


def _streaming_Bps(
    attachment: Attachment,
    host: Host,
    spot: Placement,
    drive_B: float,
    held_B: float,
    start: float,
    random_span: float,
    copies: int,
) -> tuple[float, str | None]:
    """A drive's media rate over the ``held_B`` bytes it holds (a flash drive's rate over the
    ``drive_B`` it writes), and a note where the streams' turns cost (none where a mirror has a
    copy for each stream)."""
    w, part = attachment.body.workload, spot.part
    if isinstance(part, Ssd):
        return flash.sequential_Bps(part, spot.op, drive_B), None
    span = random_span if w.pattern == "random" else held_B / (part.capacity_GB * 1e9)
    efficiency = attachment.params["disk_format_efficiency"]
    rate_Bps = disk_model.mean_rate_MBps(part, efficiency, start, span) * 1e6
    if (
        w.pattern == "sequential"
        and spot.op == "read"
        and w.streams > copies  # (a mirror's copy each: no turns)
        and w.io != "mmap"
        and spot.volume.engine != "controller"
    ):  # the streams take turns at the drives (``interleave``)
        return _interleaved_Bps(attachment, host, spot, rate_Bps, span)
    return rate_Bps, None


def _interleaved_Bps(
    attachment: Attachment, host: Host, spot: Placement, media_Bps: float, span: float
) -> tuple[float, str | None]:
    """A hard disk's rate while several streams reading in order take turns at it."""
    body, volume, per_group = attachment.body, spot.volume, spot.per_group
    own = body.clients is None or body.clients.protocol == "smb"
    if volume.engine == "zfs" and volume.zfetch_max_distance_MiB is None:
        # OpenZFS 2.2's default for the host (openzfs/zfs #15072)
        distance = 64.0 if host.arch_bits == 64 else 8.0
        volume = replace(volume, zfetch_max_distance_MiB=distance)
    w = body.workload
    rate_Bps = interleave.drive_Bps(
        spot.part, volume, body.kernel, w, per_group, media_Bps, span, own_processes=own
    )
    if rate_Bps < media_Bps:  # (a mirror's streams may each have a copy)
        note = (
            interleave.note(spot.name, volume, body.kernel, w, per_group, own)
            + f"; a drive reads {rate_Bps / 1e6:,.1f} of its {media_Bps / 1e6:,.1f} MB/s"
        )
        return rate_Bps, note
    return rate_Bps, None


def _random_requests(
    attachment: Attachment,
    host: Host,
    spot: Placement,
    rate_Bps: float,
    random_span: float,
    copies: int,
    primary: bool,
    links: tuple[float, float] | None = None,
) -> tuple[RandomLayout, float, float]:
    """A random request's commands on a drive (a ZFS read's indirect blocks the ARC misses
    before its record, ``zfs.indirect_blocks``), its time alone and the drive's rate for them."""
    body, volume, part, op = attachment.body, spot.volume, spot.part, spot.op
    w = body.workload
    request_B = w.request_KiB * 1024
    if volume.engine == "zfs":
        lookups = zfs.indirect_blocks(volume, w, part, host).reads
        lay = zfs.random_layout(volume, op, request_B, spot.per_group, lookups)
    else:
        lay = requests.layout(volume, op, request_B, spot.per_group)
    if primary:
        lay = replace(lay, share=lay.share * copies)
    request_s = requests.response_s(part, op, lay, rate_Bps, random_span, links)
    # the requests in flight spread over the groups: the busiest's share reach its drives
    in_flight = w.streams * zfs.in_flight(volume, body) * max(spot.groups)
    commands = requests.queued(part, lay, request_B, in_flight)
    if (
        op == "write"
        and lay.phases == 1
        and writecache.destages_random_writes(body, spot.name, part)
    ):  # the drive's cache takes the writes and destages them among all it holds
        commands = max(commands, requests.cached_writes(part, lay.piece_B))
        request_s = requests.acknowledged_s(part, lay.piece_B)
    if isinstance(part, Ssd) and op == "write":
        return lay, request_s, requests.flash_write_Bps(part, lay, rate_Bps)
    rate_Bps = requests.drive_Bps(part, op, lay.mean_piece_B(), rate_Bps, random_span, commands)
    return lay, request_s, rate_Bps
