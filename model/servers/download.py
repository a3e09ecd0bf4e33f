"""The Einstein@home download server (``002_d084885fd2f4dc68.txt``): nginx over a RAID of 16 drives.

Clients fetch a data file and its md5 file, one pair after another, until the run's pairs are
done. The server side, request by request:

- nginx assigns each new connection to the worker that accepts first: an idle one if there is one,
  else the one with the fewest connections on it. A worker serves a request with ``sendfile``; when
  a page it needs is not in memory yet, it sleeps in the kernel until the read completes, and its
  other connections wait with it. When the connection's socket is full, ``sendfile`` returns and the
  worker turns to its other connections until the socket has room again (``Socket``).
- Each file comes on a new TCP connection (``connections: per_file``, as a client that runs wget or
  curl per file does; the report does not say how the clients fetched). A new socket's send buffer
  starts at ``tcp_wmem[1]``, 16 KiB, and grows with the congestion window as the client acknowledges
  what it has received (``model.network.tcp.send_buffer_payload_B``), so a worker can run only so
  far ahead of the link before it must leave a file for another. With ``keep_alive`` the clients
  reuse a connection whose buffer has grown to ``tcp_wmem[2]`` and takes a whole file: one
  ``sendfile`` runs through it, and a worker serves files one at a time.
- Opening a file looks its name up, then reads its inode. 1000 MB of memory cannot hold the metadata
  of two million files, and a directory's blocks are touched once in a thousand requests while the
  data streams through the page cache in seconds, so nothing of a directory stays cached from one
  pair to the next. The file system is taken as ext3 with hashed directory indexes (``dir_index``,
  mke2fs's default since 2007; the report does not name it): a lookup reads the directory's index
  root, then the leaf block the name hashes to (``Directory``), then the page of the inode table
  holding the inode, kept at the start of the directory's files. The md5 file's name hashes to its
  own leaf, read unless it is the data file's; its inode, the next one, came with the data file's
  page, and its data is read from just after its data file (each was written right after it). The
  page cache reads whole pages, so a file's last read ends on the page boundary where the md5 file's
  page begins, and a drive that read ahead past it serves it from its cache.
- The kernel's read-ahead (Linux's on-demand read-ahead) reads a file in windows: the first sized
  from the first request, each next one larger up to ``read_ahead_KiB``; reaching a window starts
  the read of the next one in the background, so a stream has one window in flight ahead.
- The RAID controller maps a window onto its member drives in chunks (``model.storage.raidmap``);
  a RAID10 read goes to the mirror with fewer commands pending. Each drive is a
  ``model.storage.spindle.Spindle``: seek, rotation, transfer, its own look-ahead cache, commands in
  arrival order. The report does not give how many commands the Areca keeps at a drive (its "HDD
  Queue Depth" setting); the scenario keeps one, and a ``drive_queue_depth`` up to the drive's (NCQ,
  32 on the Hitachi drives) is a what-if: the drives are then ``QueuedSpindle``s, serving the
  nearest command first.
- What a worker writes into a socket crosses the server's one 1 GbE link as TCP flows, sharing it
  max-min fairly with the other connections (``model.sim.flows``); the client has a file when its
  last byte has crossed.
- A client computes the md5 sum of the data file it received and compares it before it asks for
  the next pair (the report: "done on the client").

The bound is the bottleneck law over every resource a pair uses: each drive (its busy time a pair),
the link (its bytes a pair) and the workers' CPU (a worker asleep on a read uses none, and the model
gives a worker no CPU cost of its own). Utilisation is each one's busy time over the run's, and one
more figure, the share of the time the volume has a read in flight (iostat's %util of the device),
names what a server whose workers sleep on reads waits for: its drives, though none is saturated.

The page cache holds under 0.03% of the 4 TB data set, so every read is taken to go to disk. The
tuned ("optimized") deadline settings are not given in the report; the model reads them as a
larger read-ahead window, the calibrated free parameter ``tuned_read_ahead_KiB``: what tuning
buys physically is fewer, longer requests per file, so fewer seeks per byte. Calibrated on
``002_d084885fd2f4dc68.txt`` "Web server tests" (with ``disk_format_efficiency`` shared with the
ATLAS drives).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import simpy

from ..catalog import Catalog, Disk, Nic, nic_rate_Bps
from ..errors import UserError
from ..network.tcp import mss_B, send_buffer_payload_B, tcp_wire_per_byte
from ..result import Result
from ..settings import Kernel
from ..sim.flows import FlowNetwork
from ..sim.rng import stream
from ..spec import ModelRecord, Scenario
from ..storage import raidmap
from ..storage.raid import LEVELS
from ..storage.spindle import QueuedSpindle, Spindle, copy_preference
from .parameters import PARAMETERS
from .spec import DownloadBody

PAGE_B = Kernel.page_B  # the default page size; a scenario's is its kernel.page_B
SPLICE_PAGES = 16  # sendfile reads through a pipe of 16 pages
MD5_FILE_B = 4096  # one page: the 32-hex-digit sum and the file name
INODE_B = 256  # an ext3/4 inode as mkfs makes them (the report does not name the file system)
# An ext3 directory entry: 8 bytes and the name, padded to 4. The data files' names are not given;
# Einstein@home's radio-pulsar work units have names of about 48 characters (estimated).
DIRENT_B = 8 + 48
HTREE_LEAF_FILL = (
    0.69  # a leaf split in two when full holds ln 2 of a block on average (hash-ordered inserts)
)
# Pairs simulated per run, at most: a longer run's time is their time scaled to its pairs (a steady
# rate; the ends of a run are a pair or two long). A pair's time varies by about a fifth (seeks and
# rotations), so a cell's throughput varies from seed to seed by about 2 % at 300 pairs and 0.4 to
# 0.6 % (standard deviation over seeds 1 to 5) at 2,000 (``python -m model.bench``). 300 keeps a
# cell near a tenth of a second (the whole table in 9 s); 2,000 would take the table to a minute.
SIMULATED_PAIRS = 300


def whole_pages_B(length_B: float, page_B: int = PAGE_B) -> int:
    """What ``length_B`` bytes take on disk and in the page cache: whole pages."""
    return math.ceil(length_B / page_B) * page_B


def read_ahead_windows(
    file_B: int, max_B: int, request_B: int | None = None, page_B: int = PAGE_B
) -> list[tuple[int, int]]:
    """The (offset, length) windows Linux's on-demand read-ahead reads a file in, front to back.

    As ``get_init_ra_size``: the first window is the request rounded up to a power of two, times
    four when that is at most 1/32 of the maximum, times two when at most 1/4, else the maximum;
    as ``get_next_ra_size``: each next window is four times the last below 1/16 of the maximum,
    else twice it, never above the maximum. Windows stop at the end of the file. A request is
    ``sendfile``'s pipe of pages unless ``request_B`` is given.
    """
    request_B = SPLICE_PAGES * page_B if request_B is None else request_B
    size = 1 << (max(request_B, page_B) - 1).bit_length()
    if size <= max_B // 32:
        size *= 4
    elif size <= max_B // 4:
        size *= 2
    else:
        size = max_B
    windows, offset = [], 0
    while offset < file_B:
        length = min(size, file_B - offset)
        windows.append((offset, length))
        offset += length
        size = min(size * 4 if size < max_B // 16 else size * 2, max_B)
    return windows


class Array:
    """The RAID volume: member drives behind the controller, reads split into member pieces. The
    controller keeps one command at a drive (``Spindle``, in arrival order) or up to
    ``drive_queue_depth`` (``QueuedSpindle``, the nearest first)."""

    def __init__(
        self, env: simpy.Environment, body: DownloadBody, disk: Disk, format_efficiency: float
    ):
        self.env = env
        self.level = body.level
        depth = body.drive_queue_depth
        self.queued = depth > 1
        self.drives = [
            QueuedSpindle(env, disk, format_efficiency, depth)
            if self.queued
            else Spindle(disk, format_efficiency)
            for _ in range(body.disks)
        ]
        self.chunk_B = body.chunk_KiB * 1024
        self.capacity_B = raidmap.capacity_B(body.level, body.disks, disk.capacity_GB * 1e9)
        layout = LEVELS[body.level]
        self.width = raidmap.data_members(body.level, body.disks)
        self.pairs = layout.pairs
        self.parity = layout.parity_chunks
        # the volume as the host sees it: time with a read in flight (iostat's %util of the device)
        self.in_flight = 0
        self.in_flight_since_s = 0.0
        self.waited_on_s = 0.0
        # reads whose completion is known when they are sent: the span they keep the volume busy
        self.span_from_s = self.span_to_s = 0.0

    def _track(self, done: simpy.Event) -> simpy.Event:
        """Count ``done`` as in flight until it fires."""
        if not self.in_flight:
            self.in_flight_since_s = self.env.now
        self.in_flight += 1

        def landed(_event) -> None:
            self.in_flight -= 1
            if not self.in_flight:
                self.waited_on_s += self.env.now - self.in_flight_since_s

        done.callbacks.append(landed)
        return done

    def waited_s(self) -> float:
        """Time so far with a read in flight."""
        return self.waited_on_s + self.span_to_s - self.span_from_s

    def commands(self, offset_B: int, length_B: int, now_s: float) -> list[list[int]]:
        """The read's member commands, [member, offset, length], contiguous pieces of a member
        merged (``raidmap.pieces`` written out: the hot path of the model)."""
        chunk_B, width, drives = self.chunk_B, self.width, len(self.drives)
        commands: list[list[int]] = []
        last: dict[int, int] = {}
        position, end = offset_B, offset_B + length_B
        while position < end:
            chunk, within = divmod(position, chunk_B)
            take = chunk_B - within
            if take > end - position:
                take = end - position
            row, column = divmod(chunk, width)
            member_offset = row * chunk_B + within
            if self.pairs:
                member = self._copy((2 * column, 2 * column + 1), member_offset, last, now_s)
            elif self.parity:
                member = ((drives - 1 - row % drives + self.parity) % drives + column) % drives
            else:
                member = column % drives
            i = last.get(member)
            if i is not None and commands[i][1] + commands[i][2] == member_offset:
                commands[i][2] += take
            else:
                last[member] = len(commands)
                commands.append([member, member_offset, take])
            position += take
        return commands

    def read(self, offset_B: int, length_B: int) -> simpy.Event:
        """Submit a logical read now; an event that fires when its last member piece completes."""
        now = self.env.now
        commands = self.commands(offset_B, length_B, now)
        if not self.queued:  # in arrival order, a command's completion is known when it is sent
            drives, done = self.drives, now
            for member, offset, length in commands:
                completes = drives[member].submit(now, offset, length)
                if completes > done:
                    done = completes
            if now > self.span_to_s:  # the volume was idle: a new busy span
                self.waited_on_s += self.span_to_s - self.span_from_s
                self.span_from_s = now
            if done > self.span_to_s:
                self.span_to_s = done
            return self.env.timeout(done - now)
        done, left = self.env.event(), [len(commands)]

        def piece_done(_event) -> None:
            left[0] -= 1
            if not left[0]:
                done.succeed()

        for member, offset, length in commands:
            self.drives[member].enqueue(offset, length, piece_done)
        return self._track(done)

    def _copy(
        self, members: tuple[int, int], offset_B: int, last: dict[int, int], now: float
    ) -> int:
        """The mirror to read a piece from: one this read uses, else ``copy_preference``'s."""
        for member in members:
            if member in last:
                return member
        return min(members, key=lambda m: copy_preference(self.drives[m], now, offset_B))


