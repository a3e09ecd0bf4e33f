"""The memory-mapped test as it was simulated in Python before the compiled pass
(``model.storage.mmap_loop``): kept as the oracle the pass is checked against
(``tests/test_mmap_loop.py``), and the readable page cache the unit tests of ``tests/test_mmap.py``
exercise. The model it simulates is ``model.storage.mmap``'s docstring.
"""

from __future__ import annotations

import math
from collections import deque

from model.catalog import Catalog
from model.errors import NotModelled, UserError
from model.parts import Controller, Disk
from model.result import Result
from model.settings import page_cache_B
from model.spec import Scenario
from model.storage import disk as disk_model
from model.storage.mmap import reclaim_batch_B, unpredicted_cpu
from model.storage.spec import StorageBody
from model.storage.spindle import Spindle, pick_copy
from model.storage.writecache import max_request_B, write_cache_on


def merged_runs(extents: dict[int, int], max_B: float = float("inf")) -> list[tuple[int, int]]:
    """(offset, length) runs of the extents, ascending, contiguous ones joined up to ``max_B``
    each."""
    runs: list[list[int]] = []
    for offset, length in sorted(extents.items()):
        if runs and runs[-1][0] + runs[-1][1] == offset and runs[-1][1] + length <= max_B:
            runs[-1][1] += length
        else:
            runs.append([offset, length])
    return [(offset, length) for offset, length in runs]


class WriteBackCache:
    """``size_B`` of write cache in front of ``drives`` (one drive, or the two copies of a
    mirror)."""

    def __init__(self, drives: list[Spindle], size_B: float, interface_Bps: float):
        self.drives = drives
        self.size_B = size_B
        self.interface_Bps = interface_Bps
        self.extents: dict[int, int] = {}  # offset -> bytes held dirty
        self.held_B = 0
        self.destages = 0

    def write(self, now_s: float, offset_B: int, length_B: int) -> float:
        """Take a write into the cache; the time it is acknowledged."""
        self.held_B += length_B - self.extents.get(offset_B, 0)
        self.extents[offset_B] = max(self.extents.get(offset_B, 0), length_B)
        if self.held_B >= self.size_B / 2:
            self.destage(now_s)
        return now_s + length_B / self.interface_Bps

    def destage(self, now_s: float) -> float:
        """Write everything held to the drives, ascending; the time the last write completes."""
        runs = merged_runs(self.extents)
        done = max(drive.write(now_s, runs) for drive in self.drives)  # each at least now_s
        self.destages += bool(self.extents)
        self.extents.clear()
        self.held_B = 0
        return done


class MirrorOrDrive:
    """The volume under the mapping: one drive or a RAID1 pair, with its write path."""

    def __init__(self, drives: list[Spindle], cache: WriteBackCache | None, mirror_reads: str):
        self.drives = drives
        self.cache = cache
        self.policy, self.last_used = mirror_reads, 0
        if mirror_reads == "primary" or len(drives) == 1:
            self.read = drives[0].submit  # one drive serves every read: no choice to make

    def read(self, now_s: float, offset_B: int, length_B: int) -> float:
        """The read goes to the copy ``pick_copy`` picks."""
        self.last_used = pick_copy(self.drives, now_s, offset_B, self.policy, self.last_used)
        return self.drives[self.last_used].submit(now_s, offset_B, length_B)

    def write(self, now_s: float, runs: list[tuple[int, int]]) -> None:
        """Write the (offset, length) runs, in that order, through the cache or to every copy."""
        if self.cache is not None:
            for offset_B, length_B in runs:
                self.cache.write(now_s, offset_B, length_B)
        else:
            for drive in self.drives:
                drive.write(now_s, runs)

    def drain(self, now_s: float) -> float:
        """Destage what the cache holds; the time every drive is idle again."""
        if self.cache is not None:
            self.cache.destage(now_s)
        return max([now_s] + [d.free_at_s for d in self.drives])


