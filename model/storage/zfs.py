"""A ZFS pool: vdevs (mirrors or RAIDZ1/2/3) striped by the pool, records, checksums and the ARC.

The pool spreads a stream over its vdevs evenly (``Volume.layout``: a vdev is a group). A RAIDZ
vdev of N drives streams at its N - p data drives' rate, as RAID5/6 do (``raid.Level.drive_share``),
and a mirror vdev reads from any copy. ZFS reads and checksums a whole record (``record_KiB``;
unset, a dataset's default recordsize, 128 KiB, or a zvol's default volblocksize, 16 KiB since
OpenZFS 2.2: ``Volume.record_B``): a random read smaller than a record reads all of it, spread
over the vdev's N - p data columns, so a random read keeps N - p drives busy for one record and a
RAIDZ vdev serves about one drive's random reads (N / (N - p) of a drive's at most, the parity
columns rotating with the offset); a mirror vdev reads the record from one copy. Random writes
(copy-on-write records gathered in transaction groups) are not modelled, nor are dRAID vdevs
(OpenZFS 2.1 and later: fixed-width groups and distributed spares, ``check_modelled``).

A RAIDZ vdev allocates each record in whole sectors of 2^``ashift`` bytes (``raidz_sectors``): its
D data sectors, p parity sectors for each row of N - p data sectors, and the total rounded up to a
multiple of p + 1 so that no free gap too small for the smallest record is left (OpenZFS
module/zfs/vdev_raidz.c, ``vdev_raidz_asize``: ``asize = ((psize - 1) >> ashift) + 1; asize +=
nparity * ((asize + cols - nparity - 1) / (cols - nparity)); asize = roundup(asize, nparity + 1) <<
ashift``). So a vdev writes asize / record of what it stores, not N / (N - p): a 10-wide RAIDZ2 of
4 KiB sectors stores a 16 KiB record in 4 + 2 = 6 sectors (66.7 % of them data), 128 KiB in 32 + 8
= 40, padded to 42 (76.2 %), 1 MiB in 256 + 64 = 320, padded to 321 (79.8 %), where N - p of N is
80 %; a 4 KiB record, 1 + 2 = 3 sectors (33.3 %). The parity sectors are written with the data and
the padding is written too (``vdev_raidz_io_start`` issues optional writes of the skipped sectors
so that a drive's writes aggregate into one), so every allocated sector crosses a drive's link and
its surface (``vdev_shares``). A read on a healthy pool moves only the data sectors over the links,
while a platter turns past the parity and padding between them; a random read of a record keeps
min(D, N - p) drives busy, each with its column of the record's rows (at most ceil(D / (N - p))
sectors). A record is taken as written whole at ``record_KiB`` (a file's last record, and a file
smaller than a record, are stored at their own size: not modelled), compressed as the volume's
``compression`` has it (below). A mirror vdev writes each record whole to every copy, with no
parity or padding, and reads it from one; it too allocates, writes and reads a record in whole
sectors (OpenZFS module/zfs/vdev.c, ``vdev_default_asize``, every vdev's but RAIDZ's: ``asize =
P2ROUNDUP(psize, 1ULL << vdev_top->vdev_ashift)``), so a record smaller than a sector costs a whole
one on each copy that writes or reads it (``vdev_shares``, ``random_layout``; a 512 B record on 64
KiB sectors, 128 times its bytes), and a record of a sector or more, a power of two as a sector is,
its own bytes.

The host's CPU checksums every byte stored, read or written (fletcher4), and computes RAIDZ parity
on every stored byte written, on ZFS's own threads. Per-core rates from OpenZFS's boot-time
benchmarks (kstats in /proc/spl/kstat/zfs), AVX2 implementations: ``fletcher_4_bench`` native
4,950,749,767 B/s (openzfs/zfs issue #5126, B. Behlendorf's sample output, 2016);
``vdev_raidz_bench`` gen_p 4,789,944,802, gen_pq 3,302,606,591 and gen_pqr 1,483,093,911 B/s
(openzfs/zfs pull request #4860, sample output, 2016). They are taken as one core's rates on any
host (a host's own kstats would replace them). The ARC keeps what was read, up to ``arc_GB`` (by
default half the host's memory, OpenZFS's ``zfs_arc_max`` default on Linux): a read test repeated
(``workload.runs``) over data that fits is served from memory after its first pass
(``model.storage.rereads``).

A random read finds its record through the indirect blocks of its file (of a zvol's one object
too): block pointers of 128 B (include/sys/spa.h, ``SPA_BLKPTRSHIFT 7``: 'blkptr_t is 128
bytes') gathered in indirect blocks of 128 KiB (include/sys/dnode.h, ``DN_MAX_INDBLKSHIFT 17``,
the default ``zfs_default_ibs`` of module/zfs/dnode.c since OpenZFS 7104, 'increase indirect block
size' from 16 KiB, openzfs/openzfs pull request #132, 2016, ported to ZFS on Linux 0.7 by
openzfs/zfs pull request #5679, 2017), 2^(17 - 7) = 1,024 to a block: a level-1 block maps
1,024 records, a level-2 block 1,024 level-1 blocks, and so up to one block, which the dnode
points at (``indirect_blocks``). To read a block ZFS holds its
parent and reads it first, from the ARC or the drives (module/zfs/dbuf.c, ``dbuf_findbp``: 'this
block is referenced from an indirect block', ``dbuf_hold_impl(dn, level + 1, blkid >> epbs)``,
then ``dbuf_read`` of it, ``epbs = dn_indblkshift - SPA_BLKPTRSHIFT``). So a span of S bytes in
records of R holds S / R / 1,024 level-1 blocks of 128 KiB: at 128 KiB records, 1/1,024 of the
span, 844 GB for 864 TB; at 8 KiB records 1/64. The ARC holds them beside the data: from OpenZFS
2.2 it balances metadata against data by their ghost hits, metadata's weighted five times
(module/zfs/arc.c, ``arc_evict_adj``, ``zfs_arc_meta_balance = 500``; 'There is no upper limit',
A. Motin, openzfs/zfs pull request #14359, 'More adaptive ARC eviction'), and records read at
random over a span far larger than the ARC are almost never asked for again while indirect blocks
are, so the model gives the ARC's ``arc_B`` to the indirect blocks, the levels nearest the dnode
first (each of their blocks is read 1,024 times as often as one a level below). Through OpenZFS
2.1 metadata took at most three quarters of the ARC (``zfs_arc_meta_limit_percent = 75``), under
which the misses are more. With reads uniform over the span every block of a level is as likely as
any other, so whatever the cache's policy it finds a level's block with the probability of the
share of the level it holds (``IndirectBlocks.cached``), and a read reads from the drives, one
after another before its record, the indirect blocks at the levels it misses
(``IndirectBlocks.reads``): each one read whole as a record is (``random_layout``), its sectors
from one copy of a mirror or from a RAIDZ vdev's data columns; ZFS stores an extra copy of every
indirect block (module/zfs/dmu.c, ``dmu_write_policy``: ``redundant_metadata`` all, its default,
``copies++`` for metadata), of which a read reads one (module/zfs/vdev_mirror.c,
``vdev_mirror_map_init``: a block's copies are the children of a mirror read from one). Indirect
blocks live on the pool's vdevs: a ``special`` vdev of flash that would hold them is not modelled.
They are taken whole, 128 KiB in the ARC and on the drives: ZFS compresses metadata with lz4
(``dmu_write_policy``: 'we should design a compression algorithm that specializes in arrays of
bps') by a ratio no source gives for full blocks, and the ARC holds them compressed
(``zfs_compressed_arc_enabled``), so the misses are the most they are. A span taken as one file's
or a few large files' (each of 1,024 records or more: a smaller file's one indirect block is
partly empty); the checksums of the indirect blocks read, and the indirect blocks a stream reads
in order (128 B a record: 0.1 % of 128 KiB records, 1.6 % of 8 KiB ones), are left out.

A zvol (the pool's block device, ``filesystem: raw``) hands each request to a task queue of
``zvol_threads`` threads (``zvol_request`` dispatches it to ``zvol_taskq`` unless
``zvol_request_sync``, off by default, is set) and a thread reads or writes its record and waits
for it (``zvol_read``, ``dmu_read_uio_dnode``) before it takes the next: module/zfs/zvol.c of
OpenZFS 0.7 and 0.8, ``unsigned int zvol_threads = 32``; zfs(4): "the number of requests which
can be handled concurrently is controlled by zvol_threads". So however many requests the streams
queue, at most ``zvol_threads`` are at the drives (``in_flight``).

Compression (``compression``, of data whose ``compress_ratio`` it gets): ZFS compresses each
record as it writes it and keeps the result only where it saves at least an eighth
(module/zfs/zio_compress.c, ``zio_compress_data``: 'Compress at least 12.5%', ``d_len = s_len -
(s_len >> 3)``, ``if (c_len > d_len) return (s_len)``) and, rounded up to whole sectors of the
pool's smallest ashift, is still smaller than the record (module/zfs/zio.c,
``zio_write_compress``: ``if (rounded >= lsize) compress = ZIO_COMPRESS_OFF``, else ``psize =
rounded``): ``stored_B``. The drives, their links and the RAIDZ parity and padding then see the
stored bytes, the sectors ``raidz_sectors`` allocates for them, and the checksum covers them (it
is verified before the block is decompressed: zio_compress.c, 'we've already verified the
checksum'). So below a ratio of 8/7 every record is stored whole, as with compression off, and
read without decompressing. The host's CPU compresses every record written, kept or not, and
decompresses every record read that was kept compressed (``_codec_cycles``), on the same threads
as its checksums. lz4's compressor (module/zfs/lz4_zfs.c, LZ4 r85's) gives up early on data it
finds no match in: its search steps further each 64 failed probes (``NOTCOMPRESSIBLE_CONFIRMATION
6``: 'skip faster data segments considered "incompressible"') and it returns once its output
would pass ZFS's eighth; a record that compresses a little (a ratio between 1 and 8/7) is
compressed almost whole before its output passes the limit, while one with no match at all
(encrypted or already compressed data, a ratio of 1) is skipped faster, by how much no published
figure for this compressor says: the model charges it the compressor's whole time, the most it
takes. zstd at level 3 and above, on records of 128 KiB or more, first tries lz4 and, where that
cannot save an eighth, zstd-1, and gives up where both fail (module/zstd/zfs_zstd.c,
``zfs_zstd_compress_buf``: ``zstd_earlyabort_pass = 1``, ``zstd_cutoff_level =
ZIO_ZSTD_LEVEL_3``, ``zstd_abort_size = 128 * 1024``): a record it keeps costs lz4 and zstd-3, one
it gives up lz4 and zstd-1 (a record lz4 cannot shrink by an eighth but zstd can also pays the
zstd-1 pass, not charged: the model knows the data's ratio under zstd alone). Records of zeros
(holes) and those small enough to ride in their block pointer (embedded_data) are not modelled:
each keeps a sector at least; nor are the compressors ``CODECS`` has no published speed of (lzjb,
zle, gzip at levels other than 6, zstd at levels other than 1 and 3, zstd-fast: ``check_modelled``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .. import memory
from ..errors import NotModelled, UserError
from ..parts import Disk, Host, Ssd
from . import requests
from .raid import LEVELS
from .requests import RandomLayout
from .spec import StorageBody, StorageWorkload, Volume

# the indirect blocks that map a file's records (the module's docstring): 128 KiB each
# (DN_MAX_INDBLKSHIFT, zfs_default_ibs), of block pointers of 128 B (SPA_BLKPTRSHIFT)
INDIRECT_B = 1 << 17
BLKPTR_B = 1 << 7
POINTERS_PER_INDIRECT = INDIRECT_B // BLKPTR_B  # 1,024

FLETCHER4_Bps = 4_950_749_767.0  # fletcher_4_bench, avx2, native byte order
RAIDZ_GEN_Bps = {1: 4_789_944_802.0, 2: 3_302_606_591.0, 3: 1_483_093_911.0}  # gen_p, pq, pqr


@dataclass(frozen=True)
class Codec:
    """A compressor's published single-core speeds on the Silesia corpus, MB/s of uncompressed
    bytes, and the clock the benchmark names: a byte costs clock / speed cycles, which a host
    spends at its own clock (``Host.clock_GHz``), as the model counts its other costs a byte."""

    compress_MBps: float
    decompress_MBps: float
    clock_GHz: float

    def cycles_per_byte(self, op: str) -> float:
        """Cycles a byte of the record compressing it (``op`` write) or decompressing it."""
        rate_MBps = self.compress_MBps if op == "write" else self.decompress_MBps
        return self.clock_GHz * 1e3 / rate_MBps


# lz4: its README's table, 'LZ4 default (v1.9.0)', 780 MB/s compressing and 4970 MB/s
# decompressing a core of a 'Core i7-9700K CPU @ 4.9GHz (w/ turbo boost)' (lzbench, Silesia):
# 6.3 and 0.99 cycles a byte. ZFS decompresses with lz4 1.9.3's code (module/zfs/lz4.c) and
# compresses with r85's (lz4_zfs.c), which the README's 2013 table gives at 422 MB/s on a Core
# i5-3340M @2.7GHz (LZ4 r101): 6.4 cycles a byte, the same. zstd and gzip: lzbench 2.0 on one
# core of an AMD EPYC 9554 at 3.10 GHz, turbo off (inikep/lizard README, '2025 Update', Silesia),
# the one table that gives zstd's level 3: zstd 1.5.6 -3 250 and 1,210 MB/s (12.4 and 2.6
# cycles), -1 421 and 1,342 MB/s (7.4 and 2.3), zlib 1.3.1 -6 25.3 and 344 MB/s (123 and 9.0;
# ZFS's gzip is deflate at level 6, the kernel's zlib on Linux). zstd's own README gives level 1
# alone: 'zstd 1.5.1 -1', 530 and 1,700 MB/s on the i7-9700K at 4.9 GHz, 9.2 and 2.9 cycles, a
# quarter above lzbench 2.0's (its 4.9 GHz a turbo clock)
CODECS = {
    "lz4": Codec(780.0, 4970.0, 4.9),
    "zstd": Codec(250.0, 1210.0, 3.1),
    "zstd-1": Codec(421.0, 1342.0, 3.1),
    "gzip": Codec(25.3, 344.0, 3.1),
}
# zstd's early abort (module/zstd/zfs_zstd.c): records of zstd_abort_size or more
ZSTD_ABORT_SIZE_B = 128 * 1024


def check_modelled(vname: str, volume: Volume) -> None:
    """Refuse (not modelled) a pool the model does not cover: dRAID vdevs, or a compression whose
    compressor ``CODECS`` has no published speed of."""
    if volume.engine != "zfs":
        return
    if volume.vdevs.draid:
        raise NotModelled(
            f"volume {vname}: dRAID vdevs ({volume.vdevs.type}): their fixed-width groups and "
            "distributed spares; mirror and raidz1 to raidz3 vdevs are"
        )
    if volume.compressor is not None and volume.compressor not in CODECS:
        raise NotModelled(
            f"volume {vname}: compression {volume.compression}: no published speed of its "
            "compressor is in the model; lz4 (on), zstd (zstd-3), zstd-1 and gzip (gzip-6) are"
        )


def host_s_per_byte(volume: Volume, workload: StorageWorkload, host: Host, op: str) -> float:
    """Host CPU seconds a byte the stream moves costs the pool's threads: the checksums (and, for
    a write, the RAIDZ parity) of the records' stored bytes (``checksummed_per_byte``), and
    compressing or decompressing the records' own bytes (``codec_s_per_byte``)."""
    seconds = 1.0 / FLETCHER4_Bps
    parity = LEVELS[volume.layout()[0]].parity_chunks
    if op == "write" and parity:
        seconds += 1.0 / RAIDZ_GEN_Bps[parity]
    checksummed = checksummed_per_byte(volume, workload)
    return seconds * checksummed + codec_s_per_byte(volume, workload, host, op)