class Directory:
    """Where a file's directory keeps its metadata: the inode table (a data file's inode, then its
    md5 file's) at the start of the directory's files, the hashed index's root after it, and its
    leaf blocks spread over the files, each written as the directory grew. Files are numbered across
    the data set, ``slot_B`` apart.
    """

    def __init__(self, files_per_directory: int, slot_B: int, page_B: int = PAGE_B):
        entries = 2 * files_per_directory  # a data file and its md5 file each
        self.leaves = max(1, math.ceil(entries * DIRENT_B / (page_B * HTREE_LEAF_FILL)))
        self.files_per_directory = files_per_directory
        self.slot_B = slot_B
        self.page_B = page_B
        self.root_offset_B = whole_pages_B(entries * INODE_B, page_B)

    def start_B(self, index: int) -> int:
        """Where the directory holding file ``index`` begins."""
        return index // self.files_per_directory * self.files_per_directory * self.slot_B

    def inode_page_B(self, index: int) -> int:
        """The inode-table page holding file ``index``'s inode (and its md5 file's, the next)."""
        return (
            self.start_B(index)
            + (index % self.files_per_directory) * 2 * INODE_B // self.page_B * self.page_B
        )

    def root_B(self, index: int) -> int:
        return self.start_B(index) + self.root_offset_B

    def leaf_B(self, index: int, leaf: int) -> int:
        """A leaf's place: the last page of the slot of the file being written when it was added."""
        file = leaf * self.files_per_directory // self.leaves
        return self.start_B(index) + (file + 1) * self.slot_B - self.page_B


