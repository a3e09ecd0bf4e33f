"""The storage model's scenario body: host, buses, controllers, volumes (RAID, LVM, file system),
workload and kernel, as validated frozen dataclasses. Defaults live only in these fields."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from typing import Annotated, Literal

from ..catalog import being_built
from ..errors import UserError, readable
from ..parts import Disk, FlashMBps, Ssd, check_bay
from ..schema import (
    Bound,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    Share,
    Words,
    Written,
    being_written,
    count_up_to,
)
from ..settings import (
    LAN_TCP_RMEM_B,
    LAN_TCP_WMEM_B,
    Kernel,
    SysctlInt,
    check_flows,
    check_triples,
)
from ..unread import Rule, by_rules
from .raid import LEVELS, MODELLED_LEVELS, UNMODELLED_LEVELS, EngineLevel
from .spindle import MirrorReads


@dataclass(frozen=True)
class BusSegment:
    """One bus segment of the host (a PCI bus, a hub link) that controllers share.

    ``via`` names the segment this one hangs from, when its bytes cross that one too: a SAS wire
    from a port of an HBA carries its bytes on over the HBA's PCIe link (``group_paths``); the
    downstream ports of a PCIe switch share its uplink, and a chipset's slots its link to the
    processor (every controller's slot and NVMe drive's segment pays each segment of the chain)."""

    part: str  # a bus of the catalog (data/hardware/buses.yaml): its rate in MB/s and its kind
    via: str | None = None


@dataclass(frozen=True)
class ControllerSlot:
    """A controller plugged into a bus segment of the host (``bus`` names a segment).

    ``transfer`` is how the driver moves data: by DMA, or by programmed I/O when DMA is off (as on
    the IBM x330 under Red Hat 7.3). ``channel_mode`` is the transfer mode the driver programmed on
    the controller's drive channels when it is not the controller's fastest (a ``channel`` bus of
    the catalog, no faster than the controller's ``channel_bus``): Linux's ServerWorks driver never
    enables Ultra DMA for disks on the OSB4, so they run at multiword DMA mode 2.
    ``write_back``, ``mirror_reads`` and ``processor_MHz`` are a RAID card's, for a card that
    heads a volume (engine: controller), and refused on any other (an md mirror reads as md's
    raid1, ``nearest``). ``write_back`` is its cache policy.
    ``mirror_reads`` is how it picks a mirror's copy for a read (``model.storage.spindle``'s
    ``MIRROR_READS``): ``balanced``, the drive with fewer commands pending, the first of equals (the
    read load balancing RAID vendors document); ``nearest``, Linux 2.6 md's raid1 ``read_balance``:
    the drive the last read went to if this one continues it, else the other if idle, else the
    nearer head; or ``primary``, always the first drive. The memory-mapped test replays each
    policy read by read (``model.storage.mmap``); streams and random requests read every copy under
    the first two, each stream reading in order on one copy (``model.storage.drive_work``), and the
    first copy alone under ``primary``.
    ``driver_cost`` names the free parameter for the host CPU this controller's driver path costs
    per byte written on this system (the Penn State report's 64-bit RAID write problem), paid by
    whoever submits the write: the writing process once it is throttled, the flusher threads before.
    ``processor_MHz`` is the clock of a RAID card's processor where the catalog gives none (its
    maker publishes none, or the report names no card) or you know better: a clock the sources
    leave unsaid is a fact to declare as an unknown (``unknowns:``) with the clocks its
    documentation allows, so that the interval shows what it costs.
    """

    part: str  # a controller of the catalog (data/hardware/controllers.yaml)
    bus: str
    transfer: Literal["dma", "pio"] = "dma"
    channel_mode: str | None = None  # a catalog bus of kind channel: the mode the driver set
    write_back: bool = False
    mirror_reads: MirrorReads = "balanced"
    driver_cost: str | None = (
        None  # a declared free parameter in ns/B: host CPU its driver path costs a byte written
    )
    # the RAID processor's clock (MHz) where the catalog gives none, or in place of the catalog's
    processor_MHz: PositiveFloat | None = None


@dataclass(frozen=True)
class Shelf:
    """A JBOD shelf (a catalog ``enclosures`` part) or a bare SAS expander (``expanders``) whose
    uplink is cabled to controller ports: ``uplink`` lists the ``CONTROLLER.CHANNEL`` each uplink
    lane takes (a 4-lane wide port is four channels of one controller). Every drive behind it
    shares that lane group; drives attach to it as ``SHELF.BAY``."""

    part: str  # the JBOD or expander: an id of the catalog's enclosures or expanders
    uplink: tuple[str, ...]  # the CONTROLLER.CHANNEL each uplink lane is cabled to
    # how a drive slower than the shelf's lanes (a SATA 6 Gb/s drive behind 12 Gb/s SAS) shares
    # them: align, as the SAS standard has it, a connection running at the slowest link rate of its
    # pathway, the faster links filled with ALIGNs (SAS-1 7.15 'Rate matching': the source 'must
    # pick the lowest common denominator, and stuff extra ALIGNs in to accommodate that slowest
    # physical link', R. Elliott, T10 reflector, 8 October 2002), so the drive holds an uplink lane
    # for twice its bytes' time at half the rate; buffered, an expander that stores and forwards
    # a slower drive's frames at the lanes' own rate (PMC-Sierra's SAS/SATA store-and-forward
    # buffering, US patent 8,924,610: '6 Gbps SAS and SATA disk drives can exchange data at 12
    # Gbps with 12 Gbps hosts'; Intel's 12 Gb RAID controllers' note 000008025: their expander
    # 'is consolidating the 6 Gb dataflow ... into a 12 Gb stream'). A datasheet that does not
    # say which is a fact to declare an unknown with both
    rate_matching: Literal["align", "buffered"] = "align"


# the attach-point holder of an NVMe drive on a bus segment's own lanes: ``nvme.SEGMENT.N``
NVME = "nvme"

# an MD-series array's cache block unless a volume sets one (cache_block_KiB), KiB: 4 KB as
# Dell's MD3260 ships (Dell PowerVault MD3260 series administrator's guide, 'Changing the cache
# block size'; the catalog's dell_md3260, cache_block_sizes_KiB)
CACHE_BLOCK_KiB = 4.0


@dataclass(frozen=True)
class DiskSet:
    """``count`` identical drives (a ``disks`` or an ``ssds`` part); ``attach`` lists where each
    sits, in order: ``CONTROLLER.CHANNEL``, ``SHELF.BAY``, or ``nvme.SEGMENT.N`` for an NVMe drive
    on the PCIe lanes of bus segment SEGMENT (slot N of it, no controller between).
    ``command_overhead_ms`` replaces a hard disk's own time per random command (the catalog's
    ``command_overhead_ms``) when the catalog part only stands in for the drive (a source that
    names no model): a fact such a scenario can declare an unknown. ``seq_read_MBps`` and
    ``seq_write_MBps`` replace a flash drive's sheet rates where the sheet's "up to" figure is not
    the drive's own (a maker's measurement on its test system, which reviews exceed): a fact the
    catalog declares an unknown where it is open (data/hardware/ssds.yaml: a SATA drive's, from the
    sheet's figure to its link's payload)."""

    part: str  # the drive: an id of the catalog's disks or ssds
    count: PositiveInt
    attach: tuple[str, ...]  # CONTROLLER.CHANNEL, SHELF.BAY or nvme.SEGMENT.N per drive
    command_overhead_ms: NonNegativeFloat | None = None  # None: the catalog part's own
    # a flash drive's sequential read rate, MB/s; None: the catalog part's sheet figure
    seq_read_MBps: FlashMBps | None = None
    # a flash drive's sequential write rate into its cache, MB/s; None: the catalog part's sheet
    # figure
    seq_write_MBps: FlashMBps | None = None

    def check(self, where: str, key: str) -> None:
        if self.count > len(self.attach):
            raise UserError(
                where,
                f"{key}.count",
                f"must be at most {len(self.attach)}, the number of "
                f"attach points listed in {key}.attach, got {self.count}",
            )


# A stripe chunk, in KiB: md's chunk, an LVM stripe or a RAID controller's stripe size, a power of
# two from 4 KiB. md: the kernel's Documentation/admin-guide/md.rst (chunk_size: 'The size should
# be at least PAGE_SIZE (4k) and should be a power of 2'), whose raid4/5/6 and raid10 refuse any
# other at assembly (drivers/md/raid5.c, raid10.c setup_conf: 'chunk size must be at least
# PAGE_SIZE and be a power of 2'), and mdadm(8), --chunk: 'RAID4, RAID5, RAID6, and RAID10 require
# the chunk size to be a power of 2, with minimal chunk size being 4KB' (raid0 has taken other
# multiples since Linux 2.6.31, "md: raid0: Enables chunk size other than powers of 2": not modelled
# here, where every level keeps one rule). LVM: lvcreate(8), -I: 'StripeSize must be 2^n (n = 2 to
# 9) for metadata in LVM1 format. For metadata in LVM2 format, the stripe size may be a larger power
# of 2'. RAID controllers offer powers of two (4 to 128 KiB on an Areca ARC-12xx, 8 KiB to 1 MiB on
# a MegaRAID, recalled from their manuals). At most 1 GiB, far beyond any of them
StripeChunk = Annotated[
    float,
    Bound(
        4.0,
        2.0**20,
        words="a power of two from 4 to 1,048,576 KiB (4, 8, 16, ...: a stripe chunk)",
        power_of_two=True,
    ),
]

# the block sizes each file system's mkfs takes, in KiB: mke2fs(8), -b: 'Valid block-size values
# are powers of two from 1024 up to 65536'; mkfs.xfs(8), -b size: 'the minimum is 512, and the
# maximum is 65536 (64 KiB)'; raw (the device itself, no blocks of its own) takes either's
BLOCK_KIB = {
    "ext2": (1.0, 64.0, "mke2fs -b"),
    "ext3": (1.0, 64.0, "mke2fs -b"),
    "ext4": (1.0, 64.0, "mke2fs -b"),
    "xfs": (0.5, 64.0, "mkfs.xfs -b size"),
}


@dataclass(frozen=True)
class FileSystem:
    """The file system on a volume: its ``type`` (``raw``, the block device itself, or one of the
    Linux file systems) and its ``block_KiB`` block size. An ext2 or ext3 file maps its data block
    by block: every block beyond the first twelve takes a 4-byte entry in an indirect block, read
    and written with the data (``model.storage.filesystem.metadata_share``); ext4 and XFS map
    extents (an ext4 extent entry of 12 bytes maps up to 32,768 blocks: Documentation/filesystems/
    ext4, 'Extent Tree'), a share too small to model.

    ``journal`` is ext3's and ext4's ``data=`` mount option (the kernel's
    Documentation/filesystems/ext3.txt and ext4's): ``ordered``, their default, and ``writeback``
    journal the metadata only, ``journal`` writes every data block to the journal first and to its
    place after (``model.storage.filesystem.journal``). The other file systems have no such option
    and keep the default.

    ``zfs`` is a ZFS dataset, the file system a pool (``engine: zfs``) holds: its block is the
    pool's ``record_KiB``, mapped by block pointers of 128 B a record (a stream's share, too small
    to model; a random read's, where the ARC cannot hold them, ``model.storage.zfs``); a pool's
    other use is a zvol, ``raw``."""

    # what the volume holds: raw (the block device itself; a pool's zvol), an ext2, ext3, ext4 or
    # XFS file system, or zfs (a ZFS dataset, on a pool only)
    type: Literal["raw", "ext2", "ext3", "ext4", "xfs", "zfs"] = "ext2"
    # the file system's block size, KiB, as mkfs set it (a ZFS dataset's is its pool's record_KiB)
    block_KiB: Annotated[
        float,
        Bound(
            0.5,
            64.0,
            words="a power of two from 0.5 to 64 KiB (ext2 to ext4: 1 to 64; xfs: 0.5 to 64)",
            power_of_two=True,
        ),
    ] = 4.0
    journal: Literal["ordered", "writeback", "journal"] = "ordered"

    def check(self, where: str, key: str) -> None:
        if self.type not in BLOCK_KIB:  # raw: the device's own; zfs: the pool's record_KiB
            return
        low, high, tool = BLOCK_KIB[self.type]
        if not low <= self.block_KiB <= high:
            raise UserError(
                where,
                f"{key}.block_KiB",
                f"{self.type} blocks are powers of two from {low:g} to {high:g} KiB ({tool}), "
                f"got {self.block_KiB:g}",
            )


# a ZFS record's size where record_KiB is unset (Volume.record_B), KiB: a dataset's recordsize
# default (zfsprops(7)) and a zvol's volblocksize default since OpenZFS 2.2 (Volume.record_KiB)
DATASET_RECORD_KiB = 128.0
ZVOL_BLOCK_KiB = 16.0

# ZFS's compression property (zfsprops(7), compression: 'on | off | gzip | gzip-N | lz4 | lzjb |
# zle | zstd | zstd-N | zstd-fast | zstd-fast-N', gzip-N 'from 1 (fastest) to 9', zstd-N 'from 1
# (fastest) to 19', zstd-fast-N 'in [1-9,10,20,30,...,100,500,1000]'): each name, and the levels
# N its NAME-N takes, runs of them (a range) or one each
COMPRESSION_PROPERTY: dict[str, tuple[range | int, ...]] = {
    "off": (),
    "on": (),
    "lz4": (),
    "lzjb": (),
    "zle": (),
    "gzip": (range(1, 10),),
    "zstd": (range(1, 20),),
    "zstd-fast": (range(1, 11), range(20, 101, 10), 500, 1000),
}


def _levels(run: range | int) -> tuple[int, ...]:
    return tuple(run) if isinstance(run, range) else (run,)


def _run_words(run: range | int) -> str:
    """A run of levels as the schema says it: 1 to 9, 20 to 100 by 10, 500."""
    if isinstance(run, int):
        return str(run)
    return f"{run[0]} to {run[-1]}" + (f" by {run.step}" if run.step > 1 else "")


# every value the key takes, and them in words: the check's and the schema's (Volume.compression)
COMPRESSION_VALUES = frozenset(COMPRESSION_PROPERTY) | {
    f"{name}-{n}" for name, runs in COMPRESSION_PROPERTY.items() for r in runs for n in _levels(r)
}
COMPRESSION_WORDS = "true or false, or a value of ZFS's compression property (zfsprops(7)): " + (
    ", ".join(
        name + (f", {name}-N (N {', '.join(map(_run_words, runs))})" if runs else "")
        for name, runs in COMPRESSION_PROPERTY.items()
    )
)
# the values that name another's compressor: on is lz4 (Volume.compression); zfsprops(7): 'gzip is
# equivalent to gzip-6', 'zstd is equivalent to zstd-3'
COMPRESSION_ALIASES = {"on": "lz4", "gzip-6": "gzip", "zstd-3": "zstd"}


# a dRAID vdev as zpool create takes it (zpoolconcepts(7): 'draid[parity][:datad][:childrenc]
# [:sparess]', parity 1 to 3)
DRAID = re.compile(r"draid[1-3]?(:[0-9]+d)?(:[0-9]+c)?(:[0-9]+s)?")


# the vdev types zpool create takes besides dRAID, each with its layout in the RAID table
# (model.storage.raid): raidz is zpool's own name for raidz1 (zpoolconcepts(7): 'The raidz vdev
# type is an alias for raidz1')
VDEV_LEVELS = {
    "mirror": "raid1",
    "raidz": "raidz1",
    "raidz1": "raidz1",
    "raidz2": "raidz2",
    "raidz3": "raidz3",
}


def vdev_type(value: object) -> bool:
    """Whether ``value`` is a ZFS vdev's type as zpool create takes it: mirror, raidz1 (or raidz)
    to raidz3, or dRAID (``DRAID``)."""
    return isinstance(value, str) and (value in VDEV_LEVELS or DRAID.fullmatch(value) is not None)


def _as_vdevs(value: object) -> str | None:
    """How to write a ZFS vdev's type given as a volume's RAID level (``level: raidz2``, what a
    ZFS admin types first: it was refused with md's and the cards' levels alone, the quote
    audit); None for any other value."""
    if not vdev_type(value):
        return None
    return (
        f"{value} is a ZFS vdev's type, not a RAID level: write engine: zfs with vdevs: "
        f"{{type: {value}, count: N}} (N vdevs, the drives split evenly among them) in place of "
        "level" + ("; md's and a RAID card's mirror is level: raid1" if value == "mirror" else "")
    )


@dataclass(frozen=True)
class Vdevs:
    """A ZFS pool's vdevs: ``count`` equal vdevs of ``type`` (the pool stripes over them)."""

    # mirror, raidz1 (or raidz, zpool's alias of it), raidz2 or raidz3: every drive a copy, or 1-3
    # parity; dRAID (OpenZFS 2.1 and later, zpoolconcepts(7): draid is draid1, parity 1-3,
    # its data drives a group, children and distributed spares as `zpool create draid2:8d:12c:1s`
    # gives them) is a valid vdev the model does not cover (not modelled)
    type: str
    count: PositiveInt = 1  # vdevs in the pool; disks.count splits evenly among them

    def check(self, where: str, key: str) -> None:
        if not vdev_type(self.type):
            raise UserError(
                where,
                f"{key}.type",
                "must be mirror, raidz1 (or raidz, the same), raidz2, raidz3 or dRAID as zpool "
                "create takes it (draid, draid1 to draid3, then :Nd, :Nc and :Ns as wanted), got "
                f"{self.type!r}",
            )

    @property
    def draid(self) -> bool:
        """Whether the vdevs are dRAID ones, which have no layout in the RAID table."""
        return self.type.startswith("draid")

    def level(self) -> str:
        """The vdev's layout in the RAID table (``model.storage.raid``); a dRAID vdev's own type,
        which has none there."""
        return VDEV_LEVELS.get(self.type, self.type)


@dataclass(frozen=True, kw_only=True)
class Volume:
    """A block device the workload uses: drives in one or more RAID groups, optionally joined by
    LVM.

    ``engine`` says who keeps each group's layout: Linux md (``md``) or a hardware RAID controller
    (``controller``, whose groups are the LUNs the host sees). ``groups`` splits the drives into
    that many equal groups of ``level``; LVM (``lvm``) joins them ``linear`` (a stream fills the
    first) or ``striped`` over ``lvm_stripes`` groups (all when omitted) in ``chunk_KiB`` stripes.
    ``group_paths`` names the bus segments that carry each group's traffic to the host, in turn
    (the SAS wires of an external array), each with the segments it hangs from (``via``: the HBA's
    PCIe link); without it, traffic takes the controller's own slot.
    ``cache_block_KiB`` is a RAID array's cache block size, the MD-series setting of a controller
    whose catalog part keeps cache blocks: one of the sizes its ``cache_block_sizes_KiB`` lists
    (the MD3260's 4, 8, 16 or 32 KiB), unset the 4 KiB an MD-series array ships with; refused,
    whatever its value, on any other card.
    ``drive_write_cache`` is the drives' own write cache under md (``hdparm -W``): ``as_shipped``
    (ATA and SATA drives on, SCSI and SAS drives off, as Linux leaves them), ``enabled`` or
    ``disabled`` (a drive that holds one command at a time then waits a revolution between two
    writes; one that queues commands orders its random writes among the host's queue only, where
    with the cache on it orders them among all its cache holds: ``model.storage.writecache``); a
    hardware RAID volume's drives follow their controller (``write_back``).
    A ZFS pool (``engine: zfs``, ``model.storage.zfs``) takes ``vdevs`` instead of ``level`` and
    ``groups``, and its ``record_KiB``, sector size (``ashift``), ``arc_GB``, prefetch distance
    (``zfetch_max_distance_MiB``) and ``compression`` of data whose ``compress_ratio`` it gets;
    a zvol (the pool's ``filesystem`` raw) serves
    its requests on ``zvol_threads`` threads, each waiting for its own.
    """

    # each group's RAID level (md and controller engines); raid3, raid50, raid60 and ddp are RAID
    # cards' levels the lab does not simulate: not modelled yet on a card whose catalog entry
    # lists them (raid_levels), refused on md and on a card that does not
    level: EngineLevel | None = field(default=None, metadata={"hint": _as_vdevs})
    disks: DiskSet
    engine: Literal["md", "controller", "zfs"] = "md"  # who keeps the layout: md, a card, ZFS
    vdevs: Vdevs | None = None  # a ZFS pool's vdevs (engine zfs only)
    # ZFS's record, KiB: the unit ZFS checksums and reads, a dataset's recordsize or a zvol's
    # volblocksize; zfsprops(7), recordsize: 'The size specified must be a power of two greater
    # than or equal to 512 B and less than or equal to 128 KiB. If the large_blocks feature is
    # enabled on the pool, the size may be up to 16 MiB'. Unset: the default of what the pool
    # holds (Volume.record_B): a dataset's recordsize, 128 KiB (zfsprops(7)); a zvol's (filesystem
    # raw) volblocksize, 16 KiB, OpenZFS's since 2.2 (include/sys/fs/zfs.h,
    # ZVOL_DEFAULT_BLOCKSIZE 16384, 'Increase default volblocksize from 8KB to 16KB', openzfs/zfs
    # pull request #12406, 2021; OpenZFS documentation, ZVOLs: 'the default is 16 KiB'), 8 KiB
    # through 2.1: a zvol made by an older release gives its 8
    record_KiB: (
        Annotated[
            float,
            Bound(
                0.5,
                16384.0,
                words="a power of two from 0.5 to 16,384 KiB (512 B to 16 MiB: zfsprops(7))",
                power_of_two=True,
            ),
        ]
        | None
    ) = None
    # ZFS's ashift: the vdevs' sector, 2^ashift B, the least a vdev reads or writes and the unit it
    # allocates a record in, its parity and a RAIDZ vdev's padding too (model.storage.zfs), as
    # zpool create -o ashift= sets it; zpoolprops(7), ashift: 'Values from 9 to 16, inclusive, are
    # valid'. Left to itself OpenZFS takes the drives' physical sector (OpenZFS documentation,
    # Workload Tuning, 'Alignment Shift (ashift)': 'calculated as the maximum base 2 logarithm of
    # the physical sector size of any child vdev'); the catalog gives no drive's, so 12 (4 KiB), the
    # physical sector of Advanced Format and 512e drives and zpoolprops(7)'s advice for disks that
    # 'use 4KiB sectors but report 512B sectors' ('set ashift=12')
    ashift: Annotated[
        int, Bound(9.0, 16.0, words="an integer from 9 to 16 (sectors of 512 B to 64 KiB)")
    ] = 12
    # ZFS ARC (read cache), GB; omitted: half host memory. It also holds the indirect blocks that
    # map the records (128 B a record, in 128 KiB blocks: 1/1,024 of a span of 128 KiB records):
    # a random read whose blocks it cannot hold reads them first from the pool's vdevs, where
    # metadata lives (a special vdev is not modelled), and the result says how many
    arc_GB: PositiveFloat | None = None
    # ZFS on Linux's zvol_threads module parameter: 32 in OpenZFS 0.7 and 0.8 (module/zfs/zvol.c),
    # the larger of the CPUs and 32 in later releases (zfs(4))
    zvol_threads: PositiveInt = 32
    # ZFS's zfetch_max_distance, MiB: how far ahead the prefetcher reads a stream. 8 MiB through
    # OpenZFS 2.1 (module/zfs/dmu_zfetch.c, 'max bytes to prefetch per stream (default 8MB)');
    # 64 MiB on 64-bit systems from 2.2 (amotin's adaptive prefetch, openzfs/zfs #13452: the
    # distance doubles up to 4 MiB and then grows by an eighth each time a prefetch comes late,
    # 'new 64MB maximum depth'; #15072 keeps 8 MiB on 32-bit). Unset: 2.2's default for the host
    # (64 MiB, 8 on a 32-bit host). Streams reading at once on hard disks take turns at the drives
    # by this much (model.storage.interleave)
    zfetch_max_distance_MiB: (
        Annotated[
            float,
            Bound(
                1.0,
                2048.0,
                words="a power of two from 1 to 2,048 MiB (zfetch_max_distance, an unsigned int "
                "of bytes)",
                power_of_two=True,
            ),
        ]
        | None
    ) = None
    # ZFS's compression property of the dataset or zvol (zfsprops(7)): off (false, or "off" as
    # `zfs get` prints it); on (true, or "on"), which is lz4 (module/zfs/zio_compress.c,
    # zio_compress_select: on is LZ4 where the pool has the lz4_compress feature, as every pool
    # made since 0.6.5 has); lz4; zstd or zstd-3 (what compression=zstd names); zstd-1; gzip or
    # gzip-6 (what compression=gzip names). The property's other values (lzjb, zle, gzip's and
    # zstd's other levels, zstd-fast and zstd-fast-N) are refused as not modelled: the model has
    # no published speed of their compressors (model.storage.zfs.CODECS). Each record is
    # compressed as it is written and decompressed as it is read, on the host's CPU
    # (model.storage.zfs), and kept compressed only where that saves an eighth of it. Unset: off,
    # what the model assumed before it had the key; OpenZFS 2.2's own default is lz4 ('Since
    # OpenZFS 2.2.0 the compression property defaults to on', OpenZFS documentation, Basic
    # Concepts, Compression), so a planner who does not know how the pool will be set declares it
    # an unknown (unknowns: {volumes.NAME.compression: {options: [lz4, off]}}), the scenario
    # giving the compress_ratio the data are expected to have: off moves nothing at any ratio,
    # nor lz4 at 1, and many unknowns are varied one at a time (model.design_points)
    compression: Annotated[bool | str, Words(COMPRESSION_WORDS)] = False
    # the data's compression ratio under that compression: a record's bytes over what the
    # compressor makes of them (the ratio `zfs get compressratio` reports of such data, less the
    # records ZFS keeps whole). ZFS keeps a record compressed only where that saves at least an
    # eighth of it and a whole sector (2^ashift B): below 8/7, every record is stored whole, its
    # writes still paying the compressor (model.storage.zfs). A ratio the data's owner cannot
    # give is a range to declare as an unknown (unknowns: {volumes.NAME.compress_ratio: {range:
    # [LOW, HIGH]}}); with compression off it moves nothing (the result says so)
    compress_ratio: Annotated[
        float, Bound(1.0, words="a number at least 1 (a record's bytes over its compressed bytes)")
    ] = 1.0
    # how many equal RAID groups of ``level`` the drives are split into: md arrays of their own, or
    # the LUNs a RAID controller shows the host; more than one are joined by LVM (``lvm``)
    groups: PositiveInt = 1
    # how LVM joins the groups into the one volume: none (a single group), linear (concatenated: a
    # stream fills the first group before the next, a random request lands on the group that holds
    # it) or striped (lvcreate -i: each request dealt out over ``lvm_stripes`` groups in
    # ``chunk_KiB`` stripes)
    lvm: Literal["none", "linear", "striped"] = "none"
    # with lvm striped, how many groups the volume stripes over (lvcreate -i, its stripe count):
    # the first ones, the others carrying none of its bytes; unset: all ``groups``. Refused where
    # written on a ZFS pool or with lvm none; lvm linear leaves it unused
    lvm_stripes: PositiveInt | None = None
    # the stripe chunk, KiB: the piece each member drive of a group holds in turn before the next
    # drive's (md's --chunk, a RAID controller's stripe or segment size); with lvm striped, also
    # the stripe LVM deals a request out in over the groups (lvcreate -I)
    chunk_KiB: StripeChunk = 64.0
    cache_block_KiB: PositiveFloat | None = None
    group_paths: tuple[str, ...] = ()
    drive_write_cache: Literal["as_shipped", "enabled", "disabled"] = "as_shipped"
    # whether md's RAID6 may update a stripe by read-modify-write (read the old data and both
    # parities) where that reads less than reconstruct-write (read the stripe's other data chunks),
    # as its RAID5 always could: Linux 4.1 and later (true; md's raid5.c handle_stripe_dirtying
    # takes the fewer reads, reconstruct-write on a tie); before 4.1 its RAID6 knew only
    # reconstruct-write (false), so a small write to a wide array reads every other data chunk
    # (md RAID6 only, refused elsewhere: a card takes the fewer reads, a ZFS pool writes whole
    # records, md RAID5 always chose)
    md_raid6_rmw: bool = True
    # the worker threads an md RAID5/6 array shares its stripes with, its
    # /sys/block/mdN/md/group_thread_cnt (Linux 3.12 and later; the kernel takes 0 to 8192): that
    # many workers in each NUMA node's group (a socket each; one on a front-side-bus host) beside
    # the array's raid5d thread, which alone handles its stripes and parity at 0, Linux's default;
    # a stripe goes to its writer's node's group, so one stream feeds one node's workers.
    # Each thread works on a core of the host's (no more of them at once than it has cores, and
    # their work is the host's CPU's), and the share of the work they do under the array's one
    # device_lock goes one thread at a time, so n threads handle n / (1 + 0.177 (n - 1)) times
    # raid5d's rate alone (Amdahl's law, model.storage.raid5d): stock md measured 2.9 times at 4
    # workers (a rebuild, one NUMA node; Shaohua Li's 2012 patches 2.3 with 2 threads more, 3 with
    # one a disk of 4). Past raid5d and 4 workers at once no stock run is published: the threads
    # past them add the share md_workers_past_measured (0 to 1, a free parameter no table informs,
    # its range in the interval) of what that law gives them. md RAID5 and RAID6 only (RAID0, 1
    # and 10 have no raid5d; a ZFS pool and a RAID card keep their own threads)
    md_group_thread_cnt: Annotated[
        int, Bound(0, 8192, words="an integer from 0 to 8,192 (the kernel's limit)")
    ] = 0
    # the block layer's I/O scheduler of an md volume's drives, /sys/block/DEV/queue/scheduler (md
    # only: a RAID card's LUN, whose readers stay flows here, and a ZFS pool, which issues its own
    # reads, refuse it). mq-deadline is what Linux gives a disk with one hardware queue since
    # blk-mq became the only path (5.0; block/elevator.c); it, none and kyber serve what is queued
    # without waiting, as deadline and noop did. cfq (the default of most distributions' 2.6.18 to
    # 4.x kernels) and bfq idle a while for a process's next request, so two processes reading
    # their own files take the drives by turns of a slice (model.storage.interleave)
    io_scheduler: Literal["mq-deadline", "none", "kyber", "bfq", "deadline", "noop", "cfq"] = (
        "mq-deadline"
    )
    filesystem: FileSystem = field(default_factory=FileSystem)

    @property
    def compressor(self) -> str | None:
        """The compressor ``compression`` names: none where it is off, lz4 where it is on, zstd
        for zstd-3 and gzip for gzip-6 (``COMPRESSION_ALIASES``)."""
        name = {False: "off", True: "on"}.get(self.compression, self.compression)
        if name == "off":
            return None
        return COMPRESSION_ALIASES.get(name, name)

    @property
    def record_B(self) -> float:
        """A ZFS record's bytes: ``record_KiB``, else the default of what the pool holds, a
        dataset's recordsize (``DATASET_RECORD_KiB``) or a zvol's volblocksize
        (``ZVOL_BLOCK_KiB``)."""
        if self.record_KiB is not None:
            return self.record_KiB * 1024
        zvol = self.filesystem.type == "raw"
        return (ZVOL_BLOCK_KiB if zvol else DATASET_RECORD_KiB) * 1024

    def layout(self) -> tuple[str, int]:
        """The RAID table's level of each group and the number of groups (a ZFS pool's vdevs)."""
        if self.vdevs is not None:
            return self.vdevs.level(), self.vdevs.count
        return self.level, self.groups

    def group_GB(self, part: Disk | Ssd) -> float:
        """One group's (LUN's, vdev's) user capacity on drives of ``part``, GB: its data members'
        (``raid.Level.data_members``)."""
        level, groups = self.layout()
        return LEVELS[level].data_members(self.disks.count // groups) * part.capacity_GB

    def groups_reached(self, window_B: float) -> int:
        """The groups ``window_B`` consecutive bytes reach at once: LVM striped deals them out in
        ``chunk_KiB`` stripes over ``stripe_groups`` groups (consecutive stripes on one group lie
        side by side in it, so each group's share is one piece); linear keeps them in one group
        (what straddles a boundary is too rare to count); one group, itself."""
        if self.lvm != "striped":
            return 1
        return min(self.stripe_groups, math.ceil(window_B / (self.chunk_KiB * 1024)))

    @property
    def stripe_groups(self) -> int:
        """The groups the volume's bytes are dealt over: LVM striped's ``lvm_stripes``, else every
        group (a ZFS pool's vdevs: an ``lvm_stripes`` the file gave before a variant or an
        override made the volume a pool had dealt them over that many, the review's -30 %)."""
        if self.lvm == "striped" and self.lvm_stripes:
            return self.lvm_stripes
        return self.layout()[1]

    @property
    def cache_block_used_KiB(self) -> float:
        """The cache block an array that keeps them writes in: ``cache_block_KiB``, or unset the
        one it ships with (``CACHE_BLOCK_KiB``)."""
        return self.cache_block_KiB or CACHE_BLOCK_KiB

    def check(self, where: str, key: str) -> None:
        """The engine's checks, with what the scenario's text writes in view where it is loaded
        (``being_written``): a key of another engine written is refused whatever its value (an md
        volume's compression: false, ZFS's default, had passed and meant nothing, the
        hostile-input audit)."""
        self._check_engine(where, key, being_written())

    def check_layout(self, where: str, key: str) -> None:
        """The groups or vdevs split the drives evenly, each at least its level's least, joined
        as the engine can. Checked by the scenario's body (``StorageBody.check``) after where
        each drive attaches: a drive past its shelf's bays is told as that, not as the sums the
        extra drive broke."""
        level, groups = self.layout()
        count = self.disks.count
        if count % groups:
            at = f"{key}.vdevs.count" if self.vdevs else f"{key}.groups"
            raise UserError(
                where,
                at,
                f"{groups} {'vdevs' if self.vdevs else 'groups'} must divide disks.count "
                f"({count} drives)",
                related=(f"{key}.disks.count", f"{key}.disks"),
            )
        if groups > 1 and self.lvm == "none" and self.engine != "zfs":  # a pool stripes itself
            raise UserError(
                where, f"{key}.lvm", "must be linear or striped to join more than one group"
            )
        # lvm_stripes held to the groups only where it is read (lvm striped): one inherited where
        # --set made lvm none, or the volume a pool, had been refused (the review)
        if self.stripe_groups > groups:
            raise UserError(
                where,
                f"{key}.lvm_stripes",
                f"must be at most groups ({groups}), got {self.lvm_stripes}",
            )
        if self.vdevs is not None and self.vdevs.draid:
            return  # no layout in the RAID table to check: the simulation refuses it
        if level in UNMODELLED_LEVELS:  # a card's level the lab does not simulate, nor its rules
            return
        per_group = count // groups
        problem = LEVELS[level].problem(per_group, md=self.engine == "md")
        if problem:
            at = f"{key}.vdevs.type" if self.vdevs else f"{key}.level"
            raise UserError(
                where,
                at,
                f"{problem}; got {per_group} drives per group",
                related=(f"{key}.disks.count", f"{key}.disks"),
            )

    def _check_engine(self, where: str, key: str, written: Written | None) -> None:
        """A ZFS pool names vdevs and no level, groups or LVM, and holds a ZFS dataset or a zvol;
        md and a controller the reverse. A key that means nothing in the volume's configuration
        is refused where it is set (``_set``), LVM's stripe count where it is written
        (``_check_lvm_stripes``)."""
        self._check_lvm_stripes(where, key, written)
        if self.engine == "zfs":
            self._check_pool(where, key, written)
            return
        self._refuse_set(where, key, "vdevs", "only for engine: zfs; ", written)
        if self.level is None:
            raise UserError(where, f"{key}.level", f"engine {self.engine} needs a RAID level")
        self._only_for(where, key, "zfs", ZFS_ONLY, written)
        if self.filesystem.type == "zfs":
            raise UserError(
                where,
                f"{key}.filesystem.type",
                f"a ZFS dataset lives on a ZFS pool (engine: zfs), not on engine {self.engine}; "
                "allowed here: raw, ext2, ext3, ext4, xfs",
            )
        if self.engine == "md":
            self._check_md(where, key, written)
            return
        # a controller's volume: its drives follow the controller's cache setting
        self._only_for(where, key, "md", MD_ONLY, written)
        if any(p.partition(".")[0] == NVME for p in self.disks.attach):
            # no card stands between a segment's lanes and its drives (a mirror's reads had
            # looked one up: a traceback, the input audit)
            raise UserError(
                where, f"{key}.engine", "NVMe drives on a bus segment need md (no card holds them)"
            )

    def _check_lvm_stripes(self, where: str, key: str, written: Written | None) -> None:
        """LVM's stripe count, on a pool or with lvm: none, refused where it is written
        (``_written``), a refusal new with the review: one inherited is unused
        (``stripe_groups``), as purchase_hdd_md's lvm_stripes: 2 is where --set makes its volume
        a pool."""
        choices = ("engine", "lvm")
        if self.lvm != "none" and self.engine != "zfs":
            return
        if not self._written(key, "lvm_stripes", written, *choices):
            return
        unstriped = (
            "a ZFS pool, striped over all its vdevs" if self.engine == "zfs" else "lvm: none"
        )
        why = (
            "only for a volume LVM stripes over its groups (lvm: striped; linear leaves it "
            f"unused), and this one is {unstriped}: "
        )
        raise self._refusal(where, key, "lvm_stripes", why, written, *choices)

    def _check_pool(self, where: str, key: str, written: Written | None) -> None:
        """A ZFS pool's: its vdevs, no md's or card's keys, a dataset or a zvol on it."""
        if self.vdevs is None:
            raise UserError(
                where,
                f"{key}.vdevs",
                "a ZFS pool (engine: zfs) needs its vdevs, as "
                f"--set '{key}.vdevs={{type: raidz2, count: 2}}'",
            )
        for name in ("level", "groups", "lvm"):
            self._refuse_set(
                where, key, name, "not for engine: zfs, the pool's vdevs say it; ", written
            )
        fs = self.filesystem
        if fs.type not in ("zfs", "raw"):
            raise UserError(
                where,
                f"{key}.filesystem.type",
                "a ZFS pool holds a ZFS dataset (zfs) or a zvol (raw), "
                f"got {fs.type}" + (" (the default)" if fs == FileSystem() else ""),
            )
        if fs.type == "zfs":
            self._check_dataset(where, key, written)
        self._only_for(where, key, "md or controller", ("chunk_KiB",), written)
        self._only_for(where, key, "md", MD_ONLY, written)
        self._only_for(where, key, "controller", CONTROLLER_ONLY, written)
        self._check_compression(where, key)

    def _check_dataset(self, where: str, key: str, written: Written | None) -> None:
        """A ZFS dataset's: no file system's block and no zvol's threads, set where the engine
        or the file system's type was chosen, or after it."""
        dataset = ("engine", "filesystem.type")  # the choices a ZFS dataset's keys meet
        why = "a ZFS dataset's block is the pool's record_KiB; "
        self._refuse_set(where, key, "filesystem.block_KiB", why, written, *dataset)
        why = "only for a zvol (filesystem type raw); "
        self._refuse_set(where, key, "zvol_threads", why, written, *dataset)

    def _check_md(self, where: str, key: str, written: Written | None) -> None:
        """An md array's: a level md builds, no card's keys, raid5d's workers on RAID5 or 6."""
        if self.level in UNMODELLED_LEVELS:
            raise UserError(
                where,
                f"{key}.level",
                f"{self.level} is a RAID card's level, which md does not build; allowed with "
                f"engine md: {', '.join(MODELLED_LEVELS)}",
            )
        self._only_for(where, key, "controller", CONTROLLER_ONLY, written)
        if self.level != "raid6":  # RAID5 always chose; other levels have no parity to update
            why = (
                "only for md RAID6 (whether it may update a stripe by read-modify-write); this "
                f"volume's level is {self.level}: "
            )
            self._refuse_set(where, key, "md_raid6_rmw", why, written, "level")
        if self.md_group_thread_cnt and not LEVELS[self.level].parity_chunks:
            why = (
                "only for md RAID5 or RAID6 (raid5d's workers); this volume's level is "
                f"{self.level}: "
            )
            raise self._refusal(where, key, "md_group_thread_cnt", why, written, "level")

    def _check_compression(self, where: str, key: str) -> None:
        """A ``compression`` given as text is a value of ZFS's compression property."""
        value = self.compression
        if isinstance(value, bool) or value in COMPRESSION_VALUES:
            return
        raise UserError(
            where, f"{key}.compression", f"must be {COMPRESSION_WORDS}; got {readable(value)}"
        )

    def _only_for(
        self, where: str, key: str, engines: str, names: tuple[str, ...], written: Written | None
    ) -> None:
        """Refuse any of ``names`` set (``_set``): it means nothing on this engine."""
        why = f"only for engine: {engines}; this volume's engine is {self.engine}: "
        for name in names:
            self._refuse_set(where, key, name, why, written)

    def _refuse_set(
        self, where: str, key: str, name: str, why: str, written: Written | None, *choices: str
    ) -> None:
        """Refuse the key ``name`` set (``_set``) with ``choices`` as they are (``_refusal``)."""
        if self._set(key, name, written, *choices):
            raise self._refusal(where, key, name, why, written, *choices)

    def _written(self, key: str, name: str, written: Written | None, *choices: str) -> bool:
        """Whether the key ``name`` of the volume at ``key`` is written (``written``, the
        scenario's text or a design point's; None where a body is built otherwise) where the
        choices it conflicts with were last made, or after them (``Written.since``): ``choices``,
        keys of the volume, its engine unless given. One the file gives for its own
        configuration, which a variant or an override changes, is inherited: a copy of
        atlas_intellistation whose variant made its md0 a pool was refused whole for the file's
        chunk_KiB: 64, md's default (the review)."""
        return written is not None and written.since(f"{key}.{name}", *_chosen(key, choices))

    def _set(self, key: str, name: str, written: Written | None, *choices: str) -> bool:
        """Whether the key ``name`` (dotted below the volume) is set: written (``_written``), or
        away from its default, as the engine's checks have always refused (a value inherited, a
        rebuilt body's)."""
        first, *rest = name.split(".")
        value, default = getattr(self, first), _VOLUME_DEFAULTS[first]
        for part in rest:
            value, default = getattr(value, part), getattr(default, part)
        return self._written(key, name, written, *choices) or value != default

    @staticmethod
    def _refusal(
        where: str, key: str, name: str, why: str, written: Written | None, *choices: str
    ) -> UserError:
        """The refusal of the key ``name`` of the volume at ``key``, which means nothing with
        ``choices`` as they are: ``why``, then what to do. Set where they were last set, or
        after, it goes, told where it is (``Scenario.relocated``). Inherited from before them,
        away from its default, it is told where the conflict was made and taken back to its
        default there, a variant's ``KEY: null`` or an override's ``--set KEY=null``: the review
        found a variant's chunk_KiB: 256, for its md array, told to go when --set made the volume
        a pool, and the file's chunk_KiB: 128, where its variant did, told as the file's, '--set
        ...=null' (which ``predict``'s load of each variant, without the command's --set, does
        not see)."""
        at = f"{key}.{name}"
        made = written and written.made_after(at, *_chosen(key, choices))
        if not made:
            return UserError(where, at, why + "remove it")
        if made == written.variant:  # then the key is the file's
            origin, undo = "the file", f"give {at}: null in this variant"
        else:  # an override's: --set's, or a grid's or a measured row's
            undo = f"--set {at}=null" if made == "--set" else f"give {at}=null there"
            origin = written.place(at)
        return UserError(
            made, at, f"{why}{name} comes from {origin}, away from its default; {undo}"
        )


def _chosen(key: str, choices: tuple[str, ...]) -> list[str]:
    """The keys ``choices`` of the volume at ``key``, its engine where none is given: what a key
    of the volume that means nothing with them conflicts with."""
    return [f"{key}.{choice}" for choice in choices or ("engine",)]


# the keys of ZFS's pool and datasets
ZFS_ONLY = (
    "record_KiB",
    "ashift",
    "arc_GB",
    "zvol_threads",
    "zfetch_max_distance_MiB",
    "compression",
    "compress_ratio",
)
# the keys of md's own RAID (the drives' write caches it leaves as they are, its RAID6's
# read-modify-write, the drives' I/O scheduler, which no card's LUN or ZFS pool follows here, and
# its RAID5/6's worker threads)
MD_ONLY = ("drive_write_cache", "md_raid6_rmw", "io_scheduler", "md_group_thread_cnt")
# the keys of a RAID array's controllers: an MD-series cache block, the bus segments each group's
# traffic takes to the host
CONTROLLER_ONLY = ("cache_block_KiB", "group_paths")


# each Volume field's default, for the checks of what an engine leaves unused
_VOLUME_DEFAULTS = {
    f.name: f.default if f.default is not MISSING else f.default_factory()
    for f in fields(Volume)
    if f.default is not MISSING or f.default_factory is not MISSING
}


@dataclass(frozen=True)
class StorageWorkload:
    """A dd-style stream: ``streams`` processes each moving ``total_MB`` in ``request_KiB``
    requests.

    ``op`` is what they do: ``read`` or ``write`` the volume ``target`` names, or ``copy`` the
    volume ``source`` names onto it. ``io`` is how: through the page cache (``buffered``),
    bypassing it (``direct``, ``O_DIRECT``) or memory-mapped (``mmap``).

    ``op: write`` is timed until the data are on the drives, as ``dd conv=fdatasync`` or fio's
    ``end_fsync=1`` time it (and as a write far larger than the page cache's dirty limit runs): a
    small buffered write with no sync returns at the page cache's rate, which is not predicted.

    ``io: mmap`` is the LDM queue test instead: one program maps the target file and reads it front
    to back while writing it back to front (``model.storage.mmap``).
    ``pattern: random`` places each request at a random offset of the volume, so every request
    pays its drives' positioning (``model.storage.requests``); a direct stream keeps
    ``queue_depth`` requests in flight (asynchronous I/O), a buffered one reads one at a time.
    ``span_GB`` confines random requests to the volume's first that many GB (a test partition at
    the start of a disk, fio's ``size``): the drives' seeks cross only the part of the stroke the
    span covers; unset, requests fall anywhere in the volume.
    """

    # what the streams do: read or write the target volume, or copy the source volume onto it
    op: Literal["read", "write", "copy"]
    target: str  # the volume read or written (a name under volumes)
    # what each stream moves (the memory-mapped test simulates at most 2^23 chunks over its runs)
    total_MB: PositiveFloat
    request_KiB: PositiveFloat  # the size of each read() or write() a stream makes
    source: str | None = None  # the volume a copy reads (another under volumes); op copy only
    io: Literal["buffered", "direct", "mmap"] = "buffered"
    # processes streaming at once, each its own total_MB
    streams: count_up_to(10_000, "each stream is simulated") = 1
    # the test repeated back to back; the figures are a run's mean (its bytes, the mean of the
    # runs' times): a read's later runs come from the ARC or the page cache where its data fit
    # (model.storage.rereads), the memory-mapped test simulates each run
    runs: count_up_to(1_000, "the memory-mapped test simulates each run") = 1
    # where the data begin on each drive, as a share of its capacity: 0 is the outer edge (the
    # fastest zone), 0.9 the last tenth near the inner edge
    start_fraction: Share = 0.0
    pattern: Literal["sequential", "random"] = "sequential"  # where each request lands
    # requests a direct stream keeps in flight (io: direct only); a drive serves at most its own
    # queue_depth of them at once (a SATA drive's NCQ, 32: model.storage.requests), the block
    # layer holding the rest; a reader of a ZFS pool's file keeps one whatever its depth (ZFS sends
    # a file's reads down its synchronous path: model.storage.zfs.in_flight), a zvol its threads'
    # share. The bound is a sanity limit on the key, not a queue's size: 65,536,
    # the libaio requests a Linux host keeps in flight at all unless fs.aio-max-nr is raised
    # (fs/aio.c, aio_max_nr = 0x10000); no drive's queue holds that many (an NVMe queue of 65,536
    # entries, the most CAP.MQES allows, holds 65,535 commands: it is full when head = tail + 1)
    queue_depth: Annotated[
        int,
        Bound(
            1.0,
            65536.0,
            words="a positive integer up to 65,536 (a sanity limit, Linux's default fs.aio-max-nr; "
            "a drive holds at most its own queue depth of them)",
        ),
    ] = 1
    span_GB: PositiveFloat | None = None  # random requests' span from the volume's start, GB

    def check(self, where: str, key: str) -> None:
        if self.pattern == "random" and (self.op == "copy" or self.io == "mmap"):
            raise UserError(
                where, f"{key}.pattern", "random takes op read or write with io buffered or direct"
            )
        if self.span_GB is not None and self.pattern != "random":
            raise UserError(
                where,
                f"{key}.span_GB",
                f"only pattern: random spreads requests over a span, got pattern: {self.pattern}",
            )
        least_GB = self.request_KiB * 1024 / 1e9  # one request
        if self.span_GB is not None and self.span_GB < least_GB:
            raise UserError(
                where,
                f"{key}.span_GB",
                f"random requests of {readable(self.request_KiB)} KiB need a span_GB of one "
                f"request at least: {readable(least_GB)} GB (request_KiB x 1,024 B), "
                f"got {readable(self.span_GB)}",
                related=(f"{key}.request_KiB",),
            )
        if self.start_fraction and self.pattern == "random":
            raise UserError(
                where,
                f"{key}.start_fraction",
                "random requests fall in the volume's first span_GB, not from a place on the "
                f"drives: only pattern: sequential starts there, got {self.start_fraction:g}",
            )
        if self.queue_depth > 1 and self.io != "direct":
            raise UserError(
                where,
                f"{key}.queue_depth",
                f"only io: direct keeps more than one request in flight, got io: {self.io}",
                related=(f"{key}.io",),
            )
        if self.request_KiB * 1024 > self.total_MB * 1e6:
            raise UserError(
                where,
                f"{key}.request_KiB",
                f"a request is at most what a stream moves (total_MB: {readable(self.total_MB)} "
                f"MB, {self.total_MB * 1e6 / 1024:,.0f} KiB), got "
                f"{readable(self.request_KiB)} KiB",
                related=(f"{key}.total_MB",),
            )
        request_B = self.request_KiB * 1024
        if request_B < 1:  # 1e-10 KiB ran 1.9 trillion seconds (the input audit)
            raise UserError(
                where,
                f"{key}.request_KiB",
                "a read() or write() moves one byte at least: request_KiB is 1/1,024 "
                f"(0.0009765625) at least, got {readable(self.request_KiB)} KiB "
                f"({readable(request_B)} B)",
            )
        if self.io == "direct" and (self.request_KiB * 1024) % LOGICAL_BLOCK_B:
            raise UserError(
                where,
                f"{key}.request_KiB",
                "a direct request is whole logical blocks (open(2), O_DIRECT: lengths 'must all "
                "be multiples of the logical block size'), a multiple of 0.5 KiB (512 B, the "
                f"least any drive has), got {readable(self.request_KiB)} KiB",
                related=(f"{key}.io",),
            )


# the smallest logical block a drive reports (512-byte sectors; 4Kn drives have 4,096)
LOGICAL_BLOCK_B = 512


# The kernel NFS server's threads unless a scenario says: rpc.nfsd(8), 'By default, eight threads
# are started'
NFSD_THREADS = 8


@dataclass(frozen=True)
class Clients:
    """Clients in front of the storage host over a LAN (``model.storage.front``): ``count`` clients,
    each carrying one stream of the workload over ``connections`` TCP connections (each client
    moves ``workload.total_MB`` in ``workload.request_KiB`` requests), through the host's NICs (the
    catalog host's ``nics``, bonded with LACP when there are several)."""

    count: count_up_to(10_000, "each client is simulated")  # clients, each one stream
    # TCP connections each client opens to the host (NFS's nconnect mount option, SMB3's
    # multichannel): each its own bond member and, but over NFS (whose calls share the nfsd
    # threads), its own server process, all on the client's one port and its one read-ahead window
    # or random request in flight; at most 16, what Linux allows (nfs(5): nconnect 'from 1 to 16';
    # mount.cifs(8): max_channels 'from 1 to 16'); count x connections at most 10,000 (each is
    # simulated)
    connections: Annotated[int, Bound(1.0, 16.0, words="an integer from 1 to 16")] = 1
    # what frames each request: a plain TCP stream, HTTP, NFSv3 or SMB2
    protocol: Literal["tcp", "http", "nfs", "smb"] = "tcp"
    nic: str = "nic_10gbe"  # each client's NIC: an id of the catalog's nics
    # the LAN each client is on: an id of the catalog's links. Its rate caps each client's port
    # (the slower of it and the client's NIC: one NFS client with a 15 MiB read-ahead window moves
    # at most 116.6 MB/s on lan_gbe and 1,074 on lan_10gbe), and the client's in-flight limit
    # counts a request's time on that port; its MTU sets the frames every request is cut into
    # (the framing bytes on every wire, the host's work per frame). The host's own ports are not
    # capped by it: they run at its NICs' rate (the catalog host's nics), so forty 1 GbE clients
    # can still fill a 2 x 10 GbE bond (model.storage.front)
    link: str = "lan_10gbe"
    # how LACP spreads the clients' connections over the host's bond: client i on member i mod
    # members (balanced), all on the first (collide), or drawn from the scenario's seed (seeded)
    hashing: Literal["balanced", "collide", "seeded"] = "balanced"
    # where the host's NIC interrupts run: cpu0, one core; spread, every core, a connection's TCP
    # work on one core at a time (its socket locked: model.network.hosts.charge_frames)
    irq_affinity: Literal["cpu0", "spread"] = "spread"
    offered_MBps: PositiveFloat | None = None  # what each client asks for; unset: all it can get
    # a request's round trip on the LAN, client to host and back, besides the host's own time:
    # what a client reading at random waits for each request, and an NFS reader for each read-ahead
    # window (model.storage.front.client_limit_Bps), and what each connection's TCP window takes
    # (tcp_rmem_B, tcp_wmem_B);
    # estimated: 0.05 ms; a kernel TCP ping-pong of 1,500-byte messages between two 10 GbE hosts
    # back to back took 36 us a round trip with power saving off (F-Stack issue #540, sockperf,
    # which prints half of it), and a switch and the NICs' default interrupt moderation add to it
    rtt_ms: PositiveFloat = 0.05
    # an NFS client's read-ahead window (read_ahead_KiB of the mount's /sys/class/bdi entry): what
    # one NFS client reading a file in order keeps in flight (model.storage.front.client_limit_Bps).
    # 128 KiB on RHEL 8.3 and later and Ubuntu 18.04 and later; 15 times rsize (15,360 KiB at an
    # rsize of 1 MiB) on RHEL 7 to 8.2, SLES 12 and 15, Ubuntu 16.04 and Debian 10 (Microsoft,
    # 'Linux NFS read-ahead best practices for Azure NetApp Files'). One 10 GbE client read 300
    # MB/s at 128 KiB and 850 MB/s at 2,560 KiB (honnef.co, 'NFS sequential read performance',
    # 2023). Other protocols' clients keep the connection full
    read_ahead_KiB: PositiveInt = 128
    # the requests each client keeps in flight reading at random: 1, a program reading through
    # its page cache (cat, cp, an application's read()); more, a benchmark's asynchronous reads
    # past the client's cache (fio --direct=1 --iodepth over NFS, diskspd -o over SMB); the
    # server still reads its files through its own page cache. The drives hold clients x
    # queue_depth of them (at most each drive's own queue), nfsd_threads serve them, and each
    # client's rate is queue_depth requests a response (Little's law, model.storage.front). An
    # NFS call's own server work beyond its I/O's (RPC and XDR, a thread's wake-up) holds its
    # nfsd thread too (the free parameter nfs_call_cycles, an estimate whose range the interval
    # spans); an SMB call's is not modelled
    queue_depth: Annotated[int, Bound(1.0, 1024.0, words="an integer from 1 to 1,024")] = 1
    # the kernel NFS server's threads (protocol nfs only): every connection's calls share them,
    # each call one thread, so one connection's calls in flight may run on several at once, and a
    # random read holds its thread while the drives read; unset: 8, rpc.nfsd(8)'s default ('By
    # default, eight threads are started'; RPCNFSDCOUNT, nfs.conf's [nfsd] threads)
    nfsd_threads: PositiveInt | None = None
    # the storage host's TCP segmentation offload (on by default with NICs that support it on
    # current Linux; off for the 2.4 and 2.6.9 hosts of the reports): what it sends costs per
    # frame as model.network.tcp.tcp_frame_work_per_byte counts it
    tso: bool = False
    # the storage host's generic receive offload (Linux 2.6.29 and later, on by default with
    # drivers that support it): what it receives costs per frame as tcp_frame_work_per_byte counts
    gro: bool = False
    # the TCP buffers the kernel sizes on the clients and the host alike, bytes (net.ipv4.tcp_rmem
    # and tcp_wmem: min, default, max): a connection keeps at most its window in flight, one a
    # round trip (model.network.tcp.window_B: half the receive buffer, tcp_adv_win_scale 1, or the
    # send buffer), which binds at a longer round trip (3 MiB a connection: 31 MB/s at 100 ms).
    # Default: Linux's from 4.20 (Documentation/networking/ip-sysctl.rst: tcp_rmem 4096 131072
    # 6291456, tcp_wmem 4096 16384 4194304; tcp_adv_win_scale 1 from 3.6)
    tcp_rmem_B: tuple[SysctlInt, ...] = LAN_TCP_RMEM_B
    # net.ipv4.tcp_wmem on the clients and the host, bytes (min, default, max): the send buffer a
    # connection keeps in flight at most (with tso, all of it; without, what its segments'
    # overhead leaves, as tcp_rmem_B's window)
    tcp_wmem_B: tuple[SysctlInt, ...] = LAN_TCP_WMEM_B

    @property
    def server_processes(self) -> int:
        """The server's processes that carry the clients' calls to the store: nfsd's threads
        (``NFSD_THREADS`` unless set), or a process a client (an smbd, an nginx connection's)."""
        return (self.nfsd_threads or NFSD_THREADS) if self.protocol == "nfs" else self.count

    def check(self, where: str, key: str) -> None:
        check_triples(self, ("tcp_rmem_B", "tcp_wmem_B"), where, key)
        counts = {"count": self.count, "connections": self.connections}
        check_flows(
            where, f"{key}.connections", counts, "TCP connections", related=(f"{key}.count",)
        )
        if self.nfsd_threads is not None and self.protocol != "nfs":
            raise UserError(
                where,
                f"{key}.nfsd_threads",
                f"only protocol nfs has nfsd threads, got protocol {self.protocol}",
            )


@dataclass(frozen=True)
class StorageBody:
    """A storage host: its bus segments, the controllers in them, the volumes built from the drives
    on those controllers, and the stream that reads or writes them."""

    host: str  # a host of the catalog (data/hardware/hosts.yaml): its CPUs, memory and copy rate
    buses: dict[str, BusSegment]  # the host's bus segments the scenario uses, by your name
    volumes: dict[str, Volume]  # the block devices, by your name (a workload's target or source)
    workload: StorageWorkload
    # the controllers, by your name; none for NVMe drives on a segment's lanes
    controllers: dict[str, ControllerSlot] = field(default_factory=dict)
    kernel: Kernel = field(default_factory=Kernel)
    shelves: dict[str, Shelf] = field(default_factory=dict)  # JBODs and expanders, by name
    clients: Clients | None = None  # clients over a LAN in front of the host; unset: local streams
    # the PCIe Max_Payload_Size the platform set (lspci -vv, DevCtl: MaxPayload): bytes a PCIe
    # packet carries behind its 24 B of header (model/storage/framing.py)
    pcie_max_payload_B: Literal[128, 256, 512, 1024, 2048, 4096] = 256

    def not_read(self, key: str) -> str | None:
        """Why the dotted ``key`` is not read in this configuration (``model.unread``), or None
        where it is."""
        return by_rules(STORAGE_UNREAD, self, key)

    @property
    def client_depth(self) -> int:
        """The requests each LAN client keeps in flight reading at random
        (``Clients.queue_depth``); 1 for local streams, whose depth is the workload's own."""
        return self.clients.queue_depth if self.clients is not None else 1

    def check(self, where: str, key: str) -> None:
        """The body's own consistency: names, attach points, the workload's volumes, each
        volume's layout (``Volume.check_layout``) after its drives' bays.

        It reads the catalog the scenario is being built with, ambient state rather than an
        argument: ``model.catalog.being_built()``, which ``model.scenario`` sets around its build
        of a body (``catalog.building``: a file's load, with the user's own parts, and
        ``changed``'s rebuild, the project's catalog where the scenario has none). With it, a
        drive at ``SHELF.BAY`` is checked against its shelf's part (``_check_bay``: the part
        known, the bay one it has) before the layout's sums the extra drive broke. A body built
        any other way (``build_dataclass`` called directly, as tests do) has none in view and
        skips both: a pool of 61 drives on a 60-bay JBOD is told as 'vdevs.count: must divide
        disks.count (61)', and an unknown shelf part passes here. The simulation checks the part
        and the bays again regardless (``model.storage.simulation.check_parts``, ``attachment``)."""
        taken: dict[str, str] = {}  # attach point -> the key that put a used drive or lane there
        for kind, names in (("controller", self.controllers), ("shelf", self.shelves)):
            if NVME in names:
                raise UserError(
                    where, f"{kind}s.{NVME}", "reserved for the attach points nvme.SEGMENT.N"
                )
        for name, shelf in self.shelves.items():
            if name in self.controllers:
                raise UserError(
                    where, f"shelves.{name}", "a shelf and a controller share this name"
                )
            if not shelf.uplink:
                raise UserError(
                    where, f"shelves.{name}.uplink", "must list at least one CONTROLLER.CHANNEL"
                )
            for i, point in enumerate(shelf.uplink):
                at = f"shelves.{name}.uplink[{i}]"
                self._check_point(point, self.controllers, "CONTROLLER.CHANNEL", where, at)
                if point in taken:
                    raise UserError(where, at, f"{point} is already taken by {taken[point]}")
                taken[point] = at
        for name, segment in self.buses.items():
            seen = [name]
            while segment.via is not None:
                if segment.via not in self.buses:
                    raise UserError(
                        where,
                        f"buses.{seen[-1]}.via",
                        f"unknown bus segment {segment.via!r}; allowed: {', '.join(self.buses)}",
                    )
                if segment.via in seen:
                    raise UserError(
                        where,
                        f"buses.{name}.via",
                        "a segment cannot hang from itself: " + " -> ".join(seen + [segment.via]),
                    )
                seen.append(segment.via)
                segment = self.buses[segment.via]
        for name, slot in self.controllers.items():
            if slot.bus not in self.buses:
                raise UserError(
                    where,
                    f"controllers.{name}.bus",
                    f"unknown bus segment {slot.bus!r}; allowed: {', '.join(self.buses)}",
                )
        for vname, volume in self.volumes.items():
            for i, seg in enumerate(volume.group_paths):
                if seg not in self.buses:
                    raise UserError(
                        where,
                        f"volumes.{vname}.group_paths[{i}]",
                        f"unknown bus segment {seg!r}; allowed: {', '.join(self.buses)}",
                    )
            holders = {**self.controllers, **self.shelves}
            for i, point in enumerate(volume.disks.attach):
                at = f"volumes.{vname}.disks.attach[{i}]"
                if point.partition(".")[0] == NVME:
                    slot = point[len(NVME) + 1 :]
                    self._check_point(slot, self.buses, "nvme.SEGMENT.N", where, at, point)
                else:
                    form = "CONTROLLER.CHANNEL, SHELF.BAY or nvme.SEGMENT.N"
                    self._check_point(point, holders, form, where, at)
                    if i < volume.disks.count:  # a drive the volume uses
                        self._check_bay(point, where, at)
                if i < volume.disks.count and point in taken:  # a drive the volume uses
                    raise UserError(where, at, f"{point} is already taken by {taken[point]}")
                taken.setdefault(point, at)
            volume.check_layout(where, f"volumes.{vname}")
        w = self.workload
        for role, name in (("target", w.target), ("source", w.source)):
            if name is not None and name not in self.volumes:
                raise UserError(
                    where,
                    f"workload.{role}",
                    f"unknown volume {name!r}; allowed: {', '.join(self.volumes) or 'none'}",
                )
        if w.op == "copy" and w.source is None:
            others = [name for name in self.volumes if name != w.target]
            raise UserError(
                where,
                "workload.source",
                "a copy needs the volume it reads from; "
                + (
                    f"allowed: {', '.join(others)}"
                    if others
                    else f"the scenario has none but its target {w.target!r}: add one under volumes"
                ),
                related=("workload.op",),
            )
        if w.op != "copy" and w.source is not None:
            raise UserError(
                where,
                "workload.source",
                f"only a copy reads a source volume, and workload.op is {w.op}; allowed: null "
                "(leave it out), or op copy",
                related=("workload.op",),
            )
        if w.op == "copy" and w.source == w.target:
            others = [name for name in self.volumes if name != w.target]
            raise UserError(
                where,
                "workload.source",
                "a copy reads one volume and writes another, and workload.source and "
                f"workload.target both name {w.source!r}; allowed: another volume "
                f"({', '.join(others) or 'this scenario declares none'})",
                related=("workload.target",),
            )
        if self.clients is not None:
            if w.op == "copy" or w.io != "buffered":
                raise UserError(
                    where,
                    "clients",
                    "clients read or write the host's files through its page "
                    "cache: needs workload.op read or write and workload.io buffered (a "
                    "client's own requests in flight reading at random: clients.queue_depth)",
                )
            if self.clients.queue_depth > 1 and (w.op, w.pattern) != ("read", "random"):
                raise UserError(
                    where,
                    "clients.queue_depth",
                    "sets a client's requests in flight reading at random (workload.op read, "
                    "workload.pattern random); a client reading in order keeps its read-ahead "
                    "window, a writer its write-behind",
                )
            if w.streams not in (1, self.clients.count):
                raise UserError(
                    where,
                    "workload.streams",
                    "each client is one stream: leave it at 1 or set "
                    f"it to clients.count ({self.clients.count}), got {w.streams}",
                )

    def _check_bay(self, point: str, where: str, at: str) -> None:
        """A ``SHELF.BAY`` point names a bay its shelf has (``parts.check_bay``), and the shelf
        a part the catalog has, where the catalog is in view while the body is built
        (``model.catalog.being_built``; the simulation checks both again,
        ``model.storage.simulation.check_parts`` and ``model.storage.attachment``)."""
        holder = point.partition(".")[0]
        catalog = being_built()
        if holder not in self.shelves or catalog is None:
            return
        part = catalog.get_one_of(
            ("enclosures", "expanders"), self.shelves[holder].part, where, f"shelves.{holder}.part"
        )
        check_bay(part, point, where, at)

    @staticmethod
    def _check_point(
        point: str, holders: dict, form: str, where: str, at: str, given: str | None = None
    ) -> None:
        """``point`` is HOLDER.N with one of ``holders`` (``given``: what the file says, where
        ``point`` is its part after nvme.)."""
        holder, _, number = point.partition(".")
        if holder not in holders or not (number.isascii() and number.isdigit()):
            named = (
                f"with one of {', '.join(holders)}" if holders else "(this scenario declares none)"
            )
            raise UserError(where, at, f"must be {form} {named}, got {given or point!r}")
        if number != str(int(number)):  # 'x.00' beside 'x.0' was a second drive on one channel
            raise UserError(
                where,
                at,
                f"must be {form} with N written without leading zeros, got {given or point!r}",
            )


def _no_ext3_writes(body: StorageBody, _: str) -> str | None:
    """Why ext3's write ratio is not read: nothing is written through ext3 (``stream.py``)."""
    w = body.workload
    if w.op == "read":
        return "workload.op is read: the ratio prices writes through ext3"
    fs = body.volumes[w.target].filesystem.type
    if fs != "ext3":
        return f"volumes.{w.target}.filesystem.type is {fs}: the ratio prices writes through ext3"
    return None


def _not_mapped(body: StorageBody, _: str) -> str | None:
    """Why the page size is not read: only a mapping counts pages (``mmap.py``)."""
    io = body.workload.io
    return None if io == "mmap" else f"workload.io is {io}: the page size counts a mapping's pages"


def _no_nfs_reads(body: StorageBody, _: str) -> str | None:
    """Why a client's read-ahead is not read: no NFS client reads (``front.py``)."""
    c = body.clients
    if c is not None and c.protocol != "nfs":
        return f"clients.protocol is {c.protocol}: the window is an NFS client's read-ahead"
    if c is not None and body.workload.op == "write":
        return "workload.op is write: a client's read-ahead reads"
    return None


def _reads_only(what: str) -> Callable[[StorageBody, str], str | None]:
    """Why a setting of writes (``what`` it does) is not read: the workload only reads (a
    mapping, which writes back what it maps, is op write: mmap.py)."""

    def why(body: StorageBody, _: str) -> str | None:
        return f"workload.op is read: {what}" if body.workload.op == "read" else None

    return why


def _no_rereads(body: StorageBody, _: str) -> str | None:
    """Why repeated runs are not read: only a read test repeated re-reads what the cache holds
    (``rereads.py``; a mapping's runs are its own, mmap.py)."""
    w = body.workload
    if w.op != "read" and w.io != "mmap":
        return f"workload.op is {w.op}: runs repeat a read test, from what the cache holds"
    return None


def _no_block_map(body: StorageBody, name: str) -> str | None:
    """Why a file system's block is not read: only ext2 and ext3 map a file block by block
    (``filesystem.metadata_share``)."""
    volume = body.volumes.get(name)
    if volume is None or volume.filesystem.type in ("ext2", "ext3"):
        return None
    if volume.filesystem.type == "raw":
        return f"volumes.{name}.filesystem.type is raw: no file system maps its blocks"
    return (
        f"volumes.{name}.filesystem.type is {volume.filesystem.type}: the block sizes ext2's and "
        "ext3's block map only"
    )


# the keys a storage scenario reads in some configurations only (stream.py: ext3's write ratio;
# mmap.py: the page size; front.py: an NFS client's read-ahead; topology.py, writecache.py and
# raid5d.py: what prices writes; rereads.py: runs; filesystem.py: the block map). A volume's key
# that means nothing on its engine or level is not among them: it is refused where it is set
# (Volume._check_engine), as a choice the volume cannot make, where these are choices the host,
# its volumes or its clients make which the workload does not exercise
STORAGE_UNREAD: tuple[Rule, ...] = (
    ("kernel.ext3_write_ratio", _no_ext3_writes),
    ("kernel.page_B", _not_mapped),
    ("clients.read_ahead_KiB", _no_nfs_reads),
    ("volumes.*.drive_write_cache", _reads_only("a drive's write cache takes writes")),
    ("volumes.*.md_group_thread_cnt", _reads_only("raid5d's workers share its writes' work")),
    ("volumes.*.cache_block_KiB", _reads_only("a card's cache blocks price its writes")),
    ("controllers.*.write_back", _reads_only("a card's write-back cache takes writes")),
    ("workload.runs", _no_rereads),
    ("volumes.*.filesystem.block_KiB", _no_block_map),
)