def codec_s_per_byte(volume: Volume, workload: StorageWorkload, host: Host, op: str) -> float:
    """Host CPU seconds a byte the stream moves costs compressing the records it writes, or
    decompressing those it reads that ZFS kept compressed: ``_codec_cycles`` a byte of each record
    (a random read decompresses its whole record)."""
    per_byte = 1.0
    if _random_read(workload):
        request_B = workload.request_KiB * 1024
        per_byte = _records_per_request(volume, request_B) * volume.record_B / request_B
    return per_byte * _codec_cycles(volume, op) / (host.clock_GHz * 1e9)


def _codec_cycles(volume: Volume, op: str) -> float:
    """Cycles a byte of a record its compression costs: every record written is compressed (zstd's
    early abort: an lz4 pass first, then zstd-3 where it keeps the record, zstd-1 where it gives
    up), and a record read decompressed where ZFS kept it compressed (``kept_compressed``)."""
    if volume.compressor is None:
        return 0.0
    codec = CODECS[volume.compressor]
    if op != "write":
        return codec.cycles_per_byte(op) if kept_compressed(volume) else 0.0
    if volume.compressor != "zstd" or volume.record_B < ZSTD_ABORT_SIZE_B:
        return codec.cycles_per_byte(op)
    second = codec if kept_compressed(volume) else CODECS["zstd-1"]
    return CODECS["lz4"].cycles_per_byte(op) + second.cycles_per_byte(op)


