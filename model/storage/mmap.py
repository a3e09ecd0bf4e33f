"""A program that memory-maps a file, reading it front to back while writing it back to front.

The LDM product-queue test of ``000_a6a829ac4238989d.txt`` ("System Performance - RAID Versus
Single Hard Drive", third test): a 4 GB file is mapped; step by step the program reads the next
32 KB chunk from the front and writes the next chunk from the back, run three times and averaged.
The file lies at the start of its volume (the report does not say where). What Linux 2.6.9
(Red Hat EL 4) does with it, chunk by chunk (``workload.request_KiB``):

- A touch of a page that is not in memory faults, and the fault reads around it
  (``filemap_nopage``): the file's read-ahead window (32 pages, 128 KiB) from half of it below
  the faulting page, the pages of it not yet in memory, and the program waits for its own. A
  program touches a chunk from its lowest page up, so the forward reader, whose lower half is in
  memory, reads two chunks a fault (64 KiB), and the backward writer, whose chunk above is in
  memory, three (96 KiB; read before they are written). Read in whole 64 KiB blocks for both
  streams, as the model did before, the backward stream faulted half as often again and the
  SATA drive's work (493 s a run) exceeded the whole run the report measured (430 s).
- The page cache holds the memory the kernel and the system's processes leave. Each page is
  touched once in a pass, so least-recently-used is first-in first-out here.
- 2.6.9 does not count pages written through a mapping as dirty: they are written back when
  reclaim evicts them. kswapd wakes at ``pages_low`` and frees to ``pages_high``, so dirty blocks
  leave in batches of ``pages_high - pages_low`` of evictions; the elevator sorts a batch and
  merges contiguous blocks up to the driver's largest request. What is still dirty when the program
  exits is written back before the next run.
- The volume is one drive or a RAID1 pair (``model.storage.spindle``). A card's mirror's read
  goes where its ``mirror_reads`` sends it (``spindle.MIRROR_READS``): the drive with fewer
  commands pending (``balanced``), the one Linux 2.6 md's raid1 picks (``nearest``: the drive
  the last read went to if this one continues it, else the other if idle, else the nearer head),
  or the first drive (``primary``); an md mirror's, where md's raid1 sends it (``nearest``).
  Writes go to every copy: through a write-back cache (``model.storage.writecache``) when there
  is one (an ATA drive's own, enabled as drives ship; a RAID controller's when ``write_back`` is
  on, the controller then turning its drives' caches off), else straight to the platters.

Reclaim, not the program, submits the write-back, so the CPU a controller's driver path costs per
byte written (``driver_cost``, the RAID write problem of the same report) lands on kswapd and never
slows the program: why the report found the memory-mapped queue untouched by the problem
(``notebooks/psu_raid_vs_sata.ipynb`` works out kswapd's share).

The program's own CPU time between faults is taken at its floor, one copy of every byte it reads
and writes at the host's copy rate. Its user and system times are not predicted: the report does
not say what the program does with a chunk (copies it, compares it, touches a word a page); one
copy of each byte read and written at the host's estimated copy rate is 3.1 s, the report's user
time 8.3 s on both volumes; and its system time is page faults (up to two million minor ones, a
page touched by each stream, and 69,000 major ones a run), 262,144 lock and unlock calls and
direct reclaim, whose costs on this kernel no source and no other table gives. The drives'
datasheet figures set the run's time (the calibrated ``disk_format_efficiency`` only for a drive
whose datasheet gives no sustained rate); nothing is fitted on this test.

A pass runs compiled (``model.storage.mmap_loop``); the Python classes it was first written as are
``tests/mmap_reference.py``, which gives the same results to the last bit.
"""

from __future__ import annotations

import math

from ..catalog import Catalog
from ..errors import NotModelled, UserError, readable
from ..parts import Controller, Disk
from ..result import Result
from ..settings import page_cache_B
from ..spec import Scenario
from . import disk as disk_model
from .filesystem import check_mode
from .spec import StorageBody
from .spindle import MIRROR_READS, Spindle
from .topology import drives_words
from .writecache import holding_controller, max_request_B, write_cache_on

