"""A read test repeated back to back (``workload.runs``): what the host's cache holds of the first
pass serves the others from memory.

A ZFS pool's reads land in its ARC (``zfs.arc_B``: ``arc_GB``, by default half the host's memory);
other volumes' buffered reads in the page cache (``settings.page_cache_B``: the host's memory less
what the kernel and its daemons keep); a direct read keeps nothing. Data that fit are read again
from memory, each stream on its core at the host's cost of reading from the page cache
(``stream.io_s_per_byte``), time-shared beyond the host's cores, and no faster than the host's
memory carries the copy out of the cache (``model.memory``: twice a byte, where the catalog gives
the host's memory bandwidth). Data that do not fit are read from
the drives every run: a cache that evicts the least recently used pages keeps none of a file read
in order that is larger than it by the time the next pass asks for it (Linux reads a page once onto
its inactive list, which the rest of the pass flushes), so every run is the first one again.

Clients over a LAN (``front``) would be served from memory through the host's network path, which
the model does not simulate without the drives: repeated runs that fit are refused there. So are
repeated runs of a pool that keeps its records compressed (``zfs.kept_compressed``): its ARC holds
them as stored (zfs(4), ``zfs_compressed_arc_enabled``, 1 by default; OpenZFS 6950, 'ARC should
cache compressed data', openzfs/zfs pull request #4768: 'If compressed arc is enabled and the
block on-disk is compressed, then the b_pdata will match the block on-disk and remain compressed
in memory'), so that it keeps 1 / the stored share times its size of data (``cache_B``), and
decompresses each as it is read again, which the later runs' cost here leaves out.

Sources: Linux's page cache puts a page read once on its inactive list and moves it to the active
list only when it is referenced again (mm/swap.c, ``mark_page_accessed``), so a pass larger than
the cache flushes itself; OpenZFS sizes the ARC at half the memory by default (``zfs_arc_max``).
No measured table calibrates it: the reports' read tests are single passes.
"""

from __future__ import annotations

from dataclasses import replace

from .. import memory
from ..errors import NotModelled
from ..parts import Host
from ..result import Result
from ..settings import page_cache_B
from . import stream, zfs
from .spec import StorageBody


def cache_B(body: StorageBody, host: Host) -> float:
    """Bytes of the target volume's reads the host keeps: the ARC, the page cache, or none. The
    ARC holds records as stored (``zfs_compressed_arc_enabled``), so its bytes keep 1 /
    ``zfs.stored_share`` as many of the data's: four times its size of records stored at a
    quarter."""
    w = body.workload
    volume = body.volumes[w.target]
    if volume.engine == "zfs":
        return zfs.arc_B(volume, host) / zfs.stored_share(volume)
    return 0.0 if w.io == "direct" else page_cache_B(host.memory_MB)


def served_again(body: StorageBody, host: Host) -> bool:
    """Whether the runs after the first read from memory: a read test repeated over data that fit
    the cache."""
    w = body.workload
    data_B = (body.clients.count if body.clients else w.streams) * w.total_MB * 1e6
    return w.runs > 1 and w.op == "read" and data_B <= cache_B(body, host)


def check_front(body: StorageBody, host: Host) -> None:
    """Repeated runs from memory behind LAN clients are not modelled."""
    if body.clients is not None and served_again(body, host):
        raise NotModelled(
            "repeated runs (workload.runs) over data the host's cache holds, read by clients over "
            "the LAN: the later runs would come from memory through the network path alone"
        )


def check_compressed(body: StorageBody) -> None:
    """Repeated runs from the ARC of records ZFS keeps compressed are not modelled."""
    volume = body.volumes[body.workload.target]
    if volume.engine == "zfs" and zfs.kept_compressed(volume):
        raise NotModelled(
            "repeated runs (workload.runs) over data the ARC holds, of a pool whose records are "
            "kept compressed (compression): the ARC holds them compressed and decompresses "
            "them as they are read again"
        )


def with_cache(result: Result, body: StorageBody, host: Host, read_s_per_byte: float) -> Result:
    """``result`` (the first pass, from the drives) with the runs after it from memory, for a test
    ``served_again``: a run's mean, as every repeated test's figures are (``workload.runs``; a run
    from the drives alone is every run's figure as it is), the bytes of one run over the mean of
    the runs' times; the CPU time too (the later runs' streams reading ``read_s_per_byte`` a byte
    on their cores, or the host's memory carrying their copies where it is slower) and the share
    of the time a lone stream waits for I/O (none in the later runs)."""
    w = body.workload
    own_s = w.total_MB * 1e6 * read_s_per_byte  # a stream's core time to read its data once
    later_s = (w.runs - 1) * own_s
    # the later runs' copies out of the cache: their bytes' crossings of the host's memory
    sustained_Bps = memory.sustained_Bps(host)
    crossed_B = (w.runs - 1) * w.streams * w.total_MB * 1e6 * memory.COPY
    copies_s = crossed_B / sustained_Bps if sustained_Bps else 0.0
    cores_s = later_s * max(1.0, w.streams / host.cores)
    memory_s = max(cores_s, copies_s)
    elapsed_s = result.elapsed_s + memory_s
    where = "the ARC" if body.volumes[w.target].engine == "zfs" else "the page cache"
    utilization = {k: v * result.elapsed_s / elapsed_s for k, v in result.utilization.items()}
    # the later runs keep each stream's core and so the host's CPU busy reading from memory
    for name in stream.stream_cores(w.streams, host.cores):
        utilization[name] += later_s / elapsed_s
    if "cpu host" in utilization:
        utilization["cpu host"] += w.streams * later_s / host.cores / elapsed_s
    if sustained_Bps:
        utilization["memory host"] += copies_s / elapsed_s
    paced = (
        f", as fast as the host's memory carries their copies out of it ({memory.COPY:g} "
        f"crossings a byte, {sustained_Bps / 1e6:,.0f} MB/s)"
        if copies_s > cores_s
        else ""
    )
    # the bottleneck law over all runs: the first at its own bound, the others from memory; its
    # rated parts' (Result.ceiling_MBps): the first at its ceiling, the others at the memory's
    # copies alone (none where the host gives no memory figure)
    first_s = result.bytes_moved / (result.bound_MBps * 1e6)
    ceiling = result.ceiling_MBps
    if ceiling is not None:
        first_ceiling_s = result.bytes_moved / (ceiling * 1e6)
        ceiling = result.bytes_moved * w.runs / (first_ceiling_s + copies_s) / 1e6
    return replace(
        result,
        elapsed_s=elapsed_s / w.runs,
        utilization=utilization,
        bound_MBps=result.bytes_moved * w.runs / (first_s + memory_s) / 1e6,
        ceiling_MBps=ceiling,
        cpu_sys_s=None
        if result.cpu_sys_s is None
        else (result.cpu_sys_s + w.streams * later_s) / w.runs,
        io_wait_pct=None
        if result.io_wait_pct is None
        else result.io_wait_pct * result.elapsed_s / elapsed_s,
        notes=(
            *result.notes,
            f"runs 2 to {w.runs} read from {where}{paced} (the figures: a run's mean)",
        ),
    )