class Socket:
    """A connection's send side: what the worker has written into it, what the link delivered.

    The socket holds at most ``capacity`` of payload beyond what the client has acknowledged (a
    function of the bytes acknowledged: the send buffer opens with the congestion window on a new
    connection); ``room_B`` is what it can take now.
    What is written crosses the server's link as one TCP flow at a time, all that is queued when it
    starts, sharing the link max-min fairly with the other connections (``model.sim.flows``). A
    worker whose write found the buffer full is woken, as epoll does, when the free space is at
    least half of what is still queued (``sk_stream_min_wspace``); the model looks when a flow ends,
    so a worker that filled the buffer at once is woken when the link has taken all of it.
    """

    def __init__(self, net: FlowNetwork, link, capacity: Callable[[float], float]):
        self.net, self.link, self.capacity = net, link, capacity
        self.written_B = self.delivered_B = self.sending_B = 0.0
        self._writable: simpy.Event | None = None
        self._drained: simpy.Event | None = None

    def room_B(self) -> float:
        return self.capacity(self.delivered_B) - (self.written_B - self.delivered_B)

    def write(self, length_B: float) -> None:
        self.written_B += length_B
        if not self.sending_B:
            self._send()

    def writable(self) -> simpy.Event:
        self._writable = self.net.env.event()
        return self._writable

    def drained(self) -> simpy.Event:
        self._drained = self.net.env.event()
        if self.written_B == self.delivered_B:
            self._drained.succeed()
        return self._drained

    def _send(self) -> None:
        self.sending_B = self.written_B - self.delivered_B
        self.net.transfer(self.sending_B, {self.link: 1.0}, name="send").done.callbacks.append(
            self._sent
        )

    def _sent(self, _event) -> None:
        self.delivered_B += self.sending_B
        self.sending_B = 0.0
        queued = self.written_B - self.delivered_B
        if queued:
            self._send()
        if self._writable is not None and self.room_B() >= queued / 2:
            self._writable, event = None, self._writable
            event.succeed()
        if self._drained is not None and not queued:
            self._drained.succeed()