def kept_compressed(volume: Volume) -> bool:
    """Whether ZFS keeps the pool's records compressed: its compressor's output, a record's bytes
    over ``compress_ratio``, saves at least an eighth (``zio_compress_data``) and, in whole
    sectors, is smaller than the record (``zio_write_compress``)."""
    if volume.compressor is None:
        return False
    record_B = volume.record_B
    eighth_saved = record_B / volume.compress_ratio <= record_B - (int(record_B) >> 3)
    return eighth_saved and _compressed_B(volume) < record_B


def _compressed_B(volume: Volume) -> float:
    """The compressor's output for a record rounded up to whole sectors (``zio_write_compress``'s
    ``rounded``)."""
    sectors = _data_sectors(volume.record_B / volume.compress_ratio, volume.ashift)
    return float(sectors * 2**volume.ashift)


def stored_B(volume: Volume) -> float:
    """The bytes ZFS stores a record in (its psize): the record whole, or where it keeps it
    compressed (``kept_compressed``) the compressor's output in whole sectors."""
    return _compressed_B(volume) if kept_compressed(volume) else volume.record_B


def stored_share(volume: Volume) -> float:
    """The bytes ZFS stores a byte of its records in (``stored_B``): 1 where it keeps them whole."""
    return stored_B(volume) / volume.record_B