# each chunk of the mapped file is simulated in every run (a run is repeated without simulating it
# only once it starts from the page cache the last one did, which some sizes never reach: 4 KiB
# chunks of a 4.03 GB file cycled through six page caches, every run simulated), so a test is
# refused past this many chunks over its runs. The worst cases measured on the lab's machine, one
# run of 4 KiB chunks faulted one at a time on a mirror of 24 TB drives behind the controller's
# cache: 4.2 million chunks 3.8 s and 290 MB peak, 8.4 million 6.6 s and 404 MB, 16.8 million
# 12.3 s and 622 MB (1,000,000 MB of 32 KiB chunks in 3 runs, 92 million, took 50 s and 1.4 GB;
# 20,000,000 MB did not fit in memory). The report's test is 393,216 (4 GB of 32 KiB chunks, 3 runs)
SIMULATED_CHUNKS = 2**23


def reclaim_batch_B(memory_B: float) -> float:
    """Bytes kswapd frees per wake-up: ``pages_high - pages_low``, a quarter of ``min_free_kbytes``.

    Linux 2.6.9 sets ``min_free_kbytes = sqrt(16 * lowmem_kbytes)`` (at least 128, at most 65536),
    ``pages_low`` 5/4 and ``pages_high`` 3/2 of it.
    """
    min_free_kB = min(max(math.sqrt(16.0 * memory_B / 1024.0), 128.0), 65536.0)
    return min_free_kB / 4.0 * 1024.0


