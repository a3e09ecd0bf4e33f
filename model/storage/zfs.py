"""A ZFS pool: vdevs (mirrors or RAIDZ1/2/3) striped by the pool, records, checksums and the ARC.

The pool spreads a stream over its vdevs evenly (``Volume.layout``: a vdev is a group). A RAIDZ
vdev of N drives streams at its N - p data drives' rate, as RAID5/6 do (``raid.Level.drive_share``),
and a mirror vdev reads from any copy. ZFS reads and checksums a whole record (``record_KiB``): a
random read smaller than a record reads all of it, spread over the vdev's N - p data columns, so a
random read keeps N - p drives busy for one record and a RAIDZ vdev serves about one drive's
random reads (N / (N - p) of a drive's at most, the parity columns rotating with the offset); a
mirror vdev reads the record from one copy. Random writes (copy-on-write records gathered in
transaction groups) are not modelled.

The host's CPU checksums every byte read or written (fletcher4) and computes RAIDZ parity on every
byte written, on ZFS's own threads. Per-core rates from OpenZFS's boot-time benchmarks (kstats in
/proc/spl/kstat/zfs), AVX2 implementations: ``fletcher_4_bench`` native 4,950,749,767 B/s
(openzfs/zfs issue #5126, B. Behlendorf's sample output, 2016); ``vdev_raidz_bench`` gen_p
4,789,944,802, gen_pq 3,302,606,591 and gen_pqr 1,483,093,911 B/s (openzfs/zfs pull request #4860,
sample output, 2016). They are taken as one core's rates on any host (a host's own kstats would
replace them). The ARC keeps what was read, up to ``arc_GB`` (by default half the host's memory,
OpenZFS's ``zfs_arc_max`` default on Linux): a read test repeated (``workload.runs``) over data that
fits is served from memory after its first pass (``model.storage.rereads``).

A zvol (the pool's block device, ``filesystem: raw``) hands each request to a task queue of
``zvol_threads`` threads (``zvol_request`` dispatches it to ``zvol_taskq`` unless
``zvol_request_sync``, off by default, is set) and a thread reads or writes its record and waits
for it (``zvol_read``, ``dmu_read_uio_dnode``) before it takes the next: module/zfs/zvol.c of
OpenZFS 0.7 and 0.8, ``unsigned int zvol_threads = 32``; zfs(4): "the number of requests which
can be handled concurrently is controlled by zvol_threads". So however many requests the streams
queue, at most ``zvol_threads`` are at the drives (``in_flight``).
"""

from __future__ import annotations

from ..errors import NotModelled, UserError
from ..parts import Host
from . import requests
from .raid import LEVELS
from .requests import RandomLayout
from .spec import StorageBody, StorageWorkload, Volume

FLETCHER4_Bps = 4_950_749_767.0  # fletcher_4_bench, avx2, native byte order
RAIDZ_GEN_Bps = {1: 4_789_944_802.0, 2: 3_302_606_591.0, 3: 1_483_093_911.0}  # gen_p, pq, pqr


def host_s_per_byte(volume: Volume, op: str) -> float:
    """Host CPU seconds the pool's checksums (and, for a write, RAIDZ parity) cost per byte."""
    seconds = 1.0 / FLETCHER4_Bps
    parity = LEVELS[volume.layout()[0]].parity_chunks
    if op == "write" and parity:
        seconds += 1.0 / RAIDZ_GEN_Bps[parity]
    return seconds


def random_layout(volume: Volume, op: str, request_B: float, drives: int) -> RandomLayout:
    """A random read's commands on one vdev: the whole record, from one copy or N - p columns."""
    if op == "write":
        raise NotModelled(
            "ZFS random writes (copy-on-write records gathered in transaction groups) "
            "are not modelled"
        )
    record_B = volume.record_KiB * 1024
    read_B = max(record_B, request_B)
    parity = LEVELS[volume.layout()[0]].parity_chunks
    columns = drives - parity if parity else 1
    # a RAIDZ record's columns are read at once, at the same place on each drive (their heads
    # together, one request at a time): the read ends with the latest turn
    return RandomLayout(
        read_B / request_B / drives,
        record_B / columns,
        1,
        at_once=(columns,),
        heads_together=columns > 1,
    )


def in_flight(volume: Volume, workload: StorageWorkload) -> float:
    """Requests one of the workload's streams keeps at ``volume``'s drives: those it queues
    (``requests.in_flight``), and on a zvol a share of its threads at most."""
    w = workload
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