def memory_per_byte(volume: Volume, op: str, drives: int) -> dict[str, float]:
    """Times each byte of records the pool checksums (``checksummed_per_byte``) crosses the host's
    memory in the passes ``host_s_per_byte`` charges (``model.memory``): fletcher4 reads it; a
    RAIDZ vdev of ``drives`` writing it reads it again for the parity and writes the record's
    parity sectors (``raidz_sectors``'s, over the bytes it stores)."""
    crossings = {"checksum": memory.READ_PASS}
    parity = LEVELS[volume.layout()[0]].parity_chunks
    if op == "write" and parity:
        stored = stored_B(volume)  # the record's bytes, or its compressed sectors
        data = _data_sectors(stored, volume.ashift)
        parity_B = _parity_sectors(data, drives, parity) * 2**volume.ashift
        crossings["parity reads"] = memory.READ_PASS
        crossings["parity writes"] = parity_B / stored
    return crossings


def checksummed_per_byte(volume: Volume, workload: StorageWorkload) -> float:
    """Bytes the pool checksums per byte a stream moves: a record's stored bytes (``stored_B``)
    each, and a random read each whole record it reads (``random_layout``: a 4 KiB read of a 1
    MiB record checksums 256 times its bytes)."""
    if not _random_read(workload):
        return stored_share(volume)
    request_B = workload.request_KiB * 1024
    return _records_read_B(volume, request_B) / request_B