class MappedFile:
    """The file's blocks in the page cache, first in first out, with the ones written since read."""

    def __init__(
        self,
        blocks: int,
        capacity_blocks: int,
        batch_blocks: int,
        max_request_B: float,
        volume: MirrorOrDrive,
        block_B: int,
        window_blocks: int = 1,
    ):
        self.block_B = block_B  # the program's chunk: what it touches at a step
        # a fault reads the blocks of the read-around window not in memory, the window starting
        # half of it below the faulting block (``filemap_nopage``)
        self.window = max(1, window_blocks)
        self.resident = bytearray(blocks)
        self.dirty = bytearray(blocks)
        self.order: deque[int] = deque()
        self.capacity = capacity_blocks
        self.batch = max(1, batch_blocks)
        self.max_request_B = max_request_B
        self.volume = volume
        self.evicted = 0
        self.to_write: dict[int, int] = {}
        self.faults = 0
        self.read_B = 0
        self.written_B = 0

    def run(self, now_s: float, step_s: float) -> float:
        """One pass of the program from ``now_s``, ``step_s`` of its time per block; when it ends.

        A touch of a block not in memory faults: the program waits for its read, the block joins the
        page cache, and the cache's oldest block leaves it (written back with its batch if dirty).
        """
        resident, dirty, order = self.resident, self.dirty, self.order
        read, capacity, last = self.volume.read, self.capacity, len(self.resident) - 1
        block_B, window, below = self.block_B, self.window, self.window // 2
        for step in range(last + 1):
            for block in (step, last - step):
                if not resident[block]:
                    self.faults += 1
                    first = max(0, block - below)
                    missing = [
                        b for b in range(first, min(last + 1, first + window)) if not resident[b]
                    ]
                    done_s = now_s
                    for start, length in merged_runs({b * block_B: block_B for b in missing}):
                        end_s = read(now_s, start, length)
                        self.read_B += length
                        if start <= block * block_B < start + length:
                            done_s = end_s  # the program waits for its own block only
                    now_s = done_s
                    for b in missing:
                        resident[b] = 1
                        order.append(b)
                        if len(order) > capacity:
                            self._evict(now_s)
                now_s += step_s
            dirty[last - step] = 1
        return now_s

    def _evict(self, now_s: float) -> None:
        """The oldest block leaves the page cache; every ``batch`` evictions, kswapd writes back
        the dirty ones among them."""
        old = self.order.popleft()
        self.resident[old] = 0
        if self.dirty[old]:
            self.dirty[old] = 0
            self.to_write[old * self.block_B] = self.block_B
        self.evicted += 1
        if self.evicted % self.batch == 0:
            self.write_back(now_s)

    def write_back(self, now_s: float) -> None:
        """Submit the dirty blocks gathered so far, sorted and merged as the elevator does."""
        runs = merged_runs(self.to_write, self.max_request_B)
        self.volume.write(now_s, runs)
        self.written_B += sum(length for _, length in runs)
        self.to_write.clear()

    def flush(self, now_s: float) -> float:
        """Write back every dirty block left in memory; the time the volume is idle again."""
        for block in range(len(self.dirty)):
            if self.dirty[block]:
                self.dirty[block] = 0
                self.to_write[block * self.block_B] = self.block_B
        self.write_back(now_s)
        return self.volume.drain(now_s)


def build_volume(
    body: StorageBody, catalog: Catalog, params: dict[str, float], where: str
) -> tuple[MirrorOrDrive, Controller]:
    vname = body.workload.target
    volume = body.volumes[vname]
    if volume.level not in ("single", "raid1") or volume.groups != 1:
        raise NotModelled(
            f"memory-mapped I/O on {volume.level} with {volume.groups} group(s): the model "
            "covers one drive and a RAID1 pair"
        )
    disk: Disk = catalog.get("disks", volume.disks.part, where, f"volumes.{vname}.disks.part")
    cname = volume.disks.attach[0].partition(".")[0]
    slot = body.controllers[cname]
    ctrl: Controller = catalog.get("controllers", slot.part, where, f"controllers.{cname}.part")
    efficiency = disk_model.format_efficiency(disk, params)
    drives = [Spindle(disk, efficiency) for _ in range(volume.disks.count)]
    cache = None
    if write_cache_on(body, vname, disk):
        if volume.engine == "controller":
            if ctrl.cache_MB is None:
                raise NotModelled(f"{ctrl.name}: its cache size is not in the catalog")
            size_B = ctrl.cache_MB * 1e6
        elif len(drives) > 1:
            raise NotModelled(
                "an md mirror's write path under a memory map is not modelled; "
                "no report measures one"
            )
        else:
            size_B = disk.cache_MB * 1e6
        cache = WriteBackCache(drives, size_B, disk.interface_rate_MBps * 1e6)
    return MirrorOrDrive(drives, cache, slot.mirror_reads), ctrl


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    body: StorageBody = scenario.body
    w = body.workload
    if w.op != "write" or w.streams != 1:
        raise UserError(
            scenario.path,
            "workload.op",
            "io: mmap models one program reading the mapped file "
            "forward while writing it backward: needs op: write and streams: 1",
        )
    host = catalog.get("hosts", body.host, scenario.path, "host")
    volume, ctrl = build_volume(body, catalog, params, scenario.path)
    # the program's chunk, in whole pages, and the read-around window in chunks
    page_B = body.kernel.page_B
    block_B = max(page_B, int(w.request_KiB * 1024) // page_B * page_B)
    window = max(1, round(body.kernel.read_ahead_KiB * 1024 / block_B))
    blocks = math.ceil(w.total_MB * 1e6 / block_B)
    memory_B = host.memory_MB * 1e6
    mapped = MappedFile(
        blocks,
        int(page_cache_B(host.memory_MB) / block_B),
        round(reclaim_batch_B(memory_B) / block_B),
        max_request_B(ctrl),
        volume,
        block_B,
        window,
    )
    copy_s = 2 * block_B / (host.copy_rate_MBps * 1e6)  # the floor of the program's time per step

    def busiest_s() -> float:
        return max(d.busy_s for d in volume.drives)

    now, elapsed, demand, left_in_memory, simulated = 0.0, [], [], None, 0
    for _ in range(w.runs):
        if list(mapped.order) == left_in_memory:  # it starts as the last one did, and repeats it
            elapsed.append(elapsed[-1])
            demand.append(demand[-1])
            continue
        left_in_memory = list(mapped.order)
        simulated += 1
        start, busy_before = now, busiest_s()
        now = mapped.run(now, copy_s / 2)
        elapsed.append(now - start)
        demand.append(busiest_s() - busy_before)
        now = mapped.flush(now)
    busy = {f"disk {w.target}.{i}": d.busy_s / now for i, d in enumerate(volume.drives)}
    file_B = blocks * block_B
    demand_s = sum(demand) / len(demand)
    notes = (
        f"{mapped.faults / simulated:,.0f} faults a run, reading "
        f"{mapped.read_B / max(1, mapped.faults) / 1024:.0f} KiB a fault on average; "
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
    )