def build_volume(
    body: StorageBody, catalog: Catalog, params: dict[str, float], where: str
) -> tuple[list[Spindle], float, bool, Controller]:
    """The volume under the mapping: its drives, the write-back cache in front of them (bytes, 0
    when there is none), whether a mirror balances its reads, and the controller."""
    vname = body.workload.target
    volume = body.volumes[vname]
    key = f"volumes.{vname}.filesystem.journal"
    check_mode(volume.filesystem, body.workload.io, where, key)
    if volume.engine == "zfs":  # a pool has vdevs, no level or groups of its own
        raise NotModelled(
            f"memory-mapped I/O on a ZFS pool (volume {vname}, {volume.vdevs.count} "
            f"{volume.vdevs.type} vdev(s)): the model covers one drive and a RAID1 pair, of md "
            "or a RAID card"
        )
    if volume.level not in ("single", "raid1") or volume.groups != 1:
        raise NotModelled(
            f"memory-mapped I/O on {volume.level} with {volume.groups} group(s): the model "
            "covers one drive and a RAID1 pair"
        )
    disk: Disk = catalog.get("disks", volume.disks.part, where, f"volumes.{vname}.disks.part")
    # a hard disk sits on a controller's channel or in a shelf cabled to one
    cname, ctrl = holding_controller(body, catalog, vname, where)
    slot = body.controllers[cname]
    efficiency = disk_model.format_efficiency(disk, params)
    drives = [Spindle(disk, efficiency) for _ in range(volume.disks.count)]
    cache_B = 0.0
    if write_cache_on(body, vname, disk):
        if volume.engine == "controller":
            if ctrl.cache_MB is None:
                raise NotModelled(f"{ctrl.name}: its cache size is not in the catalog")
            cache_B = ctrl.cache_MB * 1e6
        elif len(drives) > 1:
            raise NotModelled(
                "an md mirror's write path under a memory map is not modelled; "
                "no report measures one"
            )
        else:
            cache_B = disk.cache_MB * 1e6
    # md's own mirror reads as its raid1's read_balance; a card's as its mirror_reads
    policy = slot.mirror_reads if volume.engine == "controller" else "nearest"
    return drives, cache_B, MIRROR_READS.index(policy), ctrl


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    body: StorageBody = scenario.body
    w = body.workload
    if w.op != "write" or w.streams != 1:
        raise UserError(
            scenario.path,
            "workload.op" if w.op != "write" else "workload.streams",
            "io: mmap models one program reading the mapped file "
            "forward while writing it backward: needs op: write and streams: 1",
        )
    host = catalog.get("hosts", body.host, scenario.path, "host")
    drives, cache_B, mirror, ctrl = build_volume(body, catalog, params, scenario.path)
    volume_B = min(drive.size_B for drive in drives)
    if w.total_MB * 1e6 > volume_B:
        raise UserError(
            scenario.path,
            "workload.total_MB",
            f"a mapped file of {w.total_MB:g} MB does not fit on the volume "
            f"({volume_B / 1e9:,.0f} GB)",
        )
    # the program's chunk, in whole pages, and the read-around window in chunks
    page_B = body.kernel.page_B
    block_B = max(page_B, int(w.request_KiB * 1024) // page_B * page_B)
    blocks = chunks(w.total_MB, block_B, w.runs, scenario.path)
    # a fault reads around it at most the whole file
    window = min(blocks, max(1, round(body.kernel.read_ahead_KiB * 1024 / block_B)))
    cache_blocks = int(page_cache_B(host.memory_MB) / block_B)
    if window > cache_blocks // 2:  # the two streams' read-arounds must fit in memory together
        raise UserError(
            scenario.path,
            "kernel.read_ahead_KiB",
            "a memory-mapped file's read-around is modelled up to half the page cache "
            f"({cache_blocks // 2 * block_B / 1024:,.0f} KiB on this host), "
            f"got {body.kernel.read_ahead_KiB:g} KiB",
        )
    memory_B = host.memory_MB * 1e6
    from ..compiled import announce

    announce("mmap_loop.run", "the memory-mapped test's loop", 10)
    from .mmap_loop import MappedFile  # numba: imported (and compiled, or cached) on use

    mapped = MappedFile(
        blocks,
        cache_blocks,
        round(reclaim_batch_B(memory_B) / block_B),
        max_request_B(ctrl),
        drives,
        cache_B,
        mirror,
        block_B,
        window,
    )
    copy_s = 2 * block_B / (host.copy_rate_MBps * 1e6)  # the floor of the program's time per step

    def busiest_s() -> float:
        return max(mapped.busy_s())

    now, elapsed, demand, left_in_memory, simulated = 0.0, [], [], None, 0
    for _ in range(w.runs):
        if mapped.order() == left_in_memory:  # it starts as the last one did, and repeats it
            elapsed.append(elapsed[-1])
            demand.append(demand[-1])
            continue
        left_in_memory = mapped.order()
        simulated += 1
        start, busy_before = now, busiest_s()
        now = mapped.run(now, copy_s / 2)
        elapsed.append(now - start)
        demand.append(busiest_s() - busy_before)
        now = mapped.flush(now)
    busy = {f"disk {w.target}.{i}": busy_s / now for i, busy_s in enumerate(mapped.busy_s())}
    file_B = blocks * block_B
    demand_s = sum(demand) / len(demand)
    notes = (
        f"{mapped.faults / simulated:,.0f} faults a run, reading "
        f"{mapped.read_B / max(1, mapped.faults) / 1024:,.0f} KiB a fault on average; "
        f"{mapped.written_B / simulated / 1e9:.2f} GB written back a run",
    )
    return Result(
        scenario=scenario.name,
        bytes_moved=file_B,
        elapsed_s=sum(elapsed) / len(elapsed),
        utilization=busy,
        bound_MBps=file_B / demand_s / 1e6,
        notes=notes,
        unpredicted=unpredicted_cpu(host.copy_rate_MBps, file_B, mapped.faults / simulated),
        labels=dict.fromkeys(busy, drives_words(w.target, body.volumes[w.target].disks.count)),
    )


def chunks(total_MB: float, block_B: int, runs: int, where: str) -> int:
    """The chunks of ``block_B`` a mapped file of ``total_MB`` holds, refused (before any array is
    made) when its ``runs`` would simulate more than ``SIMULATED_CHUNKS`` of them: the message gives
    the largest ``workload.total_MB``, in whole MB, that these runs and chunks allow."""
    blocks = math.ceil(total_MB * 1e6 / block_B)
    if blocks * runs > SIMULATED_CHUNKS:
        raise UserError(
            where,
            "workload.total_MB",
            f"the memory-mapped test simulates each {block_B / 1024:g} KiB chunk in every run, "
            f"at most {SIMULATED_CHUNKS:,} in all: with {runs:,} runs, total_MB is at most "
            f"{SIMULATED_CHUNKS // runs * block_B // 10**6:,} MB, got {readable(total_MB)} MB",
            related=("workload.runs", "workload.request_KiB"),
        )
    return blocks


def unpredicted_cpu(copy_rate_MBps: float, file_B: float, faults: float) -> tuple:
    """Why the program's user and system times are not predicted (what validate prints)."""
    copies_s = 2 * file_B / (copy_rate_MBps * 1e6)
    user = (
        "the report does not say what the test program does with each 32 KB chunk it reads or "
        "writes (copies it, compares it, touches a word a page): one copy of every byte read and "
        f"written at the host's {copy_rate_MBps:.0f} MB/s copy rate is {copies_s:.1f} s a run, "
        "and no other table measures user-space work on this host"
    )
    system = (
        f"the program's system time is its page faults ({faults:,.0f} major and up to "
        f"{2 * file_B / 4096 / 1e6:.1f} million minor a run), its lock and unlock calls and "
        "direct reclaim, whose costs on Linux 2.6.9 no source and no other table gives"
    )
    return (("cpu_user_s", user), ("cpu_sys_s", system), ("cpu_util_pct", system))