def _random_read(workload: StorageWorkload) -> bool:
    return workload.pattern == "random" and workload.op == "read"


def _records_per_request(volume: Volume, request_B: float) -> float:
    """Records a random read of ``request_B`` reads, one at least."""
    return max(1.0, request_B / volume.record_B)


def _records_read_B(volume: Volume, request_B: float) -> float:
    """The bytes a random read of ``request_B`` reads: its records' whole stored sectors (a
    record smaller than a sector takes a whole one), one record at least."""
    record_B = _data_sectors(stored_B(volume), volume.ashift) * 2**volume.ashift
    return _records_per_request(volume, request_B) * record_B


def record_read_note(vname: str, volume: Volume, workload: StorageWorkload) -> str | None:
    """What to tell the user of random reads smaller than the pool's records: each reads, and
    checksums, its whole record (``checksummed_per_byte``); else None."""
    if volume.engine != "zfs" or vname != workload.target:
        return None
    times = checksummed_per_byte(volume, workload)
    if times <= 1.0:
        return None
    return (
        f"volume {vname}: each {workload.request_KiB:g} KiB random read reads and checksums its "
        f"whole {volume.record_B / 1024:g} KiB record, {times:,.0f} times its bytes (a record_KiB "
        "nearer the request size reads less)"
    )