class Server:
    """nginx workers, the page cache's read-ahead and the 1 GbE link in front of the array."""

    def __init__(
        self,
        env: simpy.Environment,
        body: DownloadBody,
        disk: Disk,
        nic_Bps: float,
        params: dict[str, float],
        read_ahead_KiB: float,
        rng: random.Random,
    ):
        self.env = env
        self.rng = rng
        self.array = Array(env, body, disk, params["disk_format_efficiency"])
        self.net = FlowNetwork(env)
        self.link = self.net.resource("server link", nic_Bps / tcp_wire_per_byte(body.mtu_B))
        self.workers = [simpy.Resource(env, 1) for _ in range(body.server.workers)]
        self.worker_connections = [0] * body.server.workers
        self.worker_busy_s = 0.0
        self.worker_asleep_s = {
            "opening": 0.0,
            "data": 0.0,
        }  # a worker's time asleep on reads, by what it read
        self.file_B = int(round(body.workload.file_size_KiB * 1024))
        self.md5_check_s = self.file_B / (body.workload.client_md5_MBps * 1e6)
        self.page_B = page_B = body.kernel.page_B
        # the page cache reads the last page whole
        self.file_pages_B = whole_pages_B(self.file_B, page_B)
        self.windows = read_ahead_windows(
            self.file_pages_B, int(read_ahead_KiB * 1024), page_B=page_B
        )
        self.files = body.workload.dataset_files
        self.slot_B = int(self.array.capacity_B / self.files) // page_B * page_B
        self.directory = Directory(body.workload.files_per_directory, self.slot_B, page_B)
        self.keep_alive = body.server.connections == "keep_alive"
        # a socket's send buffer (net.ipv4.tcp_wmem): its default at first, at most its max
        _, wmem_default_B, wmem_max_B = body.tcp.tcp_wmem_B
        mss, initial = mss_B(body.mtu_B), body.tcp.initial_window_segments
        if self.keep_alive:
            self.send_buffer_B = lambda acked_B: wmem_max_B
        else:
            self.send_buffer_B = lambda acked_B: min(
                wmem_max_B, send_buffer_payload_B(acked_B, mss, initial, wmem_default_B)
            )

    def fetch_pair(self):
        """SimPy process: one client's request for a random data file, then for its md5 file.

        The worker ``sendfile``s the data file window by window into the connection's socket,
        sleeping on each window until its read is done; when the socket's send buffer is full it
        turns to its other connections until the link has drained enough of it (``Socket``). The
        client has the file when its last byte has crossed the link, and only then asks for the md5
        file.
        """
        index = self.rng.randrange(self.files)
        directory = self.directory
        start = index * self.slot_B
        leaves = self.rng.randrange(directory.leaves), self.rng.randrange(directory.leaves)
        worker = self._accept()
        socket = Socket(self.net, self.link, self.send_buffer_B)
        turn = yield from self._take(worker)
        for offset_B in (
            directory.root_B(index),
            directory.leaf_B(index, leaves[0]),
            directory.inode_page_B(index),
        ):
            yield from self._until(self.array.read(offset_B, self.page_B), "opening")
        done = self.array.read(start, self.windows[0][1])
        for k, (window_B, length) in enumerate(self.windows):
            if k + 1 < len(self.windows):  # reaching window k starts the read of window k + 1
                offset, size = self.windows[k + 1]
                ahead = self.array.read(start + offset, size)
            yield from self._until(done, "data")
            length = min(length, self.file_B - window_B)  # the file's bytes in the window's pages
            while length > 0:
                room = socket.room_B()
                if room <= 0:  # EAGAIN: the worker serves its other connections meanwhile
                    self._give(worker, turn)
                    yield socket.writable()
                    turn = yield from self._take(worker)
                    continue
                written = min(room, length)
                socket.write(written)
                length -= written
            if k + 1 < len(self.windows):
                done = ahead
        self._give(worker, turn)
        yield socket.drained()
        if (
            not self.keep_alive
        ):  # the md5 file comes on a new connection, to whichever worker takes it
            worker = self._accept(closing=worker)
        turn = yield from self._take(worker)
        if leaves[1] != leaves[0]:  # the md5 file's name is in another leaf
            yield from self._until(
                self.array.read(directory.leaf_B(index, leaves[1]), self.page_B), "opening"
            )
        yield from self._until(self.array.read(start + self.file_pages_B, MD5_FILE_B), "data")
        self._give(worker, turn)
        self.worker_connections[worker] -= 1
        yield self.env.timeout(self.md5_check_s)  # the client compares the file with its md5 sum

    def _accept(self, closing: int | None = None) -> int:
        """The worker that takes a new connection: the one with the fewest (``closing`` closed)."""
        if closing is not None:
            self.worker_connections[closing] -= 1
        worker = min(range(len(self.workers)), key=lambda w: self.worker_connections[w])
        self.worker_connections[worker] += 1
        return worker

    def _take(self, worker: int):
        """Wait until ``worker`` turns to this connection; returns the turn to give back."""
        turn = self.workers[worker].request()
        yield turn
        turn.began_s = self.env.now
        return turn

    def _give(self, worker: int, turn) -> None:
        self.worker_busy_s += self.env.now - turn.began_s
        self.workers[worker].release(turn)

    def _until(self, done: simpy.Event, kind: str):
        """Sleep (in the kernel, the worker with its other connections) until the read ``done`` is;
        ``kind``: what the read is for, "opening" a file (directory and inode) or its "data"."""
        if not done.processed:
            asleep_s = self.env.now
            yield done
            self.worker_asleep_s[kind] += self.env.now - asleep_s


