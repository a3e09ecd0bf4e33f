"""A flash drive (SATA, SAS or NVMe SSD): no seek or rotation, internal parallelism, a write cache.

A request alone takes the sheet's latency, a 4 KiB request's, and the rest of its bytes at the
sequential rate (``request_s``, what the host waits); with every internal unit busy, a unit is held
the larger of its flash time and its bytes' time (``random_Bps``). The drive serves
``parallelism`` requests at once (its flash channels and dies): by Little's law the rated random
IOPS at the rated queue depth keep random_read_iops x read_latency requests in flight, so one
stream at queue depth 1 gets only 1 / latency requests a second and d in flight get
min(d, parallelism) / latency.

A write has two times. Its flash time, what one internal unit is busy programming it, follows from
the same parallelism: parallelism / random_write_iops, so every unit busy gives the rated write
IOPS. Its response, what the host waits, is shorter where the drive acknowledges a write once it
sits in its DRAM or SLC cache: the sheet's QD1 write latency (``write_latency_us``, e.g. 60,000 QD1
write IOPS, 16.7 us, on the 970 EVO Plus against its 57 us flash time). So a stream at depth 1
writes at 1 / response, and deep queues at the flash's rate. The catalog requires the latency of
every flash drive: the flash time is no stand-in for it (a data-center drive's 300 to 900 us
against the 15 to 30 us its power-protected DRAM answers in). Sustained writes run at
``seq_write_MBps`` until ``write_cache_GB`` (the SLC or DRAM cache) is full, then at
``post_cache_write_MBps``: a stream's rate is its bytes over the time the two phases take (the
flow's mean rate over the span).
Datasheet figures and their sources: ``data/hardware/ssds.yaml``, where a SATA drive's sequential
rates, its maker's "up to" measurements, are declared open from the sheet's figure to its link's
payload; a scenario's ``volumes.NAME.disks`` may give a drive's own (``drive_work.volume_drive``).
"""

from __future__ import annotations

from ..parts import Ssd


def parallelism(ssd: Ssd) -> float:
    """Requests the drive serves at once: those its rated IOPS keep in flight at its QD1 latency
    (Little's law), at most its rated queue depth."""
    return min(float(ssd.iops_queue_depth), ssd.random_read_iops * ssd.read_latency_us / 1e6)


def flash_s(ssd: Ssd, op: str) -> float:
    """What one small request keeps an internal unit busy: the rated QD1 read latency; a write's
    programming time from the same parallelism (so every unit busy gives the rated write IOPS)."""
    if op == "read":
        return ssd.read_latency_us / 1e6
    return parallelism(ssd) / ssd.random_write_iops


LATENCY_PIECE_B = 4096  # the request a datasheet's QD1 latency is given for (4 KiB random)


def latency_s(ssd: Ssd, op: str) -> float:
    """One small request alone, as the host waits for it: a read's flash time; a write's
    acknowledgement from the drive's cache (``write_latency_us``)."""
    if op == "write":
        return ssd.write_latency_us / 1e6
    return flash_s(ssd, op)


def sequential_Bps(ssd: Ssd, op: str, bytes_per_drive: float) -> float:
    """A drive's streaming rate for ``bytes_per_drive`` read or written (B/s): a write longer than
    the cache runs at the cache's rate for the cache's bytes, then at the post-cache rate."""
    if op == "read":
        return ssd.seq_read_MBps * 1e6
    fast_Bps = ssd.seq_write_MBps * 1e6
    cache_B = ssd.write_cache_GB * 1e9
    if ssd.post_cache_write_MBps is None or bytes_per_drive <= cache_B:
        return fast_Bps
    seconds = cache_B / fast_Bps + (bytes_per_drive - cache_B) / (ssd.post_cache_write_MBps * 1e6)
    return bytes_per_drive / seconds


def request_s(
    ssd: Ssd,
    op: str,
    piece_B: float,
    stream_Bps: float,
    links: tuple[float, float] | None = None,
) -> float:
    """One request of ``piece_B`` alone, as the host waits for it: the sheet's latency, which is a
    4 KiB request's (``LATENCY_PIECE_B``, data/hardware/ssds.yaml) over the drive's own link, and
    the rest of its bytes at stream rate; or, where the way to the host is slower than the drive's
    own link (``links``: its slowest link and the drive's own, B/s; ``topology._flash_links``),
    the latency less its 4 KiB over the drive's own link, and the whole piece over the slowest
    one, whichever is longer: a 32 KiB read of a Samsung 980 on a Raspberry Pi CM4's one PCIe 2.0
    lane had taken 67 us, at the drive's rate, where the lane alone takes 78 us to carry it."""
    latency = latency_s(ssd, op)
    alone_s = latency + max(piece_B - LATENCY_PIECE_B, 0.0) / stream_Bps
    if links is None:
        return alone_s
    slowest_Bps, own_Bps = links
    over_links_s = latency - LATENCY_PIECE_B / own_Bps + piece_B / slowest_Bps
    return max(alone_s, over_links_s)


def random_Bps(ssd: Ssd, op: str, piece_B: float, stream_Bps: float) -> float:
    """The drive's rate (B/s) for random requests of ``piece_B`` with every internal unit busy:
    its parallelism over the request's flash time, so the rated IOPS for small requests and the
    streaming rate for large ones."""
    busy_s = max(flash_s(ssd, op), piece_B / stream_Bps)
    return min(parallelism(ssd) * piece_B / busy_s, stream_Bps)