def compression_note(vname: str, volume: Volume) -> str | None:
    """What to tell the user of a pool whose ``compress_ratio`` stores nothing smaller: ZFS keeps
    its records whole (``kept_compressed``), with compression off or at a ratio that saves less
    than an eighth of a record or no sector; else None."""
    if volume.engine != "zfs" or kept_compressed(volume):
        return None
    ratio = f"compress_ratio {volume.compress_ratio:g}"
    if volume.compressor is None:
        if volume.compress_ratio == 1.0:
            return None
        return (
            f"volume {vname}: {ratio} moves nothing with compression off, every record stored "
            "whole (OpenZFS 2.2's default compression is lz4)"
        )
    return (
        f"volume {vname}: {volume.compressor} at {ratio} saves less than an eighth of each "
        f"{volume.record_B / 1024:g} KiB record, or no whole {2**volume.ashift:,} B sector: ZFS "
        "stores every record whole, its writes paying the compressor all the same"
    )


def raidz_sectors(record_B: float, ashift: int, drives: int, parity: int) -> int:
    """Sectors of 2^``ashift`` bytes a RAIDZ vdev of ``drives`` drives and ``parity`` parity
    allocates for a record of ``record_B`` bytes: its data sectors, ``parity`` sectors for each row
    of ``drives - parity`` of them, and the total rounded up to a multiple of ``parity + 1``
    (OpenZFS module/zfs/vdev_raidz.c, ``vdev_raidz_asize``)."""
    data = _data_sectors(record_B, ashift)
    sectors = data + _parity_sectors(data, drives, parity)
    return -(-sectors // (parity + 1)) * (parity + 1)


def _parity_sectors(data: int, drives: int, parity: int) -> int:
    """A record's parity sectors: ``parity`` for each row of ``drives - parity`` of its ``data``
    sectors."""
    return parity * -(-data // (drives - parity))


def _data_sectors(record_B: float, ashift: int) -> int:
    """A record's data sectors: ``((psize - 1) >> ashift) + 1``."""
    return ((math.ceil(record_B) - 1) >> ashift) + 1


def vdev_shares(volume: Volume, drives: int, op: str) -> tuple[float, float]:
    """Bytes on each drive's surface, and across its link, per byte of records a vdev of
    ``drives`` reads or writes (``op``), of the bytes it stores each record in (``stored_B``).
    RAIDZ: a write every sector ``raidz_sectors`` allocates, spread over the drives; a read its
    data sectors over the link, the platter turning past them all. A mirror: the level's shares
    (a write on every copy, a read from one) of the record's whole sectors (``_data_sectors``)."""
    level = LEVELS[volume.layout()[0]]
    record_B = volume.record_B
    sector_B = 2**volume.ashift
    data_B = _data_sectors(stored_B(volume), volume.ashift) * sector_B
    if not level.parity_chunks:
        padded = data_B / record_B
        return level.drive_share(drives, op) * padded, level.transfer_share(drives, op) * padded
    allocated = raidz_sectors(stored_B(volume), volume.ashift, drives, level.parity_chunks)
    allocated *= sector_B
    surface = allocated / record_B / drives
    if op == "write":
        return surface, surface
    return surface, data_B / record_B / drives


def random_layout(
    volume: Volume, op: str, request_B: float, drives: int, lookups: float = 0.0
) -> RandomLayout:
    """A random read's commands on one vdev: the whole record's stored sectors (``stored_B``),
    from one copy or from the data columns of a RAIDZ vdev's rows, min(D, N - p) drives for a
    record of D sectors; a request of several records reads each one's. Before them, one after
    another, ``lookups`` indirect blocks on average (``IndirectBlocks.reads``), each read whole
    as a record is."""
    if op == "write":
        raise NotModelled(
            "ZFS random writes (copy-on-write records gathered in transaction groups) "
            "are not modelled"
        )
    blocks = _records_per_request(volume, request_B)
    records = _block_reads(volume, stored_B(volume), request_B, drives, blocks)
    if not lookups:
        return records
    lookup = _block_reads(volume, INDIRECT_B, request_B, drives)
    return replace(records, lookups=lookups, lookup=lookup)


def _block_reads(
    volume: Volume, block_B: float, request_B: float, drives: int, blocks: float = 1.0
) -> RandomLayout:
    """``blocks`` reads of a block of ``block_B`` stored bytes on a vdev of ``drives``, per
    request of ``request_B``: each its whole sectors, from one copy or from min(D, N - p) data
    columns of a RAIDZ vdev for D sectors."""
    parity = LEVELS[volume.layout()[0]].parity_chunks
    data = _data_sectors(block_B, volume.ashift)
    # the block's data sectors, on a RAIDZ vdev each column's mean (the longest is at most a
    # sector more)
    read_B = data * 2**volume.ashift
    columns = min(data, drives - parity) if parity else 1
    # a RAIDZ block's columns are read at once, at the same place on each drive (their heads
    # together, one request at a time): the read ends with the latest turn
    return RandomLayout(
        blocks * read_B / request_B / drives,
        read_B / columns,
        1,
        at_once=(columns,),
        heads_together=columns > 1,
    )


@dataclass(frozen=True)
class IndirectBlocks:
    """The indirect blocks that map the records of a random read's span, and what the ARC holds
    of them (the module's docstring)."""

    span_B: float  # the bytes the reads fall in
    levels_B: tuple[float, ...]  # bytes of indirect blocks at each level, level 1 first
    cached: tuple[float, ...]  # the share of each level the ARC holds
    arc_B: float

    @property
    def reads(self) -> float:
        """Indirect blocks a random read reads from the drives, on average: one at each level,
        where the ARC does not hold its block."""
        return sum(1.0 - share for share in self.cached)


def indirect_blocks(
    volume: Volume, workload: StorageWorkload, part: Disk | Ssd, host: Host
) -> IndirectBlocks:
    """The indirect blocks of the records in the random reads' span (``workload.span_GB``, else
    the whole pool's data, ``Volume.group_GB`` for each vdev): 128 KiB of them for each
    1,024 blocks of the level below, up to one block; and the ARC's bytes (``arc_B``) given to
    them, the levels nearest the dnode first."""
    span_GB = workload.span_GB or volume.layout()[1] * volume.group_GB(part)
    blocks = math.ceil(span_GB * 1e9 / volume.record_B)
    levels_B: list[float] = []
    while blocks > 1:
        blocks = math.ceil(blocks / POINTERS_PER_INDIRECT)
        levels_B.append(float(blocks * INDIRECT_B))
    arc = room_B = arc_B(volume, host)
    cached: list[float] = []
    for level_B in reversed(levels_B):
        held_B = min(room_B, level_B)
        cached.insert(0, held_B / level_B)
        room_B -= held_B
    return IndirectBlocks(span_GB * 1e9, tuple(levels_B), tuple(cached), arc)


def indirect_note(
    vname: str, volume: Volume, workload: StorageWorkload, part: Disk | Ssd, host: Host
) -> str | None:
    """What to tell the user of random reads whose indirect blocks the ARC cannot hold: how
    many each reads from the drives first, and why (``indirect_blocks``); else None."""
    if volume.engine != "zfs" or vname != workload.target or not _random_read(workload):
        return None
    blocks = indirect_blocks(volume, workload, part, host)
    if not blocks.reads:
        return None
    held_pct = blocks.cached[0] * 100
    return (
        f"volume {vname}: each {workload.request_KiB:g} KiB random read first reads "
        f"{blocks.reads:.2f} indirect blocks of {INDIRECT_B // 1024} KiB from the pool's drives on "
        f"average: the {blocks.span_B / 1e12:,.1f} TB it reads among, in "
        f"{volume.record_B / 1024:g} KiB records, is mapped by "
        f"{sum(blocks.levels_B) / 1e9:,.1f} GB of them ({BLKPTR_B} B a record), of which the "
        f"{blocks.arc_B / 1e9:,.1f} GB ARC (arc_GB) "
        f"holds {held_pct:.1f} % at level 1 ({blocks.levels_B[0] / 1e9:,.1f} GB; reads uniform "
        "over the span, blocks taken whole; no special vdev: they live on the pool's vdevs)"
    )


def in_flight(volume: Volume, body: StorageBody) -> float:
    """Requests one of the body's streams keeps at ``volume``'s drives: those it queues
    (``requests.in_flight``; a LAN client's reader at random, its ``StorageBody.client_depth``,
    each served by a server thread of its own); on a zvol a share of its threads at most; and on
    a ZFS dataset one, whatever its queue depth: ZFS has no asynchronous path for a file's reads,
    so an asynchronous engine's submission waits for each (one fio job at io depth 64, libaio,
    direct, async off: 11.3k 16 KiB reads a second, each submission 88 us, openzfs/zfs issue
    #18660, 2026; 'There is no asynchronous hooks in ZFS currently and all those IO calls get
    sent down the synchronous paths', Brian Atkinson, openzfs/zfs pull request #10018)."""
    w = body.workload
    if body.client_depth > 1:
        queued = body.client_depth
    elif volume.engine == "zfs" and volume.filesystem.type == "zfs":
        return 1
    else:
        queued = requests.in_flight(w.io, w.op, w.queue_depth)
    if volume.engine != "zfs" or volume.filesystem.type != "raw":
        return queued
    return min(queued, volume.zvol_threads / w.streams)


def check_arc(body: StorageBody, host: Host, where: str) -> None:
    """Each pool's ``arc_GB`` is host memory ZFS keeps for reads: at most the host's memory."""
    for name, volume in body.volumes.items():
        if volume.arc_GB is not None and volume.arc_GB * 1e3 > host.memory_MB:
            raise UserError(
                where,
                f"volumes.{name}.arc_GB",
                f"must be at most the host's memory, {host.memory_MB / 1e3:,.1f} GB "
                f"({host.name}), got {volume.arc_GB:g}",
            )


def arc_B(volume: Volume, host: Host) -> float:
    return volume.arc_GB * 1e9 if volume.arc_GB is not None else host.memory_MB * 1e6 / 2


# Copies of every block a mirror vdev holds from which the path says so: two-way mirrors are
# ZFS's usual pool of mirrors, three-way ones its own "for more redundancy" (zpool-create(8)'s
# example pools), wider ones most often a pool meant as two-way written with a small vdevs.count
WIDE_MIRROR_COPIES = 4


def wide_mirror_note(vname: str, volume: Volume) -> str | None:
    """What to tell the user of a pool whose mirror vdevs each hold ``WIDE_MIRROR_COPIES`` or more
    copies of every block (``disks.count`` split over ``vdevs.count``), else None."""
    vdevs = volume.vdevs
    if volume.engine != "zfs" or vdevs is None or vdevs.type != "mirror":
        return None
    copies = volume.disks.count // vdevs.count
    if copies < WIDE_MIRROR_COPIES:
        return None
    return (
        f"volume {vname}: each of its {vdevs.count} mirror vdev(s) holds {copies} copies of every "
        f"block (disks.count {volume.disks.count} over vdevs.count {vdevs.count}), so it writes "
        f"what one drive of each writes; two-way mirrors of these drives are vdevs.count "
        f"{volume.disks.count // 2}"
    )