def check(scenario: Scenario, catalog: Catalog) -> tuple[Disk, Nic]:
    """The configuration's mistakes a schema cannot see: drives beyond the controller's ports, a
    level the read mapping has no layout for, too few drives for the level, a data set the volume
    cannot hold. Returns the drive and the server's NIC."""
    body: DownloadBody = scenario.body
    where = scenario.path
    controller = catalog.get("controllers", body.controller, where, "controller")
    if body.disks > controller.channels:
        raise UserError(
            where,
            "disks",
            f"the {controller.name} has {controller.channels} drive ports, got {body.disks}",
        )
    layout = LEVELS[body.level]
    if not layout.striped_reads:
        striped = ", ".join(name for name, level in LEVELS.items() if level.striped_reads)
        raise UserError(
            where, "level", f"the download server's array is one of {striped}, got {body.level}"
        )
    problem = layout.problem(body.disks)
    if problem:
        raise UserError(where, "disks", f"{problem}, got {body.disks}")
    disk = catalog.get("disks", body.disk, where, "disk")
    if body.drive_queue_depth > disk.queue_depth:
        raise UserError(
            where,
            "drive_queue_depth",
            f"the {disk.name.split(',')[0]} holds at most {disk.queue_depth} commands, "
            f"got {body.drive_queue_depth}",
        )
    capacity_B = raidmap.capacity_B(body.level, body.disks, disk.capacity_GB * 1e9)
    page_B = body.kernel.page_B
    slot_B = whole_pages_B(body.workload.file_size_KiB * 1024, page_B) + page_B + MD5_FILE_B
    if body.workload.dataset_files * slot_B > capacity_B:
        raise UserError(
            where,
            "workload.dataset_files",
            f"{body.workload.dataset_files} files of {body.workload.file_size_KiB:g} KiB and their "
            f"md5 files do not fit on the {capacity_B / 1e12:.2f} TB {body.level} volume",
        )
    return disk, catalog.get("nics", body.server_nic, where, "server_nic")


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    disk, nic = check(scenario, catalog)
    body: DownloadBody = scenario.body
    tuned = body.server.scheduler == "deadline_optimized"
    read_ahead = body.server.read_ahead_KiB or (
        params["tuned_read_ahead_KiB"] if tuned else body.kernel.read_ahead_KiB
    )
    env = simpy.Environment()
    rng = random.Random(int(stream(scenario.seed, "download").integers(2**63)))
    server = Server(env, body, disk, nic_rate_Bps(catalog, nic), params, read_ahead, rng)
    pairs = body.workload.files
    simulated = min(pairs, SIMULATED_PAIRS)
    remaining = [simulated]

    def client():
        while remaining[0] > 0:
            remaining[0] -= 1
            yield from server.fetch_pair()

    for _ in range(body.workload.clients):
        env.process(client())
    env.run()
    elapsed = env.now * pairs / simulated
    pair_B = server.file_B + MD5_FILE_B
    bytes_moved = pairs * pair_B
    drives = server.array.drives
    ran = env.now
    # The bottleneck law: each resource's demand per pair (seconds of it a pair uses) and how many
    # serve at once. A worker asleep on a read uses no CPU: its CPU is its turns less its sleeps
    # (nil in this model, which gives a worker no CPU cost, so the workers bound nothing).
    worker_cpu_s = max(0.0, server.worker_busy_s - sum(server.worker_asleep_s.values()))
    demand_s = {"server link": (server.link.carried / server.link.capacity / simulated, 1)}
    demand_s.update({f"drive {i}": (d.busy_s / simulated, 1) for i, d in enumerate(drives)})
    demand_s["nginx workers"] = (worker_cpu_s / simulated, len(server.workers))
    bound_MBps = min(n * pair_B / d for d, n in demand_s.values() if d > 0) / 1e6
    utilization = {name: d * simulated / (n * ran) for name, (d, n) in demand_s.items()}
    # What limits a server whose workers sleep on reads is the wait for its drives, though no single
    # drive is saturated: the share of the time the volume has a read in flight.
    utilization["drives (a read in flight)"] = server.array.waited_s() / ran
    reads = sum(d.reads for d in drives)
    hits = sum(d.cache_hits for d in drives)
    notes = (
        f"read-ahead window {read_ahead:.0f} KiB: {len(server.windows)} windows per file",
        f"{reads / simulated:.1f} drive commands per pair, "
        f"{100 * hits / max(reads, 1):.0f}% from the drives' caches",
        "workers asleep on reads: "
        + ", ".join(
            f"{1e3 * s / simulated:.1f} ms a pair {kind}"
            for kind, s in server.worker_asleep_s.items()
        ),
    )
    return Result(
        scenario=scenario.name,
        bytes_moved=bytes_moved,
        elapsed_s=elapsed,
        utilization=utilization,
        bound_MBps=bound_MBps,
        notes=notes,
    )


MODEL = ModelRecord(
    "download_server",
    DownloadBody,
    simulate,
    PARAMETERS,
    lambda body: "a request-level simulation, about 1 s a table cell",
)
